/* See LICENSE file for copyright and license details. */
/*
 * put.c: the records ltlanefix(1) writes.  A slice or flow with new ts,
 * tid or dur columns (the rest as it came), a slice as a B and an E
 * record (-k), and the M records that name the new lanes and sort them
 * right under their thread.
 */
#include <stdio.h>

#include "lt.h"
#include "ltlanefix.h"

/*
 * Members of the extra column: all but tid (which the tid column now
 * holds), or only pid and tid (an E record), or only pid.
 */
enum { X_NOTID, X_IDS, X_PID };

static void
putextra(struct ltout *out, const struct ltfield *f, int which)
{
	const char *cur = f->p, *k, *v;
	size_t kn, vn;
	int n = 0, pid, tid;

	lt_out_putc(out, '{');
	while (lt_json_objnext(&cur, f->p + f->n, &k, &kn, &v, &vn)) {
		pid = kn == 3 && memcmp(k, "pid", 3) == 0;
		tid = kn == 3 && memcmp(k, "tid", 3) == 0;
		if (tid ? which != X_IDS : which != X_NOTID && !pid)
			continue;
		if (n++ > 0)
			lt_out_putc(out, ',');
		lt_out_write(out, k - 1, (size_t)(v + vn - (k - 1)));
	}
	lt_out_putc(out, '}');
}

/*
 * The record of columns f with new ts, tid and dur columns where given;
 * when times is not NULL, it has the values of the ts and dur columns
 * written, for the next stage in ltchain (lt_out_hint).
 */
void
lf_putrec(struct ltout *out, const struct ltfield *f, const int64_t *ts,
    const struct ids *ids, const struct lane *ln, const int64_t *dur,
    const int64_t *times)
{
	uint64_t start = out->done + out->n;
	uint16_t end[LT_NCOL];
	int has[2], i;

	for (i = 0; i < LT_NCOL; i++) {
		if (i == LT_TS && ts != NULL)
			lt_put_us(out, *ts);
		else if (i == LT_TID && ln != NULL)
			lt_out_write(out, lf_text(ids, ln->tid), ln->tidlen);
		else if (i == LT_DUR && dur != NULL)
			lt_put_us(out, *dur);
		else if (i == LT_EXTRA && ln != NULL && LT_ISNONE(f[LT_TID]))
			putextra(out, &f[i], X_NOTID);
		else
			lt_put_field(out, &f[i]);
		end[i] = (uint16_t)(out->done + out->n - start);
		lt_out_putc(out, i == LT_NCOL - 1 ? '\n' : '\t');
	}
	if (times == NULL || out->chan == NULL)
		return;
	has[0] = ts != NULL || !LT_ISNONE(f[LT_TS]);
	has[1] = dur != NULL || !LT_ISNONE(f[LT_DUR]);
	lt_out_hint(out, (size_t)(out->done + out->n - start), end, times, has);
}

/* The slice x of columns f as placed, on lane ln. */
void
lf_putslice(struct ltout *out, const struct ltfield *f,
    const struct lfslice *x, const struct ids *ids, const struct lane *ln)
{
	int64_t dur = x->nend - x->nts;
	int64_t times[2];

	times[0] = x->nts;
	times[1] = dur;
	lf_putrec(out, f, x->nts != x->ts ? &x->nts : NULL, ids, ln,
	    dur != x->end - x->ts ? &dur : NULL, times);
}

/* The slice x of columns f, on lane ln, as its B (end 0) or its E. */
void
lf_putbe(struct ltout *out, const struct ltfield *f, const struct lfslice *x,
    const struct ids *ids, const struct lane *ln, int end)
{
	int c;

	for (c = 0; c < LT_NCOL; c++) {
		if (c == LT_TS)
			lt_put_us(out, end ? x->nend : x->nts);
		else if (c == LT_PH)
			lt_out_putc(out, end ? 'E' : 'B');
		else if (c == LT_TID && ln != NULL)
			lt_out_write(out, lf_text(ids, ln->tid), ln->tidlen);
		else if (c == LT_DUR)
			lt_out_putc(out, '-');
		else if (c == LT_ARGS && end)
			lt_out_write(out, "{}", 2);
		else if (c == LT_EXTRA && end)
			putextra(out, &f[c], ln != NULL && LT_ISNONE(f[LT_TID]) ?
			    X_PID : X_IDS);
		else if (c == LT_EXTRA && ln != NULL && LT_ISNONE(f[LT_TID]))
			putextra(out, &f[c], X_NOTID);
		else
			lt_put_field(out, &f[c]);
		lt_out_putc(out, c == LT_NCOL - 1 ? '\n' : '\t');
	}
}

/*
 * An M record "-  M  PID  TID  -    NAME  {KEY:VALUE}  {}" for a thread of
 * process pid; quote for a string value.
 */
static void
putmeta(struct ltout *out, const struct ids *ids, const struct id *pid,
    const char *tid, size_t tidn, const char *name, const char *key,
    const char *v, size_t vn, int quote)
{
	char num[LT_NUMBUF];

	lt_out_write(out, "-\tM\t", 4);
	if (pid->kind == ID_INT)
		lt_out_write(out, num, lt_i64_fmt(num, pid->v));
	else if (lf_text(ids, (size_t)pid->v)[0] == '"')
		lt_out_write(out, lf_text(ids, (size_t)pid->v), pid->len);
	else
		lt_out_putc(out, '-');
	lt_out_putc(out, '\t');
	lt_out_write(out, tid, tidn);
	lt_out_puts(out, "\t-\t\t");
	lt_out_puts(out, name);
	lt_out_puts(out, "\t{\"");
	lt_out_puts(out, key);
	lt_out_write(out, quote ? "\":\"" : "\":", quote ? 3 : 2);
	lt_out_write(out, v, vn);
	lt_out_puts(out, quote ? "\"}\t" : "}\t");
	/* A pid no column can hold stays in extra, as in the slices. */
	if (pid->kind == ID_TEXT && lf_text(ids, (size_t)pid->v)[0] != '"') {
		lt_out_puts(out, "{\"pid\":");
		lt_out_write(out, lf_text(ids, (size_t)pid->v), pid->len);
		lt_out_puts(out, "}\n");
	} else
		lt_out_puts(out, "{}\n");
}

/*
 * Name the new lanes of ntr tracks "<thread name> lane k" (or "tid T
 * lane k") and sort them right under their thread: they take its
 * thread_sort_index.  A thread without one gets its tid as sort index,
 * as Kineto and ltparse give every thread, so that its lanes can follow
 * it.  Returns the number of records written.
 */
long long
lf_putlanes(struct ltout *out, const struct ids *ids,
    const struct track *tracks, size_t ntr)
{
	struct ltbuf name = { NULL, 0, 0 }, sort = { NULL, 0, 0 };
	struct ltbuf tmp = { NULL, 0, 0 };
	const struct thread *th;
	const struct track *tr;
	const struct lane *ln;
	struct id pid, tid;
	char num[LT_NUMBUF];
	const char *v;
	size_t t, l, base, vn;
	long long n = 0;

	for (t = 0; t < ntr; t++) {
		tr = &tracks[t];
		if (lf_nlane(tr) == 0)
			continue;
		th = &ids->th[tr->thread];
		lf_key(ids, tr->thread, LT_PID, &pid);
		lf_key(ids, tr->thread, LT_TID, &tid);
		sort.n = name.n = 0;
		if (th->sort != 0) {
			v = lf_counted(ids, th->sort, &vn);
			lt_buf_add(&sort, v, vn);
		} else if (tid.kind == ID_INT && tid.v >= 0 &&
		    tid.v <= INT32_MAX) {
			lt_buf_add(&sort, num, lt_i64_fmt(num, tid.v));
			putmeta(out, ids, &pid, sort.p, sort.n,
			    "thread_sort_index", "sort_index", sort.p, sort.n,
			    0);
			n++;
		}
		if (th->name != 0) {
			v = lf_counted(ids, th->name, &vn);
			lt_buf_add(&name, v, vn);
		} else {
			tmp.n = 0;
			lf_showid(&tmp, ids, &tid);
			lt_buf_adds(&name, "tid ");
			lt_esc(&name, tmp.p, tmp.n);
		}
		base = name.n;
		for (l = 0; l < tr->lanes->n; l++) {
			ln = &tr->lanes->l[l];
			name.n = base;
			snprintf(num, sizeof(num), " lane %u", ln->k);
			lt_buf_adds(&name, num);
			putmeta(out, ids, &pid, lf_text(ids, ln->tid),
			    ln->tidlen, "thread_name", "name", name.p, name.n,
			    1);
			n++;
			if (sort.n > 0) {
				putmeta(out, ids, &pid,
				    lf_text(ids, ln->tid), ln->tidlen,
				    "thread_sort_index", "sort_index", sort.p,
				    sort.n, 0);
				n++;
			}
		}
	}
	lt_buf_free(&name);
	lt_buf_free(&sort);
	lt_buf_free(&tmp);
	return n;
}
