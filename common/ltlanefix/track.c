/* See LICENSE file for copyright and license details. */
/*
 * track.c: the tracks of ltlanefix(1) and the placing of one slice: the
 * engine (lanes.c) puts it on a lane, a new lane gets its tid (ids.c),
 * the crossings before and after are counted (cross.c), the counters of
 * the #stat line move on, and a changed slice goes into the report.
 * Whatever holds the slices (all of them, or a window of the stream)
 * calls lf_place for each, in the order of lt_lanes_sort per track.
 */
#include <stdlib.h>

#include "lt.h"
#include "lanes.h"

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
	lt_track_init(&tr->eng);
	if (lf->rep != NULL) {
		lf_cols(line, n, f);
		lf_rep_track(lf->rep, lf->ntracks, f);
	}
	t->track = (uint32_t)++lf->ntracks;
	return t->track - 1;
}

int
lf_changed(const struct ltslice *x)
{
	return x->lane != 0 || x->nts != x->ts || x->nend != x->end;
}

const struct lane *
lf_laneof(const struct lf *lf, uint32_t t, const struct ltslice *x)
{
	return x->lane == 0 ? NULL : &lf->tracks[t].lane[x->lane - 1];
}

/* The crossing counter of lane k of track tr, made when first needed. */
static struct ltxc *
after(struct track *tr, uint32_t k)
{
	size_t old = tr->capafter;

	if (k >= old) {
		tr->after = lt_grow(tr->after, &tr->capafter, (size_t)k + 1,
		    sizeof(*tr->after));
		memset(tr->after + old, 0,
		    (tr->capafter - old) * sizeof(*tr->after));
	}
	return &tr->after[k];
}

/*
 * Place x, the next slice of track t in the order of lt_lanes_sort; its
 * record is the line (kept as it is: split here only for the report).
 */
void
lf_place(struct lf *lf, uint32_t t, struct ltslice *x, char *line, size_t n)
{
	struct track *tr = &lf->tracks[t];
	struct ltfield f[LT_NCOL];
	uint32_t k;

	k = lt_track_put(&lf->work, &tr->eng, x, lf->thr);
	if (k > tr->nlane) {
		/* Most tracks have no lane or one: start small. */
		if (tr->nlane == tr->caplane) {
			tr->caplane = tr->caplane != 0 ? 2 * tr->caplane : 2;
			tr->lane = lt_reallocarray(tr->lane, tr->caplane,
			    sizeof(*tr->lane));
		}
		lf_newlane(&lf->ids, tr->thread, k, &tr->lane[tr->nlane++]);
		lf->nlanes++;
	}
	if (lf->online) {
		lf->xbefore += lt_xc_add(&tr->before, x->ts, x->end);
		lf->xafter += lt_xc_add(after(tr, k), x->nts, x->nend);
	}
	tr->moved += k != 0;
	tr->snaps += x->snaps;
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

/* The track has no slice left to place: let go of what placed them. */
void
lf_track_done(struct lf *lf, uint32_t t)
{
	struct track *tr = &lf->tracks[t];
	size_t k;

	lt_track_free(&lf->work, &tr->eng);
	lt_xc_free(&tr->before);
	for (k = 0; k < tr->capafter; k++)
		lt_xc_free(&tr->after[k]);
	free(tr->after);
	tr->after = NULL;
	tr->capafter = 0;
}

void
lf_free(struct lf *lf)
{
	size_t t;

	for (t = 0; t < lf->ntracks; t++) {
		lf_track_done(lf, (uint32_t)t);
		free(lf->tracks[t].lane);
	}
	free(lf->tracks);
	lt_lanes_free(&lf->work);
	lf_ids_free(&lf->ids);
	lf_rep_free(lf->rep);
}

/*
 * Columns ltlanefix reads are checked as litracer-stream(5) says; ts and
 * dur are read into t[0] and t[1], has[] saying which are not "-".
 * Returns the record's thread.
 */
uint32_t
lf_record(struct lf *lf, struct ltrd *rd, const struct ltrec *rec,
    int64_t t[2], int has[2])
{
	struct ltjson j;
	int64_t v;
	uint32_t th;
	int c, i, r;

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
	if ((th = lf_cached(&lf->ids, rec)) != LF_NONE)
		return th;
	for (i = LT_PID; i <= LT_TID; i++) {
		if (LT_ISNONE(rec->f[i]))
			continue;
		if (rec->f[i].p[0] == '"' ? lt_json_whole(rec->f[i].p,
		    rec->f[i].n, NULL, &j) == LT_JSON_OK && j.type == '"' &&
		    j.flags == 0 : lt_int_parse(rec->f[i].p, rec->f[i].n,
		    &v) == LT_NUM_OK)
			continue;
		lt_rd_bad(rd, "column %s: not an integer, a JSON string or -",
		    lt_colname[i]);
	}
	return lf_threadof(&lf->ids, rec);
}
