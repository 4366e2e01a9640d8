/* See LICENSE file for copyright and license details. */
/*
 * pfkin.c: what a PyTorch profiler (Kineto) trace loses that Perfetto
 * imports without a word, reported as silent findings (ltcheck(1)):
 * runs of events with ts 0 and dur 0, ProfilerStep spans that overlap,
 * steps whose runtime launches have no kernel or memcpy, string ts, and
 * flow ids a double cannot hold.  The steps, the launches (ts, end,
 * correlation) and the correlations of device events are kept to the
 * end of the trace: the steps are judged when all are known.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ltcheck.h"

struct kspan {
	int64_t		 ts, end;	/* ns */
	int64_t		 corr;		/* a launch's correlation */
	long		 line;
};

struct pfkin {
	long long	 zero, zeroruns;
	int		 inzero;	/* the last event was one */
	struct kspan	*st, *ln;	/* steps, launches */
	size_t		 nst, capst, nln, capln;
	int64_t		*dev;		/* device events' correlations */
	size_t		 ndev, capdev;
	char		 detail[2][160];
};

struct pfkin *
pf_kin_new(void)
{
	return lt_calloc(1, sizeof(struct pfkin));
}

void
pf_kin_free(struct pfkin *k)
{
	if (k == NULL)
		return;
	free(k->st);
	free(k->ln);
	free(k->dev);
	free(k);
}

static int
streq(const struct pfval *v, const char *s)
{
	return v->type == '"' && v->n == strlen(s) &&
	    memcmp(v->p, s, v->n) == 0;
}

/* A category, lower-cased, is one of the space-separated words? */
static int
catis(const struct pfval *cat, const char *words)
{
	const char *w = words, *e;
	size_t i, n;

	if (cat->type != '"')
		return 0;
	for (; *w != '\0'; w = *e != '\0' ? e + 1 : e) {
		if ((e = strchr(w, ' ')) == NULL)
			e = w + strlen(w);
		n = (size_t)(e - w);
		if (n != cat->n)
			continue;
		for (i = 0; i < n && (cat->p[i] == w[i] ||
		    (cat->p[i] >= 'A' && cat->p[i] <= 'Z' &&
		    (cat->p[i] | 0x20) == w[i])); i++)
			;
		if (i == n)
			return 1;
	}
	return 0;
}

static int
has(const struct pfval *v, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; v->type == '"' && i + n <= v->n; i++)
		if (memcmp(v->p + i, s, n) == 0)
			return 1;
	return 0;
}

/* A number (or a string of one) as ns, exactly; 0 if it is none. */
static int
ns(const struct pfval *v, int64_t *out)
{
	return (v->type == 'n' || v->type == '"') &&
	    lt_dec_parse(v->p, v->n, 3, out) == LT_NUM_OK;
}

/* The integer args member key of a minified args object, if any. */
static int
argint(const struct pfval *args, const char *key, int64_t *v)
{
	const char *p;
	size_t n;

	if (args->type != '{' || (p = lt_json_member(args->p, args->n, key,
	    &n)) == NULL)
		return 0;
	return lt_int_parse(p, n, v) == LT_NUM_OK;
}

/* An integer written with more digits than 2^53 - 1 holds exactly? */
static int
beyond53(const struct pfval *v)
{
	static const char lim[] = "9007199254740992";	/* 2^53 */
	size_t i;

	if (v->type != 'n' || v->n == 0 || v->p[0] == '-')
		return 0;
	for (i = 0; i < v->n; i++)
		if ((unsigned)v->p[i] - '0' > 9)
			return 0;
	return v->n > 16 || (v->n == 16 && memcmp(v->p, lim, 16) >= 0);
}

static void
add(struct kspan **v, size_t *n, size_t *cap, const struct kspan *s)
{
	*v = lt_grow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *s;
}

void
pf_kin_event(struct pfkin *k, struct pffinds *fd, const struct pfev *ev)
{
	struct kspan s;
	int64_t ts, dur, c;
	int zero;

	if (ev->ts.type == '"')
		pf_find(fd, "LT-TS-STRING", NULL, PF_SILENT, ev->line, NULL);
	if ((streq(&ev->ph, "s") || streq(&ev->ph, "t") ||
	    streq(&ev->ph, "f")) && beyond53(&ev->id))
		pf_find(fd, "LT-FLOW-ID-DOUBLE", NULL, PF_SILENT, ev->line,
		    NULL);
	else if (beyond53(&ev->bind_id))
		pf_find(fd, "LT-FLOW-ID-DOUBLE", NULL, PF_SILENT, ev->line,
		    NULL);
	if (!streq(&ev->ph, "X") || !ns(&ev->ts, &ts))
		return;
	if (!ns(&ev->dur, &dur))
		dur = -1;
	/* #188481: runs of events written with ts 0 and dur 0. */
	zero = ts == 0 && dur == 0;
	if (zero) {
		k->zero++;
		k->zeroruns += !k->inzero;
		pf_find(fd, "LT-ZERO-TS-RUN", NULL, PF_SILENT, ev->line, NULL);
	}
	k->inzero = zero;
	if (dur < 0)
		return;
	memset(&s, 0, sizeof(s));
	s.ts = ts;
	s.end = ts + dur;
	s.line = ev->line;
	if (ev->name.type == '"' && ev->name.n > 13 &&
	    memcmp(ev->name.p, "ProfilerStep#", 13) == 0 &&
	    catis(&ev->cat, "cpu_op operator user_annotation"))
		add(&k->st, &k->nst, &k->capst, &s);
	else if (catis(&ev->cat, "cuda_runtime runtime hip_runtime "
	    "xpu_runtime privateuse1_runtime") && (has(&ev->name, "Launch") ||
	    has(&ev->name, "Memcpy") || has(&ev->name, "Memset")) &&
	    argint(&ev->args, "correlation", &s.corr))
		add(&k->ln, &k->nln, &k->capln, &s);
	else if (catis(&ev->cat, "kernel gpu_memcpy gpu_memset memcpy "
	    "memset") && argint(&ev->args, "correlation", &c)) {
		k->dev = lt_grow(k->dev, &k->capdev, k->ndev + 1,
		    sizeof(*k->dev));
		k->dev[k->ndev++] = c;
	}
}

static int
byts(const void *a, const void *b)
{
	const struct kspan *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The end of the trace: steps that overlap the steps before them
 * (#174555), and steps with runtime launches of which no kernel,
 * memcpy or memset came (#192021: dropped at the start of a session).
 */
void
pf_kin_finish(struct pfkin *k, struct pffinds *fd)
{
	struct pffind *f;
	int64_t hi = INT64_MIN;
	size_t i, j, lo = 0;
	long long n, bad = 0, launches = 0;
	int gpu;

	if (k->zero > 0) {
		f = pf_find(fd, "LT-ZERO-TS-RUN", NULL, PF_SILENT, 0, NULL);
		f->n--;
		snprintf(k->detail[0], sizeof(k->detail[0]), "%lld events in "
		    "%lld runs", k->zero, k->zeroruns);
		f->detail = k->detail[0];
	}
	if (k->nst > 1)
		qsort(k->st, k->nst, sizeof(*k->st), byts);
	if (k->nln > 1)
		qsort(k->ln, k->nln, sizeof(*k->ln), byts);
	if (k->ndev > 1)
		qsort(k->dev, k->ndev, sizeof(*k->dev), i64cmp);
	for (i = 0; i < k->nst; i++) {
		if (i > 0 && k->st[i].ts < hi)
			pf_find(fd, "LT-STEP-OVERLAP", NULL, PF_SILENT,
			    k->st[i].line, NULL);
		if (k->st[i].end > hi)
			hi = k->st[i].end;
		/* The launches inside the step, and their device work. */
		while (lo < k->nln && k->ln[lo].ts < k->st[i].ts)
			lo++;
		for (j = lo, n = 0, gpu = 0; j < k->nln &&
		    k->ln[j].ts < k->st[i].end; j++) {
			if (k->ln[j].end > k->st[i].end)
				continue;
			n++;
			gpu |= k->ndev > 0 && bsearch(&k->ln[j].corr, k->dev,
			    k->ndev, sizeof(*k->dev), i64cmp) != NULL;
		}
		if (n > 0 && !gpu) {
			f = pf_find(fd, "LT-STEP-NO-GPU-WORK", NULL, PF_SILENT,
			    k->st[i].line, NULL);
			bad++;
			launches += n;
			snprintf(k->detail[1], sizeof(k->detail[1]), "%lld "
			    "launches in %lld steps, none with a kernel, memcpy "
			    "or memset", launches, bad);
			f->detail = k->detail[1];
		}
	}
}
