/* See LICENSE file for copyright and license details. */
/*
 * hist.c: the durations of one category, in bounded memory.
 *
 * Count, total, minimum and maximum are exact.  So are the percentiles
 * while a category has at most HIST_EXACT durations, which are kept;
 * beyond, they move into log buckets: a duration below 2^(HIST_SUB+1) ns
 * has a bucket of its own, a larger one shares its bucket with those
 * that agree with it in their HIST_SUB+1 leading bits, so a bucket is
 * less than 2^-HIST_SUB (0.2%) of its values wide.  A percentile is then
 * the largest value of its bucket, but never above the maximum: it is
 * never below the exact one, and at most 0.2% above.
 *
 * The buckets come in rows: the small durations, then one row of SUBN
 * for each power of two.  A row is made when a duration first falls in
 * it, so a category holds the few rows its durations span, not the
 * 224 KiB of all of them.
 */
#include <stdlib.h>

#include "ltstat.h"

#define SUBN		(1 << HIST_SUB)
#define EXACTN		(2 * SUBN)
#define NBKT		(EXACTN + (63 - HIST_SUB) * SUBN)
#define NROW		(1 + (NBKT - EXACTN) / SUBN)

/* Row r: the buckets from first(r), n(r) of them. */
#define ROWFIRST(r)	((r) == 0 ? 0 : EXACTN + ((r) - 1) * SUBN)
#define ROWN(r)		((r) == 0 ? EXACTN : SUBN)
#define ROWOF(b)	((b) < EXACTN ? 0 : 1 + ((b) - EXACTN) / SUBN)

static int
bucket(uint64_t v)
{
	int e, sh;

	if (v < EXACTN)
		return (int)v;
	e = 63 - __builtin_clzll(v);
	sh = e - HIST_SUB;
	return EXACTN + (sh - 1) * SUBN + (int)((v >> sh) - SUBN);
}

/* The largest value of bucket b. */
static int64_t
top(int b)
{
	int sh;
	uint64_t key;

	if (b < EXACTN)
		return b;
	sh = (b - EXACTN) / SUBN + 1;
	key = (uint64_t)((b - EXACTN) % SUBN + SUBN);
	if (sh + HIST_SUB + 1 >= 63)
		return INT64_MAX;
	return (int64_t)(((key + 1) << sh) - 1);
}

/* One more duration in bucket b, its row made if it is new. */
static void
count(struct hist *h, int b)
{
	uint64_t **row = &h->bkt[ROWOF(b)];

	if (*row == NULL)
		*row = lt_calloc(ROWN(ROWOF(b)), sizeof(**row));
	(*row)[b - ROWFIRST(ROWOF(b))]++;
}

void
st_hist_add(struct hist *h, int64_t d)
{
	long long i;

	if (d < 0)
		d = 0;
	if (h->n == 0 || d < h->min)
		h->min = d;
	if (h->n == 0 || d > h->max)
		h->max = d;
	h->sum = d > INT64_MAX - h->sum ? INT64_MAX : h->sum + d;
	if (h->bkt == NULL && h->n < HIST_EXACT) {
		if (h->v == NULL)
			h->v = lt_reallocarray(NULL, HIST_EXACT,
			    sizeof(*h->v));
		h->v[h->n++] = d;
		return;
	}
	if (h->bkt == NULL) {
		h->bkt = lt_calloc(NROW, sizeof(*h->bkt));
		for (i = 0; i < h->n; i++)
			count(h, bucket((uint64_t)h->v[i]));
		free(h->v);
		h->v = NULL;
	}
	count(h, bucket((uint64_t)d));
	h->n++;
}

int
st_hist_isexact(const struct hist *h)
{
	return h->bkt == NULL;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The p-th percentile (0 < p <= 100), by nearest rank: the smallest
 * duration that at least p% of them do not exceed.
 */
int64_t
st_hist_pct(struct hist *h, int p)
{
	long long rank, seen = 0;
	int64_t v;
	int b = NBKT, r, i;

	if (h->n == 0)
		return 0;
	rank = (h->n * p + 99) / 100;
	if (rank < 1)
		rank = 1;
	if (h->bkt == NULL) {
		/* Sorting in place is harmless: order is not kept. */
		qsort(h->v, (size_t)h->n, sizeof(*h->v), cmp64);
		return h->v[rank - 1];
	}
	for (r = 0; r < NROW && b == NBKT; r++)
		for (i = 0; h->bkt[r] != NULL && i < ROWN(r); i++)
			if ((seen += (long long)h->bkt[r][i]) >= rank) {
				b = ROWFIRST(r) + i;
				break;
			}
	v = top(b < NBKT ? b : NBKT - 1);
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

void
st_hist_free(struct hist *h)
{
	int r;

	for (r = 0; h->bkt != NULL && r < NROW; r++)
		free(h->bkt[r]);
	free(h->v);
	free(h->bkt);
	h->v = NULL;
	h->bkt = NULL;
}
