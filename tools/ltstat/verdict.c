/* See LICENSE file for copyright and license details. */
/*
 * verdict.c: what the figures mean.  The job is input-bound, high when
 * data waits take 20% of its step time or more, moderate at 5% or more,
 * else not (the thresholds of TensorFlow's input-pipeline analyzer); the
 * same per rank.  Then why (the causes that took most of the waits, per
 * epoch, the first waits, the rank that held the job back) and what to
 * try next, one line per cause that took a fifth of the waits or more,
 * quoting the log's own settings where they bear on it.  The lines are
 * JSON string contents, for the text report to unescape.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ltstat.h"

#define NLINE		16
#define NEPOCH		6	/* epochs named in a why line */

const char *const st_levelname[3] = { "not", "moderate", "high" };

struct verdict SV;

double
st_share(int64_t wait, int64_t busy)
{
	double t = (double)wait + (double)busy;

	return t > 0 ? (double)wait / t : 0;
}

int
st_level(double share)
{
	return share >= 0.20 ? V_HIGH : share >= 0.05 ? V_MODERATE : V_NOT;
}

void
st_bprintf(struct ltbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->cap - b->n <= (size_t)n)
		lt_buf_grow(b, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static struct ltbuf *
line(struct ltbuf *v, int *n)
{
	if (*n == NLINE)
		return NULL;
	v[*n].n = 0;
	return &v[(*n)++];
}

/* ns as ms to the µs, as the report writes them. */
void
st_bms(struct ltbuf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 : (uint64_t)ns, u;

	u = a / 1000 + (a % 1000 >= 500);
	st_bprintf(b, "%llu.%03llu ms", (unsigned long long)(u / 1000),
	    (unsigned long long)(u % 1000));
}

static double
pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0;
}

/*
 * The causes of c, largest first, with their share of the whole (and
 * their time, with withms).
 */
void
st_causes(struct ltbuf *b, const int64_t *c, int withms)
{
	int64_t sum = 0;
	int k, top, done[NCAUSE], n;

	for (k = 0; k < NCAUSE; k++) {
		sum = sadd(sum, c[k]);
		done[k] = c[k] == 0;
	}
	for (n = 0;; n++) {
		for (top = -1, k = 0; k < NCAUSE; k++)
			if (!done[k] && (top < 0 || c[k] > c[top]))
				top = k;
		if (top < 0)
			break;
		done[top] = 1;
		st_bprintf(b, "%s%s ", n > 0 ? ", " : "", st_causename[top]);
		if (withms) {
			st_bms(b, c[top]);
			st_bprintf(b, " (%.1f%%)", pct(c[top], sum));
		} else
			st_bprintf(b, "%.1f%%", pct(c[top], sum));
	}
}

/* Quote the configuration lines of the log that mention one of words. */
static void
quote(struct ltbuf *b, const char *const *words)
{
	size_t i;
	int k, n = 0;

	for (i = 0; i < ST.ncfg && n < 2; i++)
		for (k = 0; words[k] != NULL; k++)
			if (strstr(ST.cfg[i].text, words[k]) != NULL) {
				st_bprintf(b, "%s \\\"%s\\\"", n++ ? " and" :
				    "; the log says:", ST.cfg[i].text);
				break;
			}
}

/* -------- the job, by rank number -------- */

struct num {
	int64_t		 rank;
	long long	 node;
	int64_t		 wait, compute, slowus;
	long long	 nslow;
};

static int
byslow(const void *a, const void *b)
{
	const struct num *x = a, *y = b;

	if (x->slowus != y->slowus)
		return x->slowus > y->slowus ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The ranks with batches, one entry per rank number, slowest first. */
static struct num *
numbers(size_t *n)
{
	struct num *v = lt_reallocarray(NULL, ST.nranks + 1, sizeof(*v));
	const struct rank *r;
	size_t i, j, k = 0;

	for (i = 0; i < ST.nranks; i++) {
		r = ST.ranks[i];
		if (r->batches == 0)
			continue;
		for (j = 0; j < k && (r->rank < 0 || v[j].rank != r->rank); j++)
			;
		if (j == k) {
			memset(&v[k++], 0, sizeof(*v));
			v[j].rank = r->rank;
			v[j].node = r->p->x->node;
		}
		v[j].wait = sadd(v[j].wait, r->wait);
		v[j].compute = sadd(v[j].compute, r->compute);
		v[j].slowus = sadd(v[j].slowus, r->slowus);
		v[j].nslow += r->nslow;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), byslow);
	*n = k;
	return v;
}

/*
 * The input straggler: the rank number whose waits were the longest of
 * their steps for more than half of the job's data delay, when its
 * waits are at least twice the median of the other ranks' and the job
 * is input-bound.
 */
static int64_t
straggler(const struct num *v, size_t n)
{
	int64_t *w, med;
	size_t i, k = 0;

	if (n < 2 || v[0].rank < 0 || SV.level < V_MODERATE ||
	    v[0].slowus <= ST.job.delay / 2)
		return -1;
	w = lt_reallocarray(NULL, n, sizeof(*w));
	for (i = 1; i < n; i++)
		w[k++] = v[i].wait;
	qsort(w, k, sizeof(*w), i64cmp);
	med = k % 2 ? w[k / 2] : w[k / 2 - 1] / 2 + w[k / 2] / 2;
	free(w);
	SV.median = med;
	return v[0].wait >= sadd(med, med) ? v[0].rank : -1;
}

static void
who(struct ltbuf *b, const struct num *x)
{
	if (x->rank >= 0)
		st_bprintf(b, "rank %lld", (long long)x->rank);
	else
		st_bprintf(b, "a rank");
	if (x->node >= 0)
		st_bprintf(b, " (node %lld)", x->node);
}

/* Each step waits for the slowest rank: who that was, and for how long. */
static void
slowest(const struct num *v, size_t n)
{
	struct ltbuf *b;
	size_t i;
	int k = 0;

	if (n < 2 || (b = line(SV.why, &SV.nwhy)) == NULL)
		return;
	st_bprintf(b, "each step waits for the slowest rank: the job lost ");
	st_bms(b, ST.job.delay);
	st_bprintf(b, " over %lld steps (the longest wait of each), %.1f%% of "
	    "its step time; ", ST.job.steps, 100 * SV.share);
	for (i = 0; i < n && k < 4; i++) {
		if (v[i].nslow == 0)
			continue;
		st_bprintf(b, "%s", k > 0 ? ", " : "");
		who(b, &v[i]);
		st_bprintf(b, " waited longest in %lld steps (", v[i].nslow);
		st_bms(b, v[i].slowus);
		st_bprintf(b, ")");
		k++;
	}
	if (k == 0)
		st_bprintf(b, "no rank waited");
	if (SV.straggler >= 0) {
		b = line(SV.why, &SV.nwhy);
		st_bprintf(b, "input straggler: ");
		who(b, &v[0]);
		st_bprintf(b, " held the job back: its waits were the longest of "
		    "their step for %.1f%% of the delay; it waited ",
		    pct(v[0].slowus, ST.job.delay));
		st_bms(b, v[0].wait);
		st_bprintf(b, ", the other ranks ");
		st_bms(b, SV.median);
		st_bprintf(b, " (median)");
	}
}

/* Per node, when ltparse -n tagged more than one. */
static void
nodes(const struct num *v, size_t n)
{
	struct ltbuf *b = NULL;
	long long seen[8];
	int64_t us;
	long long steps;
	size_t i, j, k = 0;
	int m = 0;

	for (i = 0; i < n && k < 8; i++) {
		for (j = 0; j < k && seen[j] != v[i].node; j++)
			;
		if (j == k && v[i].node >= 0)
			seen[k++] = v[i].node;
	}
	if (k < 2)
		return;
	for (j = 0; j < k; j++) {
		us = 0;
		steps = 0;
		for (i = 0; i < n; i++)
			if (v[i].node == seen[j]) {
				us = sadd(us, v[i].slowus);
				steps += v[i].nslow;
			}
		if (steps == 0)
			continue;
		if (b == NULL && (b = line(SV.why, &SV.nwhy)) == NULL)
			return;
		st_bprintf(b, "%s node %lld in %lld (", m++ ? "," :
		    "slowest by node:", seen[j], steps);
		st_bms(b, us);
		st_bprintf(b, ")");
	}
}

/* -------- why and next -------- */

/* The cause that took most of each epoch's waits, over all ranks. */
static void
epochs(void)
{
	int64_t num[NEPOCH], c[NEPOCH][NCAUSE], sum;
	const struct epoch *e;
	struct ltbuf *b;
	size_t i, j, n = 0;
	int k, top, more = 0;

	for (i = 0; i < ST.nranks; i++)
		for (j = 0; j < ST.ranks[i]->nep; j++) {
			e = &ST.ranks[i]->ep[j];
			if (e->wait == 0)
				continue;
			for (k = 0; k < (int)n && num[k] != e->num; k++)
				;
			if (k == (int)n) {
				if (n == NEPOCH) {
					more = 1;
					continue;
				}
				num[n] = e->num;
				memset(c[n++], 0, sizeof(c[0]));
			}
			for (top = 0; top < NCAUSE; top++)
				c[k][top] = sadd(c[k][top], e->cause[top]);
		}
	if (n == 0 || (b = line(SV.why, &SV.nwhy)) == NULL)
		return;
	for (i = 0; i < n; i++) {
		for (sum = 0, k = 0; k < NCAUSE; k++)
			sum = sadd(sum, c[i][k]);
		top = st_cause_top(c[i]);
		st_bprintf(b, "%s", i > 0 ? ", " : "");
		if (num[i] >= 0)
			st_bprintf(b, "epoch %lld", (long long)num[i]);
		else
			st_bprintf(b, "an epoch");
		st_bprintf(b, " waited %s%s (%.1f%% of ", i > 0 ? "" : "mostly ",
		    top == C_IDLE ? "with nothing in flight" :
		    top == C_UNKNOWN ? "for what the log does not say" :
		    top == C_STARTUP ? "for its workers to start" :
		    top == C_DOWNLOAD ? "for downloads" : "for reads and decoding",
		    pct(c[i][top], sum));
		st_bms(b, sum);
		st_bprintf(b, ")");
	}
	if (more)
		st_bprintf(b, ", ...");
}

/* Epochs whose workers started anew; how many workers a rank has. */
static void
workers(long long *eps, long long *nwk)
{
	const struct group *g;
	int64_t num[64];
	size_t i, j, n = 0;
	long long hi;

	*eps = 0;
	for (i = 0; i < ST.nranks; i++)
		for (j = 0; j < ST.ranks[i]->nep; j++)
			if (ST.ranks[i]->ep[j].cause[C_STARTUP] > 0) {
				for (hi = 0; hi < (long long)n &&
				    num[hi] != ST.ranks[i]->ep[j].num; hi++)
					;
				if (hi == (long long)n && n < 64)
					num[n++] = ST.ranks[i]->ep[j].num;
			}
	*eps = (long long)n;
	*nwk = 0;
	for (g = ST.groups; g != NULL; g = g->next) {
		hi = -1;
		for (i = 0; i < g->nwk; i++)
			if (st_main(g->wk[i]) == NULL && g->wk[i]->worker > hi)
				hi = g->wk[i]->worker;
		if (hi + 1 > *nwk)
			*nwk = hi + 1;
	}
}

static void
next(int k, double share, long long eps, long long nwk)
{
	static const char *const dl[] = { "max_pre_download",
	    "max_cache_size", "POSIX-fast", NULL };
	static const char *const pre[] = { "max_pre_download", NULL };
	struct ltbuf *b;

	if ((b = line(SV.next, &SV.nnext)) == NULL)
		return;
	st_bprintf(b, "%s (%.1f%% of the wait): ", st_causename[k], share);
	switch (k) {
	case C_STARTUP:
		if (eps > 1)
			st_bprintf(b, "persistent_workers=True keeps the "
			    "DataLoader's worker processes from one epoch to "
			    "the next (%lld epochs started new ones)", eps);
		else
			st_bprintf(b, "the workers' start (imports, dataset "
			    "set-up, first chunks) is paid once per epoch: "
			    "lighter worker set-up shortens it, "
			    "persistent_workers=True pays it once a run");
		break;
	case C_DOWNLOAD:
		st_bprintf(b, "a larger max_pre_download (chunks fetched ahead) "
		    "or max_cache_size, or a faster store");
		quote(b, dl);
		break;
	case C_READ:
		st_bprintf(b, "more DataLoader workers");
		if (nwk > 0)
			st_bprintf(b, " (%lld now)", nwk);
		st_bprintf(b, " or a faster decode and transform");
		break;
	case C_IDLE:
		st_bprintf(b, "the workers had nothing in flight: a larger "
		    "prefetch_factor or max_pre_download keeps them ahead; "
		    "large batches also wait in transfer");
		quote(b, pre);
		break;
	default:
		st_bprintf(b, "trace the workers: enable_tracer() in "
		    "worker_init_fn, or the DataLoader made before optimize() "
		    "switches the start method to spawn");
	}
}

/* The first crash, where and what it says. */
static void
crashed(void)
{
	const struct proc *p = ST.crashp;
	struct ltbuf *b;
	uint64_t at;

	if (ST.crashes == 0 || (b = line(SV.why, &SV.nwhy)) == NULL)
		return;
	st_bprintf(b, "a thread of ");
	if (p == NULL)
		st_bprintf(b, "the job");
	else {
		if (st_prank(p) >= 0)
			st_bprintf(b, "rank %lld ", (long long)st_prank(p));
		if (st_prank(p) >= 0 && st_main(p) == NULL && p->worker >= 0)
			st_bprintf(b, "worker %lld ", (long long)p->worker);
		st_bprintf(b, "(pid %.*s)", (int)(p->h.keyn - 1),
		    lt_id_key(&p->h) + 1);
	}
	at = (uint64_t)ssub(ST.crashts, ST.t0);
	at = at / 1000000 + (at % 1000000 >= 500000);
	st_bprintf(b, " crashed at +%llu.%03llu s%s%s", (unsigned long long)(at /
	    1000), (unsigned long long)(at % 1000), ST.crashmsg != NULL ?
	    ": " : "", ST.crashmsg != NULL ? ST.crashmsg : "");
	if (ST.crashes > 1)
		st_bprintf(b, " (and %lld more crashes)", ST.crashes - 1);
}

/* Ranks with batches whose workers wrote nothing: why that happens. */
static void
silent(void)
{
	struct ltbuf *b;
	const struct group *g;
	size_t i;
	int n = 0;

	for (i = 0; i < ST.nranks; i++)
		if (ST.ranks[i]->batches > 0 &&
		    ((g = st_grp(ST.ranks[i]->p)) == NULL || !g->haschunk))
			n++;
	if (n == 0 || (b = line(SV.why, &SV.nwhy)) == NULL)
		return;
	st_bprintf(b, "%s batches but no event of its DataLoader workers: "
	    "they were spawned after the process changed its start method "
	    "(optimize() in the same script does), or never called "
	    "enable_tracer(); or the tracer's level is batch",
	    n == (int)ST.nranks ? (n == 1 ? "the rank has" : "the ranks have") :
	    "some ranks have");
}

void
st_verdict(void)
{
	struct ltbuf *b;
	struct num *v;
	int64_t first = 0;
	long long eps, nwk;
	size_t i, j, n;
	int k, top, done[NCAUSE];

	for (i = 0; i < NLINE; i++) {
		SV.why[i].n = 0;
		SV.next[i].n = 0;
	}
	SV.nwhy = SV.nnext = 0;
	SV.wait = 0;
	memset(SV.cause, 0, sizeof(SV.cause));
	SV.straggler = -1;
	SV.kineto = 0;
	/* A PyTorch profiler's trace, without LitData batches. */
	if (ST.nbatch == 0 && st_kin_verdict()) {
		SV.kineto = 1;
		return;
	}
	SV.delay = ST.job.delay;
	SV.time = ST.job.time;
	SV.steps = ST.job.steps;
	SV.known = ST.job.steps > 0 && ST.job.time > 0;
	SV.share = SV.known ? (double)ST.job.delay / (double)ST.job.time : 0;
	SV.level = SV.known ? st_level(SV.share) : V_NONE;
	for (i = 0; i < ST.nranks; i++) {
		for (k = 0; k < NCAUSE; k++)
			SV.cause[k] = sadd(SV.cause[k], ST.ranks[i]->cause[k]);
		SV.wait = sadd(SV.wait, ST.ranks[i]->wait);
		for (j = 0; j < ST.ranks[i]->nep; j++)
			first = sadd(first, ST.ranks[i]->ep[j].first);
	}
	if (!SV.known) {
		b = line(SV.why, &SV.nwhy);
		st_bprintf(b, "%s", ST.nbatch == 0 ? "no batch spans (LitData "
		    "writes them from 0.2.68 on, at tracer level batch or "
		    "above): no step time to measure" : "no step with a "
		    "duration");
		return;
	}
	v = numbers(&n);
	SV.straggler = straggler(v, n);
	epochs();
	crashed();
	if (first > 0 && pct(first, SV.wait) >= 25 &&
	    pct(SV.cause[C_UNKNOWN], SV.wait) < 50) {
		b = line(SV.why, &SV.nwhy);
		st_bprintf(b, "the first wait of each epoch took ");
		st_bms(b, first);
		st_bprintf(b, ", %.1f%% of the waits: the DataLoader's workers "
		    "start and fetch their first chunks", pct(first, SV.wait));
	}
	slowest(v, n);
	nodes(v, n);
	silent();
	free(v);
	if (SV.level == V_NOT) {
		b = line(SV.next, &SV.nnext);
		st_bprintf(b, "nothing to do for the input: data waits are under "
		    "5%% of the step time");
		return;
	}
	/* The top cause, then every other of a fifth or more, largest first. */
	workers(&eps, &nwk);
	for (i = 0; i < NCAUSE; i++)
		done[i] = 0;
	for (n = 0;; n++) {
		for (top = -1, k = 0; k < NCAUSE; k++)
			if (!done[k] && (top < 0 || SV.cause[k] > SV.cause[top]))
				top = k;
		if (top < 0 || (n > 0 && pct(SV.cause[top], SV.wait) < 20) ||
		    SV.cause[top] == 0)
			break;
		done[top] = 1;
		next(top, pct(SV.cause[top], SV.wait), eps, nwk);
	}
}

void
st_verdict_free(void)
{
	int i;

	for (i = 0; i < NLINE; i++) {
		lt_buf_free(&SV.why[i]);
		lt_buf_free(&SV.next[i]);
	}
}
