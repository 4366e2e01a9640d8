/* See LICENSE file for copyright and license details. */
/*
 * ltlanefix: make every (pid, tid) track of an lt1 stream properly
 * nested, so that Perfetto shows every X slice.
 *
 * Reads the whole stream (operands, "-" or none for standard input),
 * places the X slices of each track with the engine of lanes.c (nesting
 * kept, small crossings snapped, real overlaps moved to new tids in the
 * same pid), moves the s/t/f flow events bound to a changed slice along
 * with it, and writes the stream back in its order: every record once,
 * changed ones rewritten in their ts, tid and dur columns, the naming of
 * the new lanes after the last M record, then a #stat line.  The report
 * of trace-lanefix goes to standard error.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "lanes.h"

#define SYNOPSIS	"ltlanefix [-kq] [-t us] [file ...]"

#define NONE		UINT32_MAX
#define TMAX		((int64_t)1 << 62)	/* slice times in +-TMAX */
#define FALLBACK	4000000000LL		/* lane tids counted from here */
#define TIDMAX		4294967295LL		/* Perfetto's largest tid */

/*
 * A pid or tid as a track key: an integer, or any other JSON text
 * compared byte for byte (strings with their quotes).
 */
enum { ID_INT, ID_TEXT };

struct id {
	int		 kind;
	int64_t		 v;
	size_t		 off;		/* ID_TEXT: the text in the arena */
	size_t		 len;
};

struct thread {
	struct id	 pid, tid;
	uint32_t	 track;		/* index + 1 in tracks, 0 for none */
	size_t		 name, namelen;	/* thread_name contents; len 0: none */
	size_t		 sort, sortlen;	/* thread_sort_index value */
};

struct track {
	uint32_t	 thread;
	uint32_t	 first;		/* its first slice: shows pid and tid */
	uint32_t	 start, n;	/* its slices in byidx[start..+n) */
	uint32_t	 nlanes, lane1;	/* lane k is lanes[lane1 + k - 1] */
	uint32_t	 moved, snaps;
};

struct lane {
	uint32_t	 track, k;
	size_t		 tid, tidlen;	/* the tid column text, in the arena */
};

struct flow {
	size_t		 off;		/* line in the arena */
	int64_t		 ts;
	uint32_t	 thread;
	uint32_t	 bound;		/* slice, or NONE */
	int		 next;		/* f without bp "e": the next slice */
	int64_t		 nts;
	int		 moved;		/* tid changes */
};

static struct ltbuf	 arena;		/* every input line, then lane tids */
static size_t		 inend;		/* end of the input lines */
static size_t		 mpos;		/* new M records go here */

static struct ltslice	*sl;		/* X slices in input order */
static size_t		*soff;		/* their lines */
static uint32_t		*sthread;
static size_t		 nsl, capsl;
static uint32_t		*byidx;		/* slices grouped by track */

static struct thread	*threads;
static size_t		 nthreads, capthreads;
static uint32_t		*thash;		/* thread index + 1, 0 = empty */
static size_t		 thashcap;
static struct track	*tracks;
static size_t		 ntracks, captracks;
static struct lane	*lanes;
static size_t		 nlanes, caplanes;
static struct flow	*flows;
static size_t		 nflows, capflows;

static struct ltlanes	 work;
static struct ltbuf	 lname, lsort, tmp, lbase;	/* scratch */
static struct ltout	 out;
static int		 qflag;
static int		 kflag;		/* slices written as B and E */
static int64_t		 thr = 5000;	/* ns; strict: a shift < thr snaps */
static const char	*thrtext = "5.0";
static char		 thrbuf[64];
static int64_t		 nextfb = FALLBACK;

static long long	 nevents, nunplaced, nbe, nsnaps, nsnapped, nchanged;
static long long	 nmoved, nrewritten, nadded, nsplit;
static uint64_t		 xbefore, xafter;

static const char *
at(size_t off)
{
	return arena.p + off;
}

/* -------- the -t threshold: exact decimal microseconds to ns -------- */

static int
iequal(const char *s, const char *word)
{
	for (; *s != '\0' && *word != '\0'; s++, word++)
		if ((*s | 0x20) != *word)
			return 0;
	return *s == *word;
}

/*
 * What Python's float() takes: blanks around, a sign, digits with a point
 * and an exponent, or inf, infinity, nan.  The threshold is the value in
 * ns rounded up, so that "shift < thr" on integer ns is exact.  Returns
 * 0 on success, -1 when invalid, -2 when negative.
 */
static int
parsethr(const char *arg, int64_t *ns)
{
	char buf[64], *s = buf, *e;
	const char *p;
	int neg = 0, nd = 0, point = -1, round = 0, d;
	long long exp = 0, shift;
	uint64_t v = 0;
	size_t n;

	while (*arg == ' ' || (*arg >= '\t' && *arg <= '\r'))
		arg++;
	if ((n = strlen(arg)) >= sizeof(buf))
		return -1;
	memcpy(buf, arg, n + 1);
	while (n > 0 && (buf[n - 1] == ' ' ||
	    (buf[n - 1] >= '\t' && buf[n - 1] <= '\r')))
		buf[--n] = '\0';
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (iequal(s, "nan")) {
		*ns = 0;		/* every comparison with NaN fails */
		return 0;
	}
	if (iequal(s, "inf") || iequal(s, "infinity")) {
		*ns = INT64_MAX;
		return neg ? -2 : 0;
	}
	/* Digits: keep 18 significant ones, remember if more were not 0. */
	for (p = s; *p != '\0'; p++) {
		if (*p == '.' && point < 0) {
			point = nd;
			continue;
		}
		if ((unsigned)(*p - '0') > 9)
			break;
		d = *p - '0';
		if (v == 0 && d == 0) {
			if (point >= 0)
				exp--;
			continue;
		}
		if (nd < 18) {
			v = v * 10 + (uint64_t)d;
			nd++;
			if (point >= 0)
				exp--;
		} else {
			if (d != 0)
				round = 1;
			if (point < 0)
				exp++;
		}
	}
	if (p == s || (p == s + 1 && *s == '.'))
		return -1;
	if (*p == 'e' || *p == 'E') {
		shift = strtoll(p + 1, &e, 10);
		if (e == p + 1 || *e != '\0' || p[1] == ' ')
			return -1;
		if (shift > 1000)
			shift = 1000;
		if (shift < -1000)
			shift = -1000;
		exp += shift;
	} else if (*p != '\0')
		return -1;
	if (neg && (v != 0 || round))
		return -2;
	/* v * 10^(exp + 3) ns, rounded up. */
	for (exp += 3; exp > 0 && v != 0; exp--) {
		if (v > (uint64_t)INT64_MAX / 10) {
			*ns = INT64_MAX;
			return 0;
		}
		v *= 10;
	}
	for (; exp < 0 && v != 0; exp++) {
		if (v % 10 != 0)
			round = 1;
		v /= 10;
	}
	if (round && v < (uint64_t)INT64_MAX)
		v++;
	*ns = (int64_t)v;
	return 0;
}

/*
 * Python's float() also takes '_' between two digits ("1_000"): the text
 * without them, in buf of size n; NULL for an '_' anywhere else.
 */
static const char *
unscore(const char *arg, char *buf, size_t n)
{
	const char *p;
	char *w = buf;

	for (p = arg; *p != '\0'; p++) {
		if (*p == '_') {
			if (p == arg || (unsigned)(p[-1] - '0') > 9 ||
			    (unsigned)(p[1] - '0') > 9)
				return NULL;
			continue;
		}
		if (w == buf + n - 1)
			return NULL;
		*w++ = *p;
	}
	*w = '\0';
	return buf;
}

/* The threshold as Python's str(float) writes it: 5.0, 2.5, 1e-05. */
static void
showthr(const char *arg)
{
	char dig[40], *q;
	double x;
	int prec, exp, nd, i, n = 0;

	x = strtod(arg, NULL);
	if (isnan(x)) {
		strcpy(thrbuf, "nan");
		return;
	}
	if (isinf(x)) {
		strcpy(thrbuf, x < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(dig, sizeof(dig), "%.*e", prec - 1, x);
		if (strtod(dig, NULL) == x)
			break;
	}
	/* dig is [-]d[.ddd]e[+-]xx: take its digits and exponent. */
	q = dig;
	if (*q == '-')
		thrbuf[n++] = *q++;
	exp = atoi(strchr(q, 'e') + 1);
	for (nd = 0, i = 0; q[i] != 'e'; i++)
		if (q[i] != '.')
			q[nd++] = q[i];
	while (nd > 1 && q[nd - 1] == '0')
		nd--;
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			n += sprintf(thrbuf + n, "0.");
			for (i = -1; i > exp; i--)
				thrbuf[n++] = '0';
			memcpy(thrbuf + n, q, (size_t)nd);
			n += nd;
		} else {
			for (i = 0; i <= exp; i++)
				thrbuf[n++] = i < nd ? q[i] : '0';
			thrbuf[n++] = '.';
			if (nd > exp + 1) {
				memcpy(thrbuf + n, q + exp + 1,
				    (size_t)(nd - exp - 1));
				n += nd - exp - 1;
			} else
				thrbuf[n++] = '0';
		}
		thrbuf[n] = '\0';
	} else {
		thrbuf[n++] = q[0];
		if (nd > 1) {
			thrbuf[n++] = '.';
			memcpy(thrbuf + n, q + 1, (size_t)(nd - 1));
			n += nd - 1;
		}
		snprintf(thrbuf + n, sizeof(thrbuf) - (size_t)n, "e%c%02d",
		    exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
}

/* -------- reading -------- */

/* A JSON number with an integral value that fits int64 (8, 8.0, 8e0). */
static int
integral(const char *p, size_t n, int64_t *v)
{
	const char *end = p + n, *q;
	long long exp = 0, fpos = 0;

	for (q = p; q < end && *q != 'e' && *q != 'E'; q++)
		;
	if (q < end)
		exp = strtoll(q + 1, NULL, 10);
	/* Every digit after the point, moved by exp, must be 0. */
	for (q = p; q < end && *q != '.' && *q != 'e' && *q != 'E'; q++)
		;
	if (q < end && *q == '.')
		for (q++; q < end && *q != 'e' && *q != 'E'; q++)
			if (++fpos > exp && *q != '0')
				return 0;
	return lt_dec_parse(p, n, 0, v) == LT_NUM_OK;
}

/*
 * The key of column col (pid or tid) of a record whose line starts at
 * arena offset off.  Returns 0 when the member is absent, or is null,
 * which Perfetto treats alike; 1 otherwise.  Column syntax was checked.
 */
static int
getid(const struct ltrec *rec, size_t off, int col, struct id *id)
{
	const struct ltfield *f = &rec->f[col], *x = &rec->f[LT_EXTRA];
	const char *v;
	size_t vn;

	id->kind = ID_TEXT;
	if (!LT_ISNONE(*f)) {
		if (f->p[0] != '"' &&
		    lt_int_parse(f->p, f->n, &id->v) == LT_NUM_OK) {
			id->kind = ID_INT;
			return 1;
		}
		id->off = off + (size_t)(f->p - rec->line);
		id->len = f->n;
		return 1;
	}
	if ((v = lt_json_member(x->p, x->n, lt_colname[col], &vn)) == NULL ||
	    (vn == 4 && memcmp(v, "null", 4) == 0))
		return 0;
	/* Python's equality: 8.0 == 8, true == 1; so does Perfetto. */
	if ((v[0] == '-' || (unsigned)(v[0] - '0') < 10) &&
	    integral(v, vn, &id->v)) {
		id->kind = ID_INT;
		return 1;
	}
	if (vn == 4 && memcmp(v, "true", 4) == 0) {
		id->kind = ID_INT;
		id->v = 1;
		return 1;
	}
	if (vn == 5 && memcmp(v, "false", 5) == 0) {
		id->kind = ID_INT;
		id->v = 0;
		return 1;
	}
	id->off = off + (size_t)(v - rec->line);
	id->len = vn;
	return 1;
}

static int
ideq(const struct id *a, const struct id *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind == ID_INT)
		return a->v == b->v;
	return a->len == b->len && memcmp(at(a->off), at(b->off), a->len) == 0;
}

static uint64_t
idhash(const struct id *id, uint64_t h)
{
	const unsigned char *p;
	size_t i;

	if (id->kind == ID_INT)
		h ^= (uint64_t)id->v * 0x9e3779b97f4a7c15ULL;
	else
		for (p = (const unsigned char *)at(id->off), i = 0;
		    i < id->len; i++)
			h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ h >> 29;
}

static uint64_t
threadhash(const struct id *pid, const struct id *tid)
{
	return idhash(tid, idhash(pid, 0xcbf29ce484222325ULL));
}

static void
rehash(void)
{
	size_t cap = thashcap != 0 ? thashcap * 2 : 1024, i, j;

	free(thash);
	thash = lt_calloc(cap, sizeof(*thash));
	thashcap = cap;
	for (i = 0; i < nthreads; i++) {
		j = threadhash(&threads[i].pid, &threads[i].tid) & (cap - 1);
		while (thash[j] != 0)
			j = (j + 1) & (cap - 1);
		thash[j] = (uint32_t)i + 1;
	}
}

/* The thread (pid, tid), made when add is set; NONE if absent. */
static uint32_t
getthread(const struct id *pid, const struct id *tid, int add)
{
	struct thread *th;
	size_t j;

	if ((nthreads + 1) * 2 > thashcap)
		rehash();
	for (j = threadhash(pid, tid) & (thashcap - 1); thash[j] != 0;
	    j = (j + 1) & (thashcap - 1)) {
		th = &threads[thash[j] - 1];
		if (ideq(&th->pid, pid) && ideq(&th->tid, tid))
			return thash[j] - 1;
	}
	if (!add)
		return NONE;
	if (nthreads >= NONE - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	threads = lt_grow(threads, &capthreads, nthreads + 1, sizeof(*threads));
	th = &threads[nthreads];
	memset(th, 0, sizeof(*th));
	th->pid = *pid;
	th->tid = *tid;
	thash[j] = (uint32_t)++nthreads;
	return (uint32_t)(nthreads - 1);
}

/*
 * Columns ltlanefix reads are checked as litracer-stream(5) says; ts and
 * dur are read into t[0] and t[1], has[] saying which are not "-".
 */
static void
check(struct ltrd *rd, const struct ltrec *rec, int64_t t[2], int has[2])
{
	int c, i, r;

	c = rec->f[LT_PH].n == 1 ? (unsigned char)rec->f[LT_PH].p[0] : 0;
	if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\')
		lt_rd_bad(rd, "column ph: not a one-character phase");
	for (i = 0; i < 2; i++) {
		t[i] = 0;
		if ((r = lt_rec_ts(rec, i == 0 ? LT_TS : LT_DUR, &t[i])) < 0)
			lt_rd_bad(rd, "column %s: not microseconds (-?D+ with "
			    "at most 3 decimals) or -",
			    lt_colname[i == 0 ? LT_TS : LT_DUR]);
		has[i] = r > 0;
	}
}

static void
checkids(struct ltrd *rd, const struct ltrec *rec)
{
	struct ltjson j;
	int64_t v;
	int i;

	for (i = LT_PID; i <= LT_TID; i++) {
		if (LT_ISNONE(rec->f[i]))
			continue;
		if (rec->f[i].p[0] == '"' ? lt_json_whole(rec->f[i].p,
		    rec->f[i].n, NULL, &j) == LT_JSON_OK && j.type == '"' &&
		    j.flags == 0 : lt_int_parse(rec->f[i].p, rec->f[i].n,
		    &v) == LT_NUM_OK)
			continue;
		lt_rd_bad(rd, "column %s: not an integer, a JSON string or -",
		    lt_colname[i]);
	}
}

/*
 * The thread of a record.  Records of one thread tend to come together:
 * the pid and tid columns of the last one are remembered, and when they
 * are the same bytes they need no parsing or lookup.
 */
static uint32_t
threadof(struct ltrd *rd, const struct ltrec *rec, size_t off)
{
	static size_t koff, kn;
	static uint32_t last = NONE;
	const char *p = rec->f[LT_PID].p;
	size_t n = (size_t)(rec->f[LT_TID].p + rec->f[LT_TID].n - p);
	struct id pid, tid;
	uint32_t t;

	if (last != NONE && n == kn && memcmp(p, at(koff), n) == 0)
		return last;
	checkids(rd, rec);
	/* Perfetto: a missing pid is 0, a missing tid the pid. */
	if (!getid(rec, off, LT_PID, &pid)) {
		pid.kind = ID_INT;
		pid.v = 0;
	}
	if (!getid(rec, off, LT_TID, &tid))
		tid = pid;
	t = getthread(&pid, &tid, 1);
	/* Members held in extra differ from record to record. */
	last = LT_ISNONE(rec->f[LT_PID]) || LT_ISNONE(rec->f[LT_TID]) ?
	    NONE : t;
	koff = off + (size_t)(p - rec->line);
	kn = n;
	return t;
}

static void
addslice(struct ltrd *rd, int64_t ts, int64_t dur, size_t off, uint32_t t)
{
	struct ltslice *x;

	if (ts < -TMAX || ts > TMAX || dur < -TMAX || dur > TMAX ||
	    ts + dur < -TMAX || ts + dur > TMAX)
		lt_rd_bad(rd, "X slice beyond the time range of ltlanefix "
		    "(+-%lld us)", (long long)(TMAX / 1000));
	if (nsl >= NONE - 1)
		lt_die(LT_EXIT_SYS, "too many slices");
	if (nsl == capsl) {
		capsl = capsl != 0 ? capsl * 2 : 1024;
		sl = lt_reallocarray(sl, capsl, sizeof(*sl));
		soff = lt_reallocarray(soff, capsl, sizeof(*soff));
		sthread = lt_reallocarray(sthread, capsl, sizeof(*sthread));
	}
	x = &sl[nsl];
	memset(x, 0, sizeof(*x));
	x->ts = x->nts = ts;
	x->end = x->nend = ts + dur;
	soff[nsl] = off;
	sthread[nsl] = t;
	if (threads[t].track == 0) {
		if (ntracks >= NONE - 1)
			lt_die(LT_EXIT_SYS, "too many tracks");
		tracks = lt_grow(tracks, &captracks, ntracks + 1,
		    sizeof(*tracks));
		memset(&tracks[ntracks], 0, sizeof(*tracks));
		tracks[ntracks].thread = t;
		tracks[ntracks].first = (uint32_t)nsl;
		threads[t].track = (uint32_t)++ntracks;
	}
	tracks[threads[t].track - 1].n++;
	nsl++;
}

static void
addflow(const struct ltrec *rec, int64_t ts, size_t off, uint32_t t)
{
	const struct ltfield *x = &rec->f[LT_EXTRA];
	struct flow *fl;
	const char *v;
	size_t vn;

	flows = lt_grow(flows, &capflows, nflows + 1, sizeof(*flows));
	fl = &flows[nflows++];
	memset(fl, 0, sizeof(*fl));
	fl->off = off;
	fl->ts = fl->nts = ts;
	fl->thread = t;
	fl->bound = NONE;
	fl->next = rec->f[LT_PH].p[0] == 'f' &&
	    !((v = lt_json_member(x->p, x->n, "bp", &vn)) != NULL &&
	    vn == 3 && memcmp(v, "\"e\"", 3) == 0);
}

/* thread_name and thread_sort_index: the last one of a thread counts. */
static void
addmeta(const struct ltrec *rec, size_t off, uint32_t t)
{
	const struct ltfield *a = &rec->f[LT_ARGS];
	const char *v;
	size_t vn;

	if (LT_IS(rec->f[LT_NAME], "thread_name") &&
	    (v = lt_json_member(a->p, a->n, "name", &vn)) != NULL &&
	    vn > 2 && v[0] == '"') {
		threads[t].name = off + (size_t)(v + 1 - rec->line);
		threads[t].namelen = vn - 2;
	} else if (LT_IS(rec->f[LT_NAME], "thread_sort_index") &&
	    (v = lt_json_member(a->p, a->n, "sort_index", &vn)) != NULL &&
	    (v[0] == '-' || (unsigned)(v[0] - '0') < 10)) {
		threads[t].sort = off + (size_t)(v - rec->line);
		threads[t].sortlen = vn;
	}
}

static void
readall(struct ltrd *rd)
{
	struct ltrec rec;
	size_t off, lastm = 0, lastrec = 0;
	uint32_t t;
	int k, c, has[2];
	int64_t v[2];

	while ((k = lt_rd_next(rd, &rec)) != LT_EOF) {
		off = arena.n;
		lt_buf_add(&arena, rec.line, rec.len);
		lt_buf_addc(&arena, '\n');
		if (k != LT_REC)
			continue;
		nevents++;
		lastrec = arena.n;
		check(rd, &rec, v, has);
		t = threadof(rd, &rec, off);
		c = rec.f[LT_PH].p[0];
		if (c == 'X') {
			if (has[0] && has[1])
				addslice(rd, v[0], v[1], off, t);
			else
				nunplaced++;
		} else if ((c == 's' || c == 't' || c == 'f') && has[0])
			addflow(&rec, v[0], off, t);
		else if (c == 'M') {
			addmeta(&rec, off, t);
			lastm = arena.n;
		} else if (c == 'B' || c == 'E')
			nbe++;
	}
	inend = arena.n;
	/* The naming of new lanes goes with the other naming. */
	mpos = lastm != 0 ? lastm : lastrec != 0 ? lastrec : inend;
}

/* -------- text of stored lines -------- */

/* The nine columns of the stored line at off. */
static void
cols(size_t off, struct ltfield f[LT_NCOL])
{
	char *p = arena.p + off, *end = memchr(p, '\n', inend - off), *tab;
	int i;

	for (i = 0; i < LT_NCOL - 1; i++) {
		tab = memchr(p, '\t', (size_t)(end - p));
		f[i].p = p;
		f[i].n = (size_t)(tab - p);
		p = tab + 1;
	}
	f[LT_EXTRA].p = p;
	f[LT_EXTRA].n = (size_t)(end - p);
}

/* Python's str() of the JSON value v: strings without their quotes. */
static void
showval(struct ltbuf *b, const char *v, size_t vn)
{
	if (vn >= 2 && v[0] == '"')
		lt_unesc(b, v + 1, vn - 2);
	else if (vn == 4 && memcmp(v, "true", 4) == 0)
		lt_buf_adds(b, "True");
	else if (vn == 5 && memcmp(v, "false", 5) == 0)
		lt_buf_adds(b, "False");
	else if (vn == 4 && memcmp(v, "null", 4) == 0)
		lt_buf_adds(b, "None");
	else
		lt_buf_add(b, v, vn);
}

/*
 * Member col (pid, tid or name) of the record at off, as trace-lanefix
 * prints it: None (or <unnamed>) when absent.
 */
static void
show(struct ltbuf *b, size_t off, int col)
{
	struct ltfield f[LT_NCOL];
	const char *v;
	size_t vn;

	cols(off, f);
	if (col == LT_NAME && f[col].n > 0)
		lt_unesc(b, f[col].p, f[col].n);
	else if (col != LT_NAME && !LT_ISNONE(f[col]))
		showval(b, f[col].p, f[col].n);
	else if ((v = lt_json_member(f[LT_EXTRA].p, f[LT_EXTRA].n,
	    lt_colname[col], &vn)) != NULL)
		showval(b, v, vn);
	else
		lt_buf_adds(b, col == LT_NAME ? "<unnamed>" : "None");
}

/* A track key as text: the number, or the value it stands for. */
static void
showid(struct ltbuf *b, const struct id *id)
{
	char num[LT_NUMBUF];

	if (id->kind == ID_INT)
		lt_buf_add(b, num, lt_i64_fmt(num, id->v));
	else
		showval(b, at(id->off), id->len);
}

/* -------- placement -------- */

static int
known(const struct id *pid, const struct id *tid)
{
	return getthread(pid, tid, 0) != NONE;
}

/*
 * The tid of lane k of a track, made once, in the order trace-lanefix
 * makes them.  Integer tids get T*1000+k when that is a free tid in
 * 1..2^32-1, else the next free one from 4000000001 up; string tids get
 * "T lane k", or "T lane k #2", ...  Every tid is then known, so no two
 * lanes and no lane and real thread share a tid within a pid.
 */
static void
newlane(uint32_t track, uint32_t k)
{
	struct thread *th = &threads[tracks[track].thread];
	struct id pid = th->pid, id;
	struct lane *ln;
	char num[LT_NUMBUF];
	int j;

	lanes = lt_grow(lanes, &caplanes, nlanes + 1, sizeof(*lanes));
	ln = &lanes[nlanes++];
	ln->track = track;
	ln->k = k;
	ln->tid = arena.n;
	id.kind = ID_INT;
	if (th->tid.kind == ID_TEXT && at(th->tid.off)[0] == '"') {
		lbase.n = 0;
		lt_buf_add(&lbase, at(th->tid.off), th->tid.len - 1);
		snprintf(num, sizeof(num), " lane %u", k);
		lt_buf_adds(&lbase, num);
		id.kind = ID_TEXT;
		id.off = arena.n;
		for (j = 1; ; j++) {
			arena.n = id.off;
			lt_buf_add(&arena, lbase.p, lbase.n);
			if (j > 1) {
				snprintf(num, sizeof(num), " #%d", j);
				lt_buf_adds(&arena, num);
			}
			lt_buf_addc(&arena, '"');
			id.len = arena.n - id.off;
			if (!known(&pid, &id))
				break;
		}
	} else {
		id.v = 0;
		if (th->tid.kind == ID_INT && th->tid.v >= 1 && k <= 999 &&
		    th->tid.v <= (TIDMAX - k) / 1000)
			id.v = th->tid.v * 1000 + k;
		while (id.v == 0 || known(&pid, &id)) {
			if (nextfb >= TIDMAX)
				lt_die(LT_EXIT_SYS, "no free tid left for a lane");
			id.v = ++nextfb;
		}
		lt_buf_add(&arena, num, lt_i64_fmt(num, id.v));
	}
	ln->tidlen = arena.n - ln->tid;
	getthread(&pid, &id, 1);
}

static int
changed(const struct ltslice *x)
{
	return x->lane != 0 || x->nts != x->ts || x->nend != x->end;
}

static int
flowcmp(const void *a, const void *b)
{
	const struct flow *x = &flows[*(const uint32_t *)a];
	const struct flow *y = &flows[*(const uint32_t *)b];
	uint32_t tx = threads[x->thread].track, ty = threads[y->thread].track;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * The slice each flow of a track was bound to, on the times as read:
 * at a slice start, the innermost slice starting there (the outermost
 * for an f without bp "e", which binds to the next slice to begin);
 * elsewhere the innermost slice enclosing it, or for that f the first
 * slice after it.  fl[0..nf) are sorted by ts.
 */
static void
bind(const struct track *tr, const uint32_t *fl, size_t nf)
{
	static uint32_t *stack;
	static size_t cap;
	const uint32_t *idx;
	struct flow *f;
	size_t i, p = 0, q = 0, top = 0, n;

	if (tr == NULL) {
		free(stack);
		return;
	}
	idx = byidx + tr->start;
	n = tr->n;
	stack = lt_grow(stack, &cap, n, sizeof(*stack));
	for (i = 0; i < nf; i++) {
		f = &flows[fl[i]];
		while (p < n && sl[idx[p]].ts < f->ts)
			stack[top++] = (uint32_t)p++;
		if (q < p)
			q = p;
		while (q < n && sl[idx[q]].ts == f->ts)
			q++;
		if (p < q)
			f->bound = idx[f->next ? p : q - 1];
		else if (f->next)
			f->bound = q < n ? idx[q] : NONE;
		else {
			while (top > 0 && sl[idx[stack[top - 1]]].end <= f->ts)
				top--;
			f->bound = top > 0 ? idx[stack[top - 1]] : NONE;
		}
	}
}

/* Crossing pairs of a placed track, before and after. */
static void
crossings(const struct track *tr)
{
	static struct ltiv *iv;
	static size_t cap, ccap;
	static uint32_t *at0;
	const uint32_t *idx;
	const struct ltslice *x;
	uint32_t i, k;

	if (tr == NULL) {
		free(iv);
		free(at0);
		return;
	}
	idx = byidx + tr->start;
	iv = lt_grow(iv, &cap, tr->n, sizeof(*iv));
	for (i = 0; i < tr->n; i++) {
		iv[i].s = sl[idx[i]].ts;
		iv[i].e = sl[idx[i]].end;
	}
	xbefore += lt_crossings(&work, iv, tr->n);
	/* Lane by lane, as placed: at0[k] is where lane k starts in iv. */
	at0 = lt_grow(at0, &ccap, (size_t)tr->nlanes + 1, sizeof(*at0));
	memset(at0, 0, ((size_t)tr->nlanes + 1) * sizeof(*at0));
	for (i = 0; i < tr->n; i++)
		at0[sl[idx[i]].lane + 1]++;
	for (k = 1; k <= tr->nlanes; k++)
		at0[k] += at0[k - 1];
	for (i = 0; i < tr->n; i++) {
		x = &sl[idx[i]];
		iv[at0[x->lane]].s = x->nts;
		iv[at0[x->lane]++].e = x->nend;
	}
	for (k = 0, i = 0; k < tr->nlanes; i = at0[k++])
		xafter += lt_crossings(&work, iv + i, at0[k] - i);
}

static void
place(void)
{
	uint32_t *fidx = NULL, *fill, t, i, k, fl = 0, nf = 0;
	struct track *tr;
	struct flow *f;
	const struct ltslice *b;

	byidx = lt_reallocarray(NULL, nsl, sizeof(*byidx));
	fill = lt_calloc(ntracks, sizeof(*fill));
	for (t = 0, i = 0; t < ntracks; i += tracks[t++].n)
		tracks[t].start = i;
	for (i = 0; i < nsl; i++) {
		t = threads[sthread[i]].track - 1;
		byidx[tracks[t].start + fill[t]++] = i;
	}
	free(fill);

	fidx = lt_reallocarray(NULL, nflows, sizeof(*fidx));
	for (i = 0; i < nflows; i++)
		if (threads[flows[i].thread].track != 0)
			fidx[nf++] = i;
	qsort(fidx, nf, sizeof(*fidx), flowcmp);

	for (t = 0; t < ntracks; t++) {
		tr = &tracks[t];
		tr->nlanes = lt_lanes_place(&work, sl, byidx + tr->start,
		    tr->n, thr);
		tr->lane1 = (uint32_t)nlanes;
		for (k = 1; k < tr->nlanes; k++)
			newlane(t, k);
		for (i = 0; i < tr->n; i++) {
			b = &sl[byidx[tr->start + i]];
			tr->moved += b->lane != 0;
			tr->snaps += b->snaps;
			nsnapped += b->snaps != 0;
			nchanged += changed(b);
		}
		nmoved += tr->moved;
		nsnaps += tr->snaps;
		crossings(tr);
		for (i = fl; fl < nf &&
		    threads[flows[fidx[fl]].thread].track == t + 1; fl++)
			;
		bind(tr, fidx + i, fl - i);
	}
	free(fidx);

	/* A flow follows its slice: onto its lane, and to its new start. */
	for (i = 0; i < nflows; i++) {
		f = &flows[i];
		if (f->bound == NONE || !changed(b = &sl[f->bound]))
			continue;
		f->moved = b->lane != 0;
		if (f->next || f->ts == b->ts || !(f->ts == b->nts ||
		    (b->nts < f->ts && f->ts < b->nend)))
			f->nts = b->nts;
		nrewritten += f->moved || f->nts != f->ts;
	}
}

/* -------- output -------- */

/*
 * Members of the extra column: all but tid (which the tid column now
 * holds), or only pid and tid (an E record), or only pid.
 */
enum { X_NOTID, X_IDS, X_PID };

static void
putextra(const struct ltfield *f, int which)
{
	const char *cur = f->p, *k, *v;
	size_t kn, vn;
	int n = 0, pid, tid;

	lt_out_putc(&out, '{');
	while (lt_json_objnext(&cur, f->p + f->n, &k, &kn, &v, &vn)) {
		pid = kn == 3 && memcmp(k, "pid", 3) == 0;
		tid = kn == 3 && memcmp(k, "tid", 3) == 0;
		if (tid ? which != X_IDS : which != X_NOTID && !pid)
			continue;
		if (n++ > 0)
			lt_out_putc(&out, ',');
		lt_out_write(&out, k - 1, (size_t)(v + vn - (k - 1)));
	}
	lt_out_putc(&out, '}');
}

/* The record at off with new ts, tid and dur columns where given. */
static void
putrec(size_t off, const int64_t *ts, const struct lane *ln,
    const int64_t *dur)
{
	struct ltfield f[LT_NCOL];
	int i;

	cols(off, f);
	for (i = 0; i < LT_NCOL; i++) {
		if (i == LT_TS && ts != NULL)
			lt_put_us(&out, *ts);
		else if (i == LT_TID && ln != NULL)
			lt_out_write(&out, at(ln->tid), ln->tidlen);
		else if (i == LT_DUR && dur != NULL)
			lt_put_us(&out, *dur);
		else if (i == LT_EXTRA && ln != NULL && LT_ISNONE(f[LT_TID]))
			putextra(&f[i], X_NOTID);
		else
			lt_put_field(&out, &f[i]);
		lt_out_putc(&out, i == LT_NCOL - 1 ? '\n' : '\t');
	}
}

static const struct lane *
laneof(uint32_t i)
{
	const struct track *tr = &tracks[threads[sthread[i]].track - 1];

	return sl[i].lane == 0 ? NULL : &lanes[tr->lane1 + sl[i].lane - 1];
}

/*
 * An M record "-  M  PID  TID  -    NAME  {KEY:VALUE}  {}" for a thread of
 * the process of track tr; vn 0 for a string value.
 */
static void
putmeta(const struct track *tr, const char *tid, size_t tidn,
    const char *name, const char *key, const char *v, size_t vn, int quote)
{
	const struct id *pid = &threads[tr->thread].pid;
	char num[LT_NUMBUF];

	lt_out_write(&out, "-\tM\t", 4);
	if (pid->kind == ID_INT)
		lt_out_write(&out, num, lt_i64_fmt(num, pid->v));
	else if (at(pid->off)[0] == '"')
		lt_out_write(&out, at(pid->off), pid->len);
	else
		lt_out_putc(&out, '-');
	lt_out_putc(&out, '\t');
	lt_out_write(&out, tid, tidn);
	lt_out_puts(&out, "\t-\t\t");
	lt_out_puts(&out, name);
	lt_out_puts(&out, "\t{\"");
	lt_out_puts(&out, key);
	lt_out_write(&out, quote ? "\":\"" : "\":", quote ? 3 : 2);
	lt_out_write(&out, v, vn);
	lt_out_puts(&out, quote ? "\"}\t" : "}\t");
	/* A pid no column can hold stays in extra, as in the slices. */
	if (pid->kind == ID_TEXT && at(pid->off)[0] != '"') {
		lt_out_puts(&out, "{\"pid\":");
		lt_out_write(&out, at(pid->off), pid->len);
		lt_out_puts(&out, "}\n");
	} else
		lt_out_puts(&out, "{}\n");
	nadded++;
}

/*
 * Name the new lanes "<thread name> lane k" (or "tid T lane k") and sort
 * them right under their thread: they take its thread_sort_index.  A
 * thread without one gets its tid as sort index, as Kineto and ltparse
 * give every thread, so that its lanes can follow it.
 */
static void
putlanes(void)
{
	const struct thread *th;
	const struct track *tr;
	const struct lane *ln;
	char num[LT_NUMBUF];
	size_t t, l, base;

	for (t = 0; t < ntracks; t++) {
		tr = &tracks[t];
		if (tr->nlanes < 2)
			continue;
		th = &threads[tr->thread];
		lsort.n = lname.n = 0;
		if (th->sortlen > 0)
			lt_buf_add(&lsort, at(th->sort), th->sortlen);
		else if (th->tid.kind == ID_INT && th->tid.v >= 0 &&
		    th->tid.v <= INT32_MAX) {
			lt_buf_add(&lsort, num, lt_i64_fmt(num, th->tid.v));
			putmeta(tr, lsort.p, lsort.n, "thread_sort_index",
			    "sort_index", lsort.p, lsort.n, 0);
		}
		if (th->namelen > 0)
			lt_buf_add(&lname, at(th->name), th->namelen);
		else {
			tmp.n = 0;
			showid(&tmp, &th->tid);
			lt_buf_adds(&lname, "tid ");
			lt_esc(&lname, tmp.p, tmp.n);
		}
		base = lname.n;
		for (l = tr->lane1; l < tr->lane1 + tr->nlanes - 1; l++) {
			ln = &lanes[l];
			lname.n = base;
			snprintf(num, sizeof(num), " lane %u", ln->k);
			lt_buf_adds(&lname, num);
			putmeta(tr, at(ln->tid), ln->tidlen, "thread_name",
			    "name", lname.p, lname.n, 1);
			if (lsort.n > 0)
				putmeta(tr, at(ln->tid), ln->tidlen,
				    "thread_sort_index", "sort_index",
				    lsort.p, lsort.n, 0);
		}
	}
}

/* The stream in its order, with changed slices and flows rewritten. */
static void
writeall(void)
{
	const struct ltslice *x;
	const struct flow *f;
	size_t pos = 0, i = 0, j = 0, so, fo, mo = mpos, o;
	int64_t dur;

	lt_put_header(&out);
	for (;;) {
		while (i < nsl && !changed(&sl[i]))
			i++;
		while (j < nflows && !flows[j].moved &&
		    flows[j].nts == flows[j].ts)
			j++;
		so = i < nsl ? soff[i] : SIZE_MAX;
		fo = j < nflows ? flows[j].off : SIZE_MAX;
		o = so < fo ? so : fo;
		o = mo < o ? mo : o;
		if (o == SIZE_MAX)
			break;
		lt_out_write(&out, at(pos), o - pos);
		pos = o;
		if (o == mo) {
			putlanes();
			mo = SIZE_MAX;
			continue;
		}
		if (o == so) {
			x = &sl[i];
			dur = x->nend - x->nts;
			putrec(so, x->nts != x->ts ? &x->nts : NULL, laneof(
			    (uint32_t)i), dur != x->end - x->ts ? &dur : NULL);
			i++;
		} else {
			f = &flows[j];
			putrec(fo, f->nts != f->ts ? &f->nts : NULL, f->moved ?
			    laneof(f->bound) : NULL, NULL);
			j++;
		}
		pos = (size_t)((char *)memchr(at(pos), '\n', inend - pos) -
		    arena.p) + 1;
	}
	lt_out_write(&out, at(pos), inend - pos);
}

/*
 * -k: every slice as a B and an E record.  Perfetto sorts a trace by ts
 * and, with no X in it, keeps the file order of equal ones, which then
 * decides the nesting; so the timed records are written sorted, and at
 * one ts: the ends, inner first; the flows that bind to the next slice;
 * the begins, outer first; zero-length slices, B then E; and the rest
 * in stream order.  Directives and untimed records keep their order and
 * come first.
 */
enum { C_END, C_NEXT, C_BEGIN, C_POINT, C_OTHER };
enum { W_B, W_E, W_FLOW, W_LINE };

struct item {
	int64_t		 ts;
	int64_t		 sub;		/* order within the class */
	size_t		 ref;		/* slice, flow or line offset */
	uint32_t	 seq;		/* slice index or line number */
	uint8_t		 cls, what;
};

static struct item	*items;
static size_t		 nitems, capitems;

static int
itemcmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->seq != y->seq)	/* an end: the later slice is inside */
		return (x->seq < y->seq) == (x->cls == C_END) ? 1 : -1;
	return x->what < y->what ? -1 : x->what > y->what;
}

static void
additem(int64_t ts, int cls, int64_t sub, size_t ref, uint32_t seq, int what)
{
	struct item *it;

	items = lt_grow(items, &capitems, nitems + 1, sizeof(*items));
	it = &items[nitems++];
	it->ts = ts;
	it->cls = (uint8_t)cls;
	it->sub = sub;
	it->ref = ref;
	it->seq = seq;
	it->what = (uint8_t)what;
}

/* Slice i as its B or its E record. */
static void
putbe(uint32_t i, int what)
{
	const struct lane *ln = laneof(i);
	struct ltfield f[LT_NCOL];
	int c;

	cols(soff[i], f);
	for (c = 0; c < LT_NCOL; c++) {
		if (c == LT_TS)
			lt_put_us(&out, what == W_B ? sl[i].nts : sl[i].nend);
		else if (c == LT_PH)
			lt_out_putc(&out, what == W_B ? 'B' : 'E');
		else if (c == LT_TID && ln != NULL)
			lt_out_write(&out, at(ln->tid), ln->tidlen);
		else if (c == LT_DUR)
			lt_out_putc(&out, '-');
		else if (c == LT_ARGS && what == W_E)
			lt_out_write(&out, "{}", 2);
		else if (c == LT_EXTRA && what == W_E)
			putextra(&f[c], ln != NULL && LT_ISNONE(f[LT_TID]) ?
			    X_PID : X_IDS);
		else if (c == LT_EXTRA && ln != NULL && LT_ISNONE(f[LT_TID]))
			putextra(&f[c], X_NOTID);
		else
			lt_put_field(&out, &f[c]);
		lt_out_putc(&out, c == LT_NCOL - 1 ? '\n' : '\t');
	}
}

static void
writesplit(void)
{
	struct ltfield f[LT_NCOL];
	const struct flow *fl;
	const struct item *it;
	size_t pos, next, i = 0, j = 0, k;
	uint32_t line = 0;
	int64_t ts;
	int named = 0;

	lt_put_header(&out);
	for (pos = 0; pos < inend; pos = next, line++) {
		next = (size_t)((char *)memchr(at(pos), '\n', inend - pos) -
		    arena.p) + 1;
		if (!named && pos >= mpos) {
			putlanes();
			named = 1;
		}
		if (i < nsl && soff[i] == pos) {
			if (sl[i].nend == sl[i].nts) {
				additem(sl[i].nts, C_POINT, 0, i, line, W_B);
				additem(sl[i].nts, C_POINT, 0, i, line, W_E);
			} else {
				additem(sl[i].nts, C_BEGIN, -sl[i].nend, i,
				    (uint32_t)i, W_B);
				additem(sl[i].nend, C_END, -sl[i].nts, i,
				    (uint32_t)i, W_E);
			}
			nsplit++;
			i++;
			continue;
		}
		if (j < nflows && flows[j].off == pos) {
			additem(flows[j].nts, flows[j].next ? C_NEXT : C_OTHER,
			    0, j, line, W_FLOW);
			j++;
			continue;
		}
		if (at(pos)[0] != '#') {
			cols(pos, f);
			if (lt_us_parse(f[LT_TS].p, f[LT_TS].n, &ts) ==
			    LT_NUM_OK) {
				additem(ts, C_OTHER, 0, pos, line, W_LINE);
				continue;
			}
		}
		lt_out_write(&out, at(pos), next - pos);
	}
	if (!named)
		putlanes();
	qsort(items, nitems, sizeof(*items), itemcmp);
	for (k = 0; k < nitems; k++) {
		it = &items[k];
		if (it->what == W_B || it->what == W_E)
			putbe((uint32_t)it->ref, it->what);
		else if (it->what == W_FLOW) {
			fl = &flows[it->ref];
			putrec(fl->off, fl->nts != fl->ts ? &fl->nts : NULL,
			    fl->moved ? laneof(fl->bound) : NULL, NULL);
		} else {
			next = (size_t)((char *)memchr(at(it->ref), '\n',
			    inend - it->ref) - arena.p) + 1;
			lt_out_write(&out, at(it->ref), next - it->ref);
		}
	}
}

/* -------- the report, as trace-lanefix prints it -------- */

struct kernel {
	size_t		 name, len;	/* in knames */
	long long	 runs, moved, snapped;
	int64_t		 delayed, trimmed, shift, maxshift;
};

static struct ltbuf	 rep, knames, movedl, snappedl;
static struct kernel	*kern;
static size_t		 nkern, capkern;

static int64_t
sadd(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t
iabs(int64_t v)
{
	return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
}

/* A time: "400ns" under 1 us, else "2.283us"; "0.000us" for none. */
static void
putF(struct ltbuf *b, int64_t ns)
{
	char num[LT_NUMBUF];
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	if (ns < 0)
		lt_buf_addc(b, '-');
	if (a > 0 && a < 1000) {
		lt_buf_add(b, num, lt_u64_fmt(num, a));
		lt_buf_adds(b, "ns");
		return;
	}
	lt_buf_add(b, num, lt_u64_fmt(num, a / 1000));
	snprintf(num, sizeof(num), ".%03u", (unsigned)(a % 1000));
	lt_buf_adds(b, num);
	lt_buf_adds(b, "us");
}

static void
putnum(struct ltbuf *b, long long v)
{
	char num[LT_NUMBUF];

	lt_buf_add(b, num, lt_i64_fmt(num, v));
}

/* What happened to slice i, as trace-lanefix words it. */
static void
describe(struct ltbuf *b, uint32_t i)
{
	const struct ltslice *x = &sl[i];
	const struct lane *ln = laneof(i);
	int64_t ds = x->nts - x->ts, de = x->nend - x->end;
	size_t mark = b->n;

	if (ln != NULL) {
		lt_buf_adds(b, "moved to lane ");
		putnum(b, ln->k);
		lt_buf_adds(b, " (tid ");
		show(b, soff[i], LT_TID);
		lt_buf_adds(b, " -> ");
		if (at(ln->tid)[0] == '"')
			lt_unesc(b, at(ln->tid) + 1, ln->tidlen - 2);
		else
			lt_buf_add(b, at(ln->tid), ln->tidlen);
		lt_buf_addc(b, ')');
	}
	if (ds == de && ds != 0) {
		lt_buf_adds(b, b->n > mark ? ", shifted " : "shifted ");
		lt_buf_adds(b, ds > 0 ? "later by " : "earlier by ");
		putF(b, iabs(ds));
	} else {
		if (ds != 0) {
			lt_buf_adds(b, b->n > mark ? ", " : "");
			lt_buf_adds(b, ds > 0 ? "start delayed by " :
			    "start moved earlier by ");
			putF(b, iabs(ds));
		}
		if (de != 0) {
			lt_buf_adds(b, b->n > mark ? ", " : "");
			lt_buf_adds(b, de > 0 ? "end extended by " :
			    "end trimmed by ");
			putF(b, iabs(de));
		}
	}
	if (b->n == mark)
		lt_buf_adds(b, "timing unchanged");
}

static int
iskernel(uint32_t i)
{
	struct ltfield f[LT_NCOL];

	cols(soff[i], f);
	return LT_IS(f[LT_CAT], "kernel");
}

static int
namecmp(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(knames.p + x->name, knames.p + y->name, n);

	return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

#define DESC(a, b)	do { if ((a) != (b)) return (a) > (b) ? -1 : 1; } \
			    while (0)

/* Most shifted first, then most runs, moved, snapped, then by name. */
static int
kernelcmp(const void *a, const void *b)
{
	const struct kernel *x = a, *y = b;

	DESC(x->shift, y->shift);
	DESC(x->runs, y->runs);
	DESC(x->moved, y->moved);
	DESC(x->snapped, y->snapped);
	DESC(x->maxshift, y->maxshift);
	return namecmp(a, b);
}

static void
addkernel(uint32_t i)
{
	const struct ltslice *x = &sl[i];
	struct kernel *k;
	int64_t ds = x->nts - x->ts, de = x->nend - x->end;

	kern = lt_grow(kern, &capkern, nkern + 1, sizeof(*kern));
	k = &kern[nkern++];
	memset(k, 0, sizeof(*k));
	k->name = knames.n;
	show(&knames, soff[i], LT_NAME);
	k->len = knames.n - k->name;
	k->runs = 1;
	k->moved = x->lane != 0;
	k->snapped = x->snaps != 0;
	k->delayed = ds > 0 ? ds : 0;
	k->trimmed = de < 0 ? iabs(de) : 0;
	k->shift = k->maxshift = sadd(iabs(ds), iabs(de));
}

/* Changed kernels, one line per name. */
static void
kernels(void)
{
	struct kernel *g;
	size_t i, n = 0;

	qsort(kern, nkern, sizeof(*kern), namecmp);
	for (i = 0; i < nkern; i++) {
		if (n > 0 && namecmp(&kern[n - 1], &kern[i]) == 0) {
			g = &kern[n - 1];
			g->runs++;
			g->moved += kern[i].moved;
			g->snapped += kern[i].snapped;
			g->delayed = sadd(g->delayed, kern[i].delayed);
			g->trimmed = sadd(g->trimmed, kern[i].trimmed);
			g->shift = sadd(g->shift, kern[i].shift);
			if (kern[i].maxshift > g->maxshift)
				g->maxshift = kern[i].maxshift;
		} else
			kern[n++] = kern[i];
	}
	qsort(kern, n, sizeof(*kern), kernelcmp);
	lt_buf_adds(&rep, "kernel timing summary (");
	putnum(&rep, (long long)nkern);
	lt_buf_adds(&rep, " run(s) across ");
	putnum(&rep, (long long)n);
	lt_buf_adds(&rep, " kernel name(s)):\n");
	for (i = 0; i < n; i++) {
		g = &kern[i];
		lt_buf_adds(&rep, "  ");
		lt_buf_add(&rep, knames.p + g->name, g->len);
		lt_buf_adds(&rep, ": runs=");
		putnum(&rep, g->runs);
		lt_buf_adds(&rep, ", total delayed=");
		putF(&rep, g->delayed);
		lt_buf_adds(&rep, ", total trimmed=");
		putF(&rep, g->trimmed);
		lt_buf_adds(&rep, ", total boundary shift=");
		putF(&rep, g->shift);
		lt_buf_adds(&rep, ", moved=");
		putnum(&rep, g->moved);
		lt_buf_adds(&rep, ", snapped=");
		putnum(&rep, g->snapped);
		lt_buf_addc(&rep, '\n');
	}
}

/* "  NAME pid=P[ tid=T]: what happened" */
static void
listline(struct ltbuf *b, uint32_t i, int withtid)
{
	lt_buf_adds(b, "  ");
	show(b, soff[i], LT_NAME);
	lt_buf_adds(b, " pid=");
	show(b, soff[i], LT_PID);
	if (withtid) {
		lt_buf_adds(b, " tid=");
		show(b, soff[i], LT_TID);
	}
	lt_buf_adds(b, ": ");
	describe(b, i);
	lt_buf_addc(b, '\n');
}

/* One changed slice: its totals, and its line in a list. */
static void
account(uint32_t i, int64_t *tstart, int64_t *tend, long long *nm,
    long long *ns)
{
	const struct ltslice *x = &sl[i];

	*tstart = sadd(*tstart, iabs(x->nts - x->ts));
	*tend = sadd(*tend, iabs(x->nend - x->end));
	if (iskernel(i)) {
		addkernel(i);
		return;
	}
	if (x->lane != 0) {
		(*nm)++;
		listline(&movedl, i, 0);
	}
	if (x->snaps != 0) {
		(*ns)++;
		listline(&snappedl, i, 1);
	}
}

static void
report(void)
{
	const struct track *tr;
	int64_t tstart = 0, tend = 0;
	long long nm = 0, ns = 0;
	size_t t, p;

	lt_buf_adds(&rep, "processing ");
	putnum(&rep, (long long)ntracks);
	lt_buf_adds(&rep, " track(s)\n");
	for (t = 0; t < ntracks; t++) {
		tr = &tracks[t];
		if (tr->nlanes < 2 && tr->snaps == 0)
			continue;
		lt_buf_adds(&rep, "  pid=");
		show(&rep, soff[tr->first], LT_PID);
		lt_buf_adds(&rep, " tid=");
		show(&rep, soff[tr->first], LT_TID);
		lt_buf_adds(&rep, ": ");
		putnum(&rep, tr->nlanes);
		lt_buf_adds(&rep, " lane(s), ");
		putnum(&rep, tr->moved);
		lt_buf_adds(&rep, " slice(s) moved, ");
		putnum(&rep, tr->snaps);
		lt_buf_adds(&rep, " snapped\n");
	}
	lt_buf_adds(&rep, "snapped ");
	putnum(&rep, nsnaps);
	lt_buf_adds(&rep, " sub-");
	lt_buf_adds(&rep, thrtext);
	lt_buf_adds(&rep, "us crossing(s)\n");
	if (nchanged > 0) {
		/* In the order of placement: by track, then by start. */
		for (t = 0; t < ntracks; t++)
			for (p = 0; p < tracks[t].n; p++)
				if (changed(&sl[byidx[tracks[t].start + p]]))
					account(byidx[tracks[t].start + p],
					    &tstart, &tend, &nm, &ns);
		lt_buf_adds(&rep, "updated ");
		putnum(&rep, nchanged);
		lt_buf_adds(&rep, " slice(s): total |start shift|=");
		putF(&rep, tstart);
		lt_buf_adds(&rep, ", total |end shift|=");
		putF(&rep, tend);
		lt_buf_adds(&rep, ", total |boundary shift|=");
		putF(&rep, sadd(tstart, tend));
		lt_buf_addc(&rep, '\n');
		if (nkern > 0)
			kernels();
		if (nm > 0) {
			lt_buf_adds(&rep, "moved slices (");
			putnum(&rep, nm);
			lt_buf_adds(&rep, "):\n");
			lt_buf_add(&rep, movedl.p, movedl.n);
		}
		if (ns > 0) {
			lt_buf_adds(&rep, "snapped slices (");
			putnum(&rep, ns);
			lt_buf_adds(&rep, "):\n");
			lt_buf_add(&rep, snappedl.p, snappedl.n);
		}
	}
	lt_buf_adds(&rep, "rewrote ");
	putnum(&rep, nrewritten);
	lt_buf_adds(&rep, " flow endpoint(s) onto rewritten slice "
	    "starts/lanes\n");
}

static void
stats(void)
{
	struct ltstat st[] = {
		{ "events", nevents },
		{ "tracks", (long long)ntracks },
		{ "slices", (long long)nsl },
		{ "changed", nchanged },
		{ "moved", nmoved },
		{ "snapped", nsnaps },
		{ "snapped_slices", nsnapped },
		{ "lanes", (long long)nlanes },
		{ "meta_added", nadded },
		{ "flows", (long long)nflows },
		{ "flows_rewritten", nrewritten },
		{ "crossings_before", (long long)xbefore },
		{ "crossings_after", (long long)xafter },
		{ "unplaced", nunplaced },
		{ "be", nbe },
		{ "split", nsplit },
		{ "threshold_ns", thr }
	};

	lt_put_stat(&out, "ltlanefix", st, sizeof(st) / sizeof(st[0]));
}

static void
cleanup(void)
{
	lt_lanes_free(&work);
	bind(NULL, NULL, 0);
	crossings(NULL);
	free(sl);
	free(soff);
	free(sthread);
	free(byidx);
	free(threads);
	free(thash);
	free(tracks);
	free(lanes);
	free(flows);
	free(items);
	free(kern);
	lt_buf_free(&arena);
	lt_buf_free(&rep);
	lt_buf_free(&knames);
	lt_buf_free(&movedl);
	lt_buf_free(&snappedl);
	lt_buf_free(&tmp);
	lt_buf_free(&lname);
	lt_buf_free(&lsort);
	lt_buf_free(&lbase);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-complete", no_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "snap-threshold-us", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	struct ltout err;
	struct ltrd rd;
	const char *t;
	char tbuf[64];
	int c, r;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "hkqt:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -k, --no-complete  write each slice as a B and "
			    "an E record\n"
			    "  -q, --quiet        no report on standard error\n"
			    "  -t, --snap-threshold-us us\n"
			    "                     snap crossings smaller than "
			    "this (default 5.0; 0: never)\n"
			    "  -h, --help         show this help\n");
			break;
		case 'k':
			kflag = 1;
			break;
		case 'q':
			qflag = 1;
			break;
		case 't':
			if ((t = unscore(optarg, tbuf, sizeof(tbuf))) == NULL)
				r = -1;
			else
				r = parsethr(t, &thr);
			if (r != 0)
				lt_die(LT_EXIT_SYS, "-t %s: %s", optarg, r == -2 ?
				    "must be non-negative" : "invalid");
			showthr(t);
			thrtext = thrbuf;
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_rd_init(&rd, argc, argv);
	readall(&rd);
	lt_rd_done(&rd);
	place();
	if (xafter != 0)
		lt_die(LT_EXIT_SYS, "internal error: %llu crossings left",
		    (unsigned long long)xafter);

	lt_out_init(&out, 1, "<stdout>");
	if (kflag)
		writesplit();
	else
		writeall();
	stats();
	lt_out_close(&out);
	/* The next stage has all of the stream before the report is made. */
	if (!qflag) {
		report();
		lt_out_init(&err, 2, "<stderr>");
		lt_out_write(&err, rep.p, rep.n);
		lt_out_flush(&err);
		free(err.buf);
	}
	cleanup();
	return LT_EXIT_OK;
}
