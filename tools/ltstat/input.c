/* See LICENSE file for copyright and license details. */
/*
 * input.c: the records of the stream, one by one, to what run.c learns.
 *
 * X records are the spans (batch, dataloader, download, read and delete
 * matter; every one counts in its category), instants count as slices
 * of no duration, M records name threads, B and E records are counted
 * as not paired.  A malformed column that ltstat reads is bad data: the
 * message is returned, for the caller to say where.
 */
#include "ltstat.h"

static const char badts[] = "column ts: not microseconds (-?D+ with at "
    "most 3 decimals) or -";
static const char baddur[] = "column dur: not microseconds (-?D+ with at "
    "most 3 decimals) or -";

/* Is this X record one that ltpair closed itself (unmatched_B)? */
static int
openmark(const struct ltfield *args)
{
	static const char mark[] = "\"ltpair\":\"unmatched_B\"}";
	size_t n = sizeof(mark) - 1;

	return args->n > n && memcmp(args->p + args->n - n, mark, n) == 0 &&
	    (args->p[args->n - n - 1] == ',' ||
	    args->p[args->n - n - 1] == '{');
}

/* The chunk arg of a sample, or -1 (args taken on trust). */
static int64_t
chunkarg(const struct ltfield *args)
{
	const char *v;
	size_t vn;
	int64_t n;

	if ((v = lt_json_member(args->p, args->n, "chunk", &vn)) == NULL ||
	    lt_int_parse(v, vn, &n) != LT_NUM_OK)
		return -1;
	return n;
}

/*
 * The spans of a worker's work other than a chunk's download, read or
 * delete: a prefetch (its args read: it may be an async gather), a
 * sample or a decompression (only the chunk arg, and only when a
 * download of the process may overlap it: there are many).
 */
static const char *
work(struct proc *p, const struct ltrec *rec, struct ev *ev)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	const char *why;

	if (LT_IS(*nm, "prefetch")) {
		if ((why = st_args(p, &rec->f[LT_ARGS], ev, 1)) != NULL)
			return why;
		st_prefetch(ev);
		if (ev->chunks != 0)
			st_act(ev, 'g');
		return NULL;
	}
	if (!p->known && (why = st_args(p, &rec->f[LT_ARGS], ev, 0)) != NULL)
		return why;
	ev->open = openmark(&rec->f[LT_ARGS]);
	ev->chunk = p->x->dlhi > ev->ts || !p->prefetched ?
	    chunkarg(&rec->f[LT_ARGS]) : -1;
	if (nm->p[0] == 's')
		p->sample = 1;
	st_act(ev, nm->p[0] == 's' ? 's' : 'x');
	return NULL;
}

static const char *
span(const struct ltrec *rec)
{
	static char prefetch[] = "prefetch";
	const struct ltfield *nm = &rec->f[LT_NAME];
	struct ltfield cat;
	const char *why;
	struct ev ev;
	struct proc *p;
	struct group *g;
	int r1, r2;

	if ((r1 = lt_rec_ts(rec, LT_TS, &ev.ts)) < 0)
		return badts;
	if ((r2 = lt_rec_ts(rec, LT_DUR, &ev.dur)) < 0)
		return baddur;
	if (r1 == 0 || r2 == 0) {
		ST.untimed++;
		return NULL;
	}
	if (ev.dur < 0) {
		ST.negdur++;
		return NULL;
	}
	if (ev.ts > INT64_MAX - ev.dur)
		ev.dur = INT64_MAX - ev.ts;
	if (!ST.hasmin || ev.ts < ST.min)
		ST.min = ev.ts;
	ST.hasmin = 1;
	if ((p = st_proc(&rec->f[LT_PID], &rec->f[LT_TID], &ev.t,
	    &why)) == NULL)
		return why;
	/* A prefetch encloses the downloads it makes: a row of its own. */
	cat = rec->f[LT_CAT];
	if (LT_IS(*nm, "prefetch") && LT_IS(cat, "download")) {
		cat.p = prefetch;
		cat.n = sizeof(prefetch) - 1;
	}
	if ((why = st_cat(&cat, ev.dur)) != NULL)
		return why;
	ST.x++;
	if (openmark(&rec->f[LT_ARGS]))
		ST.open++;
	if (!p->hasfirst || ev.ts < p->first) {
		p->first = ev.ts;
		p->hasfirst = 1;
	}
	if (LT_IS(*nm, "batch") || LT_IS(*nm, "dataloader") ||
	    LT_IS(*nm, "download") || LT_IS(*nm, "read") ||
	    LT_IS(*nm, "delete")) {
		if ((why = st_args(p, &rec->f[LT_ARGS], &ev, 1)) != NULL)
			return why;
		switch (nm->p[1]) {
		case 'a':
			if (nm->p[0] == 'b')
				st_batch(&ev);
			else
				st_loader(&ev);
			break;
		case 'o':
			st_io(&ev, 'd');
			st_act(&ev, 'd');
			break;
		case 'e':
			st_io(&ev, nm->p[0] == 'r' ? 'r' : 'x');
			if (nm->p[0] == 'r')
				st_act(&ev, 'r');
			else if ((g = st_grp(p)) != NULL)
				g->haschunk = 1;
			break;
		}
	} else if (LT_IS(*nm, "prefetch") || LT_IS(*nm, "sample") ||
	    LT_IS(*nm, "decompress")) {
		if ((why = work(p, rec, &ev)) != NULL)
			return why;
	}
	if (p->io) {
		st_ctr_advance(p, ev.ts + ev.dur);
		st_chunk_expire(p);
	}
	if ((g = st_grp(p)) != NULL)
		st_cause_tick(g, ev.ts + ev.dur);
	/* A PyTorch profiler's event (kineto.c sees only its categories). */
	st_kin_span(rec, ev.ts, ev.dur);
	return NULL;
}

static int
contains(const struct ltfield *f, const char *s)
{
	size_t i, n = strlen(s);

	for (i = 0; i + n <= f->n; i++)
		if (memcmp(f->p + i, s, n) == 0)
			return 1;
	return 0;
}

/* The bytes of JSON string contents p[0..n) to keep at most max of. */
static size_t
cut(const char *p, size_t n, size_t max)
{
	size_t i = 0, k;

	if (n <= max)
		return n;
	for (;;) {
		k = p[i] == '\\' ? (p[i + 1] == 'u' ? 6 : 2) : 1;
		while (k == 1 && i + k < n && ((unsigned char)p[i + k] & 0xc0) ==
		    0x80)
			k++;
		if (i + k > max)
			return i;
		i += k;
	}
}

/*
 * The first crash: its process, and what its error or exception arg
 * says (args taken on trust; a process not met yet is not made).
 */
static void
crash(const struct ltrec *rec, int64_t ts)
{
	const struct ltfield *a = &rec->f[LT_ARGS];
	const char *v;
	size_t vn;

	ST.crashts = ts;
	ST.crashp = lt_id_get(&ST.procs, &rec->f[LT_PID], NULL, 0, NULL);
	if (((v = lt_json_member(a->p, a->n, "error", &vn)) != NULL ||
	    (v = lt_json_member(a->p, a->n, "exception", &vn)) != NULL) &&
	    vn >= 2 && v[0] == '"') {
		vn = cut(v + 1, vn - 2, 300);
		ST.crashmsg = lt_malloc(vn + 1);
		memcpy(ST.crashmsg, v + 1, vn);
		ST.crashmsg[vn] = '\0';
	}
}

static const char *
instant(const struct ltrec *rec)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	const char *why;
	int64_t ts;
	int r;

	if ((r = lt_rec_ts(rec, LT_TS, &ts)) < 0)
		return badts;
	if (r == 0) {
		ST.untimed++;
		return NULL;
	}
	/* Perfetto makes an instant a slice of no duration. */
	if ((why = st_cat(&rec->f[LT_CAT], 0)) != NULL)
		return why;
	ST.instants++;
	if (LT_IS(*nm, "crash") || contains(nm, "crashed")) {
		ST.crashes++;
		if (ST.crashes == 1)
			crash(rec, ts);
	}
	return NULL;
}

const char *
st_record(const struct ltrec *rec)
{
	const struct ltfield *ph = &rec->f[LT_PH];

	if ((++ST.records & (SLEEPEVERY - 1)) == 0)
		st_sleep_sweep();
	if (ph->n != 1)
		return "column ph: not a one-character phase";
	switch (ph->p[0]) {
	case 'X':
		return span(rec);
	case 'i':
	case 'I':
		return instant(rec);
	case 'B':
	case 'E':
		ST.be++;
		break;
	case 'M':
		return st_meta(rec);
	}
	return NULL;
}

/*
 * #config PID TEXT (ltparse): a configuration line of the log, kept
 * once per text (at most CFG_MAX texts), for the report to quote.
 */
static void
config(const char *line, size_t n)
{
	const char *tab;
	size_t i;

	ST.cfglines++;
	if ((tab = memchr(line + 8, '\t', n - 8)) == NULL)
		return;
	n -= (size_t)(tab + 1 - line);
	line = tab + 1;
	for (i = 0; i < ST.ncfg; i++)
		if (strlen(ST.cfg[i].text) == n &&
		    memcmp(ST.cfg[i].text, line, n) == 0) {
			ST.cfg[i].n++;
			return;
		}
	if (ST.ncfg == CFG_MAX || memchr(line, '\0', n) != NULL)
		return;
	ST.cfg = lt_grow(ST.cfg, &ST.capcfg, ST.ncfg + 1, sizeof(*ST.cfg));
	ST.cfg[ST.ncfg].text = lt_malloc(n + 1);
	memcpy(ST.cfg[ST.ncfg].text, line, n);
	ST.cfg[ST.ncfg].text[n] = '\0';
	ST.cfg[ST.ncfg++].n = 1;
}

/* #t0 before any record: the time "at" counts from, as ltfilter -T. */
const char *
st_directive(const char *line, size_t n)
{
	if (n > 8 && memcmp(line, "#config\t", 8) == 0) {
		config(line, n);
		return NULL;
	}
	if (n > 5 && memcmp(line, "#top\t", 5) == 0) {
		st_kin_top(line, n);
		return NULL;
	}
	if (n >= 4 && memcmp(line, "#lt1", 4) == 0 && (n == 4 ||
	    line[4] == '\t') && ST.records > 0)
		st_kin_segment();
	if (ST.hast0 || ST.records > 0 || n < 4 ||
	    memcmp(line, "#t0\t", 4) != 0)
		return NULL;
	if (lt_us_parse(line + 4, n - 4, &ST.t0) != LT_NUM_OK)
		return "#t0: not microseconds (-?D+ with at most 3 decimals)";
	ST.hast0 = 1;
	return NULL;
}
