/* See LICENSE file for copyright and license details. */
/*
 * jsonhold.c: a flow start kept from a 0-ns slice that Perfetto would
 * bind it to, by the smallest change: the order of two records of one
 * time.
 *
 * Kineto writes a runtime call of no duration (cudaFuncSetAttribute)
 * and then, at the same microsecond on the same thread, the launch of
 * a kernel (cudaLaunchKernel) and the start of its flow, whose id is
 * the launch's correlation arg.  Perfetto's JSON importer sorts the
 * events of one time with the longer slice first and the rest in file
 * order, and binds a flow start to the innermost slice open on its
 * thread: the 0-ns call, which it closes only when another slice
 * starts.  So the kernel's arrow points at the wrong call (78 flows
 * across three real traces, flow-zero-dur-steals.json).  Here an X of
 * no duration is held back while the records after it have its time
 * and thread, and a flow start of that time and thread whose id is the
 * correlation of a slice there that lasts (and not of a held one) is
 * written before it: the flow then binds to the launch, the call still
 * nests in it, and nothing else changes.  Any other record ends the
 * hold, and what is held goes in its order: nothing moves but flows.
 */
#include "lt.h"
#include "ltparse.h"

#define HELD	8	/* 0-ns slices held, at most */
#define CORR	8	/* correlations of the slices that last, kept */

static struct ltbuf	 held;		/* their lines, one after another */
static size_t		 nheld;
static struct ltbuf	 key;		/* ts, pid and tid of the held */
static struct ltbuf	 corr;		/* "\t"-ended correlations there */
static size_t		 ncorr;

/* Column i of the lt1 line p[0..n) in *c (its end at the first tab). */
static void
column(const char *p, size_t n, int i, struct ltfield *c)
{
	const char *e = p + n, *t;

	for (; i > 0 && (t = memchr(p, '\t', (size_t)(e - p))) != NULL; i--)
		p = t + 1;
	t = memchr(p, '\t', (size_t)(e - p));
	c->p = (char *)p;
	c->n = (size_t)((t != NULL ? t : e) - p);
}

/* Do the lines p and k[0..kn) ("ts\tph\tpid\ttid...") share ts, pid, tid? */
static int
samekey(const char *p, size_t n)
{
	struct ltfield ts, pid, tid;
	const char *k = key.p;
	size_t kn = key.n;

	column(p, n, 0, &ts);
	column(p, n, 2, &pid);
	column(p, n, 3, &tid);
	return kn == ts.n + pid.n + tid.n + 2 && memcmp(k, ts.p, ts.n) == 0 &&
	    memcmp(k + ts.n + 1, pid.p, pid.n) == 0 &&
	    memcmp(k + ts.n + pid.n + 2, tid.p, tid.n) == 0;
}

static void
setkey(const char *p, size_t n)
{
	struct ltfield ts, pid, tid;

	column(p, n, 0, &ts);
	column(p, n, 2, &pid);
	column(p, n, 3, &tid);
	key.n = 0;
	lt_buf_add(&key, ts.p, ts.n);
	lt_buf_addc(&key, '\t');
	lt_buf_add(&key, pid.p, pid.n);
	lt_buf_addc(&key, '\t');
	lt_buf_add(&key, tid.p, tid.n);
	corr.n = 0;
	ncorr = 0;
}

/* The member name of the JSON object in column i of line p, or NULL. */
static const char *
member(const char *p, size_t n, int i, const char *name, size_t *vn)
{
	struct ltfield c;

	column(p, n, i, &c);
	if (c.n <= 2)
		return NULL;
	return lt_json_member(c.p, c.n, name, vn);
}

/* Is v[0..vn) among the correlations kept? */
static int
known(const char *v, size_t vn)
{
	const char *p = corr.p, *e = corr.p + corr.n, *t;

	for (; p < e; p = t + 1) {
		t = memchr(p, '\t', (size_t)(e - p));
		if ((size_t)(t - p) == vn && memcmp(p, v, vn) == 0)
			return 1;
	}
	return 0;
}

/* Is a held 0-ns slice of correlation v[0..vn), or none held? */
static int
heldcorr(const char *v, size_t vn)
{
	const char *p = held.p, *e = held.p + held.n, *t, *c;
	struct ltfield dur;
	size_t cn;
	int zero = 0;

	for (; p < e; p = t + 1) {
		t = memchr(p, '\n', (size_t)(e - p));
		column(p, (size_t)(t - p), 4, &dur);
		if (dur.n != 1 || dur.p[0] != '0')
			continue;
		zero = 1;
		if ((c = member(p, (size_t)(t - p), 7, "correlation", &cn)) !=
		    NULL && cn == vn && memcmp(c, v, vn) == 0)
			return 1;
	}
	return !zero;
}

/* Write what is held: all, or only the 0-ns slices or the others. */
static void
putheld(struct pssink *s, int which)
{
	const char *p = held.p, *e = held.p + held.n, *t;
	struct ltfield dur;
	int zero;

	for (; p < e; p = t + 1) {
		t = memchr(p, '\n', (size_t)(e - p));
		column(p, (size_t)(t - p), 4, &dur);
		zero = dur.n == 1 && dur.p[0] == '0';
		if (which < 0 || which == zero)
			lt_out_write(&s->out, p, (size_t)(t + 1 - p));
	}
}

void
ps_hold_flush(struct pssink *s)
{
	if (nheld > 0)
		putheld(s, -1);
	held.n = 0;
	nheld = 0;
}

/*
 * The record line p[0..n), with its newline, to the stream of s: held,
 * written, or written before the 0-ns slices held.
 */
void
ps_hold_put(struct pssink *s, const char *p, size_t n)
{
	struct ltfield ph, dur;
	const char *v;
	size_t vn;

	column(p, n - 1, 1, &ph);
	column(p, n - 1, 4, &dur);
	if (nheld > 0 && !samekey(p, n - 1))
		ps_hold_flush(s);
	if (ph.p[0] == 'X') {
		if (nheld == 0 && (key.n == 0 || !samekey(p, n - 1)))
			setkey(p, n - 1);
		if (dur.n != 1 || dur.p[0] != '0') {
			/* a slice that lasts: its correlation, for flows */
			if (ncorr < CORR && (v = member(p, n - 1, 7,
			    "correlation", &vn)) != NULL) {
				lt_buf_add(&corr, v, vn);
				lt_buf_addc(&corr, '\t');
				ncorr++;
			}
			if (nheld == 0) {
				lt_out_write(&s->out, p, n);
				return;
			}
		}
		if (nheld == HELD)
			ps_hold_flush(s);
		lt_buf_add(&held, p, n);
		nheld++;
		return;
	}
	if (ph.p[0] == 's' && nheld > 0 && (v = member(p, n - 1, 8, "id",
	    &vn)) != NULL && known(v, vn) && !heldcorr(v, vn)) {
		/* before the 0-ns slices, in order otherwise */
		putheld(s, 0);
		lt_out_write(&s->out, p, n);
		putheld(s, 1);
		held.n = 0;
		nheld = 0;
		s->n[PS_C_FLOWSMOVED]++;
		return;
	}
	ps_hold_flush(s);
	key.n = 0;
	lt_out_write(&s->out, p, n);
}

void
ps_hold_free(void)
{
	lt_buf_free(&held);
	lt_buf_free(&key);
	lt_buf_free(&corr);
	nheld = ncorr = 0;
}
