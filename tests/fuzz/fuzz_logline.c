/* See LICENSE file for copyright and license details. */
/*
 * fuzz_logline: libFuzzer harness for the LitData log-line tokeniser
 * (logline.c) and the name normaliser (legacy.c).  The input is split
 * into lines as ltparse splits a log; each line is classified, and an
 * event must be well formed: a one-character ph, a name, every field
 * inside the line (or a static string), at most four args from a name.
 * The one-pass reader (ps_logread), given the bytes from the line's
 * start to the input's end, must find the same line and say the same
 * of it, field by field.
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
check(char *line, size_t len, struct pslog *lg)
{
	struct psnorm nm;
	size_t i;
	int k;

	k = ps_logline(line, len, lg);
	if (k < 0 || k >= PS_NKIND)
		abort();
	if (k == PS_SKIP_TORN && lg->why == NULL)
		abort();
	if (k != PS_LOG_EVENT)
		return;
	if (lg->ph.n != 1 || lg->name.p == NULL || lg->gen < 0 ||
	    lg->gen >= PS_NGEN)
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
	ps_lognorm(lg, &nm);
	if (nm.narg < 0 || nm.narg > 4 || nm.name == NULL || nm.namen == 0)
		abort();
	for (k = 0; k < nm.narg; k++)
		if (nm.arg[k].k == NULL || nm.arg[k].v == NULL)
			abort();
}

static int
samefield(const struct ltfield *a, const struct ltfield *b)
{
	return a->p == b->p && a->n == b->n;
}

/* ps_logread on p[0..n), at the line lg was made from, of len bytes. */
static void
same(char *p, size_t n, size_t len, const struct pslog *lg)
{
	static struct pslog r;
	size_t rlen, i;
	int k;

	k = ps_logread(p, n, 1, &r, &rlen);
	if (k != lg->kind || rlen != len || (r.why == NULL) !=
	    (lg->why == NULL) || (r.why != NULL && strcmp(r.why, lg->why)))
		abort();
	if (k != PS_LOG_EVENT && k != PS_SKIP_TEXT)
		return;
	if (r.gen != lg->gen || r.salvaged != lg->salvaged ||
	    r.plain != lg->plain || r.crash != lg->crash || r.ts != lg->ts ||
	    r.pid != lg->pid || r.tid != lg->tid || r.nkv != lg->nkv ||
	    !samefield(&r.name, &lg->name) || !samefield(&r.ph, &lg->ph) ||
	    !samefield(&r.cat, &lg->cat) || !samefield(&r.cname, &lg->cname) ||
	    (k == PS_LOG_EVENT && r.tsus.p != lg->tsus.p) ||
	    (r.tsus.p != NULL && r.tsus.n != lg->tsus.n))
		abort();
	for (i = 0; i < r.nkv; i++)
		if (r.kv[i].k != lg->kv[i].k || r.kv[i].kn != lg->kv[i].kn ||
		    r.kv[i].v != lg->kv[i].v || r.kv[i].vn != lg->kv[i].vn)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pslog lg;
	char *buf, *p, *end, *nl;

	buf = lt_malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf, end = buf + size; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		check(p, (size_t)(nl - p), &lg);
		same(p, (size_t)(end - p), (size_t)(nl - p), &lg);
	}
	free(buf);
	return 0;
}
