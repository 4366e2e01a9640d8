/* See LICENSE file for copyright and license details. */
/*
 * ltjson: an lt1 stream to Chrome trace JSON.
 *
 * Writes {"traceEvents":[ with one event per line, then the top-level
 * members carried by #top directives, then "metadata" holding the #stat
 * counters of every stage and the time offset.  Timestamps keep every
 * digit; epoch-sized ones are shifted by one whole-microsecond offset so
 * that Perfetto's double conversion is exact (see ltjson(1)).  Streams:
 * memory does not grow with the input.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "strtab.h"

#define SYNOPSIS	"ltjson [-O offset] [-S file] [file ...]"

struct stat1 {
	char	*tool;
	char	*key;
	char	*val;
};

static struct ltout	 out;
static struct ltjw	 jw;		/* the events as written */
static struct ltbuf	 tops;		/* ,"key":value of #top members */
static struct ltbuf	 usermeta;	/* members of a #top metadata */
static struct stat1	*stats;
static size_t		 nstats, capstats;

static long long	 nevents;
static long long	 nph[128];
static struct ltstrtab	 pids;		/* distinct processes */
static struct ltstrtab	 cats;		/* categories of X events */
static int64_t		*catns;		/* summed dur per category */
static long long	*catn;
static size_t		 capcats;
static int64_t		 tsmin = INT64_MAX, tsmax = INT64_MIN;

/* The last string looked up in a table. */
struct memo {
	char		 p[24];
	size_t		 n;		/* SIZE_MAX: none */
	size_t		 i;
};

/* B events still open, per thread, for the span times of B/E pairs. */
struct opens {
	struct {
		int64_t	 ts;
		uint64_t name;		/* hash of the name */
		size_t	 cat;
	} *s;
	size_t	 n, cap;
};
static struct ltstrtab	 threads;
static struct opens	*thr;
static size_t		 capthr;

/* A JSON string of arbitrary bytes. */
static void
putstr(const char *s)
{
	static struct ltbuf b;

	b.n = 0;
	if (s == NULL) {
		lt_buf_free(&b);
		return;
	}
	lt_buf_addc(&b, '"');
	lt_esc(&b, s, strlen(s));
	lt_buf_addc(&b, '"');
	lt_out_write(&out, b.p, b.n);
}

static int
isint(const char *s)
{
	int64_t v;

	return lt_int_parse(s, strlen(s), &v) == LT_NUM_OK;
}

/* #stat TOOL k=v ...: kept in order; a second TOOL k sums integers. */
static void
addstat(struct ltrd *rd, char *line)
{
	char *tool, *kv, *eq, *next, num[LT_NUMBUF];
	int64_t a, b;
	size_t i;

	if ((tool = strchr(line, '\t')) == NULL)
		lt_rd_bad(rd, "#stat without a tool name");
	tool++;
	if ((kv = strchr(tool, '\t')) != NULL)
		*kv++ = '\0';
	for (; kv != NULL && *kv != '\0'; kv = next) {
		if ((next = strchr(kv, '\t')) != NULL)
			*next++ = '\0';
		if ((eq = strchr(kv, '=')) == NULL || eq == kv)
			lt_rd_bad(rd, "#stat field \"%s\" is not key=value",
			    kv);
		*eq++ = '\0';
		for (i = 0; i < nstats; i++)
			if (strcmp(stats[i].tool, tool) == 0 &&
			    strcmp(stats[i].key, kv) == 0)
				break;
		if (i < nstats) {
			if (lt_int_parse(stats[i].val, strlen(stats[i].val),
			    &a) == LT_NUM_OK && lt_int_parse(eq, strlen(eq),
			    &b) == LT_NUM_OK && (b <= 0 || a <= INT64_MAX - b)
			    && (b >= 0 || a >= INT64_MIN - b)) {
				lt_i64_fmt(num, a + b);
				free(stats[i].val);
				stats[i].val = lt_strdup(num);
			} else {
				free(stats[i].val);
				stats[i].val = lt_strdup(eq);
			}
			continue;
		}
		if (nstats == capstats) {
			capstats = capstats != 0 ? capstats * 2 : 32;
			stats = lt_reallocarray(stats, capstats,
			    sizeof(*stats));
		}
		stats[nstats].tool = lt_strdup(tool);
		stats[nstats].key = lt_strdup(kv);
		stats[nstats].val = lt_strdup(eq);
		nstats++;
	}
}

/* #top KEY VALUE: a top-level member of the trace, written at the end. */
static void
addtop(struct ltrd *rd, char *line, size_t len)
{
	static struct ltbuf canon;
	const char *key, *cur, *k, *v;
	char why[256];
	size_t kn, vn;
	int r;

	if ((r = lt_jw_top(line, len, &key, &canon, why, sizeof(why))) < 0)
		lt_rd_bad(rd, "%s", why);
	if (r == 0)
		return;
	if (strcmp(key, "metadata") != 0) {
		lt_buf_add(&tops, ",\n\"", 3);
		lt_buf_adds(&tops, key);
		lt_buf_add(&tops, "\":", 2);
		lt_buf_add(&tops, canon.p, canon.n);
		return;
	}
	/* Our own record of an earlier run is replaced, not kept. */
	cur = canon.p;
	while (lt_json_objnext(&cur, canon.p + canon.n, &k, &kn, &v, &vn)) {
		if (kn == 8 && memcmp(k, "litracer", 8) == 0)
			continue;
		lt_buf_add(&usermeta, "\"", 1);
		lt_buf_add(&usermeta, k, kn);
		lt_buf_add(&usermeta, "\":", 2);
		lt_buf_add(&usermeta, v, vn);
		lt_buf_addc(&usermeta, ',');
	}
}

/*
 * The index of f in t, remembering the last one looked up: records of
 * one process, and of one category, come in runs.
 */
static size_t
memoget(struct memo *m, struct ltstrtab *t, const struct ltfield *f,
    int *isnew)
{
	*isnew = 0;
	if (f->n == m->n && memcmp(f->p, m->p, f->n) == 0)
		return m->i;
	m->i = lt_strtab_get(t, f->p, f->n, isnew);
	m->n = f->n <= sizeof(m->p) ? f->n : SIZE_MAX;
	if (m->n != SIZE_MAX)
		memcpy(m->p, f->p, f->n);
	return m->i;
}

/* The summed span time of a category: its index, added if new. */
static size_t
catindex(const struct ltfield *cat)
{
	static struct memo m = { "", SIZE_MAX, 0 };
	size_t i;
	int isnew;

	i = memoget(&m, &cats, cat, &isnew);
	if (isnew) {
		if (i >= capcats) {
			capcats = capcats != 0 ? capcats * 2 : 16;
			catns = lt_reallocarray(catns, capcats,
			    sizeof(*catns));
			catn = lt_reallocarray(catn, capcats, sizeof(*catn));
		}
		catns[i] = 0;
		catn[i] = 0;
	}
	return i;
}

static void
addspan(size_t cat, int64_t dur)
{
	if (dur < 0)
		dur = 0;
	if (catns[cat] <= INT64_MAX - dur)
		catns[cat] += dur;
	catn[cat]++;
}

/*
 * B/E pairs count in the span times too (ltpair -k keeps them): an E
 * closes the newest open B of its thread with its name, or the newest
 * one when it has no name, as Perfetto pairs them.
 */
static void
pairspan(const struct ltrec *rec, int64_t ts)
{
	static struct ltbuf key;
	struct opens *o;
	uint64_t name;
	size_t t, i;
	int isnew;

	key.n = 0;
	lt_buf_add(&key, rec->f[LT_PID].p, rec->f[LT_PID].n);
	lt_buf_addc(&key, '\t');
	lt_buf_add(&key, rec->f[LT_TID].p, rec->f[LT_TID].n);
	t = lt_strtab_get(&threads, key.p, key.n, &isnew);
	if (isnew) {
		if (t >= capthr) {
			capthr = capthr != 0 ? capthr * 2 : 64;
			thr = lt_reallocarray(thr, capthr, sizeof(*thr));
		}
		memset(&thr[t], 0, sizeof(thr[t]));
	}
	o = &thr[t];
	name = lt_hash(rec->f[LT_NAME].p, rec->f[LT_NAME].n);
	if (rec->f[LT_PH].p[0] == 'B') {
		if (o->n == o->cap) {
			o->cap = o->cap != 0 ? o->cap * 2 : 4;
			o->s = lt_reallocarray(o->s, o->cap, sizeof(*o->s));
		}
		o->s[o->n].ts = ts;
		o->s[o->n].name = name;
		o->s[o->n].cat = catindex(&rec->f[LT_CAT]);
		o->n++;
		return;
	}
	for (i = o->n; i > 0; i--)
		if (rec->f[LT_NAME].n == 0 || o->s[i - 1].name == name)
			break;
	if (i == 0)
		return;
	addspan(o->s[i - 1].cat, ts - o->s[i - 1].ts);
	memmove(&o->s[i - 1], &o->s[i], (o->n - i) * sizeof(*o->s));
	o->n--;
}

/*
 * What the summary needs: processes, time span, span time per category;
 * ts and dur as event() read them (has*: the column was not "-").
 */
static void
account(const struct ltrec *rec, int hasts, int64_t ts, int hasdur,
    int64_t dur)
{
	static struct memo m = { "", SIZE_MAX, 0 };
	int ph = rec->f[LT_PH].p[0], isnew;

	if (!LT_ISNONE(rec->f[LT_PID]))
		memoget(&m, &pids, &rec->f[LT_PID], &isnew);
	if (ph == 'M' || !hasts)
		return;
	if (!hasdur || dur < 0)
		dur = 0;
	if (ts < tsmin)
		tsmin = ts;
	if (ts <= INT64_MAX - dur && ts + dur > tsmax)
		tsmax = ts + dur;
	if (ph == 'X')
		addspan(catindex(&rec->f[LT_CAT]), dur);
	else if (ph == 'B' || ph == 'E')
		pairspan(rec, ts);
}

/* One event, written straight into the output buffer. */
static void
event(struct ltrd *rd, const struct ltrec *rec)
{
	struct ltjwrec r;
	const char *why;
	long long clamped = jw.clamped;
	int col;
	char *w;

	if (lt_jw_rec(&jw, rec, &r, &why, &col) < 0)
		lt_rd_bad(rd, "column %s: %s", lt_colname[col], why);
	if (jw.clamped > 0 && clamped == 0)
		lt_warnpos(rd->in.name, rd->in.line, "ts %.*s is before the "
		    "offset chosen from the first event; written as the "
		    "trace's start, since Perfetto drops a negative ts "
		    "(see -O)", (int)rec->f[LT_TS].n, rec->f[LT_TS].p);
	w = lt_out_room(&out, r.need + 2);
	if (nevents > 0) {
		*w++ = ',';
		*w++ = '\n';
	}
	w = lt_jw_put(w, &r);
	out.n = (size_t)(w - out.buf);
	nph[(unsigned char)rec->f[LT_PH].p[0] & 127]++;
	nevents++;
	account(rec, r.hasts, r.ts, r.hasdur, r.dur);
}

/* ltjson's own counters, for the metadata and for -S. */
static size_t
mystats(struct ltstat *st)
{
	static const struct { const char *key; const char *ph; } phs[] = {
		{ "B", "B" }, { "E", "E" }, { "X", "X" }, { "I", "Ii" },
		{ "M", "M" }, { "C", "C" }, { "flows", "stf" }
	};
	long long n, other = nevents;
	const char *p;
	size_t i, k = 0;

	st[k].key = "events";
	st[k++].val = nevents;
	for (i = 0; i < sizeof(phs) / sizeof(phs[0]); i++) {
		for (n = 0, p = phs[i].ph; *p != '\0'; p++)
			n += nph[(unsigned char)*p];
		other -= n;
		st[k].key = phs[i].key;
		st[k++].val = n;
	}
	st[k].key = "other";
	st[k++].val = other;
	st[k].key = "processes";
	st[k++].val = (long long)pids.n;
	st[k].key = "repaired";
	st[k++].val = jw.repaired;
	st[k].key = "clamped_ts";
	st[k++].val = jw.clamped;
	st[k].key = "rounded_ts";
	st[k++].val = jw.rounded;
	st[k].key = "dupkeys";
	st[k++].val = jw.dupkeys;
	if (jw.clamped > 0) {
		st[k].key = "ts_offset_needed_us";
		st[k++].val = lt_jw_offset(jw.early, 1) / 1000;
	}
	return k;
}

/* From the earliest ts to the latest end, saturated (a test's extremes). */
static int64_t
duration(void)
{
	if (tsmax <= tsmin)
		return 0;
	return tsmin < 0 && tsmax > INT64_MAX + tsmin ? INT64_MAX :
	    tsmax - tsmin;
}

static void
putnum(long long v)
{
	char num[LT_NUMBUF];

	lt_out_write(&out, num, lt_i64_fmt(num, v));
}

static void
metadata(void)
{
	struct ltstat st[16];
	const char *tool = NULL, *c;
	size_t i, n, cn;

	lt_out_puts(&out, ",\n\"metadata\":{");
	lt_out_write(&out, usermeta.p, usermeta.n);
	lt_out_puts(&out, "\"litracer\":{\"version\":\"" LT_VERSION
	    "\",\"ts_offset_us\":");
	lt_put_us(&out, jw.offset);
	lt_out_puts(&out, ",\"stats\":{");
	for (i = 0; i < nstats; i++) {
		if (tool == NULL || strcmp(tool, stats[i].tool) != 0) {
			if (tool != NULL)
				lt_out_puts(&out, "},");
			tool = stats[i].tool;
			putstr(tool);
			lt_out_puts(&out, ":{");
		} else
			lt_out_putc(&out, ',');
		putstr(stats[i].key);
		lt_out_putc(&out, ':');
		if (isint(stats[i].val))
			lt_out_puts(&out, stats[i].val);
		else
			putstr(stats[i].val);
	}
	if (tool != NULL)
		lt_out_puts(&out, "},");
	lt_out_puts(&out, "\"ltjson\":{");
	n = mystats(st);
	for (i = 0; i < n; i++) {
		lt_out_puts(&out, i > 0 ? ",\"" : "\"");
		lt_out_puts(&out, st[i].key);
		lt_out_puts(&out, "\":");
		putnum(st[i].val);
	}
	lt_out_puts(&out, ",\"duration_us\":");
	lt_put_us(&out, duration());
	lt_out_puts(&out, "}},\"span_us\":{");
	for (i = 0; i < cats.n; i++) {
		c = lt_strtab_key(&cats, i, &cn);
		lt_out_puts(&out, i > 0 ? ",\"" : "\"");
		lt_out_write(&out, c, cn);
		lt_out_puts(&out, "\":");
		lt_put_us(&out, catns[i]);
	}
	lt_out_puts(&out, "}}}}\n");
}

/*
 * -S FILE: every #stat line, ltjson's own, and one "#span CAT N US" line
 * per category of X events, for the driver's summary.
 */
static void
statfile(const char *path)
{
	struct ltout so;
	struct ltstat st[16];
	const char *tool = NULL, *c;
	char num[LT_NUMBUF];
	size_t i, cn;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
	lt_out_init(&so, fd, path);
	for (i = 0; i < nstats; i++) {
		if (tool == NULL || strcmp(tool, stats[i].tool) != 0) {
			if (tool != NULL)
				lt_out_putc(&so, '\n');
			tool = stats[i].tool;
			lt_out_puts(&so, "#stat\t");
			lt_out_puts(&so, tool);
		}
		lt_out_putc(&so, '\t');
		lt_out_puts(&so, stats[i].key);
		lt_out_putc(&so, '=');
		lt_out_puts(&so, stats[i].val);
	}
	if (tool != NULL)
		lt_out_putc(&so, '\n');
	lt_put_stat(&so, "ltjson", st, mystats(st));
	lt_out_puts(&so, "#duration\t");
	lt_out_write(&so, num, lt_us_fmt(num, duration()));
	lt_out_putc(&so, '\n');
	for (i = 0; i < cats.n; i++) {
		c = lt_strtab_key(&cats, i, &cn);
		lt_out_puts(&so, "#span\t");
		lt_out_write(&so, c, cn);
		lt_out_putc(&so, '\t');
		lt_out_write(&so, num, lt_i64_fmt(num, catn[i]));
		lt_out_putc(&so, '\t');
		lt_out_write(&so, num, lt_us_fmt(num, catns[i]));
		lt_out_putc(&so, '\n');
	}
	lt_out_close(&so);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "offset", required_argument, NULL, 'O' },
		{ "stats", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	struct ltrec rec;
	struct ltrd rd;
	const char *errstr, *sfile = NULL;
	long long v;
	size_t i;
	int c, k;

	lt_setprog(argv[0]);
	lt_jw_init(&jw);
	while ((c = getopt_long(argc, argv, "hO:S:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -O, --offset us  subtract this many microseconds "
			    "from every ts\n"
			    "                   (0: none; default: chosen from "
			    "the first event)\n"
			    "  -S, --stats file also write the counters to "
			    "file\n"
			    "  -h, --help       show this help\n");
			break;
		case 'O':
			v = lt_strtonum(optarg, INT64_MIN / 1000,
			    INT64_MAX / 1000, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-O %s: %s", optarg,
				    errstr);
			jw.offset = (int64_t)v * 1000;
			jw.offset_set = 1;
			break;
		case 'S':
			sfile = optarg;
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_out_init(&out, 1, "<stdout>");
	lt_rd_init(&rd, argc, argv);
	lt_out_puts(&out, "{\"traceEvents\":[\n");
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC)
			event(&rd, &rec);
		else if (strncmp(rec.line, "#stat\t", 6) == 0)
			addstat(&rd, rec.line);
		else if (strncmp(rec.line, "#top\t", 5) == 0)
			addtop(&rd, rec.line, rec.len);
	}
	lt_rd_done(&rd);
	lt_out_puts(&out, nevents > 0 ? "\n]" : "]");
	lt_out_write(&out, tops.p, tops.n);
	metadata();
	lt_out_close(&out);
	if (sfile != NULL)
		statfile(sfile);

	for (i = 0; i < nstats; i++) {
		free(stats[i].tool);
		free(stats[i].key);
		free(stats[i].val);
	}
	free(stats);
	lt_jw_free(&jw);
	lt_buf_free(&tops);
	lt_buf_free(&usermeta);
	putstr(NULL);
	lt_strtab_free(&pids);
	lt_strtab_free(&cats);
	free(catns);
	free(catn);
	for (i = 0; i < threads.n; i++)
		free(thr[i].s);
	free(thr);
	lt_strtab_free(&threads);
	return jw.clamped > 0 ? LT_EXIT_DATA : LT_EXIT_OK;
}
