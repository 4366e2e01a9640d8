/* See LICENSE file for copyright and license details. */
/*
 * ltproto: an lt1 stream to a Perfetto trace in Perfetto's own format,
 * protobuf (.pftrace).
 *
 * Times are integer nanoseconds, absolute: no offset, nothing rounded.
 * Processes and threads are tracks with their names and sort order,
 * slices and instants have their categories and args (as typed debug
 * annotations), counters and flows are kept, and names are interned.
 * It reads what ltjson reads and writes what Perfetto makes of ltjson's
 * trace, so the two import alike.  Streams: memory is that of the
 * tracks, the interned strings and a window of the last events, not of
 * the stream; the tracks of threads gone are packed to what they hold
 * for the end of the trace (roots.c, window.c).  The modules are beside
 * this file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltproto.h"
#include "tally.h"

#define SYNOPSIS	"ltproto [-i strings] [-o file] [-S file] [-s file] [-w events] [file ...]"
#define DEFWINDOW	4096
#define DEFSTRINGS	262144

/* ltproto's counters for -S: those of every writer, and what it left out. */
#define NMINE	8
static size_t
mystats(struct ltstat *st)
{
	const struct ltstat mine[NMINE] = {
		{ "negative", pt_count.negative },
		{ "negdur", pt_count.negdur },
		{ "nots", pt_count.nots },
		{ "unsupported", pt_count.unsupported },
		{ "badid", pt_count.badid },
		{ "badcounter", pt_count.badcounter },
		{ "spilled", pt_count.spilled },
		{ "unbound", pt_count.unbound }
	};
	size_t i, k = lt_tally_counts(st);

	for (i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		st[k++] = mine[i];
	return k;
}

static void
report(long long n, const char *what)
{
	if (n > 0)
		lt_warn("%lld %s", n, what);
}

int
ltproto_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "intern", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", required_argument, NULL, 'S' },
		{ "summary", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltrec rec;
	struct ltrd rd;
	struct ltstat st[LT_TALLY_MAX + NMINE];	/* mystats */
	const char *errstr, *ofile = NULL, *sfile = NULL, *sumfile = NULL;
	long long window = DEFWINDOW, strings = DEFSTRINGS;
	int c, k, fd = 1, status;

	lt_setprog(argv[0]);
	lt_cold_init("ltproto", "the tracks it holds", 1 << 18);
	while ((c = getopt_long(argc, argv, "hi:o:S:s:w:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -i, --intern strings  start interning anew "
			    "past this many strings (default 262144)\n"
			    "  -o, --output file     write the trace to file, "
			    "not standard output\n"
			    "  -S, --stats file      also write the counters "
			    "to file\n"
			    "  -s, --summary file    write the one-line summary "
			    "of the run to file\n"
			    "  -w, --window events   order events of equal "
			    "time this many events apart (default 4096)\n"
			    "      --version         print the version and exit\n"
			    "  -h, --help            show this help\n");
			break;
		case 'i':
			strings = lt_strtonum(optarg, 1, 1LL << 30, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-i %s: %s", optarg,
				    errstr);
			break;
		case 'o':
			ofile = optarg;
			break;
		case 'S':
			sfile = optarg;
			break;
		case 's':
			sumfile = optarg;
			break;
		case 'w':
			window = lt_strtonum(optarg, 1, 1LL << 26, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-w %s: %s", optarg,
				    errstr);
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	if (ofile != NULL)
		fd = lt_out_replace(ofile);
	else if (isatty(1))
		lt_die(LT_EXIT_SYS, "not writing a binary trace to a "
		    "terminal: use -o or a redirection");
	pt_out_open(fd, ofile != NULL ? ofile : "<stdout>", (size_t)window);
	pt_roots_budget((size_t)window * 16);
	pt_intern_init((size_t)strings);
	pt_tallying = sfile != NULL || sumfile != NULL;
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF)
		if (k == LT_REC)
			pt_record(&rd, &rec);
		else if (rec.len > 4 && memcmp(rec.line, "#t0\t", 4) == 0)
			pt_t0(rec.line + 4, rec.len - 4);
		else if (pt_tallying && rec.len > 6 &&
		    memcmp(rec.line, "#stat\t", 6) == 0)
			lt_tally_stat(&rd, rec.line);
	lt_rd_done(&rd);
	pt_seq_use(SEQ_COMMON, 0);	/* an empty stream: a valid trace */
	pt_tracks_finish();
	pt_out_close();
	if (ofile != NULL)
		lt_out_commit(ofile);
	if (sfile != NULL)
		lt_tally_file(sfile, "ltproto", st, mystats(st));
	if (sumfile != NULL)
		lt_tally_summary(sumfile, st, mystats(st));

	report(pt_count.negative, "events before time 0 (or ending past "
	    "2^63-1 ns) left out, as Perfetto drops them");
	report(pt_count.negdur, "X events with a negative dur left out, as "
	    "Perfetto drops them");
	report(pt_count.nots, "events without ts (or X without dur) left "
	    "out, as Perfetto leaves them");
	report(pt_count.unsupported, "events of phases Perfetto does not "
	    "import from JSON left out");
	report(pt_count.badid, "flow or async events with an id Perfetto "
	    "cannot read left out");
	report(pt_count.badcounter, "counter values that are not numbers "
	    "left out");
	report(pt_count.spilled, "slices that cross others (or came too "
	    "late to be ordered) on tracks of their own (see ltlanefix)");
	report(pt_count.unbound, "flow ends before the start of their flow "
	    "at the same time left out, as Perfetto's JSON importer binds "
	    "none");
	status = pt_count.negative > 0 ? LT_EXIT_DATA : LT_EXIT_OK;
	report(pt_roots_lost(), "slices start with a slice already "
	    "written, so cannot enclose it: among those on tracks of their "
	    "own (raise -w)");
	lt_tally_free();
	pt_event_free();
	pt_roots_free();
	pt_tracks_free();
	pt_intern_free();
	return status;
}
