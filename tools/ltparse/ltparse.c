/* See LICENSE file for copyright and license details. */
/*
 * ltparse: LitData enable_tracer() logs, and Chrome trace JSON, to an lt1
 * stream.
 *
 * Reads logs of every LitData release (operands, "-" or none for
 * standard input; gzip-compressed or not) line by line and writes one
 * lt1 record per event line: ts in microseconds, the pid, a small tid
 * standing for the (pid, thread id) pair, the stable name and category,
 * the other keys as typed args, cname in extra.  Every other line is
 * skipped and counted by kind.  At the end come the M events naming
 * every process and thread, and a #stat line; lines = events + skipped.
 * A JSON input is read event by event and every member kept
 * (jsonin.c).  With -P, one of N parts is written, so
 * that N processes can share a file.  See ltparse(1).
 */
#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "ltparse.h"
#include "progress.h"

#define SYNOPSIS	"ltparse [-v] [-n node] [-P k/N [-S dir [-G]]] [--progress-fd fd] [file ...]"

#define MAXPARTS	1000000

static struct pssink	 sink;
static int		 part, nparts;	/* -P k/N, 0 without */
static int		 gather;		/* -G */
static const char	*sharedir;	/* -S */
static struct ltprog	 prog;		/* --progress-fd */
static struct pspin	*pins;
static int		 npins;
static char		 progwhat[256];

/*
 * The progress line: the bytes read of all inputs (of this part's share
 * of them with -P), while every input is a regular uncompressed file;
 * else the bytes read.
 */
static void
progress(const struct ltin *in)
{
	long long done = 0, all = 0;
	int i;

	if (in->child != -1)
		prog.total = 0;		/* gzip: its size says nothing */
	for (i = 0; i < npins && pins[i].path != in->name; i++)
		done += pins[i].size;
	done += (long long)(in->off + (off_t)in->end);
	if (nparts > 0 && prog.total > 0) {
		for (i = 0; i < npins; i++)
			all += pins[i].size;
		done -= all / nparts * (part - 1);
	}
	lt_prog_at(&prog, done);
}

static void
progstart(int fd, struct pspin *ins, int nin)
{
	struct stat sb;
	long long total = 0;
	int i;

	for (i = 0; i < nin; i++) {
		if (strcmp(ins[i].path, "-") == 0 ||
		    stat(ins[i].path, &sb) < 0 || !S_ISREG(sb.st_mode))
			break;
		ins[i].size = sb.st_size;
		total += sb.st_size;
	}
	if (i < nin)
		total = 0;
	else if (nparts > 0)
		total /= nparts;
	if (nin == 1)
		snprintf(progwhat, sizeof(progwhat), "reading %s",
		    strcmp(ins[0].path, "-") == 0 ? "standard input" :
		    ins[0].path);
	else
		snprintf(progwhat, sizeof(progwhat), "reading %d files", nin);
	pins = ins;
	npins = nin;
	lt_prog_start(&prog, fd, progwhat, total, 1);
	lt_in_watch(progress);
}

/* -P k/N */
static void
partopt(const char *arg)
{
	char buf[32], *slash;
	const char *errstr;
	long long k, n;

	if (strlen(arg) >= sizeof(buf) || (slash = strchr(strcpy(buf, arg),
	    '/')) == NULL)
		lt_die(LT_EXIT_SYS, "-P %s: expected k/N, such as 2/4", arg);
	*slash = '\0';
	n = lt_strtonum(slash + 1, 1, MAXPARTS, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "-P %s: N is %s (1 to %d)", arg,
		    errstr, MAXPARTS);
	k = lt_strtonum(buf, 1, n, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "-P %s: k is %s (1 to N)", arg, errstr);
	part = (int)k;
	nparts = (int)n;
}

/*
 * Can the inputs be cut into parts?  Only regular, uncompressed log
 * files can: others are converted whole by part 1.  Nothing is read
 * from an input that is not a regular file.
 */
static int
cuttable(struct pspin *ins, int nin)
{
	struct ltin in;
	struct stat sb;
	int i, ok;

	for (i = 0; i < nin; i++) {
		if (!ps_isreg(ins[i].path))
			return 0;
		lt_in_open(&in, ins[i].path);
		ok = fstat(in.fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    in.child == -1 && !ps_isjson(&in);
		ins[i].size = sb.st_size;
		ins[i].dev = sb.st_dev;
		ins[i].ino = sb.st_ino;
		lt_in_close(&in);
		if (!ok)
			return 0;
	}
	return 1;
}

static void
run(struct pspin *ins, int nin)
{
	struct ltin in;
	const char *lt1 = NULL;
	long long n;
	int i, form;

	if (nparts > 0 && cuttable(ins, nin))
		ps_parts(ins, nin, part, nparts, sharedir, gather, &sink);
	else if (part > 1)
		return;		/* part 1 converts it all */
	else {
		part = nparts = 0;
		ps_sink_head(&sink);
		for (i = 0; i < nin; i++) {
			lt_in_open(&in, ins[i].path);
			if (lt_in_fill(&in, 4) >= 4 &&
			    memcmp(in.buf + in.pos, "#lt1", 4) == 0) {
				lt1 = ins[i].path;
				lt_warn("%s is an lt1 stream, not a log: its "
				    "lines are skipped (ltpair, ltlanefix and "
				    "ltjson read it; litracer reads it as its "
				    "only file)",
				    strcmp(lt1, "-") == 0 ? "standard input" :
				    lt1);
			}
			if ((form = ps_isjson(&in)) != 0) {
				sink.ours = 0;
				ps_jsonin(&ins[i], &in, form, &sink);
				if (sink.ours && nin > 1)
					lt_warn("%s: a trace litracer wrote, "
					    "merged with the other inputs (a "
					    "trace to write goes to "
					    "litracer -o)", ins[i].path);
			} else
				ps_login(&ins[i], &in, 0, &sink);
			lt_in_close(&in);
		}
	}
	if (part != nparts)
		return;
	ps_clocks(&sink, ins, nin);
	for (i = 0; i < nin; i++) {
		ps_names(&sink, &ins[i]);
		ps_jsonnames(&sink, &ins[i]);
	}
	ps_sink_stats(&sink, ps_nlogprocs(), ps_nthreads());
	n = sink.n[PS_C_LINES] - sink.n[PS_C_JSON];
	if (sink.n[PS_C_EVENTS] > 0 || lt1 != NULL)
		return;		/* events, or an lt1 input was named above */
	if (n > 0)
		lt_warn("no events in %lld line%s: not a LitData "
		    "enable_tracer() log?", n, n == 1 ? "" : "s");
	else if (sink.n[PS_C_JSON] > 0)
		lt_warn("no trace event has a one-character ph");
}

/* The inputs: a block of pids each when there are several, or -n. */
static struct pspin *
inputs(int argc, char **argv, long long node)
{
	struct pspin *ins;
	int i;

	if (node >= 0 && node + argc >= PS_NBLOCKS)
		lt_die(LT_EXIT_SYS, "-n %lld: too large for %d inputs (node + "
		    "inputs at most %d)", node, argc, PS_NBLOCKS - 1);
	if (argc >= PS_NBLOCKS)
		lt_die(LT_EXIT_SYS, "too many inputs (at most %d)",
		    PS_NBLOCKS - 1);
	ins = lt_calloc((size_t)argc, sizeof(*ins));
	for (i = 0; i < argc; i++) {
		ins[i].path = argv[i];
		ins[i].index = (uint32_t)i;
		if (node >= 0) {
			ins[i].block = (uint32_t)(node + i + 1);
			snprintf(ins[i].label, sizeof(ins[i].label),
			    "node %lld", node + i);
		} else if (argc > 1) {
			ins[i].block = (uint32_t)(i + 1);
			snprintf(ins[i].label, sizeof(ins[i].label),
			    "input %d", i + 1);
		}
	}
	return ins;
}

int
ltparse_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "gather", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ "node", required_argument, NULL, 'n' },
		{ "part", required_argument, NULL, 'P' },
		{ "progress-fd", required_argument, NULL, 'p' },
		{ "share", required_argument, NULL, 'S' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	static char *stdin_only[] = { (char *)"-" };
	struct pspin *ins;
	const char *errstr;
	long long node = -1;
	int c, progfd = -1;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "Ghn:P:S:v", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'G':
			gather = 1;
			break;
		case 'h':
			lt_help(SYNOPSIS,
			    "  -n, --node node  tag the inputs as coming from "
			    "node node, node+1, ...\n"
			    "                   (0 to 1022)\n"
			    "  -P, --part k/N   write part k of N, for "
			    "parallel runs\n"
			    "  -S, --share dir  the parts share their state in "
			    "dir, none reads\n"
			    "                   the bytes before its range\n"
			    "  -G, --gather     with -S: part 1 writes the whole "
			    "stream, the other\n"
			    "                   parts leave theirs in dir for it\n"
			    "      --progress-fd fd\n"
			    "                   a progress line on fd, a "
			    "terminal\n"
			    "  -v, --verbose    report every skipped line on "
			    "stderr\n"
			    "      --version    print the version and exit\n"
			    "  -h, --help       show this help\n");
			break;
		case 'n':
			node = lt_strtonum(optarg, 0, PS_NBLOCKS - 2, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-n %s: %s (0 to %d)",
				    optarg, errstr, PS_NBLOCKS - 2);
			break;
		case 'P':
			partopt(optarg);
			break;
		case 'p':
			progfd = lt_prog_fd(optarg);
			break;
		case 'S':
			sharedir = optarg;
			break;
		case 'v':
			sink.verbose = 1;
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (sharedir != NULL && nparts == 0)
		lt_die(LT_EXIT_SYS, "-S %s: only with -P", sharedir);
	if (gather && sharedir == NULL)
		lt_die(LT_EXIT_SYS, "-G: only with -P and -S");
	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	ins = inputs(argc, argv, node);
	sink.first = lt_calloc((size_t)argc, sizeof(*sink.first));
	sink.firstpart = lt_calloc((size_t)argc, sizeof(*sink.firstpart));
	lt_out_init(&sink.out, 1, "<stdout>");
	if (progfd >= 0)
		progstart(progfd, ins, argc);
	run(ins, argc);
	lt_prog_end(&prog);
	ps_parts_end(&sink.out);
	lt_out_close(&sink.out);
	free(ins);
	free(sink.first);
	free(sink.firstpart);
	ps_procs_free();
	ps_jsonids_free();
	ps_hold_free();
	lt_buf_free(&sink.rec);
	return LT_EXIT_OK;
}
