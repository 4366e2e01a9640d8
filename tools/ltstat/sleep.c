/* See LICENSE file for copyright and license details. */
/*
 * sleep.c: a process left alone a while sleeps.  A long job has
 * thousands of worker processes, and each ends holding a few chunks in
 * its table and a few changes of its counters that wait for the end of
 * the stream (ctr.c): its pio, these and the figures of the report
 * included, is packed, and goes, and so do its threads and its pext,
 * unless it is a rank's main process (its main thread is kept): what
 * stays of a worker that ended is its struct proc.  What is packed goes
 * to common/cold.c, by the process's number: in memory up to COLDMEM
 * bytes, beyond in a temporary file.  Whatever uses it wakes the
 * process first (st_warm; st_proc, for a record of it), as it was: slot
 * for slot, entry for entry, so that nothing it writes changes; the
 * report reads its figures where they are (st_fig).
 */
#include <stdlib.h>

#include "ltstat.h"
#include "cold.h"
#include "pb.h"

#define COLDMEM		(1 << 16)	/* bytes packed kept in memory */

/*
 * What cold.c keeps of a process, by its seq, in one piece: its threads
 * packed (thrpk), then its pio packed (packed), either or both.
 */
enum { COLDPROC };

/*
 * A process of more threads keeps them: a thread named while asleep is
 * looked for among them.
 */
#define THRPACK		64

static struct ltbuf	 packed;
static struct thr	**byno;		/* a process's threads, by no */
static size_t		 capbyno;

/* A span's thread is its number in the process, plus 1; 0 none. */
static void
putspan(const struct span *s)
{
	pb_zigzag(&packed, s->ts);
	pb_zigzag(&packed, s->dur);
	pb_varint(&packed, s->t != NULL ? (uint64_t)s->t->no + 1 : 0);
}

static void
takespan(const char **q, struct span *s)
{
	uint64_t no;

	s->ts = pb_takezigzag(q);
	s->dur = pb_takezigzag(q);
	s->t = (no = pb_takevarint(q)) != 0 ? byno[no - 1] : NULL;
}

/* byno: p's threads. */
static void
number(const struct proc *p)
{
	struct thr *t;

	byno = lt_grow(byno, &capbyno, p->nthr, sizeof(*byno));
	for (t = p->x->lastt; t != NULL; t = t->sib)
		byno[t->no] = t;
}

/*
 * p's node and dlhi, 8 bytes each (the node to be set there: st_nodeset),
 * then its threads, first to last (each: its tid, then its name and its
 * sort index, 4 bytes each, to be set there: st_thrset), packed before
 * its pio, if that is packed, and out of the table, its pext with them.
 */
static void
sleepthr(struct proc *p)
{
	const struct thr *t;
	size_t i, n, off = (size_t)p->h.keyn + 1;
	char *pk;

	packed.n = 0;
	number(p);
	lt_buf_add(&packed, &p->x->node, 8);
	lt_buf_add(&packed, &p->x->dlhi, 8);
	for (i = 0; i < p->nthr; i++) {
		t = byno[i];
		pb_varint(&packed, t->h.keyn - off);
		lt_buf_add(&packed, lt_id_key(&t->h) + off, t->h.keyn - off);
		lt_buf_add(&packed, &t->name, 4);
		lt_buf_add(&packed, &t->sort, 4);
	}
	if (p->packed) {
		pk = lt_cold_take(COLDPROC, p->seq, &n);
		lt_buf_add(&packed, pk, n);
		free(pk);
	}
	lt_cold_put(COLDPROC, p->seq, packed.p, packed.n);
	p->thrpk = 1;
	for (i = 0; i < p->nthr; i++) {
		if (ST.lastthr == byno[i])
			ST.lastthr = NULL;
		lt_id_del(&ST.thrs, byno[i]);
	}
	free(p->x);
	p->x = NULL;
}

/* Past what is packed of p's threads (thrpk), from its start q. */
static const char *
skipthr(const struct proc *p, const char *q)
{
	uint32_t i;
	size_t n;

	q += 16;
	for (i = 0; i < p->nthr; i++) {
		n = pb_takevarint(&q);
		q += n + 8;
	}
	return q;
}

/*
 * Where tid's name and sort index are in what is packed of p's threads,
 * when it is one of them, asleep; else -1.
 */
long
st_thrfind(const struct proc *p, const struct ltfield *tid)
{
	const char *pk = lt_cold_peek(COLDPROC, p->seq), *q = pk;
	uint32_t i;
	size_t n;

	q += 16;
	for (i = 0; i < p->nthr; i++) {
		n = pb_takevarint(&q);
		if (n == tid->n && memcmp(q, tid->p, n) == 0)
			return q + n - pk;
		q += n + 8;
	}
	return -1;
}

/* x, 4 bytes, at where st_thrfind said, in what is packed of p's threads. */
void
st_thrset(const struct proc *p, long at, uint32_t x)
{
	size_t n;
	char *pk = lt_cold_take(COLDPROC, p->seq, &n);

	memcpy(pk + at, &x, 4);
	lt_cold_put(COLDPROC, p->seq, pk, n);
	free(pk);
}

/* The node of p, its threads asleep, where they are packed. */
void
st_nodeset(const struct proc *p, long long node)
{
	size_t n;
	char *pk = lt_cold_take(COLDPROC, p->seq, &n);

	memcpy(pk, &node, 8);
	lt_cold_put(COLDPROC, p->seq, pk, n);
	free(pk);
}

/*
 * ... and back, as they were (numbers included), where they are now; its
 * pio, if it is packed, stays so.
 */
void
st_wakethr(struct proc *p)
{
	size_t pkn;
	char *pk = lt_cold_take(COLDPROC, p->seq, &pkn);
	const char *q = pk;
	struct ltfield pid, tid;
	struct thr *t;
	uint32_t i, n = p->nthr;
	long long node;
	int64_t dlhi;

	memcpy(&node, q, 8);
	memcpy(&dlhi, q + 8, 8);
	q += 16;
	pid.p = lt_id_key(&p->h) + 1;
	pid.n = p->h.keyn - 1;
	p->nthr = 0;
	for (i = 0; i < n; i++) {
		tid.n = pb_takevarint(&q);
		tid.p = (char *)(uintptr_t)q;
		q += tid.n;
		t = st_thr(p, &pid, &tid);
		memcpy(&t->name, q, 4);
		memcpy(&t->sort, q + 4, 4);
		q += 8;
	}
	st_ext(p)->node = node;
	p->x->dlhi = dlhi;
	if (p->packed)
		lt_cold_put(COLDPROC, p->seq, q, pkn - (size_t)(q - pk));
	free(pk);
	p->thrpk = 0;
}

/* The figures of a worker, first in its pack (st_fig reads them). */
static void
putfig(const struct fig *f)
{
	pb_zigzag(&packed, f->ndl);
	pb_zigzag(&packed, f->nrd);
	pb_zigzag(&packed, f->ndel);
	pb_zigzag(&packed, f->dlsum);
	pb_zigzag(&packed, f->rdsum);
	pb_zigzag(&packed, f->ngather);
	pb_zigzag(&packed, f->nunfin);
	pb_zigzag(&packed, f->ctr.dlmax);
	pb_zigzag(&packed, f->ctr.cachemax);
	pb_zigzag(&packed, f->ctr.late);
	pb_zigzag(&packed, f->ctr.forced);
}

static void
takefig(const char **q, struct fig *f)
{
	f->ndl = pb_takezigzag(q);
	f->nrd = pb_takezigzag(q);
	f->ndel = pb_takezigzag(q);
	f->dlsum = pb_takezigzag(q);
	f->rdsum = pb_takezigzag(q);
	f->ngather = pb_takezigzag(q);
	f->nunfin = pb_takezigzag(q);
	f->ctr.dlmax = pb_takezigzag(q);
	f->ctr.cachemax = pb_takezigzag(q);
	f->ctr.late = pb_takezigzag(q);
	f->ctr.forced = pb_takezigzag(q);
}

/*
 * Pack p's pio: its figures, its chunk table (its size, then each
 * chunk in use: its slot from the one after the last, plus 1, then its
 * fields; 0 ends them), its heap of counter changes (their number, then
 * each, in heap order: its time from the one before, and the two
 * changes), then the rest, field by field.
 */
static void
sleeppio(struct proc *p)
{
	const struct pio *w = p->x->w;
	const struct chunk *c;
	const struct ctrpt *h;
	size_t i, next = 0;
	uint64_t last = 0;

	packed.n = 0;
	number(p);
	putfig(&w->f);
	pb_varint(&packed, w->capch);
	for (i = 0; i < w->capch; i++) {
		if (!(c = &w->ch[i])->used)
			continue;
		pb_varint(&packed, i + 1 - next);
		next = i + 1;
		pb_zigzag(&packed, c->id);
		pb_zigzag(&packed, c->gone);
		pb_varint(&packed, (unsigned)c->held | (unsigned)c->hasdl << 1 |
		    (unsigned)c->dllinked << 2 | (unsigned)c->hasrd << 3 |
		    (unsigned)c->rdlinked << 4 | (unsigned)c->isgone << 5);
		putspan(&c->dl);
		putspan(&c->rd);
	}
	pb_varint(&packed, 0);
	pb_varint(&packed, w->q.n);
	for (i = 0; i < w->q.n; i++) {
		h = &w->q.heap[i];
		pb_zigzag(&packed, (int64_t)((uint64_t)h->ts - last));
		last = (uint64_t)h->ts;
		pb_zigzag(&packed, h->ddl);
		pb_zigzag(&packed, h->dcache);
	}
	pb_varint(&packed, w->nch);
	pb_varint(&packed, w->ngone);
	pb_zigzag(&packed, w->gonemin);
	pb_zigzag(&packed, w->q.latest);
	pb_zigzag(&packed, w->q.horizon);
	pb_zigzag(&packed, w->q.done);
	pb_varint(&packed, (unsigned)w->q.started | (unsigned)w->q.haslatest <<
	    1 | (unsigned)w->pgather << 2);
	pb_zigzag(&packed, w->q.dl);
	pb_zigzag(&packed, w->q.cache);
	pb_zigzag(&packed, w->maxdl);
	pb_zigzag(&packed, w->gheld);
	pb_zigzag(&packed, w->dlsince);
	pb_zigzag(&packed, w->pts);
	pb_zigzag(&packed, w->pend);
	pb_zigzag(&packed, w->gts);
	pb_zigzag(&packed, w->gend);
	lt_cold_put(COLDPROC, p->seq, packed.p, packed.n);
	p->packed = 1;
	st_pio_free(p);
}

/*
 * p sleeps: its pio, unless it holds reads of a gather; then its
 * threads, once nothing awake points to them, unless one is a rank's
 * main thread.
 */
void
st_sleep(struct proc *p)
{
	if (st_pio(p) != NULL && p->x->w->capheld == 0)
		sleeppio(p);
	if (st_pio(p) == NULL && st_main(p) == NULL && !p->thrpk &&
	    p->nthr > 0 && p->nthr <= THRPACK)
		sleepthr(p);
}

/* p's pio, if it has one, goes: its chunks, its counter changes. */
void
st_pio_free(struct proc *p)
{
	if (st_pio(p) == NULL)
		return;
	free(p->x->w->ch);
	free(p->x->w->held);
	st_ctr_free(&p->x->w->q);
	free(p->x->w);
	p->x->w = NULL;
}

/* p wakes: its pio back, as it was; new, the first time. */
void
st_thaw(struct proc *p)
{
	char *pk = NULL;
	const char *q;
	struct pio *w;
	struct chunk *c;
	struct ctrpt *h;
	size_t i, d, next = 0, n;
	uint64_t last = 0;
	unsigned f;

	if (p->thrpk)
		st_wakethr(p);
	w = st_ext(p)->w = lt_calloc(1, sizeof(*w));
	if (!p->packed)
		return;
	q = pk = lt_cold_take(COLDPROC, p->seq, NULL);
	takefig(&q, &w->f);
	number(p);
	w->capch = pb_takevarint(&q);
	w->ch = w->capch != 0 ? lt_calloc(w->capch, sizeof(*w->ch)) : NULL;
	while ((d = pb_takevarint(&q)) != 0) {
		i = next + d - 1;
		next = i + 1;
		c = &w->ch[i];
		c->used = 1;
		c->id = pb_takezigzag(&q);
		c->gone = pb_takezigzag(&q);
		f = (unsigned)pb_takevarint(&q);
		c->held = f & 1;
		c->hasdl = f >> 1 & 1;
		c->dllinked = f >> 2 & 1;
		c->hasrd = f >> 3 & 1;
		c->rdlinked = f >> 4 & 1;
		c->isgone = f >> 5 & 1;
		takespan(&q, &c->dl);
		takespan(&q, &c->rd);
	}
	n = pb_takevarint(&q);
	w->q.heap = n != 0 ? lt_reallocarray(NULL, n, sizeof(*h)) : NULL;
	w->q.n = w->q.cap = n;
	for (i = 0; i < n; i++) {
		h = &w->q.heap[i];
		last += (uint64_t)pb_takezigzag(&q);
		h->ts = (int64_t)last;
		h->ddl = (int)pb_takezigzag(&q);
		h->dcache = (int)pb_takezigzag(&q);
	}
	w->nch = pb_takevarint(&q);
	w->ngone = pb_takevarint(&q);
	w->gonemin = pb_takezigzag(&q);
	w->q.latest = pb_takezigzag(&q);
	w->q.horizon = pb_takezigzag(&q);
	w->q.done = pb_takezigzag(&q);
	f = (unsigned)pb_takevarint(&q);
	w->q.started = f & 1;
	w->q.haslatest = f >> 1 & 1;
	w->pgather = f >> 2 & 1;
	w->q.dl = pb_takezigzag(&q);
	w->q.cache = pb_takezigzag(&q);
	w->maxdl = pb_takezigzag(&q);
	w->gheld = pb_takezigzag(&q);
	w->dlsince = pb_takezigzag(&q);
	w->pts = pb_takezigzag(&q);
	w->pend = pb_takezigzag(&q);
	w->gts = pb_takezigzag(&q);
	w->gend = pb_takezigzag(&q);
	free(pk);
	p->packed = 0;
}

/* The figures of p, for the report: awake or asleep, p stays as it is. */
void
st_fig(const struct proc *p, struct fig *f)
{
	const char *q;

	if (st_pio(p) != NULL)
		*f = p->x->w->f;
	else if (p->packed) {
		q = lt_cold_peek(COLDPROC, p->seq);
		if (p->thrpk)
			q = skipthr(p, q);
		takefig(&q, f);
	} else
		memset(f, 0, sizeof(*f));
}

static void
sweep(void *e)
{
	struct proc *p = e;

	if (!p->warm)
		st_sleep(p);
	p->warm = 0;
}

/* Every so many records: the processes not used since the last time. */
void
st_sleep_sweep(void)
{
	lt_id_each(&ST.procs, sweep);
}

/* Before the first sleep: what cold.c is to know. */
void
st_sleep_init(void)
{
	lt_cold_init("ltstat", "the processes it holds", COLDMEM);
}

void
st_sleep_free(void)
{
	lt_cold_free();
	lt_buf_free(&packed);
	free(byno);
	byno = NULL;
	capbyno = 0;
}
