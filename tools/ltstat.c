/* See LICENSE file for copyright and license details. */
/*
 * ltstat: is the training waiting for data, and what is the loader
 * doing meanwhile?
 *
 * Reads lt1 after ltpair (X spans, open ones marked by it), from the
 * operands or standard input, and writes a report: per rank and epoch
 * the batches, compute time (batch spans) and data-wait time (the gaps
 * before them), the longest waits with the downloads and reads in
 * flight, per category count, total and percentiles, per worker its
 * chunks, the slowest chunks; -j writes it as JSON.  With -t it passes
 * the stream on instead, adding the waits as slices, download -> read
 * -> delete flows and counters (emit.c), and writes the report only to
 * the file of -o.  Memory holds processes, threads, epochs and the I/O
 * of one batch interval, not the log.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltstat.h"

#define SYNOPSIS	"ltstat [-hjt] [-n count] [-o file] [-x parts] " \
			"[file ...]"

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

static void
span(struct ltrd *rd, const struct ltrec *rec)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	struct ev ev;
	struct proc *p;
	int r1, r2;

	if ((r1 = lt_rec_ts(rec, LT_TS, &ev.ts)) < 0)
		lt_rd_bad(rd, "column ts: not microseconds (-?D+ with at most "
		    "3 decimals) or -");
	if ((r2 = lt_rec_ts(rec, LT_DUR, &ev.dur)) < 0)
		lt_rd_bad(rd, "column dur: not microseconds (-?D+ with at "
		    "most 3 decimals) or -");
	if (r1 == 0 || r2 == 0) {
		ST.untimed++;
		return;
	}
	if (ev.dur < 0) {
		ST.negdur++;
		return;
	}
	if (ev.ts > INT64_MAX - ev.dur)
		ev.dur = INT64_MAX - ev.ts;
	ST.x++;
	if (!ST.hasmin || ev.ts < ST.min)
		ST.min = ev.ts;
	ST.hasmin = 1;
	p = st_proc(&rec->f[LT_PID], &rec->f[LT_TID], &ev.t);
	st_cat(&rec->f[LT_CAT], ev.dur);
	if (openmark(&rec->f[LT_ARGS]))
		ST.open++;
	if (LT_IS(*nm, "batch") || LT_IS(*nm, "dataloader") ||
	    LT_IS(*nm, "download") || LT_IS(*nm, "read") ||
	    LT_IS(*nm, "delete")) {
		st_args(p, &rec->f[LT_ARGS], &ev, rd);
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

static void
instant(struct ltrd *rd, const struct ltrec *rec)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	int64_t ts;

	if (lt_rec_ts(rec, LT_TS, &ts) < 0)
		lt_rd_bad(rd, "column ts: not microseconds (-?D+ with at most "
		    "3 decimals) or -");
	ST.instants++;
	/* Perfetto makes an instant a slice of no duration. */
	st_cat(&rec->f[LT_CAT], 0);
	if (LT_IS(*nm, "crash") || contains(nm, "crashed"))
		ST.crashes++;
}

static void
record(struct ltrd *rd, const struct ltrec *rec)
{
	const struct ltfield *ph = &rec->f[LT_PH];

	ST.records++;
	if (ph->n != 1)
		lt_rd_bad(rd, "column ph: not a one-character phase");
	switch (ph->p[0]) {
	case 'X':
		span(rd, rec);
		break;
	case 'i':
	case 'I':
		instant(rd, rec);
		break;
	case 'B':
	case 'E':
		ST.be++;
		break;
	case 'M':
		ST.meta++;
		st_meta(rec, rd);
		break;
	}
}

/* #t0 before any record: the time "at" counts from, as ltfilter -T. */
static void
origin(struct ltrd *rd, const struct ltrec *rec)
{
	if (ST.hast0 || ST.records > 0 || rec->len < 4 ||
	    memcmp(rec->line, "#t0\t", 4) != 0)
		return;
	if (lt_us_parse(rec->line + 4, rec->len - 4, &ST.t0) != LT_NUM_OK)
		lt_rd_bad(rd, "#t0: not microseconds (-?D+ with at most 3 "
		    "decimals)");
	ST.hast0 = 1;
}

static void
flushctr(void *e)
{
	struct proc *p = e;

	if (p->io)
		st_ctr_flush(p);
}

static void
parts(const char *arg)
{
	const char *p, *comma;
	size_t n;

	for (p = arg; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		n = (size_t)(comma - p);
		if (n == 5 && memcmp(p, "waits", 5) == 0)
			ST.tflag &= ~T_WAITS;
		else if (n == 5 && memcmp(p, "flows", 5) == 0)
			ST.tflag &= ~T_FLOWS;
		else if (n == 8 && memcmp(p, "counters", 8) == 0)
			ST.tflag &= ~T_COUNTERS;
		else if (n > 0)
			lt_die(LT_EXIT_SYS, "-x %s: not waits, flows or "
			    "counters", arg);
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "trace", no_argument, NULL, 't' },
		{ "exclude", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 }
	};
	struct ltstat st[6];
	struct ltout out, rep;
	struct ltrec rec;
	struct ltrd rd;
	const char *errstr, *ofile = NULL;
	int c, k, jflag = 0, tflag = 0, fd;

	lt_setprog(argv[0]);
	ST.ntop = 5;
	ST.tflag = T_WAITS | T_FLOWS | T_COUNTERS;
	while ((c = getopt_long(argc, argv, "hjn:o:tx:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -j, --json           write the report as one "
			    "JSON object\n"
			    "  -n, --top COUNT      list COUNT longest waits "
			    "and slowest chunks (5)\n"
			    "  -o, --output FILE    write the report to FILE\n"
			    "  -t, --trace          pass the stream on, with "
			    "waits, flows and counters\n"
			    "  -x, --exclude PARTS  with -t, leave out waits, "
			    "flows or counters\n"
			    "  -h, --help           show this help\n");
			break;
		case 'j':
			jflag = 1;
			break;
		case 'n':
			ST.ntop = (int)lt_strtonum(optarg, 0, 100, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-n %s: %s", optarg,
				    errstr);
			break;
		case 'o':
			ofile = optarg;
			break;
		case 't':
			tflag = 1;
			break;
		case 'x':
			parts(optarg);
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (!tflag)
		ST.tflag = 0;

	/* Open the report's file first: a bad name costs no input. */
	if (ofile != NULL) {
		if ((fd = open(ofile, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			lt_die(LT_EXIT_SYS, "%s:", ofile);
		lt_out_init(&rep, fd, ofile);
	}
	lt_id_init(&ST.procs, sizeof(struct proc));
	lt_id_init(&ST.thrs, sizeof(struct thr));
	ST.slowdl = lt_calloc((size_t)ST.ntop, sizeof(*ST.slowdl));
	ST.slowrd = lt_calloc((size_t)ST.ntop, sizeof(*ST.slowrd));
	if (tflag) {
		lt_out_init(&out, 1, "<stdout>");
		ST.out = &out;
		lt_put_header(&out);
	}
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		/*
		 * The record goes first: a flow written after it binds to
		 * it in Perfetto even when it has no duration (ties of
		 * equal keys keep the order of the file).
		 */
		if (tflag) {
			lt_out_write(&out, rec.line, rec.len);
			lt_out_putc(&out, '\n');
		}
		if (k == LT_DIR)
			origin(&rd, &rec);
		else
			record(&rd, &rec);
	}
	lt_rd_done(&rd);
	lt_id_each(&ST.procs, flushctr);
	st_end();
	if (tflag) {
		st[0].key = "waits";
		st[0].val = ST.waits_out;
		st[1].key = "flows";
		st[1].val = ST.flows;
		st[2].key = "counters";
		st[2].val = ST.counters;
		st[3].key = "ranks";
		st[3].val = (long long)ST.nranks;
		st[4].key = "spans";
		st[4].val = ST.x;
		st[5].key = "open";
		st[5].val = ST.open;
		lt_put_stat(&out, "ltstat", st, 6);
		lt_out_close(&out);
	}
	if (ofile != NULL) {
		st_report(&rep, jflag);
		lt_out_close(&rep);
	} else if (!tflag) {
		lt_out_init(&rep, 1, "<stdout>");
		st_report(&rep, jflag);
		lt_out_close(&rep);
	}
	st_free();
	return LT_EXIT_OK;
}
