/* See LICENSE file for copyright and license details. */
/*
 * jsontail.c: the ts offset that ltjson records in a trace it writes
 * (metadata.litracer.ts_offset_us), found without reading the trace
 * twice whenever that can be done exactly.
 *
 * ltjson writes its metadata last, and ltparse needs the offset before
 * it writes the first event.  The offset is that of the last top-level
 * "metadata" member whose value is an object (0 without one, or without
 * the key), so reading the whole trace first always gives it
 * (ps_jr_prescan).  Mostly it is not needed:
 *
 * 1. The text after the first line feed in the trace's last bytes is
 *    parsed as JSON tokens (ps_jtail).  If that reading reaches the
 *    trace's closing '}', then every top-level member whose key lies in
 *    those bytes is known, and if one of them is "metadata" with an
 *    object value, the last such one gives the offset.  That is a trace
 *    written by ltjson, minified or pretty-printed.
 * 2. Otherwise the offset is 0 unless the key ts_offset_us is written
 *    somewhere before those members.  It is written either as these
 *    twelve bytes or with a \u00XX escape, so a search for
 *    "ts_offset_us" and "\u00" that finds neither proves it absent
 *    (ps_jdirty): that is a trace from another tool (a Kineto trace).
 * 3. Else the whole trace is read first, as before.
 *
 * Why the reading of step 1 is the trace's: a line feed outside a string
 * is a blank, so from there on the tokens are the trace's.  One inside
 * a string (jsonev.c repairs a raw one) would make the reading start
 * inside out: what is in a string of the trace would be read as tokens,
 * where a backslash or any byte other than blanks, letters, digits and
 * { } [ ] , : + - . fails, and every quote would then end a string of
 * the trace and start one of the reading, so that the reading would end
 * inside a string, which fails too.  Tokens are parsed leniently (any
 * word of letters, digits and + - . is a value, a comma may come before
 * a closing bracket): that can only accept more, never misplace a key.
 * For an input jsonev.c rejects, the events before the error may get
 * the offset that its last bytes give.
  */
#include <stdlib.h>

#include "jsonev.h"
#include "ltparse.h"

static int64_t tsoffset(const char *, size_t);

enum { T_OBJ = 1, T_ARR, T_ANY };	/* kinds of container */

enum {
	P_ANY,		/* anything: the start of the first reading */
	P_KEY,		/* a key or '}' */
	P_ITEM,		/* a key or a value (or a closing bracket) */
	P_COLON,	/* ':' */
	P_VALUE,	/* a value (or ']') */
	P_STR,		/* after a string: ':', ',' or a closing bracket */
	P_AFTER		/* after a value: ',' or a closing bracket */
};

struct level {
	unsigned char	 kind;
	unsigned char	 phase;
	unsigned char	 empty;	/* nothing in it yet */
};

/* A member of an outer container: key at key, ':' at colon. */
struct member {
	size_t		 key, colon, end;
	size_t		 outer;	/* outer containers closed before it */
};

struct tail {
	const char	*p;
	size_t		 n;
	struct ltbuf	 stack;	/* struct level of containers opened here */
	struct level	 cur;	/* the innermost container */
	size_t		 depth;	/* containers opened here and still open */
	size_t		 outer;	/* containers opened before and closed */
	struct ltbuf	 mem;	/* struct member */
	int		 shut;	/* the last token closed an outer one */
};

static int
isword(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.';
}

/* The end of the string whose contents start at i, or 0. */
static size_t
strend(const char *p, size_t n, size_t i)
{
	for (; i < n; i++) {
		if (p[i] == '"')
			return i + 1;
		if (p[i] == '\\')
			i++;
	}
	return 0;
}

static struct member *
lastmem(struct tail *t)
{
	if (t->mem.n == 0)
		return NULL;
	return (struct member *)(void *)(t->mem.p + t->mem.n) - 1;
}

/* A value is over at i (a ',' or a closing bracket) in cur. */
static void
endvalue(struct tail *t, size_t i)
{
	struct member *m;

	if (t->depth == 0 && (m = lastmem(t)) != NULL &&
	    m->outer == t->outer && m->end == 0)
		m->end = i;
}

/* A string at i: a key, or maybe one; ':' follows a key. */
static int
str(struct tail *t, size_t i, size_t e)
{
	struct member m;
	size_t j;

	switch (t->cur.phase) {
	case P_KEY:
		t->cur.phase = P_COLON;
		break;
	case P_ANY:
	case P_ITEM:
		t->cur.phase = P_STR;
		break;
	case P_VALUE:
		t->cur.phase = P_AFTER;
		return 1;
	default:
		return 0;
	}
	if (t->depth != 0)
		return 1;
	for (j = e; j < t->n && (t->p[j] == ' ' || t->p[j] == '\t' ||
	    t->p[j] == '\n' || t->p[j] == '\r'); j++)
		;
	if (j == t->n || t->p[j] != ':')
		return 1;
	m.key = i;
	m.colon = j;
	m.end = 0;
	m.outer = t->outer;
	lt_buf_add(&t->mem, &m, sizeof(m));
	return 1;
}

static int
opening(struct tail *t, int c)
{
	switch (t->cur.phase) {
	case P_ANY:
	case P_VALUE:
		break;
	case P_ITEM:		/* a value after ',': an array */
		if (t->cur.kind == T_OBJ)
			return 0;
		t->cur.kind = T_ARR;
		break;
	default:
		return 0;
	}
	t->cur.phase = P_AFTER;
	t->cur.empty = 0;
	lt_buf_add(&t->stack, &t->cur, sizeof(t->cur));
	t->depth++;
	t->cur.kind = c == '{' ? T_OBJ : T_ARR;
	t->cur.phase = c == '{' ? P_KEY : P_VALUE;
	t->cur.empty = 1;
	return 1;
}

static int
closing(struct tail *t, int c, size_t i)
{
	int kind = c == '}' ? T_OBJ : T_ARR;

	if (t->cur.kind != T_ANY && t->cur.kind != kind)
		return 0;
	switch (t->cur.phase) {
	case P_KEY:		/* '{' '}' but not ',' '}' */
		if (!t->cur.empty)
			return 0;
		break;
	case P_VALUE:		/* '[' ']', or a trailing comma */
		if (kind != T_ARR)
			return 0;
		break;
	case P_ANY:
	case P_ITEM:
	case P_STR:
	case P_AFTER:
		break;
	default:
		return 0;
	}
	endvalue(t, i);
	if (t->depth > 0) {
		t->depth--;
		t->stack.n -= sizeof(t->cur);
		memcpy(&t->cur, t->stack.p + t->stack.n, sizeof(t->cur));
	} else {
		t->outer++;
		t->cur.kind = T_ANY;
		t->cur.phase = P_AFTER;
		t->shut = kind == T_OBJ;
	}
	return 1;
}

static int
punct(struct tail *t, int c, size_t i)
{
	struct level *l = &t->cur;

	if (c == ':') {
		if ((l->phase != P_COLON && l->phase != P_STR &&
		    l->phase != P_ANY) || l->kind == T_ARR)
			return 0;
		l->kind = T_OBJ;
		l->phase = P_VALUE;
		return 1;
	}
	/* ',' */
	if (l->phase != P_AFTER && l->phase != P_STR && l->phase != P_ANY)
		return 0;
	endvalue(t, i);
	l->phase = l->kind == T_OBJ ? P_KEY : l->kind == T_ARR ? P_VALUE :
	    P_ITEM;
	l->empty = 0;
	return 1;
}

/*
 * Parse p[i..n) as the end of a JSON text whose first container is an
 * object.  Returns 1 when it parses up to the closing bracket of that
 * container, with only blanks after it.
 */
static int
parse(struct tail *t, size_t i)
{
	const char *p = t->p;
	size_t n = t->n, e;
	int c;

	t->stack.n = 0;
	t->mem.n = 0;
	t->depth = t->outer = 0;
	t->shut = 0;
	t->cur.kind = T_ANY;
	t->cur.phase = P_ANY;
	t->cur.empty = 0;
	while (i < n) {
		c = (unsigned char)p[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		}
		t->shut = 0;
		if (c == '"') {
			if ((e = strend(p, n, i + 1)) == 0 || !str(t, i, e))
				return 0;
			t->cur.empty = 0;
			i = e;
			continue;
		}
		if (isword(c)) {
			if (t->cur.phase == P_ITEM && t->cur.kind != T_OBJ)
				t->cur.kind = T_ARR;
			else if (t->cur.phase != P_ANY &&
			    t->cur.phase != P_VALUE)
				return 0;
			t->cur.phase = P_AFTER;
			t->cur.empty = 0;
			while (i < n && isword((unsigned char)p[i]))
				i++;
			continue;
		}
		if (c == '{' || c == '[') {
			if (!opening(t, c))
				return 0;
		} else if (c == '}' || c == ']') {
			if (!closing(t, c, i))
				return 0;
		} else if (c == ',' || c == ':') {
			if (!punct(t, c, i))
				return 0;
		} else
			return 0;
		i++;
	}
	/* The last token closed an outer object: the trace's. */
	return t->shut;
}

/*
 * The last n bytes of a trace in object form, not the whole trace, are
 * at p.  Returns 1 with the offset in *ns when they settle it, else 0
 * with *from set: the offset is then 0 if ps_jdirty finds nothing in
 * the trace before p + *from.
 */
int
ps_jtail(const char *p, size_t n, int64_t *ns, size_t *from)
{
	struct ltbuf key = { NULL, 0, 0 }, val = { NULL, 0, 0 };
	struct tail t;
	struct ltjson j;
	struct member *m, *ms;
	const char *nl;
	size_t s, k, nm;
	int found = 0, ok = 1;

	*from = n;
	if (p == NULL || (nl = memchr(p, '\n', n)) == NULL)
		return 0;
	s = (size_t)(nl - p) + 1;
	memset(&t, 0, sizeof(t));
	t.p = p;
	t.n = n;
	if (!parse(&t, s)) {
		lt_buf_free(&t.stack);
		lt_buf_free(&t.mem);
		return 0;
	}
	ms = (struct member *)(void *)t.mem.p;
	nm = t.mem.n / sizeof(*ms);
	for (k = 0; k < nm && ok; k++) {
		m = &ms[k];
		if (m->outer != t.outer - 1)
			continue;	/* not a member of the trace's object */
		if (*from == n)
			*from = m->key;
		key.n = val.n = 0;
		if (lt_json_whole(p + m->key, m->colon - m->key, &key, &j) !=
		    LT_JSON_OK || lt_json_whole(p + m->colon + 1, m->end -
		    m->colon - 1, &val, &j) != LT_JSON_OK) {
			ok = 0;		/* jsonev.c rejects the trace */
			break;
		}
		if (key.n == 10 && memcmp(key.p, "\"metadata\"", 10) == 0 &&
		    j.type == '{') {
			*ns = tsoffset(val.p, val.n);
			found = 1;
		}
	}
	lt_buf_free(&key);
	lt_buf_free(&val);
	lt_buf_free(&t.stack);
	lt_buf_free(&t.mem);
	if (!ok) {
		*from = n;
		return 0;
	}
	return found;
}

/*
 * Where the key ts_offset_us may be written in p[0..n): the offset of
 * the first "ts_offset_us" or "\u00", or n.
 */
size_t
ps_jdirty(const char *p, size_t n)
{
	const char *a, *b;
	size_t end = n;

	if (p == NULL)
		return n;
	for (b = p; (b = memchr(b, '\\', (size_t)(p + end - b))) != NULL;
	    b++)
		if (p + end - b >= 4 && memcmp(b, "\\u00", 4) == 0) {
			end = (size_t)(b - p);
			break;
		}
	if (end < 12)
		return end;
	/* Its first 'f' is rarer in traces than its other bytes. */
	for (a = p + 4; a < p + end && (a = memchr(a, 'f',
	    (size_t)(p + end - a))) != NULL; a++)
		if (p + end - a >= 8 && memcmp(a - 4, "ts_offset_us", 12) == 0)
			return (size_t)(a - 4 - p);
	return end;
}

/* The same over a stream of pieces: first is -1 until a find. */
void
ps_jdirty_feed(struct ltjdirty *d, const char *p, size_t n)
{
	char join[2 * PS_JDIRTY_KEEP];
	size_t k, m;

	if (d->first >= 0 || n == 0) {
		d->seen += (off_t)n;
		return;
	}
	/* A find across the join of the previous piece and this one. */
	m = n < PS_JDIRTY_KEEP ? n : PS_JDIRTY_KEEP;
	memcpy(join, d->keep, d->nkeep);
	memcpy(join + d->nkeep, p, m);
	if ((k = ps_jdirty(join, d->nkeep + m)) < d->nkeep + m)
		d->first = d->seen - (off_t)d->nkeep + (off_t)k;
	else if ((k = ps_jdirty(p, n)) < n)
		d->first = d->seen + (off_t)k;
	d->seen += (off_t)n;
	/* Keep the last bytes, of this piece and the ones before. */
	if (n >= PS_JDIRTY_KEEP) {
		memcpy(d->keep, p + n - PS_JDIRTY_KEEP, PS_JDIRTY_KEEP);
		d->nkeep = PS_JDIRTY_KEEP;
	} else {
		k = d->nkeep + n > PS_JDIRTY_KEEP ? d->nkeep + n -
		    PS_JDIRTY_KEEP : 0;
		memmove(d->keep, d->keep + k, d->nkeep - k);
		memcpy(d->keep + d->nkeep - k, p, n);
		d->nkeep += n - k;
	}
}

/* metadata.litracer.ts_offset_us in ns, from a canonical metadata. */
static int64_t
tsoffset(const char *p, size_t n)
{
	const char *cur = p, *end = p + n, *k, *v, *c2, *q;
	size_t kn, vn, qn;
	int64_t ns = 0;

	while (lt_json_objnext(&cur, end, &k, &kn, &v, &vn)) {
		if (kn != 8 || memcmp(k, "litracer", 8) != 0 || *v != '{')
			continue;
		c2 = v;
		while (lt_json_objnext(&c2, v + vn, &k, &kn, &q, &qn))
			if (kn == 12 && memcmp(k, "ts_offset_us", 12) == 0 &&
			    lt_dec_parse(q, qn, 3, &ns) != LT_NUM_OK)
				ns = 0;
	}
	return ns;
}

/* The ts offset of a trace: a first reading of the whole input. */
int64_t
ps_jr_prescan(struct ltin *in)
{
	struct ltjev ev;
	struct ltjr jr;
	int64_t ns = 0;
	int k;

	lt_jr_init(&jr, in, LT_JR_CHECK);
	while ((k = lt_jr_next(&jr, &ev)) == LT_JEV_EVENT || k == LT_JEV_TOP)
		if (k == LT_JEV_TOP && ev.keyn == 8 &&
		    memcmp(ev.key, "metadata", 8) == 0 && ev.type == '{')
			ns = tsoffset(ev.p, ev.n);
	lt_jr_free(&jr);
	return ns;
}
