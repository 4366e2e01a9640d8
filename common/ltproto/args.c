/* See LICENSE file for copyright and license details. */
/*
 * args.c: the args of an event as debug annotations, and the numbers
 * and ids of JSON members as Perfetto reads them.
 *
 * Each member of args is a DebugAnnotation with an interned name; types
 * are kept: an integer is an int (or a uint above 2^63-1), any other
 * number a double, true and false a bool, a string a string (decoded),
 * an object its dict entries and an array its values.  Perfetto's JSON
 * importer drops nulls, empty objects and empty arrays (and the nulls of
 * an array without leaving a hole), so they are left out here too, and
 * the two traces have the same args.  It reads an integer beyond int64
 * wrapped round, as a double; here such a number keeps its value.
 *
 * The columns given are valid canonical JSON (the stream reader checked
 * them); the parser below still never reads past their end.
 */
#include <errno.h>
#include <stdlib.h>

#include "ltproto.h"

#define TOPSLOTS	PT_SPLIT	/* the last memo is for nested keys */
#define MAXDOTS		64	/* dots of a name made dicts, at most */

static struct ltbuf	 name, text, num;
static uint64_t		 seen[1 << 16];	/* hashes of string values met */

/*
 * A string value: interned from the second time it is met (most args
 * that repeat, repeat at once: a path, a logger name), written out when
 * it may be met only once, so that unique strings do not fill the
 * table.  A short one is written out: its iid would save nothing.
 */
static void
string(struct ltbuf *b, int slot, const char *s, size_t n)
{
	uint64_t h, *seenp;

	if (n >= 4) {
		h = pt_hash(s, n) | 1;
		seenp = &seen[h & ((sizeof(seen) / sizeof(seen[0])) - 1)];
		if (*seenp == h) {
			pb_uint(b, DA_STRING_IID, pt_iid(PT_VALUES, slot, s,
			    n));
			return;
		}
		*seenp = h;
	}
	pb_bytes(b, DA_STRING, s, n);
}

/* A JSON number as a double (the text is checked JSON). */
int
pt_number(const char *p, size_t n, double *d)
{
	char *end;

	num.n = 0;
	lt_buf_add(&num, p, n);
	lt_buf_addc(&num, '\0');
	errno = 0;
	*d = strtod(num.p, &end);
	return end == num.p + n && n > 0;
}

/* JSON string contents p[0..n), decoded: p itself when it has no escape. */
const char *
pt_str(struct ltbuf *b, const char *p, size_t n, size_t *len)
{
	if (memchr(p, '\\', n) == NULL) {
		*len = n;
		return p;
	}
	b->n = 0;
	lt_unesc(b, p, n);
	*len = b->n;
	return b->p;
}

/*
 * A flow or async id as Perfetto reads one from JSON: an integer, as a
 * 64-bit pattern; a string, as hexadecimal (strtoull(3) with base 16,
 * all of it).  Returns 0 for anything else.
 */
int
pt_id(const char *p, size_t n, uint64_t *id)
{
	const char *s;
	char *end;
	int64_t v;
	size_t sn;

	if (lt_int_parse(p, n, &v) == LT_NUM_OK) {
		*id = (uint64_t)v;
		return 1;
	}
	if (lt_uint_parse(p, n, id) == LT_NUM_OK)
		return 1;
	if (n < 2 || p[0] != '"')
		return 0;
	s = pt_str(&text, p + 1, n - 2, &sn);
	if (sn == 0 || memchr(s, '\0', sn) != NULL)
		return 0;
	num.n = 0;
	lt_buf_add(&num, s, sn);
	lt_buf_addc(&num, '\0');
	*id = strtoull(num.p, &end, 16);
	return end == num.p + sn;
}

/* An integer or other number p[0..n) as the value of an annotation. */
static void
number(struct ltbuf *b, const char *p, size_t n)
{
	int64_t v;
	uint64_t u;
	double d;
	size_t i;

	/* Most are a few digits: no call for them. */
	if (n > 0 && n < 18 && (p[0] != '0' || n == 1)) {
		for (i = p[0] == '-', u = 0; i < n &&
		    (unsigned)p[i] - '0' <= 9; i++)
			u = u * 10 + ((unsigned)p[i] - '0');
		if (i == n && i > (size_t)(p[0] == '-') &&
		    (p[0] != '-' || p[1] != '0' || n == 2)) {
			pb_int(b, DA_INT, p[0] == '-' ? -(int64_t)u :
			    (int64_t)u);
			return;
		}
	}
	if (lt_int_parse(p, n, &v) == LT_NUM_OK)
		pb_int(b, DA_INT, v);
	else if (n == 20 && memcmp(p, "-9223372036854775808", 20) == 0)
		pb_int(b, DA_INT, INT64_MIN);
	else if (lt_uint_parse(p, n, &u) == LT_NUM_OK)
		pb_uint(b, DA_UINT, u);
	else {
		pt_number(p, n, &d);
		pb_double(b, DA_DOUBLE, d);
	}
}

/* The end of the JSON string starting at p (its '"'), or NULL. */
static const char *
strend(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static int value(struct ltbuf *, const char **, const char *, int);

/*
 * One annotation as field f of b: named when key is not NULL, its value
 * read at *p.  Nothing is left of it when its value is null or empty.
 * Perfetto writes the '.' of a name as '_', where JSON's "a.b" is the
 * arg a.b: so "a.b" is the entry b of a dict a, which is that arg.
 */
static int
annotation(struct ltbuf *b, uint32_t f, const char *key, size_t keyn,
    int slot, const char **p, const char *end, int depth)
{
	size_t start = b->n, o;
	const char *dot;
	int ok;

	o = pb_open(b, f);
	if (key != NULL) {
		dot = depth < MAXDOTS ? memchr(key, '.', keyn) : NULL;
		pb_uint(b, DA_NAME_IID, pt_iid(PT_ANNOS, slot, key,
		    dot != NULL ? (size_t)(dot - key) : keyn));
		if (dot != NULL)
			ok = annotation(b, DA_DICT, dot + 1,
			    (size_t)(key + keyn - dot - 1), TOPSLOTS, p, end,
			    depth + 1);
		else
			ok = value(b, p, end, depth);
	} else
		ok = value(b, p, end, depth);
	if (!ok) {
		b->n = start;
		return 0;
	}
	pb_close(b, o);
	return 1;
}

/* The members of an object or elements of an array at *p. */
static int
items(struct ltbuf *b, const char **p, const char *end, int depth, int obj)
{
	const char *q = *p + 1, *k;
	size_t kn;
	int any = 0, i = 0;

	if (q < end && *q == (obj ? '}' : ']')) {
		*p = q + 1;
		return 0;
	}
	while (q < end) {
		if (obj) {
			if (*q != '"' || (k = strend(q, end)) == NULL ||
			    k >= end || *k != ':')
				break;
			k = pt_str(&name, q + 1, (size_t)(k - q - 2), &kn);
			q = strend(q, end) + 1;
			if (depth == 0)
				any |= annotation(b, EV_ANNOTATION, k, kn,
				    i < TOPSLOTS ? i++ : TOPSLOTS, &q, end, 1);
			else
				any |= annotation(b, DA_DICT, k, kn, TOPSLOTS,
				    &q, end, depth + 1);
		} else
			any |= annotation(b, DA_ARRAY, NULL, 0, 0, &q, end,
			    depth + 1);
		if (q < end && *q == ',')
			q++;
		else
			break;
	}
	if (q < end)
		q++;			/* the closing bracket */
	*p = q;
	return any;
}

/*
 * The value at *p, written into the annotation open in b; *p is moved
 * past it.  Returns 0 when there is nothing to write (null, {}, []).
 */
static int
value(struct ltbuf *b, const char **p, const char *end, int depth)
{
	const char *q = *p, *s;
	size_t sn;

	if (q >= end)
		return 0;
	switch (*q) {
	case '"':
		if ((s = strend(q, end)) == NULL) {
			*p = end;
			return 0;
		}
		*p = s;
		s = pt_str(&text, q + 1, (size_t)(s - q - 2), &sn);
		string(b, TOPSLOTS, s, sn);
		return 1;
	case '{':
	case '[':
		return items(b, p, end, depth, *q == '{');
	case 't':
	case 'f':
		pb_uint(b, DA_BOOL, *q == 't');
		*p = q + (*q == 't' ? 4 : 5);
		return 1;
	case 'n':
		*p = q + 4;
		return 0;
	}
	for (s = q; s < end && (*s == '-' || *s == '+' || *s == '.' ||
	    *s == 'e' || *s == 'E' || (*s >= '0' && *s <= '9')); s++)
		;
	*p = s > q ? s : end;
	if (s == q)
		return 0;
	number(b, q, (size_t)(s - q));
	return 1;
}

/* Has p[0..n) a '.'?  Eight bytes at a time: names are short. */
static int
hasdot(const char *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		w ^= 0x2e2e2e2e2e2e2e2eULL;
		if ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL)
			return 1;
	}
	return memchr(p, '.', n) != NULL;
}

/*
 * The members of args (an object) as debug annotations of the event
 * being written in b.  Objects of plain members, the usual args, come
 * cut in one pass (k, v: n of them); their names get a memo slot each.
 */
void
pt_args(struct ltbuf *b, const struct ltfield *args, const struct ltfield *k,
    const struct ltfield *v, long n)
{
	const char *p = args->p;
	long i;
	size_t o;

	if (args->n <= 2)
		return;
	if (n < 0) {
		items(b, &p, args->p + args->n, 0, 1);
		return;
	}
	for (i = 0; i < n; i++) {
		if (hasdot(k[i].p + 1, k[i].n - 2)) {
			p = v[i].p;
			annotation(b, EV_ANNOTATION, k[i].p + 1, k[i].n - 2,
			    (int)i, &p, v[i].p + v[i].n, 1);
			continue;
		}
		o = pb_open(b, EV_ANNOTATION);
		pb_uint(b, DA_NAME_IID, pt_iid(PT_ANNOS, (int)i, k[i].p + 1,
		    k[i].n - 2));
		if (v[i].p[0] == '"')
			string(b, (int)i, v[i].p + 1, v[i].n - 2);
		else
			number(b, v[i].p, v[i].n);
		pb_close(b, o);
	}
}

void
pt_args_free(void)
{
	lt_buf_free(&name);
	lt_buf_free(&text);
	lt_buf_free(&num);
	memset(seen, 0, sizeof(seen));
}
