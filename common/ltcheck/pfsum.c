/* See LICENSE file for copyright and license details. */
/*
 * pfsum.c: the numbers of ltcheck -s: slice durations per category
 * (exact while few enough, then a log histogram) with their
 * percentiles, and events per process.
 */
#include <stdlib.h>

#include "lt.h"
#include "pfint.h"

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

/* A duration of a slice of category cat (index), for -s. */
void
pf_adddur(struct pfsim *s, uint32_t cat, int64_t d)
{
	struct pfcat *c;
	size_t i;

	if (!s->summary || cat == 0)
		return;
	c = &s->sum.cats[cat];
	c->nslices++;
	c->total = endof(c->total, d);
	if (c->nslices == 1 || d > c->max)
		c->max = d;
	if (c->hist == NULL && c->ndur == c->capdur &&
	    s->nexact >= EXACT_MAX) {
		c->hist = lt_calloc(HBUCKETS, sizeof(*c->hist));
		for (i = 0; i < c->ndur; i++)
			hist_add(c->hist, c->dur[i]);
		s->nexact -= c->ndur;
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
	s->nexact++;
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

const struct pfsum *
pf_sum(const struct pfsim *s)
{
	return &s->sum;
}

void
pf_summary(struct pfsim *s, int on)
{
	s->summary = on;
}

void
pf_countproc(struct pfsim *s, const struct pfval *pid)
{
	struct pfproc *pr;
	struct pfnum v;
	uint32_t *slot;
	uint64_t key;
	int created, str = 0;

	if (pid->type == '"') {
		str = 1;
		key = pf_hash(pid->p, pid->n, 3);
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
	slot = lt_map_get(&s->procmap, pf_hash(&key, sizeof(key), str), NULL,
	    NULL, &created);
	if (created) {
		s->sum.procs = lt_grow(s->sum.procs, &s->sum.capprocs,
		    s->sum.nprocs + 1, sizeof(*s->sum.procs));
		pr = &s->sum.procs[s->sum.nprocs];
		memset(pr, 0, sizeof(*pr));
		pr->str = str;
		pr->pid = key;
		if (str) {
			pr->name = memcpy(lt_malloc(pid->n + 1), pid->p,
			    pid->n);
			((char *)pr->name)[pid->n] = '\0';
			pr->namelen = pid->n;
		}
		*slot = (uint32_t)s->sum.nprocs++;
	}
	s->sum.procs[*slot].count++;
}
