/* See LICENSE file for copyright and license details. */
/*
 * out.c: buffered output straight to a file descriptor.  Every write is
 * checked; a failure (disk full, /dev/full, a closed pipe without
 * SIGPIPE) is reported with the output's name and exits 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"

#define OUTBUF	(256 * 1024)

/* The file a program was told to write (-o, -S): made or emptied, or exit 2. */
int
lt_out_create(const char *path)
{
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	return fd;
}

void
lt_out_init(struct ltout *o, int fd, const char *name)
{
	o->fd = fd;
	o->name = name;
	o->cap = OUTBUF;
	o->n = 0;
	o->buf = lt_malloc(o->cap);
	lt_pipe_grow(fd);
}

static void
writeall(struct ltout *o, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(o->fd, p, n)) < 0) {
			if (errno == EINTR)
				continue;
			lt_die(LT_EXIT_SYS, "write error: %s:", o->name);
		}
		p += w;
		n -= (size_t)w;
	}
}

void
lt_out_flush(struct ltout *o)
{
	if (o->n > 0)
		writeall(o, o->buf, o->n);
	o->n = 0;
}

/* The slow path of lt_out_write: flush, then buffer or write through. */
void
lt_out_slow(struct ltout *o, const void *p, size_t n)
{
	lt_out_flush(o);
	if (n >= o->cap)
		writeall(o, p, n);
	else {
		memcpy(o->buf, p, n);
		o->n = n;
	}
}

/*
 * Room for n bytes at the end of the buffer, which grows for a larger
 * n: the caller writes there, then adds what it wrote to o->n.
 */
char *
lt_out_room(struct ltout *o, size_t n)
{
	if (o->cap - o->n >= n)
		return o->buf + o->n;
	lt_out_flush(o);
	if (n > o->cap) {
		free(o->buf);
		o->buf = lt_malloc(n);
		o->cap = n;
	}
	return o->buf;
}

/* printf to o, whatever the length. */
void
lt_out_printf(struct ltout *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->n, o->cap - o->n, fmt, ap);
	va_end(ap);
	if (n < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot format a message", o->name);
	if ((size_t)n >= o->cap - o->n) {
		/* it did not fit: again, where it fits */
		lt_out_room(o, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(o->buf + o->n, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	o->n += (size_t)n;
}

void
lt_out_close(struct ltout *o)
{
	lt_out_flush(o);
	free(o->buf);
	o->buf = NULL;
	if (close(o->fd) < 0 && errno != EINTR)
		lt_die(LT_EXIT_SYS, "write error: %s:", o->name);
}
