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
#include "lt.h"

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

/* True when the bytes are printable ASCII without '"' or '\'. */
int
lt_esc_plain(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return 0;
	return 1;
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
