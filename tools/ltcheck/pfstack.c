/* See LICENSE file for copyright and license details. */
/*
 * pfstack.c: the ordered half of ltcheck's Perfetto model.
 *
 * Once pfrec.c has sorted the kept records as Queue::Sort does, they
 * are replayed through one slice stack per track (SliceTracker:
 * MaybeCloseStack, Begin, End, Scoped) and through the flow tracker;
 * what Perfetto would count goes to the findings, the durations of the
 * slices to the summary.  Each stack holds at most MAXDEPTH slices, so
 * this needs memory for the tracks only, not for the events.
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
	struct pfrecs	*rs;
	struct pffinds	*fd;
	struct pfsum	*sum;
	int		 band;
	struct track	*t;
};

/* Room for one more of n elements of size bytes at *p (cap: *cap). */
static void *
more(void *p, uint32_t n, uint32_t *cap, size_t size)
{
	size_t c = *cap;

	if (n == UINT32_MAX)
		lt_die(LT_EXIT_SYS, "too many slices on one track");
	p = lt_grow(p, &c, (size_t)n + 1, size);
	*cap = c < UINT32_MAX ? (uint32_t)c : UINT32_MAX;
	return p;
}

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
	t->cut = more(t->cut, t->ncut, &t->capcut, sizeof(*t->cut));
	t->cut[t->ncut++] = pair;
}

/* The category of the pair of slice sl, for the summary. */
static uint32_t
catof(const struct replay *rp, const struct slice *sl)
{
	return rp->rs->pairs[sl->pair].cat;
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
		pf_adddur(rp->sum, catof(rp, c), c->dur);
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
	pf_findrec(rp->fd, rule, "misplaced_end_event", PF_DL, idx);
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
		end = pf_endof(sl->ts, sl->dur);
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
		if (dur != PENDING && over < 0 && ts < end &&
		    end < pf_endof(ts, dur))
			over = (int)i;
	}
	return over;
}

/* -------- flows -------- */

static void
flushflows(struct replay *rp, struct track *t)
{
	if (t->dn == 0)
		return;
	pf_findrec(rp->fd, "PF-FLOW-NO-ENCLOSING", "flow_no_enclosing_slice",
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

/*
 * FlowTracker::End and Step: a flow that started stays open (v1 f and v2
 * flow_in do not close it), so every later end binds to its start.
 */
static void
flowend(struct replay *rp, uint32_t slot, uint32_t idx, const char *counter)
{
	if (!rp->rs->flows[slot])
		pf_findrec(rp->fd, "PF-FLOW-END-NO-START", counter, PF_INFO,
		    idx);
}

static void
flowbegin(struct replay *rp, uint32_t slot, uint32_t idx)
{
	if (rp->rs->flows[slot])
		pf_findrec(rp->fd, "PF-FLOW-DUP-ID", "flow_duplicate_id", PF_TE,
		    idx);
	else
		rp->rs->flows[slot] = 1;
}

/* The v2 flow of record r, if any (bind_id, flow_in, flow_out). */
static void
v2(struct replay *rp, struct track *t, const struct rec *r)
{
	const struct v2flow *f;

	if ((f = pf_recv2(rp->rs, r)) == NULL)
		return;
	if (t->n == 0) {
		noenclosing(rp, t, rec_ts(r), r->idx);
		return;
	}
	if (f->dir == 3)
		flowend(rp, f->slot, r->idx, "flow_step_without_start");
	else if (f->dir & 1)
		flowend(rp, f->slot, r->idx, "flow_end_without_start");
	else
		flowbegin(rp, f->slot, r->idx);
}

/* A v1 flow event: s, t, f with bp "e" now; f waits for a slice. */
static void
flow(struct replay *rp, struct track *t, const struct rec *r, int kind)
{
	if (kind == K_F) {
		t->pf = more(t->pf, t->npf, &t->cappf, sizeof(*t->pf));
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
	else
		flowend(rp, r->u, r->idx, kind == K_FE ?
		    "flow_end_without_start" : "flow_step_without_start");
}

/* What waits for the slice just begun at ts: flows at ts, flow ends. */
static void
bindflows(struct replay *rp, struct track *t, int64_t ts)
{
	uint32_t k;

	/* A flow that sorted just before this slice at the same ts. */
	if (t->dn > 0 && t->dts == ts) {
		pf_findrec(rp->fd, "PF-FLOW-BEFORE-SLICE",
		    "flow_no_enclosing_slice", PF_TE, t->didx)->n += t->dn - 1;
		t->dn = 0;
	}
	for (k = 0; k < t->npf; k++)
		flowend(rp, t->pf[k].slot, t->pf[k].idx,
		    "flow_end_without_start");
	t->npf = 0;
}

/* -------- slices -------- */

static const char *
overlaprule(const struct slice *p, const struct rec *r, int64_t ts)
{
	int f = p->flags | rec_flags(r);
	int64_t by = pf_endof(p->ts, p->dur) - ts;

	if ((f & RF_PREC) && by <= 1000)
		return "PF-TS-PRECISION";
	if ((f & RF_ROUND) && by <= 2)
		return "PF-X-OVERLAP-ROUNDING";
	return "PF-X-OVERLAP";
}

/*
 * An X that partially overlaps slice p: spilled (v57+) or dropped
 * (v51-56), both counted, or (v50) nested wrongly.  Returns 1 when the
 * X does not go on the stack.
 */
static int
overlap(struct replay *rp, const struct slice *p, const struct rec *r,
    int64_t ts)
{
	const char *rule = overlaprule(p, r, ts);

	if (rp->band == PF_V57)
		pf_findrec(rp->fd, rule,
		    "slice_spill_overlapping_complete_event", PF_IE, r->idx);
	else if (rp->band == PF_V56)
		pf_findrec(rp->fd, rule,
		    "slice_drop_overlapping_complete_event", PF_IE, r->idx);
	else
		pf_findrec(rp->fd, rule, NULL, PF_SILENT, r->idx);
	return rp->band != PF_V50;
}

/* Equal-ts X in the file the other way round: the longer is the parent. */
static void
tieorder(struct replay *rp, struct track *t, const struct rec *r,
    int64_t ts)
{
	if (t->hasx && t->xts == ts && r->idx < t->xidx)
		pf_findrec(rp->fd, "PF-TIE-ORDER", NULL, PF_INFO, r->idx);
	t->hasx = 1;
	t->xts = ts;
	t->xidx = r->idx;
}

static void
push(struct track *t, const struct rec *r, int64_t ts, int64_t dur,
    int kind)
{
	struct slice *sl;
	uint32_t k;

	t->st = more(t->st, t->n, &t->cap, sizeof(*t->st));
	if (dur == PENDING)
		for (k = 0; k < t->n; k++)
			t->st[k].bchild = 1;
	sl = &t->st[t->n++];
	sl->ts = ts;
	sl->dur = dur;
	sl->pair = kind == K_B || kind == K_AB ? r->u : 0;
	sl->idx = r->idx;
	sl->kind = (uint8_t)kind;
	sl->flags = (uint8_t)rec_flags(r);
	sl->bchild = 0;
}

/* Begin (dur PENDING), Scoped (X, dur >= 0) or an instant (dur 0). */
static void
begin(struct replay *rp, struct track *t, const struct rec *r, int64_t dur,
    int kind)
{
	int64_t ts = rec_ts(r);
	int over;

	over = closestack(rp, t, ts, dur);
	if (kind == K_X)
		tieorder(rp, t, r, ts);
	/* A spilled or dropped X is not on this stack. */
	if (over >= 0 && overlap(rp, &t->st[over], r, ts)) {
		v2(rp, t, r);
		return;
	}
	if (t->n >= MAXDEPTH) {
		pf_findrec(rp->fd, "PF-MAX-DEPTH", "slice_max_depth_exceeded",
		    PF_IE, r->idx);
		if (dur == PENDING)
			cut(t, r->u);
	} else {
		push(t, r, ts, dur, kind);
		bindflows(rp, t, ts);
	}
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

/* An E that matched no pending slice: why. */
static void
unmatched(struct replay *rp, struct track *t, const struct rec *r,
    int pending, int async, int alt)
{
	const struct pair *e = &rp->rs->pairs[r->u];
	uint32_t j;

	for (j = t->ncut; j-- > 0;)
		if (matches(e, &rp->rs->pairs[t->cut[j]])) {
			t->cut[j] = t->cut[--t->ncut];
			return;
		}
	if (async)
		pf_findrec(rp->fd, alt ? "PF-ASYNC-ID-TYPE" :
		    "PF-ASYNC-KEY-MISMATCH", NULL, PF_SILENT, r->idx);
	else
		pf_findrec(rp->fd, pending ? "PF-E-NAME-MISMATCH" :
		    "PF-E-UNMATCHED", NULL, PF_SILENT, r->idx);
}

/* SliceTracker::End: the innermost pending slice with E's name and cat. */
static void
end(struct replay *rp, struct track *t, const struct rec *r, int async,
    int alt)
{
	const struct pair *e = &rp->rs->pairs[r->u];
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
		if (matches(e, &rp->rs->pairs[sl->pair]))
			break;
	}
	if (i == UINT32_MAX) {
		unmatched(rp, t, r, pending, async, alt);
		return;
	}
	sl = &t->st[i];
	sl->dur = ts - sl->ts;
	pf_adddur(rp->sum, catof(rp, sl), sl->dur);
	if (!async && e->name == 0 && e->cat == 0 && sl->bchild)
		pf_findrec(rp->fd, "PF-BE-CROSS-UNNAMED", NULL, PF_SILENT,
		    r->idx);
	for (j = i + 1; j < t->n; j++)
		if (t->st[j].dur != PENDING &&
		    pf_endof(t->st[j].ts, t->st[j].dur) > ts)
			pf_findrec(rp->fd, "PF-CHILD-OUTLIVES-PARENT", NULL,
			    PF_SILENT, t->st[j].idx);
	if (i == t->n - 1)
		pop(t);
}

/* What is left open at the end of the trace. */
static void
leftover(struct replay *rp, struct track *t)
{
	uint32_t i;

	flushflows(rp, t);
	for (i = 0; i < t->n; i++)
		if (t->st[i].dur == PENDING)
			pf_findrec(rp->fd, "PF-B-UNTERMINATED", NULL,
			    PF_SILENT, t->st[i].idx);
	for (i = 0; i < t->npf; i++)
		pf_findrec(rp->fd, "SC-BP-VALUE", NULL, PF_SILENT,
		    t->pf[i].idx);
	free(t->st);
	free(t->pf);
	free(t->cut);
}

static void
replay(struct replay *rp, const struct rec *r)
{
	struct track *t = &rp->t[r->tk >> 8];
	int kind = rec_kind(r);

	if (t->dn > 0 && rec_ts(r) > t->dts)
		flushflows(rp, t);
	switch (kind) {
	case K_B:
	case K_AB:
		begin(rp, t, r, PENDING, kind);
		break;
	case K_X:
		begin(rp, t, r, pf_rdur(rp->rs, r), kind);
		break;
	case K_I:
	case K_AN:
		begin(rp, t, r, 0, kind);
		break;
	case K_E:
	case K_AE:
		end(rp, t, r, kind == K_AE,
		    kind == K_AE && (rec_flags(r) & RF_SIDE));
		break;
	default:
		flow(rp, t, r, kind);
	}
}

/* The sorted records of rs, through the slice stacks of band. */
void
pf_replay(struct pfrecs *rs, struct pffinds *fd, struct pfsum *sum,
    int band)
{
	struct replay rp;
	size_t i;

	rp.rs = rs;
	rp.fd = fd;
	rp.sum = sum;
	rp.band = band;
	rp.t = lt_calloc(rs->ntracks != 0 ? rs->ntracks : 1, sizeof(*rp.t));
	for (i = 0; i < rs->nrec; i++)
		replay(&rp, &rs->recs[i]);
	for (i = 0; i < rs->ntracks; i++)
		leftover(&rp, &rp.t[i]);
	free(rp.t);
}
