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
 * (common/ltparse/jsonin.c).  With -P, one of N parts is written, so
 * that N processes can share a file.  See ltparse(1).
 */
#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "ltparse.h"

#define SYNOPSIS	"ltparse [-v] [-n node] [-P k/N] [file ...]"

#define NBLOCKS		1024
#define MAXPARTS	1000000

static struct ltsink	 sink;
static int		 part, nparts;	/* -P k/N, 0 without */

/*
 * Is line p[0..n) a record "ts:...;PID:P; TID:T;..." of a known thread?
 * Only such a record may be passed over by a part before its range: an
 * event of it makes no thread, and no line of it ends a traceback.  Any
 * other form is left to lt_logline().
 */
static int
knownrecord(const struct ltpin *in, const char *p, size_t n)
{
	const char *end = p + n, *v, *e;
	uint64_t pid, tid;

	if (n < 3 || memcmp(p, "ts:", 3) != 0 || memchr(p, '\0', n) != NULL ||
	    (v = memchr(p, ';', n)) == NULL || end - v < 5 ||
	    memcmp(v + 1, "PID:", 4) != 0)
		return 0;
	for (e = v += 5; e < end && (unsigned)*e - '0' <= 9; e++)
		;
	if (e == end || *e != ';' || lt_uint_parse(v, (size_t)(e - v),
	    &pid) != LT_NUM_OK || pid > UINT32_MAX)
		return 0;
	for (v = e + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	if (end - v < 4 || memcmp(v, "TID:", 4) != 0)
		return 0;
	for (e = v += 4; e < end && (unsigned)*e - '0' <= 9; e++)
		;
	if ((e < end && *e != ';') || lt_uint_parse(v, (size_t)(e - v),
	    &tid) != LT_NUM_OK)
		return 0;
	return lt_hasthread(in, pid, tid);
}

/* The event lg of a line of n bytes of input in. */
static void
event(const struct ltpin *in, const struct ltlog *lg, size_t n)
{
	struct ltsink *s = &sink;
	struct ltthread *th;
	struct ltnorm nm;
	const char *tab;

	lt_lognorm(lg, &nm);
	th = lt_thread(in, lg->pid, lg->tid);
	th->roles |= (unsigned)nm.role;
	lt_learn(lt_threadproc(th), lg, &nm);
	s->n[LT_C_EVENTS]++;
	s->n[LT_C_RENAMED] += nm.renamed;
	s->n[LT_C_INFERRED] += nm.inferred;
	s->n[LT_C_SALVAGED] += lg->salvaged;
	/* Before our part only the count of replacements is wanted. */
	if (s->quiet && lg->plain) {
		s->t0done = 1;
		return;
	}
	lt_logrec(&s->rec, lg, &nm, th->id, th->idn, n,
	    &s->n[LT_C_REPLACED]);
	if (!s->t0done) {
		tab = memchr(s->rec.p, '\t', s->rec.n);
		lt_sink_t0(s, s->rec.p, (size_t)(tab - s->rec.p), lg->ph.p[0]);
	}
	if (!s->quiet)
		lt_out_write(&s->out, s->rec.p, s->rec.n);
}

static const char *const kinds[LT_NKIND] = {
	"event", "blank", "text", "noise", "traceback", "torn"
};

/*
 * The next line of input in, classified in lg, in *line[0..*n).
 * Returns its kind, or -1 at the end of the input or of the part (only
 * lines that start before in->limit are read).
 */
static int
readline(struct ltin *in, struct ltlog *lg, char **line, size_t *n)
{
	size_t have;
	int k;

	if (in->limit >= 0 && in->off + (off_t)in->pos >= in->limit)
		return -1;
	for (;;) {
		if ((have = in->end - in->pos) == 0 &&
		    (have = lt_in_fill(in, 1)) == 0)
			return -1;
		k = lt_logread(in->buf + in->pos, have, in->eof, lg, n);
		if (k != LT_LOG_MORE)
			break;
		lt_in_fill(in, have + 1);
	}
	*line = in->buf + in->pos;
	in->lineoff = in->off + (off_t)in->pos;
	in->pos += *n + (*n < in->end - in->pos);	/* and its '\n' */
	in->line++;
	return k;
}

/*
 * The next line of a log before the range of a part other than the
 * last, which needs only the threads made there, in order: a record
 * of a known thread is passed over (LT_SKIP_BLANK, uncounted) without
 * being cut into tokens.
 */
static int
passline(const struct ltpin *ip, struct ltin *in, struct ltlog *lg,
    char **line, size_t *n)
{
	ssize_t r;

	if ((r = lt_in_line(in, line)) < 0)
		return -1;
	*n = (size_t)r;
	if (knownrecord(ip, *line, *n))
		return LT_NKIND;
	return lt_logline(*line, *n, lg);
}

/*
 * The lines of a log that start before hi (-1: all); those that start
 * before lo only rebuild the state a whole run has there.
 */
static void
parselog(const struct ltpin *ip, struct ltin *in, off_t lo, off_t hi)
{
	struct ltsink *s = &sink;
	struct ltlog lg;
	char *line;
	size_t n;
	int k, intb = 0;

	memset(&lg, 0, sizeof(lg));
	in->limit = hi;
	for (;;) {
		s->quiet = in->off + (off_t)in->pos < lo;
		/*
		 * The last part writes the names and counters, and reads
		 * every line for them.
		 */
		if (s->quiet && part < nparts)
			k = passline(ip, in, &lg, &line, &n);
		else
			k = readline(in, &lg, &line, &n);
		if (k < 0)
			break;
		s->n[LT_C_LINES]++;
		if (k == LT_NKIND) {
			intb = 0;
			continue;
		}
		/* The exception line that ends a traceback is not indented. */
		if (k == LT_SKIP_NOISE && intb)
			k = LT_SKIP_TRACEBACK;
		intb = k == LT_SKIP_TRACEBACK;
		if (k == LT_LOG_EVENT || k == LT_SKIP_TEXT)
			s->n[LT_C_GEN + lg.gen]++;
		if (k == LT_LOG_EVENT) {
			event(ip, &lg, n);
			continue;
		}
		s->n[LT_C_SKIP + k - 1]++;
		if (s->verbose && !s->quiet && k != LT_SKIP_BLANK)
			lt_warnpos(in->name, in->line, "skipped %s line%s%s",
			    kinds[k], lg.why != NULL ? ": " : "",
			    lg.why != NULL ? lg.why : "");
	}
	s->quiet = 0;
	lt_logline_free(&lg);
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
cuttable(struct ltpin *ins, int nin)
{
	struct ltin in;
	struct stat sb;
	int i, ok;

	for (i = 0; i < nin; i++) {
		if (!lt_isreg(ins[i].path))
			return 0;
		lt_in_open(&in, ins[i].path);
		ok = fstat(in.fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    in.child == -1 && !lt_isjson(&in);
		ins[i].size = sb.st_size;
		lt_in_close(&in);
		if (!ok)
			return 0;
	}
	return 1;
}

static void
run(struct ltpin *ins, int nin)
{
	struct ltin in;
	off_t total = 0, lo = 0, hi = -1, base = 0, l, h;
	int i, form;

	if (nparts > 0) {
		if (!cuttable(ins, nin)) {
			if (part > 1)
				return;
			part = nparts = 0;
		} else {
			for (i = 0; i < nin; i++)
				total += ins[i].size;
			lo = (off_t)((uint64_t)total / nparts * (part - 1) +
			    (uint64_t)total % nparts * (part - 1) / nparts);
			hi = part == nparts ? -1 : (off_t)((uint64_t)total /
			    nparts * part + (uint64_t)total % nparts * part /
			    nparts);
		}
	}
	if (part <= 1)
		lt_put_header(&sink.out);
	for (i = 0; i < nin; i++, base += ins[i - 1].size) {
		l = lo - base > 0 ? lo - base : 0;
		h = hi < 0 || hi - base >= ins[i].size ? -1 : hi - base;
		if (hi >= 0 && hi - base <= 0)
			break;		/* the rest is for later parts */
		lt_in_open(&in, ins[i].path);
		if ((form = lt_isjson(&in)) != 0)
			lt_jsonin(&ins[i], &in, form, &sink);
		else
			parselog(&ins[i], &in, l, h);
		lt_in_close(&in);
	}
	if (part != nparts)
		return;
	lt_names(&sink);
	lt_sink_stats(&sink, lt_nlogprocs(), lt_nthreads());
	if (sink.n[LT_C_EVENTS] == 0 &&
	    sink.n[LT_C_LINES] > sink.n[LT_C_JSON])
		lt_warn("no events in %lld lines: not a LitData "
		    "enable_tracer() log?", sink.n[LT_C_LINES] -
		    sink.n[LT_C_JSON]);
	else if (sink.n[LT_C_EVENTS] == 0 && sink.n[LT_C_JSON] > 0)
		lt_warn("no trace event has a one-character ph");
}

/* The inputs: a block of pids each when there are several, or -n. */
static struct ltpin *
inputs(int argc, char **argv, long long node)
{
	struct ltpin *ins;
	int i;

	if (node >= 0 && node + argc >= NBLOCKS)
		lt_die(LT_EXIT_SYS, "-n %lld: too large for %d inputs (node + "
		    "inputs at most %d)", node, argc, NBLOCKS - 1);
	if (argc >= NBLOCKS)
		lt_die(LT_EXIT_SYS, "too many inputs (at most %d)",
		    NBLOCKS - 1);
	ins = lt_calloc((size_t)argc, sizeof(*ins));
	for (i = 0; i < argc; i++) {
		ins[i].path = argv[i];
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
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "node", required_argument, NULL, 'n' },
		{ "part", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	static char *stdin_only[] = { (char *)"-" };
	struct ltpin *ins;
	const char *errstr;
	long long node = -1;
	int c;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "hn:P:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -n, --node node  tag the inputs as coming from "
			    "node node, node+1, ...\n"
			    "                   (0 to 1022)\n"
			    "  -P, --part k/N   write part k of N, for "
			    "parallel runs\n"
			    "  -v, --verbose    report every skipped line on "
			    "stderr\n"
			    "  -h, --help       show this help\n");
			break;
		case 'n':
			node = lt_strtonum(optarg, 0, NBLOCKS - 2, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-n %s: %s (0 to %d)",
				    optarg, errstr, NBLOCKS - 2);
			break;
		case 'P':
			partopt(optarg);
			break;
		case 'v':
			sink.verbose = 1;
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	ins = inputs(argc, argv, node);
	lt_out_init(&sink.out, 1, "<stdout>");
	run(ins, argc);
	lt_out_close(&sink.out);
	free(ins);
	lt_procs_free();
	lt_buf_free(&sink.rec);
	return LT_EXIT_OK;
}
