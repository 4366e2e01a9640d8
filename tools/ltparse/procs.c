/* See LICENSE file for copyright and license details. */
/*
 * procs.c: the processes and threads of ltparse's inputs.
 *
 * Perfetto takes pid and tid as unsigned 32-bit numbers, and LitData's
 * thread ids are pthread addresses above 2^32: every (pid, thread id)
 * pair of a log gets a tid of its own, 1, 2, ... within its process in
 * the order of first appearance.  The pids of an input with a block
 * (several inputs, or -n) are moved into it, so that inputs never share
 * a pid.  At the end come the M records naming every process and thread
 * (ps_names).  Memory grows with the threads, never with the lines: 12
 * bytes a thread, about 34 a process with its slot in pbykey.
 * The ids of JSON inputs are jsonids.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"

/* Linux's pid_max is at most 2^22: an input's pids live in a block. */
#define PIDBITS		22

static struct psthread	*threads;	/* index 0 unused */
static size_t		 nthreads = 1, capthreads;
static struct psproc	*procs;
static size_t		 nprocs, capprocs;
static struct ltix	 pbykey, pbypid;	/* processes by key, by pid */
static struct ltmap	 tbyid;

/*
 * The threads of the processes that have more than LISTMAX: what tbyid
 * maps to.
 */
static struct bigthread {
	uint32_t	 th, proc, tid;
}			*bigs;
static size_t		 nbigs, capbigs;

/*
 * With parts (-P), what a process's events give from the other states a
 * part may start in, and what the parts before gave (ps_procs_load), by
 * process as procs; without, a process has only its own (nstate 1).
 */
static struct psstart {
	int64_t		 rank[PS_NSTART - 1], worker[PS_NSTART - 1];
	int64_t		 arank, aworker;
}			*starts;
static size_t		 capstarts;
static int		 nstate = 1;
/*
 * The threads ps_thread() gave last, each with what finds it (its OS
 * id, its process's key and input: none changes once made), its
 * process, its tid and the "\tpid\ttid\t-\t" of its records once made
 * (idn 0: not yet); the one given last is recent[cur].
 */
#define NRECENT		4

static struct recent {
	uint64_t	 os;
	uint64_t	 key;
	uint32_t	 in;
	uint32_t	 thread;	/* 0: none */
	uint32_t	 proc;
	uint32_t	 tid;
	uint16_t	 idn;
	uint16_t	 pidn;		/* of id: "\tpid" */
	char		 id[44];
}			 recent[NRECENT];
static unsigned		 cur, nextrecent;
static uint32_t		*order;		/* threadnames()'s */
static size_t		 caporder;
static int64_t		*wide;		/* rw()'s */
static size_t		 nwide, capwide;

struct tkey {
	uint32_t	 proc;
	uint64_t	 os;
};

/*
 * p with room for need elements, as lt_grow() gives it.  A table moved
 * leaves its old place free in the heap, resident: it goes back to the
 * system, else a long job's peak would count each table twice.
 */
static void *
grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t was = *cap;

	p = lt_grow(p, cap, need, size);
	if (*cap != was)
		lt_trim();
	return p;
}

static uint64_t
thos(const struct psthread *th)
{
	return (uint64_t)th->os[1] << 32 | th->os[0];
}

static uint64_t
thash(uint32_t proc, uint64_t os)
{
	return lt_mix(os * 0x9e3779b97f4a7c15ULL ^ proc);
}

static int
eqthread(const void *arg, uint32_t v)
{
	const struct tkey *k = arg;

	return bigs[v].proc == k->proc && thos(&threads[bigs[v].th]) == k->os;
}

/* The key of process pr: block << 32 | OS pid. */
static uint64_t
key(const struct psproc *pr)
{
	return (uint64_t)pr->block << 32 | pr->ospid;
}

static int
eqkey(const void *arg, uint32_t v)
{
	return key(&procs[v]) == *(const uint64_t *)arg;
}

static int
eqpid(const void *arg, uint32_t v)
{
	return procs[v].pid == *(const uint64_t *)arg;
}

static uint64_t
hashkey(const void *ctx, uint32_t v)
{
	(void)ctx;
	return lt_mix(key(&procs[v]));
}

static uint64_t
hashpid(const void *ctx, uint32_t v)
{
	(void)ctx;
	return lt_mix(procs[v].pid);
}

/* The process found in t for h, or -1. */
static long
pt_get(const struct ltix *t, uint64_t h,
    int (*eq)(const void *, uint32_t), const void *arg)
{
	uint32_t *v = lt_ix_get(t, h, eq, arg);

	return v != NULL && *v != 0 ? (long)*v - 1 : -1;
}

/*
 * The pid written for OS pid os of input in: os itself in block 0,
 * else block * 2^22 + os (os modulo 2^22 when larger, moved on to the
 * next free number if taken), so that inputs never share a pid.
 */
static uint64_t
outpid(const struct pspin *in, uint64_t os)
{
	uint64_t low = os & ((1 << PIDBITS) - 1), pid;

	if (in->block == 0)
		return os;
	while (pid = (uint64_t)in->block << PIDBITS | low,
	    pt_get(&pbypid, lt_mix(pid), eqpid, &pid) >= 0)
		low = (low + 1) & ((1 << PIDBITS) - 1);
	return pid;
}

/* The pid of process pr as written. */
static uint64_t
procpid(const struct psproc *pr)
{
	return pr->pid != 0 ? pr->pid : pr->ospid;
}

/* The process of OS pid os of input in, made if new. */
static uint32_t
getproc(const struct pspin *in, uint64_t os)
{
	uint64_t k = (uint64_t)in->block << 32 | os;
	struct psproc *pr;
	struct psstart *st;
	long p;

	if ((p = pt_get(&pbykey, lt_mix(k), eqkey, &k)) >= 0)
		return (uint32_t)p;
	if (nprocs >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many processes");
	/* logline.c reads no pid above 2^32 - 1, ltparse.c no more inputs. */
	if (os > UINT32_MAX || in->index >= PS_NBLOCKS ||
	    in->block >= PS_NBLOCKS)
		lt_die(LT_EXIT_SYS, "pid %llu of input %u: out of range",
		    (unsigned long long)os, (unsigned)in->index);
	procs = grow(procs, &capprocs, nprocs + 1, sizeof(*procs));
	pr = &procs[nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->ospid = (uint32_t)os;
	/* Below 2^32 too: the block is below 2^10. */
	if (in->block != 0)
		pr->pid = (uint32_t)outpid(in, os);
	pr->in = in->index;
	pr->block = in->block;
	pr->rank = pr->worker = -1;
	if (nstate > 1) {
		starts = grow(starts, &capstarts, nprocs + 1,
		    sizeof(*starts));
		st = &starts[nprocs];
		st->rank[PS_START_RANK - 1] = PS_INHERIT;
		st->worker[PS_START_RANK - 1] = -1;
		st->rank[PS_START_WORKER - 1] = -1;
		st->worker[PS_START_WORKER - 1] = PS_INHERIT;
		st->arank = st->aworker = -1;
	}
	lt_ix_add(&pbykey, (uint32_t)nprocs, hashkey, NULL);
	if (in->block != 0)
		lt_ix_add(&pbypid, (uint32_t)nprocs, hashpid, NULL);
	return (uint32_t)nprocs++;
}

/*
 * The thread os of process p, or 0; its tid goes to *tid.  A process's
 * first LISTMAX threads are found on its list: a long job has tens of
 * thousands of threads, most in worker processes of a few, and a slot
 * of tbyid for each would cost more than the thread.  Beyond, a
 * process's threads are in tbyid.
 */
#define LISTMAX		8

static uint32_t
findthread(uint32_t p, uint64_t os, uint32_t *tid)
{
	const struct psproc *pr = &procs[p];
	struct tkey k;
	uint32_t t, *v, n;

	if (pr->nthreads <= LISTMAX) {
		n = pr->nthreads;
		for (t = pr->last; t != 0; t = threads[t].next, n--)
			if (thos(&threads[t]) == os) {
				*tid = n;
				return t;
			}
		return 0;
	}
	k.proc = p;
	k.os = os;
	if ((v = lt_map_get(&tbyid, thash(p, os), eqthread, &k,
	    NULL)) != NULL) {
		*tid = bigs[*v].tid;
		return bigs[*v].th;
	}
	return 0;
}

/* Thread t of process p, of tid tid, into tbyid. */
static void
mapthread(uint32_t t, uint32_t p, uint32_t tid)
{
	struct tkey k;
	int created;

	bigs = lt_grow(bigs, &capbigs, nbigs + 1, sizeof(*bigs));
	bigs[nbigs].th = t;
	bigs[nbigs].proc = p;
	bigs[nbigs].tid = tid;
	k.proc = p;
	k.os = thos(&threads[t]);
	*lt_map_get(&tbyid, thash(p, k.os), eqthread, &k, &created) =
	    (uint32_t)nbigs++;
}

/*
 * The thread (in, pid, os), made if new; its process goes to *prp
 * unless prp is NULL.
 */
struct psthread *
ps_thread(const struct pspin *in, uint64_t pid, uint64_t os,
    struct psproc **prp)
{
	struct psthread *th;
	struct psproc *pr;
	struct recent *r;
	uint32_t t, p, n;
	uint64_t k;
	unsigned i, e;

	/*
	 * The lines of a thread come in runs, and the runs of a process's
	 * few threads interleave.
	 */
	k = (uint64_t)in->block << 32 | pid;
	for (i = 0; i < NRECENT; i++) {
		e = (cur + i) % NRECENT;
		r = &recent[e];
		if (r->os == os && r->key == k && r->in == in->index &&
		    r->thread != 0) {
			cur = e;
			goto found;
		}
	}
	p = getproc(in, pid);
	if ((t = findthread(p, os, &n)) != 0)
		goto recent;
	/* next has 28 bits. */
	if (nthreads >= (1U << 28) - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	threads = grow(threads, &capthreads, nthreads + 1,
	    sizeof(*threads));
	pr = &procs[p];
	th = &threads[nthreads];
	th->os[0] = (uint32_t)os;
	th->os[1] = (uint32_t)(os >> 32);
	th->next = pr->last;
	th->roles = 0;
	pr->last = (uint32_t)nthreads;
	n = ++pr->nthreads;
	/* Its list grows too long: the process's threads go to tbyid. */
	if (n == LISTMAX + 1)
		for (t = pr->last; t != 0; t = threads[t].next)
			mapthread(t, p, n--);
	else if (n > LISTMAX + 1)
		mapthread((uint32_t)nthreads, p, n);
	t = (uint32_t)nthreads++;
	n = pr->nthreads;
recent:
	cur = nextrecent;
	nextrecent = (cur + 1) % NRECENT;
	r = &recent[cur];
	r->os = os;
	r->key = k;
	r->in = in->index;
	r->thread = t;
	r->proc = p;
	r->tid = n;
	r->idn = 0;
found:
	if (prp != NULL)
		*prp = &procs[recent[cur].proc];
	return &threads[recent[cur].thread];
}

/* Has an event made the thread (in, pid, os)? */
int
ps_hasthread(const struct pspin *in, uint64_t pid, uint64_t os)
{
	uint64_t k = (uint64_t)in->block << 32 | pid;
	uint32_t tid;
	long p;

	if ((p = pt_get(&pbykey, lt_mix(k), eqkey, &k)) < 0)
		return 0;
	return findthread((uint32_t)p, os, &tid) != 0;
}

/*
 * "\tpid\ttid\t-\t" of the thread ps_thread() gave last, for its
 * lines, and in *pidn the length of its "\tpid": made once it is among
 * the recent ones (its lines come in runs), not kept for every thread.
 */
const char *
ps_threadid(size_t *n, size_t *pidn)
{
	struct recent *r = &recent[cur];

	if (r->idn == 0) {
		r->id[0] = '\t';
		r->idn = 1 + (uint16_t)lt_u64_fmt(r->id + 1,
		    procpid(&procs[r->proc]));
		r->pidn = r->idn;
		r->id[r->idn++] = '\t';
		r->idn += (uint16_t)lt_u64_fmt(r->id + r->idn, r->tid);
		memcpy(r->id + r->idn, "\t-\t", 3);
		r->idn += 3;
	}
	*n = r->idn;
	*pidn = r->pidn;
	return r->id;
}

static int
is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(p, s, n) == 0;
}

/* A rank or worker key: its value goes to *rank or *worker. */
static void
learnkv(const char *k, size_t kn, const char *v, size_t vn, int64_t *rank,
    int64_t *worker)
{
	int64_t x;

	if (lt_int_parse(v, vn, &x) != LT_NUM_OK || x < 0)
		return;
	if (is(k, kn, "dist_global_rank"))
		*rank = x;
	else if (is(k, kn, "worker_rank"))
		*worker = x;
}

/* Followed from each state a part may start in, with parts (-P). */
void
ps_procs_parts(void)
{
	nstate = PS_NSTART;
}

/*
 * A rank or a worker of a process in 32 bits: -1 and PS_INHERIT as
 * they are, one of 2^31 - 1 or more in wide[], as -3 - its place there.
 * A log never has such ranks, but a process keeps what it wrote.
 */
static int64_t
rw(int32_t v)
{
	return v < PS_INHERIT ? wide[-3 - (int64_t)v] : v;
}

static void
setrw(int32_t *f, int64_t v)
{
	if (v >= PS_INHERIT && v < INT32_MAX)
		*f = (int32_t)v;
	else if (*f < PS_INHERIT)
		wide[-3 - (int64_t)*f] = v;
	else {
		if (nwide >= INT32_MAX - 3)
			lt_die(LT_EXIT_SYS, "too many processes");
		wide = lt_grow(wide, &capwide, nwide + 1, sizeof(*wide));
		wide[nwide] = v;
		*f = (int32_t)(-3 - (int64_t)nwide++);
	}
}

/* The rank and the worker of process p from start state i. */
static int64_t
rankat(size_t p, int i)
{
	return i == PS_START_NONE ? rw(procs[p].rank) :
	    starts[p].rank[i - 1];
}

static int64_t
workerat(size_t p, int i)
{
	return i == PS_START_NONE ? rw(procs[p].worker) :
	    starts[p].worker[i - 1];
}

/* Set the rank (worker 0) or the worker of process p from state i. */
static void
setat(size_t p, int i, int worker, int64_t v)
{
	int64_t *at;

	if (i == PS_START_NONE) {
		setrw(worker ? &procs[p].worker : &procs[p].rank, v);
		return;
	}
	at = worker ? starts[p].worker : starts[p].rank;
	at[i - 1] = v;
}

/*
 * The rank and worker of a process, from the env keys of its events:
 * each event sets them until both are known.  So that the parts of -P
 * can put together what each saw, this is followed from each state a
 * part may start in (ps_procs_load).
 */
void
ps_learn(struct psproc *pr, const struct pslog *lg, const struct psnorm *nm)
{
	int64_t rank = -1, worker = -1;
	size_t j, p = (size_t)(pr - procs);
	int i, done = 1;

	if (nm->role & PS_ROLE_LOADER)
		pr->main = 1;
	if (lg->gen == PS_GEN_V1)
		pr->v1 = 1;
	for (i = 0; i < nstate; i++)
		done &= rankat(p, i) != -1 && workerat(p, i) != -1;
	if (done)
		return;
	for (i = 0; i < nm->narg; i++)
		learnkv(nm->arg[i].k, strlen(nm->arg[i].k), nm->arg[i].v,
		    nm->arg[i].vn, &rank, &worker);
	for (j = 0; j < lg->nkv && !nm->crash; j++)
		learnkv(lg->kv[j].k, lg->kv[j].kn, lg->kv[j].v, lg->kv[j].vn,
		    &rank, &worker);
	for (i = 0; i < nstate; i++) {
		if (rankat(p, i) != -1 && workerat(p, i) != -1)
			continue;
		if (rank >= 0)
			setat(p, i, 0, rank);
		if (worker >= 0)
			setat(p, i, 1, worker);
	}
}

/*
 * Apply what a part's events give (rank[], worker[]) to what the parts
 * before it gave (*r, *w).
 */
static void
apply(int64_t *r, int64_t *w, const int64_t *rank, const int64_t *worker)
{
	int64_t r0 = *r, w0 = *w;

	if (r0 >= 0 && w0 >= 0)
		return;
	if (r0 < 0 && w0 < 0) {
		*r = rank[PS_START_NONE];
		*w = worker[PS_START_NONE];
	} else if (r0 >= 0) {
		*r = rank[PS_START_RANK] == PS_INHERIT ? r0 :
		    rank[PS_START_RANK];
		*w = worker[PS_START_RANK];
	} else {
		*r = rank[PS_START_WORKER];
		*w = worker[PS_START_WORKER] == PS_INHERIT ? w0 :
		    worker[PS_START_WORKER];
	}
}

/*
 * What the events of a part said of the processes and threads, for the
 * last part (parts.c): "proc INPUT PID MAIN RANK WORKER..." for every
 * process they made known, "thread INPUT PID OS ROLES" for every thread
 * with a role.
 */
void
ps_procs_save(FILE *f)
{
	const struct psproc *pr;
	const struct psthread *th;
	uint32_t *of, t;
	size_t i;
	int k;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		fprintf(f, "proc %u %llu %d", (unsigned)pr->in,
		    (unsigned long long)pr->ospid,
		    pr->main | pr->v1 << 1);
		for (k = 0; k < PS_NSTART; k++)
			fprintf(f, " %lld %lld", (long long)rankat(i, k),
			    (long long)workerat(i, k));
		fputc('\n', f);
	}
	/* The threads in the order they were made, each with its process. */
	of = lt_calloc(nthreads, sizeof(*of));
	for (i = 0; i < nprocs; i++)
		for (t = procs[i].last; t != 0; t = threads[t].next)
			of[t] = (uint32_t)i;
	for (i = 1; i < nthreads; i++) {
		th = &threads[i];
		if (th->roles == 0)
			continue;
		pr = &procs[of[i]];
		fprintf(f, "thread %u %llu %llu %u\n", (unsigned)pr->in,
		    (unsigned long long)pr->ospid,
		    (unsigned long long)thos(th), (unsigned)th->roles);
	}
	free(of);
}

/* The known process (in, os), or NULL. */
static struct psproc *
findproc(const struct pspin *in, uint64_t os)
{
	uint64_t k = (uint64_t)in->block << 32 | os;
	long p;

	p = pt_get(&pbykey, lt_mix(k), eqkey, &k);
	return p >= 0 ? &procs[p] : NULL;
}

/*
 * Add what ps_procs_save() wrote in f, for a part before ours, to the
 * processes and threads, which the parts' first looks made known.
 * Returns 0, or -1 when f says something else.
 */
int
ps_procs_load(FILE *f, const struct pspin *ins, uint32_t nin)
{
	long long r[PS_NSTART], w[PS_NSTART];
	unsigned long long pid, os;
	int64_t rank[PS_NSTART], worker[PS_NSTART];
	struct psproc *pr;
	unsigned in, roles;
	char word[8];
	int main, k;

	while (fscanf(f, "%7s", word) == 1) {
		if (strcmp(word, "end") == 0)
			return 0;
		if (strcmp(word, "proc") == 0) {
			if (fscanf(f, "%u %llu %d %lld %lld %lld %lld %lld "
			    "%lld", &in, &pid, &main, &r[0], &w[0], &r[1],
			    &w[1], &r[2], &w[2]) != 9 || in >= nin ||
			    (pr = findproc(&ins[in], pid)) == NULL)
				return -1;
			for (k = 0; k < PS_NSTART; k++) {
				rank[k] = r[k];
				worker[k] = w[k];
			}
			pr->main |= (unsigned)main & 1;
			pr->v1 |= (unsigned)main >> 1 & 1;
			apply(&starts[pr - procs].arank,
			    &starts[pr - procs].aworker, rank, worker);
		} else if (strcmp(word, "thread") == 0) {
			if (fscanf(f, "%u %llu %llu %u", &in, &pid, &os,
			    &roles) != 4 || in >= nin ||
			    !ps_hasthread(&ins[in], pid, os))
				return -1;
			ps_thread(&ins[in], pid, os, NULL)->roles |= roles;
		} else
			return -1;
	}
	return -1;
}

/* After ps_procs_load() of every part before ours, add ours. */
void
ps_procs_merged(void)
{
	int64_t rank[PS_NSTART], worker[PS_NSTART];
	struct psstart *st;
	size_t i;
	int k;

	for (i = 0; i < nprocs; i++) {
		st = &starts[i];
		for (k = 0; k < PS_NSTART; k++) {
			rank[k] = rankat(i, k);
			worker[k] = workerat(i, k);
		}
		apply(&st->arank, &st->aworker, rank, worker);
		setrw(&procs[i].rank, st->arank);
		setrw(&procs[i].worker, st->aworker);
	}
}

/* The label of process pr: "rank R worker W (pid P)" and its like. */
static long long
label(const struct psproc *pr, const char *where, char *buf, size_t n)
{
	long long rank = rw(pr->rank);
	long long worker = rw(pr->worker);

	/* Before 0.2.57 every worker says worker_rank 0 (spec 13). */
	if (pr->v1 && !pr->main && worker >= 0)
		worker = PS_INHERIT;
	if (rank < 0)
		snprintf(buf, n, "%s", where);
	else if (pr->main || worker == -1)
		snprintf(buf, n, "rank %lld (%s)", rank, where);
	else if (worker == PS_INHERIT)
		snprintf(buf, n, "rank %lld worker (%s)", rank, where);
	else
		snprintf(buf, n, "rank %lld worker %lld (%s)", rank, worker,
		    where);
	if (rank < 0)
		return 1000000000;
	return (rank > 999999 ? 999999 : rank) * 1000 + (pr->main ||
	    worker == -1 ? 0 : worker < 0 ? 1 : 1 + (worker > 998 ? 998 :
	    worker));
}

/* Name every thread of pr "ROLE ID" and sort them by tid. */
static void
threadnames(struct pssink *s, const struct psproc *pr)
{
	const struct psthread *th;
	const char *r;
	char buf[64];
	uint32_t t, n;

	/* Its list is newest first. */
	order = lt_grow(order, &caporder, pr->nthreads, sizeof(*order));
	n = pr->nthreads;
	for (t = pr->last; t != 0; t = threads[t].next)
		order[--n] = t;
	for (n = 0; n < pr->nthreads; n++) {
		th = &threads[order[n]];
		r = th->roles & PS_ROLE_MAIN ? "main" :
		    th->roles & PS_ROLE_PREFETCH ? "prefetch" :
		    th->roles & PS_ROLE_DOWNLOAD ? "download" : "thread";
		snprintf(buf, sizeof(buf), "%s %llu", r,
		    (unsigned long long)thos(th));
		ps_sink_meta(s, procpid(pr), n + 1, "thread_name", buf, 0);
		ps_sink_meta(s, procpid(pr), n + 1, "thread_sort_index",
		    NULL, n + 1);
	}
}

/*
 * Name every process of input in ("rank R worker W (pid P)", with the
 * node or input when pids were moved to a block) and thread ("ROLE
 * ID"), and sort processes by rank, then main process first, then by
 * worker.
 */
void
ps_names(struct pssink *s, const struct pspin *in)
{
	char buf[160], where[64];
	struct psproc *pr;
	long long sort;
	size_t i;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		if (pr->in != in->index)
			continue;
		if (in->block != 0)
			snprintf(where, sizeof(where), "%s, pid %llu",
			    in->label, (unsigned long long)pr->ospid);
		else
			snprintf(where, sizeof(where), "pid %llu",
			    (unsigned long long)procpid(pr));
		sort = label(pr, where, buf, sizeof(buf));
		ps_sink_meta(s, procpid(pr), 0, "process_name", buf, 0);
		ps_sink_meta(s, procpid(pr), 0, "process_sort_index", NULL,
		    sort);
		threadnames(s, pr);
	}
}

/* The processes of the logs, and the threads. */
long long
ps_nlogprocs(void)
{
	return (long long)nprocs;
}

long long
ps_nthreads(void)
{
	return (long long)nthreads - 1;
}

/* Free it all; the processes of other inputs may start again. */
void
ps_procs_free(void)
{
	free(threads);
	free(procs);
	free(starts);
	free(bigs);
	free(order);
	free(wide);
	lt_map_free(&tbyid);
	lt_ix_free(&pbykey);
	lt_ix_free(&pbypid);
	threads = NULL;
	procs = NULL;
	starts = NULL;
	bigs = NULL;
	order = NULL;
	wide = NULL;
	nthreads = 1;
	capthreads = nprocs = capprocs = capstarts = nbigs = capbigs = 0;
	caporder = nwide = capwide = 0;
	memset(recent, 0, sizeof(recent));
	cur = nextrecent = 0;
}
