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
 * (ps_names).  Memory grows with the threads, never with the lines.
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
static struct ltmap	 tbyid, pbykey, pbypid;

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
static uint32_t		 lastthread;	/* the thread ps_thread() gave last */
static char		 thid[48];	/* ps_threadid()'s, of thread thidof */
static size_t		 thidn;
static uint32_t		 thidof;

struct tkey {
	uint32_t	 proc;
	uint64_t	 os;
};

static uint64_t
thash(uint32_t proc, uint64_t os)
{
	return lt_mix(os * 0x9e3779b97f4a7c15ULL ^ proc);
}

static int
eqthread(const void *arg, uint32_t v)
{
	const struct tkey *k = arg;

	return threads[v].proc == k->proc && threads[v].os == k->os;
}

static int
eqkey(const void *arg, uint32_t v)
{
	return procs[v].key == *(const uint64_t *)arg;
}

static int
eqpid(const void *arg, uint32_t v)
{
	return procs[v].pid == *(const uint64_t *)arg;
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
	    lt_map_get(&pbypid, lt_mix(pid), eqpid, &pid, NULL) != NULL)
		low = (low + 1) & ((1 << PIDBITS) - 1);
	return pid;
}

/* The process of OS pid os of input in, made if new. */
static struct psproc *
getproc(const struct pspin *in, uint64_t os)
{
	uint64_t key = (uint64_t)in->block << 32 | os;
	struct psproc *pr;
	struct psstart *st;
	uint32_t *v;
	int created;

	v = lt_map_get(&pbykey, lt_mix(key), eqkey, &key, &created);
	if (!created)
		return &procs[*v];
	procs = lt_grow(procs, &capprocs, nprocs + 1, sizeof(*procs));
	pr = &procs[nprocs];
	memset(pr, 0, sizeof(*pr));
	pr->key = key;
	pr->pid = outpid(in, os);
	pr->in = in->index;
	pr->rank = pr->worker = -1;
	if (nstate > 1) {
		starts = lt_grow(starts, &capstarts, nprocs + 1,
		    sizeof(*starts));
		st = &starts[nprocs];
		st->rank[PS_START_RANK - 1] = PS_INHERIT;
		st->worker[PS_START_RANK - 1] = -1;
		st->rank[PS_START_WORKER - 1] = -1;
		st->worker[PS_START_WORKER - 1] = PS_INHERIT;
		st->arank = st->aworker = -1;
	}
	*v = (uint32_t)nprocs;
	if (in->block != 0) {
		v = lt_map_get(&pbypid, lt_mix(pr->pid), eqpid, &pr->pid,
		    &created);
		*v = (uint32_t)nprocs;
	}
	nprocs++;
	return pr;
}

/*
 * The thread os of process pr, or 0.  A process's first LISTMAX threads
 * are found on its list: a long job has tens of thousands of threads,
 * most in worker processes of a few, and a slot of tbyid for each would
 * cost more than the thread.  Beyond, a process's threads are in tbyid.
 */
#define LISTMAX		8

static uint32_t
findthread(const struct psproc *pr, uint64_t os)
{
	struct tkey k;
	uint32_t t, *v;

	if (pr->nthreads <= LISTMAX) {
		for (t = pr->first; t != 0; t = threads[t].next)
			if (threads[t].os == os)
				return t;
		return 0;
	}
	k.proc = (uint32_t)(pr - procs);
	k.os = os;
	if ((v = lt_map_get(&tbyid, thash(k.proc, os), eqthread, &k,
	    NULL)) != NULL)
		return *v;
	return 0;
}

/* Thread t into tbyid. */
static void
mapthread(uint32_t t)
{
	struct tkey k;
	int created;

	k.proc = threads[t].proc;
	k.os = threads[t].os;
	*lt_map_get(&tbyid, thash(k.proc, k.os), eqthread, &k, &created) = t;
}

/* The thread (in, pid, os), made if new. */
struct psthread *
ps_thread(const struct pspin *in, uint64_t pid, uint64_t os)
{
	struct psthread *th;
	struct psproc *pr;
	uint32_t t;

	/* The lines of a thread often come in a run. */
	if (lastthread != 0 && (th = &threads[lastthread])->os == os &&
	    procs[th->proc].in == in->index &&
	    procs[th->proc].key == ((uint64_t)in->block << 32 | pid))
		return th;
	pr = getproc(in, pid);
	if ((t = findthread(pr, os)) != 0)
		return &threads[lastthread = t];
	if (nthreads >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	threads = lt_grow(threads, &capthreads, nthreads + 1,
	    sizeof(*threads));
	th = &threads[nthreads];
	th->os = os;
	th->proc = (uint32_t)(pr - procs);
	th->tid = ++pr->nthreads;
	th->next = 0;
	th->roles = 0;
	if (pr->last != 0)
		threads[pr->last].next = (uint32_t)nthreads;
	else
		pr->first = (uint32_t)nthreads;
	pr->last = (uint32_t)nthreads;
	/* Its list grows too long: the process's threads go to tbyid. */
	if (pr->nthreads == LISTMAX + 1)
		for (t = pr->first; t != 0; t = threads[t].next)
			mapthread(t);
	else if (pr->nthreads > LISTMAX + 1)
		mapthread((uint32_t)nthreads);
	lastthread = (uint32_t)nthreads++;
	return th;
}

/* Has an event made the thread (in, pid, os)? */
int
ps_hasthread(const struct pspin *in, uint64_t pid, uint64_t os)
{
	uint64_t key = (uint64_t)in->block << 32 | pid;
	uint32_t *v;

	if ((v = lt_map_get(&pbykey, lt_mix(key), eqkey, &key, NULL)) == NULL)
		return 0;
	return findthread(&procs[*v], os) != 0;
}

struct psproc *
ps_threadproc(const struct psthread *th)
{
	return &procs[th->proc];
}

/*
 * "\tpid\ttid\t-\t" of th, for its lines: made when the thread changes
 * (its lines come in runs), not kept for every thread.
 */
const char *
ps_threadid(const struct psthread *th, size_t *n)
{
	uint32_t t = (uint32_t)(th - threads);

	if (t != thidof) {
		thid[0] = '\t';
		thidn = 1 + lt_u64_fmt(thid + 1, procs[th->proc].pid);
		thid[thidn++] = '\t';
		thidn += lt_u64_fmt(thid + thidn, th->tid);
		memcpy(thid + thidn, "\t-\t", 3);
		thidn += 3;
		thidof = t;
	}
	*n = thidn;
	return thid;
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

/* The rank and the worker of process p from start state i. */
static int64_t *
rankat(size_t p, int i)
{
	return i == PS_START_NONE ? &procs[p].rank : &starts[p].rank[i - 1];
}

static int64_t *
workerat(size_t p, int i)
{
	return i == PS_START_NONE ? &procs[p].worker :
	    &starts[p].worker[i - 1];
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
		done &= *rankat(p, i) != -1 && *workerat(p, i) != -1;
	if (done)
		return;
	for (i = 0; i < nm->narg; i++)
		learnkv(nm->arg[i].k, strlen(nm->arg[i].k), nm->arg[i].v,
		    nm->arg[i].vn, &rank, &worker);
	for (j = 0; j < lg->nkv && !nm->crash; j++)
		learnkv(lg->kv[j].k, lg->kv[j].kn, lg->kv[j].v, lg->kv[j].vn,
		    &rank, &worker);
	for (i = 0; i < nstate; i++) {
		if (*rankat(p, i) != -1 && *workerat(p, i) != -1)
			continue;
		if (rank >= 0)
			*rankat(p, i) = rank;
		if (worker >= 0)
			*workerat(p, i) = worker;
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
	size_t i;
	int k;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		fprintf(f, "proc %u %llu %d", (unsigned)pr->in,
		    (unsigned long long)(pr->key & UINT32_MAX),
		    pr->main | pr->v1 << 1);
		for (k = 0; k < PS_NSTART; k++)
			fprintf(f, " %lld %lld", (long long)*rankat(i, k),
			    (long long)*workerat(i, k));
		fputc('\n', f);
	}
	for (i = 1; i < nthreads; i++) {
		th = &threads[i];
		if (th->roles == 0)
			continue;
		pr = &procs[th->proc];
		fprintf(f, "thread %u %llu %llu %u\n", (unsigned)pr->in,
		    (unsigned long long)(pr->key & UINT32_MAX),
		    (unsigned long long)th->os, th->roles);
	}
}

/* The known process (in, os), or NULL. */
static struct psproc *
findproc(const struct pspin *in, uint64_t os)
{
	uint64_t key = (uint64_t)in->block << 32 | os;
	uint32_t *v;

	v = lt_map_get(&pbykey, lt_mix(key), eqkey, &key, NULL);
	return v != NULL ? &procs[*v] : NULL;
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
			ps_thread(&ins[in], pid, os)->roles |= roles;
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
			rank[k] = *rankat(i, k);
			worker[k] = *workerat(i, k);
		}
		apply(&st->arank, &st->aworker, rank, worker);
		procs[i].rank = st->arank;
		procs[i].worker = st->aworker;
	}
}

/* The label of process pr: "rank R worker W (pid P)" and its like. */
static long long
label(const struct psproc *pr, const char *where, char *buf, size_t n)
{
	long long rank = pr->rank;
	long long worker = pr->worker;

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
	uint32_t t;

	for (t = pr->first; t != 0; t = th->next) {
		th = &threads[t];
		r = th->roles & PS_ROLE_MAIN ? "main" :
		    th->roles & PS_ROLE_PREFETCH ? "prefetch" :
		    th->roles & PS_ROLE_DOWNLOAD ? "download" : "thread";
		snprintf(buf, sizeof(buf), "%s %llu", r,
		    (unsigned long long)th->os);
		ps_sink_meta(s, pr->pid, th->tid, "thread_name", buf, 0);
		ps_sink_meta(s, pr->pid, th->tid, "thread_sort_index", NULL,
		    th->tid);
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
			    in->label, (unsigned long long)(pr->key &
			    UINT32_MAX));
		else
			snprintf(where, sizeof(where), "pid %llu",
			    (unsigned long long)pr->pid);
		sort = label(pr, where, buf, sizeof(buf));
		ps_sink_meta(s, pr->pid, 0, "process_name", buf, 0);
		ps_sink_meta(s, pr->pid, 0, "process_sort_index", NULL, sort);
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
	lt_map_free(&tbyid);
	lt_map_free(&pbykey);
	lt_map_free(&pbypid);
	threads = NULL;
	procs = NULL;
	starts = NULL;
	nthreads = 1;
	capthreads = nprocs = capprocs = capstarts = 0;
	lastthread = thidof = 0;
}
