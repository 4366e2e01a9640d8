/* See LICENSE file for copyright and license details. */
/*
 * report.c: ltstat's report, as text for people or as one JSON object
 * (-j, described in ltstat(1)).  Both say the same: per rank and epoch
 * the batches, compute and data-wait time, the longest waits with the
 * I/O in flight during them, per category the count, total and
 * percentiles, per worker its chunks, the slowest chunks, and notes on
 * what the log could not tell.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ltstat.h"

static struct ltout	*o;
static struct proc	**wk;
static size_t		 nwk;
static const char	*notes[24];
static char		 notebuf[24][160];
static struct ltbuf	 lb;		/* a line being made */
static int		 nnotes;

#define pf(...)	lt_out_printf(o, __VA_ARGS__)
#define WIDTH	72		/* of the verdict's lines */

static void note(const char *, ...) LT_PRINTF(1, 2);

static void
note(const char *fmt, ...)
{
	va_list ap;

	if (nnotes == (int)(sizeof(notes) / sizeof(notes[0])))
		return;
	va_start(ap, fmt);
	vsnprintf(notebuf[nnotes], sizeof(notebuf[0]), fmt, ap);
	va_end(ap);
	notes[nnotes] = notebuf[nnotes];
	nnotes++;
}

/* ns as µs, exactly (JSON). */
static void
us(int64_t ns)
{
	lt_put_us(o, ns);
}

/*
 * ns / div rounded half up, in units with three decimals and a suffix:
 * "12.345 ms".  A few calls may share one line: the buffers rotate.
 */
static const char *
fixed(int64_t ns, int64_t div, const char *sign, const char *unit)
{
	static char buf[8][48];
	static int k;
	uint64_t a, u;
	char *b = buf[k++ % 8];

	a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	u = a / (uint64_t)div + (a % (uint64_t)div >= (uint64_t)div / 2);
	snprintf(b, sizeof(buf[0]), "%s%llu.%03llu %s",
	    ns < 0 && u > 0 ? "-" : sign,	/* never -0.000 */ (unsigned long long)(u / 1000),
	    (unsigned long long)(u % 1000), unit);
	return b;
}

/* ns as milliseconds to the µs, for people. */
static const char *
msstr(int64_t ns)
{
	return fixed(ns, 1000, "", "ms");
}

static void
ms(int64_t ns)
{
	pf("%s", msstr(ns));
}

/* A time after t0, in seconds to the ms. */
static void
at(int64_t ts)
{
	pf("%s", fixed(ssub(ts, ST.t0), 1000000, "+", "s"));
}


static void
pid(const struct proc *p)
{
	lt_out_write(o, lt_id_key(&p->h) + 1, p->h.keyn - 1);
}

static void
jpid(const struct proc *p)
{
	if (p->h.keyn == 2 && lt_id_key(&p->h)[1] == '-')
		pf("null");
	else
		pid(p);
}

static void
who(const struct proc *p)
{
	if (st_prank(p) >= 0 && st_main(p) == NULL && p->worker >= 0)
		pf("rank %lld worker %lld (pid ", (long long)st_prank(p),
		    (long long)p->worker);
	else if (st_prank(p) >= 0)
		pf("rank %lld (pid ", (long long)st_prank(p));
	else
		pf("(pid ");
	pid(p);
	pf(")");
}

static int
rankcmp(const void *a, const void *b)
{
	const struct rank *x = *(struct rank *const *)a;
	const struct rank *y = *(struct rank *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->p->seq > y->p->seq) - (x->p->seq < y->p->seq);
}

static int
wkcmp(const void *a, const void *b)
{
	const struct proc *x = *(struct proc *const *)a;
	const struct proc *y = *(struct proc *const *)b;

	if (st_prank(x) != st_prank(y))
		return st_prank(x) < st_prank(y) ? -1 : 1;
	if (x->worker != y->worker)
		return x->worker < y->worker ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* What was in flight, by process, download before read, by chunk. */
static int
iocmp(const void *a, const void *b)
{
	const struct io *x = a, *y = b;

	if (x->p != y->p)
		return x->p->seq < y->p->seq ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind == 'g' ? -1 : y->kind == 'g' ? 1 :
		    x->kind == 'd' ? -1 : 1;
	return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* Categories by name, as bytes. */
static int
catcmp(const void *a, const void *b)
{
	const struct cat *x = *(struct cat *const *)a;
	const struct cat *y = *(struct cat *const *)b;
	size_t n = CATLEN(x) < CATLEN(y) ? CATLEN(x) : CATLEN(y);
	int r = memcmp(CATNAME(x), CATNAME(y), n);

	if (r != 0)
		return r;
	return (CATLEN(x) > CATLEN(y)) - (CATLEN(x) < CATLEN(y));
}

static void
addwk(void *e)
{
	struct proc *p = e;

	if (p->io)
		wk[nwk++] = p;
}

static int64_t
mean(int64_t sum, long long n)
{
	return n > 0 ? sum / n : 0;
}

/* -------- notes: what the log could not tell -------- */

static void
mknotes(void)
{
	long long late = 0, forced = 0, epopen = 0, clash = 0;
	struct fig f;
	size_t i, j;
	int inexact = 0;

	for (i = 0; i < nwk; i++) {
		st_fig(wk[i], &f);
		late += f.ctr.late;
		forced += f.ctr.forced;
	}
	for (i = 0; i < ST.nranks; i++) {
		for (j = 0; j < ST.ranks[i]->nep; j++)
			epopen += ST.ranks[i]->ep[j].open;
		clash += ST.ranks[i]->wtidclash && ST.ranks[i]->nwaits > 0;
	}
	for (i = 0; i < ST.ncats; i++)
		inexact |= !st_hist_isexact(&ST.cats[i]->h);
	if (ST.nbatch == 0 && !SV.kineto)
		note("no batch spans (LitData writes them from 0.2.68 on, at "
		    "tracer level batch or above): compute and data-wait "
		    "time are unknown");
	else if (ST.nloader == 0)
		note("no dataloader spans: the wait before the first batch "
		    "of each epoch is unknown");
	if (ST.ndl == 0 && ST.nrd > 0)
		note("no download spans (async prefetch without spans, or "
		    "filtered out): no download figures");
	if (ST.ndl > 0 && ST.ndel == 0)
		note("no delete spans: chunks in the cache are never "
		    "released");
	if (ST.gen_v1 > 0)
		note("LitData before 0.2.57 reports worker 0 for every "
		    "worker: workers are told apart by pid");
	if (ST.itemreads > 0)
		note("%lld read spans are of one item each (LitData before "
		    "0.2.57): reads count items, not chunks", ST.itemreads);
	if (ST.gen_old > 0)
		note("LitData before 0.2.68 never closes the last read of "
		    "a worker epoch: it is counted as open");
	if (ST.open > 0)
		note("%lld spans were left open (a crash, a break or a cut "
		    "log): they end at the last event of their thread",
		    ST.open);
	if (epopen > 0)
		note("epochs left open: %lld", epopen);
	if (ST.crashes > 0)
		note("crash instants: %lld", ST.crashes);
	if (ST.be > 0)
		note("%lld B and E records are not paired: run ltpair "
		    "before ltstat", ST.be);
	if (ST.untimed > 0 || ST.negdur > 0)
		note("%lld X records without ts or dur and %lld with a "
		    "negative dur are left out", ST.untimed, ST.negdur);
	if (ST.overlaps > 0)
		note("%lld batches begin before the previous one ends "
		    "(a clock step?): no wait is counted there", ST.overlaps);
	if (late > 0 || forced > 0)
		note("chunk counters: %lld changes came too late to be in "
		    "order and %lld were written early; their values may "
		    "be off", late, forced);
	if (clash > 0)
		note("%lld wait tracks share their tid with a thread of the "
		    "input", clash);
	if (ST.gathered > 0)
		note("%lld chunks were fetched by async gathers, with no "
		    "download span of their own: counted as downloaded, in a "
		    "gather", ST.gathered);
	if (ST.unfinished > 0)
		note("%lld downloads never finished (left open by a crash or "
		    "a cut log): not counted as downloaded", ST.unfinished);
	if (ST.late > 0)
		note("%lld worker spans came after the waits they may overlap "
		    "were split by cause: those splits may be off", ST.late);
	if (ST.job.forced > 0)
		note("%lld steps were counted before every rank had reported "
		    "them (ranks far apart in the stream)", ST.job.forced);
	if (inexact)
		note("percentiles marked ~ come from log buckets: at most "
		    "0.2%% above the exact value");
}

/* -------- text -------- */

static void
twait(const struct wait *w)
{
	const struct proc *p;
	int i, j, k, kind, any;

	pf("    ");
	ms(w->dur);
	if (w->batch >= 0)
		pf(" before batch %lld", (long long)w->batch);
	else
		pf(" before a batch");
	if (w->epoch >= 0)
		pf(" of epoch %lld", (long long)w->epoch);
	pf(", at ");
	at(w->ts);
	if (w->split) {
		lb.n = 0;
		st_causes(&lb, w->cause, 0);
		pf(": %.*s", (int)lb.n, lb.p);
	}
	pf("\n");
	if (w->nit == 0)
		pf("      no download or read in flight\n");
	/* Grouped by process: downloading ..., reading ... */
	for (i = 0; i < w->nit; i++) {
		p = w->it[i].p;
		for (j = 0; j < i && w->it[j].p != p; j++)
			;
		if (j < i)
			continue;
		pf("      ");
		who(p);
		pf(":");
		for (kind = 'g', k = 0; kind != 0; kind = kind == 'g' ? 'd' :
		    kind == 'd' ? 'r' : 0) {
			for (j = i, any = 0; j < w->nit; j++) {
				if (w->it[j].p != p || w->it[j].kind != kind)
					continue;
				if (kind == 'g' && w->it[j].chunk == 0)
					continue;
				if (kind == 'g') {
					pf("%s gathering %lld chunk%s",
					    k++ > 0 ? ";" : "",
					    (long long)w->it[j].chunk,
					    w->it[j].chunk == 1 ? "" : "s");
					continue;
				}
				if (any++ == 0)
					pf("%s %s", k++ > 0 ? ";" : "",
					    kind == 'd' ? "downloading" :
					    "reading");
				if (w->it[j].chunk >= 0)
					pf(" %lld", (long long)w->it[j].chunk);
				else
					pf(" ?");
			}
		}
		pf("\n");
	}
	if (w->more > 0)
		pf("      and %lld more\n", w->more);
}

/* The time of each cause of a wait, largest first, and its share. */
static void
bycause(const int64_t *c)
{
	lb.n = 0;
	st_causes(&lb, c, 1);
	pf(" %.*s\n", (int)lb.n, lb.p);
}

static void
trank(const struct rank *r)
{
	const struct epoch *e;
	size_t i;
	int k;

	pf("\n");
	who(r->p);
	if (r->batches == 0)
		pf(": no batch spans\n");
	else {
		pf(": %lld batch%s", r->batches, r->batches == 1 ? "" : "es");
		if (r->open_batches > 0)
			pf(" (%lld open)", r->open_batches);
		pf(", compute ");
		ms(r->compute);
		pf(", data wait ");
		ms(r->wait);
		pf(" (%.1f%%)\n", 100 * st_share(r->wait, r->compute));
		if (r->wait > 0) {
			pf("  wait by cause:");
			bycause(r->cause);
		}
	}
	for (i = 0; i < r->nep; i++) {
		e = &r->ep[i];
		pf("  epoch ");
		if (e->num >= 0)
			pf("%lld", (long long)e->num);
		else
			pf("?");
		if (e->hasloader) {
			pf(" at ");
			at(e->ts);
			pf(", ");
			ms(e->dur);
			if (e->open)
				pf(" (open)");
		}
		if (e->batches == 0) {
			pf("\n");
			continue;
		}
		pf(": %lld batch%s, compute ", e->batches,
		    e->batches == 1 ? "" : "es");
		ms(e->compute);
		pf(", wait ");
		ms(e->wait);
		pf(" (%.1f%%)", 100 * st_share(e->wait, e->compute));
		if (e->first > 0) {
			pf(", first batch after ");
			ms(e->first);
		}
		pf("\n");
		if (e->wait > 0) {
			pf("    by cause:");
			bycause(e->cause);
		}
	}
	if (r->ntop > 0)
		pf("  longest waits:\n");
	for (k = 0; k < r->ntop; k++)
		twait(&r->top[k]);
}

static void
tcats(void)
{
	struct cat *c;
	size_t i;
	int ex, k;
	static const int pc[] = { 50, 95, 99 };

	if (ST.ncats == 0)
		return;
	pf("\n%-12s %9s %16s %14s %14s %14s %14s\n", "category", "count",
	    "total", "p50", "p95", "p99", "max");
	for (i = 0; i < ST.ncats; i++) {
		c = ST.cats[i];
		ex = st_hist_isexact(&c->h);
		if (CATLEN(c) > 0)
			pf("%-12.*s", (int)CATLEN(c), CATNAME(c));
		else
			pf("%-12s", "(none)");
		pf(" %9lld %16s", c->h.n, msstr(c->h.sum));
		for (k = 0; k < 3; k++)
			pf(" %s%13s", ex ? " " : "~",
			    msstr(st_hist_pct(&c->h, pc[k])));
		pf(" %14s\n", msstr(c->h.max));
	}
}

static void
tworkers(void)
{
	const struct proc *p;
	struct fig f;
	size_t i;

	if (nwk == 0)
		return;
	pf("\nworkers:\n");
	for (i = 0; i < nwk; i++) {
		p = wk[i];
		st_fig(p, &f);
		pf("  ");
		who(p);
		pf(": %lld downloaded", f.ndl + f.ngather);
		if (f.ndl > 0) {
			pf(" (mean ");
			ms(mean(f.dlsum, f.ndl));
			if (f.ngather > 0)
				pf("; %lld in a gather", f.ngather);
			pf(")");
		} else if (f.ngather > 0)
			pf(" (%lld in a gather)", f.ngather);
		if (f.nunfin > 0)
			pf(", %lld unfinished", f.nunfin);
		pf(", %lld read", f.nrd);
		if (f.nrd > 0) {
			pf(" (mean ");
			ms(mean(f.rdsum, f.nrd));
			pf(")");
		}
		pf(", %lld deleted, at most %lld in the cache and %lld "
		    "downloading\n", f.ndel, f.ctr.cachemax, f.ctr.dlmax);
	}
}

static void
tslow(void)
{
	const struct slow *s;
	int i, n, dl = ST.nslowdl > 0;

	n = dl ? ST.nslowdl : ST.nslowrd;
	if (n == 0)
		return;
	pf("\nslowest chunks (%s):\n", dl ? "by download" : "by read");
	for (i = 0; i < n; i++) {
		s = dl ? &ST.slowdl[i] : &ST.slowrd[i];
		pf("  chunk ");
		if (s->chunk >= 0)
			pf("%lld", (long long)s->chunk);
		else
			pf("?");
		pf(" of ");
		who(s->p);
		pf(": %s ", dl ? "download" : "read");
		ms(s->dur);
		pf(" at ");
		at(s->ts);
		if (dl && s->rd >= 0) {
			pf(", read ");
			ms(s->rd);
		}
		if (s->unfin)
			pf(", unfinished (left open)");
		pf("\n");
	}
}

/* UTF-8 characters in s[0..n). */
static size_t
cols(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/*
 * May a line break at the blank at sp?  Not between a number and its
 * unit, nor between a word and the number it names ("epoch 2").
 */
static int
breaks(const char *sp, const char *start, const char *end)
{
	static const char *const named[] = { "epoch", "rank", "batch",
	    "node", "worker", "pid", NULL };
	size_t n;
	int k;

	if (end - sp >= 2 && (unsigned)sp[1] - '0' <= 9)
		for (k = 0; named[k] != NULL; k++) {
			n = strlen(named[k]);
			if ((size_t)(sp - start) >= n &&
			    memcmp(sp - n, named[k], n) == 0)
				return 0;
		}
	if (sp == start || (unsigned)sp[-1] - '0' > 9)
		return 1;
	if (end - sp >= 3 && sp[1] == 'm' && sp[2] == 's' &&
	    (end - sp == 3 || sp[3] == ' ' || sp[3] == ')' || sp[3] == ','))
		return 0;
	return !(end - sp >= 2 && sp[1] == 's' &&
	    (end - sp == 2 || sp[2] == ' ' || sp[2] == ':' || sp[2] == ','));
}

/*
 * A line of JSON string contents, unescaped and wrapped at WIDTH
 * columns (a manual page shows them, indented): first, then cont before
 * each line after the first; with commas, after a comma when one is in
 * the last third of the line.
 */
static void
wrap(const char *first, const char *cont, const struct ltbuf *json,
    int commas)
{
	const char *p, *end, *sp, *brk, *comma;
	size_t w, room;

	lb.n = 0;
	lt_unesc(&lb, json->p, json->n);
	p = lb.p;
	end = lb.p + lb.n;
	pf("%s", first);
	room = WIDTH - strlen(first);
	while (cols(p, (size_t)(end - p)) > room) {
		/* The last blank that leaves at most room columns before it. */
		brk = comma = NULL;
		for (sp = p, w = 0; sp < end && w <= room; sp++) {
			if (*sp == ' ' && breaks(sp, p, end))
				brk = sp;
			if (commas && *sp == ' ' && sp > p && sp[-1] == ',' &&
			    3 * w >= 2 * room)
				comma = sp;
			w += ((unsigned char)*sp & 0xc0) != 0x80;
		}
		if (comma != NULL)
			brk = comma;
		if (brk == NULL)
			for (brk = sp; brk < end && *brk != ' '; brk++)
				;
		if (brk == end)
			break;
		lt_out_write(o, p, (size_t)(brk - p));
		pf("\n%s", cont);
		p = brk + 1;
		room = WIDTH - strlen(cont);
	}
	lt_out_write(o, p, (size_t)(end - p));
	pf("\n");
}

/* Does an attempt of the job have more than one rank? */
static int
multirank(void)
{
	size_t i;

	for (i = 0; i < ST.nnatt; i++)
		if (ST.natt[i] > 1)
			return 1;
	return 0;
}

static const char *
levelstr(int level)
{
	return level == V_HIGH ? "input-bound, high" : level == V_MODERATE ?
	    "input-bound, moderate" : level == V_NOT ? "not input-bound" :
	    "unknown";
}

/* The verdict, first: the job, each rank, why, what to try next. */
static void
tverdict(void)
{
	const struct rank *r;
	struct ltbuf t;
	size_t i, n = 0;
	int k;

	memset(&t, 0, sizeof(t));
	st_bprintf(&t, "%s", levelstr(SV.level));
	if (SV.known && SV.kineto) {
		st_bprintf(&t, ": %.1f%% of the step time is in the "
		    "DataLoader (", 100 * SV.share);
		st_bms(&t, SV.delay);
		st_bprintf(&t, " of ");
		st_bms(&t, SV.time);
		st_bprintf(&t, " in %lld step%s)", SV.steps, SV.steps == 1 ?
		    "" : "s");
	} else if (SV.known) {
		if (multirank())
			st_bprintf(&t, ": the job lost %.1f%% of its step time "
			    "to data waits (", 100 * SV.share);
		else
			st_bprintf(&t, ": data waits are %.1f%% of the step "
			    "time (", 100 * SV.share);
		st_bms(&t, ST.job.delay);
		st_bprintf(&t, " of ");
		st_bms(&t, ST.job.time);
		if (multirank())
			st_bprintf(&t, " in %lld steps", ST.job.steps);
		st_bprintf(&t, ")");
	}
	pf("\n");
	wrap("verdict: ", "  ", &t, 0);
	for (i = 0; i < ST.nranks; i++) {
		r = ST.ranks[i];
		if (r->batches == 0)
			continue;
		if (n++ == 8) {
			pf("  ... and more ranks, below\n");
			break;
		}
		t.n = 0;
		if (r->rank >= 0)
			st_bprintf(&t, "rank %lld", (long long)r->rank);
		else
			st_bprintf(&t, "a rank");
		/* A restarted job has ranks of one number in each run. */
		if (ST.nnatt > 1)
			st_bprintf(&t, " (pid %.*s)", (int)(r->p->h.keyn - 1),
			    lt_id_key(&r->p->h) + 1);
		st_bprintf(&t, ": %s, %.1f%%",
		    st_levelname[st_level(st_share(r->wait, r->compute))],
		    100 * st_share(r->wait, r->compute));
		if (r->wait > 0) {
			st_bprintf(&t, ": ");
			st_causes(&t, r->cause, 0);
		}
		wrap("  ", "    ", &t, 1);
	}
	for (k = 0; k < SV.nwhy; k++)
		wrap("  why: ", "       ", &SV.why[k], 0);
	for (k = 0; k < SV.nnext; k++)
		wrap("  next: ", "        ", &SV.next[k], 0);
	if (SV.known && !SV.kineto) {
		t.n = 0;
		st_bprintf(&t, "without data waits the steps would take ");
		st_bms(&t, ST.job.ideal);
		st_bprintf(&t, " instead of ");
		st_bms(&t, ST.job.time);
		wrap("  headroom: ", "    ", &t, 0);
	}
	lt_buf_free(&t);
}

/* The configuration lines of the log, as it wrote them. */
static void
tconfig(void)
{
	struct ltbuf t;
	size_t i;

	if (ST.ncfg == 0)
		return;
	memset(&t, 0, sizeof(t));
	pf("\nsettings the log reports:\n");
	for (i = 0; i < ST.ncfg; i++) {
		t.n = 0;
		lt_buf_adds(&t, ST.cfg[i].text);
		wrap("  ", "    ", &t, 0);
		if (ST.cfg[i].n > 1)
			pf("    (%lld lines)\n", ST.cfg[i].n);
	}
	lt_buf_free(&t);
}

static void
text(void)
{
	const char *fmt;
	size_t i;
	int n = 0;

	if (ST.gen_v1 + ST.gen_old + ST.gen_new == 0 && st_kin_head(o, ST.x)) {
		tverdict();
		st_kin_text(o);
		tcats();
		if (nnotes > 0)
			pf("\nnotes:\n");
		for (n = 0; n < nnotes; n++)
			pf("  %s\n", notes[n]);
		return;
	}
	fmt = ST.gen_v1 + ST.gen_old + ST.gen_new == 0 ? "no LitData spans" :
	    (ST.gen_v1 > 0) + (ST.gen_old > 0) + (ST.gen_new > 0) > 1 ?
	    "mixed LitData generations" : ST.gen_v1 > 0 ?
	    "LitData before 0.2.57" : ST.gen_old > 0 ?
	    "LitData 0.2.57 to 0.2.67" : "LitData 0.2.68 or later";
	for (i = 0; i < nwk; i++)
		n += st_main(wk[i]) == NULL;
	pf("ltstat: %s; %zu rank process%s, %d worker%s, %lld spans\n", fmt,
	    ST.nranks, ST.nranks == 1 ? "" : "es", n, n == 1 ? "" : "s",
	    ST.x);
	tverdict();
	for (i = 0; i < ST.nranks; i++)
		trank(ST.ranks[i]);
	tcats();
	tworkers();
	tslow();
	tconfig();
	if (nnotes > 0)
		pf("\nnotes:\n");
	for (n = 0; n < nnotes; n++)
		pf("  %s\n", notes[n]);
}

/* -------- JSON -------- */

/* The causes of c as an object of µs, or null without a wait. */
static void
jcause(const int64_t *c, int known)
{
	int k;

	if (!known) {
		pf("null");
		return;
	}
	for (k = 0; k < NCAUSE; k++) {
		pf("%s\"%s\":", k > 0 ? "," : "{", st_causekey[k]);
		us(c[k]);
	}
	pf("}");
}

static void
jwait(const struct wait *w)
{
	int i;

	pf("{\"epoch\":");
	if (w->epoch >= 0)
		pf("%lld", (long long)w->epoch);
	else
		pf("null");
	pf(",\"batch\":");
	if (w->batch >= 0)
		pf("%lld", (long long)w->batch);
	else
		pf("null");
	pf(",\"ts_us\":");
	us(w->ts);
	pf(",\"at_us\":");
	us(ssub(w->ts, ST.t0));
	pf(",\"dur_us\":");
	us(w->dur);
	pf(",\"wait_by_cause_us\":");
	jcause(w->cause, w->split);
	pf(",\"in_flight\":[");
	for (i = 0; i < w->nit; i++) {
		pf("%s{\"pid\":", i > 0 ? "," : "");
		jpid(w->it[i].p);
		if (w->it[i].kind == 'g') {
			pf(",\"kind\":\"gather\",\"chunks\":%lld}",
			    (long long)w->it[i].chunk);
			continue;
		}
		/* (A gather left without chunks is listed with 0.) */
		pf(",\"kind\":\"%s\",\"chunk\":",
		    w->it[i].kind == 'd' ? "download" : "read");
		if (w->it[i].chunk >= 0)
			pf("%lld}", (long long)w->it[i].chunk);
		else
			pf("null}");
	}
	pf("],\"more\":%lld}", w->more);
}

static void
jrank(const struct rank *r)
{
	const struct epoch *e;
	size_t i;
	int k;

	pf("{\"rank\":");
	if (r->rank >= 0)
		pf("%lld", (long long)r->rank);
	else
		pf("null");
	pf(",\"pid\":");
	jpid(r->p);
	pf(",\"node\":");
	if (r->p->x->node >= 0)
		pf("%lld", r->p->x->node);
	else
		pf("null");
	if (r->batches > 0)
		pf(",\"verdict\":\"%s\",\"wait_share\":%.4f",
		    st_levelname[st_level(st_share(r->wait, r->compute))],
		    st_share(r->wait, r->compute));
	else
		pf(",\"verdict\":null,\"wait_share\":null");
	pf(",\"wait_us\":");
	if (r->batches > 0)
		us(r->wait);
	else
		pf("null");
	pf(",\"wait_by_cause_us\":");
	jcause(r->cause, r->batches > 0);
	pf(",\"cause\":");
	if (r->wait > 0)
		pf("\"%s\"", st_causekey[st_cause_top(r->cause)]);
	else
		pf("null");
	pf(",\"batches\":%lld,\"open_batches\":%lld,\"compute_us\":",
	    r->batches, r->open_batches);
	if (r->batches > 0)
		us(r->compute);
	else
		pf("null");
	pf(",\"waits\":%lld,\"slowest_steps\":%lld,\"slowest_us\":",
	    r->nwaits, r->nslow);
	us(r->slowus);
	pf(",\"epochs\":[");
	for (i = 0; i < r->nep; i++) {
		e = &r->ep[i];
		pf("%s{\"epoch\":", i > 0 ? "," : "");
		if (e->num >= 0)
			pf("%lld", (long long)e->num);
		else
			pf("null");
		if (e->hasloader) {
			pf(",\"ts_us\":");
			us(e->ts);
			pf(",\"dur_us\":");
			us(e->dur);
		} else
			pf(",\"ts_us\":null,\"dur_us\":null");
		pf(",\"open\":%s,\"batches\":%lld,\"open_batches\":%lld,"
		    "\"compute_us\":", e->open ? "true" : "false", e->batches,
		    e->open_batches);
		us(e->compute);
		pf(",\"wait_us\":");
		us(e->wait);
		pf(",\"first_wait_us\":");
		if (e->first > 0)
			us(e->first);
		else
			pf("null");
		pf(",\"wait_by_cause_us\":");
		jcause(e->cause, e->batches > 0);
		pf(",\"cause\":");
		if (e->wait > 0)
			pf("\"%s\"", st_causekey[st_cause_top(e->cause)]);
		else
			pf("null");
		if (e->batches > 0)
			pf(",\"wait_share\":%.4f}",
			    st_share(e->wait, e->compute));
		else
			pf(",\"wait_share\":null}");
	}
	pf("],\"longest_waits\":[");
	for (k = 0; k < r->ntop; k++) {
		if (k > 0)
			pf(",");
		jwait(&r->top[k]);
	}
	pf("]}");
}

static void
jcats(void)
{
	struct cat *c;
	size_t i;

	pf("\"categories\":{");
	for (i = 0; i < ST.ncats; i++) {
		c = ST.cats[i];
		pf("%s\"", i > 0 ? "," : "");
		lt_out_write(o, CATNAME(c), CATLEN(c));
		pf("\":{\"count\":%lld,\"total_us\":", c->h.n);
		us(c->h.sum);
		pf(",\"p50_us\":");
		us(st_hist_pct(&c->h, 50));
		pf(",\"p95_us\":");
		us(st_hist_pct(&c->h, 95));
		pf(",\"p99_us\":");
		us(st_hist_pct(&c->h, 99));
		pf(",\"max_us\":");
		us(c->h.max);
		pf(",\"exact\":%s}", st_hist_isexact(&c->h) ? "true" : "false");
	}
	pf("}");
}

static void
jnum(int64_t v)
{
	if (v >= 0)
		pf("%lld", (long long)v);
	else
		pf("null");
}

static void
jworkers(void)
{
	const struct proc *p;
	struct fig f;
	size_t i;

	pf("\"workers\":[");
	for (i = 0; i < nwk; i++) {
		p = wk[i];
		st_fig(p, &f);
		pf("%s{\"rank\":", i > 0 ? "," : "");
		jnum(st_prank(p));
		pf(",\"worker\":");
		jnum(st_main(p) == NULL ? p->worker : -1);
		pf(",\"pid\":");
		jpid(p);
		pf(",\"downloaded\":%lld,\"gathered\":%lld,\"unfinished\":"
		    "%lld,\"read\":%lld,\"deleted\":%lld,"
		    "\"download_mean_us\":", f.ndl + f.ngather, f.ngather,
		    f.nunfin, f.nrd, f.ndel);
		if (f.ndl > 0)
			us(mean(f.dlsum, f.ndl));
		else
			pf("null");
		pf(",\"read_mean_us\":");
		if (f.nrd > 0)
			us(mean(f.rdsum, f.nrd));
		else
			pf("null");
		pf(",\"held_max\":%lld,\"downloading_max\":%lld}",
		    f.ctr.cachemax, f.ctr.dlmax);
	}
	pf("]");
}

static void
jslow(void)
{
	const struct slow *s;
	int i, n, dl = ST.nslowdl > 0;

	n = dl ? ST.nslowdl : ST.nslowrd;
	pf("\"slowest_chunks\":[");
	for (i = 0; i < n; i++) {
		s = dl ? &ST.slowdl[i] : &ST.slowrd[i];
		pf("%s{\"pid\":", i > 0 ? "," : "");
		jpid(s->p);
		pf(",\"rank\":");
		jnum(st_prank(s->p));
		pf(",\"worker\":");
		jnum(st_main(s->p) == NULL ? s->p->worker : -1);
		pf(",\"chunk\":");
		jnum(s->chunk);
		pf(",\"ts_us\":");
		us(s->ts);
		pf(",\"download_us\":");
		if (dl)
			us(s->dur);
		else
			pf("null");
		pf(",\"read_us\":");
		if (!dl)
			us(s->dur);
		else if (s->rd >= 0)
			us(s->rd);
		else
			pf("null");
		pf(",\"unfinished\":%s}", s->unfin ? "true" : "false");
	}
	pf("]");
}

static void
json(void)
{
	size_t i;
	int n;

	pf("{\"schema_version\":1,\"kind\":\"%s\",\"verdict\":",
	    SV.kineto ? "kineto" : "litdata");
	if (SV.known)
		pf("\"%s\",\"wait_share\":%.4f", st_levelname[SV.level],
		    SV.share);
	else
		pf("null,\"wait_share\":null");
	pf(",\"straggler\":");
	if (SV.straggler >= 0)
		pf("%lld", (long long)SV.straggler);
	else
		pf("null");
	pf(",\"thresholds\":{\"high\":0.2,\"moderate\":0.05},\"job\":");
	if (SV.known && SV.kineto) {
		pf("{\"steps\":%lld,\"delay_us\":", SV.steps);
		us(SV.delay);
		pf(",\"time_us\":");
		us(SV.time);
		pf("},");
		st_kin_jsteps(o);
	} else if (SV.known) {
		pf("{\"steps\":%lld,\"paired\":%lld,\"delay_us\":",
		    ST.job.steps, ST.job.paired);
		us(ST.job.delay);
		pf(",\"time_us\":");
		us(ST.job.time);
		pf(",\"ideal_us\":");
		us(ST.job.ideal);
		pf(",\"headroom_us\":");
		us(ssub(ST.job.time, ST.job.ideal));
		pf(",\"wait_us\":");
		us(SV.wait);
		pf(",\"wait_by_cause_us\":");
		jcause(SV.cause, 1);
		pf("}");
	} else
		pf("null");
	pf(",\"why\":[");
	for (n = 0; n < SV.nwhy; n++)
		pf("%s\"%.*s\"", n > 0 ? "," : "", (int)SV.why[n].n,
		    SV.why[n].p);
	pf("],\"next\":[");
	for (n = 0; n < SV.nnext; n++)
		pf("%s\"%.*s\"", n > 0 ? "," : "", (int)SV.next[n].n,
		    SV.next[n].p);
	pf("],\"config\":[");
	for (i = 0; i < ST.ncfg; i++)
		pf("%s{\"text\":\"%s\",\"lines\":%lld}", i > 0 ? "," : "",
		    ST.cfg[i].text, ST.cfg[i].n);
	pf("],\"format\":{\"new\":%lld,\"old\":%lld,\"v1\":%lld},\"t0_us\":",
	    ST.gen_new, ST.gen_old, ST.gen_v1);
	us(ST.t0);
	pf(",\"spans\":%lld,\"open\":%lld,\"instants\":%lld,\"crashes\":%lld,"
	    "\"ranks\":[", ST.x, ST.open, ST.instants, ST.crashes);
	for (i = 0; i < ST.nranks && !SV.kineto; i++) {
		if (i > 0)
			pf(",");
		jrank(ST.ranks[i]);
	}
	if (SV.kineto)
		st_kin_jranks(o);
	pf("],");
	jcats();
	pf(",");
	jworkers();
	pf(",");
	jslow();
	pf(",\"notes\":[");
	for (n = 0; n < nnotes; n++)
		pf("%s\"%s\"", n > 0 ? "," : "", notes[n]);
	pf("]}\n");
}

void
st_report(struct ltout *out, int asjson)
{
	struct wait *w;
	size_t i;
	int k;

	o = out;
	nnotes = 0;
	wk = lt_reallocarray(NULL, ST.nprocs, sizeof(*wk));
	nwk = 0;
	lt_id_each(&ST.procs, addwk);
	if (nwk > 1)
		qsort(wk, nwk, sizeof(*wk), wkcmp);
	if (ST.nranks > 1)
		qsort(ST.ranks, ST.nranks, sizeof(*ST.ranks), rankcmp);
	if (ST.ncats > 1)
		qsort(ST.cats, ST.ncats, sizeof(*ST.cats), catcmp);
	for (i = 0; i < ST.nranks; i++)
		for (k = 0; k < ST.ranks[i]->ntop; k++)
			if ((w = &ST.ranks[i]->top[k])->nit > 1)
				qsort(w->it, (size_t)w->nit, sizeof(*w->it),
				    iocmp);
	mknotes();
	if (asjson)
		json();
	else
		text();
	free(wk);
	wk = NULL;
	lt_buf_free(&lb);
}
