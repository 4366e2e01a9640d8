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

#define SYNOPSIS	"ltstat [-chjt] [-d name] [-J file] [-m pct] " \
			"[-n count] [-o file] [-x parts] [file ...]"

/* The exit status when a wait share is above -m. */
#define EXIT_OVER	3

/* Is a wait share of the job, or of a rank, above pct (in 1/10^4 %)? */
static int
over(int64_t pct)
{
	double max = (double)pct / 1e6;
	size_t i;

	if (SV.known && SV.share > max)
		return 1;
	for (i = 0; i < ST.nranks; i++)
		if (ST.ranks[i]->batches > 0 &&
		    st_share(ST.ranks[i]->wait, ST.ranks[i]->compute) > max)
			return 1;
	return 0;
}

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
ltstat_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "compare", no_argument, NULL, 'c' },
		{ "dataloader", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ "json-output", required_argument, NULL, 'J' },
		{ "max-wait-share", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "trace", no_argument, NULL, 't' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltstat st[6];
	struct ltout out, rep, jrep;
	struct ltrec rec;
	struct ltrd rd;
	const char *errstr, *why, *ofile = NULL, *jfile = NULL;
	int c, k, cflag = 0, jflag = 0, tflag = 0, ntop = 5, status;
	int parts = T_ALL;
	int64_t pct = -1;
	double hi;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "cd:hJ:jm:n:o:tx:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'c':
			cflag = 1;
			break;
		case 'd':
			if (*optarg == '\0')
				lt_die(LT_EXIT_SYS, "-d: an empty name");
			st_kin_pattern = optarg;
			break;
		case 'h':
			lt_help(SYNOPSIS,
			    "  -c, --compare        compare two JSON reports, "
			    "before and after\n"
			    "  -d, --dataloader NAME  a PyTorch profiler's span "
			    "with NAME in its name is DataLoader time\n"
			    "  -j, --json           write the report as one "
			    "JSON object\n"
			    "  -J, --json-output FILE  write the JSON report to "
			    "FILE too\n"
			    "  -m, --max-wait-share PCT  exit 3 when a wait "
			    "share is above PCT %\n"
			    "  -n, --top COUNT      list COUNT longest waits "
			    "and slowest chunks (5)\n"
			    "  -o, --output FILE    write the report to FILE\n"
			    "  -t, --trace          pass the stream on, with "
			    "waits, flows and counters\n"
			    "  -x, --exclude PARTS  with -t, leave out waits, "
			    "share, flows or counters\n"
			    "      --version        print the version and exit\n"
			    "  -h, --help           show this help\n");
			break;
		case 'J':
			jfile = optarg;
			break;
		case 'j':
			jflag = 1;
			break;
		case 'm':
			if (lt_dec_parse(optarg, strlen(optarg), 4, &pct) !=
			    LT_NUM_OK || pct < 0 || pct > 1000000)
				lt_die(LT_EXIT_SYS, "-m %s: not a percentage "
				    "from 0 to 100", optarg);
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
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (cflag && (argc != 2 || jflag || tflag))
		lt_usage(SYNOPSIS);
	if (cflag) {
		lt_out_init(&rep, ofile != NULL ? lt_out_create(ofile) : 1,
		    ofile != NULL ? ofile : "<stdout>");
		hi = st_compare(&rep, argv[0], argv[1]);
		lt_out_close(&rep);
		return pct >= 0 && hi > (double)pct / 1e6 ? EXIT_OVER :
		    LT_EXIT_OK;
	}

	/* Open the report's file first: a bad name costs no input. */
	if (ofile != NULL) {
		lt_out_init(&rep, lt_out_replace(ofile), ofile);
	}
	if (jfile != NULL)
		lt_out_init(&jrep, lt_out_create(jfile), jfile);
	if (tflag) {
		lt_out_init(&out, 1, "<stdout>");
		lt_put_header(&out);
		/* Flows come after their slices (for ltlanefix -k). */
		if (parts & T_FLOWS)
			lt_out_puts(&out, "#lateflows\n");
	}
	st_init(ntop, tflag ? parts : 0, tflag ? &out : NULL);
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		/*
		 * The record goes first: a flow written after it binds to
		 * it in Perfetto even when it has no duration (ties of
		 * equal keys keep the order of the file).
		 */
		if (tflag && k == LT_REC)
			lt_put_rec(&out, &rec);
		else if (tflag) {
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
	st_verdict();
	status = pct >= 0 && over(pct) ? EXIT_OVER : LT_EXIT_OK;
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
	if (jfile != NULL) {
		st_report(&jrep, 1);
		lt_out_close(&jrep);
	}
	st_verdict_free();
	st_free();
	return status;
}
