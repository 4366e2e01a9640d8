/* See LICENSE file for copyright and license details. */
/*
 * pfint.h: what pfsim.c (events, tables, findings) and pfstack.c (the
 * sort and the slice stacks) share.  Not for the tools.
 */
#ifndef PFINT_H
#define PFINT_H

#include "pfsim.h"

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

#define ISDIGIT(c)	((unsigned)(c) - '0' < 10)
#define DUR_SIDE	UINT32_MAX
#define PENDING		INT64_MIN
#define MAXDEPTH	512
#define MAXTRACKS	(1u << 24)

struct pair {
	uint64_t	 name;		/* hash; 0: none */
	uint32_t	 cat;		/* category index; 0: none */
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

struct pfsim {
	int		 band;
	int		 summary;
	int		 stalled;
	long long	 lost;
	long		 stall_line;

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
	uint32_t	 lastcat;
	struct ltmap	 catmap;
	struct ltmap	 pairmap;
	struct pair	*pairs;
	size_t		 npairs, cappairs;
	struct ltmap	 flowmap;
	uint8_t		*flows;		/* per slot: started */
	size_t		 nflows, capflows;
	struct v2flow	*v2;
	size_t		 nv2, capv2;
	struct longdur	*longs;
	size_t		 nlongs, caplongs;
	struct ltmap	 procmap;

	struct pffind	*finds;
	size_t		 nfinds, capfinds;

	struct pfsum	 sum;
	size_t		 nexact;	/* durations kept exactly, in all */
};

int		 pf_integral(double);
struct pffind	*pf_findrec(struct pfsim *, const char *, const char *,
		    int, uint32_t);
void		 pf_adddur(struct pfsim *, uint32_t, int64_t);
void		 pf_countproc(struct pfsim *, const struct pfval *);
void		 pf_replay(struct pfsim *);

/* ts + dur for ts, dur >= 0, saturated as no real trace reaches it. */
static inline int64_t
endof(int64_t ts, int64_t dur)
{
	return dur > INT64_MAX - ts ? INT64_MAX : ts + dur;
}

static inline int64_t
rec_ts(const struct rec *r)
{
	return (int64_t)((uint64_t)r->tshi << 32 | r->tslo);
}

#endif
