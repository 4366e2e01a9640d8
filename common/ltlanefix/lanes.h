/* See LICENSE file for copyright and license details. */
/*
 * lanes.h: ltlanefix's lane engine (lanes.c): the X slices of one track
 * placed into lanes so that none cross, and crossings counted.
 */
#ifndef LT_LANES_H
#define LT_LANES_H

#include "lt.h"

struct ltslice {
	int64_t		 ts, end;	/* as read, ns */
	int64_t		 nts, nend;	/* as placed */
	uint32_t	 lane;		/* 0: the track itself */
	uint32_t	 snaps;		/* snap steps taken */
};

struct ltiv {
	int64_t		 s, e;
};

struct ltkey;			/* lanes.c */

struct ltlanes {
	uint32_t	*idx;		/* the track's slices, sorted */
	uint32_t	*below;		/* position -> position under it */
	size_t		 belowcap;
	uint32_t	 top0;		/* lane 0's top position */
	uint32_t	*top;		/* lane k's top position */
	size_t		 topcap;
	uint32_t	 nlanes;
	int64_t		*tmax, *tmin;	/* segment tree over lanes */
	size_t		 leaves;
	int64_t		*ends;		/* lt_crossings scratch */
	size_t		 endscap;
	uint32_t	*fen;
	size_t		 fencap;
	struct ltkey	*keys;		/* sort scratch */
	size_t		 keyscap;
};

uint32_t lt_lanes_place(struct ltlanes *, struct ltslice *, uint32_t *,
	    size_t, int64_t);
uint64_t lt_crossings(struct ltlanes *, struct ltiv *, size_t);
void	lt_lanes_free(struct ltlanes *);

#endif
