/* See LICENSE file for copyright and license details. */
/*
 * split.c: the output of -k.  The records come here in the stream's
 * order, each with where it sorts, and are written out at the end in
 * that order (see writesplit in whole.c for the order), sorted by
 * sort.c: in bounded memory, however long the stream.
 */
#include "ltlanefix.h"

static struct lfsort	*outs;

static int
keycmp(const struct lfskey *x, const struct lfskey *y)
{
	int c;

	if ((x->cls == LF_KHEAD) != (y->cls == LF_KHEAD))
		return x->cls == LF_KHEAD ? -1 : 1;
	if ((c = lf_sort_tcs(x, y)) != 0)
		return c;
	if (x->seq != y->seq)	/* an end: the later slice is inside */
		return (x->seq < y->seq) == (x->cls == LF_KEND) ? 1 : -1;
	return (int)x->end - (int)y->end;
}

/*
 * A record to come, written to the output returned (one or more
 * lines): where it sorts.  cls LF_KHEAD: before all others, by seq;
 * else by ts, then cls, then sub, then seq (for LF_KEND, the larger
 * first), then end.
 */
struct ltout *
lf_split_put(int cls, int64_t ts, int64_t sub, uint64_t seq, int end)
{
	if (outs == NULL)
		outs = lf_sort_new(keycmp, "the stream is");
	return lf_sort_put(outs, 0, cls, ts, sub, seq, end);
}

/*
 * Slice x of columns f, on lane ln, as its B and E records: at one ts,
 * the ends inner first, the begins outer first, a zero-length slice B
 * then E among the others in stream order.
 */
void
lf_split_slice(struct lf *lf, const struct ltfield *f,
    const struct lfslice *x, const struct lane *ln, uint64_t seq)
{
	int pt = x->nend == x->nts;

	lf_putbe(lf_split_put(pt ? LF_KPOINT : LF_KBEGIN, x->nts,
	    pt ? 0 : -x->nend, seq, 0), f, x, &lf->ids, ln, 0);
	lf_putbe(lf_split_put(pt ? LF_KPOINT : LF_KEND, x->nend,
	    pt ? 0 : -x->nts, seq, 1), f, x, &lf->ids, ln, 1);
	lf->nsplit++;
}

/*
 * Line p[0..n) of the stream, neither slice nor flow: by its ts, or
 * first if it has none (a directive, an M record).
 */
struct ltout *
lf_split_line(char *p, size_t n, uint64_t seq)
{
	struct ltfield f[LT_NCOL];
	int64_t ts;

	if (n > 0 && p[0] != '#') {
		lf_cols(p, n, f);
		if (lt_us_parse(f[LT_TS].p, f[LT_TS].n, &ts) == LT_NUM_OK)
			return lf_split_put(LF_KOTHER, ts, 0, seq, 0);
	}
	return lf_split_put(LF_KHEAD, 0, 0, seq, 0);
}

static void
writerec(void *arg, const struct lfskey *k, const char *p, size_t n)
{
	(void)k;
	lt_out_write(arg, p, n);
}

/*
 * Every record given, sorted, to lf's output; done records were done
 * before (the progress line goes on from there).
 */
void
lf_split_write(struct lf *lf, long long done)
{
	if (outs != NULL)
		lf_sort_each(outs, writerec, &lf->out, &lf->prog, done);
}

/* Let go of everything (again: a no-op). */
void
lf_split_free(void)
{
	lf_sort_free(outs);
	outs = NULL;
}
