/* See LICENSE file for copyright and license details. */
/*
 * ltparse: LitData enable_tracer() logs, and Chrome trace JSON, to an lt1
 * stream.
 *
 * Reads logs of every LitData release (operands, "-" or none for
 * standard input; gzip-compressed or not) line by line and writes one
 * lt1 record per event line: ts in microseconds, the pid, a small tid
 * standing for the (pid, thread id) pair, the stable name and category,
 * the other keys as typed args, cname in extra.  Every other line is
 * skipped and counted by kind.  At the end come the M events naming
 * every process and thread, and a #stat line; lines = events + skipped.
 * A JSON input is read event by event and every member kept.  With -P,
 * one of N parts is written, so that N processes can share a file.
 * See ltparse(1).
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jsonev.h"
#include "ltparse.h"

#define SYNOPSIS	"ltparse [-v] [-n node] [-P k/N] [file ...]"

/* Linux's pid_max is at most 2^22: an input's pids live in a block. */
#define PIDBITS		22
#define NBLOCKS		1024
#define MAXPARTS	1000000

struct input {
	const char	*path;
	uint32_t	 block;		/* pid block; 0 keeps the OS pids */
	char		 label[32];	/* "node N", "input I", or "" */
	off_t		 size;		/* in part mode */
};

struct thread {
	uint64_t	 os;		/* the OS thread id from the log */
	uint32_t	 proc;		/* index in procs */
	uint32_t	 tid;		/* small, unique within the process */
	uint32_t	 next;		/* next thread of the process, or 0 */
	unsigned	 roles;
	unsigned char	 idn;		/* "\tpid\ttid\t-\t", made once */
	char		 id[40];
};

struct proc {
	uint64_t	 key;		/* block << 32 | OS pid */
	uint64_t	 pid;		/* as written */
	const struct input *in;
	int64_t		 rank;		/* -1: unknown */
	int64_t		 worker;	/* -1: unknown */
	int		 main;		/* wrote dataloader or batch spans */
	int		 json;		/* of a JSON input */
	int		 named;		/* JSON: the trace names it */
	uint32_t	 nthreads;
	uint32_t	 first;		/* first thread, or 0 */
	uint32_t	 last;
};

/* Open addressing; a slot holds an index + 1, 0 is empty. */
struct htab {
	uint32_t	*slot;
	size_t		 cap;
	size_t		 n;
};

static struct thread	*threads;	/* index 0 unused */
static size_t		 nthreads = 1, capthreads;
static struct proc	*procs;
static size_t		 nprocs, capprocs;
static struct htab	 tbyid, pbykey, pbypid;

static struct ltout	 out;
static struct ltbuf	 rec;
static int		 vflag;
static int		 quiet;		/* rebuilding state before our part */
static int		 part, nparts;	/* -P k/N, 0 without */
static int		 plainrec;	/* the record has nothing to escape */
static int		 t0done;	/* the #t0 directive is behind us */

static long long	 nlines, nevents, nmeta, nreplaced, nrepaired;
static long long	 nskip[LT_NKIND], nskipjson, ngen[LT_NGEN], njson;
static long long	 nlegacy, ninferred, nsalvaged, ndupkeys, ntop;

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t
thash(uint32_t proc, uint64_t os)
{
	return mix(os * 0x9e3779b97f4a7c15ULL ^ proc);
}

static uint64_t
hthread(uint32_t i)
{
	return thash(threads[i].proc, threads[i].os);
}

static uint64_t
hprockey(uint32_t i)
{
	return mix(procs[i - 1].key);
}

static uint64_t
hprocpid(uint32_t i)
{
	return mix(procs[i - 1].pid);
}

/* Make room for one more entry, keeping the load under one half. */
static void
hgrow(struct htab *h, uint64_t (*hash)(uint32_t))
{
	uint32_t *old = h->slot;
	size_t oldcap = h->cap, i, j;

	if ((h->n + 1) * 2 <= h->cap)
		return;
	h->cap = h->cap != 0 ? h->cap * 2 : 256;
	h->slot = lt_calloc(h->cap, sizeof(*h->slot));
	for (j = 0; j < oldcap; j++) {
		if (old[j] == 0)
			continue;
		for (i = hash(old[j]) & (h->cap - 1); h->slot[i] != 0;
		    i = (i + 1) & (h->cap - 1))
			;
		h->slot[i] = old[j];
	}
	free(old);
}

static int
pidused(uint64_t pid)
{
	size_t i;

	if (pbypid.cap == 0)
		return 0;
	for (i = mix(pid) & (pbypid.cap - 1); pbypid.slot[i] != 0;
	    i = (i + 1) & (pbypid.cap - 1))
		if (procs[pbypid.slot[i] - 1].pid == pid)
			return 1;
	return 0;
}

/*
 * The pid written for OS pid os of input in: os itself in block 0,
 * else block * 2^22 + os (os modulo 2^22 when larger, moved on to the
 * next free number if taken), so that inputs never share a pid.
 */
static uint64_t
outpid(const struct input *in, uint64_t os)
{
	uint64_t low = os & ((1 << PIDBITS) - 1), pid;

	if (in->block == 0)
		return os;
	while (pid = (uint64_t)in->block << PIDBITS | low, pidused(pid))
		low = (low + 1) & ((1 << PIDBITS) - 1);
	return pid;
}

static struct proc *
getproc(const struct input *in, uint64_t os)
{
	uint64_t key = (uint64_t)in->block << 32 | os;
	struct proc *pr;
	size_t i;

	hgrow(&pbykey, hprockey);
	for (i = mix(key) & (pbykey.cap - 1); pbykey.slot[i] != 0;
	    i = (i + 1) & (pbykey.cap - 1))
		if (procs[pbykey.slot[i] - 1].key == key)
			return &procs[pbykey.slot[i] - 1];
	if (nprocs == capprocs) {
		capprocs = capprocs != 0 ? capprocs * 2 : 64;
		procs = lt_reallocarray(procs, capprocs, sizeof(*procs));
	}
	pr = &procs[nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->key = key;
	pr->pid = outpid(in, os);
	pr->in = in;
	pr->rank = pr->worker = -1;
	pbykey.slot[i] = (uint32_t)++nprocs;
	pbykey.n++;
	if (in->block != 0) {
		hgrow(&pbypid, hprocpid);
		for (i = mix(pr->pid) & (pbypid.cap - 1); pbypid.slot[i] != 0;
		    i = (i + 1) & (pbypid.cap - 1))
			;
		pbypid.slot[i] = (uint32_t)nprocs;
		pbypid.n++;
	}
	return pr;
}

/* The thread (in, pid, os), if a record made it. */
static int
hasthread(const struct input *in, uint64_t pid, uint64_t os)
{
	uint64_t key = (uint64_t)in->block << 32 | pid;
	const struct thread *th;
	uint32_t p;
	size_t i;

	if (pbykey.cap == 0 || tbyid.cap == 0)
		return 0;
	for (i = mix(key) & (pbykey.cap - 1); pbykey.slot[i] != 0;
	    i = (i + 1) & (pbykey.cap - 1))
		if (procs[pbykey.slot[i] - 1].key == key)
			break;
	if (pbykey.slot[i] == 0)
		return 0;
	p = pbykey.slot[i] - 1;
	for (i = thash(p, os) & (tbyid.cap - 1); tbyid.slot[i] != 0;
	    i = (i + 1) & (tbyid.cap - 1)) {
		th = &threads[tbyid.slot[i]];
		if (th->proc == p && th->os == os)
			return 1;
	}
	return 0;
}

/*
 * Is line p[0..n) a record "ts:...;PID:P; TID:T;..." of a known thread?
 * Only such a record may be passed over by a part before its range: an
 * event of it makes no thread, and no line of it ends a traceback.  Any
 * other form is left to lt_logline().
 */
static int
knownrecord(const struct input *in, const char *p, size_t n)
{
	const char *end = p + n, *v, *e;
	uint64_t pid, tid;

	if (n < 3 || memcmp(p, "ts:", 3) != 0 || memchr(p, '\0', n) != NULL ||
	    (v = memchr(p, ';', n)) == NULL || end - v < 5 ||
	    memcmp(v + 1, "PID:", 4) != 0)
		return 0;
	for (e = v += 5; e < end && (unsigned)*e - '0' <= 9; e++)
		;
	if (e == end || *e != ';' || lt_uint_parse(v, (size_t)(e - v),
	    &pid) != LT_NUM_OK || pid > UINT32_MAX)
		return 0;
	for (v = e + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	if (end - v < 4 || memcmp(v, "TID:", 4) != 0)
		return 0;
	for (e = v += 4; e < end && (unsigned)*e - '0' <= 9; e++)
		;
	if ((e < end && *e != ';') || lt_uint_parse(v, (size_t)(e - v),
	    &tid) != LT_NUM_OK)
		return 0;
	return hasthread(in, pid, tid);
}

static struct thread *
getthread(const struct input *in, uint64_t pid, uint64_t os)
{
	struct thread *th;
	struct proc *pr;
	uint32_t p;
	size_t i;

	pr = getproc(in, pid);
	p = (uint32_t)(pr - procs);
	hgrow(&tbyid, hthread);
	for (i = thash(p, os) & (tbyid.cap - 1); tbyid.slot[i] != 0;
	    i = (i + 1) & (tbyid.cap - 1)) {
		th = &threads[tbyid.slot[i]];
		if (th->proc == p && th->os == os)
			return th;
	}
	if (nthreads >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	if (nthreads >= capthreads) {
		capthreads = capthreads != 0 ? capthreads * 2 : 256;
		threads = lt_reallocarray(threads, capthreads,
		    sizeof(*threads));
	}
	th = &threads[nthreads];
	th->os = os;
	th->proc = p;
	th->tid = ++pr->nthreads;
	th->next = 0;
	th->roles = 0;
	th->id[0] = '\t';
	th->idn = 1 + (unsigned char)lt_u64_fmt(th->id + 1, pr->pid);
	th->id[th->idn++] = '\t';
	th->idn += (unsigned char)lt_u64_fmt(th->id + th->idn, th->tid);
	memcpy(th->id + th->idn, "\t-\t", 3);
	th->idn += 3;
	if (pr->last != 0)
		threads[pr->last].next = (uint32_t)nthreads;
	else
		pr->first = (uint32_t)nthreads;
	pr->last = (uint32_t)nthreads;
	tbyid.slot[i] = (uint32_t)nthreads++;
	tbyid.n++;
	return th;
}

static int
is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(p, s, n) == 0;
}

/* The rank and worker of a process, from the env keys of its events. */
static void
learnkv(struct proc *pr, const char *k, size_t kn, const char *v, size_t vn)
{
	int64_t x;

	if (lt_int_parse(v, vn, &x) != LT_NUM_OK || x < 0)
		return;
	if (is(k, kn, "dist_global_rank"))
		pr->rank = x;
	else if (is(k, kn, "worker_rank"))
		pr->worker = x;
}

static void
learn(struct proc *pr, const struct ltlog *lg, const struct ltnorm *nm)
{
	int i;
	size_t j;

	if (nm->role & LT_ROLE_LOADER)
		pr->main = 1;
	if (pr->rank >= 0 && pr->worker >= 0)
		return;
	for (i = 0; i < nm->narg; i++)
		learnkv(pr, nm->arg[i].k, strlen(nm->arg[i].k), nm->arg[i].v,
		    nm->arg[i].vn);
	for (j = 0; j < lg->nkv && !nm->crash; j++)
		learnkv(pr, lg->kv[j].k, lg->kv[j].kn, lg->kv[j].v,
		    lg->kv[j].vn);
}

/*
 * A record is made in rec through a cursor w, once room for the most it
 * can take is there (see room()), so that each piece is a plain copy;
 * lt_esc, for a record with something to escape, works on rec itself.
 */
static char *
room(size_t need)
{
	rec.n = 0;
	if (rec.cap < need)
		lt_buf_grow(&rec, need);
	return rec.p;
}

#define PUTS(w, s)	lt_put((w), (s), sizeof(s) - 1)

/* JSON string contents; a plain record needs no escaping at all. */
static char *
putesc(char *w, const char *p, size_t n)
{
	if (plainrec)
		return lt_put(w, p, n);
	rec.n = (size_t)(w - rec.p);
	nreplaced += (long long)lt_esc(&rec, p, n);
	return rec.p + rec.n;
}

static char *
putstr(char *w, const char *p, size_t n)
{
	*w++ = '"';
	w = putesc(w, p, n);
	*w++ = '"';
	return w;
}

/* Is v a JSON integer that fits int64 (0 or -?[1-9][0-9]*)? */
static int
isint(const char *v, size_t n)
{
	int64_t iv;
	size_t i;

	if (n == 0 || n > 18)
		return n > 18 && lt_int_parse(v, n, &iv) == LT_NUM_OK;
	i = *v == '-';
	if (i == n || (v[i] == '0' && n > i + 1))
		return 0;
	for (; i < n; i++)
		if ((unsigned)v[i] - '0' > 9)
			return 0;
	return 1;
}

/* "key":value, the value a JSON integer when it is one, else a string. */
static char *
putarg(char *w, const char *k, size_t kn, const char *v, size_t vn,
    int comma)
{
	if (comma)
		*w++ = ',';
	w = putstr(w, k, kn);
	*w++ = ':';
	return isint(v, vn) ? lt_put(w, v, vn) : putstr(w, v, vn);
}

/* Is key k one of the args taken from the name? */
static int
named(const struct ltnorm *nm, const char *k, size_t kn)
{
	int i;

	for (i = 0; i < nm->narg; i++)
		if (is(k, kn, nm->arg[i].k))
			return 1;
	return 0;
}

/*
 * #t0 before the first record that is not M and has a ts: where
 * ltfilter -T counts from, whatever later stages do to the order.  A
 * part that is quiet there lets the part holding that record write it.
 */
static void
origin(const char *ts, size_t n, int ph)
{
	if (t0done || ph == 'M' || (n == 1 && ts[0] == '-'))
		return;
	t0done = 1;
	if (quiet)
		return;
	lt_out_puts(&out, "#t0\t");
	lt_out_write(&out, ts, n);
	lt_out_putc(&out, '\n');
}

/*
 * The event lg of a line of n bytes.  Everything it writes comes from
 * the line, the name up to three times (as name, legacy_name and args
 * taken from it), or is short and fixed; escaping makes a byte six at
 * most.
 */
static void
event(const struct input *in, const struct ltlog *lg, size_t n)
{
	struct ltnorm nm;
	struct thread *th;
	struct proc *pr;
	size_t i;
	int j, m = 0;
	char *w;

	lt_lognorm(lg, &nm);
	th = getthread(in, lg->pid, lg->tid);
	pr = &procs[th->proc];
	th->roles |= (unsigned)nm.role;
	learn(pr, lg, &nm);
	nevents++;
	nlegacy += nm.renamed;
	ninferred += nm.inferred;
	nsalvaged += lg->salvaged;
	/* Before our part only the count of replacements is wanted. */
	if (quiet && lg->plain) {
		t0done = 1;
		return;
	}

	plainrec = lg->plain;
	w = room((plainrec ? 1 : 6) * (3 * n + 256) + 16 * lg->nkv + 512);
	if (lg->tsus.p != NULL)
		w = lt_put(w, lg->tsus.p, lg->tsus.n);
	else
		w += lt_us_fmt(w, lg->ts);
	*w++ = '\t';
	*w++ = lg->ph.p[0];
	w = lt_put(w, th->id, th->idn);
	if (nm.cat != NULL)
		w = putesc(w, nm.cat, nm.catn);
	*w++ = '\t';
	w = putesc(w, nm.name, nm.namen);
	w = PUTS(w, "\t{");
	for (j = 0; j < nm.narg; j++)
		w = putarg(w, nm.arg[j].k, strlen(nm.arg[j].k), nm.arg[j].v,
		    nm.arg[j].vn, m++);
	for (i = 0; i < lg->nkv && !nm.crash; i++)
		if (nm.narg == 0 || !named(&nm, lg->kv[i].k, lg->kv[i].kn))
			w = putarg(w, lg->kv[i].k, lg->kv[i].kn, lg->kv[i].v,
			    lg->kv[i].vn, m++);
	if (nm.renamed) {
		w = m > 0 ? PUTS(w, ",\"legacy_name\":") :
		    PUTS(w, "\"legacy_name\":");
		if (nm.crash)
			w = putstr(w, lg->kv[0].k, lg->kv[0].kn);
		else
			w = putstr(w, lg->name.p, lg->name.n);
	}
	w = PUTS(w, "}\t{");
	if (nm.cname != NULL) {
		w = PUTS(w, "\"cname\":");
		w = putstr(w, nm.cname, nm.cnamen);
	}
	w = PUTS(w, "}\n");
	if (!t0done)
		origin(rec.p, (size_t)((char *)memchr(rec.p, '\t',
		    (size_t)(w - rec.p)) - rec.p), lg->ph.p[0]);
	if (!quiet)
		lt_out_write(&out, rec.p, (size_t)(w - rec.p));
}

static const char *const kinds[LT_NKIND] = {
	"event", "blank", "text", "noise", "traceback", "torn"
};

/*
 * The lines of a log that start before hi (-1: all); those that start
 * before lo only rebuild the state a whole run has there.
 */
static void
parselog(const struct input *ip, struct ltin *in, off_t lo, off_t hi)
{
	struct ltlog lg;
	char *line;
	ssize_t n;
	int k, intb = 0;

	memset(&lg, 0, sizeof(lg));
	in->limit = hi;
	while ((n = lt_in_line(in, &line)) >= 0) {
		quiet = in->lineoff < lo;
		nlines++;
		/*
		 * Before its range, a part other than the last needs only
		 * the threads made there, in order: the last part writes
		 * the names and counters, and reads every line for them.
		 */
		if (quiet && part < nparts && knownrecord(ip, line,
		    (size_t)n)) {
			intb = 0;
			continue;
		}
		k = lt_logline(line, (size_t)n, &lg);
		/* The exception line that ends a traceback is not indented. */
		if (k == LT_SKIP_NOISE && intb)
			k = LT_SKIP_TRACEBACK;
		intb = k == LT_SKIP_TRACEBACK;
		if (k == LT_LOG_EVENT || k == LT_SKIP_TEXT)
			ngen[lg.gen]++;
		if (k == LT_LOG_EVENT) {
			event(ip, &lg, (size_t)n);
			continue;
		}
		nskip[k]++;
		if (vflag && !quiet && k != LT_SKIP_BLANK)
			lt_warnpos(in->name, in->line, "skipped %s line%s%s",
			    kinds[k], lg.why != NULL ? ": " : "",
			    lg.why != NULL ? lg.why : "");
	}
	quiet = 0;
	lt_logline_free(&lg);
}

/*
 * JSON input starts with '{' then '"' or '}', or with '[' then '{' or
 * ']' or nothing (blanks and a UTF-8 byte order mark allowed before):
 * no LitData log line does.
 */
static int
isjson(struct ltin *in)
{
	size_t i = 0, have;
	int c = 0, first = 0;

	have = lt_in_fill(in, 4096);
	if (have >= 3 && memcmp(in->buf + in->pos, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (;;) {
		for (; i < have; i++) {
			c = (unsigned char)in->buf[in->pos + i];
			if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
				break;
		}
		if (i == have) {
			if ((have = lt_in_fill(in, have + 4096)) > i)
				continue;
			return first == '[';
		}
		if (first != 0)
			break;
		if (c != '{' && c != '[')
			return 0;
		first = c;
		i++;
	}
	if (first == '{')
		return c == '"' || c == '}' ? '{' : 0;
	return c == '{' || c == ']' ? '[' : 0;
}

/* Is path a regular file (not "-", a pipe, a device)? */
static int
isreg(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
	    S_ISREG(sb.st_mode);
}

/* The ts offset of the trace in, read from its start to its end. */
static int64_t
prescan(struct ltin *in)
{
	int64_t ns;

	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
	ns = lt_jr_prescan(in);
	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
	return ns;
}

/* Read n bytes at off of fd into p; 0 when they are not all there. */
static int
readat(int fd, const char *name, char *p, size_t n, off_t off)
{
	ssize_t r;

	while (n > 0) {
		if ((r = pread(fd, p, n, off)) < 0 && errno == EINTR)
			continue;
		if (r < 0)
			lt_die(LT_EXIT_SYS, "read error: %s:", name);
		if (r == 0)
			return 0;
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 1;
}

/*
 * The ts offset of a trace in object form in the regular file of in,
 * of size bytes, as jsontail.c finds it: from its last bytes, or a
 * search for the key's spelling before them (dirty: where it was found
 * already, -1 nowhere, -2 not looked for), or a first reading of it all.
 */
static int64_t
fileoffset(struct ltin *in, off_t size, off_t dirty)
{
	struct ltjdirty d;
	char *buf;
	off_t base = size - LT_JTAIL, limit, at;
	size_t from, n;
	int64_t ns = 0;
	int done;

	if (size <= LT_JTAIL)
		return prescan(in);
	buf = lt_malloc(LT_JTAIL);
	if (!readat(in->fd, in->name, buf, LT_JTAIL, base)) {
		free(buf);
		return prescan(in);	/* it shrank meanwhile */
	}
	done = lt_jtail(buf, LT_JTAIL, &ns, &from);
	limit = base + (off_t)from;
	if (!done && dirty == -2) {
		memset(&d, 0, sizeof(d));
		d.first = -1;
		for (at = 0; at < limit && d.first < 0; at += (off_t)n) {
			n = limit - at < LT_JTAIL ? (size_t)(limit - at) :
			    LT_JTAIL;
			if (!readat(in->fd, in->name, buf, n, at))
				break;
			lt_jdirty_feed(&d, buf, n);
		}
		dirty = at < limit && d.first < 0 ? 0 : d.first;
	}
	free(buf);
	if (done || dirty < 0 || dirty >= limit)
		return ns;
	return prescan(in);
}

/* The last LT_JTAIL bytes of a stream, kept in a ring. */
struct ring {
	char	*p;
	size_t	 at;		/* where the next byte goes */
	size_t	 n;		/* bytes kept */
};

static void
keep(struct ring *r, const char *p, size_t n)
{
	size_t k;

	if (n >= LT_JTAIL) {
		p += n - LT_JTAIL;
		n = LT_JTAIL;
	}
	k = LT_JTAIL - r->at < n ? LT_JTAIL - r->at : n;
	memcpy(r->p + r->at, p, k);
	memcpy(r->p, p + k, n - k);
	r->at = (r->at + n) % LT_JTAIL;
	r->n = r->n + n < LT_JTAIL ? r->n + n : LT_JTAIL;
}

/* The bytes kept, in order, in a buffer of their own. */
static char *
kept(const struct ring *r)
{
	char *p = lt_malloc(LT_JTAIL);
	size_t first = r->n < LT_JTAIL ? 0 : r->at;

	memcpy(p, r->p + first, r->n - first);
	memcpy(p + r->n - first, r->p, first);
	return p;
}

/*
 * The same for a compressed file: it is decompressed once more, for
 * its last bytes and the search, and once again in the rare case that
 * these do not settle it.
 */
static int64_t
zipoffset(const char *path)
{
	struct ltjdirty d;
	struct ring r;
	struct ltin in;
	char *tail;
	size_t from;
	int64_t ns = 0;
	int done = 0;

	memset(&d, 0, sizeof(d));
	d.first = -1;
	r.p = lt_malloc(LT_JTAIL);
	r.at = r.n = 0;
	lt_in_open(&in, path);
	while (lt_in_fill(&in, 1) > 0) {
		lt_jdirty_feed(&d, in.buf + in.pos, in.end - in.pos);
		keep(&r, in.buf + in.pos, in.end - in.pos);
		in.pos = in.end;
	}
	lt_in_close(&in);
	if (d.seen > (off_t)r.n) {
		tail = kept(&r);
		done = lt_jtail(tail, r.n, &ns, &from) || d.first < 0 ||
		    d.first >= d.seen - (off_t)r.n + (off_t)from;
		free(tail);
	}
	free(r.p);
	if (done)
		return ns;
	lt_in_open(&in, path);
	ns = lt_jr_prescan(&in);
	lt_in_close(&in);
	return ns;
}

/* An input that cannot seek, kept in a temporary file to be read twice. */
static void
spool(struct ltin *in, struct ltjdirty *d)
{
	char path[4096];
	const char *dir, *name;
	ssize_t w;
	int fd;

	if ((dir = getenv("TMPDIR")) == NULL || *dir == '\0')
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/ltparse.XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0)
		lt_die(LT_EXIT_SYS, "%s: temporary file:", dir);
	unlink(path);
	name = in->name;
	while (lt_in_fill(in, 1) > 0) {
		lt_jdirty_feed(d, in->buf + in->pos, in->end - in->pos);
		w = write(fd, in->buf + in->pos, in->end - in->pos);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			lt_die(LT_EXIT_SYS, "write error: %s:", path);
		in->pos += (size_t)w;
	}
	lt_in_close(in);
	lt_in_fdopen(in, fd, name);
	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
}

/*
 * The ts offset of a trace in object form: ltjson writes its metadata
 * last, and it is needed before the first event.
 */
static int64_t
offset(const struct input *ip, struct ltin *in)
{
	struct ltjdirty d;
	struct stat sb;

	if (in->child == -1 && fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode))
		return fileoffset(in, sb.st_size, -2);
	if (in->child != -1 && isreg(ip->path))
		return zipoffset(ip->path);
	memset(&d, 0, sizeof(d));
	d.first = -1;
	spool(in, &d);
	return fileoffset(in, d.seen, d.first);
}

static size_t		 lastjson;	/* the process of the last JSON pid */

static uint64_t
jsonpid(void *arg, uint64_t os)
{
	struct proc *pr = getproc(arg, os);

	pr->json = 1;
	lastjson = (size_t)(pr - procs);
	return pr->pid;
}

static void
parsejson(struct input *ip, struct ltin *in, int form)
{
	struct ltjrec jc;
	struct ltjev ev;
	struct ltjr jr;
	const char *tab;
	int k;

	memset(&jc, 0, sizeof(jc));
	if (form == '{')
		jc.offset = offset(ip, in);
	if (ip->block != 0) {
		jc.pid = jsonpid;
		jc.arg = ip;
		jc.label = ip->label;
	}
	lt_jr_init(&jr, in, 1);
	while ((k = lt_jr_next(&jr, &ev)) != LT_JEV_EOF) {
		if (k == LT_JEV_ERROR)
			lt_diepos(LT_EXIT_DATA, in->name, jr.errline,
			    "byte %lld: %s", jr.erroff + 1, jr.err);
		if (k == LT_JEV_TOP) {
			lt_out_puts(&out, "#top\t");
			lt_out_write(&out, ev.key, ev.keyn);
			lt_out_putc(&out, '\t');
			lt_out_write(&out, ev.p, ev.n);
			lt_out_putc(&out, '\n');
			ntop++;
			continue;
		}
		/* As jsonev.c says of a bare number: not a trace. */
		if (ev.type != '{')
			lt_diepos(LT_EXIT_DATA, in->name, ev.line, "byte %lld: "
			    "an event is not an object", ev.off + 1);
		nlines++;
		njson++;
		rec.n = 0;
		if (lt_jrec(&ev, &rec, &jc) < 0) {
			nskipjson++;
			if (vflag)
				lt_warnpos(in->name, ev.line, "skipped %s",
				    jc.why);
			continue;
		}
		if (ev.flags & LT_JS_REPAIRED)
			nrepaired++;
		if (jc.named) {
			procs[lastjson].named = 1;
			jc.named = 0;
		}
		if (!t0done) {
			tab = memchr(rec.p, '\t', rec.n);
			origin(rec.p, (size_t)(tab - rec.p), tab[1]);
		}
		lt_out_write(&out, rec.p, rec.n);
		nevents++;
	}
	ndupkeys += jc.dupkeys;
	lt_jr_free(&jr);
}

/* One M record: name is process_name, thread_name or *_sort_index. */
static void
meta(uint64_t pid, uint32_t tid, const char *name, const char *label,
    long long index)
{
	char *w;

	plainrec = 0;
	w = room(6 * (label != NULL ? strlen(label) : 0) + 256);
	w = PUTS(w, "-\tM\t");
	w += lt_u64_fmt(w, pid);
	*w++ = '\t';
	w += lt_u64_fmt(w, tid);
	w = PUTS(w, "\t-\t\t");
	w = lt_put(w, name, strlen(name));
	if (label != NULL) {
		w = PUTS(w, "\t{\"name\":");
		w = putstr(w, label, strlen(label));
	} else {
		w = PUTS(w, "\t{\"sort_index\":");
		w += lt_i64_fmt(w, index);
	}
	w = PUTS(w, "}\t{}\n");
	lt_out_write(&out, rec.p, (size_t)(w - rec.p));
	nmeta++;
}

/*
 * Name every process ("rank R worker W (pid P)", with the node or input
 * when pids were moved to a block) and thread ("ROLE ID"), and sort
 * processes by rank, then main process first, then by worker.
 */
static void
trailer(void)
{
	char label[160], where[64];
	const char *r;
	struct thread *th;
	struct proc *pr;
	long long sort;
	size_t i;
	uint32_t t;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		if (pr->json && pr->named)
			continue;
		if (pr->in->block != 0)
			snprintf(where, sizeof(where), "%s, pid %llu",
			    pr->in->label, (unsigned long long)(pr->key &
			    UINT32_MAX));
		else
			snprintf(where, sizeof(where), "pid %llu",
			    (unsigned long long)pr->pid);
		/* A moved JSON pid the trace does not name: say where. */
		if (pr->json) {
			meta(pr->pid, 0, "process_name", where, 0);
			continue;
		}
		if (pr->rank < 0)
			snprintf(label, sizeof(label), "%s", where);
		else if (pr->main || pr->worker < 0)
			snprintf(label, sizeof(label), "rank %lld (%s)",
			    (long long)pr->rank, where);
		else
			snprintf(label, sizeof(label),
			    "rank %lld worker %lld (%s)", (long long)pr->rank,
			    (long long)pr->worker, where);
		if (pr->rank < 0)
			sort = 1000000000;
		else
			sort = (long long)(pr->rank > 999999 ? 999999 :
			    pr->rank) * 1000 + (pr->main || pr->worker < 0 ?
			    0 : 1 + (pr->worker > 998 ? 998 : pr->worker));
		meta(pr->pid, 0, "process_name", label, 0);
		meta(pr->pid, 0, "process_sort_index", NULL, sort);
		for (t = pr->first; t != 0; t = th->next) {
			th = &threads[t];
			r = th->roles & LT_ROLE_MAIN ? "main" :
			    th->roles & LT_ROLE_PREFETCH ? "prefetch" :
			    th->roles & LT_ROLE_DOWNLOAD ? "download" :
			    "thread";
			snprintf(label, sizeof(label), "%s %llu", r,
			    (unsigned long long)th->os);
			meta(pr->pid, th->tid, "thread_name", label, 0);
			meta(pr->pid, th->tid, "thread_sort_index", NULL,
			    th->tid);
		}
	}
}

static void
stats(void)
{
	long long skipped = nskipjson, nlog = 0;
	size_t i, n = 0;
	struct ltstat st[32];
	int k;

	for (k = LT_SKIP_BLANK; k < LT_NKIND; k++)
		skipped += nskip[k];
	for (i = 0; i < nprocs; i++)
		nlog += !procs[i].json;
#define STAT(k, v)	(st[n].key = (k), st[n++].val = (v))
	STAT("lines", nlines);
	STAT("events", nevents);
	STAT("skipped", skipped);
	STAT("skipped_blank", nskip[LT_SKIP_BLANK]);
	STAT("skipped_text", nskip[LT_SKIP_TEXT]);
	STAT("skipped_noise", nskip[LT_SKIP_NOISE]);
	STAT("skipped_traceback", nskip[LT_SKIP_TRACEBACK]);
	STAT("skipped_torn", nskip[LT_SKIP_TORN]);
	STAT("skipped_json", nskipjson);
	STAT("lines_v1", ngen[LT_GEN_V1]);
	STAT("lines_old", ngen[LT_GEN_OLD]);
	STAT("lines_new", ngen[LT_GEN_NEW]);
	STAT("lines_json", njson);
	STAT("renamed", nlegacy);
	STAT("cat_inferred", ninferred);
	STAT("salvaged", nsalvaged);
	STAT("processes", nlog);
	STAT("threads", (long long)nthreads - 1);
	STAT("metadata", nmeta);
	STAT("replaced", nreplaced);
	STAT("repaired", nrepaired);
	STAT("dupkeys", ndupkeys);
	STAT("top", ntop);
#undef STAT
	lt_put_stat(&out, "ltparse", st, n);
}

/* -P k/N */
static void
partopt(const char *arg)
{
	char buf[32], *slash;
	const char *errstr;
	long long k, n;

	if (strlen(arg) >= sizeof(buf) || (slash = strchr(strcpy(buf, arg),
	    '/')) == NULL)
		lt_die(LT_EXIT_SYS, "-P %s: expected k/N, such as 2/4", arg);
	*slash = '\0';
	n = lt_strtonum(slash + 1, 1, MAXPARTS, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "-P %s: N is %s (1 to %d)", arg,
		    errstr, MAXPARTS);
	k = lt_strtonum(buf, 1, n, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "-P %s: k is %s (1 to N)", arg, errstr);
	part = (int)k;
	nparts = (int)n;
}

/*
 * Can the inputs be cut into parts?  Only regular, uncompressed log
 * files can: others are converted whole by part 1.  Nothing is read
 * from an input that is not a regular file.
 */
static int
cuttable(struct input *ins, int nin)
{
	struct ltin in;
	struct stat sb;
	int i, ok;

	for (i = 0; i < nin; i++) {
		if (!isreg(ins[i].path))
			return 0;
		lt_in_open(&in, ins[i].path);
		ok = fstat(in.fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    in.child == -1 && !isjson(&in);
		ins[i].size = sb.st_size;
		lt_in_close(&in);
		if (!ok)
			return 0;
	}
	return 1;
}

static void
run(struct input *ins, int nin)
{
	struct ltin in;
	off_t total = 0, lo = 0, hi = -1, base = 0, l, h;
	int i, form;

	if (nparts > 0) {
		if (!cuttable(ins, nin)) {
			if (part > 1)
				return;
			part = nparts = 0;
		} else {
			for (i = 0; i < nin; i++)
				total += ins[i].size;
			lo = (off_t)((uint64_t)total / nparts * (part - 1) +
			    (uint64_t)total % nparts * (part - 1) / nparts);
			hi = part == nparts ? -1 : (off_t)((uint64_t)total /
			    nparts * part + (uint64_t)total % nparts * part /
			    nparts);
		}
	}
	if (part <= 1)
		lt_put_header(&out);
	for (i = 0; i < nin; i++, base += ins[i - 1].size) {
		l = lo - base > 0 ? lo - base : 0;
		h = hi < 0 || hi - base >= ins[i].size ? -1 : hi - base;
		if (hi >= 0 && hi - base <= 0)
			break;		/* the rest is for later parts */
		lt_in_open(&in, ins[i].path);
		if ((form = isjson(&in)) != 0)
			parsejson(&ins[i], &in, form);
		else
			parselog(&ins[i], &in, l, h);
		lt_in_close(&in);
	}
	if (part != nparts)
		return;
	trailer();
	stats();
	if (nevents == 0 && nlines > njson)
		lt_warn("no events in %lld lines: not a LitData "
		    "enable_tracer() log?", nlines - njson);
	else if (nevents == 0 && njson > 0)
		lt_warn("no trace event has a one-character ph");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "node", required_argument, NULL, 'n' },
		{ "part", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	static char *stdin_only[] = { (char *)"-" };
	struct input *ins;
	const char *errstr;
	long long node = -1;
	int c, i;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "hn:P:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -n node  tag the inputs as coming from node "
			    "node, node+1, ... (0 to 1022)\n"
			    "  -P k/N   write part k of N, for parallel runs\n"
			    "  -v       report every skipped line on stderr\n"
			    "  -h       show this help\n");
			break;
		case 'n':
			node = lt_strtonum(optarg, 0, NBLOCKS - 2, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-n %s: %s (0 to %d)",
				    optarg, errstr, NBLOCKS - 2);
			break;
		case 'P':
			partopt(optarg);
			break;
		case 'v':
			vflag = 1;
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		argc = 1;
		argv = stdin_only;
	}
	if (node >= 0 && node + argc >= NBLOCKS)
		lt_die(LT_EXIT_SYS, "-n %lld: too large for %d inputs (node + "
		    "inputs at most %d)", node, argc, NBLOCKS - 1);
	if (argc >= NBLOCKS)
		lt_die(LT_EXIT_SYS, "too many inputs (at most %d)",
		    NBLOCKS - 1);

	ins = lt_calloc((size_t)argc, sizeof(*ins));
	for (i = 0; i < argc; i++) {
		ins[i].path = argv[i];
		if (node >= 0) {
			ins[i].block = (uint32_t)(node + i + 1);
			snprintf(ins[i].label, sizeof(ins[i].label),
			    "node %lld", node + i);
		} else if (argc > 1) {
			ins[i].block = (uint32_t)(i + 1);
			snprintf(ins[i].label, sizeof(ins[i].label),
			    "input %d", i + 1);
		}
	}
	lt_out_init(&out, 1, "<stdout>");
	run(ins, argc);
	lt_out_close(&out);
	free(ins);
	free(threads);
	free(procs);
	free(tbyid.slot);
	free(pbykey.slot);
	free(pbypid.slot);
	lt_buf_free(&rec);
	return LT_EXIT_OK;
}
