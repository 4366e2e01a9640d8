/* See LICENSE file for copyright and license details. */
/*
 * thr.c: the -t threshold of ltlanefix(1), read as Python's float()
 * reads it (trace-lanefix's --snap-threshold-us) but exactly, as whole
 * nanoseconds, and shown as Python's str(float) prints it, for the
 * report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

static int
iequal(const char *s, const char *word)
{
	for (; *s != '\0' && *word != '\0'; s++, word++)
		if ((*s | 0x20) != *word)
			return 0;
	return *s == *word;
}

/*
 * What Python's float() takes: blanks around, a sign, digits with a point
 * and an exponent, or inf, infinity, nan.  The threshold is the value in
 * ns rounded up, so that "shift < thr" on integer ns is exact.  Returns
 * 0 on success, -1 when invalid, -2 when negative.
 */
static int
parsethr(const char *arg, int64_t *ns)
{
	char buf[64], *s = buf, *e;
	const char *p;
	int neg = 0, nd = 0, point = -1, round = 0, d;
	long long exp = 0, shift;
	uint64_t v = 0;
	size_t n;

	while (*arg == ' ' || (*arg >= '\t' && *arg <= '\r'))
		arg++;
	if ((n = strlen(arg)) >= sizeof(buf))
		return -1;
	memcpy(buf, arg, n + 1);
	while (n > 0 && (buf[n - 1] == ' ' ||
	    (buf[n - 1] >= '\t' && buf[n - 1] <= '\r')))
		buf[--n] = '\0';
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (iequal(s, "nan")) {
		*ns = 0;		/* every comparison with NaN fails */
		return 0;
	}
	if (iequal(s, "inf") || iequal(s, "infinity")) {
		*ns = INT64_MAX;
		return neg ? -2 : 0;
	}
	/* Digits: keep 18 significant ones, remember if more were not 0. */
	for (p = s; *p != '\0'; p++) {
		if (*p == '.' && point < 0) {
			point = nd;
			continue;
		}
		if ((unsigned)(*p - '0') > 9)
			break;
		d = *p - '0';
		if (v == 0 && d == 0) {
			if (point >= 0)
				exp--;
			continue;
		}
		if (nd < 18) {
			v = v * 10 + (uint64_t)d;
			nd++;
			if (point >= 0)
				exp--;
		} else {
			if (d != 0)
				round = 1;
			if (point < 0)
				exp++;
		}
	}
	if (p == s || (p == s + 1 && *s == '.'))
		return -1;
	if (*p == 'e' || *p == 'E') {
		shift = strtoll(p + 1, &e, 10);
		if (e == p + 1 || *e != '\0' || p[1] == ' ')
			return -1;
		if (shift > 1000)
			shift = 1000;
		if (shift < -1000)
			shift = -1000;
		exp += shift;
	} else if (*p != '\0')
		return -1;
	if (neg && (v != 0 || round))
		return -2;
	/* v * 10^(exp + 3) ns, rounded up. */
	for (exp += 3; exp > 0 && v != 0; exp--) {
		if (v > (uint64_t)INT64_MAX / 10) {
			*ns = INT64_MAX;
			return 0;
		}
		v *= 10;
	}
	for (; exp < 0 && v != 0; exp++) {
		if (v % 10 != 0)
			round = 1;
		v /= 10;
	}
	if (round && v < (uint64_t)INT64_MAX)
		v++;
	*ns = (int64_t)v;
	return 0;
}

/*
 * Python's float() also takes '_' between two digits ("1_000"): the text
 * without them, in buf of size n; NULL for an '_' anywhere else.
 */
static const char *
unscore(const char *arg, char *buf, size_t n)
{
	const char *p;
	char *w = buf;

	for (p = arg; *p != '\0'; p++) {
		if (*p == '_') {
			if (p == arg || (unsigned)(p[-1] - '0') > 9 ||
			    (unsigned)(p[1] - '0') > 9)
				return NULL;
			continue;
		}
		if (w == buf + n - 1)
			return NULL;
		*w++ = *p;
	}
	*w = '\0';
	return buf;
}

/* The threshold as Python's str(float) writes it: 5.0, 2.5, 1e-05. */
static void
showthr(const char *arg, char *show, size_t size)
{
	char dig[40], *q;
	double x;
	int prec, exp, nd, i, n = 0;

	x = strtod(arg, NULL);
	if (isnan(x)) {
		snprintf(show, size, "nan");
		return;
	}
	if (isinf(x)) {
		snprintf(show, size, "%s", x < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(dig, sizeof(dig), "%.*e", prec - 1, x);
		if (strtod(dig, NULL) == x)
			break;
	}
	/* dig is [-]d[.ddd]e[+-]xx: take its digits and exponent. */
	q = dig;
	if (*q == '-')
		show[n++] = *q++;
	exp = atoi(strchr(q, 'e') + 1);
	for (nd = 0, i = 0; q[i] != 'e'; i++)
		if (q[i] != '.')
			q[nd++] = q[i];
	while (nd > 1 && q[nd - 1] == '0')
		nd--;
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			n += sprintf(show + n, "0.");
			for (i = -1; i > exp; i--)
				show[n++] = '0';
			memcpy(show + n, q, (size_t)nd);
			n += nd;
		} else {
			for (i = 0; i <= exp; i++)
				show[n++] = i < nd ? q[i] : '0';
			show[n++] = '.';
			if (nd > exp + 1) {
				memcpy(show + n, q + exp + 1,
				    (size_t)(nd - exp - 1));
				n += nd - exp - 1;
			} else
				show[n++] = '0';
		}
		show[n] = '\0';
	} else {
		show[n++] = q[0];
		if (nd > 1) {
			show[n++] = '.';
			memcpy(show + n, q + 1, (size_t)(nd - 1));
			n += nd - 1;
		}
		snprintf(show + n, size - (size_t)n, "e%c%02d",
		    exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
}

/*
 * The threshold arg in ns into *ns, and its Python spelling into show
 * (of size n, at least 40): 0 on success, -1 when arg is not a number,
 * -2 when it is negative.
 */
int
lf_thr_parse(const char *arg, int64_t *ns, char *show, size_t n)
{
	char buf[64];
	const char *t;
	int r;

	if ((t = unscore(arg, buf, sizeof(buf))) == NULL)
		return -1;
	if ((r = parsethr(t, ns)) != 0)
		return r;
	showthr(t, show, n);
	return 0;
}
