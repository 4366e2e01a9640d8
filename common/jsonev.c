/* See LICENSE file for copyright and license details. */
/*
 * jsonev.c: Chrome trace JSON, read as a stream of events.
 *
 * Both forms are read: {"traceEvents":[...], ...} and the bare array
 * [...] (whose closing ']' may be missing, as the format allows).  Each
 * event is found, checked and cut into tokens by the strict scanner of
 * json.c; only one event is held at a time, so memory does not grow with
 * the file.  Top-level members other than traceEvents are handed out
 * too, canonicalised.  This is the one file that compiles jsmn's code:
 * it cuts the texts that ltcheck makes of lt1 records (lt_jr_tokens).
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include <stdio.h>
#include <stdlib.h>

#include "jsonev.h"

enum {
	ST_START,	/* before the first byte */
	ST_MEMBERS,	/* inside the top-level object */
	ST_EVENTS,	/* inside the traceEvents array */
	ST_END,		/* after the value: only blanks may follow */
	ST_DONE
};

void
lt_jr_init(struct ltjr *jr, struct ltin *in, int canon)
{
	memset(jr, 0, sizeof(*jr));
	jr->in = in;
	jr->canonical = canon;
	jr->line = 1;
	jr->state = ST_START;
}

void
lt_jr_free(struct ltjr *jr)
{
	free(jr->tok);
	jr->tok = NULL;
	free(jr->jsmn);
	jr->jsmn = NULL;
	lt_buf_free(&jr->canon);
	lt_buf_free(&jr->key);
}

/* Give up: the error is in jr; returns LT_JEV_ERROR. */
static int
fail(struct ltjr *jr, const char *what, size_t at)
{
	const char *p = jr->in->buf + jr->in->pos, *q;
	long line = jr->line;

	for (q = p; (q = memchr(q, '\n', (size_t)(p + at - q))) != NULL; q++)
		line++;
	jr->err = what;
	jr->errtrunc = jr->in->eof && jr->in->pos + at >= jr->in->end;
	jr->errline = line;
	jr->erroff = (long long)(jr->in->off + (off_t)jr->in->pos + (off_t)at);
	jr->state = ST_DONE;
	return LT_JEV_ERROR;
}

/* Consume a value the scanner has passed, with the lines it counted. */
static void
take(struct ltjr *jr, const struct ltjson *j)
{
	jr->line += j->lines;
	jr->in->pos += j->end;
}

/* Skip blanks; returns the next byte, or -1 at the end of the input. */
static int
peek(struct ltjr *jr)
{
	struct ltin *in = jr->in;
	int c;

	for (;;) {
		while (in->pos < in->end) {
			c = (unsigned char)in->buf[in->pos];
			if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
				return c;
			if (c == '\n')
				jr->line++;
			in->pos++;
		}
		if (lt_in_fill(in, 1) == 0)
			return -1;
	}
}

enum {
	SCAN,		/* checked, canonicalised into out if not NULL */
	LAZY = 1,	/* the canonical form to out only when not the text */
	WHOLE = 2,	/* the text is the value's: it does not stop inside */
	TOKENS = 4	/* or-ed: cut into jr->tok as well */
};

/* One scan of how of p[0..n); the number of tokens in *ntok. */
static int
scan1(struct ltjr *jr, const char *p, size_t n, struct ltbuf *out,
    struct ltjson *j, int how, int *ntok)
{
	*ntok = 0;
	if (how & TOKENS)
		return lt_json_tokens(p, n, out, (how & LAZY ? LT_JTOK_LAZY :
		    0) | (how & WHOLE ? LT_JTOK_WHOLE : 0), j, &jr->tok,
		    &jr->ntokcap, ntok);
	if (how & LAZY)
		return lt_json_lazy(p, n, out, j);
	return lt_json_value(p, n, out, j);
}

/*
 * Scan one value at the current position, reading more input as needed.
 * Returns LT_JSON_OK with j filled, LT_JSON_BAD, or LT_JSON_MORE when the
 * input ends inside the value.
 */
static int
scan(struct ltjr *jr, struct ltbuf *out, struct ltjson *j, int how,
    int *ntok)
{
	struct ltin *in = jr->in;
	size_t have, mark = out != NULL ? out->n : 0;
	int r;

	for (;;) {
		have = in->end - in->pos;
		r = scan1(jr, in->buf + in->pos, have, out, j, how, ntok);
		if (r != LT_JSON_MORE)
			return r;
		if (out != NULL)
			out->n = mark;
		if (lt_in_fill(in, have + 1) <= have)
			return LT_JSON_MORE;
	}
}

/*
 * Cut p[0..n) into tokens with jsmn, growing its token array as needed,
 * then copy them into jr->tok: the text is not known to be strict JSON,
 * so it is not the scanner's to cut.
 */
static int
tokens(struct ltjr *jr, const char *p, size_t n)
{
	jsmn_parser ps;
	jsmntok_t *t;
	int r, i;

	if (n > INT32_MAX)
		return -1;
	/* Never NULL: jsmn would only count the tokens. */
	if (jr->jsmn == NULL) {
		jr->njsmncap = 256;
		jr->jsmn = lt_reallocarray(NULL, jr->njsmncap, sizeof(*t));
	}
	for (;;) {
		jsmn_init(&ps);
		r = jsmn_parse(&ps, p, n, jr->jsmn, jr->njsmncap);
		if (r != JSMN_ERROR_NOMEM)
			break;
		jr->njsmncap *= 2;
		jr->jsmn = lt_reallocarray(jr->jsmn, jr->njsmncap, sizeof(*t));
	}
	if (r <= 0)
		return r;
	if ((unsigned)r > jr->ntokcap) {
		jr->ntokcap = (unsigned)r;
		jr->tok = lt_reallocarray(jr->tok, jr->ntokcap,
		    sizeof(*jr->tok));
	}
	for (t = jr->jsmn, i = 0; i < r; i++) {
		jr->tok[i].type = t[i].type == JSMN_OBJECT ? LT_JT_OBJECT :
		    t[i].type == JSMN_ARRAY ? LT_JT_ARRAY :
		    t[i].type == JSMN_STRING ? LT_JT_STRING : LT_JT_PRIMITIVE;
		jr->tok[i].start = t[i].start;
		jr->tok[i].end = t[i].end;
		jr->tok[i].size = t[i].size;
		jr->tok[i].parent = t[i].parent;
	}
	return r;
}

/*
 * The text of an event and its tokens, one scan of it in most cases.
 * Canonical mode tokenises the canonical text, which the scan makes as
 * it goes; the lazy mode (ltcheck) the text as written, unless its
 * strings are not written canonically; mode 0 the text as written, or a
 * canonical copy when it holds a NUL.  In those cases the event is
 * scanned once more, its canonical copy cut into tokens.
 */
static int
event(struct ltjr *jr, struct ltjev *ev)
{
	struct ltjson j;
	const char *p;
	size_t n;
	int r, ntok, how;

	jr->canon.n = 0;
	how = jr->canonical == 1 ? LAZY | TOKENS : jr->canonical ==
	    LT_JR_CHECK ? SCAN : SCAN | TOKENS;
	r = scan(jr, jr->canonical == 1 ? &jr->canon : NULL, &j, how, &ntok);
	if (r == LT_JSON_MORE) {
		if (jr->form == '[' && jr->in->pos == jr->in->end)
			goto unterminated;
		return fail(jr, jr->form == '{' ? "the trace ends inside "
		    "an event (incomplete file)" : "the trace ends inside an "
		    "event", jr->in->end - jr->in->pos);
	}
	if (r == LT_JSON_BAD)
		return fail(jr, j.err, j.errat);
	ev->kind = LT_JEV_EVENT;
	ev->type = j.type;
	ev->flags = j.flags;
	ev->line = jr->line;
	ev->off = (long long)(jr->in->off + (off_t)jr->in->pos);
	ev->raw = jr->in->buf + jr->in->pos;
	ev->rawn = j.end;
	if ((jr->canonical == 0 && (j.flags & LT_JS_NUL)) ||
	    (jr->canonical == LT_JR_LAZY && (j.flags & (LT_JS_ESCAPE |
	    LT_JS_REPAIRED | LT_JS_SURROGATE)))) {
		scan1(jr, ev->raw, ev->rawn, &jr->canon, &j, WHOLE | TOKENS,
		    &ntok);
		p = jr->canon.p;
		n = jr->canon.n;
	} else if (jr->canonical == 1 && j.flags != 0) {
		p = jr->canon.p;	/* else the text is canonical already */
		n = jr->canon.n;
	} else {
		p = ev->raw;
		n = ev->rawn;
	}
	/*
	 * As jsmn said of them: a bare number or literal is no event (it
	 * needs a delimiter after it), nor more than 2^31 bytes.
	 */
	if (jr->canonical != LT_JR_CHECK && (n > INT32_MAX || (j.type != '{' &&
	    j.type != '[' && j.type != '"')))
		return fail(jr, j.type != '{' ? "an event is not an object" :
		    "event too large", 0);
	ev->canon = p != ev->raw;
	ev->p = p;
	ev->n = n;
	ev->tok = jr->tok;
	ev->ntok = ntok;
	take(jr, &j);
	jr->nevents++;
	return LT_JEV_EVENT;

unterminated:
	jr->unterminated = 1;
	jr->state = ST_DONE;
	return LT_JEV_EOF;
}

/* Not a result yet: the state changed, look again. */
#define AGAIN	(LT_JEV_ERROR + 1)

/* The first byte of the trace: '{' or '['. */
static int
begin(struct ltjr *jr)
{
	struct ltin *in = jr->in;
	int c;

	if (lt_in_fill(in, 3) >= 3 &&
	    memcmp(in->buf + in->pos, "\xef\xbb\xbf", 3) == 0) {
		jr->bom = 1;
		in->pos += 3;
	}
	c = peek(jr);
	if (c != '{' && c != '[')
		return fail(jr, c < 0 ? "empty input" :
		    "not a JSON trace: expected '{' or '['", 0);
	jr->form = c;
	jr->first = 1;
	in->pos++;
	jr->state = c == '{' ? ST_MEMBERS : ST_EVENTS;
	return AGAIN;
}

/* After the key of a top-level member: its value, or traceEvents. */
static int
member(struct ltjr *jr, struct ltjev *ev)
{
	struct ltin *in = jr->in;
	struct ltjson j;
	int r, ntok;

	if (jr->key.n == 13 && memcmp(jr->key.p, "\"traceEvents\"", 13) == 0) {
		if (jr->seen_events)
			return fail(jr, "traceEvents appears twice", 0);
		jr->seen_events = 1;
		if (peek(jr) != '[')
			return fail(jr, "traceEvents is not an array", 0);
		in->pos++;
		jr->state = ST_EVENTS;
		jr->first = 1;
		return AGAIN;
	}
	peek(jr);
	jr->canon.n = 0;
	if ((r = scan(jr, &jr->canon, &j, SCAN, &ntok)) != LT_JSON_OK)
		return fail(jr, r == LT_JSON_MORE ? "the trace ends inside a "
		    "top-level member" : j.err, j.errat);
	ev->kind = LT_JEV_TOP;
	ev->key = jr->key.p + 1;
	ev->keyn = jr->key.n - 2;
	ev->p = jr->canon.p;
	ev->n = jr->canon.n;
	ev->type = j.type;
	ev->flags = j.flags;
	ev->line = jr->line;
	ev->off = (long long)(in->off + (off_t)in->pos);
	take(jr, &j);
	return LT_JEV_TOP;
}

/* Inside the top-level object: the next member, or its end. */
static int
members(struct ltjr *jr, struct ltjev *ev)
{
	static const char incomplete[] = "the trace ends before its "
	    "closing '}' (incomplete file)";
	struct ltin *in = jr->in;
	struct ltjson j;
	int c, r, ntok;

	c = peek(jr);
	if (c == '}') {
		in->pos++;
		jr->state = ST_END;
		return AGAIN;
	}
	if (!jr->first) {
		if (c != ',')
			return fail(jr, c < 0 ? incomplete :
			    "expected ',' or '}' after a top-level member", 0);
		in->pos++;
		c = peek(jr);
	}
	if (c != '"')
		return fail(jr, c < 0 ? incomplete : "expected a string key",
		    0);
	jr->key.n = 0;
	if ((r = scan(jr, &jr->key, &j, SCAN, &ntok)) != LT_JSON_OK)
		return fail(jr, r == LT_JSON_MORE ? "the trace ends inside a "
		    "key" : j.err, j.errat);
	take(jr, &j);
	if (peek(jr) != ':')
		return fail(jr, "expected ':' after a key", 0);
	in->pos++;
	jr->first = 0;
	return member(jr, ev);
}

/* The end of traceEvents: back to the top-level object, or the end. */
static int
close_events(struct ltjr *jr)
{
	jr->in->pos++;
	jr->state = jr->form == '[' ? ST_END : ST_MEMBERS;
	jr->first = 0;
	return AGAIN;
}

/* The input ends inside traceEvents: allowed for a bare array. */
static int
events_cut(struct ltjr *jr)
{
	if (jr->form != '[')
		return fail(jr, "the trace ends inside traceEvents "
		    "(incomplete file)", 0);
	jr->unterminated = 1;
	jr->state = ST_DONE;
	return LT_JEV_EOF;
}

/* Inside traceEvents: the next event, or the end of the array. */
static int
events(struct ltjr *jr, struct ltjev *ev)
{
	int c = peek(jr);

	if (c == ']')
		return close_events(jr);
	if (!jr->first) {
		if (c < 0)
			return events_cut(jr);
		if (c != ',')
			return fail(jr, "expected ',' or ']' after an event",
			    0);
		jr->in->pos++;
		if ((c = peek(jr)) == ']') {
			jr->trailing_comma++;
			return close_events(jr);
		}
	}
	if (c < 0)
		return events_cut(jr);
	jr->first = 0;
	return event(jr, ev);
}

/*
 * The next event or top-level member of the trace in ev.  Returns
 * LT_JEV_EVENT, LT_JEV_TOP, LT_JEV_EOF, or LT_JEV_ERROR with jr->err,
 * jr->errline and jr->erroff set.  What ev points to stays valid until
 * the next call.
 */
int
lt_jr_next(struct ltjr *jr, struct ltjev *ev)
{
	int r;

	memset(ev, 0, sizeof(*ev));
	do {
		switch (jr->state) {
		case ST_START:
			r = begin(jr);
			break;
		case ST_MEMBERS:
			r = members(jr, ev);
			break;
		case ST_EVENTS:
			r = events(jr, ev);
			break;
		case ST_END:
			if (peek(jr) >= 0)
				return fail(jr, "text after the end of the "
				    "trace", 0);
			jr->state = ST_DONE;
			r = AGAIN;
			break;
		default:
			r = LT_JEV_EOF;
		}
	} while (r == AGAIN);
	return r;
}

/*
 * Tokens of a JSON text made by the caller (ltcheck's events from lt1)
 * in jr->tok: their number, or a jsmn error (< 0).
 */
int
lt_jr_tokens(struct ltjr *jr, const char *p, size_t n)
{
	return tokens(jr, p, n);
}

/* The index just after token i and everything inside it. */
int
lt_jtok_skip(const struct ltjtok *t, int i)
{
	int pending = 1;

	while (pending > 0) {
		pending += t[i].size;
		pending--;
		i++;
	}
	return i;
}

/*
 * The value token of member key in object token obj, or -1.  When a key
 * is repeated the last one counts, as in Perfetto.
 */
int
lt_jtok_get(const char *js, const struct ltjtok *t, int obj, const char *key)
{
	size_t n = strlen(key);
	int i, k, found = -1;

	if (t[obj].type != LT_JT_OBJECT)
		return -1;
	for (i = obj + 1, k = 0; k < t[obj].size; k++) {
		if ((size_t)(t[i].end - t[i].start) == n &&
		    memcmp(js + t[i].start, key, n) == 0)
			found = i + 1;
		i = lt_jtok_skip(t, i + 1);
	}
	return found;
}
