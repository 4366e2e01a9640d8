/* See LICENSE file for copyright and license details. */
/*
 * logline.c: one line of a LitData enable_tracer() log, tokenised.
 *
 * A record is a prefix, "ts:T;PID:P; TID:T; " (v1 adds logger_name and
 * level before PID), then "key: value;" pairs (ltparse(1), section
 * Logs).  Tokens are split on ';', each at its first ':', keys and values
 * trimmed; nothing is copied, the line is only pointed into.  Every line
 * is classified, as an event or as one kind of skipped line, so that
 * each line of a log is accounted for.  A damaged record is never
 * turned into an event: an event that does not end in ';', or that
 * repeats a key of the prefix (two records glued together), is torn.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"
#include "scan.h"

#define ISBLANK(c)	((unsigned char)(c) <= ' ' && \
			    ((c) == ' ' || (c) == '\t'))
#define KEYIS(k, n, s)	((n) == sizeof(s) - 1 && memcmp(k, s, n) == 0)
#define HASPFX(p, n, s)	((n) >= sizeof(s) - 1 && \
			    memcmp(p, s, sizeof(s) - 1) == 0)

/*
 * Blanks cut from both ends of p[0..e).  Most tokens have none at
 * either end (body() steps over the one space after a key's ':' first):
 * two compares say so, before the loops.
 */
#define TRIM(p, e)	do {						\
		if ((p) < (e) && (unsigned char)*(p) > ' ' &&		\
		    (unsigned char)(e)[-1] > ' ')			\
			break;						\
		while ((p) < (e) && ISBLANK(*(p)))			\
			(p)++;						\
		while ((e) > (p) && ISBLANK((e)[-1]))			\
			(e)--;						\
	} while (0)

int	ps_logquick = 1;

/*
 * A cursor over the ';' and ':' of a record, sixteen bytes at a time:
 * the bytes from w on, those of them not handed out yet in the mask m.
 * On the way it notes in esc whether a byte needs escaping in JSON.
 * When open, the end of the line is not known yet: end is the end of
 * the bytes there are, and the first '\n' becomes the end.
 */
struct cut {
	const char	*w;
	const char	*end;
	unsigned	 m;
	unsigned	 esc;
	int		 open;
};

static inline void
cutload(struct cut *c)
{
	unsigned e, nl, before;
	const char *t;

	if (c->end - c->w >= 16) {
		c->m = lt_scan16both(c->w, ';', ':', &e);
		/* A '\n' is below 0x20: looked for only then. */
		if (e != 0 && c->open && (nl = lt_scan16(c->w, '\n',
		    '\n')) != 0) {
			before = (1U << lt_scan_first(nl)) - 1;
			c->m &= before;
			e &= before;
			c->end = c->w + lt_scan_first(nl);
			c->open = 0;
		}
		c->esc |= e;
		return;
	}
	for (c->m = 0, t = c->w; t < c->end; t++) {
		if (*t == '\n' && c->open) {
			c->end = t;
			c->open = 0;
			break;
		}
		if (*t == ';' || *t == ':')
			c->m |= 1U << (t - c->w);
		if ((unsigned char)*t < 0x20 || (unsigned char)*t >= 0x7f ||
		    *t == '"' || *t == '\\')
			c->esc = 1;
	}
}

/* The next ';', or ':' too when colon is set; end after the last. */
static inline const char *
cutnext(struct cut *c, int colon)
{
	const char *d;

	for (;;) {
		if (c->m != 0) {
			d = c->w + lt_scan_first(c->m);
			c->m &= c->m - 1;
			if (colon || *d == ';')
				return d;
			continue;
		}
		if (c->end - c->w <= 16)
			return c->end;
		c->w += 16;
		cutload(c);
	}
}

static int
torn(struct pslog *lg, const char *why)
{
	lg->why = why;
	return lg->kind = PS_SKIP_TORN;
}

static void
morekv(struct pslog *lg)
{
	lg->kvcap = lg->kvcap != 0 ? lg->kvcap * 2 : 16;
	lg->kv = lt_reallocarray(lg->kv, lg->kvcap, sizeof(*lg->kv));
}

static inline void
addkv(struct pslog *lg, const char *k, size_t kn, const char *v, size_t vn)
{
	if (lg->nkv == lg->kvcap)
		morekv(lg);
	lg->kv[lg->nkv].k = k;
	lg->kv[lg->nkv].kn = kn;
	lg->kv[lg->nkv].v = v;
	lg->kv[lg->nkv].vn = vn;
	lg->nkv++;
}

/*
 * Timestamps: Unix seconds before 0.2.68, microseconds since (spec 4:
 * a value below 1e11 is seconds), scaled to ns exactly.  The usual
 * D+.D+ is read here; anything else (an exponent, 19 digits) goes to
 * lt_dec_parse().  A microsecond time written as lt1 would write it
 * (at most 3 decimals, no leading zero) is kept as text in tsus.
 */
static int
parsets(const char *v, size_t n, struct pslog *lg)
{
	const char *p = v, *end = v + n, *f;
	uint64_t ip = 0, fr = 0, a, b;
	int k, scale, round = 0;

	/* D{16}.DDD, what LitData writes today, at once. */
	if (ps_logquick && n == 20 && v[16] == '.' && *v != '0' &&
	    lt_eight(a = lt_load8(v)) && lt_eight(b = lt_load8(v + 8)) &&
	    (unsigned)v[17] - '0' <= 9 && (unsigned)v[18] - '0' <= 9 &&
	    (unsigned)v[19] - '0' <= 9 &&
	    (ip = lt_value8(a) * 100000000 + lt_value8(b)) <=
	    9000000000000000ULL) {
		lg->ts = (int64_t)(ip * 1000 + (uint64_t)(v[17] - '0') * 100 +
		    (uint64_t)(v[18] - '0') * 10 + (uint64_t)(v[19] - '0'));
		lg->tsus.p = (char *)v;
		lg->tsus.n = v[19] != '0' ? 20 : v[18] != '0' ? 19 :
		    v[17] != '0' ? 18 : 16;
		return 0;
	}
	lg->tsus.p = NULL;
	/* The 16 digits of a microsecond time, as two words. */
	if (end - v >= 16 && lt_eight(a = lt_load8(v)) &&
	    lt_eight(b = lt_load8(v + 8))) {
		ip = lt_value8(a) * 100000000 + lt_value8(b);
		p = v + 16;
	}
	while (p < end && (unsigned)*p - '0' <= 9 && p - v < 16)
		ip = ip * 10 + (uint64_t)(*p++ - '0');
	if (p == v || (p < end && *p != '.') || (p < end && p + 1 == end))
		goto slow;
	f = p < end ? p + 1 : end;
	scale = ip < 100000000000ULL ? 9 : 3;
	if (ip > (scale == 9 ? 9000000000ULL : 9000000000000000ULL))
		goto slow;		/* beyond int64 nanoseconds */
	for (k = 0, p = f; p < end; p++, k++) {
		if ((unsigned)*p - '0' > 9)
			goto slow;
		if (k < scale)
			fr = fr * 10 + (uint64_t)(*p - '0');
		else if (k == scale)
			round = *p >= '5';
	}
	for (; k < scale; k++)
		fr *= 10;
	lg->ts = (int64_t)(ip * (scale == 9 ? 1000000000 : 1000) + fr) +
	    round;
	if (scale == 9)
		lg->gen = PS_GEN_OLD;
	else if (*v != '0' && end - f <= 3) {
		lg->tsus.p = (char *)v;
		lg->tsus.n = n;
		/* lt1 writes the shortest form: 12.500 is 12.5 */
		while (lg->tsus.n > (size_t)(f - v) &&
		    v[lg->tsus.n - 1] == '0')
			lg->tsus.n--;
		if (v[lg->tsus.n - 1] == '.')
			lg->tsus.n--;
	}
	return 0;

slow:
	if (lt_dec_parse(v, n, 3, &lg->ts) != LT_NUM_OK || lg->ts < 0)
		return -1;
	if (lg->ts < (int64_t)100000000000 * 1000) {
		lg->gen = PS_GEN_OLD;
		if (lt_dec_parse(v, n, 9, &lg->ts) != LT_NUM_OK)
			return -1;
	}
	return 0;
}

/* Is s[0..n) inside p[0..pn)? */
static int
contains(const char *p, size_t pn, const char *s, size_t n)
{
	const char *q, *end = p + pn;

	while (pn >= n && (q = memchr(p, s[0], pn - n + 1)) != NULL) {
		if (memcmp(q, s, n) == 0)
			return 1;
		p = q + 1;
		pn = (size_t)(end - p);
	}
	return 0;
}

/*
 * A line that is not a record: a line of a Python traceback, a piece of
 * a record (its start was lost, or it was written after other bytes),
 * or other output that reached the file.
 */
static int
notrecord(const char *line, const char *p, const char *end,
    struct pslog *lg)
{
	size_t n = (size_t)(end - p);
	const char *semi;

	/* Python indents the frames and the source lines of a traceback. */
	if (p > line || HASPFX(p, n, "Traceback (most recent call last):") ||
	    HASPFX(p, n, "During handling of the above exception") ||
	    HASPFX(p, n, "The above exception was the direct cause"))
		return lg->kind = PS_SKIP_TRACEBACK;
	if (contains(p, n, "PID:", 4) && contains(p, n, "TID:", 4))
		return torn(lg, "record not at the start of the line");
	/* "...worker_rank: 2;": the tail of a record whose start is lost. */
	if (end[-1] == ';') {
		for (semi = end - 1; semi > p && semi[-1] != ';'; semi--)
			;
		if (contains(semi, (size_t)(end - semi), ": ", 2))
			return torn(lg, "the end of a record");
	}
	return lg->kind = PS_SKIP_NOISE;
}

/*
 * The first line of an exception logged by commit 25bf3ca8, "[litdata]
 * PrepareChunksThread CRASHED (rank=R, worker=W): Exc: message", is a
 * crash, written as the instant that later releases write.
 */
static int
crashtext(struct pslog *lg)
{
	static const char head[] = "[litdata] PrepareChunksThread CRASHED";

	if (lg->gen == PS_GEN_V1 || lg->nkv != 1 || lg->ph.p != NULL ||
	    lg->name.p != NULL ||
	    !HASPFX(lg->kv[0].k, lg->kv[0].kn, head))
		return 0;
	lg->name.p = (char *)"crash";
	lg->name.n = 5;
	lg->ph.p = (char *)"I";
	lg->ph.n = 1;
	lg->crash = 1;
	return 1;
}

/*
 * A PID or TID, at most max.  The lines of a process come from a few
 * threads, in runs that interleave (a worker's main thread and its
 * prefetch thread): the last texts read and their values are kept, so
 * as not to read the same digits again.  Four keep nearly all of them.
 */
static int
idval(struct psidc *c, const char *v, size_t n, uint64_t max, uint64_t *id)
{
	unsigned e = c->hit;

	/* An empty entry has n 0, and so has no id. */
	if (n != 0 && n == c->e[e].n && lt_same(v, c->e[e].text, n)) {
		*id = c->e[e].id;
		return 0;
	}
	for (e = 0; n != 0 && e < PS_IDCACHE; e++)
		if (n == c->e[e].n && lt_same(v, c->e[e].text, n)) {
			c->hit = e;
			*id = c->e[e].id;
			return 0;
		}
	if (lt_uint_parse(v, n, id) != LT_NUM_OK || *id > max)
		return -1;
	if (n <= sizeof(c->e[0].text)) {
		e = c->next;
		c->next = (e + 1) % PS_IDCACHE;
		lt_put(c->e[e].text, v, n);
		c->e[e].n = (unsigned char)n;
		c->e[e].id = *id;
		c->hit = e;
	}
	return 0;
}

/*
 * The prefix of a record, "ts:T;PID:P; TID:T;" ("ts:T; logger_name:L;
 * level:V; PID:P; TID:T;" in v1), whose tokens c hands out from tok.
 * Returns where the tokens after it start, or NULL with lg torn.
 */
static const char *
prefix(struct cut *c, const char *tok, struct pslog *lg)
{
	const char *q, *k, *ke, *v, *ve;
	int have_ts = 0, have_pid = 0;
	size_t n;

	for (; tok < c->end; tok = q + 1) {
		q = cutnext(c, 1);
		k = tok;
		ke = q;
		TRIM(k, ke);
		if (q == c->end || *q == ';') {
			if (k == ke)
				continue;	/* ";;" */
			torn(lg, "bad record prefix");
			return NULL;
		}
		v = q + 1;
		ve = q = cutnext(c, 0);
		TRIM(v, ve);
		n = (size_t)(ke - k);
		if (KEYIS(k, n, "ts")) {
			if (have_ts++ || parsets(v, (size_t)(ve - v), lg) < 0)
				break;
		} else if (!have_ts) {
			break;
		} else if (KEYIS(k, n, "PID")) {
			if (have_pid++ || idval(&lg->pidc, v, (size_t)(ve - v),
			    UINT32_MAX, &lg->pid) < 0) {
				torn(lg, "bad PID");
				return NULL;
			}
		} else if (KEYIS(k, n, "TID")) {
			if (!have_pid || idval(&lg->tidc, v, (size_t)(ve - v),
			    UINT64_MAX, &lg->tid) < 0) {
				torn(lg, "bad TID");
				return NULL;
			}
			return q + 1;
		} else if (!have_pid && (KEYIS(k, n, "logger_name") ||
		    KEYIS(k, n, "level"))) {
			/* v1 puts logger_name and level before PID. */
			lg->gen = PS_GEN_V1;
			addkv(lg, k, n, v, (size_t)(ve - v));
		} else {
			torn(lg, "bad record prefix");
			return NULL;
		}
	}
	torn(lg, tok < c->end ? "bad ts" : "record prefix cut short");
	return NULL;
}

/*
 * The heads of records (struct pshead) are kept in a slot chosen by the
 * 32 bytes after the ts: "PID:P; TID:T;" and what follows, which tell
 * the threads of a process apart (their TIDs differ in the middle
 * digits).  The slot only says where to look: a hit is decided by
 * comparing the whole head.
 */
#define HEADWIN		32

static struct pshead *
headof(struct pslog *lg, const char *h)
{
	uint64_t x;

	x = lt_load8(h) * 0x9e3779b97f4a7c15ULL ^
	    lt_load8(h + 8) * 0xc2b2ae3d27d4eb4fULL ^
	    lt_load8(h + 16) * 0x165667b19e3779f9ULL ^ lt_load8(h + 24);
	return &lg->heads[(x * 0x9e3779b97f4a7c15ULL) >> 58];
}

/*
 * Is c a ph that is cut as the bytes of a head: a one-byte value, which
 * needs no escaping (a head is printable ASCII) and is no separator?
 */
static inline int
phbyte(char c)
{
	return (unsigned char)c > ' ' && (unsigned char)c < 0x7f &&
	    c != ';' && c != ':' && c != '"' && c != '\\';
}

/* The columns a head holds, by their PS_H index. */
static void
headcols(struct pslog *lg, struct ltfield *col[PS_NHCOL])
{
	col[PS_HNAME] = &lg->name;
	col[PS_HPH] = &lg->ph;
	col[PS_HCAT] = &lg->cat;
	col[PS_HCNAME] = &lg->cname;
}

/*
 * When the bytes from h on, the ts of a record read up to its ';', are
 * the head of its thread's last record but for the ph: the pid, the tid
 * and the columns it gave, the cursor moved to its end.  Cutting bytes
 * from the PID on does not depend on the ts, and a ph of phbyte() is cut
 * as any other: this is what cutting them gives.  Returns where the
 * tokens after the head start, or NULL (the cursor untouched).
 */
static const char *
headhit(struct cut *c, const char *h, struct pslog *lg)
{
	struct ltfield *col[PS_NHCOL];
	struct pshead *e;
	int i;

	if (c->end - h < HEADWIN)
		return NULL;
	e = headof(lg, h);
	if (e->n == 0 || c->end - h < e->n)
		return NULL;
	/* B and E alternate: the ph is taken from the line, not compared. */
	if (e->off[PS_HPH] != 0) {
		if (!phbyte(h[e->off[PS_HPH]]))
			return NULL;
		e->raw[e->off[PS_HPH]] = h[e->off[PS_HPH]];
	}
	if (memcmp(h, e->raw, e->n) != 0)
		return NULL;
	lg->pid = e->pid;
	lg->tid = e->tid;
	headcols(lg, col);
	for (i = 0; i < PS_NHCOL; i++)
		if (e->off[i] != 0) {
			col[i]->p = (char *)h + e->off[i];
			col[i]->n = e->len[i];
		}
	/* The head is printable ASCII: no '\n', nothing to escape in it. */
	c->w = h + e->n;
	cutload(c);
	return c->w;
}

/*
 * Keep the head of a record, h[0..n): the bytes after its ts (which
 * quickprefix() read) to the end of the columns that follow the TID.
 * c has loaded every byte of it: no escape seen, it is printable ASCII.
 */
static void
headkeep(struct cut *c, const char *h, size_t n, struct pslog *lg)
{
	struct ltfield *col[PS_NHCOL];
	struct pshead *e;
	int i;

	/* A ph of the head is taken from each line: one that cuts so. */
	if (n > PS_HEADRAW || c->esc != 0 || c->end - h < HEADWIN ||
	    (lg->ph.p != NULL && lg->ph.p >= h && lg->ph.p < h + n &&
	    (lg->ph.n != 1 || !phbyte(lg->ph.p[0]))))
		return;
	headcols(lg, col);
	e = headof(lg, h);
	e->n = (uint8_t)n;
	memcpy(e->raw, h, n);
	e->pid = lg->pid;
	e->tid = lg->tid;
	for (i = 0; i < PS_NHCOL; i++) {
		/* A column after the head was cut after it: not its own. */
		if (col[i]->p != NULL && col[i]->p >= h && col[i]->p < h + n) {
			e->off[i] = (uint8_t)(col[i]->p - h);
			e->len[i] = (uint8_t)col[i]->n;
		} else
			e->off[i] = e->len[i] = 0;
	}
}

/*
 * The prefix as LitData writes it, "ts:T;PID:P; TID:T;", read by its
 * ';' and ':' alone: no blank to trim, no key to tell from another.
 * Returns where the tokens after it start, the cursor where prefix()
 * leaves it; NULL for any other prefix, the cursor untouched, for
 * prefix() to read.  *head is where the bytes after the ts start, for
 * body() to keep as the thread's head; NULL when they were its head
 * already (the tokens after it start after the columns it gave).
 */
static const char *
quickprefix(struct cut *c, const char *p, struct pslog *lg,
    const char **head)
{
	struct cut s = *c;
	const char *ts, *pid, *tid, *q, *h;

	*head = NULL;
	if (!ps_logquick || cutnext(&s, 1) != p + 2 ||
	    (q = cutnext(&s, 1)) == s.end || *q != ';')
		return NULL;
	ts = p + 3;
	if (parsets(ts, (size_t)(q - ts), lg) < 0)
		return NULL;
	if ((tid = headhit(&s, q + 1, lg)) != NULL) {
		*c = s;
		return tid;
	}
	if (cutnext(&s, 1) != q + 4 || memcmp(q + 1, "PID:", 4) != 0)
		return NULL;
	h = q + 1;
	pid = q + 5;
	if ((q = cutnext(&s, 1)) == s.end || *q != ';' ||
	    idval(&lg->pidc, pid, (size_t)(q - pid), UINT32_MAX,
	    &lg->pid) < 0 || cutnext(&s, 1) != q + 5 ||
	    memcmp(q + 1, " TID:", 5) != 0)
		return NULL;
	tid = q + 6;
	if ((q = cutnext(&s, 1)) == s.end || *q != ';' ||
	    idval(&lg->tidc, tid, (size_t)(q - tid), UINT64_MAX,
	    &lg->tid) < 0)
		return NULL;
	*c = s;
	*head = h;
	return q + 1;
}

/* The column keys: ph, cat, name and cname go to their fields. */
static inline struct ltfield *
column(struct pslog *lg, const char *k, size_t n)
{
	switch (n) {
	case 2:
		return k[0] == 'p' && k[1] == 'h' ? &lg->ph : NULL;
	case 3:
		return KEYIS(k, n, "cat") ? &lg->cat : NULL;
	case 4:
		return KEYIS(k, n, "name") ? &lg->name : NULL;
	case 5:
		return KEYIS(k, n, "cname") ? &lg->cname : NULL;
	default:
		return NULL;
	}
}

/*
 * The env keys that end a record (struct pstail) start at a token whose
 * key starts so.  The last of a process are in the slot of its pid; a
 * record takes them only if it ends in the same bytes, whichever
 * process they came from.  The processes of a job are made one after
 * the other: their pids are near, and the low bits of each its own
 * (two processes in one slot would take turns, each missing).
 */
#define TAILKEY		"dist_wor"

static struct pstail *
tailof(struct pslog *lg)
{
	return &lg->tails[lg->pid % PS_NTAIL];
}

/*
 * When the record ends, from tok, in the bytes its process's last one
 * ended in: those become its kv as they did then, and its end is
 * there.  Cutting bytes from a token on does not depend on what came
 * before (the first is a key), so this is what cutting them gives.
 */
static int
tailhit(struct cut *c, const char *tok, struct pslog *lg)
{
	struct pstail *t = tailof(lg);
	const char *end = tok + t->n;
	unsigned i;

	if (t->n == 0 || c->end - tok < t->n)
		return 0;
	if (c->open ? end == c->end || *end != '\n' : end != c->end)
		return 0;
	if (memcmp(tok, t->raw, t->n) != 0)
		return 0;
	lg->tail = t;
	lg->kvtail = lg->nkv;
	for (i = 0; i < t->nkv; i++)
		addkv(lg, tok + t->kv[i].k, t->kv[i].kn, tok + t->kv[i].v,
		    t->kv[i].vn);
	c->end = end;
	c->open = 0;
	c->m = 0;
	return 1;
}

/*
 * Keep the env keys of a record, the tokens from tok to end, which are
 * kv[from..nkv): printable ASCII, each a key and its value.
 */
static void
tailkeep(struct pslog *lg, const char *tok, const char *end, size_t from)
{
	struct pstail *t = tailof(lg);
	size_t n = (size_t)(end - tok), i;
	const struct pskv *kv;

	if (n > PS_TAILRAW || lg->nkv - from > PS_TAILKV || end[-1] != ';')
		return;
	t->n = (uint16_t)n;
	t->outn = 0;
	t->nkv = (uint8_t)(lg->nkv - from);
	memcpy(t->raw, tok, n);
	for (i = from; i < lg->nkv; i++) {
		kv = &lg->kv[i];
		t->kv[i - from].k = (uint8_t)(kv->k - tok);
		t->kv[i - from].kn = (uint8_t)kv->kn;
		t->kv[i - from].v = (uint8_t)(kv->v - tok);
		t->kv[i - from].vn = (uint8_t)kv->vn;
	}
	lg->tail = t;
	lg->kvtail = from;
}

/*
 * The tokens of a record after its prefix, from tok: "key: value;" to
 * the columns or to kv.  Returns 0, 1 when there was text without a
 * key, or -1 with lg torn.
 */
static int
body(struct cut *c, const char *tok, struct pslog *lg, const char *head)
{
	static const char *const twice[] = {
		NULL, NULL, "two ph keys", "two cat keys", "two name keys",
		"two cname keys"
	};
	const char *q, *k, *ke, *v, *ve, *tailtok = NULL, *hend = tok;
	struct pskv *last = NULL;
	struct ltfield *f;
	int bare = 0, clean = 1;
	size_t n, tailkv = 0;

	for (; tok < c->end; tok = q + 1) {
		if (*tok == 'd' && tailtok == NULL && c->end - tok >= 8 &&
		    memcmp(tok, TAILKEY, 8) == 0) {
			if (tailhit(c, tok, lg)) {
				if (head != NULL)
					headkeep(c, head,
					    (size_t)(hend - head), lg);
				return bare;
			}
			tailtok = tok;
			tailkv = lg->nkv;
		}
		q = cutnext(c, 1);
		k = tok;
		ke = q;
		TRIM(k, ke);
		if (q == c->end || *q == ';') {
			if (k == ke)
				continue;	/* ";;" or the final ';' */
			if (tailtok != NULL)
				clean = 0;
			if (last == NULL) {
				bare = 1;	/* message text */
				continue;
			}
			/* Before 0.2.68 a ';' in a value was not replaced. */
			ve = q;
			v = last->v;
			TRIM(v, ve);
			last->vn = (size_t)(ve - v);
			continue;
		}
		v = q + 1;
		ve = q = cutnext(c, 0);
		if (v < ve && *v == ' ')
			v++;		/* "key: value", as LitData writes */
		TRIM(v, ve);
		n = (size_t)(ke - k);
		last = NULL;
		if ((f = column(lg, k, n)) != NULL) {
			if (f->p != NULL) {
				torn(lg, twice[n]);
				return -1;
			}
			f->p = (char *)v;
			f->n = (size_t)(ve - v);
			if (tailtok != NULL)
				clean = 0;
			/* The head goes on while columns follow the TID. */
			if (tok == hend && q != c->end)
				hend = q + 1;
			continue;
		}
		if (n <= 3 && (KEYIS(k, n, "ts") || KEYIS(k, n, "PID") ||
		    KEYIS(k, n, "TID"))) {
			torn(lg, "two records on one line");
			return -1;
		}
		addkv(lg, k, n, v, (size_t)(ve - v));
		last = &lg->kv[lg->nkv - 1];
	}
	/* Env keys of key: value tokens alone, on a whole line to keep. */
	if (tailtok != NULL && clean && !c->open && c->esc == 0)
		tailkeep(lg, tailtok, c->end, tailkv);
	if (head != NULL)
		headkeep(c, head, (size_t)(hend - head), lg);
	return bare;
}

/* What a whole record is, once its tokens are read. */
static int
verdict(struct pslog *lg, const char *end, int bare)
{
	if (lg->ph.p == NULL) {
		if (!crashtext(lg))
			return lg->kind = PS_SKIP_TEXT;
		return lg->kind = PS_LOG_EVENT;
	}
	if (lg->ph.n != 1 || (unsigned char)lg->ph.p[0] <= ' ' ||
	    (unsigned char)lg->ph.p[0] >= 0x7f || lg->ph.p[0] == '"' ||
	    lg->ph.p[0] == '\\')
		return torn(lg, "bad ph");
	if (lg->name.p == NULL || lg->name.n == 0)
		return torn(lg, "event without a name");
	if (bare)
		return torn(lg, "text without a key in an event");
	/* Every event record ends in ';': one that does not was cut. */
	if (end[-1] != ';')
		return torn(lg, "event cut short");
	/*
	 * LitData writes B, E and I (i is the same instant): another phase
	 * is damage, and would cost an error in the trace (a b or an s
	 * needs an id, an X a dur).
	 */
	switch (lg->ph.p[0]) {
	case 'B': case 'E': case 'I': case 'i':
		return lg->kind = PS_LOG_EVENT;
	default:
		return lg->kind = PS_SKIP_PHASE;
	}
}

static void
reset(struct pslog *lg)
{
	lg->nkv = 0;
	lg->gen = PS_GEN_NEW;
	lg->salvaged = 0;
	lg->crash = 0;
	lg->why = NULL;
	lg->tail = NULL;
	memset(&lg->name, 0, sizeof(lg->name));
	lg->ph = lg->cat = lg->cname = lg->name;
}

/*
 * Where the record of line[0..n) starts.  A hole of NUL bytes (a kill,
 * a power loss) ends what was being written; a record after it, on the
 * same line, is intact.  Returns NULL with lg torn when none is there.
 */
static const char *
start(const char *line, size_t n, struct pslog *lg)
{
	const char *p = line, *end = line + n, *nul;

	if (memchr(p, '\0', n) == NULL)
		return p;
	while ((nul = memchr(p, '\0', (size_t)(end - p))) != NULL)
		p = nul + 1;
	if (!HASPFX(p, (size_t)(end - p), "ts:")) {
		torn(lg, "NUL bytes");
		return NULL;
	}
	lg->salvaged = 1;
	return p;
}

/* Classify the line line[0..n), its '\n' cut, and tokenise a record. */
int
ps_logline(char *line, size_t n, struct pslog *lg)
{
	const char *p, *end, *tok, *first, *head;
	struct cut cut;
	int bare;

	reset(lg);
	if (n > 0 && line[n - 1] == '\r')
		n--;
	end = line + n;
	if ((p = start(line, n, lg)) == NULL)
		return lg->kind;
	/* A byte order mark starts a file; appended files keep theirs. */
	if (HASPFX(p, (size_t)(end - p), "\xef\xbb\xbf"))
		p += 3;
	first = p;
	TRIM(p, end);
	if (p == end)
		return lg->kind = PS_SKIP_BLANK;
	if (!HASPFX(p, (size_t)(end - p), "ts:"))
		return notrecord(first, p, end, lg);
	cut.w = p;
	cut.end = end;
	cut.esc = 0;
	cut.open = 0;
	cutload(&cut);
	if (((tok = quickprefix(&cut, p, lg, &head)) == NULL &&
	    (tok = prefix(&cut, p, lg)) == NULL) ||
	    (bare = body(&cut, tok, lg, head)) < 0)
		return lg->kind;
	lg->plain = cut.esc == 0;
	return verdict(lg, end, bare);
}

/*
 * The next line of a log, at the start of p[0..n), the bytes read so
 * far (eof: no more will come).  Returns its kind, as ps_logline does,
 * with *len its length, its '\n' not counted; or PS_LOG_MORE when the
 * line does not end in p[0..n) and more may come.  A record of
 * printable ASCII that does not end in a blank, what logs are made of,
 * is cut in one pass that finds its end too; any other line is first
 * found, then given to ps_logline().
 */
int
ps_logread(char *p, size_t n, int eof, struct pslog *lg, size_t *len)
{
	const char *tok, *nl, *head;
	struct cut cut;
	int bare = -1;

	if (n >= 3 && memcmp(p, "ts:", 3) == 0) {
		reset(lg);
		cut.w = p;
		cut.end = p + n;
		cut.esc = 0;
		cut.open = 1;
		cutload(&cut);
		if ((tok = quickprefix(&cut, p, lg, &head)) != NULL ||
		    (tok = prefix(&cut, p, lg)) != NULL)
			bare = body(&cut, tok, lg, head);
		if (!cut.open) {
			*len = (size_t)(cut.end - p);
			/* ps_logline() cuts blanks at the end of a line. */
			if (bare >= 0 && cut.esc == 0 && cut.end[-1] != ' ') {
				lg->plain = 1;
				return verdict(lg, cut.end, bare);
			}
			return ps_logline(p, *len, lg);
		}
	}
	if ((nl = memchr(p, '\n', n)) == NULL && !eof)
		return PS_LOG_MORE;
	*len = nl != NULL ? (size_t)(nl - p) : n;
	return ps_logline(p, *len, lg);
}

/* Release what ps_logline() allocated. */
void
ps_logline_free(struct pslog *lg)
{
	free(lg->kv);
	lg->kv = NULL;
	lg->nkv = lg->kvcap = 0;
}
