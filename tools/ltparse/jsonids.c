/* See LICENSE file for copyright and license details. */
/*
 * jsonids.c: the pids and tids of ltparse's JSON inputs, as Perfetto
 * can take them.
 *
 * Perfetto takes a pid or tid in 0..2^32-1; any other number becomes 0
 * (a fraction is cut first), and a tid of 0 then becomes the pid, so
 * that the thread joins its process's main thread and their slices
 * cross.  A string id is a thread of its own, never the one of the
 * number it spells (Kineto 2021 writes X slices with string tids and
 * their flows with the numbers).  So every id is written as an integer:
 *
 * - a tid in 1..2^32-1 or a pid in 0..2^31-1 (a .pftrace holds pids
 *   as int32: ThreadDescriptor) stays what it is, and so does a string
 *   that spells one: they are one thread;
 * - any other id (negative, too large, a fraction, an exponent, a
 *   string) gets a fresh one, a tid in 2^31..2^32-2 and a pid in
 *   2^30..2^31-2, from a hash of how it is written, never 0, never its
 *   process's pid, never one a thread of its process has; an integer
 *   that comes after a fresh id took it gets a fresh one too;
 * - with a block (-n, several inputs) pids move to the block, as the
 *   logs' do.
 *
 * A process or thread whose id changed keeps its id as written in its
 * name: a name the trace gives it gets " (pid P)", " (tid T)" or " (node
 * N, pid P)" after it, and one it does not name gets an M record at the
 * end ("tid -19360192", or the string; an empty one is 'pid ""' and
 * 'tid ""', as Perfetto fails an empty name).  Memory grows with the
 * threads.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"

#define PIDBITS		22	/* as in procs.c */
#define FRESH0		0x80000000U
#define FRESHN		0x7fffffffU	/* fresh tids: FRESH0 .. FRESH0+FRESHN-1 */
#define PFRESH0		0x40000000U
#define PFRESHN		0x3fffffffU	/* fresh pids, below 2^31 */
#define PIDMAX		0x7fffffff	/* a .pftrace holds no pid above */

/* A process or a thread: its id as written, and as written out. */
struct jid {
	const struct pspin *in;
	uint32_t	 proc;		/* threads: index of the process */
	int		 kind;		/* LT_JID_* */
	int		 str;
	int64_t		 v;
	char		*text;		/* PS_JID_TEXT: as written */
	size_t		 n;
	uint64_t	 out;		/* the id written */
	int		 changed;	/* out is not the id as written */
	int		 named;		/* the trace names it */
	uint32_t	 next;		/* the next changed thread, or 0 */
	uint32_t	 first, last;	/* processes: their changed threads */
};

static struct jid	*procs, *threads;	/* threads[0] unused */
static size_t		 nprocs, capprocs, nthreads = 1, capthreads;
static struct ltmap	 pbyid, tbyid, pbyout, tbyout;
static struct ltbuf	 suffix;
static const struct pspin *lastin;	/* the ids ps_jsonids() saw last */
static struct psjid	 lastid[2];
static uint32_t		 lastp, lastt;

/* The hash of an id as written (the same whatever input holds it). */
static uint64_t
idhash(const struct psjid *id)
{
	if (id->kind == PS_JID_INT)
		return lt_mix((uint64_t)id->v ^ 0x1dULL);
	if (id->kind == PS_JID_NONE)
		return 0x2bULL;
	return lt_hash(id->p, id->n) ^ (uint64_t)id->str;
}

static int
sameid(const struct jid *e, const struct psjid *id)
{
	if (e->kind != id->kind)
		return 0;
	if (id->kind == PS_JID_INT)
		return e->v == id->v;
	return id->kind == PS_JID_NONE || (e->str == id->str &&
	    e->n == id->n && memcmp(e->text, id->p, id->n) == 0);
}

struct key {
	const struct pspin	*in;
	uint32_t		 proc;
	const struct psjid	*id;
};

static int
eqproc(const void *arg, uint32_t v)
{
	const struct key *k = arg;

	return procs[v].in == k->in && sameid(&procs[v], k->id);
}

static int
eqthread(const void *arg, uint32_t v)
{
	const struct key *k = arg;

	return threads[v].proc == k->proc && sameid(&threads[v], k->id);
}

struct outkey {
	const struct pspin	*in;	/* pids: of this input */
	uint32_t		 proc;	/* tids: of this process */
	uint64_t		 out;
};

static int
eqpidout(const void *arg, uint32_t v)
{
	const struct outkey *k = arg;

	return procs[v].in == k->in && procs[v].out == k->out;
}

static int
eqtidout(const void *arg, uint32_t v)
{
	const struct outkey *k = arg;

	return threads[v].proc == k->proc && threads[v].out == k->out;
}

static int
pidtaken(const struct pspin *in, uint64_t pid)
{
	struct outkey k;

	k.in = in;
	k.out = pid;
	return lt_map_get(&pbyout, lt_mix(pid ^ in->index), eqpidout, &k,
	    NULL) != NULL;
}

static int
tidtaken(uint32_t proc, uint64_t tid)
{
	struct outkey k;

	k.proc = proc;
	k.out = tid;
	return lt_map_get(&tbyout, lt_mix(tid ^ (uint64_t)proc << 32),
	    eqtidout, &k, NULL) != NULL;
}

/* Keep the id as written in e, for the names. */
static void
keep(struct jid *e, const struct psjid *id)
{
	e->kind = id->kind;
	e->str = id->str;
	e->v = id->v;
	e->text = NULL;
	e->n = 0;
	if (id->kind == PS_JID_TEXT) {
		e->text = lt_malloc(id->n + 1);
		memcpy(e->text, id->p, id->n);
		e->text[id->n] = '\0';
		e->n = id->n;
	}
}

/* The pid to write for a process of input in whose id is id. */
static uint64_t
outpid(const struct pspin *in, const struct psjid *id, int *changed)
{
	uint64_t low, pid, h = idhash(id);
	int valid = id->kind == PS_JID_INT && id->v >= 0 &&
	    id->v <= PIDMAX;

	*changed = !valid;
	if (in->block != 0) {
		/* block * 2^22 + pid, moved on to the next free one. */
		low = (valid ? (uint64_t)id->v : h) & ((1 << PIDBITS) - 1);
		while (pid = (uint64_t)in->block << PIDBITS | low,
		    pidtaken(in, pid))
			low = (low + 1) & ((1 << PIDBITS) - 1);
		return pid;
	}
	if (valid && !pidtaken(in, (uint64_t)id->v))
		return (uint64_t)id->v;
	*changed = 1;
	for (pid = PFRESH0 + h % PFRESHN; pidtaken(in, pid);
	    pid = pid + 1 < PFRESH0 + PFRESHN ? pid + 1 : PFRESH0)
		;
	return pid;
}

/* The process of pid id of input in, made if new. */
static uint32_t
getproc(const struct pspin *in, const struct psjid *id)
{
	struct outkey ok;
	struct key k;
	struct jid *e;
	uint32_t *v;
	int created;

	k.in = in;
	k.id = id;
	v = lt_map_get(&pbyid, idhash(id) ^ in->index, eqproc, &k, &created);
	if (!created)
		return *v;
	procs = lt_grow(procs, &capprocs, nprocs + 1, sizeof(*procs));
	e = &procs[nprocs];
	memset(e, 0, sizeof(*e));
	e->in = in;
	keep(e, id);
	/* No pid: the tids are those of pid 0, as Perfetto takes them. */
	if (id->kind != PS_JID_NONE)
		e->out = outpid(in, id, &e->changed);
	*v = (uint32_t)nprocs;
	if (id->kind != PS_JID_NONE) {
		ok.in = in;
		ok.out = e->out;
		*lt_map_get(&pbyout, lt_mix(e->out ^ in->index), eqpidout,
		    &ok, &created) = (uint32_t)nprocs;
	}
	return (uint32_t)nprocs++;
}

/* The tid to write for tid id of process p. */
static uint64_t
outtid(uint32_t p, const struct psjid *id, int *changed)
{
	uint64_t tid, pid = procs[p].out;

	*changed = 0;
	if (id->kind == PS_JID_INT && id->v >= 0 &&
	    id->v <= (int64_t)UINT32_MAX && (id->v != 0 || pid == 0) &&
	    !tidtaken(p, (uint64_t)id->v))
		return (uint64_t)id->v;
	*changed = 1;
	for (tid = FRESH0 + idhash(id) % FRESHN; tid == pid ||
	    tidtaken(p, tid); tid = tid + 1 < FRESH0 + FRESHN ? tid + 1 :
	    FRESH0)
		;
	return tid;
}

/* The thread of tid id of process p, made if new. */
static uint32_t
getthread(uint32_t p, const struct psjid *id)
{
	struct outkey ok;
	struct key k;
	struct jid *e;
	uint32_t *v, t;
	int created;

	k.proc = p;
	k.id = id;
	v = lt_map_get(&tbyid, idhash(id) ^ (uint64_t)p << 40, eqthread, &k,
	    &created);
	if (!created)
		return *v;
	if (nthreads >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	threads = lt_grow(threads, &capthreads, nthreads + 1,
	    sizeof(*threads));
	t = *v = (uint32_t)nthreads++;
	e = &threads[t];
	memset(e, 0, sizeof(*e));
	e->proc = p;
	keep(e, id);
	e->out = outtid(p, id, &e->changed);
	ok.proc = p;
	ok.out = e->out;
	*lt_map_get(&tbyout, lt_mix(e->out ^ (uint64_t)p << 32), eqtidout,
	    &ok, &created) = t;
	if (e->changed) {
		if (procs[p].last != 0)
			threads[procs[p].last].next = t;
		else
			procs[p].first = t;
		procs[p].last = t;
	}
	return t;
}

/* Is it the empty string, which Perfetto would show as no name? */
static int
empty(const struct jid *e)
{
	return e->kind == PS_JID_TEXT && e->n == 0;
}

/* The id of e as written, as JSON string contents. */
static void
addid(struct ltbuf *b, const struct jid *e)
{
	char num[LT_NUMBUF];

	if (empty(e))
		lt_buf_adds(b, "\"\"");	/* visibly */
	else if (e->kind == PS_JID_TEXT)
		lt_buf_add(b, e->text, e->n);
	else
		lt_buf_add(b, num, lt_i64_fmt(num, e->v));
}

/*
 * The pid and tid to write for a JSON event of input in whose pid and
 * tid are id[0] and id[1], in out[0] and out[1].  An M event that names
 * its process (naming 'p') or thread ('t') gets the suffix to put after
 * the name, or NULL; the tid 0 of one of its process ('p', 'P') stays.
 */
const char *
ps_jsonids(const struct pspin *in, const struct psjid *id, int naming,
    uint64_t *out)
{
	struct jid *pr, *th = NULL;
	uint32_t p, t = 0;

	/* The events of one thread come in runs: the last, kept. */
	if (in == lastin && id[0].kind == PS_JID_INT && id[1].kind ==
	    PS_JID_INT && lastid[0].kind == PS_JID_INT && lastid[1].kind ==
	    PS_JID_INT && id[0].v == lastid[0].v && id[1].v == lastid[1].v) {
		p = lastp;
		t = lastt;
	} else {
		p = getproc(in, &id[0]);
		/* The tid 0 of a process's M event is no thread. */
		if (id[1].kind != PS_JID_NONE && !(id[1].kind == PS_JID_INT &&
		    id[1].v == 0 && (naming == 'p' || naming == 'P')))
			t = getthread(p, &id[1]);
		lastin = in;
		lastid[0] = id[0];
		lastid[1] = id[1];
		lastp = p;
		lastt = t;
	}
	pr = &procs[p];
	out[0] = pr->out;
	out[1] = 0;
	if (t != 0)
		out[1] = (th = &threads[t])->out;
	suffix.n = 0;
	if (naming == 'p') {
		pr->named = 1;
		if (!pr->changed && in->block == 0)
			return NULL;
		lt_buf_adds(&suffix, " (");
		if (in->block != 0) {
			lt_buf_adds(&suffix, in->label);
			lt_buf_adds(&suffix, ", ");
		}
		lt_buf_adds(&suffix, "pid ");
		addid(&suffix, pr);
	} else if (naming == 't' && th != NULL) {
		th->named = 1;
		if (!th->changed)
			return NULL;
		lt_buf_adds(&suffix, " (tid ");
		addid(&suffix, th);
	} else
		return NULL;
	lt_buf_add(&suffix, ")", 2);	/* with its NUL */
	return suffix.p;
}

/*
 * The M records of the processes and threads of input in whose ids
 * changed and which the trace does not name: "node N, pid P" or "pid
 * P" (a string: itself, and " (node N)"), and "tid T" (a string:
 * itself).
 */
void
ps_jsonnames(struct pssink *s, const struct pspin *in)
{
	struct ltbuf b = { NULL, 0, 0 };
	const struct jid *pr, *th;
	size_t i;
	uint32_t t;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		if (pr->in != in || pr->kind == PS_JID_NONE)
			continue;
		if (!pr->named && (pr->changed || in->block != 0)) {
			b.n = 0;
			if (pr->str && !empty(pr)) {
				addid(&b, pr);
				if (in->block != 0) {
					lt_buf_adds(&b, " (");
					lt_buf_adds(&b, in->label);
					lt_buf_addc(&b, ')');
				}
			} else {
				if (in->block != 0) {
					lt_buf_adds(&b, in->label);
					lt_buf_adds(&b, ", ");
				}
				lt_buf_adds(&b, "pid ");
				addid(&b, pr);
			}
			lt_buf_addc(&b, '\0');
			ps_sink_meta(s, pr->out, 0, "process_name", b.p, 0);
		}
		for (t = pr->first; t != 0; t = th->next) {
			th = &threads[t];
			if (th->named)
				continue;
			b.n = 0;
			if (!th->str || empty(th))
				lt_buf_adds(&b, "tid ");
			addid(&b, th);
			lt_buf_addc(&b, '\0');
			ps_sink_meta(s, pr->out, (uint32_t)th->out,
			    "thread_name", b.p, 0);
		}
	}
	lt_buf_free(&b);
}

/*
 * Flow ids at or above 2^53, which readers that hold JSON numbers as
 * doubles merge: each gets one of its own, the same for every event of
 * the run that carries it, from 2^53 - 1 down (far above the ids
 * profilers count from 0).
 */
static struct ltmap	 bigids;
static uint32_t		 nbig;

uint64_t
ps_jsonflowid(uint64_t id)
{
	uint32_t *v;
	int created;

	v = lt_map_get(&bigids, id, NULL, NULL, &created);
	if (created)
		*v = nbig++;
	return ((uint64_t)1 << 53) - 1 - *v;
}

/* Free it all; ps_jsonids() may start again. */
void
ps_jsonids_free(void)
{
	size_t i;

	lt_map_free(&bigids);
	nbig = 0;

	for (i = 0; i < nprocs; i++)
		free(procs[i].text);
	for (i = 1; i < nthreads; i++)
		free(threads[i].text);
	free(procs);
	free(threads);
	lt_map_free(&pbyid);
	lt_map_free(&tbyid);
	lt_map_free(&pbyout);
	lt_map_free(&tbyout);
	lt_buf_free(&suffix);
	procs = threads = NULL;
	nprocs = capprocs = capthreads = 0;
	nthreads = 1;
	lastin = NULL;
}
