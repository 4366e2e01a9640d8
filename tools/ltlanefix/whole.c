/* See LICENSE file for copyright and license details. */
/*
 * whole.c: ltlanefix(1) on a whole stream.  Every line is kept; at the
 * end the X slices of each track are placed, the s/t/f flow events
 * bound to a changed slice move with it, and the stream is written back
 * in its order: every record once, changed ones rewritten in their ts,
 * tid and dur columns, the naming of the new lanes after the last M
 * record.  With -k the timed records are written in time order instead,
 * each slice as a B and an E record, as Perfetto needs to nest them.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

struct flow {
	size_t		 off;		/* line in the arena */
	int64_t		 ts;
	uint32_t	 thread;
	uint32_t	 bound;		/* slice, or LF_NONE */
	int		 next;		/* f without bp "e": the next slice */
	int64_t		 nts;
	int		 moved;		/* tid changes */
};

static struct ltbuf	 arena;		/* every input line */
static size_t		 mpos;		/* new M records go here */
static struct lfslice	*sl;		/* X slices in input order */
static size_t		*soff;		/* their lines */
static uint32_t		*sthread;
static size_t		 nsl, capsl;
static uint32_t		*byidx;		/* slices grouped by track */
static uint32_t		*tn;		/* slices per track */
static size_t		 ntn, captn;
static struct flow	*flows;
static size_t		 nflows, capflows;

static char *
at(size_t off)
{
	/* No line read (an empty stream): no arena, and no byte of it. */
	return arena.p != NULL ? arena.p + off : NULL;
}

static size_t
nextline(size_t pos)
{
	return (size_t)((char *)memchr(at(pos), '\n', arena.n - pos) -
	    arena.p) + 1;
}

/* The line at off, up to its newline. */
static void
cols(size_t off, struct ltfield f[LT_NCOL])
{
	lf_cols(at(off), arena.n - off, f);
}

static uint32_t
trackof(const struct lf *lf, size_t i)
{
	return lf->ids.th[sthread[i]].track - 1;
}

static const struct lane *
laneof(const struct lf *lf, size_t i)
{
	return lf_laneof(lf, trackof(lf, i), &sl[i]);
}

static void
addslice(struct lf *lf, struct ltrd *rd, int64_t ts, int64_t dur,
    size_t off, uint32_t th)
{
	uint32_t t;

	if (nsl >= LF_NONE - 1)
		lt_die(LT_EXIT_SYS, "too many slices");
	if (nsl == capsl) {
		capsl = capsl != 0 ? capsl * 2 : 1024;
		sl = lt_reallocarray(sl, capsl, sizeof(*sl));
		soff = lt_reallocarray(soff, capsl, sizeof(*soff));
		sthread = lt_reallocarray(sthread, capsl, sizeof(*sthread));
	}
	lf_slicetimes(rd, ts, dur, &sl[nsl]);
	soff[nsl] = off;
	sthread[nsl] = th;
	t = lf_track(lf, th, at(off), arena.n - off);
	if (t >= ntn) {
		tn = lt_grow(tn, &captn, (size_t)t + 1, sizeof(*tn));
		tn[ntn++] = 0;
	}
	tn[t]++;
	nsl++;
	lf->nslices++;
}

static void
addflow(struct lf *lf, const struct ltrec *rec, int64_t ts, size_t off,
    uint32_t th)
{
	const struct ltfield *x = &rec->f[LT_EXTRA];
	struct flow *fl;
	const char *v;
	size_t vn;

	flows = lt_grow(flows, &capflows, nflows + 1, sizeof(*flows));
	fl = &flows[nflows++];
	memset(fl, 0, sizeof(*fl));
	fl->off = off;
	fl->ts = fl->nts = ts;
	fl->thread = th;
	fl->bound = LF_NONE;
	fl->next = rec->f[LT_PH].p[0] == 'f' &&
	    !((v = lt_json_member(x->p, x->n, "bp", &vn)) != NULL &&
	    vn == 3 && memcmp(v, "\"e\"", 3) == 0);
	lf->nflows++;
}

static size_t		 lastm, lastrec;

/*
 * A line of the stream (k: LT_REC or LT_DIR) into the arena; slices and
 * flows noted.  The directives of ltpair for a stage that places slices
 * as it goes are not kept: every slice here is placed at the end.
 */
void
lf_whole_add(struct lf *lf, struct ltrd *rd, const struct ltrec *rec, int k)
{
	size_t off = arena.n;
	uint32_t th;
	int c, has[2];
	int64_t v[2];

	if (k != LT_REC && lf_isours(rec->line, rec->len))
		return;
	lt_buf_add(&arena, rec->line, rec->len);
	lt_buf_addc(&arena, '\n');
	if (k != LT_REC)
		return;
	lf->nevents++;
	lastrec = arena.n;
	th = lf_record(lf, rd, rec, v, has);
	c = rec->f[LT_PH].p[0];
	if (c == 'X') {
		if (has[0] && has[1])
			addslice(lf, rd, v[0], v[1], off, th);
		else
			lf->nunplaced++;
	} else if ((c == 's' || c == 't' || c == 'f') && has[0])
		addflow(lf, rec, v[0], off, th);
	else if (c == 'M') {
		lf_meta(&lf->ids, rec, th);
		lastm = arena.n;
	} else if (c == 'B' || c == 'E')
		lf->nbe++;
}

/* The end of the stream: the naming of new lanes goes with the other. */
void
lf_whole_end(void)
{
	mpos = lastm != 0 ? lastm : lastrec != 0 ? lastrec : arena.n;
}

/*
 * The lines held so far, one by one from *pos (0 first), for a stage
 * that goes on without holding them: a slice, a flow, or another line.
 * Returns 0 after the last.
 */
int
lf_whole_held(size_t *pos, struct lfheld *h)
{
	static size_t i, j;
	size_t next;

	if (*pos == 0)
		i = j = 0;
	if (*pos >= arena.n)
		return 0;
	next = nextline(*pos);
	h->p = at(*pos);
	h->n = next - *pos - 1;
	h->kind = LF_LINE;
	h->rec = h->p[0] != '#';
	h->meta = h->rec && h->n > 2 && memchr(h->p, '\t', h->n) != NULL &&
	    memcmp((char *)memchr(h->p, '\t', h->n) + 1, "M\t", 2) == 0;
	if (i < nsl && soff[i] == *pos) {
		h->kind = LF_SLICE;
		h->x = sl[i];
		h->thread = sthread[i++];
	} else if (j < nflows && flows[j].off == *pos) {
		h->kind = LF_FLOW;
		h->ts = flows[j].ts;
		h->next = flows[j].next;
		h->thread = flows[j++].thread;
	}
	*pos = next;
	return 1;
}

/* -------- placement -------- */

static const struct lf *sorting;

static int
flowcmp(const void *a, const void *b)
{
	const struct flow *x = &flows[*(const uint32_t *)a];
	const struct flow *y = &flows[*(const uint32_t *)b];
	uint32_t tx = sorting->ids.th[x->thread].track;
	uint32_t ty = sorting->ids.th[y->thread].track;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * The slice each flow of a track was bound to, on the times as read:
 * at a slice start, the innermost slice starting there (the outermost
 * for an f without bp "e", which binds to the next slice to begin);
 * elsewhere the innermost slice enclosing it, or for that f the first
 * slice after it.  idx[0..n) are the track's slices sorted, fl[0..nf)
 * its flows sorted by ts.
 */
static void
bindflows(const uint32_t *idx, size_t n, const uint32_t *fl, size_t nf)
{
	static uint32_t *stack;
	static size_t cap;
	struct flow *f;
	size_t i, p = 0, q = 0, top = 0;

	if (idx == NULL) {
		free(stack);
		stack = NULL;
		cap = 0;
		return;
	}
	stack = lt_grow(stack, &cap, n, sizeof(*stack));
	for (i = 0; i < nf; i++) {
		f = &flows[fl[i]];
		while (p < n && sl[idx[p]].ts < f->ts)
			stack[top++] = (uint32_t)p++;
		if (q < p)
			q = p;
		while (q < n && sl[idx[q]].ts == f->ts)
			q++;
		if (p < q)
			f->bound = idx[f->next ? p : q - 1];
		else if (f->next)
			f->bound = q < n ? idx[q] : LF_NONE;
		else {
			while (top > 0 && sl[idx[stack[top - 1]]].end <= f->ts)
				top--;
			f->bound = top > 0 ? idx[stack[top - 1]] : LF_NONE;
		}
	}
}

/* A flow follows its slice: onto its lane, and to its new start. */
static void
follow(struct lf *lf)
{
	struct flow *f;
	size_t i;

	for (i = 0; i < nflows; i++) {
		f = &flows[i];
		if (f->bound != LF_NONE)
			lf->nrewritten += lf_follow(&sl[f->bound], f->ts,
			    f->next, &f->nts, &f->moved);
	}
}

/*
 * Crossing pairs of a placed track, before and after, lane by lane as
 * placed (so in order of start on each lane), with one counter.
 */
static void
crossings(struct lf *lf, const uint32_t *idx, size_t n, uint32_t nlanes)
{
	static struct lfxc c;
	static uint32_t *at0, *bylane;
	static size_t ccap, bcap;
	const struct lfslice *x;
	size_t p;
	uint32_t k;

	if (idx == NULL) {
		lf_xc_free(&c);
		free(at0);
		free(bylane);
		at0 = bylane = NULL;
		ccap = bcap = 0;
		return;
	}
	lf_xc_reset(&c);
	for (p = 0; p < n; p++)
		lf->xbefore += lf_xc_add(&c, sl[idx[p]].ts, sl[idx[p]].end);
	at0 = lt_grow(at0, &ccap, (size_t)nlanes + 1, sizeof(*at0));
	bylane = lt_grow(bylane, &bcap, n, sizeof(*bylane));
	memset(at0, 0, ((size_t)nlanes + 1) * sizeof(*at0));
	for (p = 0; p < n; p++)
		at0[sl[idx[p]].lane + 1]++;
	for (k = 1; k <= nlanes; k++)
		at0[k] += at0[k - 1];
	for (p = 0; p < n; p++)
		bylane[at0[sl[idx[p]].lane]++] = idx[p];
	for (k = 0, p = 0; k < nlanes; k++) {
		lf_xc_reset(&c);
		for (; p < at0[k]; p++) {
			x = &sl[bylane[p]];
			lf->xafter += lf_xc_add(&c, x->nts, x->nend);
		}
	}
}

/* Place every track, then move the flows. */
void
lf_whole_place(struct lf *lf)
{
	uint32_t *fidx, *start, t, i, p, fl = 0, nf = 0;
	size_t ntr = lf->ntracks;

	byidx = lt_reallocarray(NULL, nsl, sizeof(*byidx));
	start = lt_calloc(ntr + 1, sizeof(*start));
	for (t = 0; t < ntr; t++)
		start[t + 1] = start[t] + tn[t];
	for (i = 0; i < nsl; i++)
		byidx[start[trackof(lf, i)]++] = i;
	for (t = 0; t < ntr; t++)
		start[t] -= tn[t];

	fidx = lt_reallocarray(NULL, nflows, sizeof(*fidx));
	for (i = 0; i < nflows; i++)
		if (lf->ids.th[flows[i].thread].track != 0)
			fidx[nf++] = i;
	sorting = lf;
	qsort(fidx, nf, sizeof(*fidx), flowcmp);

	for (t = 0; t < ntr; t++) {
		lt_prog_at(&lf->prog, start[t]);
		lf_lanes_sort(&lf->work, sl, byidx + start[t], tn[t]);
		for (p = 0; p < tn[t]; p++) {
			i = byidx[start[t] + p];
			lf_place(lf, t, &sl[i], at(soff[i]), arena.n - soff[i]);
		}
		crossings(lf, byidx + start[t], tn[t],
		    lf_nlane(&lf->tracks[t]) + 1);
		lf_track_done(lf, t);
		for (i = fl; fl < nf &&
		    lf->ids.th[flows[fidx[fl]].thread].track == t + 1; fl++)
			;
		bindflows(byidx + start[t], tn[t], fidx + i, fl - i);
	}
	free(fidx);
	free(start);
	follow(lf);
}

/* -------- output -------- */

static void
putslice(struct lf *lf, size_t i)
{
	struct ltfield f[LT_NCOL];

	cols(soff[i], f);
	lf_putslice(&lf->out, f, &sl[i], &lf->ids, laneof(lf, i));
}

static void
putflow(struct lf *lf, struct ltout *o, const struct flow *fl)
{
	struct ltfield f[LT_NCOL];

	cols(fl->off, f);
	lf_putrec(o, f, fl->nts != fl->ts ? &fl->nts : NULL,
	    &lf->ids, fl->moved ? laneof(lf, fl->bound) : NULL, NULL,
	    NULL);
}

/* The stream in its order, with changed slices and flows rewritten. */
static void
writeall(struct lf *lf)
{
	size_t pos = 0, i = 0, j = 0, so, fo, mo = mpos, o;

	lf->prog.total = (long long)arena.n;
	lt_put_header(&lf->out);
	for (;;) {
		lt_prog_at(&lf->prog, (long long)pos);
		while (i < nsl && !lf_changed(&sl[i]))
			i++;
		while (j < nflows && !flows[j].moved &&
		    flows[j].nts == flows[j].ts)
			j++;
		so = i < nsl ? soff[i] : SIZE_MAX;
		fo = j < nflows ? flows[j].off : SIZE_MAX;
		o = so < fo ? so : fo;
		o = mo < o ? mo : o;
		if (o == SIZE_MAX)
			break;
		lt_out_write(&lf->out, at(pos), o - pos);
		pos = o;
		if (o == mo) {
			lf->nadded += lf_putlanes(&lf->out, &lf->ids,
			    lf->tracks, lf->ntracks);
			mo = SIZE_MAX;
			continue;
		}
		if (o == so)
			putslice(lf, i++);
		else
			putflow(lf, &lf->out, &flows[j++]);
		pos = nextline(pos);
	}
	lt_out_write(&lf->out, at(pos), arena.n - pos);
}

/*
 * -k: every slice as a B and an E record.  Perfetto sorts a trace by ts
 * and, with no X in it, keeps the file order of equal ones, which then
 * decides the nesting; so the timed records are written sorted, and at
 * one ts: the ends, inner first; the flows that bind to the next slice;
 * the begins, outer first; zero-length slices, B then E; and the rest
 * in stream order.  Directives and untimed records keep their order and
 * come first, the naming of the new lanes among them (split.c sorts).
 * Line k of the stream sorts as 2k + 1, the naming before it as 2k.
 */
static void
writesplit(struct lf *lf)
{
	struct ltfield f[LT_NCOL];
	const struct flow *fl;
	struct ltout *o;
	size_t pos, next, i = 0, j = 0;
	uint64_t seq;
	int named = 0;

	lf->prog.total = (long long)arena.n;
	lt_put_header(&lf->out);
	for (pos = 0, seq = 1; pos < arena.n; pos = next, seq += 2) {
		if ((seq & 8191) == 1)
			lt_prog_at(&lf->prog, (long long)pos);
		next = nextline(pos);
		if (!named && pos >= mpos) {
			lf->nadded += lf_putlanes(lf_split_put(LF_KHEAD, 0, 0,
			    seq - 1, 0), &lf->ids, lf->tracks, lf->ntracks);
			named = 1;
		}
		if (i < nsl && soff[i] == pos) {
			cols(pos, f);
			lf_split_slice(lf, f, &sl[i], laneof(lf, i), seq);
			i++;
		} else if (j < nflows && flows[j].off == pos) {
			fl = &flows[j++];
			putflow(lf, lf_split_put(fl->next ? LF_KNEXT :
			    LF_KOTHER, fl->nts, 0, seq, 0), fl);
		} else {
			o = lf_split_line(at(pos), next - pos - 1, seq);
			lt_out_write(o, at(pos), next - pos);
		}
	}
	if (!named)
		lf->nadded += lf_putlanes(lf_split_put(LF_KHEAD, 0, 0,
		    UINT64_MAX, 0), &lf->ids, lf->tracks, lf->ntracks);
	lf_split_write(lf, (long long)arena.n);
}

void
lf_whole_write(struct lf *lf)
{
	if (lf->kflag)
		writesplit(lf);
	else
		writeall(lf);
}

/* Let go of everything held (again: a no-op). */
void
lf_whole_free(void)
{
	bindflows(NULL, 0, NULL, 0);
	crossings(NULL, NULL, 0, 0);
	free(sl);
	free(soff);
	free(sthread);
	free(byidx);
	free(tn);
	free(flows);
	lt_buf_free(&arena);
	sl = NULL;
	soff = NULL;
	sthread = NULL;
	byidx = NULL;
	tn = NULL;
	flows = NULL;
	nsl = capsl = ntn = captn = nflows = capflows = 0;
}
