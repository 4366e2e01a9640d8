/* See LICENSE file for copyright and license details. */
/*
 * logline.c: one line of a LitData enable_tracer() log, tokenised.
 *
 * A record is "ts:T;PID:P; TID:T; " then "key: value;" pairs (spec:
 * litdata-log.md section 2).  Tokens are split on ';', each at its first
 * ':', keys and values trimmed; nothing is copied, the line is only
 * pointed into.  The line is classified as an event or as one kind of
 * skipped line, so that every line of a log is accounted for.
 */
#include <stdlib.h>

#include "lt.h"

#define ISBLANK(c)	((c) == ' ' || (c) == '\t')

static void
trim(const char **p, const char **e)
{
	while (*p < *e && ISBLANK(**p))
		(*p)++;
	while (*e > *p && ISBLANK((*e)[-1]))
		(*e)--;
}

static int
keyis(const char *k, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(k, s, n) == 0;
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
 * a value below 1e11 is seconds).  Exact decimal scaling to ns.
 */
static int
parsets(const char *v, size_t n, struct ltlog *lg)
{
	if (lt_dec_parse(v, n, 3, &lg->ts) != LT_NUM_OK || lg->ts < 0)
		return -1;
	if (lg->ts < (int64_t)100000000000 * 1000) {
		lg->secs = 1;
		if (lt_dec_parse(v, n, 9, &lg->ts) != LT_NUM_OK)
			return -1;
	}
	return 0;
}

int
lt_logline(char *line, size_t n, struct ltlog *lg)
{
	const char *p, *end, *tok, *semi, *colon, *k, *ke, *v, *ve;
	const char *nul;
	struct ltkv *last = NULL;
	int have_ts = 0, have_pid = 0, have_tid = 0, bare = 0;

	lg->nkv = 0;
	lg->secs = 0;
	lg->v1 = 0;
	lg->why = NULL;
	memset(&lg->name, 0, sizeof(lg->name));
	lg->ph = lg->cat = lg->cname = lg->name;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	p = line;
	end = line + n;

	/* A hole of NULs (a crash, a power loss) may precede a record. */
	if ((nul = memchr(p, '\0', n)) != NULL) {
		while ((nul = memchr(p, '\0', (size_t)(end - p))) != NULL)
			p = nul + 1;
		if ((size_t)(end - p) < 3 || memcmp(p, "ts:", 3) != 0)
			return torn(lg, "NUL bytes");
	}
	trim(&p, &end);
	if (p == end)
		return lg->kind = LT_SKIP_BLANK;
	if (end - p < 3 || memcmp(p, "ts:", 3) != 0)
		return lg->kind = LT_SKIP_NOISE;

	for (tok = p; tok < end; tok = semi + 1) {
		if ((semi = memchr(tok, ';', (size_t)(end - tok))) == NULL)
			semi = end;
		if ((colon = memchr(tok, ':', (size_t)(semi - tok))) == NULL) {
			k = tok;
			ke = semi;
			trim(&k, &ke);
			if (k == ke)
				continue;	/* ";;" or the final ';' */
			if (!have_tid)
				return torn(lg, "bad record prefix");
			if (last == NULL) {
				bare = 1;	/* message text */
				continue;
			}
			/* Before 0.2.68 a ';' in a value was not escaped. */
			ve = semi;
			v = last->v;
			trim(&v, &ve);
			last->vn = (size_t)(ve - v);
			continue;
		}
		k = tok;
		ke = colon;
		v = colon + 1;
		ve = semi;
		trim(&k, &ke);
		trim(&v, &ve);
		last = NULL;
		if (keyis(k, (size_t)(ke - k), "ts")) {
			if (have_ts++ || parsets(v, (size_t)(ve - v), lg) < 0)
				return torn(lg, have_ts > 1 ? "two ts keys" :
				    "bad ts");
		} else if (keyis(k, (size_t)(ke - k), "PID")) {
			if (have_pid++ || lt_uint_parse(v, (size_t)(ve - v),
			    &lg->pid) != LT_NUM_OK || lg->pid > UINT32_MAX)
				return torn(lg, "bad PID");
		} else if (keyis(k, (size_t)(ke - k), "TID")) {
			if (have_tid++ || lt_uint_parse(v, (size_t)(ve - v),
			    &lg->tid) != LT_NUM_OK)
				return torn(lg, "bad TID");
		} else if (!have_tid) {
			/* v1 puts logger_name and level before PID. */
			if (keyis(k, (size_t)(ke - k), "logger_name") ||
			    keyis(k, (size_t)(ke - k), "level"))
				lg->v1 = 1;
			else
				return torn(lg, "bad record prefix");
			addkv(lg, k, (size_t)(ke - k), v, (size_t)(ve - v));
		} else if (keyis(k, (size_t)(ke - k), "name")) {
			if (setonce(&lg->name, v, (size_t)(ve - v)) < 0)
				return torn(lg, "two name keys");
		} else if (keyis(k, (size_t)(ke - k), "ph")) {
			if (setonce(&lg->ph, v, (size_t)(ve - v)) < 0)
				return torn(lg, "two ph keys");
		} else if (keyis(k, (size_t)(ke - k), "cat")) {
			if (setonce(&lg->cat, v, (size_t)(ve - v)) < 0)
				return torn(lg, "two cat keys");
		} else if (keyis(k, (size_t)(ke - k), "cname")) {
			if (setonce(&lg->cname, v, (size_t)(ve - v)) < 0)
				return torn(lg, "two cname keys");
		} else {
			addkv(lg, k, (size_t)(ke - k), v, (size_t)(ve - v));
			last = &lg->kv[lg->nkv - 1];
		}
		if (!have_ts)
			return torn(lg, "bad ts");
	}
	if (!have_pid || !have_tid)
		return torn(lg, "record prefix cut short");
	if (lg->ph.p == NULL)
		return lg->kind = LT_SKIP_TEXT;
	if (lg->ph.n != 1 || (unsigned char)lg->ph.p[0] <= ' ' ||
	    (unsigned char)lg->ph.p[0] >= 0x7f || lg->ph.p[0] == '"' ||
	    lg->ph.p[0] == '\\')
		return torn(lg, "bad ph");
	if (lg->name.p == NULL)
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
