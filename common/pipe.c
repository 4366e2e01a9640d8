/* See LICENSE file for copyright and license details. */
/*
 * pipe.c: bigger pipe buffers between the stages of a chain, and a
 * file's bytes moved into an output without passing through ours.
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
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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

/*
 * The bytes of file fd, name, from off to its end, after what o holds.
 * Linux moves them itself (sendfile: a pipe takes the file's pages, not
 * a copy); where it cannot, they are read and written.
 */
void
lt_out_append(struct ltout *o, int fd, off_t off, const char *name)
{
	char buf[64 * 1024];
	ssize_t r;

	lt_out_flush(o);
#ifdef __linux__
	while (o->chan == NULL) {	/* not to ltchain's next stage */
		if ((r = sendfile(o->fd, fd, &off, 1 << 30)) > 0)
			continue;
		if (r == 0)
			return;
		if (errno == EINTR)
			continue;
		if (errno == EINVAL || errno == ENOSYS)
			break;		/* not for these files: copied */
		lt_die(LT_EXIT_SYS, "cannot copy %s to %s:", name, o->name);
	}
#endif
	for (;;) {
		if ((r = pread(fd, buf, sizeof(buf), off)) < 0) {
			if (errno == EINTR)
				continue;
			lt_die(LT_EXIT_SYS, "read error: %s:", name);
		}
		if (r == 0)
			return;
		lt_out_write(o, buf, (size_t)r);
		off += r;
	}
}
