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
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltstat.h"

#define SYNOPSIS	"ltstat [-hjt] [-n count] [-o file] [-x parts] " \
			"[file ...]"

/* -x: what of T_* to leave out. */
static int
exclude(int parts, const char *arg)
{
	const char *p, *comma;
	size_t n;

	for (p = arg; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		n = (size_t)(comma - p);
		if (n == 5 && memcmp(p, "waits", 5) == 0)
			parts &= ~T_WAITS;
		else if (n == 5 && memcmp(p, "flows", 5) == 0)
			parts &= ~T_FLOWS;
		else if (n == 8 && memcmp(p, "counters", 8) == 0)
			parts &= ~T_COUNTERS;
		else if (n == 5 && memcmp(p, "share", 5) == 0)
			parts &= ~T_SHARE;
		else if (n > 0)
			lt_die(LT_EXIT_SYS, "-x %s: not waits, share, flows or "
			    "counters", arg);
	}
	return parts;
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
	const char *errstr, *why, *ofile = NULL;
	int c, k, jflag = 0, tflag = 0, ntop = 5;
	int parts = T_ALL;

	lt_setprog(argv[0]);
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
			    "share, flows or counters\n"
			    "  -h, --help           show this help\n");
			break;
		case 'j':
			jflag = 1;
			break;
		case 'n':
			ntop = (int)lt_strtonum(optarg, 0, 100, &errstr);
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
			parts = exclude(parts, optarg);
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	/* Open the report's file first: a bad name costs no input. */
	if (ofile != NULL) {
		lt_out_init(&rep, lt_out_replace(ofile), ofile);
	}
	if (tflag) {
		lt_out_init(&out, 1, "<stdout>");
		lt_put_header(&out);
	}
	st_init(ntop, tflag ? parts : 0, tflag ? &out : NULL);
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
		why = k == LT_DIR ? st_directive(rec.line, rec.len) :
		    st_record(&rec);
		if (why != NULL)
			lt_rd_bad(&rd, "%s", why);
	}
	lt_rd_done(&rd);
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
		lt_out_commit(ofile);
	} else if (!tflag) {
		lt_out_init(&rep, 1, "<stdout>");
		st_report(&rep, jflag);
		lt_out_close(&rep);
	}
	st_free();
	return LT_EXIT_OK;
}
