/* See LICENSE file for copyright and license details. */
/*
 * ctr.c: a worker's chunk counters, chunks downloading and chunks in
 * the cache, changed in time order.
 *
 * ltpair writes a span when it ends, so a download's start reaches
 * ltstat as late as the download is long, and the changes of one
 * process come out of order.  They wait in a min-heap until the
 * process's latest time has moved a horizon past them: twice its
 * longest download so far, and at least a second.  A change that still
 * comes later than what was written (a download more than twice as long
 * as any before it) is applied just after it and counted as late; a
 * heap that grows past HEAPMAX changes releases its oldest early, counted
 * as forced.  So memory holds the changes of one horizon, at most
 * HEAPMAX, and the values are exact unless late or forced say otherwise.
 */
#include <stdlib.h>

#include "ltstat.h"

#define HEAPMAX		65536

static int
less(const struct ctrpt *a, const struct ctrpt *b)
{
	return a->ts < b->ts;
}

static void
up(struct ctrq *c, size_t i)
{
	struct ctrpt t;

	while (i > 0 && less(&c->heap[i], &c->heap[(i - 1) / 2])) {
		t = c->heap[i];
		c->heap[i] = c->heap[(i - 1) / 2];
		c->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static struct ctrpt
pop(struct ctrq *c)
{
	struct ctrpt min = c->heap[0], t;
	size_t i = 0, k;

	c->heap[0] = c->heap[--c->n];
	for (;;) {
		k = 2 * i + 1;
		if (k >= c->n)
			break;
		if (k + 1 < c->n && less(&c->heap[k + 1], &c->heap[k]))
			k++;
		if (!less(&c->heap[k], &c->heap[i]))
			break;
		t = c->heap[i];
		c->heap[i] = c->heap[k];
		c->heap[k] = t;
		i = k;
	}
	return min;
}

/* Apply every change at the earliest time held, and write the values. */
static void
release(struct proc *p)
{
	struct ctrq *q = &p->x->w->q;
	struct ctr *c = &p->x->w->f.ctr;
	struct ctrpt pt;
	long long dl = q->dl, cache = q->cache;
	int64_t ts;

	ts = q->heap[0].ts;
	while (q->n > 0 && q->heap[0].ts == ts) {
		pt = pop(q);
		q->dl += pt.ddl;
		q->cache += pt.dcache;
	}
	if (q->dl > c->dlmax)
		c->dlmax = q->dl;
	if (q->cache > c->cachemax)
		c->cachemax = q->cache;
	/* Both at the first change, so that a worker has both tracks. */
	if (q->dl != dl || !q->started)
		st_emit_ctr(p, ts, 'd', q->dl);
	if (q->cache != cache || !q->started)
		st_emit_ctr(p, ts, 'c', q->cache);
	q->done = ts;
	q->started = 1;
}

void
st_ctr_push(struct proc *p, int64_t ts, int ddl, int dcache)
{
	struct ctrq *q;

	q = &st_warm(p)->q;
	if (q->started && ts <= q->done) {
		p->x->w->f.ctr.late++;
		ts = q->done < INT64_MAX ? q->done + 1 : q->done;
	}
	q->heap = lt_grow(q->heap, &q->cap, q->n + 1, sizeof(*q->heap));
	q->heap[q->n].ts = ts;
	q->heap[q->n].ddl = ddl;
	q->heap[q->n].dcache = dcache;
	up(q, q->n++);
	while (q->n > HEAPMAX) {
		p->x->w->f.ctr.forced++;
		release(p);
	}
}

/* The process has reached now: release what cannot change any more. */
void
st_ctr_advance(struct proc *p, int64_t now)
{
	struct ctrq *q;
	int64_t h;

	q = &st_warm(p)->q;
	if (!q->haslatest || now > q->latest)
		q->latest = now;
	q->haslatest = 1;
	h = p->x->w->maxdl < INT64_MAX / 2 ? 2 * p->x->w->maxdl : INT64_MAX;
	q->horizon = h > NS_PER_S ? h : NS_PER_S;
	while (q->n > 0 && q->heap[0].ts < ssub(q->latest, q->horizon))
		release(p);
}

void
st_ctr_flush(struct proc *p)
{
	st_warm(p);
	while (p->x->w->q.n > 0)
		release(p);
}

void
st_ctr_free(struct ctrq *c)
{
	free(c->heap);
	c->heap = NULL;
	c->n = c->cap = 0;
}
