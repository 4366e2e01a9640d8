/* See LICENSE file for copyright and license details. */
/*
 * ltchain: run a chain of litracer's stages in one process, as the
 * shell runs them joined by pipes, for less CPU: each stage is its
 * program's own code (common/chain.c runs them in turn), and what one
 * writes the next reads from memory.
 *
 * The operands are the stages, each a program and its arguments, with
 * an operand "|" between two.  The first reads this process's standard
 * input (or its files), the last writes its standard output.  -d DIR
 * keeps what each stage says in DIR/PROG.err and how it ended in
 * DIR/PROG.status, for litracer(1), which runs its chain so.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"

#define SYNOPSIS	"ltchain [-d dir] program [arg ...] [| program " \
			"[arg ...]] ..."
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
	int c, i, j, n, status;
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

	/* the stages: argv split at each "|", which becomes NULL */
	for (n = 1, i = 0; i < argc; i++)
		n += strcmp(argv[i], "|") == 0;
	st = lt_calloc((size_t)n, sizeof(*st));
	for (i = j = 0; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "|") != 0)
			continue;
		if (i == j)
			lt_usage(SYNOPSIS);	/* an empty stage */
		k = prog(argv[j]);
		if (used[k]++)
			lt_die(LT_EXIT_SYS, "%s: twice in the chain: a "
			    "program runs once in a process", argv[j]);
		argv[i] = NULL;		/* argv[argc] is already */
		j = i + 1;
	}
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

	lt_chain_run(st, n);

	status = 0;
	for (c = 0; c < n; c++)
		if (status == 0 && st[c].status != 128 + SIGPIPE)
			status = st[c].status;
	for (c = 0; dir != NULL && c < n; c++) {
		close(st[c].err);
		lt_out_init(&out, create(dir, st[c].name, ".status"), "status");
		lt_out_printf(&out, "%d\n", st[c].status);
		lt_out_close(&out);
	}
	free(st);
	return status;
}
