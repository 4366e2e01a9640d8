/* See LICENSE file for copyright and license details. */
/*
 * map.c: the hash table of the toolkit.  It maps a 64-bit hash to a
 * 32-bit value (most often an index into the caller's own array) by open
 * addressing, the hashes kept beside the values so that the table grows
 * without asking the caller again.  Where two keys may share a hash, the
 * caller passes eq(), which compares the key it looks for with the one
 * behind a stored value; where the hash is the key, eq is NULL.
 *
 * Where there is a slot for every thread or process a long job ever
 * had, 12 bytes a slot are too many: struct ltix keeps the indices
 * alone, and the hashes are made again from what they index when the
 * table grows.
 */
#include <stdlib.h>

#include "lt.h"

/* FNV-1a over bytes: cheap, and good enough for names and ids. */
uint64_t
lt_hash(const void *v, size_t n)
{
	const unsigned char *p = v;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n-- > 0) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void
grow(struct ltmap *m)
{
	uint64_t *oh = m->h;
	uint32_t *ov = m->v;
	size_t oc = m->cap, i, j;

	m->cap = m->cap != 0 ? m->cap * 2 : 256;
	m->h = lt_calloc(m->cap, sizeof(*m->h));
	m->v = lt_calloc(m->cap, sizeof(*m->v));
	for (j = 0; j < oc; j++) {
		if (oh[j] == 0)
			continue;
		for (i = oh[j] & (m->cap - 1); m->h[i] != 0;
		    i = (i + 1) & (m->cap - 1))
			;
		m->h[i] = oh[j];
		m->v[i] = ov[j];
	}
	free(oh);
	free(ov);
}

/*
 * The value stored for hash h (and, with eq, for which eq(arg, value)
 * holds).  When there is none: with created NULL, NULL; otherwise a new
 * slot, *created set, for the caller to fill.  Hash 0 is taken as 1.
 */
uint32_t *
lt_map_get(struct ltmap *m, uint64_t h, int (*eq)(const void *, uint32_t),
    const void *arg, int *created)
{
	size_t i;

	if (h == 0)
		h = 1;
	if (created != NULL) {
		*created = 0;
		if ((m->n + 1) * 2 > m->cap)
			grow(m);
	} else if (m->cap == 0)
		return NULL;
	for (i = h & (m->cap - 1); m->h[i] != 0; i = (i + 1) & (m->cap - 1))
		if (m->h[i] == h && (eq == NULL || eq(arg, m->v[i])))
			return &m->v[i];
	if (created == NULL)
		return NULL;
	m->h[i] = h;
	m->v[i] = 0;
	m->n++;
	*created = 1;
	return &m->v[i];
}

void
lt_map_free(struct ltmap *m)
{
	free(m->h);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/*
 * The slot of t holding an index i for which eq(arg, i) holds, among
 * those of hash h, or else the free slot where one would go; NULL when
 * t has no slots yet.  With eq NULL, the free slot.
 */
uint32_t *
lt_ix_get(const struct ltix *t, uint64_t h,
    int (*eq)(const void *, uint32_t), const void *arg)
{
	size_t i, mask = t->cap - 1;

	if (t->cap == 0)
		return NULL;
	for (i = h & mask; t->v[i] != 0; i = (i + 1) & mask)
		if (eq != NULL && eq(arg, t->v[i] - 1))
			return &t->v[i];
	return &t->v[i];
}

/*
 * Room in t for one index more: at most three quarters of the slots
 * taken, so that probes stay short.  A table moved leaves its old
 * place free in the heap, resident: it goes back to the system, else
 * a long job's peak would count the table twice.
 */
void
lt_ix_room(struct ltix *t, uint64_t (*hash)(const void *, uint32_t),
    const void *ctx)
{
	struct ltix o = *t;
	size_t j;

	if ((t->n + 1) * 4 <= t->cap * 3)
		return;
	t->cap = t->cap != 0 ? t->cap * 2 : 256;
	t->v = lt_calloc(t->cap, sizeof(*t->v));
	for (j = 0; j < o.cap; j++)
		if (o.v[j] != 0)
			*lt_ix_get(t, hash(ctx, o.v[j] - 1), NULL, NULL) =
			    o.v[j];
	free(o.v);
	lt_trim();
}

/* Index i into t, which does not hold it: room, then its free slot. */
void
lt_ix_add(struct ltix *t, uint32_t i,
    uint64_t (*hash)(const void *, uint32_t), const void *ctx)
{
	lt_ix_room(t, hash, ctx);
	lt_ix_set(t, lt_ix_get(t, hash(ctx, i), NULL, NULL), i);
}

/* Index i into slot s of t, a free one lt_ix_get() gave. */
void
lt_ix_set(struct ltix *t, uint32_t *s, uint32_t i)
{
	*s = i + 1;
	t->n++;
}

/*
 * Slot s of t (lt_ix_get() found it) freed.  Linear probing: those after
 * it that probed past it move up, so that every index stays where its
 * probe finds it, with no mark left behind.
 */
void
lt_ix_del(struct ltix *t, uint32_t *s,
    uint64_t (*hash)(const void *, uint32_t), const void *ctx)
{
	size_t mask = t->cap - 1, i = (size_t)(s - t->v), j = i, h;

	t->v[i] = 0;
	t->n--;
	for (;;) {
		j = (j + 1) & mask;
		if (t->v[j] == 0)
			return;
		h = hash(ctx, t->v[j] - 1) & mask;
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && h <= i && h > j)) {
			t->v[i] = t->v[j];
			t->v[j] = 0;
			i = j;
		}
	}
}

void
lt_ix_free(struct ltix *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/*
 * Slots: the table holds the slots, the hash of one made from its key.
 * The slots found lately are kept in hot, by their key's low bits: most
 * callers ask for the keys of a few threads again and again.
 */
#define HOT(sl, key)	((sl)->hot[(key) & (LT_SLOTHOT - 1)])
/* Keys are most often small numbers, one after another: one multiply. */
static uint64_t
keyhash(uint32_t key)
{
	return (uint64_t)key * 0x9e3779b97f4a7c15ULL >> 29;
}

static uint64_t
slothash(const void *ctx, uint32_t i)
{
	return keyhash(((const struct ltslots *)ctx)->key[i]);
}

/*
 * The place in sl's table of key, or of the free slot for it; NULL when
 * there are none.  The keys are compared here, not through eq: a call
 * for every packet.
 */
static uint32_t *
slotof(const struct ltslots *sl, uint32_t key)
{
	size_t i, mask = sl->ix.cap - 1;
	uint32_t v;

	if (sl->ix.cap == 0)
		return NULL;
	for (i = keyhash(key) & mask; (v = sl->ix.v[i]) != 0;
	    i = (i + 1) & mask)
		if (sl->key[v - 1] == key)
			break;
	return &sl->ix.v[i];
}

/* The slot of key, or LT_NOSLOT, from the table (lt_slot_get()). */
uint32_t
lt_slot_look(struct ltslots *sl, uint32_t key)
{
	uint32_t *s;

	if ((s = slotof(sl, key)) == NULL || *s == 0)
		return LT_NOSLOT;
	HOT(sl, key) = *s;
	return *s - 1;
}

/*
 * The slot of key, made if it has none (*isnew set then, else cleared):
 * one let go of if there is one, else the next of sl->n.
 */
uint32_t
lt_slot_add(struct ltslots *sl, uint32_t key, int *isnew)
{
	uint32_t i;

	*isnew = 0;
	if ((i = lt_slot_get(sl, key)) != LT_NOSLOT)
		return i;
	*isnew = 1;
	if (sl->nfree > 0)
		i = sl->free[--sl->nfree];
	else {
		if (sl->n >= LT_NOSLOT - 1)
			lt_die(LT_EXIT_SYS, "too many slots");
		sl->key = lt_grow(sl->key, &sl->cap, sl->n + 1,
		    sizeof(*sl->key));
		i = (uint32_t)sl->n++;
	}
	sl->key[i] = key;
	lt_ix_add(&sl->ix, i, slothash, sl);
	HOT(sl, key) = i + 1;
	return i;
}

/* Slot i let go of, for another key. */
void
lt_slot_del(struct ltslots *sl, uint32_t i)
{
	lt_ix_del(&sl->ix, slotof(sl, sl->key[i]), slothash, sl);
	sl->free = lt_grow(sl->free, &sl->capfree, sl->nfree + 1,
	    sizeof(*sl->free));
	sl->free[sl->nfree++] = i;
	if (HOT(sl, sl->key[i]) == i + 1)
		HOT(sl, sl->key[i]) = 0;
}

void
lt_slot_free(struct ltslots *sl)
{
	lt_ix_free(&sl->ix);
	free(sl->key);
	free(sl->free);
	memset(sl, 0, sizeof(*sl));
}
