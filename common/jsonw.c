/* See LICENSE file for copyright and license details. */
/*
 * jsonw.c: the Chrome trace JSON event of an lt1 record, exactly as
 * ltjson(1) writes it, so that ltcheck(1) judges an lt1 stream by the
 * very bytes ltjson would write: one check, one canonical form, one
 * mapping of times, one message per fault.
 *
 * Times.  Perfetto reads a ts or dur with a fraction as a double and
 * rounds ts*1000 and dur*1000 to nanoseconds separately; below 2^42 us
 * that is exact for three decimals, above it touching slices may cross.
 * So every ts is written relative to one whole-microsecond offset (see
 * lt_jw_offset); a time that lies beyond the exact window after it is
 * rounded to a whole microsecond, which Perfetto reads as an integer,
 * exactly, and a slice's dur is then the difference of its two written
 * ends.  Rounding is monotone: what touched still touches, what nested
 * still nests, and no two slices cross that did not.  A ts before the
 * offset would be negative, which Perfetto drops: it is written as the
 * offset itself (0) and counted, and the offset that would have kept it
 * is remembered for the caller to report.
 */
#include <stdio.h>

#include "bytes.h"
#include "jsonw.h"

/* Perfetto's double conversion of 3-decimal microseconds is exact below. */
#define WINDOW_NS	((int64_t)4398046511104 * 1000)	/* 2^42 us */
#define OFFSET_STEP	((int64_t)1000000000000000)	/* 1e12 us in ns */

/* The keys a record's columns are written as, in lt1 column order. */
static const struct {
	const char	*k;
	size_t		 n;
} corekey[LT_EXTRA] = {
	{ "ts", 2 }, { "ph", 2 }, { "pid", 3 }, { "tid", 3 }, { "dur", 3 },
	{ "cat", 3 }, { "name", 4 }, { "args", 4 }
};

static int64_t
floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/*
 * The offset for a trace whose first ts is ns: a multiple of 10^12 us
 * one to two steps below, so that events up to 11.6 days earlier stay
 * non-negative and those up to 27.9 days later within the exact window
 * (2^42 us, 50.9 days, after the offset); none when that is not above 0
 * and ns is not below, a first ts under two steps (23.1 days), whose
 * window then reaches at least as far.  With early set, ns is the
 * earliest ts of the trace, and the offset the step just below, so that
 * the exact window reaches as far beyond it as it can.
 */
int64_t
lt_jw_offset(int64_t ns, int early)
{
	int64_t off;

	if (ns < INT64_MIN + 2 * OFFSET_STEP)
		return INT64_MIN / OFFSET_STEP * OFFSET_STEP;
	off = (floordiv(ns, OFFSET_STEP) - !early) * OFFSET_STEP;
	return ns >= 0 && off < 0 ? 0 : off;
}

void
lt_jw_init(struct ltjw *w)
{
	memset(w, 0, sizeof(*w));
	w->early = INT64_MAX;
}

void
lt_jw_free(struct ltjw *w)
{
	int i;

	for (i = 0; i < LT_NCOL; i++)
		lt_buf_free(&w->fix[i]);
	lt_buf_free(&w->extra);
}

/* ns as Perfetto will see it in the trace; counts what it changes. */
static int64_t
visible(struct ltjw *w, int64_t ns)
{
	int64_t rel, r;

	if (ns < w->offset) {
		w->clamped++;
		if (ns < w->early)
			w->early = ns;
		return 0;
	}
	rel = ns - w->offset;
	if (rel < WINDOW_NS || rel % 1000 == 0)
		return rel;
	w->rounded++;
	r = rel - rel % 1000;
	return rel % 1000 >= 500 && r <= INT64_MAX - 1000 ? r + 1000 : r;
}

/* The closing quote of the string whose contents start at p, or end. */
static const char *
strend(const char *p, const char *end)
{
	while (p < end && *p != '"')
		p += *p == '\\' && end - p > 1 ? 2 : 1;
	return p;
}

/*
 * The next top-level member of a canonical object: *cur starts at its
 * '{' and is left at the ',' or '}' after the member, which is *memb to
 * there.  Values are passed over by their brackets and strings only,
 * which a canonical text allows; a text that is not (#valid broken)
 * ends where it stops making sense, within end.
 */
static int
topmember(const char **cur, const char *end, const char **key,
    size_t *keyn, const char **memb)
{
	const char *p = *cur;
	int depth = 0;

	if (p + 1 >= end || *p == '}' || p[1] == '}')
		return 0;
	*memb = ++p;			/* the key's '"' */
	*key = ++p;
	p = strend(p, end);
	*keyn = (size_t)(p - *key);
	if (end - p < 2)
		return 0;	/* only in a text that is not valid */
	for (p += 2; p < end; p++) {	/* past '":' */
		if (*p == '"') {
			if ((p = strend(p + 1, end)) == end)
				break;
		} else if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']') {
			if (depth-- == 0)
				break;
		} else if (*p == ',' && depth == 0)
			break;
	}
	*cur = p;
	return 1;
}

/* Is a member with key k[0..n) one that a column is written as? */
static int
iscore(const char *k, size_t n, const int written[])
{
	int i;

	for (i = 0; i < LT_EXTRA; i++)
		if (written[i] && n == corekey[i].n &&
		    memcmp(k, corekey[i].k, n) == 0)
			return 1;
	return 0;
}

/*
 * Could the canonical object p[0..n) have a member with a core key?  A
 * quick look at the key before each ':' that follows a '"', with false
 * alarms (a nested key, a string) that dedup() then sorts out.
 */
static int
maybecore(const char *p, size_t n, const int written[])
{
	const char *c = p, *end = p + n;
	size_t kn;

	while ((c = memchr(c, ':', (size_t)(end - c))) != NULL) {
		if (c[-1] == '"')
			for (kn = 2; kn <= 4 && c - 2 - (ptrdiff_t)kn >= p;
			    kn++)
				if (c[-2 - (ptrdiff_t)kn] == '"' &&
				    iscore(c - 1 - kn, kn, written))
					return 1;
		c++;
	}
	return 0;
}

/*
 * The extra column without the members whose key a column is written as
 * (litracer-stream(5): a tool that sets a column removes the member from
 * extra); the column's value is the one that stands.
 */
static const struct ltfield *
dedup(struct ltjw *w, const struct ltfield *extra, const int written[])
{
	const char *cur = extra->p, *end = extra->p + extra->n, *k, *m;
	size_t kn;
	int ndup = 0;

	if (!maybecore(extra->p, extra->n, written))
		return extra;
	while (topmember(&cur, end, &k, &kn, &m))
		ndup += iscore(k, kn, written);
	if (ndup == 0)
		return extra;
	w->dupkeys += ndup;
	w->extra.n = 0;
	lt_buf_addc(&w->extra, '{');
	for (cur = extra->p; topmember(&cur, end, &k, &kn, &m);) {
		if (iscore(k, kn, written))
			continue;
		if (w->extra.n > 1)
			lt_buf_addc(&w->extra, ',');
		lt_buf_add(&w->extra, m, (size_t)(cur - m));
	}
	lt_buf_addc(&w->extra, '}');
	w->efield.p = w->extra.p;
	w->efield.n = w->extra.n;
	return &w->efield;
}

/* Column i of rec in canonical form (rewritten when repair is set). */
static const struct ltfield *
canon(struct ltjw *w, const struct ltrec *rec, int i, int repair)
{
	const struct ltfield *f = &rec->f[i];
	struct ltjson j;

	if (!repair)
		return f;
	w->fix[i].n = 0;
	if (i == LT_CAT || i == LT_NAME)
		lt_json_str(f->p, f->n, &w->fix[i], &j);
	else if (i == LT_ARGS || i == LT_EXTRA)
		lt_json_whole(f->p, f->n, &w->fix[i], &j);
	else if (f->n == 2 && memcmp(f->p, "-0", 2) == 0)
		lt_buf_addc(&w->fix[i], '0');
	else
		return f;
	w->ffix[i].p = w->fix[i].p;
	w->ffix[i].n = w->fix[i].n;
	return &w->ffix[i];
}

/*
 * Check rec and make it ready to write: 0, or -1 with *why and *col
 * saying what is wrong with which column (litracer-stream(5)).
 */
int
lt_jw_rec(struct ltjw *w, const struct ltrec *rec, struct ltjwrec *r,
    const char **why, int *col)
{
	int64_t t[2], end;
	int has[2], written[LT_EXTRA], repair, i;

	if ((repair = lt_rec_checkts(rec, why, col, t, has,
	    w->valid ? LT_CHECK_LOOK : LT_CHECK_ALL)) < 0)
		return -1;
	w->repaired += repair;
	for (i = 0; i < LT_NCOL; i++)
		r->col[i] = canon(w, rec, i, repair);
	r->hasts = has[0];
	r->hasdur = has[1];
	r->ts = t[0];
	r->dur = t[1];
	if (r->hasts) {
		if (!w->offset_set) {
			w->offset = lt_jw_offset(r->ts, 0);
			w->offset_set = 1;
		}
		r->wts = visible(w, r->ts);
		if (r->hasdur) {
			end = r->dur > 0 && r->ts > INT64_MAX - r->dur ?
			    INT64_MAX : r->ts + r->dur;
			r->wdur = r->dur < 0 ? r->dur : visible(w, end) - r->wts;
		}
	} else
		r->wdur = r->dur;
	written[LT_TS] = r->hasts;
	written[LT_PH] = 1;
	written[LT_PID] = !LT_ISNONE(*r->col[LT_PID]);
	written[LT_TID] = !LT_ISNONE(*r->col[LT_TID]);
	written[LT_DUR] = r->hasdur;
	written[LT_CAT] = r->col[LT_CAT]->n > 0;
	written[LT_NAME] = r->col[LT_NAME]->n > 0;
	written[LT_ARGS] = r->col[LT_ARGS]->n > 2;
	if (r->col[LT_EXTRA]->n > 2)
		r->col[LT_EXTRA] = dedup(w, r->col[LT_EXTRA], written);
	r->need = 2 * LT_NUMBUF + 64;
	for (i = LT_PID; i < LT_NCOL; i++)
		r->need += r->col[i]->n;
	return 0;
}

#define PUTS(w, s)	lt_put((w), (s), sizeof(s) - 1)

/* ,"key":"text" or ,"key":text, key given with its comma and colon */
static char *
member(char *w, const char *key, size_t keyn, const struct ltfield *f,
    int quote)
{
	w = lt_put(w, key, keyn);
	if (quote)
		*w++ = '"';
	w = lt_put(w, f->p, f->n);
	if (quote)
		*w++ = '"';
	return w;
}

#define MEMBER(w, k, f, q)	member((w), (k), sizeof(k) - 1, (f), (q))

/* The event of r at w, which has room for r->need bytes; returns the end. */
char *
lt_jw_put(char *w, const struct ltjwrec *r)
{
	const struct ltfield *const *c = r->col;

	if (r->hasts) {
		w = PUTS(w, "{\"ts\":");
		w += lt_us_fmt(w, r->wts);
		w = PUTS(w, ",\"ph\":\"");
	} else
		w = PUTS(w, "{\"ph\":\"");
	*w++ = c[LT_PH]->p[0];
	*w++ = '"';
	if (!LT_ISNONE(*c[LT_PID]))
		w = MEMBER(w, ",\"pid\":", c[LT_PID], 0);
	if (!LT_ISNONE(*c[LT_TID]))
		w = MEMBER(w, ",\"tid\":", c[LT_TID], 0);
	if (r->hasdur) {
		w = PUTS(w, ",\"dur\":");
		w += lt_us_fmt(w, r->wdur);
	}
	if (c[LT_CAT]->n > 0)
		w = MEMBER(w, ",\"cat\":", c[LT_CAT], 1);
	if (c[LT_NAME]->n > 0)
		w = MEMBER(w, ",\"name\":", c[LT_NAME], 1);
	if (c[LT_ARGS]->n > 2)
		w = MEMBER(w, ",\"args\":", c[LT_ARGS], 0);
	if (c[LT_EXTRA]->n > 2) {
		*w++ = ',';
		w = lt_put(w, c[LT_EXTRA]->p + 1, c[LT_EXTRA]->n - 2);
	}
	*w++ = '}';
	return w;
}

/*
 * A "#top KEY VALUE" directive (line[0..len), which is edited): 1 with
 * the key in *key and the canonical value in canon; 0 for a member that
 * is dropped (displayTimeUnit: Perfetto ignores it, times are us); -1
 * with *why when it is bad.
 */
int
lt_jw_top(char *line, size_t len, const char **key, struct ltbuf *canon,
    char *why, size_t whyn)
{
	char *k, *val, *end = line + len;
	struct ltjson j;

	if ((k = memchr(line, '\t', len)) == NULL || (val = memchr(k + 1,
	    '\t', (size_t)(end - k - 1))) == NULL) {
		snprintf(why, whyn, "#top needs a key and a value");
		return -1;
	}
	*val++ = '\0';
	*key = ++k;
	if (lt_json_str(k, strlen(k), NULL, &j) != LT_JSON_OK ||
	    j.flags != 0) {
		snprintf(why, whyn,
		    "#top key is not canonical JSON string contents");
		return -1;
	}
	if (strcmp(k, "traceEvents") == 0) {
		snprintf(why, whyn, "#top traceEvents is not allowed");
		return -1;
	}
	if (strcmp(k, "displayTimeUnit") == 0)
		return 0;
	canon->n = 0;
	if (lt_json_whole(val, (size_t)(end - val), canon, &j) !=
	    LT_JSON_OK) {
		snprintf(why, whyn, "#top %s: %s at byte %zu", k, j.err,
		    j.errat);
		return -1;
	}
	if (strcmp(k, "metadata") == 0 && j.type != '{') {
		snprintf(why, whyn, "#top metadata is not an object");
		return -1;
	}
	return 1;
}
