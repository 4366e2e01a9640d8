/* See LICENSE file for copyright and license details. */
/*
 * tracks.c: the processes, threads and counters of the trace, each a
 * track with a TrackDescriptor, and their names and sort order.
 *
 * A process and a thread are what Perfetto makes of the pid and tid of
 * a JSON event, so that the .pftrace of a stream has the threads of
 * its JSON trace (ltjson(1)): a number is cut to an integer, and one
 * below 0 or above 2^32-1 is 0; a missing pid is 0, a missing tid or a
 * tid of 0 is the pid; true, false, null and the like are 0.  A string
 * is a thread (or process) of its own, named by the string, which no M
 * record renames.  A pid must also fit the descriptor's int32: strings
 * and pids above 2^31-1 get numbers counted down from 2^31-1.
 *
 * Descriptors of processes and threads are written at the end, when
 * every M record has named and ranked them (ltparse writes M records
 * after the events); Perfetto reads all descriptors before any event.
 * Counter tracks, and the tracks of slices that cross others, are
 * written when first used.
 */
#include <stdlib.h>

#include "ltproto.h"
#include "strtab.h"

struct ptproc {
	uint64_t	 uuid;
	uint32_t	 seq;		/* of its threads' first events, or 0 */
	uint32_t	 pid;
	uint32_t	 name;		/* in names: index + 1, 0 for none */
	int32_t		 rank;
	unsigned	 hasrank : 1;
	unsigned	 strname : 1;
};

struct ctr {
	uint32_t	 proc;
	uint32_t	 seq;		/* its packet sequence */
	size_t		 off, len;	/* name in ctrnames */
	uint64_t	 uuid;
};

static struct ptproc	*procs;
static size_t		 nprocs, capprocs;
static struct ptthread	*threads;
static size_t		 nthreads, capthreads;
static struct ctr	*ctrs;
static size_t		 nctrs, capctrs;
static struct ltbuf	 ctrnames;
/*
 * Processes, threads and counters by what names them: indices alone, 4
 * bytes a slot, as a long job has a thread for every worker it ever had.
 */
static struct ltix	 procix, threadix, ctrix;
static struct ltmap	 synmap;
static struct ltbuf	 synkeys;	/* keys of synthetic ids */
static size_t		*synoff, *synlen;
static size_t		 nsyn, capsyn;
static uint64_t		 nextuuid = 1;
static uint32_t		 nextseq = SEQ_COMMON + 1;
static int		 procranks, threadranks;
static struct ltbuf	 pkt, str;

/*
 * The threads of pid and tid columns met lately, by a hash of their
 * text: a stream interleaves the records of its threads.
 */
#define TCACHEBITS	6
#define TCACHE		(1 << TCACHEBITS)
static struct tmemo {
	char		 p[23], t[23];
	uint8_t		 pn, tn;	/* 0: empty */
	uint32_t	 th;
}			 tcache[TCACHE];

/*
 * Four bytes of p[0..n), n > 0: its last four, or all of a shorter one
 * (first, middle and last), and n.
 */
static uint32_t
idbytes(const char *p, size_t n)
{
	uint32_t w;

	if (n >= 4) {
		memcpy(&w, p + n - 4, 4);
		return w ^ (uint32_t)n;
	}
	return (uint32_t)(unsigned char)p[0] |
	    (uint32_t)(unsigned char)p[n / 2] << 8 |
	    (uint32_t)(unsigned char)p[n - 1] << 16 | (uint32_t)n << 24;
}

/*
 * The slot of the cache for a pid and tid, both not empty: by their
 * last bytes (the ids of a stream differ in their last digits, or in
 * length), multiplied so that the top bits depend on all of them.  Any
 * spread will do, a hit compares the text; this has no loop and no
 * call, where two lt_hash() calls, made for every record, had both.
 */
static struct tmemo *
tslot(const struct ltfield *pid, const struct ltfield *tid)
{
	uint32_t h;

	h = idbytes(pid->p, pid->n) * 0x9e3779b1U ^
	    idbytes(tid->p, tid->n) * 0x85ebca6bU;
	return &tcache[h >> (32 - TCACHEBITS)];
}

#define SYN_TOP		((uint32_t)INT32_MAX)

/*
 * The names of processes and threads, each once: a long job has
 * thousands of threads with a handful of names.  A name ends at its
 * first NUL, if it has one.
 */
static struct ltstrtab	 names;

static void
setname(uint32_t *dst, const char *p, size_t n)
{
	const char *z = memchr(p, '\0', n);

	*dst = (uint32_t)lt_strtab_get(&names, p, z != NULL ?
	    (size_t)(z - p) : n, NULL) + 1;
}

/* Name i as a field of pkt, if there is one. */
static void
putname(int field, uint32_t i)
{
	const char *p;
	size_t n;

	if (i == 0)
		return;
	p = lt_strtab_key(&names, i - 1, &n);
	pb_bytes(&pkt, field, p, n);
}

static int
syneq(const void *arg, uint32_t i)
{
	const struct ltbuf *k = arg;

	return synlen[i] == k->n && memcmp(synkeys.p + synoff[i], k->p,
	    k->n) == 0;
}

/* The synthetic number of key (a string, or a pid too big for int32). */
static uint32_t
synthetic(const struct ltbuf *key)
{
	uint32_t *v;
	int isnew;

	v = lt_map_get(&synmap, lt_hash(key->p, key->n), syneq, key, &isnew);
	if (isnew) {
		if (nsyn >= SYN_TOP / 2)
			lt_die(LT_EXIT_SYS, "too many string pids and tids");
		synoff = lt_grow(synoff, &capsyn, nsyn + 1, sizeof(*synoff));
		synlen = lt_reallocarray(synlen, capsyn, sizeof(*synlen));
		synoff[nsyn] = synkeys.n;
		synlen[nsyn] = key->n;
		lt_buf_add(&synkeys, key->p, key->n);
		*v = (uint32_t)nsyn++;
	}
	return SYN_TOP - *v;
}

/* A JSON number as Perfetto takes a pid or tid: cut, then 0 if outside. */
static uint32_t
idnumber(const char *p, size_t n)
{
	int64_t v;
	double d;

	if (lt_int_parse(p, n, &v) == LT_NUM_OK)
		return v >= 0 && v <= (int64_t)UINT32_MAX ? (uint32_t)v : 0;
	if (!pt_number(p, n, &d) || !(d > -1.0 && d < 4294967296.0))
		return 0;
	return (uint32_t)d;
}

enum { ID_NONE, ID_NUM, ID_STR };

/*
 * The pid or tid of column f, or of member key of extra when f is "-".
 * A string is decoded into str.
 */
static int
idcolumn(const struct ltfield *f, const struct ltfield *extra,
    const char *key, uint32_t *num)
{
	struct ltobj it;
	struct ltfield k, v;
	size_t kn = strlen(key);

	if (f->n > 0 && f->p[0] == '"') {
		str.n = 0;
		lt_unesc(&str, f->p + 1, f->n - 2);
		return ID_STR;
	}
	if (!LT_ISNONE(*f)) {
		*num = idnumber(f->p, f->n);
		return ID_NUM;
	}
	if (extra->n <= 2)
		return ID_NONE;
	lt_obj_init(&it, extra->p, extra->n);
	while (lt_obj_next(&it, &k, &v) > 0)
		if (k.n == kn + 2 && memcmp(k.p + 1, key, kn) == 0) {
			*num = v.n > 0 && (v.p[0] == '-' ||
			    (v.p[0] >= '0' && v.p[0] <= '9')) ?
			    idnumber(v.p, v.n) : 0;
			return ID_NUM;
		}
	return ID_NONE;
}

static void
descriptor_begin(uint64_t uuid, size_t *o, size_t *d)
{
	pkt.n = 0;
	*o = pb_open(&pkt, TRACE_PACKET);
	*d = pb_open(&pkt, PKT_TRACK_DESC);
	pb_uint(&pkt, TD_UUID, uuid);
}

static void
descriptor_end(size_t o, size_t d)
{
	pb_close(&pkt, d);
	pb_close(&pkt, o);
	pt_put(pkt.p, pkt.n);
}

static void
putproc(struct ptproc *pr)
{
	size_t o, d, m;

	descriptor_begin(pr->uuid, &o, &d);
	m = pb_open(&pkt, TD_PROCESS);
	pb_uint(&pkt, PD_PID, pr->pid);
	putname(PD_NAME, pr->name);
	pb_close(&pkt, m);
	if (pr->hasrank)
		pb_int(&pkt, TD_RANK, pr->rank);
	descriptor_end(o, d);
}

static void
putthread(struct ptthread *th)
{
	size_t o, d, m;

	descriptor_begin(th->uuid, &o, &d);
	m = pb_open(&pkt, TD_THREAD);
	pb_uint(&pkt, THD_PID, procs[th->proc].pid);
	pb_uint(&pkt, THD_TID, th->tid);
	putname(THD_NAME, th->name);
	pb_close(&pkt, m);
	if (th->hasrank)
		pb_int(&pkt, TD_RANK, th->rank);
	descriptor_end(o, d);
}

static int
proceq(const void *arg, uint32_t i)
{
	return procs[i].pid == *(const uint32_t *)arg;
}

static uint64_t
prochash(const void *ctx, uint32_t i)
{
	(void)ctx;
	return lt_mix(procs[i].pid);
}

/* The process of number pid (named name[0..n) when not NULL). */
static uint32_t
process(uint32_t pid, const char *name, size_t n)
{
	struct ptproc *pr;
	uint32_t *v;

	lt_ix_room(&procix, prochash, NULL);
	v = lt_ix_get(&procix, lt_mix(pid), proceq, &pid);
	if (*v != 0)
		return *v - 1;
	procs = lt_grow(procs, &capprocs, nprocs + 1, sizeof(*procs));
	pr = &procs[nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->uuid = nextuuid++;
	pr->pid = pid;
	if (name != NULL) {
		setname(&pr->name, name, n);
		pr->strname = 1;
	}
	lt_ix_set(&procix, v, (uint32_t)nprocs);
	return (uint32_t)nprocs++;
}

/* The process of a pid column (and extra, when it is "-"). */
static uint32_t
pidof(const struct ltfield *pid, const struct ltfield *extra)
{
	uint32_t num = 0;

	switch (idcolumn(pid, extra, "pid", &num)) {
	case ID_STR:
		lt_buf_addc(&str, 's');
		return process(synthetic(&str), str.p, str.n - 1);
	case ID_NUM:
		if (num > SYN_TOP) {
			str.n = 0;
			lt_buf_addc(&str, 'n');
			lt_buf_add(&str, &num, sizeof(num));
			num = synthetic(&str);
		}
		break;
	}
	return process(num, NULL, 0);
}

uint32_t
pt_process(const struct ltfield *pid, const struct ltfield *extra)
{
	return pidof(pid, extra);
}

struct tkey {
	uint32_t	 proc, tid;
};

static int
threadeq(const void *arg, uint32_t i)
{
	const struct tkey *k = arg;

	return threads[i].proc == k->proc && threads[i].tid == k->tid;
}

static uint64_t
threadhash(const void *ctx, uint32_t i)
{
	(void)ctx;
	return lt_mix((uint64_t)threads[i].proc << 32 | threads[i].tid);
}

/* The thread of the pid and tid columns of a record. */
struct ptthread *
pt_thread(const struct ltfield *pid, const struct ltfield *tid,
    const struct ltfield *extra)
{
	struct ptthread *th;
	struct tmemo *m;
	struct tkey k;
	uint32_t *v, num = 0;
	int kind;

	m = NULL;
	/* ids of 1 to 22 bytes are cached (tslot reads a byte of each) */
	if (pid->n - 1 < sizeof(m->p) - 1 && tid->n - 1 < sizeof(m->t) - 1 &&
	    !LT_ISNONE(*pid) && !LT_ISNONE(*tid)) {
		m = tslot(pid, tid);
		if (m->pn == pid->n && m->tn == tid->n &&
		    lt_same(pid->p, m->p, pid->n) &&
		    lt_same(tid->p, m->t, tid->n))
			return &threads[m->th];
	}
	k.proc = pidof(pid, extra);
	kind = idcolumn(tid, extra, "tid", &num);
	if (kind == ID_STR) {
		lt_buf_addc(&str, 's');
		num = synthetic(&str);
		str.n--;
	} else if (kind == ID_NONE || num == 0)
		num = procs[k.proc].pid;
	k.tid = num;
	lt_ix_room(&threadix, threadhash, NULL);
	v = lt_ix_get(&threadix, lt_mix((uint64_t)k.proc << 32 | k.tid),
	    threadeq, &k);
	if (*v == 0) {
		threads = lt_grow(threads, &capthreads, nthreads + 1,
		    sizeof(*threads));
		th = &threads[nthreads];
		memset(th, 0, sizeof(*th));
		th->uuid = nextuuid++;
		th->seq = 0;
		th->proc = k.proc;
		th->tid = k.tid;
		if (kind == ID_STR) {
			setname(&th->name, str.p, str.n);
			th->strname = 1;
		}
		lt_ix_set(&threadix, v, (uint32_t)nthreads++);
	}
	if (m != NULL) {
		memcpy(m->p, pid->p, pid->n);
		memcpy(m->t, tid->p, tid->n);
		m->pn = (uint8_t)pid->n;
		m->tn = (uint8_t)tid->n;
		m->th = *v - 1;
	}
	return &threads[*v - 1];
}

/* process_name and thread_name: a string pid or tid keeps its own. */
void
pt_process_name(uint32_t proc, const char *p, size_t n)
{
	struct ptproc *pr = &procs[proc];

	if (pr->strname)
		return;
	setname(&pr->name, p, n);
}

void
pt_thread_name(struct ptthread *th, const char *p, size_t n)
{
	if (th->strname)
		return;
	setname(&th->name, p, n);
}

/* The first rank of each stands, as in Perfetto's JSON importer. */
void
pt_process_rank(uint32_t proc, int32_t rank)
{
	if (procs[proc].hasrank)
		return;
	procs[proc].rank = rank;
	procs[proc].hasrank = 1;
	procranks = 1;
}

void
pt_thread_rank(struct ptthread *th, int32_t rank)
{
	if (th->hasrank)
		return;
	th->rank = rank;
	th->hasrank = 1;
	threadranks = 1;
}

struct ckey {
	uint32_t	 proc;
	const char	*p;
	size_t		 n;
};

static int
ctreq(const void *arg, uint32_t i)
{
	const struct ckey *k = arg;

	return ctrs[i].proc == k->proc && ctrs[i].len == k->n &&
	    memcmp(ctrnames.p + ctrs[i].off, k->p, k->n) == 0;
}

static uint64_t
ctrhash(const void *ctx, uint32_t i)
{
	(void)ctx;
	return lt_hash(ctrnames.p + ctrs[i].off, ctrs[i].len) ^
	    lt_mix(ctrs[i].proc);
}

/*
 * The packet sequence of a thread's next event.  A sequence costs its
 * first packet, a clock and the strings it interns: a thread's first
 * SHARED events (all of those of a lane with a few slices) are on its
 * process's sequence, each naming its track; from then on the thread
 * has a sequence of its own, whose defaults name its track.  The X ends
 * that wait on the process's sequence go first (window.c), so that one
 * of the thread's does not come after what it precedes on the other.
 */
#define SHARED		16

uint32_t
pt_thread_seq(struct ptthread *th)
{
	struct ptproc *pr = &procs[th->proc];

	if (th->seq != 0)
		return th->seq;
	if (th->events < SHARED) {
		th->events++;
		if (pr->seq == 0)
			pr->seq = nextseq++;
		return pr->seq;
	}
	pt_out_drain(pr->seq);
	return th->seq = nextseq++;
}

/*
 * The counter track named p[0..n) of a process, as Perfetto makes one
 * of each member of a C event's args: "NAME KEY", under the process.
 */
uint64_t
pt_counter(uint32_t proc, const char *p, size_t n, uint32_t *seq)
{
	struct ckey k;
	struct ctr *c;
	uint32_t *v;
	size_t o, d, m;

	k.proc = proc;
	k.p = p;
	k.n = n;
	lt_ix_room(&ctrix, ctrhash, NULL);
	v = lt_ix_get(&ctrix, lt_hash(p, n) ^ lt_mix(proc), ctreq, &k);
	if (*v != 0) {
		*seq = ctrs[*v - 1].seq;
		return ctrs[*v - 1].uuid;
	}
	ctrs = lt_grow(ctrs, &capctrs, nctrs + 1, sizeof(*ctrs));
	c = &ctrs[nctrs];
	c->proc = proc;
	*seq = c->seq = nextseq++;
	c->off = ctrnames.n;
	c->len = n;
	c->uuid = nextuuid++;
	lt_buf_add(&ctrnames, p, n);
	lt_ix_set(&ctrix, v, (uint32_t)nctrs++);
	descriptor_begin(c->uuid, &o, &d);
	pb_uint(&pkt, TD_PARENT, procs[proc].uuid);
	pb_bytes(&pkt, TD_NAME, p, n);
	m = pb_open(&pkt, TD_COUNTER);
	pb_close(&pkt, m);
	descriptor_end(o, d);
	return c->uuid;
}

/*
 * A track of its own for one slice of a thread that crosses another
 * (roots.c), beside the thread's: so Perfetto's JSON importer moves such
 * a slice, to a track where slices do not nest.  Tracks of one name are
 * shown as one.
 */
uint64_t
pt_spill(const struct ptthread *th)
{
	static const char name[] = "overlapping slices";
	uint64_t uuid = nextuuid++;
	size_t o, d;

	descriptor_begin(uuid, &o, &d);
	pb_uint(&pkt, TD_PARENT, th->uuid);
	pb_bytes(&pkt, TD_NAME, name, sizeof(name) - 1);
	descriptor_end(o, d);
	return uuid;
}

/*
 * The descriptors of processes and threads, at the end: Perfetto takes
 * the rank of a track from its first descriptor only, and the sort
 * indexes of ltparse's streams come after their events.  It reads
 * every descriptor before any event.
 */
void
pt_tracks_finish(void)
{
	size_t i, o, d;

	/* Perfetto reads ranks after the root descriptor only. */
	if (procranks || threadranks) {
		descriptor_begin(0, &o, &d);
		if (procranks)
			pb_uint(&pkt, TD_PROCESS_ORDER, 1);
		if (threadranks)
			pb_uint(&pkt, TD_THREAD_ORDER, 1);
		descriptor_end(o, d);
	}
	for (i = 0; i < nprocs; i++)
		putproc(&procs[i]);
	for (i = 0; i < nthreads; i++)
		putthread(&threads[i]);
}

void
pt_tracks_free(void)
{
	lt_strtab_free(&names);
	free(procs);
	free(threads);
	free(ctrs);
	free(synoff);
	free(synlen);
	lt_buf_free(&ctrnames);
	lt_buf_free(&synkeys);
	lt_buf_free(&pkt);
	lt_buf_free(&str);
	lt_ix_free(&procix);
	lt_ix_free(&threadix);
	lt_ix_free(&ctrix);
	lt_map_free(&synmap);
	procs = NULL;
	threads = NULL;
	ctrs = NULL;
	synoff = synlen = NULL;
	nprocs = capprocs = nthreads = capthreads = nctrs = capctrs = 0;
	nsyn = capsyn = 0;
	nextuuid = 1;
	nextseq = SEQ_COMMON + 1;
	procranks = threadranks = 0;
	memset(tcache, 0, sizeof(tcache));
}
