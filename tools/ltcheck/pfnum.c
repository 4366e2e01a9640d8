/* See LICENSE file for copyright and license details. */
/*
 * pfnum.c: numbers as Perfetto's JSON importer reads them (its own
 * decimal parser, then CoerceToTs), for ltcheck's model.  No libm: the
 * Makefile links none, and the few operations needed are simple.
 */
#include <float.h>

#include "ltcheck.h"

/* 10^e as a double, exact up to 10^22 like pow(10, e). */
static double
p10(long long e)
{
	double v = 1;

	if (e > 400)
		e = 400;
	while (e-- > 0)
		v *= 10;
	return v;
}

int
pf_integral(double d)
{
	return d > -9.2e18 && d < 9.2e18 && (double)(int64_t)d == d;
}

/* llround: halves away from zero; |x| < 9.2e18. */
static int64_t
roundll(double x)
{
	int64_t t = (int64_t)x;
	double frac = x - (double)t;

	if (frac >= 0.5)
		t++;
	else if (frac <= -0.5)
		t--;
	return t;
}

/*
 * Perfetto's ParseNumber: integers as int64; anything with '.' or 'e'
 * as double(int part) + double(fraction digits) / 10^k, then scaled by
 * pow(10, exp).  The accumulators wrap when they overflow, the digits
 * as an int64, 10^k as a uint64: 20 fractional digits or more, or 19
 * above 2^63, are garbage, and 64 or more divide by 0.  Returns 0, or
 * -1 when the text is not a number.
 */
int
pf_num(const char *p, size_t n, struct pfnum *v)
{
	const char *e = p + n, *q;
	uint64_t ip = 0, fr = 0, div = 1;
	long long ex = 0, il, last = -1, k = 0;
	int neg = 0, eneg = 0;

	memset(v, 0, sizeof(*v));
	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	for (q = p; p < e && PF_ISDIGIT(*p); p++) {
		if (ip > (uint64_t)INT64_MAX / 10 ||
		    ip * 10 + (uint64_t)(*p - '0') > (uint64_t)INT64_MAX +
		    (uint64_t)neg)
			v->wrap = 1;
		ip = ip * 10 + (uint64_t)(*p - '0');
		if (*p != '0')
			last = p - q;
	}
	if ((il = p - q) == 0)
		return -1;
	v->isint = 1;
	if (p < e && *p == '.') {
		v->isint = 0;
		for (q = ++p; p < e && PF_ISDIGIT(*p); p++) {
			fr = fr * 10 + (uint64_t)(*p - '0');
			div *= 10;
			if (*p != '0')
				last = il + k;
			k++;
		}
		if (p == q)
			return -1;
		/* fr is taken as an int64, its divisor as a uint64 */
		if (k >= 20 || fr > (uint64_t)INT64_MAX)
			v->fracwrap = 1;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		v->isint = 0;
		if (++p < e && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (q = p; p < e && PF_ISDIGIT(*p); p++)
			if (ex < 100000)
				ex = ex * 10 + (*p - '0');
		if (p == q)
			return -1;
	}
	if (p != e)
		return -1;
	if (v->isint) {
		v->i = neg ? (int64_t)(0 - ip) : (int64_t)ip;
		v->exact = 1;
		return 0;
	}
	v->d = (double)(int64_t)ip + (double)(int64_t)fr / (double)div;
	if (ex != 0)
		v->d = eneg ? v->d / p10(ex) : v->d * p10(ex);
	if (neg)
		v->d = -v->d;
	/* Whole ns: no non-zero digit at or after 10^-4 us. */
	v->exact = last < il + (eneg ? -ex : ex) + 3;
	return 0;
}

/*
 * Is it a number Perfetto can hold?  Not when its parser made it
 * infinite (beyond a double, an exponent past 308) or not a number (64
 * fractional digits or more): "Double overflow/underflow" in a member
 * of an event fails the whole load.
 */
int
pf_finite(const struct pfnum *v)
{
	return v->isint || (v->d == v->d && v->d <= DBL_MAX &&
	    v->d >= -DBL_MAX);
}

/*
 * CoerceToTs: integers times 1000, integral doubles through int64, the
 * rest llround(v * 1000).  Returns 1 when the result overflowed (the C
 * code's undefined behaviour, modelled as wrapping or saturating).
 */
int
pf_tons(const struct pfnum *v, int64_t *ns)
{
	double x;

	if (v->isint) {
		*ns = (int64_t)((uint64_t)v->i * 1000);
		return v->wrap || v->i > INT64_MAX / 1000 ||
		    v->i < INT64_MIN / 1000;
	}
	if (v->d != v->d || v->d >= 9.2e18 || v->d <= -9.2e18) {
		*ns = v->d < 0 ? INT64_MIN : INT64_MAX;
		return 1;
	}
	if (pf_integral(v->d)) {
		*ns = (int64_t)((uint64_t)(int64_t)v->d * 1000);
		return v->wrap || v->d > 9223372036854775.0 ||
		    v->d < -9223372036854775.0;
	}
	x = v->d * 1000.0;
	if (x >= 9.2e18 || x <= -9.2e18) {
		*ns = x < 0 ? INT64_MIN : INT64_MAX;
		return 1;
	}
	*ns = roundll(x);
	return v->wrap;
}
