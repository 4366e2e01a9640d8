/* See LICENSE file for copyright and license details. */
/*
 * spans.c: the open spans of ltpair(1), the B records still waiting for
 * their E, and what ltpair tells ltlanefix about them.
 *
 * Each thread keeps its open spans newest first.  A thread with many of
 * them at once (a crash can leave thousands) also has them indexed by
 * name, and by name and identifying args, so that an E finds its B, or
 * finds that it has none, without looking at all of them.
 *
 * Every so often ltpair tells, for each thread it has seen since, the
 * time it has reached there and the spans open on it that it did not
 * tell of before ("#open PID TID NOW TS..."): every X it has yet to write
 * there begins at NOW or later, or is one of those spans.  The X of such
 * a span is preceded by "#close PID TID TS".  So ltlanefix can place a
 * slice once no slice that begins before it can still come.
 *
 * A thread told of with no span open sleeps: its entry goes, and only
 * its key and the time it reached stay (struct sleeper), for a long job
 * has tens of thousands of threads, a few dozen alive at a time.  A
 * record of it wakes it as it was, so what is told is the same.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltpair.h"

#define BUSY	16	/* open spans from which a thread is indexed */
#define NMASK	4	/* distinct sets of identifying args per name */

/* The open spans of one name on one thread. */
struct named {
	struct ltid	 h;
	struct span	*newest;
	unsigned	 mask[NMASK];	/* the sets of identifying args they have */
	long long	 nmask[NMASK];
	long long	 other;		/* spans with yet another set */
};

/* The open spans of one name and identifying args on one thread. */
struct group {
	struct ltid	 h;
	struct span	*newest;
};

static void
lpush(struct span **head, struct span *s, int l)
{
	s->l[l].prev = NULL;
	if ((s->l[l].next = *head) != NULL)
		(*head)->l[l].prev = s;
	*head = s;
}

static void
lunlink(struct span **head, struct span *s, int l)
{
	if (s->l[l].prev != NULL)
		s->l[l].prev->l[l].next = s->l[l].next;
	else
		*head = s->l[l].next;
	if (s->l[l].next != NULL)
		s->l[l].next->l[l].prev = s->l[l].prev;
}

void
lp_spans_init(struct spans *sp, const struct keys *keys, struct ltrd *rd)
{
	memset(sp, 0, sizeof(*sp));
	sp->rd = rd;
	lt_id_init(&sp->threads, sizeof(struct thread));
	lt_id_init(&sp->names, sizeof(struct named));
	lt_id_init(&sp->groups, sizeof(struct group));
	sp->keys = keys;
	sp->latest = sp->told = INT64_MIN;
}

/* -------- threads asleep -------- */

/*
 * The key of "PID\tTID" p[0..n) for a sleeper, in *k: both written
 * plainly (lt_uint_parse) and below 2^32; else 0.
 */
static int
zkey(const char *p, size_t n, uint64_t *k)
{
	const char *tab = memchr(p, '\t', n);
	uint64_t pid, tid;

	if (tab == NULL ||
	    lt_uint_parse(p, (size_t)(tab - p), &pid) != LT_NUM_OK ||
	    lt_uint_parse(tab + 1, (size_t)(p + n - tab - 1), &tid) !=
	    LT_NUM_OK || pid > UINT32_MAX || tid > UINT32_MAX)
		return 0;
	*k = pid << 32 | tid;
	return 1;
}

/* What zfind() looks for. */
struct zwant {
	const struct spans *sp;
	uint64_t	 key;
};

static int
zeq(const void *arg, uint32_t i)
{
	const struct zwant *w = arg;

	return w->sp->zz[i].key == w->key;
}

static uint64_t
zhash(const void *ctx, uint32_t i)
{
	const struct spans *sp = ctx;

	return lt_mix(sp->zz[i].key);
}

/* The sleeper of key k, or NULL. */
static struct sleeper *
zfind(const struct spans *sp, uint64_t k)
{
	struct zwant w = { sp, k };
	uint32_t *s = lt_ix_get(&sp->zix, lt_mix(k), zeq, &w);

	return s != NULL && *s != 0 ? &sp->zz[*s - 1] : NULL;
}

/*
 * Thread th, with no span open and told of, sleeps: its entry goes, and
 * the time it reached stays with its key.  One whose key is not two
 * such integers stays awake.
 */
static void
zsleep(struct spans *sp, struct thread *th)
{
	struct sleeper *z;
	uint64_t k;

	if (!zkey(lt_id_key(&th->h) + 1, th->h.keyn - 1, &k))
		return;
	if ((z = zfind(sp, k)) == NULL) {
		if (sp->nzz >= UINT32_MAX - 1)
			return;
		sp->zz = lt_grow(sp->zz, &sp->capzz, sp->nzz + 1,
		    sizeof(*sp->zz));
		z = &sp->zz[sp->nzz];
		z->key = k;
		lt_ix_add(&sp->zix, (uint32_t)sp->nzz++, zhash, sp);
	}
	z->now = th->now;
	if (sp->lastth == th)
		sp->lastth = NULL;
	lt_id_del(&sp->threads, th);
}

/*
 * The thread of rec, made when add is set (a B), else NULL when it has
 * never had a span: nothing is known of such a thread.  A thread asleep
 * wakes, as it was.  Records of one thread tend to come together: the
 * last one is looked at first, by the bytes of the pid and tid columns
 * ("PID\tTID" in the line).
 */
struct thread *
lp_thread(struct spans *sp, const struct ltrec *rec, int add)
{
	const char *p = rec->f[LT_PID].p;
	size_t n = (size_t)(rec->f[LT_TID].p + rec->f[LT_TID].n - p);
	struct thread *th = sp->lastth;
	const struct sleeper *z;
	uint64_t k;

	if (th != NULL && th->h.keyn == n + 1 &&
	    memcmp(lt_id_key(&th->h) + 1, p, n) == 0)
		return th;
	if (!add && sp->threads.n == 0 && sp->nzz == 0)
		return NULL;
	th = lt_id_get(&sp->threads, &rec->f[LT_PID], &rec->f[LT_TID], 0,
	    NULL);
	if (th == NULL) {
		z = sp->nzz > 0 && zkey(p, n, &k) ? zfind(sp, k) : NULL;
		if (z == NULL && !add)
			return NULL;
		th = lt_id_get(&sp->threads, &rec->f[LT_PID],
		    &rec->f[LT_TID], 1, NULL);
		th->quiet = LT_ISNONE(rec->f[LT_PID]) ||
		    LT_ISNONE(rec->f[LT_TID]);
		th->now = z != NULL ? z->now : INT64_MIN;
	}
	return sp->lastth = th;
}

/* A record of th reaches time t. */
void
lp_touch(struct spans *sp, struct thread *th, int64_t t)
{
	if (t > th->last)
		th->last = t;
	if (t > th->now)
		th->now = t;
	if (t > sp->latest)
		sp->latest = t;
	if (!th->dirty) {
		th->dirty = 1;
		th->dnext = sp->dirty;
		sp->dirty = th;
	}
}

/* "PID\tTID", the thread's key, into sp->key; then more keeps coming. */
static struct ltfield
threadkey(const struct thread *th)
{
	struct ltfield f;

	f.p = lt_id_key(&th->h) + 1;
	f.n = th->h.keyn - 1;
	return f;
}

unsigned
lp_mask(const struct spans *sp, const struct ltfield *id)
{
	unsigned m = 0;
	size_t i;

	if (sp->keys->n > 31)
		return 0;
	for (i = 0; i < sp->keys->n; i++)
		if (id[i].p != NULL)
			m |= 1U << i;
	return m;
}

/* The group key of name, mask and the values in id: "NAME\tMASK\tV...". */
static struct ltfield
groupkey(struct spans *sp, const struct ltfield *name, unsigned mask,
    const struct ltfield *id)
{
	char num[LT_NUMBUF];
	struct ltfield f;
	size_t i;

	sp->key.n = 0;
	lt_buf_add(&sp->key, name->p, name->n);
	lt_buf_addc(&sp->key, '\t');
	lt_buf_add(&sp->key, num, lt_u64_fmt(num, mask));
	for (i = 0; i < sp->keys->n; i++)
		if (mask & 1U << i) {
			lt_buf_addc(&sp->key, '\t');
			lt_buf_add(&sp->key, id[i].p, id[i].n);
		}
	f.p = sp->key.p;
	f.n = sp->key.n;
	return f;
}

/*
 * The members and identifying args of span s, split from its args when
 * not yet (under #valid the B's were not): a malformed column, which
 * the stream promised away, is bad data where it is found.
 */
void
lp_split(struct spans *sp, struct span *s)
{
	const char *why;
	size_t i;

	if (s->split)
		return;
	if ((why = lp_members(sp->keys, &s->f[LT_ARGS], &sp->m, s->id)) !=
	    NULL)
		lt_rd_bad(sp->rd, "column args of the B at ts %.*s: %s",
		    (int)s->f[LT_TS].n, s->f[LT_TS].p, why);
	lp_room(&s->m, sp->m.n);
	for (i = 0; i < sp->m.n; i++) {
		s->m.k[i] = sp->m.k[i];
		s->m.v[i] = sp->m.v[i];
	}
	s->m.n = sp->m.n;
	s->split = 1;
}

static void
index_span(struct spans *sp, struct span *s)
{
	struct ltfield tk = threadkey(s->th), gk;
	struct named *nm;
	int i;

	lp_split(sp, s);
	nm = lt_id_get(&sp->names, &tk, &s->f[LT_NAME], 1, NULL);
	lpush(&nm->newest, s, L_NAME);
	s->nm = nm;
	s->mask = lp_mask(sp, s->id);
	for (i = 0; i < NMASK; i++)
		if (nm->nmask[i] > 0 && nm->mask[i] == s->mask)
			break;
	if (i == NMASK)
		for (i = 0; i < NMASK && nm->nmask[i] > 0; i++)
			;
	if (i < NMASK && sp->keys->n <= 31) {
		nm->mask[i] = s->mask;
		nm->nmask[i]++;
	} else
		nm->other++;
	gk = groupkey(sp, &s->f[LT_NAME], s->mask, s->id);
	s->g = lt_id_get(&sp->groups, &tk, &gk, 1, NULL);
	lpush(&s->g->newest, s, L_GROUP);
}

static void
unindex_span(struct spans *sp, struct span *s)
{
	struct named *nm = s->nm;
	int i;

	lunlink(&nm->newest, s, L_NAME);
	for (i = 0; i < NMASK; i++)
		if (nm->nmask[i] > 0 && nm->mask[i] == s->mask)
			break;
	if (i < NMASK && sp->keys->n <= 31)
		nm->nmask[i]--;
	else
		nm->other--;
	if (nm->newest == NULL)
		lt_id_del(&sp->names, nm);
	lunlink(&s->g->newest, s, L_GROUP);
	if (s->g->newest == NULL)
		lt_id_del(&sp->groups, s->g);
	s->nm = NULL;
	s->g = NULL;
}

/*
 * Copy the B record rec at ts, of args m and identifying args id, into a
 * new open span of th (from the free list when possible).  With m NULL
 * they are split from its args when first needed (lp_split).
 */
struct span *
lp_open(struct spans *sp, const struct ltrec *rec, int64_t ts,
    struct thread *th, const struct members *m, const struct ltfield *id)
{
	struct span *s, *o;
	size_t i, nkeys = sp->keys->n;

	if ((s = sp->freel) != NULL)
		sp->freel = s->l[L_THREAD].next;
	else {
		s = lt_calloc(1, sizeof(*s));
		s->id = lt_reallocarray(NULL, nkeys, sizeof(*s->id));
	}
	if (s->line.cap < rec->len) {
		free(s->line.p);
		s->line.p = lt_malloc(rec->len);
		s->line.cap = rec->len;
	}
	memcpy(s->line.p, rec->line, rec->len);
	s->line.n = rec->len;
	for (i = 0; i < LT_NCOL; i++) {
		s->f[i].p = s->line.p + (rec->f[i].p - rec->line);
		s->f[i].n = rec->f[i].n;
	}
	if ((s->split = m != NULL)) {
		for (i = 0; i < nkeys; i++) {
			s->id[i].p = id[i].p == NULL ? NULL :
			    s->line.p + (id[i].p - rec->line);
			s->id[i].n = id[i].n;
		}
		lp_room(&s->m, m->n);
		for (i = 0; i < m->n; i++) {
			s->m.k[i].p = s->line.p + (m->k[i].p - rec->line);
			s->m.k[i].n = m->k[i].n;
			s->m.v[i].p = s->line.p + (m->v[i].p - rec->line);
			s->m.v[i].n = m->v[i].n;
		}
		s->m.n = m->n;
	}
	/*
	 * An E with the same args (the B's, valid) adds nothing: they are
	 * written as they are when canonical, plain or under #valid.
	 */
	s->asis = m == NULL || m->plain;
	s->ts = ts;
	s->th = th;
	s->seq = ++sp->seq;
	s->told = 0;
	s->nm = NULL;
	s->g = NULL;
	lpush(&th->open, s, L_THREAD);
	if (!th->quiet)
		lpush(&th->fresh, s, L_FRESH);
	s->l[L_ALL].next = NULL;
	if ((s->l[L_ALL].prev = sp->last) != NULL)
		sp->last->l[L_ALL].next = s;
	else
		sp->first = s;
	sp->last = s;
	th->nopen++;
	if (th->indexed)
		index_span(sp, s);
	else if (th->nopen >= BUSY) {
		/* Oldest first, so that each list is newest first. */
		for (o = th->open; o->l[L_THREAD].next != NULL; )
			o = o->l[L_THREAD].next;
		for (; o != NULL; o = o->l[L_THREAD].prev)
			index_span(sp, o);
		th->indexed = 1;
	}
	if (++sp->nopen > sp->maxopen)
		sp->maxopen = sp->nopen;
	return s;
}

/* Unlink a closed span and keep its memory for the next one. */
void
lp_close(struct spans *sp, struct span *s)
{
	struct thread *th = s->th;

	lunlink(&th->open, s, L_THREAD);
	if (!th->quiet && !s->told)
		lunlink(&th->fresh, s, L_FRESH);
	if (s->nm != NULL)
		unindex_span(sp, s);
	if (s->l[L_ALL].prev != NULL)
		s->l[L_ALL].prev->l[L_ALL].next = s->l[L_ALL].next;
	else
		sp->first = s->l[L_ALL].next;
	if (s->l[L_ALL].next != NULL)
		s->l[L_ALL].next->l[L_ALL].prev = s->l[L_ALL].prev;
	else
		sp->last = s->l[L_ALL].prev;
	if (--th->nopen == 0)
		th->indexed = 0;
	s->l[L_THREAD].next = sp->freel;
	sp->freel = s;
	sp->nopen--;
}

/* The newest open span of th named name, when th is indexed. */
struct span *
lp_named(struct spans *sp, struct thread *th, const struct ltfield *name)
{
	struct ltfield tk = threadkey(th);
	struct named *nm;

	nm = lt_id_get(&sp->names, &tk, name, 0, NULL);
	return nm != NULL ? nm->newest : NULL;
}

/*
 * The sets of identifying args that the open spans of the name of s
 * have, at most n of them into masks; -1 when there are more.
 */
int
lp_masks(const struct span *s, unsigned *masks, int n)
{
	const struct named *nm = s->nm;
	int i, k = 0;

	if (nm->other > 0)
		return -1;
	for (i = 0; i < NMASK; i++)
		if (nm->nmask[i] > 0) {
			if (k == n)
				return -1;
			masks[k++] = nm->mask[i];
		}
	return k;
}

/*
 * The newest open span of the thread and name of s that has the
 * identifying args mask, with the values in id.
 */
struct span *
lp_group(struct spans *sp, const struct span *s, unsigned mask,
    const struct ltfield *id)
{
	struct ltfield tk = threadkey(s->th), gk;
	struct group *g;

	gk = groupkey(sp, &s->f[LT_NAME], mask, id);
	g = lt_id_get(&sp->groups, &tk, &gk, 0, NULL);
	return g != NULL ? g->newest : NULL;
}

/*
 * "#open PID TID NOW TS...": for every thread seen since the last time,
 * the time it reached and its open spans not told of before.
 */
void
lp_tell(struct spans *sp, struct ltout *out)
{
	struct thread *th, *next;
	struct span *s;

	sp->told = sp->latest;
	for (th = sp->dirty; th != NULL; th = next) {
		next = th->dnext;
		th->dirty = 0;
		if (!th->quiet) {
			lt_out_write(out, "#open", 5);
			lt_out_write(out, lt_id_key(&th->h), th->h.keyn);
			lt_out_putc(out, '\t');
			lt_put_us(out, th->now);
			for (s = th->fresh; s != NULL; s = s->l[L_FRESH].next) {
				lt_out_putc(out, '\t');
				lt_put_field(out, &s->f[LT_TS]);
				s->told = 1;
			}
			th->fresh = NULL;
			lt_out_putc(out, '\n');
		}
		if (th->nopen == 0)
			zsleep(sp, th);
	}
	sp->dirty = NULL;
}

/* "#close PID TID TS" before the X of a span told of. */
void
lp_told(struct ltout *out, const struct span *s)
{
	if (!s->told)
		return;
	lt_out_write(out, "#close", 6);
	lt_out_write(out, lt_id_key(&s->th->h), s->th->h.keyn);
	lt_out_putc(out, '\t');
	lt_put_field(out, &s->f[LT_TS]);
	lt_out_putc(out, '\n');
}

void
lp_spans_free(struct spans *sp)
{
	struct span *s;

	while ((s = sp->first) != NULL)
		lp_close(sp, s);
	while ((s = sp->freel) != NULL) {
		sp->freel = s->l[L_THREAD].next;
		lt_buf_free(&s->line);
		free(s->id);
		lp_members_free(&s->m);
		free(s);
	}
	lt_id_free(&sp->threads, NULL);
	free(sp->zz);
	lt_ix_free(&sp->zix);
	lt_id_free(&sp->names, NULL);
	lt_id_free(&sp->groups, NULL);
	lt_buf_free(&sp->key);
	lp_members_free(&sp->m);
}
