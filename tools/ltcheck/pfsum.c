/* See LICENSE file for copyright and license details. */
/*
 * pfsum.c: the numbers of ltcheck's report and of -s: events per
 * category (categories get a small index here, which the model keeps
 * instead of the name), slice durations per category (exact while few
 * enough, then a log histogram) with their percentiles, and events per
 * process.
 */
#include <stdlib.h>

#include "ltcheck.h"

#define EXACT_MAX	(1u << 20)	/* durations kept exactly, in all */
#define HSUB		128		/* histogram buckets per power of 2 */
#define HBUCKETS	(2 * HSUB + 64 * HSUB)

static void
hist_add(uint32_t *h, int64_t d)
{
	uint64_t v = d > 0 ? (uint64_t)d : 0;
	int e = 0;

	while (v >> e >= 2 * HSUB)
		e++;
	if (e == 0)
		h[v]++;
	else
		h[2 * HSUB + (e - 1) * HSUB + ((v >> e) - HSUB)]++;
}

/* on: durations and processes too (-s). */
void
pf_sum_init(struct pfsum *sum, int on)
{
	memset(sum, 0, sizeof(*sum));
	sum->on = on;
	sum->first = INT64_MAX;
	sum->last = INT64_MIN;
	sum->cats = lt_grow(sum->cats, &sum->capcats, 1, sizeof(*sum->cats));
	memset(&sum->cats[0], 0, sizeof(sum->cats[0]));
	sum->ncats = 1;
}

void
pf_sum_free(struct pfsum *sum)
{
	size_t i;

	for (i = 1; i < sum->ncats; i++) {
		free((char *)sum->cats[i].name);
		free(sum->cats[i].dur);
		free(sum->cats[i].hist);
	}
	free(sum->cats);
	for (i = 0; i < sum->nprocs; i++)
		free((char *)sum->procs[i].name);
	free(sum->procs);
	lt_map_free(&sum->catmap);
	lt_map_free(&sum->procmap);
}

static char *
copy(const char *p, size_t n)
{
	char *s = memcpy(lt_malloc(n + 1), p, n);

	s[n] = '\0';
	return s;
}

/* The index of category cat (a string member), 0 if none. */
uint32_t
pf_catid(struct pfsum *sum, const struct pfval *cat)
{
	struct pfcat *c;
	uint32_t *slot;
	int created;

	if (cat->type != '"' || cat->n == 0)
		return 0;
	c = &sum->cats[sum->lastcat];
	if (sum->lastcat != 0 && c->namelen == cat->n &&
	    memcmp(c->name, cat->p, cat->n) == 0)
		return sum->lastcat;
	slot = lt_map_get(&sum->catmap, lt_hash(cat->p, cat->n), NULL, NULL,
	    &created);
	if (!created)
		return sum->lastcat = *slot;
	sum->cats = lt_grow(sum->cats, &sum->capcats, sum->ncats + 1,
	    sizeof(*sum->cats));
	c = &sum->cats[sum->ncats];
	memset(c, 0, sizeof(*c));
	c->name = copy(cat->p, cat->n);
	c->namelen = cat->n;
	*slot = (uint32_t)sum->ncats++;
	return sum->lastcat = *slot;
}

/* A duration of a slice of category cat (index), for -s. */
void
pf_adddur(struct pfsum *sum, uint32_t cat, int64_t d)
{
	struct pfcat *c;
	size_t i;

	if (!sum->on || cat == 0)
		return;
	c = &sum->cats[cat];
	c->nslices++;
	c->total = pf_endof(c->total, d);
	if (c->nslices == 1 || d > c->max)
		c->max = d;
	if (c->hist == NULL && c->ndur == c->capdur &&
	    sum->nexact >= EXACT_MAX) {
		c->hist = lt_calloc(HBUCKETS, sizeof(*c->hist));
		for (i = 0; i < c->ndur; i++)
			hist_add(c->hist, c->dur[i]);
		sum->nexact -= c->ndur;
		free(c->dur);
		c->dur = NULL;
		c->ndur = c->capdur = 0;
	}
	if (c->hist != NULL) {
		hist_add(c->hist, d);
		return;
	}
	c->dur = lt_grow(c->dur, &c->capdur, c->ndur + 1, sizeof(*c->dur));
	c->dur[c->ndur++] = d;
	sum->nexact++;
}

static int
cmpdur(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The pct-th percentile (nearest rank) of a category's durations: exact
 * while they are all kept, else the middle of a histogram bucket (at
 * most 1/(2 * HSUB) off).
 */
int64_t
pf_percentile(const struct pfcat *c, int pct)
{
	long long rank, seen = 0;
	uint64_t lo;
	size_t i;
	int e;

	if (c->nslices == 0)
		return 0;
	rank = (c->nslices * pct + 99) / 100;
	if (rank < 1)
		rank = 1;
	if (c->hist == NULL) {
		if (c->ndur > 1)
			qsort(c->dur, c->ndur, sizeof(*c->dur), cmpdur);
		return c->dur[rank - 1];
	}
	for (i = 0; i < HBUCKETS; i++) {
		seen += c->hist[i];
		if (seen >= rank)
			break;
	}
	if (i < 2 * HSUB)
		return (int64_t)i;
	e = (int)((i - 2 * HSUB) / HSUB) + 1;
	lo = ((i - 2 * HSUB) % HSUB + HSUB) << e;
	return (int64_t)(lo + ((uint64_t)1 << e) / 2);
}

/* An event of process pid (a member), for -s. */
void
pf_countproc(struct pfsum *sum, const struct pfval *pid)
{
	struct pfproc *pr;
	struct pfnum v;
	uint32_t *slot;
	uint64_t key;
	int created, str = 0;

	if (!sum->on)
		return;
	if (pid->type == '"') {
		str = 1;
		key = lt_hash(pid->p, pid->n);
	} else if (pid->type == 'n' && pf_num(pid->p, pid->n, &v) == 0) {
		/* A double out of int64's range (or NaN) has one key. */
		if (v.isint)
			key = (uint64_t)v.i;
		else if (v.d > -9.2e18 && v.d < 9.2e18)
			key = (uint64_t)(int64_t)v.d;
		else
			key = (uint64_t)INT64_MAX;
	} else
		key = 0;
	/* A number and a string hash meet with probability 2^-64. */
	slot = lt_map_get(&sum->procmap, str ? key : lt_mix(key), NULL, NULL,
	    &created);
	if (created) {
		sum->procs = lt_grow(sum->procs, &sum->capprocs,
		    sum->nprocs + 1, sizeof(*sum->procs));
		pr = &sum->procs[sum->nprocs];
		memset(pr, 0, sizeof(*pr));
		pr->str = str;
		pr->pid = key;
		if (str) {
			pr->name = copy(pid->p, pid->n);
			pr->namelen = pid->n;
		}
		*slot = (uint32_t)sum->nprocs++;
	}
	sum->procs[*slot].count++;
}
