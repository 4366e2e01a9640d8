/* See LICENSE file for copyright and license details. */
/*
 * split.c: the output of -k.  The records come here in the stream's
 * order, each with where it sorts, and are written out at the end in
 * that order (see writesplit in whole.c for the order).  Up to RUNMEM
 * bytes of them are held and sorted; a longer stream goes run by run,
 * sorted, to a temporary file in $TMPDIR (or /tmp), removed as soon as
 * it is made, and the runs are merged at the end, FANIN at a time: so
 * memory stays bounded however long the stream.  If no file can be
 * made (which is said), the records stay in memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltlanefix.h"

#define RUNMEM	(4 << 20)	/* bytes of records sorted at a time, as
				   LT_SORT_MEM says */
#define FANIN	256		/* runs merged at a time */
#define RDBUF	(8 << 10)	/* bytes read at a time from each */
#define HDR	30		/* a record's key and length in the file */

struct item {
	int64_t		 ts, sub;	/* see lf_split_put */
	uint64_t	 seq;
	size_t		 off, n;	/* its bytes */
	uint8_t		 cls, end;
};

/* A run in the file, and what of it is read. */
struct run {
	uint64_t	 at, end;
	char		*buf;
	size_t		 cap, lo, hi;
	struct item	 it;		/* the record read last, in buf */
};

static size_t		 runmem;
static struct ltout	 mem;		/* the bytes of the run being made */
static struct item	*items;
static size_t		 nitems, capitems;
static unsigned long long ntotal;
static int		 fd = -1, nofile;
static char		 fname[4200];	/* the file, for messages */
static struct ltout	 file;
static uint64_t		 fend;		/* bytes in the file */
static struct run	*runs;
static size_t		 nruns, capruns;

static int
keycmp(const struct item *x, const struct item *y)
{
	if ((x->cls == LF_KHEAD) != (y->cls == LF_KHEAD))
		return x->cls == LF_KHEAD ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->seq != y->seq)	/* an end: the later slice is inside */
		return (x->seq < y->seq) == (x->cls == LF_KEND) ? 1 : -1;
	return (int)x->end - (int)y->end;
}

static int
itemcmp(const void *a, const void *b)
{
	return keycmp(a, b);
}

/* The lengths of the records held, and them sorted. */
static void
sortrun(void)
{
	size_t i;

	for (i = 0; i < nitems; i++)
		items[i].n = (i + 1 < nitems ? items[i + 1].off : mem.n) -
		    items[i].off;
	qsort(items, nitems, sizeof(*items), itemcmp);
}

/* Record it, of bytes p, to o: in the file's form, or as it is. */
static void
put(struct ltout *o, const struct item *it, const char *p, int keyed)
{
	char h[HDR];
	uint32_t n = (uint32_t)it->n;

	if (keyed) {
		if (it->n > UINT32_MAX)
			lt_die(LT_EXIT_SYS, "a record of %zu bytes: too long",
			    it->n);
		memcpy(h, &it->ts, 8);
		memcpy(h + 8, &it->sub, 8);
		memcpy(h + 16, &it->seq, 8);
		memcpy(h + 24, &n, 4);
		h[28] = (char)it->cls;
		h[29] = (char)it->end;
		lt_out_write(o, h, HDR);
		fend += HDR + it->n;
	}
	lt_out_write(o, p, it->n);
}

/* A new run at the end of the file: as it grows from here. */
static struct run *
newrun(void)
{
	struct run *r;

	runs = lt_grow(runs, &capruns, nruns + 1, sizeof(*runs));
	r = &runs[nruns++];
	memset(r, 0, sizeof(*r));
	r->at = fend;
	return r;
}

/* The records held to the file, sorted, as a run; 0: no file. */
static int
spill(void)
{
	const char *dir, *why;
	struct run *r;
	size_t i;

	if (nofile)
		return 0;
	if (fd < 0) {
		if ((fd = lt_tmp_open("ltlanefix", &dir, &why)) < 0) {
			lt_warn("cannot make a temporary file in %s%s: %s; "
			    "the stream is held in memory to be sorted", dir,
			    why, strerror(errno));
			nofile = 1;
			return 0;
		}
		snprintf(fname, sizeof(fname), "a temporary file in %s%s",
		    dir, why);
		lt_out_init(&file, fd, fname);
	}
	sortrun();
	r = newrun();
	for (i = 0; i < nitems; i++)
		put(&file, &items[i], mem.buf + items[i].off, 1);
	r->end = fend;
	mem.n = nitems = 0;
	return 1;
}

/*
 * A record to come, written to the output returned (one or more
 * lines): where it sorts.  cls LF_KHEAD: before all others, by seq;
 * else by ts, then cls, then sub, then seq (for LF_KEND, the larger
 * first), then end.
 */
struct ltout *
lf_split_put(int cls, int64_t ts, int64_t sub, uint64_t seq, int end)
{
	struct item *it;
	const char *e, *why;

	if (runmem == 0) {
		runmem = RUNMEM;
		if ((e = getenv("LT_SORT_MEM")) != NULL && *e != '\0' &&
		    (runmem = (size_t)lt_strtonum(e, 1, (long long)1 << 40,
		    &why)) == 0)
			lt_die(LT_EXIT_SYS, "LT_SORT_MEM=%s: %s (1 to 2^40 "
			    "bytes)", e, why);
	}
	if (mem.buf == NULL)
		lt_out_mem(&mem);
	if (mem.n >= runmem)
		spill();
	items = lt_grow(items, &capitems, nitems + 1, sizeof(*items));
	it = &items[nitems++];
	it->ts = ts;
	it->sub = sub;
	it->seq = seq;
	it->off = mem.n;
	it->cls = (uint8_t)cls;
	it->end = (uint8_t)end;
	ntotal++;
	return &mem;
}

/*
 * Slice x of columns f, on lane ln, as its B and E records: at one ts,
 * the ends inner first, the begins outer first, a zero-length slice B
 * then E among the others in stream order.
 */
void
lf_split_slice(struct lf *lf, const struct ltfield *f,
    const struct lfslice *x, const struct lane *ln, uint64_t seq)
{
	int pt = x->nend == x->nts;

	lf_putbe(lf_split_put(pt ? LF_KPOINT : LF_KBEGIN, x->nts,
	    pt ? 0 : -x->nend, seq, 0), f, x, &lf->ids, ln, 0);
	lf_putbe(lf_split_put(pt ? LF_KPOINT : LF_KEND, x->nend,
	    pt ? 0 : -x->nts, seq, 1), f, x, &lf->ids, ln, 1);
	lf->nsplit++;
}

/*
 * Line p[0..n) of the stream, neither slice nor flow: by its ts, or
 * first if it has none (a directive, an M record).
 */
struct ltout *
lf_split_line(char *p, size_t n, uint64_t seq)
{
	struct ltfield f[LT_NCOL];
	int64_t ts;

	if (n > 0 && p[0] != '#') {
		lf_cols(p, n, f);
		if (lt_us_parse(f[LT_TS].p, f[LT_TS].n, &ts) == LT_NUM_OK)
			return lf_split_put(LF_KOTHER, ts, 0, seq, 0);
	}
	return lf_split_put(LF_KHEAD, 0, 0, seq, 0);
}

/* Let go of the records held. */
static void
letgo(void)
{
	free(mem.buf);
	free(items);
	memset(&mem, 0, sizeof(mem));
	items = NULL;
	nitems = capitems = 0;
}

/* Make room for n bytes of run r in its buffer, reading ahead. */
static void
fill(struct run *r, size_t n)
{
	size_t want;
	ssize_t got;

	if (r->hi - r->lo >= n)
		return;
	memmove(r->buf, r->buf + r->lo, r->hi - r->lo);
	r->hi -= r->lo;
	r->lo = 0;
	if (n > r->cap) {
		r->buf = lt_reallocarray(r->buf, n, 1);
		r->cap = n;
	}
	while (r->hi < n) {
		want = r->cap - r->hi;
		if (want > r->end - r->at)
			want = (size_t)(r->end - r->at);
		if (want == 0)
			lt_die(LT_EXIT_SYS, "%s: cut short", fname);
		got = pread(fd, r->buf + r->hi, want, (off_t)r->at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			lt_die(LT_EXIT_SYS, "%s: %s", fname, got < 0 ?
			    strerror(errno) : "cut short");
		r->hi += (size_t)got;
		r->at += (uint64_t)got;
	}
}

/* The next record of run r, in r->it; 0 at its end. */
static int
next(struct run *r)
{
	const char *h;
	uint32_t n;

	if (r->lo == r->hi && r->at == r->end)
		return 0;
	fill(r, HDR);
	h = r->buf + r->lo;
	memcpy(&r->it.ts, h, 8);
	memcpy(&r->it.sub, h + 8, 8);
	memcpy(&r->it.seq, h + 16, 8);
	memcpy(&n, h + 24, 4);
	r->it.cls = (uint8_t)h[28];
	r->it.end = (uint8_t)h[29];
	r->it.n = n;
	fill(r, HDR + (size_t)n);
	r->it.off = r->lo + HDR;
	r->lo += HDR + (size_t)n;
	return 1;
}

/* Heap of runs by their records, smallest on top. */
static int
runless(struct run **h, size_t a, size_t b)
{
	return keycmp(&h[a]->it, &h[b]->it) < 0;
}

static void
down(struct run **h, size_t n, size_t i)
{
	struct run *t;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && runless(h, c + 1, c))
			c++;
		if (!runless(h, c, i))
			break;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/*
 * Runs rs[0..k) merged to o, in the file's form (keyed) or as they are;
 * done counts the records for the progress line.
 */
static void
merge(struct lf *lf, struct run *rs, size_t k, struct ltout *o, int keyed,
    long long *done)
{
	struct run *h[FANIN];
	size_t i, n = 0;

	lt_out_flush(&file);
	for (i = 0; i < k; i++) {
		rs[i].cap = RDBUF;
		rs[i].buf = lt_malloc(RDBUF);
		rs[i].lo = rs[i].hi = 0;
		if (next(&rs[i]))
			h[n++] = &rs[i];
	}
	for (i = n / 2; i-- > 0;)
		down(h, n, i);
	while (n > 0) {
		if ((++*done & 4095) == 0)
			lt_prog_at(&lf->prog, *done);
		put(o, &h[0]->it, h[0]->buf + h[0]->it.off, keyed);
		if (!next(h[0])) {
			free(h[0]->buf);
			h[0]->buf = NULL;
			h[0] = h[--n];
		}
		down(h, n, 0);
	}
}

/*
 * Every record given, sorted, to lf's output; done records were done
 * before (the progress line goes on from there).
 */
void
lf_split_write(struct lf *lf, long long done)
{
	size_t i, k, n, pass, npass = 0;

	if (nruns == 0) {
		/* All held: sorted in memory. */
		sortrun();
		lf->prog.total = done + (long long)nitems;
		for (i = 0; i < nitems; i++) {
			if ((i & 4095) == 0)
				lt_prog_at(&lf->prog, done + (long long)i);
			put(&lf->out, &items[i], mem.buf + items[i].off, 0);
		}
		return;
	}
	spill();
	for (n = nruns; n > FANIN; n = (n + FANIN - 1) / FANIN)
		npass++;
	lf->prog.total = done + (long long)(ntotal * (npass + 1));
	/* What was held goes: reading back takes its place. */
	letgo();
	for (pass = 0; pass < npass; pass++) {
		/* The runs of this pass, FANIN at a time, into fewer. */
		n = nruns;
		for (i = 0; i < n; i += k) {
			k = n - i < FANIN ? n - i : FANIN;
			newrun();
			merge(lf, runs + i, k, &file, 1, &done);
			runs[nruns - 1].end = fend;
		}
		memmove(runs, runs + n, (nruns - n) * sizeof(*runs));
		nruns -= n;
	}
	merge(lf, runs, nruns, &lf->out, 0, &done);
}

/* Let go of everything (again: a no-op). */
void
lf_split_free(void)
{
	size_t i;

	letgo();
	for (i = 0; i < nruns; i++)
		free(runs[i].buf);
	free(runs);
	runs = NULL;
	nruns = capruns = 0;
	if (fd >= 0)
		lt_out_close(&file);
	fd = -1;
	ntotal = fend = 0;
}
