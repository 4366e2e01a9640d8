/* See LICENSE file for copyright and license details. */
/*
 * emit.c: the records that ltstat -t adds to the stream it passes on.
 *
 * A wait is an X slice "data wait" (category wait) on a track of its
 * own in the rank's main process, named after the main thread with
 * " data wait" and given its sort index, so that it sorts right under
 * it.  A flow (category flow, name chunk) joins a chunk's download to
 * its read, and its read to its delete: s at the start of the slice
 * that starts first, with the chunk in args, f with "bp":"e" at the
 * start of the other, with none (a read that waits for its download
 * begins before it), since Perfetto binds a flow's end only after its
 * start, and a slice is the top of its track's stack at its start (an
 * X sorts before a flow at one ts).
 * Counters are C records: "chunks" with "downloading" and
 * "in cache" per worker, "data wait" with "share" per rank and second.
 */
#include <stdlib.h>

#include "ltstat.h"

static void
put(const char *s)
{
	lt_out_puts(ST.out, s);
}

static void
puti(int64_t v)
{
	char num[LT_NUMBUF];

	lt_out_write(ST.out, num, lt_i64_fmt(num, v));
}

/* pid TAB tid of a thread, from its key. */
static void
putthr(const struct thr *t)
{
	lt_out_write(ST.out, lt_id_key(&t->h) + 1, t->h.keyn - 1);
}

static void
putpid(const struct proc *p)
{
	lt_out_write(ST.out, lt_id_key(&p->h) + 1, p->h.keyn - 1);
}

/*
 * A wait's slice, its split by cause in its args: the cause that took
 * most of it, then each cause's share in µs, those of none left out.
 */
void
st_emit_wait(struct rank *r, int64_t ep, int64_t batch, int64_t ts,
    int64_t dur, const int64_t *cause)
{
	int k;

	if (!(ST.tflag & T_WAITS))
		return;
	ST.waits_out++;
	lt_put_us(ST.out, ts);
	put("\tX\t");
	putpid(r->p);
	lt_out_putc(ST.out, '\t');
	put(r->wtid);
	lt_out_putc(ST.out, '\t');
	lt_put_us(ST.out, dur);
	put("\twait\tdata wait\t{");
	if (batch >= 0) {
		put("\"batch\":");
		puti(batch);
	}
	if (ep >= 0) {
		put(batch >= 0 ? ",\"epoch\":" : "\"epoch\":");
		puti(ep);
	}
	put(batch >= 0 || ep >= 0 ? ",\"cause\":\"" : "\"cause\":\"");
	put(st_causekey[st_cause_top(cause)]);
	lt_out_putc(ST.out, '"');
	for (k = 0; k < NCAUSE; k++) {
		if (cause[k] == 0)
			continue;
		lt_out_putc(ST.out, ',');
		lt_out_putc(ST.out, '"');
		put(st_causekey[k]);
		put("_us\":");
		lt_put_us(ST.out, cause[k]);
	}
	put("}\t{}\n");
}

static void
flowrec(int64_t ts, int ph, const struct thr *t, int64_t chunk)
{
	lt_put_us(ST.out, ts);
	lt_out_putc(ST.out, '\t');
	lt_out_putc(ST.out, ph);
	lt_out_putc(ST.out, '\t');
	putthr(t);
	/*
	 * The chunk on the start alone: trace-viewer merges the args of
	 * a flow's events and warns (arg_merge_error) for a key on both.
	 */
	if (ph == 's') {
		put("\t-\tflow\tchunk\t{\"chunk\":");
		puti(chunk);
		put("}\t{\"id\":");
	} else
		put("\t-\tflow\tchunk\t{}\t{\"bp\":\"e\",\"id\":");
	puti(ST.flowid);
	put("}\n");
}

/*
 * A flow joining slices a and b, of one chunk of p: s at the start of
 * the one that starts first (a on a tie), f at the start of the other.
 */
void
st_emit_flow(struct proc *p, int64_t chunk, const struct span *a,
    const struct span *b)
{
	const struct span *t;

	(void)p;
	/*
	 * A slice of no duration (one ltpair closed where it began) has
	 * no inside: split into B and E (ltlanefix -k), it has ended when
	 * a flow of its ts comes.
	 */
	if (!(ST.tflag & T_FLOWS) || a->dur == 0 || b->dur == 0)
		return;
	if (b->ts < a->ts) {
		t = a;
		a = b;
		b = t;
	}
	ST.flows++;
	ST.flowid++;
	flowrec(a->ts, 's', a->t, chunk);
	flowrec(b->ts, 'f', b->t, chunk);
}

void
st_emit_ctr(struct proc *p, int64_t ts, int which, long long v)
{
	if (!(ST.tflag & T_COUNTERS))
		return;
	ST.counters++;
	lt_put_us(ST.out, ts);
	put("\tC\t");
	putthr(p->x->thr0);
	put(which == 'd' ? "\t-\tchunk\tchunks\t{\"downloading\":" :
	    "\t-\tchunk\tchunks\t{\"in cache\":");
	puti(v);
	put("}\t{}\n");
}

/* The share wait / covered, to three decimals, shortest form. */
void
st_emit_share(struct rank *r, int64_t ts, int64_t wait, int64_t covered)
{
	char num[8];
	int64_t pm;
	int n = 0;

	if (!(ST.tflag & T_SHARE) || covered <= 0)
		return;
	ST.counters++;
	pm = (wait * 1000 + covered / 2) / covered;
	num[n++] = (char)('0' + pm / 1000);
	if ((pm %= 1000) != 0) {
		num[n++] = '.';
		num[n++] = (char)('0' + pm / 100);
		if ((pm %= 100) != 0) {
			num[n++] = (char)('0' + pm / 10);
			if ((pm %= 10) != 0)
				num[n++] = (char)('0' + pm);
		}
	}
	num[n] = '\0';
	lt_put_us(ST.out, ts);
	put("\tC\t");
	putthr(r->main);
	put("\t-\twait\tdata wait\t{\"share\":");
	put(num);
	put("}\t{}\n");
}

/* The name and sort index of r's wait track. */
void
st_emit_meta(struct rank *r)
{
	const struct thr *m = r->main;
	const char *tid = lt_id_key(&m->h) + TIDOFF(m), *name, *sort;
	size_t tn = m->h.keyn - TIDOFF(m), nn, sn;
	int64_t v;

	if (!(ST.tflag & T_WAITS))
		return;
	put("-\tM\t");
	putpid(r->p);
	lt_out_putc(ST.out, '\t');
	put(r->wtid);
	put("\t-\t\tthread_name\t{\"name\":");
	if ((name = st_text(m->name, &nn)) != NULL)
		lt_out_write(ST.out, name, nn - 1);
	else if (tid[0] == '"') {
		put("\"tid ");
		lt_out_write(ST.out, tid + 1, tn - 2);
	} else {
		put("\"tid ");
		lt_out_write(ST.out, tid, tn);
	}
	put(" data wait\"}\t{}\n");
	/* No sort index to give without one or an integer tid. */
	if ((sort = st_text(m->sort, &sn)) == NULL &&
	    lt_int_parse(tid, tn, &v) != LT_NUM_OK)
		return;
	put("-\tM\t");
	putpid(r->p);
	lt_out_putc(ST.out, '\t');
	put(r->wtid);
	put("\t-\t\tthread_sort_index\t{\"sort_index\":");
	if (sort != NULL)
		lt_out_write(ST.out, sort, sn);
	else
		lt_out_write(ST.out, tid, tn);
	put("}\t{}\n");
	/* A main thread without a sort index gets its tid, as lanes do. */
	if (sort == NULL) {
		put("-\tM\t");
		putthr(m);
		put("\t-\t\tthread_sort_index\t{\"sort_index\":");
		lt_out_write(ST.out, tid, tn);
		put("}\t{}\n");
	}
}

/* -------- the data-wait share per second -------- */

static int64_t
second(int64_t ts)
{
	return ts / NS_PER_S - (ts % NS_PER_S < 0);
}

/* The start of second k, within int64. */
static int64_t
secstart(int64_t k)
{
	if (k >= INT64_MAX / NS_PER_S)
		return INT64_MAX;
	if (k <= INT64_MIN / NS_PER_S)
		return INT64_MIN;
	return k * NS_PER_S;
}

/*
 * The second being filled is done.  The first second of an epoch whose
 * first wait is not known yet (its span comes at its end) waits in the
 * epoch, for st_share_head.
 */
static void
flush(struct rank *r)
{
	struct share *s = &r->sh;
	struct epoch *e;

	if (!s->on)
		return;
	s->on = 0;
	if (s->headep >= 0 && (e = &r->ep[s->headep])->headpend &&
	    !e->hashead) {
		s->headep = -1;
		e->hashead = 1;
		e->x->hk = s->k;
		e->x->hfrom = s->from;
		e->x->hwait = s->wait;
		e->x->hbusy = s->busy;
		return;
	}
	s->headep = -1;
	st_emit_share(r, s->from, s->wait, s->wait + s->busy);
}

/* [ts, end) of r was a wait (iswait) or a batch, after what came so far. */
void
st_share_add(struct rank *r, int64_t ts, int64_t end, int iswait)
{
	struct share *s = &r->sh;
	int64_t k, next, piece;

	if (!(ST.tflag & T_SHARE))
		return;
	/* A region of waits alone ends with them, not at time 0. */
	if (!s->inregion)
		s->regend = end;
	s->inregion = 1;
	while (ts < end) {
		k = second(ts);
		if (!s->on || k != s->k) {
			flush(r);
			s->on = 1;
			s->k = k;
			s->from = ts;
			s->wait = s->busy = 0;
		}
		next = secstart(k + 1);
		/* Whole seconds of one kind share one value. */
		if (ts == secstart(k) && end >= next && s->headep < 0 &&
		    secstart(second(end)) > ts) {
			st_emit_share(r, ts, iswait, 1);
			s->on = 0;
			ts = secstart(second(end));
			continue;
		}
		piece = (end < next ? end : next) - ts;
		if (piece <= 0)
			break;
		if (iswait)
			s->wait += piece;
		else
			s->busy += piece;
		ts += piece;
	}
	if (!iswait)
		s->regend = end;
}

/* The next second filled is the first of e, whose first wait is unknown. */
void
st_share_first(struct rank *r, struct epoch *e)
{
	if (!(ST.tflag & T_SHARE))
		return;
	e->headpend = 1;
	r->sh.headep = (long)(e - r->ep);
}

/* The first wait of e, [ts, end), known at last (or never: ts == end). */
void
st_share_head(struct rank *r, struct epoch *e, int64_t ts, int64_t end)
{
	struct share *s = &r->sh;
	int64_t *from, *wait, *busy, k0;

	if (!(ST.tflag & T_SHARE) || !e->headpend)
		return;
	e->headpend = 0;
	if (e->hashead) {
		k0 = e->x->hk;
		from = &e->x->hfrom;
		wait = &e->x->hwait;
		busy = &e->x->hbusy;
	} else if (s->on && s->headep == (long)(e - r->ep)) {
		s->headep = -1;
		k0 = s->k;
		from = &s->from;
		wait = &s->wait;
		busy = &s->busy;
	} else
		return;
	if (ts < end) {
		if (ts < secstart(k0)) {
			st_emit_share(r, ts, 1, 1);
			ts = secstart(k0);
		}
		*wait += end - ts;
		*from = ts;
	}
	if (e->hashead) {
		e->hashead = 0;
		st_emit_share(r, *from, *wait, *wait + *busy);
	}
}

/* The batches of r stop for now: the last second, then 0 after it. */
void
st_share_close(struct rank *r)
{
	struct share *s = &r->sh;

	if (!(ST.tflag & T_SHARE))
		return;
	flush(r);
	if (s->inregion)
		st_emit_share(r, s->regend, 0, 1);
	s->inregion = 0;
}
