/* See LICENSE file for copyright and license details. */
/*
 * ltfilter: keep or drop the events of an lt1 stream.
 *
 * Reads lt1 (operands, "-" or none for standard input) and writes the
 * events that pass every test given (category, name, pid, rank, worker,
 * time window, minimum duration; -v inverts), unchanged and in order,
 * with every directive.  M records follow the events: one that names a
 * process or a thread is written only once that process or thread has a
 * kept event, so a kept event always has its names and a process whose
 * events were all dropped loses its own.  M records seen before their
 * events wait (memory grows with the threads, nothing else).
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "idtab.h"

#define SYNOPSIS	"ltfilter [-v] [-c list] [-d dur] [-n list] " \
			"[-p list] [-r list] [-T from,to] [-t from,to] " \
			"[-w list] [file ...]"

/* A list of patterns (-c, -n) or of integer ranges and strings (-p). */
struct pats {
	char		**s;
	size_t		 n;
	size_t		 cap;
};

struct ranges {
	int64_t		*lo;
	int64_t		*hi;
	size_t		 n;
	size_t		 cap;
	struct pats	 str;		/* -p: string pids */
	int		 on;
};

struct window {
	int64_t		 from;
	int64_t		 to;
	int		 on;
	int		 hasfrom;
	int		 hasto;
};

/* A process (tid NULL) or a thread: has it a kept event yet? */
struct scope {
	struct ltid	 h;
	int		 kept;
	long long	 nheld;
	struct ltbuf	 held;		/* its M records, waiting */
};

static struct ltout	 out;
static struct ltidtab	 scopes;
static struct pats	 cats, names;
static struct ranges	 pids, ranks, workers;
static struct window	 abswin, relwin;
static int64_t		 mindur;
static int		 dflag, vflag;
static int		 havebase;
static int64_t		 base;
static struct ltbuf	 dec;

static long long	 nkept, ndropped, nmkept, nmdropped;

static void
addpat(struct pats *p, const char *s, size_t n)
{
	p->s = lt_grow(p->s, &p->cap, p->n + 1, sizeof(*p->s));
	p->s[p->n] = lt_malloc(n + 1);
	memcpy(p->s[p->n], s, n);
	p->s[p->n++][n] = '\0';
}

/* Split a comma-separated option argument; empty items are ignored. */
static void
split(const char *arg, void (*fn)(int, const char *, size_t, void *),
    int opt, void *to)
{
	const char *p, *comma;

	for (p = arg; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		if (comma > p)
			fn(opt, p, (size_t)(comma - p), to);
	}
}

static void
onepat(int opt, const char *s, size_t n, void *to)
{
	(void)opt;
	addpat(to, s, n);
}

static int64_t
optnum(int opt, const char *num, const char *item)
{
	const char *errstr;
	long long v;

	v = lt_strtonum(num, INT64_MIN, INT64_MAX, &errstr);
	if (errstr != NULL)
		lt_die(LT_EXIT_SYS, "-%c %s: %s", opt, item, errstr);
	return v;
}

/* N or N-M (N <= M) for -p -r -w; -p also takes a string pid. */
static void
onerange(int opt, const char *s, size_t n, void *to)
{
	struct ranges *r = to;
	char item[64], num[64], *dash;

	if (n >= sizeof(item))
		lt_die(LT_EXIT_SYS, "-%c %.*s: too long", opt, (int)n, s);
	memcpy(item, s, n);
	item[n] = '\0';
	if (r->n == r->cap) {
		r->cap = r->cap != 0 ? r->cap * 2 : 8;
		r->lo = lt_reallocarray(r->lo, r->cap, sizeof(*r->lo));
		r->hi = lt_reallocarray(r->hi, r->cap, sizeof(*r->hi));
	}
	if (opt == 'p' && strspn(item, "0123456789-") != n) {
		addpat(&r->str, s, n);
		return;
	}
	memcpy(num, item, n + 1);
	if ((dash = strchr(num + 1, '-')) != NULL)
		*dash++ = '\0';
	r->lo[r->n] = optnum(opt, num, item);
	r->hi[r->n] = dash != NULL ? optnum(opt, dash, item) : r->lo[r->n];
	if (r->hi[r->n] < r->lo[r->n])
		lt_die(LT_EXIT_SYS, "-%c %s: empty range", opt, item);
	r->n++;
}

/*
 * A time in nanoseconds: a decimal with an optional unit, ns, us (the
 * default), ms or s.  Returns LT_NUM_OK, LT_NUM_SYNTAX or LT_NUM_RANGE.
 */
static int
parsetime(const char *s, size_t n, int64_t *ns)
{
	static const struct { const char *unit; int scale; } units[] = {
		{ "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 }
	};
	size_t i, k;
	int scale = 3;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		k = strlen(units[i].unit);
		if (n > k && memcmp(s + n - k, units[i].unit, k) == 0) {
			n -= k;
			scale = units[i].scale;
			break;
		}
	}
	if (n == 0 || s[n - 1] == 'e' || s[n - 1] == 'E')
		return LT_NUM_SYNTAX;
	return lt_dec_parse(s, n, scale, ns);
}

/* The message for a time parsetime() refused. */
static const char *
badtime(int r)
{
	return r == LT_NUM_RANGE ? "out of range (about 292 years at most)" :
	    "not a time";
}

static void
setwindow(struct window *w, int opt, const char *arg)
{
	const char *comma;
	int r;

	if ((comma = strchr(arg, ',')) == NULL || strchr(comma + 1, ','))
		lt_die(LT_EXIT_SYS, "-%c %s: expected from,to", opt, arg);
	w->on = 1;
	w->hasfrom = comma > arg;
	w->hasto = comma[1] != '\0';
	if (w->hasfrom && (r = parsetime(arg, (size_t)(comma - arg),
	    &w->from)) != LT_NUM_OK)
		lt_die(LT_EXIT_SYS, "-%c %s: %.*s: %s", opt, arg,
		    (int)(comma - arg), arg, badtime(r));
	if (w->hasto && (r = parsetime(comma + 1, strlen(comma + 1),
	    &w->to)) != LT_NUM_OK)
		lt_die(LT_EXIT_SYS, "-%c %s: %s: %s", opt, arg, comma + 1,
		    badtime(r));
	if (w->hasfrom && w->hasto && w->to <= w->from)
		lt_die(LT_EXIT_SYS, "-%c %s: empty window", opt, arg);
}

/* JSON string contents (cat, name) to a C string in dec. */
static const char *
unescape(const struct ltfield *f)
{
	dec.n = 0;
	lt_unesc(&dec, f->p, f->n);
	lt_buf_addc(&dec, '\0');
	return dec.p;
}

static int
matchpat(const struct pats *p, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		if (strpbrk(p->s[i], "*?[\\") == NULL) {
			if (strlen(p->s[i]) == n && memcmp(p->s[i], s, n) == 0)
				return 1;
		} else if (fnmatch(p->s[i], s, 0) == 0)
			return 1;
	}
	return 0;
}

/* -c: any of the event's comma-separated categories matches. */
static int
catok(const struct ltfield *f)
{
	char *s, *comma;

	s = (char *)unescape(f);
	for (;;) {
		if ((comma = strchr(s, ',')) != NULL)
			*comma = '\0';
		if (matchpat(&cats, s, strlen(s)))
			return 1;
		if (comma == NULL)
			return 0;
		s = comma + 1;
	}
}

static int
inranges(const struct ranges *r, int64_t v)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (v >= r->lo[i] && v <= r->hi[i])
			return 1;
	return 0;
}

static int
pidok(const struct ltfield *f)
{
	struct ltfield s;
	const char *u;
	int64_t v;

	if (lt_int_parse(f->p, f->n, &v) == LT_NUM_OK)
		return inranges(&pids, v);
	if (f->n < 2 || f->p[0] != '"')
		return 0;
	s.p = f->p + 1;
	s.n = f->n - 2;
	u = unescape(&s);
	return matchpat(&pids.str, u, strlen(u));
}

/* An integer arg: a JSON integer or a string holding one. */
static int
intval(const struct ltfield *v, int64_t *n)
{
	if (v->n >= 2 && v->p[0] == '"')
		return lt_int_parse(v->p + 1, v->n - 2, n) == LT_NUM_OK;
	return lt_int_parse(v->p, v->n, n) == LT_NUM_OK;
}

/* -r, -w: dist_global_rank and worker_rank in args. */
static int
argsok(struct ltrd *rd, const struct ltfield *args)
{
	struct ltfield k, v;
	struct ltobj it;
	int64_t n;
	int rank = !ranks.on, worker = !workers.on, r;

	lt_obj_init(&it, args->p, args->n);
	while ((r = lt_obj_next(&it, &k, &v)) > 0) {
		if (ranks.on && LT_IS(k, "\"dist_global_rank\""))
			rank = intval(&v, &n) && inranges(&ranks, n);
		else if (workers.on && LT_IS(k, "\"worker_rank\""))
			worker = intval(&v, &n) && inranges(&workers, n);
	}
	if (r < 0)
		lt_rd_bad(rd, "column args: %s", it.err);
	return rank && worker;
}

/*
 * a - b, saturated: a time so far from the origin that the difference
 * leaves int64 is beyond every bound a window can have on that side.
 */
static int64_t
since(int64_t a, int64_t b)
{
	if (b > 0 && a < INT64_MIN + b)
		return INT64_MIN;
	if (b < 0 && a > INT64_MAX + b)
		return INT64_MAX;
	return a - b;
}

/*
 * Does [ts, ts + dur) (the point ts when dur is 0) meet the window, its
 * bounds counted from off?  ts + dur does not overflow (timeok).
 */
static int
inwindow(const struct window *w, int64_t off, int64_t ts, int64_t dur)
{
	int64_t start = since(ts, off);

	if (w->hasto && start >= w->to)
		return 0;
	if (!w->hasfrom || start >= w->from)
		return 1;
	return dur > 0 && since(ts + dur, off) > w->from;
}

/* -d, -t, -T.  An event without a ts is outside every window. */
static int
timeok(struct ltrd *rd, const struct ltrec *rec)
{
	int64_t ts, dur;
	int hasts, hasdur;

	if ((hasts = lt_rec_ts(rec, LT_TS, &ts)) < 0)
		lt_rd_bad(rd, "column ts: not microseconds (-?D+ with at "
		    "most 3 decimals) or -");
	if ((hasdur = lt_rec_ts(rec, LT_DUR, &dur)) < 0)
		lt_rd_bad(rd, "column dur: not microseconds (-?D+ with at "
		    "most 3 decimals) or -");
	if (!hasdur)
		dur = 0;
	if (dflag && hasdur && dur < mindur)
		return 0;
	if (!abswin.on && !relwin.on)
		return 1;
	if (!hasts)
		return 0;
	if (dur > 0 && ts > INT64_MAX - dur)
		dur = INT64_MAX - ts;
	if (abswin.on && !inwindow(&abswin, 0, ts, dur))
		return 0;
	return !relwin.on || inwindow(&relwin, base, ts, dur);
}

static int
passes(struct ltrd *rd, const struct ltrec *rec)
{
	const char *s;

	if (cats.n > 0 && !catok(&rec->f[LT_CAT]))
		return 0;
	if (names.n > 0) {
		s = unescape(&rec->f[LT_NAME]);
		if (!matchpat(&names, s, strlen(s)))
			return 0;
	}
	if (pids.on && !pidok(&rec->f[LT_PID]))
		return 0;
	if ((ranks.on || workers.on) && !argsok(rd, &rec->f[LT_ARGS]))
		return 0;
	if ((abswin.on || relwin.on || dflag) && !timeok(rd, rec))
		return 0;
	return 1;
}

static void
putline(const char *p, size_t n)
{
	lt_out_write(&out, p, n);
	lt_out_putc(&out, '\n');
}

/* The process or thread has a kept event: its M records may go. */
static void
keep(struct scope *sc)
{
	if (sc->kept)
		return;
	sc->kept = 1;
	if (sc->held.n > 0)
		lt_out_write(&out, sc->held.p, sc->held.n);
	nmkept += sc->nheld;
	sc->nheld = 0;
	lt_buf_free(&sc->held);
}

/*
 * A line held, in room of its size: a long job's thousands of threads
 * hold a name or two each to the end, and a buffer's first room (256
 * bytes) would be most of its memory.  Past 1 KiB the room doubles.
 */
static void
hold(struct ltbuf *b, const char *line, size_t len)
{
	size_t n = b->n + len + 1;

	if (n > b->cap) {
		b->cap = n <= 1024 ? n : 2 * n;
		b->p = lt_reallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->n, line, len);
	b->p[n - 1] = '\n';
	b->n = n;
}

static void
meta(const struct ltrec *rec)
{
	struct scope *sc;

	/* process_name, process_sort_index, process_labels, ... */
	if (rec->f[LT_NAME].n >= 8 &&
	    memcmp(rec->f[LT_NAME].p, "process_", 8) == 0)
		sc = lt_id_get(&scopes, &rec->f[LT_PID], NULL, 1, NULL);
	else
		sc = lt_id_get(&scopes, &rec->f[LT_PID], &rec->f[LT_TID], 1,
		    NULL);
	if (sc->kept) {
		nmkept++;
		putline(rec->line, rec->len);
		return;
	}
	hold(&sc->held, rec->line, rec->len);
	sc->nheld++;
}

/*
 * #t0: the ts of the first event its producer wrote (ltparse writes it
 * before that event), which is where -T counts from when it comes before
 * any record.  ltpair, which holds its B records back, passes it on first.
 */
static void
origin(struct ltrd *rd, const struct ltrec *rec)
{
	if (!relwin.on || havebase || rec->len < 4 ||
	    memcmp(rec->line, "#t0\t", 4) != 0)
		return;
	if (lt_us_parse(rec->line + 4, rec->len - 4, &base) != LT_NUM_OK)
		lt_rd_bad(rd, "#t0: not microseconds (-?D+ with at most 3 "
		    "decimals)");
	havebase = 1;
}

static void
event(struct ltrd *rd, const struct ltrec *rec)
{
	int r;

	/* -T counts from the first event with a ts, whatever its fate. */
	if (relwin.on && !havebase) {
		if ((r = lt_rec_ts(rec, LT_TS, &base)) < 0)
			lt_rd_bad(rd, "column ts: not microseconds (-?D+ with "
			    "at most 3 decimals) or -");
		havebase = r > 0;
	}
	if (passes(rd, rec) == vflag) {
		ndropped++;
		return;
	}
	nkept++;
	keep(lt_id_get(&scopes, &rec->f[LT_PID], NULL, 1, NULL));
	keep(lt_id_get(&scopes, &rec->f[LT_PID], &rec->f[LT_TID], 1, NULL));
	lt_put_rec(&out, rec);
}

static void
dropheld(void *p)
{
	struct scope *sc = p;

	nmdropped += sc->nheld;
	lt_buf_free(&sc->held);
}

static void
freepats(struct pats *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->s[i]);
	free(p->s);
}

static void
freeranges(struct ranges *r)
{
	free(r->lo);
	free(r->hi);
	freepats(&r->str);
}

int
ltfilter_main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "cat", required_argument, NULL, 'c' },
		{ "min-dur", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "name", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "rank", required_argument, NULL, 'r' },
		{ "rel-time", required_argument, NULL, 'T' },
		{ "time", required_argument, NULL, 't' },
		{ "invert", no_argument, NULL, 'v' },
		{ "worker", required_argument, NULL, 'w' },
		{ "version", no_argument, NULL, LT_OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ltstat st[4];
	struct ltrec rec;
	struct ltrd rd;
	int c, k;

	lt_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, "c:d:hn:p:r:T:t:vw:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'c':
			split(optarg, onepat, c, &cats);
			break;
		case 'd':
			if (parsetime(optarg, strlen(optarg), &mindur) < 0 ||
			    mindur < 0)
				lt_die(LT_EXIT_SYS, "-d %s: bad duration",
				    optarg);
			dflag = 1;
			break;
		case 'h':
			lt_help(SYNOPSIS,
			    "  -c, --cat LIST       keep these categories "
			    "(globs)\n"
			    "  -d, --min-dur DUR    keep spans lasting at "
			    "least DUR\n"
			    "  -n, --name LIST      keep these names (globs)\n"
			    "  -p, --pid LIST       keep these pids (N or N-M)\n"
			    "  -r, --rank LIST      keep these "
			    "dist_global_rank values\n"
			    "  -T, --rel-time F,T   keep [F, T) after the "
			    "first event\n"
			    "  -t, --time F,T       keep [F, T), absolute\n"
			    "  -v, --invert         keep what the tests "
			    "would drop\n"
			    "  -w, --worker LIST    keep these worker_rank "
			    "values\n"
			    "      --version        print the version and exit\n"
			    "  -h, --help           show this help\n"
			    "Times: decimal, in us unless ending in ns, ms "
			    "or s.  LIST: comma-separated.\n");
			break;
		case 'n':
			split(optarg, onepat, c, &names);
			break;
		case 'p':
			pids.on = 1;
			split(optarg, onerange, c, &pids);
			break;
		case 'r':
			ranks.on = 1;
			split(optarg, onerange, c, &ranks);
			break;
		case 'T':
			setwindow(&relwin, c, optarg);
			break;
		case 't':
			setwindow(&abswin, c, optarg);
			break;
		case 'v':
			vflag = 1;
			break;
		case 'w':
			workers.on = 1;
			split(optarg, onerange, c, &workers);
			break;
		case LT_OPT_VERSION:
			lt_version();
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_id_init(&scopes, sizeof(struct scope));
	lt_out_init(&out, 1, "<stdout>");
	lt_put_header(&out);
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_DIR) {
			origin(&rd, &rec);
			putline(rec.line, rec.len);
		}
		else if (LT_IS(rec.f[LT_PH], "M"))
			meta(&rec);
		else
			event(&rd, &rec);
	}
	lt_rd_done(&rd);
	lt_id_each(&scopes, dropheld);
	st[0].key = "kept";
	st[0].val = nkept;
	st[1].key = "dropped";
	st[1].val = ndropped;
	st[2].key = "meta_kept";
	st[2].val = nmkept;
	st[3].key = "meta_dropped";
	st[3].val = nmdropped;
	lt_put_stat(&out, "ltfilter", st, 4);
	lt_out_close(&out);

	lt_id_free(&scopes, NULL);
	freepats(&cats);
	freepats(&names);
	freeranges(&pids);
	freeranges(&ranks);
	freeranges(&workers);
	lt_buf_free(&dec);
	return LT_EXIT_OK;
}
