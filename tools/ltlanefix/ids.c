/* See LICENSE file for copyright and license details. */
/*
 * ids.c: the threads of ltlanefix(1), known by their pid and tid as
 * Perfetto and trace-lanefix tell them apart: as integers when they are
 * integers (8, 8.0 and 8e0 alike, true and false as 1 and 0), otherwise
 * as their JSON text; a missing pid is 0, a missing tid the pid.  Here
 * too the tids of new lanes are made, the names that lanes take from
 * their thread are kept, and values are shown as trace-lanefix prints
 * them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "pb.h"
#include "ltlanefix.h"

#define FALLBACK	4000000000LL		/* lane tids counted from here */
#define TIDMAX		4294967295LL		/* Perfetto's largest tid */

const char *
lf_text(const struct ids *ids, size_t off)
{
	return ids->text.p + off;
}

static const char *
idtext(const struct ids *ids, const struct id *id)
{
	return id->p != NULL ? id->p : lf_text(ids, (size_t)id->v);
}

/* A JSON number with an integral value that fits int64 (8, 8.0, 8e0). */
static int
integral(const char *p, size_t n, int64_t *v)
{
	const char *end = p + n, *q;
	long long exp = 0, fpos = 0;

	for (q = p; q < end && *q != 'e' && *q != 'E'; q++)
		;
	if (q < end)
		exp = strtoll(q + 1, NULL, 10);
	/* Every digit after the point, moved by exp, must be 0. */
	for (q = p; q < end && *q != '.' && *q != 'e' && *q != 'E'; q++)
		;
	if (q < end && *q == '.')
		for (q++; q < end && *q != 'e' && *q != 'E'; q++)
			if (++fpos > exp && *q != '0')
				return 0;
	return lt_dec_parse(p, n, 0, v) == LT_NUM_OK;
}

/* The length of an id or a name, kept in 32 bits. */
static uint32_t
idlen(size_t n)
{
	if (n > UINT32_MAX)
		lt_die(LT_EXIT_SYS, "an id or name of 4 GiB or more");
	return (uint32_t)n;
}

/* Where n bytes of a name go in ids.text, kept in 32 bits. */
static uint32_t
textoff(const struct ids *ids, size_t n)
{
	if (ids->text.n + n > UINT32_MAX)
		lt_die(LT_EXIT_SYS, "names of 4 GiB or more");
	return (uint32_t)ids->text.n;
}

/*
 * A counted text: n bytes kept in ids.text after their length, a
 * varint (one byte, mostly), so that a thread holds only where it is.
 * Returns that offset, never 0 (lf_ids_init took the first byte).
 */
static size_t
counted(struct ids *ids, const char *p, size_t n)
{
	size_t off = ids->text.n;

	pb_varint(&ids->text, idlen(n));
	lt_buf_add(&ids->text, p, n);
	return off;
}

struct namekey {
	const struct ids *ids;
	const char	*p;
	size_t		 n;
};

static int
nameeq(const void *arg, uint32_t off)
{
	const struct namekey *k = arg;
	const char *p;
	size_t n;

	p = lf_counted(k->ids, off, &n);
	return n == k->n && memcmp(p, k->p, n) == 0;
}

/*
 * A name (or sort index) kept as a counted text, its offset in 32 bits:
 * each text once, as a long job's thousands of threads have a handful
 * of names.
 */
static uint32_t
keepname(struct ids *ids, const char *p, size_t n)
{
	struct namekey k;
	uint32_t *v;
	int isnew;

	k.ids = ids;
	k.p = p;
	k.n = n;
	v = lt_map_get(&ids->names, lt_hash(p, n), nameeq, &k, &isnew);
	if (isnew) {
		(void)textoff(ids, PB_VARINT_MAX + n);	/* dies past 4 GiB */
		*v = (uint32_t)counted(ids, p, n);
	}
	return *v;
}

/* The counted text at off: its bytes, their number in *n. */
const char *
lf_counted(const struct ids *ids, size_t off, size_t *n)
{
	const char *p = ids->text.p + off;

	*n = (size_t)pb_takevarint(&p);
	return p;
}

/*
 * The key of column col (pid or tid) of rec, its text in rec.  Returns
 * 0 when the member is absent, or is null, which Perfetto treats alike;
 * 1 otherwise.  Column syntax was checked.
 */
int
lf_getid(const struct ltrec *rec, int col, struct id *id)
{
	const struct ltfield *f = &rec->f[col], *x = &rec->f[LT_EXTRA];
	const char *v;
	size_t vn;

	id->kind = ID_TEXT;
	if (!LT_ISNONE(*f)) {
		if (f->p[0] != '"' &&
		    lt_int_parse(f->p, f->n, &id->v) == LT_NUM_OK) {
			id->kind = ID_INT;
			return 1;
		}
		id->p = f->p;
		id->len = idlen(f->n);
		return 1;
	}
	if ((v = lt_json_member(x->p, x->n, lt_colname[col], &vn)) == NULL ||
	    (vn == 4 && memcmp(v, "null", 4) == 0))
		return 0;
	/* Python's equality: 8.0 == 8, true == 1; so does Perfetto. */
	if ((v[0] == '-' || (unsigned)(v[0] - '0') < 10) &&
	    integral(v, vn, &id->v)) {
		id->kind = ID_INT;
		return 1;
	}
	if (vn == 4 && memcmp(v, "true", 4) == 0) {
		id->kind = ID_INT;
		id->v = 1;
		return 1;
	}
	if (vn == 5 && memcmp(v, "false", 5) == 0) {
		id->kind = ID_INT;
		id->v = 0;
		return 1;
	}
	id->p = v;
	id->len = idlen(vn);
	return 1;
}

/* Column col (LT_PID or LT_TID) of thread t, as a stored key. */
void
lf_key(const struct ids *ids, uint32_t t, int col, struct id *id)
{
	const struct thread *th = &ids->th[t];
	const char *p;
	size_t n;

	memset(id, 0, sizeof(*id));
	id->v = col == LT_PID ? th->pid : th->tid;
	id->kind = ID_INT;
	if (col == LT_PID ? th->pidtext : th->tidtext) {
		id->kind = ID_TEXT;
		p = lf_counted(ids, (size_t)id->v, &n);
		id->v = (int64_t)(p - ids->text.p);
		id->len = (uint32_t)n;
	}
}

/* Stored key v (as in struct thread, a text if istext) is id. */
static int
ideq(const struct ids *ids, int64_t v, int istext, const struct id *id)
{
	const char *p;
	size_t n;

	if (!istext)
		return id->kind == ID_INT && id->v == v;
	if (id->kind != ID_TEXT)
		return 0;
	p = lf_counted(ids, (size_t)v, &n);
	return n == id->len && memcmp(p, idtext(ids, id), n) == 0;
}

static uint64_t
idhash(const struct ids *ids, const struct id *id, uint64_t h)
{
	const unsigned char *p;
	size_t i;

	if (id->kind == ID_INT)
		h ^= (uint64_t)id->v * 0x9e3779b97f4a7c15ULL;
	else
		for (p = (const unsigned char *)idtext(ids, id), i = 0;
		    i < id->len; i++)
			h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ h >> 29;
}

/*
 * A key being looked up, kept into *v: its text, if it has one, as a
 * counted text.  Returns 1 for a text.  A key that lf_key gave (the pid
 * of a lane) shares the counted text it came from, just before it.
 */
static int
keep(struct ids *ids, const struct id *id, int64_t *v)
{
	*v = id->v;
	if (id->kind == ID_INT)
		return 0;
	if (id->p == NULL)
		*v -= (int64_t)pb_varint_len(id->len);
	else
		*v = (int64_t)counted(ids, id->p, id->len);
	return 1;
}

static uint64_t
thhash(const struct ids *ids, const struct id *pid, const struct id *tid)
{
	return idhash(ids, tid, idhash(ids, pid, 0xcbf29ce484222325ULL));
}

/* What lf_thread() looks for. */
struct want {
	const struct ids *ids;
	const struct id	*pid, *tid;
};

static int
theq(const void *arg, uint32_t t)
{
	const struct want *w = arg;
	const struct thread *th = &w->ids->th[t];

	return ideq(w->ids, th->tid, th->tidtext, w->tid) &&
	    ideq(w->ids, th->pid, th->pidtext, w->pid);
}

/* The hash of thread t, made again when the slots grow. */
static uint64_t
rehash(const void *ctx, uint32_t t)
{
	const struct ids *ids = ctx;
	struct id pid, tid;

	lf_key(ids, t, LT_PID, &pid);
	lf_key(ids, t, LT_TID, &tid);
	return thhash(ids, &pid, &tid);
}

/*
 * The thread (pid, tid), made when add is set; LF_NONE if absent.  The
 * slots hold no hash, so that one is 4 bytes: there is one (or more)
 * for every thread ever seen.
 */
uint32_t
lf_thread(struct ids *ids, const struct id *pid, const struct id *tid,
    int add)
{
	struct want w = { ids, pid, tid };
	struct thread *th;
	uint32_t *s;

	if (add)
		lt_ix_room(&ids->slot, rehash, ids);
	s = lt_ix_get(&ids->slot, thhash(ids, pid, tid), theq, &w);
	if (s != NULL && *s != 0)
		return *s - 1;
	if (!add)
		return LF_NONE;
	if (ids->n >= LF_NONE - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	ids->th = lt_grow(ids->th, &ids->cap, ids->n + 1, sizeof(*ids->th));
	th = &ids->th[ids->n];
	memset(th, 0, sizeof(*th));
	th->pidtext = keep(ids, pid, &th->pid);
	th->tidtext = keep(ids, tid, &th->tid);
	lt_ix_set(&ids->slot, s, (uint32_t)ids->n);
	return (uint32_t)ids->n++;
}

/*
 * The thread of a record.  Records of a few threads at a time come
 * together: the pid and tid columns of the last LF_NCACHE threads are
 * remembered, and when a record has the same bytes they need no parsing
 * or lookup.  lf_cached answers from memory alone, LF_NONE when it
 * cannot.
 */
uint32_t
lf_cached(struct ids *ids, const struct ltrec *rec)
{
	const char *p = rec->f[LT_PID].p;
	size_t n = (size_t)(rec->f[LT_TID].p + rec->f[LT_TID].n - p);
	struct idcache *c;
	uint64_t x, y;
	unsigned i;

	/* Most keys differ in their first eight bytes: no call then. */
	if (n >= 8)
		memcpy(&x, p, 8);
	for (i = 0; i < LF_NCACHE; i++) {
		c = &ids->cache[(ids->hand + i) % LF_NCACHE];
		if (c->keyn != n || c->thread == LF_NONE)
			continue;
		if (n >= 8) {
			memcpy(&y, c->key, 8);
			if (x != y)
				continue;
		}
		if (memcmp(p, c->key, n) == 0)
			return c->thread;
	}
	return LF_NONE;
}

uint32_t
lf_threadof(struct ids *ids, const struct ltrec *rec, int add)
{
	const char *p = rec->f[LT_PID].p;
	size_t n = (size_t)(rec->f[LT_TID].p + rec->f[LT_TID].n - p);
	struct idcache *c;
	struct id pid, tid;
	uint32_t t;

	memset(&pid, 0, sizeof(pid));
	memset(&tid, 0, sizeof(tid));
	if (!lf_getid(rec, LT_PID, &pid)) {
		pid.kind = ID_INT;
		pid.v = 0;
	}
	if (!lf_getid(rec, LT_TID, &tid))
		tid = pid;
	if ((t = lf_thread(ids, &pid, &tid, add)) == LF_NONE)
		return LF_NONE;
	/* Members held in extra differ from record to record. */
	if (!LT_ISNONE(rec->f[LT_PID]) && !LT_ISNONE(rec->f[LT_TID]) &&
	    n <= sizeof(c->key)) {
		ids->hand = (ids->hand + LF_NCACHE - 1) % LF_NCACHE;
		c = &ids->cache[ids->hand];
		memcpy(c->key, p, n);
		c->keyn = n;
		c->thread = t;
	}
	return t;
}

/* thread_name and thread_sort_index: the last one of a thread counts. */
void
lf_meta(struct ids *ids, const struct ltrec *rec, uint32_t t)
{
	const struct ltfield *a = &rec->f[LT_ARGS];
	struct thread *th;
	const char *v;
	size_t vn;

	if (t == LF_NONE)
		return;		/* a process's, see procmeta */
	th = &ids->th[t];
	if (LT_IS(rec->f[LT_NAME], "thread_name") &&
	    (v = lt_json_member(a->p, a->n, "name", &vn)) != NULL &&
	    vn > 2 && v[0] == '"') {
		th->name = keepname(ids, v + 1, vn - 2);
	} else if (LT_IS(rec->f[LT_NAME], "thread_sort_index") &&
	    (v = lt_json_member(a->p, a->n, "sort_index", &vn)) != NULL &&
	    (v[0] == '-' || (unsigned)(v[0] - '0') < 10)) {
		th->sort = keepname(ids, v, vn);
	}
}

static int
known(struct ids *ids, const struct id *pid, const struct id *tid)
{
	return lf_thread(ids, pid, tid, 0) != LF_NONE;
}

/* The next tid from 4000000001 up that process pid does not have. */
static int64_t
freetid(struct ids *ids, const struct id *pid)
{
	struct id id;

	memset(&id, 0, sizeof(id));
	id.kind = ID_INT;
	do {
		if (ids->nextfb >= TIDMAX)
			lt_die(LT_EXIT_SYS, "no free tid left for a lane");
		id.v = ++ids->nextfb;
	} while (known(ids, pid, &id));
	return id.v;
}

/*
 * The tid of lane k of thread t, into ln: integer tids get T*1000+k
 * when that is a free tid in 1..2^32-1, else the next free one from
 * 4000000001 up; string tids get "T lane k", or "T lane k #2", ...  The
 * tid is then a known thread, so no two lanes and no lane and real
 * thread share a tid within a pid.
 */
void
lf_newlane(struct ids *ids, uint32_t t, uint32_t k, struct lane *ln)
{
	struct id pid, tid, id;
	char num[LT_NUMBUF];
	uint32_t r;
	size_t off, n;
	int j;

	lf_key(ids, t, LT_PID, &pid);
	lf_key(ids, t, LT_TID, &tid);
	memset(&id, 0, sizeof(id));
	ln->k = k;
	id.kind = ID_INT;
	if (tid.kind == ID_TEXT && lf_text(ids, (size_t)tid.v)[0] == '"') {
		ids->base.n = 0;
		lt_buf_add(&ids->base, lf_text(ids, (size_t)tid.v), tid.len - 1);
		snprintf(num, sizeof(num), " lane %u", k);
		lt_buf_adds(&ids->base, num);
		n = ids->base.n;
		id.kind = ID_TEXT;
		for (j = 1; ; j++) {
			ids->base.n = n;
			if (j > 1) {
				snprintf(num, sizeof(num), " #%d", j);
				lt_buf_adds(&ids->base, num);
			}
			lt_buf_addc(&ids->base, '"');
			id.p = ids->base.p;
			id.len = idlen(ids->base.n);
			if (!known(ids, &pid, &id))
				break;
		}
		/* The lane's thread keeps the text; the lane uses it too. */
		r = lf_thread(ids, &pid, &id, 1);
		lf_key(ids, r, LT_TID, &id);
		off = (size_t)id.v;
		ln->tidlen = id.len;
	} else {
		id.v = 0;
		if (tid.kind == ID_INT && tid.v >= 1 && k <= 999 &&
		    tid.v <= (TIDMAX - k) / 1000)
			id.v = tid.v * 1000 + k;
		if (id.v == 0 || known(ids, &pid, &id))
			id.v = freetid(ids, &pid);
		off = ids->text.n;
		lt_buf_add(&ids->text, num, lt_i64_fmt(num, id.v));
		ln->tidlen = idlen(ids->text.n - off);
		r = lf_thread(ids, &pid, &id, 1);
	}
	(void)textoff(ids, 0);		/* dies past 4 GiB */
	ln->tid = (uint32_t)off;
	ids->th[r].islane = 1;
}

/*
 * The records of thread t have a tid that a lane took before they came
 * (the stream was not held): from now on they are those of a new thread
 * of the next free tid, whose index is returned.
 */
uint32_t
lf_rename(struct ids *ids, uint32_t t)
{
	struct id pid, id;
	struct lane *c;
	char num[LT_NUMBUF];
	uint32_t r;

	if (ids->th[t].ren != 0)
		return ids->th[t].ren - 1;
	lf_key(ids, t, LT_PID, &pid);
	memset(&id, 0, sizeof(id));
	id.kind = ID_INT;
	id.v = freetid(ids, &pid);
	r = lf_thread(ids, &pid, &id, 1);
	ids->col = lt_grow(ids->col, &ids->capcol, ids->ncol + 1,
	    sizeof(*ids->col));
	c = &ids->col[ids->ncol++];
	c->k = 0;
	c->tid = textoff(ids, LT_NUMBUF);
	lt_buf_add(&ids->text, num, lt_i64_fmt(num, id.v));
	c->tidlen = (uint32_t)(ids->text.n - c->tid);
	/* ren has 29 bits. */
	if (ids->ncol >= 1U << 29 || r >= (1U << 29) - 1)
		lt_die(LT_EXIT_SYS, "too many threads renamed");
	ids->th[r].ren = (uint32_t)ids->ncol;
	ids->th[t].ren = r + 1;
	return r;
}

/* The tid column of the records of thread t, renamed; NULL if it is not. */
const struct lane *
lf_col(const struct ids *ids, uint32_t t)
{
	const struct thread *th = &ids->th[t];

	return !th->islane && th->ren != 0 ? &ids->col[th->ren - 1] : NULL;
}

/* Python's str() of the JSON value v: strings without their quotes. */
void
lf_showval(struct ltbuf *b, const char *v, size_t vn)
{
	if (vn >= 2 && v[0] == '"')
		lt_unesc(b, v + 1, vn - 2);
	else if (vn == 4 && memcmp(v, "true", 4) == 0)
		lt_buf_adds(b, "True");
	else if (vn == 5 && memcmp(v, "false", 5) == 0)
		lt_buf_adds(b, "False");
	else if (vn == 4 && memcmp(v, "null", 4) == 0)
		lt_buf_adds(b, "None");
	else
		lt_buf_add(b, v, vn);
}

/*
 * Member col (pid, tid or name) of the record of columns f, as
 * trace-lanefix prints it: None (or <unnamed>) when absent.
 */
void
lf_show(struct ltbuf *b, const struct ltfield *f, int col)
{
	const char *v;
	size_t vn;

	if (col == LT_NAME && f[col].n > 0)
		lt_unesc(b, f[col].p, f[col].n);
	else if (col != LT_NAME && !LT_ISNONE(f[col]))
		lf_showval(b, f[col].p, f[col].n);
	else if ((v = lt_json_member(f[LT_EXTRA].p, f[LT_EXTRA].n,
	    lt_colname[col], &vn)) != NULL)
		lf_showval(b, v, vn);
	else
		lt_buf_adds(b, col == LT_NAME ? "<unnamed>" : "None");
}

/* A track key as text: the number, or the value it stands for. */
void
lf_showid(struct ltbuf *b, const struct ids *ids, const struct id *id)
{
	char num[LT_NUMBUF];

	if (id->kind == ID_INT)
		lt_buf_add(b, num, lt_i64_fmt(num, id->v));
	else
		lf_showval(b, idtext(ids, id), id->len);
}

void
lf_ids_init(struct ids *ids)
{
	int i;

	memset(ids, 0, sizeof(*ids));
	lt_buf_addc(&ids->text, 0);	/* no counted text at 0 */
	ids->nextfb = FALLBACK;
	for (i = 0; i < LF_NCACHE; i++)
		ids->cache[i].thread = LF_NONE;
}

void
lf_ids_free(struct ids *ids)
{
	free(ids->th);
	free(ids->col);
	lt_ix_free(&ids->slot);
	lt_buf_free(&ids->text);
	lt_map_free(&ids->names);
	lt_buf_free(&ids->base);
	memset(ids, 0, sizeof(*ids));
}
