/* See LICENSE file for copyright and license details. */
/*
 * ltpair: match B and E events into complete X spans, streaming.
 *
 * Reads an lt1 stream (operands, "-" or none for standard input) and
 * writes it back with every matched B/E pair replaced by one X record,
 * written where the E was.  An E closes the most recent open B of its
 * thread with the same name (any name for an E without one), the same
 * category when both have one, and equal values of the identifying args
 * that both carry (-m).  What cannot be paired stays visible: an E with
 * no open B becomes an instant, a B still open at the end becomes an X
 * reaching the last event of its thread; both are marked in args.  With
 * -k the B and E records are kept as they are.  Every other record and
 * every directive passes through unchanged, in order.  Memory holds the
 * open B records, an entry for each thread with one open or seen since
 * the last #open round, and 24 bytes for each other thread that ever had
 * one (spans.c: it sleeps; with -k, or once an X came, there are no
 * rounds and every such thread keeps its entry).  Under #valid (the
 * stream's records are valid and canonical) a B's args are split only
 * when an E or the index needs them.
 *
 * Unless an X comes in (then ltpair cannot tell when a slice may still
 * come) or -k is given, it also tells which spans are open, in #open and
 * #close directives (spans.c), for ltlanefix.
 */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "bytes.h"
#include "ltpair.h"

#define SYNOPSIS	"ltpair [-k] [-m keys] [file ...]"
#define DEFKEYS		"epoch,batch,chunk,index,op,path"
/*
 * #open rounds: every TELL records, or every TELLNS ns of the stream's
 * time after TELLMIN records, so that ltlanefix writes a slice not much
 * later (in time, which is what ltstat after it minds) than it came.
 */
#define TELL		4096
#define TELLMIN		64
#define TELLNS		200000000

static struct ltout	 out;
static struct keys	 keys;		/* identifying keys, quoted */
static struct spans	 spans;
static struct ltfield	*eid;		/* identifying args of an E */
static struct members	 em;		/* of the B or E being handled */
static int		 kflag;
static int		 tell;		/* #open and #close are written */

static long long	 nrec, nb, ne, npair, nx, ni, nub, nue, ncrash, nneg;
static long long	 nuntimed;

static void
putcol(const struct ltfield *f)
{
	lt_out_write(&out, f->p, f->n);
	lt_out_putc(&out, '\t');
}

/* The args of rec into em and eid; a malformed column is bad data. */
static void
members(struct ltrd *rd, const struct ltrec *rec)
{
	const char *why;

	if ((why = lp_members(&keys, &rec->f[LT_ARGS], &em, eid)) != NULL)
		lt_rd_bad(rd, "column args: %s", why);
}

/*
 * What B and E records need first: their ts in *ns.  Returns 0 for a
 * record without ts, which passes unchanged.
 */
static int
timed(struct ltrd *rd, const struct ltrec *rec, int64_t *ns)
{
	int r;

	if ((r = lt_rec_ts(rec, LT_TS, ns)) < 0)
		lt_rd_bad(rd, "column ts: not microseconds (-?D+ with at "
		    "most 3 decimals) or -");
	if (r == 0) {
		nuntimed++;
		lt_put_rec(&out, rec);
		return 0;
	}
	return 1;
}

/* A record at ts of a thread with spans moves its times on. */
static void
touch(struct thread *th, const struct ltrec *rec, int64_t ts)
{
	int64_t dur;

	lp_touch(&spans, th, ts);
	if (!LT_ISNONE(rec->f[LT_DUR]) && lt_rec_ts(rec, LT_DUR, &dur) > 0)
		lp_touch(&spans, th, dur > 0 && ts > INT64_MAX - dur ?
		    INT64_MAX : ts + dur);
}

static void
begin(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	int64_t ts;

	nb++;
	if (!timed(rd, rec, &ts))
		return;
	/* Under #valid the args are split when first needed, if ever. */
	if (!rd->valid)
		members(rd, rec);
	th = lp_thread(&spans, rec, 1);
	if (th->open == NULL)
		th->last = ts;
	touch(th, rec, ts);
	lp_open(&spans, rec, ts, th, rd->valid ? NULL : &em, eid);
	if (kflag)
		lt_put_rec(&out, rec);
}

/*
 * The args of the E being handled in em and eid, split once, when first
 * needed: an E whose args are those of its B needs none of it.
 */
static void
eargs(struct ltrd *rd, const struct ltrec *rec, int *done)
{
	if (!*done)
		members(rd, rec);
	*done = 1;
}

/* May the E rec close the open span s, as for its category? */
static int
catok(const struct span *s, const struct ltrec *rec)
{
	return rec->f[LT_CAT].n == 0 || s->f[LT_CAT].n == 0 ||
	    lp_feq(&s->f[LT_CAT], &rec->f[LT_CAT]);
}

/* Does the open span s admit the E being handled (rec)? */
static int
admits(struct ltrd *rd, struct span *s, const struct ltrec *rec,
    int *done)
{
	const struct ltfield *f = rec->f;
	size_t i;

	if (f[LT_NAME].n > 0 && !lp_feq(&s->f[LT_NAME], &f[LT_NAME]))
		return 0;
	if (!catok(s, rec))
		return 0;
	/* The same args (a valid column: the B's) have the same values. */
	if (lp_feq(&s->f[LT_ARGS], &f[LT_ARGS]))
		return 1;
	eargs(rd, rec, done);
	lp_split(&spans, s);
	for (i = 0; i < keys.n; i++)
		if (eid[i].p != NULL && s->id[i].p != NULL &&
		    !lp_feq(&eid[i], &s->id[i]))
			return 0;
	return 1;
}

/* The first span from s on, in list l, that admits the E rec. */
static struct span *
scan(struct ltrd *rd, struct span *s, int l, const struct ltrec *rec,
    int *done)
{
	for (; s != NULL; s = lp_next(s, l))
		if (admits(rd, s, rec, done))
			break;
	return s;
}

/*
 * The span the E rec closes: the newest open one of its thread that
 * admits it.  On a thread with many open spans, the spans of the E's
 * name are looked up, then those of each set of identifying args that
 * they have and the E has too, with the E's values: the newest of these
 * that admits it is the one (so each span looked at admits it, but for
 * its category).
 */
static struct span *
match(struct ltrd *rd, struct thread *th, const struct ltrec *rec,
    int *done)
{
	struct span *s, *c, *best = NULL;
	unsigned masks[4], me;
	int i, n;

	if (!th->indexed || rec->f[LT_NAME].n == 0)
		return scan(rd, th->open, L_THREAD, rec, done);
	if ((s = lp_named(&spans, th, &rec->f[LT_NAME])) == NULL)
		return NULL;
	if (admits(rd, s, rec, done))
		return s;
	eargs(rd, rec, done);
	me = lp_mask(&spans, eid);
	if ((n = lp_masks(s, masks, 4)) < 0)
		return scan(rd, lp_next(s, L_NAME), L_NAME, rec, done);
	for (i = 0; i < n; i++)
		if ((masks[i] & ~me) != 0)
			return scan(rd, lp_next(s, L_NAME), L_NAME, rec, done);
	for (i = 0; i < n; i++)
		for (c = lp_group(&spans, s, masks[i], eid); c != NULL;
		    c = lp_next(c, L_GROUP))
			if (c != s && catok(c, rec)) {
				if (best == NULL || c->seq > best->seq)
					best = c;
				break;
			}
	return best;
}

/* An E with no open B: an instant, marked, so Perfetto keeps it. */
static void
lonely(const struct ltrec *rec)
{
	nue++;
	putcol(&rec->f[LT_TS]);
	lt_out_write(&out, "i\t", 2);
	putcol(&rec->f[LT_PID]);
	putcol(&rec->f[LT_TID]);
	lt_out_write(&out, "-\t", 2);
	putcol(&rec->f[LT_CAT]);
	putcol(&rec->f[LT_NAME]);
	lp_putargs(&out, &em, "unmatched_E", 0);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, rec->f[LT_EXTRA].p, rec->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

/* The X of span s closed by the E rec at ets. */
static void
complete(struct ltrd *rd, struct span *s, const struct ltrec *rec,
    int64_t dur, int *done)
{
	const struct ltfield *cat;
	char *w;
	int i;
	uint64_t start;
	uint16_t end[LT_NCOL];
	int64_t ns[2];
	int has[2] = { 1, 1 };

	cat = s->f[LT_CAT].n > 0 ? &s->f[LT_CAT] : &rec->f[LT_CAT];
	nx++;
	lp_told(&out, s);
	/* All but args and extra: pieces of the B, the cat, a number. */
	w = lt_out_room(&out, s->line.n + cat->n + LT_NUMBUF + 8);
	start = out.done + (uint64_t)(w - out.buf);
#define AT(w)	((uint16_t)(out.done + (uint64_t)((w) - out.buf) - start))
	w = lt_put(w, s->f[LT_TS].p, s->f[LT_TS].n);
	end[LT_TS] = AT(w);
	w = lt_put(w, "\tX\t", 3);
	end[LT_PH] = AT(w - 1);
	for (i = LT_PID; i <= LT_TID; i++) {
		w = lt_put(w, s->f[i].p, s->f[i].n);
		end[i] = AT(w);
		*w++ = '\t';
	}
	w += lt_us_fmt(w, dur < 0 ? 0 : dur);
	end[LT_DUR] = AT(w);
	*w++ = '\t';
	w = lt_put(w, cat->p, cat->n);
	end[LT_CAT] = AT(w);
	*w++ = '\t';
	w = lt_put(w, s->f[LT_NAME].p, s->f[LT_NAME].n);
	end[LT_NAME] = AT(w);
	*w++ = '\t';
#undef AT
	out.n = (size_t)(w - out.buf);
	if (s->asis && dur >= 0 && lp_feq(&s->f[LT_ARGS], &rec->f[LT_ARGS]))
		lt_put_field(&out, &s->f[LT_ARGS]);
	else {
		eargs(rd, rec, done);
		lp_split(&spans, s);
		lp_putmerged(&out, &s->m, &em, dur < 0 ? "negative_dur" : NULL,
		    dur);
	}
	end[LT_ARGS] = (uint16_t)(out.done + out.n - start);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, s->f[LT_EXTRA].p, s->f[LT_EXTRA].n);
	end[LT_EXTRA] = (uint16_t)(out.done + out.n - start);
	lt_out_putc(&out, '\n');
	ns[0] = s->ts;
	ns[1] = dur < 0 ? 0 : dur;
	lt_out_hint(&out, (size_t)(out.done + out.n - start), end, ns, has);
}

/* -k: the E as it came, or moved to its B's ts when it came before. */
static void
rawend(const struct span *s, const struct ltrec *rec, int64_t dur)
{
	int i;

	if (dur >= 0) {
		lt_put_rec(&out, rec);
		return;
	}
	putcol(&s->f[LT_TS]);
	for (i = LT_PH; i < LT_ARGS; i++)
		putcol(&rec->f[i]);
	lp_putargs(&out, &em, "negative_dur", dur);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, rec->f[LT_EXTRA].p, rec->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

static void
end(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	struct span *s = NULL;
	int64_t ts, dur;
	int done = 0;

	ne++;
	if (!timed(rd, rec, &ts))
		return;
	if ((th = lp_thread(&spans, rec, 0)) != NULL) {
		touch(th, rec, ts);
		s = match(rd, th, rec, &done);
	}
	if (s == NULL) {
		eargs(rd, rec, &done);
		lonely(rec);
		return;
	}
	if ((s->ts < 0 && ts > INT64_MAX + s->ts) ||
	    (s->ts > 0 && ts < INT64_MIN + s->ts))
		lt_rd_bad(rd, "column ts: too far from the ts of its B");
	dur = ts - s->ts;
	npair++;
	if (dur < 0)
		nneg++;
	if (kflag) {
		if (dur < 0)
			eargs(rd, rec, &done);
		rawend(s, rec, dur);
	} else
		complete(rd, s, rec, dur, &done);
	lp_close(&spans, s);
}

/* -k: an E for a B still open at the end, at the last time of its thread. */
static void
lastend(const struct span *s)
{
	lt_put_us(&out, s->th->last);
	lt_out_write(&out, "\tE\t", 3);
	putcol(&s->f[LT_PID]);
	putcol(&s->f[LT_TID]);
	lt_out_write(&out, "-\t", 2);
	putcol(&s->f[LT_CAT]);
	putcol(&s->f[LT_NAME]);
	lt_out_puts(&out, "{\"ltpair\":\"unmatched_B\"}\t{}\n");
}

/* A B still open at the end, as an X reaching the last time of its thread. */
static void
lastx(struct span *s)
{
	int64_t dur;

	lp_split(&spans, s);
	if (s->ts < 0 && s->th->last > INT64_MAX + s->ts)
		dur = INT64_MAX;
	else
		dur = s->th->last - s->ts;
	lp_told(&out, s);
	putcol(&s->f[LT_TS]);
	lt_out_write(&out, "X\t", 2);
	putcol(&s->f[LT_PID]);
	putcol(&s->f[LT_TID]);
	lt_put_us(&out, dur);
	lt_out_putc(&out, '\t');
	putcol(&s->f[LT_CAT]);
	putcol(&s->f[LT_NAME]);
	lp_putargs(&out, &s->m, "unmatched_B", 0);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, s->f[LT_EXTRA].p, s->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

/*
 * At the end: every B still open becomes an X reaching the last event
 * of its thread (-k: gets an E there), marked.  Newest first, so that
 * with -k the E of an inner span comes before that of its parent.
 */
static void
unmatched(void)
{
	struct span *s;

	while ((s = spans.last) != NULL) {
		nub++;
		if (kflag)
			lastend(s);
		else
			lastx(s);
		lp_close(&spans, s);
	}
}

static int
hascrash(const struct ltfield *name)
{
	size_t i;

	if (LT_IS(*name, "crash"))
		return 1;
	for (i = 0; i + 7 <= name->n; i++)
		if (memcmp(name->p + i, "crashed", 7) == 0)
			return 1;
	return 0;
}

static void
record(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	int64_t ts;
	int ph;

	nrec++;
	if (rec->f[LT_PH].n != 1)
		lt_rd_bad(rd, "column ph: not a one-character phase");
	switch ((ph = rec->f[LT_PH].p[0])) {
	case 'B':
		begin(rd, rec);
		return;
	case 'E':
		end(rd, rec);
		return;
	case 'I':
	case 'i':
		ni++;
		if (hascrash(&rec->f[LT_NAME]))
			ncrash++;
		break;
	case 'X':
		/* An X of the input may begin at any time: no more telling. */
		tell = 0;
		break;
	}
	/* Untimed (names at the end): no thread asleep wakes for it. */
	if (lt_rec_ts(rec, LT_TS, &ts) > 0 &&
	    (th = lp_thread(&spans, rec, 0)) != NULL)
		touch(th, rec, ts);
	lt_put_rec(&out, rec);
}

static void
stats(void)
{
	struct ltstat st[] = {
		{ "records", nrec },
		{ "B", nb },
		{ "E", ne },
		{ "pairs", npair },
		{ "X", nx },
		{ "I", ni },
		{ "unmatched_B", nub },
		{ "unmatched_E", nue },
		{ "crashes", ncrash },
		{ "negative_dur", nneg },
		{ "untimed", nuntimed },
		{ "open_max", spans.maxopen }
	};

	lt_put_stat(&out, "ltpair", st, sizeof(st) / sizeof(st[0]));
}

int
ltpair_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-complete", no_argument, NULL, 'k' },
		{ "match", required_argument, NULL, 'm' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltrec rec;
	struct ltrd rd;
	int c, k, since = 0;

	lt_setprog(argv[0]);
	lp_setkeys(&keys, DEFKEYS);
	while ((c = getopt_long(argc, argv, "hkm:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -k, --no-complete  keep B and E records, do not "
			    "make X\n"
			    "  -m, --match keys   identifying args, "
			    "comma-separated (default " DEFKEYS ")\n"
			    "      --version      print the version and exit\n"
			    "  -h, --help         show this help\n");
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			lp_setkeys(&keys, optarg);
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	eid = lt_reallocarray(NULL, keys.n, sizeof(*eid));
	lp_spans_init(&spans, &keys, &rd);
	tell = !kflag;
	lt_out_init(&out, 1, "<stdout>");
	lt_put_header(&out);
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC)
			record(&rd, &rec);
		else {
			lt_out_write(&out, rec.line, rec.len);
			lt_out_putc(&out, '\n');
			/* Told as often as in the same stream without it. */
			if (LT_ISVALID(rec.line, rec.len))
				continue;
		}
		if (tell && (++since == TELL || (since >= TELLMIN &&
		    spans.told <= INT64_MAX - TELLNS &&
		    spans.latest >= spans.told + TELLNS))) {
			lp_tell(&spans, &out);
			since = 0;
		}
	}
	lt_rd_done(&rd);
	unmatched();
	stats();
	lt_out_close(&out);
	lp_spans_free(&spans);
	lp_keys_free(&keys);
	free(eid);
	lp_members_free(&em);
	return LT_EXIT_OK;
}
