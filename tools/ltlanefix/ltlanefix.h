/* See LICENSE file for copyright and license details. */
/*
 * ltlanefix.h: the private modules of ltlanefix(1), one block per file.
 *
 * lanes.c places the X slices of one track, one after the other, into
 * lanes that do not cross; cross.c counts crossing pairs; thr.c reads
 * and shows the -t threshold; ids.c knows the threads by their pid and
 * tid and makes the tids of new lanes; put.c writes records back with
 * their new columns and names the lanes; report.c makes trace-lanefix's
 * report; whole.c holds a whole stream, places it and writes it back in
 * its order; live.c places a stream as it goes; with -k, split.c writes
 * the slices as B and E records in time order, sorted by sort.c, and
 * late.c binds the flows that came after their slices.
 */
#ifndef LTLANEFIX_H
#define LTLANEFIX_H

#include "lt.h"
#include "progress.h"

#define LF_NONE		UINT32_MAX
#define LF_TMAX		((int64_t)1 << 62)	/* slice times in +-TMAX */

/* lanes.c: the placement engine. */
struct lfslice {
	int64_t		 ts, end;	/* as read, ns */
	int64_t		 nts, nend;	/* as placed */
	uint32_t	 lane;		/* 0: the track itself */
	uint32_t	 snaps;		/* snap steps taken */
};

struct lfent;			/* an open slice on a lane */
struct lfkey;			/* what slices are sorted by */

/*
 * What the tracks share: the open slices of every lane, sort scratch.
 * Zero it to start.
 */
struct lflanes {
	struct lfent	*e;
	size_t		 ne, cape;
	uint32_t	 freel;		/* free entry + 1, 0 for none */
	struct lfkey	*keys;
	size_t		 keyscap;
};

/* The lanes of one track, as the slices placed so far left them. */
struct lftrack {
	uint32_t	 top0;		/* lane 0's top slice */
	uint32_t	*top;		/* lane k's top slice */
	size_t		 topcap;
	uint32_t	 nlanes;
	int64_t		*tmax, *tmin;	/* segment tree over lanes */
	size_t		 leaves;
};

void	lf_track_init(struct lftrack *);
uint32_t lf_track_put(struct lflanes *, struct lftrack *, struct lfslice *,
	    int64_t);
int	lf_track_open0(const struct lflanes *, const struct lftrack *,
	    int64_t);
void	lf_track_bottom(struct lflanes *, struct lftrack *, int64_t, int64_t);
void	lf_track_free(struct lflanes *, struct lftrack *);
void	lf_lanes_sort(struct lflanes *, const struct lfslice *, uint32_t *,
	    size_t);
void	lf_lanes_free(struct lflanes *);

/*
 * cross.c: crossing pairs (a.s < b.s < a.e < b.e) of intervals given in
 * order of start.  lfset is the multiset of the ends still open.
 */
struct lfrun;

struct lfset {
	int64_t		*a;		/* sorted runs, side by side */
	size_t		 cap, end;
	struct lfrun	*run;
	size_t		 caprun;
	int		 nrun;
	size_t		 live;
	int64_t		*tmp;
	size_t		 tmpcap;
};

struct lfxc {
	struct lfset	 set;		/* ends of the open ones begun before gs */
	int64_t		 gs;		/* start of the group being gathered */
	int64_t		*grp;		/* its ends */
	size_t		 ngrp, grpcap;
	int		 any;
};

uint64_t lf_xc_add(struct lfxc *, int64_t, int64_t);
void	lf_xc_open(const struct lfxc *, int64_t, int64_t, uint64_t *,
	    uint64_t *);
void	lf_xc_late(struct lfxc *, int64_t, int64_t);
void	lf_xc_reset(struct lfxc *);
void	lf_xc_free(struct lfxc *);

/* thr.c: -t as Python's float() reads it, in ns rounded up. */
int	lf_thr_parse(const char *, int64_t *, char *, size_t);

/*
 * ids.c: a pid or tid as a track key, an integer or any other JSON
 * text compared byte for byte (strings with their quotes); the text of
 * a stored one is in ids.text.
 */
enum { ID_INT, ID_TEXT };

struct id {
	const char	*p;		/* ID_TEXT, a key being looked up */
	int64_t		 v;		/* ID_INT; ID_TEXT stored: offset in
					   ids.text */
	uint32_t	 len;		/* ID_TEXT */
	int		 kind;
};

struct lane {
	uint32_t	 k;
	uint32_t	 tid, tidlen;	/* the tid column text, in ids.text */
};

/*
 * A thread: one of every (pid, tid) ever seen, so it is small.  Its pid
 * and tid are kept as struct id's v, an ID_TEXT as a counted text (its
 * length, then it, in ids.text); lf_key gives them back.  The names are
 * counted texts too, each text kept once (ids.names).  32 bytes.
 */
struct thread {
	int64_t		 pid, tid;	/* the value, or offset in ids.text */
	uint32_t	 track;		/* index + 1 in tracks, 0 for none */
	uint32_t	 name;		/* counted text in ids.text: thread_name
					   contents; 0: none */
	uint32_t	 sort;		/* thread_sort_index value */
	unsigned	 pidtext : 1;	/* pid is an ID_TEXT */
	unsigned	 tidtext : 1;
	unsigned	 islane : 1;	/* a lane's tid */
	unsigned	 ren : 29;	/* a lane's tid: + 1, the thread of its
					   records; else + 1, a thread renamed,
					   its tid column in ids.col */
};

#define LF_NCACHE	8

struct idcache {
	char		 key[48];	/* "PID\tTID" as the columns have it */
	size_t		 keyn;
	uint32_t	 thread;
};

struct ids {
	struct thread	*th;
	size_t		 n, cap;
	struct ltix	 slot;		/* the threads, by pid and tid */
	struct ltbuf	 text;
	struct ltmap	 names;		/* the names' texts, each once */
	struct lane	*col;		/* the tid columns of threads renamed */
	size_t		 ncol, capcol;
	int64_t		 nextfb;	/* lane tids counted from here */
	struct ltbuf	 base;		/* scratch */
	struct idcache	 cache[LF_NCACHE];	/* the threads of late */
	unsigned	 hand;		/* the latest */
};

void	lf_ids_init(struct ids *);
const char *lf_text(const struct ids *, size_t);
const char *lf_counted(const struct ids *, size_t, size_t *);
void	lf_key(const struct ids *, uint32_t, int, struct id *);
int	lf_getid(const struct ltrec *, int, struct id *);
uint32_t lf_thread(struct ids *, const struct id *, const struct id *, int);
uint32_t lf_cached(struct ids *, const struct ltrec *);
uint32_t lf_threadof(struct ids *, const struct ltrec *, int);
void	lf_meta(struct ids *, const struct ltrec *, uint32_t);
void	lf_newlane(struct ids *, uint32_t, uint32_t, struct lane *);
uint32_t lf_rename(struct ids *, uint32_t);
const struct lane *lf_col(const struct ids *, uint32_t);
void	lf_showval(struct ltbuf *, const char *, size_t);
void	lf_show(struct ltbuf *, const struct ltfield *, int);
void	lf_showid(struct ltbuf *, const struct ids *, const struct id *);
void	lf_ids_free(struct ids *);

/*
 * What places the slices of a track: made at its first slice, let go
 * when no slice to come can cross one placed (lf_track_done) and made
 * again if more come.
 */
struct lfplace {
	struct lftrack	 eng;
	struct lfxc	 before;	/* crossings of the slices as read */
	struct lfxc	*after;		/* and per lane, as placed */
	size_t		 capafter;
};

/* The lanes of a track, as many as it needed. */
struct lanes {
	uint32_t	 n;
	struct lane	 l[];		/* lane k is l[k - 1]; room for 1, 2,
					   4... */
};

/*
 * A track: a thread with X slices, and the lanes they needed.  It stays
 * to the end (the lanes are named then), so it is small: 16 bytes (what
 * the report counts per track is in the report).
 */
struct track {
	uint32_t	 thread;
	uint32_t	 pl;		/* index + 1 in lf.pl; 0: none now */
	struct lanes	*lanes;		/* NULL: none */
};

/*
 * track.c: the state of ltlanefix, and the placing of one slice: on its
 * lane, counted, reported.
 */
struct lf {
	struct ltout	 out;
	struct ids	 ids;
	struct lflanes	 work;
	struct track	*tracks;
	size_t		 ntracks, captracks;
	struct lfplace	**pl;		/* of the tracks being placed */
	size_t		 npl, cappl;
	uint32_t	*freepl;	/* entries of pl let go */
	size_t		 nfreepl, capfreepl;
	struct report	*rep;		/* NULL with -q */
	struct ltprog	 prog;		/* --progress-fd, after the input */
	int64_t		 thr;		/* ns; strict: a shift < thr snaps */
	int		 kflag;		/* slices written as B and E */
	int		 lateflows;	/* -k: flows may come after their
					   slices (#lateflows) */
	int		 online;	/* lf_place counts the crossings */
	long long	 nevents, nslices, nunplaced, nbe, nflows, nlanes;
	long long	 nsnaps, nsnapped, nchanged, nmoved, nrewritten;
	long long	 nadded, nsplit, nlate, nlatef, nrenamed;
	uint64_t	 xbefore, xafter;
};

void	lf_cols(char *, size_t, struct ltfield *);
uint32_t lf_record(struct lf *, struct ltrd *, const struct ltrec *,
	    int64_t[2], int[2]);
uint32_t lf_idthread(struct lf *, const struct ltrec *, int);
void	lf_slicetimes(struct ltrd *, int64_t, int64_t, struct lfslice *);
struct lfplace *lf_placer(struct lf *, uint32_t);
struct lfxc *lf_after(struct lf *, uint32_t, uint32_t);
uint32_t lf_nlane(const struct track *);
const struct lane *lf_lane(const struct track *, uint32_t);
int	lf_isours(const char *, size_t);
uint32_t lf_track(struct lf *, uint32_t, char *, size_t);
void	lf_place(struct lf *, uint32_t, struct lfslice *, char *, size_t);
void	lf_place_late(struct lf *, uint32_t, struct lftrack *, uint32_t,
	    struct lfxc *, struct lfslice *, char *, size_t);
int	lf_follow(const struct lfslice *, int64_t, int, int64_t *, int *);
const struct lane *lf_laneof(const struct lf *, uint32_t,
	    const struct lfslice *);
int	lf_changed(const struct lfslice *);
void	lf_track_done(struct lf *, uint32_t);
void	lf_free(struct lf *);

/* put.c: records with new columns, the naming of new lanes. */
void	lf_putrec(struct ltout *, const struct ltfield *, const int64_t *,
	    const struct ids *, const struct lane *, const int64_t *,
	    const int64_t *);
void	lf_putslice(struct ltout *, const struct ltfield *,
	    const struct lfslice *, const struct ids *, const struct lane *);
void	lf_putbe(struct ltout *, const struct ltfield *,
	    const struct lfslice *, const struct ids *, const struct lane *,
	    int);
long long lf_putlanes(struct ltout *, const struct ids *,
	    const struct track *, size_t);

/*
 * report.c: trace-lanefix's report.  Tracks are announced in their
 * order, changed slices per track in the order they were placed.
 */
struct report;

struct report *lf_rep_new(const char *);
void	lf_rep_track(struct report *, size_t, const struct ltfield *);
void	lf_rep_placed(struct report *, size_t, const struct lfslice *);
void	lf_rep_slice(struct report *, size_t, const struct ltfield *,
	    const struct lfslice *, const struct ids *, const struct lane *);
enum {
	LF_RSNAPS, LF_RCHANGED, LF_RFLOWS, LF_RLATE, LF_RLATEF, LF_RRENAMED,
	LF_RN
};
void	lf_rep_write(struct report *, const struct track *, size_t,
	    const long long *);
void	lf_rep_free(struct report *);

/* whole.c: a whole stream, held, placed, written back in its order. */
enum { LF_LINE, LF_SLICE, LF_FLOW };

struct lfheld {
	char		*p;		/* the line, without its newline */
	size_t		 n;
	int		 kind;
	uint32_t	 thread;
	struct lfslice	 x;		/* LF_SLICE */
	int64_t		 ts;		/* LF_FLOW */
	int		 next;
	int		 rec, meta;	/* LF_LINE: a record, an M record */
};

void	lf_whole_add(struct lf *, struct ltrd *, const struct ltrec *, int);
void	lf_whole_end(void);
int	lf_whole_held(size_t *, struct lfheld *);
void	lf_whole_place(struct lf *);
void	lf_whole_write(struct lf *);
void	lf_whole_free(void);

/*
 * sort.c: records sorted by a key, in bounded memory (a temporary file
 * beyond): the key's members mean what the comparison makes them mean.
 */
struct lfskey {
	int64_t		 ts, sub;
	uint64_t	 seq;
	uint32_t	 grp;
	uint8_t		 cls, end;
};

typedef int	(*lfkeycmp)(const struct lfskey *, const struct lfskey *);
typedef void	(*lfeach)(void *, const struct lfskey *, const char *, size_t);
struct lfsort;

int	lf_sort_tcs(const struct lfskey *, const struct lfskey *);
struct lfsort *lf_sort_new(lfkeycmp, const char *);
struct ltout *lf_sort_put(struct lfsort *, uint32_t, int, int64_t, int64_t,
	    uint64_t, int);
void	lf_sort_each(struct lfsort *, lfeach, void *, struct ltprog *,
	    long long);
void	lf_sort_free(struct lfsort *);

/*
 * split.c: -k's output, sorted: each record given with where it sorts,
 * all written at the end.
 */
enum { LF_KHEAD, LF_KEND, LF_KNEXT, LF_KBEGIN, LF_KPOINT, LF_KOTHER };

struct ltout *lf_split_put(int, int64_t, int64_t, uint64_t, int);
void	lf_split_slice(struct lf *, const struct ltfield *,
	    const struct lfslice *, const struct lane *, uint64_t);
struct ltout *lf_split_line(char *, size_t, uint64_t);
void	lf_split_write(struct lf *, long long);
void	lf_split_free(void);

/*
 * late.c: with -k, the flows that come after the slices they bind to,
 * bound at the end to the slices kept.
 */
typedef void	(*lflatebind)(struct lf *, uint32_t, const struct lfslice *,
		    int64_t, int, uint64_t, const char *, size_t);

void	lf_late_slice(uint32_t, const struct lfslice *, uint64_t);
void	lf_late_flow(uint32_t, int64_t, int, uint64_t, const char *, size_t);
void	lf_late_join(struct lf *, lflatebind);
void	lf_late_free(void);

/* live.c: a stream placed as it goes, told by ltpair what may come. */
void	lf_live_start(struct lf *);
void	lf_live_rec(struct lf *, struct ltrd *, const struct ltrec *);
void	lf_live_dir(struct lf *, const struct ltrec *);
void	lf_live_drain(struct lf *);
void	lf_live_end(struct lf *);
void	lf_live_free(void);

#endif
