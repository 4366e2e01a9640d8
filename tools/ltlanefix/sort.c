/* See LICENSE file for copyright and license details. */
/*
 * sort.c: records sorted by a key, as many as come.  Up to LT_SORT_MEM
 * bytes of them (4 MiB) are held and sorted in memory; beyond, the
 * records go run by run, sorted, to a temporary file in $TMPDIR (or
 * /tmp), removed as soon as it is made, and the runs are merged at the
 * end, FANIN at a time: so memory stays bounded however many come.  If
 * no file can be made (which is said), the records stay in memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ltlanefix.h"

#define RUNMEM	(4 << 20)	/* bytes of records sorted at a time */
#define FANIN	256		/* runs merged at a time */
#define RDBUF	(8 << 10)	/* bytes read at a time from each */
#define HDR	34		/* a record's key and length in the file */

struct item {
	struct lfskey	 k;
	size_t		 off, n;	/* its bytes */
};

/* A run in the file, and what of it is read. */
struct run {
	uint64_t	 at, end;
	char		*buf;
	size_t		 cap, lo, hi;
	struct item	 it;		/* the record read last, in buf */
};

struct lfsort {
	lfkeycmp	 cmp;
	const char	*what;		/* what is held, for a message */
	struct ltout	 mem;		/* the bytes of the run being made */
	struct item	*items;
	size_t		 nitems, capitems;
	unsigned long long ntotal;
	int		 fd, nofile;
	char		 fname[4200];	/* the file, for messages */
	struct ltout	 file;
	uint64_t	 fend;		/* bytes in the file */
	struct run	*runs;
	size_t		 nruns, capruns;
};

static size_t		 runmem;
static lfkeycmp		 sorting;	/* qsort's */

/* Keys by ts, then cls, then sub: what the orders of sorters share. */
int
lf_sort_tcs(const struct lfskey *x, const struct lfskey *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return 0;
}

static int
itemcmp(const void *a, const void *b)
{
	return sorting(&((const struct item *)a)->k,
	    &((const struct item *)b)->k);
}

/*
 * A sorter by cmp, of records that are what (for the message when no
 * temporary file can be made: "the stream is held in memory").
 */
struct lfsort *
lf_sort_new(lfkeycmp cmp, const char *what)
{
	struct lfsort *s;

	if (runmem == 0)
		runmem = lt_env_bytes("LT_SORT_MEM", RUNMEM);
	s = lt_calloc(1, sizeof(*s));
	s->cmp = cmp;
	s->what = what;
	s->fd = -1;
	lt_out_mem(&s->mem);
	return s;
}

/* The lengths of the records held, and them sorted. */
static void
sortrun(struct lfsort *s)
{
	struct item *it = s->items;
	size_t i, n = s->nitems;

	for (i = 0; i < n; i++)
		it[i].n = (i + 1 < n ? it[i + 1].off : s->mem.n) - it[i].off;
	sorting = s->cmp;
	qsort(it, n, sizeof(*it), itemcmp);
}

/* Record it, of bytes p, to the file. */
static void
put(struct lfsort *s, const struct item *it, const char *p)
{
	char h[HDR];
	uint32_t n = (uint32_t)it->n;

	if (it->n > UINT32_MAX)
		lt_die(LT_EXIT_SYS, "a record of %zu bytes: too long", it->n);
	memcpy(h, &it->k.ts, 8);
	memcpy(h + 8, &it->k.sub, 8);
	memcpy(h + 16, &it->k.seq, 8);
	memcpy(h + 24, &it->k.grp, 4);
	memcpy(h + 28, &n, 4);
	h[32] = (char)it->k.cls;
	h[33] = (char)it->k.end;
	lt_out_write(&s->file, h, HDR);
	lt_out_write(&s->file, p, it->n);
	s->fend += HDR + it->n;
}

/* A new run at the end of the file: as it grows from here. */
static void
newrun(struct lfsort *s)
{
	struct run *r;

	s->runs = lt_grow(s->runs, &s->capruns, s->nruns + 1,
	    sizeof(*s->runs));
	r = &s->runs[s->nruns++];
	memset(r, 0, sizeof(*r));
	r->at = r->end = s->fend;
}

/* The records held to the file, sorted, as a run. */
static void
spill(struct lfsort *s)
{
	const char *dir, *why;
	size_t i;

	if (s->nofile)
		return;
	if (s->fd < 0) {
		if ((s->fd = lt_tmp_open("ltlanefix", &dir, &why)) < 0) {
			lt_warn("cannot make a temporary file in %s%s: %s; "
			    "%s held in memory to be sorted", dir, why,
			    strerror(errno), s->what);
			s->nofile = 1;
			return;
		}
		snprintf(s->fname, sizeof(s->fname), "a temporary file in "
		    "%s%s", dir, why);
		lt_out_init(&s->file, s->fd, s->fname);
	}
	sortrun(s);
	newrun(s);
	for (i = 0; i < s->nitems; i++)
		put(s, &s->items[i], s->mem.buf + s->items[i].off);
	s->runs[s->nruns - 1].end = s->fend;
	s->mem.n = s->nitems = 0;
}

/* A record of this key to come: its bytes to the output returned. */
struct ltout *
lf_sort_put(struct lfsort *s, uint32_t grp, int cls, int64_t ts,
    int64_t sub, uint64_t seq, int end)
{
	struct item *it;

	if (s->mem.n >= runmem)
		spill(s);
	s->items = lt_grow(s->items, &s->capitems, s->nitems + 1,
	    sizeof(*s->items));
	it = &s->items[s->nitems++];
	memset(&it->k, 0, sizeof(it->k));
	it->k.grp = grp;
	it->k.cls = (uint8_t)cls;
	it->k.ts = ts;
	it->k.sub = sub;
	it->k.seq = seq;
	it->k.end = (uint8_t)end;
	it->off = s->mem.n;
	s->ntotal++;
	return &s->mem;
}

/* Make room for n bytes of run r in its buffer, reading ahead. */
static void
fill(struct lfsort *s, struct run *r, size_t n)
{
	size_t want;
	int got;

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
		if (want == 0 || (got = lt_pread_all(s->fd, r->buf + r->hi,
		    want, (off_t)r->at)) == 0)
			lt_die(LT_EXIT_SYS, "%s: cut short", s->fname);
		if (got < 0)
			lt_die(LT_EXIT_SYS, "%s: %s", s->fname,
			    strerror(errno));
		r->hi += want;
		r->at += want;
	}
}

/* The next record of run r, in r->it; 0 at its end. */
static int
next(struct lfsort *s, struct run *r)
{
	const char *h;
	uint32_t n;

	if (r->lo == r->hi && r->at == r->end)
		return 0;
	fill(s, r, HDR);
	h = r->buf + r->lo;
	memcpy(&r->it.k.ts, h, 8);
	memcpy(&r->it.k.sub, h + 8, 8);
	memcpy(&r->it.k.seq, h + 16, 8);
	memcpy(&r->it.k.grp, h + 24, 4);
	memcpy(&n, h + 28, 4);
	r->it.k.cls = (uint8_t)h[32];
	r->it.k.end = (uint8_t)h[33];
	r->it.n = n;
	fill(s, r, HDR + (size_t)n);
	r->it.off = r->lo + HDR;
	r->lo += HDR + (size_t)n;
	return 1;
}

/* Heap of runs by their records, smallest on top. */
static void
down(lfkeycmp cmp, struct run **h, size_t n, size_t i)
{
	struct run *t;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && cmp(&h[c + 1]->it.k, &h[c]->it.k) < 0)
			c++;
		if (cmp(&h[c]->it.k, &h[i]->it.k) >= 0)
			break;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

struct each {
	lfeach		 fn;		/* NULL: to a new run */
	void		*arg;
	struct ltprog	*prog;
	long long	 done;
};

/* Runs rs[0..k) merged, each record to e (see lf_sort_each). */
static void
merge(struct lfsort *s, struct run *rs, size_t k, struct each *e)
{
	struct run *h[FANIN], *r;
	size_t i, n = 0;

	lt_out_flush(&s->file);
	for (i = 0; i < k; i++) {
		rs[i].cap = RDBUF;
		rs[i].buf = lt_malloc(RDBUF);
		rs[i].lo = rs[i].hi = 0;
		if (next(s, &rs[i]))
			h[n++] = &rs[i];
	}
	for (i = n / 2; i-- > 0;)
		down(s->cmp, h, n, i);
	while (n > 0) {
		if ((++e->done & 4095) == 0 && e->prog != NULL)
			lt_prog_at(e->prog, e->done);
		r = h[0];
		if (e->fn != NULL)
			e->fn(e->arg, &r->it.k, r->buf + r->it.off, r->it.n);
		else
			put(s, &r->it, r->buf + r->it.off);
		if (!next(s, r)) {
			free(r->buf);
			r->buf = NULL;
			h[0] = h[--n];
		}
		down(s->cmp, h, n, 0);
	}
}

/* Let go of the records held. */
static void
letgo(struct lfsort *s)
{
	free(s->mem.buf);
	free(s->items);
	memset(&s->mem, 0, sizeof(s->mem));
	s->items = NULL;
	s->nitems = s->capitems = 0;
}

/*
 * Every record given, in order, to fn(arg, key, bytes, length), once;
 * prog, if not NULL, shows them done, after done others.
 */
void
lf_sort_each(struct lfsort *s, lfeach fn, void *arg, struct ltprog *prog,
    long long done)
{
	struct each e = { NULL, NULL, prog, done };
	size_t i, k, n, pass, npass = 0;
	struct item *it;

	if (s->nruns == 0) {
		/* All held: sorted in memory. */
		sortrun(s);
		if (prog != NULL)
			prog->total = done + (long long)s->nitems;
		for (i = 0; i < s->nitems; i++) {
			if ((i & 4095) == 0 && prog != NULL)
				lt_prog_at(prog, done + (long long)i);
			it = &s->items[i];
			fn(arg, &it->k, s->mem.buf + it->off, it->n);
		}
		return;
	}
	spill(s);
	letgo(s);
	for (n = s->nruns; n > FANIN; n = (n + FANIN - 1) / FANIN)
		npass++;
	if (prog != NULL)
		prog->total = done + (long long)(s->ntotal * (npass + 1));
	for (pass = 0; pass < npass; pass++) {
		/* The runs of this pass, FANIN at a time, into fewer. */
		n = s->nruns;
		for (i = 0; i < n; i += k) {
			k = n - i < FANIN ? n - i : FANIN;
			newrun(s);
			merge(s, s->runs + i, k, &e);
			s->runs[s->nruns - 1].end = s->fend;
		}
		memmove(s->runs, s->runs + n, (s->nruns - n) *
		    sizeof(*s->runs));
		s->nruns -= n;
	}
	e.fn = fn;
	e.arg = arg;
	merge(s, s->runs, s->nruns, &e);
}

/* Let go of s (NULL: none). */
void
lf_sort_free(struct lfsort *s)
{
	size_t i;

	if (s == NULL)
		return;
	letgo(s);
	for (i = 0; i < s->nruns; i++)
		free(s->runs[i].buf);
	free(s->runs);
	if (s->fd >= 0)
		lt_out_close(&s->file);
	free(s);
}
