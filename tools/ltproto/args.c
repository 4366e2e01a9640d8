/* See LICENSE file for copyright and license details. */
/*
 * args.c: the args of an event as debug annotations, and the numbers
 * and ids of JSON members as Perfetto reads them.
 *
 * Each member of args is a DebugAnnotation with an interned name; types
 * are kept: an integer is an int (or a uint above 2^63-1), any other
 * number a double, true and false a bool, a string a string (decoded),
 * an object its dict entries and an array its values.  Perfetto's JSON
 * importer drops nulls, empty objects and empty arrays (and the nulls of
 * an array without leaving a hole), so they are left out here too, and
 * the two traces have the same args.  It reads an integer beyond int64
 * wrapped round, as a double; here such a number keeps its value.
 *
 * The columns given are valid canonical JSON (the stream reader checked
 * them); the parser below still never reads past their end, nor nests
 * deeper than they can.
 */
#include <errno.h>
#include <stdlib.h>

#include "ltproto.h"
#include "scan.h"

#define MAXDOTS		64	/* dots of a name made dicts, at most */

static struct ltbuf	 name, text, num;
static uint64_t		 seen[1 << 16];	/* hashes of string values met */

/*
 * A string value: interned from the second time it is met (most args
 * that repeat, repeat at once: a path, a logger name), written out when
 * it may be met only once, so that unique strings do not fill the
 * table.  A short one is written out: its iid would save nothing.
 */
static void
string(struct ltbuf *b, const char *s, size_t n)
{
	uint64_t h, *seenp;

	if (n >= 4) {
		h = pt_hash(s, n) | 1;
		seenp = &seen[h & ((sizeof(seen) / sizeof(seen[0])) - 1)];
		if (*seenp == h) {
			pb_uint(b, DA_STRING_IID, pt_iid(PT_VALUES, s, n));
			return;
		}
		*seenp = h;
	}
	pb_bytes(b, DA_STRING, s, n);
}

/* Add seq to s. */
void
pt_seqs_add(struct ptseqs *s, uint32_t seq)
{
	if (seq < 64) {
		s->low |= 1ULL << seq;
		return;
	}
	if (seq / 64 > s->made)
		s->more = lt_grow_zero(s->more, &s->words, &s->made,
		    seq / 64, sizeof(*s->more));
	s->more[seq / 64 - 1] |= 1ULL << (seq % 64);
}

/* Empty s: the words beyond made are zeroed as they are needed again. */
void
pt_seqs_clear(struct ptseqs *s)
{
	s->low = 0;
	s->made = 0;
}

void
pt_seqs_free(struct ptseqs *s)
{
	free(s->more);
	memset(s, 0, sizeof(*s));
}

/* A JSON number as a double (the text is checked JSON). */
int
pt_number(const char *p, size_t n, double *d)
{
	char *end;

	num.n = 0;
	lt_buf_add(&num, p, n);
	lt_buf_addc(&num, '\0');
	errno = 0;
	*d = strtod(num.p, &end);
	return end == num.p + n && n > 0;
}

/* JSON string contents p[0..n), decoded: p itself when it has no escape. */
const char *
pt_str(struct ltbuf *b, const char *p, size_t n, size_t *len)
{
	if (memchr(p, '\\', n) == NULL) {
		*len = n;
		return p;
	}
	b->n = 0;
	lt_unesc(b, p, n);
	*len = b->n;
	return b->p;
}

/*
 * A flow or async id as Perfetto reads one from JSON: an int64, as a
 * 64-bit pattern (an integer beyond is a double to it, no id); a
 * string, as hexadecimal (strtoull(3) with base 16, all of it, 2^64-1
 * beyond 64 bits).  Returns 0 for anything else.
 */
int
pt_id(const char *p, size_t n, uint64_t *id)
{
	const char *s;
	char *end;
	int64_t v;
	size_t sn;

	if (lt_int_parse(p, n, &v) == LT_NUM_OK) {
		*id = (uint64_t)v;
		return 1;
	}
	if (n == 20 && memcmp(p, "-9223372036854775808", 20) == 0) {
		*id = (uint64_t)1 << 63;
		return 1;
	}
	if (n < 2 || p[0] != '"')
		return 0;
	s = pt_str(&text, p + 1, n - 2, &sn);
	if (sn == 0 || memchr(s, '\0', sn) != NULL)
		return 0;
	num.n = 0;
	lt_buf_add(&num, s, sn);
	lt_buf_addc(&num, '\0');
	*id = strtoull(num.p, &end, 16);
	return end == num.p + sn;
}

/* An integer or other number p[0..n) as the value of an annotation. */
static void
number(struct ltbuf *b, const char *p, size_t n)
{
	int64_t v;
	uint64_t u;
	double d;
	size_t i;

	/* Most are a few digits: no call for them. */
	if (n > 0 && n < 18 && (p[0] != '0' || n == 1)) {
		for (i = p[0] == '-', u = 0; i < n &&
		    (unsigned)p[i] - '0' <= 9; i++)
			u = u * 10 + ((unsigned)p[i] - '0');
		if (i == n && i > (size_t)(p[0] == '-') &&
		    (p[0] != '-' || p[1] != '0' || n == 2)) {
			pb_int(b, DA_INT, p[0] == '-' ? -(int64_t)u :
			    (int64_t)u);
			return;
		}
	}
	if (lt_int_parse(p, n, &v) == LT_NUM_OK)
		pb_int(b, DA_INT, v);
	else if (n == 20 && memcmp(p, "-9223372036854775808", 20) == 0)
		pb_int(b, DA_INT, INT64_MIN);
	else if (lt_uint_parse(p, n, &u) == LT_NUM_OK)
		pb_uint(b, DA_UINT, u);
	else {
		pt_number(p, n, &d);
		pb_double(b, DA_DOUBLE, d);
	}
}

/* The end of the JSON string starting at p (its '"'), or NULL. */
static const char *
strend(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static int value(struct ltbuf *, const char **, const char *, int);

/*
 * Array indexes.  Perfetto's JSON importer numbers the elements of an
 * array as they stand, but for nulls: an empty object or array takes an
 * index and makes no arg, so [[],[],[1,6]] gives x[2][0] and x[2][1].
 * Its protobuf importer numbers only the values that make args, which
 * would give x[0][0].  So an array where an element that makes no arg
 * comes before one that does (a hole), or that holds such an array, is
 * written as its JSON text (legacy_json_value), which Perfetto reads as
 * its JSON importer reads args: the same keys, the same values.
 */
#define MAXSCAN		64	/* depth an array is looked into for holes */

/* Past the JSON value at p (checked JSON), whatever it holds. */
static const char *
skip(const char *p, const char *end)
{
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			if ((p = strend(p, end)) == NULL)
				return end;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
		p++;
	}
	return end;
}

/*
 * Pass over the value at *p: returns 1 when it makes no arg (null, or
 * an object or array of such values only); sets *holey when an array in
 * it, not under an object, has a hole before a value that makes one.
 */
static int
noarg(const char **p, const char *end, int *holey, int depth)
{
	const char *q = *p, *k, *was;
	int none = 1, hole = 0, obj, isnull, sub = 0;

	if (q >= end)
		return 1;
	if (*q == 'n') {
		*p = q + 4;
		return 1;
	}
	if ((*q != '{' && *q != '[') || depth > MAXSCAN) {
		*p = skip(q, end);
		return 0;
	}
	obj = *q++ == '{';
	while (q < end && *q != (obj ? '}' : ']')) {
		was = q;
		if (obj && (k = strend(q, end)) == NULL) {
			q = end;
			break;
		}
		if (obj)
			q = k + 1;		/* past the ':' */
		isnull = *q == 'n';
		if (!noarg(&q, end, obj ? &sub : holey, depth + 1)) {
			none = 0;
			if (!obj && hole)
				*holey = 1;
		} else if (!obj && !isnull)
			hole = 1;
		if (q < end && *q == ',')
			q++;
		else if (q == was)
			break;	/* not JSON (#valid trusted too far) */
	}
	*p = q < end ? q + 1 : end;
	return none;
}

/*
 * One annotation as field f of b: named when key is not NULL, its value
 * read at *p.  Nothing is left of it when its value is null or empty.
 * Perfetto writes the '.' of a name as '_', where JSON's "a.b" is the
 * arg a.b: so "a.b" is the entry b of a dict a, which is that arg.
 */
static int
annotation(struct ltbuf *b, uint32_t f, const char *key, size_t keyn,
    const char **p, const char *end, int depth)
{
	size_t start = b->n, o;
	const char *dot = NULL, *q = *p;
	int ok, holey = 0;

	if (key != NULL)
		dot = depth < MAXDOTS ? memchr(key, '.', keyn) : NULL;
	if (key != NULL && dot == NULL && q < end && *q == '[' &&
	    (noarg(&q, end, &holey, 0), holey)) {
		o = pb_open(b, f);
		pb_uint(b, DA_NAME_IID, pt_iid(PT_ANNOS, key, keyn));
		pb_bytes(b, DA_LEGACY_JSON, *p, (size_t)(q - *p));
		pb_close(b, o);
		*p = q;
		return 1;
	}
	o = pb_open(b, f);
	if (key != NULL) {
		pb_uint(b, DA_NAME_IID, pt_iid(PT_ANNOS, key,
		    dot != NULL ? (size_t)(dot - key) : keyn));
		if (dot != NULL)
			ok = annotation(b, DA_DICT, dot + 1,
			    (size_t)(key + keyn - dot - 1), p, end, depth + 1);
		else
			ok = value(b, p, end, depth);
	} else
		ok = value(b, p, end, depth);
	if (!ok) {
		b->n = start;
		return 0;
	}
	pb_close(b, o);
	return 1;
}

/* The members of an object or elements of an array at *p. */
static int
items(struct ltbuf *b, const char **p, const char *end, int depth, int obj)
{
	const char *q = *p + 1, *k;
	size_t kn;
	int any = 0;

	if (q < end && *q == (obj ? '}' : ']')) {
		*p = q + 1;
		return 0;
	}
	while (q < end) {
		if (obj) {
			if (*q != '"' || (k = strend(q, end)) == NULL ||
			    k >= end || *k != ':')
				break;
			k = pt_str(&name, q + 1, (size_t)(k - q - 2), &kn);
			q = strend(q, end) + 1;
			if (depth == 0)
				any |= annotation(b, EV_ANNOTATION, k, kn,
				    &q, end, 1);
			else
				any |= annotation(b, DA_DICT, k, kn, &q, end,
				    depth + 1);
		} else
			any |= annotation(b, DA_ARRAY, NULL, 0, &q, end,
			    depth + 1);
		if (q < end && *q == ',')
			q++;
		else
			break;
	}
	if (q < end)
		q++;			/* the closing bracket */
	*p = q;
	return any;
}

/*
 * The value at *p, written into the annotation open in b; *p is moved
 * past it.  Returns 0 when there is nothing to write (null, {}, []).
 */
static int
value(struct ltbuf *b, const char **p, const char *end, int depth)
{
	const char *q = *p, *s;
	size_t sn;

	if (q >= end)
		return 0;
	switch (*q) {
	case '"':
		if ((s = strend(q, end)) == NULL) {
			*p = end;
			return 0;
		}
		*p = s;
		s = pt_str(&text, q + 1, (size_t)(s - q - 2), &sn);
		string(b, s, sn);
		return 1;
	case '{':
	case '[':
		if (depth > LT_JSON_DEPTH + MAXDOTS) {
			*p = end;	/* checked args never nest so deep */
			return 0;
		}
		return items(b, p, end, depth, *q == '{');
	case 't':
	case 'f':
		pb_uint(b, DA_BOOL, *q == 't');
		*p = q + (*q == 't' ? 4 : 5);
		return 1;
	case 'n':
		*p = q + 4;
		return 0;
	}
	for (s = q; s < end && (*s == '-' || *s == '+' || *s == '.' ||
	    *s == 'e' || *s == 'E' || (*s >= '0' && *s <= '9')); s++)
		;
	*p = s > q ? s : end;
	if (s == q)
		return 0;
	number(b, q, (size_t)(s - q));
	return 1;
}

/* Has p[0..n) a '.'?  Eight bytes at a time: names are short. */
static int
hasdot(const char *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		w ^= 0x2e2e2e2e2e2e2e2eULL;
		if ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL)
			return 1;
	}
	return memchr(p, '.', n) != NULL;
}

/*
 * An annotation of an integer, named by iid, in one write: the key of
 * the field, its length, which is less than 128, and the two fields.
 */
static void
intanno(struct ltbuf *b, uint64_t iid, int64_t v)
{
	char *w, *len;

	if (b->cap - b->n < 4 + 2 * PB_VARINT_MAX)
		lt_buf_grow(b, 4 + 2 * PB_VARINT_MAX);
	w = b->p + b->n;
	*w++ = EV_ANNOTATION << 3 | PB_LEN;
	len = w++;
	*w++ = DA_NAME_IID << 3 | PB_VARINT;
	w = pb_putvarint(w, iid);
	*w++ = DA_INT << 3 | PB_VARINT;
	w = pb_putvarint(w, (uint64_t)v);
	*len = (char)(w - len - 1);
	b->n = (size_t)(w - b->p);
}

/*
 * The names of the args of a kind of record, met lately: the records of
 * a kind (named alike) mostly have the same args in the same order.  A
 * shape keeps their iids and whether they have a dot, so that a record
 * like the last one of its kind looks no name up: its keys are compared
 * with the shape's as they are read.  seqs[i]: the sequences on which
 * the iid of key i is defined, each key's own: a record that ends
 * sooner, or in a tail (below), leaves the keys after it in the shape
 * with the sequences they have, and a long job has thousands.
 */
#define SHAPES		16
#define SHAPEKEYS	16
#define SHAPETEXT	240
static struct shape {
	uint64_t	 gen;		/* 0: none */
	uint64_t	 hint;
	struct ptseqs	 seqs[SHAPEKEYS];
	uint32_t	 n;
	uint32_t	 iid[SHAPEKEYS];
	uint8_t		 dot[SHAPEKEYS];
	uint8_t		 beg[SHAPEKEYS];	/* of each key in text, */
	uint8_t		 end[SHAPEKEYS];	/*   with its '":' */
	char		 text[SHAPETEXT];
}			 shapes[SHAPES];

/*
 * The args of the last record of a kind on a sequence, and what they
 * became: the records of a thread mostly end with the same members (a
 * LitData event ends with the five of its rank and world), so that a
 * record whose members from one on are the same text as the tail of
 * the last one's copies what they became, and reads no more.  Their
 * iids are defined on the sequence (of the same generation), where
 * they were written.
 */
#define TAILS		64
#define TAILBYTES	256
static struct tail {
	uint64_t	 gen;		/* 0: none */
	uint64_t	 hint;
	uint32_t	 seq;
	uint32_t	 n;		/* members */
	uint32_t	 len;		/* of text */
	uint32_t	 rem[SHAPEKEYS];	/* text from member i to the end */
	uint32_t	 off[SHAPEKEYS + 1];	/* where member i's bytes start */
	char		 text[SHAPETEXT];
	char		 bytes[TAILBYTES];
}			 tails[TAILS];

static struct tail *
tailof(uint64_t hint, uint32_t seq)
{
	return &tails[lt_mix(hint ^ (uint64_t)seq << 32) & (TAILS - 1)];
}

/*
 * Keep the args p[0..n) of a record, members at rem[0..k) (text left
 * from each), written as b[start..b->n) with member i at off[i].
 */
static void
tailkeep(struct tail *t, uint64_t hint, uint32_t seq, const char *p,
    size_t n, const uint32_t *rem, const size_t *off, uint32_t k,
    const struct ltbuf *b, size_t start)
{
	uint32_t i;

	if (n > SHAPETEXT || b->n - start > TAILBYTES || k > SHAPEKEYS) {
		t->gen = 0;
		return;
	}
	t->gen = pt_intern_gen();
	t->hint = hint;
	t->seq = seq;
	t->n = k;
	t->len = (uint32_t)n;
	for (i = 0; i < k; i++) {
		t->rem[i] = rem[i];
		t->off[i] = (uint32_t)(off[i] - start);
	}
	t->off[k] = (uint32_t)(b->n - start);
	memcpy(t->text, p, n);
	memcpy(t->bytes, b->p + start, b->n - start);
}

/*
 * Is the text q[0..r), the members of a record from one on to its end,
 * that of members j on of tail t?  Then their bytes are added to b and
 * 1 returned.  *j moves past the members with more text left.
 */
static int
tailhit(const struct tail *t, uint32_t *jp, const char *q, size_t r,
    struct ltbuf *b)
{
	uint32_t j = *jp;	/* not *jp in the loop: it may alias rem */
	size_t m;

	while (j < t->n && t->rem[j] > r)
		j++;
	*jp = j;
	if (j == t->n || t->rem[j] != r ||
	    memcmp(q, t->text + t->len - r, r) != 0)
		return 0;
	m = t->off[t->n] - t->off[j];
	lt_buf_add(b, t->bytes + t->off[j], m);
	return 1;
}

/*
 * Is the key of the member at k the key i of shape sh, which is plain,
 * followed by '":'?  Returns where it ends, or NULL.  The shape keeps
 * the '":' with the key: one compare.
 */
static const char *
shapekey(const struct shape *sh, uint32_t i, const char *k, const char *end)
{
	size_t kn = (size_t)(sh->end[i] - sh->beg[i]);

	if ((size_t)(end - k) < kn + 1 || !lt_same(sh->text + sh->beg[i], k,
	    kn))
		return NULL;
	return k + kn - 2;
}

/*
 * The iid of key i of a record, k[0..kn), not that of the shape, and
 * whether it has a dot (its iid is then 0: annotation() looks up the
 * part before the dot): looked up, and put in the shape in place of
 * what it had from there on.
 */
static uint64_t
keymiss(struct shape *sh, uint32_t i, const char *k, size_t kn, int *dot)
{
	size_t at;
	uint64_t iid;

	if (i < sh->n)
		sh->n = i;
	at = i > 0 && i <= sh->n ? sh->end[i - 1] : 0;
	*dot = hasdot(k, kn);
	iid = *dot ? 0 : pt_iid(PT_ANNOS, k, kn);
	if (i == sh->n && i < SHAPEKEYS && kn + 2 <= SHAPETEXT - at) {
		memcpy(sh->text + at, k, kn + 2);	/* and '":' */
		sh->beg[i] = (uint8_t)at;
		sh->end[i] = (uint8_t)(at + kn + 2);
		sh->dot[i] = (uint8_t)*dot;
		sh->iid[i] = (uint32_t)iid;
		pt_seqs_clear(&sh->seqs[i]);
		if (!*dot)
			pt_seqs_add(&sh->seqs[i], pt_seq_cur());
		sh->n++;
	}
	return iid;
}

/*
 * The args p[0..n) as debug annotations of the event being written in
 * b, when they are an object of plain members, as our tools write them:
 * "key":"string" or "key":integer, printable ASCII without escapes, no
 * blanks, which is valid canonical JSON.  They are checked as they are
 * written, in one pass; a key equal to the shape's is plain already.
 * Returns 0, with nothing written, for any other text, which
 * pt_args_json() then takes once checked.  hint tells the kind of
 * record (the iid of its name).
 */
int
pt_args(struct ltbuf *b, const char *p, size_t n, uint64_t hint)
{
	const char *end = p + n, *k, *q, *args = p;
	struct shape *sh = &shapes[hint & (SHAPES - 1)];
	uint32_t i, cur = pt_seq_cur(), j = 0, rem[SHAPEKEYS];
	uint64_t iid, u, gen = pt_intern_gen();
	size_t start = b->n, kn, o, off[SHAPEKEYS];
	struct tail *t = tailof(hint, cur);
	unsigned d;
	int same, dot, tail;

	if (n < 2 || p[0] != '{')
		return 0;
	if (n == 2)
		return p[1] == '}';
	same = sh->gen == gen && sh->hint == hint;
	if (!same) {
		sh->gen = gen;
		sh->hint = hint;
		sh->n = 0;
	}
	tail = t->gen == gen && t->hint == hint && t->seq == cur;
	for (i = 0, p++;; i++, p++) {
		if (*p != '"')
			break;
		if (tail && i > 0 && tailhit(t, &j, p, (size_t)(end - p), b)) {
			/*
			 * The shape keeps its keys past i, whatever the
			 * tail's: each knows its own sequences.
			 */
			return 1;
		}
		if (i < SHAPEKEYS) {
			rem[i] = (uint32_t)(end - p);
			off[i] = b->n;
		}
		k = p + 1;
		if (same && i < sh->n && (q = shapekey(sh, i, k, end)) != NULL) {
			kn = (size_t)(q - k);
			dot = sh->dot[i];
			iid = sh->iid[i];
			if (!dot && !pt_seqs_has(&sh->seqs[i], cur)) {
				pt_iid(PT_ANNOS, k, kn);
				pt_seqs_add(&sh->seqs[i], cur);
			}
		} else {
			q = lt_scan_plain(k, end);
			if (end - q < 3 || q[0] != '"' || q[1] != ':')
				break;
			kn = (size_t)(q - k);
			same = 0;
			iid = keymiss(sh, i, k, kn, &dot);
		}
		p = q += 2;
		u = 0;
		if (*q == '"') {
			q = lt_scan_plain(q + 1, end);
			if (q == end || *q++ != '"')
				break;
		} else {
			if (*q == '-')
				q++;
			if (q == end || (d = (unsigned)*q - '0') > 9)
				break;
			q++;
			if ((u = d) != 0)
				while (q < end && (d = (unsigned)*q - '0') <= 9) {
					u = u * 10 + d;
					q++;
				}
		}
		if (q == end || (*q != ',' && *q != '}'))
			break;
		if (dot)
			annotation(b, EV_ANNOTATION, k, kn, &p, q, 1);
		else if (*p != '"' && q - p < 19)	/* no overflow */
			intanno(b, iid, *p == '-' ? -(int64_t)u : (int64_t)u);
		else {
			o = pb_open(b, EV_ANNOTATION);
			pb_uint(b, DA_NAME_IID, iid);
			if (*p == '"')
				string(b, p + 1, (size_t)(q - p - 2));
			else
				number(b, p, (size_t)(q - p));
			pb_close(b, o);
		}
		p = q;
		if (*p == '}') {
			if (p + 1 != end)
				break;
			tailkeep(t, hint, cur, args, n, rem, off, i + 1, b,
			    start);
			return 1;
		}
		if (p + 1 == end)
			break;
	}
	sh->gen = 0;
	b->n = start;
	return 0;
}

/* Any args, valid canonical JSON (checked), as annotations. */
void
pt_args_json(struct ltbuf *b, const struct ltfield *args)
{
	const char *p = args->p;

	if (args->n > 2)
		items(b, &p, args->p + args->n, 0, 1);
}

void
pt_args_free(void)
{
	int i, k;

	lt_buf_free(&name);
	lt_buf_free(&text);
	lt_buf_free(&num);
	for (i = 0; i < SHAPES; i++)
		for (k = 0; k < SHAPEKEYS; k++)
			pt_seqs_free(&shapes[i].seqs[k]);
	memset(seen, 0, sizeof(seen));
	memset(shapes, 0, sizeof(shapes));
	memset(tails, 0, sizeof(tails));
}
