/* See LICENSE file for copyright and license details. */
/*
 * bytes.h: short copies and compares, inline: the pieces of a record and
 * the texts of ids are a few bytes, and a call to memcpy or memcmp costs
 * more than the loads, which may overlap, that these make.  For jsonw.c,
 * ltpair, ltparse and ltproto.  And eight digits read as one word, for
 * num.c and the timestamps of ltparse's log lines.
 */
#ifndef LT_BYTES_H
#define LT_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* n bytes of p to w, which has room, reading nothing outside p[0..n). */
static inline char *
lt_put(char *w, const char *p, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n >= 8 && n <= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		memcpy(w, &a, 8);
		memcpy(w + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&c, p, 4);
		memcpy(&d, p + n - 4, 4);
		memcpy(w, &c, 4);
		memcpy(w + n - 4, &d, 4);
	} else if (n > 16)
		memcpy(w, p, n);
	else if (n > 0) {
		w[0] = p[0];		/* 1 to 3 bytes */
		w[n / 2] = p[n / 2];
		w[n - 1] = p[n - 1];
	}
	return w + n;
}

/* Are the n bytes at a and at b the same? */
static inline int
lt_same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t c, d;
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&c, a, 4);
		memcpy(&d, b, 4);
		if (c != d)
			return 0;
		memcpy(&c, a + n - 4, 4);
		memcpy(&d, b + n - 4, 4);
		return c == d;
	}
	return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] &&
	    a[n - 1] == b[n - 1]);
}

/* The eight bytes at p, the first in the low byte. */
static inline uint64_t
lt_load8(const char *p)
{
	const unsigned char *b = (const unsigned char *)p;

	/* Written out, so that the compiler makes it one load. */
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	    (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 |
	    (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
	    (uint64_t)b[7] << 56;
}

/* Are the eight bytes of x (lt_load8) all digits? */
static inline int
lt_eight(uint64_t x)
{
	return ((x & 0xF0F0F0F0F0F0F0F0ULL) |
	    (((x + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) ==
	    0x3333333333333333ULL;
}

/* The eight digits of x (lt_load8) as a number: pairs, fours, eight. */
static inline uint64_t
lt_value8(uint64_t x)
{
	x = (x & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
	x = (x & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
	return (x & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32 &
	    0xFFFFFFFFULL;
}

#endif
