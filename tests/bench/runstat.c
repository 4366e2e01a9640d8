/* See LICENSE file for copyright and license details. */
/*
 * runstat: run a command; write its wall time in seconds, its CPU time
 * (user + system of it and every descendant waited for, in seconds) and
 * the largest peak resident set of one of them (KiB) to a file.  Used by
 * the benchmark scripts, which have no GNU time(1) to rely on.
 *
 *	runstat -o FILE command [arg ...]
 *
 * FILE receives "SECONDS CPU KIB\n".  Exit status: that of the command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *fp;
	pid_t pid;
	int st;

	if (argc < 4 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: runstat -o file command [arg ...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) < 0) {
		perror("runstat: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("runstat: waitpid");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_CHILDREN, &ru);
	if ((fp = fopen(argv[2], "w")) == NULL) {
		perror(argv[2]);
		return 2;
	}
	fprintf(fp, "%.3f %.3f %ld\n", (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	    ru.ru_maxrss);
	if (fclose(fp) != 0) {
		perror(argv[2]);
		return 2;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
