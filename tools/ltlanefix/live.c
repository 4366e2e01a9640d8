/* See LICENSE file for copyright and license details. */
/*
 * live.c: ltlanefix(1) on a stream it does not hold, when ltpair says,
 * in #open and #close directives, which spans are still open on each
 * thread (see ltpair.c and litracer-stream(5)).
 *
 * The slices of a thread are placed in trace-lanefix's order (by start,
 * longer first, then as they came), as in whole.c, but as soon as no
 * slice that sorts before them can still come: every slice still to come
 * on a thread begins at the time ltpair last told for it, or is one of
 * the spans it told are open.  A slice is written when it is placed; so
 * memory holds the slices that wait, not the stream.
 *
 * An open span (a placeholder: its start is known, its end is not) sorts
 * before the slices that begin inside it.  The one that comes next may be
 * placed before its end is known when lane 0 is empty then: it goes
 * there, alone, unsnapped, and the slices that follow, all of which end
 * before it (they were closed while it was open), nest in it, whatever
 * its end: they are placed as if it were not there, which they would be
 * if it were, and it is put under them when its X comes.  Any other open
 * span makes the slices after it wait for its X.
 *
 * If the times on a thread go back (a clock step, a damaged or
 * concatenated log), a slice may come after slices that sort after it
 * were written.  It is not placed among them: such "late" slices wait
 * for the end of the stream and go to lanes of their own, counted.
 * Nothing ever crosses.
 *
 * A thread that has gone quiet (nothing of it waits or is open, and all
 * it placed ended by the time ltpair told for it) lets go of what placed
 * its slices, as a long job has threads by the thousand that come and
 * go: it keeps its time and a floor, the latest end it placed.  What
 * comes later begins at that time or after, and so can neither cross nor
 * nest in what it placed: the slices that follow are placed as they
 * would have been.  Should a slice begin below the floor all the same
 * (ltpair did not tell truly), it is late.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

#define QMAX	65536	/* lines waiting their turn, at most */
#define ROUND	16384	/* lines between looks for threads gone quiet */

/*
 * A line to write, in the order lines came: a record or directive as it
 * came (ready at once), or a slice waiting to be placed.
 */
struct held {
	struct lfslice	 x;
	uint64_t	 seq;		/* the order it came in */
	struct ltbuf	 line;		/* as it came, without newline */
	uint32_t	 thread;	/* of the record; LF_NONE: a directive */
	uint8_t		 slice;		/* a slice, x its placement */
	uint8_t		 ready;		/* written when its turn comes */
	uint8_t		 loose;		/* out of the queue: written when ready */
	uint8_t		 names;		/* the new lanes are named after it */
	uint8_t		 has[2];	/* of a slice: its ts, dur column is not - */
	uint16_t	 end[LT_NCOL];	/* of a slice: its columns (lt_out_hint) */
	struct held	*next;		/* free list */
};

/* A flow waiting for its slice. */
struct hflow {
	int64_t		 ts;
	uint64_t	 seq;
	int		 next;		/* binds to the next slice */
	int		 hasalt;
	struct lfslice	 alt;		/* bound to an open span placed before
					   its end: else, its slice */
	struct ltbuf	 line;
	struct hflow	*link;
	uint32_t	 thread;
	uint8_t		 ready, loose;
	uint8_t		 kept;		/* -k: bound at the end (late.c) */
	int64_t		 nts;		/* when ready: its ts */
	uint32_t	 lane;		/* and the lane it moves to, or 0 */
};

/* The lines to write, oldest first: each a held or a flow. */
struct qent {
	void		*p;
	int		 flow;
};

/* A heap of pointers, smallest first. */
struct heap {
	void		**a;
	size_t		 n, cap;
};

/*
 * The slices of a thread waiting, smallest first: those that came in
 * order (most: LitData writes a thread's short spans one after the
 * other) in a ring, the others in a heap.
 */
struct queue {
	struct held	**ring;
	size_t		 head, n, cap;
	struct heap	 heap;
};

/* A slice placed, as flows that come later may bind to it. */
struct bslice {
	struct lfslice	 x;
	int		 pend;		/* the open span placed: x.end unknown */
	int		 gone;		/* that span: LATE, or its X never came */
};

enum { GONE_LATE = 1, GONE_NOX };

/* The open span placed before its end is known. */
struct pend {
	int		 on;
	int64_t		 ts;
	int64_t		 now;		/* the thread's time when it was placed */
	int64_t		 hi;		/* the latest end placed since */
	int64_t		 smax;		/* the latest start closed over since */
	uint64_t	 cnt, ceq;	/* see lf_xc_open */
	size_t		 b;		/* its entry in the thread's bst */
	long long	 after;		/* slices placed since */
	struct lfslice	 first;		/* the first of them */
	struct bslice	 last;		/* the thread's last before it */
	int		 haslast;
	struct hflow	*flows;		/* bound to it */
};

struct lth {
	int64_t		 now;		/* no X of it begins before, but... */
	int64_t		*ph;		/* ...those of these spans, unplaced */
	size_t		 nph, capph;
	int64_t		*lph;		/* told of when too late */
	size_t		 nlph, caplph;
	struct queue	 wait;		/* its slices, waiting */
	struct pend	 pend;
	int		 any;		/* placed a slice */
	int64_t		 lts, lend;	/* the last slice placed: start, end */
	struct held	**late;
	size_t		 nlate, caplate;
	struct bslice	*bst;		/* slices placed, still open */
	size_t		 nbst, capbst, keep;
	struct bslice	 last;		/* the last placed, open span or not */
	int		 haslast;
	struct heap	 fwait;		/* flows to bind, by ts */
	struct heap	 fnext;		/* flows to bind to the next slice */
	int64_t		 floor;		/* a slice that begins before: late */
	int64_t		 maxend;	/* the latest end placed, or floor */
	unsigned	 stamp;		/* the last round it was used in */
};

/*
 * A thread: awake (isup[th] set), with its lth, or asleep (or never
 * seen) with what its lth will start from: 16 bytes and 1, as a long
 * job has threads by the thousand.
 */
struct slot {
	int64_t		 now;
	union {
		int64_t		 floor;	/* asleep */
		struct lth	*t;	/* awake */
	} u;
};

static struct slot	*slots;
static uint8_t		*isup;
static size_t		 nslots, capslots, capup;	/* made, room for */
static uint32_t		*awake;		/* the threads that have an lth */
static size_t		 nawake, capawake;
static unsigned		 nround;		/* rounds of ROUND lines */
static unsigned		 nline;
static struct held	*freeheld;
static struct qent	*outq;		/* a ring */
static size_t		 outhead, outn, outcap;
static struct held	*lastm, *lastrec;	/* where new lanes are named */
static int		 sawm, named;
static uint64_t		 seq;
static int		 expect;	/* a #close was read: its X may follow */
static uint32_t		 xthread;
static int64_t		 xts;

static void	beforeopen(struct lth *, int64_t, int);

/* -------- heaps -------- */

static int
heldless(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->x.ts != y->x.ts)
		return x->x.ts < y->x.ts;
	if (x->x.end != y->x.end)
		return x->x.end > y->x.end;
	return x->seq < y->seq;
}

static int
flowless(const void *a, const void *b)
{
	const struct hflow *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->seq < y->seq;
}

static void
hpush(struct heap *h, void *p, int (*less)(const void *, const void *))
{
	size_t i, up;
	void *t;

	h->a = lt_grow(h->a, &h->cap, h->n + 1, sizeof(*h->a));
	h->a[i = h->n++] = p;
	for (; i > 0 && less(h->a[i], h->a[up = (i - 1) / 2]); i = up) {
		t = h->a[i];
		h->a[i] = h->a[up];
		h->a[up] = t;
	}
}

static void *
hpop(struct heap *h, int (*less)(const void *, const void *))
{
	size_t i = 0, c;
	void *top = h->a[0], *t;

	h->a[0] = h->a[--h->n];
	for (; (c = 2 * i + 1) < h->n; i = c) {
		if (c + 1 < h->n && less(h->a[c + 1], h->a[c]))
			c++;
		if (!less(h->a[c], h->a[i]))
			break;
		t = h->a[i];
		h->a[i] = h->a[c];
		h->a[c] = t;
	}
	return top;
}

static void *
htop(const struct heap *h)
{
	return h->n > 0 ? h->a[0] : NULL;
}

static void
qpush(struct queue *q, struct held *h)
{
	size_t i;

	if (q->n > 0 && heldless(h, q->ring[(q->head + q->n - 1) % q->cap])) {
		hpush(&q->heap, h, heldless);
		return;
	}
	if (q->n == q->cap) {
		q->ring = lt_reallocarray(q->ring, q->cap != 0 ? 2 * q->cap : 64,
		    sizeof(*q->ring));
		/* The part that wrapped goes after the rest. */
		for (i = 0; i < q->head; i++)
			q->ring[q->cap + i] = q->ring[i];
		q->cap = q->cap != 0 ? 2 * q->cap : 64;
	}
	q->ring[(q->head + q->n++) % q->cap] = h;
}

static struct held *
qtop(const struct queue *q)
{
	struct held *r = q->n > 0 ? q->ring[q->head] : NULL;
	struct held *h = htop(&q->heap);

	return r == NULL || (h != NULL && heldless(h, r)) ? h : r;
}

static struct held *
qpop(struct queue *q)
{
	struct held *r = q->n > 0 ? q->ring[q->head] : NULL;
	struct held *h = htop(&q->heap);

	if (r == NULL || (h != NULL && heldless(h, r)))
		return hpop(&q->heap, heldless);
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return r;
}

/* -------- threads -------- */

/* Thread th wakes, or is seen for the first time. */
static struct lth *
wake(uint32_t th)
{
	struct lth *t;

	if (th >= nslots) {
		/* Only those made are touched: a long job has many. */
		slots = lt_grow(slots, &capslots, (size_t)th + 1,
		    sizeof(*slots));
		isup = lt_grow(isup, &capup, (size_t)th + 1, sizeof(*isup));
		for (; nslots <= th; nslots++) {
			isup[nslots] = 0;
			slots[nslots].now = slots[nslots].u.floor = INT64_MIN;
		}
	}
	t = lt_calloc(1, sizeof(*t));
	t->now = slots[th].now;
	t->floor = t->maxend = slots[th].u.floor;
	slots[th].u.t = t;
	isup[th] = 1;
	t->stamp = nround;
	awake = lt_grow(awake, &capawake, nawake + 1, sizeof(*awake));
	awake[nawake++] = th;
	return t;
}

static inline struct lth *
lth(uint32_t th)
{
	struct lth *t;

	if (th < nslots && isup[th]) {
		t = slots[th].u.t;
		t->stamp = nround;
		return t;
	}
	return wake(th);
}

static void
lthfree(struct lth *t)
{
	free(t->ph);
	free(t->lph);
	free(t->wait.ring);
	free(t->wait.heap.a);
	free(t->late);
	free(t->bst);
	free(t->fwait.a);
	free(t->fnext.a);
	free(t);
}

/*
 * Has thread t gone quiet: nothing of it waits, no span of it is open or
 * placed before its end, no flow waits, and every slice it placed ended
 * at or before its time, before which no slice or flow of it can begin?
 * (The last one ended after it began: a flow at its start would bind to
 * it.)
 */
static int
quiet(const struct lth *t)
{
	return t->wait.n == 0 && t->wait.heap.n == 0 && t->nph == 0 &&
	    t->nlph == 0 && !t->pend.on && t->fwait.n == 0 &&
	    t->fnext.n == 0 && t->nlate == 0 && t->maxend <= t->now &&
	    (!t->any || t->lts < t->maxend);
}

/*
 * Thread th, quiet, lets go of its lth and its track's placing, but for
 * its time and its floor.
 */
static void
doze(struct lf *lf, uint32_t th)
{
	struct slot *s = &slots[th];
	struct lth *t = s->u.t;
	uint32_t trk = lf->ids.th[th].track;

	if (trk != 0)
		lf_track_done(lf, trk - 1);
	s->now = t->now;
	s->u.floor = t->maxend;
	isup[th] = 0;
	lthfree(t);
}

/*
 * Every ROUND lines, the threads gone quiet that were not used in the
 * round fall asleep (one that is, may be used again soon).
 */
static void
look(struct lf *lf)
{
	size_t i, n = 0;
	uint32_t th;

	for (i = 0; i < nawake; i++) {
		th = awake[i];
		if (slots[th].u.t->stamp != nround && quiet(slots[th].u.t))
			doze(lf, th);
		else
			awake[n++] = th;
	}
	nawake = n;
	nround++;
}

/* The thread whose records these are: a lane's tid, taken, is renamed. */
static uint32_t
owner(struct lf *lf, uint32_t th)
{
	if (th == LF_NONE || !lf->ids.th[th].islane)
		return th;
	if (lf->ids.th[th].ren == 0)
		lf->nrenamed++;
	return lf_rename(&lf->ids, th);
}

/* -------- the output, in the order lines came -------- */

/*
 * The line of thread th as it came, or with its new tid, to o; h, when
 * not NULL, is the slice it is, whose columns and times go with it.
 */
static void
putline(struct lf *lf, struct ltout *o, uint32_t th, char *p, size_t n,
    const struct held *h)
{
	struct ltfield f[LT_NCOL];
	const struct lane *col;
	int64_t times[2];
	int has[2];

	if (h != NULL) {
		times[0] = h->x.ts;
		times[1] = h->x.end - h->x.ts;
	}
	if (th == LF_NONE || (col = lf_col(&lf->ids, th)) == NULL) {
		lt_out_write(o, p, n);
		lt_out_putc(o, '\n');
		if (h == NULL)
			return;
		has[0] = h->has[0];
		has[1] = h->has[1];
		lt_out_hint(o, n + 1, h->end, times, has);
		return;
	}
	lf_cols(p, n, f);
	lf_putrec(o, f, NULL, &lf->ids, col, NULL, h != NULL ? times : NULL);
}

/*
 * Where a line goes: the output, or with -k the sorter, line seq of the
 * stream sorting as 2 seq + 1 (as in whole.c).
 */
static struct ltout *
outfor(struct lf *lf, struct held *h)
{
	return lf->kflag ? lf_split_line(h->line.p, h->line.n,
	    2 * h->seq + 1) : &lf->out;
}

static void
copyline(struct ltbuf *b, const char *p, size_t n)
{
	b->n = 0;
	lt_buf_add(b, p, n);
}

static void
release(struct held *h)
{
	h->next = freeheld;
	freeheld = h;
}

static void
freeflow(struct hflow *f)
{
	lt_buf_free(&f->line);
	free(f);
}

/* A held line, whose turn it is: a slice as placed.  Then let it go. */
static void
writeheld(struct lf *lf, struct held *h)
{
	const struct thread *t;
	const struct lane *ln = NULL;
	struct ltfield f[LT_NCOL];

	if (h->slice) {
		t = &lf->ids.th[h->thread];
		if ((ln = lf_laneof(lf, t->track - 1, &h->x)) == NULL)
			ln = lf_col(&lf->ids, h->thread);
	}
	if (h->slice && lf->kflag) {
		lf_cols(h->line.p, h->line.n, f);
		lf_split_slice(lf, f, &h->x, ln, 2 * h->seq + 1);
		if (lf->lateflows)
			lf_late_slice(h->thread, &h->x, h->seq);
	} else if (ln == NULL && (!h->slice || !lf_changed(&h->x)))
		putline(lf, outfor(lf, h), h->thread, h->line.p, h->line.n,
		    h->slice ? h : NULL);
	else {
		lf_cols(h->line.p, h->line.n, f);
		lf_putslice(&lf->out, f, &h->x, &lf->ids, ln);
	}
	if (h == lastm)
		lastm = NULL;
	if (h == lastrec)
		lastrec = NULL;
	if (h->names) {
		/* Where the stream names its threads, as a whole one. */
		lf->nadded += lf_putlanes(lf->kflag ? lf_split_put(LF_KHEAD,
		    0, 0, 2 * h->seq + 2, 0) : &lf->out, &lf->ids, lf->tracks,
		    lf->ntracks);
		named = 1;
	}
	release(h);
}

/* A flow, whose turn it is, as it follows its slice.  Then let it go. */
static void
writeflow(struct lf *lf, struct hflow *f)
{
	const struct thread *t = &lf->ids.th[f->thread];
	const struct lane *ln = NULL;
	struct ltfield fc[LT_NCOL];
	struct ltout *o = &lf->out;

	if (f->kept) {
		freeflow(f);
		return;
	}
	if (f->lane != 0)
		ln = lf_lane(&lf->tracks[t->track - 1], f->lane);
	else
		ln = lf_col(&lf->ids, f->thread);
	if (lf->kflag)
		o = lf_split_put(f->next ? LF_KNEXT : LF_KOTHER, f->nts, 0,
		    2 * f->seq + 1, 0);
	if (ln == NULL && f->nts == f->ts)
		putline(lf, o, f->thread, f->line.p, f->line.n, NULL);
	else {
		lf_cols(f->line.p, f->line.n, fc);
		lf_putrec(o, fc, f->nts != f->ts ? &f->nts : NULL,
		    &lf->ids, ln, NULL, NULL);
	}
	freeflow(f);
}

static void
enqueue(void *p, int flow)
{
	size_t i;

	if (outn == outcap) {
		outq = lt_reallocarray(outq, outcap != 0 ? 2 * outcap : 1024,
		    sizeof(*outq));
		/* The part that wrapped goes after the rest. */
		for (i = 0; i < outhead; i++)
			outq[outcap + i] = outq[i];
		outcap = outcap != 0 ? 2 * outcap : 1024;
	}
	i = (outhead + outn++) % outcap;
	outq[i].p = p;
	outq[i].flow = flow;
}

/*
 * Write the lines whose turn has come.  The queue holds at most QMAX:
 * beyond, the oldest, if it waits for a slice that cannot be placed yet,
 * leaves it and is written when placed, out of order.  So memory stays
 * bounded even when a span stays open to the end; all: the stream ends.
 */
static void
drain(struct lf *lf, int all)
{
	struct held *h;
	struct hflow *f;
	struct qent *e;
	int ready;

	while (outn > 0) {
		e = &outq[outhead];
		h = e->flow ? NULL : e->p;
		f = e->flow ? e->p : NULL;
		ready = h != NULL ? h->ready : f->ready;
		if (!ready && !all && outn <= QMAX)
			break;
		outhead = (outhead + 1) % outcap;
		outn--;
		if (!ready) {
			if (h != NULL)
				h->loose = 1;
			else
				f->loose = 1;
		} else if (h != NULL)
			writeheld(lf, h);
		else
			writeflow(lf, f);
	}
}

/* Slice h is placed: written now if its turn has come. */
static void
heldready(struct lf *lf, struct held *h)
{
	h->ready = 1;
	if (h->loose)
		writeheld(lf, h);
}

/* A line of thread th (LF_NONE: a directive) as it came, in its turn. */
static struct held *
emit(struct lf *lf, uint32_t th, const char *p, size_t n)
{
	struct held *h;

	if ((h = freeheld) != NULL)
		freeheld = h->next;
	else
		h = lt_calloc(1, sizeof(*h));
	copyline(&h->line, p, n);
	h->seq = seq++;
	h->thread = th;
	h->slice = 0;
	h->ready = 1;
	h->loose = 0;
	h->names = 0;
	enqueue(h, 0);
	(void)lf;
	return h;
}

/*
 * An M record, h: the new lanes are named after the last one, as in a
 * whole stream, so what follows an M record waits until the next one
 * comes, or the end (or the queue is full).
 */
static void
metaline(struct lf *lf, struct held *h)
{
	h->ready = 0;
	if (lastm != NULL)
		heldready(lf, lastm);
	lastm = h;
	sawm = 1;
}

/* -------- flows -------- */

/*
 * Flow f of thread th is bound to slice b (NULL: none): it follows it,
 * and is written in its turn.
 */
static void
putflow(struct lf *lf, uint32_t th, struct hflow *f, const struct lfslice *b)
{
	int moved;

	f->nts = f->ts;
	f->lane = 0;
	if (b != NULL && lf_follow(b, f->ts, f->next, &f->nts, &moved)) {
		lf->nrewritten++;
		f->lane = moved ? b->lane : 0;
	}
	(void)th;
	f->ready = 1;
	if (f->loose)
		writeflow(lf, f);
}

/*
 * Flow f came after the slices it may bind to were placed: with -k on a
 * stream that said so, it is bound at the end (late.c); else it stays
 * as it came, counted.
 */
static void
lateflow(struct lf *lf, uint32_t th, struct hflow *f)
{
	if (!lf->lateflows) {
		lf->nlatef++;
		putflow(lf, th, f, NULL);
		return;
	}
	lf_late_flow(th, f->ts, f->next, f->seq, f->line.p, f->line.n);
	f->kept = 1;
	f->ready = 1;
	if (f->loose)
		writeflow(lf, f);
}

/* A flow that came late, bound at the end to b, written. */
static void
latebind(struct lf *lf, uint32_t th, const struct lfslice *b, int64_t ts,
    int next, uint64_t at, const char *p, size_t n)
{
	struct hflow *f = lt_calloc(1, sizeof(*f));

	copyline(&f->line, p, n);
	f->ts = ts;
	f->seq = at;
	f->next = next;
	f->thread = th;
	putflow(lf, th, f, b);
	writeflow(lf, f);
}

/*
 * Flow f is bound to the placed slice b; alt, when b is the open span
 * placed before its end, is what it binds to if that span never comes.
 */
static void
bindto(struct lf *lf, uint32_t th, struct hflow *f, const struct bslice *b,
    const struct bslice *alt)
{
	struct lth *t = lth(th);

	if (b != NULL && b->pend) {
		f->hasalt = alt != NULL;
		if (alt != NULL)
			f->alt = alt->x;
		f->link = t->pend.flows;
		t->pend.flows = f;
	} else if (b != NULL && b->gone == GONE_LATE)
		lateflow(lf, th, f);
	else if (b != NULL && b->gone)
		putflow(lf, th, f, NULL);
	else
		putflow(lf, th, f, b != NULL ? &b->x : NULL);
}

/* The innermost slice around ts under bst entry i, none popped. */
static const struct bslice *
under(const struct lth *t, size_t i, int64_t ts)
{
	while (i-- > 0)
		if (t->bst[i].x.end > ts && !t->bst[i].gone)
			return &t->bst[i];
	return NULL;
}

/*
 * The flows of thread th that begin before s, when every slice before s
 * is placed: at a slice start, the innermost slice starting there;
 * elsewhere the innermost slice around it (as whole.c binds them).
 */
static void
bindbefore(struct lf *lf, uint32_t th, int64_t s)
{
	struct lth *t = lth(th);
	const struct bslice *b;
	struct hflow *f;

	while ((f = htop(&t->fwait)) != NULL && f->ts < s) {
		hpop(&t->fwait, flowless);
		if (t->haslast && !t->last.gone && t->last.x.ts == f->ts) {
			bindto(lf, th, f, &t->last, t->last.pend ?
			    under(t, t->pend.b, f->ts) : NULL);
			continue;
		}
		while (t->nbst > 0 && !t->bst[t->nbst - 1].pend &&
		    t->bst[t->nbst - 1].x.end <= f->ts)
			t->nbst--;
		b = t->nbst > 0 ? &t->bst[t->nbst - 1] : NULL;
		bindto(lf, th, f, b, b != NULL && b->pend ?
		    under(t, t->nbst - 1, f->ts) : NULL);
	}
}

/* The flows that bind to the next slice, when it is the one placed last. */
static void
bindnext(struct lf *lf, uint32_t th)
{
	struct lth *t = lth(th);
	struct hflow *f;

	while ((f = htop(&t->fnext)) != NULL && f->ts <= t->last.x.ts) {
		hpop(&t->fnext, flowless);
		bindto(lf, th, f, &t->last, NULL);
	}
}

/* A flow of thread th at ts: it waits for its slice, or comes too late. */
static void
addflow(struct lf *lf, uint32_t th, const struct ltrec *rec, int64_t ts)
{
	const struct ltfield *x = &rec->f[LT_EXTRA];
	struct lth *t = lth(th);
	struct hflow *f;
	const char *v;
	size_t vn;

	f = lt_calloc(1, sizeof(*f));
	copyline(&f->line, rec->line, rec->len);
	f->ts = ts;
	f->seq = seq++;
	f->thread = th;
	f->next = rec->f[LT_PH].p[0] == 'f' &&
	    !((v = lt_json_member(x->p, x->n, "bp", &vn)) != NULL &&
	    vn == 3 && memcmp(v, "\"e\"", 3) == 0);
	enqueue(f, 1);
	lf->nflows++;
	if (ts < t->floor ||
	    (t->any && (ts < t->lts || (f->next && ts <= t->lts)))) {
		lateflow(lf, th, f);
		return;
	}
	beforeopen(t, ts, f->next);
	hpush(f->next ? &t->fnext : &t->fwait, f, flowless);
}

/* -------- placing -------- */

/*
 * The bst entry of a slice of start ts just placed.  Slices that end at
 * or before ts can bind no flow to come: those on top go now, the others
 * (under a slice that crosses them) when they have become as many as
 * the rest.
 */
static struct bslice *
opened(struct lth *t, int64_t ts)
{
	size_t i, n = 0;

	while (t->nbst > 0 && !t->bst[t->nbst - 1].pend &&
	    t->bst[t->nbst - 1].x.end <= ts)
		t->nbst--;
	if (t->nbst >= 2 * t->keep + 16) {
		for (i = 0; i < t->nbst; i++) {
			if (!t->bst[i].pend && t->bst[i].x.end <= ts)
				continue;
			if (t->pend.on && i == t->pend.b)
				t->pend.b = n;
			t->bst[n++] = t->bst[i];
		}
		t->nbst = t->keep = n;
	}
	t->bst = lt_grow(t->bst, &t->capbst, t->nbst + 1, sizeof(*t->bst));
	memset(&t->bst[t->nbst], 0, sizeof(*t->bst));
	return &t->bst[t->nbst++];
}

/* The waiting slice h of thread th, placed, and written in its turn. */
static void
placeheld(struct lf *lf, uint32_t th, struct held *h)
{
	struct lth *t = lth(th);
	uint32_t tr = lf->ids.th[th].track - 1;
	struct bslice *b;

	bindbefore(lf, th, h->x.ts);
	lf_place(lf, tr, &h->x, h->line.p, h->line.n);
	if (h->x.end > t->maxend)
		t->maxend = h->x.end;
	if (h->x.nend > t->maxend)
		t->maxend = h->x.nend;
	if (t->pend.on) {
		if (t->pend.after++ == 0)
			t->pend.first = h->x;
		t->pend.hi = h->x.end > t->pend.hi ? h->x.end : t->pend.hi;
		t->pend.hi = h->x.nend > t->pend.hi ? h->x.nend : t->pend.hi;
		if (h->x.ts > t->pend.smax)
			t->pend.smax = h->x.ts;
		if (h->x.lane == 0 && h->x.nts > t->pend.smax)
			t->pend.smax = h->x.nts;
	}
	t->any = 1;
	t->lts = h->x.ts;
	t->lend = h->x.end;
	b = opened(t, h->x.ts);
	b->x = h->x;
	t->last = *b;
	t->haslast = 1;
	bindnext(lf, th);
	heldready(lf, h);
}

/*
 * The open span at ts, next in order, when lane 0 is empty: placed
 * there, its end to come.  Returns 0 when it cannot be.  Nothing of the
 * lanes changes until its X comes, so it can be taken back (unplace)
 * while no slice was placed after it.
 */
static int
placeopen(struct lf *lf, uint32_t th, int64_t ts)
{
	struct lth *t = lth(th);
	uint32_t trk = lf->ids.th[th].track;
	struct track *tr = trk != 0 ? &lf->tracks[trk - 1] : NULL;
	struct bslice *b;

	if (t->pend.on || (tr != NULL && tr->pl != 0 &&
	    !lf_track_open0(&lf->work, &lf->pl[tr->pl - 1]->eng, ts)))
		return 0;
	bindbefore(lf, th, ts);
	memset(&t->pend, 0, sizeof(t->pend));
	t->pend.on = 1;
	t->pend.ts = ts;
	t->pend.now = t->now;
	t->pend.hi = t->pend.smax = INT64_MIN;
	t->pend.last = t->last;
	t->pend.haslast = t->haslast;
	if (tr != NULL)
		lf_xc_open(&lf_placer(lf, trk - 1)->before, ts, t->now,
		    &t->pend.cnt, &t->pend.ceq);
	b = opened(t, ts);
	b->x.ts = b->x.nts = ts;
	b->x.end = b->x.nend = INT64_MAX;
	b->pend = 1;
	t->pend.b = t->nbst - 1;
	t->last = *b;
	t->haslast = 1;
	bindnext(lf, th);
	return 1;
}

static void phadd(struct lth *, int64_t);

/*
 * Take back the open span placed before its end (no slice was placed
 * since): something that sorts before it came.  It waits again, and so
 * do the flows bound to it.
 */
static void
unplace(struct lth *t)
{
	struct hflow *f;

	t->pend.on = 0;
	t->nbst = t->pend.b;
	t->last = t->pend.last;
	t->haslast = t->pend.haslast;
	while ((f = t->pend.flows) != NULL) {
		t->pend.flows = f->link;
		hpush(f->next ? &t->fnext : &t->fwait, f, flowless);
	}
	phadd(t, t->pend.ts);
}

/*
 * Something of thread t at ts that sorts before the open span placed
 * before its end, if it is not too late: the span is taken back.
 */
static void
beforeopen(struct lth *t, int64_t ts, int ateq)
{
	if (t->pend.on && t->pend.after == 0 &&
	    (ts < t->pend.ts || (ateq && ts == t->pend.ts)))
		unplace(t);
}

/* How many unplaced open spans of t begin at ts (t->ph is sorted). */
static size_t
phcount(const struct lth *t, int64_t ts)
{
	size_t i, n = 0;

	for (i = 0; i < t->nph && t->ph[i] <= ts; i++)
		n += t->ph[i] == ts;
	return n;
}

static void
phadd(struct lth *t, int64_t ts)
{
	size_t i;

	t->ph = lt_grow(t->ph, &t->capph, t->nph + 1, sizeof(*t->ph));
	for (i = t->nph++; i > 0 && t->ph[i - 1] > ts; i--)
		t->ph[i] = t->ph[i - 1];
	t->ph[i] = ts;
}

static void
phdel(int64_t *a, size_t *n, size_t i)
{
	memmove(a + i, a + i + 1, (*n - i - 1) * sizeof(*a));
	(*n)--;
}

/* Remove one ts from the sorted a[0..n); 0 if it is not there. */
static int
take(int64_t *a, size_t *n, int64_t ts)
{
	size_t i;

	for (i = *n; i > 0; i--)
		if (a[i - 1] == ts) {
			phdel(a, n, i - 1);
			return 1;
		}
	return 0;
}

/* Place what thread th can place now. */
static void
run(struct lf *lf, uint32_t th)
{
	struct lth *t = lth(th);
	struct held *c;
	int64_t p, s;

	for (;;) {
		c = qtop(&t->wait);
		p = t->nph > 0 ? t->ph[0] : INT64_MAX;
		s = c != NULL && c->x.ts < p ? c->x.ts : p;
		if (s >= t->now)
			break;
		if (c != NULL && c->x.ts < p) {
			placeheld(lf, th, qpop(&t->wait));
			continue;
		}
		/*
		 * An open span comes next (it is longer than a slice of its
		 * start that ended before now), unless its order is not
		 * known: another open span, or a slice ending now, of that
		 * start.
		 */
		if (c != NULL && c->x.ts == p && c->x.end >= t->now)
			break;
		if (phcount(t, p) > 1 || !placeopen(lf, th, p))
			break;
		phdel(t->ph, &t->nph, 0);
	}
	bindbefore(lf, th, s < t->now ? s : t->now);
}

/*
 * The open span placed before its end is not on lane 0 after all
 * (GONE_LATE: its X goes to a lane of its own) or not at all (GONE_NOX):
 * for the flows still to come it is no slice; those bound to it stay
 * where they are.
 */
static void
pendgone(struct lf *lf, uint32_t th, int why)
{
	struct lth *t = lth(th);
	struct bslice *b = &t->bst[t->pend.b];
	struct hflow *f;

	if (why == GONE_NOX && t->pend.after == 0) {
		/* Nothing placed since: as if never there, flows and all. */
		unplace(t);
		take(t->ph, &t->nph, t->pend.ts);
		return;
	}
	t->pend.on = 0;
	b->pend = 0;
	b->gone = why;
	b->x.end = b->x.nend = INT64_MIN;
	if (t->last.pend)
		t->last = *b;
	while ((f = t->pend.flows) != NULL) {
		t->pend.flows = f->link;
		lf->nlatef += why == GONE_LATE;
		if (why == GONE_LATE)
			putflow(lf, th, f, NULL);
		else if (f->next)
			putflow(lf, th, f, &t->pend.first);
		else
			putflow(lf, th, f, f->hasalt ? &f->alt : NULL);
	}
}

/* The X of the open span placed before its end, come: x, line. */
static void
closeopen(struct lf *lf, uint32_t th, struct held *h)
{
	struct lth *t = lth(th);
	struct pend *pd = &t->pend;
	uint32_t trk = lf->ids.th[th].track - 1;
	struct bslice *b = &t->bst[pd->b];
	struct hflow *f;
	int64_t e = h->x.end;

	if (e < pd->hi || e < pd->now) {
		/* It ends before slices that nest in it: not on lane 0. */
		pendgone(lf, th, GONE_LATE);
		t->late = lt_grow(t->late, &t->caplate, t->nlate + 1,
		    sizeof(*t->late));
		t->late[t->nlate++] = h;
		return;
	}
	pd->on = 0;
	if (pd->after == 0) {
		t->any = 1;
		t->lts = h->x.ts;
		t->lend = e;
	}
	/* Lane 0, where it was, with its times; under all placed since. */
	h->x.nts = h->x.ts;
	h->x.nend = e;
	h->x.lane = 0;
	h->x.snaps = 0;
	if (e > t->maxend)
		t->maxend = e;
	if (e > pd->smax)
		lf_track_bottom(&lf->work, &lf_placer(lf, trk)->eng, h->x.ts,
		    e);
	lf->xbefore += pd->cnt - (e == pd->now ? pd->ceq : 0);
	lf_xc_late(&lf_placer(lf, trk)->before, h->x.ts, e);
	lf_xc_late(lf_after(lf, trk, 0), h->x.ts, e);
	b->pend = 0;
	b->x = h->x;
	if (t->last.pend)
		t->last = *b;
	while ((f = pd->flows) != NULL) {
		pd->flows = f->link;
		putflow(lf, th, f, &h->x);
	}
	heldready(lf, h);
}

/* -------- records -------- */

/* The slice x of thread th, of record rec, waits: in its turn too. */
static struct held *
newheld(const struct ltrec *rec, const struct lfslice *x, uint32_t th)
{
	struct held *h;
	int i;

	if ((h = freeheld) != NULL)
		freeheld = h->next;
	else
		h = lt_calloc(1, sizeof(*h));
	h->x = *x;
	h->seq = seq++;
	h->thread = th;
	h->slice = 1;
	h->ready = h->loose = h->names = 0;
	copyline(&h->line, rec->line, rec->len);
	for (i = 0; i < LT_NCOL; i++)
		h->end[i] = (uint16_t)(rec->f[i].p + rec->f[i].n - rec->line);
	h->has[0] = !LT_ISNONE(rec->f[LT_TS]);
	h->has[1] = !LT_ISNONE(rec->f[LT_DUR]);
	enqueue(h, 0);
	return h;
}

/* Does slice h of t sort before the last slice t placed? */
static int
islate(const struct lth *t, const struct held *h)
{
	return h->x.ts < t->floor || (t->any && (h->x.ts < t->lts ||
	    (h->x.ts == t->lts && h->x.end > t->lend)));
}

/* An X slice x of thread th; closes: it is the X of a span told of. */
static void
addslice(struct lf *lf, uint32_t th, const struct ltrec *rec,
    const struct lfslice *x, int closes)
{
	struct lth *t = lth(th);
	struct held *h = newheld(rec, x, th);
	int64_t ts = x->ts;

	lf_track(lf, th, rec->line, rec->len);
	lf->nslices++;
	lastrec = h;
	if (closes && t->pend.on && t->pend.ts == ts) {
		closeopen(lf, th, h);
		return;
	}
	if (closes && take(t->lph, &t->nlph, ts))
		goto late;
	if (closes)
		take(t->ph, &t->nph, ts);
	if (islate(t, h) || (t->pend.on && t->pend.after > 0 &&
	    ts <= t->pend.ts))
		goto late;
	beforeopen(t, ts, 1);
	qpush(&t->wait, h);
	return;
late:
	t->late = lt_grow(t->late, &t->caplate, t->nlate + 1,
	    sizeof(*t->late));
	t->late[t->nlate++] = h;
}

/* A #close whose X did not come (a stage between dropped it). */
static void
dropped(struct lf *lf)
{
	struct lth *t;

	if (!expect)
		return;
	expect = 0;
	t = lth(xthread);
	if (t->pend.on && t->pend.ts == xts)
		/* Placed alone on an empty lane 0, it is as if never there. */
		pendgone(lf, xthread, GONE_NOX);
	else if (!take(t->lph, &t->nlph, xts))
		take(t->ph, &t->nph, xts);
	run(lf, xthread);
}

/* A record, in order. */
void
lf_live_rec(struct lf *lf, struct ltrd *rd, const struct ltrec *rec)
{
	struct lfslice x;
	uint32_t th;
	int c, has[2], closes = 0;
	int64_t v[2];

	lf->nevents++;
	th = owner(lf, lf_record(lf, rd, rec, v, has));
	c = rec->f[LT_PH].p[0];
	if (expect) {
		closes = c == 'X' && th == xthread && has[0] && v[0] == xts;
		if (!closes)
			dropped(lf);
		expect = 0;
	}
	if (c == 'X' && has[0] && has[1]) {
		lf_slicetimes(rd, v[0], v[1], &x);
		addslice(lf, th, rec, &x, closes);
		return;
	}
	if ((c == 's' || c == 't' || c == 'f') && has[0]) {
		addflow(lf, th, rec, v[0]);
		return;
	}
	if (c == 'X')
		lf->nunplaced++;
	else if (c == 'M')
		lf_meta(&lf->ids, rec, th);
	else if (c == 'B' || c == 'E')
		lf->nbe++;
	lastrec = emit(lf, th, rec->line, rec->len);
	if (c == 'M')
		metaline(lf, lastrec);
}

/* The fields of a directive line, in place; how many. */
static size_t
fields(char *p, size_t n, struct ltfield *f, size_t max)
{
	char *end = p + n, *tab;
	size_t k = 0;

	while (k < max) {
		tab = memchr(p, '\t', (size_t)(end - p));
		f[k].p = p;
		f[k].n = (size_t)((tab != NULL ? tab : end) - p);
		k++;
		if (tab == NULL)
			break;
		p = tab + 1;
	}
	return k;
}

/* The thread of the PID and TID fields of a directive, or LF_NONE. */
static uint32_t
dirthread(struct lf *lf, const struct ltfield *f)
{
	struct ltrec r;
	uint32_t th;

	memset(&r, 0, sizeof(r));
	r.f[LT_PID] = f[0];
	r.f[LT_TID] = f[1];
	r.f[LT_EXTRA].p = (char *)"{}";
	r.f[LT_EXTRA].n = 2;
	if ((th = lf_idthread(lf, &r, 1)) == LF_NONE)
		return LF_NONE;
	return owner(lf, th);
}

/* "#open PID TID NOW TS...": returns 0 if it is not one after all. */
static int
openspans(struct lf *lf, char *p, size_t n)
{
	struct ltfield f[4];
	struct lth *t;
	int64_t now, ts;
	uint32_t th;
	char *q, *end = p + n, *tab;

	if (fields(p, n, f, 4) < 4 || (th = dirthread(lf, f + 1)) ==
	    LF_NONE)
		return 0;
	tab = memchr(f[3].p, '\t', (size_t)(end - f[3].p));
	if (lt_us_parse(f[3].p, (size_t)((tab != NULL ? tab : end) - f[3].p),
	    &now) != LT_NUM_OK)
		return 0;
	t = lth(th);
	for (q = tab; q != NULL; q = tab) {
		q++;
		tab = memchr(q, '\t', (size_t)(end - q));
		if (lt_us_parse(q, (size_t)((tab != NULL ? tab : end) - q),
		    &ts) != LT_NUM_OK)
			continue;
		if (ts < t->floor || (t->any && ts <= t->lts) || (t->pend.on &&
		    t->pend.after > 0 && ts <= t->pend.ts)) {
			t->lph = lt_grow(t->lph, &t->caplph, t->nlph + 1,
			    sizeof(*t->lph));
			t->lph[t->nlph++] = ts;
			continue;
		}
		beforeopen(t, ts, 1);
		phadd(t, ts);
	}
	if (now > t->now)
		t->now = now;
	run(lf, th);
	return 1;
}

/* "#close PID TID TS": returns 0 if it is not one after all. */
static int
closespans(struct lf *lf, char *p, size_t n)
{
	struct ltfield f[4];
	uint32_t th;
	int64_t ts;

	if (fields(p, n, f, 4) != 4 || (th = dirthread(lf, f + 1)) ==
	    LF_NONE || lt_us_parse(f[3].p, f[3].n, &ts) != LT_NUM_OK)
		return 0;
	dropped(lf);
	expect = 1;
	xthread = th;
	xts = ts;
	return 1;
}

/* A directive, in order: ltpair's are taken, the others pass. */
void
lf_live_dir(struct lf *lf, const struct ltrec *rec)
{
	int ours = 0;

	if (lf_isours(rec->line, rec->len))
		ours = rec->line[1] == 'o' ? openspans(lf, rec->line, rec->len) :
		    closespans(lf, rec->line, rec->len);
	if (ours)
		return;
	dropped(lf);
	emit(lf, LF_NONE, rec->line, rec->len);
}

/* Take over from whole.c what it held, and go on live. */
void
lf_live_start(struct lf *lf)
{
	struct lfheld h;
	struct ltrec r;
	struct lth *t;
	struct held *x;
	struct hflow *f;
	const char *why;
	size_t pos = 0;

	lf->online = 1;
	lt_put_header(&lf->out);
	while (lf_whole_held(&pos, &h)) {
		if (h.kind == LF_LINE) {
			x = emit(lf, LF_NONE, h.p, h.n);
			if (h.rec)
				lastrec = x;
			if (h.meta)
				metaline(lf, x);
			continue;
		}
		if (lt_rec_split(h.p, h.n, &r, &why) < 0)
			lt_die(LT_EXIT_SYS, "internal error: %s", why);
		t = lth(h.thread);
		if (h.kind == LF_SLICE) {
			qpush(&t->wait, lastrec = newheld(&r, &h.x, h.thread));
			continue;
		}
		f = lt_calloc(1, sizeof(*f));
		copyline(&f->line, h.p, h.n);
		f->ts = h.ts;
		f->seq = seq++;
		f->next = h.next;
		f->thread = h.thread;
		enqueue(f, 1);
		hpush(f->next ? &t->fnext : &t->fwait, f, flowless);
	}
	lf_whole_free();
}

/*
 * The late slices of thread th, on lanes of their own after the others
 * of its track, in the order of placement among themselves.
 */
static void
placelate(struct lf *lf, uint32_t th)
{
	struct lth *t = slots[th].u.t;
	uint32_t trk = lf->ids.th[th].track - 1, base, *idx, i;
	struct lfslice *sl;
	struct lftrack eng;
	struct lfxc before;
	struct held *h;

	if (t->nlate == 0)
		return;
	sl = lt_reallocarray(NULL, t->nlate, sizeof(*sl));
	idx = lt_reallocarray(NULL, t->nlate, sizeof(*idx));
	for (i = 0; i < t->nlate; i++) {
		sl[i] = t->late[i]->x;
		idx[i] = i;
	}
	lf_lanes_sort(&lf->work, sl, idx, t->nlate);
	lf_track_init(&eng);
	memset(&before, 0, sizeof(before));
	base = lf_nlane(&lf->tracks[trk]) + 1;
	for (i = 0; i < t->nlate; i++) {
		h = t->late[idx[i]];
		h->x = sl[idx[i]];
		lf_place_late(lf, trk, &eng, base, &before, &h->x, h->line.p,
		    h->line.n);
		heldready(lf, h);
	}
	lf_track_free(&lf->work, &eng);
	lf_xc_free(&before);
	free(sl);
	free(idx);
	t->nlate = 0;
}

/* The end of the stream: everything left is placed and written. */
void
lf_live_end(struct lf *lf)
{
	struct lth *t;
	struct hflow *f;
	size_t i;

	dropped(lf);
	for (i = 0; i < nslots; i++) {
		if (!isup[i])
			continue;
		t = slots[i].u.t;
		t->nph = t->nlph = 0;
		if (t->pend.on) {
			expect = 1;
			xthread = (uint32_t)i;
			xts = t->pend.ts;
			dropped(lf);
		}
		t->now = INT64_MAX;
		run(lf, (uint32_t)i);
		bindbefore(lf, (uint32_t)i, INT64_MAX);
		while ((f = htop(&t->fnext)) != NULL)
			putflow(lf, (uint32_t)i, hpop(&t->fnext, flowless),
			    NULL);
	}
	for (i = 0; i < nslots; i++)
		if (isup[i])
			placelate(lf, (uint32_t)i);
	/*
	 * The new lanes are named after the last M record, or the last
	 * record when there is none, as for a whole stream, if it is not
	 * written yet; else at the end.
	 */
	if (sawm && lastm != NULL) {
		lastm->names = 1;
		heldready(lf, lastm);
	} else if (!sawm && lastrec != NULL)
		lastrec->names = 1;
	drain(lf, 1);
	if (lf->lateflows)
		lf_late_join(lf, latebind);
	if (!named)
		lf->nadded += lf_putlanes(lf->kflag ? lf_split_put(LF_KHEAD,
		    0, 0, UINT64_MAX, 0) : &lf->out, &lf->ids, lf->tracks,
		    lf->ntracks);
}

/*
 * What waits its turn, written when it is due, after each line read;
 * and now and then, threads gone quiet fall asleep.
 */
void
lf_live_drain(struct lf *lf)
{
	drain(lf, 0);
	if (++nline % ROUND == 0)
		look(lf);
}

void
lf_live_free(void)
{
	struct held *h;
	size_t i;

	for (i = 0; i < nslots; i++)
		if (isup[i])
			lthfree(slots[i].u.t);
	free(slots);
	free(isup);
	free(awake);
	free(outq);
	while ((h = freeheld) != NULL) {
		freeheld = h->next;
		lt_buf_free(&h->line);
		free(h);
	}
}
