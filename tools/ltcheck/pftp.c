/* See LICENSE file for copyright and license details. */
/*
 * pftp.c: ltcheck -P: Perfetto's own importer, its trace processor
 * (named by $TRACE_PROCESSOR, else trace_processor_shell or
 * trace_processor on PATH), imports the trace, and the counters it
 * reports are read back from its stats table, to be set beside the
 * prediction.  Also the temporary file it reads when the trace is not
 * one already.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltcheck.h"

/* Every stat it counted but its own timings (info, source analysis). */
#define QUERY	"select name, severity, source, sum(value) from stats " \
		"where value > 0 and not (severity = 'info' and " \
		"source = 'analysis') group by name, severity, source " \
		"order by name"
#define KEEP	1024	/* bytes of its messages kept */
#define LIMIT	600	/* seconds it may take; LT_TP_TIMEOUT */

static char			*tmp;	/* the temporary file, if any */
static volatile sig_atomic_t	 kid;	/* the trace processor, running */

/*
 * A signal that ends ltcheck (the driver's SIGTERM, ^C) ends the trace
 * processor too, and removes the temporary file: neither outlives it.
 */
static void
onsig(int sig)
{
	int st;

	if (kid > 0) {
		kill(-(pid_t)kid, SIGKILL);
		while (waitpid((pid_t)kid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (tmp != NULL)
		unlink(tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
catchsigs(void)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGPIPE, SIGTERM };
	static int done;
	size_t i;

	for (i = 0; !done && i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (signal(sigs[i], onsig) == SIG_IGN)
			signal(sigs[i], SIG_IGN);
	done = 1;
}

static int
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/* dir (n bytes) / name, if that is a program; else NULL. */
static char *
runnable(const char *dir, size_t n, const char *name)
{
	char *p = lt_malloc(n + strlen(name) + 2);

	memcpy(p, dir, n);
	p[n] = '/';
	strcpy(p + n + 1, name);
	if (executable(p))
		return p;
	free(p);
	return NULL;
}

/* name, as execvp(3) would find it: a path if it has a '/', or on PATH. */
static char *
lookup(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char *f;

	if (strchr(name, '/') != NULL)
		return executable(name) ? lt_strdup(name) : NULL;
	if (path == NULL || *name == '\0')
		return NULL;
	for (p = path;; p = e + 1) {
		if ((e = strchr(p, ':')) == NULL)
			e = p + strlen(p);
		/* An empty entry is the current directory. */
		if ((f = e > p ? runnable(p, (size_t)(e - p), name) :
		    runnable(".", 1, name)) != NULL)
			return f;
		if (*e == '\0')
			return NULL;
	}
}

/*
 * The trace processor to run, or NULL when there is none.  One that
 * $TRACE_PROCESSOR names but cannot be run is an error (exit 2).
 */
char *
pf_tp_find(void)
{
	const char *env = getenv("TRACE_PROCESSOR");
	char *p;

	if (env != NULL && *env != '\0') {
		if ((p = lookup(env)) == NULL)
			lt_die(LT_EXIT_SYS, "TRACE_PROCESSOR=%s: no such "
			    "program", env);
		return p;
	}
	if ((p = lookup("trace_processor_shell")) != NULL)
		return p;
	return lookup("trace_processor");
}

/* The card of a stat, from its severity and source. */
static int
card(const char *sev, const char *src)
{
	if (strcmp(sev, "data_loss") == 0)
		return PF_DL;
	if (strcmp(sev, "error") == 0)
		return strcmp(src, "analysis") == 0 ? PF_IE : PF_TE;
	return PF_INFO;
}

/* The fields of a CSV line, their quotes taken off; returns how many. */
static int
fields(char *line, char **f, int max)
{
	int n = 0;
	char *e;

	while (n < max) {
		if (*line == '"') {
			f[n++] = ++line;
			if ((e = strchr(line, '"')) == NULL)
				return n;
			*e = '\0';
			line = e + 1;
		} else {
			f[n++] = line;
			line += strcspn(line, ",");
		}
		if (*line != ',')
			break;
		*line++ = '\0';
	}
	return n;
}

/* Its output: a header row, then name, severity, source, value. */
static void
parse(struct pftp *tp, char *csv)
{
	struct pfstat *st;
	char *line, *next, *f[4];
	int64_t v;

	for (line = csv; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		line[strcspn(line, "\r")] = '\0';
		if (line == csv || fields(line, f, 4) != 4 ||
		    lt_int_parse(f[3], strlen(f[3]), &v) != LT_NUM_OK)
			continue;
		tp->st = lt_grow(tp->st, &tp->cap, tp->n + 1, sizeof(*tp->st));
		st = &tp->st[tp->n++];
		st->name = lt_strdup(f[0]);
		st->card = card(f[1], f[2]);
		st->value = v;
	}
}

/* Where s (a string) first is in the n bytes at p, or NULL. */
static const char *
find(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return p + i;
	return NULL;
}

/*
 * What it said when it failed: from Perfetto's "failed to read trace
 * file" or "Trace parse failure", else its last line; on one line.
 */
static void
reason(struct pftp *tp, const char *msg, size_t n)
{
	const char *p = msg, *q;
	size_t i, k = 0;

	if ((q = find(msg, n, "failed to read")) != NULL ||
	    (q = find(msg, n, "Trace parse failure")) != NULL)
		p = q;
	else
		for (i = 0; i + 1 < n; i++)
			if (msg[i] == '\n' || msg[i] == '\r')
				p = msg + i + 1;
	for (; p < msg + n && k < sizeof(tp->why) - 1; p++)
		if ((unsigned char)*p >= ' ')
			tp->why[k++] = *p;
		else if (k > 0 && tp->why[k - 1] != ' ')
			tp->why[k++] = ' ';
	while (k > 0 && tp->why[k - 1] == ' ')
		k--;
	tp->why[k] = '\0';
}

static void
child(const char *prog, const char *trace, int out, int err)
{
	char *argv[5];
	int null;

	setpgid(0, 0);		/* its own group, killed with it */
	if ((null = open("/dev/null", O_RDONLY)) < 0 ||
	    dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	argv[0] = (char *)prog;
	argv[1] = (char *)"-Q";
	argv[2] = (char *)QUERY;
	argv[3] = (char *)trace;
	argv[4] = NULL;
	execv(prog, argv);
	_exit(127);
}

/* ms left before deadline (CLOCK_MONOTONIC, ms), 0 when none are. */
static int
left(int64_t deadline)
{
	struct timespec ts;
	int64_t now;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return 1000;
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return now >= deadline ? 0 : deadline - now > 1000000 ? 1000000 :
	    (int)(deadline - now);
}

/*
 * Both pipes to their ends: all of out, the last KEEP bytes of err.
 * Returns -1 when the deadline passed first.
 */
static int
drain(int out, int err, struct ltbuf *o, struct ltbuf *e, int64_t deadline)
{
	struct pollfd p[2];
	char buf[8192];
	ssize_t r;
	int i, k;

	p[0].fd = out;
	p[1].fd = err;
	p[0].events = p[1].events = POLLIN;
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if ((k = left(deadline)) == 0)
			return -1;
		if ((k = poll(p, 2, k)) < 0) {
			if (errno == EINTR)
				continue;
			lt_die(LT_EXIT_SYS, "poll:");
		}
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			if ((r = read(p[i].fd, buf, sizeof(buf))) <= 0) {
				if (r < 0 && errno == EINTR)
					continue;
				close(p[i].fd);
				p[i].fd = -1;
				continue;
			}
			lt_buf_add(i == 0 ? o : e, buf, (size_t)r);
			if (i == 1 && e->n > 2 * KEEP) {
				memmove(e->p, e->p + e->n - KEEP, KEEP);
				e->n = KEEP;
			}
		}
	}
	return 0;
}

/* The time a trace processor may take, from LT_TP_TIMEOUT, in seconds. */
static long long
limit(void)
{
	const char *v = getenv("LT_TP_TIMEOUT"), *errstr;
	long long n;

	if (v == NULL || *v == '\0')
		return LIMIT;
	n = lt_strtonum(v, 1, 86400 * 7, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "LT_TP_TIMEOUT=%s: %s (seconds, 1 to "
		    "604800)", v, errstr);
	return n;
}

/* It ended, or the deadline passed: 0, or -1 with it stopped. */
static int
reap(pid_t pid, int *st, int64_t deadline)
{
	pid_t r;

	while ((r = waitpid(pid, st, WNOHANG)) == 0 && left(deadline) > 0)
		poll(NULL, 0, 20);
	if (r == pid)
		return 0;
	if (r < 0 && errno != EINTR)
		lt_die(LT_EXIT_SYS, "waitpid:");
	kill(-pid, SIGKILL);
	while (waitpid(pid, st, 0) < 0 && errno == EINTR)
		;
	return -1;
}

/*
 * Import trace with prog and read what it counted into tp.  A load
 * that fails leaves tp->loaded 0 and its reason in tp->why.
 */
void
pf_tp_import(struct pftp *tp, const char *prog, const char *trace)
{
	struct ltbuf out = { NULL, 0, 0 }, err = { NULL, 0, 0 };
	struct timespec ts;
	long long secs = limit();
	int64_t deadline;
	int po[2], pe[2], st, timedout;
	pid_t pid;

	memset(tp, 0, sizeof(*tp));
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		ts.tv_sec = ts.tv_nsec = 0;
	deadline = ((int64_t)ts.tv_sec + secs) * 1000 + ts.tv_nsec / 1000000;
	tp->prog = prog;
	if (pipe(po) < 0 || pipe(pe) < 0)
		lt_die(LT_EXIT_SYS, "pipe:");
	catchsigs();
	if ((pid = fork()) < 0)
		lt_die(LT_EXIT_SYS, "fork:");
	if (pid == 0) {
		close(po[0]);
		close(pe[0]);
		child(prog, trace, po[1], pe[1]);
	}
	setpgid(pid, pid);	/* before a signal may need it */
	kid = pid;
	close(po[1]);
	close(pe[1]);
	timedout = drain(po[0], pe[0], &out, &err, deadline) < 0;
	if (timedout) {
		close(po[0]);
		close(pe[0]);
	}
	if (reap(pid, &st, deadline) < 0 || timedout) {
		kid = 0;
		lt_die(LT_EXIT_SYS, "%s: no answer after %lld s: stopped "
		    "(LT_TP_TIMEOUT gives it longer)", prog, secs);
	}
	kid = 0;
	if (WIFSIGNALED(st))
		lt_die(LT_EXIT_SYS, "%s: killed by signal %d", prog,
		    WTERMSIG(st));
	if (WEXITSTATUS(st) >= 126)
		lt_die(LT_EXIT_SYS, "%s: cannot run it", prog);
	lt_buf_addc(&out, '\0');
	if (WEXITSTATUS(st) == 0) {
		tp->loaded = 1;
		parse(tp, out.p);
	} else
		reason(tp, err.p != NULL ? err.p : "", err.n);
	lt_buf_free(&out);
	lt_buf_free(&err);
}

static struct pfrow *
row(struct pfrow **rows, size_t *n, size_t *cap, const char *name, int card)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp((*rows)[i].counter, name) == 0)
			return &(*rows)[i];
	*rows = lt_grow(*rows, cap, *n + 1, sizeof(**rows));
	(*rows)[*n].counter = name;
	(*rows)[*n].card = card;
	(*rows)[*n].predicted = (*rows)[*n].counted = 0;
	return &(*rows)[(*n)++];
}

/*
 * The counters of the findings fd beside those tp counted, in the order
 * of the findings, then those only tp counted; *rows is the caller's to
 * free.  Returns how many.
 */
size_t
pf_tp_rows(const struct pftp *tp, const struct pffinds *fd,
    struct pfrow **rows)
{
	const struct pffind *f;
	size_t i, n = 0, cap = 0;

	*rows = NULL;
	for (i = 0; i < fd->n; i++) {
		f = &fd->f[i];
		if (f->counter != NULL && f->card != PF_FATAL)
			row(rows, &n, &cap, f->counter, f->card)->predicted +=
			    f->n;
	}
	for (i = 0; i < tp->n; i++)
		row(rows, &n, &cap, tp->st[i].name, tp->st[i].card)->counted +=
		    tp->st[i].value;
	return n;
}

/*
 * Do the counters of rows differ, or the load from the predicted
 * failure (fatal)?
 */
int
pf_tp_differs(const struct pftp *tp, const struct pfrow *r, size_t nr,
    int fatal)
{
	size_t i;

	if (fatal || !tp->loaded)
		return fatal == tp->loaded;
	for (i = 0; i < nr; i++)
		if (r[i].predicted != r[i].counted)
			return 1;
	return 0;
}

/* -------- files for it -------- */

static void
rmtmp(void)
{
	char *t = tmp;

	tmp = NULL;
	unlink(t);
	free(t);
}

/*
 * A temporary file, in $TMPDIR or /tmp, removed at exit (one only):
 * its path, and its descriptor in *fd.
 */
char *
pf_tp_tmpfile(int *fd)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	size_t n;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	n = strlen(dir) + sizeof("/ltcheck.XXXXXX");
	path = lt_malloc(n);
	snprintf(path, n, "%s/ltcheck.XXXXXX", dir);
	catchsigs();
	if ((*fd = mkstemp(path)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	tmp = path;
	atexit(rmtmp);
	return tmp;
}

/*
 * The trace processor reads a file: what is left of in (a pipe) is
 * copied to a temporary one, which in then reads.  Returns its path.
 */
char *
pf_tp_spool(struct ltin *in)
{
	const char *name = in->name;
	struct ltout o;
	char *path;
	int fd;

	path = pf_tp_tmpfile(&fd);
	lt_out_init(&o, fd, path);
	do {
		lt_out_write(&o, in->buf + in->pos, in->end - in->pos);
		in->pos = in->end;
	} while (lt_in_fill(in, 1) > 0);
	lt_out_close(&o);
	lt_in_close(in);
	lt_in_open(in, path);
	in->name = name;
	return path;
}

void
pf_tp_free(struct pftp *tp)
{
	size_t i;

	for (i = 0; i < tp->n; i++)
		free(tp->st[i].name);
	free(tp->st);
	memset(tp, 0, sizeof(*tp));
}
