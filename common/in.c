/* See LICENSE file for copyright and license details. */
/*
 * in.c: buffered input from a file descriptor, by line or by byte.
 *
 * One buffer per input, reused; it grows only when a single line (or a
 * single JSON event) does not fit.  Lines are handed out in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"

#define INBUF	(1024 * 1024)

void
lt_in_fdopen(struct ltin *in, int fd, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->name = name;
	in->cap = INBUF;
	in->buf = lt_malloc(in->cap + 1);
	in->limit = -1;
	in->child = -1;
}

void
lt_in_open(struct ltin *in, const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0) {
		lt_in_fdopen(in, 0, "<stdin>");
		return;
	}
	if ((fd = open(path, O_RDONLY)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	lt_in_fdopen(in, fd, path);
}

/*
 * Read more data after what is buffered.  Unread data moves to the front
 * first; the buffer doubles when it is full of one unfinished piece.
 * Returns the number of bytes read, 0 at end of file.
 */
static size_t
refill(struct ltin *in)
{
	ssize_t r;

	if (in->eof)
		return 0;
	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, in->end - in->pos);
		in->off += (off_t)in->pos;
		in->end -= in->pos;
		in->pos = 0;
	}
	if (in->end == in->cap) {
		in->buf = lt_reallocarray(in->buf, in->cap * 2 + 1, 1);
		in->cap *= 2;
	}
	for (;;) {
		r = read(in->fd, in->buf + in->end, in->cap - in->end);
		if (r >= 0)
			break;
		if (errno != EINTR)
			lt_die(LT_EXIT_SYS, "read error: %s:", in->name);
	}
	if (r == 0)
		in->eof = 1;
	in->end += (size_t)r;
	return (size_t)r;
}

/*
 * Ensure at least need unread bytes are buffered, unless the input ends
 * first.  Returns the number of unread bytes buffered.
 */
size_t
lt_in_fill(struct ltin *in, size_t need)
{
	while (in->end - in->pos < need && refill(in) > 0)
		;
	return in->end - in->pos;
}

/*
 * The next line, without its '\n', in *line (NUL-terminated in place).
 * Returns its length, or -1 at the end of the input (or of the part set
 * by limit: only lines that start before limit are returned).
 */
ssize_t
lt_in_line(struct ltin *in, char **line)
{
	char *nl;
	size_t scan = 0, n;

	if (in->limit >= 0 && in->off + (off_t)in->pos >= in->limit)
		return -1;
	for (;;) {
		nl = memchr(in->buf + in->pos + scan, '\n',
		    in->end - in->pos - scan);
		if (nl != NULL)
			break;
		scan = in->end - in->pos;
		if (refill(in) == 0) {
			if (in->end == in->pos)
				return -1;
			nl = in->buf + in->end;	/* last line, no '\n' */
			break;
		}
	}
	n = (size_t)(nl - (in->buf + in->pos));
	*line = in->buf + in->pos;
	(*line)[n] = '\0';
	in->lineoff = in->off + (off_t)in->pos;
	in->pos += n + (nl < in->buf + in->end);
	in->line++;
	return (ssize_t)n;
}

void
lt_in_close(struct ltin *in)
{
	if (in->fd > 0)
		close(in->fd);
	free(in->buf);
	in->buf = NULL;
}
