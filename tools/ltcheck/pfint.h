/* See LICENSE file for copyright and license details. */
/*
 * pfint.h: the records of the events that the replay needs (pfrec.c),
 * which pfsim.c keeps and pfstack.c replays.  Not for the tools.
 */
#ifndef PFINT_H
#define PFINT_H

#include "ltcheck.h"

/*
 * One event kept for the sort and the replay: 20 bytes, so that an X
 * slice costs 20 and a B/E pair 40 (ltcheck(1), MEMORY).  ts is split
 * in two words so the struct needs only 4-byte alignment.
 */
struct rec {
	uint32_t	 tslo, tshi;	/* ns */
	uint32_t	 u;		/* X: dur (or DUR_SIDE); B/E/b/e/n: */
					/*   pair; s/t/f: flow slot */
	uint32_t	 idx;		/* record number: file order */
	uint32_t	 tk;		/* track << 8 | flags << 4 | kind */
};

enum {
	K_B, K_E, K_X, K_I, K_S, K_T, K_F, K_FE, K_AB, K_AE, K_AN
};

enum {
	RF_ROUND = 1,		/* ts or dur has digits below 1 ns */
	RF_PREC = 2,		/* fractional ts beyond double's ns range */
	RF_V2 = 4,		/* carries a v2 flow (side table) */
	RF_SIDE = 8		/* X: dur in the side table; e: other id type */
};

#define DUR_SIDE	UINT32_MAX
#define PENDING		INT64_MIN
#define MAXDEPTH	512

/* What an E must match: a B's name (hash; 0: none) and category. */
struct pair {
	uint64_t	 name;
	uint32_t	 cat;
	uint32_t	 pad;
};

struct v2flow {
	uint32_t	 idx;
	uint32_t	 slot;
	uint32_t	 dir;		/* 1 in, 2 out */
};

struct longdur {
	uint32_t	 idx;
	uint32_t	 hi, lo;
};

struct pfrecs {
	/* Queue::Append bookkeeping. */
	int		 slow;
	int64_t		 maxts;
	uint64_t	 nq;
	uint64_t	 sort_start;
	int64_t		 sort_min;
	size_t		 rec_start;

	struct rec	*recs;
	size_t		 nrec, caprec;
	uint8_t		*ld;		/* line deltas, one or five bytes */
	size_t		 nld, capld;
	long long	*ckline;	/* every 1024th record: its line */
	size_t		*ckpos;		/*   and its offset in ld */
	size_t		 nck, capck;
	long		 lastline;

	struct ltmap	 tracks;
	uint32_t	 ntracks;
	uint64_t	 lastkey;	/* the track of the last event */
	uint32_t	 lasttrack;
	struct ltmap	 pairmap;
	struct pair	*pairs;
	size_t		 npairs, cappairs;
	struct ltmap	 flowmap;
	uint8_t		*flows;		/* per slot: started */
	size_t		 nflows, capflows;
	struct v2flow	*v2;		/* side tables, in record order */
	size_t		 nv2, capv2;
	struct longdur	*longs;
	size_t		 nlongs, caplongs;
};

/* pfrec.c */
void		 pf_recs_free(struct pfrecs *);
uint64_t	 pf_key(int, uint64_t, uint64_t);
void		 pf_push(struct pfrecs *, int64_t, int);
void		 pf_addrec(struct pfrecs *, long, int64_t, int, int, uint32_t,
		    uint32_t);
uint32_t	 pf_track(struct pfrecs *, uint64_t);
int		 pf_hastrack(struct pfrecs *, uint64_t);
uint32_t	 pf_pair(struct pfrecs *, uint32_t, uint64_t);
uint32_t	 pf_flowslot(struct pfrecs *, uint64_t);
void		 pf_addv2(struct pfrecs *, uint32_t, uint32_t);
uint32_t	 pf_setdur(struct pfrecs *, int64_t, int *);
int64_t		 pf_rdur(const struct pfrecs *, const struct rec *);
const struct v2flow *pf_recv2(const struct pfrecs *, const struct rec *);
long		 pf_recline(const struct pfrecs *, long long);
void		 pf_sort(struct pfrecs *);

/* pfstack.c */
void		 pf_replay(struct pfrecs *, struct pffinds *, struct pfsum *,
		    int);

static inline int64_t
rec_ts(const struct rec *r)
{
	return (int64_t)((uint64_t)r->tshi << 32 | r->tslo);
}

static inline int
rec_kind(const struct rec *r)
{
	return (int)(r->tk & 15);
}

static inline int
rec_flags(const struct rec *r)
{
	return (int)((r->tk >> 4) & 15);
}

#endif
