/* See LICENSE file for copyright and license details. */
/*
 * jsonw.h: the Chrome JSON event of an lt1 record as ltjson writes it
 * and ltcheck judges it (jsonw.c): checked, canonical, times mapped to
 * what Perfetto will read exactly, duplicate members dropped.
 */
#ifndef LT_JSONW_H
#define LT_JSONW_H

#include "lt.h"

struct ltjw {
	int64_t		 offset;	/* ns subtracted from every ts */
	int		 offset_set;
	int		 valid;		/* records are under #valid */
	long long	 repaired;	/* records rewritten to canonical form */
	long long	 clamped;	/* times before the offset, written 0 */
	long long	 rounded;	/* times rounded to a whole us */
	long long	 dupkeys;	/* extra members a column overrides */
	int64_t		 early;		/* the earliest time clamped */
	struct ltbuf	 fix[LT_NCOL];	/* canonicalised columns */
	struct ltfield	 ffix[LT_NCOL];
	struct ltbuf	 extra;		/* extra without duplicates */
	struct ltfield	 efield;
};

struct ltjwrec {
	const struct ltfield *col[LT_NCOL];	/* canonical columns */
	int		 hasts, hasdur;
	int64_t		 ts, dur;	/* as read, ns */
	int64_t		 wts, wdur;	/* as written */
	size_t		 need;		/* bytes lt_jw_put may write */
};

void	lt_jw_init(struct ltjw *);
void	lt_jw_free(struct ltjw *);
int64_t	lt_jw_offset(int64_t, int);
int	lt_jw_rec(struct ltjw *, const struct ltrec *, struct ltjwrec *,
	    const char **, int *);
char	*lt_jw_put(char *, const struct ltjwrec *);
int	lt_jw_top(char *, size_t, const char **, struct ltbuf *, char *,
	    size_t);

#endif
