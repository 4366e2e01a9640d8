/* See LICENSE file for copyright and license details. */
/*
 * compare.c: ltstat --compare A B, two JSON reports (-j) of runs before
 * and after a change: what changed for the job, per rank (matched by
 * rank number, then in order), per cause and per category (count, p50,
 * p95).  Shares in percentage points, times in ms.  Reads only what it
 * prints; a member missing or null is "-".
 */
#include <stdio.h>
#include <stdlib.h>

#include "ltstat.h"

static struct ltout	*o;
static struct ltbuf	 b;

#define pf(...)	lt_out_printf(o, __VA_ARGS__)

struct rep {
	const char	*path;
	char		*text;		/* the report's line */
	size_t		 n;
};

static void
load(struct rep *r, const char *path)
{
	struct ltin in;
	char *line;
	ssize_t n;

	r->path = path;
	lt_in_open(&in, path);
	if ((n = lt_in_line(&in, &line)) < 0 || n < 2 || line[0] != '{' ||
	    lt_json_whole(line, (size_t)n, NULL, &(struct ltjson){ 0 }) !=
	    LT_JSON_OK)
		lt_die(LT_EXIT_DATA, "%s: not a JSON report of ltstat -j", path);
	r->text = lt_malloc((size_t)n + 1);
	memcpy(r->text, line, (size_t)n + 1);
	r->n = (size_t)n;
	lt_in_close(&in);
	if (lt_json_member(r->text, r->n, "schema_version", &(size_t){ 0 }) ==
	    NULL)
		lt_die(LT_EXIT_DATA, "%s: no schema_version: a report of "
		    "ltstat -j, 2027 or later, is needed", path);
}

/* A member of object o[0..n), or NULL (null counts as absent). */
static const char *
get(const char *obj, size_t n, const char *key, size_t *vn)
{
	const char *v;

	if (obj == NULL || (v = lt_json_member(obj, n, key, vn)) == NULL ||
	    (*vn == 4 && memcmp(v, "null", 4) == 0))
		return NULL;
	return v;
}

/* A time in µs as ns, or -1. */
static int64_t
usof(const char *obj, size_t n, const char *key)
{
	const char *v;
	size_t vn;
	int64_t ns;

	if ((v = get(obj, n, key, &vn)) == NULL ||
	    lt_us_parse(v, vn, &ns) != LT_NUM_OK)
		return -1;
	return ns;
}

/* A number, or -1. */
static double
numof(const char *obj, size_t n, const char *key)
{
	const char *v;
	size_t vn;
	char buf[64];

	if ((v = get(obj, n, key, &vn)) == NULL || vn >= sizeof(buf) ||
	    (v[0] != '-' && (v[0] < '0' || v[0] > '9')))
		return -1;
	memcpy(buf, v, vn);
	buf[vn] = '\0';
	return strtod(buf, NULL);
}

static const char *
msof(int64_t ns)
{
	if (ns < 0)
		return "-";
	b.n = 0;
	st_bms(&b, ns);
	lt_buf_addc(&b, '\0');
	return b.p;
}

/* "a -> b (+d)" for two times. */
static void
times(const char *what, int64_t a, int64_t z)
{
	pf("%s %s", what, msof(a));
	pf(" -> %s", msof(z));
	if (a >= 0 && z >= 0)
		pf(" (%s%s)", z >= a ? "+" : "-", msof(z >= a ? z - a : a - z));
}

static void
share(const char *what, double a, double z)
{
	pf("%s ", what);
	if (a >= 0)
		pf("%.1f%%", 100 * a);
	else
		pf("-");
	pf(" -> ");
	if (z >= 0)
		pf("%.1f%%", 100 * z);
	else
		pf("-");
	if (a >= 0 && z >= 0)
		pf(" (%+.1f points)", 100 * (z - a));
}

/* The string value of key, as its contents, into buf. */
static const char *
str(const char *obj, size_t n, const char *key, char *buf, size_t cap)
{
	const char *v;
	size_t vn;

	if ((v = get(obj, n, key, &vn)) == NULL || vn < 2 || v[0] != '"' ||
	    vn - 2 >= cap)
		return "-";
	memcpy(buf, v + 1, vn - 2);
	buf[vn - 2] = '\0';
	return buf;
}

/* The i-th element of array a[0..n), or NULL. */
static const char *
nth(const char *a, size_t n, size_t i, size_t *vn)
{
	struct ltjson j;
	const char *p = a + 1, *end = a + n;
	size_t k;

	if (a == NULL || n < 2 || a[0] != '[')
		return NULL;
	for (k = 0; p < end && *p != ']'; k++) {
		if (lt_json_value(p, (size_t)(end - p), NULL, &j) != LT_JSON_OK)
			return NULL;
		if (k == i) {
			*vn = j.end;
			return p;
		}
		p += j.end;
		if (p < end && *p == ',')
			p++;
	}
	return NULL;
}

/* The rank in B's ranks that matches A's i-th: same number, same turn. */
static const char *
match(const char *ra, size_t ran, size_t i, const char *rb, size_t rbn,
    size_t *vn)
{
	const char *e, *f;
	size_t en, fn, k, turn = 0;
	double num, m;

	e = nth(ra, ran, i, &en);
	num = numof(e, en, "rank");
	for (k = 0; k < i; k++)
		if ((f = nth(ra, ran, k, &fn)) != NULL &&
		    numof(f, fn, "rank") == num)
			turn++;
	for (k = 0; (f = nth(rb, rbn, k, &fn)) != NULL; k++) {
		m = numof(f, fn, "rank");
		if (m == num && turn-- == 0) {
			*vn = fn;
			return f;
		}
	}
	return NULL;
}

static void
causes(const char *ca, size_t can, const char *cb, size_t cbn)
{
	const char *cur, *end, *k, *v;
	size_t kn, vn;
	char key[64];
	int64_t a, z;
	int i;

	/* The causes of A in order, then any B alone has. */
	for (i = 0; i < 2; i++) {
		cur = i == 0 ? ca : cb;
		end = cur == NULL ? NULL : cur + (i == 0 ? can : cbn);
		while (cur != NULL && lt_json_objnext(&cur, end, &k, &kn, &v,
		    &vn)) {
			if (kn + 4 >= sizeof(key))
				continue;
			memcpy(key, k, kn);
			key[kn] = '\0';
			if (i == 1 && ca != NULL &&
			    lt_json_member(ca, can, key, &vn) != NULL)
				continue;
			a = usof(ca, can, key);
			z = usof(cb, cbn, key);
			pf("  %-12s", key);
			times("", a, z);
			pf("\n");
		}
	}
}

static void
ranks(const struct rep *x, const struct rep *y)
{
	const char *ra, *rb, *e, *f, *ca, *cb;
	size_t ran, rbn, en, fn, can, cbn, i;
	char buf[32];
	double num;

	ra = get(x->text, x->n, "ranks", &ran);
	rb = get(y->text, y->n, "ranks", &rbn);
	for (i = 0; (e = nth(ra, ran, i, &en)) != NULL; i++) {
		f = match(ra, ran, i, rb, rbn, &fn);
		if ((num = numof(e, en, "rank")) >= 0)
			snprintf(buf, sizeof(buf), "rank %.0f", num);
		else
			snprintf(buf, sizeof(buf), "a rank");
		pf("%s:", buf);
		if (f == NULL) {
			pf(" not in %s\n", y->path);
			continue;
		}
		share(" wait share", numof(e, en, "wait_share"),
		    numof(f, fn, "wait_share"));
		times(", wait", usof(e, en, "wait_us"), usof(f, fn, "wait_us"));
		pf("\n");
		ca = get(e, en, "wait_by_cause_us", &can);
		cb = get(f, fn, "wait_by_cause_us", &cbn);
		if (ca != NULL || cb != NULL)
			causes(ca, can, cb, cbn);
	}
	for (i = 0; (f = nth(rb, rbn, i, &fn)) != NULL; i++)
		if (match(rb, rbn, i, ra, ran, &en) == NULL) {
			if ((num = numof(f, fn, "rank")) >= 0)
				pf("rank %.0f: only in %s\n", num, y->path);
			else
				pf("a rank: only in %s\n", y->path);
		}
}

static void
categories(const struct rep *x, const struct rep *y)
{
	const char *ca, *cb, *cur, *end, *k, *v, *e, *f;
	size_t can, cbn, kn, vn, en, fn;
	char key[128];
	int i;

	ca = get(x->text, x->n, "categories", &can);
	cb = get(y->text, y->n, "categories", &cbn);
	for (i = 0; i < 2; i++) {
		cur = i == 0 ? ca : cb;
		end = cur == NULL ? NULL : cur + (i == 0 ? can : cbn);
		while (cur != NULL && lt_json_objnext(&cur, end, &k, &kn, &v,
		    &vn)) {
			if (kn >= sizeof(key))
				continue;
			memcpy(key, k, kn);
			key[kn] = '\0';
			if (i == 1 && ca != NULL &&
			    lt_json_member(ca, can, key, &en) != NULL)
				continue;
			e = ca != NULL ? lt_json_member(ca, can, key, &en) :
			    NULL;
			f = cb != NULL ? lt_json_member(cb, cbn, key, &fn) :
			    NULL;
			pf("category %s: count ", kn > 0 ? key : "(none)");
			if (e != NULL)
				pf("%.0f", numof(e, en, "count"));
			else
				pf("-");
			pf(" -> ");
			if (f != NULL)
				pf("%.0f", numof(f, fn, "count"));
			else
				pf("-");
			times(", p50", e ? usof(e, en, "p50_us") : -1,
			    f ? usof(f, fn, "p50_us") : -1);
			times(", p95", e ? usof(e, en, "p95_us") : -1,
			    f ? usof(f, fn, "p95_us") : -1);
			pf("\n");
		}
	}
}

/*
 * Compare the reports A and B on out; returns B's largest wait share
 * (the job's or a rank's), or -1 when it tells none.
 */
double
st_compare(struct ltout *out, const char *a, const char *z)
{
	struct rep x, y;
	const char *ja, *jb, *r, *rb;
	size_t jan, jbn, rn, i;
	char va[16], vz[16];
	double hi, s;

	o = out;
	load(&x, a);
	load(&y, z);
	pf("ltstat: %s -> %s\n", a, z);
	pf("verdict: %s", str(x.text, x.n, "verdict", va, sizeof(va)));
	pf(" -> %s; ", str(y.text, y.n, "verdict", vz, sizeof(vz)));
	share("wait share", numof(x.text, x.n, "wait_share"),
	    numof(y.text, y.n, "wait_share"));
	pf("\n");
	ja = get(x.text, x.n, "job", &jan);
	jb = get(y.text, y.n, "job", &jbn);
	if (ja != NULL || jb != NULL) {
		times("job: data delay", usof(ja, jan, "delay_us"),
		    usof(jb, jbn, "delay_us"));
		times(", step time", usof(ja, jan, "time_us"),
		    usof(jb, jbn, "time_us"));
		pf("\n");
	}
	ranks(&x, &y);
	categories(&x, &y);
	hi = numof(y.text, y.n, "wait_share");
	rb = get(y.text, y.n, "ranks", &rn);
	for (i = 0; (r = nth(rb, rn, i, &jbn)) != NULL; i++)
		if ((s = numof(r, jbn, "wait_share")) > hi)
			hi = s;
	free(x.text);
	free(y.text);
	lt_buf_free(&b);
	return hi;
}
