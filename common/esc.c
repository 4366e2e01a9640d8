/* See LICENSE file for copyright and license details. */
/*
 * esc.c: bytes to JSON string contents, the one escaping of the toolkit.
 *
 * The result is always valid UTF-8 and valid inside JSON quotes:
 * '"' and '\' are escaped, control characters become \b \t \n \f \r or
 * \u00XX, everything else is copied raw (no \u escapes for printable
 * characters, so never a surrogate escape).  A byte that does not start a
 * valid UTF-8 sequence, and a NUL, each become U+FFFD; the return value
 * counts those replacements.
 */
#include "core.h"
#include "scan.h"

static const char hex[] = "0123456789abcdef";

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
size_t
lt_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
	    (s[3] & 0xc0) != 0x80)
		return 0;
	if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return 4;
}

#define ONES	0x0101010101010101ULL
#define LOW7	0x7f7f7f7f7f7f7f7fULL

/* 0x80 in each byte of v that is zero, 0 in the others, exactly. */
static uint64_t
zerobytes(uint64_t v)
{
	return ~(((v & LOW7) + LOW7) | v | LOW7);
}

/*
 * Not 0 when a byte of v is not printable ASCII or is '"' or '\'.  On
 * the low seven bits of a byte, + 0x60 sets the high bit from 0x20 on,
 * + 0x01 at 0x7f; no sum carries into the next byte.
 */
static uint64_t
notplain8(uint64_t v)
{
	uint64_t low = v & LOW7;

	return ((~(low + ONES * 0x60) | (low + ONES) | v) & ONES * 0x80) |
	    zerobytes(v ^ ONES * '"') | zerobytes(v ^ ONES * '\\');
}

/*
 * True when the bytes are printable ASCII without '"' or '\'.  The
 * names and categories of a stream have 4 to 16 bytes, shorter than a
 * block of lt_scan_plain: they are looked at in one word, or two, made
 * of loads that overlap.
 */
int
lt_esc_plain(const char *p, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n >= 8 && n <= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		return (notplain8(a) | notplain8(b)) == 0;
	}
	if (n >= 4 && n < 8) {
		memcpy(&c, p, 4);
		memcpy(&d, p + n - 4, 4);
		return notplain8((uint64_t)c << 32 | d) == 0;
	}
	return lt_scan_plain(p, p + n) == p + n;
}

size_t
lt_esc(struct ltbuf *b, const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, run, k, bad = 0;
	unsigned c;

	if (b->cap - b->n < n + 2)
		lt_buf_grow(b, n + 2);
	while (i < n) {
		for (run = i; i < n && s[i] >= 0x20 && s[i] < 0x7f &&
		    s[i] != '"' && s[i] != '\\'; i++)
			;
		if (i > run)
			lt_buf_add(b, s + run, i - run);
		if (i == n)
			break;
		c = s[i];
		if (c == '"' || c == '\\') {
			lt_buf_addc(b, '\\');
			lt_buf_addc(b, (int)c);
			i++;
		} else if (c == 0) {
			lt_buf_add(b, "\xef\xbf\xbd", 3);
			bad++;
			i++;
		} else if (c < 0x20) {
			lt_buf_addc(b, '\\');
			switch (c) {
			case '\b': lt_buf_addc(b, 'b'); break;
			case '\t': lt_buf_addc(b, 't'); break;
			case '\n': lt_buf_addc(b, 'n'); break;
			case '\f': lt_buf_addc(b, 'f'); break;
			case '\r': lt_buf_addc(b, 'r'); break;
			default:
				lt_buf_add(b, "u00", 3);
				lt_buf_addc(b, hex[c >> 4]);
				lt_buf_addc(b, hex[c & 15]);
			}
			i++;
		} else if (c == 0x7f) {
			lt_buf_addc(b, 0x7f);
			i++;
		} else if ((k = lt_utf8_len(s + i, n - i)) != 0) {
			lt_buf_add(b, s + i, k);
			i += k;
		} else {
			lt_buf_add(b, "\xef\xbf\xbd", 3);
			bad++;
			i++;
		}
	}
	return bad;
}

/* The 4 hex digits at p as a number, or -1. */
long
lt_hex4(const char *p)
{
	long v = 0;
	int i, c;

	for (i = 0; i < 4; i++) {
		c = (unsigned char)p[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			c = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v * 16 + c;
	}
	return v;
}

/* Code point cp (below 0x110000) as UTF-8 in u[0..4): its length. */
size_t
lt_utf8_put(char *u, long cp)
{
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (char)(0xf0 | cp >> 18);
	u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * JSON string contents p[0..n) to the characters they stand for, added
 * to b: surrogate pairs joined, a lone surrogate and U+0000 as U+FFFD
 * (as everywhere in the toolkit), an escape that is not one copied as
 * it is written.
 */
void
lt_unesc(struct ltbuf *b, const char *p, size_t n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *end = p + n, *c;
	char u[4];
	long cp, lo;

	while (p < end) {
		if (*p != '\\' || p + 1 == end) {
			lt_buf_addc(b, *p++);
			continue;
		}
		if (p[1] != 'u') {
			c = strchr(from, p[1]);
			lt_buf_addc(b, c != NULL && *c != '\0' ?
			    to[c - from] : p[1]);
			p += 2;
			continue;
		}
		if (end - p < 6 || (cp = lt_hex4(p + 2)) < 0) {
			lt_buf_addc(b, *p++);
			continue;
		}
		p += 6;
		if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
		    p[0] == '\\' && p[1] == 'u' &&
		    (lo = lt_hex4(p + 2)) >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			p += 6;
		} else if (cp == 0 || (cp >= 0xd800 && cp < 0xe000))
			cp = 0xfffd;
		lt_buf_add(b, u, lt_utf8_put(u, cp));
	}
}
