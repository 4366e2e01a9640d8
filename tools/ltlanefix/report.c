/* See LICENSE file for copyright and license details. */
/*
 * report.c: the report of ltlanefix(1), line for line that of
 * trace-lanefix: the tracks that needed lanes or snaps, the totals of
 * the changed slices, the changed kernels summed by name, the moved and
 * the snapped slices one by one, the flows rewritten.  It is gathered
 * while the slices are placed (what a slice was called is gone once it
 * is written) and written to standard error at the end.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

struct kernel {
	size_t		 name, len;	/* in knames */
	long long	 runs, moved, snapped;
	int64_t		 delayed, trimmed, shift, maxshift;
};

/* What a track adds to the report. */
struct trep {
	size_t		 hdr, hdrlen;	/* "pid=P tid=T", in text */
	uint32_t	 nmoved, nsnaps;	/* slices moved, snap steps */
	struct ltbuf	 moved, snapped;	/* its lines of the two lists */
};

struct report {
	char		 thr[64];	/* the threshold, as Python prints it */
	struct ltbuf	 text;
	struct trep	*tr;
	size_t		 ntr, captr;
	struct kernel	*kern;
	size_t		 nkern, capkern;
	long long	 kruns;
	struct ltmap	 kmap;
	struct ltbuf	 knames, name;
	int64_t		 tstart, tend;
	long long	 nm, ns;
};

static int64_t
sadd(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t
iabs(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* A time: "400ns" under 1 us, else "2.283us"; "0.000us" for none. */
static void
putF(struct ltbuf *b, int64_t ns)
{
	char num[LT_NUMBUF];
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	if (ns < 0)
		lt_buf_addc(b, '-');
	if (a > 0 && a < 1000) {
		lt_buf_add(b, num, lt_u64_fmt(num, a));
		lt_buf_adds(b, "ns");
		return;
	}
	lt_buf_add(b, num, lt_u64_fmt(num, a / 1000));
	snprintf(num, sizeof(num), ".%03u", (unsigned)(a % 1000));
	lt_buf_adds(b, num);
	lt_buf_adds(b, "us");
}

static void
putnum(struct ltbuf *b, long long v)
{
	char num[LT_NUMBUF];

	lt_buf_add(b, num, lt_i64_fmt(num, v));
}

struct report *
lf_rep_new(const char *thr)
{
	struct report *r = lt_calloc(1, sizeof(*r));

	snprintf(r->thr, sizeof(r->thr), "%s", thr);
	return r;
}

/* Track t begins, with the slice of columns f. */
void
lf_rep_track(struct report *r, size_t t, const struct ltfield *f)
{
	struct trep *tr;

	r->tr = lt_grow(r->tr, &r->captr, t + 1, sizeof(*r->tr));
	for (; r->ntr <= t; r->ntr++)
		memset(&r->tr[r->ntr], 0, sizeof(*r->tr));
	tr = &r->tr[t];
	tr->hdr = r->text.n;
	lt_buf_adds(&r->text, "  pid=");
	lf_show(&r->text, f, LT_PID);
	lt_buf_adds(&r->text, " tid=");
	lf_show(&r->text, f, LT_TID);
	tr->hdrlen = r->text.n - tr->hdr;
}

/* Slice x of track t is placed, changed or not. */
void
lf_rep_placed(struct report *r, size_t t, const struct lfslice *x)
{
	r->tr[t].nmoved += x->lane != 0;
	r->tr[t].nsnaps += x->snaps;
}

/* What happened to slice x of columns f, as trace-lanefix words it. */
static void
describe(struct ltbuf *b, const struct ltfield *f, const struct lfslice *x,
    const struct ids *ids, const struct lane *ln)
{
	int64_t ds = x->nts - x->ts, de = x->nend - x->end;
	size_t mark = b->n;
	const char *tid;

	if (ln != NULL) {
		lt_buf_adds(b, "moved to lane ");
		putnum(b, ln->k);
		lt_buf_adds(b, " (tid ");
		lf_show(b, f, LT_TID);
		lt_buf_adds(b, " -> ");
		tid = lf_text(ids, ln->tid);
		if (tid[0] == '"')
			lt_unesc(b, tid + 1, ln->tidlen - 2);
		else
			lt_buf_add(b, tid, ln->tidlen);
		lt_buf_addc(b, ')');
	}
	if (ds == de && ds != 0) {
		lt_buf_adds(b, b->n > mark ? ", shifted " : "shifted ");
		lt_buf_adds(b, ds > 0 ? "later by " : "earlier by ");
		putF(b, iabs(ds));
	} else {
		if (ds != 0) {
			lt_buf_adds(b, b->n > mark ? ", " : "");
			lt_buf_adds(b, ds > 0 ? "start delayed by " :
			    "start moved earlier by ");
			putF(b, iabs(ds));
		}
		if (de != 0) {
			lt_buf_adds(b, b->n > mark ? ", " : "");
			lt_buf_adds(b, de > 0 ? "end extended by " :
			    "end trimmed by ");
			putF(b, iabs(de));
		}
	}
	if (b->n == mark)
		lt_buf_adds(b, "timing unchanged");
}

/* "  NAME pid=P[ tid=T]: what happened" */
static void
listline(struct ltbuf *b, const struct ltfield *f, const struct lfslice *x,
    const struct ids *ids, const struct lane *ln, int withtid)
{
	lt_buf_adds(b, "  ");
	lf_show(b, f, LT_NAME);
	lt_buf_adds(b, " pid=");
	lf_show(b, f, LT_PID);
	if (withtid) {
		lt_buf_adds(b, " tid=");
		lf_show(b, f, LT_TID);
	}
	lt_buf_adds(b, ": ");
	describe(b, f, x, ids, ln);
	lt_buf_addc(b, '\n');
}

static int
nameeq(const void *arg, uint32_t v)
{
	const struct report *r = arg;
	const struct kernel *k = &r->kern[v];

	return k->len == r->name.n &&
	    memcmp(r->knames.p + k->name, r->name.p, k->len) == 0;
}

/* A changed kernel: summed with the others of its name. */
static void
addkernel(struct report *r, const struct ltfield *f, const struct lfslice *x)
{
	struct kernel *k;
	int64_t ds = x->nts - x->ts, de = x->nend - x->end, shift;
	uint32_t *v;
	int made;

	r->name.n = 0;
	lf_show(&r->name, f, LT_NAME);
	v = lt_map_get(&r->kmap, lt_hash(r->name.p, r->name.n), nameeq, r,
	    &made);
	if (made) {
		r->kern = lt_grow(r->kern, &r->capkern, r->nkern + 1,
		    sizeof(*r->kern));
		k = &r->kern[r->nkern];
		memset(k, 0, sizeof(*k));
		k->name = r->knames.n;
		k->len = r->name.n;
		lt_buf_add(&r->knames, r->name.p, r->name.n);
		*v = (uint32_t)r->nkern++;
	}
	k = &r->kern[*v];
	shift = sadd(iabs(ds), iabs(de));
	r->kruns++;
	k->runs++;
	k->moved += x->lane != 0;
	k->snapped += x->snaps != 0;
	k->delayed = sadd(k->delayed, ds > 0 ? ds : 0);
	k->trimmed = sadd(k->trimmed, de < 0 ? iabs(de) : 0);
	k->shift = sadd(k->shift, shift);
	if (shift > k->maxshift)
		k->maxshift = shift;
}

/* A changed slice x of track t, of columns f, on lane ln. */
void
lf_rep_slice(struct report *r, size_t t, const struct ltfield *f,
    const struct lfslice *x, const struct ids *ids, const struct lane *ln)
{
	r->tstart = sadd(r->tstart, iabs(x->nts - x->ts));
	r->tend = sadd(r->tend, iabs(x->nend - x->end));
	if (LT_IS(f[LT_CAT], "kernel")) {
		addkernel(r, f, x);
		return;
	}
	if (x->lane != 0) {
		r->nm++;
		listline(&r->tr[t].moved, f, x, ids, ln, 0);
	}
	if (x->snaps != 0) {
		r->ns++;
		listline(&r->tr[t].snapped, f, x, ids, ln, 1);
	}
}

static int
namecmp(const struct report *r, const struct kernel *x,
    const struct kernel *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(r->knames.p + x->name, r->knames.p + y->name, n);

	return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

static const struct report *sorting;

#define DESC(a, b)	do { if ((a) != (b)) return (a) > (b) ? -1 : 1; } \
			    while (0)

/* Most shifted first, then most runs, moved, snapped, then by name. */
static int
kernelcmp(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;

	DESC(x->shift, y->shift);
	DESC(x->runs, y->runs);
	DESC(x->moved, y->moved);
	DESC(x->snapped, y->snapped);
	DESC(x->maxshift, y->maxshift);
	return namecmp(sorting, x, y);
}

/* Changed kernels, one line per name. */
static void
kernels(struct report *r, struct ltbuf *b)
{
	const struct kernel *g;
	size_t i;

	sorting = r;
	qsort(r->kern, r->nkern, sizeof(*r->kern), kernelcmp);
	lt_buf_adds(b, "kernel timing summary (");
	putnum(b, r->kruns);
	lt_buf_adds(b, " run(s) across ");
	putnum(b, (long long)r->nkern);
	lt_buf_adds(b, " kernel name(s)):\n");
	for (i = 0; i < r->nkern; i++) {
		g = &r->kern[i];
		lt_buf_adds(b, "  ");
		lt_buf_add(b, r->knames.p + g->name, g->len);
		lt_buf_adds(b, ": runs=");
		putnum(b, g->runs);
		lt_buf_adds(b, ", total delayed=");
		putF(b, g->delayed);
		lt_buf_adds(b, ", total trimmed=");
		putF(b, g->trimmed);
		lt_buf_adds(b, ", total boundary shift=");
		putF(b, g->shift);
		lt_buf_adds(b, ", moved=");
		putnum(b, g->moved);
		lt_buf_adds(b, ", snapped=");
		putnum(b, g->snapped);
		lt_buf_addc(b, '\n');
	}
}

/* One of the lists, the lines of every track in track order. */
static void
list(struct ltbuf *b, const struct report *r, const char *title,
    long long n, int snapped)
{
	size_t t;

	if (n == 0)
		return;
	lt_buf_adds(b, title);
	putnum(b, n);
	lt_buf_adds(b, "):\n");
	for (t = 0; t < r->ntr; t++)
		if (snapped)
			lt_buf_add(b, r->tr[t].snapped.p, r->tr[t].snapped.n);
		else
			lt_buf_add(b, r->tr[t].moved.p, r->tr[t].moved.n);
}

/*
 * The tracks, then the snap count, what a stream placed as it goes could
 * not place in order (never in trace-lanefix's report, for it holds
 * the whole trace), the changes, the flows.
 */
static void
make(struct report *r, struct ltbuf *b, const struct track *tracks,
    size_t ntr, const long long *n)
{
	const struct track *tr;
	size_t t;

	lt_buf_adds(b, "processing ");
	putnum(b, (long long)ntr);
	lt_buf_adds(b, " track(s)\n");
	for (t = 0; t < ntr; t++) {
		tr = &tracks[t];
		if (lf_nlane(tr) == 0 && r->tr[t].nsnaps == 0)
			continue;
		lt_buf_add(b, r->text.p + r->tr[t].hdr, r->tr[t].hdrlen);
		lt_buf_adds(b, ": ");
		putnum(b, (long long)lf_nlane(tr) + 1);
		lt_buf_adds(b, " lane(s), ");
		putnum(b, r->tr[t].nmoved);
		lt_buf_adds(b, " slice(s) moved, ");
		putnum(b, r->tr[t].nsnaps);
		lt_buf_adds(b, " snapped\n");
	}
	lt_buf_adds(b, "snapped ");
	putnum(b, n[LF_RSNAPS]);
	lt_buf_adds(b, " sub-");
	lt_buf_adds(b, r->thr);
	lt_buf_adds(b, "us crossing(s)\n");
	if (n[LF_RLATE] + n[LF_RLATEF] > 0) {
		lt_buf_adds(b, "came too late to be placed in order: ");
		putnum(b, n[LF_RLATE]);
		lt_buf_adds(b, " slice(s), on lanes of their own, ");
		putnum(b, n[LF_RLATEF]);
		lt_buf_adds(b, " flow(s), left as they were\n");
	}
	if (n[LF_RRENAMED] > 0) {
		lt_buf_adds(b, "renamed ");
		putnum(b, n[LF_RRENAMED]);
		lt_buf_adds(b, " thread(s) whose tid a lane took before they "
		    "came\n");
	}
	if (n[LF_RCHANGED] > 0) {
		lt_buf_adds(b, "updated ");
		putnum(b, n[LF_RCHANGED]);
		lt_buf_adds(b, " slice(s): total |start shift|=");
		putF(b, r->tstart);
		lt_buf_adds(b, ", total |end shift|=");
		putF(b, r->tend);
		lt_buf_adds(b, ", total |boundary shift|=");
		putF(b, sadd(r->tstart, r->tend));
		lt_buf_addc(b, '\n');
		if (r->nkern > 0)
			kernels(r, b);
		list(b, r, "moved slices (", r->nm, 0);
		list(b, r, "snapped slices (", r->ns, 1);
	}
	lt_buf_adds(b, "rewrote ");
	putnum(b, n[LF_RFLOWS]);
	lt_buf_adds(b, " flow endpoint(s) onto rewritten slice "
	    "starts/lanes\n");
}

/* The report on standard error; n[] the counts LF_R... */
void
lf_rep_write(struct report *r, const struct track *tracks, size_t ntr,
    const long long *n)
{
	struct ltbuf b = { NULL, 0, 0 };
	struct ltout err;

	make(r, &b, tracks, ntr, n);
	lt_out_init(&err, 2, "<stderr>");
	lt_out_write(&err, b.p, b.n);
	lt_out_flush(&err);
	free(err.buf);
	lt_buf_free(&b);
}

void
lf_rep_free(struct report *r)
{
	size_t t;

	if (r == NULL)
		return;
	for (t = 0; t < r->ntr; t++) {
		lt_buf_free(&r->tr[t].moved);
		lt_buf_free(&r->tr[t].snapped);
	}
	free(r->tr);
	free(r->kern);
	lt_map_free(&r->kmap);
	lt_buf_free(&r->text);
	lt_buf_free(&r->knames);
	lt_buf_free(&r->name);
	free(r);
}
