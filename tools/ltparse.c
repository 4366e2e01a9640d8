/* See LICENSE file for copyright and license details. */
/*
 * ltparse: LitData enable_tracer() logs to an lt1 stream.
 *
 * Reads logs (operands, "-" or none for standard input) line by line and
 * writes one lt1 record per event line: ts in microseconds, the OS pid,
 * a small tid standing for the (pid, thread id) pair, cat, name, the
 * other keys as typed args, cname in extra.  Every other line is skipped
 * and counted by kind.  At the end come the M events naming every
 * process and thread, and a #stat line; lines = events + skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"

#define SYNOPSIS	"ltparse [-v] [file ...]"

/* What a thread's spans say about its role (by name). */
enum {
	ROLE_MAIN = 1,		/* dataloader, batch, sample, read, ... */
	ROLE_PREFETCH = 2,	/* prefetch, delete, crash */
	ROLE_DOWNLOAD = 4	/* download, decompress */
};

struct thread {
	uint64_t	 pid;
	uint64_t	 os;		/* the OS thread id from the log */
	uint32_t	 tid;		/* small, unique within the pid */
	uint32_t	 proc;		/* index in procs */
	uint32_t	 next;		/* next thread of the process, or 0 */
	unsigned	 roles;
};

struct proc {
	uint64_t	 pid;
	int64_t		 rank;		/* -1: unknown */
	int64_t		 worker;	/* -1: unknown */
	int		 main;		/* wrote dataloader or batch spans */
	uint32_t	 nthreads;
	uint32_t	 first;		/* first thread (index + 1), or 0 */
	uint32_t	 last;
};

static struct thread	*threads;	/* index 0 unused */
static size_t		 nthreads = 1, capthreads;
static uint32_t		*thash;		/* thread index, 0 = empty */
static size_t		 thashcap;
static struct proc	*procs;
static size_t		 nprocs, capprocs;
static uint32_t		*phash;		/* proc index + 1, 0 = empty */
static size_t		 phashcap;

static struct ltout	 out;
static struct ltbuf	 rec;
static int		 vflag;

static long long	 nlines, nevents, nmeta, nreplaced;
static long long	 nskip[LT_NKIND];

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void
rehash(uint32_t **tab, size_t *cap, size_t count, uint64_t (*key)(uint32_t))
{
	uint32_t *old = *tab, i, v;
	size_t oldcap = *cap, j;

	if (count * 2 < *cap)
		return;
	*cap = *cap != 0 ? *cap * 2 : 1024;
	*tab = lt_calloc(*cap, sizeof(**tab));
	for (j = 0; j < oldcap; j++) {
		if ((v = old[j]) == 0)
			continue;
		for (i = (uint32_t)(key(v) & (*cap - 1)); (*tab)[i] != 0;
		    i = (uint32_t)((i + 1) & (*cap - 1)))
			;
		(*tab)[i] = v;
	}
	free(old);
}

static uint64_t
thread_key(uint32_t i)
{
	return mix(threads[i].pid * 0x9e3779b97f4a7c15ULL ^ threads[i].os);
}

static uint64_t
proc_key(uint32_t i)
{
	return mix(procs[i - 1].pid);
}

static struct proc *
getproc(uint64_t pid)
{
	struct proc *pr;
	size_t i;

	rehash(&phash, &phashcap, nprocs + 1, proc_key);
	for (i = mix(pid) & (phashcap - 1); phash[i] != 0;
	    i = (i + 1) & (phashcap - 1))
		if (procs[phash[i] - 1].pid == pid)
			return &procs[phash[i] - 1];
	if (nprocs == capprocs) {
		capprocs = capprocs != 0 ? capprocs * 2 : 64;
		procs = lt_reallocarray(procs, capprocs, sizeof(*procs));
	}
	pr = &procs[nprocs++];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	pr->rank = pr->worker = -1;
	phash[i] = (uint32_t)nprocs;
	return pr;
}

static struct thread *
getthread(uint64_t pid, uint64_t os)
{
	struct thread *th;
	struct proc *pr;
	size_t i;

	rehash(&thash, &thashcap, nthreads, thread_key);
	for (i = mix(pid * 0x9e3779b97f4a7c15ULL ^ os) & (thashcap - 1);
	    thash[i] != 0; i = (i + 1) & (thashcap - 1)) {
		th = &threads[thash[i]];
		if (th->pid == pid && th->os == os)
			return th;
	}
	if (nthreads >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many threads");
	if (nthreads >= capthreads) {
		capthreads = capthreads != 0 ? capthreads * 2 : 256;
		threads = lt_reallocarray(threads, capthreads,
		    sizeof(*threads));
	}
	pr = getproc(pid);
	th = &threads[nthreads];
	th->pid = pid;
	th->os = os;
	th->tid = ++pr->nthreads;
	th->proc = (uint32_t)(pr - procs);
	th->next = 0;
	th->roles = 0;
	if (pr->last != 0)
		threads[pr->last].next = (uint32_t)nthreads;
	else
		pr->first = (uint32_t)nthreads;
	pr->last = (uint32_t)nthreads;
	thash[i] = (uint32_t)nthreads++;
	return th;
}

static int
nameis(const struct ltfield *f, const char *s)
{
	return strlen(s) == f->n && memcmp(f->p, s, f->n) == 0;
}

static unsigned
role(const struct ltfield *name)
{
	if (nameis(name, "sample") || nameis(name, "read") ||
	    nameis(name, "dataloader") || nameis(name, "batch") ||
	    nameis(name, "combined"))
		return ROLE_MAIN;
	if (nameis(name, "prefetch") || nameis(name, "delete") ||
	    nameis(name, "crash"))
		return ROLE_PREFETCH;
	if (nameis(name, "download") || nameis(name, "decompress"))
		return ROLE_DOWNLOAD;
	return 0;
}

/* The rank and worker of a process, from the env keys of its events. */
static void
learn(struct proc *pr, const struct ltlog *lg)
{
	size_t i;
	int64_t v;

	if (nameis(&lg->name, "dataloader") || nameis(&lg->name, "batch"))
		pr->main = 1;
	if (pr->rank >= 0 && pr->worker >= 0)
		return;
	for (i = 0; i < lg->nkv; i++) {
		if (lt_int_parse(lg->kv[i].v, lg->kv[i].vn, &v) != LT_NUM_OK ||
		    v < 0)
			continue;
		if (lg->kv[i].kn == 16 &&
		    memcmp(lg->kv[i].k, "dist_global_rank", 16) == 0)
			pr->rank = v;
		else if (lg->kv[i].kn == 11 &&
		    memcmp(lg->kv[i].k, "worker_rank", 11) == 0)
			pr->worker = v;
	}
}

static void
addstr(const char *p, size_t n)
{
	lt_buf_addc(&rec, '"');
	nreplaced += (long long)lt_esc(&rec, p, n);
	lt_buf_addc(&rec, '"');
}

static void
addnum(uint64_t v)
{
	char num[LT_NUMBUF];

	lt_buf_add(&rec, num, lt_u64_fmt(num, v));
}

static void
event(const struct ltlog *lg)
{
	struct thread *th;
	struct proc *pr;
	char num[LT_NUMBUF];
	int64_t iv;
	size_t i;

	th = getthread(lg->pid, lg->tid);
	pr = &procs[th->proc];
	th->roles |= role(&lg->name);
	learn(pr, lg);

	rec.n = 0;
	lt_buf_add(&rec, num, lt_us_fmt(num, lg->ts));
	lt_buf_addc(&rec, '\t');
	lt_buf_add(&rec, lg->ph.p, 1);
	lt_buf_addc(&rec, '\t');
	addnum(lg->pid);
	lt_buf_addc(&rec, '\t');
	addnum(th->tid);
	lt_buf_add(&rec, "\t-\t", 3);
	if (lg->cat.p != NULL)
		nreplaced += (long long)lt_esc(&rec, lg->cat.p, lg->cat.n);
	lt_buf_addc(&rec, '\t');
	nreplaced += (long long)lt_esc(&rec, lg->name.p, lg->name.n);
	lt_buf_add(&rec, "\t{", 2);
	for (i = 0; i < lg->nkv; i++) {
		if (i > 0)
			lt_buf_addc(&rec, ',');
		addstr(lg->kv[i].k, lg->kv[i].kn);
		lt_buf_addc(&rec, ':');
		if (lt_int_parse(lg->kv[i].v, lg->kv[i].vn, &iv) ==
		    LT_NUM_OK)
			lt_buf_add(&rec, lg->kv[i].v, lg->kv[i].vn);
		else
			addstr(lg->kv[i].v, lg->kv[i].vn);
	}
	lt_buf_add(&rec, "}\t{", 3);
	if (lg->cname.p != NULL) {
		lt_buf_adds(&rec, "\"cname\":");
		addstr(lg->cname.p, lg->cname.n);
	}
	lt_buf_add(&rec, "}\n", 2);
	lt_out_write(&out, rec.p, rec.n);
	nevents++;
}

static void
parse(const char *path)
{
	static const char *kinds[LT_NKIND] = {
		"event", "blank", "text", "noise", "torn"
	};
	struct ltlog lg;
	struct ltin in;
	char *line;
	ssize_t n;

	memset(&lg, 0, sizeof(lg));
	lt_in_open(&in, path);
	while ((n = lt_in_line(&in, &line)) >= 0) {
		nlines++;
		/* A UTF-8 byte order mark before the first line. */
		if (in.line == 1 && n >= 3 &&
		    memcmp(line, "\xef\xbb\xbf", 3) == 0) {
			line += 3;
			n -= 3;
		}
		if (lt_logline(line, (size_t)n, &lg) == LT_LOG_EVENT) {
			event(&lg);
			continue;
		}
		nskip[lg.kind]++;
		if (vflag && lg.kind != LT_SKIP_BLANK)
			lt_warnpos(in.name, in.line, "skipped %s line%s%s",
			    kinds[lg.kind], lg.why != NULL ? ": " : "",
			    lg.why != NULL ? lg.why : "");
	}
	lt_in_close(&in);
	lt_logline_free(&lg);
}

/* One M record: name is process_name, thread_name or *_sort_index. */
static void
meta(uint64_t pid, uint32_t tid, const char *name, const char *label,
    long long index)
{
	char num[LT_NUMBUF];

	rec.n = 0;
	lt_buf_add(&rec, "-\tM\t", 4);
	addnum(pid);
	lt_buf_addc(&rec, '\t');
	addnum(tid);
	lt_buf_add(&rec, "\t-\t\t", 4);
	lt_buf_adds(&rec, name);
	if (label != NULL) {
		lt_buf_adds(&rec, "\t{\"name\":");
		addstr(label, strlen(label));
	} else {
		lt_buf_adds(&rec, "\t{\"sort_index\":");
		lt_buf_add(&rec, num, lt_i64_fmt(num, index));
	}
	lt_buf_add(&rec, "}\t{}\n", 5);
	lt_out_write(&out, rec.p, rec.n);
	nmeta++;
}

/*
 * Name every process ("rank R worker W (pid P)") and thread ("ROLE ID"),
 * and sort processes by rank, then main process first, then by worker.
 */
static void
trailer(void)
{
	char label[128];
	const char *r;
	struct thread *th;
	struct proc *pr;
	long long sort;
	size_t i;
	uint32_t t;

	for (i = 0; i < nprocs; i++) {
		pr = &procs[i];
		if (pr->rank < 0)
			snprintf(label, sizeof(label), "pid %llu",
			    (unsigned long long)pr->pid);
		else if (pr->main || pr->worker < 0)
			snprintf(label, sizeof(label), "rank %lld (pid %llu)",
			    (long long)pr->rank, (unsigned long long)pr->pid);
		else
			snprintf(label, sizeof(label),
			    "rank %lld worker %lld (pid %llu)",
			    (long long)pr->rank, (long long)pr->worker,
			    (unsigned long long)pr->pid);
		if (pr->rank < 0)
			sort = 1000000000;
		else
			sort = (long long)(pr->rank > 999999 ? 999999 :
			    pr->rank) * 1000 + (pr->main || pr->worker < 0 ?
			    0 : 1 + (pr->worker > 998 ? 998 : pr->worker));
		meta(pr->pid, 0, "process_name", label, 0);
		meta(pr->pid, 0, "process_sort_index", NULL, sort);
		for (t = pr->first; t != 0; t = th->next) {
			th = &threads[t];
			r = th->roles & ROLE_MAIN ? "main" :
			    th->roles & ROLE_PREFETCH ? "prefetch" :
			    th->roles & ROLE_DOWNLOAD ? "download" : "thread";
			snprintf(label, sizeof(label), "%s %llu", r,
			    (unsigned long long)th->os);
			meta(th->pid, th->tid, "thread_name", label, 0);
			meta(th->pid, th->tid, "thread_sort_index", NULL,
			    th->tid);
		}
	}
}

static void
stats(void)
{
	long long skipped = nskip[LT_SKIP_BLANK] + nskip[LT_SKIP_TEXT] +
	    nskip[LT_SKIP_NOISE] + nskip[LT_SKIP_TORN];
	struct ltstat st[] = {
		{ "lines", nlines },
		{ "events", nevents },
		{ "skipped", skipped },
		{ "skipped_blank", nskip[LT_SKIP_BLANK] },
		{ "skipped_text", nskip[LT_SKIP_TEXT] },
		{ "skipped_noise", nskip[LT_SKIP_NOISE] },
		{ "skipped_torn", nskip[LT_SKIP_TORN] },
		{ "processes", (long long)nprocs },
		{ "threads", (long long)nthreads - 1 },
		{ "metadata", nmeta },
		{ "replaced", nreplaced }
	};

	lt_put_stat(&out, "ltparse", st, sizeof(st) / sizeof(st[0]));
}

int
main(int argc, char *argv[])
{
	int c, i;

	lt_setprog(argv[0]);
	while ((c = getopt(argc, argv, "hv")) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -v   report every skipped line on stderr\n"
			    "  -h   show this help\n");
			break;
		case 'v':
			vflag = 1;
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_out_init(&out, 1, "<stdout>");
	lt_put_header(&out);
	if (argc == 0)
		parse("-");
	for (i = 0; i < argc; i++)
		parse(argv[i]);
	trailer();
	stats();
	lt_out_close(&out);
	if (nevents == 0 && nlines > 0)
		lt_warn("no events in %lld lines: not a LitData "
		    "enable_tracer() log?", nlines);
	free(threads);
	free(thash);
	free(procs);
	free(phash);
	lt_buf_free(&rec);
	return LT_EXIT_OK;
}
