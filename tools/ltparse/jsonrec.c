/* See LICENSE file for copyright and license details. */
/*
 * jsonrec.c: one Chrome trace event (read by jsonev.c, canonicalised and
 * cut into tokens) as an lt1 record.
 *
 * Every member survives: ts, ph, pid, tid, dur, cat, name and args go
 * to their columns when the column can hold the value, and everything
 * else, in order, to extra (litracer-stream(5)).  Numbers become lt1
 * microseconds exactly: digits beyond the nanosecond are rounded half
 * away from zero.  A pid or tid, number or string, becomes the valid id
 * procs.c gives it.  When a standard member is repeated the last one
 * counts, as in Perfetto and JSON.parse; the others are dropped and
 * counted.  An event without a one-character ph has no lt1 form, nor
 * an X of negative dur, which Perfetto drops.
 */
#include "jsonev.h"
#include "ltparse.h"

enum { M_TS, M_PH, M_PID, M_TID, M_DUR, M_CAT, M_NAME, M_ARGS, M_N };

/* The column of key token t ("ts", "ph", ... "args"), or -1. */
static int
which(const char *js, const struct ltjtok *t)
{
	const char *k = js + t->start;

	switch (t->end - t->start) {
	case 2:
		if (k[0] == 't')
			return k[1] == 's' ? M_TS : -1;
		if (k[0] == 'p' && k[1] == 'h')
			return M_PH;
		return -1;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return M_PID;
		if (memcmp(k, "tid", 3) == 0)
			return M_TID;
		if (memcmp(k, "dur", 3) == 0)
			return M_DUR;
		if (memcmp(k, "cat", 3) == 0)
			return M_CAT;
		return -1;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return M_NAME;
		if (memcmp(k, "args", 4) == 0)
			return M_ARGS;
		return -1;
	default:
		return -1;
	}
}

/* The text of token t as written: strings with their quotes. */
static void
text(const char *js, const struct ltjtok *t, const char **p, size_t *n)
{
	int q = t->type == LT_JT_STRING;

	*p = js + t->start - q;
	*n = (size_t)(t->end - t->start + 2 * q);
}

#define ISDIGIT(c)	((unsigned)(c) - '0' < 10)

/* -------- numbers Perfetto cannot read as written (jsonnum.c) -------- */

static int
isnum(const char *js, const struct ltjtok *t)
{
	return t->type == LT_JT_PRIMITIVE && (js[t->start] == '-' ||
	    ISDIGIT(js[t->start]));
}

/* Is token t a number Perfetto does not read as written? */
static int
badnum(const char *js, const struct ltjtok *t)
{
	return isnum(js, t) && !ps_jnum_ok(js + t->start,
	    (size_t)(t->end - t->start));
}

/* Is token t a number beyond the range of a double? */
static int
outside(const char *js, const struct ltjtok *t)
{
	return badnum(js, t) && ps_jnum(js + t->start,
	    (size_t)(t->end - t->start), NULL) < 0;
}

/* Does the value of token i hold such a number? */
static int
hasbad(const struct ltjev *ev, int i)
{
	const struct ltjtok *t = ev->tok;
	int end = lt_jtok_skip(t, i);

	for (; i < end; i++)
		if (badnum(ev->p, &t[i]))
			return 1;
	return 0;
}

/*
 * The value of token i, with each number Perfetto does not read as
 * written rewritten, and one beyond a double left out (a member) or
 * null (an element of an array), counted in jr; returns the token
 * after it.  Nesting is bounded by the JSON reader's limit.
 */
static int
putfixed(struct ltbuf *b, const struct ltjev *ev, int i, struct psjrec *jr)
{
	const struct ltjtok *t = ev->tok;
	const char *p;
	size_t n;
	int k, j, v, obj, first = 1;

	if (t[i].type == LT_JT_OBJECT || t[i].type == LT_JT_ARRAY) {
		obj = t[i].type == LT_JT_OBJECT;
		lt_buf_addc(b, obj ? '{' : '[');
		for (k = 0, j = i + 1; k < t[i].size; k++) {
			v = obj ? j + 1 : j;
			if (obj && outside(ev->p, &t[v])) {
				jr->numbers++;
				j = v + 1;
				continue;
			}
			if (!first)
				lt_buf_addc(b, ',');
			first = 0;
			if (obj) {
				text(ev->p, &t[j], &p, &n);
				lt_buf_add(b, p, n);
				lt_buf_addc(b, ':');
			}
			j = putfixed(b, ev, v, jr);
		}
		lt_buf_addc(b, obj ? '}' : ']');
		return j;
	}
	if (badnum(ev->p, &t[i])) {
		jr->numbers++;
		if (ps_jnum(ev->p + t[i].start, (size_t)(t[i].end - t[i].start),
		    b) < 0)
			lt_buf_add(b, "null", 4);
		return i + 1;
	}
	text(ev->p, &t[i], &p, &n);
	lt_buf_add(b, p, n);
	return i + 1;
}

/* The value of token i, as written, or fixed when it has to be. */
static void
putval(struct ltbuf *b, const struct ltjev *ev, int i, struct psjrec *jr)
{
	const char *p;
	size_t n;

	if (hasbad(ev, i)) {
		putfixed(b, ev, i, jr);
		return;
	}
	text(ev->p, &ev->tok[i], &p, &n);
	lt_buf_add(b, p, n);
}

/*
 * A plain -?D+(.D+)? of at most 16 integer digits in ns, rounded as
 * lt_dec_parse rounds; 0 for anything else, left to lt_dec_parse.  In
 * *keep, how much of the text is already its lt1 form (at most three
 * fraction digits, less their trailing zeros), or 0.
 */
static int
plaindec(const char *p, size_t n, int64_t *ns, size_t *keep)
{
	const char *start = p, *end = p + n, *q, *last;
	uint64_t v = 0;
	int neg = 0, k, lt1;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	for (q = p; p < end && ISDIGIT(*p); p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p == q || p - q > 16)
		return 0;
	lt1 = *q != '0' || p - q == 1;		/* no leading zero */
	last = p;
	v *= 1000;
	if (p < end && *p == '.') {
		for (k = 100, q = ++p; p < end && ISDIGIT(*p); p++) {
			if (k > 0)
				v += (uint64_t)(*p - '0') * (uint64_t)k;
			else if (k == 0)
				v += *p >= '5';	/* only the first digit dropped */
			if (*p != '0')
				last = p + 1;
			k = k > 0 ? k / 10 : -1;
		}
		if (p == q)
			return 0;
		lt1 = lt1 && k >= 0;
	}
	if (p != end || v > (uint64_t)INT64_MAX)
		return 0;
	*keep = lt1 && !(neg && v == 0) ? (size_t)(last - start) : 0;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return 1;
}

/*
 * A ts or dur in ns, add added; 0 if the value is not a number lt1 can
 * hold.  *keep as plaindec says, 0 when add is not.  A string that is a
 * JSON number (as some profilers write ts) is that number: *str is set.
 */
static int
usval(const char *js, const struct ltjtok *t, int64_t add, int64_t *ns,
    size_t *keep, int *str)
{
	const char *p = js + t->start;
	size_t n = (size_t)(t->end - t->start);
	int64_t v;

	*keep = 0;
	if (t->type == LT_JT_STRING && n > 0 && (*p == '-' || ISDIGIT(*p)) &&
	    lt_dec_parse(p, n, 3, &v) == LT_NUM_OK &&
	    ((add <= 0 || v <= INT64_MAX - add) && (add >= 0 ||
	    v >= INT64_MIN - add))) {
		*str = 1;
		*ns = v + add;
		return 1;
	}
	if (t->type != LT_JT_PRIMITIVE || (*p != '-' && (*p < '0' || *p > '9')))
		return 0;
	if (!plaindec(p, n, &v, keep) && lt_dec_parse(p, n, 3, &v) !=
	    LT_NUM_OK)
		return 0;
	if ((add > 0 && v > INT64_MAX - add) || (add < 0 &&
	    v < INT64_MIN - add))
		return 0;
	if (add != 0)
		*keep = 0;
	*ns = v + add;
	return 1;
}

/* Can column m hold value token t?  ts and dur go to *ns and *keep. */
static int
fits(const struct ltjev *ev, struct psjrec *jr, int m,
    const struct ltjtok *t, int64_t *ns, size_t *keep)
{
	const char *p = ev->p + t->start;
	size_t n = (size_t)(t->end - t->start);

	switch (m) {
	case M_TS:
		return usval(ev->p, t, jr->offset, ns, keep, &jr->fixed);
	case M_DUR:
		return usval(ev->p, t, 0, ns, keep, &jr->fixed);
	case M_PH:
		return t->type == LT_JT_STRING && n == 1 && *p > ' ' &&
		    *p < 0x7f && *p != '"' && *p != '\\';
	case M_PID:
	case M_TID:
		/* Any number or string: procs.c gives it a valid id. */
		return t->type == LT_JT_STRING || (t->type == LT_JT_PRIMITIVE &&
		    (*p == '-' || ISDIGIT(*p)));
	case M_CAT:
	case M_NAME:
		return t->type == LT_JT_STRING && n > 0;
	default:
		return t->type == LT_JT_OBJECT && t->size > 0;
	}
}

static void
putnum(struct ltbuf *b, int64_t v, int us)
{
	char num[LT_NUMBUF];

	lt_buf_add(b, num, us ? lt_us_fmt(num, v) : lt_i64_fmt(num, v));
}

/* A ts or dur: its text when it is the lt1 form, else printed. */
static void
putus(struct ltbuf *b, const char *js, const struct ltjtok *t, int64_t ns,
    size_t keep)
{
	if (keep != 0)
		lt_buf_add(b, js + t->start, keep);
	else
		putnum(b, ns, 1);
}

/*
 * A decimal integer -?[0-9]+ that fits int64, leading zeros allowed (a
 * string that spells one is that number)?
 */
static int
decimal(const char *p, size_t n, int64_t *v)
{
	uint64_t u = 0;
	size_t i = n > 0 && *p == '-';
	int neg = (int)i;

	if (i == n)
		return 0;
	for (; i < n; i++) {
		if (!ISDIGIT(p[i]) || u > (UINT64_MAX - 9) / 10)
			return 0;
		u = u * 10 + (uint64_t)(p[i] - '0');
	}
	if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
		return 0;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 1;
}

/*
 * Is the JSON number p[0..n), which is not written as an integer, one
 * all the same (1.0, 1e3, -0.0)?  Its value in *v then.  Its digits d,
 * the point moved by the exponent k: 0s cut from d or added to it.
 */
static int
integral(const char *p, size_t n, int64_t *v)
{
	const char *end = p + n, *q;
	char d[LT_NUMBUF];
	size_t nd = 0;
	int64_t x;
	long k = 0;
	int frac = 0;

	if (p < end && *p == '-')
		d[nd++] = *p++;
	for (q = p; q < end && *q != 'e' && *q != 'E'; q++) {
		if (*q == '.') {
			frac = 1;
			continue;
		}
		if (nd == sizeof(d) - 1)
			return 0;
		d[nd++] = *q;
		k -= frac;
	}
	if (q < end) {
		q += q + 1 < end && q[1] == '+' ? 2 : 1;
		if (end - q > 4 || !decimal(q, (size_t)(end - q), &x) ||
		    x < -40 || x > 40)
			return 0;
		k += (long)x;
	}
	for (; k < 0; k++, nd--)
		if (nd == 0 || d[nd - 1] != '0')
			return 0;
	for (; k > 0; k--) {
		if (nd == sizeof(d) - 1)
			return 0;
		d[nd++] = '0';
	}
	return decimal(d, nd, v);
}

/* The pid or tid of value token t (absent: -1) as written. */
static void
jid(const struct ltjev *ev, int t, struct psjid *id)
{
	const struct ltjtok *tok;
	const char *p;
	size_t n;

	memset(id, 0, sizeof(*id));
	if (t < 0)
		return;
	tok = &ev->tok[t];
	p = ev->p + tok->start;
	n = (size_t)(tok->end - tok->start);
	id->str = tok->type == LT_JT_STRING;
	id->p = p;
	id->n = n;
	/* A number whose value is an integer is it, as Perfetto takes it. */
	if (id->str ? decimal(p, n, &id->v) : lt_int_parse(p, n, &id->v) ==
	    LT_NUM_OK || integral(p, n, &id->v))
		id->kind = PS_JID_INT;
	else
		id->kind = PS_JID_TEXT;
}

/*
 * An M event naming a process or a thread whose id was changed gets
 * the id as written after its name, so that the name still says which
 * it is: {"name":"python3 (node 2, pid 4021)"}.  Other args are copied.
 * col holds the value token of each column, or -1 when it is not in its
 * column.
 */
static void
putargs(struct ltbuf *b, const struct ltjev *ev, const int *col,
    const char *suffix, struct psjrec *jr)
{
	const struct ltjtok *t = ev->tok, *a = &t[col[M_ARGS]];
	const char *p = ev->p;
	int v;

	if (suffix == NULL || (v = lt_jtok_get(p, t, col[M_ARGS], "name")) <
	    0 || t[v].type != LT_JT_STRING) {
		putval(b, ev, col[M_ARGS], jr);
		return;
	}
	lt_buf_add(b, p + a->start, (size_t)(t[v].end - a->start));
	lt_buf_adds(b, suffix);
	lt_buf_add(b, p + t[v].end, (size_t)(a->end - t[v].end));
}

/*
 * What M event ev is: one naming a process ('p') or a thread ('t'),
 * another of a process (its name starts with "process_": 'P'), or
 * none of these (0).
 */
static int
naming(const struct ltjev *ev, const int *col)
{
	const struct ltjtok *t = ev->tok;
	const char *p = ev->p, *name;
	size_t n;
	int v, named;

	if (p[t[col[M_PH]].start] != 'M' || col[M_NAME] < 0)
		return 0;
	name = p + t[col[M_NAME]].start;
	n = (size_t)(t[col[M_NAME]].end - t[col[M_NAME]].start);
	named = col[M_ARGS] >= 0 && (v = lt_jtok_get(p, t, col[M_ARGS],
	    "name")) >= 0 && t[v].type == LT_JT_STRING;
	if (n == 12 && memcmp(name, "process_name", 12) == 0 && named)
		return 'p';
	if (n == 11 && memcmp(name, "thread_name", 11) == 0 && named)
		return 't';
	return n >= 8 && memcmp(name, "process_", 8) == 0 ? 'P' : 0;
}

/* The key token of the member after the one whose key token is i. */
static int
nextkey(const struct ltjtok *t, int i)
{
	if (t[i + 1].type == LT_JT_OBJECT || t[i + 1].type == LT_JT_ARRAY)
		return lt_jtok_skip(t, i + 1);
	return i + 2;
}

#define NMEM	32	/* members remembered from the first walk */

/*
 * An event's members, as the first walk finds them: the value token of
 * each column's last member (or -1), whether it goes to extra instead,
 * and the key tokens and columns of the first NMEM members.
 */
struct members {
	int		 col[M_N];
	unsigned char	 extra[M_N];	/* its column cannot hold it */
	int64_t		 ns[M_N];	/* ts and dur */
	size_t		 keep[M_N];
	int		 key[NMEM];
	signed char	 mk[NMEM];	/* M_*, or -1 */
	uint64_t	 id[2];		/* the pid and tid written */
	const char	*suffix;	/* after the name an M event gives */
};

static void
walk(const struct ltjev *ev, struct members *mb, struct psjrec *jr)
{
	const struct ltjtok *t = ev->tok;
	int i, k, m;

	for (m = 0; m < M_N; m++) {
		mb->col[m] = -1;
		mb->extra[m] = 0;
	}
	for (i = 1, k = 0; k < t[0].size; k++, i = nextkey(t, i)) {
		m = which(ev->p, &t[i]);
		if (k < NMEM) {
			mb->key[k] = i;
			mb->mk[k] = (signed char)m;
		}
		if (m >= 0) {
			if (mb->col[m] >= 0)
				jr->dupkeys++;
			mb->col[m] = i + 1;
		}
	}
}

/* The eight columns before extra, each followed by its tab. */
static void
columns(struct ltbuf *b, const struct ltjev *ev, const struct members *mb,
    struct psjrec *jr)
{
	const struct ltjtok *t = ev->tok;
	int used[M_N], i, m;

	for (m = 0; m < M_N; m++)
		used[m] = mb->extra[m] ? -1 : mb->col[m];
	for (m = 0; m < M_N; m++) {
		if ((i = used[m]) < 0) {
			if (m == M_ARGS)
				lt_buf_add(b, "{}", 2);
			else if (m != M_CAT && m != M_NAME)
				lt_buf_addc(b, '-');
		} else if (m == M_TS || m == M_DUR)
			putus(b, ev->p, &t[i], mb->ns[m], mb->keep[m]);
		else if (m == M_PID || m == M_TID)
			putnum(b, (int64_t)mb->id[m == M_TID], 0);
		else if (m == M_ARGS)
			putargs(b, ev, used, mb->suffix, jr);
		else		/* ph, cat, name: contents */
			lt_buf_add(b, ev->p + t[i].start,
			    (size_t)(t[i].end - t[i].start));
		lt_buf_addc(b, '\t');
	}
}

/*
 * A flow id (the id of s, t and f, or any bind_id) at or above 2^53:
 * its new id in *out.
 */
static int
bigid(const struct ltjev *ev, const struct ltjtok *key,
    const struct ltjtok *val, int ph, uint64_t *out)
{
	const char *k = ev->p + key->start, *v = ev->p + val->start;
	size_t kn = (size_t)(key->end - key->start);
	size_t vn = (size_t)(val->end - val->start);
	uint64_t id;

	if (!((kn == 2 && memcmp(k, "id", 2) == 0 && (ph == 's' ||
	    ph == 't' || ph == 'f')) || (kn == 7 && memcmp(k, "bind_id", 7) ==
	    0)) || val->type != LT_JT_PRIMITIVE || lt_uint_parse(v, vn, &id) !=
	    LT_NUM_OK || id < (uint64_t)1 << 53)
		return 0;
	*out = ps_jsonflowid(id);
	return 1;
}

/*
 * The extra column: every member, in order, but those in their column
 * and the standard ones repeated later; flow ids a double cannot hold
 * renumbered.
 */
static void
extra(struct ltbuf *b, const struct ltjev *ev, const struct members *mb,
    struct psjrec *jr, int ph)
{
	char num[LT_NUMBUF];
	uint64_t id;
	const struct ltjtok *t = ev->tok;
	const char *p;
	size_t n;
	int i, k, m, first = 1;

	lt_buf_addc(b, '{');
	for (i = 1, k = 0; k < t[0].size; k++) {
		if (k < NMEM) {
			i = mb->key[k];
			m = mb->mk[k];
		} else {
			i = nextkey(t, i);
			m = which(ev->p, &t[i]);
		}
		if (m >= 0 && (!mb->extra[m] || mb->col[m] != i + 1))
			continue;	/* in its column, or repeated */
		if (outside(ev->p, &t[i + 1])) {
			jr->numbers++;	/* it would fail the whole trace */
			continue;
		}
		if (!first)
			lt_buf_addc(b, ',');
		first = 0;
		text(ev->p, &t[i], &p, &n);
		lt_buf_add(b, p, n);
		lt_buf_addc(b, ':');
		if (bigid(ev, &t[i], &t[i + 1], ph, &id)) {
			lt_buf_add(b, num, lt_u64_fmt(num, id));
			jr->fixed = 1;
			continue;
		}
		putval(b, ev, i + 1, jr);
	}
	lt_buf_add(b, "}\n", 2);
}

/* The pid and tid to write, from procs.c, and an M event's suffix. */
static void
ids(const struct ltjev *ev, struct members *mb, const struct psjrec *jr)
{
	struct psjid id[2];
	int used[M_N], m;

	for (m = 0; m < M_N; m++)
		used[m] = mb->extra[m] ? -1 : mb->col[m];
	jid(ev, used[M_PID], &id[0]);
	jid(ev, used[M_TID], &id[1]);
	mb->suffix = ps_jsonids(jr->in, id, naming(ev, used), mb->id);
}

/*
 * Why Perfetto fails M event ev (json_parser_failure), or NULL: one
 * that names a process or thread with no name, or orders one with no
 * number.  Such an event names nothing, so it is left out.
 */
static const char *
badmeta(const struct ltjev *ev, const struct members *mb)
{
	const struct ltjtok *t = ev->tok;
	const char *p = ev->p, *name;
	size_t n;
	int a = mb->extra[M_ARGS] ? -1 : mb->col[M_ARGS], v, sort;

	if (p[t[mb->col[M_PH]].start] != 'M' || mb->col[M_NAME] < 0 ||
	    mb->extra[M_NAME])
		return NULL;
	name = p + t[mb->col[M_NAME]].start;
	n = (size_t)(t[mb->col[M_NAME]].end - t[mb->col[M_NAME]].start);
	if ((n == 12 && memcmp(name, "process_name", 12) == 0) ||
	    (n == 11 && memcmp(name, "thread_name", 11) == 0))
		sort = 0;
	else if ((n == 18 && memcmp(name, "process_sort_index", 18) == 0) ||
	    (n == 17 && memcmp(name, "thread_sort_index", 17) == 0))
		sort = 1;
	else
		return NULL;
	v = a < 0 ? -1 : lt_jtok_get(p, t, a, sort ? "sort_index" : "name");
	if (sort && (v < 0 || !isnum(p, &t[v])))
		return "an M event ordering a process or thread with no "
		    "sort_index number";
	if (!sort && (v < 0 || t[v].type != LT_JT_STRING ||
	    t[v].end == t[v].start))
		return "an M event naming a process or thread with no name";
	return NULL;
}

/*
 * Append the record of ev, with its '\n', to b.  Returns 0, or -1 when
 * the event has no lt1 form (jr->why says why; nothing is appended).
 */
int
ps_jrec(const struct ltjev *ev, struct ltbuf *b, struct psjrec *jr)
{
	const struct ltjtok *t = ev->tok;
	struct members mb;
	int m, ph;

	jr->skip = PS_C_SKIPJSON;
	jr->numbers = 0;
	jr->fixed = 0;
	if (ev->ntok < 1 || t[0].type != LT_JT_OBJECT) {
		jr->why = "an event that is not an object";
		return -1;
	}
	walk(ev, &mb, jr);
	ph = mb.col[M_PH];
	if (ph < 0 || !fits(ev, jr, M_PH, &t[ph], NULL, NULL)) {
		jr->why = t[0].size == 0 ? "an empty event" :
		    ph < 0 ? "an event without ph" :
		    "an event whose ph is not one character";
		return -1;
	}
	for (m = 0; m < M_N; m++)
		if (mb.col[m] >= 0 && !fits(ev, jr, m, &t[mb.col[m]],
		    &mb.ns[m], &mb.keep[m]))
			mb.extra[m] = 1;
	/* A ts beyond a double fails the whole trace in Perfetto. */
	if (mb.col[M_TS] >= 0 && mb.extra[M_TS] &&
	    outside(ev->p, &t[mb.col[M_TS]])) {
		jr->why = "an event whose ts is beyond the range of a double";
		return -1;
	}
	/* Perfetto drops an X of negative dur: so do we, and say so. */
	if (ev->p[t[ph].start] == 'X' && mb.col[M_DUR] >= 0 &&
	    ((!mb.extra[M_DUR] && mb.ns[M_DUR] < 0) ||
	    (mb.extra[M_DUR] && outside(ev->p, &t[mb.col[M_DUR]])))) {
		jr->why = mb.extra[M_DUR] ? "an X event whose dur is beyond "
		    "the range of a double" : "an X event with a negative dur";
		jr->skip = PS_C_SKIPDUR;
		return -1;
	}
	if ((jr->why = badmeta(ev, &mb)) != NULL) {
		jr->skip = PS_C_SKIPMETA;
		return -1;
	}
	ids(ev, &mb, jr);
	columns(b, ev, &mb, jr);
	extra(b, ev, &mb, jr, ev->p[t[ph].start]);
	return 0;
}
