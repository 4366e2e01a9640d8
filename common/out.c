/* See LICENSE file for copyright and license details. */
/*
 * out.c: buffered output straight to a file descriptor.  Every write is
 * checked; a failure (disk full, /dev/full, a closed pipe without
 * SIGPIPE) is reported with the output's name and exits 2.  An output
 * to memory (lt_out_mem) is never written: its buffer grows.
 */
#define _XOPEN_SOURCE	700	/* realpath */

#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

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
	o->done = 0;
	o->hint = NULL;
	o->nhint = o->caphint = 0;
	o->cap = LT_OUTBUF;
	o->n = 0;
	o->chan = fd == 1 ? lt_chan_of(1) : NULL;
	/* room for the next stage's piece of a line before, a NUL after */
	o->head = o->chan != NULL ? LT_CHANHEAD : 0;
	o->buf = (char *)lt_malloc(o->head + o->cap + (o->chan != NULL)) +
	    o->head;
	lt_pipe_grow(fd);
}

/* Output to memory: what is written stays in o->buf, o->n bytes. */
void
lt_out_mem(struct ltout *o)
{
	o->fd = -1;
	o->name = "<memory>";
	o->cap = LT_OUTBUF;
	o->n = 0;
	o->buf = lt_malloc(o->cap);
	o->head = 0;
	o->chan = NULL;
	o->hint = NULL;
	o->nhint = o->caphint = 0;
}

/* Output to memory: room for n more bytes. */
static void
memroom(struct ltout *o, size_t n)
{
	if (o->cap - o->n >= n)
		return;
	o->cap = n > o->cap ? o->n + n : 2 * o->cap;
	o->buf = lt_reallocarray(o->buf, o->cap, 1);
}

static void
writeall(struct ltout *o, const char *p, size_t n)
{
	ssize_t w;

	if (o->chan != NULL) {
		/* the buffer itself, or bytes of the caller's */
		lt_chan_write(o->chan, p, n, p == o->buf ? o : NULL);
		o->done += n;
		return;
	}
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
	if (o->fd < 0) {
		/* in memory: room for what comes */
		memroom(o, 1);
		return;
	}
	if (o->n > 0)
		writeall(o, o->buf, o->n);
	o->n = 0;
	o->nhint = 0;
}

/* The slow path of lt_out_write: flush, then buffer or write through. */
void
lt_out_slow(struct ltout *o, const void *p, size_t n)
{
	if (o->fd < 0) {
		memroom(o, n);
		memcpy(o->buf + o->n, p, n);
		o->n += n;
		return;
	}
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
	if (o->fd < 0) {
		memroom(o, n);
		return o->buf + o->n;
	}
	lt_out_flush(o);
	if (n > o->cap) {
		free(o->buf - o->head);
		o->buf = (char *)lt_malloc(o->head + n + (o->chan != NULL)) +
		    o->head;
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
	free(o->buf - o->head);
	o->buf = NULL;
	free(o->hint);
	o->hint = NULL;
	o->nhint = o->caphint = 0;
	if (o->chan == NULL && o->fd >= 0 && close(o->fd) < 0 &&
	    errno != EINTR)
		lt_die(LT_EXIT_SYS, "write error: %s:", o->name);
}

/*
 * A temporary file stem.XXXXXX in $TMPDIR, or /tmp, removed as soon as
 * it is made: its descriptor, or -1 and errno.  *dir is the directory
 * and *why " (TMPDIR)" when the environment named it, or "", for a
 * message.
 */
int
lt_tmp_open(const char *stem, const char **dir, const char **why)
{
	char path[4096];
	int fd;

	*why = " (TMPDIR)";
	if ((*dir = getenv("TMPDIR")) == NULL || **dir == '\0') {
		*dir = "/tmp";
		*why = "";
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.XXXXXX", *dir,
	    stem) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(path)) < 0)
		return -1;
	unlink(path);
	return fd;
}

/*
 * The output file path (-o) of a program that may still fail: written
 * in a temporary file of path's directory, which lt_out_commit() renames
 * over path once the output is whole, so that bad input (exit 1) or an
 * error (exit 2) leaves the user's file as it was.  The temporary goes
 * at exit and on the signals that end a program, unless committed.  A
 * symbolic link is written through (its target replaced); what is not a
 * regular file (a FIFO, a device, a link to nothing) is written in
 * place, as before.  One such output per program.
 */
static char	*tmpname LT_STAGE;	/* NULL once committed or gone */
static char	*finalname LT_STAGE;
/* The temporaries not committed yet, of every stage of ltchain. */
static char	*pending[8];
static int	 npending, handlers;

/* The program's (or stage's) temporary is done with: its names go. */
static void
forget(void)
{
	int i;

	for (i = 0; i < npending && pending[i] != tmpname; i++)
		;
	if (i < npending)
		pending[i] = pending[--npending];
	free(tmpname);
	free(finalname);
	tmpname = finalname = NULL;
}

static void
rmtemp(void)
{
	if (tmpname != NULL)
		unlink(tmpname);
	forget();
}

/* What a stage of ltchain leaves uncommitted as it ends goes with it. */
void
lt_out_abandon(void)
{
	rmtemp();
}

/* At exit: every temporary not committed. */
static void
rmall(void)
{
	while (npending > 0)
		unlink(pending[--npending]);
}

static void
ontermsig(int sig)
{
	int i;

	for (i = 0; i < npending; i++)
		unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

int
lt_out_replace(const char *path)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGPIPE, SIGTERM };
	struct stat sb;
	char name[4096], *real = NULL;
	const char *target = path, *slash;
	mode_t mask;
	size_t i;
	int fd, n;

	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
	    (real = realpath(path, NULL)) != NULL)
		target = real;
	if (stat(target, &sb) == 0 ? !S_ISREG(sb.st_mode) : errno != ENOENT) {
		free(real);
		return lt_out_create(path);
	}
	/* DIR/.NAME.XXXXXX beside DIR/NAME */
	slash = strrchr(target, '/');
	n = snprintf(name, sizeof(name), "%.*s.%s.XXXXXX",
	    slash != NULL ? (int)(slash + 1 - target) : 0, target,
	    slash != NULL ? slash + 1 : target);
	if (n < 0 || (size_t)n >= sizeof(name) ||
	    strlen(target) >= sizeof(name))
		lt_die(LT_EXIT_SYS, "%s: name too long", path);
	if (npending == (int)(sizeof(pending) / sizeof(pending[0])))
		lt_die(LT_EXIT_SYS, "%s: too many outputs at once", path);
	finalname = lt_strdup(target);
	free(real);
	/* known before it is made: a signal then finds it to remove */
	tmpname = lt_strdup(name);
	pending[npending++] = tmpname;
	if ((fd = mkstemp(tmpname)) < 0) {
		n = errno;
		forget();
		errno = n;
		/* its directory's reason */
		lt_die(LT_EXIT_SYS, "%s:", path);
	}
	/* The mode the file has, or the one a new file would get. */
	if (stat(finalname, &sb) < 0) {
		mask = umask(0);
		umask(mask);
		sb.st_mode = 0666 & ~mask;
	}
	if (fchmod(fd, sb.st_mode & 07777) < 0) {
		rmtemp();
		lt_die(LT_EXIT_SYS, "%s: cannot set its mode:", path);
	}
	if (!handlers) {
		atexit(rmall);
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (signal(sigs[i], ontermsig) == SIG_IGN)
				signal(sigs[i], SIG_IGN);
		handlers = 1;
	}
	return fd;
}

/* The output of lt_out_replace, name, closed, takes the user's file's place. */
void
lt_out_commit(const char *name)
{
	if (tmpname == NULL)
		return;		/* written in place */
	if (rename(tmpname, finalname) < 0) {
		rmtemp();
		lt_die(LT_EXIT_SYS, "%s:", name);
	}
	forget();
}
