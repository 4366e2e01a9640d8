/* See LICENSE file for copyright and license details. */
/*
 * track.c: the tracks of ltlanefix(1) and the placing of one slice: the
 * engine (lanes.c) puts it on a lane, a new lane gets its tid (ids.c),
 * the crossings before and after are counted (cross.c), the counters of
 * the #stat line move on, and a changed slice goes into the report.
 * Whatever holds the slices (all of them, or a window of the stream)
 * calls lf_place for each, in the order of lf_lanes_sort per track.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

/*
 * The nine columns of a stored record line, which ends at a newline or
 * after n bytes (its columns were checked).
 */
void
lf_cols(char *p, size_t n, struct ltfield *f)
{
	char *end = memchr(p, '\n', n), *tab;
	int i;

	if (end == NULL)
		end = p + n;
	for (i = 0; i < LT_NCOL - 1; i++) {
		tab = memchr(p, '\t', (size_t)(end - p));
		f[i].p = p;
		f[i].n = (size_t)(tab - p);
		p = tab + 1;
	}
	f[LT_EXTRA].p = p;
	f[LT_EXTRA].n = (size_t)(end - p);
}

/* The track of thread th, made at its first slice, the record line. */
uint32_t
lf_track(struct lf *lf, uint32_t th, char *line, size_t n)
{
	struct thread *t = &lf->ids.th[th];
	struct ltfield f[LT_NCOL];
	struct track *tr;

	if (t->track != 0)
		return t->track - 1;
	if (lf->ntracks >= LF_NONE - 1)
		lt_die(LT_EXIT_SYS, "too many tracks");
	lf->tracks = lt_grow(lf->tracks, &lf->captracks, lf->ntracks + 1,
	    sizeof(*lf->tracks));
	tr = &lf->tracks[lf->ntracks];
	memset(tr, 0, sizeof(*tr));
	tr->thread = th;
	if (lf->rep != NULL) {
		lf_cols(line, n, f);
		lf_rep_track(lf->rep, lf->ntracks, f);
	}
	t->track = (uint32_t)++lf->ntracks;
	return t->track - 1;
}

int
lf_changed(const struct lfslice *x)
{
	return x->lane != 0 || x->nts != x->ts || x->nend != x->end;
}

uint32_t
lf_nlane(const struct track *tr)
{
	return tr->lanes != NULL ? tr->lanes->n : 0;
}

/* Lane k (from 1) of track tr. */
const struct lane *
lf_lane(const struct track *tr, uint32_t k)
{
	return &tr->lanes->l[k - 1];
}

const struct lane *
lf_laneof(const struct lf *lf, uint32_t t, const struct lfslice *x)
{
	return x->lane == 0 ? NULL : lf_lane(&lf->tracks[t], x->lane);
}

/*
 * What places the slices of track t, made when needed.  Few tracks are
 * placed at a time: the track has an index in lf.pl, not a pointer.
 */
struct lfplace *
lf_placer(struct lf *lf, uint32_t t)
{
	struct track *tr = &lf->tracks[t];
	uint32_t i;

	if (tr->pl == 0) {
		if (lf->nfreepl > 0)
			i = lf->freepl[--lf->nfreepl];
		else {
			lf->pl = lt_grow(lf->pl, &lf->cappl, lf->npl + 1,
			    sizeof(*lf->pl));
			i = (uint32_t)lf->npl++;
		}
		lf->pl[i] = lt_calloc(1, sizeof(*lf->pl[i]));
		lf_track_init(&lf->pl[i]->eng);
		tr->pl = i + 1;
	}
	return lf->pl[tr->pl - 1];
}

/* The crossing counter of lane k of track t, made when first needed. */
struct lfxc *
lf_after(struct lf *lf, uint32_t t, uint32_t k)
{
	struct lfplace *pl = lf_placer(lf, t);
	size_t old = pl->capafter;

	if (k >= old) {
		pl->after = lt_grow(pl->after, &pl->capafter, (size_t)k + 1,
		    sizeof(*pl->after));
		memset(pl->after + old, 0,
		    (pl->capafter - old) * sizeof(*pl->after));
	}
	return &pl->after[k];
}

/* Lane k of track t exists: its tid is made when it is first used. */
static void
uselane(struct lf *lf, uint32_t t, uint32_t k)
{
	struct track *tr = &lf->tracks[t];
	size_t cap;
	uint32_t n;

	while (k > (n = lf_nlane(tr))) {
		/*
		 * Most tracks have no lane or one: room for one, then 2,
		 * 4... (with their count, two would take a larger chunk).
		 */
		if ((n & (n - 1)) == 0) {
			cap = n != 0 ? 2 * (size_t)n : 1;
			if (cap > (SIZE_MAX - sizeof(*tr->lanes)) /
			    sizeof(tr->lanes->l[0]))
				lt_die(LT_EXIT_SYS, "too many lanes");
			tr->lanes = lt_reallocarray(tr->lanes, 1,
			    sizeof(*tr->lanes) + cap * sizeof(tr->lanes->l[0]));
			tr->lanes->n = n;
		}
		lf_newlane(&lf->ids, tr->thread, n + 1, &tr->lanes->l[n]);
		tr->lanes->n++;
		lf->nlanes++;
	}
}

/* Slice x of track t is placed: count it, report it. */
static void
placed(struct lf *lf, uint32_t t, struct lfslice *x, char *line, size_t n,
    struct lfxc *before)
{
	struct ltfield f[LT_NCOL];
	uint32_t k = x->lane;

	uselane(lf, t, k);
	if (lf->online) {
		lf->xbefore += lf_xc_add(before, x->ts, x->end);
		lf->xafter += lf_xc_add(lf_after(lf, t, k), x->nts, x->nend);
	}
	if (lf->rep != NULL)
		lf_rep_placed(lf->rep, t, x);
	lf->nmoved += k != 0;
	lf->nsnaps += x->snaps;
	lf->nsnapped += x->snaps != 0;
	if (!lf_changed(x))
		return;
	lf->nchanged++;
	if (lf->rep != NULL) {
		lf_cols(line, n, f);
		lf_rep_slice(lf->rep, t, f, x, &lf->ids, lf_laneof(lf, t, x));
	}
}

/*
 * Place x, the next slice of track t in the order of lf_lanes_sort; its
 * record is the line (kept as it is: split here only for the report).
 */
void
lf_place(struct lf *lf, uint32_t t, struct lfslice *x, char *line, size_t n)
{
	struct lfplace *pl = lf_placer(lf, t);

	x->lane = lf_track_put(&lf->work, &pl->eng, x, lf->thr);
	placed(lf, t, x, line, n, &pl->before);
}

/*
 * Place x, the next of the slices of track t that came too late to be
 * placed with the others (in the order of lf_lanes_sort among them), on
 * lanes of their own after the track's: with eng, their lanes, and
 * before, their crossings as read.  They keep their times.
 */
void
lf_place_late(struct lf *lf, uint32_t t, struct lftrack *eng, uint32_t base,
    struct lfxc *before, struct lfslice *x, char *line, size_t n)
{
	x->lane = base + lf_track_put(&lf->work, eng, x, 0);
	lf->nlate++;
	placed(lf, t, x, line, n, before);
}

/*
 * The flow at fts bound to slice b (next: an f that binds to the next
 * slice): onto b's lane, and to b's new start when it was at b's start
 * or is no longer inside b.  Returns 1 when the flow changes.
 */
int
lf_follow(const struct lfslice *b, int64_t fts, int next, int64_t *nts,
    int *moved)
{
	*nts = fts;
	*moved = 0;
	if (!lf_changed(b))
		return 0;
	*moved = b->lane != 0;
	if (next || fts == b->ts || !(fts == b->nts ||
	    (b->nts < fts && fts < b->nend)))
		*nts = b->nts;
	return *moved || *nts != fts;
}

/*
 * The track has no slice left to place, or none that can cross one
 * placed: let go of what placed them.
 */
void
lf_track_done(struct lf *lf, uint32_t t)
{
	uint32_t i = lf->tracks[t].pl;
	struct lfplace *pl;
	size_t k;

	if (i == 0)
		return;
	pl = lf->pl[i - 1];
	lf_track_free(&lf->work, &pl->eng);
	lf_xc_free(&pl->before);
	for (k = 0; k < pl->capafter; k++)
		lf_xc_free(&pl->after[k]);
	free(pl->after);
	free(pl);
	lf->pl[i - 1] = NULL;
	lf->freepl = lt_grow(lf->freepl, &lf->capfreepl, lf->nfreepl + 1,
	    sizeof(*lf->freepl));
	lf->freepl[lf->nfreepl++] = i - 1;
	lf->tracks[t].pl = 0;
}

void
lf_free(struct lf *lf)
{
	size_t t;

	for (t = 0; t < lf->ntracks; t++) {
		lf_track_done(lf, (uint32_t)t);
		free(lf->tracks[t].lanes);
	}
	free(lf->tracks);
	free(lf->pl);
	free(lf->freepl);
	lf_lanes_free(&lf->work);
	lf_ids_free(&lf->ids);
	lf_rep_free(lf->rep);
}

/* The column (pid or tid) of rec that is not an id, or -1. */
static int
badid(const struct ltrec *rec)
{
	struct ltjson j;
	int64_t v;
	int i;

	for (i = LT_PID; i <= LT_TID; i++) {
		if (LT_ISNONE(rec->f[i]))
			continue;
		if (rec->f[i].p[0] == '"' ? lt_json_whole(rec->f[i].p,
		    rec->f[i].n, NULL, &j) == LT_JSON_OK && j.type == '"' &&
		    j.flags == 0 : lt_int_parse(rec->f[i].p, rec->f[i].n,
		    &v) == LT_NUM_OK)
			continue;
		return i;
	}
	return -1;
}

/*
 * The thread of rec's pid and tid, made if new when add is set; LF_NONE
 * when they are no ids, or when it is new and add is not.
 */
uint32_t
lf_idthread(struct lf *lf, const struct ltrec *rec, int add)
{
	uint32_t th;

	if ((th = lf_cached(&lf->ids, rec)) != LF_NONE)
		return th;
	if (badid(rec) >= 0)
		return LF_NONE;
	return lf_threadof(&lf->ids, rec, add);
}

/*
 * An M record of a process (process_name, process_sort_index...) on tid
 * 0, which no lane ever takes: it needs no thread of its own, and a long
 * job has a process by the thousand.
 */
static int
procmeta(const struct ltrec *rec)
{
	return rec->f[LT_PH].p[0] == 'M' && LT_IS(rec->f[LT_TID], "0") &&
	    !LT_IS(rec->f[LT_NAME], "thread_name") &&
	    !LT_IS(rec->f[LT_NAME], "thread_sort_index");
}

/*
 * Columns ltlanefix reads are checked as litracer-stream(5) says; ts and
 * dur are read into t[0] and t[1], has[] saying which are not "-".
 * Returns the record's thread: LF_NONE for a procmeta record of a thread
 * not seen.
 */
uint32_t
lf_record(struct lf *lf, struct ltrd *rd, const struct ltrec *rec,
    int64_t t[2], int has[2])
{
	uint32_t th;
	int add, c, i, r;

	c = rec->f[LT_PH].n == 1 ? (unsigned char)rec->f[LT_PH].p[0] : 0;
	if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\')
		lt_rd_bad(rd, "column ph: not a one-character phase");
	for (i = 0; i < 2; i++) {
		t[i] = 0;
		if ((r = lt_rec_ts(rec, i == 0 ? LT_TS : LT_DUR, &t[i])) < 0)
			lt_rd_bad(rd, "column %s: not microseconds (-?D+ with "
			    "at most 3 decimals) or -",
			    lt_colname[i == 0 ? LT_TS : LT_DUR]);
		has[i] = r > 0;
	}
	add = !procmeta(rec);
	if ((th = lf_idthread(lf, rec, add)) == LF_NONE &&
	    (add || badid(rec) >= 0))
		lt_rd_bad(rd, "column %s: not an integer, a JSON string or -",
		    lt_colname[badid(rec)]);
	return th;
}

/*
 * The start and end that a slice is placed by, from its ts and dur
 * columns (ns), into x: the one place where they are read, for a whole
 * stream and for one placed as it goes.  They are the times of the
 * columns.  Where ltjson writes times that Perfetto reads as others (a
 * trace longer than its offset window, issue 12), they are to be those
 * Perfetto will see, and so the times of the flows, which bind to
 * slices by them.  They must lie within +-2^62 ns, or it is bad data.
 */
void
lf_slicetimes(struct ltrd *rd, int64_t ts, int64_t dur, struct lfslice *x)
{
	if (ts < -LF_TMAX || ts > LF_TMAX || dur < -LF_TMAX || dur > LF_TMAX ||
	    ts + dur < -LF_TMAX || ts + dur > LF_TMAX)
		lt_rd_bad(rd, "X slice beyond the time range of ltlanefix "
		    "(+-%lld us)", (long long)(LF_TMAX / 1000));
	memset(x, 0, sizeof(*x));
	x->ts = x->nts = ts;
	x->end = x->nend = ts + dur;
}

/* Is the directive one of ltpair's for this stage (#open, #close)? */
int
lf_isours(const char *line, size_t n)
{
	return (n >= 6 && memcmp(line, "#open\t", 6) == 0) ||
	    (n >= 7 && memcmp(line, "#close\t", 7) == 0);
}
