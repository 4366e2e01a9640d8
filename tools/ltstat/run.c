/* See LICENSE file for copyright and license details. */
/*
 * run.c: what ltstat learns from the spans of a run, as they come.
 *
 * A rank is a process with batch or dataloader spans; its waits are the
 * gaps between batch i and batch i+1 of one epoch, and from the start of
 * the epoch's dataloader span to its batch 0.  The I/O of the rank's
 * processes (downloads and reads) that ended after the rank's last batch
 * is kept, per rank number, so that a wait found at the next batch can
 * say what was in flight during it; the first wait of an epoch is known
 * only when the epoch's span ends, so its candidates wait in the epoch.
 * A worker is a process with downloads, reads or deletes: its chunks
 * link download to read to delete (flows) and feed its counters.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ltstat.h"

#define IOMAX		8192	/* I/O kept per rank number, at most */

struct run ST;

static char	waitcat[] = "wait";

/* -------- processes and threads -------- */

/* A pid or tid column: a canonical integer, a JSON string, or "-". */
static int
idok(const struct ltfield *f)
{
	struct ltjson j;
	int64_t v;

	if (LT_ISNONE(*f) || lt_int_parse(f->p, f->n, &v) == LT_NUM_OK)
		return 1;
	return f->n > 0 && f->p[0] == '"' && lt_json_whole(f->p, f->n, NULL,
	    &j) == LT_JSON_OK && j.type == '"' && j.flags == 0;
}

/* The thread of pid and tid, checked when new, and its process. */
struct proc *
st_proc(const struct ltfield *pid, const struct ltfield *tid,
    struct thr **tp, const char **why)
{
	struct proc *p;
	struct thr *t;
	int isnew;

	/* The lines of a thread come in runs: its last one first. */
	if ((t = ST.lastthr) != NULL && t->h.keyn == 2 + pid->n + tid->n &&
	    t->p->h.keyn == 1 + pid->n &&
	    memcmp(lt_id_key(&t->h) + 1, pid->p, pid->n) == 0 &&
	    memcmp(lt_id_key(&t->h) + TIDOFF(t), tid->p, tid->n) == 0) {
		*tp = t;
		return t->p;
	}
	if ((t = lt_id_get(&ST.thrs, pid, tid, 0, NULL)) != NULL) {
		*tp = ST.lastthr = t;
		return t->p;
	}
	if (!idok(pid) || !idok(tid)) {
		*why = !idok(pid) ? "column pid: not an integer, a JSON string "
		    "or -" : "column tid: not an integer, a JSON string or -";
		return NULL;
	}
	p = lt_id_get(&ST.procs, pid, NULL, 1, &isnew);
	if (isnew) {
		if (ST.nprocs == UINT32_MAX)
			lt_die(LT_EXIT_SYS, "more than 4294967295 processes");
		p->seq = (uint32_t)ST.nprocs++;
		p->worker = -1;
	} else if (p->thrpk) {
		/* Its threads asleep (sleep.c): this may be one. */
		st_wakethr(p);
		p->warm = 1;
		if ((t = lt_id_get(&ST.thrs, pid, tid, 0, NULL)) != NULL) {
			*tp = ST.lastthr = t;
			return p;
		}
	}
	*tp = ST.lastthr = st_thr(p, pid, tid);
	return p;
}

/* A new thread tid of p (pid, its key). */
struct thr *
st_thr(struct proc *p, const struct ltfield *pid, const struct ltfield *tid)
{
	struct thr *t;

	if (p->nthr == UINT32_MAX)
		lt_die(LT_EXIT_SYS, "a process of more than 4294967294 threads");
	t = lt_id_get(&ST.thrs, pid, tid, 1, NULL);
	t->p = p;
	t->no = p->nthr++;
	t->sib = st_ext(p)->lastt;
	p->x->lastt = t;
	if (t->no == 0)
		p->x->thr0 = t;
	return t;
}

/* What p holds while its threads are awake, made the first time. */
struct pext *
st_ext(struct proc *p)
{
	if (p->x == NULL) {
		p->x = lt_calloc(1, sizeof(*p->x));
		p->x->node = -1;
	}
	return p->x;
}

static int
intval(const struct ltfield *v, int64_t *n)
{
	if (v->n >= 2 && v->p[0] == '"')
		return lt_int_parse(v->p + 1, v->n - 2, n) == LT_NUM_OK;
	return lt_int_parse(v->p, v->n, n) == LT_NUM_OK;
}

static struct group *
group(int64_t rank)
{
	struct group *g;

	for (g = ST.groups; g != NULL; g = g->next)
		if (g->rank == rank)
			return g;
	g = lt_calloc(1, sizeof(*g));
	g->rank = rank;
	if (ST.ngrp == UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "more than 4294967294 ranks");
	ST.grpv = lt_grow(ST.grpv, &ST.capgrp, ST.ngrp + 1,
	    sizeof(*ST.grpv));
	g->no = (uint32_t)ST.ngrp;
	ST.grpv[ST.ngrp++] = g;
	g->prune = INT64_MIN;
	g->next = ST.groups;
	ST.groups = g;
	return g;
}

/*
 * The args that ltstat reads: the span's chunk, batch, epoch and index,
 * ltpair's mark, and once per process its rank and worker.
 */
const char *
st_args(struct proc *p, const struct ltfield *args, struct ev *ev, int count)
{
	static char why[128];
	struct ltfield k, v;
	struct ltobj it;
	int64_t n, rank = -1;
	int r, gen = 'n';

	ev->chunk = ev->batch = ev->epoch = ev->index = ev->chunks = -1;
	ev->open = 0;
	lt_obj_init(&it, args->p, args->n);
	while ((r = lt_obj_next(&it, &k, &v)) > 0) {
		if (k.n < 7)
			continue;
		if (LT_IS(k, "\"chunk\"")) {
			if (intval(&v, &n))
				ev->chunk = n;
		} else if (LT_IS(k, "\"batch\"")) {
			if (intval(&v, &n))
				ev->batch = n;
		} else if (LT_IS(k, "\"epoch\"")) {
			if (intval(&v, &n))
				ev->epoch = n;
		} else if (LT_IS(k, "\"index\"")) {
			if (intval(&v, &n))
				ev->index = n;
		} else if (LT_IS(k, "\"chunks\"")) {
			if (intval(&v, &n))
				ev->chunks = n;
		} else if (LT_IS(k, "\"ltpair\"")) {
			ev->open = LT_IS(v, "\"unmatched_B\"");
		} else if (LT_IS(k, "\"logger_name\"")) {
			gen = '1';
		} else if (LT_IS(k, "\"legacy_name\"")) {
			if (gen == 'n')
				gen = 'o';
		} else if (!p->known && LT_IS(k, "\"dist_global_rank\"")) {
			if (intval(&v, &n) && n >= 0)
				rank = n;
		} else if (!p->known && LT_IS(k, "\"worker_rank\"")) {
			if (intval(&v, &n) && n >= 0)
				p->worker = n;
		}
	}
	if (r < 0) {
		snprintf(why, sizeof(why), "column args: %s", it.err);
		return why;
	}
	/* Before 0.2.57 every worker says worker_rank 0 (spec 13). */
	if (gen == '1') {
		p->v1 = 1;
		p->worker = -1;
	}
	if (count && gen == '1')
		ST.gen_v1++;
	else if (count && gen == 'o')
		ST.gen_old++;
	else if (count)
		ST.gen_new++;
	if (!p->known) {
		p->known = 1;
		if (rank >= 0)
			p->grp = group(rank)->no + 1;
	}
	return NULL;
}

/* -------- categories -------- */

/* Is f the text of a JSON string's contents, as lt1 writes them? */
static int
jsonstr(const struct ltfield *f)
{
	struct ltjson j;

	return lt_esc_plain(f->p, f->n) || (lt_json_str(f->p, f->n, NULL,
	    &j) == LT_JSON_OK && (j.flags & LT_JS_REPAIRED) == 0);
}

/* A duration of category name; the name is checked once. */
const char *
st_cat(const struct ltfield *name, int64_t dur)
{
	struct cat *c = ST.lastcat;
	int isnew;

	if (c == NULL || CATLEN(c) != name->n ||
	    memcmp(CATNAME(c), name->p, name->n) != 0) {
		if ((c = lt_id_get(&ST.cattab, name, NULL, 0, NULL)) == NULL &&
		    !jsonstr(name))
			return "column cat: not JSON string contents";
		c = lt_id_get(&ST.cattab, name, NULL, 1, &isnew);
		if (isnew) {
			ST.cats = lt_grow(ST.cats, &ST.capcats, ST.ncats + 1,
			    sizeof(*ST.cats));
			ST.cats[ST.ncats++] = c;
		}
		ST.lastcat = c;
	}
	st_hist_add(&c->h, dur);
	return NULL;
}

/* -------- ranks and epochs -------- */

/* The tid of a rank's wait track: right of its main thread's. */
static void
waittid(struct rank *r)
{
	const char *tid = lt_id_key(&r->main->h) + TIDOFF(r->main);
	size_t n = r->main->h.keyn - TIDOFF(r->main);
	int64_t t;
	size_t k;

	if (lt_int_parse(tid, n, &t) == LT_NUM_OK) {
		if (t >= 0 && t <= (4294967295LL - 999) / 1000)
			t = t * 1000 + 999;
		else
			t = 4294967295LL - (int64_t)ST.nranks;
		lt_i64_fmt(r->wtid, t);
		return;
	}
	/* A string tid "T": "T data wait". */
	k = n >= 2 && tid[0] == '"' && n - 1 < sizeof(r->wtid) - 12 ?
	    n - 1 : 0;
	if (k == 0) {
		lt_i64_fmt(r->wtid, 4294967295LL - (int64_t)ST.nranks);
		return;
	}
	memcpy(r->wtid, tid, k);
	memcpy(r->wtid + k, " data wait\"", 12);
}

struct rank *
st_rank(struct proc *p, struct thr *t)
{
	struct rank *r;
	struct group *g;
	size_t i;

	if (st_main(p) != NULL)
		return st_main(p);
	r = lt_calloc(1, sizeof(*r));
	r->p = p;
	r->main = t;
	r->rank = st_prank(p);
	r->top = lt_calloc((size_t)ST.ntop, sizeof(*r->top));
	r->sh.headep = -1;
	for (i = 0; i < ST.nranks; i++)
		if (ST.ranks[i]->rank == r->rank)
			r->attempt++;
	if ((size_t)r->attempt >= ST.nnatt) {
		ST.natt = lt_grow(ST.natt, &ST.capnatt, ST.nnatt + 1,
		    sizeof(*ST.natt));
		ST.natt[ST.nnatt++] = 0;
	}
	ST.natt[r->attempt]++;
	waittid(r);
	ST.ranks = lt_grow(ST.ranks, &ST.capranks, ST.nranks + 1,
	    sizeof(*ST.ranks));
	ST.ranks[ST.nranks++] = r;
	st_ext(p)->main = r;
	if ((g = st_grp(p)) != NULL) {
		g->r = lt_grow(g->r, &g->capr, g->nr + 1, sizeof(*g->r));
		g->r[g->nr++] = r;
	}
	return r;
}

/*
 * Epoch num of r: the last of that number, or a new one when it has
 * that part already (a batch 0, a dataloader span: the same pid in a
 * later run, or logs put together); num -1 (no epoch arg) in a
 * dataloader span is a new one after the last.
 */
static struct epoch *
epoch(struct rank *r, int64_t num, int isloader, int isb0)
{
	struct epoch *e;
	size_t i;

	if (num >= 0 || !isloader) {
		for (i = r->nep; i > 0; i--)
			if (r->ep[i - 1].num == num) {
				e = &r->ep[i - 1];
				if ((isloader && e->hasloader) ||
				    (isb0 && e->hasb0))
					break;
				return e;
			}
	}
	if (num < 0 && isloader)
		num = (int64_t)r->nep + 1;
	r->ep = lt_grow(r->ep, &r->capep, r->nep + 1, sizeof(*r->ep));
	e = &r->ep[r->nep++];
	memset(e, 0, sizeof(*e));
	e->num = num;
	e->x = lt_calloc(1, sizeof(*e->x));
	e->x->lower = INT64_MIN;
	return e;
}

/* The last epoch num of r, or NULL. */
struct epoch *
st_epochof(struct rank *r, int64_t num)
{
	size_t i;

	for (i = r->nep; i > 0; i--)
		if (r->ep[i - 1].num == num)
			return &r->ep[i - 1];
	return NULL;
}

static int
overlaps(const struct io *io, int64_t ts, int64_t end)
{
	return io->ts < end && io->end > ts;
}

static void
additem(struct wait *w, const struct io *io)
{
	if (w->nit < WAIT_ITEMS)
		w->it[w->nit++] = *io;
	else
		w->more++;
}

/* A wait of r, among its longest so far? */
static void
keeptop(struct rank *r, int64_t ep, int64_t batch, int64_t ts, int64_t dur,
    const struct io *io, size_t nio)
{
	struct wait *w;
	size_t i;
	int k;

	if (ST.ntop == 0 ||
	    (r->ntop == ST.ntop && dur <= r->top[r->ntop - 1].dur))
		return;
	k = r->ntop < ST.ntop ? r->ntop++ : r->ntop - 1;
	while (k > 0 && r->top[k - 1].dur < dur) {
		r->top[k] = r->top[k - 1];
		k--;
	}
	w = &r->top[k];
	memset(w, 0, sizeof(*w));
	w->ts = ts;
	w->dur = dur;
	w->epoch = ep;
	w->batch = batch;
	for (i = 0; i < nio; i++)
		if (overlaps(&io[i], ts, ts + dur))
			additem(w, &io[i]);
}

/*
 * A wait of r: dur before batch of epoch, from ts.  io[0..nio) are the
 * I/O that may have been in flight during it; own, when not NULL, is
 * the epoch that kept what its workers did meanwhile (its first wait,
 * found when its span ended).
 */
void
st_wait(struct rank *r, int64_t ep, int64_t batch, int64_t ts,
    int64_t dur, const struct io *io, size_t nio, struct epoch *own)
{
	struct ltfield cat;
	struct epoch *e;

	r->wait = sadd(r->wait, dur);
	r->nwaits++;
	if ((e = st_epochof(r, ep)) != NULL) {
		e->wait = sadd(e->wait, dur);
		if (batch == 0)
			e->first = dur;
	}
	/* A category of its own, as the wait slices are in the trace. */
	cat.p = waitcat;
	cat.n = sizeof(waitcat) - 1;
	st_cat(&cat, dur);
	/* Listed first: a split made at once finds it in the list. */
	keeptop(r, ep, batch, ts, dur, io, nio);
	st_cause_wait(r, own, ep, batch, ts, dur, batch == 0 &&
	    e != NULL && e->hasloader && e->ts == ts);
}

/* Drop the I/O of g that ended before its last batch did. */
static void
prune(struct group *g)
{
	size_t i, j;

	for (i = j = 0; i < g->nio; i++)
		if (g->io[i].end >= g->prune)
			g->io[j++] = g->io[i];
	g->nio = j;
}

/*
 * The first wait of e, from its start to its batch 0: found at batch 0
 * when the epoch's span came first, or later (late) when it ends.
 */
static void
firstwait(struct rank *r, struct epoch *e, const struct io *io, size_t nio,
    int late)
{
	st_cause_flush(st_grp(r->p));
	e->resolved = 1;
	if (e->ts >= e->b0 || ssub(e->b0, e->ts) == INT64_MAX) {
		st_share_head(r, e, 0, 0);
		return;
	}
	st_wait(r, e->num, 0, e->ts, e->b0 - e->ts, io, nio,
	    late ? e : NULL);
	if (late)
		st_share_head(r, e, e->ts, e->b0);
	else
		st_share_add(r, e->ts, e->b0, 1);
}

/* io may be in flight in the first wait of x's epoch: kept. */
static void
keeppend(struct epwork *x, const struct io *io)
{
	x->pend = lt_grow(x->pend, &x->cappend, x->npend + 1,
	    sizeof(*x->pend));
	x->pend[x->npend++] = *io;
}

static void
freepend(struct epoch *e)
{
	if (e->x == NULL)
		return;
	free(e->x->pend);
	st_tl_free(&e->x->tr);
	st_tl_free(&e->x->td);
	free(e->x);
	e->x = NULL;
}

void
st_batch(struct ev *ev)
{
	struct proc *p = ev->t->p;
	struct group *g = st_grp(p);
	struct rank *r = st_rank(p, ev->t);
	struct epoch *e = epoch(r, ev->epoch, 0, ev->batch == 0);
	struct epwork *x;
	int64_t end = ev->ts + ev->dur, gap, waited = 0;
	size_t i;
	int first;

	ST.nbatch++;
	r->batches++;
	r->compute = sadd(r->compute, ev->dur);
	e->batches++;
	e->compute = sadd(e->compute, ev->dur);
	if (ev->open) {
		r->open_batches++;
		e->open_batches++;
	}
	first = ev->batch == 0 || (ev->batch < 0 && !e->hasb0);
	if (first && !e->hasb0) {
		st_share_close(r);
		e->hasb0 = 1;
		e->b0 = ev->ts;
		e->c0 = ev->dur;
		x = e->x;
		x->lower = g != NULL ? g->prune : INT64_MIN;
		if (r->haslast && r->lastend > x->lower)
			x->lower = r->lastend;
		if (e->hasloader) {
			firstwait(r, e, g != NULL ? g->io : NULL,
			    g != NULL ? g->nio : 0, 0);
			freepend(e);
		} else {
			st_share_first(r, e);
			st_cause_window(g, e);
			for (i = 0; g != NULL && i < g->nio; i++)
				if (overlaps(&g->io[i], x->lower, e->b0))
					keeppend(x, &g->io[i]);
		}
	} else if (!first && r->haslast && r->lastep == ev->epoch &&
	    (ev->batch < 0 || ev->batch - 1 == r->lastidx)) {
		gap = ssub(ev->ts, r->lastend);
		if (gap > 0 && gap < INT64_MAX) {
			st_wait(r, ev->epoch, ev->batch, r->lastend, gap,
			    g != NULL ? g->io : NULL, g != NULL ? g->nio : 0,
			    NULL);
			st_share_add(r, r->lastend, ev->ts, 1);
			waited = gap;
		} else if (gap < 0)
			ST.overlaps++;
	}
	if (!first && ev->batch > 0)
		st_step(r, ev->epoch, ev->batch, ev->dur, waited);
	/* An open batch ends where ltpair put it: no time of the loop. */
	if (!ev->open)
		st_share_add(r, ev->ts, end, 0);
	r->haslast = 1;
	r->lastend = end;
	r->lastidx = ev->batch;
	r->lastep = ev->epoch;
	if (g != NULL && end > g->prune) {
		g->prune = end;
		prune(g);
	}
}

void
st_loader(struct ev *ev)
{
	struct proc *p = ev->t->p;
	struct rank *r = st_rank(p, ev->t);
	struct epoch *e = epoch(r, ev->epoch, 1, 0);

	ST.nloader++;
	e->hasloader = 1;
	e->ts = ev->ts;
	e->dur = ev->dur;
	e->open = ev->open;
	if (e->hasb0 && !e->resolved) {
		firstwait(r, e, e->x->pend, e->x->npend, 1);
		freepend(e);
	}
}

/* -------- workers and their chunks -------- */

static size_t
chunkhome(const struct pio *w, int64_t id)
{
	return (size_t)((uint64_t)id * 0x9e3779b97f4a7c15ULL >> 17) &
	    (w->capch - 1);
}

/* Chunk id of p, if p has it. */
struct chunk *
st_chunkfind(struct proc *p, int64_t id)
{
	struct pio *w;
	size_t i;

	/* Never awake: no chunks. */
	if (id < 0 || (st_pio(p) == NULL && !p->packed))
		return NULL;
	w = st_warm(p);
	if (w->capch == 0)
		return NULL;
	for (i = chunkhome(w, id); w->ch[i].used; i = (i + 1) & (w->capch - 1))
		if (w->ch[i].id == id)
			return &w->ch[i];
	return NULL;
}

/*
 * The chunks of w move to a table of cap slots, but for those deleted
 * before the time before: a worker's table holds what a record yet to
 * come may name.
 */
static void
rehash(struct pio *w, size_t cap, int64_t before)
{
	struct chunk *old = w->ch;
	size_t i, j, n = w->capch;

	w->ch = cap != 0 ? lt_calloc(cap, sizeof(*w->ch)) : NULL;
	w->capch = cap;
	w->nch = w->ngone = 0;
	for (i = 0; i < n; i++) {
		if (!old[i].used || (old[i].isgone && old[i].gone < before))
			continue;
		for (j = chunkhome(w, old[i].id); w->ch[j].used;
		    j = (j + 1) & (cap - 1))
			;
		w->ch[j] = old[i];
		w->nch++;
		if (old[i].isgone && (w->ngone++ == 0 ||
		    old[i].gone < w->gonemin))
			w->gonemin = old[i].gone;
	}
	free(old);
}

static struct chunk *
chunk(struct proc *p, int64_t id)
{
	struct pio *w;
	size_t i;

	w = st_warm(p);
	/* Most workers hold a few chunks: small tables, 3/4 full at most. */
	if (4 * (w->nch + 1) > 3 * w->capch)
		rehash(w, w->capch != 0 ? 2 * w->capch : 4, INT64_MIN);
	for (i = chunkhome(w, id); w->ch[i].used; i = (i + 1) & (w->capch - 1))
		if (w->ch[i].id == id)
			return &w->ch[i];
	memset(&w->ch[i], 0, sizeof(w->ch[i]));
	w->ch[i].used = 1;
	w->ch[i].id = id;
	w->nch++;
	return &w->ch[i];
}

/*
 * A deleted chunk is forgotten, so that a worker's table holds the chunks
 * it has, not all it ever had.  Linear probing: the entries after it
 * that it pushed away move back.
 */
static void
unchunk(struct pio *w, struct chunk *c)
{
	size_t i = (size_t)(c - w->ch), j = i, h, mask = w->capch - 1;

	if (c->isgone)
		w->ngone--;
	for (;;) {
		w->ch[i].used = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!w->ch[j].used)
				goto done;
			h = chunkhome(w, w->ch[j].id);
			/* Can it go to i, between its home and j? */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		w->ch[i] = w->ch[j];
		i = j;
	}
done:
	if (--w->nch == 0) {
		free(w->ch);
		w->ch = NULL;
		w->capch = 0;
	}
}

/*
 * A chunk deleted before its download was linked to a read waits for a
 * read that ltpair wrote late, but no longer than the horizon of the
 * worker's counters: what comes later than that is late for them too.
 * Sample spans never link a download, so their chunks all go this way.
 */
void
st_chunk_expire(struct proc *p)
{
	struct pio *w;
	int64_t before;
	size_t cap;

	w = st_warm(p);
	if (w->ngone == 0)
		return;
	before = ssub(w->q.latest, w->q.horizon);
	if (w->gonemin >= before)
		return;
	for (cap = 4; 4 * (w->nch + 1) > 3 * cap; cap *= 2)
		;
	rehash(w, cap, before);
	if (w->nch == 0)
		rehash(w, 0, INT64_MIN);
}

/* Keep the n longest of list (at most ST.ntop), longest first. */
static struct slow *
slowadd(struct slow *list, int *n, const struct slow *s)
{
	int k;

	if (ST.ntop == 0 || (*n == ST.ntop && s->dur <= list[*n - 1].dur))
		return NULL;
	k = *n < ST.ntop ? (*n)++ : *n - 1;
	while (k > 0 && list[k - 1].dur < s->dur) {
		list[k] = list[k - 1];
		k--;
	}
	list[k] = *s;
	return &list[k];
}

/* A download or read of g's processes: what waits may it overlap? */
static void
ioadd(struct group *g, const struct io *io)
{
	struct epoch *e;
	struct rank *r;
	size_t i;
	int k;

	for (i = 0; i < g->nr; i++) {
		r = g->r[i];
		for (k = 0; k < r->ntop; k++)
			if (overlaps(io, r->top[k].ts,
			    r->top[k].ts + r->top[k].dur))
				additem(&r->top[k], io);
		if (r->nep > 0 && (e = &r->ep[r->nep - 1])->hasb0 &&
		    !e->resolved && overlaps(io, e->x->lower, e->b0))
			keeppend(e->x, io);
	}
	/* Kept only if a wait yet to be found may overlap it. */
	if (io->end < g->prune)
		return;
	if (g->nio == IOMAX) {
		memmove(g->io, g->io + IOMAX / 2,
		    (IOMAX - IOMAX / 2) * sizeof(*g->io));
		g->nio = IOMAX - IOMAX / 2;
	}
	g->io = lt_grow(g->io, &g->capio, g->nio + 1, sizeof(*g->io));
	g->io[g->nio++] = *io;
}

/* The gather of p at ts in v[0..n) loses a chunk. */
static void
lessgather(struct io *v, size_t n, const struct proc *p, int64_t ts)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].p == p && v[i].kind == 'g' && v[i].ts == ts &&
		    v[i].chunk > 0)
			v[i].chunk--;
}

/* One chunk less in the last gather of p, where waits list it. */
static void
ungather(struct proc *p)
{
	struct group *g = st_grp(p);
	struct epwork *x;
	struct rank *r;
	int64_t pts = p->x->w->pts;
	size_t i;
	int k;

	if (g == NULL)
		return;
	lessgather(g->io, g->nio, p, pts);
	for (i = 0; i < g->nr; i++) {
		r = g->r[i];
		for (k = 0; k < r->ntop; k++)
			lessgather(r->top[k].it, (size_t)r->top[k].nit, p,
			    pts);
		if (r->nep > 0 && (x = r->ep[r->nep - 1].x) != NULL)
			lessgather(x->pend, x->npend, p, pts);
	}
}

void
st_io(struct ev *ev, int kind)
{
	struct proc *p = ev->t->p;
	struct pio *w;
	struct chunk *c = NULL;
	struct span sp;
	struct slow s, *sl;
	struct io io;
	struct group *g;
	int64_t end = ev->ts + ev->dur;
	int i;

	w = st_warm(p);
	p->io = 1;
	sp.ts = ev->ts;
	sp.dur = ev->dur;
	sp.t = ev->t;
	if (ev->chunk >= 0)
		c = chunk(p, ev->chunk);
	s.p = p;
	s.chunk = ev->chunk;
	s.ts = ev->ts;
	s.dur = ev->dur;
	s.rd = -1;
	s.unfin = 0;
	switch (kind) {
	case 'd':
		ST.ndl++;
		w->dlsince++;
		if (end > p->x->dlhi)
			p->x->dlhi = end;
		st_ctr_push(p, ev->ts, 1, 0);
		st_ctr_push(p, end, -1, 0);
		/*
		 * One left open (its thread crashed) never got its chunk;
		 * ltpair writes it last, after the prefetch around it, which
		 * took it for a chunk of a gather.
		 */
		if (ev->open) {
			w->f.nunfin++;
			ST.unfinished++;
			s.unfin = 1;
			if (w->pgather && ev->ts >= w->pts &&
			    ev->ts < w->pend && w->f.ngather > 0) {
				ungather(p);
				w->f.ngather--;
				ST.gathered--;
				if (w->gheld > 0)
					w->gheld--;
				st_ctr_push(p, w->pts, -1, 0);
				st_ctr_push(p, w->pend, 1, -1);
			}
		} else {
			w->f.ndl++;
			w->f.dlsum = sadd(w->f.dlsum, ev->dur);
			if (ev->dur > w->maxdl)
				w->maxdl = ev->dur;
		}
		if (c != NULL) {
			if (c->isgone)
				w->ngone--;
			c->isgone = 0;
			c->dl = sp;
			c->hasdl = 1;
			c->dllinked = 0;
			if (!c->held && !ev->open) {
				c->held = 1;
				st_ctr_push(p, end, 0, 1);
			}
		}
		slowadd(ST.slowdl, &ST.nslowdl, &s);
		break;
	case 'r':
		ST.nrd++;
		w->f.nrd++;
		w->f.rdsum = sadd(w->f.rdsum, ev->dur);
		if (ev->index >= 0)
			ST.itemreads++;
		if (c != NULL) {
			if (c->hasdl && !c->dllinked) {
				c->dllinked = 1;
				st_emit_flow(p, c->id, &c->dl, &sp);
				for (i = 0; i < ST.nslowdl; i++) {
					sl = &ST.slowdl[i];
					if (sl->p == p && sl->chunk == c->id &&
					    sl->ts == c->dl.ts && sl->rd < 0)
						sl->rd = ev->dur;
				}
			}
			/* Its read waits for a delete: kept till then. */
			if (c->isgone)
				w->ngone--;
			c->isgone = 0;
			c->rd = sp;
			c->hasrd = 1;
			c->rdlinked = 0;
		}
		slowadd(ST.slowrd, &ST.nslowrd, &s);
		break;
	default:
		ST.ndel++;
		w->f.ndel++;
		if (c != NULL) {
			if (c->hasrd && !c->rdlinked) {
				c->rdlinked = 1;
				st_emit_flow(p, c->id, &c->rd, &sp);
			}
			if (c->held)
				st_ctr_push(p, end, 0, -1);
			else if (w->gheld > 0) {
				/* Taken to be one an async gather fetched. */
				w->gheld--;
				st_ctr_push(p, end, 0, -1);
			}
			c->held = 0;
			/* A read ltpair wrote late still finds its download. */
			if (!c->hasdl || c->dllinked)
				unchunk(w, c);
			else {
				if (!c->isgone)
					w->ngone++;
				c->isgone = 1;
				c->gone = end;
				if (w->ngone == 1 || end < w->gonemin)
					w->gonemin = end;
			}
		}
	}
	st_ctr_advance(p, end);
	if (kind != 'x' && (g = st_grp(p)) != NULL) {
		io.ts = ev->ts;
		io.end = end;
		io.p = p;
		io.chunk = ev->chunk;
		io.kind = kind;
		ioadd(g, &io);
	}
}

/*
 * A prefetch span: with a chunks arg (LitData 0.2.68 and later), the
 * chunks it fetched; those without a download span of their own (the
 * download spans of its process since its last prefetch are inside it,
 * on its thread or on asyncio's) were fetched by an async gather.
 */
void
st_prefetch(struct ev *ev)
{
	struct proc *p = ev->t->p;
	struct pio *w;
	struct chunk *c;
	struct io io;
	struct group *g;
	int64_t end = ev->ts + ev->dur;
	long long n;
	int k;

	w = st_warm(p);
	/* Before 0.2.68 a prefetch names its chunk: was it downloaded in it? */
	if (ev->chunk >= 0 && (c = st_chunkfind(p, ev->chunk)) != NULL &&
	    c->hasdl && c->dl.ts >= ev->ts && c->dl.ts <= end)
		n = 0;
	else if (ev->chunk >= 0)
		n = 1;
	else
		n = ev->chunks > w->dlsince ? ev->chunks - w->dlsince : 0;
	w->dlsince = 0;
	w->pts = ev->ts;
	w->pend = end;
	w->pgather = n > 0 && !ev->open;
	if (n > 0 && !ev->open) {
		p->hasgather = 1;
		w->gts = ev->ts;
		w->gend = end;
	}
	if (!p->prefetched)
		st_cause_prefetch(p);
	if (n == 0 || ev->open)
		return;
	p->io = 1;
	w->f.ngather += n;
	w->gheld += n;
	ST.gathered += n;
	if (end > p->x->dlhi)
		p->x->dlhi = end;
	k = (int)(n < 65536 ? n : 65536);
	st_ctr_push(p, ev->ts, k, 0);
	st_ctr_push(p, end, -k, k);
	st_ctr_advance(p, end);
	if ((g = st_grp(p)) != NULL) {
		io.ts = ev->ts;
		io.end = end;
		io.p = p;
		io.chunk = n;
		io.kind = 'g';
		ioadd(g, &io);
	}
}

/* -------- names of threads, and the end -------- */

/* The N of "(node N, pid P)" in a process name (ltparse -n), or -1. */
static long long
nodeof(const char *v, size_t n)
{
	size_t i;
	int64_t x;
	const char *e;

	for (i = 0; i + 6 < n; i++)
		if (memcmp(v + i, "(node ", 6) == 0) {
			e = memchr(v + i + 6, ',', n - i - 6);
			if (e != NULL && lt_int_parse(v + i + 6,
			    (size_t)(e - v - i - 6), &x) == LT_NUM_OK && x >= 0)
				return x;
		}
	return -1;
}

/*
 * The names and sort indexes of threads, in ST.text, each text once: a
 * long job names tens of thousands of threads, with a few names.  A
 * thread's is its index there, plus 1 (0: none).
 */
const char *
st_text(uint32_t i, size_t *n)
{
	return i != 0 ? lt_strtab_key(&ST.text, i - 1, n) : NULL;
}

/*
 * thread_name and thread_sort_index: the wait track follows them;
 * process_name: the node of ltparse -n.
 */
const char *
st_meta(const struct ltrec *rec)
{
	static char msg[128];
	const struct ltfield *nm = &rec->f[LT_NAME];
	struct ltfield k, val;
	struct ltobj it;
	struct proc *p;
	struct thr *t;
	const char *v, *why, *key;
	long at;
	size_t vn;
	uint32_t x;
	int r;

	if (LT_IS(*nm, "thread_name") || LT_IS(*nm, "process_name"))
		key = "\"name\"";
	else if (LT_IS(*nm, "thread_sort_index"))
		key = "\"sort_index\"";
	else
		return NULL;
	/* The args are checked as they are walked. */
	v = NULL;
	vn = 0;
	lt_obj_init(&it, rec->f[LT_ARGS].p, rec->f[LT_ARGS].n);
	while ((r = lt_obj_next(&it, &k, &val)) > 0)
		if (v == NULL && k.n == strlen(key) &&
		    memcmp(k.p, key, k.n) == 0) {
			v = val.p;
			vn = val.n;
		}
	if (r < 0) {
		snprintf(msg, sizeof(msg), "column args: %s", it.err);
		return msg;
	}
	if (LT_IS(*nm, "process_name")) {
		if (v != NULL && (p = lt_id_get(&ST.procs, &rec->f[LT_PID], NULL,
		    0, NULL)) != NULL) {
			/* Asleep, it is set where it is packed, and sleeps. */
			if (p->thrpk)
				st_nodeset(p, nodeof(v, vn));
			else
				st_ext(p)->node = nodeof(v, vn);
		}
		return NULL;
	}
	/*
	 * A log names its threads at its end: one asleep is named where
	 * it is packed, and left asleep.
	 */
	p = lt_id_get(&ST.procs, &rec->f[LT_PID], NULL, 0, NULL);
	at = p != NULL && p->thrpk ? st_thrfind(p, &rec->f[LT_TID]) : -1;
	if (at < 0 && st_proc(&rec->f[LT_PID], &rec->f[LT_TID], &t,
	    &why) == NULL)
		return why;
	if (v == NULL)
		return NULL;
	if (LT_IS(*nm, "thread_name") && (vn < 2 || v[0] != '"'))
		return NULL;
	x = (uint32_t)lt_strtab_get(&ST.text, v, vn, NULL) + 1;
	if (at >= 0)
		st_thrset(p, at + (LT_IS(*nm, "thread_name") ? 0 : 4), x);
	else if (LT_IS(*nm, "thread_name"))
		t->name = x;
	else
		t->sort = x;
	return NULL;
}

void
st_init(int ntop, int tflag, struct ltout *out)
{
	memset(&ST, 0, sizeof(ST));
	ST.ntop = ntop;
	ST.tflag = tflag;
	ST.out = out;
	lt_id_init(&ST.procs, sizeof(struct proc));
	lt_id_init(&ST.thrs, sizeof(struct thr));
	lt_id_init(&ST.cattab, sizeof(struct cat));
	ST.slowdl = lt_calloc((size_t)ntop, sizeof(*ST.slowdl));
	ST.slowrd = lt_calloc((size_t)ntop, sizeof(*ST.slowrd));
	st_sleep_init();
}

static void
flushctr(void *e)
{
	struct proc *p = e;

	if (p->io) {
		st_ctr_flush(p);
		st_sleep(p);
	}
}

/* The input has ended: what still waits is written. */
void
st_end(void)
{
	struct ltfield pid, tid;
	struct epoch *e;
	struct rank *r;
	size_t i, j;

	if (!ST.hast0)
		ST.t0 = ST.hasmin ? ST.min : 0;
	lt_id_each(&ST.procs, flushctr);
	st_cause_end();
	st_steps_end();
	st_kin_end();
	for (i = 0; i < ST.nranks; i++) {
		r = ST.ranks[i];
		st_share_close(r);
		/* An epoch whose span never came: its first wait is unknown. */
		for (j = 0; j < r->nep; j++) {
			e = &r->ep[j];
			e->resolved = 1;
			st_share_head(r, e, 0, 0);
			freepend(e);
		}
		pid.p = lt_id_key(&r->p->h) + 1;
		pid.n = r->p->h.keyn - 1;
		tid.p = r->wtid;
		tid.n = strlen(r->wtid);
		r->wtidclash = lt_id_get(&ST.thrs, &pid, &tid, 0, NULL) != NULL;
		if (r->nwaits > 0)
			st_emit_meta(r);
	}
}

static void
freeproc(void *e)
{
	struct proc *p = e;

	st_pio_free(p);
	free(p->x);
}

void
st_free(void)
{
	struct group *g, *next;
	struct rank *r;
	size_t i, j;

	for (i = 0; i < ST.nranks; i++) {
		r = ST.ranks[i];
		for (j = 0; j < r->nep; j++)
			freepend(&r->ep[j]);
		free(r->ep);
		free(r->top);
		free(r);
	}
	free(ST.ranks);
	free(ST.grpv);
	for (g = ST.groups; g != NULL; g = next) {
		next = g->next;
		free(g->io);
		free(g->r);
		st_cause_free(g);
		free(g);
	}
	st_steps_free();
	st_kin_free();
	free(ST.crashmsg);
	for (i = 0; i < ST.ncfg; i++)
		free(ST.cfg[i].text);
	free(ST.cfg);
	free(ST.natt);
	for (i = 0; i < ST.ncats; i++)
		st_hist_free(&ST.cats[i]->h);
	free(ST.cats);
	lt_id_free(&ST.cattab, NULL);
	free(ST.slowdl);
	free(ST.slowrd);
	lt_id_free(&ST.procs, freeproc);
	st_sleep_free();
	lt_id_free(&ST.thrs, NULL);
	lt_strtab_free(&ST.text);
	memset(&ST, 0, sizeof(ST));
}
