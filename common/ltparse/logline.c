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

#define ISBLANK(c)	((c) == ' ' || (c) == '\t')
#define KEYIS(k, n, s)	((n) == sizeof(s) - 1 && memcmp(k, s, n) == 0)
#define HASPFX(p, n, s)	((n) >= sizeof(s) - 1 && \
			    memcmp(p, s, sizeof(s) - 1) == 0)

#define TRIM(p, e)	do {						\
		while ((p) < (e) && ISBLANK(*(p)))			\
			(p)++;						\
		while ((e) > (p) && ISBLANK((e)[-1]))			\
			(e)--;						\
	} while (0)

/*
 * A cursor over the ';' and ':' of a record, sixteen bytes at a time:
 * the bytes from w on, those of them not handed out yet in the mask m.
 * On the way it notes in esc whether a byte needs escaping in JSON.
 */
struct cut {
	const char	*w;
	const char	*end;
	unsigned	 m;
	unsigned	 esc;
};

static inline void
cutload(struct cut *c)
{
	const char *t;

	if (c->end - c->w >= 16) {
		c->m = lt_scan16(c->w, ';', ':');
		c->esc |= lt_scan16esc(c->w);
		return;
	}
	for (c->m = 0, t = c->w; t < c->end; t++) {
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
torn(struct ltlog *lg, const char *why)
{
	lg->why = why;
	return lg->kind = LT_SKIP_TORN;
}

static void
addkv(struct ltlog *lg, const char *k, size_t kn, const char *v, size_t vn)
{
	if (lg->nkv == lg->kvcap) {
		lg->kvcap = lg->kvcap != 0 ? lg->kvcap * 2 : 16;
		lg->kv = lt_reallocarray(lg->kv, lg->kvcap, sizeof(*lg->kv));
	}
	lg->kv[lg->nkv].k = k;
	lg->kv[lg->nkv].kn = kn;
	lg->kv[lg->nkv].v = v;
	lg->kv[lg->nkv].vn = vn;
	lg->nkv++;
}

/* Set a column field once; a second occurrence means merged records. */
static int
setonce(struct ltfield *f, const char *v, size_t n)
{
	if (f->p != NULL)
		return -1;
	f->p = (char *)v;
	f->n = n;
	return 0;
}

/*
 * Timestamps: Unix seconds before 0.2.68, microseconds since (spec 4:
 * a value below 1e11 is seconds), scaled to ns exactly.  The usual
 * D+.D+ is read here; anything else (an exponent, 19 digits) goes to
 * lt_dec_parse().  A microsecond time written as lt1 would write it
 * (at most 3 decimals, no leading zero) is kept as text in tsus.
 */
static int
parsets(const char *v, size_t n, struct ltlog *lg)
{
	const char *p = v, *end = v + n, *f;
	uint64_t ip = 0, fr = 0;
	int k, scale, round = 0;

	lg->tsus.p = NULL;
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
		lg->gen = LT_GEN_OLD;
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
		lg->gen = LT_GEN_OLD;
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
    struct ltlog *lg)
{
	size_t n = (size_t)(end - p);
	const char *semi;

	/* Python indents the frames and the source lines of a traceback. */
	if (p > line || HASPFX(p, n, "Traceback (most recent call last):") ||
	    HASPFX(p, n, "During handling of the above exception") ||
	    HASPFX(p, n, "The above exception was the direct cause"))
		return lg->kind = LT_SKIP_TRACEBACK;
	if (contains(p, n, "PID:", 4) && contains(p, n, "TID:", 4))
		return torn(lg, "record not at the start of the line");
	/* "...worker_rank: 2;": the tail of a record whose start is lost. */
	if (end[-1] == ';') {
		for (semi = end - 1; semi > p && semi[-1] != ';'; semi--)
			;
		if (contains(semi, (size_t)(end - semi), ": ", 2))
			return torn(lg, "the end of a record");
	}
	return lg->kind = LT_SKIP_NOISE;
}

/*
 * The first line of an exception logged by commit 25bf3ca8, "[litdata]
 * PrepareChunksThread CRASHED (rank=R, worker=W): Exc: message", is a
 * crash, written as the instant that later releases write.
 */
static int
crashtext(struct ltlog *lg)
{
	static const char head[] = "[litdata] PrepareChunksThread CRASHED";

	if (lg->gen == LT_GEN_V1 || lg->nkv != 1 || lg->ph.p != NULL ||
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

int
lt_logline(char *line, size_t n, struct ltlog *lg)
{
	const char *p, *end, *tok, *semi, *colon, *k, *ke, *v, *ve, *q;
	const char *nul, *start;
	struct ltkv *last = NULL;
	struct cut cut;
	int have_ts = 0, have_pid = 0, have_tid = 0, bare = 0;

	lg->nkv = 0;
	lg->gen = LT_GEN_NEW;
	lg->salvaged = 0;
	lg->crash = 0;
	lg->why = NULL;
	memset(&lg->name, 0, sizeof(lg->name));
	lg->ph = lg->cat = lg->cname = lg->name;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	p = line;
	end = line + n;

	/*
	 * A hole of NUL bytes (a kill, a power loss) ends what was being
	 * written; a record after it, on the same line, is intact.
	 */
	if ((nul = memchr(p, '\0', n)) != NULL) {
		while ((nul = memchr(p, '\0', (size_t)(end - p))) != NULL)
			p = nul + 1;
		if (!HASPFX(p, (size_t)(end - p), "ts:"))
			return torn(lg, "NUL bytes");
		lg->salvaged = 1;
	}
	/* A byte order mark starts a file; appended files keep theirs. */
	if (HASPFX(p, (size_t)(end - p), "\xef\xbb\xbf"))
		p += 3;
	start = p;
	TRIM(p, end);
	if (p == end)
		return lg->kind = LT_SKIP_BLANK;
	if (!HASPFX(p, (size_t)(end - p), "ts:"))
		return notrecord(start, p, end, lg);
	cut.w = p;
	cut.end = end;
	cut.esc = 0;
	cutload(&cut);
	for (tok = p; tok < end; tok = semi + 1) {
		/* The token's first ':', then its ';'. */
		q = cutnext(&cut, 1);
		if (q == end || *q == ';') {
			semi = q;
			k = tok;
			ke = semi;
			TRIM(k, ke);
			if (k == ke)
				continue;	/* ";;" or the final ';' */
			if (!have_tid)
				return torn(lg, "bad record prefix");
			if (last == NULL) {
				bare = 1;	/* message text */
				continue;
			}
			/* Before 0.2.68 a ';' in a value was not replaced. */
			ve = semi;
			v = last->v;
			TRIM(v, ve);
			last->vn = (size_t)(ve - v);
			continue;
		}
		colon = q;
		semi = cutnext(&cut, 0);
		k = tok;
		ke = colon;
		v = colon + 1;
		ve = semi;
		TRIM(k, ke);
		TRIM(v, ve);
		last = NULL;
		n = (size_t)(ke - k);
		if (!have_tid) {
			if (KEYIS(k, n, "ts")) {
				if (have_ts++ || parsets(v, (size_t)(ve - v),
				    lg) < 0)
					return torn(lg, "bad ts");
			} else if (!have_ts) {
				return torn(lg, "bad ts");
			} else if (KEYIS(k, n, "PID")) {
				if (have_pid++ || lt_uint_parse(v,
				    (size_t)(ve - v), &lg->pid) != LT_NUM_OK ||
				    lg->pid > UINT32_MAX)
					return torn(lg, "bad PID");
			} else if (KEYIS(k, n, "TID")) {
				if (!have_pid || lt_uint_parse(v,
				    (size_t)(ve - v), &lg->tid) != LT_NUM_OK)
					return torn(lg, "bad TID");
				have_tid = 1;
			} else if (!have_pid && (KEYIS(k, n, "logger_name") ||
			    KEYIS(k, n, "level"))) {
				/* v1 puts logger_name and level before PID. */
				lg->gen = LT_GEN_V1;
				addkv(lg, k, n, v, (size_t)(ve - v));
			} else
				return torn(lg, "bad record prefix");
			continue;
		}
		switch (n) {
		case 2:
			if (k[0] == 'p' && k[1] == 'h') {
				if (setonce(&lg->ph, v, (size_t)(ve - v)) < 0)
					return torn(lg, "two ph keys");
				continue;
			}
			if (k[0] == 't' && k[1] == 's')
				return torn(lg, "two records on one line");
			break;
		case 3:
			if (KEYIS(k, n, "cat")) {
				if (setonce(&lg->cat, v, (size_t)(ve - v)) < 0)
					return torn(lg, "two cat keys");
				continue;
			}
			if (KEYIS(k, n, "PID") || KEYIS(k, n, "TID"))
				return torn(lg, "two records on one line");
			break;
		case 4:
			if (KEYIS(k, n, "name")) {
				if (setonce(&lg->name, v, (size_t)(ve - v)) < 0)
					return torn(lg, "two name keys");
				continue;
			}
			break;
		case 5:
			if (KEYIS(k, n, "cname")) {
				if (setonce(&lg->cname, v, (size_t)(ve - v)) <
				    0)
					return torn(lg, "two cname keys");
				continue;
			}
			break;
		}
		addkv(lg, k, n, v, (size_t)(ve - v));
		last = &lg->kv[lg->nkv - 1];
	}
	lg->plain = cut.esc == 0;
	if (!have_tid)
		return torn(lg, "record prefix cut short");
	if (lg->ph.p == NULL) {
		if (!crashtext(lg))
			return lg->kind = LT_SKIP_TEXT;
		return lg->kind = LT_LOG_EVENT;
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
	return lg->kind = LT_LOG_EVENT;
}

/* Release what lt_logline() allocated. */
void
lt_logline_free(struct ltlog *lg)
{
	free(lg->kv);
	lg->kv = NULL;
	lg->nkv = lg->kvcap = 0;
}
