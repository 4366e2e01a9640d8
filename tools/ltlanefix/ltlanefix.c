/* See LICENSE file for copyright and license details. */
/*
 * ltlanefix: make every (pid, tid) track of an lt1 stream properly
 * nested, so that Perfetto shows every X slice.
 *
 * Reads the stream (operands, "-" or none for standard input), places
 * the X slices of each track (nesting kept, small crossings snapped, real
 * overlaps moved to new tids in the same pid: the modules beside this
 * file), moves the s/t/f flow events bound to a changed slice along with
 * it, and writes the stream back: every record once, changed ones
 * rewritten in their ts, tid and dur columns, the naming of the new
 * lanes, then a #stat line.  The report of trace-lanefix goes to standard error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "ltlanefix.h"

#define SYNOPSIS	"ltlanefix [-kq] [-t us] [--progress-fd fd] [file ...]"
#define OPTIONS \
	"  -k, --no-complete  write each slice as a B and an E record\n" \
	"  -q, --quiet        no report on standard error\n" \
	"  -t, --snap-threshold-us us\n" \
	"                     snap crossings smaller than this (default " \
	"5.0; 0: never)\n" \
	"      --progress-fd fd\n" \
	"                     a progress line on fd (a terminal) while " \
	"lanes are\n" \
	"                     placed and written after the input's end\n" \
	"      --version      print the version and exit\n" \
	"  -h, --help         show this help\n"

static void
stats(struct lf *lf)
{
	struct ltstat st[] = {
		{ "events", lf->nevents },
		{ "tracks", (long long)lf->ntracks },
		{ "slices", lf->nslices },
		{ "changed", lf->nchanged },
		{ "moved", lf->nmoved },
		{ "snapped", lf->nsnaps },
		{ "snapped_slices", lf->nsnapped },
		{ "lanes", lf->nlanes },
		{ "meta_added", lf->nadded },
		{ "flows", lf->nflows },
		{ "flows_rewritten", lf->nrewritten },
		{ "crossings_before", (long long)lf->xbefore },
		{ "crossings_after", (long long)lf->xafter },
		{ "unplaced", lf->nunplaced },
		{ "be", lf->nbe },
		{ "split", lf->nsplit },
		{ "threshold_ns", lf->thr },
		/* What a stream placed as it goes could not: only then. */
		{ "late", lf->nlate + lf->nlatef },
		{ "renamed", lf->nrenamed }
	};
	size_t n = sizeof(st) / sizeof(st[0]);

	if (lf->nlate + lf->nlatef == 0 && lf->nrenamed == 0)
		n -= 2;
	lt_put_stat(&lf->out, "ltlanefix", st, n);
}

int
ltlanefix_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-complete", no_argument, NULL, 'k' },
		{ "progress-fd", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "snap-threshold-us", required_argument, NULL, 't' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	static struct lf lf;
	struct ltrec rec;
	struct ltrd rd;
	char thr[64] = "5.0";
	long long n[LF_RN];
	int c, k, r, qflag = 0, live = 0, progfd = -1;

	lt_setprog(argv[0]);
	lf.thr = 5000;
	while ((c = getopt_long(argc, argv, "hkqt:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS, OPTIONS);
			break;
		case 'k':
			lf.kflag = 1;
			break;
		case 'p':
			progfd = lt_prog_fd(optarg);
			break;
		case 'q':
			qflag = 1;
			break;
		case 't':
			if ((r = lf_thr_parse(optarg, &lf.thr, thr,
			    sizeof(thr))) != 0)
				lt_die(LT_EXIT_SYS, "-t %s: %s", optarg, r == -2 ?
				    "must be non-negative" : "invalid");
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lf_ids_init(&lf.ids);
	if (!qflag)
		lf.rep = lf_rep_new(thr);
	lt_out_init(&lf.out, 1, "<stdout>");
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		/*
		 * Held until ltpair's first #open says what may come.  With
		 * -k, the flows that come after their slices (ltstat -t's)
		 * are bound at the end.
		 */
		if (!live && k == LT_DIR && lf.kflag && rec.len == 10 &&
		    memcmp(rec.line, "#lateflows", 10) == 0)
			lf.lateflows = 1;
		if (!live && k == LT_DIR && rec.len > 6 &&
		    memcmp(rec.line, "#open\t", 6) == 0) {
			lf_live_start(&lf);
			live = 1;
		}
		if (!live) {
			lf_whole_add(&lf, &rd, &rec, k);
			continue;
		}
		if (k == LT_REC)
			lf_live_rec(&lf, &rd, &rec);
		else
			lf_live_dir(&lf, &rec);
		lf_live_drain(&lf);
	}
	lt_rd_done(&rd);
	if (live)
		lf_live_end(&lf);
	else {
		lf_whole_end();
		lt_prog_start(&lf.prog, progfd, "placing lanes", lf.nslices,
		    0);
		lf_whole_place(&lf);
	}
	if (lf.xafter != 0)
		lt_die(LT_EXIT_SYS, "internal error: %llu crossings left",
		    (unsigned long long)lf.xafter);
	if (!live || lf.kflag) {
		lt_prog_start(&lf.prog, progfd, "writing", 0, 0);
		if (live)
			lf_split_write(&lf, 0);
		else
			lf_whole_write(&lf);
		lt_prog_end(&lf.prog);
	}
	stats(&lf);
	lt_out_close(&lf.out);
	/* Without the report, the one thing in it that may change a trace. */
	if (lf.rep == NULL && lf.nlatef > 0)
		lt_warn("%lld flow(s) came after their slices were placed and "
		    "stay on their threads as they came: Perfetto may bind "
		    "them to other slices (ltstat -t before ltlanefix adds "
		    "its flows so late: put it after)", lf.nlatef);
	/* The next stage has all of the stream before the report is made. */
	if (lf.rep != NULL) {
		n[LF_RSNAPS] = lf.nsnaps;
		n[LF_RCHANGED] = lf.nchanged;
		n[LF_RFLOWS] = lf.nrewritten;
		n[LF_RLATE] = lf.nlate;
		n[LF_RLATEF] = lf.nlatef;
		n[LF_RRENAMED] = lf.nrenamed;
		lf_rep_write(lf.rep, lf.tracks, lf.ntracks, n);
	}
	lf_live_free();
	lf_whole_free();
	lf_split_free();
	lf_late_free();
	lf_free(&lf);
	return LT_EXIT_OK;
}
