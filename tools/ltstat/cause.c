/* See LICENSE file for copyright and license details. */
/*
 * cause.c: what each data wait of a rank was spent on, instant by
 * instant, from what the rank's DataLoader workers (the processes of its
 * rank number) were doing: start-up (in the first wait of an epoch, the
 * time before the first span of any worker process new in it), then
 * reading (a read or sample span in flight, but for the part of it spent
 * waiting for its chunk's download), then downloading (a download, or
 * an async prefetch of at least one chunk, in flight), else idle; all of
 * it unknown when the workers wrote no chunk event at all.  The parts
 * add up to the wait.
 *
 * What the workers did is kept per rank number as two time lines of
 * disjoint intervals, reading and downloading.  A span reaches ltstat
 * when it ends (ltpair), so a wait is split once the rank's latest time
 * has moved a horizon past its end: twice the workers' longest span so
 * far, and at least a second; what comes later still is counted as
 * late.  The first wait of an epoch is known only when the epoch's span
 * ends: what overlaps it is kept in the epoch meanwhile.  Intervals no
 * wait can overlap any more are dropped, so memory holds a horizon.
 */
#include <stdlib.h>

#include "ltstat.h"

#define HELDMAX		1024	/* reads a process holds, at most */

const char *const st_causekey[NCAUSE] = {
	"startup", "download", "read", "idle", "unknown"
};

const char *const st_causename[NCAUSE] = {
	"start-up", "download", "read/decode", "idle", "unknown"
};

/* -------- time lines -------- */

/* The first live interval of t that ends after ts, or t->n. */
static size_t
after(const struct tl *t, int64_t ts)
{
	size_t lo = t->off, hi = t->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].b <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [a, b) joins t, merged with what it overlaps or touches. */
void
st_tl_add(struct tl *t, int64_t a, int64_t b)
{
	size_t i, j;

	if (b <= a)
		return;
	if (t->n > t->off && a > t->v[t->n - 1].b) {
		i = t->n;		/* after the last: the usual case */
	} else {
		/* The first that ends at a or later: it may join. */
		i = t->n > t->off && t->v[t->n - 1].b >= a ?
		    after(t, a - 1) : t->n;
		if (i < t->n && t->v[i].a <= b) {
			if (t->v[i].a < a)
				a = t->v[i].a;
			for (j = i; j < t->n && t->v[j].a <= b; j++)
				if (t->v[j].b > b)
					b = t->v[j].b;
			t->v[i].a = a;
			t->v[i].b = b;
			memmove(t->v + i + 1, t->v + j,
			    (t->n - j) * sizeof(*t->v));
			t->n -= j - i - 1;
			return;
		}
	}
	t->v = lt_grow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	memmove(t->v + i + 1, t->v + i, (t->n - i) * sizeof(*t->v));
	t->v[i].a = a;
	t->v[i].b = b;
	t->n++;
}

/* Forget the intervals of t that end before ts. */
static void
tlprune(struct tl *t, int64_t ts)
{
	while (t->off < t->n && t->v[t->off].b < ts)
		t->off++;
	if (t->off == t->n)
		t->off = t->n = 0;
	else if (t->off >= 64 && t->off * 2 >= t->n) {
		memmove(t->v, t->v + t->off, (t->n - t->off) * sizeof(*t->v));
		t->n -= t->off;
		t->off = 0;
	}
}

/* How much of [a, b) t covers. */
int64_t
st_tl_meas(const struct tl *t, int64_t a, int64_t b)
{
	size_t i;
	int64_t sum = 0;

	for (i = after(t, a); i < t->n && t->v[i].a < b; i++)
		sum += (t->v[i].b < b ? t->v[i].b : b) -
		    (t->v[i].a > a ? t->v[i].a : a);
	return sum;
}

/* How much of [a, b) d covers and r does not. */
static int64_t
diffmeas(const struct tl *d, const struct tl *r, int64_t a, int64_t b)
{
	size_t i;
	int64_t sum = 0, x, y;

	for (i = after(d, a); i < d->n && d->v[i].a < b; i++) {
		x = d->v[i].a > a ? d->v[i].a : a;
		y = d->v[i].b < b ? d->v[i].b : b;
		sum += (y - x) - st_tl_meas(r, x, y);
	}
	return sum;
}

/* The intervals of from that overlap [a, b), into to. */
static void
tlcopy(struct tl *to, const struct tl *from, int64_t a, int64_t b)
{
	size_t i;

	for (i = after(from, a); i < from->n && from->v[i].a < b; i++)
		st_tl_add(to, from->v[i].a, from->v[i].b);
}

void
st_tl_free(struct tl *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* -------- what the workers did -------- */

/*
 * The time before which g's time lines may be forgotten: no wait to be
 * split, nor one yet to be found, begins earlier.  A rank's next wait
 * begins at its last batch's end, or, for a rank with none yet, where
 * the group's batches have come to.
 */
static int64_t
floorof(const struct group *g)
{
	int64_t f = g->nr == 0 ? g->prune : INT64_MAX;
	size_t i;

	for (i = 0; i < g->nr; i++) {
		if (!g->r[i]->haslast) {
			if (g->prune < f)
				f = g->prune;
		} else if (g->r[i]->lastend < f)
			f = g->r[i]->lastend;
	}
	for (i = g->offpw; i < g->npw; i++)
		if (g->pw[i].ts < f)
			f = g->pw[i].ts;
	return f;
}

/* [a, b) of g's workers was reading ('r') or downloading ('d'). */
static void
piece(struct group *g, int kind, int64_t a, int64_t b)
{
	struct epoch *e;
	struct rank *r;
	struct tl *t;
	int64_t f;
	size_t i;

	if (b <= a)
		return;
	t = kind == 'r' ? &g->tr : &g->td;
	st_tl_add(t, a, b);
	/* Pruned when it has doubled since: what no wait will overlap. */
	if (t->n - t->off >= g->pmark) {
		f = floorof(g);
		tlprune(&g->tr, f);
		tlprune(&g->td, f);
		g->pmark = 2 * (g->tr.n - g->tr.off + g->td.n - g->td.off) +
		    256;
	}
	/* The first wait of an epoch, not known yet, may need it too. */
	for (i = 0; i < g->nr; i++) {
		r = g->r[i];
		if (r->nep == 0 || !(e = &r->ep[r->nep - 1])->hasb0 ||
		    e->resolved || a >= e->b0 || b <= e->x->lower)
			continue;
		st_tl_add(kind == 'r' ? &e->x->tr : &e->x->td, a, b);
	}
}

/*
 * The held reads of p, split by its gather, if it has one.  (Asleep, p
 * holds none: st_sleep waits for its first prefetch.)
 */
static void
release(struct proc *p)
{
	struct group *g = st_grp(p);
	struct pio *w = st_pio(p);
	int64_t a, b, x, y;
	size_t i;

	for (i = 0; w != NULL && i < w->nheld; i++) {
		a = w->held[i].a;
		b = w->held[i].b;
		x = p->hasgather && w->gts > a ? w->gts : a;
		y = p->hasgather && w->gend < b ? w->gend : b;
		if (p->hasgather && x < y) {
			piece(g, 'r', a, x);
			piece(g, 'd', x, y);
			piece(g, 'r', y, b);
		} else
			piece(g, 'r', a, b);
	}
	if (w != NULL)
		w->nheld = 0;
}

/*
 * The first prefetch of p (awake) has come: it was a gather, or there
 * is none.
 */
void
st_cause_prefetch(struct proc *p)
{
	p->prefetched = 1;
	if (st_grp(p) != NULL)
		release(p);
	/* No read is held after it: a worker that ends keeps no array. */
	free(p->x->w->held);
	p->x->w->held = NULL;
	p->x->w->nheld = p->x->w->capheld = 0;
}

/* What g's workers held is taken as it is: a wait needs it now. */
void
st_cause_flush(struct group *g)
{
	size_t i;

	for (i = 0; g != NULL && i < g->nwk; i++)
		release(g->wk[i]);
}

/*
 * A span of a process of g: 'd' a download, 'g' a prefetch of chunks,
 * 'r' a read, 's' a sample, 'x' a decompression.  The part of a read or
 * sample spent while its chunk's download (or, for a chunk without one,
 * the process's async gather) was in flight is downloading.  A gather
 * is a worker's first prefetch, and its span ends after the first reads
 * it serves: the reads of a chunk without a download of its own wait in
 * the process until its first prefetch comes (or a wait needs them).
 */
void
st_act(struct ev *ev, int kind)
{
	struct proc *p = ev->t->p;
	struct group *g = st_grp(p);
	struct chunk *c;
	struct pio *w;
	int64_t a = ev->ts, b = sadd(ev->ts, ev->dur), x = 0, y = 0;

	if (g == NULL)
		return;
	g->haschunk = 1;
	if (!p->inwk) {
		g->wk = lt_grow(g->wk, &g->capwk, g->nwk + 1, sizeof(*g->wk));
		g->wk[g->nwk++] = p;
		p->inwk = 1;
	}
	if (!ev->open && ev->dur > g->maxspan)
		g->maxspan = ev->dur;
	if (a < g->resolved)
		ST.late++;
	if (kind == 'd' || kind == 'g') {
		piece(g, 'd', a, b);
		return;
	}
	/* With sample spans, a read holds its chunk open: not work. */
	if (kind == 'r' && p->sample)
		return;
	c = st_chunkfind(p, ev->chunk);
	if (p->x->dlhi > a) {
		if (c != NULL && c->hasdl &&
		    c->dl.ts < b && c->dl.ts + c->dl.dur > a) {
			x = c->dl.ts;
			y = c->dl.ts + c->dl.dur;
		} else if ((c == NULL || !c->hasdl) && p->hasgather &&
		    st_warm(p)->gts < b && p->x->w->gend > a) {
			x = p->x->w->gts;
			y = p->x->w->gend;
		}
		if (x < a)
			x = a;
		if (y > b)
			y = b;
	}
	if (x < y) {
		piece(g, 'r', a, x);
		piece(g, 'd', x, y);
		piece(g, 'r', y, b);
	} else if (!p->prefetched && (c == NULL || !c->hasdl)) {
		if ((w = st_warm(p))->nheld == HELDMAX)
			release(p);
		w->held = lt_grow(w->held, &w->capheld, w->nheld + 1,
		    sizeof(*w->held));
		w->held[w->nheld].a = a;
		w->held[w->nheld++].b = b;
	} else
		piece(g, 'r', a, b);
}

/*
 * Batch 0 of e came before its span: what g's workers did since the
 * rank's last batch is kept in e, for its first wait.
 */
void
st_cause_window(struct group *g, struct epoch *e)
{
	if (g == NULL)
		return;
	tlcopy(&e->x->tr, &g->tr, e->x->lower, e->b0);
	tlcopy(&e->x->td, &g->td, e->x->lower, e->b0);
}

/* -------- splitting waits -------- */

/* The cause that took the most of a split (the first on a tie). */
int
st_cause_top(const int64_t *c)
{
	int k, top = 0;

	for (k = 1; k < NCAUSE; k++)
		if (c[k] > c[top])
			top = k;
	return top;
}

/*
 * The start of the first span of a worker process of g new since ts
 * (not a rank's main process), or INT64_MAX.
 */
static int64_t
newworkers(const struct group *g, int64_t ts)
{
	int64_t s = INT64_MAX;
	size_t i;

	for (i = 0; g != NULL && i < g->nwk; i++)
		if (st_main(g->wk[i]) == NULL && g->wk[i]->hasfirst &&
		    g->wk[i]->first >= ts && g->wk[i]->first < s)
			s = g->wk[i]->first;
	return s;
}

/* Split a wait with the time lines tr and td, and count it. */
static void
split(const struct pwait *w, const struct tl *tr, const struct tl *td)
{
	struct rank *r = w->r;
	struct group *g = st_grp(r->p);
	struct epoch *e;
	int64_t c[NCAUSE], s, end = sadd(w->ts, w->dur);
	int k;

	memset(c, 0, sizeof(c));
	if (g == NULL || !g->haschunk)
		c[C_UNKNOWN] = w->dur;
	else {
		/* No new worker (persistent ones): no start-up. */
		s = w->first ? newworkers(g, w->ts) : w->ts;
		if (s == INT64_MAX)
			s = w->ts;
		else if (s > end)
			s = end;
		c[C_STARTUP] = s - w->ts;
		c[C_READ] = st_tl_meas(tr, s, end);
		c[C_DOWNLOAD] = diffmeas(td, tr, s, end);
		c[C_IDLE] = w->dur - c[C_STARTUP] - c[C_READ] -
		    c[C_DOWNLOAD];
	}
	for (k = 0; k < NCAUSE; k++)
		r->cause[k] = sadd(r->cause[k], c[k]);
	if ((e = st_epochof(r, w->ep)) != NULL)
		for (k = 0; k < NCAUSE; k++)
			e->cause[k] = sadd(e->cause[k], c[k]);
	for (k = 0; k < r->ntop; k++)
		if (!r->top[k].split && r->top[k].ts == w->ts &&
		    r->top[k].dur == w->dur && r->top[k].batch == w->batch &&
		    r->top[k].epoch == w->ep) {
			r->top[k].split = 1;
			memcpy(r->top[k].cause, c, sizeof(c));
			break;
		}
	if (g != NULL && end > g->resolved)
		g->resolved = end;
	st_emit_wait(r, w->ep, w->batch, w->ts, w->dur, c);
}

/* Split the waits of g whose horizon has passed (all, with force). */
static void
resolve(struct group *g, int force)
{
	int64_t h = g->maxspan > NS_PER_S / 2 ? sadd(g->maxspan, g->maxspan) :
	    NS_PER_S;
	size_t n0 = g->offpw;
	int64_t f;

	while (g->offpw < g->npw && (force ||
	    sadd(sadd(g->pw[g->offpw].ts, g->pw[g->offpw].dur), h) <=
	    g->latest)) {
		if (g->offpw == n0)
			st_cause_flush(g);
		split(&g->pw[g->offpw], &g->tr, &g->td);
		g->offpw++;
	}
	if (g->offpw == g->npw)
		g->offpw = g->npw = 0;
	if (g->offpw != n0 || force) {
		f = floorof(g);
		tlprune(&g->tr, f);
		tlprune(&g->td, f);
	}
}

/*
 * A wait of r, dur before batch of epoch ep, from ts; first for the
 * first of an epoch.  With e, the epoch kept what overlaps it: split
 * now; else when the horizon has passed.
 */
void
st_cause_wait(struct rank *r, struct epoch *e, int64_t ep, int64_t batch,
    int64_t ts, int64_t dur, int first)
{
	struct group *g = st_grp(r->p);
	struct pwait w;

	w.r = r;
	w.ep = ep;
	w.batch = batch;
	w.ts = ts;
	w.dur = dur;
	w.first = first;
	if (e != NULL || g == NULL) {
		split(&w, e != NULL ? &e->x->tr : NULL,
		    e != NULL ? &e->x->td : NULL);
		return;
	}
	if (g->offpw > 0 && g->npw == g->cappw) {
		memmove(g->pw, g->pw + g->offpw,
		    (g->npw - g->offpw) * sizeof(*g->pw));
		g->npw -= g->offpw;
		g->offpw = 0;
	}
	g->pw = lt_grow(g->pw, &g->cappw, g->npw + 1, sizeof(*g->pw));
	g->pw[g->npw++] = w;
}

/* A span of g's processes ended at end: waits may be split. */
void
st_cause_tick(struct group *g, int64_t end)
{
	if (end > g->latest)
		g->latest = end;
	if (g->offpw < g->npw)
		resolve(g, 0);
}

/* The input has ended: every wait is split. */
void
st_cause_end(void)
{
	struct group *g;

	for (g = ST.groups; g != NULL; g = g->next)
		resolve(g, 1);
}

void
st_cause_free(struct group *g)
{
	st_tl_free(&g->tr);
	st_tl_free(&g->td);
	free(g->pw);
	free(g->wk);
}
