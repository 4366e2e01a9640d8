/* See LICENSE file for copyright and license details. */
/*
 * idtab.c: a hash table of processes and threads, keyed by the text of
 * the pid and tid columns of lt1 (a decimal, a JSON string or "-"; the
 * text is the identity, so no form is privileged).
 *
 * Each entry is a caller's struct whose first member is a struct ltid;
 * the table allocates it with the size given to lt_id_init and zeroes
 * the caller's part whenever it is (re)used, so a caller that keeps
 * memory there frees it before deleting.  Entries stay where they are
 * (pointers to them stay valid) until deleted.  Deleted entries are kept
 * on a free list and reused, so a table whose size is steady allocates
 * nothing.  Entries are cut from slabs of SLAB, not allocated one by one:
 * a table may hold millions, and malloc's header would be a quarter of
 * each.
 */
#include <stdlib.h>

#include "idtab.h"

#define SLAB	64

/* A slab: the next one, then room for SLAB entries, aligned to 8. */
struct slab {
	struct slab	*next;
	uint64_t	 room[];
};

void
lt_id_init(struct ltidtab *t, size_t esz)
{
	memset(t, 0, sizeof(*t));
	t->esz = esz;
}

/* FNV-1a over the pid, a separator, and the tid. */
static uint64_t
hash(const struct ltfield *pid, const struct ltfield *tid)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < pid->n; i++)
		h = (h ^ (unsigned char)pid->p[i]) * 0x100000001b3ULL;
	if (tid != NULL) {
		h = (h ^ '\t') * 0x100000001b3ULL;
		for (i = 0; i < tid->n; i++)
			h = (h ^ (unsigned char)tid->p[i]) *
			    0x100000001b3ULL;
	}
	return h ^ (h >> 29);
}

static int
same(const struct ltid *e, const struct ltfield *pid,
    const struct ltfield *tid)
{
	size_t n = 1 + pid->n + (tid != NULL ? 1 + tid->n : 0);
	const char *key = lt_id_key(e);

	/* The key is TAB pid [TAB tid]: no column holds a TAB. */
	if (e->keyn != n || memcmp(key + 1, pid->p, pid->n) != 0)
		return 0;
	if (tid == NULL)
		return 1;
	return key[1 + pid->n] == '\t' &&
	    memcmp(key + pid->n + 2, tid->p, tid->n) == 0;
}

static void
grow(struct ltidtab *t)
{
	struct ltid **old = t->bkt, *e, *next;
	size_t oldn = t->nbkt, i, b;

	t->nbkt = t->nbkt != 0 ? t->nbkt * 2 : 256;
	t->bkt = lt_calloc(t->nbkt, sizeof(*t->bkt));
	for (i = 0; i < oldn; i++)
		for (e = old[i]; e != NULL; e = next) {
			next = e->next;
			b = e->hash & (t->nbkt - 1);
			e->next = t->bkt[b];
			t->bkt[b] = e;
		}
	free(old);
}

/* A new entry, from the first slab, or from a new one. */
static struct ltid *
cut(struct ltidtab *t)
{
	struct slab *sl;
	size_t sz = (t->esz + 7) / 8 * 8;

	if (t->left == 0) {
		sl = lt_malloc(sizeof(*sl) + SLAB * sz);
		sl->next = t->slabs;
		t->slabs = sl;
		t->left = SLAB;
	}
	sl = t->slabs;
	return (struct ltid *)(void *)((char *)sl->room +
	    (SLAB - t->left--) * sz);
}

/*
 * The entry of (pid, tid), or of the process pid when tid is NULL.  When
 * there is none, add one if add is set (and set *isnew), else return
 * NULL.
 */
void *
lt_id_get(struct ltidtab *t, const struct ltfield *pid,
    const struct ltfield *tid, int add, int *isnew)
{
	struct ltid *e;
	char *key;
	uint32_t h;
	size_t b, n;

	if (isnew != NULL)
		*isnew = 0;
	if (t->n == 0 && !add)
		return NULL;
	h = (uint32_t)hash(pid, tid);
	if (t->nbkt != 0)
		for (e = t->bkt[h & (t->nbkt - 1)]; e != NULL; e = e->next)
			if (e->hash == h && same(e, pid, tid))
				return e;
	if (!add)
		return NULL;
	if (t->n >= t->nbkt)
		grow(t);
	if ((e = t->freel) != NULL)
		t->freel = e->next;
	else {
		e = cut(t);
		e->keycap = 0;
	}
	memset((char *)e + sizeof(*e), 0, t->esz - sizeof(*e));
	e->hash = h;
	/* Sized exactly: a table may hold millions of small keys. */
	n = 1 + pid->n + (tid != NULL ? 1 + tid->n : 0);
	if (n > UINT32_MAX)
		lt_die(LT_EXIT_SYS, "a pid and tid of 4 GiB or more");
	if (n > (e->keycap != 0 ? e->keycap : sizeof(e->keyin))) {
		if (e->keycap != 0)
			free(lt_id_key(e));
		key = lt_malloc(n);
		memcpy(e->keyin, &key, sizeof(key));
		e->keycap = (uint32_t)n;
	} else
		key = lt_id_key(e);
	key[0] = '\t';			/* never empty, even for "" */
	memcpy(key + 1, pid->p, pid->n);
	if (tid != NULL) {
		key[1 + pid->n] = '\t';
		memcpy(key + 2 + pid->n, tid->p, tid->n);
	}
	e->keyn = (uint32_t)n;
	b = h & (t->nbkt - 1);
	e->next = t->bkt[b];
	t->bkt[b] = e;
	t->n++;
	if (isnew != NULL)
		*isnew = 1;
	return e;
}

/* Remove an entry; its memory is kept for the next one added. */
void
lt_id_del(struct ltidtab *t, void *ent)
{
	struct ltid *e = ent, **pp;

	for (pp = &t->bkt[e->hash & (t->nbkt - 1)]; *pp != e;
	    pp = &(*pp)->next)
		;
	*pp = e->next;
	e->next = t->freel;
	t->freel = e;
	t->n--;
}

/* Call fn on every entry (in no particular order). */
void
lt_id_each(struct ltidtab *t, void (*fn)(void *))
{
	struct ltid *e;
	size_t i;

	for (i = 0; i < t->nbkt; i++)
		for (e = t->bkt[i]; e != NULL; e = e->next)
			fn(e);
}

/*
 * Free the table and every entry; fn (if not NULL) is called first on
 * each live entry to free what the caller keeps in it.
 */
void
lt_id_free(struct ltidtab *t, void (*fn)(void *))
{
	struct ltid *e, *next;
	struct slab *sl;
	size_t i;

	for (i = 0; i < t->nbkt; i++)
		for (e = t->bkt[i]; e != NULL; e = next) {
			next = e->next;
			if (fn != NULL)
				fn(e);
			lt_id_del(t, e);
		}
	for (e = t->freel; e != NULL; e = next) {
		next = e->next;
		if (e->keycap != 0)
			free(lt_id_key(e));
	}
	while ((sl = t->slabs) != NULL) {
		t->slabs = sl->next;
		free(sl);
	}
	free(t->bkt);
	memset(t, 0, sizeof(*t));
}
