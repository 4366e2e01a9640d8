/* See LICENSE file for copyright and license details. */
/*
 * ltjson: an lt1 stream to Chrome trace JSON.
 *
 * Writes {"traceEvents":[ with one event per line, then the top-level
 * members carried by #top directives, then "metadata" holding the #stat
 * counters of every stage and the time offset.  Timestamps keep every
 * digit; epoch-sized ones are shifted by one whole-microsecond offset so
 * that Perfetto's double conversion is exact (see ltjson(1)).  Streams:
 * memory does not grow with the input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "jsonw.h"
#include "tally.h"

#define SYNOPSIS	"ltjson [-O offset] [-S file] [-s file] [file ...]"

static struct ltout	 out;
static struct ltjw	 jw;		/* the events as written */
static struct ltbuf	 tops;		/* ,"key":value of #top members */
static struct ltbuf	 usermeta;	/* members of a #top metadata */
static long long	 nevents;

/* A JSON string of arbitrary bytes. */
static void
putstr(const char *s)
{
	static struct ltbuf b;

	b.n = 0;
	if (s == NULL) {
		lt_buf_free(&b);
		return;
	}
	lt_buf_addc(&b, '"');
	lt_esc(&b, s, strlen(s));
	lt_buf_addc(&b, '"');
	lt_out_write(&out, b.p, b.n);
}

static int
isint(const char *s)
{
	int64_t v;

	return lt_int_parse(s, strlen(s), &v) == LT_NUM_OK;
}

/* #top KEY VALUE: a top-level member of the trace, written at the end. */
static void
addtop(struct ltrd *rd, char *line, size_t len)
{
	static struct ltbuf canon;
	const char *key, *cur, *k, *v;
	char why[256];
	size_t kn, vn;
	int r;

	if ((r = lt_jw_top(line, len, &key, &canon, why, sizeof(why))) < 0)
		lt_rd_bad(rd, "%s", why);
	if (r == 0)
		return;
	if (strcmp(key, "metadata") != 0) {
		lt_buf_add(&tops, ",\n\"", 3);
		lt_buf_adds(&tops, key);
		lt_buf_add(&tops, "\":", 2);
		lt_buf_add(&tops, canon.p, canon.n);
		return;
	}
	/* Our own record of an earlier run is replaced, not kept. */
	cur = canon.p;
	while (lt_json_objnext(&cur, canon.p + canon.n, &k, &kn, &v, &vn)) {
		if (kn == 8 && memcmp(k, "litracer", 8) == 0)
			continue;
		lt_buf_add(&usermeta, "\"", 1);
		lt_buf_add(&usermeta, k, kn);
		lt_buf_add(&usermeta, "\":", 2);
		lt_buf_add(&usermeta, v, vn);
		lt_buf_addc(&usermeta, ',');
	}
}

/* One event, written straight into the output buffer. */
static void
event(struct ltrd *rd, const struct ltrec *rec)
{
	struct ltrec fixed;
	struct ltjwrec r;
	const char *why;
	long long clamped = jw.clamped;
	int col;
	char *w;

	jw.valid = rd->valid;
	if (lt_jw_rec(&jw, rec, &r, &why, &col) < 0)
		lt_rd_bad(rd, "column %s: %s", lt_colname[col], why);
	if (jw.clamped > 0 && clamped == 0)
		lt_warnpos(rd->in.name, rd->in.line, "ts %.*s is before the "
		    "offset chosen from the first event; written as the "
		    "trace's start, since Perfetto drops a negative ts "
		    "(see -O)", (int)rec->f[LT_TS].n, rec->f[LT_TS].p);
	w = lt_out_room(&out, r.need + 2);
	if (nevents > 0) {
		*w++ = ',';
		*w++ = '\n';
	}
	w = lt_jw_put(w, &r);
	out.n = (size_t)(w - out.buf);
	nevents++;
	if (r.col[LT_CAT] != &rec->f[LT_CAT]) {
		/* span_us is keyed by the category as written, repaired */
		fixed = *rec;
		fixed.f[LT_CAT] = *r.col[LT_CAT];
		rec = &fixed;
	}
	lt_tally_event(rec, r.hasts, r.ts, r.hasdur, r.dur);
}

/* ltjson's own counters, for the metadata and for -S. */
static size_t
mystats(struct ltstat *st)
{
	size_t k = lt_tally_counts(st);

	st[k].key = "repaired";
	st[k++].val = jw.repaired;
	st[k].key = "clamped_ts";
	st[k++].val = jw.clamped;
	st[k].key = "rounded_ts";
	st[k++].val = jw.rounded;
	st[k].key = "dupkeys";
	st[k++].val = jw.dupkeys;
	if (jw.clamped > 0) {
		st[k].key = "ts_offset_needed_us";
		st[k++].val = lt_jw_offset(jw.early, 1) / 1000;
	}
	return k;
}

static void
putnum(long long v)
{
	char num[LT_NUMBUF];

	lt_out_write(&out, num, lt_i64_fmt(num, v));
}

static void
metadata(void)
{
	struct ltstat st[16];
	const char *tool = NULL, *t, *key, *val, *c;
	size_t i, n, cn;
	int64_t ns;

	lt_out_puts(&out, ",\n\"metadata\":{");
	lt_out_write(&out, usermeta.p, usermeta.n);
	lt_out_puts(&out, "\"litracer\":{\"version\":\"" LT_VERSION
	    "\",\"ts_offset_us\":");
	lt_put_us(&out, jw.offset);
	lt_out_puts(&out, ",\"stats\":{");
	for (i = 0; i < lt_tally_nstats(); i++) {
		lt_tally_statat(i, &t, &key, &val);
		if (tool == NULL || strcmp(tool, t) != 0) {
			if (tool != NULL)
				lt_out_puts(&out, "},");
			tool = t;
			putstr(tool);
			lt_out_puts(&out, ":{");
		} else
			lt_out_putc(&out, ',');
		putstr(key);
		lt_out_putc(&out, ':');
		if (isint(val))
			lt_out_puts(&out, val);
		else
			putstr(val);
	}
	if (tool != NULL)
		lt_out_puts(&out, "},");
	lt_out_puts(&out, "\"ltjson\":{");
	n = mystats(st);
	for (i = 0; i < n; i++) {
		lt_out_puts(&out, i > 0 ? ",\"" : "\"");
		lt_out_puts(&out, st[i].key);
		lt_out_puts(&out, "\":");
		putnum(st[i].val);
	}
	lt_out_puts(&out, ",\"duration_us\":");
	lt_put_us(&out, lt_tally_duration());
	lt_out_puts(&out, "}},\"span_us\":{");
	for (i = 0; i < lt_tally_ncats(); i++) {
		c = lt_tally_cat(i, &cn, &ns);
		lt_out_puts(&out, i > 0 ? ",\"" : "\"");
		lt_out_write(&out, c, cn);
		lt_out_puts(&out, "\":");
		lt_put_us(&out, ns);
	}
	lt_out_puts(&out, "}}}}\n");
}

int
ltjson_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "offset", required_argument, NULL, 'O' },
		{ "stats", required_argument, NULL, 'S' },
		{ "summary", required_argument, NULL, 's' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltrec rec;
	struct ltrd rd;
	const char *errstr, *sfile = NULL, *sumfile = NULL;
	long long v;
	struct ltstat st[16];
	int c, k;

	lt_setprog(argv[0]);
	lt_jw_init(&jw);
	while ((c = getopt_long(argc, argv, "hO:S:s:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -O, --offset us  subtract this many microseconds "
			    "from every ts\n"
			    "                   (0: none; default: chosen from "
			    "the first event)\n"
			    "  -S, --stats file also write the counters to "
			    "file\n"
			    "  -s, --summary file\n"
			    "                   write the one-line summary of "
			    "the run to file\n"
			    "      --version    print the version and exit\n"
			    "  -h, --help       show this help\n");
			break;
		case 'O':
			v = lt_strtonum(optarg, INT64_MIN / 1000,
			    INT64_MAX / 1000, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-O %s: %s", optarg,
				    errstr);
			jw.offset = (int64_t)v * 1000;
			jw.offset_set = 1;
			break;
		case 'S':
			sfile = optarg;
			break;
		case 's':
			sumfile = optarg;
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_out_init(&out, 1, "<stdout>");
	lt_rd_init(&rd, argc, argv);
	lt_out_puts(&out, "{\"traceEvents\":[\n");
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC)
			event(&rd, &rec);
		else if (strncmp(rec.line, "#stat\t", 6) == 0)
			lt_tally_stat(&rd, rec.line);
		else if (strncmp(rec.line, "#top\t", 5) == 0)
			addtop(&rd, rec.line, rec.len);
	}
	lt_rd_done(&rd);
	lt_out_puts(&out, nevents > 0 ? "\n]" : "]");
	lt_out_write(&out, tops.p, tops.n);
	metadata();
	lt_out_close(&out);
	if (sfile != NULL)
		lt_tally_file(sfile, "ltjson", st, mystats(st));
	if (sumfile != NULL)
		lt_tally_summary(sumfile, st, mystats(st));
	lt_tally_free();
	lt_jw_free(&jw);
	lt_buf_free(&tops);
	lt_buf_free(&usermeta);
	putstr(NULL);
	return jw.clamped > 0 ? LT_EXIT_DATA : LT_EXIT_OK;
}
