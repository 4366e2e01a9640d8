/* See LICENSE file for copyright and license details. */
/*
 * pfjson.c: a Chrome trace event, as tokens (core.h), to the members that
 * ltcheck's Perfetto model reads (struct pfev), and the 128-byte prefix
 * Perfetto sniffs before it takes a file for JSON.  Used by ltcheck(1)
 * and its fuzzer.
 */
#include <stddef.h>

#include "jsonev.h"
#include "ltcheck.h"

#define SNIFF	128

/* The members of an event that the model reads, by bit. */
enum {
	M_PH, M_TS, M_DUR, M_TDUR, M_TTS, M_PID, M_TID, M_NAME, M_CAT, M_ID,
	M_ID2, M_BIND_ID, M_FLOW_IN, M_FLOW_OUT, M_BP, M_S, M_ARGS, M_N
};

/* Where each member goes in struct pfev (id2 is taken apart). */
static const size_t offsets[M_N] = {
	offsetof(struct pfev, ph), offsetof(struct pfev, ts),
	offsetof(struct pfev, dur), offsetof(struct pfev, tdur),
	offsetof(struct pfev, tts), offsetof(struct pfev, pid),
	offsetof(struct pfev, tid), offsetof(struct pfev, name),
	offsetof(struct pfev, cat), offsetof(struct pfev, id), 0,
	offsetof(struct pfev, bind_id), offsetof(struct pfev, flow_in),
	offsetof(struct pfev, flow_out), offsetof(struct pfev, bp),
	offsetof(struct pfev, s), offsetof(struct pfev, args)
};

/* -------- the prefix Perfetto sniffs -------- */

void
pf_sniff(struct pfsim *sim, const char *p, size_t n)
{
	char b[SNIFF];
	const char *why = NULL;
	size_t k = 0, i;
	int c;

	for (i = 0; i < n && i < SNIFF; i++) {
		c = (unsigned char)p[i];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
		    c != '\f' && c != '\v')
			b[k++] = (char)c;
	}
	if (k >= 2 && b[0] == '{' && b[1] == '"') {
		if ((k >= 7 && memcmp(b, "{\"meta\"", 7) == 0) ||
		    (k >= 7 && memcmp(b, "{\"libs\"", 7) == 0) ||
		    (k >= 20 && memcmp(b, "{\"perfetto_manifest\"", 20) == 0))
			why = "the first key belongs to another importer";
	} else if (k >= 3 && memcmp(b, "[{\"", 3) == 0)
		;
	else if (k == 2 && memcmp(b, "[]", 2) == 0) {
		pf_find(pf_finds(sim), "PF-DETECT-EMPTY", "fatal", PF_FATAL,
		    1, NULL);
		return;
	} else if (k >= 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0)
		why = "a UTF-8 byte order mark";
	else if (k == 0)
		why = "an empty file";
	else if (b[0] == '/' || b[0] == '#')
		why = "a comment before the JSON";
	else if (b[0] == '[')
		why = "the first element is not an object";
	else
		why = "not JSON";
	if (why != NULL)
		pf_find(pf_finds(sim), "PF-DETECT-PREFIX", "fatal", PF_FATAL,
		    1, why);
}

/* -------- one JSON event -------- */

static void
val(const char *js, const struct ltjtok *t, struct pfval *v)
{
	v->p = js + t->start;
	v->n = (size_t)(t->end - t->start);
	switch (t->type) {
	case LT_JT_STRING:
		v->type = '"';
		break;
	case LT_JT_OBJECT:
		v->type = '{';
		break;
	case LT_JT_ARRAY:
		v->type = '[';
		break;
	default:
		v->type = js[t->start] == 'n' ? 'z' : js[t->start] == 't' ?
		    't' : js[t->start] == 'f' ? 'f' : 'n';
	}
}

static int
keyis(const char *js, const struct ltjtok *t, const char *s, size_t n)
{
	return (size_t)(t->end - t->start) == n &&
	    memcmp(js + t->start, s, n) == 0;
}

/* Which member key t is, or -1; called for every key, so no loop. */
static int
member(const char *js, const struct ltjtok *t)
{
	const char *k = js + t->start;

#define IS(s)	(memcmp(k, s, sizeof(s) - 1) == 0)
	switch (t->end - t->start) {
	case 1:
		return k[0] == 's' ? M_S : -1;
	case 2:
		return IS("ph") ? M_PH : IS("ts") ? M_TS : IS("id") ? M_ID :
		    IS("bp") ? M_BP : -1;
	case 3:
		return IS("dur") ? M_DUR : IS("pid") ? M_PID : IS("tid") ?
		    M_TID : IS("cat") ? M_CAT : IS("tts") ? M_TTS : IS("id2") ?
		    M_ID2 : -1;
	case 4:
		return IS("name") ? M_NAME : IS("args") ? M_ARGS : IS("tdur") ?
		    M_TDUR : -1;
	case 7:
		return IS("bind_id") ? M_BIND_ID : IS("flow_in") ? M_FLOW_IN :
		    -1;
	case 8:
		return IS("flow_out") ? M_FLOW_OUT : -1;
	default:
		return -1;
	}
#undef IS
}

/* Is token t a number that Perfetto's parser makes infinite? */
static int
infinite(const char *js, const struct ltjtok *t)
{
	const char *p = js + t->start;
	size_t n = (size_t)(t->end - t->start);
	struct pfnum num;

	if (t->type != LT_JT_PRIMITIVE || (*p != '-' && !PF_ISDIGIT(*p)))
		return 0;
	/* the quick way: short, and no exponent */
	if (n < 20 && memchr(p, 'e', n) == NULL && memchr(p, 'E', n) == NULL)
		return 0;
	return pf_num(p, n, &num) == 0 && !pf_finite(&num);
}

/* args of C, M and P events: what the parser checks in them. */
static void
args(const char *js, const struct ltjtok *t, int a, struct pfev *pe, int ph)
{
	struct pfval v;
	struct pfnum num;
	int i, k, d;

	pe->args_count = t[a].type == LT_JT_OBJECT ? t[a].size : -1;
	for (i = a + 1, k = lt_jtok_skip(t, a); i < k; i++)
		if (infinite(js, &t[i]))
			pe->inf_args = 1;
	if (t[a].type != LT_JT_OBJECT)
		return;
	for (i = a + 1, k = 0; k < t[a].size; k++) {
		val(js, &t[i + 1], &v);
		if (ph == 'C' && ((v.type != 'n' && v.type != '"') ||
		    pf_num(v.p, v.n, &num) < 0))
			pe->args_badnum++;
		if (ph == 'M' && keyis(js, &t[i], "name", 4) &&
		    v.type == '"')
			pe->m_name_ok = v.n > 0;
		if (ph == 'M' && keyis(js, &t[i], "sort_index", 10))
			pe->m_sort_ok = v.type == 'n';
		if (ph == 'P' && keyis(js, &t[i], "data", 4) &&
		    (d = lt_jtok_get(js, t, i + 1, "cpuProfile")) > 0)
			pe->p_profile = 1;
		i = lt_jtok_skip(t, i + 1);
	}
}

static void
id2(const char *js, const struct ltjtok *t, int a, struct pfev *pe)
{
	int v;

	pe->has_id2 = 1;
	if (t[a].type != LT_JT_OBJECT) {
		pe->id2_bad = 1;
		return;
	}
	if ((v = lt_jtok_get(js, t, a, "local")) > 0)
		val(js, &t[v], &pe->id2_local);
	if ((v = lt_jtok_get(js, t, a, "global")) > 0)
		val(js, &t[v], &pe->id2_global);
	if (pe->id2_local.type == 0 && pe->id2_global.type == 0)
		pe->id2_bad = 1;
}

/*
 * The raw text of an event with surrogate escapes or raw control
 * characters: which top-level member holds them.  (The tokens may be of
 * a canonical copy, where neither shows any more.)
 */
static void
rawscan(struct pfsim *sim, const char *p, size_t n, struct pfev *pe)
{
	const char *e = p + n, *k;
	struct ltjson j;
	size_t i;

	p++;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r' || *p == ','))
			p++;
		if (p >= e || *p != '"')
			return;
		if (lt_json_value(p, (size_t)(e - p), NULL, &j) != LT_JSON_OK)
			return;
		for (k = p, i = 0; i < j.end; i++)
			if ((unsigned char)k[i] < 0x20)
				pf_find(pf_finds(sim), "PF-JSON-SYNTAX",
				    "fatal", PF_FATAL, pe->line, "a raw "
				    "control character in a key");
		p += j.end;
		while (p < e && *p != ':')
			p++;
		if (++p >= e ||
		    lt_json_value(p, (size_t)(e - p), NULL, &j) != LT_JSON_OK)
			return;
		if (j.flags & LT_JS_SURROGATE) {
			if (j.type == '"')
				pe->surrogate_top = 1;
			else
				pe->surrogate_args = 1;
		}
		p += j.end;
	}
}

/* Is the unknown key at token i a repeat of an earlier unknown key? */
static int
dupunknown(const char *js, const struct ltjtok *t, int i)
{
	int x;

	for (x = 1; x < i; x = lt_jtok_skip(t, x + 1))
		if (member(js, &t[x]) < 0 &&
		    t[x].end - t[x].start == t[i].end - t[i].start &&
		    memcmp(js + t[x].start, js + t[i].start,
		    (size_t)(t[i].end - t[i].start)) == 0)
			return 1;
	return 0;
}

/* The members of the object at t[0]; returns the token of args, or -1. */
static int
members(const char *js, const struct ltjtok *t, struct pfev *pe)
{
	uint32_t seen = 0;
	int i, k, m, a = -1;

	for (i = 1, k = 0; k < t[0].size; k++, i = lt_jtok_skip(t, i + 1)) {
		if (infinite(js, &t[i + 1]))
			pe->inf_member = 1;
		if ((m = member(js, &t[i])) < 0) {
			if (!pe->dupkey)
				pe->dupkey = dupunknown(js, t, i);
			continue;
		}
		if (seen & 1u << m)
			pe->dupkey = 1;
		seen |= 1u << m;
		if (m == M_ID2) {
			memset(&pe->id2_local, 0, sizeof(pe->id2_local));
			memset(&pe->id2_global, 0, sizeof(pe->id2_global));
			pe->id2_bad = 0;
			id2(js, t, i + 1, pe);
		} else
			val(js, &t[i + 1],
			    (struct pfval *)(void *)((char *)pe + offsets[m]));
		if (m == M_ARGS)
			a = i + 1;
	}
	return a;
}

void
pf_jsonev(struct pfsim *sim, const struct ltjev *ev, long line)
{
	const struct ltjtok *t = ev->tok;
	const char *js = ev->p;
	struct pfev pe;
	int a, ph;

	memset(&pe, 0, sizeof(pe));
	pe.line = line;
	if (t[0].type != LT_JT_OBJECT) {
		pf_find(pf_finds(sim), "PF-JSON-SYNTAX", "fatal", PF_FATAL,
		    line, "an element of traceEvents is not an object");
		pe.notobj = 1;
		pf_event(sim, &pe);
		return;
	}
	pe.empty = t[0].size == 0;
	a = members(js, t, &pe);
	/* name and cat that are not strings do not count. */
	if (pe.name.type != '"')
		memset(&pe.name, 0, sizeof(pe.name));
	if (pe.cat.type != '"')
		memset(&pe.cat, 0, sizeof(pe.cat));
	if (pe.pid.type != '"' && pe.pid.type != 'n')
		memset(&pe.pid, 0, sizeof(pe.pid));
	if (pe.tid.type != '"' && pe.tid.type != 'n')
		memset(&pe.tid, 0, sizeof(pe.tid));
	ph = pe.ph.type == '"' && pe.ph.n > 0 ? pe.ph.p[0] : 0;
	if (a > 0)
		args(js, t, a, &pe, ph);
	else
		pe.args_count = -1;
	if (ev->flags & LT_JS_CTRL)
		pe.ctrl = 1;
	if (ev->flags & (LT_JS_SURROGATE | LT_JS_CTRL))
		rawscan(sim, ev->raw, ev->rawn, &pe);
	if (ev->flags & (LT_JS_UTF8 | LT_JS_NUL))
		pf_find(pf_finds(sim), "LT-STRICT-JSON", NULL, PF_OK, line,
		    ev->flags & LT_JS_UTF8 ? "invalid UTF-8 in a string" :
		    "a NUL character in a string");
	pf_event(sim, &pe);
}
