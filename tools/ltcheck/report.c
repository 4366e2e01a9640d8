/* See LICENSE file for copyright and license details. */
/*
 * report.c: ltcheck's report writers: the report for people, a counter
 * per line (-t), the summary (-s), the line on stderr (-q), and with -P
 * the trace processor's counters beside the prediction in each.
 */
#include <stdio.h>

#include "ltcheck.h"

/* In a function given ck: a formatted write to its output. */
#define putf(...)	lt_out_printf(&ck->out, __VA_ARGS__)

static const char *
bandname(int band)
{
	return band == PF_V57 ? "v57+" : band == PF_V56 ? "v51-56" : "v50-";
}

/* -P: the count the trace processor gave counter, as a -t column. */
static void
counted(struct pfcheck *ck, const struct pfrow *r, size_t nr,
    const char *counter)
{
	size_t i;

	if (ck->tpprog == NULL)
		return;
	for (i = 0; counter != NULL && ck->tp.loaded && i < nr; i++)
		if (strcmp(r[i].counter, counter) == 0) {
			putf("\t%lld", r[i].counted);
			return;
		}
	putf("\t-");
}

/* -t: one line per counter, silent losses by rule; with -P, counted. */
void
pf_tabs(struct pfcheck *ck, const struct pffind *f, size_t n,
    const int *cards, const struct pfrow *r, size_t nr)
{
	size_t i, j;
	long long sum;

	if (cards[PF_FATAL] > 0 || (ck->tpprog != NULL && !ck->tp.loaded)) {
		putf("fatal\t%d\tFATAL", cards[PF_FATAL] > 0);
		if (ck->tpprog != NULL)
			putf("\t%d", !ck->tp.loaded);
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
		counted(ck, r, nr, f[i].counter);
		putf("\n");
	}
	/* What only the trace processor counted. */
	for (i = 0; i < nr; i++)
		if (r[i].predicted == 0)
			putf("%s\t0\t%s\t%lld\n", r[i].counter,
			    pf_cardname(r[i].card), r[i].counted);
}

/* -P in the report: its counters beside the prediction. */
void
pf_tpreport(struct pfcheck *ck, const struct pfrow *r, size_t nr,
    int fatal, int diff)
{
	size_t i;

	if (ck->tpprog == NULL) {
		putf("trace processor: none found (set TRACE_PROCESSOR, or put "
		    "trace_processor on PATH)\n");
		return;
	}
	putf("trace processor %s: ", ck->tp.prog);
	if (!ck->tp.loaded) {
		putf("the load fails, %s: %s\n", fatal ? "as predicted" :
		    "NOT as predicted", ck->tp.why);
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
void
pf_tpquiet(struct pfcheck *ck, const struct pfrow *r, size_t nr, int fatal)
{
	char line[512];
	size_t i, k = 0;
	int w;

	if (!ck->tp.loaded || fatal) {
		lt_warn("%s: trace processor: %s%s", ck->fname, ck->tp.loaded ?
		    "it loads the trace, predicted to fail" :
		    "the load fails, not predicted: ", ck->tp.loaded ? "" :
		    ck->tp.why);
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
	lt_warn("%s: trace processor: %s", ck->fname, line);
}

static void
examples(struct pfcheck *ck, const struct pffind *f)
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

/*
 * A card's total, as Perfetto's card shows it: the events its counters
 * count, which are the findings' counts added up; then how many findings
 * (rules) they come from.
 */
static void
total(struct pfcheck *ck, const char *name, int card, const struct pffind *f,
    size_t n, const int *cards)
{
	long long events = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].card == card)
			events += f[i].n;
	putf("%s %lld", name, events);
	if (cards[card] > 0)
		putf(" event%s in %d rule%s", events != 1 ? "s" : "",
		    cards[card], cards[card] > 1 ? "s" : "");
}

/* The report for people. */
void
pf_report(struct pfcheck *ck, const struct pffind *f, size_t n,
    const int *cards)
{
	const struct pfsum *sum = pf_sum(ck->sim);
	long long other;
	size_t i;
	const char *p;
	int form = ck->form, warned = 0;

	other = sum->events - sum->nph['B'] - sum->nph['E'] - sum->nph['X'] -
	    sum->nph['I'] - sum->nph['i'] - sum->nph['M'] - sum->nph['C'] -
	    sum->nph['s'] - sum->nph['t'] - sum->nph['f'];
	putf("%s: %s, %lld bytes, %lld events\n", ck->fname, form == 'l' ?
	    "lt1 stream (checked as ltjson writes it)" : form == '{' ?
	    "JSON object form" : form == '[' ? "JSON array form" :
	    "not a JSON trace", ck->bytes, sum->events);
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
	if (ck->hasrecorded)
		putf("ltjson counts: %s\n", ck->mismatch[0] != '\0' ?
		    "MISMATCH" : "match");
	putf("Perfetto %s: ", bandname(ck->band));
	if (cards[PF_FATAL] > 0)
		putf("the load fails");
	else {
		total(ck, "Trace Errors", PF_TE, f, n, cards);
		total(ck, ", Import Errors", PF_IE, f, n, cards);
		total(ck, ", Data Losses", PF_DL, f, n, cards);
		total(ck, ", silent losses", PF_SILENT, f, n, cards);
	}
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
		examples(ck, &f[i]);
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
usdur(struct pfcheck *ck, const char *key, int64_t ns)
{
	char num[LT_NUMBUF];

	lt_us_fmt(num, ns);
	putf("\t%s=%s", key, num);
}

/* -s: the numbers behind litracer's one-line summary. */
void
pf_summary(struct pfcheck *ck)
{
	const struct pfsum *sum = pf_sum(ck->sim);
	const struct pfcat *c;
	size_t i;

	putf("summary\tevents=%lld\tB=%lld\tE=%lld\tX=%lld\tI=%lld\tM=%lld"
	    "\tC=%lld\tflows=%lld\tprocesses=%zu", sum->events, sum->nph['B'],
	    sum->nph['E'], sum->nph['X'], sum->nph['I'] + sum->nph['i'],
	    sum->nph['M'], sum->nph['C'], sum->nph['s'] + sum->nph['t'] +
	    sum->nph['f'], sum->nprocs);
	usdur(ck, "duration_us", sum->first <= sum->last ? sum->last -
	    sum->first : 0);
	putf("\n");
	for (i = 1; i < sum->ncats; i++) {
		c = &sum->cats[i];
		putf("category\t%s\tcount=%lld\tslices=%lld", c->name,
		    c->count, c->nslices);
		usdur(ck, "total_us", c->total);
		usdur(ck, "mean_us", c->nslices > 0 ? c->total / c->nslices :
		    0);
		usdur(ck, "p50_us", pf_percentile(c, 50));
		usdur(ck, "p95_us", pf_percentile(c, 95));
		usdur(ck, "max_us", c->max);
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
void
pf_quiet(struct pfcheck *ck, const struct pffind *f, size_t n,
    const int *cards)
{
	char line[512];
	size_t i, k, first = n;
	int w;

	k = (size_t)snprintf(line, sizeof(line), "Perfetto %s: ",
	    bandname(ck->band));
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
	lt_warn("%s: %s", ck->fname, line);
}
