/* See LICENSE file for copyright and license details. */
/*
 * parts.c: part k of N of ltparse's inputs (-P k/N), so that N processes
 * share the work of one run and the parts, concatenated in order, are
 * byte for byte the stream of that run.
 *
 * The inputs are one sequence of bytes cut into N equal ranges; each
 * cut is moved on to the next line that starts with "ts:" (a record,
 * never part of a traceback, so that no state of the lines before it
 * carries over) or to the end of its input.  A part writes the lines
 * that start in its range.  What it needs of the ranges before its own
 * is small: the threads their events made, in order (a thread's tid is
 * its rank of appearance in its process), and their number of lines;
 * the last part also needs what they counted and learnt of processes
 * and threads, for the names and counters it writes.
 *
 * With a directory shared by the parts (-S), every part but the last
 * first looks at its own range for its threads (ps_logscan, a fraction
 * of the cost of reading it) and leaves them in ltparse.K.scan; then it
 * takes those of the parts before it, converts its range, and leaves
 * its counters and what it learnt in ltparse.K.end, which the last part
 * adds to its own.  No part reads the bytes before its range.  A part
 * holds a lock on ltparse.K.live while it runs, so that one waiting for
 * it knows when it died instead.  With -G, part 1 writes the whole
 * stream: every other part writes its own in ltparse.K.out (through
 * ltparse.K.out.tmp, renamed once whole, its first line the run's id),
 * holding its lock until then, and part 1 appends each in turn to its
 * output once its own range is written, without passing the bytes
 * through itself where the system can (lt_out_append); then it, the
 * last to end, removes the files.  Without a directory, a part looks at
 * the bytes before its range itself, and the last part converts them
 * without writing them.
 *
 * All parts must read the same bytes, even of a log that grows while
 * they start (a running job's): with a directory, the first part to
 * start leaves the size and identity of each input in ltparse.run, and
 * every part reads that many bytes of that file.  A file replaced or
 * cut shorter while it is read ends the part, exit 2.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lt.h"
#include "ltparse.h"

#define STARTWAIT	60	/* seconds a part may take to start */

struct parts {
	struct pspin	*ins;
	int		 nin;
	int		 k, n;
	const char	*dir;
	off_t		 total;
	long		*lines;		/* per input, before our range */
	int		 live;		/* fd of our lock */
	int		 gather;	/* -G */
	char		 run[64];	/* what the run's parts share */
};

/* Where the input of offset off of the sequence starts in it. */
static off_t
inputbase(const struct parts *pt, int i)
{
	off_t base = 0;
	int j;

	for (j = 0; j < i; j++)
		base += pt->ins[j].size;
	return base;
}

/* Past the next '\n' of in; 0 when the input ends first. */
static int
skipline(struct ltin *in)
{
	const char *nl;

	for (;;) {
		if (in->pos == in->end && lt_in_fill(in, 1) == 0)
			return 0;
		nl = memchr(in->buf + in->pos, '\n', in->end - in->pos);
		if (nl != NULL) {
			in->pos = (size_t)(nl - in->buf) + 1;
			return 1;
		}
		in->pos = in->end;
	}
}

/*
 * Input i, opened again as fd, must still be the file the run reads,
 * and hold the bytes it reads.
 */
static void
same(const struct parts *pt, int i, int fd)
{
	const struct pspin *in = &pt->ins[i];
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		lt_die(LT_EXIT_SYS, "%s:", in->path);
	if (sb.st_dev != in->dev || sb.st_ino != in->ino)
		lt_die(LT_EXIT_SYS, "%s: replaced while it was read (another "
		    "file has its name now)", in->path);
	if (sb.st_size < in->size)
		lt_die(LT_EXIT_SYS, "%s: shrank while it was read (%lld bytes, "
		    "%lld before)", in->path, (long long)sb.st_size,
		    (long long)in->size);
}

/*
 * The cut nearest after offset nom of the sequence: the start of the
 * first line at or after nom that starts with "ts:", or the end of the
 * input holding nom.
 */
static off_t
cut(const struct parts *pt, off_t nom)
{
	struct ltin in;
	off_t base = 0, at, size;
	int i;

	for (i = 0; i < pt->nin && nom >= base + pt->ins[i].size; i++)
		base += pt->ins[i].size;
	if (i == pt->nin)
		return pt->total;
	size = pt->ins[i].size;
	at = nom - base;
	lt_in_open(&in, pt->ins[i].path);
	same(pt, i, in.fd);
	/* The first line start at or after at. */
	if (at > 0) {
		lt_in_seek(&in, at - 1);
		if (!skipline(&in))
			in.pos = in.end;
	}
	while (in.off + (off_t)in.pos < size && (lt_in_fill(&in, 3) < 3 ||
	    memcmp(in.buf + in.pos, "ts:", 3) != 0) && skipline(&in))
		;
	at = in.off + (off_t)in.pos;
	lt_in_close(&in);
	return base + (at < size ? at : size);
}

/* The offset of the n-th of N equal cuts of total bytes. */
static off_t
nominal(off_t total, int i, int n)
{
	return (off_t)((uint64_t)total / (uint64_t)n * (uint64_t)i +
	    (uint64_t)total % (uint64_t)n * (uint64_t)i / (uint64_t)n);
}

/*
 * Open input i for the lines of the sequence that start in [a, b), the
 * lines of the input before them numbered already; 0 when there are
 * none in it.
 */
static int
openrange(struct parts *pt, int i, off_t a, off_t b, struct ltin *in)
{
	off_t base = inputbase(pt, i), size = pt->ins[i].size, la, lb;

	la = a > base ? a - base : 0;
	lb = b - base < size ? b - base : size;
	if (la >= lb)
		return 0;
	lt_in_bounded(in, pt->ins[i].path, size, la);
	same(pt, i, in->fd);
	in->limit = lb < size ? lb : -1;
	in->line = pt->lines[i];
	return 1;
}

/* The threads of the lines in [a, b) in sc, their number per input. */
static void
scan(struct parts *pt, off_t a, off_t b, struct psscan *sc, long *lines)
{
	struct ltin in;
	int i;

	for (i = 0; i < pt->nin; i++) {
		lines[i] = 0;
		if (!openrange(pt, i, a, b, &in))
			continue;
		ps_logscan(&pt->ins[i], &in, sc);
		lines[i] = in.line - pt->lines[i];
		lt_in_close(&in);
	}
}

/* Convert the lines in [a, b); those before quiet are not written. */
static void
convert(struct parts *pt, off_t a, off_t b, off_t quiet, struct pssink *s)
{
	struct ltin in;
	int i;

	for (i = 0; i < pt->nin; i++) {
		if (!openrange(pt, i, a, b, &in))
			continue;
		ps_login(&pt->ins[i], &in, quiet - inputbase(pt, i), s);
		lt_in_close(&in);
	}
}

/* The threads of sc made, in order, as a whole run makes them. */
static void
replay(const struct parts *pt, const struct psscan *sc, struct pssink *s)
{
	size_t i;

	for (i = 0; i < sc->nid; i++)
		ps_thread(&pt->ins[sc->id[i].input], sc->id[i].pid,
		    sc->id[i].os, NULL);
	if (sc->nid > 0)
		s->t0done = 1;		/* the first event came before */
}

/* -------- the state the parts share in a directory -------- */

#define PATHMAX	4096

static void
path(char *buf, const struct parts *pt, int k, const char *what)
{
	if ((size_t)snprintf(buf, PATHMAX, "%s/ltparse.%d.%s", pt->dir, k,
	    what) >= PATHMAX)
		lt_die(LT_EXIT_SYS, "%s: name too long", pt->dir);
}

/* The file of the whole run, ltparse.run. */
static void
runpath(char *buf, const struct parts *pt)
{
	if ((size_t)snprintf(buf, PATHMAX, "%s/ltparse.run", pt->dir) >=
	    PATHMAX)
		lt_die(LT_EXIT_SYS, "%s: name too long", pt->dir);
}

/*
 * A new file of ours, tmp, for writing: what was left there (by a run
 * that was killed) goes first, and the file is made new, never through
 * a symbolic link another user may have put in a shared directory.
 */
static int
newfd(const char *tmp)
{
	int fd;

	if (unlink(tmp) < 0 && errno != ENOENT)
		lt_die(LT_EXIT_SYS, "%s:", tmp);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
	    0600)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", tmp);
	return fd;
}

static FILE *
newfile(const char *tmp)
{
	FILE *f;

	if ((f = fdopen(newfd(tmp), "w")) == NULL)
		lt_die(LT_EXIT_SYS, "%s:", tmp);
	return f;
}

/* Hold a lock on ltparse.K.live while we run. */
static void
golive(struct parts *pt)
{
	char tmp[PATHMAX], live[PATHMAX];
	struct flock fl;

	path(tmp, pt, pt->k, "live.tmp");
	path(live, pt, pt->k, "live");
	pt->live = newfd(tmp);
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(pt->live, F_SETLK, &fl) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot lock:", tmp);
	if (rename(tmp, live) < 0)
		lt_die(LT_EXIT_SYS, "%s:", live);
}

enum { NOTYET, RUNNING, ENDED };

/* Part j: not started yet, running, or ended. */
static int
state(const struct parts *pt, int j)
{
	char live[PATHMAX];
	struct flock fl;
	int fd, st;

	path(live, pt, j, "live");
	if ((fd = open(live, O_RDONLY)) < 0) {
		if (errno != ENOENT)
			lt_die(LT_EXIT_SYS, "%s:", live);
		return NOTYET;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_GETLK, &fl) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot test its lock:", live);
	st = fl.l_type == F_UNLCK ? ENDED : RUNNING;
	close(fd);
	return st;
}

/* Part j's file what, once it is there. */
static FILE *
await(const struct parts *pt, int j, const char *what)
{
	char file[PATHMAX];
	struct timespec ts;
	time_t start = time(NULL);
	long delay = 200000;
	FILE *f;
	int st;

	path(file, pt, j, what);
	for (;;) {
		if ((f = fopen(file, "r")) != NULL)
			return f;
		if (errno != ENOENT)
			lt_die(LT_EXIT_SYS, "%s:", file);
		if ((st = state(pt, j)) == ENDED) {
			if ((f = fopen(file, "r")) != NULL)
				return f;
			lt_die(LT_EXIT_SYS, "part %d of %d ended without "
			    "writing %s", j, pt->n, file);
		}
		if (st == NOTYET && time(NULL) - start > STARTWAIT)
			lt_die(LT_EXIT_SYS, "part %d of %d has not started in "
			    "%d s (no %s)", j, pt->n, STARTWAIT, file);
		ts.tv_sec = 0;
		ts.tv_nsec = delay;
		nanosleep(&ts, NULL);
		delay = delay < 10000000 ? delay * 2 : 20000000;
	}
}

/* Our file what, written in tmp first so that it appears whole. */
static FILE *
create(const struct parts *pt, const char *what, char *tmp)
{
	FILE *f;

	path(tmp, pt, pt->k, what);
	strcat(tmp, ".tmp");
	f = newfile(tmp);
	fprintf(f, "%s\n", pt->run);
	return f;
}

static void
commit(const struct parts *pt, FILE *f, const char *what, const char *tmp)
{
	char file[PATHMAX];

	path(file, pt, pt->k, what);
	fputs("end\n", f);
	if (ferror(f) || fclose(f) == EOF)
		lt_die(LT_EXIT_SYS, "write error: %s:", tmp);
	if (rename(tmp, file) < 0)
		lt_die(LT_EXIT_SYS, "%s:", file);
}

static void
badstate(const struct parts *pt, int j, const char *what)
{
	char file[PATHMAX];

	path(file, pt, j, what);
	lt_die(LT_EXIT_SYS, "%s: not the state of a part of this run", file);
}

/*
 * Part j's file what, of this run: its first line says the number of
 * parts and the size and time of change of the inputs, so that a file
 * another run left (of other inputs) is never taken for ours.
 */
static FILE *
openstate(struct parts *pt, int j, const char *what)
{
	char line[sizeof(pt->run) + 1];
	FILE *f = await(pt, j, what);

	if (fgets(line, sizeof(line), f) == NULL ||
	    strcspn(line, "\n") != strlen(pt->run) ||
	    memcmp(line, pt->run, strlen(pt->run)) != 0)
		badstate(pt, j, what);
	return f;
}

static void
badrun(const char *file)
{
	lt_die(LT_EXIT_SYS, "%s: left by another run (of another number of "
	    "parts or inputs)", file);
}

/*
 * The inputs as every part of the run reads them: the first part to get
 * here leaves in ltparse.run, N and for each input its device, inode,
 * size and time of change as it sees them; every part then reads that
 * many bytes of that file.  The run's id, which the parts' files carry,
 * is a hash of it, so that what another run left is never taken for
 * this run's.
 */
static void
fixrun(struct parts *pt)
{
	char tmp[PATHMAX], run[PATHMAX], line[160], head[32];
	unsigned long long dev, ino, size;
	struct stat sb;
	uint64_t h;
	FILE *f;
	int i, j;

	path(tmp, pt, pt->k, "run.tmp");
	runpath(run, pt);
	snprintf(head, sizeof(head), "ltparse %d parts\n", pt->n);
	f = newfile(tmp);
	fputs(head, f);
	for (i = 0; i < pt->nin; i++) {
		if (stat(pt->ins[i].path, &sb) < 0)
			lt_die(LT_EXIT_SYS, "%s:", pt->ins[i].path);
		fprintf(f, "input %d %llu %llu %lld %lld.%09ld\n", i,
		    (unsigned long long)pt->ins[i].dev,
		    (unsigned long long)pt->ins[i].ino,
		    (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
		    (long)sb.st_mtim.tv_nsec);
	}
	fputs("end\n", f);
	if (ferror(f) || fclose(f) == EOF)
		lt_die(LT_EXIT_SYS, "write error: %s:", tmp);
	/* link, unlike rename, keeps the first part's file */
	if (link(tmp, run) < 0 && errno != EEXIST)
		lt_die(LT_EXIT_SYS, "%s:", run);
	unlink(tmp);
	if ((f = fopen(run, "r")) == NULL)
		lt_die(LT_EXIT_SYS, "%s:", run);
	if (fgets(line, sizeof(line), f) == NULL || strcmp(line, head) != 0)
		badrun(run);
	h = lt_hash(line, strlen(line));
	for (i = 0; i < pt->nin; i++) {
		if (fgets(line, sizeof(line), f) == NULL || sscanf(line,
		    "input %d %llu %llu %llu", &j, &dev, &ino, &size) != 4 ||
		    j != i || size > (unsigned long long)INT64_MAX)
			badrun(run);
		if (dev != (unsigned long long)pt->ins[i].dev ||
		    ino != (unsigned long long)pt->ins[i].ino)
			lt_die(LT_EXIT_SYS, "%s: not the file the other parts "
			    "of this run read (%s): replaced while it was "
			    "read, or the directory of another run",
			    pt->ins[i].path, run);
		pt->ins[i].size = (off_t)size;
		h = lt_mix(h ^ lt_hash(line, strlen(line)));
	}
	if (fgets(line, sizeof(line), f) == NULL || strcmp(line, "end\n") != 0)
		badrun(run);
	fclose(f);
	snprintf(pt->run, sizeof(pt->run), "ltparse %d parts %016llx",
	    pt->n, (unsigned long long)h);
}

/* ltparse.K.scan: "lines I N" per input, "thread I PID OS" in order. */
static void
putscan(const struct parts *pt, const struct psscan *sc, const long *lines)
{
	char tmp[PATHMAX];
	FILE *f;
	size_t j;
	int i;

	f = create(pt, "scan", tmp);
	for (i = 0; i < pt->nin; i++)
		if (lines[i] > 0)
			fprintf(f, "lines %d %ld\n", i, lines[i]);
	for (j = 0; j < sc->nid; j++)
		fprintf(f, "thread %u %llu %llu\n", (unsigned)sc->id[j].input,
		    (unsigned long long)sc->id[j].pid,
		    (unsigned long long)sc->id[j].os);
	commit(pt, f, "scan", tmp);
}

/* Part j's scan: its lines added to ours, its threads made. */
static void
getscan(struct parts *pt, int j, struct pssink *s)
{
	unsigned long long pid, os;
	char word[8];
	unsigned in;
	long n;
	FILE *f;

	f = openstate(pt, j, "scan");
	while (fscanf(f, "%7s", word) == 1 && strcmp(word, "end") != 0) {
		if (strcmp(word, "lines") == 0 && fscanf(f, "%u %ld", &in,
		    &n) == 2 && in < (unsigned)pt->nin && n >= 0)
			pt->lines[in] += n;
		else if (strcmp(word, "thread") == 0 && fscanf(f,
		    "%u %llu %llu", &in, &pid, &os) == 3 &&
		    in < (unsigned)pt->nin && pid <= UINT32_MAX) {
			ps_thread(&pt->ins[in], pid, os, NULL);
			s->t0done = 1;	/* the first event came before */
		} else
			badstate(pt, j, "scan");
	}
	if (ferror(f) || strcmp(word, "end") != 0)
		badstate(pt, j, "scan");
	fclose(f);
}

/* ltparse.K.end: the counters, then what ps_procs_save() says. */
static void
putend(const struct parts *pt, const struct pssink *s)
{
	char tmp[PATHMAX];
	FILE *f;
	int i;

	f = create(pt, "end", tmp);
	fputs("count", f);
	for (i = 0; i < PS_NCOUNT; i++)
		fprintf(f, " %lld", s->n[i]);
	fputs("\nfirst", f);
	for (i = 0; i < pt->nin; i++)
		fprintf(f, " %d %lld", s->firstpart[i] != 0,
		    (long long)s->first[i]);
	fputc('\n', f);
	ps_procs_save(f);
	commit(pt, f, "end", tmp);
}

static void
getend(struct parts *pt, int j, struct pssink *s)
{
	char word[8];
	long long v;
	FILE *f;
	int i, has;

	f = openstate(pt, j, "end");
	if (fscanf(f, "%7s", word) != 1 || strcmp(word, "count") != 0)
		badstate(pt, j, "end");
	for (i = 0; i < PS_NCOUNT; i++) {
		if (fscanf(f, "%lld", &v) != 1 || v < 0)
			badstate(pt, j, "end");
		s->n[i] += v;
	}
	/* each input's first event: that of the first part that has one */
	if (fscanf(f, "%7s", word) != 1 || strcmp(word, "first") != 0)
		badstate(pt, j, "end");
	for (i = 0; i < pt->nin; i++) {
		if (fscanf(f, "%d %lld", &has, &v) != 2)
			badstate(pt, j, "end");
		if (has && (s->firstpart[i] == 0 || j < s->firstpart[i])) {
			s->first[i] = v;
			s->firstpart[i] = j;
		}
	}
	if (ps_procs_load(f, pt->ins, (uint32_t)pt->nin) < 0)
		badstate(pt, j, "end");
	fclose(f);
}

/* The last part has what it needs: the files go. */
static void
cleanup(const struct parts *pt)
{
	static const char *const what[] = { "scan", "end", "live" };
	char file[PATHMAX];
	int j;
	size_t w;

	for (j = 1; j <= pt->n; j++)
		for (w = 0; w < sizeof(what) / sizeof(what[0]); w++) {
			path(file, pt, j, what[w]);
			unlink(file);
		}
	runpath(file, pt);
	unlink(file);
}

/*
 * A part after the first, with -G: where its stream is written, what it
 * is renamed once whole, and its lock, for ps_parts_end().
 */
static char		 spoolname[PATHMAX], spooldone[PATHMAX];
static int		 spoollive = -1;

/*
 * -G, part 1: the streams of the other parts, in turn, after ours, each
 * once it is whole; then the run's files go.
 */
static void
gather(struct parts *pt, struct pssink *s)
{
	char file[PATHMAX];
	FILE *f;
	int j;

	for (j = 2; j <= pt->n; j++) {
		f = openstate(pt, j, "out");
		path(file, pt, j, "out");
		lt_out_append(&s->out, fileno(f), ftello(f), file);
		fclose(f);
		unlink(file);
	}
	cleanup(pt);
}

/* -G, a part after the first: its stream goes to ltparse.K.out.tmp. */
static void
spool(struct parts *pt, struct pssink *s)
{
	path(spoolname, pt, pt->k, "out.tmp");
	path(spooldone, pt, pt->k, "out");
	s->out.fd = newfd(spoolname);
	s->out.name = spoolname;
	lt_out_printf(&s->out, "%s\n", pt->run);
}

/*
 * The end of a part's output: with -G, a part after the first renames
 * its stream ltparse.K.out, whole, for part 1, and only then lets go of
 * its lock.
 */
void
ps_parts_end(struct ltout *o)
{
	if (spooldone[0] == '\0')
		return;
	lt_out_flush(o);
	if (rename(spoolname, spooldone) < 0)
		lt_die(LT_EXIT_SYS, "%s:", spooldone);
	if (spoollive >= 0)
		close(spoollive);
}

static void
shared(struct parts *pt, off_t lo, off_t hi, struct pssink *s)
{
	struct psscan sc;
	long *lines;
	int j;

	golive(pt);
	if (pt->k < pt->n) {
		memset(&sc, 0, sizeof(sc));
		lines = lt_calloc((size_t)pt->nin, sizeof(*lines));
		scan(pt, lo, hi, &sc, lines);
		putscan(pt, &sc, lines);
		ps_scan_free(&sc);
		free(lines);
	}
	for (j = 1; j < pt->k; j++)
		getscan(pt, j, s);
	convert(pt, lo, hi, lo, s);
	if (pt->k < pt->n) {
		putend(pt, s);
		if (pt->gather && pt->k == 1)
			gather(pt, s);
		return;
	}
	for (j = 1; j < pt->n; j++)
		getend(pt, j, s);
	ps_procs_merged();
	if (!pt->gather)
		cleanup(pt);
}

static void
alone(struct parts *pt, off_t lo, off_t hi, struct pssink *s)
{
	struct psscan sc;

	if (pt->k == pt->n) {
		convert(pt, 0, hi, lo, s);
		return;
	}
	memset(&sc, 0, sizeof(sc));
	scan(pt, 0, lo, &sc, pt->lines);
	replay(pt, &sc, s);
	ps_scan_free(&sc);
	convert(pt, lo, hi, lo, s);
}

/*
 * Part k of n of the inputs ins[0..nin), regular files of logs whose
 * sizes are known, to s; dir is shared by the parts, or NULL; gather:
 * -G, part 1 writes the whole stream.
 */
void
ps_parts(struct pspin *ins, int nin, int k, int n, const char *dir,
    int gather, struct pssink *s)
{
	struct parts pt;
	off_t lo, hi;
	int i;

	memset(&pt, 0, sizeof(pt));
	pt.ins = ins;
	pt.nin = nin;
	pt.k = k;
	pt.n = n;
	pt.dir = dir;
	pt.live = -1;
	pt.gather = gather && dir != NULL;
	ps_procs_parts();
	if (dir != NULL)
		fixrun(&pt);
	if (pt.gather && k > 1)
		spool(&pt, s);
	for (i = 0; i < nin; i++)
		pt.total += ins[i].size;
	pt.lines = lt_calloc((size_t)nin, sizeof(*pt.lines));
	lo = k == 1 ? 0 : cut(&pt, nominal(pt.total, k - 1, n));
	hi = k == n ? pt.total : cut(&pt, nominal(pt.total, k, n));
	if (k == 1)
		ps_sink_head(s);
	if (dir != NULL)
		shared(&pt, lo, hi, s);
	else
		alone(&pt, lo, hi, s);
	free(pt.lines);
	if (pt.gather && k > 1)
		spoollive = pt.live;	/* the lock is kept to the end */
	else if (pt.live >= 0)
		close(pt.live);
}
