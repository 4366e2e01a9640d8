/* See LICENSE file for copyright and license details. */
/*
 * fuzz_logline: libFuzzer harness for the LitData log-line tokeniser
 * (logline.c) and the name normaliser (legacy.c).  The input is split
 * into lines as ltparse splits a log; each line is classified, and an
 * event must be well formed: a one-character ph, a name, every field
 * inside the line (or a static string), at most four args from a name.
 * The one-pass reader (ps_logread), given the bytes from the line's
 * start to the input's end, must find the same line and say the same
 * of it, field by field.  What the env keys of the lines before give
 * (struct pstail) and the heads of their threads (struct pshead) must
 * change nothing: a line read with them and one read with none are the
 * same fields, and the same lt1 record.
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

/* The fields of two readings of one line, the same. */
static void
samelog(const struct pslog *a, const struct pslog *b)
{
	size_t i;

	if (a->kind != b->kind || (a->why == NULL) != (b->why == NULL) ||
	    (a->why != NULL && strcmp(a->why, b->why) != 0))
		abort();
	if (a->kind != PS_LOG_EVENT && a->kind != PS_SKIP_TEXT)
		return;
	if (a->gen != b->gen || a->salvaged != b->salvaged ||
	    a->plain != b->plain || a->crash != b->crash || a->ts != b->ts ||
	    a->pid != b->pid || a->tid != b->tid || a->nkv != b->nkv ||
	    !samefield(&a->name, &b->name) || !samefield(&a->ph, &b->ph) ||
	    !samefield(&a->cat, &b->cat) || !samefield(&a->cname, &b->cname) ||
	    (a->kind == PS_LOG_EVENT && a->tsus.p != b->tsus.p) ||
	    (a->tsus.p != NULL && a->tsus.n != b->tsus.n))
		abort();
	for (i = 0; i < a->nkv; i++)
		if (a->kv[i].k != b->kv[i].k || a->kv[i].kn != b->kv[i].kn ||
		    a->kv[i].v != b->kv[i].v || a->kv[i].vn != b->kv[i].vn)
			abort();
}

/*
 * The record of an event lg, in b: nine columns, whose ends are those
 * ps_logrec said, and a ts of the time it said (its lt_out_hint).
 */
static void
record(struct ltbuf *b, const struct pslog *lg, size_t len)
{
	struct psnorm nm;
	struct ltrec rec;
	long long replaced = 0;
	uint16_t end[LT_NCOL];
	const char *why;
	int64_t ns;
	int i;

	ps_lognorm(lg, &nm);
	ps_logrec(b, lg, &nm, "\t1\t1\t-\t", 7, 2, len, &replaced, end);
	if (b->n == 0 || b->p[b->n - 1] != '\n' ||
	    lt_rec_split(b->p, b->n - 1, &rec, &why) < 0)
		abort();
	if (b->n - 1 > UINT16_MAX)
		return;
	for (i = 0; i < LT_NCOL; i++)
		if (rec.f[i].p + rec.f[i].n != b->p + end[i])
			abort();
	if (lt_rec_ts(&rec, LT_TS, &ns) != 1 || ns != lg->ts ||
	    lt_rec_ts(&rec, LT_DUR, &ns) != 0)
		abort();
}

/*
 * The line as read with the env keys of the lines before it (lg), with
 * none, and with none and without the quick ways for the usual prefix
 * and ts (ps_logquick): the same fields, and the same record.
 */
static void
uncached(char *line, size_t len, const struct pslog *lg)
{
	static struct pslog f;
	static struct ltbuf a, b;
	int slow;

	for (slow = 0; slow < 2; slow++) {
		memset(f.tails, 0, sizeof(f.tails));
		memset(f.heads, 0, sizeof(f.heads));
		ps_logquick = !slow;
		ps_logline(line, len, &f);
		ps_logquick = 1;
		samelog(lg, &f);
		if (lg->kind != PS_LOG_EVENT)
			continue;
		record(&a, lg, len);
		record(&b, &f, len);
		if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0)
			abort();
	}
}

/* ps_logread on p[0..n), at the line lg was made from, of len bytes. */
static void
same(char *p, size_t n, size_t len, const struct pslog *lg)
{
	static struct pslog r;
	size_t rlen;
	int k;

	k = ps_logread(p, n, 1, &r, &rlen);
	if (k != lg->kind || rlen != len)
		abort();
	samelog(&r, lg);
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
		uncached(p, (size_t)(nl - p), &lg);
	}
	free(buf);
	return 0;
}
