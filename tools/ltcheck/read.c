/* See LICENSE file for copyright and license details. */
/*
 * read.c: ltcheck's readers.  A Chrome JSON trace goes event by event
 * through the model, its top-level members checked and the counts ltjson
 * recorded kept; an lt1 stream is judged as the JSON ltjson(1) writes of
 * it; a Perfetto protobuf trace is only checked well-formed.
 */
#include <stdio.h>

#include "jsonw.h"
#include "jsonev.h"
#include "pb.h"
#include "ltcheck.h"

#define SNIFF		128

/* What ltjson recorded in metadata.litracer.stats.ltjson. */
static const char *const countkeys[PF_NCOUNT] = {
	"events", "B", "E", "X", "I", "M", "C", "flows", "other"
};

/* -------- top-level members -------- */

static long long
intval(const char *p, size_t n)
{
	int64_t v;

	return lt_int_parse(p, n, &v) == LT_NUM_OK ? v : -1;
}

/* metadata.litracer.stats.ltjson: the counts ltjson wrote. */
static void
metadata(struct pfcheck *ck, const char *p, size_t n)
{
	const char *v;
	size_t vn, i;

	if ((p = lt_json_member(p, n, "litracer", &n)) == NULL ||
	    (p = lt_json_member(p, n, "stats", &n)) == NULL ||
	    (p = lt_json_member(p, n, "ltjson", &n)) == NULL)
		return;
	for (i = 0; i < PF_NCOUNT; i++) {
		ck->recorded[i] = -1;
		if ((v = lt_json_member(p, n, countkeys[i], &vn)) != NULL)
			ck->recorded[i] = intval(v, vn);
	}
	ck->hasrecorded = 1;
}

static void
top(struct pfcheck *ck, const struct ltjev *ev)
{
	struct pffinds *fd = ck->fd;

	if (ev->keyn == 8 && memcmp(ev->key, "metadata", 8) == 0)
		metadata(ck, ev->p, ev->n);
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

/* The counts ltjson recorded against those found. */
void
pf_counts(struct pfcheck *ck)
{
	const struct pfsum *sum = pf_sum(ck->sim);
	long long have[PF_NCOUNT];
	size_t i, k = 0;
	int w;

	if (!ck->hasrecorded)
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
	for (i = 0; i < PF_NCOUNT; i++) {
		if (ck->recorded[i] < 0 || ck->recorded[i] == have[i])
			continue;
		if (k < sizeof(ck->mismatch) - 1) {
			w = snprintf(ck->mismatch + k, sizeof(ck->mismatch) -
			    k, "%s%s recorded %lld, found %lld", k > 0 ?
			    "; " : "", countkeys[i], ck->recorded[i], have[i]);
			if (w > 0)
				k += (size_t)w;
		}
		pf_find(ck->fd, "LT-COUNT-MISMATCH", NULL, PF_DL, 0,
		    ck->mismatch);
	}
}

/* -------- -P -------- */

/* An lt1 input is imported as the JSON it is checked as. */
static void
startcopy(struct pfcheck *ck)
{
	int f;

	ck->tmp = pf_tp_tmpfile(&f);
	lt_out_init(&ck->copy, f, ck->tmp);
	ck->copying = 1;
	lt_out_puts(&ck->copy, "{\"traceEvents\":[\n");
}

/* -------- reading -------- */

void
pf_readjson(struct pfcheck *ck, struct ltin *in)
{
	struct pffinds *fd = ck->fd;
	struct ltjev ev;
	struct ltjr jr;
	int k;

	pf_sniff(ck->sim, in->buf + in->pos, lt_in_fill(in, SNIFF));
	lt_jr_init(&jr, in, LT_JR_LAZY);
	while ((k = lt_jr_next(&jr, &ev)) != LT_JEV_EOF) {
		if (k == LT_JEV_EVENT)
			pf_jsonev(ck->sim, &ev, ev.line);
		else if (k == LT_JEV_TOP)
			top(ck, &ev);
		else
			break;
	}
	ck->form = jr.form;
	if (k == LT_JEV_ERROR) {
		if (jr.form == '[' && jr.errtrunc)
			pf_find(fd, "PF-ARRAY-NO-CLOSE", NULL, PF_SILENT,
			    jr.errline, "the last event is cut short and lost");
		else if (pf_stalled(ck->sim) && jr.form == '[')
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
			snprintf(ck->synerr, sizeof(ck->synerr), "line %ld, "
			    "byte %lld: %s", jr.errline, jr.erroff, jr.err);
			pf_find(fd, "PF-JSON-SYNTAX", "fatal", PF_FATAL,
			    jr.errline, ck->synerr);
		}
	}
	if (jr.unterminated)
		pf_find(fd, "PF-ARRAY-NO-CLOSE", NULL, PF_OK, jr.line, NULL);
	if (jr.trailing_comma > 0)
		pf_find(fd, "PF-TRAILING-COMMA", ck->band == PF_V50 ? "fatal" :
		    NULL, ck->band == PF_V50 ? PF_FATAL : PF_OK, 0, NULL);
	if (pf_stalled(ck->sim) && jr.form == '{')
		pf_find(fd, "PF-BAD-DUR-STALL", "fatal", PF_FATAL, 0,
		    "the object form then fails as incomplete");
	if (ck->bytes == 0)
		ck->bytes = (long long)(in->off + (off_t)in->end);
	lt_jr_free(&jr);
}

/*
 * An lt1 stream is judged as the trace ltjson(1) writes of it: the same
 * checks and messages, the same bytes (jsonw.c), then the same model.
 */
static void
lt1event(struct pfcheck *ck, struct ltrd *rd, struct ltjr *jr,
    struct ltjw *jw, struct ltbuf *b, const struct ltrec *rec)
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
	if (ck->copying) {
		lt_out_puts(&ck->copy, ck->ncopy++ > 0 ? ",\n" : "");
		lt_out_write(&ck->copy, b->p, b->n);
	}
	memset(&ev, 0, sizeof(ev));
	if ((n = lt_jr_tokens(jr, b->p, b->n)) < 1)
		lt_rd_bad(rd, "bad record");
	ev.kind = LT_JEV_EVENT;
	ev.p = ev.raw = b->p;
	ev.n = ev.rawn = b->n;
	ev.tok = jr->tok;
	ev.ntok = n;
	pf_jsonev(ck->sim, &ev, rd->in.line);
}

void
pf_readlt1(struct pfcheck *ck, struct ltin *in)
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
	if (ck->tpprog != NULL)
		startcopy(ck);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC) {
			lt1event(ck, &rd, &jr, &jw, &b, &rec);
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
	if (ck->copying) {
		lt_out_puts(&ck->copy, "\n]}\n");
		lt_out_close(&ck->copy);
	}
	if (ck->bytes == 0)
		ck->bytes = (long long)(rd.in.off + (off_t)rd.in.end);
	lt_rd_done(&rd);
	lt_jr_free(&jr);
	lt_jw_free(&jw);
	lt_buf_free(&b);
	lt_buf_free(&top);
	ck->form = 'l';
}

/*
 * A Perfetto protobuf trace (ltproto(1)): said what it holds, and
 * whether it is well-formed; its import is Perfetto's to check.
 */
int
pf_readpb(struct pfcheck *ck, struct ltin *in)
{
	struct ltout *out = &ck->out;
	struct pbtrace t;
	char line[256];
	int ok = pb_trace(in, &t);

	if (ck->mode == PF_MODE_QUIET) {
		if (!ok)
			lt_warn("%s: Perfetto protobuf trace, not well-formed "
			    "after %lld packets: %s", ck->fname, t.packets,
			    t.err);
	} else {
		lt_out_puts(out, ck->fname);
		if (ok)
			lt_out_puts(out, ": Perfetto protobuf trace, ");
		else
			lt_out_puts(out, ": Perfetto protobuf trace, not "
			    "well-formed: ");
		if (!ok) {
			lt_out_puts(out, t.err);
			lt_out_puts(out, ", after ");
		}
		snprintf(line, sizeof(line), "%lld bytes, %lld packets: %lld "
		    "track events, %lld track descriptors, %lld with interned "
		    "data\n", t.bytes, t.packets, t.events, t.descriptors,
		    t.interned);
		lt_out_puts(out, line);
		lt_out_puts(out, "ltcheck checks JSON and lt1; Perfetto's "
		    "own importer (trace_processor_shell) checks this one\n");
	}
	return ok ? LT_EXIT_OK : LT_EXIT_DATA;
}
