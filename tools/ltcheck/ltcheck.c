/* See LICENSE file for copyright and license details. */
/*
 * ltcheck: validate a Chrome trace and predict what Perfetto's JSON
 * importer will make of it, offline.
 *
 * Reads one trace (Chrome JSON, object or array form, or an lt1 stream,
 * which is checked as ltjson(1) would write it) in one streaming pass
 * (read.c): strict JSON, event counts against those ltjson recorded, and
 * every rule of ltcheck(1) through the model of Perfetto's importer in
 * tools/ltcheck/ (ltcheck.h).  Writes a report on standard output
 * (report.c): for people, a counter per line with -t, a summary with -s,
 * nothing with -q.  Exit 1 when Perfetto would show a Trace Error, an
 * Import Error, a Data Loss or fail to load the file.  -P also runs
 * Perfetto's own trace processor (pftp.c) and exits 1 when it counts
 * otherwise.  This file: the options, main, and the choice of report.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb.h"
#include "ltcheck.h"

#define SYNOPSIS	"ltcheck [-Pqst] [-V version] [file]"
#define LARGE		1000000000LL	/* PF-LARGE-FILE, bytes */

/* Counts the cards shown; 1 if one is bad. */
static int
worst(const struct pffind *f, size_t n, int *cards)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < PF_NCARD; i++)
		cards[i] = 0;
	for (i = 0; i < n; i++) {
		cards[f[i].card] += (int)(f[i].n > 0);
		if (f[i].n > 0 && f[i].card <= PF_DL)
			bad = 1;
	}
	return bad;
}

/* The findings' order in every report: by card, counter and rule. */
static int
cmpfind(const void *a, const void *b)
{
	const struct pffind *x = a, *y = b;
	int c;

	if (x->card != y->card)
		return x->card - y->card;
	if ((c = strcmp(x->counter != NULL ? x->counter : "",
	    y->counter != NULL ? y->counter : "")) != 0)
		return c;
	return strcmp(x->rule, y->rule);
}

static void
options(struct pfcheck *ck, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "trace-processor", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "summary", no_argument, NULL, 's' },
		{ "counters", no_argument, NULL, 't' },
		{ "perfetto-version", required_argument, NULL, 'V' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *errstr;
	int c, version = 58;

	while ((c = getopt_long(argc, argv, "hPqstV:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -P, --trace-processor\n"
			    "                       also import with Perfetto's"
			    " trace processor, if found\n"
			    "                       ($TRACE_PROCESSOR, or on "
			    "PATH), and compare its counters\n"
			    "  -q, --quiet          no report, exit status only"
			    " (one line on stderr if bad)\n"
			    "  -s, --summary        a summary per category and "
			    "process\n"
			    "  -t, --counters       one line per predicted "
			    "counter:\n"
			    "                       COUNTER TAB COUNT TAB CARD "
			    "[TAB COUNTED with -P]\n"
			    "  -V, --perfetto-version version\n"
			    "                       the Perfetto version to "
			    "predict (default 58;\n"
			    "                       bands <=50, 51-56, 57+)\n"
			    "      --version        print ltcheck's own version and exit\n"
			    "  -h, --help           show this help\n");
			break;
		case 'P':
			ck->pflag = 1;
			break;
		case 'q':
			ck->mode = PF_MODE_QUIET;
			break;
		case 's':
			ck->sflag = 1;
			break;
		case 't':
			ck->mode = PF_MODE_TAB;
			break;
		case 'V':
			version = (int)lt_strtonum(optarg, 1, 1000, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-V %s: %s", optarg,
				    errstr);
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	if (argc - optind > 1 || (ck->sflag && ck->mode == PF_MODE_TAB))
		lt_usage(SYNOPSIS);
	ck->band = version >= 57 ? PF_V57 : version >= 51 ? PF_V56 : PF_V50;
}

/* The findings, in the form -q, -t or the report asks for. */
static int
output(struct pfcheck *ck)
{
	struct pffind *f = ck->fd->f;
	struct pfrow *r = NULL;
	size_t n = ck->fd->n, nr = 0;
	int bad, diff = 0, cards[PF_NCARD];

	if (n > 0)
		qsort(f, n, sizeof(*f), cmpfind);
	bad = worst(f, n, cards);
	if (ck->tpprog != NULL) {
		nr = pf_tp_rows(&ck->tp, ck->fd, &r);
		diff = pf_tp_differs(&ck->tp, r, nr, cards[PF_FATAL] > 0);
	}
	if (ck->mode == PF_MODE_TAB)
		pf_tabs(ck, f, n, cards, r, nr);
	else if (ck->mode == PF_MODE_REPORT) {
		pf_report(ck, f, n, cards);
		if (ck->pflag)
			pf_tpreport(ck, r, nr, cards[PF_FATAL] > 0, diff);
	} else {
		if (bad)
			pf_quiet(ck, f, n, cards);
		if (diff)
			pf_tpquiet(ck, r, nr, cards[PF_FATAL] > 0);
	}
	if (ck->sflag)
		pf_summary(ck);
	free(r);
	return bad || diff;
}

/* The path the trace processor is given: never taken for a flag or URL. */
static char *
tppath(const char *path)
{
	size_t n = strlen(path) + 3;
	char *p = lt_malloc(n);

	snprintf(p, n, "%s%s", path[0] == '/' ? "" : "./", path);
	return p;
}

int
ltcheck_main(int argc, char *argv[])
{
	static struct pfcheck ck;
	const char *path;
	char *trace = NULL;
	struct ltin in;
	struct stat st;
	int bad, lt1;

	lt_setprog(argv[0]);
	ck.mode = PF_MODE_REPORT;
	options(&ck, argc, argv);
	path = optind < argc ? argv[optind] : "-";
	if (ck.pflag)
		ck.tpprog = pf_tp_find();
	ck.sim = pf_new(ck.band, ck.sflag);
	ck.fd = pf_finds(ck.sim);
	lt_in_open(&in, path);
	ck.fname = in.name;
	lt1 = lt_in_fill(&in, 5) >= 4 &&
	    memcmp(in.buf + in.pos, "#lt1", 4) == 0;
	if (!lt1 && pb_istrace(&in)) {
		lt_out_init(&ck.out, 1, "<stdout>");
		bad = pf_readpb(&ck, &in);
		lt_in_close(&in);
		lt_out_close(&ck.out);
		pf_free(ck.sim);
		free(ck.tpprog);
		return bad;
	}
	if (ck.tpprog != NULL && !lt1) {
		if (strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			trace = tppath(path);
		else
			ck.tmp = pf_tp_spool(&in);
	}
	if (fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode))
		ck.bytes = (long long)st.st_size;
	lt_out_init(&ck.out, 1, "<stdout>");
	if (lt1)
		pf_readlt1(&ck, &in);
	else {
		pf_readjson(&ck, &in);
		lt_in_close(&in);
	}
	if (ck.bytes > LARGE)
		pf_find(ck.fd, "PF-LARGE-FILE", NULL, PF_OK, 0, NULL);
	pf_counts(&ck);
	pf_finish(ck.sim);
	if (ck.tpprog != NULL)
		pf_tp_import(&ck.tp, ck.tpprog, trace != NULL ? trace : ck.tmp);
	bad = output(&ck);
	lt_out_close(&ck.out);
	pf_tp_free(&ck.tp);
	pf_free(ck.sim);
	free(trace);
	free(ck.tpprog);
	return bad ? LT_EXIT_DATA : LT_EXIT_OK;
}
