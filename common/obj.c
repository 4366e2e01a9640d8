/* See LICENSE file for copyright and license details. */
/*
 * obj.c: the members of a JSON object, one by one, checked.
 *
 * The args and extra columns of lt1 are JSON objects.  Tools that look
 * into them (ltpair merges args, ltfilter reads the rank) walk their
 * members with this iterator, which validates as it goes, so a column is
 * scanned once and a malformed one is an error rather than a silent end.
 * Keys are returned with their quotes, values as written.
 *
 * lt_obj_split() and lt_obj_plain() are the quick answer for the
 * objects our own tools write, members whose keys and values are plain
 * strings or integers: split (or checked) in one pass, with no call to
 * the strict scanner.
 */
#include "core.h"
#include "scan.h"

static void
skipblank(struct ltobj *it)
{
	while (it->p < it->end && (*it->p == ' ' || *it->p == '\t' ||
	    *it->p == '\n' || *it->p == '\r'))
		it->p++;
}

/*
 * The length of a plain token at p: a string of printable ASCII without
 * escapes, or an integer.  0 for anything else, which the strict scanner
 * then reads: this only saves time on what args mostly hold.
 */
static size_t
plain(const char *p, const char *end)
{
	const char *q = p;

	if (q < end && *q == '"') {
		q = lt_scan_plain(q + 1, end);
		return q < end && *q == '"' ? (size_t)(q + 1 - p) : 0;
	}
	if (q < end && *q == '-')
		q++;
	if (q == end || *q < '0' || *q > '9' || (*q == '0' && q + 1 < end &&
	    q[1] >= '0' && q[1] <= '9'))
		return 0;
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q == end || *q == '.' || *q == 'e' || *q == 'E')
		return 0;
	return (size_t)(q - p);
}

/* One value (or key) at it->p into f: plain, or checked by json.c. */
static int
token(struct ltobj *it, struct ltfield *f)
{
	struct ltjson j;
	size_t n;

	if ((n = plain(it->p, it->end)) == 0) {
		if (lt_json_first(it->p, (size_t)(it->end - it->p), NULL, &j) !=
		    LT_JSON_OK) {
			it->err = j.err;
			return -1;
		}
		n = j.end;
	}
	f->p = (char *)it->p;
	f->n = n;
	it->p += n;
	return 0;
}

static int
fail(struct ltobj *it, const char *why)
{
	it->err = why;
	it->p = it->end;
	it->state = -1;
	return -1;
}

/* Start on the text p[0..n), which must be one object. */
void
lt_obj_init(struct ltobj *it, const char *p, size_t n)
{
	it->p = p;
	it->end = p + n;
	it->err = NULL;
	it->state = 0;
}

/*
 * The next member: returns 1 with key (quoted) and val set, 0 after the
 * last one, -1 with it->err set when the text is not one JSON object.
 */
int
lt_obj_next(struct ltobj *it, struct ltfield *key, struct ltfield *val)
{
	if (it->state < 0)
		return -1;
	if (it->state == 2)
		return 0;
	skipblank(it);
	if (it->p == it->end)
		return fail(it, it->state == 0 ? "not a JSON object" :
		    "unterminated object");
	if (it->state == 0) {
		if (*it->p != '{')
			return fail(it, "not a JSON object");
		it->p++;
		skipblank(it);
		if (it->p < it->end && *it->p == '}')
			goto last;
	} else if (*it->p == ',')
		it->p++;
	else if (*it->p == '}')
		goto last;
	else
		return fail(it, "expected ',' or '}'");
	it->state = 1;
	skipblank(it);
	if (it->p == it->end || *it->p != '"')
		return fail(it, "expected a string key");
	if (token(it, key) < 0)
		return fail(it, it->err);
	skipblank(it);
	if (it->p == it->end || *it->p != ':')
		return fail(it, "expected ':' after key");
	it->p++;
	skipblank(it);
	if (token(it, val) < 0)
		return fail(it, it->err);
	return 1;
last:
	it->p++;
	skipblank(it);
	if (it->p != it->end)
		return fail(it, "text after the object");
	it->state = 2;
	return 0;
}

/*
 * Is p[0..n) an object of plain members, "key":"string" or "key":integer
 * with printable ASCII strings without escapes, and no blanks?  Such
 * text is valid canonical JSON: lt_json_whole() would accept it
 * unchanged.  Returns the number of members, their keys (with quotes)
 * and values in k[] and v[] when k is not NULL, or -1 when the text is
 * not such an object or has more than max members: it may still be
 * valid JSON (lt_obj_next tells).
 */
long
lt_obj_split(const char *p, size_t n, struct ltfield *k, struct ltfield *v,
    size_t max)
{
	const char *end = p + n, *q;
	size_t i;

	if (n < 2 || p[0] != '{')
		return -1;
	if (n == 2)
		return p[1] == '}' ? 0 : -1;
	for (i = 0, p++; i < max; i++, p++) {
		if (*p != '"')
			return -1;
		q = lt_scan_plain(p + 1, end);
		if (end - q < 3 || q[0] != '"' || q[1] != ':')
			return -1;
		if (k != NULL) {
			k[i].p = (char *)p;
			k[i].n = (size_t)(q + 1 - p);
		}
		p = q += 2;
		if (*q == '"') {
			q = lt_scan_plain(q + 1, end);
			if (q == end || *q++ != '"')
				return -1;
		} else {
			if (*q == '-')
				q++;
			if (q == end || (unsigned)*q - '0' > 9)
				return -1;
			if (*q++ != '0')
				while (q < end && (unsigned)*q - '0' <= 9)
					q++;
		}
		if (k != NULL) {
			v[i].p = (char *)p;
			v[i].n = (size_t)(q - p);
		}
		if ((p = q) == end)
			return -1;
		if (*p == '}')
			return p + 1 == end ? (long)i + 1 : -1;
		if (*p != ',' || p + 1 == end)
			return -1;
	}
	return -1;
}

/* Is p[0..n) an object of plain members (see lt_obj_split)? */
int
lt_obj_plain(const char *p, size_t n)
{
	return lt_obj_split(p, n, NULL, NULL, SIZE_MAX) >= 0;
}

/* The bits of a 16-bit mask xor-ed from bit 0 up: set inside quotes. */
static unsigned
prefixxor(unsigned m)
{
	m ^= m << 1;
	m ^= m << 2;
	m ^= m << 4;
	m ^= m << 8;
	return m & 0xffff;
}

/*
 * Are p[0..n) printable ASCII with no bracket, no '\' and an even number
 * of '"'?  The inside of an object of one level whose strings close.
 */
static int
flat(const char *p, size_t n)
{
	unsigned par = 0, bad = 0, br;
	char pad[16];
	size_t i;

	if (n < 16) {		/* one block, blanks after */
		memset(pad, ' ', sizeof(pad));
		memcpy(pad, p, n);
		p = pad;
		n = 16;
	}
	for (i = 0; i + 16 <= n; i += 16) {
		par ^= lt_scan16json(p + i, &br, &bad);
		bad |= br;
	}
	if (i < n) {		/* the last 16, less those looked at */
		par ^= lt_scan16json(p + n - 16, &br, &bad) >> (i - (n - 16));
		bad |= br;
	}
	par ^= par >> 8;	/* the parity of the quotes */
	par ^= par >> 4;
	par ^= par >> 2;
	par ^= par >> 1;
	return bad == 0 && (par & 1) == 0;
}

/*
 * The quick look at an args column of a stream under #valid, which its
 * tools do not check in full: is p[0..n) one object whose
 * strings close, whose brackets nest (at most LT_JSON_DEPTH deep) and
 * close it last, of printable ASCII without escapes?  What a reader of
 * the trace needs to find where a value ends, and Perfetto's importer
 * where an event ends, looked at sixteen bytes at a time.  0 when it is
 * not so: the column is then checked in full (and canonicalised if need
 * be, or refused).
 */
int
lt_obj_sound(const char *p, size_t n)
{
	unsigned q, br, bs = 0, in = 0, s, bit;
	const char *b;
	char pad[16];
	size_t i;
	int depth = 0;

	if (n < 2 || p[0] != '{' || p[n - 1] != '}')
		return 0;
	if (flat(p + 1, n - 2))
		return 1;	/* one level, its strings close: most args */
	for (i = 0; i < n; i += 16) {
		b = p + i;
		if (n - i < 16) {
			memset(pad, ' ', sizeof(pad));
			memcpy(pad, b, n - i);
			b = pad;
		}
		q = lt_scan16json(b, &br, &bs);
		/* inside a string: an opening quote and what follows it */
		s = prefixxor(q) ^ (0U - in);
		in = s >> 15 & 1;
		for (br &= ~s; br != 0; br &= br - 1) {
			bit = lt_scan_first(br);
			if ((b[bit] | 0x20) == '{') {
				if (++depth > LT_JSON_DEPTH)
					return 0;
			} else if (--depth <= 0 && i + bit != n - 1)
				return 0;
		}
	}
	return depth == 0 && !in && bs == 0;
}
