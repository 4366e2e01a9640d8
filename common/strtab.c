/* See LICENSE file for copyright and license details. */
/*
 * strtab.c: a set of byte strings, each given a dense index 0, 1, 2, ...
 * in order of first insertion.  Callers keep per-string values in their
 * own arrays indexed by it.  Open addressing, FNV-1a hashes; the keys
 * live in one arena, so there is no allocation per key.
 */
#include <stdlib.h>

#include "lt.h"
#include "strtab.h"

static void
grow(struct ltstrtab *t)
{
	size_t cap = t->cap != 0 ? t->cap * 2 : 64, i, j;
	uint32_t *slot = lt_calloc(cap, sizeof(*slot));

	for (i = 0; i < t->n; i++) {
		j = lt_hash(t->keys.p + t->off[i], t->len[i]) & (cap - 1);
		while (slot[j] != 0)
			j = (j + 1) & (cap - 1);
		slot[j] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
}

/* The index of p[0..n), added if new (then *isnew is set, if given). */
size_t
lt_strtab_get(struct ltstrtab *t, const char *p, size_t n, int *isnew)
{
	size_t j, i;

	if (isnew != NULL)
		*isnew = 0;
	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	for (j = lt_hash(p, n) & (t->cap - 1); t->slot[j] != 0;
	    j = (j + 1) & (t->cap - 1)) {
		i = t->slot[j] - 1;
		if (t->len[i] == n &&
		    (n == 0 || memcmp(t->keys.p + t->off[i], p, n) == 0))
			return i;
	}
	if (t->n >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many distinct strings");
	if (t->n == t->capn) {
		t->capn = t->capn != 0 ? t->capn * 2 : 64;
		t->off = lt_reallocarray(t->off, t->capn, sizeof(*t->off));
		t->len = lt_reallocarray(t->len, t->capn, sizeof(*t->len));
	}
	t->off[t->n] = t->keys.n;
	t->len[t->n] = n;
	lt_buf_add(&t->keys, p, n);
	t->slot[j] = (uint32_t)++t->n;
	if (isnew != NULL)
		*isnew = 1;
	return t->n - 1;
}

/* The string of index i; its length in *n. */
const char *
lt_strtab_key(const struct ltstrtab *t, size_t i, size_t *n)
{
	*n = t->len[i];
	if (t->keys.p == NULL)
		return "";	/* only empty strings: no byte kept */
	return t->keys.p + t->off[i];
}

void
lt_strtab_free(struct ltstrtab *t)
{
	free(t->slot);
	free(t->off);
	free(t->len);
	lt_buf_free(&t->keys);
	memset(t, 0, sizeof(*t));
}
