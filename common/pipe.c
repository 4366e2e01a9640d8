/* See LICENSE file for copyright and license details. */
/*
 * pipe.c: bigger pipe buffers between the stages of a chain.
 *
 * A Linux pipe holds 64 KiB: a stage writing 256 KiB at a time then
 * blocks four times per write and wakes its reader as often, and on a
 * machine with fewer cores than stages those switches cost more than the
 * work.  Both ends ask for 1 MiB (what /proc/sys/fs/pipe-max-size allows
 * an unprivileged user by default); a refusal changes nothing, and
 * elsewhere this does nothing at all.
 */
#define _GNU_SOURCE		/* F_GETPIPE_SZ, F_SETPIPE_SZ */
#include <sys/stat.h>

#include <fcntl.h>

#include "core.h"

#define PIPESZ	(1024 * 1024)

void
lt_pipe_grow(int fd)
{
#if defined(F_GETPIPE_SZ) && defined(F_SETPIPE_SZ)
	struct stat sb;
	int sz;

	if (fstat(fd, &sb) < 0 || !S_ISFIFO(sb.st_mode))
		return;
	if ((sz = fcntl(fd, F_GETPIPE_SZ)) >= 0 && sz < PIPESZ)
		(void)fcntl(fd, F_SETPIPE_SZ, PIPESZ);
#else
	(void)fd;
#endif
}
