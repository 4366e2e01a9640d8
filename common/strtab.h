/* See LICENSE file for copyright and license details. */
/*
 * strtab.h: a set of strings with dense indexes (ltjson, tally.c, ltstat)
 * (strtab.c).
 */
#ifndef LT_STRTAB_H
#define LT_STRTAB_H

#include "lt.h"

/* A set of strings with dense indexes in insertion order. */
struct ltstrtab {
	uint32_t	*slot;
	size_t		 cap;
	struct ltbuf	 keys;
	size_t		*off;
	size_t		*len;
	size_t		 n;
	size_t		 capn;
};

size_t	lt_strtab_get(struct ltstrtab *, const char *, size_t, int *);
const char *lt_strtab_key(const struct ltstrtab *, size_t, size_t *);
void	lt_strtab_free(struct ltstrtab *);

#endif
