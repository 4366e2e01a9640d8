/* See LICENSE file for copyright and license details. */
/*
 * ltcheck: validate a Chrome trace and predict what Perfetto's JSON
 * importer will make of it, offline.
 *
 * Reads one trace (Chrome JSON, object or array form, or an lt1 stream,
 * which is checked as ltjson(1) would write it) in one streaming pass:
 * strict JSON, event counts against those ltjson recorded, and every
 * rule of ltcheck(1) through the model of Perfetto's importer in
 * tools/ltcheck/ (ltcheck.h).  Writes a report on standard output: for
 * people, a counter per line with -t, a summary with -s, nothing with
 * -q.  Exit 1 when Perfetto would show a Trace Error, an Import Error, a
 * Data Loss or fail to load the file.  -P also runs Perfetto's own
 * trace processor (pftp.c) and exits 1 when it counts otherwise.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonw.h"
#include "jsonev.h"
#include "pb.h"
#include "ltcheck.h"

#define SYNOPSIS	"ltcheck [-Pqst] [-V version] [file]"
#define LARGE		1000000000LL	/* PF-LARGE-FILE, bytes */
#define SNIFF		128

enum { MODE_REPORT, MODE_TAB, MODE_QUIET };

/* What ltjson recorded in metadata.litracer.stats.ltjson. */
static const char *const countkeys[] = {
	"events", "B", "E", "X", "I", "M", "C", "flows", "other"
};
#define NCOUNT	(sizeof(countkeys) / sizeof(countkeys[0]))

static struct pfsim	*sim;
static struct pffinds	*fd;	/* the findings of sim */
static struct ltout	 out;
static const char	*fname;
static int		 band = PF_V57;
static int		 version = 58;
static int		 mode = MODE_REPORT;
static int		 sflag;
static int		 form;		/* '{', '[' or 'l' for lt1 */
static long long	 bytes;
static long long	 recorded[NCOUNT];
static int		 hasrecorded;
static char		 mismatch[256];
static char		 synerr[256];

/* -P: the real importer, and the file it imports when not the input. */
static int		 pflag;
static char		*tpprog;	/* NULL: none found */
static struct pftp	 tp;
static char		*tmp;
static int		 copying;	/* an lt1 input as JSON, in tmp */
static struct ltout	 copy;
static long long	 ncopy;

#define putf(...)	lt_out_printf(&out, __VA_ARGS__)

/* -------- top-level members -------- */

static long long
intval(const char *p, size_t n)
{
	int64_t v;

	return lt_int_parse(p, n, &v) == LT_NUM_OK ? v : -1;
}

/* metadata.litracer.stats.ltjson: the counts ltjson wrote. */
static void
metadata(const char *p, size_t n)
{
	const char *v;
	size_t vn, i;

	if ((p = lt_json_member(p, n, "litracer", &n)) == NULL ||
	    (p = lt_json_member(p, n, "stats", &n)) == NULL ||
	    (p = lt_json_member(p, n, "ltjson", &n)) == NULL)
		return;
	for (i = 0; i < NCOUNT; i++) {
		recorded[i] = -1;
		if ((v = lt_json_member(p, n, countkeys[i], &vn)) != NULL)
			recorded[i] = intval(v, vn);
	}
	hasrecorded = 1;
}

static void
top(const struct ltjev *ev)
{
	if (ev->keyn == 8 && memcmp(ev->key, "metadata", 8) == 0)
		metadata(ev->p, ev->n);
	else if (ev->keyn == 15 && memcmp(ev->key, "displayTimeUnit",
	    15) == 0)
		pf_find(fd, "PF-DISPLAY-TIME-UNIT", "json_display_time_unit",
		    PF_INFO, ev->line, NULL);
	else if (ev->keyn == 17 && memcmp(ev->key, "systemTraceEvents",
	    17) == 0) {
		if (ev->type != '"')
			pf_find(fd, "PF-TRACEEVENTS-NOT-ARRAY", "fatal",
			    PF_FATAL, ev->line, "systemTraceEvents is not a "
			    "string");
	} else if ((ev->keyn == 11 && memcmp(ev->key, "stackFrames",
	    11) == 0) || (ev->keyn == 7 && memcmp(ev->key, "samples",
	    7) == 0) || (ev->keyn == 9 && memcmp(ev->key, "otherData",
	    9) == 0))
		pf_find(fd, "SC-TOPLEVEL-IGNORED", NULL, PF_OK, ev->line,
		    NULL);
}

static void
counts(void)
{
	const struct pfsum *sum = pf_sum(sim);
	long long have[NCOUNT];
	size_t i, k = 0;
	int w;

	if (!hasrecorded)
		return;
	have[0] = sum->events;
	have[1] = sum->nph['B'];
	have[2] = sum->nph['E'];
	have[3] = sum->nph['X'];
	have[4] = sum->nph['I'] + sum->nph['i'];
	have[5] = sum->nph['M'];
	have[6] = sum->nph['C'];
	have[7] = sum->nph['s'] + sum->nph['t'] + sum->nph['f'];
	have[8] = have[0];
	for (i = 1; i < 8; i++)
		have[8] -= have[i];
	for (i = 0; i < NCOUNT; i++) {
		if (recorded[i] < 0 || recorded[i] == have[i])
			continue;
		if (k < sizeof(mismatch) - 1) {
			w = snprintf(mismatch + k, sizeof(mismatch) - k,
			    "%s%s recorded %lld, found %lld", k > 0 ? "; " :
			    "", countkeys[i], recorded[i], have[i]);
			if (w > 0)
				k += (size_t)w;
		}
		pf_find(fd, "LT-COUNT-MISMATCH", NULL, PF_DL, 0, mismatch);
	}
}

/* -------- -P -------- */

/* An lt1 input is imported as the JSON it is checked as. */
static void
startcopy(void)
{
	int f;

	tmp = pf_tp_tmpfile(&f);
	lt_out_init(&copy, f, tmp);
	copying = 1;
	lt_out_puts(&copy, "{\"traceEvents\":[\n");
}

/* -------- reading -------- */

static void
readjson(struct ltin *in)
{
	struct ltjev ev;
	struct ltjr jr;
	int k;

	pf_sniff(sim, in->buf + in->pos, lt_in_fill(in, SNIFF));
	lt_jr_init(&jr, in, LT_JR_LAZY);
	while ((k = lt_jr_next(&jr, &ev)) != LT_JEV_EOF) {
		if (k == LT_JEV_EVENT)
			pf_jsonev(sim, &ev, ev.line);
		else if (k == LT_JEV_TOP)
			top(&ev);
		else
			break;
	}
	form = jr.form;
	if (k == LT_JEV_ERROR) {
		if (jr.form == '[' && jr.errtrunc)
			pf_find(fd, "PF-ARRAY-NO-CLOSE", NULL, PF_SILENT,
			    jr.errline, "the last event is cut short and lost");
		else if (pf_stalled(sim) && jr.form == '[')
			pf_find(fd, "LT-STRICT-JSON", NULL, PF_OK, jr.errline,
			    jr.err);
		else if (jr.form == '{' && jr.errtrunc)
			pf_find(fd, "PF-TRUNCATED-OBJECT", "fatal", PF_FATAL,
			    jr.errline, jr.err);
		else if (strcmp(jr.err, "traceEvents is not an array") == 0)
			pf_find(fd, "PF-TRACEEVENTS-NOT-ARRAY", "fatal",
			    PF_FATAL, jr.errline, jr.err);
		else if (jr.form == 0)
			;	/* not JSON at all: sniff() said so */
		else {
			snprintf(synerr, sizeof(synerr), "line %ld, byte "
			    "%lld: %s", jr.errline, jr.erroff, jr.err);
			pf_find(fd, "PF-JSON-SYNTAX", "fatal", PF_FATAL,
			    jr.errline, synerr);
		}
	}
	if (jr.unterminated)
		pf_find(fd, "PF-ARRAY-NO-CLOSE", NULL, PF_OK, jr.line, NULL);
	if (jr.trailing_comma > 0)
		pf_find(fd, "PF-TRAILING-COMMA", band == PF_V50 ? "fatal" :
		    NULL, band == PF_V50 ? PF_FATAL : PF_OK, 0, NULL);
	if (pf_stalled(sim) && jr.form == '{')
		pf_find(fd, "PF-BAD-DUR-STALL", "fatal", PF_FATAL, 0,
		    "the object form then fails as incomplete");
	if (bytes == 0)
		bytes = (long long)(in->off + (off_t)in->end);
	lt_jr_free(&jr);
}

/*
 * An lt1 stream is judged as the trace ltjson(1) writes of it: the same
 * checks and messages, the same bytes (jsonw.c), then the same model.
 */
static void
lt1event(struct ltrd *rd, struct ltjr *jr, struct ltjw *jw, struct ltbuf *b,
    const struct ltrec *rec)
{
	struct ltjwrec r;
	struct ltjev ev;
	const char *why;
	int n, col;

	if (lt_jw_rec(jw, rec, &r, &why, &col) < 0)
		lt_rd_bad(rd, "column %s: %s", lt_colname[col], why);
	b->n = 0;
	lt_buf_grow(b, r.need);
	b->n = (size_t)(lt_jw_put(b->p, &r) - b->p);
	if (copying) {
		lt_out_puts(&copy, ncopy++ > 0 ? ",\n" : "");
		lt_out_write(&copy, b->p, b->n);
	}
	memset(&ev, 0, sizeof(ev));
	if ((n = lt_jr_tokens(jr, b->p, b->n)) < 1)
		lt_rd_bad(rd, "bad record");
	ev.kind = LT_JEV_EVENT;
	ev.p = ev.raw = b->p;
	ev.n = ev.rawn = b->n;
	ev.tok = jr->tok;
	ev.ntok = n;
	pf_jsonev(sim, &ev, rd->in.line);
}

static void
readlt1(struct ltin *in)
{
	struct ltbuf b = { NULL, 0, 0 }, top = { NULL, 0, 0 };
	struct ltrec rec;
	struct ltrd rd;
	struct ltjr jr;
	struct ltjw jw;
	const char *key;
	char *line, why[256];
	int k;
	ssize_t n;

	memset(&rd, 0, sizeof(rd));
	rd.in = *in;
	rd.open = 1;
	n = lt_in_line(&rd.in, &line);
	if (n < 4 || memcmp(line, "#lt1", 4) != 0 || (n > 4 && line[4] != '\t'))
		lt_rd_bad(&rd, "unsupported stream version");
	lt_jr_init(&jr, &rd.in, 0);
	lt_jw_init(&jw);
	if (tpprog != NULL)
		startcopy();
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC) {
			lt1event(&rd, &jr, &jw, &b, &rec);
			continue;
		}
		if (rec.len < 5 || memcmp(rec.line, "#top\t", 5) != 0)
			continue;
		/*
		 * ltjson writes #top members at the top level, but for
		 * displayTimeUnit, which it leaves out: Perfetto ignores it.
		 */
		if (lt_jw_top(rec.line, rec.len, &key, &top, why,
		    sizeof(why)) < 0)
			lt_rd_bad(&rd, "%s", why);
	}
	if (copying) {
		lt_out_puts(&copy, "\n]}\n");
		lt_out_close(&copy);
	}
	if (bytes == 0)
		bytes = (long long)(rd.in.off + (off_t)rd.in.end);
	lt_rd_done(&rd);
	lt_jr_free(&jr);
	lt_jw_free(&jw);
	lt_buf_free(&b);
	lt_buf_free(&top);
	form = 'l';
}

/* -------- the report -------- */

static int
worst(struct pffind *f, size_t n, int *cards)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < PF_NCARD; i++)
		cards[i] = 0;
	for (i = 0; i < n; i++) {
		cards[f[i].card] += (int)(f[i].n > 0);
		if (f[i].n > 0 && f[i].card <= PF_DL)
			bad = 1;
	}
	return bad;
}

static int
cmpfind(const void *a, const void *b)
{
	const struct pffind *x = a, *y = b;
	int c;

	if (x->card != y->card)
		return x->card - y->card;
	if ((c = strcmp(x->counter != NULL ? x->counter : "",
	    y->counter != NULL ? y->counter : "")) != 0)
		return c;
	return strcmp(x->rule, y->rule);
}

static const char *
bandname(void)
{
	return band == PF_V57 ? "v57+" : band == PF_V56 ? "v51-56" : "v50-";
}

/* -P: the count the trace processor gave counter, as a -t column. */
static void
counted(const struct pfrow *r, size_t nr, const char *counter)
{
	size_t i;

	if (tpprog == NULL)
		return;
	for (i = 0; counter != NULL && tp.loaded && i < nr; i++)
		if (strcmp(r[i].counter, counter) == 0) {
			putf("\t%lld", r[i].counted);
			return;
		}
	putf("\t-");
}

/* -t: one line per counter, silent losses by rule; with -P, counted. */
static void
tabs(struct pffind *f, size_t n, int *cards, const struct pfrow *r,
    size_t nr)
{
	size_t i, j;
	long long sum;

	if (cards[PF_FATAL] > 0 || (tpprog != NULL && !tp.loaded)) {
		putf("fatal\t%d\tFATAL", cards[PF_FATAL] > 0);
		if (tpprog != NULL)
			putf("\t%d", !tp.loaded);
		putf("\n");
		if (cards[PF_FATAL] > 0)
			return;
	}
	for (i = 0; i < n; i = j) {
		if (f[i].card == PF_OK) {
			j = i + 1;
			continue;
		}
		sum = f[i].n;
		for (j = i + 1; j < n && f[j].card == f[i].card &&
		    f[i].counter != NULL && f[j].counter != NULL &&
		    strcmp(f[i].counter, f[j].counter) == 0; j++)
			sum += f[j].n;
		putf("%s\t%lld\t%s", f[i].counter != NULL ? f[i].counter :
		    f[i].rule, sum, pf_cardname(f[i].card));
		counted(r, nr, f[i].counter);
		putf("\n");
	}
	/* What only the trace processor counted. */
	for (i = 0; i < nr; i++)
		if (r[i].predicted == 0)
			putf("%s\t0\t%s\t%lld\n", r[i].counter,
			    pf_cardname(r[i].card), r[i].counted);
}

/* -P in the report: its counters beside the prediction. */
static void
tpreport(const struct pfrow *r, size_t nr, int fatal, int diff)
{
	size_t i;

	if (tpprog == NULL) {
		putf("trace processor: none found (set TRACE_PROCESSOR, or put "
		    "trace_processor on PATH)\n");
		return;
	}
	putf("trace processor %s: ", tp.prog);
	if (!tp.loaded) {
		putf("the load fails, %s: %s\n", fatal ? "as predicted" :
		    "NOT as predicted", tp.why);
		return;
	}
	if (fatal)
		putf("it loads the trace, NOT as predicted\n");
	else
		putf("%s\n", diff ? "its counters DIFFER from the prediction" :
		    "its counters are those predicted");
	if (nr > 0)
		putf("  %-6s %-40s %9s %9s\n", "card", "counter", "predicted",
		    "counted");
	for (i = 0; i < nr; i++)
		putf("  %-6s %-40s %9lld %9lld%s\n", pf_cardname(r[i].card),
		    r[i].counter, r[i].predicted, r[i].counted,
		    r[i].predicted != r[i].counted ? "  differs" : "");
}

/* -P with -q: one line on stderr when the trace processor disagrees. */
static void
tpquiet(const struct pfrow *r, size_t nr, int fatal)
{
	char line[512];
	size_t i, k = 0;
	int w;

	if (!tp.loaded || fatal) {
		lt_warn("%s: trace processor: %s%s", fname, tp.loaded ?
		    "it loads the trace, predicted to fail" :
		    "the load fails, not predicted: ", tp.loaded ? "" : tp.why);
		return;
	}
	line[0] = '\0';
	for (i = 0; i < nr && k < sizeof(line) - 1; i++) {
		if (r[i].predicted == r[i].counted)
			continue;
		w = snprintf(line + k, sizeof(line) - k, "%s%s predicted %lld, "
		    "counted %lld", k > 0 ? "; " : "", r[i].counter,
		    r[i].predicted, r[i].counted);
		if (w > 0)
			k += (size_t)w;
	}
	lt_warn("%s: trace processor: %s", fname, line);
}

static void
examples(const struct pffind *f)
{
	int i;

	if (f->nex == 0)
		return;
	putf("      line%s", f->nex > 1 ? "s" : "");
	for (i = 0; i < f->nex; i++)
		putf(" %lld", f->ex[i]);
	if (f->n > f->nex)
		putf(" ...");
	putf("\n");
}

static void
report(struct pffind *f, size_t n, int *cards)
{
	const struct pfsum *sum = pf_sum(sim);
	long long other;
	size_t i;
	const char *p;
	int warned = 0;

	other = sum->events - sum->nph['B'] - sum->nph['E'] - sum->nph['X'] -
	    sum->nph['I'] - sum->nph['i'] - sum->nph['M'] - sum->nph['C'] -
	    sum->nph['s'] - sum->nph['t'] - sum->nph['f'];
	putf("%s: %s, %lld bytes, %lld events\n", fname, form == 'l' ?
	    "lt1 stream (checked as ltjson writes it)" : form == '{' ?
	    "JSON object form" : form == '[' ? "JSON array form" :
	    "not a JSON trace", bytes, sum->events);
	putf("phases: B %lld, E %lld, X %lld, I %lld, M %lld, C %lld, "
	    "flows %lld, other %lld\n", sum->nph['B'], sum->nph['E'],
	    sum->nph['X'], sum->nph['I'] + sum->nph['i'], sum->nph['M'],
	    sum->nph['C'], sum->nph['s'] + sum->nph['t'] + sum->nph['f'],
	    other);
	if (sum->ncats > 1) {
		putf("categories:");
		for (i = 1; i < sum->ncats && i <= 20; i++)
			putf(" %s %lld", sum->cats[i].name,
			    sum->cats[i].count);
		if (sum->ncats > 21)
			putf(" ... (%zu more)", sum->ncats - 21);
		putf("\n");
	}
	if (hasrecorded)
		putf("ltjson counts: %s\n", mismatch[0] != '\0' ? "MISMATCH" :
		    "match");
	putf("Perfetto %s: ", bandname());
	if (cards[PF_FATAL] > 0)
		putf("the load fails");
	else
		putf("Trace Errors %d, Import Errors %d, Data Losses %d, "
		    "silent losses %d", cards[PF_TE], cards[PF_IE],
		    cards[PF_DL], cards[PF_SILENT]);
	putf("\n");
	for (i = 0; i < n; i++) {
		if (f[i].card == PF_OK) {
			if (!warned++)
				putf("warnings (Perfetto accepts these):\n");
		} else if (cards[PF_FATAL] > 0 && f[i].card != PF_FATAL &&
		    (i == 0 || f[i - 1].card == PF_FATAL))
			putf("once the load is fixed:\n");
		p = f[i].counter != NULL ? f[i].counter : "-";
		putf("  %-6s %-40s %8lld  %s\n", pf_cardname(f[i].card), p,
		    f[i].n, f[i].rule);
		putf("      %s%s%s\n", pf_what(f[i].rule), f[i].detail != NULL ?
		    ": " : "", f[i].detail != NULL ? f[i].detail : "");
		examples(&f[i]);
	}
	if (n == 0)
		putf("nothing to report\n");
	for (i = 0, warned = 0; i < PF_NCARD; i++)
		if (cards[i] > 0)
			putf("%s%s: %s", warned++ ? "; " : "cards: ",
			    pf_cardname((int)i), pf_cardlong((int)i));
	if (warned)
		putf("\n");
}

static void
usdur(const char *key, int64_t ns)
{
	char num[LT_NUMBUF];

	lt_us_fmt(num, ns);
	putf("\t%s=%s", key, num);
}

/* -s: the numbers behind litracer's one-line summary. */
static void
summary(void)
{
	const struct pfsum *sum = pf_sum(sim);
	const struct pfcat *c;
	size_t i;

	putf("summary\tevents=%lld\tB=%lld\tE=%lld\tX=%lld\tI=%lld\tM=%lld"
	    "\tC=%lld\tflows=%lld\tprocesses=%zu", sum->events, sum->nph['B'],
	    sum->nph['E'], sum->nph['X'], sum->nph['I'] + sum->nph['i'],
	    sum->nph['M'], sum->nph['C'], sum->nph['s'] + sum->nph['t'] +
	    sum->nph['f'], sum->nprocs);
	usdur("duration_us", sum->first <= sum->last ? sum->last -
	    sum->first : 0);
	putf("\n");
	for (i = 1; i < sum->ncats; i++) {
		c = &sum->cats[i];
		putf("category\t%s\tcount=%lld\tslices=%lld", c->name,
		    c->count, c->nslices);
		usdur("total_us", c->total);
		usdur("mean_us", c->nslices > 0 ? c->total / c->nslices : 0);
		usdur("p50_us", pf_percentile(c, 50));
		usdur("p95_us", pf_percentile(c, 95));
		usdur("max_us", c->max);
		putf("\n");
	}
	for (i = 0; i < sum->nprocs; i++) {
		if (sum->procs[i].str)
			putf("process\t\"%s\"", sum->procs[i].name);
		else
			putf("process\t%llu", (unsigned long long)
			    sum->procs[i].pid);
		putf("\tevents=%lld\n", sum->procs[i].count);
	}
}

/* -q: one line on stderr when something is predicted. */
static void
quiet(struct pffind *f, size_t n, int *cards)
{
	char line[512];
	size_t i, k, first = n;
	int w;

	k = (size_t)snprintf(line, sizeof(line), "Perfetto %s: ", bandname());
	for (i = 0; i < n && k < sizeof(line) - 1; i++) {
		if (f[i].card > PF_DL ||
		    (cards[PF_FATAL] > 0 && f[i].card != PF_FATAL))
			continue;
		if (first == n)
			first = i;
		w = snprintf(line + k, sizeof(line) - k, "%s%s%s%s %lld%s%s%s",
		    i > first ? ", " : "", f[i].rule, f[i].counter != NULL ?
		    " " : "", f[i].counter != NULL ? f[i].counter : "",
		    f[i].n, f[i].card == PF_FATAL && f[i].detail != NULL ?
		    " (" : "", f[i].card == PF_FATAL && f[i].detail != NULL ?
		    f[i].detail : "", f[i].card == PF_FATAL &&
		    f[i].detail != NULL ? ")" : "");
		if (w > 0)
			k += (size_t)w;
	}
	lt_warn("%s: %s", fname, line);
}

static void
options(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "trace-processor", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "summary", no_argument, NULL, 's' },
		{ "counters", no_argument, NULL, 't' },
		{ "perfetto-version", required_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *errstr;
	int c;

	while ((c = getopt_long(argc, argv, "hPqstV:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -P, --trace-processor\n"
			    "                       also import with Perfetto's "
			    "trace processor, if found\n"
			    "                       ($TRACE_PROCESSOR, or on "
			    "PATH), and compare its counters\n"
			    "  -q, --quiet          no report, exit status only "
			    "(one line on stderr if bad)\n"
			    "  -s, --summary        a summary per category and "
			    "process\n"
			    "  -t, --counters       one line per predicted "
			    "counter:\n"
			    "                       COUNTER TAB COUNT TAB CARD "
			    "[TAB COUNTED with -P]\n"
			    "  -V, --perfetto-version version\n"
			    "                       the Perfetto version to "
			    "predict (default 58;\n"
			    "                       bands <=50, 51-56, 57+)\n"
			    "  -h, --help           show this help\n");
			break;
		case 'P':
			pflag = 1;
			break;
		case 'q':
			mode = MODE_QUIET;
			break;
		case 's':
			sflag = 1;
			break;
		case 't':
			mode = MODE_TAB;
			break;
		case 'V':
			version = (int)lt_strtonum(optarg, 1, 1000, &errstr);
			if (errstr != NULL)
				lt_die(LT_EXIT_SYS, "-V %s: %s", optarg,
				    errstr);
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	if (argc - optind > 1 || (sflag && mode == MODE_TAB))
		lt_usage(SYNOPSIS);
	band = version >= 57 ? PF_V57 : version >= 51 ? PF_V56 : PF_V50;
}

/* The findings, in the form -q, -t or the report asks for. */
static int
output(void)
{
	struct pffind *f = fd->f;
	struct pfrow *r = NULL;
	size_t n = fd->n, nr = 0;
	int bad, diff = 0, cards[PF_NCARD];

	if (n > 0)
		qsort(f, n, sizeof(*f), cmpfind);
	bad = worst(f, n, cards);
	if (tpprog != NULL) {
		nr = pf_tp_rows(&tp, fd, &r);
		diff = pf_tp_differs(&tp, r, nr, cards[PF_FATAL] > 0);
	}
	if (mode == MODE_TAB)
		tabs(f, n, cards, r, nr);
	else if (mode == MODE_REPORT) {
		report(f, n, cards);
		if (pflag)
			tpreport(r, nr, cards[PF_FATAL] > 0, diff);
	} else {
		if (bad)
			quiet(f, n, cards);
		if (diff)
			tpquiet(r, nr, cards[PF_FATAL] > 0);
	}
	if (sflag)
		summary();
	free(r);
	return bad || diff;
}

/*
 * A Perfetto protobuf trace (ltproto(1)): said what it holds, and
 * whether it is well-formed; its import is Perfetto's to check.
 */
static int
proto(struct ltin *in)
{
	struct pbtrace t;
	char line[256];
	int ok = pb_trace(in, &t);

	if (mode == MODE_QUIET) {
		if (!ok)
			lt_warn("%s: Perfetto protobuf trace, not well-formed "
			    "after %lld packets: %s", fname, t.packets, t.err);
	} else {
		lt_out_puts(&out, fname);
		if (ok)
			lt_out_puts(&out, ": Perfetto protobuf trace, ");
		else
			lt_out_puts(&out, ": Perfetto protobuf trace, not "
			    "well-formed: ");
		if (!ok) {
			lt_out_puts(&out, t.err);
			lt_out_puts(&out, ", after ");
		}
		snprintf(line, sizeof(line), "%lld bytes, %lld packets: %lld "
		    "track events, %lld track descriptors, %lld with interned "
		    "data\n", t.bytes, t.packets, t.events, t.descriptors,
		    t.interned);
		lt_out_puts(&out, line);
		lt_out_puts(&out, "ltcheck checks JSON and lt1; Perfetto's "
		    "own importer (trace_processor_shell) checks this one\n");
	}
	return ok ? LT_EXIT_OK : LT_EXIT_DATA;
}

/* The path the trace processor is given: never taken for a flag or URL. */
static char *
tppath(const char *path)
{
	size_t n = strlen(path) + 3;
	char *p = lt_malloc(n);

	snprintf(p, n, "%s%s", path[0] == '/' ? "" : "./", path);
	return p;
}

int
main(int argc, char *argv[])
{
	const char *path;
	char *trace = NULL;
	struct ltin in;
	struct stat st;
	int bad, lt1;

	lt_setprog(argv[0]);
	options(argc, argv);
	path = optind < argc ? argv[optind] : "-";
	if (pflag)
		tpprog = pf_tp_find();
	sim = pf_new(band, sflag);
	fd = pf_finds(sim);
	lt_in_open(&in, path);
	fname = in.name;
	lt1 = lt_in_fill(&in, 5) >= 4 && memcmp(in.buf + in.pos, "#lt1", 4) == 0;
	if (!lt1 && pb_istrace(&in)) {
		lt_out_init(&out, 1, "<stdout>");
		bad = proto(&in);
		lt_in_close(&in);
		lt_out_close(&out);
		pf_free(sim);
		free(tpprog);
		return bad;
	}
	if (tpprog != NULL && !lt1) {
		if (strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			trace = tppath(path);
		else
			tmp = pf_tp_spool(&in);
	}
	if (fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode))
		bytes = (long long)st.st_size;
	lt_out_init(&out, 1, "<stdout>");
	if (lt1)
		readlt1(&in);
	else {
		readjson(&in);
		lt_in_close(&in);
	}
	if (bytes > LARGE)
		pf_find(fd, "PF-LARGE-FILE", NULL, PF_OK, 0, NULL);
	counts();
	pf_finish(sim);
	if (tpprog != NULL)
		pf_tp_import(&tp, tpprog, trace != NULL ? trace : tmp);
	bad = output();
	lt_out_close(&out);
	pf_tp_free(&tp);
	pf_free(sim);
	free(trace);
	free(tpprog);
	return bad ? LT_EXIT_DATA : LT_EXIT_OK;
}
