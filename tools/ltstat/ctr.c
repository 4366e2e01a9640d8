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
up(struct ctr *c, size_t i)
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
pop(struct ctr *c)
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
	struct ctr *c = &p->ctr;
	struct ctrpt pt;
	long long dl = c->dl, cache = c->cache;
	int64_t ts;

	ts = c->heap[0].ts;
	while (c->n > 0 && c->heap[0].ts == ts) {
		pt = pop(c);
		c->dl += pt.ddl;
		c->cache += pt.dcache;
	}
	if (c->dl > c->dlmax)
		c->dlmax = c->dl;
	if (c->cache > c->cachemax)
		c->cachemax = c->cache;
	/* Both at the first change, so that a worker has both tracks. */
	if (c->dl != dl || !c->started)
		st_emit_ctr(p, ts, 'd', c->dl);
	if (c->cache != cache || !c->started)
		st_emit_ctr(p, ts, 'c', c->cache);
	c->done = ts;
	c->started = 1;
}

void
st_ctr_push(struct proc *p, int64_t ts, int ddl, int dcache)
{
	struct ctr *c = &p->ctr;

	st_warm(p);
	if (c->started && ts <= c->done) {
		c->late++;
		ts = c->done < INT64_MAX ? c->done + 1 : c->done;
	}
	c->heap = lt_grow(c->heap, &c->cap, c->n + 1, sizeof(*c->heap));
	c->heap[c->n].ts = ts;
	c->heap[c->n].ddl = ddl;
	c->heap[c->n].dcache = dcache;
	up(c, c->n++);
	while (c->n > HEAPMAX) {
		c->forced++;
		release(p);
	}
}

/* The process has reached now: release what cannot change any more. */
void
st_ctr_advance(struct proc *p, int64_t now)
{
	struct ctr *c = &p->ctr;
	int64_t h;

	st_warm(p);
	if (!c->haslatest || now > c->latest)
		c->latest = now;
	c->haslatest = 1;
	h = p->maxdl < INT64_MAX / 2 ? 2 * p->maxdl : INT64_MAX;
	c->horizon = h > NS_PER_S ? h : NS_PER_S;
	while (c->n > 0 && c->heap[0].ts < ssub(c->latest, c->horizon))
		release(p);
}

void
st_ctr_flush(struct proc *p)
{
	st_warm(p);
	while (p->ctr.n > 0)
		release(p);
}

void
st_ctr_free(struct ctr *c)
{
	free(c->heap);
	c->heap = NULL;
	c->n = c->cap = 0;
}
