/* See LICENSE file for copyright and license details. */
/*
 * lanes.c: the placement engine of ltlanefix(1), and a crossing counter.
 *
 * lt_lanes_place() takes the X slices of one (pid, tid) track and puts
 * each on lane 0 (the track itself) or on an extra lane so that no two
 * slices of one lane cross.  It follows trace-lanefix: slices in order of
 * start, longer first; lane 0 keeps nesting and snaps small crossings;
 * first fit over the extra lanes otherwise.  Unlike trace-lanefix, a
 * slice that leaves lane 0 leaves it as it was and keeps its own times,
 * and the snap steps of one slice add up to less than the threshold.
 *
 * Every lane is a stack of open slices kept as links between positions
 * in the sorted order, so trying lane 0 and giving it up again costs
 * nothing to undo.  Extra lanes sit in a segment tree keyed by the end of
 * their top slice, so first fit is a descent, not a scan of every lane.
 * All times are int64 nanoseconds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "lanes.h"

#define NONE	UINT32_MAX

/* What the slices of a track are sorted by. */
struct ltkey {
	int64_t		 ts, end;
	uint32_t	 i;
};

/* Start ascending, then longer first, then input order. */
static int
before(const struct ltkey *x, const struct ltkey *y)
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
static void
sortslices(struct ltlanes *w, const struct ltslice *sl, uint32_t *idx,
    size_t n)
{
	struct ltkey *a, *b, *t;
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

/* Leaf k and its ancestors: the max and min of the values below. */
static void
tree_put(struct ltlanes *w, uint32_t k, int64_t mx, int64_t mn)
{
	size_t i = w->leaves + k;

	w->tmax[i] = mx;
	w->tmin[i] = mn;
	for (i /= 2; i > 0; i /= 2) {
		w->tmax[i] = w->tmax[2 * i] > w->tmax[2 * i + 1] ?
		    w->tmax[2 * i] : w->tmax[2 * i + 1];
		w->tmin[i] = w->tmin[2 * i] < w->tmin[2 * i + 1] ?
		    w->tmin[2 * i] : w->tmin[2 * i + 1];
	}
}

/* Lane k's leaf holds the end of its top slice, INT64_MAX when empty. */
static void
tree_set(struct ltlanes *w, uint32_t k, int64_t v)
{
	tree_put(w, k, v, v);
}

static int64_t
topend(const struct ltlanes *w, const struct ltslice *sl, uint32_t k)
{
	return w->top[k] == NONE ? INT64_MAX : sl[w->idx[w->top[k]]].end;
}

/* Room for lane k; leaves past the last lane never match a query. */
static void
tree_fit(struct ltlanes *w, const struct ltslice *sl, uint32_t k)
{
	size_t leaves = w->leaves != 0 ? w->leaves : 64, i;
	uint32_t j;

	w->top = lt_grow(w->top, &w->topcap, (size_t)k + 1, sizeof(*w->top));
	if (k < w->leaves)
		return;
	while (leaves <= k)
		leaves *= 2;
	w->tmax = lt_reallocarray(w->tmax, 2 * leaves, sizeof(*w->tmax));
	w->tmin = lt_reallocarray(w->tmin, 2 * leaves, sizeof(*w->tmin));
	w->leaves = leaves;
	for (i = 0; i < 2 * leaves; i++) {
		w->tmax[i] = INT64_MIN;
		w->tmin[i] = INT64_MAX;
	}
	for (j = 1; j < w->nlanes; j++)
		tree_set(w, j, topend(w, sl, j));
}

/*
 * The first extra lane that takes [s, t]: its top, once every slice
 * ending at or before s is closed, must end at or after t.  A leaf whose
 * value is <= s still has closed slices on top: close them and look
 * again.  Returns 0 when no lane takes it.
 */
static uint32_t
firstfit(struct ltlanes *w, const struct ltslice *sl, int64_t s, int64_t t)
{
	size_t i;
	uint32_t k;

	while (w->nlanes > 1) {
		if (w->tmax[1] < t && w->tmin[1] > s)
			return 0;
		for (i = 1; i < w->leaves; ) {
			i *= 2;
			if (!(w->tmax[i] >= t || w->tmin[i] <= s))
				i++;
		}
		k = (uint32_t)(i - w->leaves);
		if (w->tmax[i] >= t && w->tmin[i] > s)
			return k;
		while (w->top[k] != NONE && sl[w->idx[w->top[k]]].end <= s)
			w->top[k] = w->below[w->top[k]];
		tree_set(w, k, topend(w, sl, k));
	}
	return 0;
}

/*
 * What snapping [ts, end] to [s, t] costs: the sum of its snap steps,
 * the start moved later plus the end moved earlier.  (An end that a
 * start snap drags along to the new start is no step of its own.)
 */
static int
cheap(const struct ltslice *x, int64_t s, int64_t t, int64_t thr)
{
	int64_t late = s - x->ts, early = t < x->end ? x->end - t : 0;

	return late < thr && early < thr - late;
}

/*
 * Try lane 0 for the slice at position p; returns 1 when placed there.
 * Snapping moves one boundary of the slice onto a boundary of the slice
 * it crosses (the smaller move; an end move on a tie), while the sum of
 * its snap steps stays below thr.  When lane 0 refuses the slice, its
 * stack is put back as it was: the start snaps may have closed slices
 * that are still open for everyone else.
 */
static int
lane0(struct ltlanes *w, struct ltslice *sl, uint32_t p, int64_t thr)
{
	struct ltslice *x = &sl[w->idx[p]], *y;
	int64_t s = x->ts, t = x->end, ns, nt, a, b;
	uint32_t saved, snaps = 0;

	while (w->top0 != NONE && sl[w->idx[w->top0]].nend <= s)
		w->top0 = w->below[w->top0];
	saved = w->top0;
	for (;;) {
		while (w->top0 != NONE && sl[w->idx[w->top0]].nend <= s)
			w->top0 = w->below[w->top0];
		if (w->top0 == NONE)
			break;
		y = &sl[w->idx[w->top0]];
		if (s < y->nts) {
			/* Its start was snapped past ours: follow it. */
			ns = y->nts;
			nt = t > ns ? t : ns;
			if (!cheap(x, ns, nt, thr))
				goto refuse;
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
			goto refuse;
		snaps++;
	}
	x->nts = s;
	x->nend = t;
	x->lane = 0;
	x->snaps = snaps;
	w->below[p] = w->top0;
	w->top0 = p;
	return 1;
refuse:
	w->top0 = saved;
	return 0;
}

/*
 * Place the n slices sl[idx[0..n)] of one track.  idx is sorted in
 * place; each slice gets nts, nend, lane and snaps.  thr is the snap
 * threshold in ns (0: never snap).  Returns the number of lanes, 1 when
 * the track needed no extra lane.
 */
uint32_t
lt_lanes_place(struct ltlanes *w, struct ltslice *sl, uint32_t *idx,
    size_t n, int64_t thr)
{
	struct ltslice *x;
	uint32_t p, k;

	if (n >= NONE)
		lt_die(LT_EXIT_SYS, "too many slices on one track");
	sortslices(w, sl, idx, n);
	w->idx = idx;
	w->below = lt_grow(w->below, &w->belowcap, n, sizeof(*w->below));
	w->top0 = NONE;
	w->nlanes = 1;
	for (p = 0; p < n; p++) {
		if (lane0(w, sl, p, thr))
			continue;
		x = &sl[idx[p]];
		x->nts = x->ts;
		x->nend = x->end;
		x->snaps = 0;
		if ((k = firstfit(w, sl, x->ts, x->end)) == 0) {
			if (w->nlanes == NONE)
				lt_die(LT_EXIT_SYS, "too many lanes");
			k = w->nlanes;
			tree_fit(w, sl, k);
			w->top[k] = NONE;
			w->nlanes++;
		}
		x->lane = k;
		w->below[p] = w->top[k];
		w->top[k] = p;
		tree_set(w, k, x->end);
	}
	/* The tree serves the next track with every leaf unused again. */
	for (k = 1; k < w->nlanes; k++)
		tree_put(w, k, INT64_MIN, INT64_MAX);
	return w->nlanes;
}

static int
byiv(const void *a, const void *b)
{
	const struct ltiv *x = a, *y = b;

	return (x->s > y->s) - (x->s < y->s);
}

static int
byns(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* How many of the sorted ends e[0..n) are < v. */
static size_t
below(const int64_t *e, size_t n, int64_t v)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fenwick tree over the ranks of the ends: inserted ends of rank < r. */
static uint64_t
fen_sum(const uint32_t *f, size_t r)
{
	uint64_t c = 0;

	for (; r > 0; r -= r & -r)
		c += f[r];
	return c;
}

/* The general count: a Fenwick tree over the ranks of the ends. */
static uint64_t
fenwick(struct ltlanes *w, const struct ltiv *v, size_t n)
{
	uint64_t c = 0;
	size_t i, j, g, r;

	w->ends = lt_grow(w->ends, &w->endscap, n, sizeof(*w->ends));
	w->fen = lt_grow(w->fen, &w->fencap, n + 1, sizeof(*w->fen));
	for (i = 0; i < n; i++)
		w->ends[i] = v[i].e;
	qsort(w->ends, n, sizeof(*w->ends), byns);
	memset(w->fen, 0, (n + 1) * sizeof(*w->fen));
	for (i = 0; i < n; i = g) {
		/* Slices of equal start do not cross each other. */
		for (g = i; g < n && v[g].s == v[i].s; g++)
			if (v[g].e > v[g].s)
				c += fen_sum(w->fen, below(w->ends, n,
				    v[g].e)) - fen_sum(w->fen,
				    below(w->ends, n, v[g].s + 1));
		for (j = i; j < g; j++)
			for (r = below(w->ends, n, v[j].e) + 1; r <= n;
			    r += r & -r)
				w->fen[r]++;
	}
	return c;
}

#define DEEP	1024

/*
 * The crossing pairs among the n intervals v[]: pairs with a.s < b.s <
 * a.e < b.e, which Perfetto cannot put on one track.  v is sorted by
 * start if it is not already.  The ends of the open intervals are kept
 * sorted, so a crossing pair costs a binary search; in a trace that is
 * mostly nested few are open at a time.  Beyond DEEP open at once, the
 * count is made with a Fenwick tree instead: O(n log n) either way.
 */
uint64_t
lt_crossings(struct ltlanes *w, struct ltiv *v, size_t n)
{
	int64_t *open;
	uint64_t c = 0;
	size_t i, g, lo = 0, hi = 0, k;

	for (i = 1; i < n && v[i - 1].s <= v[i].s; i++)
		;
	if (i < n)
		qsort(v, n, sizeof(*v), byiv);
	w->ends = lt_grow(w->ends, &w->endscap, 2 * DEEP + 1,
	    sizeof(*w->ends));
	open = w->ends;
	for (i = 0; i < n; i = g) {
		while (lo < hi && open[lo] <= v[i].s)
			lo++;
		for (g = i; g < n && v[g].s == v[i].s; g++)
			if (v[g].e > v[g].s)
				c += below(open + lo, hi - lo, v[g].e);
		if (hi + (g - i) > 2 * DEEP) {
			memmove(open, open + lo, (hi - lo) * sizeof(*open));
			hi -= lo;
			lo = 0;
			if (hi + (g - i) > DEEP)
				return fenwick(w, v, n);
		}
		for (; i < g; i++) {
			if (v[i].e <= v[i].s)
				continue;
			k = lo + below(open + lo, hi - lo, v[i].e);
			memmove(open + k + 1, open + k,
			    (hi - k) * sizeof(*open));
			open[k] = v[i].e;
			hi++;
		}
	}
	return c;
}

void
lt_lanes_free(struct ltlanes *w)
{
	free(w->below);
	free(w->top);
	free(w->tmax);
	free(w->tmin);
	free(w->ends);
	free(w->fen);
	free(w->keys);
	memset(w, 0, sizeof(*w));
}
