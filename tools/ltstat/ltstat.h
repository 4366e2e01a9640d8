/* See LICENSE file for copyright and license details. */
/*
 * ltstat.h: the parts of ltstat(1), which no other program uses.
 *
 * input.c takes the records of the stream one by one; hist.c keeps the
 * durations of a category (exact totals, percentiles); ctr.c puts a
 * worker's chunk counters in time order; run.c holds the processes,
 * threads, ranks and workers of the input and what ltstat learns about
 * them (waits, chunks, flows); sleep.c packs what a process left alone
 * holds; cause.c splits each wait by what the rank's workers were
 * doing; steps.c pairs the steps of all ranks; emit.c writes the
 * records that -t adds to the stream;
 * verdict.c says what the figures mean; report.c writes the report, as
 * text or JSON; compare.c compares two JSON reports.  Times are int64
 * nanoseconds throughout.
 */
#ifndef LTSTAT_H
#define LTSTAT_H

#include "lt.h"
#include "idtab.h"
#include "strtab.h"

#define NS_PER_S	1000000000LL

/* Sums and differences of times that saturate instead of overflowing. */
static inline int64_t
sadd(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static inline int64_t
ssub(int64_t a, int64_t b)
{
	if (b < 0 && a > INT64_MAX + b)
		return INT64_MAX;
	if (b > 0 && a < INT64_MIN + b)
		return INT64_MIN;
	return a - b;
}

/* -------- hist.c -------- */

/* The first HIST_EXACT durations are kept; then log buckets. */
#define HIST_EXACT	2048
#define HIST_SUB	9		/* 2^-9 relative bucket width */

struct hist {
	long long	 n;
	int64_t		 sum;
	int64_t		 min;
	int64_t		 max;
	int64_t		*v;		/* the durations, n <= HIST_EXACT */
	uint64_t	**bkt;		/* log buckets, once n > HIST_EXACT: */
					/*   rows, each made when first used */
};

void	st_hist_add(struct hist *, int64_t);
int64_t	st_hist_pct(struct hist *, int);
int	st_hist_isexact(const struct hist *);
void	st_hist_free(struct hist *);

/* -------- ctr.c -------- */

/* A change of a worker's counters at ts, not yet in time order. */
struct ctrpt {
	int64_t		 ts;
	int		 ddl;		/* chunks downloading: +1, -1 */
	int		 dcache;	/* chunks in the cache: +1, -1 */
};

/* A worker's counters as they change: what waits, and the values. */
struct ctrq {
	struct ctrpt	*heap;
	size_t		 n;
	size_t		 cap;
	int64_t		 latest;	/* the latest time of the process */
	int64_t		 horizon;	/* how far behind it changes may come */
	int64_t		 done;		/* changes up to here are written */
	int		 started;
	int		 haslatest;
	long long	 dl, cache;	/* the values, in time order */
};

/* What the report says of them. */
struct ctr {
	long long	 dlmax, cachemax;
	long long	 late;		/* changes that came after done */
	long long	 forced;	/* released early: the heap was full */
};

struct proc;
void	st_ctr_push(struct proc *, int64_t, int, int);
void	st_ctr_advance(struct proc *, int64_t);
void	st_ctr_flush(struct proc *);
void	st_ctr_free(struct ctrq *);

/* -------- cause.c: the causes of a wait -------- */

enum {
	C_STARTUP,		/* new worker processes not producing yet */
	C_DOWNLOAD,		/* a chunk downloading, none being read */
	C_READ,			/* workers reading chunks or samples */
	C_IDLE,			/* nothing in flight */
	C_UNKNOWN,		/* the log has no chunk events */
	NCAUSE
};

extern const char *const st_causekey[NCAUSE];	/* "startup", ... */
extern const char *const st_causename[NCAUSE];	/* "start-up", ... */

/* A time line: sorted disjoint intervals [a, b), from v[off]. */
struct ivl {
	int64_t		 a, b;
};

struct tl {
	struct ivl	*v;
	size_t		 off, n, cap;
};

/* A wait found, to be split once what overlaps it has come. */
struct pwait {
	struct rank	*r;
	int64_t		 ep, batch, ts, dur;
	int		 first;		/* the first wait of its epoch */
};

/* -------- run.c -------- */

struct thr {
	struct ltid	 h;		/* key: TAB pid TAB tid */
	struct proc	*p;
	struct thr	*sib;		/* the thread of p made before */
	uint32_t	 no;		/* its order in p: 0 the first */
	uint32_t	 name;		/* thread_name, a JSON string */
	uint32_t	 sort;		/* thread_sort_index, as written */
					/*   (in ST.text: index + 1, 0 none) */
};

/* Where the tid is in the key of thread t: after its process's key. */
#define TIDOFF(t)	((size_t)(t)->p->h.keyn + 1)

/* A span of a thread: where a flow binds. */
struct span {
	int64_t		 ts;
	int64_t		 dur;
	struct thr	*t;
};

/* A chunk as a worker handles it: download, read, delete. */
struct chunk {
	int64_t		 id;
	int64_t		 gone;		/* deleted here, download not linked */
	unsigned char	 used;
	unsigned char	 held;		/* downloaded, not yet deleted */
	unsigned char	 hasdl, dllinked;
	unsigned char	 hasrd, rdlinked;
	unsigned char	 isgone;	/* gone is set */
	struct span	 dl;		/* its last download */
	struct span	 rd;		/* its last read */
};

struct rank;
struct group;

/* What the report says of a worker (st_fig). */
struct fig {
	long long	 ndl, nrd, ndel;
	int64_t		 dlsum, rdsum;
	long long	 ngather;	/* chunks fetched in async gathers */
	long long	 nunfin;	/* downloads never finished */
	struct ctr	 ctr;
};

/*
 * What a worker's downloads, reads and deletes need while they come:
 * its chunks, its counters' changes, its last prefetch and gather, and
 * its figures.  A process that sleeps (sleep.c) has it packed;
 * st_warm brings it back.
 */
struct pio {
	struct chunk	*ch;		/* open addressing, by chunk id */
	size_t		 nch, capch;
	size_t		 ngone;		/* chunks of ch that are gone */
	int64_t		 gonemin;	/* ... the earliest of their times */
	struct ctrq	 q;
	int64_t		 maxdl;		/* the longest download */
	long long	 gheld;		/* chunks of gathers in the cache */
	long long	 dlsince;	/* downloads since its last prefetch */
	int64_t		 pts, pend;	/* its last prefetch */
	int		 pgather;	/* ... was a gather */
	int64_t		 gts, gend;	/* its last gather (hasgather) */
	struct ivl	*held;		/* reads before it: of a gather? */
	size_t		 nheld, capheld;
	struct fig	 f;
};

/*
 * What a process holds while its threads are awake (a rank's main
 * process: always, its threads never sleep).  A record of it wakes them
 * first; sleep.c packs node and dlhi with the threads.
 */
struct pext {
	struct thr	*thr0;		/* its first thread: its counters' */
	struct thr	*lastt;		/* its last, then by sib */
	struct rank	*main;		/* when it is a rank's main process */
	struct pio	*w;		/* awake: its I/O state, or NULL */
	long long	 node;		/* from its process_name, or -1 */
	int64_t		 dlhi;		/* the latest end of its downloads */
};

/*
 * A process: who it is and what the causes of waits read of it, kept to
 * the end; its pio, its figures included, and its pext while it is
 * awake.  A long job has thousands, most of them asleep, so it is small:
 * its flags are bits, its group a number, and its rank number is its
 * group's (st_prank).
 */
struct proc {
	struct ltid	 h;		/* key: TAB pid */
	uint32_t	 seq;		/* order of appearance */
	uint32_t	 nthr;		/* its threads */
	struct pext	*x;		/* its threads awake: NULL asleep */
	int64_t		 worker;	/* worker_rank, -1 unknown */
	int64_t		 first;		/* its earliest span */
	uint32_t	 grp;		/* its rank's group (st_grp), plus 1 */
	unsigned	 packed : 1;	/* asleep: its pio packed (sleep.c) */
	unsigned	 thrpk : 1;	/* asleep: its threads packed */
	unsigned	 known : 1;	/* rank and worker read */
	unsigned	 io : 1;	/* has downloads, reads or deletes */
	unsigned	 warm : 1;	/* used since the last sweep */
	unsigned	 hasfirst : 1;
	unsigned	 inwk : 1;	/* in its group's workers */
	unsigned	 sample : 1;	/* has sample spans */
	unsigned	 v1 : 1;	/* a log before 0.2.57 wrote it */
	unsigned	 hasgather : 1;
	unsigned	 prefetched : 1;	/* its first prefetch was seen */
};

/* The pio of p, awake, or NULL. */
static inline struct pio *
st_pio(const struct proc *p)
{
	return p->x != NULL ? p->x->w : NULL;
}

/* The rank p is the main process of, or NULL. */
static inline struct rank *
st_main(const struct proc *p)
{
	return p->x != NULL ? p->x->main : NULL;
}

/* A download or a read of a rank's workers, for what a wait overlaps. */
struct io {
	int64_t		 ts;
	int64_t		 end;
	struct proc	*p;
	int64_t		 chunk;		/* for a gather: how many chunks */
	int		 kind;		/* 'd' download, 'r' read, 'g' gather */
};

#define WAIT_ITEMS	12

struct wait {
	int64_t		 ts;
	int64_t		 dur;
	int64_t		 epoch;		/* -1 unknown */
	int64_t		 batch;		/* -1 unknown */
	struct io	 it[WAIT_ITEMS];
	int		 nit;
	long long	 more;		/* overlapping I/O not listed */
	int		 split;		/* cause is known */
	int64_t		 cause[NCAUSE];
};

/* What an epoch needs until its first wait is split (freepend). */
struct epwork {
	int64_t		 lower;		/* I/O ending before is forgotten */
	struct io	*pend;		/* I/O in flight in its first wait? */
	size_t		 npend, cappend;
	struct tl	 tr, td;	/* what the workers did in it */
	int64_t		 hk, hfrom, hwait, hbusy;	/* its head */
};

struct epoch {
	int64_t		 num;		/* its epoch arg, or its order */
	int64_t		 ts, dur;	/* its dataloader span (hasloader) */
	int64_t		 b0;		/* its first batch starts here (hasb0) */
	long long	 batches, open_batches;
	int64_t		 compute, wait, first;
	int64_t		 c0;		/* the compute of its batch 0 */
	int64_t		 cause[NCAUSE];
	struct epwork	*x;		/* until resolved */
	unsigned	 hasloader : 1;	/* its dataloader span was seen */
	unsigned	 open : 1;	/* ... and left open */
	unsigned	 hasb0 : 1;	/* its first batch was seen */
	unsigned	 resolved : 1;	/* first wait computed */
	/*
	 * Its first second of wait share (its head), until its first wait
	 * is known: set while headpend.
	 */
	unsigned	 headpend : 1, hashead : 1;
};

/* Data-wait share per second, as it is written (-t). */
struct share {
	int		 on;		/* a second is being filled */
	int64_t		 k;		/* which */
	int64_t		 from;		/* the first time it covers */
	int64_t		 wait, busy;
	long		 headep;	/* it is the first of epoch, or -1 */
	int64_t		 regend;	/* the end of the last batch */
	int		 inregion;
};

struct rank {
	struct proc	*p;
	struct thr	*main;		/* the thread of its batches */
	int64_t		 rank;
	long long	 batches, open_batches;
	int64_t		 compute, wait;
	long long	 nwaits;
	struct epoch	*ep;
	size_t		 nep, capep;
	int		 haslast;	/* the last batch */
	int64_t		 lastend, lastidx, lastep;
	struct wait	*top;		/* the longest waits, longest first */
	int		 ntop;
	struct share	 sh;
	char		 wtid[32];	/* the tid of its wait track */
	int		 wtidclash;
	int64_t		 cause[NCAUSE];
	int		 attempt;	/* of its rank number: 0, 1, ... */
	long long	 nslow;		/* steps where it waited longest */
	int64_t		 slowus;	/* ... and how long, in all */
};

struct group {
	int64_t		 rank;
	uint32_t	 no;		/* in ST.grpv */
	struct io	*io;		/* I/O that may overlap a future wait */
	size_t		 nio, capio;
	int64_t		 prune;		/* I/O ending before this cannot */
	struct rank	**r;
	size_t		 nr, capr;
	struct group	*next;
	/* What its workers did, for the causes of waits (cause.c). */
	struct tl	 tr, td;	/* reading, downloading */
	struct pwait	*pw;		/* waits to split, in order found */
	size_t		 offpw, npw, cappw;
	int64_t		 latest;	/* the latest end of its spans */
	int64_t		 maxspan;	/* its workers' longest span */
	int64_t		 resolved;	/* waits up to here are split */
	int		 haschunk;	/* its workers wrote chunk events */
	size_t		 pmark;		/* prune the time lines at this size */
	struct proc	**wk;		/* its worker processes */
	size_t		 nwk, capwk;
};

struct slow {
	struct proc	*p;
	int64_t		 chunk;
	int64_t		 ts;
	int64_t		 dur;		/* download, or read */
	int64_t		 rd;		/* read, -1 unknown */
	int		 unfin;		/* a download never finished */
};

struct cat {
	struct ltid	 id;		/* key: TAB name, as written */
	struct hist	 h;
};

#define CATNAME(c)	(lt_id_key(&(c)->id) + 1)
#define CATLEN(c)	((c)->id.keyn - 1)

/* What -t adds (emit.c) and which parts. */
enum { T_WAITS = 1, T_FLOWS = 2, T_COUNTERS = 4, T_SHARE = 8 };
#define T_ALL	(T_WAITS | T_FLOWS | T_COUNTERS | T_SHARE)

struct run {
	int		 tflag;		/* T_* */
	int		 ntop;		/* -n */
	struct ltout	*out;		/* the stream, with -t */
	struct ltidtab	 procs;
	struct ltidtab	 thrs;
	struct thr	*lastthr;	/* the thread of the last record */
	size_t		 nprocs;
	struct rank	**ranks;
	size_t		 nranks, capranks;
	struct group	*groups;
	struct group	**grpv;		/* the same, by no */
	size_t		 ngrp, capgrp;
	struct ltidtab	 cattab;
	struct cat	**cats;		/* in order of appearance */
	struct cat	*lastcat;	/* the one of the last record */
	size_t		 ncats, capcats;
	struct slow	*slowdl, *slowrd;
	int		 nslowdl, nslowrd;
	int		 hast0;
	int64_t		 t0;		/* #t0, or the earliest ts */
	int		 hasmin;
	int64_t		 min;
	/* what the input holds */
	long long	 records, x, instants, be, untimed, negdur;
	long long	 open, crashes;
	long long	 gen_new, gen_old, gen_v1;
	long long	 nbatch, ndl, nrd, ndel, nloader;
	long long	 itemreads;	/* read spans of one item (v1) */
	long long	 overlaps;	/* batches begun too soon */
	long long	 flows, waits_out, counters;
	int64_t		 flowid;
	/* causes (cause.c) */
	long long	 late;		/* worker spans after their waits */
	long long	 gathered;	/* chunks of async gathers */
	long long	 unfinished;	/* downloads never finished */
	/* the first crash: where, when and what it says */
	struct proc	*crashp;
	int64_t		 crashts;
	char		*crashmsg;	/* JSON string contents, or NULL */
	/* the names and sort indexes of threads, each once */
	struct ltstrtab	 text;
	/* the configuration lines of the log (#config), distinct */
	struct cfg	*cfg;
	size_t		 ncfg, capcfg;
	long long	 cfglines;
	/* the steps of all ranks, paired (steps.c) */
	struct step	*steps;		/* open addressing */
	size_t		 nsteps, capsteps;
	long long	 stepseq;
	int		*natt;		/* rank processes of each attempt */
	size_t		 nnatt, capnatt;
	struct job {
		long long	 steps;
		long long	 paired;	/* reported by every rank */
		long long	 forced;	/* closed before all reported */
		int64_t		 delay;		/* sum of the largest waits */
		int64_t		 time;		/* sum of the longest steps */
		int64_t		 ideal;		/* sum of the shortest computes */
	} job;
};

/* A configuration line of the log, as ltparse passes it on. */
struct cfg {
	char		*text;		/* JSON string contents */
	long long	 n;		/* lines with it */
};

#define CFG_MAX		32

extern struct run ST;

/* The processes of p's rank, or NULL. */
static inline struct group *
st_grp(const struct proc *p)
{
	return p->grp != 0 ? ST.grpv[p->grp - 1] : NULL;
}

/* The rank number of p (dist_global_rank), -1 unknown: its group's. */
static inline int64_t
st_prank(const struct proc *p)
{
	return p->grp != 0 ? ST.grpv[p->grp - 1]->rank : -1;
}

/* An X record's facts, from its columns and args. */
struct ev {
	int64_t		 ts, dur;
	struct ltfield	 cat, name;
	struct thr	*t;
	int64_t		 chunk, batch, epoch, index;
	int64_t		 chunks;	/* a prefetch's, -1 without */
	int		 open;		/* ltpair's unmatched_B */
};

struct proc *st_proc(const struct ltfield *, const struct ltfield *,
	    struct thr **, const char **);
struct thr *st_thr(struct proc *, const struct ltfield *,
	    const struct ltfield *);
struct pext *st_ext(struct proc *);
const char *st_text(uint32_t, size_t *);
const char *st_args(struct proc *, const struct ltfield *, struct ev *,
	    int);
const char *st_cat(const struct ltfield *, int64_t);
void	st_batch(struct ev *);
void	st_loader(struct ev *);
void	st_io(struct ev *, int);
const char *st_meta(const struct ltrec *);
void	st_init(int, int, struct ltout *);
void	st_end(void);
void	st_free(void);
struct rank *st_rank(struct proc *, struct thr *);
void	st_wait(struct rank *, int64_t, int64_t, int64_t, int64_t,
	    const struct io *, size_t, struct epoch *);
void	st_prefetch(struct ev *);
struct chunk *st_chunkfind(struct proc *, int64_t);
void	st_chunk_expire(struct proc *);
struct epoch *st_epochof(struct rank *, int64_t);

/* -------- sleep.c -------- */

#ifndef SLEEPEVERY
#define SLEEPEVERY	65536	/* records between sweeps: a power of 2 */
#endif

void	st_sleep(struct proc *);
void	st_thaw(struct proc *);
void	st_wakethr(struct proc *);
long	st_thrfind(const struct proc *, const struct ltfield *);
void	st_thrset(const struct proc *, long, uint32_t);
void	st_nodeset(const struct proc *, long long);
void	st_pio_free(struct proc *);
void	st_fig(const struct proc *, struct fig *);
void	st_sleep_sweep(void);
void	st_sleep_init(void);
void	st_sleep_free(void);

/* Before p's pio is used: awake; the pio. */
static inline struct pio *
st_warm(struct proc *p)
{
	if (st_pio(p) == NULL)
		st_thaw(p);
	p->warm = 1;
	return p->x->w;
}

/* -------- cause.c -------- */

void	st_tl_add(struct tl *, int64_t, int64_t);
int64_t	st_tl_meas(const struct tl *, int64_t, int64_t);
void	st_tl_free(struct tl *);
void	st_act(struct ev *, int);
void	st_cause_window(struct group *, struct epoch *);
void	st_cause_wait(struct rank *, struct epoch *, int64_t, int64_t,
	    int64_t, int64_t, int);
void	st_cause_tick(struct group *, int64_t);
void	st_cause_prefetch(struct proc *);
void	st_cause_flush(struct group *);
void	st_cause_end(void);
void	st_cause_free(struct group *);
int	st_cause_top(const int64_t *);

/* -------- steps.c -------- */

void	st_step(struct rank *, int64_t, int64_t, int64_t, int64_t);
void	st_steps_end(void);
void	st_steps_free(void);

/* -------- input.c -------- */

const char *st_record(const struct ltrec *);
const char *st_directive(const char *, size_t);

/* -------- emit.c -------- */

void	st_emit_wait(struct rank *, int64_t, int64_t, int64_t, int64_t,
	    const int64_t *);
void	st_emit_flow(struct proc *, int64_t, const struct span *,
	    const struct span *);
void	st_emit_ctr(struct proc *, int64_t, int, long long);
void	st_emit_share(struct rank *, int64_t, int64_t, int64_t);
void	st_emit_meta(struct rank *);
void	st_share_add(struct rank *, int64_t, int64_t, int);
void	st_share_first(struct rank *, struct epoch *);
void	st_share_head(struct rank *, struct epoch *, int64_t, int64_t);
void	st_share_close(struct rank *);

/* -------- kineto.c -------- */

extern const char *st_kin_pattern;

void	st_kin_span(const struct ltrec *, int64_t, int64_t);
void	st_kin_top(const char *, size_t);
void	st_kin_segment(void);
int	st_kin_end(void);
int	st_kin_verdict(void);
int	st_kin_head(struct ltout *, long long);
void	st_kin_text(struct ltout *);
void	st_kin_jsteps(struct ltout *);
void	st_kin_jranks(struct ltout *);
void	st_kin_free(void);

/* -------- verdict.c -------- */

enum { V_NONE = -1, V_NOT, V_MODERATE, V_HIGH };

/* The verdict on the job, why, and what to try next (JSON contents). */
struct verdict {
	int		 kineto;	/* of a Kineto trace, not LitData */
	int		 known;		/* steps were measured */
	int		 level;		/* V_* */
	double		 share;		/* the job's data delay / step time */
	int64_t		 straggler;	/* a rank number, or -1 */
	int64_t		 median;	/* the other ranks' waits, median */
	int64_t		 wait;		/* the ranks' waits, summed */
	int64_t		 delay, time;	/* the job's data delay, step time */
	long long	 steps;		/* ... over its steps */
	int64_t		 cause[NCAUSE];	/* ... by cause */
	struct ltbuf	 why[16], next[16];
	int		 nwhy, nnext;
};

extern struct verdict SV;
extern const char *const st_levelname[3];

void	st_bprintf(struct ltbuf *, const char *, ...) LT_PRINTF(2, 3);
void	st_bms(struct ltbuf *, int64_t);
double	st_share(int64_t, int64_t);
int	st_level(double);
void	st_causes(struct ltbuf *, const int64_t *, int);
void	st_verdict(void);
void	st_verdict_free(void);

/* -------- report.c -------- */

void	st_report(struct ltout *, int);

/* -------- compare.c -------- */

double	st_compare(struct ltout *, const char *, const char *);

#endif
