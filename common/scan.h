/* See LICENSE file for copyright and license details. */
/*
 * scan.h: looking at sixteen bytes at once, for the scanners that read
 * every byte of the stream (log lines, lt1 columns, JSON strings).  With
 * SSE2 (every x86-64 compiler has it) a block takes a few instructions;
 * elsewhere, or with LT_NO_SIMD defined, the same masks are made byte
 * by byte.  Callers make sure that the 16 bytes at p can be read.
 */
#ifndef LT_SCAN_H
#define LT_SCAN_H

#if defined(__SSE2__) && !defined(LT_NO_SIMD)
#include <emmintrin.h>
#define LT_SCAN_SSE2
#endif

/* Bit i set when p[i] is a or b. */
static inline unsigned
lt_scan16(const char *p, int a, int b)
{
#ifdef LT_SCAN_SSE2
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8((char)a)),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8((char)b))));
#else
	unsigned m = 0, i;

	for (i = 0; i < 16; i++)
		if (p[i] == (char)a || p[i] == (char)b)
			m |= 1U << i;
	return m;
#endif
}

/*
 * Bit i set when p[i] cannot stand as it is in JSON string contents:
 * below 0x20, 0x7f and above (not ASCII), '"' and '\'.
 */
static inline unsigned
lt_scan16esc(const char *p)
{
#ifdef LT_SCAN_SSE2
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	/* Signed: the bytes from 0x80 are below 0x20 too. */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))),
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')))));
#else
	unsigned m = 0, i, c;

	for (i = 0; i < 16; i++) {
		c = (unsigned char)p[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			m |= 1U << i;
	}
	return m;
#endif
}

/* The lowest bit set in m, which is not 0. */
static inline unsigned
lt_scan_first(unsigned m)
{
#ifdef __GNUC__
	return (unsigned)__builtin_ctz(m);
#else
	unsigned i;

	for (i = 0; !(m & 1); i++)
		m >>= 1;
	return i;
#endif
}

#endif
