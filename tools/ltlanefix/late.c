/* See LICENSE file for copyright and license details. */
/*
 * late.c: with -k, the flows that come after the slices they bind to,
 * as ltstat -t's do (it says so: #lateflows).  Placed as it goes, a
 * stream has let go of those slices by then; so every slice placed is
 * kept here, with the flows that came late, sorted by thread and time
 * (sort.c: a temporary file beyond a bound), and at the end each flow
 * is bound as whole.c binds them, thread by thread, on the times as
 * read: at a slice start, the innermost slice starting there (the
 * outermost for an f without bp "e", which binds to the next slice to
 * begin); elsewhere the innermost slice around it, or for that f the
 * first slice after it.
 */
#include <stdlib.h>

#include "ltlanefix.h"

enum { K_SLICE, K_FLOW };

static struct lfsort	*kept;
static long long	 nflows;

/* By thread; then by start, longer first, in stream order; flows after. */
static int
latecmp(const struct lfskey *x, const struct lfskey *y)
{
	int c;

	if (x->grp != y->grp)
		return x->grp < y->grp ? -1 : 1;
	if ((c = lf_sort_tcs(x, y)) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct ltout *
keep(uint32_t th, int cls, int64_t ts, int64_t sub, uint64_t seq, int next)
{
	if (kept == NULL)
		kept = lf_sort_new(latecmp, "the slices placed are");
	return lf_sort_put(kept, th, cls, ts, sub, seq, next);
}

/* Slice x of thread th, placed, seq-th of the stream. */
void
lf_late_slice(uint32_t th, const struct lfslice *x, uint64_t seq)
{
	lt_out_write(keep(th, K_SLICE, x->ts, -x->end, seq, 0), x,
	    sizeof(*x));
}

/* A flow of thread th at ts, line p[0..n), that came too late. */
void
lf_late_flow(uint32_t th, int64_t ts, int next, uint64_t seq, const char *p,
    size_t n)
{
	lt_out_write(keep(th, K_FLOW, ts, 0, seq, next), p, n);
	nflows++;
}

/* The flows of a thread that bind to its next slice, waiting for it. */
struct waiting {
	int64_t		 ts;
	uint64_t	 seq;
	size_t		 off, n;	/* the line in buf */
};

struct join {
	struct lf	*lf;
	lflatebind	 bind;
	uint32_t	 th;
	int		 any;
	struct lfslice	*stack;		/* slices begun, not yet ended */
	size_t		 n, cap;
	int		 group;		/* the slices that began last: */
	int64_t		 gts;		/* when, */
	struct lfslice	 first, last;	/* the outermost, the innermost */
	struct waiting	*w;
	size_t		 nw, capw;
	struct ltbuf	 buf;
};

/* The flows waiting for the next slice bound to b (NULL: none). */
static void
bindwaiting(struct join *j, const struct lfslice *b)
{
	size_t i;

	for (i = 0; i < j->nw; i++)
		j->bind(j->lf, j->th, b, j->w[i].ts, 1, j->w[i].seq,
		    j->buf.p + j->w[i].off, j->w[i].n);
	j->nw = j->buf.n = 0;
}

static void
onrec(void *arg, const struct lfskey *k, const char *p, size_t n)
{
	struct join *j = arg;
	const struct lfslice *b;
	struct lfslice x;
	struct waiting *w;

	if (!j->any || k->grp != j->th) {
		bindwaiting(j, NULL);
		j->any = 1;
		j->th = k->grp;
		j->n = 0;
		j->group = 0;
	}
	if (k->cls == K_SLICE) {
		memcpy(&x, p, sizeof(x));
		bindwaiting(j, &x);
		/* What ends by then can bind no flow to come. */
		while (j->n > 0 && j->stack[j->n - 1].end <= x.ts)
			j->n--;
		j->stack = lt_grow(j->stack, &j->cap, j->n + 1,
		    sizeof(*j->stack));
		j->stack[j->n++] = x;
		if (!j->group || j->gts != x.ts) {
			j->group = 1;
			j->gts = x.ts;
			j->first = x;
		}
		j->last = x;
		return;
	}
	if (j->group && j->gts == k->ts)
		b = k->end ? &j->first : &j->last;
	else if (k->end) {
		j->w = lt_grow(j->w, &j->capw, j->nw + 1, sizeof(*j->w));
		w = &j->w[j->nw++];
		w->ts = k->ts;
		w->seq = k->seq;
		w->off = j->buf.n;
		w->n = n;
		lt_buf_add(&j->buf, p, n);
		return;
	} else {
		while (j->n > 0 && j->stack[j->n - 1].end <= k->ts)
			j->n--;
		b = j->n > 0 ? &j->stack[j->n - 1] : NULL;
	}
	j->bind(j->lf, j->th, b, k->ts, k->end, k->seq, p, n);
}

/*
 * The flows that came late, each to bind(lf, thread, slice or NULL, ts,
 * next, seq, line, length); then all is let go.
 */
void
lf_late_join(struct lf *lf, lflatebind bind)
{
	struct join j;

	if (kept != NULL && nflows > 0) {
		memset(&j, 0, sizeof(j));
		j.lf = lf;
		j.bind = bind;
		lf_sort_each(kept, onrec, &j, NULL, 0);
		bindwaiting(&j, NULL);
		free(j.stack);
		free(j.w);
		lt_buf_free(&j.buf);
	}
	lf_late_free();
}

void
lf_late_free(void)
{
	lf_sort_free(kept);
	kept = NULL;
	nflows = 0;
}
