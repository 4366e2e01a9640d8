/* See LICENSE file for copyright and license details. */
/*
 * pffind.c: the findings of ltcheck's Perfetto model, keyed by rule,
 * counter and card, with the first few events of each, and what each
 * rule means in a few words for the report.
 */
#include <stdlib.h>

#include "ltcheck.h"

static const char *const cardnames[PF_NCARD] = {
	"FATAL", "TE", "IE", "DL", "info", "silent", "ok"
};

static const char *const cardlong[PF_NCARD] = {
	"the load fails", "Trace Errors", "Import Errors", "Data Losses",
	"a counter with no card", "no counter, data lost or changed",
	"accepted, not portable"
};

const char *
pf_cardname(int c)
{
	return cardnames[c];
}

const char *
pf_cardlong(int c)
{
	return cardlong[c];
}

static struct pffind *
finding(struct pffinds *fd, const char *rule, const char *counter, int card)
{
	struct pffind *f;
	size_t i;

	for (i = 0; i < fd->n; i++) {
		f = &fd->f[i];
		if (strcmp(f->rule, rule) == 0 && f->card == card &&
		    (f->counter == NULL ? counter == NULL : counter != NULL &&
		    strcmp(f->counter, counter) == 0))
			return f;
	}
	fd->f = lt_grow(fd->f, &fd->cap, fd->n + 1, sizeof(*fd->f));
	f = &fd->f[fd->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->counter = counter;
	f->card = card;
	return f;
}

static void
example(struct pffind *f, int isrec, long long v)
{
	int i;

	for (i = 0; i < f->nex; i++)
		if (f->exrec[i] == isrec && f->ex[i] == v)
			return;
	if (f->nex < PF_NEX) {
		f->exrec[f->nex] = isrec;
		f->ex[f->nex++] = v;
	}
}

/*
 * A finding about the event at line (0: no line); detail may be NULL.
 * Returns it, so that a caller may count more than one at once.
 */
struct pffind *
pf_find(struct pffinds *fd, const char *rule, const char *counter, int card,
    long line, const char *detail)
{
	struct pffind *f = finding(fd, rule, counter, card);

	f->n++;
	if (line > 0)
		example(f, 0, line);
	if (f->detail == NULL)
		f->detail = detail;
	return f;
}

/* A finding about the event of record idx (pfrec.c). */
struct pffind *
pf_findrec(struct pffinds *fd, const char *rule, const char *counter,
    int card, uint32_t idx)
{
	struct pffind *f = finding(fd, rule, counter, card);

	f->n++;
	example(f, 1, idx);
	return f;
}

void
pf_finds_free(struct pffinds *fd)
{
	free(fd->f);
	memset(fd, 0, sizeof(*fd));
}

/* What each rule means, in a few words, for the report. */
static const struct {
	const char	*rule;
	const char	*what;
} whats[] = {
	{ "LT-ZERO-TS-RUN", "X events written with ts 0 and dur 0 (a "
	    "profiler that lost their times): all at time 0" },
	{ "LT-STEP-OVERLAP", "a ProfilerStep span that begins before the "
	    "step before it ends" },
	{ "LT-STEP-NO-GPU-WORK", "a ProfilerStep whose runtime launches "
	    "have no kernel, memcpy or memset in the trace (dropped)" },
	{ "LT-TS-STRING", "a ts written as a string: Perfetto reads a "
	    "number in it, other readers drop the event" },
	{ "LT-FLOW-ID-DOUBLE", "a flow id at or above 2^53: readers that "
	    "hold JSON numbers as doubles merge distinct ids" },
	{ "PF-DETECT-PREFIX", "the first 128 bytes do not start with {\" "
	    "or [{\": not recognised as JSON" },
	{ "PF-DETECT-EMPTY", "an empty array is not recognised as JSON; "
	    "write {\"traceEvents\":[]}" },
	{ "PF-JSON-SYNTAX", "a JSON syntax error: the whole load fails" },
	{ "PF-UNICODE-SURROGATE", "a \\uD800-\\uDFFF escape: fatal in a "
	    "top-level event string, truncates args elsewhere" },
	{ "PF-TRACEEVENTS-NOT-ARRAY", "traceEvents is not an array (or "
	    "systemTraceEvents not a string)" },
	{ "PF-TRUNCATED-OBJECT", "the object form ends before its closing "
	    "] and }: \"JSON trace file is incomplete\"" },
	{ "PF-BAD-DUR-STALL", "dur, tts or tdur is not a number: the "
	    "tokenizer stalls and every later event is lost" },
	{ "PF-ARRAY-NO-CLOSE", "the array form has no closing ]: accepted "
	    "by Perfetto, not by strict JSON tools" },
	{ "PF-TRAILING-COMMA", "a comma before the ] of traceEvents" },
	{ "PF-EMPTY-OBJECT", "an empty event {}" },
	{ "PF-MISSING-PH", "an event without a string ph is dropped" },
	{ "PF-MISSING-TS", "an event without a numeric ts is dropped" },
	{ "PF-NEGATIVE-TS", "a negative ts: the event is dropped" },
	{ "PF-TS-OVERFLOW", "ts*1000 overflows int64: a garbage timestamp" },
	{ "PF-NUM-DIGITS", "20 or more fractional digits (19 above 2^63) "
	    "overflow Perfetto's number parser: a garbage value" },
	{ "PF-NUM-OVERFLOW", "a number Perfetto's parser makes infinite "
	    "(beyond a double, or 64 fractional digits): in a member of an "
	    "event the load fails, in a counter's args it never ends, in "
	    "other args those after it are lost" },
	{ "PF-X-NO-DUR", "an X without dur is dropped" },
	{ "PF-X-NEG-DUR", "an X with a negative dur is dropped" },
	{ "PF-INSTANT-NO-TID", "a thread instant without tid (or a process "
	    "instant without pid) is dropped" },
	{ "PF-ASYNC-NO-ID", "b/e/n without id/id2 or without pid" },
	{ "PF-COUNTER-BAD", "C without numeric args: bad series dropped" },
	{ "PF-META-BAD", "M process_name/thread_name without args.name, or "
	    "*_sort_index without a numeric sort_index" },
	{ "PF-PHASE-T", "T is read as a thread-state event, not an async "
	    "step" },
	{ "PF-MAX-DEPTH", "a track already holds 512 slices: dropped" },
	{ "PF-FLOW-INVALID-ID", "a flow event without a usable id" },
	{ "PF-FLOW-NO-ENCLOSING", "a flow event on a thread with no open "
	    "slice" },
	{ "PF-FLOW-BEFORE-SLICE", "a flow event sorted just before the "
	    "slice that should enclose it (same ts, earlier in the file)" },
	{ "PF-FLOW-DUP-ID", "a second flow start with the same id" },
	{ "PF-FLOW-V2-NO-DIRECTION", "bind_id without flow_in or flow_out" },
	{ "PF-FLOW-END-NO-START", "a flow step or end whose flow never "
	    "started: no arrow" },
	{ "PF-DISPLAY-TIME-UNIT", "displayTimeUnit is counted and ignored" },
	{ "PF-X-OVERLAP", "an X starts inside a complete slice and ends "
	    "after it" },
	{ "PF-X-OVERLAP-ROUNDING", "X slices adjacent in the text overlap "
	    "after Perfetto's per-field ns rounding" },
	{ "PF-TS-PRECISION", "a fractional ts beyond ~9.0e12 us: double "
	    "rounding moves it" },
	{ "PF-BE-CROSS-NAMED", "crossing B/E pairs: the inner B is "
	    "truncated and its E dropped" },
	{ "PF-BE-CROSS-UNNAMED", "an unnamed E closed a B that had B "
	    "children: if the pairs were meant to cross, durations are "
	    "wrong (cannot be told apart from proper nesting)" },
	{ "PF-B-INSIDE-X-OUTLIVES", "a B opened inside an X ends after it: "
	    "truncated to the X end, its E dropped" },
	{ "PF-CHILD-OUTLIVES-PARENT", "a slice extends past the E of its B "
	    "parent" },
	{ "PF-SAME-TS-B-BEFORE-E", "a B sorted before the E ending the "
	    "previous slice at the same ts: truncated to 0 ns" },
	{ "PF-E-UNMATCHED", "an E with no open B on its track: dropped" },
	{ "PF-E-NAME-MISMATCH", "an E whose name/cat matches no open B: "
	    "dropped" },
	{ "PF-B-UNTERMINATED", "a B (or b) that never ends: dur -1" },
	{ "PF-TIE-ORDER", "equal-ts X slices reordered: the longer is the "
	    "parent" },
	{ "PF-ASYNC-KEY-MISMATCH", "an e that matches no open b (cat, id, "
	    "scope or name differ): dropped" },
	{ "PF-ASYNC-ID-TYPE", "an e whose id differs from its b's only in "
	    "type (\"7\" vs 7): dropped" },
	{ "PF-PID-COERCE", "a pid/tid out of 0..2^32-1 becomes 0, a "
	    "fraction is truncated; a tid of 0 then becomes the pid: the "
	    "thread joins the main thread's track" },
	{ "PF-PID-STRING", "a string pid/tid: another process or thread "
	    "than the number it spells, an internal id that may collide" },
	{ "PF-PHASE-IGNORED", "a phase Perfetto ignores" },
	{ "PF-LARGE-FILE", "over 1 GB: the UI may run out of memory; use "
	    "trace_processor --httpd" },
	{ "SC-INSTANT-SCOPE", "instant scope s is not g, p or t" },
	{ "SC-BP-VALUE", "bp other than \"e\", or a flow end never bound "
	    "to a slice" },
	{ "SC-ID2-AMBIGUOUS", "id with id2, id2 with local and global, or a "
	    "malformed id2" },
	{ "SC-DUP-KEY", "a key repeated in an event: the last one wins" },
	{ "SC-CONTROL-CHAR", "a raw control character in a string: invalid "
	    "JSON" },
	{ "SC-META-UNKNOWN", "an M name Perfetto ignores" },
	{ "SC-TOPLEVEL-IGNORED", "a top-level member Perfetto ignores" },
	{ "SC-ARGS-NOT-OBJECT", "args is not an object: dropped" },
	{ "LT-STRICT-JSON", "accepted by Perfetto, rejected by strict JSON" },
	{ "LT-COUNT-MISMATCH", "the event counts differ from those ltjson "
	    "recorded in the metadata" }
};

const char *
pf_what(const char *rule)
{
	size_t i;

	for (i = 0; i < sizeof(whats) / sizeof(whats[0]); i++)
		if (strcmp(whats[i].rule, rule) == 0)
			return whats[i].what;
	return "";
}
