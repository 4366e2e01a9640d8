/* See LICENSE file for copyright and license details. */
/*
 * in.c: buffered input from a file descriptor, by line or by byte.
 *
 * One buffer per input, reused; it grows only when a single line (or a
 * single JSON event) does not fit.  Lines are handed out in place.
 * gzip-compressed input (magic bytes 1f 8b) is read through "gzip -dc",
 * so that every reader takes .gz files and compressed standard input.
 * A regular file can be read as if it had a size fixed in advance
 * (lt_in_bounded): the bytes written after are not read, and a file cut
 * shorter meanwhile (logrotate's copytruncate) ends the program with a
 * message naming the file, exit 2.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"

#define INBUF	(1024 * 1024)

static void	(*watch)(const struct ltin *) LT_STAGE;

/* An input of fd, named name, with nothing read yet. */
static void
setup(struct ltin *in, int fd, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->name = name;
	in->limit = -1;
	in->child = -1;
	in->size = -1;
}

void
lt_in_fdopen(struct ltin *in, int fd, const char *name)
{
	setup(in, fd, name);
	in->cap = INBUF;
	in->buf = lt_malloc(in->cap + 1);
	lt_pipe_grow(fd);
}

/* Copy the bytes already read, then the rest of fd, to out; exit. */
static void
feed(const char *p, size_t n, int fd, int out)
{
	char buf[65536];
	ssize_t r, w;

	for (;;) {
		while (n > 0) {
			if ((w = write(out, p, n)) < 0) {
				if (errno == EINTR)
					continue;
				_exit(0);	/* gzip stopped reading */
			}
			p += w;
			n -= (size_t)w;
		}
		if ((r = read(fd, buf, sizeof(buf))) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(r < 0);
		p = buf;
		n = (size_t)r;
	}
}

/*
 * Read the rest of the input through "gzip -dc".  A regular file is
 * given to gzip from its start; from a pipe, the bytes already read go
 * first, written by a helper process.  Failing to start gzip is an
 * error (exit 2) naming the command.
 */
static void
gunzip(struct ltin *in)
{
	int data[2], err[2], fdin[2], e, st;
	ssize_t r;
	pid_t pid;

	if (pipe(data) < 0 || pipe(err) < 0)
		lt_die(LT_EXIT_SYS, "%s: pipe:", in->name);
	fcntl(err[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) < 0)
		lt_die(LT_EXIT_SYS, "%s: fork:", in->name);
	if (pid == 0) {
		close(data[0]);
		close(err[0]);
		if (lseek(in->fd, 0, SEEK_SET) != 0) {
			if (pipe(fdin) < 0 || (pid = fork()) < 0)
				goto fail;
			if (pid == 0) {
				close(err[1]);
				close(data[1]);
				close(fdin[0]);
				feed(in->buf + in->pos, in->end - in->pos,
				    in->fd, fdin[1]);
			}
			close(fdin[1]);
			dup2(fdin[0], 0);
		} else
			dup2(in->fd, 0);
		dup2(data[1], 1);
		execlp("gzip", "gzip", "-dc", (char *)NULL);
fail:
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(data[1]);
	close(err[1]);
	while ((r = read(err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(err[0]);
	if (r > 0) {
		waitpid(pid, &st, 0);
		errno = e;
		lt_die(LT_EXIT_SYS, "%s: compressed, and cannot run gzip -dc:",
		    in->name);
	}
	if (in->fd > 0)
		close(in->fd);
	in->fd = data[0];
	in->child = pid;
	in->pos = in->end = 0;
}

void
lt_in_open(struct ltin *in, const char *path)
{
	struct ltchan *chan;
	int fd;

	if (strcmp(path, "-") == 0 && (chan = lt_chan_of(0)) != NULL) {
		/* the stage before's lt1 stream, in ltchain: no fd */
		lt_in_fdopen(in, -1, "<stdin>");
		in->chan = chan;
		/* one size for the buffers reader and writer trade */
		in->cap = LT_CHANHEAD + LT_OUTBUF;
		in->buf = lt_reallocarray(in->buf, in->cap + 1, 1);
		return;
	}
	if (strcmp(path, "-") == 0)
		lt_in_fdopen(in, 0, "<stdin>");
	else {
		if ((fd = open(path, O_RDONLY)) < 0)
			lt_die(LT_EXIT_SYS, "%s:", path);
		lt_in_fdopen(in, fd, path);
	}
	if (lt_in_fill(in, 2) >= 2 && (unsigned char)in->buf[0] == 0x1f &&
	    (unsigned char)in->buf[1] == 0x8b)
		gunzip(in);
}

/*
 * The decompressor's end: its failure means damaged data (exit 1);
 * its warnings (exit 2, such as trailing garbage) are its own to say.
 */
static void
reap(struct ltin *in, int check)
{
	int st;

	while (waitpid(in->child, &st, 0) < 0)
		if (errno != EINTR)
			lt_die(LT_EXIT_SYS, "%s: waitpid:", in->name);
	in->child = -1;
	if (!check)
		return;
	if (WIFSIGNALED(st))
		lt_die(LT_EXIT_DATA, "%s: gzip -dc killed by signal %d",
		    in->name, WTERMSIG(st));
	if (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2)
		lt_die(LT_EXIT_DATA, "%s: gzip -dc failed (exit status %d): "
		    "damaged compressed data", in->name, WEXITSTATUS(st));
}

void
lt_in_bounded(struct ltin *in, const char *path, off_t size, off_t off)
{
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	lt_in_fdopen(in, fd, path);
	in->size = size;
	lt_in_seek(in, off < size ? off : size);
}

void
lt_in_seek(struct ltin *in, off_t off)
{
	if (lseek(in->fd, off, SEEK_SET) != off)
		lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
	in->pos = in->end = 0;
	in->off = in->lineoff = off;
	in->eof = off == in->size;
}

/*
 * Read more data after what is buffered.  Unread data moves to the front
 * first; the buffer doubles when it is full of one unfinished piece.
 * Returns the number of bytes read, 0 at end of file.
 */
static size_t
refill(struct ltin *in)
{
	size_t want;
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
	want = in->cap - in->end;
	if (in->size >= 0 && (off_t)want > in->size - in->off - (off_t)in->end)
		want = (size_t)(in->size - in->off - (off_t)in->end);
	if (in->chan != NULL)
		r = (ssize_t)lt_chan_read(in->chan, in, want);
	else for (;;) {
		r = read(in->fd, in->buf + in->end, want);
		if (r >= 0)
			break;
		if (errno != EINTR)
			lt_die(LT_EXIT_SYS, "read error: %s:", in->name);
	}
	if (r == 0 && in->size >= 0)
		lt_die(LT_EXIT_SYS, "%s: shrank while it was read", in->name);
	if (r == 0) {
		in->eof = 1;
		if (in->child != -1)
			reap(in, 1);
	}
	in->end += (size_t)r;
	if (in->size >= 0 && in->off + (off_t)in->end == in->size)
		in->eof = 1;
	if (watch != NULL)
		watch(in);
	return (size_t)r;
}

void
lt_in_watch(void (*fn)(const struct ltin *))
{
	watch = fn;
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

/*
 * Start again from the beginning of a seekable input (not one read
 * through gzip).  Returns -1 when the input cannot seek.
 */
int
lt_in_rewind(struct ltin *in)
{
	if (in->child != -1 || lseek(in->fd, 0, SEEK_SET) != 0)
		return -1;
	in->pos = in->end = 0;
	in->off = in->lineoff = 0;
	in->eof = 0;
	in->line = 0;
	return 0;
}

/*
 * The n bytes at off of fd into p: 1, or 0 if the file ends before
 * them, or -1 and errno on a read error.
 */
int
lt_pread_all(int fd, void *p, size_t n, off_t off)
{
	char *q = p;
	ssize_t r;

	while (n > 0) {
		if ((r = pread(fd, q, n, off)) < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return (int)r;
		q += r;
		n -= (size_t)r;
		off += r;
	}
	return 1;
}

void
lt_in_close(struct ltin *in)
{
	if (in->fd > 0)
		close(in->fd);
	if (in->child != -1)
		reap(in, 0);
	free(in->buf);
	in->buf = NULL;
	free(in->hint);
	in->hint = NULL;
	in->nhint = in->hi = in->caphint = 0;
}
