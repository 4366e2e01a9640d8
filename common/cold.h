/* See LICENSE file for copyright and license details. */
/*
 * cold.h: what a program leaves alone, packed, by kind and key, in
 * memory up to a bound and beyond it in a temporary file (cold.c).
 * Keys are small numbers, each a slot: a kind's table grows to its
 * largest key.
 */
#ifndef LT_COLD_H
#define LT_COLD_H

#include "lt.h"

#define LT_NCOLD	2		/* kinds */

void	 lt_cold_init(const char *, const char *, size_t);
int	 lt_cold_has(int, uint32_t);
void	 lt_cold_put(int, uint32_t, const char *, size_t);
char	*lt_cold_take(int, uint32_t, size_t *);
const char *lt_cold_peek(int, uint32_t);
void	 lt_cold_free(void);

#endif
