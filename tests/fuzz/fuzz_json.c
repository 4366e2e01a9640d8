/* See LICENSE file for copyright and license details. */
/*
 * fuzz_json: libFuzzer harness for the strict JSON scanner and the exact
 * number routines.  Properties checked: the canonical form of anything
 * accepted is accepted again, unchanged and with no flags; a scan that
 * asks for more never does so on complete text; numbers printed by
 * lt_us_fmt parse back to the same nanoseconds.  Build with `make fuzz`.
 */
#include <assert.h>
#include <stdlib.h>

#include "lt.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
same(const struct ltbuf *a, const struct ltbuf *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ltbuf a, b;
	const char *p = size > 0 ? (const char *)data : "";
	char num[LT_NUMBUF];
	struct ltjson j;
	int64_t ns, ns2;
	size_t n;
	int r;

	a.n = b.n = 0;
	r = lt_json_whole(p, size, &a, &j);
	assert(r == LT_JSON_OK || r == LT_JSON_BAD);
	if (r == LT_JSON_OK) {
		assert(lt_json_whole(a.p, a.n, &b, &j) == LT_JSON_OK);
		assert(j.flags == 0 && same(&a, &b));
	}
	a.n = 0;
	if (lt_json_value(p, size, &a, &j) == LT_JSON_OK)
		assert(j.end <= size);
	a.n = b.n = 0;
	if (lt_json_str(p, size, &a, &j) == LT_JSON_OK) {
		assert(lt_json_str(a.p, a.n, &b, &j) == LT_JSON_OK);
		assert(j.flags == 0 && same(&a, &b));
	}
	a.n = 0;
	lt_esc(&a, p, size);
	assert(lt_json_str(a.p, a.n, NULL, &j) == LT_JSON_OK && j.flags == 0);

	if (lt_us_parse(p, size, &ns) == LT_NUM_OK) {
		n = lt_us_fmt(num, ns);
		assert(lt_us_parse(num, n, &ns2) == LT_NUM_OK && ns == ns2);
	}
	if (lt_dec_parse(p, size, 3, &ns) == LT_NUM_OK) {
		n = lt_us_fmt(num, ns);
		assert(lt_dec_parse(num, n, 3, &ns2) == LT_NUM_OK && ns == ns2);
	}
	return 0;
}
