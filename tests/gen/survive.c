/* See LICENSE file for copyright and license details. */
/*
 * survive: the fast path of the torture loops of tests/helper.bash.
 *
 *	survive ERRFILE CMD [ARG ...] -- FILE ...
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

int
main(int argc, char *argv[])
{
	posix_spawn_file_actions_t fa;
	char **cmd;
	int i, sep, st, fd;
	pid_t pid;

	for (sep = 2; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	if (argc < 4 || sep == 2 || sep >= argc) {
		fputs("usage: survive ERRFILE CMD [ARG ...] -- FILE ...\n",
		    stderr);
		return 2;
	}
	/* appended to: each run writes from the start of the emptied file */
	if ((fd = open(argv[1], O_RDWR | O_APPEND | O_CREAT | O_TRUNC,
	    0666)) < 0)
		die(argv[1]);
	if ((errno = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (errno = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
	    O_WRONLY, 0)) != 0 ||
	    (errno = posix_spawn_file_actions_adddup2(&fa, fd, 2)) != 0 ||
	    (errno = posix_spawn_file_actions_addclose(&fa, fd)) != 0)
		die("posix_spawn_file_actions");
	/* CMD ARG... FILE NULL */
	if ((cmd = calloc((size_t)sep, sizeof(*cmd))) == NULL)
		die("calloc");
	memcpy(cmd, argv + 2, (size_t)(sep - 2) * sizeof(*cmd));
	for (i = sep + 1; i < argc; i++) {
		if (ftruncate(fd, 0) < 0)
			die(argv[1]);
		cmd[sep - 2] = argv[i];
		if ((errno = posix_spawnp(&pid, cmd[0], &fa, NULL, cmd,
		    environ)) != 0)
			die(cmd[0]);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
		if (!WIFEXITED(st) || WEXITSTATUS(st) > 1 ||
		    holds(fd, "Sanitizer") || holds(fd, "runtime error:")) {
			printf("%s\n", argv[i]);
			break;
		}
	}
	free(cmd);
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	return i < argc;
}
