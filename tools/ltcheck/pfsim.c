/* See LICENSE file for copyright and license details. */
/*
 * pfsim.c: the event-by-event half of ltcheck's model of Perfetto's JSON
 * importer (the rules are in ltcheck(1)).
 *
 * pf_event() takes one event as the tokenizer sees it: it counts it,
 * applies every check that does not depend on the order of events
 * (missing ph or ts, bad dur, counters, metadata, pid coercion, number
 * overflow), runs Queue::Append's bookkeeping and keeps a 20-byte record
 * of the events the slice stacks and flows need (pfrec.c).  pf_finish()
 * sorts the records and replays them (pfstack.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "pfint.h"

#define PREC_US		9007199254740.992	/* 2^53 ns in us */

struct pfsim {
	int		 band;
	int		 stalled;
	long long	 lost;
	struct pfrecs	 rs;
	struct pffinds	 fd;
	struct pfsum	 sum;
	struct pfkin	*kin;
	int64_t		 precmax;	/* ns the ts conversion moved, at most */
	char		 precwhy[96];
};

struct pfsim *
pf_new(int band, int summary)
{
	struct pfsim *s = lt_calloc(1, sizeof(*s));

	s->band = band;
	pf_sum_init(&s->sum, summary);
	s->kin = pf_kin_new();
	return s;
}

void
pf_free(struct pfsim *s)
{
	pf_sum_free(&s->sum);
	pf_recs_free(&s->rs);
	pf_finds_free(&s->fd);
	pf_kin_free(s->kin);
	free(s);
}

struct pffinds *
pf_finds(struct pfsim *s)
{
	return &s->fd;
}

const struct pfsum *
pf_sum(const struct pfsim *s)
{
	return &s->sum;
}

int
pf_stalled(const struct pfsim *s)
{
	return s->stalled;
}

/* A finding about the event at line. */
static void
find(struct pfsim *s, const char *rule, const char *counter, int card,
    long line)
{
	pf_find(&s->fd, rule, counter, card, line, NULL);
}

/* -------- members -------- */

static int
streq(const struct pfval *v, const char *s)
{
	return v->type == '"' && v->n == strlen(s) &&
	    memcmp(v->p, s, v->n) == 0;
}

/* A number, or a string holding one (Perfetto accepts both). */
static int
numval(const struct pfval *v, struct pfnum *n)
{
	if (v->type != 'n' && v->type != '"')
		return -1;
	return pf_num(v->p, v->n, n);
}

/* The hash of a name, or of dflt when it has none; 0 for neither. */
static uint64_t
namehash(const struct pfval *name, const char *dflt)
{
	uint64_t h;

	if (name->type == '"' && name->n > 0)
		h = lt_hash(name->p, name->n);
	else if (dflt != NULL)
		h = lt_hash(dflt, strlen(dflt));
	else
		return 0;
	return h != 0 ? h : 1;
}

enum { ID_OK, ID_RANGE, ID_FRACTION, ID_WRAP };

/*
 * pid or tid as the tokenizer makes it: a number through CoerceToUint32
 * (a fraction truncated, out of 0..2^32-1 0; digits beyond 64 bits wrap
 * first, as Perfetto's parser does), a string as its text, which *key
 * gets as a hash with the top bit set.  Returns ID_OK, or how the
 * number was changed.
 */
static int
coerce(const struct pfval *v, uint64_t *key)
{
	struct pfnum n;

	*key = 0;
	if (v->type == '"') {
		*key = lt_hash(v->p, v->n) | (uint64_t)1 << 63;
		return ID_OK;
	}
	if (v->type != 'n' || pf_num(v->p, v->n, &n) < 0)
		return ID_OK;
	if (n.isint) {
		if (n.i < 0 || n.i > (int64_t)UINT32_MAX)
			return ID_RANGE;
		*key = (uint64_t)n.i;
		return n.wrap ? ID_WRAP : ID_OK;
	}
	if (n.d <= -1 || n.d >= 4294967296.0)
		return ID_RANGE;
	*key = n.d > 0 ? (uint64_t)n.d : 0;
	return pf_integral(n.d) ? ID_OK : ID_FRACTION;
}

/* How a pid or tid was changed (ID_*), for the report. */
static const char *const pidwhy[] = {
	NULL, "a pid out of 0..4294967295 becomes 0",
	"a fractional pid is truncated",
	"a pid of more than 64 bits wraps around"
};
static const char *const tidwhy[] = {
	NULL, "a tid out of 0..4294967295 becomes 0",
	"a fractional tid is truncated",
	"a tid of more than 64 bits wraps around"
};
static const char *const tozero[] = {
	"a tid of 0 becomes the pid: the main thread's track",
	"a tid out of 0..4294967295 becomes 0, then the pid: the main "
	    "thread's track",
	"a tid truncated to 0 becomes the pid: the main thread's track",
	"a tid of more than 64 bits wraps to 0, then the pid: the main "
	    "thread's track"
};

/*
 * The thread track of an event (pid gets the coerced pid).  Perfetto
 * makes a tid of 0 the pid, unless it was a string, so a tid it coerced
 * to 0 and a written tid of 0 land on the main thread's track.  M events
 * name processes with a tid of 0: that is no finding.
 */
static uint32_t
thread(struct pfsim *s, const struct pfev *ev, int ph, uint64_t *pid)
{
	uint64_t tid;
	int why;

	if (ev->pid.type == '"')
		find(s, "PF-PID-STRING", NULL, PF_SILENT, ev->line);
	if ((why = coerce(&ev->pid, pid)) != ID_OK)
		pf_find(&s->fd, "PF-PID-COERCE", NULL, PF_SILENT, ev->line,
		    pidwhy[why]);
	if (ev->tid.type == 0)
		return pf_track(&s->rs, pf_key('t', *pid, *pid));
	if (ev->tid.type == '"')
		find(s, "PF-PID-STRING", NULL, PF_SILENT, ev->line);
	why = coerce(&ev->tid, &tid);
	if (tid == 0 && ev->tid.type != '"' && *pid != 0) {
		tid = *pid;
		if (why != ID_OK || ph != 'M')
			pf_find(&s->fd, "PF-PID-COERCE", NULL, PF_SILENT,
			    ev->line, tozero[why]);
	} else if (why != ID_OK)
		pf_find(&s->fd, "PF-PID-COERCE", NULL, PF_SILENT, ev->line,
		    tidwhy[why]);
	return pf_track(&s->rs, pf_key('t', *pid, tid));
}

/*
 * A flow id: an integer (an int64: one beyond is a double to Perfetto,
 * no id), or a string all of which strtoull(3) takes in base 16, as
 * CStringToUInt64 does: blanks first, a sign, 0x, and digits, the value
 * saturated at 2^64-1 beyond 64 bits.  Returns 0 with *id set, or -1.
 */
static int
flowid(const struct pfval *v, uint64_t *id)
{
	struct pfnum n;
	const char *p = v->p, *e = v->p + v->n;
	uint64_t x = 0;
	int d, neg = 0, over = 0;

	if (v->type == 'n')
		return pf_num(v->p, v->n, &n) == 0 && n.isint && !n.wrap ?
		    (*id = (uint64_t)n.i, 0) : -1;
	if (v->type != '"')
		return -1;
	while (p < e && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
		p++;
	if (p < e && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == e)
		return -1;
	for (; p < e; p++) {
		if (PF_ISDIGIT(*p))
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -1;
		if (x > (UINT64_MAX - (uint64_t)d) / 16)
			over = 1;
		x = x * 16 + (uint64_t)d;
	}
	*id = over ? UINT64_MAX : neg ? 0 - x : x;
	return 0;
}

/* -------- phases -------- */

/* A v2 flow (bind_id, flow_in, flow_out) on B or X; returns RF_V2 or 0. */
static int
v2flow(struct pfsim *s, const struct pfev *ev)
{
	uint64_t id;
	uint32_t dir = 0;

	if (ev->bind_id.type == 0 || flowid(&ev->bind_id, &id) < 0)
		return 0;
	if (ev->flow_in.type == 't')
		dir |= 1;
	if (ev->flow_out.type == 't')
		dir |= 2;
	if (dir == 0) {
		find(s, "PF-FLOW-V2-NO-DIRECTION", "flow_without_direction",
		    PF_TE, ev->line);
		return 0;
	}
	pf_addv2(&s->rs, pf_flowslot(&s->rs, pf_key('2', id, 0)), dir);
	return RF_V2;
}

/* The checks of an X's dur; returns 0 with *dur set, or -1: dropped. */
static int
xdur(struct pfsim *s, const struct pfev *ev, int64_t *dur, int *flags)
{
	struct pfnum n;

	if (ev->dur.type == 0) {
		find(s, "PF-X-NO-DUR", "json_parser_failure", PF_TE, ev->line);
		return -1;
	}
	numval(&ev->dur, &n);	/* checked by the tokenizer */
	if (pf_tons(&n, dur))
		find(s, "PF-TS-OVERFLOW", NULL, PF_SILENT, ev->line);
	if (n.fracwrap)
		find(s, "PF-NUM-DIGITS", NULL, PF_SILENT, ev->line);
	if (*dur < 0) {
		find(s, "PF-X-NEG-DUR", "slice_negative_duration", PF_IE,
		    ev->line);
		return -1;
	}
	if (!n.exact)
		*flags |= RF_ROUND;
	return 0;
}

static void
complete(struct pfsim *s, const struct pfev *ev, int64_t ts, int flags,
    uint32_t cat, uint32_t tr)
{
	int64_t dur;
	uint32_t u;

	if (xdur(s, ev, &dur, &flags) < 0)
		return;
	if (pf_endof(ts, dur) > s->sum.last)
		s->sum.last = pf_endof(ts, dur);
	pf_adddur(&s->sum, cat, dur);
	u = pf_setdur(&s->rs, dur, &flags);
	flags |= v2flow(s, ev);
	pf_addrec(&s->rs, ev->line, ts, K_X, flags, tr, u);
}

/* i, I, R: on the thread, the process (s "p") or the global track. */
static void
instant(struct pfsim *s, const struct pfev *ev, int64_t ts, uint64_t pid,
    uint32_t tr)
{
	if (streq(&ev->s, "g"))
		tr = pf_track(&s->rs, pf_key('g', 0, 0));
	else if (streq(&ev->s, "p")) {
		if (ev->pid.type == 0) {
			find(s, "PF-INSTANT-NO-TID", "json_parser_failure",
			    PF_TE, ev->line);
			return;
		}
		tr = pf_track(&s->rs, pf_key('p', pid, 0));
	} else {
		if (ev->s.type != 0 && !streq(&ev->s, "t"))
			find(s, "SC-INSTANT-SCOPE", NULL, PF_OK, ev->line);
		if (ev->tid.type == 0) {
			find(s, "PF-INSTANT-NO-TID", "json_parser_failure",
			    PF_TE, ev->line);
			return;
		}
	}
	pf_addrec(&s->rs, ev->line, ts, K_I, 0, tr, 0);
}

/* The cookie of an async id: its text and its JSON type, in scope. */
static uint64_t
cookie(const struct pfval *id, int type, uint64_t scope)
{
	return lt_mix(lt_hash(id->p, id->n) + (uint64_t)type) ^ scope;
}

/* b, e, n: on the track of their cookie, hash(cat, id). */
static void
async(struct pfsim *s, const struct pfev *ev, int64_t ts, uint32_t cat,
    uint64_t pid, int ph)
{
	const struct pfval *id;
	uint64_t idkey, alt, scope = 0;
	int kind, flags = 0;

	if (ev->pid.type == 0 || (ev->id.type == 0 && !ev->has_id2) ||
	    (ev->id.type == 0 && ev->id2_local.type == 0 &&
	    ev->id2_global.type == 0)) {
		find(s, "PF-ASYNC-NO-ID", "json_parser_failure", PF_TE,
		    ev->line);
		return;
	}
	if (ev->id.type != 0) {
		id = &ev->id;
		if (ev->has_id2)
			find(s, "SC-ID2-AMBIGUOUS", NULL, PF_SILENT, ev->line);
	} else if (ev->id2_global.type != 0) {
		id = &ev->id2_global;
		if (ev->id2_local.type != 0)
			find(s, "SC-ID2-AMBIGUOUS", NULL, PF_SILENT, ev->line);
	} else {
		id = &ev->id2_local;
		scope = pid | (uint64_t)1 << 62;
	}
	idkey = cookie(id, id->type, scope);
	alt = cookie(id, id->type == '"' ? 'n' : '"', scope);
	kind = ph == 'b' ? K_AB : ph == 'e' ? K_AE : K_AN;
	/* An e whose cookie is new but exists with the other id type. */
	if (kind == K_AE && !pf_hastrack(&s->rs, pf_key('a', cat, idkey)) &&
	    pf_hastrack(&s->rs, pf_key('a', cat, alt)))
		flags = RF_SIDE;
	pf_addrec(&s->rs, ev->line, ts, kind, flags,
	    pf_track(&s->rs, pf_key('a', cat, idkey)), pf_pair(&s->rs, cat,
	    namehash(&ev->name, kind == K_AE ? NULL : "[No name]")));
}

static void
flowv1(struct pfsim *s, const struct pfev *ev, int64_t ts, uint32_t cat,
    uint32_t tr, int ph)
{
	uint64_t id, nh;
	int kind;

	if (ev->id.type == 0 || flowid(&ev->id, &id) < 0) {
		find(s, "PF-FLOW-INVALID-ID", "flow_invalid_id", PF_TE,
		    ev->line);
		return;
	}
	nh = ev->name.type == '"' ? lt_hash(ev->name.p, ev->name.n) : 0;
	kind = ph == 's' ? K_S : ph == 't' ? K_T : K_F;
	if (ph == 'f' && streq(&ev->bp, "e"))
		kind = K_FE;
	else if (ev->bp.type != 0 && !streq(&ev->bp, "e"))
		find(s, "SC-BP-VALUE", NULL, PF_OK, ev->line);
	pf_addrec(&s->rs, ev->line, ts, kind, 0, tr, pf_flowslot(&s->rs,
	    pf_key('1', id, nh ^ (uint64_t)cat << 40)));
}

static void
meta(struct pfsim *s, const struct pfev *ev)
{
	if (streq(&ev->name, "process_name") ||
	    streq(&ev->name, "thread_name")) {
		if (!ev->m_name_ok)
			find(s, "PF-META-BAD", "json_parser_failure", PF_TE,
			    ev->line);
	} else if (streq(&ev->name, "process_sort_index") ||
	    streq(&ev->name, "thread_sort_index")) {
		if (!ev->m_sort_ok)
			find(s, "PF-META-BAD", "json_parser_failure", PF_TE,
			    ev->line);
	} else
		find(s, "SC-META-UNKNOWN", NULL, PF_OK, ev->line);
}

static void
counter(struct pfsim *s, const struct pfev *ev)
{
	int i;

	if (ev->args_count <= 0)
		find(s, "PF-COUNTER-BAD", "json_parser_failure", PF_TE,
		    ev->line);
	for (i = 0; i < ev->args_badnum; i++)
		find(s, "PF-COUNTER-BAD", "json_parser_failure", PF_TE,
		    ev->line);
}

/* -------- one event -------- */

/* The phase, for the counts; what the tokenizer reads of ph is later. */
static int
phase(const struct pfev *ev)
{
	return ev->ph.type == '"' && ev->ph.n > 0 ?
	    (unsigned char)ev->ph.p[0] : 0;
}

/*
 * What the tokenizer says before it looks at ts: returns 0 to go on, or
 * -1 when the event is dropped, or stalls the tokenizer.
 */
static int
precheck(struct pfsim *s, const struct pfev *ev)
{
	if (ev->surrogate_top)
		find(s, "PF-UNICODE-SURROGATE", "fatal", PF_FATAL, ev->line);
	if (ev->surrogate_args)
		find(s, "PF-UNICODE-SURROGATE", NULL, PF_SILENT, ev->line);
	if (ev->dupkey)
		find(s, "SC-DUP-KEY", NULL, PF_OK, ev->line);
	if (ev->ctrl)
		find(s, "SC-CONTROL-CHAR", NULL, PF_OK, ev->line);
	if (ev->empty) {
		if (s->band == PF_V57)
			find(s, "PF-EMPTY-OBJECT", NULL, PF_OK, ev->line);
		else
			find(s, "PF-EMPTY-OBJECT", "json_tokenizer_failure",
			    PF_TE, ev->line);
		return -1;
	}
	if ((ev->dur.type != 0 && numval(&ev->dur, &(struct pfnum){0}) < 0) ||
	    (ev->tdur.type != 0 && numval(&ev->tdur, &(struct pfnum){0}) < 0) ||
	    (ev->tts.type != 0 && numval(&ev->tts, &(struct pfnum){0}) < 0)) {
		find(s, "PF-BAD-DUR-STALL", "json_tokenizer_failure", PF_TE,
		    ev->line);
		s->stalled = 1;
		return -1;
	}
	if (ev->id2_bad)
		find(s, "SC-ID2-AMBIGUOUS", "json_tokenizer_failure", PF_TE,
		    ev->line);
	/* infinite: a member fails the load, as does a counter's value */
	if (ev->inf_member || (ev->inf_args && phase(ev) == 'C')) {
		pf_find(&s->fd, "PF-NUM-OVERFLOW", "fatal", PF_FATAL, ev->line,
		    ev->inf_member ? "a member of an event" :
		    "a value of a counter");
		return -1;
	}
	if (ev->inf_args)
		find(s, "PF-NUM-OVERFLOW", NULL, PF_SILENT, ev->line);
	return 0;
}

/* |a - b|, saturated. */
static int64_t
ssub64(int64_t a, int64_t b)
{
	uint64_t d = a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b -
	    (uint64_t)a;

	return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* A fractional ts beyond double's ns range: where rounding moves it. */
static void
precision(struct pfsim *s, const struct pfev *ev, const struct pfnum *n,
    int64_t ts, int *flags)
{
	int64_t exact;

	if (n->isint || (n->d < PREC_US && n->d > -PREC_US))
		return;
	/*
	 * A double of an integer moves no slice against another; it may
	 * still have lost the digits written (1796180777367788.123).
	 */
	if (!pf_integral(n->d))
		*flags |= RF_PREC;
	if (lt_dec_parse(ev->ts.p, ev->ts.n, 3, &exact) == LT_NUM_OK &&
	    exact != ts) {
		find(s, "PF-TS-PRECISION", NULL, PF_SILENT, ev->line);
		/* What precision it lost: how far the conversion moved it. */
		if (ssub64(exact, ts) > s->precmax)
			s->precmax = ssub64(exact, ts);
	}
}

/* The per-event half of the tokenizer: returns 0 with *ts, or -1. */
static int
tokenize(struct pfsim *s, const struct pfev *ev, int ph, int64_t *ts,
    int *flags)
{
	struct pfnum n;
	int over;

	if (ev->ph.type != '"') {
		find(s, "PF-MISSING-PH", "json_tokenizer_failure", PF_TE,
		    ev->line);
		return -1;
	}
	if (numval(&ev->ts, &n) < 0) {
		if (ph == 'M') {
			*ts = 0;
			return 0;
		}
		find(s, "PF-MISSING-TS", "json_tokenizer_failure", PF_TE,
		    ev->line);
		return -1;
	}
	over = pf_tons(&n, ts);
	if (n.fracwrap)
		find(s, "PF-NUM-DIGITS", *ts < 0 ?
		    "trace_sorter_negative_timestamp_dropped" : NULL,
		    *ts < 0 ? PF_TE : PF_SILENT, ev->line);
	else if (over)
		find(s, "PF-TS-OVERFLOW", NULL, PF_SILENT, ev->line);
	if (*ts < 0) {
		if (!n.fracwrap)
			find(s, "PF-NEGATIVE-TS",
			    "trace_sorter_negative_timestamp_dropped", PF_TE,
			    ev->line);
		return -1;
	}
	if (!n.exact)
		*flags |= RF_ROUND;
	precision(s, ev, &n, *ts, flags);
	return 0;
}

/* The event, by phase, once it has a ts. */
static void
dispatch(struct pfsim *s, const struct pfev *ev, int ph, int64_t ts,
    int flags, uint32_t cat)
{
	uint64_t pid;
	uint32_t tr;

	tr = thread(s, ev, ph, &pid);
	switch (ph) {
	case 'B':
		flags |= v2flow(s, ev);
		pf_addrec(&s->rs, ev->line, ts, K_B, flags, tr,
		    pf_pair(&s->rs, cat, namehash(&ev->name, "[No name]")));
		break;
	case 'E':
		pf_addrec(&s->rs, ev->line, ts, K_E, 0, tr,
		    pf_pair(&s->rs, cat, namehash(&ev->name, NULL)));
		break;
	case 'X':
		complete(s, ev, ts, flags, cat, tr);
		break;
	case 'i':
	case 'I':
	case 'R':
		instant(s, ev, ts, pid, tr);
		break;
	case 's':
	case 't':
	case 'f':
		flowv1(s, ev, ts, cat, tr, ph);
		break;
	case 'b':
	case 'e':
	case 'n':
		async(s, ev, ts, cat, pid, ph);
		break;
	case 'C':
		counter(s, ev);
		break;
	case 'M':
		meta(s, ev);
		break;
	case 'T':
		find(s, "PF-PHASE-T", ev->dur.type == 0 ?
		    "json_parser_failure" : NULL, ev->dur.type == 0 ? PF_TE :
		    PF_SILENT, ev->line);
		break;
	case 'P':
		if (ev->p_profile)
			break;
		/* FALLTHROUGH */
	default:
		find(s, "PF-PHASE-IGNORED", NULL, PF_SILENT, ev->line);
	}
}

/* One event: count it, check it, keep what the replay needs. */
void
pf_event(struct pfsim *s, const struct pfev *ev)
{
	int64_t ts;
	uint32_t cat;
	int ph = phase(ev), flags = 0;

	s->sum.events++;
	s->sum.nph[ph & 127]++;
	cat = pf_catid(&s->sum, &ev->cat);
	s->sum.cats[cat].count++;
	pf_countproc(&s->sum, &ev->pid);
	if (s->stalled) {
		s->lost++;
		return;
	}
	if (ev->notobj)
		return;		/* a syntax error: the caller said so */
	pf_kin_event(s->kin, &s->fd, ev);
	if (precheck(s, ev) < 0 || tokenize(s, ev, ph, &ts, &flags) < 0)
		return;
	pf_push(&s->rs, ts, ph == 'X');
	if (ph != 'M' && ts < s->sum.first)
		s->sum.first = ts;
	if (ph != 'M' && ts > s->sum.last)
		s->sum.last = ts;
	if (ev->args.type != 0 && ev->args.type != '{' && ph != 'C')
		find(s, "SC-ARGS-NOT-OBJECT", NULL, PF_OK, ev->line);
	dispatch(s, ev, ph, ts, flags, cat);
}

/*
 * At the end of the input: sort, replay, report what was lost, and give
 * every example its line.
 */
void
pf_finish(struct pfsim *s)
{
	struct pffind *f;
	size_t i;
	int k;

	if (s->stalled && s->lost > 0)
		pf_find(&s->fd, "PF-BAD-DUR-STALL", NULL, PF_SILENT, 0,
		    NULL)->n += s->lost - 1;
	pf_kin_finish(s->kin, &s->fd);
	if (s->precmax > 0) {
		snprintf(s->precwhy, sizeof(s->precwhy), "a double moved "
		    "them by up to %lld ns", (long long)s->precmax);
		for (i = 0; i < s->fd.n; i++)
			if (strcmp(s->fd.f[i].rule, "PF-TS-PRECISION") == 0)
				s->fd.f[i].detail = s->precwhy;
	}
	pf_sort(&s->rs);
	pf_replay(&s->rs, &s->fd, &s->sum, s->band);
	for (i = 0; i < s->fd.n; i++) {
		f = &s->fd.f[i];
		for (k = 0; k < f->nex; k++)
			if (f->exrec[k]) {
				f->ex[k] = pf_recline(&s->rs, f->ex[k]);
				f->exrec[k] = 0;
			}
	}
}
