/* See LICENSE file for copyright and license details. */
/*
 * tally.c: the counters of the program that writes the trace (ltjson,
 * ltproto): the #stat lines of the stages before it, events by phase,
 * processes, the time from the first event to the last end, and the
 * summed span time per category of slices (X, and B/E pairs).  The
 * driver's summary line is made of them (-S); ltjson also writes them
 * into its trace's metadata.
 */
#include <stdlib.h>
#include <string.h>

#include "lt.h"
#include "bytes.h"
#include "strtab.h"
#include "tally.h"

struct stat1 {
	char	*tool;
	char	*key;
	char	*val;
};

/* The last strings looked up in a table. */
#define NMEMO	8

struct memo {
	struct {
		char	 p[24];
		size_t	 n1;		/* length + 1; 0: none */
		size_t	 i;
	}		 e[NMEMO];
	unsigned	 hit;		/* the entry found last */
	unsigned	 next;		/* the entry replaced next */
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

LT_STAGE static struct stat1	*stats;
LT_STAGE static size_t		 nstats, capstats;
LT_STAGE static long long	 nevents;
LT_STAGE static long long	 nph[128];
LT_STAGE static struct ltstrtab	 pids;		/* distinct processes */
LT_STAGE static struct ltstrtab	 cats;		/* categories of slices */
LT_STAGE static int64_t		*catns;		/* summed dur per category */
LT_STAGE static long long	*catn;
LT_STAGE static size_t		 capcats;
LT_STAGE static int64_t		 tsmin = INT64_MAX, tsmax = INT64_MIN;
LT_STAGE static struct ltstrtab	 threads;
LT_STAGE static struct opens	*thr;
LT_STAGE static size_t		 capthr;
LT_STAGE static struct ltbuf	 thrkey;	/* pid TAB tid */
LT_STAGE static struct memo	 pidmemo;
LT_STAGE static struct memo	 catmemo;

void
lt_tally_stat(struct ltrd *rd, char *line)
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

/*
 * The index of f in t, remembering the last ones looked up: records of
 * one process, and of one category, come in runs, and the runs of a
 * few processes (a rank's workers) interleave.
 */
static size_t
memoget(struct memo *m, struct ltstrtab *t, const struct ltfield *f,
    int *isnew)
{
	unsigned e = m->hit;

	*isnew = 0;
	if (f->n + 1 == m->e[e].n1 && lt_same(f->p, m->e[e].p, f->n))
		return m->e[e].i;
	for (e = 0; e < NMEMO; e++)
		if (f->n + 1 == m->e[e].n1 && lt_same(f->p, m->e[e].p, f->n)) {
			m->hit = e;
			return m->e[e].i;
		}
	e = m->next;
	m->next = (e + 1) % NMEMO;
	m->hit = e;
	m->e[e].i = lt_strtab_get(t, f->p, f->n, isnew);
	m->e[e].n1 = f->n <= sizeof(m->e[e].p) ? f->n + 1 : 0;
	if (m->e[e].n1 != 0)
		memcpy(m->e[e].p, f->p, f->n);
	return m->e[e].i;
}

/* The summed span time of a category: its index, added if new. */
static size_t
catindex(const struct ltfield *cat)
{
	size_t i;
	int isnew;

	i = memoget(&catmemo, &cats, cat, &isnew);
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
	struct opens *o;
	uint64_t name;
	size_t t, i;
	int isnew;

	thrkey.n = 0;
	lt_buf_add(&thrkey, rec->f[LT_PID].p, rec->f[LT_PID].n);
	lt_buf_addc(&thrkey, '\t');
	lt_buf_add(&thrkey, rec->f[LT_TID].p, rec->f[LT_TID].n);
	t = lt_strtab_get(&threads, thrkey.p, thrkey.n, &isnew);
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

/* hasts, hasdur: the column was not "-". */
void
lt_tally_event(const struct ltrec *rec, int hasts, int64_t ts, int hasdur,
    int64_t dur)
{
	int ph = rec->f[LT_PH].p[0], isnew;

	nph[ph & 127]++;
	nevents++;
	if (!LT_ISNONE(rec->f[LT_PID]))
		memoget(&pidmemo, &pids, &rec->f[LT_PID], &isnew);
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

size_t
lt_tally_counts(struct ltstat *st)
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
	return k;
}

/* Saturated (a test's extremes). */
int64_t
lt_tally_duration(void)
{
	if (tsmax <= tsmin)
		return 0;
	return tsmin < 0 && tsmax > INT64_MAX + tsmin ? INT64_MAX :
	    tsmax - tsmin;
}

size_t
lt_tally_nstats(void)
{
	return nstats;
}

void
lt_tally_statat(size_t i, const char **tool, const char **key,
    const char **val)
{
	*tool = stats[i].tool;
	*key = stats[i].key;
	*val = stats[i].val;
}

size_t
lt_tally_ncats(void)
{
	return cats.n;
}

/* Category i: its name (length in *len), slices, summed ns. */
const char *
lt_tally_cat(size_t i, size_t *len, int64_t *ns)
{
	*ns = catns[i];
	return lt_strtab_key(&cats, i, len);
}

void
lt_tally_file(const char *path, const char *tool, const struct ltstat *mine,
    size_t nmine)
{
	struct ltout so;
	const char *t = NULL, *c;
	char num[LT_NUMBUF];
	size_t i, cn;

	lt_out_init(&so, lt_out_create(path), path);
	for (i = 0; i < nstats; i++) {
		if (t == NULL || strcmp(t, stats[i].tool) != 0) {
			if (t != NULL)
				lt_out_putc(&so, '\n');
			t = stats[i].tool;
			lt_out_puts(&so, "#stat\t");
			lt_out_puts(&so, t);
		}
		lt_out_putc(&so, '\t');
		lt_out_puts(&so, stats[i].key);
		lt_out_putc(&so, '=');
		lt_out_puts(&so, stats[i].val);
	}
	if (t != NULL)
		lt_out_putc(&so, '\n');
	lt_put_stat(&so, tool, mine, nmine);
	lt_out_puts(&so, "#duration\t");
	lt_out_write(&so, num, lt_us_fmt(num, lt_tally_duration()));
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

/* The value of key of tool's #stat line, "0" when there is none. */
static const char *
statof(const char *tool, const char *key)
{
	size_t i;

	for (i = 0; i < nstats; i++)
		if (strcmp(stats[i].tool, tool) == 0 &&
		    strcmp(stats[i].key, key) == 0)
			return stats[i].val;
	return "0";
}

static int
hasstat(const char *tool)
{
	size_t i;

	for (i = 0; i < nstats && strcmp(stats[i].tool, tool) != 0; i++)
		;
	return i < nstats;
}

static long long
mineof(const struct ltstat *mine, size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n && strcmp(mine[i].key, key) != 0; i++)
		;
	return i < n ? mine[i].val : 0;
}

/* ns as ms: microseconds rounded half up, shortest, as "1.501". */
static void
putms(struct ltout *o, int64_t ns)
{
	char num[LT_NUMBUF];
	int64_t us = ns / 1000 + (ns % 1000 >= 500);

	lt_out_write(o, num, lt_us_fmt(num, us));
}

void
lt_tally_summary(const char *path, const struct ltstat *mine, size_t nmine)
{
	static const char *const own[] = { "B", "E", "X", "I" };
	static const char *const pair[] = { "unmatched_B", "unmatched_E",
	    "crashes" };
	struct ltout o;
	const char *c;
	size_t i, cn;
	long long v;

	lt_out_init(&o, lt_out_create(path), path);
	lt_out_printf(&o, "lines=%s events=%lld skipped=%s",
	    statof("ltparse", "lines"), mineof(mine, nmine, "events"),
	    statof("ltparse", "skipped"));
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		lt_out_printf(&o, " %s=%lld", own[i], mineof(mine, nmine,
		    own[i]));
	for (i = 0; i < sizeof(pair) / sizeof(pair[0]); i++)
		lt_out_printf(&o, " %s=%s", pair[i], statof("ltpair", pair[i]));
	lt_out_printf(&o, " processes=%lld duration_ms=",
	    mineof(mine, nmine, "processes"));
	putms(&o, lt_tally_duration());
	for (i = 0; i < cats.n; i++) {
		c = lt_strtab_key(&cats, i, &cn);
		if (cn == 0)
			continue;
		lt_out_putc(&o, ' ');
		lt_out_write(&o, c, cn);
		lt_out_putc(&o, '=');
		putms(&o, catns[i]);
		lt_out_puts(&o, "ms");
	}
	if (hasstat("ltfilter"))
		lt_out_printf(&o, " filter_kept=%s filter_dropped=%s",
		    statof("ltfilter", "kept"), statof("ltfilter", "dropped"));
	/* times Perfetto could not hold as written (ltjson(1)) */
	if ((v = mineof(mine, nmine, "rounded_ts")) > 0)
		lt_out_printf(&o, " rounded_ts=%lld", v);
	if ((v = mineof(mine, nmine, "clamped_ts")) > 0)
		lt_out_printf(&o, " clamped_ts=%lld", v);
	lt_out_putc(&o, '\n');
	lt_out_close(&o);
}

/* Everything freed, and the counts back to none (for a fuzzer's runs). */
void
lt_tally_free(void)
{
	size_t i;

	for (i = 0; i < nstats; i++) {
		free(stats[i].tool);
		free(stats[i].key);
		free(stats[i].val);
	}
	free(stats);
	for (i = 0; i < threads.n; i++)
		free(thr[i].s);
	free(thr);
	free(catns);
	free(catn);
	lt_strtab_free(&pids);
	lt_strtab_free(&cats);
	lt_strtab_free(&threads);
	lt_buf_free(&thrkey);
	stats = NULL;
	nstats = capstats = 0;
	nevents = 0;
	memset(nph, 0, sizeof(nph));
	catns = NULL;
	catn = NULL;
	capcats = 0;
	tsmin = INT64_MAX;
	tsmax = INT64_MIN;
	thr = NULL;
	capthr = 0;
	memset(&pidmemo, 0, sizeof(pidmemo));
	memset(&catmemo, 0, sizeof(catmemo));
}
