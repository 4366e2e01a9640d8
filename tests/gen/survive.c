/* See LICENSE file for copyright and license details. */
/*
 * survive: the fast path of the torture loops of tests/helper.bash.
 *
 *	survive [-m MAX] ERRFILE CMD [ARG ...] -- FILE ...
 *
 * Runs CMD ARG... FILE once for each FILE, in order, its standard
 * output to /dev/null and its standard error to ERRFILE.  CMD survives
 * FILE when it exits 0 (done) or 1 (bad data) and ERRFILE holds no
 * sanitizer report ("Sanitizer" or "runtime error:").  At the first
 * FILE it does not survive, survive prints that FILE on standard output
 * and exits 1: the helper then runs that one again itself, to say how
 * and keep it.  Exit 0 when CMD survives every FILE, 2 on an error of
 * survive's own.
 *
 * With -m, each run is given up to MAX FILEs (a program that reads
 * every file it is given, as ltparse does).  A run of several that exits
 * 0 with no report passes them all; after any other, each of its FILEs
 * is run alone, as above, which names the one at fault.  A run of one
 * FILE is judged as above at once.
 *
 * The loops start thousands of processes: bats' shell forks itself for
 * each, while this starts each with posix_spawn, which costs about half
 * as much (ltpair on an empty stream: 8.4 ms from a bash loop, 4.5 ms
 * from this).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void
die(const char *what)
{
	fprintf(stderr, "survive: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Does the file at fd hold s? */
static int
holds(int fd, const char *s)
{
	static char buf[65536];
	size_t sn = strlen(s), keep = 0;
	ssize_t r;
	char *p, *end;

	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek");
	while ((r = read(fd, buf + keep, sizeof(buf) - keep)) > 0) {
		end = buf + keep + r;
		for (p = buf; p + sn <= end; p++)
			if (memcmp(p, s, sn) == 0)
				return 1;
		/* a match may straddle two reads */
		keep = (size_t)(end - buf) < sn - 1 ? (size_t)(end - buf) :
		    sn - 1;
		memmove(buf, end - keep, keep);
	}
	if (r < 0)
		die("read");
	return 0;
}

static posix_spawn_file_actions_t fa;
static const char *errfile;
static int errfd;

/*
 * Run cmd (NULL-ended); did it survive?  With strict (a run of many
 * files) only exit 0 counts.
 */
static int
runs(char **cmd, int strict)
{
	pid_t pid;
	int st;

	if (ftruncate(errfd, 0) < 0)
		die(errfile);
	if ((errno = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd,
	    environ)) != 0)
		die(cmd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(st) && WEXITSTATUS(st) <= (strict ? 0 : 1) &&
	    !holds(errfd, "Sanitizer") && !holds(errfd, "runtime error:");
}

int
main(int argc, char *argv[])
{
	char **cmd, *end;
	int i, j, k, nc, sep, a = 1;
	long max = 1;

	if (argc > 2 && strcmp(argv[1], "-m") == 0) {
		errno = 0;
		max = strtol(argv[2], &end, 10);
		if (errno != 0 || end == argv[2] || *end != '\0' || max < 1 ||
		    max > 100000)
			max = 0;
		a = 3;
	}
	for (sep = a + 1; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	if (max == 0 || argc < a + 4 || sep == a + 1 || sep >= argc) {
		fputs("usage: survive [-m MAX] ERRFILE CMD [ARG ...] -- "
		    "FILE ...\n", stderr);
		return 2;
	}
	errfile = argv[a];
	/* appended to: each run writes from the start of the emptied file */
	if ((errfd = open(errfile, O_RDWR | O_APPEND | O_CREAT | O_TRUNC,
	    0666)) < 0)
		die(errfile);
	if ((errno = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (errno = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
	    O_WRONLY, 0)) != 0 ||
	    (errno = posix_spawn_file_actions_adddup2(&fa, errfd, 2)) != 0 ||
	    (errno = posix_spawn_file_actions_addclose(&fa, errfd)) != 0)
		die("posix_spawn_file_actions");
	/* CMD ARG... FILE... NULL */
	nc = sep - a - 1;
	if ((cmd = calloc((size_t)nc + (size_t)max + 1, sizeof(*cmd))) ==
	    NULL)
		die("calloc");
	memcpy(cmd, argv + a + 1, (size_t)nc * sizeof(*cmd));
	for (i = sep + 1; i < argc; i += k) {
		k = argc - i < max ? argc - i : (int)max;
		memcpy(cmd + nc, argv + i, (size_t)k * sizeof(*cmd));
		cmd[nc + k] = NULL;
		if (runs(cmd, k > 1))
			continue;
		for (j = i; j < i + k; j++) {
			cmd[nc] = argv[j];
			cmd[nc + 1] = NULL;
			if (k > 1 && runs(cmd, 0))
				continue;
			printf("%s\n", argv[j]);
			goto out;
		}
	}
out:
	free(cmd);
	posix_spawn_file_actions_destroy(&fa);
	close(errfd);
	return i < argc;
}
