/* See LICENSE file for copyright and license details. */
/*
 * event.c: one lt1 record as the trace packets Perfetto makes of the
 * same event in JSON (ltproto(1) has the table).
 *
 * An X slice is a SLICE_BEGIN at ts and a SLICE_END at ts + dur (an
 * INSTANT when dur is 0), B and E are a begin and an end, thread
 * instants are INSTANTs; flow events (s, t, f), async events (b, e, n)
 * and process or global instants are TrackEvents with the LegacyEvent
 * of their phase and ids, which Perfetto reads as it reads them from
 * JSON.  Flows bound to slices (bind_id, flow_in, flow_out) go in the
 * slice's LegacyEvent.  C events are counters, one track per member of
 * args; M records name and rank processes and threads.  Names,
 * categories and the names of args are interned.
 */
#include <stdlib.h>

#include "ltproto.h"
#include "tally.h"

struct ptcount		 pt_count;
int			 pt_tallying;
static int64_t		 t0;		/* of #t0, if it came first */
static int		 t0set;
static int		 based;		/* the clock's base is set */

static struct ltbuf	 pk;		/* the packet being written */
static struct ltbuf	 fix[LT_NCOL];	/* columns made canonical */
static struct ltbuf	 sname, skey, sval;
static size_t		 eo;		/* open: the packet's TrackEvent */
static struct ltrd	*rd;		/* of the record */
static int		 late;		/* its args are not checked yet */
static uint64_t		 nameiid;	/* the iid of its name, or 0 */

/* The members of the extra column that events are read with. */
struct extra {
	struct ltfield	 s, id, id2, bp, bind_id, flow_in, flow_out, scope;
};

static void
readextra(const struct ltfield *x, struct extra *e)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} keys[] = {
		{ "\"s\"", offsetof(struct extra, s) },
		{ "\"id\"", offsetof(struct extra, id) },
		{ "\"id2\"", offsetof(struct extra, id2) },
		{ "\"bp\"", offsetof(struct extra, bp) },
		{ "\"bind_id\"", offsetof(struct extra, bind_id) },
		{ "\"flow_in\"", offsetof(struct extra, flow_in) },
		{ "\"flow_out\"", offsetof(struct extra, flow_out) },
		{ "\"scope\"", offsetof(struct extra, scope) }
	};
	struct ltobj it;
	struct ltfield k, v;
	size_t i;

	memset(e, 0, sizeof(*e));
	if (x->n <= 2)
		return;
	lt_obj_init(&it, x->p, x->n);
	while (lt_obj_next(&it, &k, &v) > 0)
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (k.n == strlen(keys[i].key) &&
			    memcmp(k.p, keys[i].key, k.n) == 0) {
				*(struct ltfield *)(void *)((char *)e +
				    keys[i].off) = v;
				break;
			}
}

#define ISTRUE(f)	((f).n == 4 && memcmp((f).p, "true", 4) == 0)
#define ISSTR(f, s)	((f).n == sizeof(s) + 1 && (f).p[0] == '"' && \
			    memcmp((f).p + 1, (s), sizeof(s) - 1) == 0)

/*
 * Check the args column a (litracer-stream(5)): a itself, or made
 * canonical if it was not.
 */
static struct ltfield
argscheck(struct ltfield a)
{
	struct ltjson j;

	late = 0;
	if (lt_json_whole(a.p, a.n, NULL, &j) != LT_JSON_OK)
		lt_rd_bad(rd, "column args: %s", j.err);
	if (j.type != '{')
		lt_rd_bad(rd, "column args: not a JSON object");
	if (j.flags != 0) {
		fix[LT_ARGS].n = 0;
		lt_json_whole(a.p, a.n, &fix[LT_ARGS], &j);
		a.p = fix[LT_ARGS].p;
		a.n = fix[LT_ARGS].n;
	}
	return a;
}

/* The args of the record, as annotations of the event being written. */
static void
annotate(const struct ltrec *rec)
{
	struct ltfield a = rec->f[LT_ARGS];

	if (pt_args(&pk, a.p, a.n, nameiid)) {
		late = 0;
		return;
	}
	/* Under #valid, args that nest are checked when they look wrong. */
	if (late || (rd->valid && !lt_obj_sound(a.p, a.n)))
		a = argscheck(a);
	pt_args_json(&pk, &a);
}

/*
 * A packet with a TrackEvent, held without its time (window.c writes
 * it): begin() when it names interned strings, bare() when it names
 * none (the end of an X slice, a counter's value).
 */
static void
packet(int iids)
{
	pk.n = 0;
	pt_seq_fields(&pk, iids);
	eo = pb_open(&pk, PKT_TRACK_EVENT);
}

static void
begin(void)
{
	packet(1);
}

static void
bare(void)
{
	packet(0);
}

/* The track of the event, unless it is its sequence's default. */
static void
track(uint64_t uuid)
{
	if (uuid != pt_seq_track())
		pb_uint(&pk, EV_TRACK_UUID, uuid);
}

static void
end(void)
{
	pb_close(&pk, eo);
}

#define NONAME	"[No name]"

/*
 * The names and categories of records met lately, as their columns
 * hold them, and their iids: most records are of a few kinds, and one
 * like these looks up neither string (two pt_iid() calls, and two scans
 * for escapes) on the sequences where both are defined.  By a quick
 * hash of the two columns' lengths and outer bytes.
 */
#define NAMES		16
#define NAMEMAX		48
static struct namememo {
	uint64_t	 gen;		/* 0: none */
	uint64_t	 name;		/* iid */
	struct ptseqs	 seqs;		/* where both are defined */
	size_t		 nn, cn, en;
	char		 ntext[NAMEMAX], ctext[NAMEMAX];
	char		 enc[2 * (1 + PB_VARINT_MAX)];	/* the fields */
}			 namememo[NAMES];

static struct namememo *
namememo_of(const struct ltfield *nm, const struct ltfield *cat)
{
	unsigned h;

	h = (unsigned)nm->n * 7 ^ (unsigned char)nm->p[0] ^
	    (unsigned char)nm->p[nm->n - 1] << 2 ^ (unsigned)cat->n << 4;
	return &namememo[(h ^ h >> 4) & (NAMES - 1)];
}

/*
 * The name and category of the record, interned; nameiid: the name's
 * iid.  A slice with no name (B, X, an instant on its thread, an async
 * begin) is "[No name]", as Perfetto's JSON importer names it.
 */
static void
names(const struct ltrec *rec, int slice)
{
	const struct ltfield *nm = &rec->f[LT_NAME], *cat = &rec->f[LT_CAT];
	struct namememo *m = NULL;
	const char *s = NULL;
	uint64_t gen = pt_intern_gen();
	uint32_t cur = pt_seq_cur();
	size_t n, at = pk.n;

	if (nm->n > 0 && nm->n <= NAMEMAX && cat->n <= NAMEMAX) {
		m = namememo_of(nm, cat);
		if (m->gen == gen && m->nn == nm->n && m->cn == cat->n &&
		    lt_same(m->ntext, nm->p, nm->n) &&
		    lt_same(m->ctext, cat->p, cat->n) &&
		    pt_seqs_has(&m->seqs, cur)) {
			nameiid = m->name;
			if (pk.cap - pk.n < sizeof(m->enc))
				lt_buf_grow(&pk, sizeof(m->enc));
			memcpy(pk.p + pk.n, m->enc, sizeof(m->enc));
			pk.n += m->en;
			return;
		}
	}
	nameiid = 0;
	if (nm->n > 0)
		s = pt_str(&sname, nm->p, nm->n, &n);
	else if (slice) {
		s = NONAME;
		n = sizeof(NONAME) - 1;
	}
	if (s != NULL) {
		nameiid = pt_iid(PT_NAMES, s, n);
		pb_uint(&pk, EV_NAME_IID, nameiid);
	}
	if (cat->n > 0) {
		s = pt_str(&sname, cat->p, cat->n, &n);
		pb_uint(&pk, EV_CATEGORY_IIDS, pt_iid(PT_CATS, s, n));
	}
	if (m == NULL)
		return;
	/* Both are defined on this sequence now. */
	if (m->gen != gen || m->nn != nm->n || m->cn != cat->n ||
	    !lt_same(m->ntext, nm->p, nm->n) ||
	    !lt_same(m->ctext, cat->p, cat->n)) {
		m->gen = gen;
		m->name = nameiid;
		m->nn = nm->n;
		m->cn = cat->n;
		m->en = pk.n - at;
		memcpy(m->enc, pk.p + at, m->en);
		memcpy(m->ntext, nm->p, nm->n);
		memcpy(m->ctext, cat->p, cat->n);
		pt_seqs_clear(&m->seqs);
	}
	pt_seqs_add(&m->seqs, cur);
}

/* Does extra have a bind_id member?  Most have not: a quick look first. */
static char		 lastx[48];	/* hasbind's last extra */
static size_t		 lastxn = SIZE_MAX;
static int		 lastxr;

static int
hasbind(const struct ltfield *x)
{
	const char *p = x->p, *end = x->p + x->n, *q;
	int r = 0;

	/* Records of a kind have the same extra: {"cname":"rail_load"}. */
	if (x->n == lastxn && memcmp(x->p, lastx, lastxn) == 0)
		return lastxr;
	while ((q = memchr(p, 'b', (size_t)(end - p))) != NULL) {
		if (end - q >= 9 && q > x->p && q[-1] == '"' &&
		    memcmp(q, "bind_id\":", 9) == 0) {
			r = 1;
			break;
		}
		p = q + 1;
	}
	if (x->n <= sizeof(lastx)) {
		memcpy(lastx, x->p, x->n);
		lastxn = x->n;
		lastxr = r;
	}
	return r;
}

/* A flow bound to a slice (JSON's flow events v2): in its LegacyEvent. */
static void
boundflow(const struct ltrec *rec)
{
	const struct ltfield *x = &rec->f[LT_EXTRA];
	struct extra e;
	uint64_t id;
	size_t o;
	int dir;

	if (!hasbind(x))
		return;
	readextra(x, &e);
	dir = (ISTRUE(e.flow_in) ? FLOW_IN : 0) |
	    (ISTRUE(e.flow_out) ? FLOW_OUT : 0);
	if (e.bind_id.p == NULL || dir == 0)
		return;
	if (!pt_id(e.bind_id.p, e.bind_id.n, &id)) {
		pt_count.badid++;
		return;
	}
	o = pb_open(&pk, EV_LEGACY);
	pb_uint(&pk, LEG_BIND_ID, id);
	pb_uint(&pk, LEG_FLOW_DIRECTION, (uint64_t)dir);
	pb_close(&pk, o);
}

static struct pthandle	 held;		/* the packet hold() held last */

static void
hold(int64_t ts, uint64_t track, int kind, int64_t dur)
{
	end();
	pt_intern_put();
	pt_hold(ts, (uint32_t)track, kind, dur, pk.p, pk.n, &held);
}

/* A TrackEvent of a type, named, with args: B, instants, X. */
static void
typed(const struct ltrec *rec, const struct ptthread *th, int type,
    int flow)
{
	begin();
	pb_uint(&pk, EV_TYPE, (uint64_t)type);
	track(th->uuid);
	names(rec, 1);
	annotate(rec);
	if (flow)
		boundflow(rec);
}

/* A slice that crosses another: alone on a track of its own. */
static void
spilled(const struct ltrec *rec, const struct ptthread *th, int64_t ts,
    int64_t dur)
{
	uint64_t uuid = pt_spill(th);

	begin();
	pb_uint(&pk, EV_TYPE, TYPE_SLICE_BEGIN);
	track(uuid);
	names(rec, 1);
	annotate(rec);
	boundflow(rec);
	hold(ts, uuid, PT_KPUSH, 0);
	bare();
	pb_uint(&pk, EV_TYPE, TYPE_SLICE_END);
	track(uuid);
	hold(ts + dur, uuid, PT_KXEND, 0);
	pt_count.spilled++;
}

static void
slice(const struct ltrec *rec, const struct ptthread *th, int64_t ts,
    int hasdur, int64_t dur)
{
	if (!hasdur) {
		pt_count.nots++;
		return;
	}
	if (dur < 0) {
		pt_count.negdur++;
		return;
	}
	if (ts > INT64_MAX - dur) {
		pt_count.negative++;
		return;
	}
	if (dur == 0) {
		typed(rec, th, TYPE_INSTANT, 1);
		hold(ts, th->uuid, PT_KPUSH, 0);
		return;
	}
	if (pt_roots_cross((uint32_t)th->uuid, ts, ts + dur)) {
		spilled(rec, th, ts, dur);
		return;
	}
	typed(rec, th, TYPE_SLICE_BEGIN, 1);
	hold(ts, th->uuid, PT_KXBEGIN, dur);
	bare();
	pb_uint(&pk, EV_TYPE, TYPE_SLICE_END);
	track(th->uuid);
	hold(ts + dur, th->uuid, PT_KXEND, 0);
}

static void
sliceend(const struct ltrec *rec, const struct ptthread *th, int64_t ts)
{
	begin();
	pb_uint(&pk, EV_TYPE, TYPE_SLICE_END);
	track(th->uuid);
	names(rec, 0);		/* the E closes the B of its name */
	annotate(rec);
	hold(ts, th->uuid, PT_KE, 0);
}

/* A TrackEvent of no type, read by its LegacyEvent: phase and more. */
static size_t
legacy(const struct ltrec *rec, const struct ptthread *th, int args)
{
	size_t o;

	begin();
	track(th->uuid);
	names(rec, rec->f[LT_PH].p[0] == 'b');
	if (args)
		annotate(rec);
	o = pb_open(&pk, EV_LEGACY);
	pb_uint(&pk, LEG_PHASE, (unsigned char)rec->f[LT_PH].p[0]);
	return o;
}

static void
instant(const struct ltrec *rec, const struct ptthread *th, int64_t ts)
{
	const struct ltfield *x = &rec->f[LT_EXTRA];
	struct extra e;
	size_t o;
	int scope = 0;

	if (x->n > 2) {
		readextra(x, &e);
		if (ISSTR(e.s, "g"))
			scope = SCOPE_GLOBAL;
		else if (ISSTR(e.s, "p"))
			scope = SCOPE_PROCESS;
	}
	if (scope == 0) {
		typed(rec, th, TYPE_INSTANT, 0);
		hold(ts, th->uuid, PT_KPUSH, 0);
		return;
	}
	o = legacy(rec, th, 1);
	pb_uint(&pk, LEG_INSTANT_SCOPE, (uint64_t)scope);
	pb_close(&pk, o);
	hold(ts, th->uuid, PT_KOTHER, 0);
}

/*
 * The flow steps and ends met lately, by the key of their flow (its id,
 * category and name, which Perfetto's JSON importer pairs them by):
 * one that comes before the start of its flow at the same time is not
 * bound to it in JSON, which keeps the order of the file there, but the
 * .pftrace could write the two in either order (they are on different
 * tracks, held apart).  So such an end, still held, is not written:
 * neither trace has the flow (flow-same-ts-pftrace-binds.json).
 */
#define ENDS	4096
static struct flowend {
	uint64_t	 key;		/* 0: none */
	int64_t		 ts;
	struct pthandle	 h;
}			 ends[ENDS];

static uint64_t
flowkey(const struct ltrec *rec, uint64_t id)
{
	uint64_t k = lt_mix(id ^ pt_hash(rec->f[LT_CAT].p, rec->f[LT_CAT].n) ^
	    lt_mix(pt_hash(rec->f[LT_NAME].p, rec->f[LT_NAME].n)));

	return k != 0 ? k : 1;
}

/* s, t, f: flow events, bound to the slice around them (or the next). */
static void
flow(const struct ltrec *rec, const struct ptthread *th, int64_t ts)
{
	struct flowend *fe;
	uint64_t key;
	struct extra e;
	uint64_t id;
	size_t o;
	int enclosing;

	readextra(&rec->f[LT_EXTRA], &e);
	if (e.id.p == NULL || !pt_id(e.id.p, e.id.n, &id)) {
		pt_count.badid++;
		return;
	}
	key = flowkey(rec, id);
	fe = &ends[key & (ENDS - 1)];
	if (rec->f[LT_PH].p[0] == 's' && fe->key == key && fe->ts == ts) {
		if (pt_unhold(&fe->h))
			pt_count.unbound++;
		fe->key = 0;
	}
	o = legacy(rec, th, 0);
	pb_uint(&pk, LEG_UNSCOPED_ID, id);
	enclosing = rec->f[LT_PH].p[0] != 'f' || ISSTR(e.bp, "e");
	if (rec->f[LT_PH].p[0] == 'f' && enclosing)
		pb_uint(&pk, LEG_BIND_ENCLOSING, 1);
	pb_close(&pk, o);
	hold(ts, th->uuid, enclosing ? PT_KFLOW : PT_KOTHER, 0);
	if (rec->f[LT_PH].p[0] != 's') {
		fe->key = key;
		fe->ts = ts;
		fe->h = held;
	}
}

/* b, e, n: async events, on tracks of their id, cat and name. */
static void
async(const struct ltrec *rec, const struct ptthread *th, int64_t ts)
{
	struct extra e;
	const char *v, *s;
	uint64_t id;
	uint32_t f;
	size_t vn, o, sn;

	readextra(&rec->f[LT_EXTRA], &e);
	f = LEG_UNSCOPED_ID;
	v = e.id.p;
	vn = e.id.n;
	if (v == NULL && e.id2.p != NULL) {
		if ((v = lt_json_member(e.id2.p, e.id2.n, "local", &vn)) !=
		    NULL)
			f = LEG_LOCAL_ID;
		else if ((v = lt_json_member(e.id2.p, e.id2.n, "global",
		    &vn)) != NULL)
			f = LEG_GLOBAL_ID;
	}
	if (v == NULL || !pt_id(v, vn, &id)) {
		pt_count.badid++;
		return;
	}
	o = legacy(rec, th, 1);
	pb_uint(&pk, f, id);
	if (e.scope.p != NULL && e.scope.p[0] == '"') {
		s = pt_str(&sval, e.scope.p + 1, e.scope.n - 2, &sn);
		pb_bytes(&pk, LEG_ID_SCOPE, s, sn);
	}
	pb_close(&pk, o);
	hold(ts, th->uuid, PT_KOTHER, 0);
}

/*
 * C: each member of args a counter "NAME KEY" of the process, each on a
 * sequence of its own, whose times go forward.
 */
static void
counter(const struct ltrec *rec, int64_t ts)
{
	struct ltobj it;
	struct ltfield k, v;
	const char *s, *num;
	uint64_t uuid;
	uint32_t proc, seq;
	size_t n, numn;
	int64_t iv;
	double d;
	int ok;

	proc = pt_process(&rec->f[LT_PID], &rec->f[LT_EXTRA]);
	lt_obj_init(&it, rec->f[LT_ARGS].p, rec->f[LT_ARGS].n);
	while (lt_obj_next(&it, &k, &v) > 0) {
		if (v.p[0] == '"') {
			num = pt_str(&sval, v.p + 1, v.n - 2, &numn);
			ok = numn > 0 && memchr(num, '\0', numn) == NULL &&
			    pt_number(num, numn, &d);
		} else {
			num = v.p;
			numn = v.n;
			ok = (v.p[0] == '-' || (v.p[0] >= '0' &&
			    v.p[0] <= '9')) && pt_number(v.p, v.n, &d);
		}
		if (!ok) {
			pt_count.badcounter++;
			continue;
		}
		skey.n = 0;
		s = pt_str(&sname, rec->f[LT_NAME].p, rec->f[LT_NAME].n, &n);
		lt_buf_add(&skey, s, n);
		lt_buf_addc(&skey, ' ');
		s = pt_str(&sname, k.p + 1, k.n - 2, &n);
		lt_buf_add(&skey, s, n);
		uuid = pt_counter(proc, skey.p, skey.n, &seq);
		pt_seq_use(seq, uuid);
		bare();
		pb_uint(&pk, EV_TYPE, TYPE_COUNTER);
		track(uuid);
		/* an integer in a varint: Perfetto makes the same double */
		if ((numn < 2 || num[0] != '-' || num[1] != '0') &&
		    lt_int_parse(num, numn, &iv) == LT_NUM_OK)
			pb_int(&pk, EV_COUNTER_VALUE, iv);
		else
			pb_double(&pk, EV_DOUBLE_VALUE, d);
		end();
		pt_put_at(ts, (uint32_t)uuid, PT_KOTHER, pk.p, pk.n);
	}
}

/* M: the names and sort indexes of processes and threads. */
static void
meta(const struct ltrec *rec)
{
	const struct ltfield *name = &rec->f[LT_NAME];
	const struct ltfield *args = &rec->f[LT_ARGS];
	const char *v, *s;
	size_t vn, n;
	int64_t rank;
	int32_t r32;
	int proc;

	if (LT_IS(*name, "process_name") || LT_IS(*name, "thread_name")) {
		proc = name->p[0] == 'p';
		v = lt_json_member(args->p, args->n, "name", &vn);
		if (v == NULL || v[0] != '"' || vn == 2)
			return;		/* Perfetto's JSON importer fails it */
		s = pt_str(&sval, v + 1, vn - 2, &n);
		if (proc)
			pt_process_name(pt_process(&rec->f[LT_PID],
			    &rec->f[LT_EXTRA]), s, n);
		else
			pt_thread_name(pt_thread(&rec->f[LT_PID],
			    &rec->f[LT_TID], &rec->f[LT_EXTRA]), s, n);
	} else if (LT_IS(*name, "process_sort_index") ||
	    LT_IS(*name, "thread_sort_index")) {
		proc = name->p[0] == 'p';
		v = lt_json_member(args->p, args->n, "sort_index", &vn);
		if (v == NULL || lt_int_parse(v, vn, &rank) != LT_NUM_OK)
			return;
		/*
		 * sibling_order_rank is an int32; Perfetto's JSON importer
		 * keeps the low 32 bits of a larger one (4298067783 is
		 * 3100487), and so does the .pftrace.
		 */
		r32 = (int32_t)(uint32_t)((uint64_t)rank & 0xffffffffU);
		if (proc)
			pt_process_rank(pt_process(&rec->f[LT_PID],
			    &rec->f[LT_EXTRA]), r32);
		else
			pt_thread_rank(pt_thread(&rec->f[LT_PID],
			    &rec->f[LT_TID], &rec->f[LT_EXTRA]), r32);
	}
}

/*
 * The columns of a record that was valid but not canonical, made so;
 * args apart (argscheck).
 */
static void
canonical(struct ltrec *rec)
{
	struct ltjson j;
	int i;

	for (i = LT_CAT; i < LT_NCOL; i++) {
		if (i == LT_ARGS)
			continue;
		fix[i].n = 0;
		if (i == LT_CAT || i == LT_NAME)
			lt_json_str(rec->f[i].p, rec->f[i].n, &fix[i], &j);
		else
			lt_json_whole(rec->f[i].p, rec->f[i].n, &fix[i], &j);
		rec->f[i].p = fix[i].p != NULL ? fix[i].p : rec->f[i].p;
		rec->f[i].n = fix[i].n;
	}
}

/*
 * Check a record (litracer-stream(5)).  Args that become annotations,
 * the longest column, are checked as they are written (pt_args), in
 * the same pass, or at the end of the record when they are not written.
 * Returns 1 when columns had to be made canonical.
 */
static int
check(struct ltrec *rec, int64_t t[2], int has[2])
{
	struct ltfield args = rec->f[LT_ARGS];
	const char *why;
	int col, r;

	rec->f[LT_ARGS].p = (char *)"{}";
	rec->f[LT_ARGS].n = 2;
	r = lt_rec_checkts(rec, &why, &col, t, has, rd->valid ?
	    LT_CHECK_TRUST : LT_CHECK_ALL);
	rec->f[LT_ARGS] = args;
	if (r < 0)
		lt_rd_bad(rd, "column %s: %s", lt_colname[col], why);
	switch (rec->f[LT_PH].p[0]) {
	case 'X': case 'B': case 'E': case 'i': case 'I': case 'R':
	case 'b': case 'e': case 'n':
		late = 1;
		break;
	default:
		late = 0;
	}
	if (rd->valid)
		late = 0;	/* args are valid and canonical */
	else if (!late && !lt_obj_plain(args.p, args.n))
		rec->f[LT_ARGS] = argscheck(args);
	return r;
}

/*
 * Is ph a phase written here (record() has a case for each)?  A switch,
 * not strchr(3) on the list: a call for every record.  The phase column
 * is one printable character (check()), never the list's NUL.
 */
static int
supported(int ph)
{
	switch (ph) {
	case 'X': case 'B': case 'E': case 'i': case 'I': case 'R':
	case 's': case 't': case 'f': case 'b': case 'e': case 'n':
		return 1;
	}
	return 0;
}

static void
record(struct ltrec *rec)
{
	struct ptthread *th;
	uint32_t seq;
	int64_t t[2];
	int has[2], ph;

	if (check(rec, t, has) > 0)
		canonical(rec);
	if (pt_tallying)
		lt_tally_event(rec, has[0], t[0], has[1], t[1]);
	ph = rec->f[LT_PH].p[0];
	if (ph == 'M') {
		meta(rec);
		return;
	}
	if (!has[0]) {
		pt_count.nots++;
		return;
	}
	if (t[0] < 0) {
		pt_count.negative++;
		return;
	}
	if (!based) {
		pt_out_base(t0set ? t0 : t[0]);
		based = 1;
	}
	if (ph == 'C') {
		counter(rec, t[0]);
		return;
	}
	if (!supported(ph)) {
		pt_count.unsupported++;
		return;
	}
	if (pt_intern_due()) {
		pt_flush();
		pt_intern_reset();
	}
	th = pt_thread(&rec->f[LT_PID], &rec->f[LT_TID], &rec->f[LT_EXTRA]);
	seq = pt_thread_seq(th);
	pt_seq_use(seq, seq == th->seq ? th->uuid : 0);
	switch (ph) {
	case 'X':
		slice(rec, th, t[0], has[1], t[1]);
		break;
	case 'B':
		typed(rec, th, TYPE_SLICE_BEGIN, 1);
		hold(t[0], th->uuid, PT_KPUSH, 0);
		break;
	case 'E':
		sliceend(rec, th, t[0]);
		break;
	case 'i':
	case 'I':
		instant(rec, th, t[0]);
		break;
	case 'R':
		typed(rec, th, TYPE_INSTANT, 0);
		hold(t[0], th->uuid, PT_KPUSH, 0);
		break;
	case 's':
	case 't':
	case 'f':
		flow(rec, th, t[0]);
		break;
	default:
		async(rec, th, t[0]);
	}
}

/* One record: its packets, its args checked even when none is written. */
void
pt_record(struct ltrd *r, struct ltrec *rec)
{
	rd = r;
	record(rec);
	if (late)
		argscheck(rec->f[LT_ARGS]);
}

/* #t0: where the stream's times start, our clock's base. */
void
pt_t0(const char *p, size_t n)
{
	int64_t v;

	if (!t0set && lt_us_parse(p, n, &v) == LT_NUM_OK && v >= 0) {
		t0 = v;
		t0set = 1;
	}
}

void
pt_event_free(void)
{
	int i;

	for (i = 0; i < LT_NCOL; i++)
		lt_buf_free(&fix[i]);
	lt_buf_free(&pk);
	lt_buf_free(&sname);
	lt_buf_free(&skey);
	lt_buf_free(&sval);
	pt_args_free();
	for (i = 0; i < NAMES; i++)
		pt_seqs_free(&namememo[i].seqs);
	memset(namememo, 0, sizeof(namememo));
	memset(&pt_count, 0, sizeof(pt_count));
	memset(ends, 0, sizeof(ends));
	t0set = based = 0;
	lastxn = SIZE_MAX;
}
