/* See LICENSE file for copyright and license details. */
/*
 * ltchain: run a chain of litracer's stages in one process, as the
 * shell runs them joined by pipes, for less CPU: each stage is its
 * program's own code (common/chain.c runs them in turn), and what one
 * writes the next reads from memory.
 *
 * The operands are the stages, each a program and its arguments, with
 * an operand "|" between two.  The first reads this process's standard
 * input (or its files), the last writes its standard output.  An operand
 * "||" instead starts a part of the chain that runs in a process of its
 * own, at the same time as the others, joined to the part before by
 * memory they share (common/chain.c).  -d DIR keeps what each stage says
 * in DIR/PROG.err and how it ended in DIR/PROG.status, for litracer(1),
 * which runs its chain so.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"

#define SYNOPSIS	"ltchain [-d dir] program [arg ...] [| program " \
			"[arg ...]] [|| program [arg ...]] ..."
#define OPTIONS \
	"  -d, --dir dir   each stage's messages in dir/PROGRAM.err, how " \
	"it ended\n" \
	"                  in dir/PROGRAM.status\n" \
	"      --version   print the version and exit\n" \
	"  -h, --help      show this help\n" \
	"programs: ltparse ltpair ltfilter ltlanefix ltstat ltjson ltproto\n"

static const struct {
	const char	*name;
	int		(*main)(int, char *[]);
} progs[] = {
	{ "ltparse", ltparse_main },
	{ "ltpair", ltpair_main },
	{ "ltfilter", ltfilter_main },
	{ "ltlanefix", ltlanefix_main },
	{ "ltstat", ltstat_main },
	{ "ltjson", ltjson_main },
	{ "ltproto", ltproto_main },
};
#define NPROGS	(sizeof(progs) / sizeof(progs[0]))

/* The program named s (or a path to it): its index in progs, or die. */
static size_t
prog(const char *s)
{
	const char *base = strrchr(s, '/');
	size_t i;

	base = base != NULL ? base + 1 : s;
	for (i = 0; i < NPROGS; i++)
		if (strcmp(progs[i].name, base) == 0)
			return i;
	lt_die(LT_EXIT_SYS, "%s: not a stage (%s)", s,
	    "ltparse ltpair ltfilter ltlanefix ltstat ltjson ltproto");
}

/* Is s an operand between stages: 1 "|", 2 "||", else 0. */
static int
sep(const char *s)
{
	return strcmp(s, "|") == 0 ? 1 : strcmp(s, "||") == 0 ? 2 : 0;
}

/* dir/name.ext, made or emptied. */
static int
create(const char *dir, const char *name, const char *ext)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s%s", dir, name, ext) >=
	    sizeof(path))
		lt_die(LT_EXIT_SYS, "%s: name too long", dir);
	return lt_out_create(path);
}

int
ltchain_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltstage *st;
	struct ltout out;
	const char *dir = NULL;
	int used[NPROGS] = { 0 };
	int *part, *ended;
	int c, i, j, n, status, nparts, mine, from, to;
	size_t k;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "+d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			lt_help(SYNOPSIS, OPTIONS);
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		lt_usage(SYNOPSIS);

	/*
	 * The stages: argv split at each "|" or "||", which becomes NULL;
	 * part[c] is the part (the process) stage c runs in.
	 */
	for (n = 1, i = 0; i < argc; i++)
		n += sep(argv[i]) != 0;
	st = lt_calloc((size_t)n, sizeof(*st));
	part = lt_calloc((size_t)n, sizeof(*part));
	for (i = j = 0, c = 0; i <= argc; i++) {
		if (i < argc && sep(argv[i]) == 0)
			continue;
		if (i == j)
			lt_usage(SYNOPSIS);	/* an empty stage */
		k = prog(argv[j]);
		if (used[k]++)
			lt_die(LT_EXIT_SYS, "%s: twice in a part of the "
			    "chain: a program runs once in a process",
			    argv[j]);
		if (i < argc && sep(argv[i]) == 2) {
			memset(used, 0, sizeof(used));
			part[c + 1] = part[c] + 1;
		} else if (i < argc)
			part[c + 1] = part[c];
		c++;
		argv[i] = NULL;		/* argv[argc] is already */
		j = i + 1;
	}
	nparts = part[n - 1] + 1;
	/* again, now that the stages are known good */
	for (c = 0, j = 0; c < n; c++) {
		k = prog(argv[j]);
		st[c].name = progs[k].name;
		st[c].main = progs[k].main;
		st[c].argv = &argv[j];
		for (st[c].argc = 0; argv[j] != NULL; j++)
			st[c].argc++;
		j++;
		if (dir == NULL) {
			st[c].err = -1;
			continue;
		}
		st[c].err = create(dir, st[c].name, ".err");
		/* emptied: a chain killed leaves no status of a run before */
		close(create(dir, st[c].name, ".status"));
	}

	/* this process's part: stages from to to, the others' elsewhere */
	mine = nparts > 1 ? lt_chain_fork(nparts) : 0;
	for (from = 0; part[from] != mine; from++)
		;
	for (to = from; to < n && part[to] == mine; to++)
		;
	lt_chain_run(st + from, to - from);

	status = 0;
	for (c = from; c < to; c++)
		if (status == 0 && st[c].status != 128 + SIGPIPE)
			status = st[c].status;
	if (mine == 0 && nparts > 1) {
		/*
		 * The other parts, in the chain's order; the stages of one
		 * killed (SIGPIPE, its output gone) ended so, which it
		 * could not write: written here.
		 */
		ended = lt_calloc((size_t)nparts - 1, sizeof(*ended));
		lt_chain_wait(ended);
		for (i = 0; i < nparts - 1; i++) {
			c = ended[i] < 0 ? 128 - ended[i] : ended[i];
			if (status == 0 && c != 128 + SIGPIPE)
				status = c;
		}
		/* the last part's output gone: as for a chain of one part */
		if (status == 0 && ended[nparts - 2] == -SIGPIPE)
			status = 128 + SIGPIPE;
		for (c = to; c < n; c++)
			if (ended[part[c] - 1] < 0) {
				st[c].status = 128 - ended[part[c] - 1];
				part[c] = 0;	/* its status is ours to write */
			}
		free(ended);
		to = n;
	}
	for (c = from; dir != NULL && c < to; c++) {
		if (part[c] != mine)
			continue;
		close(st[c].err);
		lt_out_init(&out, create(dir, st[c].name, ".status"), "status");
		lt_out_printf(&out, "%d\n", st[c].status);
		lt_out_close(&out);
	}
	free(part);
	free(st);
	return status;
}
