/* See LICENSE file for copyright and license details. */
/*
 * input.c: the records of the stream, one by one, to what run.c learns.
 *
 * X records are the spans (batch, dataloader, download, read and delete
 * matter; every one counts in its category), instants count as slices
 * of no duration, M records name threads, B and E records are counted
 * as not paired.  A malformed column that ltstat reads is bad data: the
 * message is returned, for the caller to say where.
 */
#include "ltstat.h"

static const char badts[] = "column ts: not microseconds (-?D+ with at "
    "most 3 decimals) or -";
static const char baddur[] = "column dur: not microseconds (-?D+ with at "
    "most 3 decimals) or -";

/* Is this X record one that ltpair closed itself (unmatched_B)? */
static int
openmark(const struct ltfield *args)
{
	static const char mark[] = "\"ltpair\":\"unmatched_B\"}";
	size_t n = sizeof(mark) - 1;

	return args->n > n && memcmp(args->p + args->n - n, mark, n) == 0 &&
	    (args->p[args->n - n - 1] == ',' ||
	    args->p[args->n - n - 1] == '{');
}

static const char *
span(const struct ltrec *rec)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	const char *why;
	struct ev ev;
	struct proc *p;
	int r1, r2;

	if ((r1 = lt_rec_ts(rec, LT_TS, &ev.ts)) < 0)
		return badts;
	if ((r2 = lt_rec_ts(rec, LT_DUR, &ev.dur)) < 0)
		return baddur;
	if (r1 == 0 || r2 == 0) {
		ST.untimed++;
		return NULL;
	}
	if (ev.dur < 0) {
		ST.negdur++;
		return NULL;
	}
	if (ev.ts > INT64_MAX - ev.dur)
		ev.dur = INT64_MAX - ev.ts;
	if (!ST.hasmin || ev.ts < ST.min)
		ST.min = ev.ts;
	ST.hasmin = 1;
	if ((p = st_proc(&rec->f[LT_PID], &rec->f[LT_TID], &ev.t,
	    &why)) == NULL)
		return why;
	if ((why = st_cat(&rec->f[LT_CAT], ev.dur)) != NULL)
		return why;
	ST.x++;
	if (openmark(&rec->f[LT_ARGS]))
		ST.open++;
	if (LT_IS(*nm, "batch") || LT_IS(*nm, "dataloader") ||
	    LT_IS(*nm, "download") || LT_IS(*nm, "read") ||
	    LT_IS(*nm, "delete")) {
		if ((why = st_args(p, &rec->f[LT_ARGS], &ev)) != NULL)
			return why;
		switch (nm->p[1]) {
		case 'a':
			if (nm->p[0] == 'b')
				st_batch(&ev);
			else
				st_loader(&ev);
			break;
		case 'o':
			st_io(&ev, 'd');
			break;
		case 'e':
			st_io(&ev, nm->p[0] == 'r' ? 'r' : 'x');
			break;
		}
	}
	if (p->io)
		st_ctr_advance(p, ev.ts + ev.dur);
	return NULL;
}

static int
contains(const struct ltfield *f, const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i + n <= f->n; i++)
		if (memcmp(f->p + i, s, n) == 0)
			return 1;
	return 0;
}

static const char *
instant(const struct ltrec *rec)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	const char *why;
	int64_t ts;
	int r;

	if ((r = lt_rec_ts(rec, LT_TS, &ts)) < 0)
		return badts;
	if (r == 0) {
		ST.untimed++;
		return NULL;
	}
	/* Perfetto makes an instant a slice of no duration. */
	if ((why = st_cat(&rec->f[LT_CAT], 0)) != NULL)
		return why;
	ST.instants++;
	if (LT_IS(*nm, "crash") || contains(nm, "crashed"))
		ST.crashes++;
	return NULL;
}

const char *
st_record(const struct ltrec *rec)
{
	const struct ltfield *ph = &rec->f[LT_PH];

	ST.records++;
	if (ph->n != 1)
		return "column ph: not a one-character phase";
	switch (ph->p[0]) {
	case 'X':
		return span(rec);
	case 'i':
	case 'I':
		return instant(rec);
	case 'B':
	case 'E':
		ST.be++;
		break;
	case 'M':
		return st_meta(rec);
	}
	return NULL;
}

/* #t0 before any record: the time "at" counts from, as ltfilter -T. */
const char *
st_directive(const char *line, size_t n)
{
	if (ST.hast0 || ST.records > 0 || n < 4 ||
	    memcmp(line, "#t0\t", 4) != 0)
		return NULL;
	if (lt_us_parse(line + 4, n - 4, &ST.t0) != LT_NUM_OK)
		return "#t0: not microseconds (-?D+ with at most 3 decimals)";
	ST.hast0 = 1;
	return NULL;
}
