/* See LICENSE file for copyright and license details. */
/*
 * pfsim.c: the event-by-event half of ltcheck's model of Perfetto's JSON
 * importer (the rules are in ltcheck(1)).
 *
 * pf_event() takes one event as the tokenizer sees it: it counts it,
 * applies every check that does not depend on the order of events
 * (missing ph or ts, bad dur, counters, metadata, pid coercion, number
 * overflow), runs Queue::Append's bookkeeping and keeps a 20-byte record
 * of the events the slice stacks and flows need.  The sort and the
 * replay of those records are in pfstack.c, findings in pffind.c, the
 * number parser in pfnum.c and the -s summary in pfsum.c.
 */
#include <stdlib.h>

#include "lt.h"
#include "pfint.h"

#define CKEVERY		1024
#define PREC_US		9007199254740.992	/* 2^53 ns in us */

/* -------- tables -------- */

uint64_t
pf_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL), w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	w = 0;
	while (n > 0)
		w = w << 8 | s[--n];
	h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 32;
	h *= 0x9e3779b97f4a7c15ULL;
	h ^= h >> 29;
	return h != 0 ? h : 1;
}

/* -------- categories -------- */

static uint32_t
catid(struct pfsim *s, const struct pfval *cat)
{
	struct pfcat *c;
	uint32_t *slot;
	int created;

	if (cat->type != '"' || cat->n == 0)
		return 0;
	c = &s->sum.cats[s->lastcat];
	if (s->lastcat != 0 && c->namelen == cat->n &&
	    memcmp(c->name, cat->p, cat->n) == 0)
		return s->lastcat;
	slot = lt_map_get(&s->catmap, pf_hash(cat->p, cat->n, 7), NULL, NULL,
	    &created);
	if (!created)
		return s->lastcat = *slot;
	s->sum.cats = lt_grow(s->sum.cats, &s->sum.capcats, s->sum.ncats + 1,
	    sizeof(*s->sum.cats));
	c = &s->sum.cats[s->sum.ncats];
	memset(c, 0, sizeof(*c));
	c->name = memcpy(lt_malloc(cat->n + 1), cat->p, cat->n);
	((char *)c->name)[cat->n] = '\0';
	c->namelen = cat->n;
	*slot = (uint32_t)s->sum.ncats++;
	return s->lastcat = *slot;
}

/*
 * Log buckets: values below 2 * HSUB exactly, then HSUB buckets per
 * power of two, so a bucket is at most 1/HSUB of its values wide.
 */
/* -------- the simulator -------- */

struct pfsim *
pf_new(int band)
{
	struct pfsim *s = lt_calloc(1, sizeof(*s));

	s->band = band;
	s->sum.first = INT64_MAX;
	s->sum.last = INT64_MIN;
	s->sum.cats = lt_grow(s->sum.cats, &s->sum.capcats, 1,
	    sizeof(*s->sum.cats));
	memset(&s->sum.cats[0], 0, sizeof(s->sum.cats[0]));
	s->sum.ncats = 1;
	return s;
}

void
pf_free(struct pfsim *s)
{
	size_t i;

	for (i = 1; i < s->sum.ncats; i++) {
		free((char *)s->sum.cats[i].name);
		free(s->sum.cats[i].dur);
		free(s->sum.cats[i].hist);
	}
	free(s->sum.cats);
	for (i = 0; i < s->sum.nprocs; i++)
		free((char *)s->sum.procs[i].name);
	free(s->sum.procs);
	free(s->recs);
	free(s->ld);
	free(s->ckline);
	free(s->ckpos);
	lt_map_free(&s->tracks);
	lt_map_free(&s->catmap);
	lt_map_free(&s->pairmap);
	lt_map_free(&s->flowmap);
	lt_map_free(&s->procmap);
	free(s->pairs);
	free(s->flows);
	free(s->v2);
	free(s->longs);
	free(s->finds);
	free(s);
}

/* The tokenizer stalled at line: every later event is lost. */
static void
pf_stall(struct pfsim *s, long line)
{
	s->stalled = 1;
	s->stall_line = line;
}

int
pf_stalled(const struct pfsim *s)
{
	return s->stalled;
}

/* Queue::Append, literally: see ltcheck(1), SORTING. */
static void
push(struct pfsim *s, int64_t ts, int isx)
{
	if (isx)
		s->slow = 1;
	if (ts > s->maxts || (!s->slow && ts == s->maxts))
		s->maxts = ts;
	else if (s->sort_start == 0) {
		s->sort_start = s->nq;
		s->sort_min = ts;
		s->rec_start = s->nrec;
	} else if (ts < s->sort_min)
		s->sort_min = ts;
	s->nq++;
}

static void
addline(struct pfsim *s, long line)
{
	uint64_t d = line > s->lastline ? (uint64_t)(line - s->lastline) : 0;

	if (s->nrec % CKEVERY == 0) {
		s->ckline = lt_grow(s->ckline, &s->capck, s->nck + 1,
		    sizeof(*s->ckline));
		s->ckpos = lt_reallocarray(s->ckpos, s->capck,
		    sizeof(*s->ckpos));
		s->ckline[s->nck] = line;
		s->ckpos[s->nck++] = s->nld;
		d = 0;
	}
	s->ld = lt_grow(s->ld, &s->capld, s->nld + 6, 1);
	if (d < 255)
		s->ld[s->nld++] = (uint8_t)d;
	else {
		if (d > UINT32_MAX)
			d = UINT32_MAX;
		s->ld[s->nld++] = 255;
		memcpy(s->ld + s->nld, &(uint32_t){ (uint32_t)d }, 4);
		s->nld += 4;
	}
	s->lastline = line;
}

/* The line of record idx. */
long
pf_recline(const struct pfsim *s, long long idx)
{
	size_t c = (size_t)idx / CKEVERY, pos, k;
	long line;
	uint32_t d;

	if (idx < 0 || (size_t)idx >= s->nrec)
		return 0;
	line = (long)s->ckline[c];
	pos = s->ckpos[c];
	for (k = c * CKEVERY; k <= (size_t)idx; k++) {
		if (s->ld[pos] < 255)
			d = s->ld[pos++];
		else {
			memcpy(&d, s->ld + pos + 1, 4);
			pos += 5;
		}
		line += (long)d;
	}
	return line;
}

static void
addrec(struct pfsim *s, long line, int64_t ts, int kind, int flags,
    uint32_t track, uint32_t u)
{
	struct rec *r;

	if (s->nrec >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many events (more than %u)",
		    UINT32_MAX - 1);
	s->recs = lt_grow(s->recs, &s->caprec, s->nrec + 1, sizeof(*s->recs));
	addline(s, line);
	r = &s->recs[s->nrec];
	r->tslo = (uint32_t)(uint64_t)ts;
	r->tshi = (uint32_t)((uint64_t)ts >> 32);
	r->u = u;
	r->idx = (uint32_t)s->nrec;
	r->tk = track << 8 | (uint32_t)flags << 4 | (uint32_t)kind;
	s->nrec++;
}

static uint32_t
track(struct pfsim *s, uint64_t key)
{
	uint32_t *slot;
	int created;

	/* Events of one thread often come together. */
	if (key == s->lastkey && s->ntracks > 0)
		return s->lasttrack;
	s->lastkey = key;
	slot = lt_map_get(&s->tracks, key, NULL, NULL, &created);
	if (created) {
		if (s->ntracks >= MAXTRACKS)
			lt_die(LT_EXIT_SYS, "too many tracks (more than %u)",
			    MAXTRACKS);
		*slot = s->ntracks++;
	}
	return s->lasttrack = *slot;
}

static uint32_t
pair(struct pfsim *s, uint32_t cat, const struct pfval *name,
    const char *dflt)
{
	struct pair *pp;
	uint64_t nh = 0, key[2];
	uint32_t *slot;
	int created;

	if (name->type == '"' && name->n > 0)
		nh = pf_hash(name->p, name->n, 11);
	else if (dflt != NULL)
		nh = pf_hash(dflt, strlen(dflt), 11);
	key[0] = nh;
	key[1] = cat;
	slot = lt_map_get(&s->pairmap, pf_hash(key, sizeof(key), 13), NULL,
	    NULL, &created);
	if (created) {
		s->pairs = lt_grow(s->pairs, &s->cappairs, s->npairs + 1,
		    sizeof(*s->pairs));
		pp = &s->pairs[s->npairs];
		pp->name = nh;
		pp->cat = cat;
		pp->pad = 0;
		*slot = (uint32_t)s->npairs++;
	}
	return *slot;
}

static int
streq(const struct pfval *v, const char *s)
{
	return v->type == '"' && v->n == strlen(s) &&
	    memcmp(v->p, s, v->n) == 0;
}

/* A number, or a string holding one (Perfetto accepts both). */
static int
numval(const struct pfval *v, struct pfnum *n)
{
	if (v->type != 'n' && v->type != '"')
		return -1;
	return pf_num(v->p, v->n, n);
}

/* pid or tid, coerced as CoerceToUint32 does; key gets its identity. */
static void
pidkey(struct pfsim *s, const struct pfval *v, long line, uint64_t *key)
{
	struct pfnum n;

	if (v->type == '"') {
		pf_find(s, "PF-PID-STRING", NULL, PF_SILENT, line, NULL);
		*key = pf_hash(v->p, v->n, 5) | (uint64_t)1 << 63;
		return;
	}
	*key = 0;
	if (v->type != 'n' || pf_num(v->p, v->n, &n) < 0)
		return;
	if (n.isint) {
		if (!n.wrap && n.i >= 0 && n.i <= (int64_t)UINT32_MAX) {
			*key = (uint64_t)n.i;
			return;
		}
	} else if (n.d >= 0 && n.d < 4294967296.0) {
		*key = (uint64_t)n.d;
		if (!pf_integral(n.d))
			pf_find(s, "PF-PID-COERCE", NULL, PF_SILENT, line,
			    NULL);
		return;
	}
	pf_find(s, "PF-PID-COERCE", NULL, PF_SILENT, line, NULL);
}

static uint64_t
key3(int tag, uint64_t a, uint64_t b)
{
	uint64_t k[3];

	k[0] = (uint64_t)tag;
	k[1] = a;
	k[2] = b;
	return pf_hash(k, sizeof(k), 17);
}

/*
 * A flow id: an integer, or a string parsable as hex (CStringToUInt64
 * base 16).  Returns 0 with *id set, or -1.
 */
static int
flowid(const struct pfval *v, uint64_t *id)
{
	struct pfnum n;
	const char *p = v->p, *e = v->p + v->n;
	uint64_t x = 0;
	int d;

	if (v->type == 'n')
		return pf_num(v->p, v->n, &n) == 0 && n.isint ?
		    (*id = (uint64_t)n.i, 0) : -1;
	if (v->type != '"')
		return -1;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p == e)
		return -1;
	for (; p < e; p++) {
		if (ISDIGIT(*p))
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -1;
		x = x * 16 + (uint64_t)d;
	}
	*id = x;
	return 0;
}

static uint32_t
flowslot(struct pfsim *s, uint64_t key)
{
	uint32_t *slot;
	int created;

	slot = lt_map_get(&s->flowmap, key, NULL, NULL, &created);
	if (created) {
		s->flows = lt_grow(s->flows, &s->capflows, s->nflows + 1, 1);
		s->flows[s->nflows] = 0;
		*slot = (uint32_t)s->nflows++;
	}
	return *slot;
}

/* A v2 flow (bind_id, flow_in, flow_out) on B or X; returns RF_V2 or 0. */
static int
v2flow(struct pfsim *s, const struct pfev *ev)
{
	struct v2flow *f;
	uint64_t id;
	uint32_t dir = 0;

	if (ev->bind_id.type == 0 || flowid(&ev->bind_id, &id) < 0)
		return 0;
	if (ev->flow_in.type == 't')
		dir |= 1;
	if (ev->flow_out.type == 't')
		dir |= 2;
	if (dir == 0) {
		pf_find(s, "PF-FLOW-V2-NO-DIRECTION", "flow_without_direction",
		    PF_TE, ev->line, NULL);
		return 0;
	}
	s->v2 = lt_grow(s->v2, &s->capv2, s->nv2 + 1, sizeof(*s->v2));
	f = &s->v2[s->nv2++];
	f->idx = (uint32_t)s->nrec;
	f->slot = flowslot(s, key3('2', id, 0));
	f->dir = dir;
	return RF_V2;
}

/* The checks of an X's dur; returns 0 with *dur set, or -1: dropped. */
static int
xdur(struct pfsim *s, const struct pfev *ev, int64_t *dur, int *flags)
{
	struct pfnum n;

	if (ev->dur.type == 0) {
		pf_find(s, "PF-X-NO-DUR", "json_parser_failure", PF_TE,
		    ev->line, NULL);
		return -1;
	}
	numval(&ev->dur, &n);	/* checked by the tokenizer */
	if (pf_tons(&n, dur))
		pf_find(s, "PF-TS-OVERFLOW", NULL, PF_SILENT, ev->line, NULL);
	if (n.fracwrap)
		pf_find(s, "PF-NUM-DIGITS", NULL, PF_SILENT, ev->line, NULL);
	if (*dur < 0) {
		pf_find(s, "PF-X-NEG-DUR", "slice_negative_duration", PF_IE,
		    ev->line, NULL);
		return -1;
	}
	if (!n.exact)
		*flags |= RF_ROUND;
	return 0;
}

static void
async(struct pfsim *s, const struct pfev *ev, int64_t ts, int flags,
    uint32_t cat, uint64_t pid, int ph)
{
	const struct pfval *id;
	uint64_t idkey, alt, scope = 0;
	int kind;

	if (ev->pid.type == 0 || (ev->id.type == 0 && !ev->has_id2) ||
	    (ev->id.type == 0 && ev->id2_local.type == 0 &&
	    ev->id2_global.type == 0)) {
		pf_find(s, "PF-ASYNC-NO-ID", "json_parser_failure", PF_TE,
		    ev->line, NULL);
		return;
	}
	if (ev->id.type != 0) {
		id = &ev->id;
		if (ev->has_id2)
			pf_find(s, "SC-ID2-AMBIGUOUS", NULL, PF_SILENT,
			    ev->line, NULL);
	} else if (ev->id2_global.type != 0) {
		id = &ev->id2_global;
		if (ev->id2_local.type != 0)
			pf_find(s, "SC-ID2-AMBIGUOUS", NULL, PF_SILENT,
			    ev->line, NULL);
	} else {
		id = &ev->id2_local;
		scope = pid | (uint64_t)1 << 62;
	}
	idkey = pf_hash(id->p, id->n, (uint64_t)id->type) ^ scope;
	alt = pf_hash(id->p, id->n, id->type == '"' ? 'n' : '"') ^ scope;
	kind = ph == 'b' ? K_AB : ph == 'e' ? K_AE : K_AN;
	/* An e whose cookie is new but exists with the other id type. */
	if (kind == K_AE && lt_map_get(&s->tracks, key3('a', cat, idkey),
	    NULL, NULL, NULL) == NULL && lt_map_get(&s->tracks,
	    key3('a', cat, alt), NULL, NULL, NULL) != NULL)
		flags = RF_SIDE;
	else
		flags = 0;
	addrec(s, ev->line, ts, kind, flags, track(s, key3('a', cat, idkey)),
	    pair(s, cat, &ev->name, kind == K_AE ? NULL : "[No name]"));
}

static void
flowv1(struct pfsim *s, const struct pfev *ev, int64_t ts, uint32_t cat,
    uint32_t tr, int ph)
{
	uint64_t id, nh;
	int kind;

	if (ev->id.type == 0 || flowid(&ev->id, &id) < 0) {
		pf_find(s, "PF-FLOW-INVALID-ID", "flow_invalid_id", PF_TE,
		    ev->line, NULL);
		return;
	}
	nh = ev->name.type == '"' ? pf_hash(ev->name.p, ev->name.n, 11) : 0;
	kind = ph == 's' ? K_S : ph == 't' ? K_T : K_F;
	if (ph == 'f' && streq(&ev->bp, "e"))
		kind = K_FE;
	else if (ev->bp.type != 0 && !streq(&ev->bp, "e"))
		pf_find(s, "SC-BP-VALUE", NULL, PF_OK, ev->line, NULL);
	addrec(s, ev->line, ts, kind, 0, tr,
	    flowslot(s, key3('1', id, nh ^ (uint64_t)cat << 40)));
}

static void
meta(struct pfsim *s, const struct pfev *ev)
{
	if (streq(&ev->name, "process_name") ||
	    streq(&ev->name, "thread_name")) {
		if (!ev->m_name_ok)
			pf_find(s, "PF-META-BAD", "json_parser_failure", PF_TE,
			    ev->line, NULL);
	} else if (streq(&ev->name, "process_sort_index") ||
	    streq(&ev->name, "thread_sort_index")) {
		if (!ev->m_sort_ok)
			pf_find(s, "PF-META-BAD", "json_parser_failure", PF_TE,
			    ev->line, NULL);
	} else
		pf_find(s, "SC-META-UNKNOWN", NULL, PF_OK, ev->line, NULL);
}

static void
counter(struct pfsim *s, const struct pfev *ev)
{
	int i;

	if (ev->args_count <= 0)
		pf_find(s, "PF-COUNTER-BAD", "json_parser_failure", PF_TE,
		    ev->line, NULL);
	for (i = 0; i < ev->args_badnum; i++)
		pf_find(s, "PF-COUNTER-BAD", "json_parser_failure", PF_TE,
		    ev->line, NULL);
}

/* The per-event half of the tokenizer: returns 0 with *ts, or -1. */
static int
tokenize(struct pfsim *s, const struct pfev *ev, int ph, int64_t *ts,
    int *flags)
{
	struct pfnum n;
	int64_t exact;
	int over;

	if (ev->ph.type != '"') {
		pf_find(s, "PF-MISSING-PH", "json_tokenizer_failure", PF_TE,
		    ev->line, NULL);
		return -1;
	}
	if (numval(&ev->ts, &n) < 0) {
		if (ph == 'M') {
			*ts = 0;
			return 0;
		}
		pf_find(s, "PF-MISSING-TS", "json_tokenizer_failure", PF_TE,
		    ev->line, NULL);
		return -1;
	}
	over = pf_tons(&n, ts);
	if (n.fracwrap)
		pf_find(s, "PF-NUM-DIGITS", *ts < 0 ?
		    "trace_sorter_negative_timestamp_dropped" : NULL,
		    *ts < 0 ? PF_TE : PF_SILENT, ev->line, NULL);
	else if (over)
		pf_find(s, "PF-TS-OVERFLOW", NULL, PF_SILENT, ev->line, NULL);
	if (*ts < 0) {
		if (!n.fracwrap)
			pf_find(s, "PF-NEGATIVE-TS",
			    "trace_sorter_negative_timestamp_dropped", PF_TE,
			    ev->line, NULL);
		return -1;
	}
	if (!n.exact)
		*flags |= RF_ROUND;
	if (!n.isint && !pf_integral(n.d) && (n.d >= PREC_US ||
	    n.d <= -PREC_US)) {
		*flags |= RF_PREC;
		if (lt_dec_parse(ev->ts.p, ev->ts.n, 3, &exact) ==
		    LT_NUM_OK && exact != *ts)
			pf_find(s, "PF-TS-PRECISION", NULL, PF_SILENT,
			    ev->line, NULL);
	}
	return 0;
}

/* One event: count it, check it, keep what the replay needs. */
void
pf_event(struct pfsim *s, const struct pfev *ev)
{
	uint64_t pid, tid;
	int64_t ts, dur;
	uint32_t cat, tr, u;
	int ph, flags = 0;

	s->sum.events++;
	ph = ev->ph.type == '"' && ev->ph.n > 0 ?
	    (unsigned char)ev->ph.p[0] : 0;
	s->sum.nph[ph & 127]++;
	cat = catid(s, &ev->cat);
	s->sum.cats[cat].count++;
	if (s->summary)
		pf_countproc(s, &ev->pid);
	if (s->stalled) {
		s->lost++;
		return;
	}
	if (ev->notobj)
		return;		/* a syntax error: the caller said so */
	if (ev->surrogate_top)
		pf_find(s, "PF-UNICODE-SURROGATE", "fatal", PF_FATAL,
		    ev->line, NULL);
	if (ev->surrogate_args)
		pf_find(s, "PF-UNICODE-SURROGATE", NULL, PF_SILENT, ev->line,
		    NULL);
	if (ev->dupkey)
		pf_find(s, "SC-DUP-KEY", NULL, PF_OK, ev->line, NULL);
	if (ev->ctrl)
		pf_find(s, "SC-CONTROL-CHAR", NULL, PF_OK, ev->line, NULL);
	if (ev->empty) {
		if (s->band == PF_V57)
			pf_find(s, "PF-EMPTY-OBJECT", NULL, PF_OK, ev->line,
			    NULL);
		else
			pf_find(s, "PF-EMPTY-OBJECT", "json_tokenizer_failure",
			    PF_TE, ev->line, NULL);
		return;
	}
	if ((ev->dur.type != 0 && numval(&ev->dur, &(struct pfnum){0}) < 0) ||
	    (ev->tdur.type != 0 && numval(&ev->tdur, &(struct pfnum){0}) < 0) ||
	    (ev->tts.type != 0 && numval(&ev->tts, &(struct pfnum){0}) < 0)) {
		pf_find(s, "PF-BAD-DUR-STALL", "json_tokenizer_failure",
		    PF_TE, ev->line, NULL);
		pf_stall(s, ev->line);
		return;
	}
	if (ev->id2_bad)
		pf_find(s, "SC-ID2-AMBIGUOUS", "json_tokenizer_failure", PF_TE,
		    ev->line, NULL);
	if (tokenize(s, ev, ph, &ts, &flags) < 0)
		return;
	push(s, ts, ph == 'X');
	if (ph != 'M' && ts < s->sum.first)
		s->sum.first = ts;
	if (ph != 'M' && ts > s->sum.last)
		s->sum.last = ts;
	if (ev->args.type != 0 && ev->args.type != '{' && ph != 'C')
		pf_find(s, "SC-ARGS-NOT-OBJECT", NULL, PF_OK, ev->line, NULL);

	pidkey(s, &ev->pid, ev->line, &pid);
	if (ev->tid.type != 0)
		pidkey(s, &ev->tid, ev->line, &tid);
	else
		tid = pid;
	tr = track(s, key3('t', pid, tid));
	switch (ph) {
	case 'B':
		flags |= v2flow(s, ev);
		addrec(s, ev->line, ts, K_B, flags, tr,
		    pair(s, cat, &ev->name, "[No name]"));
		break;
	case 'E':
		addrec(s, ev->line, ts, K_E, 0, tr,
		    pair(s, cat, &ev->name, NULL));
		break;
	case 'X':
		if (xdur(s, ev, &dur, &flags) < 0)
			break;
		if (endof(ts, dur) > s->sum.last)
			s->sum.last = endof(ts, dur);
		pf_adddur(s, cat, dur);
		u = (uint32_t)dur;
		if (dur >= DUR_SIDE) {
			s->longs = lt_grow(s->longs, &s->caplongs,
			    s->nlongs + 1, sizeof(*s->longs));
			s->longs[s->nlongs].idx = (uint32_t)s->nrec;
			s->longs[s->nlongs].hi = (uint32_t)((uint64_t)dur >> 32);
			s->longs[s->nlongs++].lo = (uint32_t)dur;
			u = DUR_SIDE;
			flags |= RF_SIDE;
		}
		flags |= v2flow(s, ev);
		addrec(s, ev->line, ts, K_X, flags, tr, u);
		break;
	case 'i':
	case 'I':
	case 'R':
		if (streq(&ev->s, "g"))
			tr = track(s, key3('g', 0, 0));
		else if (streq(&ev->s, "p")) {
			if (ev->pid.type == 0) {
				pf_find(s, "PF-INSTANT-NO-TID",
				    "json_parser_failure", PF_TE, ev->line,
				    NULL);
				break;
			}
			tr = track(s, key3('p', pid, 0));
		} else {
			if (ev->s.type != 0 && !streq(&ev->s, "t"))
				pf_find(s, "SC-INSTANT-SCOPE", NULL, PF_OK,
				    ev->line, NULL);
			if (ev->tid.type == 0) {
				pf_find(s, "PF-INSTANT-NO-TID",
				    "json_parser_failure", PF_TE, ev->line,
				    NULL);
				break;
			}
		}
		addrec(s, ev->line, ts, K_I, 0, tr, 0);
		break;
	case 's':
	case 't':
	case 'f':
		flowv1(s, ev, ts, cat, tr, ph);
		break;
	case 'b':
	case 'e':
	case 'n':
		async(s, ev, ts, flags, cat, pid, ph);
		break;
	case 'C':
		counter(s, ev);
		break;
	case 'M':
		meta(s, ev);
		break;
	case 'T':
		if (ev->dur.type == 0)
			pf_find(s, "PF-PHASE-T", "json_parser_failure", PF_TE,
			    ev->line, NULL);
		else
			pf_find(s, "PF-PHASE-T", NULL, PF_SILENT, ev->line,
			    NULL);
		break;
	case 'P':
		if (ev->p_profile)
			break;
		/* FALLTHROUGH */
	default:
		pf_find(s, "PF-PHASE-IGNORED", NULL, PF_SILENT, ev->line,
		    NULL);
	}
}

/* At the end of the input: sort, replay, and report what was lost. */
void
pf_finish(struct pfsim *s)
{
	if (s->stalled && s->lost > 0) {
		pf_find(s, "PF-BAD-DUR-STALL", NULL, PF_SILENT, 0,
		    NULL)->n += s->lost - 1;
	}
	pf_replay(s);
}
