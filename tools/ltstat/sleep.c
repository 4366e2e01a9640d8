/* See LICENSE file for copyright and license details. */
/*
 * sleep.c: a process left alone a while sleeps.  A long job has
 * thousands of worker processes, and each ends holding a few chunks in
 * its table and a few changes of its counters that wait for the end of
 * the stream (ctr.c): its pio, these included, is packed, and goes.
 * Whatever uses it wakes the process first (st_warm), as it was: slot
 * for slot, entry for entry, so that nothing it writes changes.
 */
#include <stdlib.h>

#include "ltstat.h"
#include "pb.h"

static struct ltbuf	 packed;

static void
putspan(const struct span *s)
{
	pb_zigzag(&packed, s->ts);
	pb_zigzag(&packed, s->dur);
	pb_varint(&packed, (uintptr_t)s->t);
}

static void
takespan(const char **q, struct span *s)
{
	s->ts = pb_takezigzag(q);
	s->dur = pb_takezigzag(q);
	s->t = (struct thr *)(uintptr_t)pb_takevarint(q);
}

/*
 * Pack p's pio: its chunk table (its size, then each chunk in use: its
 * slot from the one after the last, plus 1, then its fields; 0 ends
 * them), its heap of counter changes (their number, then each, in heap
 * order: its time from the one before, and the two changes), then the
 * rest, field by field.
 */
void
st_sleep(struct proc *p)
{
	const struct pio *w = p->w;
	const struct chunk *c;
	const struct ctrpt *h;
	size_t i, next = 0;
	uint64_t last = 0;

	if (w == NULL || p->capheld > 0)
		return;
	packed.n = 0;
	pb_varint(&packed, w->capch);
	for (i = 0; i < w->capch; i++) {
		if (!(c = &w->ch[i])->used)
			continue;
		pb_varint(&packed, i + 1 - next);
		next = i + 1;
		pb_zigzag(&packed, c->id);
		pb_zigzag(&packed, c->gone);
		pb_varint(&packed, (unsigned)c->held | (unsigned)c->hasdl << 1 |
		    (unsigned)c->dllinked << 2 | (unsigned)c->hasrd << 3 |
		    (unsigned)c->rdlinked << 4 | (unsigned)c->isgone << 5);
		putspan(&c->dl);
		putspan(&c->rd);
	}
	pb_varint(&packed, 0);
	pb_varint(&packed, w->q.n);
	for (i = 0; i < w->q.n; i++) {
		h = &w->q.heap[i];
		pb_zigzag(&packed, (int64_t)((uint64_t)h->ts - last));
		last = (uint64_t)h->ts;
		pb_zigzag(&packed, h->ddl);
		pb_zigzag(&packed, h->dcache);
	}
	pb_varint(&packed, w->nch);
	pb_varint(&packed, w->ngone);
	pb_zigzag(&packed, w->gonemin);
	pb_zigzag(&packed, w->q.latest);
	pb_zigzag(&packed, w->q.horizon);
	pb_zigzag(&packed, w->q.done);
	pb_varint(&packed, (unsigned)w->q.started | (unsigned)w->q.haslatest <<
	    1 | (unsigned)w->pgather << 2);
	pb_zigzag(&packed, w->q.dl);
	pb_zigzag(&packed, w->q.cache);
	pb_zigzag(&packed, w->maxdl);
	pb_zigzag(&packed, w->gheld);
	pb_zigzag(&packed, w->dlsince);
	pb_zigzag(&packed, w->pts);
	pb_zigzag(&packed, w->pend);
	p->packed = memcpy(lt_malloc(packed.n), packed.p, packed.n);
	st_pio_free(p);
}

/* p's pio, if it has one, goes: its chunks, its counter changes. */
void
st_pio_free(struct proc *p)
{
	if (p->w == NULL)
		return;
	free(p->w->ch);
	st_ctr_free(&p->w->q);
	free(p->w);
	p->w = NULL;
}

/* p wakes: its pio back, as it was; new, the first time. */
void
st_thaw(struct proc *p)
{
	const char *q = p->packed;
	struct pio *w;
	struct chunk *c;
	struct ctrpt *h;
	size_t i, d, next = 0, n;
	uint64_t last = 0;
	unsigned f;

	w = p->w = lt_calloc(1, sizeof(*w));
	if (q == NULL)
		return;
	w->capch = pb_takevarint(&q);
	w->ch = w->capch != 0 ? lt_calloc(w->capch, sizeof(*w->ch)) : NULL;
	while ((d = pb_takevarint(&q)) != 0) {
		i = next + d - 1;
		next = i + 1;
		c = &w->ch[i];
		c->used = 1;
		c->id = pb_takezigzag(&q);
		c->gone = pb_takezigzag(&q);
		f = (unsigned)pb_takevarint(&q);
		c->held = f & 1;
		c->hasdl = f >> 1 & 1;
		c->dllinked = f >> 2 & 1;
		c->hasrd = f >> 3 & 1;
		c->rdlinked = f >> 4 & 1;
		c->isgone = f >> 5 & 1;
		takespan(&q, &c->dl);
		takespan(&q, &c->rd);
	}
	n = pb_takevarint(&q);
	w->q.heap = n != 0 ? lt_reallocarray(NULL, n, sizeof(*h)) : NULL;
	w->q.n = w->q.cap = n;
	for (i = 0; i < n; i++) {
		h = &w->q.heap[i];
		last += (uint64_t)pb_takezigzag(&q);
		h->ts = (int64_t)last;
		h->ddl = (int)pb_takezigzag(&q);
		h->dcache = (int)pb_takezigzag(&q);
	}
	w->nch = pb_takevarint(&q);
	w->ngone = pb_takevarint(&q);
	w->gonemin = pb_takezigzag(&q);
	w->q.latest = pb_takezigzag(&q);
	w->q.horizon = pb_takezigzag(&q);
	w->q.done = pb_takezigzag(&q);
	f = (unsigned)pb_takevarint(&q);
	w->q.started = f & 1;
	w->q.haslatest = f >> 1 & 1;
	w->pgather = f >> 2 & 1;
	w->q.dl = pb_takezigzag(&q);
	w->q.cache = pb_takezigzag(&q);
	w->maxdl = pb_takezigzag(&q);
	w->gheld = pb_takezigzag(&q);
	w->dlsince = pb_takezigzag(&q);
	w->pts = pb_takezigzag(&q);
	w->pend = pb_takezigzag(&q);
	free(p->packed);
	p->packed = NULL;
}

static void
sweep(void *e)
{
	struct proc *p = e;

	if (!p->warm)
		st_sleep(p);
	p->warm = 0;
}

/* Every so many records: the processes not used since the last time. */
void
st_sleep_sweep(void)
{
	lt_id_each(&ST.procs, sweep);
}

void
st_sleep_free(void)
{
	lt_buf_free(&packed);
}
