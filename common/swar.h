/* See LICENSE file for copyright and license details. */
/*
 * swar.h: looking at eight bytes at once in a uint64_t ("SIMD within a
 * register"), for the scanners of the stream and of its JSON columns.
 * Load with memcpy (any alignment, any byte order).
 */
#ifndef LT_SWAR_H
#define LT_SWAR_H

#define SWAR_ONES	0x0101010101010101ULL
#define SWAR_HIGHS	0x8080808080808080ULL

/*
 * A high bit set in each byte of x below n (n <= 128), or equal to c.
 * Whether any is set is exact; a borrow may also flag a byte after a
 * real one, never one before it.
 */
#define SWAR_BELOW(x, n)	(((x) - SWAR_ONES * (n)) & ~(x) & SWAR_HIGHS)
#define SWAR_EQ(x, c)		SWAR_BELOW((x) ^ (SWAR_ONES * (c)), 1)

/*
 * The offset of the first flagged byte, where the machine is
 * little-endian and the compiler has the builtin; elsewhere callers
 * find it byte by byte.
 */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_FIRST(m)	((size_t)__builtin_ctzll(m) / 8)
#endif

#endif
