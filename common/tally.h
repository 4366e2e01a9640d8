/* See LICENSE file for copyright and license details. */
/*
 * tally.h: what a trace writer (ltjson, ltproto) counts for the
 * driver's summary and the trace's metadata (tally.c).
 */
#ifndef LT_TALLY_H
#define LT_TALLY_H

#include "lt.h"

/* A #stat line of an earlier stage: kept in order, integers summed. */
void	lt_tally_stat(struct ltrd *, char *);
/* One record, with its ts and dur in ns as the writer read them. */
void	lt_tally_event(const struct ltrec *, int, int64_t, int, int64_t);
/* The counters every writer has: events by phase, processes. */
size_t	lt_tally_counts(struct ltstat *);
/* From the earliest ts to the latest end, in ns. */
int64_t	lt_tally_duration(void);
/* The #stat entries kept (tool, key, value), and the categories. */
size_t	lt_tally_nstats(void);
void	lt_tally_statat(size_t, const char **, const char **, const char **);
size_t	lt_tally_ncats(void);
const char *lt_tally_cat(size_t, size_t *, int64_t *);
/* -S FILE: the #stat lines, the writer's own, #duration and #span. */
void	lt_tally_file(const char *, const char *, const struct ltstat *,
	    size_t);
/* -s FILE: the driver's summary line, the keys of the Go litracer. */
void	lt_tally_summary(const char *, const struct ltstat *, size_t);
void	lt_tally_free(void);

#define LT_TALLY_MAX	10	/* entries lt_tally_counts fills */

#endif
