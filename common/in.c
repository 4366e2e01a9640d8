/* See LICENSE file for copyright and license details. */
/*
 * in.c: buffered input from a file descriptor, by line or by byte.
 *
 * One buffer per input, reused; it grows only when a single line (or a
 * single JSON event) does not fit.  Lines are handed out in place.
 * gzip-compressed input (magic bytes 1f 8b) is read through "gzip -dc",
 * so that every reader takes .gz files and compressed standard input.
 * A regular file can be mapped instead, a window at a time: its bytes
 * are then read where the page cache holds them, not copied.  A file
 * cut shorter while it is mapped (logrotate's copytruncate) makes the
 * bytes past its new end fault with SIGBUS: that is caught, and the
 * program ends with a message naming the file, exit 2.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"

#define INBUF	(1024 * 1024)
#define INMAP	((size_t)64 << 20)	/* bytes mapped at a time */

static void	(*watch)(const struct ltin *);

/* An input of fd, named name, with nothing read yet. */
static void
setup(struct ltin *in, int fd, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->name = name;
	in->limit = -1;
	in->child = -1;
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
	int fd;

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

/* The windows mapped, for the SIGBUS handler: few are at a time. */
static struct {
	const char	*p;
	size_t		 n;
	const char	*name;
} maps[8];

static void
writes(const char *s)
{
	if (write(2, s, strlen(s)) < 0)
		return;
}

static void
onbus(int sig, siginfo_t *si, void *ctx)
{
	const char *a = si->si_addr;
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].p != NULL && a >= maps[i].p &&
		    a < maps[i].p + maps[i].n) {
			writes(lt_progname());
			writes(": ");
			writes(maps[i].name);
			writes(": shrank while it was read\n");
			_exit(LT_EXIT_SYS);
		}
	signal(sig, SIG_DFL);	/* not ours: the fault again, and the end */
}

/* Note a window mapped (n > 0) or unmapped (n == 0). */
static void
mapped(const char *p, size_t n, const char *name)
{
	static int caught;
	struct sigaction sa;
	size_t i;

	if (!caught) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = onbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		caught = 1;
	}
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (n > 0 ? maps[i].p == NULL : maps[i].p == p) {
			maps[i].p = n > 0 ? p : NULL;
			maps[i].n = n;
			maps[i].name = name;
			return;
		}
}

/*
 * Map the window of a mapped input that holds byte at of its file, and
 * at least more bytes after it unless the file ends first; -1 when it
 * cannot be mapped.
 */
static int
mapat(struct ltin *in, off_t at, size_t more)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t start = at - (page > 0 ? at % page : at);
	size_t len = in->win;
	void *map;

	while ((off_t)len < in->size - start && len - (size_t)(at - start) <=
	    more && len <= SIZE_MAX / 2)
		len *= 2;		/* a line longer than the window */
	in->win = len;
	if ((off_t)len > in->size - start)
		len = (size_t)(in->size - start);
	if (in->buf != NULL) {
		mapped(in->buf, 0, NULL);
		munmap(in->buf, in->cap);
	}
	in->buf = NULL;
	in->cap = in->pos = in->end = 0;
	in->off = at;
	in->eof = 1;
	if (len == 0)
		return 0;
	if ((map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, in->fd, start)) ==
	    MAP_FAILED)
		return -1;
	in->buf = map;
	in->cap = in->end = len;
	mapped(map, len, in->name);
	in->off = start;
	in->pos = (size_t)(at - start);
	in->eof = start + (off_t)len == in->size;
	return 0;
}

/* The same, or the end of the program. */
static void
remap(struct ltin *in, off_t at, size_t more)
{
	if (mapat(in, at, more) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot map:", in->name);
}

int
lt_in_map(struct ltin *in, const char *path, off_t size, off_t off)
{
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	setup(in, fd, path);
	in->size = size;
	in->win = INMAP;
	in->mapped = 1;
	if (mapat(in, off < size ? off : size, 0) < 0) {
		close(fd);
		return -1;
	}
	in->lineoff = in->off + (off_t)in->pos;
	return 0;
}

void
lt_in_seek(struct ltin *in, off_t off)
{
	if (in->mapped) {
		if (off >= in->off && off <= in->off + (off_t)in->end &&
		    in->end > 0)
			in->pos = (size_t)(off - in->off);
		else
			remap(in, off < in->size ? off : in->size, 0);
		in->eof = in->off + (off_t)in->end == in->size;
	} else {
		if (lseek(in->fd, off, SEEK_SET) != off)
			lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
		in->pos = in->end = 0;
		in->off = off;
		in->eof = 0;
	}
	in->lineoff = off;
}

/*
 * Read more data after what is buffered.  Unread data moves to the front
 * first; the buffer doubles when it is full of one unfinished piece.
 * Returns the number of bytes read, 0 at end of file.
 */
static size_t
refill(struct ltin *in)
{
	size_t had = in->end - in->pos;
	ssize_t r;

	if (in->eof)
		return 0;
	if (in->mapped) {
		remap(in, in->off + (off_t)in->pos, had);
		if (watch != NULL)
			watch(in);
		return in->end - in->pos - had;
	}
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
	if (r == 0) {
		in->eof = 1;
		if (in->child != -1)
			reap(in, 1);
	}
	in->end += (size_t)r;
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

void
lt_in_close(struct ltin *in)
{
	if (in->fd > 0)
		close(in->fd);
	if (in->child != -1)
		reap(in, 0);
	if (!in->mapped)
		free(in->buf);
	else if (in->buf != NULL) {
		mapped(in->buf, 0, NULL);
		munmap(in->buf, in->cap);
	}
	in->buf = NULL;
}
