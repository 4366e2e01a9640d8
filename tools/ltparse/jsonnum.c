/* See LICENSE file for copyright and license details. */
/*
 * jsonnum.c: JSON numbers that Perfetto's JSON importer cannot read as
 * written, made readable.
 *
 * Perfetto reads a number with its own parser: integer digits into an
 * int64, fraction digits divided by 10^k computed in a uint64, then
 * times pow(10, exponent).  So an integer beyond int64 wraps (and
 * becomes a double), a fraction of 20 digits or more comes out wrong
 * (0.00030637254901960784 is read 13 times too big; 64 digits or more
 * give infinity), and an exponent past 308 gives infinity, which fails
 * the whole load when the number is a member of an event (in args it
 * drops the args after it, or hangs a counter).  Such a number, or one
 * with more significant digits than a double holds, is written as the
 * shortest text that reads back as the same double, in exponent form
 * when the plain one would be too long for Perfetto: Perfetto then
 * reads what the input meant.  A number beyond the range of a double
 * has none: the caller leaves it out.
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"

#define ISDIGIT(c)	((unsigned)(c) - '0' < 10)
#define MAXDIG		17	/* significant digits a double needs */
#define MAXINT		18	/* integer digits Perfetto always holds */
#define MAXFRAC		18	/* fraction digits it reads right */
#define MAXEXP		280	/* exponents it reads within range */

/*
 * Can Perfetto read the JSON number p[0..n) as written?  Digits are
 * counted as written; an exponent beyond what any sane number needs
 * sends it to strtod.
 */
static int
readable(const char *p, size_t n)
{
	const char *e = p + n, *q, *first = NULL;
	size_t ni, nf = 0, nsig = 0;
	long ex = 0;
	int neg = 0, isint = 1;

	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	for (q = p; p < e && ISDIGIT(*p); p++)
		if (first == NULL && *p != '0')
			first = p;
	ni = (size_t)(p - q);
	if (p < e && *p == '.') {
		isint = 0;
		for (q = ++p; p < e && ISDIGIT(*p); p++)
			if (first == NULL && *p != '0')
				first = p;
		nf = (size_t)(p - q);
	}
	if (first != NULL)
		nsig = (size_t)(p - first) - (first < q && nf > 0);
	if (p < e && (*p == 'e' || *p == 'E')) {
		isint = 0;
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		for (; p < e && ISDIGIT(*p); p++)
			if (ex <= MAXEXP)
				ex = ex * 10 + (*p - '0');
	}
	if (isint)	/* an int64: Perfetto reads it exactly */
		return ni < 19 || (ni == 19 && memcmp(q, neg ?
		    "9223372036854775808" : "9223372036854775807", 19) <= 0);
	return ni <= MAXINT && nf <= MAXFRAC && nsig <= MAXDIG &&
	    ex <= MAXEXP;
}

/* Does Perfetto read the JSON number p[0..n) as it is written? */
int
ps_jnum_ok(const char *p, size_t n)
{
	/* The quick way, for nearly all. */
	if (n <= MAXDIG && memchr(p, 'e', n) == NULL &&
	    memchr(p, 'E', n) == NULL)
		return 1;
	return readable(p, n);
}

/*
 * The JSON number p[0..n), which Perfetto does not read as written: 1
 * with the text to write instead appended to b (b NULL: not written),
 * -1 when it is beyond the range of a double.  p NULL frees memory.
 */
int
ps_jnum(const char *p, size_t n, struct ltbuf *b)
{
	static struct ltbuf t;
	char s[40], m[40], *x, *q;
	double d;
	int prec, ex, nd, i;

	if (p == NULL) {
		lt_buf_free(&t);
		return 0;
	}
	t.n = 0;
	lt_buf_add(&t, p, n);
	lt_buf_addc(&t, '\0');
	d = strtod(t.p, NULL);
	if (d > DBL_MAX || d < -DBL_MAX)
		return -1;
	if (b == NULL)
		return 1;
	for (prec = 1; prec < MAXDIG; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec - 1, d);
		if (strtod(s, NULL) == d)
			break;
	}
	snprintf(s, sizeof(s), "%.*e", prec - 1, d);
	/* s is -?D(.D+)?e[+-]X: its digits, without the point, to m. */
	x = strchr(s, 'e');
	ex = atoi(x + 1);
	for (nd = 0, q = s + (s[0] == '-'); q < x; q++)
		if (*q != '.')
			m[nd++] = *q;
	while (nd > 1 && m[nd - 1] == '0')
		nd--;
	if (s[0] == '-')
		lt_buf_addc(b, '-');
	if (ex >= 0 && ex < MAXINT && nd - 1 - ex <= MAXFRAC) {
		/* plain: the integer digits, then at least one more */
		for (i = 0; i <= ex; i++)
			lt_buf_addc(b, i < nd ? m[i] : '0');
		lt_buf_addc(b, '.');
		lt_buf_add(b, nd > ex + 1 ? m + ex + 1 : "0",
		    nd > ex + 1 ? (size_t)(nd - ex - 1) : 1);
	} else if (ex < 0 && nd - 1 - ex <= MAXFRAC) {
		lt_buf_add(b, "0.", 2);
		for (i = -1; i > ex; i--)
			lt_buf_addc(b, '0');
		lt_buf_add(b, m, (size_t)nd);
	} else {
		lt_buf_addc(b, m[0]);
		if (nd > 1) {
			lt_buf_addc(b, '.');
			lt_buf_add(b, m + 1, (size_t)(nd - 1));
		}
		snprintf(s, sizeof(s), "e%d", ex);
		lt_buf_adds(b, s);
	}
	return 1;
}
