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
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "strtab.h"

#define SYNOPSIS	"ltjson [-O offset] [-S file] [file ...]"

/* Below 2^42 us Perfetto's ts*1000 in double is exact to the ns. */
#define EXACT_NS	((int64_t)9007199254740992)	/* 2^53 ns */
#define OFFSET_STEP	((int64_t)1000000000000000)	/* 1e12 us in ns */

struct stat1 {
	char	*tool;
	char	*key;
	char	*val;
};

static struct ltout	 out;
static struct ltbuf	 fix[LT_NCOL];	/* canonicalised columns */
static struct ltbuf	 tops;		/* ,"key":value of #top members */
static struct ltbuf	 usermeta;	/* members of a #top metadata */
static struct stat1	*stats;
static size_t		 nstats, capstats;

static int		 offset_set;
static int64_t		 offset;
static long long	 nevents, nrepaired, nnegative;
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

/* The offset for a trace whose first timestamp is ns (see ltjson(1)). */
static int64_t
choose_offset(int64_t ns)
{
	if (ns < EXACT_NS)
		return 0;
	return (ns / OFFSET_STEP - 1) * OFFSET_STEP;
}

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
	char *key, *val, *end = line + len;
	const char *cur, *k, *v;
	size_t kn, vn;
	struct ltjson j;

	if ((key = memchr(line, '\t', len)) == NULL)
		lt_rd_bad(rd, "#top needs a key and a value");
	key++;
	if ((val = memchr(key, '\t', (size_t)(end - key))) == NULL)
		lt_rd_bad(rd, "#top needs a key and a value");
	*val++ = '\0';
	if (lt_json_str(key, strlen(key), NULL, &j) != LT_JSON_OK ||
	    j.flags != 0)
		lt_rd_bad(rd, "#top key is not canonical JSON string contents");
	if (strcmp(key, "traceEvents") == 0)
		lt_rd_bad(rd, "#top traceEvents is not allowed");
	/* Perfetto ignores it (and notes it); times are always us. */
	if (strcmp(key, "displayTimeUnit") == 0)
		return;
	canon.n = 0;
	if (lt_json_whole(val, (size_t)(end - val), &canon, &j) != LT_JSON_OK)
		lt_rd_bad(rd, "#top %s: %s at byte %zu", key, j.err, j.errat);
	if (strcmp(key, "metadata") != 0) {
		lt_buf_add(&tops, ",\n\"", 3);
		lt_buf_adds(&tops, key);
		lt_buf_add(&tops, "\":", 2);
		lt_buf_add(&tops, canon.p, canon.n);
		return;
	}
	if (j.type != '{')
		lt_rd_bad(rd, "#top metadata is not an object");
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

static const struct ltfield *
column(const struct ltrec *rec, int i, int repair)
{
	struct ltjson j;

	if (!repair)
		return &rec->f[i];
	fix[i].n = 0;
	if (i == LT_CAT || i == LT_NAME)
		lt_json_str(rec->f[i].p, rec->f[i].n, &fix[i], &j);
	else
		lt_json_whole(rec->f[i].p, rec->f[i].n, &fix[i], &j);
	return (const struct ltfield *)&fix[i];
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

#define PUTS(w, s)	lt_put((w), (s), sizeof(s) - 1)

/* ,"key":"text" or ,"key":text, key given with its comma and colon */
static char *
member(char *w, const char *key, size_t keyn, const struct ltfield *f,
    int quote)
{
	w = lt_put(w, key, keyn);
	if (quote)
		*w++ = '"';
	w = lt_put(w, f->p, f->n);
	if (quote)
		*w++ = '"';
	return w;
}

#define MEMBER(w, k, f, q)	member((w), (k), sizeof(k) - 1, (f), (q))

/*
 * One event, written straight into the output buffer: the room it needs
 * is known once its columns are (canonicalised when they had to be).
 */
static void
event(struct ltrd *rd, const struct ltrec *rec)
{
	const struct ltfield *cat, *name, *args, *extra;
	const char *why;
	int64_t t[2], ts, dur;
	size_t need;
	int col, r, has[2], hasts, hasdur;
	char *w;

	if ((r = lt_rec_checkts(rec, &why, &col, t, has)) < 0)
		lt_rd_bad(rd, "column %s: %s", lt_colname[col], why);
	if (r > 0)
		nrepaired++;
	ts = t[0];
	dur = t[1];
	hasts = has[0];
	hasdur = has[1];
	if (hasts) {
		if (!offset_set) {
			offset = choose_offset(ts);
			offset_set = 1;
		}
		if (ts < INT64_MIN + offset)
			lt_rd_bad(rd, "column ts: out of range");
		if (ts >= 0 && ts - offset < 0 && nnegative++ == 0)
			lt_warnpos(rd->in.name, rd->in.line, "ts %.*s is "
			    "before the offset chosen from the first event; "
			    "written negative, Perfetto drops it (see -O)",
			    (int)rec->f[LT_TS].n, rec->f[LT_TS].p);
	}
	cat = column(rec, LT_CAT, r);
	name = column(rec, LT_NAME, r);
	args = column(rec, LT_ARGS, r);
	extra = column(rec, LT_EXTRA, r);
	need = rec->f[LT_PID].n + rec->f[LT_TID].n + cat->n + name->n +
	    args->n + extra->n + 2 * LT_NUMBUF + 64;

	w = lt_out_room(&out, need);
	w = nevents > 0 ? PUTS(w, ",\n{") : PUTS(w, "{");
	if (hasts) {
		w = PUTS(w, "\"ts\":");
		w += lt_us_fmt(w, ts - offset);
		w = PUTS(w, ",\"ph\":\"");
	} else
		w = PUTS(w, "\"ph\":\"");
	*w++ = rec->f[LT_PH].p[0];
	*w++ = '"';
	nph[(unsigned char)rec->f[LT_PH].p[0] & 127]++;
	if (!LT_ISNONE(rec->f[LT_PID]))
		w = MEMBER(w, ",\"pid\":", &rec->f[LT_PID], 0);
	if (!LT_ISNONE(rec->f[LT_TID]))
		w = MEMBER(w, ",\"tid\":", &rec->f[LT_TID], 0);
	if (hasdur) {
		w = PUTS(w, ",\"dur\":");
		w += lt_us_fmt(w, dur);
	}
	if (cat->n > 0)
		w = MEMBER(w, ",\"cat\":", cat, 1);
	if (name->n > 0)
		w = MEMBER(w, ",\"name\":", name, 1);
	if (args->n > 2)
		w = MEMBER(w, ",\"args\":", args, 0);
	if (extra->n > 2) {
		*w++ = ',';
		w = lt_put(w, extra->p + 1, extra->n - 2);
	}
	*w++ = '}';
	out.n = (size_t)(w - out.buf);
	nevents++;
	account(rec, hasts, ts, hasdur, dur);
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
	st[k++].val = nrepaired;
	st[k].key = "negative_ts";
	st[k++].val = nnegative;
	return k;
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
	lt_put_us(&out, offset);
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
	lt_put_us(&out, tsmax > tsmin ? tsmax - tsmin : 0);
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
	lt_out_write(&so, num, lt_us_fmt(num, tsmax > tsmin ? tsmax - tsmin :
	    0));
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
	struct ltrec rec;
	struct ltrd rd;
	const char *errstr, *sfile = NULL;
	long long v;
	size_t i;
	int c, k;

	lt_setprog(argv[0]);
	while ((c = getopt(argc, argv, "hO:S:")) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -O offset  subtract this many microseconds "
			    "from every ts (0: none)\n"
			    "  -S file    also write the counters to file\n"
			    "  -h         show this help\n");
			break;
		case 'O':
			v = lt_strtonum(optarg, 0, INT64_MAX / 1000, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-O %s: %s", optarg,
				    errstr);
			offset = (int64_t)v * 1000;
			offset_set = 1;
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
	for (i = 0; i < LT_NCOL; i++)
		lt_buf_free(&fix[i]);
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
	return nnegative > 0 ? LT_EXIT_DATA : LT_EXIT_OK;
}
