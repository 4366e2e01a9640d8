/* See LICENSE file for copyright and license details. */
/*
 * fuzz_logline: libFuzzer harness for the LitData log-line tokeniser
 * (logline.c) and the name normaliser (legacy.c).  The input is split
 * into lines as ltparse splits a log; each line is classified, and an
 * event must be well formed: a one-character ph, a name, every field
 * inside the line (or a static string), at most four args from a name.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"

static int
inside(const char *p, size_t n, const char *line, size_t len)
{
	return p >= line && p + n <= line + len;
}

static void
check(char *line, size_t len, struct ltlog *lg)
{
	struct ltnorm nm;
	size_t i;
	int k;

	k = lt_logline(line, len, lg);
	if (k < 0 || k >= LT_NKIND)
		abort();
	if (k == LT_SKIP_TORN && lg->why == NULL)
		abort();
	if (k != LT_LOG_EVENT)
		return;
	if (lg->ph.n != 1 || lg->name.p == NULL || lg->gen < 0 ||
	    lg->gen >= LT_NGEN)
		abort();
	if (!lg->crash && (!inside(lg->name.p, lg->name.n, line, len) ||
	    !inside(lg->ph.p, lg->ph.n, line, len)))
		abort();
	for (i = 0; i < lg->nkv; i++)
		if (!inside(lg->kv[i].k, lg->kv[i].kn, line, len) ||
		    !inside(lg->kv[i].v, lg->kv[i].vn, line, len))
			abort();
	if (lg->tsus.p != NULL && (!inside(lg->tsus.p, lg->tsus.n, line,
	    len) || lg->tsus.n == 0))
		abort();
	lt_lognorm(lg, &nm);
	if (nm.narg < 0 || nm.narg > 4 || nm.name == NULL || nm.namen == 0)
		abort();
	for (k = 0; k < nm.narg; k++)
		if (nm.arg[k].k == NULL || nm.arg[k].v == NULL)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ltlog lg;
	char *buf, *p, *end, *nl;

	buf = lt_malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf, end = buf + size; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		*nl = '\0';
		check(p, (size_t)(nl - p), &lg);
	}
	free(buf);
	return 0;
}
