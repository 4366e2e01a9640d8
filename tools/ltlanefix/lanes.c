/* See LICENSE file for copyright and license details. */
/*
 * lanes.c: the placement engine of ltlanefix(1).
 *
 * lf_track_put() takes the X slices of one (pid, tid) track, one at a
 * time in trace-lanefix's order (by start, longer first, then input
 * order: lf_lanes_sort), and puts each on lane 0 (the track itself) or
 * on an extra lane so that no two slices of one lane cross.  Lane 0 keeps
 * nesting and snaps small crossings; first fit over the extra lanes
 * otherwise.  Unlike trace-lanefix, a slice that leaves lane 0 leaves it
 * as it was and keeps its own times, and the snap steps of one slice add
 * up to less than the threshold.
 *
 * Every lane is a stack of its open slices, linked entries in a pool
 * that all tracks share, so that a track's state is as small as its open
 * slices: the slices themselves may be gone.  Trying lane 0 and giving
 * it up again costs nothing to undo.  Extra lanes sit in a segment tree
 * keyed by the end of their top slice, so first fit is a descent, not a
 * scan of every lane.  All times are int64 nanoseconds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

#define NONE	LF_NONE

struct lfent {
	int64_t		 nts, nend;
	uint32_t	 below;
};

struct lfkey {
	int64_t		 ts, end;
	uint32_t	 i;
};

/* -------- the pool of open slices -------- */

static uint32_t
push(struct lflanes *w, uint32_t below, int64_t nts, int64_t nend)
{
	uint32_t i;

	if (w->freel != 0) {
		i = w->freel - 1;
		w->freel = w->e[i].below;
	} else {
		if (w->ne >= NONE - 1)
			lt_die(LT_EXIT_SYS, "too many open slices");
		w->e = lt_grow(w->e, &w->cape, w->ne + 1, sizeof(*w->e));
		i = (uint32_t)w->ne++;
	}
	w->e[i].nts = nts;
	w->e[i].nend = nend;
	w->e[i].below = below;
	return i;
}

/* Give back the entries from i down to (not including) stop. */
static void
release(struct lflanes *w, uint32_t i, uint32_t stop)
{
	uint32_t next;

	for (; i != stop; i = next) {
		next = w->e[i].below;
		w->e[i].below = w->freel;
		w->freel = i + 1;
	}
}

/* -------- sorting -------- */

/* Start ascending, then longer first, then input order. */
static int
before(const struct lfkey *x, const struct lfkey *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->end != y->end)
		return x->end > y->end;
	return x->i < y->i;
}

/*
 * Sort idx[0..n) by before().  A track's slices come nearly in order
 * (ltpair writes a span when it ends), so the merge sort, bottom up on
 * copies of the keys, copies runs already in order without looking.
 */
void
lf_lanes_sort(struct lflanes *w, const struct lfslice *sl, uint32_t *idx,
    size_t n)
{
	struct lfkey *a, *b, *t;
	size_t i, lo, mid, hi, p, q, o, width;

	if (n < 2)
		return;
	w->keys = lt_grow(w->keys, &w->keyscap, 2 * n, sizeof(*w->keys));
	a = w->keys;
	b = w->keys + n;
	for (i = 0; i < n; i++) {
		a[i].ts = sl[idx[i]].ts;
		a[i].end = sl[idx[i]].end;
		a[i].i = idx[i];
	}
	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = lo + width < n ? lo + width : n;
			hi = mid + width < n ? mid + width : n;
			if (mid == hi || before(&a[mid - 1], &a[mid])) {
				memcpy(b + lo, a + lo, (hi - lo) * sizeof(*a));
				continue;
			}
			for (p = lo, q = mid, o = lo; p < mid && q < hi; )
				b[o++] = before(&a[q], &a[p]) ? a[q++] : a[p++];
			memcpy(b + o, a + p, (mid - p) * sizeof(*a));
			o += mid - p;
			memcpy(b + o, a + q, (hi - q) * sizeof(*a));
		}
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		idx[i] = a[i].i;
}

/* -------- the extra lanes -------- */

/* Leaf k and its ancestors: the max and min of the values below. */
static void
tree_put(struct lftrack *tr, uint32_t k, int64_t mx, int64_t mn)
{
	size_t i = tr->leaves + k;

	tr->tmax[i] = mx;
	tr->tmin[i] = mn;
	for (i /= 2; i > 0; i /= 2) {
		tr->tmax[i] = tr->tmax[2 * i] > tr->tmax[2 * i + 1] ?
		    tr->tmax[2 * i] : tr->tmax[2 * i + 1];
		tr->tmin[i] = tr->tmin[2 * i] < tr->tmin[2 * i + 1] ?
		    tr->tmin[2 * i] : tr->tmin[2 * i + 1];
	}
}

/* The end of lane k's top slice, INT64_MAX when it is empty. */
static int64_t
topend(const struct lflanes *w, const struct lftrack *tr, uint32_t k)
{
	return tr->top[k] == NONE ? INT64_MAX : w->e[tr->top[k]].nend;
}

/* Lane k's leaf holds the end of its top slice. */
static void
tree_set(const struct lflanes *w, struct lftrack *tr, uint32_t k)
{
	int64_t v = topend(w, tr, k);

	tree_put(tr, k, v, v);
}

/* Room for lane k; leaves past the last lane never match a query. */
static void
tree_fit(const struct lflanes *w, struct lftrack *tr, uint32_t k)
{
	size_t leaves = tr->leaves != 0 ? tr->leaves : 64, i;
	uint32_t j;

	tr->top = lt_grow(tr->top, &tr->topcap, (size_t)k + 1,
	    sizeof(*tr->top));
	if (k < tr->leaves)
		return;
	while (leaves <= k)
		leaves *= 2;
	tr->tmax = lt_reallocarray(tr->tmax, 2 * leaves, sizeof(*tr->tmax));
	tr->tmin = lt_reallocarray(tr->tmin, 2 * leaves, sizeof(*tr->tmin));
	tr->leaves = leaves;
	for (i = 0; i < 2 * leaves; i++) {
		tr->tmax[i] = INT64_MIN;
		tr->tmin[i] = INT64_MAX;
	}
	for (j = 1; j < tr->nlanes; j++)
		tree_set(w, tr, j);
}

/*
 * The first extra lane that takes [s, t]: its top, once every slice
 * ending at or before s is closed, must end at or after t.  A leaf whose
 * value is <= s still has closed slices on top: close them and look
 * again.  Returns 0 when no lane takes it.
 */
static uint32_t
firstfit(struct lflanes *w, struct lftrack *tr, int64_t s, int64_t t)
{
	size_t i;
	uint32_t k, top;

	while (tr->nlanes > 1) {
		if (tr->tmax[1] < t && tr->tmin[1] > s)
			return 0;
		for (i = 1; i < tr->leaves; ) {
			i *= 2;
			if (!(tr->tmax[i] >= t || tr->tmin[i] <= s))
				i++;
		}
		k = (uint32_t)(i - tr->leaves);
		if (tr->tmax[i] >= t && tr->tmin[i] > s)
			return k;
		for (top = tr->top[k]; top != NONE && w->e[top].nend <= s; )
			top = w->e[top].below;
		release(w, tr->top[k], top);
		tr->top[k] = top;
		tree_set(w, tr, k);
	}
	return 0;
}

/* -------- lane 0 -------- */

/*
 * What snapping [ts, end] to [s, t] costs: the sum of its snap steps,
 * the start moved later plus the end moved earlier.  (An end that a
 * start snap drags along to the new start is no step of its own.)
 */
static int
cheap(const struct lfslice *x, int64_t s, int64_t t, int64_t thr)
{
	int64_t late = s - x->ts, early = t < x->end ? x->end - t : 0;

	return late < thr && early < thr - late;
}

/* Close, for good, the slices of lane 0 that end at or before s. */
static void
close0(struct lflanes *w, struct lftrack *tr, int64_t s)
{
	uint32_t top;

	for (top = tr->top0; top != NONE && w->e[top].nend <= s; )
		top = w->e[top].below;
	release(w, tr->top0, top);
	tr->top0 = top;
}

/*
 * Try lane 0 for x; returns 1 when placed there.  Snapping moves one
 * boundary of the slice onto a boundary of the slice it crosses (the
 * smaller move; an end move on a tie), while the sum of its snap steps
 * stays below thr.  When lane 0 refuses the slice, its stack is put back
 * as it was: the start snaps may have closed slices that are still open
 * for everyone else.
 */
static int
lane0(struct lflanes *w, struct lftrack *tr, struct lfslice *x, int64_t thr)
{
	const struct lfent *y;
	int64_t s = x->ts, t = x->end, ns, nt, a, b;
	uint32_t saved, top, snaps = 0;

	close0(w, tr, s);
	saved = top = tr->top0;
	for (;;) {
		while (top != NONE && w->e[top].nend <= s)
			top = w->e[top].below;
		if (top == NONE)
			break;
		y = &w->e[top];
		if (s < y->nts) {
			/* Its start was snapped past ours: follow it. */
			ns = y->nts;
			nt = t > ns ? t : ns;
			if (!cheap(x, ns, nt, thr))
				return 0;
			s = ns;
			t = nt;
			snaps++;
			continue;
		}
		if (t <= y->nend)
			break;
		a = t - y->nend;
		b = y->nend - s;
		if (a <= b && cheap(x, s, y->nend, thr))
			t = y->nend;
		else if (cheap(x, y->nend, t, thr))
			s = y->nend;
		else
			return 0;
		snaps++;
	}
	release(w, saved, top);
	tr->top0 = push(w, top, s, t);
	x->nts = s;
	x->nend = t;
	x->lane = 0;
	x->snaps = snaps;
	return 1;
}

/* -------- a track -------- */

void
lf_track_init(struct lftrack *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->top0 = NONE;
	tr->nlanes = 1;
}

/*
 * Place x, the next slice of the track in the order of lf_lanes_sort:
 * it gets nts, nend, lane and snaps.  thr is the snap threshold in ns
 * (0: never snap).  Returns its lane; a lane equal to the number of
 * lanes before the call is a new one.
 */
uint32_t
lf_track_put(struct lflanes *w, struct lftrack *tr, struct lfslice *x,
    int64_t thr)
{
	uint32_t k;

	if (lane0(w, tr, x, thr))
		return 0;
	x->nts = x->ts;
	x->nend = x->end;
	x->snaps = 0;
	if ((k = firstfit(w, tr, x->ts, x->end)) == 0) {
		if (tr->nlanes == NONE)
			lt_die(LT_EXIT_SYS, "too many lanes");
		k = tr->nlanes;
		tree_fit(w, tr, k);
		tr->top[k] = NONE;
		tr->nlanes++;
	}
	x->lane = k;
	tr->top[k] = push(w, tr->top[k], x->ts, x->end);
	tree_set(w, tr, k);
	return k;
}

/*
 * Would lane 0 be empty for a slice of start s that comes next, once the
 * slices that end at or before s are closed?  (Then a slice of that
 * start, however long, goes there, alone, unsnapped.)  Nothing changes.
 */
int
lf_track_open0(const struct lflanes *w, const struct lftrack *tr, int64_t s)
{
	uint32_t i;

	for (i = tr->top0; i != NONE; i = w->e[i].below)
		if (w->e[i].nend > s)
			return 0;
	return 1;
}

/*
 * A slice [s, e] that went to lane 0 when it was empty, known only now,
 * under every slice placed there since (all nested in it).
 */
void
lf_track_bottom(struct lflanes *w, struct lftrack *tr, int64_t s, int64_t e)
{
	uint32_t i, e0;

	e0 = push(w, NONE, s, e);
	if (tr->top0 == NONE) {
		tr->top0 = e0;
		return;
	}
	for (i = tr->top0; w->e[i].below != NONE; i = w->e[i].below)
		;
	w->e[i].below = e0;
}

/* Forget the track: its open slices go back to the pool. */
void
lf_track_free(struct lflanes *w, struct lftrack *tr)
{
	uint32_t k;

	release(w, tr->top0, NONE);
	for (k = 1; k < tr->nlanes; k++)
		release(w, tr->top[k], NONE);
	free(tr->top);
	free(tr->tmax);
	free(tr->tmin);
	lf_track_init(tr);
}

void
lf_lanes_free(struct lflanes *w)
{
	free(w->e);
	free(w->keys);
	memset(w, 0, sizeof(*w));
}
