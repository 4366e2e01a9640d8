/* See LICENSE file for copyright and license details. */
/*
 * pfstack.c: the ordered half of ltcheck's Perfetto model.
 *
 * At the end of the input the kept records are sorted as Queue::Sort
 * does (from the lower bound of the smallest out-of-order ts, by ts,
 * then E first and longer X first once an X was seen, then file order)
 * and replayed through one slice stack per track (SliceTracker:
 * MaybeCloseStack, Begin, End, Scoped) and through the flow tracker.
 * Each stack holds at most MAXDEPTH slices, so this needs memory for the
 * tracks only, not for the events.
 */
#include <stdlib.h>

#include "lt.h"
#include "pfint.h"

struct slice {
	int64_t		 ts;
	int64_t		 dur;		/* PENDING while a B waits for E */
	uint32_t	 pair;
	uint32_t	 idx;
	uint8_t		 kind;
	uint8_t		 flags;
	uint8_t		 bchild;	/* a B was pushed above it */
};

struct pend {
	uint32_t	 slot;
	uint32_t	 idx;
};

struct track {
	struct slice	*st;
	uint32_t	 n, cap;
	struct pend	*pf;		/* flow ends waiting for a slice */
	uint32_t	 npf, cappf;
	int64_t		 xts;		/* last X begun, for PF-TIE-ORDER */
	uint32_t	 xidx;
	int		 hasx;
	uint32_t	*cut;		/* pairs of B truncated by a */
	uint32_t	 ncut, capcut;	/*   misplaced_end_event */
	int64_t		 dts;		/* flows without a slice at dts */
	uint32_t	 didx;
	uint32_t	 dn;
};

struct replay {
	struct pfsim	*s;
	struct track	*t;
	size_t		 v2next;
};

/*
 * The entry for record idx in a side table (longs, v2) whose entries
 * start with the record number and are in file order; n if none.
 */
static size_t
side(const void *tab, size_t n, size_t size, uint32_t idx)
{
	const char *base = tab;
	size_t lo = 0, hi = n, mid;
	uint32_t v;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&v, base + mid * size, sizeof(v));
		if (v < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n) {
		memcpy(&v, base + lo * size, sizeof(v));
		if (v == idx)
			return lo;
	}
	return n;
}

static int64_t
rdur(const struct pfsim *s, const struct rec *r)
{
	size_t i;

	if (r->u != DUR_SIDE || !((r->tk >> 4) & RF_SIDE) ||
	    (i = side(s->longs, s->nlongs, sizeof(*s->longs), r->idx)) ==
	    s->nlongs)
		return r->u;
	return (int64_t)((uint64_t)s->longs[i].hi << 32 | s->longs[i].lo);
}

/* SlowOperatorLess's key: E first, then the longer X, then the rest. */
static int64_t
key(const struct pfsim *s, const struct rec *r)
{
	switch (r->tk & 15) {
	case K_E:
		return INT64_MIN;
	case K_X:
		return INT64_MAX - rdur(s, r);
	default:
		return INT64_MAX;
	}
}

static int
less(const struct pfsim *s, const struct rec *a, const struct rec *b)
{
	int64_t x = rec_ts(a), y = rec_ts(b);

	if (x != y)
		return x < y;
	if (s->slow) {
		x = key(s, a);
		y = key(s, b);
		if (x != y)
			return x < y;
	}
	return a->idx < b->idx;
}

static void
swap(struct rec *a, struct rec *b)
{
	struct rec t = *a;

	*a = *b;
	*b = t;
}

static void
sift(const struct pfsim *s, struct rec *a, size_t i, size_t n)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && less(s, &a[c], &a[c + 1]))
			c++;
		if (!less(s, &a[i], &a[c]))
			return;
		swap(&a[i], &a[c]);
		i = c;
	}
}

static void
heapsort(const struct pfsim *s, struct rec *a, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(s, a, i, n);
	while (n-- > 1) {
		swap(&a[0], &a[n]);
		sift(s, a, 0, n);
	}
}

/* Introsort: quicksort, insertion sort for short runs, heapsort if deep. */
static void
sort(const struct pfsim *s, struct rec *a, size_t n, int depth)
{
	struct rec pivot, t;
	size_t i, j, m;

	while (n > 16) {
		if (depth-- == 0) {
			heapsort(s, a, n);
			return;
		}
		m = n / 2;
		if (less(s, &a[m], &a[0]))
			swap(&a[m], &a[0]);
		if (less(s, &a[n - 1], &a[m]))
			swap(&a[n - 1], &a[m]);
		if (less(s, &a[m], &a[0]))
			swap(&a[m], &a[0]);
		pivot = a[m];
		i = 0;
		j = n - 1;
		for (;;) {
			while (less(s, &a[i], &pivot))
				i++;
			while (less(s, &pivot, &a[j]))
				j--;
			if (i >= j)
				break;
			swap(&a[i], &a[j]);
			i++;
			j--;
		}
		/* a[0..j] <= pivot <= a[j+1..n) */
		if (j + 1 < n - j - 1) {
			sort(s, a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		} else {
			sort(s, a + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (i = 1; i < n; i++) {
		t = a[i];
		for (j = i; j > 0 && less(s, &t, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Queue::Sort: only from the first event that can have moved. */
static void
sortrecs(struct pfsim *s)
{
	size_t lo = 0, hi = s->rec_start, mid, n, i;
	int depth = 0;

	if (s->sort_start == 0)
		return;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rec_ts(&s->recs[mid]) < s->sort_min)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = s->nrec - lo;
	for (i = 1; i < n; i++)
		if (less(s, &s->recs[lo + i], &s->recs[lo + i - 1]))
			break;
	if (i >= n)
		return;		/* already in order */
	for (i = n; i > 0; i >>= 1)
		depth += 2;
	sort(s, s->recs + lo, n, depth);
}

/* -------- the replay -------- */

static void
pop(struct track *t)
{
	if (t->n > 0)
		t->n--;
}

/*
 * A B that a finding truncated or dropped: its E will match nothing,
 * and that is part of the same finding, not another one.
 */
static void
cut(struct track *t, uint32_t pair)
{
	if (t->ncut == t->capcut) {
		t->capcut = t->capcut != 0 ? t->capcut * 2 : 4;
		t->cut = lt_reallocarray(t->cut, t->capcut, sizeof(*t->cut));
	}
	t->cut[t->ncut++] = pair;
}

/* misplaced_end_event: which rule the writer broke. */
static void
misplaced(struct replay *rp, struct track *t, uint32_t i, int64_t end)
{
	const char *rule = "PF-BE-CROSS-NAMED";
	struct slice *c;
	uint32_t j, idx = t->st[i].idx;
	int first = 1;

	for (j = t->n; j-- > i + 1;) {
		c = &t->st[j];
		if (c->dur != PENDING)
			continue;
		c->dur = end - c->ts;
		pf_adddur(rp->s, rp->s->pairs[c->pair].cat, c->dur);
		cut(t, c->pair);
		if (first || c->dur == 0) {
			idx = c->idx;
			first = 0;
		}
		if (t->st[i].kind == K_X)
			rule = "PF-B-INSIDE-X-OUTLIVES";
		else if (c->dur == 0)
			rule = "PF-SAME-TS-B-BEFORE-E";
	}
	pf_findrec(rp->s, rule, "misplaced_end_event", PF_DL, idx);
}

/*
 * SliceTracker::MaybeCloseStack before an event at ts lasting dur
 * (PENDING for B and E).  Returns the index of a complete slice that the
 * new X would partially overlap, or -1.
 */
static int
closestack(struct replay *rp, struct track *t, int64_t ts, int64_t dur)
{
	struct slice *sl;
	int64_t end;
	int incomplete = 0, over = -1;
	uint32_t i;

	for (i = t->n; i-- > 0;) {
		if (i >= t->n)
			continue;
		sl = &t->st[i];
		if (sl->dur == PENDING) {
			incomplete = 1;
			continue;
		}
		end = endof(sl->ts, sl->dur);
		if (incomplete) {
			if (ts <= end)
				continue;
			misplaced(rp, t, i, end);
			t->n = i;
			incomplete = 0;
			continue;
		}
		if (end < ts || (end == ts && !(sl->dur == 0 && dur == 0))) {
			pop(t);
			continue;
		}
		if (dur != PENDING && over < 0 && ts < end && end < endof(ts, dur))
			over = (int)i;
	}
	return over;
}

static void
flushflows(struct replay *rp, struct track *t)
{
	if (t->dn == 0)
		return;
	pf_findrec(rp->s, "PF-FLOW-NO-ENCLOSING", "flow_no_enclosing_slice",
	    PF_TE, t->didx)->n += t->dn - 1;
	t->dn = 0;
}

/* A flow event that found no slice: decided when the track moves on. */
static void
noenclosing(struct replay *rp, struct track *t, int64_t ts, uint32_t idx)
{
	if (t->dn > 0 && t->dts != ts)
		flushflows(rp, t);
	if (t->dn++ == 0) {
		t->dts = ts;
		t->didx = idx;
	}
}

static void
flowend(struct replay *rp, uint32_t slot, uint32_t idx, int close)
{
	if (!rp->s->flows[slot]) {
		pf_findrec(rp->s, "PF-FLOW-END-NO-START",
		    "flow_end_without_start", PF_INFO, idx);
		return;
	}
	if (close)
		rp->s->flows[slot] = 0;
}

static void
flowbegin(struct replay *rp, uint32_t slot, uint32_t idx)
{
	if (rp->s->flows[slot])
		pf_findrec(rp->s, "PF-FLOW-DUP-ID", "flow_duplicate_id", PF_TE,
		    idx);
	else
		rp->s->flows[slot] = 1;
}

/* The v2 flow of record r, if any (bind_id, flow_in, flow_out). */
static void
v2(struct replay *rp, struct track *t, const struct rec *r)
{
	struct pfsim *s = rp->s;
	size_t lo;

	if (!((r->tk >> 4) & RF_V2) ||
	    (lo = side(s->v2, s->nv2, sizeof(*s->v2), r->idx)) == s->nv2)
		return;
	if (t->n == 0) {
		noenclosing(rp, t, rec_ts(r), r->idx);
		return;
	}
	if (s->v2[lo].dir & 1)
		flowend(rp, s->v2[lo].slot, r->idx, 1);
	if (s->v2[lo].dir & 2)
		flowbegin(rp, s->v2[lo].slot, r->idx);
}

static const char *
overlaprule(const struct slice *p, const struct rec *r, int64_t ts)
{
	int f = p->flags | (int)((r->tk >> 4) & 15);
	int64_t by = endof(p->ts, p->dur) - ts;

	if ((f & RF_PREC) && by <= 1000)
		return "PF-TS-PRECISION";
	if ((f & RF_ROUND) && by <= 2)
		return "PF-X-OVERLAP-ROUNDING";
	return "PF-X-OVERLAP";
}

/* Begin (dur PENDING), Scoped (X, dur >= 0) or an instant (dur 0). */
static void
begin(struct replay *rp, struct track *t, const struct rec *r, int64_t dur,
    int kind)
{
	struct pfsim *s = rp->s;
	struct slice *sl;
	int64_t ts = rec_ts(r);
	uint32_t k;
	int over;

	over = closestack(rp, t, ts, dur);
	if (kind == K_X) {
		if (t->hasx && t->xts == ts && r->idx < t->xidx)
			pf_findrec(s, "PF-TIE-ORDER", NULL, PF_INFO, r->idx);
		t->hasx = 1;
		t->xts = ts;
		t->xidx = r->idx;
	}
	if (over >= 0) {
		if (s->band == PF_V57) {
			pf_findrec(s, overlaprule(&t->st[over], r, ts),
			    "slice_spill_overlapping_complete_event", PF_IE,
			    r->idx);
			goto flows;
		}
		if (s->band == PF_V56) {
			pf_findrec(s, overlaprule(&t->st[over], r, ts),
			    "slice_drop_overlapping_complete_event", PF_IE,
			    r->idx);
			goto flows;
		}
		pf_findrec(s, overlaprule(&t->st[over], r, ts), NULL,
		    PF_SILENT, r->idx);
	}
	if (t->n >= MAXDEPTH) {
		pf_findrec(s, "PF-MAX-DEPTH", "slice_max_depth_exceeded", PF_IE,
		    r->idx);
		if (dur == PENDING)
			cut(t, r->u);
		goto flows;
	}
	if (t->n == t->cap) {
		t->cap = t->cap != 0 ? t->cap * 2 : 8;
		t->st = lt_reallocarray(t->st, t->cap, sizeof(*t->st));
	}
	if (dur == PENDING)
		for (k = 0; k < t->n; k++)
			t->st[k].bchild = 1;
	sl = &t->st[t->n++];
	sl->ts = ts;
	sl->dur = dur;
	sl->pair = kind == K_B || kind == K_AB ? r->u : 0;
	sl->idx = r->idx;
	sl->kind = (uint8_t)kind;
	sl->flags = (uint8_t)((r->tk >> 4) & 15);
	sl->bchild = 0;
	/* A flow that sorted just before this slice at the same ts. */
	if (t->dn > 0 && t->dts == ts) {
		pf_findrec(s, "PF-FLOW-BEFORE-SLICE", "flow_no_enclosing_slice",
		    PF_TE, t->didx)->n += t->dn - 1;
		t->dn = 0;
	}
	/* Flow ends waiting for the next slice of this thread. */
	for (k = 0; k < t->npf; k++)
		flowend(rp, t->pf[k].slot, t->pf[k].idx, 0);
	t->npf = 0;
flows:
	v2(rp, t, r);
}

static int
matches(const struct pair *e, const struct pair *b)
{
	if (e->cat != 0 && e->cat != b->cat)
		return 0;
	if (e->name != 0 && b->name != 0 && e->name != b->name)
		return 0;
	return 1;
}

/* SliceTracker::End: the innermost pending slice with E's name and cat. */
static void
end(struct replay *rp, struct track *t, const struct rec *r, int async,
    int alt)
{
	struct pfsim *s = rp->s;
	const struct pair *e = &s->pairs[r->u];
	struct slice *sl;
	int64_t ts = rec_ts(r);
	uint32_t i, j;
	int pending = 0;

	closestack(rp, t, ts, PENDING);
	for (i = t->n; i-- > 0;) {
		sl = &t->st[i];
		if (sl->dur != PENDING)
			continue;
		pending = 1;
		if (matches(e, &s->pairs[sl->pair]))
			break;
	}
	if (i == UINT32_MAX) {
		for (j = t->ncut; j-- > 0;)
			if (matches(e, &s->pairs[t->cut[j]])) {
				t->cut[j] = t->cut[--t->ncut];
				return;
			}
		if (async)
			pf_findrec(s, alt ? "PF-ASYNC-ID-TYPE" :
			    "PF-ASYNC-KEY-MISMATCH", NULL, PF_SILENT, r->idx);
		else
			pf_findrec(s, pending ? "PF-E-NAME-MISMATCH" :
			    "PF-E-UNMATCHED", NULL, PF_SILENT, r->idx);
		return;
	}
	sl = &t->st[i];
	sl->dur = ts - sl->ts;
	pf_adddur(s, s->pairs[sl->pair].cat, sl->dur);
	if (!async && e->name == 0 && e->cat == 0 && sl->bchild)
		pf_findrec(s, "PF-BE-CROSS-UNNAMED", NULL, PF_SILENT, r->idx);
	for (j = i + 1; j < t->n; j++)
		if (t->st[j].dur != PENDING &&
		    endof(t->st[j].ts, t->st[j].dur) > ts)
			pf_findrec(s, "PF-CHILD-OUTLIVES-PARENT", NULL,
			    PF_SILENT, t->st[j].idx);
	if (i == t->n - 1)
		pop(t);
}

static void
flow(struct replay *rp, struct track *t, const struct rec *r, int kind)
{
	struct pfsim *s = rp->s;

	if (kind == K_F) {
		if (t->npf == t->cappf) {
			t->cappf = t->cappf != 0 ? t->cappf * 2 : 4;
			t->pf = lt_reallocarray(t->pf, t->cappf,
			    sizeof(*t->pf));
		}
		t->pf[t->npf].slot = r->u;
		t->pf[t->npf++].idx = r->idx;
		return;
	}
	if (t->n == 0) {
		noenclosing(rp, t, rec_ts(r), r->idx);
		return;
	}
	if (kind == K_S)
		flowbegin(rp, r->u, r->idx);
	else if (kind == K_FE)
		flowend(rp, r->u, r->idx, 0);
	else if (!s->flows[r->u])
		pf_findrec(s, "PF-FLOW-END-NO-START", "flow_step_without_start",
		    PF_INFO, r->idx);
}

/* What is left open at the end of the trace. */
static void
leftover(struct replay *rp, struct track *t)
{
	uint32_t i;

	flushflows(rp, t);
	for (i = 0; i < t->n; i++)
		if (t->st[i].dur == PENDING)
			pf_findrec(rp->s, "PF-B-UNTERMINATED", NULL, PF_SILENT,
			    t->st[i].idx);
	for (i = 0; i < t->npf; i++)
		pf_findrec(rp->s, "SC-BP-VALUE", NULL, PF_SILENT,
		    t->pf[i].idx);
	free(t->st);
	free(t->pf);
	free(t->cut);
}

void
pf_replay(struct pfsim *s)
{
	struct replay rp;
	struct track *t;
	const struct rec *r;
	size_t i;
	int kind;

	sortrecs(s);
	rp.s = s;
	rp.t = lt_calloc(s->ntracks != 0 ? s->ntracks : 1, sizeof(*rp.t));
	rp.v2next = 0;
	for (i = 0; i < s->nrec; i++) {
		r = &s->recs[i];
		t = &rp.t[r->tk >> 8];
		kind = (int)(r->tk & 15);
		if (t->dn > 0 && rec_ts(r) > t->dts)
			flushflows(&rp, t);
		switch (kind) {
		case K_B:
		case K_AB:
			begin(&rp, t, r, PENDING, kind);
			break;
		case K_X:
			begin(&rp, t, r, rdur(s, r), kind);
			break;
		case K_I:
		case K_AN:
			begin(&rp, t, r, 0, kind);
			break;
		case K_E:
		case K_AE:
			end(&rp, t, r, kind == K_AE,
			    kind == K_AE && ((r->tk >> 4) & RF_SIDE));
			break;
		default:
			flow(&rp, t, r, kind);
		}
	}
	for (i = 0; i < s->ntracks; i++)
		leftover(&rp, &rp.t[i]);
	free(rp.t);
}
