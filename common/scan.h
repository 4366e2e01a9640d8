/* See LICENSE file for copyright and license details. */
/*
 * scan.h: looking at sixteen bytes at once, for the scanners that read
 * every byte of the stream (log lines, lt1 columns, JSON strings).  With
 * SSE2 (every x86-64 compiler has it) a block takes a few instructions.
 * Elsewhere (aarch64, or with LT_NO_SIMD defined) the same masks are
 * made eight bytes at a time in a 64-bit word (SWAR: a byte that is
 * zero, or that has its high bit set, is found by carries that never
 * cross bytes); LT_NO_SWAR, or a compiler that does not say its byte
 * order, leaves the byte by byte loop.  Callers make sure that the 16
 * bytes at p can be read.
 */
#ifndef LT_SCAN_H
#define LT_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(LT_NO_SIMD)
#include <emmintrin.h>
#define LT_SCAN_SSE2
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    defined(__ORDER_BIG_ENDIAN__) && !defined(LT_NO_SWAR)
#define LT_SCAN_SWAR
#endif

#ifdef LT_SCAN_SWAR
#define LT_ONES		0x0101010101010101ULL
#define LT_LOW7		0x7f7f7f7f7f7f7f7fULL

/* The 8 bytes at p, byte i in bits 8i to 8i+7 whatever the byte order. */
static inline uint64_t
lt_swar_load(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* 0x80 in each byte of v that is zero, 0 in the others, exactly. */
static inline uint64_t
lt_swar_zero(uint64_t v)
{
	return ~(((v & LT_LOW7) + LT_LOW7) | v | LT_LOW7);
}

/* The 0x80 bits of v, one per byte, gathered in bits 0 to 7. */
static inline unsigned
lt_swar_bits(uint64_t v)
{
	return (unsigned)(((v >> 7) * 0x0102040810204080ULL) >> 56);
}

/*
 * 0x80 in each byte of v that is a or b.  When a and b differ in one
 * bit at most (';' and ':', or a twice), a byte is one of them when it
 * equals a with that bit set: one test, not two.
 */
static inline uint64_t
lt_swar_eq2(uint64_t v, int a, int b)
{
	unsigned d = (unsigned char)a ^ (unsigned char)b;

	if ((d & (d - 1)) == 0)
		return lt_swar_zero((v | LT_ONES * d) ^
		    (LT_ONES * ((unsigned char)a | d)));
	return lt_swar_zero(v ^ (LT_ONES * (unsigned char)a)) |
	    lt_swar_zero(v ^ (LT_ONES * (unsigned char)b));
}

/*
 * Below 0x20, 0x7f and above, '"' or '\'.  On the low seven bits of a
 * byte, + 0x60 sets the high bit from 0x20 on, + 0x01 at 0x7f.
 */
static inline uint64_t
lt_swar_esc(uint64_t v)
{
	uint64_t low = v & LT_LOW7;

	return ((~(low + LT_ONES * 0x60) | (low + LT_ONES) | v) &
	    (LT_ONES * 0x80)) | lt_swar_eq2(v, '"', '\\');
}
#endif

/* Bit i set when p[i] is a or b. */
static inline unsigned
lt_scan16(const char *p, int a, int b)
{
#if defined(LT_SCAN_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8((char)a)),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8((char)b))));
#elif defined(LT_SCAN_SWAR)
	uint64_t lo = lt_swar_eq2(lt_swar_load(p), a, b);
	uint64_t hi = lt_swar_eq2(lt_swar_load(p + 8), a, b);

	if ((lo | hi) == 0)
		return 0;
	return lt_swar_bits(lo) | lt_swar_bits(hi) << 8;
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
#if defined(LT_SCAN_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);

	/* Signed: the bytes from 0x80 are below 0x20 too. */
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f))),
	    _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')))));
#elif defined(LT_SCAN_SWAR)
	uint64_t lo = lt_swar_esc(lt_swar_load(p));
	uint64_t hi = lt_swar_esc(lt_swar_load(p + 8));

	if ((lo | hi) == 0)
		return 0;
	return lt_swar_bits(lo) | lt_swar_bits(hi) << 8;
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

/* Both: the bits of lt_scan16(p, a, b), those of lt_scan16esc in *esc. */
static inline unsigned
lt_scan16both(const char *p, int a, int b, unsigned *esc)
{
#if defined(LT_SCAN_SWAR)
	uint64_t lo = lt_swar_load(p), hi = lt_swar_load(p + 8), e0, e1;

	e0 = lt_swar_esc(lo);
	e1 = lt_swar_esc(hi);
	*esc = (e0 | e1) == 0 ? 0 : lt_swar_bits(e0) | lt_swar_bits(e1) << 8;
	lo = lt_swar_eq2(lo, a, b);
	hi = lt_swar_eq2(hi, a, b);
	return (lo | hi) == 0 ? 0 : lt_swar_bits(lo) | lt_swar_bits(hi) << 8;
#else
	*esc = lt_scan16esc(p);
	return lt_scan16(p, a, b);
#endif
}

/*
 * The bits of the bytes JSON's structure hangs on: '"' (returned), and
 * the brackets in *br; *bs gets a bit (not always the byte's) when there
 * is a '\', a control character or a byte of a non-ASCII character (the
 * signed test finds both).  A bracket folded to lower case is '{' or
 * '}': one test for two.
 */
static inline unsigned
lt_scan16json(const char *p, unsigned *br, unsigned *bs)
{
#if defined(LT_SCAN_SSE2)
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i f = _mm_or_si128(x, _mm_set1_epi8(0x20));

	*br = (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmpeq_epi8(f, _mm_set1_epi8('{')),
	    _mm_cmpeq_epi8(f, _mm_set1_epi8('}'))));
	*bs |= (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x,
	    _mm_set1_epi8('\\')), _mm_cmplt_epi8(x, _mm_set1_epi8(0x20))));
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x,
	    _mm_set1_epi8('"')));
#else
	unsigned q = 0, i, c;

	*br = 0;
	for (i = 0; i < 16; i++) {
		c = (unsigned char)p[i];
		q |= (unsigned)(c == '"') << i;
		*bs |= c == '\\' || c < 0x20 || c >= 0x80;
		*br |= (unsigned)((c | 0x20) == '{' || (c | 0x20) == '}') << i;
	}
	return q;
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

/*
 * The first byte at or after p, before end, that plain JSON string
 * contents cannot hold: below 0x20, above 0x7e, '"' or '\'; end when
 * there is none.  Reads only [p, end).
 */
static inline const char *
lt_scan_plain(const char *p, const char *end)
{
	unsigned m;

	for (; end - p >= 16; p += 16)
		if ((m = lt_scan16esc(p)) != 0)
			return p + lt_scan_first(m);
	while (p < end && (unsigned char)*p >= 0x20 &&
	    (unsigned char)*p < 0x7f && *p != '"' && *p != '\\')
		p++;
	return p;
}

#endif
