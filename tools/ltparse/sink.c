/* See LICENSE file for copyright and license details. */
/*
 * sink.c: what ltparse writes besides its records, for the log and the
 * JSON paths alike: the header and its promise, the #t0 directive once,
 * the M records that name processes and threads, the #stat line of its
 * counters, and input bytes quoted in its messages.
 */
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "lt.h"
#include "ltparse.h"

/*
 * The head of the stream: the header, and #valid, ltparse's promise that
 * its records are valid and canonical (litracer-stream(5)).
 */
void
ps_sink_head(struct pssink *s)
{
	lt_put_header(&s->out);
	lt_out_puts(&s->out, LT_VALID "\n");
}

/*
 * #t0 before the first record that is not M and has a ts: where
 * ltfilter -T counts from, whatever later stages do to the order.  A
 * part that is quiet there lets the part holding that record write it.
 */
void
ps_sink_t0(struct pssink *s, const char *ts, size_t n, int ph)
{
	if (s->t0done || ph == 'M' || (n == 1 && ts[0] == '-'))
		return;
	s->t0done = 1;
	if (s->quiet)
		return;
	lt_out_puts(&s->out, "#t0\t");
	lt_out_write(&s->out, ts, n);
	lt_out_putc(&s->out, '\n');
}

/*
 * One M record: name is process_name or thread_name with label, or
 * process_sort_index or thread_sort_index (label NULL) with index.
 */
void
ps_sink_meta(struct pssink *s, uint64_t pid, uint32_t tid, const char *name,
    const char *label, long long index)
{
	struct ltbuf *b = &s->rec;
	char num[LT_NUMBUF];

	b->n = 0;
	lt_buf_add(b, "-\tM\t", 4);
	lt_buf_add(b, num, lt_u64_fmt(num, pid));
	lt_buf_addc(b, '\t');
	lt_buf_add(b, num, lt_u64_fmt(num, tid));
	lt_buf_add(b, "\t-\t\t", 4);
	lt_buf_adds(b, name);
	if (label != NULL) {
		lt_buf_adds(b, "\t{\"name\":\"");
		s->n[PS_C_REPLACED] += (long long)lt_esc(b, label,
		    strlen(label));
		lt_buf_addc(b, '"');
	} else {
		lt_buf_adds(b, "\t{\"sort_index\":");
		lt_buf_add(b, num, lt_i64_fmt(num, index));
	}
	lt_buf_add(b, "}\t{}\n", 5);
	lt_out_write(&s->out, b->p, b->n);
	s->n[PS_C_META]++;
}

/*
 * #config PID TEXT: a configuration line of the log (skipped, and
 * counted so, as every text line), its message as JSON string contents,
 * for ltstat to quote.
 */
void
ps_sink_config(struct pssink *s, uint64_t pid, const char *text, size_t n)
{
	struct ltbuf *b = &s->rec;
	char num[LT_NUMBUF];

	b->n = 0;
	lt_buf_adds(b, "#config\t");
	lt_buf_add(b, num, lt_u64_fmt(num, pid));
	lt_buf_addc(b, '\t');
	lt_esc(b, text, n);
	lt_buf_addc(b, '\n');
	lt_out_write(&s->out, b->p, b->n);
}

/* The first time of input ip: ns, of an event ph that is not M. */
void
ps_sink_first(struct pssink *s, const struct pspin *ip, int64_t ns, int ph)
{
	if (s->firstpart != NULL && s->firstpart[ip->index] == 0 &&
	    ph != 'M') {
		s->first[ip->index] = ns;
		s->firstpart[ip->index] = INT_MAX;	/* this run's part */
	}
}

#define DAY	((int64_t)86400 * 1000000000)

/* A time of an input, for a message: its us, and its date if it is one. */
static void
when(struct ltbuf *b, int64_t ns)
{
	char t[LT_NUMBUF + 40];
	struct tm tm;
	time_t sec = (time_t)(ns / 1000000000);

	lt_buf_add(b, t, lt_us_fmt(t, ns));
	lt_buf_adds(b, " us");
	/* after a year from 1970, an epoch time */
	if (ns >= 365 * DAY && gmtime_r(&sec, &tm) != NULL &&
	    strftime(t, sizeof(t), " (%Y-%m-%d %H:%M:%S UTC)", &tm) > 0)
		lt_buf_adds(b, t);
}

/*
 * Inputs merged into one trace whose clocks are more than a day apart
 * (a LitData log in epoch time and a trace whose clock starts at 0):
 * a timeline of years with each input at one end.  Said, naming each
 * input and its first time.
 */
void
ps_clocks(const struct pssink *s, const struct pspin *ins, int nin)
{
	struct ltbuf b = { NULL, 0, 0 };
	int64_t lo = 0, hi = 0;
	int i, n = 0;

	for (i = 0; i < nin; i++) {
		if (s->firstpart[i] == 0)
			continue;
		if (n++ == 0 || s->first[i] < lo)
			lo = s->first[i];
		if (n == 1 || s->first[i] > hi)
			hi = s->first[i];
	}
	if (n < 2 || hi - lo <= DAY)
		return;
	for (i = 0; i < nin; i++) {
		if (s->firstpart[i] == 0)
			continue;
		lt_buf_adds(&b, b.n > 0 ? "; " : "");
		lt_buf_adds(&b, strcmp(ins[i].path, "-") == 0 ?
		    "standard input" : ins[i].path);
		lt_buf_adds(&b, " starts at ");
		when(&b, s->first[i]);
	}
	lt_buf_addc(&b, '\0');
	lt_warn("inputs merged into one trace have clocks %lld days apart: "
	    "%s (litracer(7): aligning inputs)", (long long)((hi - lo) / DAY),
	    b.p);
	lt_buf_free(&b);
}

/* The #stat line; the processes and threads are the logs'. */
void
ps_sink_stats(struct pssink *s, long long procs, long long threads)
{
	static const char *const skipped[PS_NKIND - 1] = {
		"skipped_blank", "skipped_text", "skipped_noise",
		"skipped_traceback", "skipped_torn", "skipped_phase"
	};
	static const char *const gen[PS_NGEN] = {
		"lines_v1", "lines_old", "lines_new"
	};
	struct ltstat st[PS_NCOUNT + 3];
	long long sum = 0;
	size_t n = 0;
	int i;

#define STAT(k, v)	(st[n].key = (k), st[n++].val = (v))
	for (i = PS_C_SKIP; i <= PS_C_SKIPMETA; i++)
		sum += s->n[i];
	STAT("lines", s->n[PS_C_LINES]);
	STAT("events", s->n[PS_C_EVENTS]);
	STAT("skipped", sum);
	for (i = 0; i < PS_NKIND - 1; i++)
		STAT(skipped[i], s->n[PS_C_SKIP + i]);
	STAT("skipped_json", s->n[PS_C_SKIPJSON]);
	STAT("skipped_dur", s->n[PS_C_SKIPDUR]);
	STAT("skipped_meta", s->n[PS_C_SKIPMETA]);
	for (i = 0; i < PS_NGEN; i++)
		STAT(gen[i], s->n[PS_C_GEN + i]);
	STAT("lines_json", s->n[PS_C_JSON]);
	STAT("renamed", s->n[PS_C_RENAMED]);
	STAT("cat_inferred", s->n[PS_C_INFERRED]);
	STAT("salvaged", s->n[PS_C_SALVAGED]);
	STAT("processes", procs);
	STAT("threads", threads);
	STAT("metadata", s->n[PS_C_META]);
	STAT("replaced", s->n[PS_C_REPLACED]);
	STAT("repaired", s->n[PS_C_REPAIRED]);
	STAT("dupkeys", s->n[PS_C_DUPKEYS]);
	STAT("top", s->n[PS_C_TOP]);
	STAT("flows_moved", s->n[PS_C_FLOWSMOVED]);
#undef STAT
	lt_put_stat(&s->out, "ltparse", st, n);
	if (s->n[PS_C_FLOWSMOVED] > 0)
		lt_warn("%lld flow starts written before a 0-ns slice of their "
		    "time and thread, which Perfetto would bind them to: they "
		    "bind to the slice of their correlation",
		    s->n[PS_C_FLOWSMOVED]);
}

/*
 * p[0..n) quoted for a message in buf[0..size): between double quotes,
 * a control character, a byte above 0x7e, '"' and '\' as \xHH, so
 * that nothing the input holds can act on a terminal or look like
 * something else; cut with "..." when too long.  Returns buf.
 */
const char *
ps_quote(char *buf, size_t size, const char *p, size_t n)
{
	size_t i, w = 0;
	unsigned c;

	if (size < 8)
		return "\"...\"";
	buf[w++] = '"';
	for (i = 0; i < n; i++) {
		c = (unsigned char)p[i];
		if (w + 4 + 5 > size) {
			memcpy(buf + w, "...", 3);
			w += 3;
			break;
		}
		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			w += (size_t)snprintf(buf + w, size - w, "\\x%02x", c);
		else
			buf[w++] = (char)c;
	}
	buf[w++] = '"';
	buf[w] = '\0';
	return buf;
}
