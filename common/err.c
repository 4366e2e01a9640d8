/* See LICENSE file for copyright and license details. */
/*
 * err.c: diagnostics, usage and option numbers.
 *
 * Every message is "PROG: text" on stderr; input errors add the position,
 * "PROG: FILE:LINE: text".  A format that ends in ':' gets ": " and
 * strerror(errno) appended, as in sbase.  Control characters are shown
 * escaped: a message may quote the input.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lt.h"

static const char *lt_prog LT_STAGE = "litracer";

void
lt_setprog(const char *argv0)
{
	const char *p;

	if (argv0 == NULL || *argv0 == '\0')
		return;
	p = strrchr(argv0, '/');
	lt_prog = p != NULL ? p + 1 : argv0;
}

/* The program's name, as messages give it. */
const char *
lt_progname(void)
{
	return lt_prog;
}

static void vmsg(const char *, long, const char *, va_list) LT_PRINTF(3, 0);

/*
 * A message is made whole here and written with one write(2): stderr is
 * unbuffered, and the messages of processes sharing it (the parts of
 * ltparse -P failing together) must not interleave.  There is room for
 * the longest file name and text, escaped.
 */
static char	 mbuf[4 * (4096 + 1024) + 256];
static size_t	 mlen;

static void
madd(const char *s, size_t n)
{
	if (n > sizeof(mbuf) - mlen)
		n = sizeof(mbuf) - mlen;
	memcpy(mbuf + mlen, s, n);
	mlen += n;
}

static void
madds(const char *s)
{
	madd(s, strlen(s));
}

/*
 * s with its control characters escaped (\r, \t, \n, \xNN), so that
 * bytes a message quotes from the input show as what they are.
 */
static void
maddesc(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char hex[8];

	for (; *p != '\0'; p++) {
		if (*p >= 0x20 && *p != 0x7f)
			madd((const char *)p, 1);
		else if (*p == '\r')
			madds("\\r");
		else if (*p == '\t')
			madds("\\t");
		else if (*p == '\n')
			madds("\\n");
		else {
			snprintf(hex, sizeof(hex), "\\x%02x", *p);
			madds(hex);
		}
	}
}

static void
vmsg(const char *file, long line, const char *fmt, va_list ap)
{
	char msg[1024], num[32];
	int saved = errno, n;
	size_t off;
	ssize_t w;

	fflush(stdout);
	mlen = 0;
	madds(lt_prog);
	madds(": ");
	if (file != NULL) {
		maddesc(file);
		if (line > 0) {
			snprintf(num, sizeof(num), ":%ld", line);
			madds(num);
		}
		madds(": ");
	}
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	maddesc(msg);
	if (n >= (int)sizeof(msg))
		madds("...");
	n = (int)strlen(fmt);
	if (n > 0 && fmt[n - 1] == ':') {
		madds(" ");
		madds(strerror(saved));
	}
	if (mlen == sizeof(mbuf))
		mlen--;
	madds("\n");
	for (off = 0; off < mlen; off += (size_t)w)
		if ((w = write(2, mbuf + off, mlen - off)) < 0) {
			if (errno != EINTR)
				break;
			w = 0;
		}
}

void
lt_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
	lt_exit(status);
}

void
lt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void
lt_diepos(int status, const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, fmt, ap);
	va_end(ap);
	lt_exit(status);
}

void
lt_warnpos(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, fmt, ap);
	va_end(ap);
}

/* A usage error: the synopsis on stderr, exit 2. */
void
lt_usage(const char *synopsis)
{
	fprintf(stderr, "usage: %s\n", synopsis);
	lt_exit(LT_EXIT_SYS);
}

/* The end of -h and --version: exit 0 once stdout is written, else 2. */
static void LT_NORETURN
said(int printed)
{
	if (printed < 0 || fflush(stdout) == EOF)
		lt_die(LT_EXIT_SYS, "write error: <stdout>:");
	lt_exit(LT_EXIT_OK);
}

/* -h: the synopsis and the option summary on stdout, exit 0. */
void
lt_help(const char *synopsis, const char *options)
{
	said(printf("usage: %s\n%s", synopsis, options));
}

/* --version: "PROG 0.1.0" on stdout, exit 0. */
void
lt_version(void)
{
	said(printf("%s %s\n", lt_prog, LT_VERSION));
}

/*
 * An integer option argument in [min, max].  On error returns 0 and sets
 * *errstr to "invalid", "too small" or "too large" (OpenBSD strtonum).
 */
long long
lt_strtonum(const char *s, long long min, long long max, const char **errstr)
{
	long long v;
	char *end;

	*errstr = NULL;
	errno = 0;
	if (s == NULL || *s == '\0' || *s == ' ' || *s == '\t') {
		*errstr = "invalid";
		return 0;
	}
	v = strtoll(s, &end, 10);
	if (*end != '\0') {
		*errstr = "invalid";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MIN) || v < min) {
		*errstr = "too small";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MAX) || v > max) {
		*errstr = "too large";
		return 0;
	}
	return v;
}

/*
 * The bytes of memory environment variable name gives (1 to 2^40), or
 * def when it is unset or empty; any other value is fatal.
 */
size_t
lt_env_bytes(const char *name, size_t def)
{
	const char *e = getenv(name), *why;
	size_t v;

	if (e == NULL || *e == '\0')
		return def;
	if ((v = (size_t)lt_strtonum(e, 1, (long long)1 << 40, &why)) == 0)
		lt_die(LT_EXIT_SYS, "%s=%s: %s (1 to 2^40 bytes)", name, e,
		    why);
	return v;
}
