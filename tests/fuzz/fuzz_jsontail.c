/* See LICENSE file for copyright and license details. */
/*
 * fuzz_jsontail: libFuzzer harness for jsontail.c, the ts offset of a
 * trace found from its last bytes.  For every trace in object form that
 * jsonev.c reads to its end, whatever number of last bytes is given to
 * ps_jtail, the offset it settles on, or 0 when ps_jdirty finds nothing
 * before the bytes it leaves unsettled, is the offset a reading of the
 * whole trace finds.  ps_jdirty_feed, fed in pieces, finds what
 * ps_jdirty finds in one.
 */
#include <stdlib.h>
#include <unistd.h>

#include "jsonev.h"
#include "ltparse.h"
#include "fuzzfile.h"


/* The offset of a reading of the whole trace; -1 if it is not read. */
static int
whole(int64_t *ns)
{
	struct ltjev ev;
	struct ltjr jr;
	struct ltin in;
	int k, form;

	fuzz_open(&in);
	*ns = ps_jr_prescan(&in);
	if (lt_in_rewind(&in) != 0)
		abort();
	lt_jr_init(&jr, &in, LT_JR_CHECK);
	while ((k = lt_jr_next(&jr, &ev)) == LT_JEV_EVENT || k == LT_JEV_TOP)
		;
	form = jr.form;
	lt_jr_free(&jr);
	lt_in_close(&in);
	return k == LT_JEV_EOF && form == '{' ? 0 : -1;
}

static void
tail(const char *p, size_t size, size_t n, int ok, int64_t ref)
{
	size_t from, d;
	int64_t ns = -1;

	if (ps_jtail(p + size - n, n, &ns, &from)) {
		if (ok == 0 && ns != ref)
			abort();
		return;
	}
	if (from > n)
		abort();
	d = ps_jdirty(p, size - n + from);
	if (d > size - n + from)
		abort();
	if (ok == 0 && d == size - n + from && ref != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct ltjdirty dy;
	size_t n, step, i, d;
	int64_t ref;
	int ok;

	fuzz_store(data, size);
	ok = whole(&ref);
	step = size / 64 + 1;
	for (n = 1; n < size; n += step)
		tail(p, size, n, ok, ref);
	for (n = size > 40 ? size - 40 : 1; n < size; n++)
		tail(p, size, n, ok, ref);

	/* Pieces of 1 to 16 bytes, as the data's first byte says. */
	memset(&dy, 0, sizeof(dy));
	dy.first = -1;
	step = size > 0 ? data[0] % 16 + 1 : 1;
	for (i = 0; i < size; i += n) {
		n = size - i < step ? size - i : step;
		ps_jdirty_feed(&dy, p + i, n);
	}
	d = ps_jdirty(p, size);
	if (dy.seen != (off_t)size || (d == size ? dy.first != -1 :
	    dy.first != (off_t)d))
		abort();
	return 0;
}
