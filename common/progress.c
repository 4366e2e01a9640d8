/* See LICENSE file for copyright and license details. */
/*
 * progress.c: a progress line on a terminal, for the stage the user
 * waits for (ltparse reading, ltlanefix placing lanes): what it does,
 * the share done, the speed and the time left.  Redrawn in place at most
 * five times a second, cut to the terminal's width so that it never
 * wraps, and erased at the end.  Written to a file descriptor the caller
 * names (the driver hands its own standard error over); a failed write
 * only ends the line, never the program.
 */
#include <sys/ioctl.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define EVERY_MS	200	/* LT_PROGRESS_MS for tests */

static int64_t
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The terminal's width, or 80 when it does not say. */
static size_t
width(int fd)
{
#ifdef TIOCGWINSZ
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
#else
	(void)fd;
#endif
	return 80;
}

static void
put(struct ltprog *pg, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0 && pg->on) {
		if ((w = write(pg->fd, p, n)) < 0) {
			if (errno != EINTR)
				pg->on = 0;
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
}

void
lt_prog_start(struct ltprog *pg, int fd, const char *what, long long total,
    int bytes)
{
	const char *e = getenv("LT_PROGRESS_MS");

	pg->on = fd >= 0;
	pg->fd = fd;
	pg->every = e != NULL ? atoi(e) : EVERY_MS;
	pg->what = what;
	pg->total = total;
	pg->bytes = bytes;
	pg->t0 = now_ms();
	pg->last = pg->t0;
	/* shown stays: a line of the step before is erased at the end. */
}

/* The line for done of total, in buf; its length. */
static size_t
line(const struct ltprog *pg, long long done, int64_t el, char *buf,
    size_t size)
{
	long long rate = el > 0 ? done * 1000 / el : 0, left;
	int n;

	if (pg->total > 0 && done > pg->total)
		done = pg->total;
	/* seconds, rounded up */
	left = rate > 0 ? (pg->total - done + rate - 1) / rate : 0;
	if (pg->total > 0 && pg->bytes)
		n = snprintf(buf, size, "%s: %lld%%, %lld MB/s, %llds left",
		    pg->what, done * 100 / pg->total, rate / 1000000, left);
	else if (pg->total > 0)
		n = snprintf(buf, size, "%s: %lld%%, %llds left", pg->what,
		    done * 100 / pg->total, left);
	else if (pg->bytes)
		n = snprintf(buf, size, "%s: %lld MB, %lld MB/s", pg->what,
		    done / 1000000, rate / 1000000);
	else
		n = snprintf(buf, size, "%s: %llds", pg->what,
		    (long long)(el / 1000));
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void
lt_prog_at(struct ltprog *pg, long long done)
{
	char buf[512];
	size_t n, w;
	int64_t t;

	if (!pg->on || (t = now_ms()) - pg->last < pg->every)
		return;
	pg->last = t;
	buf[0] = '\r';
	n = 1 + line(pg, done, t - pg->t0, buf + 1, sizeof(buf) - 5);
	/* One column short of the width: a full line would wrap. */
	if ((w = width(pg->fd)) < n)
		for (n = w; n > 1 && ((unsigned char)buf[n] & 0xc0) == 0x80;)
			n--;		/* not inside a UTF-8 character */
	memcpy(buf + n, "\033[K", 3);
	put(pg, buf, n + 3);
	pg->shown = 1;
}

void
lt_prog_end(struct ltprog *pg)
{
	if (pg->shown)
		put(pg, "\r\033[K", 4);
	pg->shown = 0;
	pg->on = 0;
}

int
lt_prog_fd(const char *arg)
{
	const char *errstr;
	long long fd;

	fd = lt_strtonum(arg, 0, 1023, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "--progress-fd %s: %s (0 to 1023)", arg,
		    errstr);
	return (int)fd;
}
