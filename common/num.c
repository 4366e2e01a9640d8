/* See LICENSE file for copyright and license details. */
/*
 * num.c: exact decimal numbers.
 *
 * Times travel as decimal text and are computed on as int64 nanoseconds;
 * no double is ever involved, so nothing drifts.  lt_dec_parse() scales
 * any decimal (JSON number grammar) by a power of ten and rounds half away
 * from zero; lt_us_parse() is the strict lt1 form of microseconds.
 */
#include <stdint.h>

#include "lt.h"
#include "bytes.h"

#define ISDIGIT(c)	((unsigned)(c) - '0' < 10)

/* v, or -v, which the caller checked to fit (down to INT64_MIN). */
static int64_t
signed64(uint64_t v, int neg)
{
	if (!neg)
		return (int64_t)v;
	return v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
}

/*
 * value * 10^scale as an integer, rounded half away from zero.  Accepts
 * -?D+(.D+)?([eE][+-]?D+)?, the whole text and nothing else.
 */
int
lt_dec_parse(const char *p, size_t n, int scale, int64_t *out)
{
	const char *end = p + n, *ip, *fp = NULL;
	size_t il, fl = 0, m, i;
	long long e = 0, point;
	uint64_t acc = 0;
	int neg = 0, eneg = 0, d;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	ip = p;
	while (p < end && ISDIGIT(*p))
		p++;
	if ((il = (size_t)(p - ip)) == 0)
		return LT_NUM_SYNTAX;
	if (p < end && *p == '.') {
		fp = ++p;
		while (p < end && ISDIGIT(*p))
			p++;
		if ((fl = (size_t)(p - fp)) == 0)
			return LT_NUM_SYNTAX;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p == end || !ISDIGIT(*p))
			return LT_NUM_SYNTAX;
		for (; p < end && ISDIGIT(*p); p++)
			if (e < 1000000)
				e = e * 10 + (*p - '0');
		if (eneg)
			e = -e;
	}
	if (p != end)
		return LT_NUM_SYNTAX;

	/* Digits ip[0..il) fp[0..fl); the point moves to il + e + scale. */
	m = il + fl;
	point = (long long)il + e + scale;
	for (i = 0; (long long)i < point; i++) {
		if (i >= m && acc == 0)
			break;
		d = i < il ? ip[i] - '0' : i < m ? fp[i - il] - '0' : 0;
		if (acc > (UINT64_MAX - 9) / 10)
			return LT_NUM_RANGE;
		acc = acc * 10 + (uint64_t)d;
		if (acc > (uint64_t)INT64_MAX + (uint64_t)neg)
			return LT_NUM_RANGE;
	}
	if (point >= 0 && (size_t)point < m) {
		i = (size_t)point;
		d = i < il ? ip[i] - '0' : fp[i - il] - '0';
		if (d >= 5 && ++acc > (uint64_t)INT64_MAX + (uint64_t)neg)
			return LT_NUM_RANGE;
	}
	*out = signed64(acc, neg);
	return LT_NUM_OK;
}

/*
 * lt1 microseconds: -?D+(.D{1,3})? exactly, to nanoseconds.  The digits
 * of a ts (16 of them today) are taken eight at a time.
 */
int
lt_us_parse(const char *p, size_t n, int64_t *ns)
{
	const char *end = p + n, *q = p, *fast;
	uint64_t v = 0, a, b;
	int neg = 0, k;

	if (p < end && *p == '-') {
		neg = 1;
		q = ++p;
	}
	if (end - p >= 16 && lt_eight(a = lt_load8(p)) &&
	    lt_eight(b = lt_load8(p + 8))) {
		v = lt_value8(a) * 100000000 + lt_value8(b);
		/* What the 16th digit's check below would say. */
		if (v / 10 > (uint64_t)INT64_MAX / 10 / 1000)
			return LT_NUM_RANGE;
		p += 16;
	} else if (end - p >= 8 && lt_eight(a = lt_load8(p))) {
		v = lt_value8(a);
		p += 8;
	}
	/* 15 digits, times 1000, stay below 2^63: no check for them. */
	fast = end - q > 15 ? q + 15 : end;
	for (; p < fast && ISDIGIT(*p); p++)
		v = v * 10 + (uint64_t)(*p - '0');
	for (; p < end && ISDIGIT(*p); p++) {
		if (v > (uint64_t)INT64_MAX / 10 / 1000)
			return LT_NUM_RANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == q)
		return LT_NUM_SYNTAX;
	v *= 1000;
	if (p < end && *p == '.') {
		p++;
		for (k = 100, q = p; p < end && ISDIGIT(*p) && k > 0; p++) {
			v += (uint64_t)(*p - '0') * (uint64_t)k;
			k /= 10;
		}
		if (p == q)
			return LT_NUM_SYNTAX;
	}
	if (p != end)
		return LT_NUM_SYNTAX;
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return LT_NUM_RANGE;
	*ns = signed64(v, neg);
	return LT_NUM_OK;
}

/* Two digits at a time: "00" to "99". */
static const char pairs[] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* v, below 10^4, as exactly four digits at w. */
static inline void
four(char *w, uint32_t v)
{
	memcpy(w, pairs + v / 100 * 2, 2);
	memcpy(w + 2, pairs + v % 100 * 2, 2);
}

/* v, below 10^8, as exactly eight digits at w. */
static inline void
eightdig(char *w, uint32_t v)
{
	four(w, v / 10000);
	four(w + 4, v % 10000);
}

/*
 * v, below 10^8, at w without leading zeros; the number of digits.  It
 * is counted first, so that the digits go straight to their place.
 */
static inline size_t
upto8(char *w, uint32_t v)
{
	size_t n;
	char *q;

	if (v < 10000)
		n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
	else
		n = v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
	for (q = w + n; v >= 100; v /= 100) {
		q -= 2;
		memcpy(q, pairs + v % 100 * 2, 2);
	}
	if (v >= 10)
		memcpy(q - 2, pairs + v * 2, 2);
	else
		q[-1] = (char)('0' + v);
	return n;
}

/*
 * In 32-bit pieces of eight digits: a ts of a log has 16, and the
 * pieces are made side by side, not by a chain of 64-bit divisions.
 */
size_t
lt_u64_fmt(char *buf, uint64_t v)
{
	size_t n;

	if (v < 100000000)
		n = upto8(buf, (uint32_t)v);
	else if (v < 10000000000000000ULL) {
		n = upto8(buf, (uint32_t)(v / 100000000));
		eightdig(buf + n, (uint32_t)(v % 100000000));
		n += 8;
	} else {
		n = upto8(buf, (uint32_t)(v / 10000000000000000ULL));
		eightdig(buf + n, (uint32_t)(v / 100000000 % 100000000));
		eightdig(buf + n + 8, (uint32_t)(v % 100000000));
		n += 16;
	}
	buf[n] = '\0';
	return n;
}

size_t
lt_i64_fmt(char *buf, int64_t v)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + lt_u64_fmt(buf + 1, (uint64_t)0 - (uint64_t)v);
	}
	return lt_u64_fmt(buf, (uint64_t)v);
}

/* Nanoseconds as the shortest decimal microseconds: 12, 12.5, 0.001. */
size_t
lt_us_fmt(char *buf, int64_t ns)
{
	uint64_t a;
	size_t n = 0;
	unsigned frac;

	if (ns < 0) {
		buf[n++] = '-';
		a = (uint64_t)0 - (uint64_t)ns;
	} else
		a = (uint64_t)ns;
	n += lt_u64_fmt(buf + n, a / 1000);
	if ((frac = (unsigned)(a % 1000)) != 0) {
		buf[n++] = '.';
		buf[n++] = (char)('0' + frac / 100);
		frac %= 100;
		if (frac != 0) {
			buf[n++] = (char)('0' + frac / 10);
			frac %= 10;
			if (frac != 0)
				buf[n++] = (char)('0' + frac);
		}
		buf[n] = '\0';
	}
	return n;
}

/* A canonical JSON integer that fits int64: 0 or -?[1-9][0-9]*. */
int
lt_int_parse(const char *p, size_t n, int64_t *v)
{
	uint64_t u;
	int neg = 0, r;

	if (n > 0 && *p == '-') {
		neg = 1;
		p++;
		n--;
	}
	if ((r = lt_uint_parse(p, n, &u)) != LT_NUM_OK)
		return r;
	if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
		return LT_NUM_RANGE;
	*v = signed64(u, neg);
	return LT_NUM_OK;
}

/* Canonical unsigned decimal: 0 or [1-9][0-9]*, up to UINT64_MAX. */
int
lt_uint_parse(const char *p, size_t n, uint64_t *v)
{
	uint64_t u = 0, x;
	size_t i = 0;
	unsigned d;

	if (n == 0 || (p[0] == '0' && n > 1))
		return LT_NUM_SYNTAX;
	/* Eight digits at a time, up to 16: a thread id of a log has 15. */
	for (; n - i >= 8 && i < 16 && lt_eight(x = lt_load8(p + i)); i += 8)
		u = u * 100000000 + lt_value8(x);
	/* 19 digits always fit: look for a range error only beyond. */
	for (; i < n && i < 19; i++) {
		if ((d = (unsigned)p[i] - '0') > 9)
			return LT_NUM_SYNTAX;
		u = u * 10 + d;
	}
	for (; i < n; i++) {
		if ((d = (unsigned)p[i] - '0') > 9)
			return LT_NUM_SYNTAX;
		if (u > (UINT64_MAX - d) / 10)
			return LT_NUM_RANGE;
		u = u * 10 + d;
	}
	*v = u;
	return LT_NUM_OK;
}
