/* See LICENSE file for copyright and license details. */
/*
 * json.c: a strict JSON scanner (RFC 8259) that can also canonicalise.
 *
 * One recursive-descent pass checks a value and, given an output buffer,
 * writes it minified with strings re-escaped as esc.c does: surrogate
 * pair escapes decoded to raw UTF-8, lone surrogates, NULs and invalid
 * UTF-8 replaced by U+FFFD, raw control characters escaped.  Numbers are
 * checked against the grammar and copied as written.  Duplicate keys are
 * not looked for.  Nesting is limited to LT_JSON_DEPTH levels so that no
 * input can exhaust the stack.
 *
 * The canonical form is the text itself with a few edits (blanks cut,
 * escapes rewritten, bad bytes replaced), and every edit sets a flag.  So
 * nothing is copied token by token: the text between two edits is copied
 * in one piece when the second edit is reached, and a text that needs no
 * edit at all need not be copied (lt_json_lazy).
 */
#include <stdlib.h>

#include "core.h"
#include "scan.h"

struct scan {
	const char	*s;	/* start of the text */
	const char	*p;	/* current position */
	const char	*end;
	struct ltbuf	*out;
	const char	*done;	/* the text before it is in out, edited */
	struct ltjson	*j;
	long		 lines;	/* '\n' bytes passed */
	int		 depth;
	int		 final;	/* the text ends where the input ends */
	size_t		 mark;	/* out->n at the start */
	struct ltjtok	*tok;	/* tokens made, or NULL for none */
	unsigned	 tokcap;
	int		 ntok;
};

/* Bytes that stand for themselves in a string: ASCII, not '"' or '\'. */
static const unsigned char plain[256] = {
	['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['0'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['@'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['P'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	['`'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['p'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
};

static int value(struct scan *, int);

static int
bad(struct scan *sc, const char *what)
{
	sc->j->err = what;
	sc->j->errat = (size_t)(sc->p - sc->s);
	return LT_JSON_BAD;
}

static int
more(struct scan *sc, const char *what)
{
	if (sc->final)
		return bad(sc, what);
	return LT_JSON_MORE;
}

/*
 * An edit: the text up to at goes to the output as it is, the text up
 * to resume is left out (the caller may write something in its place).
 */
static inline void
cut(struct scan *sc, const char *at, const char *resume)
{
	struct ltbuf *b = sc->out;
	const char *s = sc->done;
	size_t n = (size_t)(at - s);
	char *d;

	sc->done = resume;
	if (b == NULL)
		return;
	if (n > 16 || b->cap - b->n < 16) {
		lt_buf_add(b, s, n);
		return;
	}
	/* Most pieces are short: copies of fixed sizes, no call. */
	d = b->p + b->n;
	b->n += n;
	if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n > 0) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

static void
emit(struct scan *sc, const void *p, size_t n)
{
	if (sc->out != NULL)
		lt_buf_add(sc->out, p, n);
}

static inline void
blank(struct scan *sc)
{
	const char *p = sc->p;

	/* Minified JSON has no blanks: leave at once. */
	if (p < sc->end && (unsigned char)*p > ' ')
		return;
	for (; p < sc->end; p++) {
		if (*p == '\n')
			sc->lines++;
		else if (*p != ' ' && *p != '\t' && *p != '\r')
			break;
	}
	if (p != sc->p) {
		sc->j->flags |= LT_JS_BLANK;
		cut(sc, sc->p, p);
	}
	sc->p = p;
}

/* Are there upper-case hex digits in the 4 bytes at p? */
static int
uppercase(const char *p)
{
	int i;

	for (i = 0; i < 4; i++)
		if (p[i] >= 'A' && p[i] <= 'F')
			return 1;
	return 0;
}

/* Write code point cp in canonical form. */
static void
putcp(struct scan *sc, long cp)
{
	char u[4];

	if (cp < 0x20 || cp == '"' || cp == '\\') {
		u[0] = (char)cp;
		if (sc->out != NULL)
			lt_esc(sc->out, u, 1);
		return;
	}
	emit(sc, u, lt_utf8_put(u, cp));
}

/*
 * An escape at sc->p (pointing at '\').  One that is already canonical
 * (\" \\ \b \f \n \r \t, lower-case \u00XX for other control characters)
 * is no edit.
 */
static int
escape(struct scan *sc)
{
	const char *p = sc->p;
	ptrdiff_t rest;
	long cp, lo;
	unsigned flag = 0;
	int c;

	if (sc->end - p < 2)
		return more(sc, "unterminated string");
	c = (unsigned char)p[1];
	switch (c) {
	case '"': case '\\':
	case 'b': case 'f': case 'n': case 'r': case 't':
		sc->p += 2;
		return LT_JSON_OK;
	case '/':
		sc->j->flags |= LT_JS_ESCAPE;
		sc->p += 2;
		cut(sc, p, sc->p);
		emit(sc, "/", 1);
		return LT_JSON_OK;
	case 'u':
		break;
	default:
		sc->p++;
		return bad(sc, "invalid escape in string");
	}
	if (sc->end - p < 6)
		return more(sc, "unterminated string");
	if ((cp = lt_hex4(p + 2)) < 0) {
		sc->p++;
		return bad(sc, "invalid \\u escape in string");
	}
	sc->p += 6;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		sc->j->flags |= LT_JS_SURROGATE;
		rest = sc->end - sc->p;
		if (!sc->final && rest < 6 && (rest == 0 ||
		    (sc->p[0] == '\\' && (rest == 1 || sc->p[1] == 'u'))))
			return LT_JSON_MORE;
		if (rest >= 6 && sc->p[0] == '\\' && sc->p[1] == 'u' &&
		    (lo = lt_hex4(sc->p + 2)) >= 0xdc00 && lo <= 0xdfff) {
			sc->p += 6;
			cut(sc, p, sc->p);
			putcp(sc, 0x10000 + ((cp - 0xd800) << 10) +
			    (lo - 0xdc00));
			return LT_JSON_OK;
		}
		flag = LT_JS_LONE;
		cp = 0xfffd;
	} else if (cp >= 0xdc00 && cp <= 0xdfff) {
		flag = LT_JS_SURROGATE | LT_JS_LONE;
		cp = 0xfffd;
	} else if (cp == 0) {
		flag = LT_JS_NUL;
		cp = 0xfffd;
	} else if (cp >= 0x20 || cp == '\b' || cp == '\f' || cp == '\n' ||
	    cp == '\r' || cp == '\t' || uppercase(p + 2))
		flag = LT_JS_ESCAPE;	/* canonical is raw or short */
	if (flag != 0) {
		sc->j->flags |= flag;
		cut(sc, p, sc->p);
		putcp(sc, cp);
	}
	return LT_JSON_OK;
}

/* The rest of a string, from p: escapes, control bytes, UTF-8. */
static int
strrest(struct scan *sc, const unsigned char *p, int quoted)
{
	const unsigned char *end = (const unsigned char *)sc->end;
	size_t k;
	int r;

	for (;;) {
		while (p < end && plain[*p])
			p++;
		sc->p = (const char *)p;
		if (p == end) {
			if (!quoted)
				return LT_JSON_OK;
			return more(sc, "unterminated string");
		}
		if (*p == '"') {
			if (!quoted)
				return bad(sc, "unescaped '\"' in string");
			sc->p++;
			return LT_JSON_OK;
		}
		if (*p == '\\') {
			if ((r = escape(sc)) != LT_JSON_OK)
				return r;
			p = (const unsigned char *)sc->p;
			continue;
		}
		if (*p < 0x20) {
			cut(sc, sc->p, sc->p + 1);
			if (*p == 0) {
				sc->j->flags |= LT_JS_NUL;
				emit(sc, "\xef\xbf\xbd", 3);
			} else {
				sc->j->flags |= LT_JS_CTRL;
				sc->lines += *p == '\n';
				if (sc->out != NULL)
					lt_esc(sc->out, sc->p, 1);
			}
			p++;
		} else if ((k = lt_utf8_len(p, (size_t)(end - p))) != 0) {
			p += k;
		} else if (!sc->final && end - p < 4 && *p >= 0xc2 &&
		    *p <= 0xf4) {
			return LT_JSON_MORE;	/* maybe a cut sequence */
		} else {
			sc->j->flags |= LT_JS_UTF8;
			cut(sc, sc->p, sc->p + 1);
			emit(sc, "\xef\xbf\xbd", 3);
			p++;
		}
	}
}

/*
 * A string at sc->p: with quoted, from its opening quote to its closing
 * one; without, the contents up to the end of the text (a raw quote is
 * then an error).  Plain ASCII to the closing quote is the quick way.
 */
static inline int
string(struct scan *sc, int quoted)
{
	const unsigned char *p = (const unsigned char *)sc->p + quoted;
	const unsigned char *end = (const unsigned char *)sc->end;
	unsigned m;

	/* Sixteen bytes at a time to the first that is not plain ASCII. */
	for (; end - p >= 16; p += 16)
		if ((m = lt_scan16esc((const char *)p)) != 0) {
			p += lt_scan_first(m);
			break;
		}
	while (p < end && plain[*p])
		p++;
	if (quoted && p < end && *p == '"') {
		sc->p = (const char *)p + 1;
		return LT_JSON_OK;
	}
	return strrest(sc, p, quoted);
}

/*
 * Where sc->p is in the text the tokens are of: the canonical text when
 * there is an output (the edits before sc->p made), else the text.
 */
static inline int
pos(const struct scan *sc)
{
	if (sc->out == NULL)
		return (int)(sc->p - sc->s);
	return (int)(sc->out->n - sc->mark + (size_t)(sc->p - sc->done));
}

/* Room for more tokens. */
static void
moretok(struct scan *sc)
{
	sc->tokcap = sc->tokcap != 0 ? sc->tokcap * 2 : 256;
	sc->tok = lt_reallocarray(sc->tok, sc->tokcap, sizeof(*sc->tok));
}

/* A new token (core.h), starting at start; its index. */
static inline int
newtok(struct scan *sc, int type, int start, int parent)
{
	struct ltjtok *t;

	if ((unsigned)sc->ntok == sc->tokcap)
		moretok(sc);
	t = &sc->tok[sc->ntok];
	t->type = type;
	t->start = start;
	t->end = -1;
	t->size = 0;
	t->parent = parent;
	return sc->ntok++;
}

/* A string token, the string at sc->p: from after its quote to its end. */
static int
strtoken(struct scan *sc, int parent, int *index)
{
	int start = pos(sc) + 1, r;

	if ((r = string(sc, 1)) != LT_JSON_OK)
		return r;
	if (sc->tok != NULL) {
		*index = newtok(sc, LT_JT_STRING, start, parent);
		sc->tok[*index].end = pos(sc) - 1;
	}
	return LT_JSON_OK;
}

#define ISDIGIT(c)	((unsigned)(c) - '0' < 10)

static int
number(struct scan *sc)
{
	const char *p = sc->p, *e = sc->end;

	if (p < e && *p == '-')
		p++;
	if (p == e)
		return more(sc, "invalid number");
	if (*p == '0')
		p++;
	else if (ISDIGIT(*p))
		while (p < e && ISDIGIT(*p))
			p++;
	else {
		sc->p = p;
		return bad(sc, "invalid number");
	}
	if (p < e && *p == '.') {
		if (++p == e)
			return more(sc, "invalid number");
		if (!ISDIGIT(*p)) {
			sc->p = p;
			return bad(sc, "invalid number");
		}
		while (p < e && ISDIGIT(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e)
			return more(sc, "invalid number");
		if (!ISDIGIT(*p)) {
			sc->p = p;
			return bad(sc, "invalid number");
		}
		while (p < e && ISDIGIT(*p))
			p++;
	}
	if (p == e && !sc->final)
		return LT_JSON_MORE;	/* more digits may follow */
	if (p < e && (ISDIGIT(*p) || *p == '.' || *p == 'e' || *p == 'E' ||
	    *p == '+' || *p == '-')) {
		sc->p = p;
		return bad(sc, "invalid number");
	}
	sc->p = p;
	return LT_JSON_OK;
}

static int
literal(struct scan *sc, const char *word, size_t n)
{
	size_t have = (size_t)(sc->end - sc->p);

	if (memcmp(sc->p, word, have < n ? have : n) != 0)
		return bad(sc, "invalid literal");
	if (have < n)
		return more(sc, "invalid literal");
	sc->p += n;
	return LT_JSON_OK;
}

static int
container(struct scan *sc, int open, int parent)
{
	int close = open == '{' ? '}' : ']', r, first = 1, me = -1, key = -1;

	if (++sc->depth > LT_JSON_DEPTH)
		return bad(sc, "nesting too deep");
	if (sc->tok != NULL)
		me = newtok(sc, open == '{' ? LT_JT_OBJECT : LT_JT_ARRAY,
		    pos(sc), parent);
	sc->p++;
	for (;;) {
		blank(sc);
		if (sc->p == sc->end)
			return more(sc, open == '{' ? "unterminated object" :
			    "unterminated array");
		if (*sc->p == close) {
			if (!first)
				return bad(sc, open == '{' ?
				    "trailing comma in object" :
				    "trailing comma in array");
			break;
		}
		if (open == '{') {
			if (*sc->p != '"')
				return bad(sc, "expected a string key");
			if ((r = strtoken(sc, me, &key)) != LT_JSON_OK)
				return r;
			blank(sc);
			if (sc->p == sc->end)
				return more(sc, "unterminated object");
			if (*sc->p != ':')
				return bad(sc, "expected ':' after key");
			sc->p++;
		}
		if (sc->tok != NULL) {
			sc->tok[me].size++;
			if (open == '{')
				sc->tok[key].size = 1;
		}
		if ((r = value(sc, open == '{' ? key : me)) != LT_JSON_OK)
			return r;
		blank(sc);
		if (sc->p == sc->end)
			return more(sc, open == '{' ? "unterminated object" :
			    "unterminated array");
		if (*sc->p == close)
			break;
		if (*sc->p != ',')
			return bad(sc, open == '{' ? "expected ',' or '}'" :
			    "expected ',' or ']'");
		sc->p++;
		first = 0;
	}
	sc->p++;
	sc->depth--;
	if (sc->tok != NULL)
		sc->tok[me].end = pos(sc);
	return LT_JSON_OK;
}

static int
value(struct scan *sc, int parent)
{
	int start, r, t;

	blank(sc);
	if (sc->p == sc->end)
		return more(sc, "expected a value");
	start = sc->tok != NULL ? pos(sc) : 0;
	switch (*sc->p) {
	case '{':
	case '[':
		return container(sc, *sc->p, parent);
	case '"':
		return strtoken(sc, parent, &t);
	case 't':
		r = literal(sc, "true", 4);
		break;
	case 'f':
		r = literal(sc, "false", 5);
		break;
	case 'n':
		r = literal(sc, "null", 4);
		break;
	default:
		if (*sc->p != '-' && !ISDIGIT(*sc->p))
			return bad(sc, "expected a value");
		r = number(sc);
	}
	if (r == LT_JSON_OK && sc->tok != NULL) {
		t = newtok(sc, LT_JT_PRIMITIVE, start, parent);
		sc->tok[t].end = pos(sc);
	}
	return r;
}

static void
start(struct scan *sc, const char *p, size_t n, struct ltbuf *out,
    struct ltjson *j, int final)
{
	if (p == NULL)
		p = "";		/* no arithmetic on a null pointer */
	sc->s = sc->p = sc->done = p;
	sc->end = p + n;
	sc->out = out;
	sc->mark = out != NULL ? out->n : 0;
	sc->j = j;
	sc->lines = 0;
	sc->depth = 0;
	sc->final = final;
	sc->tok = NULL;
	sc->ntok = 0;
	j->err = NULL;
	j->errat = 0;
	j->end = 0;
	j->flags = 0;
	j->type = 0;
	j->lines = 0;
}

/* The end of a scan: the rest of the output, or none of it. */
static int
finish(struct scan *sc, int r, int lazy)
{
	struct ltjson *j = sc->j;

	if (r == LT_JSON_OK) {
		j->end = (size_t)(sc->p - sc->s);
		j->lines = sc->lines;
		if (!lazy || j->flags != 0)
			cut(sc, sc->p, sc->p);
	} else if (sc->out != NULL)
		sc->out->n = sc->mark;
	return r;
}

static int
run(struct scan *sc, int lazy)
{
	blank(sc);
	if (sc->p < sc->end)
		sc->j->type = (unsigned char)*sc->p;
	return finish(sc, value(sc, -1), lazy);
}

/*
 * One value at the start of p[0..n) (blanks before it allowed); more text
 * may follow, and the text may stop inside the value (LT_JSON_MORE).
 */
int
lt_json_value(const char *p, size_t n, struct ltbuf *out, struct ltjson *j)
{
	struct scan sc;

	start(&sc, p, n, out, j, 0);
	return run(&sc, 0);
}

/*
 * As lt_json_value, but the canonical form goes to out (not NULL) only
 * when it is not the text itself, that is when j->flags is not 0.
 */
int
lt_json_lazy(const char *p, size_t n, struct ltbuf *out, struct ltjson *j)
{
	struct scan sc;

	start(&sc, p, n, out, j, 0);
	return run(&sc, 1);
}

/*
 * As lt_json_value (lt_json_lazy with LT_JTOK_LAZY, lt_json_first with
 * LT_JTOK_WHOLE in how), the value cut into tokens as it is scanned (the
 * tokens jsmn 1.1.0 makes of such a text, core.h): in *tok, grown as
 * needed (*cap), their number in *ntok.  Their offsets are in the
 * canonical text when out is not NULL, else in p.
 */
int
lt_json_tokens(const char *p, size_t n, struct ltbuf *out, int how,
    struct ltjson *j, struct ltjtok **tok, unsigned *cap, int *ntok)
{
	struct scan sc;
	int r;

	start(&sc, p, n, out, j, (how & LT_JTOK_WHOLE) != 0);
	sc.tok = *tok;
	sc.tokcap = *cap;
	/* Never NULL: it says whether to make tokens. */
	if (sc.tok == NULL)
		moretok(&sc);
	r = run(&sc, (how & LT_JTOK_LAZY) != 0);
	*tok = sc.tok;
	*cap = sc.tokcap;
	*ntok = sc.ntok;
	return r;
}

/*
 * One value at the start of p[0..n), complete within it (the text does
 * not stop inside it); more text may follow.
 */
int
lt_json_first(const char *p, size_t n, struct ltbuf *out, struct ltjson *j)
{
	struct scan sc;

	start(&sc, p, n, out, j, 1);
	return run(&sc, 0);
}

/* Exactly one value in p[0..n), blanks around it allowed. */
int
lt_json_whole(const char *p, size_t n, struct ltbuf *out, struct ltjson *j)
{
	struct scan sc;
	int r;

	start(&sc, p, n, out, j, 1);
	if ((r = run(&sc, 0)) != LT_JSON_OK)
		return r;
	if (p == NULL)
		p = "";
	sc.s = p;
	sc.p = p + j->end;
	sc.end = p + n;
	sc.out = NULL;
	sc.j = j;
	sc.lines = 0;
	blank(&sc);
	if (sc.p != sc.end)
		return bad(&sc, "text after the value");
	return LT_JSON_OK;
}

/*
 * The contents of a JSON string, without its quotes, as in the cat and
 * name columns of lt1: checked, and canonicalised into out if not NULL.
 */
int
lt_json_str(const char *p, size_t n, struct ltbuf *out, struct ltjson *j)
{
	struct scan sc;

	start(&sc, p, n, out, j, 1);
	j->type = '"';
	return finish(&sc, string(&sc, 0), 0);
}

/*
 * Iterate the members of a valid minified object: *cur starts at its '{'.
 * Returns 1 with the key (contents, without quotes) and the value's text,
 * 0 after the last member, or where an invalid one (taken on trust,
 * #valid) stops making sense.
 */
int
lt_json_objnext(const char **cur, const char *end, const char **key,
    size_t *keyn, const char **val, size_t *valn)
{
	struct ltjson j;
	const char *p = *cur;

	if (p >= end || *p == '}')
		return 0;
	p++;			/* '{' or ',' */
	if (p >= end || *p == '}') {
		*cur = end;
		return 0;
	}
	if (lt_json_value(p, (size_t)(end - p), NULL, &j) != LT_JSON_OK ||
	    j.type != '"' || j.end >= (size_t)(end - p) || p[j.end] != ':')
		return 0;
	*key = p + 1;
	*keyn = j.end - 2;
	p += j.end + 1;		/* past ':' */
	if (lt_json_value(p, (size_t)(end - p), NULL, &j) != LT_JSON_OK)
		return 0;
	*val = p;
	*valn = j.end;
	*cur = p + j.end;
	return 1;
}

/* The value of the first member key of the minified object p[0..n), or NULL. */
const char *
lt_json_member(const char *p, size_t n, const char *key, size_t *vn)
{
	const char *cur = p, *k, *v;
	size_t kn, klen = strlen(key);

	if (n < 2 || p[0] != '{')
		return NULL;
	while (lt_json_objnext(&cur, p + n, &k, &kn, &v, vn))
		if (kn == klen && memcmp(k, key, kn) == 0)
			return v;
	return NULL;
}
