/* See LICENSE file for copyright and license details. */
/*
 * cross.c: crossing pairs, counted as the intervals come in order of
 * start: pairs a, b with a.s < b.s < a.e < b.e, which Perfetto cannot
 * put on one track.
 *
 * For each interval, the ends of the intervals still open when it starts
 * are in a multiset (lfset), and those smaller than its own end are the
 * intervals it crosses.  The multiset keeps sorted runs of halving sizes
 * side by side (a new end is a run of one; the last two merge while the
 * earlier is not twice the size of the later): an insert costs O(log n)
 * amortised, a count O(log^2 n), dropping what ended O(1) per end; so a
 * track with a million slices open at once costs no more per slice than
 * one with ten.  A track has a counter per lane, and most lanes hold a
 * slice or two at a time: every array starts small.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

struct lfrun {
	size_t		 off, lo, n;	/* values a[off + lo .. off + n) */
};

#define LIVE(s, r)	((s)->run[r].n - (s)->run[r].lo)

/* Merge the last two runs into the place of the first. */
static void
merge(struct lfset *s)
{
	struct lfrun *x = &s->run[s->nrun - 2], *y = &s->run[s->nrun - 1];
	const int64_t *a = s->a + x->off, *b = s->a + y->off;
	size_t i = x->lo, j = y->lo, o = 0, n;

	n = LIVE(s, s->nrun - 2) + LIVE(s, s->nrun - 1);
	s->tmp = lt_grow(s->tmp, &s->tmpcap, n, sizeof(*s->tmp));
	while (i < x->n && j < y->n)
		s->tmp[o++] = b[j] < a[i] ? b[j++] : a[i++];
	while (i < x->n)
		s->tmp[o++] = a[i++];
	while (j < y->n)
		s->tmp[o++] = b[j++];
	memcpy(s->a + x->off, s->tmp, n * sizeof(*s->tmp));
	x->lo = 0;
	x->n = n;
	s->end = x->off + n;
	s->nrun--;
}

/*
 * Room for one more value and one more run: when the array is full, or
 * drops left runs so uneven that they are many, merge them all into one
 * (which costs no more than the values dropped or merged before); grow
 * when that leaves it more than half full.
 */
static void
room(struct lfset *s)
{
	struct lfrun *r;

	if (s->end < s->cap && s->nrun < 48) {
		s->run = lt_grow(s->run, &s->caprun, (size_t)s->nrun + 1,
		    sizeof(*s->run));
		return;
	}
	while (s->nrun > 1)
		merge(s);
	if (s->nrun == 1 && (r = &s->run[0])->lo > 0) {
		memmove(s->a, s->a + r->lo, LIVE(s, 0) * sizeof(*s->a));
		r->n -= r->lo;
		r->lo = 0;
		s->end = r->n;
	}
	if (s->end >= s->cap / 2)
		s->a = lt_grow(s->a, &s->cap, s->cap + 1, sizeof(*s->a));
	s->run = lt_grow(s->run, &s->caprun, (size_t)s->nrun + 1,
	    sizeof(*s->run));
}

static void
set_add(struct lfset *s, int64_t v)
{
	struct lfrun *r;

	room(s);
	r = &s->run[s->nrun++];
	r->off = s->end;
	r->lo = 0;
	r->n = 1;
	s->a[s->end++] = v;
	s->live++;
	while (s->nrun >= 2 &&
	    LIVE(s, s->nrun - 2) <= 2 * LIVE(s, s->nrun - 1))
		merge(s);
}

/* Drop every value <= v. */
static void
set_drop(struct lfset *s, int64_t v)
{
	struct lfrun *r;
	const int64_t *x;
	int i;

	for (i = 0; i < s->nrun; i++) {
		r = &s->run[i];
		x = s->a + r->off;
		while (r->lo < r->n && x[r->lo] <= v) {
			r->lo++;
			s->live--;
		}
	}
	while (s->nrun > 0 && LIVE(s, s->nrun - 1) == 0)
		s->end = s->run[--s->nrun].off;
}

/* How many values are < v. */
static size_t
set_below(const struct lfset *s, int64_t v)
{
	const struct lfrun *r;
	const int64_t *x;
	size_t c = 0, lo, hi, mid;
	int i;

	for (i = 0; i < s->nrun; i++) {
		r = &s->run[i];
		x = s->a + r->off;
		lo = r->lo;
		hi = r->n;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (x[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		c += lo - r->lo;
	}
	return c;
}

/*
 * The interval [s, e], after every interval of smaller start: returns
 * how many of those it crosses.  Intervals of equal start never cross;
 * empty ones neither.
 */
uint64_t
lf_xc_add(struct lfxc *c, int64_t s, int64_t e)
{
	size_t i, n;

	if (!c->any || s != c->gs) {
		/* an end at s or before would go at once (set_drop) */
		for (i = 0; i < c->ngrp; i++)
			if (c->grp[i] > s)
				set_add(&c->set, c->grp[i]);
		c->ngrp = 0;
		c->gs = s;
		c->any = 1;
		if (c->set.live > 0)
			set_drop(&c->set, s);
	}
	if (e <= s)
		return 0;
	n = c->set.live > 0 ? set_below(&c->set, e) : 0;
	c->grp = lt_grow(c->grp, &c->grpcap, c->ngrp + 1, sizeof(*c->grp));
	c->grp[c->ngrp++] = e;
	return n;
}

/*
 * An interval of start s would come next, but its end is not known yet:
 * the count it will have is that of the intervals of smaller start still
 * open at s, *cnt, less those of them that end at its end or later: *ceq
 * of them end at or after v, and since its end will be v or later, none
 * end later.  Nothing changes.
 */
void
lf_xc_open(const struct lfxc *c, int64_t s, int64_t v, uint64_t *cnt,
    uint64_t *ceq)
{
	size_t i;

	*cnt = c->set.live - set_below(&c->set, s + 1);
	*ceq = c->set.live - set_below(&c->set, v);
	if (!c->any || c->gs >= s)
		return;
	for (i = 0; i < c->ngrp; i++) {
		*cnt += c->grp[i] > s;
		*ceq += c->grp[i] >= v;
	}
}

/*
 * The end e of an interval of start s is known now, after intervals of
 * later start maybe, which it did not cross (they ended at or before
 * it): it is open for those to come.
 */
void
lf_xc_late(struct lfxc *c, int64_t s, int64_t e)
{
	if (!c->any || s > c->gs)
		lf_xc_add(c, s, s);
	if (e <= c->gs)
		return;
	if (s == c->gs) {
		c->grp = lt_grow(c->grp, &c->grpcap, c->ngrp + 1, sizeof(*c->grp));
		c->grp[c->ngrp++] = e;
	} else
		set_add(&c->set, e);
}

/* Start again with no interval, keeping the memory. */
void
lf_xc_reset(struct lfxc *c)
{
	c->set.end = 0;
	c->set.nrun = 0;
	c->set.live = 0;
	c->ngrp = 0;
	c->any = 0;
}

void
lf_xc_free(struct lfxc *c)
{
	free(c->set.a);
	free(c->set.run);
	free(c->set.tmp);
	free(c->grp);
	memset(c, 0, sizeof(*c));
}
