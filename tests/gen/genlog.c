/* See LICENSE file for copyright and license details. */
/*
 * genlog: write a synthetic LitData enable_tracer() debug log to stdout.
 *
 * usage: genlog [-bchpq] [-a MODE] [-e EPOCHS] [-f FORMAT] [-l LEVEL]
 *               [-N NODES] [-n LINES] [-r RANKS] [-s SEED] [-t FILE]
 *               [-w WORKERS]
 *
 * Writes what litdata_debug.log holds after a DDP training job traced by
 * LitData, deterministically: the same options give the same bytes.  It
 * feeds benchmarks, demos and tests; -t FILE writes exact counts of what
 * was written (keys above truth() below).  The formats are those
 * ltparse(1) reads (sections Logs, Names and categories).
 *
 *   -f new|old|v1|mixed  format generation (default new): new 0.2.68+ (us
 *        timestamps, cat/cname), old 0.2.65-0.2.67 (seconds, indexes baked
 *        into names), v1 0.2.45-0.2.56 (logger/level prefix, per-item
 *        records), mixed = a v1, an old and a new run appended in one file
 *   -n LINES  write about LINES lines: the dataset is sized so that
 *        EPOCHS epochs (-e, default 2) fill it; output ends with the
 *        epoch that reaches 97%, else more epochs run and are cut at
 *        LINES, leaving spans open (mixed: a third per run)
 *   -r RANKS (2), -w WORKERS per rank (2; 0 = load in the main process),
 *   -N NODES (1), -e EPOCHS (2), -s SEED (9: shows async, combined,
 *        a traceback)
 *   -c  one job crash and restart per run; -b  one training-loop break
 *   -p  persistent workers;  -q  no noise lines
 *   -a sync|async|nospan|random  chunk prefetch (async: asyncio_N threads
 *        download; nospan: async gather without download spans)
 *   -l off|batch|chunk|sample|debug  tracer level of new runs (debug)
 *
 * Modelled: R rank processes in DDP lockstep (a step ends when the slowest
 * rank is done), W forked workers per rank whose main thread has the
 * parent's TID and whose PrepareChunksThreads share one TID, pthread_t
 * TIDs (~1.4e14), new worker PIDs each epoch unless persistent,
 * prefetch_factor 2 back-pressure, batch spans = training steps, sample
 * spans, read spans that cross samples, the lock/download/decompress/
 * delete cycle on the prefetch thread with a window of 2 (sync) or 4
 * (async), chunks split between workers (lock counts > 1), noise lines
 * (_apply_delete, the INFO arrow line, tracebacks, blank lines), write
 * order jitter (ts not monotonic across threads, monotonic per thread),
 * clock skew between nodes, crashes (new: crash instant after an open
 * download and a closed prefetch; the job restarts with new PIDs), breaks
 * that leave batch/dataloader/worker spans open.
 * Not modelled: 0.2.57-0.2.64, the 25bf3ca8 crash record, Windows (CRLF,
 * paths), torn or lost lines, NTP steps, spawned workers, PID collisions
 * between nodes, raw/parquet datasets, validation loaders, several
 * datasets under one CombinedStreamingDataset (only its epoch span).
 * Durations are plausible, not measured; noise texts other than the
 * spec's literals are illustrative.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define US	1000LL
#define MS	1000000LL
#define SEC	1000000000LL
#define NEVER	INT64_MAX
#define NAIO	4		/* asyncio_N threads per process */
#define MAXNODE	64
#define MAXCHUNK (1 << 20)
#define OBUFSZ	(1 << 20)
#define RECMAX	4096		/* longer than any record we format */
#define PUTL(s)	(memcpy(op, (s), sizeof(s) - 1), op += sizeof(s) - 1)

enum { F_V1, F_OLD, F_NEW, F_MIXED };
enum { A_RANDOM, A_SYNC, A_ASYNC, A_NOSPAN };
enum { C_EPOCH, C_BATCH, C_DOWNLOAD, C_DECOMPRESS, C_READ, C_DELETE,
    C_SAMPLE, C_LOCK, C_CRASH, NCAT };
enum {
	/* events (records with name and ph) */
	K_LOADER, K_BATCH, K_WORKER, K_PREFETCH, K_DOWNLOAD, K_DECOMP,
	K_READ, K_DELETE, K_SAMPLE, K_LOCKINC, K_LOCKDEC, K_CRASH,
	K_READER, K_GETITEM, K_LOAD,
	/* text records */
	N_CALLED, N_GLOB, N_REMOVED, N_SKIP, N_NOREMOVE, N_ASYNC, N_CAP,
	N_SHUFFLE, N_NOEXIT, N_FAIL
};

struct thr {
	struct thr *next;
	struct proc *p;
	uint64_t tid;
	int64_t lastt, lastw;	/* per thread: ts and write order never go back */
	int wrote, pfxlen;
	char pfx[48];		/* "PID:..; TID:..; " */
};

struct proc {
	struct proc *next;
	struct thr *thr;
	long pid;
	int node, wrote, envlen;
	int64_t kill;		/* records after this time are not written */
	char env[160];
};

struct ival {			/* the part of a chunk one worker reads */
	int chunk, start, size, lock, remain, rot, stride;
	int64_t done;		/* downloaded and decompressed */
};

struct worker {
	struct rank *rk;
	struct proc *p;
	struct thr *mt, *pc, *aio[NAIO];
	struct ival *iv;
	int niv, ivcap, cur, off, fetched, released, crashiv;
	int dead, pfdead, announced;
	long long left;
	int64_t free, slot[NAIO];
};

struct rank {
	struct proc *mp;
	struct thr *mt;
	uint64_t mtid, pctid, aiotid[NAIO];
	int node;
	struct worker *wk;
	int64_t *arr, *end;	/* per batch: arrival (batch B), step end (E) */
	int64_t start;
	int nbcap;
};

struct rec {
	int64_t t, w;		/* created, written */
	uint64_t seq;
	struct thr *th;
	int a, b, c;
	short kind;
	char ph;
};

static const signed char kcat[] = {
	[K_LOADER] = C_EPOCH, [K_BATCH] = C_BATCH, [K_WORKER] = C_EPOCH,
	[K_PREFETCH] = C_DOWNLOAD, [K_DOWNLOAD] = C_DOWNLOAD,
	[K_DECOMP] = C_DECOMPRESS, [K_READ] = C_READ, [K_DELETE] = C_DELETE,
	[K_SAMPLE] = C_SAMPLE, [K_LOCKINC] = C_LOCK, [K_LOCKDEC] = C_LOCK,
	[K_CRASH] = C_CRASH, [K_READER] = C_READ, [K_GETITEM] = C_SAMPLE,
	[K_LOAD] = C_SAMPLE
};
static const char *const catname[NCAT] = {
	"epoch", "batch", "download", "decompress", "read", "delete",
	"sample", "lock", "crash"
};
static const char *const catcname[NCAT] = {
	"cat: epoch;cname: memory_dump;",
	"cat: batch;cname: thread_state_runnable;",
	"cat: download;cname: rail_load;",
	"cat: decompress;cname: cq_build_attempt_running;",
	"cat: read;cname: good;", "cat: delete;cname: rail_animate;",
	"cat: sample;cname: generic_work;",
	"cat: lock;cname: thread_state_sleeping;",
	"cat: crash;cname: terrible;"
};
/*
 * Line shapes.  In templates \1 \2 \3 are the record's a b c, \4 is the
 * path of chunk a, \5 the v1 decompress name (B and E differ).
 */
static const struct { const char *name, *fields; } newev[] = {
	[K_LOADER] = { "dataloader", "epoch: \1;" },
	[K_BATCH] = { "batch", "batch: \1;epoch: \2;" },
	[K_WORKER] = { "combined", "" },
	[K_PREFETCH] = { "prefetch", "chunks: \1;" },
	[K_DOWNLOAD] = { "download", "chunk: \1;" },
	[K_DECOMP] = { "decompress", "" },
	[K_READ] = { "read", "chunk: \1;size: \2;" },
	[K_DELETE] = { "delete", "chunk: \1;" },
	[K_SAMPLE] = { "sample", "chunk: \1;index: \2;" },
	[K_LOCKINC] = { "lock", "op: increment;chunk: \1;count: \3;" },
	[K_LOCKDEC] = { "lock", "op: decrement;chunk: \1;count: \3;" },
	[K_CRASH] = { "crash", "" }
};
static const struct { const char *name, *cname; } oldev[] = {
	[K_LOADER] = { "iterating_dataloader", NULL },
	[K_WORKER] = { "iterating_combined_dataset", "thread_state_runnable" },
	[K_PREFETCH] = { "prefetch_download_chunk_\1", "rail_load" },
	[K_DOWNLOAD] = { "download_chunk_\1", NULL },
	[K_DECOMP] = { "decompress", "cq_build_attempt_running" },
	[K_READ] = { "read_chunk_\1_size_\2", NULL },
	[K_DELETE] = { "delete_chunk_\1", "rail_animate" },
	[K_LOCKINC] = { "increment_lock_chunk_\1_to_\3", NULL },
	[K_LOCKDEC] = { "decrement_lock_\1_to_\3", NULL }
};
static const struct { const char *name, *cname, *logger; } v1ev[] = {
	[K_LOADER] = { "iterating_dataloader", NULL, "dataloader" },
	[K_WORKER] = { "iterating_dataset", NULL, "dataset" },
	[K_DOWNLOAD] = { "download_chunk_from_index_\1", NULL, "downloader" },
	[K_DECOMP] = { "\5", "cq_build_attempt_running", "compression" },
	[K_DELETE] = { "delete_chunk_for_chunk_index_\1", "rail_animate",
	    "item_loader" },
	[K_SAMPLE] = { "getitem_dataset_for_chunk_index_\1_and_index_\2", NULL,
	    "dataset" },
	[K_LOCKINC] = { "increment_local_lock_for_\4", NULL, "downloader" },
	[K_LOCKDEC] = { "decrement_local_lock_for_ \4", NULL, "reader" },
	[K_READER] = { "reader_reading_chunk_index_\1_and_index_\2", NULL,
	    "reader" },
	[K_GETITEM] = { "get_item_for_chunk_index_\1_and_index_\2",
	    "cq_build_passed", "config" },
	[K_LOAD] = { "load_item_from_chunk_for_chunk_index_\1_and_index_\2",
	    NULL, "item_loader" }
};
/* text records (no name, no ph): v1 logger and level, message */
static const struct { const char *logger, *level, *msg; } textrec[] = {
	[N_CALLED] = { "reader", "DEBUG",
	    "_apply_delete(\1, skip_lock=False) called" },
	[N_GLOB] = { "reader", "DEBUG",
	    "_apply_delete(\1): glob matched ['\4.lock']" },
	[N_REMOVED] = { "reader", "DEBUG", "_apply_delete(\1): removed \4.lock" },
	[N_SKIP] = { "reader", "DEBUG",
	    "_apply_delete(\1): skipping data deletion, remaining_locks=\2" },
	[N_NOREMOVE] = { "reader", "DEBUG", "_apply_delete(\1): could not "
	    "remove data file: [Errno 2] No such file or directory: '\4'" },
	[N_ASYNC] = { "reader", "INFO", "Async chunk prefetch: raising "
	    "max_pre_download 2 \xe2\x86\x92 4 so that 4 chunk downloads can be "
	    "in flight" },
	[N_CAP] = { "reader", "INFO", "max_cache_size=1GB holds 3 chunks of "
	    "256.0MB: capping max_pre_download at 3" },
	[N_SHUFFLE] = { "dataset", "WARNING", "Overriding state shuffle True "
	    "to False, the value the checkpointed dataset was created with" },
	[N_NOEXIT] = { "reader", "INFO", "The prepare chunks thread didn't "
	    "exit properly. This can happen if the chunk files are being "
	    "downloaded." },
	[N_FAIL] = { "downloader", "WARNING",
	    "prefetch failed; will retry on demand" }
};
static const char *const tback[] = {	/* after N_FAIL in old and v1 */
	"Traceback (most recent call last):",
	"  File \"/usr/local/lib/python3.11/site-packages/litdata/streaming/"
	    "downloader.py\", line 97, in download_file",
	"    self._client.client.download_file(obj.netloc, "
	    "obj.path.lstrip(\"/\"), local_tmpfile)",
	"  File \"/usr/local/lib/python3.11/site-packages/botocore/"
	    "response.py\", line 99, in read",
	"    raise ReadTimeoutError(endpoint_url=e.url, error=e)",
	"botocore.exceptions.ReadTimeoutError: Read timeout on endpoint URL: "
	    "\"https://my-bucket.s3.amazonaws.com/optimized/chunk-0-\1.bin\""
};
static const char *const crash[][2] = {	/* new sanitises ';' and '\n' */
	{ "TypeError", "TypeError: Session.__init__() got an unexpected "
	    "keyword argument 'data_connection_id'" },
	{ "OSError", "OSError: [Errno 28] No space left on device: '\4'" },
	{ "ClientError", "ClientError: An error occurred (SlowDown) when "
	    "calling the GetObject operation (reached max retries: 4): Please "
	    "reduce your request rate." },
	{ "RuntimeError", "RuntimeError: chunk-0-\1.bin is truncated, got "
	    "1048576 bytes  expected 67108864" }
};
static const unsigned levelmask[] = {	/* off batch chunk sample debug */
	0, 1u << C_EPOCH | 1u << C_BATCH | 1u << C_CRASH,
	1u << C_EPOCH | 1u << C_BATCH | 1u << C_CRASH | 1u << C_DOWNLOAD |
	    1u << C_READ | 1u << C_DELETE | 1u << C_DECOMPRESS,
	~(1u << C_LOCK), ~0u
};

static struct {
	int fmt, ranks, workers, epochs, nodes, amode, level;
	int persist, crash, brk, quiet;
	long long nlines;
	uint64_t seed;
	const char *truth;
} opt = { F_NEW, 2, 2, 2, 1, A_RANDOM, 4, 0, 0, 0, 0, 0, 9, NULL };

static struct {			/* one run: a dataset, one format, its jobs */
	int fmt, nchunks, csize, bs, window, combined, async, spans;
	unsigned mask;
	int *csz, *cbase, *order;
	int64_t msample, mdl, mdec, mstep, killmax;
	int crashed, cepoch, crank, cworker, broke, bepoch, tb, nbw;
	double cfrac, bfrac;
	long long limit, perwk;
	char cdir[96];
} run;

static struct {			/* the truth: what was written */
	long long lines, events, text, cont, blank, b, e, i, pairs;
	long long crashes, procs, threads, jobs, bytes, cat[NCAT];
} cnt;

static char obuf[OBUFSZ], *op = obuf;
static struct rec *pool;
static uint32_t *heap, *freelist;
static size_t npool, poolcap, nheap, nfree;
static struct rank *ranks;
static struct proc *procs;
static int nwk, stopped, jobdead, curb;
static int64_t maxt, skew[MAXNODE];
static uint64_t rngs, seqno;
static long nextpid;

static const char usagestr[] =
    "usage: genlog [-bchpq] [-a MODE] [-e EPOCHS] [-f FORMAT] [-l LEVEL]\n"
    "              [-N NODES] [-n LINES] [-r RANKS] [-s SEED] [-t FILE]\n"
    "              [-w WORKERS]\n";

/* "genlog: what" or "genlog: what: detail", exit 2 */
static void
die(const char *what, const char *detail)
{
	if (detail != NULL)
		fprintf(stderr, "genlog: %s: %s\n", what, detail);
	else
		fprintf(stderr, "genlog: %s\n", what);
	exit(2);
}

static void
usage(const char *msg, const char *arg)
{
	fprintf(stderr, "genlog: %s: %s\n%s", msg, arg, usagestr);
	exit(2);
}

static void *
xrealloc(void *p, size_t n, size_t sz)
{
	if (sz != 0 && n > SIZE_MAX / sz)
		die("out of memory", NULL);
	if ((p = realloc(p, n * sz)) == NULL && n * sz != 0)
		die("out of memory", NULL);
	return p;
}

static void *
xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n, sz)) == NULL)
		die("out of memory", NULL);
	return p;
}

/* xorshift64*: small, fast, and the same bytes on every machine */
static uint64_t
rnd64(void)
{
	rngs ^= rngs >> 12;
	rngs ^= rngs << 25;
	rngs ^= rngs >> 27;
	return rngs * 2685821657736338717ULL;
}

static uint32_t
rnd(uint32_t n)
{
	return (uint32_t)(((rnd64() >> 32) * n) >> 32);
}

static double
rndf(void)
{
	return (double)(rnd64() >> 11) / 9007199254740992.0;
}

static int64_t
between(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rndf() * (double)(hi - lo));
}

static int64_t
lmin(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t
lmax(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* a duration around m: mostly 0.6m-1.4m, one in 20 up to 5 times more */
static int64_t
dur(int64_t m)
{
	double f = 0.6 + 0.8 * rndf();

	if (rnd(20) == 0)
		f *= 1 + 4 * rndf();
	return (int64_t)(f * (double)m);
}

/* delay between taking ts and writing the line: mostly tens of us */
static int64_t
jitter(void)
{
	uint32_t x = rnd(1000);

	if (x < 900)
		return between(3 * US, 60 * US);
	if (x < 990)
		return between(60 * US, 1 * MS);
	return between(1 * MS, 6 * MS);
}

/* output */

static void
oflush(void)
{
	char *p = obuf;
	ssize_t n;

	while (p < op) {
		if ((n = write(1, p, (size_t)(op - p))) < 0) {
			if (errno == EINTR)
				continue;
			die("write error", strerror(errno));
		}
		p += n;
	}
	op = obuf;
}

static void
putstr(const char *s)
{
	size_t n = strlen(s);

	memcpy(op, s, n);
	op += n;
}

static void
putu(uint64_t v)
{
	char b[20], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	memcpy(op, p, (size_t)(b + sizeof(b) - p));
	op += b + sizeof(b) - p;
}

static void
puti(long long v)
{
	if (v < 0) {
		*op++ = '-';
		putu((uint64_t)-v);
	} else
		putu((uint64_t)v);
}

/*
 * Python's created = time.time() is a double with 22 fraction bits here
 * (2^30 <= created < 2^31).  new prints "%.3f" of created*1e6, so the
 * fraction is a multiple of 0.25; old and v1 print repr(created): the
 * shortest decimal that reads back as the same double.
 */
static void
putts(int fmt, int64_t t)
{
	static const char frac[4][4] = { "000", "250", "500", "750" };
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000 };
	double sec = (double)t / 1e9;
	uint64_t m, r, k = 0, lo, hi, x;
	int d, i;
	char *p;

	if (sec < 1073741824.0 || sec >= 2147483648.0)
		die("internal error: time out of range", NULL);
	if (fmt == F_NEW) {
		m = (uint64_t)(sec * 1e6 * 4);
		putu(m >> 2);
		*op++ = '.';
		memcpy(op, frac[m & 3], 3);
		op += 3;
		return;
	}
	m = (uint64_t)(sec * 4194304.0);
	r = m & 0x3fffff;
	putu(m >> 22);
	*op++ = '.';
	if (r == 0) {
		*op++ = '0';
		return;
	}
	/* 7 decimals always suffice: 1e-7 < one ulp (2^-22) */
	for (d = 1;; d++) {
		k = (2 * r * p10[d] + 0x400000) >> 23;	/* nearest */
		x = k << 23;
		lo = (2 * r - 1) * p10[d];
		hi = (2 * r + 1) * p10[d];
		if (d == 7 || (x > lo && x < hi) ||
		    (!(r & 1) && (x == lo || x == hi)))
			break;
	}
	p = op + d;
	for (i = 0; i < d; i++, k /= 10)
		*--p = (char)('0' + k % 10);
	op += d;
}

static void
puttpl(const char *s, const struct rec *rc)
{
	for (; *s != '\0'; s++)
		switch (*s) {
		case '\1':
			puti(rc->a);
			break;
		case '\2':
			puti(rc->b);
			break;
		case '\3':
			puti(rc->c);
			break;
		case '\4':
			putstr(run.cdir);
			PUTL("/chunk-0-");
			puti(rc->a);
			PUTL(".bin");
			break;
		case '\5':
			if (rc->ph == 'B')
				PUTL("Decompressing data");
			else
				PUTL("Decompressed data");
			break;
		default:
			*op++ = *s;
			break;
		}
}

static void
putprefix(const struct rec *rc)
{
	PUTL("ts:");
	putts(run.fmt, rc->t + skew[rc->th->p->node]);
	if (run.fmt == F_V1) {
		PUTL("; logger_name:litdata.streaming.");
		if (rc->ph != 0) {
			putstr(v1ev[rc->kind].logger);
			PUTL("; level:DEBUG; ");
		} else {
			putstr(textrec[rc->kind].logger);
			PUTL("; level:");
			putstr(textrec[rc->kind].level);
			PUTL("; ");
		}
	} else
		*op++ = ';';
	memcpy(op, rc->th->pfx, (size_t)rc->th->pfxlen);
	op += rc->th->pfxlen;
}

static void
putevent(const struct rec *rc)
{
	const char *cname;

	PUTL("name: ");
	if (run.fmt == F_NEW)
		putstr(newev[rc->kind].name);
	else
		puttpl(run.fmt == F_OLD ? oldev[rc->kind].name :
		    v1ev[rc->kind].name, rc);
	PUTL(";ph: ");
	*op++ = rc->ph;
	*op++ = ';';
	if (run.fmt == F_NEW) {
		putstr(catcname[kcat[rc->kind]]);
		puttpl(newev[rc->kind].fields, rc);
		if (rc->kind == K_CRASH) {
			PUTL("exception: ");
			putstr(crash[rc->b][0]);
			PUTL(";error: ");
			puttpl(crash[rc->b][1], rc);
			*op++ = ';';
		}
		return;
	}
	cname = run.fmt == F_OLD ? oldev[rc->kind].cname : v1ev[rc->kind].cname;
	if (cname != NULL) {
		PUTL("cname: ");
		putstr(cname);
		*op++ = ';';
	}
}

static void
puttext(const struct rec *rc)
{
	size_t i, n = sizeof(tback) / sizeof(tback[0]);

	puttpl(textrec[rc->kind].msg, rc);
	cnt.lines++;
	cnt.text++;
	if (rc->kind == N_NOEXIT && rc->b) {
		/* the message ends in "\n": new turns it into a space */
		if (run.fmt == F_NEW)
			*op++ = ' ';
		else {
			*op++ = '\n';
			cnt.lines++;
			cnt.blank++;
		}
	}
	*op++ = '\n';
	if (rc->kind == N_FAIL && run.fmt != F_NEW) {
		for (i = 0; i < n; i++) {
			puttpl(tback[i], rc);
			*op++ = '\n';
		}
		cnt.lines += n;
		cnt.cont += n;
	}
}

static void
writerec(const struct rec *rc)
{
	struct thr *th = rc->th;
	char *start;

	if (rc->t > th->p->kill)
		return;
	if (cnt.lines >= run.limit) {
		stopped = 1;
		return;
	}
	if (op > obuf + OBUFSZ - RECMAX)
		oflush();
	start = op;
	putprefix(rc);
	if (rc->ph == 0)
		puttext(rc);
	else {
		putevent(rc);
		memcpy(op, th->p->env, (size_t)th->p->envlen);
		op += th->p->envlen;
		*op++ = '\n';
		cnt.lines++;
		cnt.events++;
		if (rc->ph == 'B')
			cnt.b++;
		else if (rc->ph == 'E') {
			cnt.e++;
			cnt.pairs++;	/* an E is only made after its B */
			cnt.cat[kcat[rc->kind]]++;
		} else {
			cnt.i++;
			cnt.crashes += rc->kind == K_CRASH;
		}
		if (!th->wrote) {
			th->wrote = 1;
			cnt.threads++;
		}
		if (!th->p->wrote) {
			th->p->wrote = 1;
			cnt.procs++;
		}
	}
	cnt.bytes += op - start;
}

/*
 * Records wait in a heap ordered by write time until no thread can
 * produce an earlier one (flushto's horizon), then are formatted.
 */
static int
before(uint32_t a, uint32_t b)
{
	return pool[a].w < pool[b].w ||
	    (pool[a].w == pool[b].w && pool[a].seq < pool[b].seq);
}

static void
flushto(int64_t h)
{
	uint32_t top, x;
	size_t i, c;

	while (nheap > 0 && pool[heap[0]].w < h && !stopped) {
		top = heap[0];
		x = heap[--nheap];
		for (i = 0; (c = 2 * i + 1) < nheap; i = c) {
			if (c + 1 < nheap && before(heap[c + 1], heap[c]))
				c++;
			if (!before(heap[c], x))
				break;
			heap[i] = heap[c];
		}
		heap[i] = x;
		writerec(&pool[top]);
		freelist[nfree++] = top;
	}
}

static int64_t
emit(struct thr *th, int64_t t, int kind, int ph, int a, int b, int c)
{
	struct rec *rc;
	uint32_t x;
	size_t i, up;
	int64_t w;

	if (ph != 0 && run.fmt == F_NEW && !(run.mask & 1u << kcat[kind]))
		return t;
	if (ph == 0 && opt.quiet)
		return t;
	if (t < th->lastt)
		t = th->lastt;
	th->lastt = t;
	if ((w = t + jitter()) < th->lastw)
		w = th->lastw;
	th->lastw = w;
	if (nfree > 0)
		x = freelist[--nfree];
	else {
		if (npool == poolcap) {
			poolcap = poolcap ? 2 * poolcap : 4096;
			if (poolcap > UINT32_MAX)
				die("out of memory", NULL);
			pool = xrealloc(pool, poolcap, sizeof(*pool));
			heap = xrealloc(heap, poolcap, sizeof(*heap));
			freelist = xrealloc(freelist, poolcap,
			    sizeof(*freelist));
		}
		x = (uint32_t)npool++;
	}
	rc = &pool[x];
	rc->t = t;
	rc->w = w;
	rc->seq = seqno++;
	rc->th = th;
	rc->kind = (short)kind;
	rc->ph = (char)ph;
	rc->a = a;
	rc->b = b;
	rc->c = c;
	for (i = nheap++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!before(x, heap[up]))
			break;
		heap[i] = heap[up];
	}
	heap[i] = x;
	if (t > maxt)
		maxt = t;
	return t;
}

/* processes and threads */

static struct proc *
newproc(int node, int rank, int wsize, int wrank)
{
	struct proc *p = xcalloc(1, sizeof(*p));

	p->pid = nextpid;
	nextpid += 1 + rnd(6);
	if (rnd(10) == 0)
		nextpid += rnd(400);
	p->node = node;
	p->kill = NEVER;
	p->envlen = snprintf(p->env, sizeof(p->env), "dist_world_size: %d;"
	    "dist_global_rank: %d;dist_num_nodes: %d;worker_world_size: %d;"
	    "worker_rank: %d;", opt.ranks, rank, opt.nodes, wsize, wrank);
	p->next = procs;
	procs = p;
	return p;
}

static struct thr *
getthr(struct proc *p, uint64_t tid)
{
	struct thr *th;

	for (th = p->thr; th != NULL; th = th->next)
		if (th->tid == tid)
			return th;
	th = xcalloc(1, sizeof(*th));
	th->p = p;
	th->tid = tid;
	th->pfxlen = snprintf(th->pfx, sizeof(th->pfx), "PID:%ld; TID:%llu; ",
	    p->pid, (unsigned long long)tid);
	th->next = p->thr;
	p->thr = th;
	return th;
}

static void
setkill(struct proc *p, int64_t t)
{
	if (t < p->kill)
		p->kill = t;
	if (t > run.killmax)
		run.killmax = t;
}

/* prefetch thread: delete, lock, download, decompress */

static int64_t
noise(struct thr *th, int64_t t, int kind, int a, int b)
{
	return emit(th, t, kind, 0, a, b, 0);
}

static int64_t
pfdelete(struct worker *wk, int k, int64_t t)
{
	struct ival *iv = &wk->iv[k];
	struct thr *pc = wk->pc;
	int c = iv->chunk;

	if (run.fmt != F_V1) {
		t = noise(pc, t, N_CALLED, c, 0);
		t = noise(pc, t + between(10 * US, 60 * US), N_GLOB, c, 0);
		t = noise(pc, t + between(10 * US, 60 * US), N_REMOVED, c, 0);
		if (iv->remain > 0)
			return noise(pc, t + between(5 * US, 30 * US), N_SKIP, c,
			    iv->remain);
	} else if (iv->remain > 0)
		return t;
	t = emit(pc, t + between(5 * US, 40 * US), K_DELETE, 'B', c, 0, 0);
	if (run.fmt != F_V1 && rnd(50) == 0)
		t = noise(pc, t + between(20 * US, 200 * US), N_NOREMOVE, c, 0);
	return emit(pc, t + dur(200 * US), K_DELETE, 'E', c, 0, 0);
}

static int64_t
fetch(struct worker *wk, int i, struct thr *th, int64_t t)
{
	struct ival *iv = &wk->iv[i];
	int c = iv->chunk, k;

	if (run.fmt == F_V1) {
		t = emit(th, t, K_GETITEM, 'B', c, -1, 0);
		t = emit(th, t + between(5 * US, 30 * US), K_GETITEM, 'E', c,
		    -1, 0);
	}
	if ((!run.tb && wk == &ranks[0].wk[0] && i == (wk->niv > 1)) ||
	    rnd(500) == 0) {
		run.tb = 1;
		t = noise(th, t + between(1 * MS, 5 * MS), N_FAIL, c, 0);
		t += between(100 * MS, 1 * SEC);
	}
	t = emit(th, t + between(5 * US, 50 * US), K_LOCKINC, 'B', c, 0,
	    iv->lock);
	t = emit(th, t + between(10 * US, 80 * US), K_LOCKINC, 'E', c, 0,
	    iv->lock);
	t = emit(th, t + between(5 * US, 40 * US), K_DOWNLOAD, 'B', c, 0, 0);
	if (i == wk->crashiv) {
		/* the GET raises: the download span stays open */
		wk->pfdead = 1;
		for (k = i; k < wk->niv; k++)
			wk->iv[k].done = NEVER;
		return t;
	}
	t = emit(th, t + dur(run.mdl), K_DOWNLOAD, 'E', c, 0, 0);
	t = emit(th, t + between(5 * US, 50 * US), K_DECOMP, 'B', c, 0, 0);
	t = emit(th, t + dur(run.mdec), K_DECOMP, 'E', c, 0, 0);
	return iv->done = t;
}

/* the worker released chunk interval rel (-1: start): delete it, fetch more */
static void
pftrigger(struct worker *wk, int64_t tr, int rel)
{
	struct thr *pc = wk->pc, *th;
	int i, k, q, n, want, first = wk->fetched;
	int64_t t, s, end;

	if (wk->pfdead)
		return;
	t = tr + between(20 * US, 400 * US);
	if (rel >= 0)
		t = pfdelete(wk, rel, t);
	want = (int)lmax(lmin(wk->niv, wk->released + run.window), first);
	n = want - first;
	if (run.fmt == F_NEW)
		t = emit(pc, t, K_PREFETCH, 'B', n, 0, 0);
	else if (run.fmt == F_OLD)
		for (i = first; i < want; i++)
			t = emit(pc, t + between(5 * US, 40 * US), K_PREFETCH,
			    'B', wk->iv[i].chunk, 0, 0);
	end = t;
	for (i = first; i < want && !wk->pfdead; i++) {
		if (!run.async) {
			end = t = fetch(wk, i, pc, t);
			continue;
		}
		for (k = 0, q = 1; q < NAIO; q++)
			if (wk->slot[q] < wk->slot[k])
				k = q;
		s = lmax(wk->slot[k], t + between(30 * US, 300 * US));
		if (run.spans) {
			if (wk->aio[k] == NULL)
				wk->aio[k] = getthr(wk->p, wk->rk->aiotid[k]);
			th = wk->aio[k];
			s = fetch(wk, i, th, s);
		} else if (i == wk->crashiv) {
			wk->pfdead = 1;
			for (k = i; k < wk->niv; k++)
				wk->iv[k].done = NEVER;
		} else {
			s += dur(run.mdl);
			wk->iv[i].done = s;	/* decompressed below */
		}
		if (!wk->pfdead)
			wk->slot[k] = s;
		end = lmax(end, s);
		t += between(20 * US, 100 * US);
	}
	wk->fetched = want;
	t = lmax(t, end) + between(20 * US, 300 * US);
	if (wk->pfdead) {
		if (run.async && !run.spans)	/* never decompressed */
			for (i = first; i < want; i++)
				wk->iv[i].done = NEVER;
		/* _report_crash: prefetch closes, then the instant */
		if (run.fmt == F_NEW) {
			t = emit(pc, t, K_PREFETCH, 'E', n, 0, 0);
			k = (int)rnd(4);
			emit(pc, t + between(100 * US, 2 * MS), K_CRASH, 'I',
			    wk->iv[wk->crashiv].chunk, k, 0);
		}
		run.crashed = 1;
		return;
	}
	if (run.async && !run.spans)
		for (i = first; i < want; i++) {
			t = emit(pc, lmax(t, wk->iv[i].done), K_DECOMP, 'B',
			    wk->iv[i].chunk, 0, 0);
			t = emit(pc, t + dur(run.mdec), K_DECOMP, 'E',
			    wk->iv[i].chunk, 0, 0);
			wk->iv[i].done = t;
		}
	if (run.fmt == F_NEW)
		emit(pc, t, K_PREFETCH, 'E', n, 0, 0);
	else if (run.fmt == F_OLD)
		for (i = first; i < want; i++)
			t = emit(pc, t + between(3 * US, 30 * US), K_PREFETCH,
			    'E', wk->iv[i].chunk, 0, 0);
}

/* worker main thread */

static void
crashdie(struct worker *wk, int64_t t)
{
	struct rank *rk;
	int64_t k, kr;
	int r, w;

	if (!wk->pfdead)
		die("internal error: chunk used before it was fetched", NULL);
	/* the rank's main learns it when it asks for this worker's batch */
	kr = t;
	if (curb > 0 && wk->rk->end[curb - 1] != NEVER)
		kr = lmax(kr, wk->rk->end[curb - 1]);
	kr += between(10 * MS, 300 * MS);
	wk->dead = 1;
	setkill(wk->p, t);
	for (r = 0; r < opt.ranks; r++) {
		rk = &ranks[r];
		k = rk == wk->rk ? kr : kr + between(2 * SEC, 20 * SEC);
		setkill(rk->mp, k);
		for (w = 0; w < nwk; w++)
			setkill(rk->wk[w].p, k);
	}
	jobdead = 1;
}

static int64_t
release(struct worker *wk, int k, int64_t t)
{
	struct ival *iv = &wk->iv[k];
	int c = iv->chunk;

	if (run.fmt == F_V1) {
		t = emit(wk->mt, t, K_LOCKDEC, 'B', c, 0, 0);
		t = emit(wk->mt, t + between(10 * US, 60 * US), K_LOCKDEC, 'E',
		    c, 0, 0);
	} else {
		t = emit(wk->mt, t, K_READ, 'E', c, iv->size, 0);
		if (iv->remain > 0) {
			t = emit(wk->mt, t + between(2 * US, 10 * US),
			    K_LOCKDEC, 'B', c, 0, iv->remain);
			t = emit(wk->mt, t + between(10 * US, 80 * US),
			    K_LOCKDEC, 'E', c, 0, iv->remain);
		}
	}
	wk->released++;
	pftrigger(wk, t, k);
	return t;
}

static int64_t
waitfor(struct worker *wk, const struct ival *iv, int64_t t)
{
	if (iv->done == NEVER)
		crashdie(wk, t);
	else if (iv->done > t)
		t = iv->done + between(50 * US, 2 * MS);
	return t;
}

static int64_t
item(struct worker *wk, int64_t t)
{
	struct ival *iv = &wk->iv[wk->cur];
	struct thr *mt = wk->mt;
	int c = iv->chunk, first = wk->off == 0, idx;
	int64_t d = dur(run.msample);

	idx = run.cbase[c] + iv->start + (int)(((int64_t)wk->off * iv->stride +
	    iv->rot) % iv->size);
	if (run.fmt == F_V1) {
		/* getitem > reader_reading > (get_item, load_item) */
		t = emit(mt, t, K_SAMPLE, 'B', c, idx, 0);
		t = emit(mt, t + between(2 * US, 8 * US), K_READER, 'B', c, idx,
		    0);
		if (first && wk->cur > 0)
			t = release(wk, wk->cur - 1, t + between(2 * US, 8 * US));
		t = emit(mt, t + between(2 * US, 8 * US), K_GETITEM, 'B', c, idx,
		    0);
		t = emit(mt, t + between(3 * US, 15 * US), K_GETITEM, 'E', c,
		    idx, 0);
		t = emit(mt, t + between(2 * US, 8 * US), K_LOAD, 'B', c, idx, 0);
		if (first) {
			t = waitfor(wk, iv, t);
			if (wk->dead)
				return t;
		}
		t = emit(mt, t + d * 7 / 10, K_LOAD, 'E', c, idx, 0);
		t = emit(mt, t + d / 10, K_READER, 'E', c, idx, 0);
		return emit(mt, t + d / 10, K_SAMPLE, 'E', c, idx, 0);
	}
	if (run.fmt == F_NEW)
		t = emit(mt, t, K_SAMPLE, 'B', c, idx, 0);
	if (first) {
		/* read E of the last chunk and read B inside this sample */
		if (wk->cur > 0)
			t = release(wk, wk->cur - 1, t + between(2 * US, 10 * US));
		t = emit(mt, t + between(2 * US, 10 * US), K_READ, 'B', c,
		    iv->size, 0);
		t = waitfor(wk, iv, t);
		if (wk->dead)
			return t;
	}
	t += d;
	if (run.fmt == F_NEW)
		t = emit(mt, t, K_SAMPLE, 'E', c, idx, 0);
	return t;
}

/* the worker ran out of data */
static int64_t
wend(struct worker *wk, int64_t t)
{
	/* old never closes its last read (reader.py:950) */
	if (run.fmt == F_NEW)
		t = release(wk, wk->cur, t + between(5 * US, 50 * US));
	if (run.fmt == F_V1 || run.combined)
		t = emit(wk->mt, t + between(10 * US, 100 * US), K_WORKER, 'E',
		    0, 0, 0);
	if (opt.workers > 0 && rnd(6) == 0)
		t = noise(wk->mt, t + between(1 * MS, 20 * MS), N_NOEXIT, 0, 1);
	return t;
}

static int64_t
produce(struct worker *wk, int64_t t)
{
	long long i, n = lmin(run.bs, wk->left);

	for (i = 0; i < n; i++) {
		if (wk->off == wk->iv[wk->cur].size) {
			wk->cur++;
			wk->off = 0;
		}
		t = item(wk, t);
		if (wk->dead)
			return NEVER;
		wk->off++;
		wk->left--;
		t += between(3 * US, 30 * US);
	}
	if (wk->left == 0)
		t = wend(wk, t);
	t += between(50 * US, 1 * MS);	/* collate */
	return wk->free = t;
}

static void
wbegin(struct worker *wk, int e, int64_t t)
{
	int k;

	wk->cur = wk->off = wk->fetched = wk->released = 0;
	wk->dead = wk->pfdead = 0;
	wk->left = run.perwk;
	wk->crashiv = -1;
	if (opt.crash && !run.crashed && e >= run.cepoch &&
	    wk->rk == &ranks[run.crank] && wk == &wk->rk->wk[run.cworker])
		wk->crashiv = (int)lmin(wk->niv - 1, run.window +
		    (int)(run.cfrac * (wk->niv - run.window)));
	if (run.fmt == F_V1 || run.combined)
		t = emit(wk->mt, t, K_WORKER, 'B', 0, 0, 0);
	if (run.async && !wk->announced) {
		/* once per reader */
		wk->announced = 1;
		t = noise(wk->mt, t + between(100 * US, 2 * MS), N_ASYNC, 0, 0);
		if (rnd(8) == 0)
			t = noise(wk->mt, t + between(10 * US, 90 * US), N_CAP,
			    0, 0);
	}
	wk->free = t;
	for (k = 0; k < NAIO; k++)
		wk->slot[k] = t;
	pftrigger(wk, t, -1);
}

/* dataset and schedule */

static int
gcd(int a, int b)
{
	int t;

	while (b != 0) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void
addiv(struct worker *wk, int c, int start, int size)
{
	struct ival *iv;
	int partial = size < run.csz[c];

	if (wk->niv == wk->ivcap) {
		wk->ivcap = wk->ivcap ? 2 * wk->ivcap : 16;
		wk->iv = xrealloc(wk->iv, (size_t)wk->ivcap, sizeof(*wk->iv));
	}
	iv = &wk->iv[wk->niv++];
	iv->chunk = c;
	iv->start = start;
	iv->size = size;
	iv->lock = partial ? 1 + (int)rnd(2) : 1;
	iv->remain = partial ? (int)rnd(2) : 0;
	/* items in shuffled order: a Weyl sequence with a stride near
	 * size/phi, coprime to size */
	for (iv->stride = (int)(size * 0.618) | 1; gcd(iv->stride, size) != 1;
	    iv->stride += 2)
		;
	iv->rot = (int)rnd((uint32_t)size);
	iv->done = NEVER;
}

/* shuffle the chunks, give every worker the same number of items */
static void
assign(void)
{
	long long total = 0, need;
	int i, j, c, g, off, take, ng = opt.ranks * nwk;
	struct worker *wk;

	for (i = run.nchunks - 1; i > 0; i--) {
		j = (int)rnd((uint32_t)i + 1);
		c = run.order[i];
		run.order[i] = run.order[j];
		run.order[j] = c;
	}
	for (c = 0; c < run.nchunks; c++)
		total += run.csz[c];
	run.perwk = total / ng;
	run.nbw = (int)((run.perwk + run.bs - 1) / run.bs);
	for (g = 0; g < ng; g++)
		ranks[g / nwk].wk[g % nwk].niv = 0;
	need = run.perwk;
	for (i = 0, g = 0; i < run.nchunks && g < ng; i++) {
		c = run.order[i];
		for (off = 0; off < run.csz[c] && g < ng; off += take) {
			wk = &ranks[g / nwk].wk[g % nwk];
			take = (int)lmin(run.csz[c] - off, need);
			addiv(wk, c, off, take);
			if ((need -= take) == 0) {
				g++;
				need = run.perwk;
			}
		}
	}
}

static void
wsetup(struct rank *rk, int w)
{
	struct worker *wk = &rk->wk[w];

	wk->rk = rk;
	if (opt.workers == 0) {
		wk->p = rk->mp;
		wk->mt = rk->mt;
	} else {
		/* v1 cached env_info() in the parent before the fork */
		wk->p = newproc(rk->node, (int)(rk - ranks),
		    run.fmt == F_V1 ? 1 : opt.workers, run.fmt == F_V1 ? 0 : w);
		wk->mt = getthr(wk->p, rk->mtid);
	}
	wk->pc = getthr(wk->p, rk->pctid);
	memset(wk->aio, 0, sizeof(wk->aio));
	wk->announced = 0;
}

enum { EP_OK, EP_CRASH };

static int
epoch(int e, int64_t *tp, int *neww)
{
	struct rank *rk;
	struct worker *wk;
	int r, w, b, j, nb, brk, alive;
	int64_t req, ready, a, sync, h, gate;

	assign();
	nb = run.nbw * nwk;
	for (r = 0; r < opt.ranks; r++) {
		rk = &ranks[r];
		if (nb > rk->nbcap) {
			rk->nbcap = nb;
			rk->arr = xrealloc(rk->arr, (size_t)nb, sizeof(int64_t));
			rk->end = xrealloc(rk->end, (size_t)nb, sizeof(int64_t));
		}
		rk->start = *tp + between(0, 3 * MS);
		emit(rk->mt, rk->start, K_LOADER, 'B', e + 1, 0, 0);
		for (w = 0; w < nwk; w++) {
			wk = &rk->wk[w];
			if (*neww || (!opt.persist && opt.workers > 0)) {
				wsetup(rk, w);
				wk->free = rk->start + (opt.workers == 0 ?
				    between(50 * US, 300 * US) :
				    between(150 * MS, 700 * MS));
			} else
				wk->free = lmax(wk->free, rk->start +
				    between(1 * MS, 5 * MS));
			wbegin(wk, e, wk->free);
		}
	}
	*neww = 0;
	brk = -1;
	if (opt.brk && !run.broke && e >= run.bepoch)
		brk = (int)lmin(nb - 1, (int)(run.bfrac * nb));
	for (b = 0; b < nb && !stopped; b++) {
		curb = b;
		w = b % nwk;
		j = b / nwk;
		sync = 0;
		alive = 0;
		for (r = 0; r < opt.ranks; r++) {
			rk = &ranks[r];
			wk = &rk->wk[w];
			req = b > 0 ? rk->end[b - 1] :
			    rk->start + between(500 * US, 2 * MS);
			/* prefetch_factor 2: a worker starts batch j
			 * when the main took its batch j-2 */
			if (opt.workers == 0)
				gate = req;
			else
				gate = j >= 2 ? rk->arr[b - 2 * nwk] : 0;
			if (wk->dead || gate == NEVER)
				ready = NEVER;
			else
				ready = produce(wk, lmax(wk->free, gate));
			if (ready == NEVER || req == NEVER)
				a = NEVER;
			else
				a = lmax(req, ready + (opt.workers == 0 ?
				    between(5 * US, 30 * US) :
				    between(100 * US, 800 * US)));
			rk->arr[b] = a;
			alive += a != NEVER;
			if (a == NEVER || sync == NEVER)
				sync = NEVER;
			else
				sync = lmax(sync, a + dur(run.mstep));
		}
		/* DDP: every rank's step ends after the all-reduce */
		if (sync != NEVER)
			sync += between(100 * US, 2 * MS);
		h = NEVER;
		for (r = 0; r < opt.ranks; r++) {
			rk = &ranks[r];
			if (run.fmt == F_NEW && rk->arr[b] != NEVER)
				emit(rk->mt, rk->arr[b], K_BATCH, 'B', b, e + 1, 0);
			rk->end[b] = sync == NEVER || b == brk ? NEVER :
			    sync + between(0, 300 * US);
			if (rk->end[b] != NEVER) {
				if (run.fmt == F_NEW)
					emit(rk->mt, rk->end[b], K_BATCH, 'E',
					    b, e + 1, 0);
				h = lmin(h, rk->end[b]);
			}
			for (w = 0; w < nwk; w++)
				if (!rk->wk[w].dead)
					h = lmin(h, rk->wk[w].free);
		}
		if (b == brk && alive == opt.ranks) {
			/* the loop breaks: batch and dataloader stay open,
			 * the iterator's workers are shut down */
			run.broke = 1;
			for (r = 0; r < opt.ranks; r++) {
				rk = &ranks[r];
				if (r == 0 && rnd(2))
					noise(rk->mt, rk->arr[b] + between(1 * MS,
					    9 * MS), N_NOEXIT, 0, 0);
				for (w = 0; w < opt.workers; w++)
					setkill(rk->wk[w].p, rk->arr[b] +
					    between(5 * MS, 100 * MS));
			}
			*neww = 1;
			*tp = maxt + between(300 * MS, 3 * SEC);
			flushto(*tp);
			return EP_OK;
		}
		if (jobdead && alive == 0)
			break;
		flushto(h);
	}
	if (jobdead) {
		flushto(NEVER);
		*tp = run.killmax + between(20 * SEC, 120 * SEC);
		return EP_CRASH;
	}
	if (stopped)
		return EP_OK;
	for (r = 0; r < opt.ranks; r++) {
		rk = &ranks[r];
		emit(rk->mt, rk->end[nb - 1] + between(50 * US, 500 * US),
		    K_LOADER, 'E', e + 1, 0, 0);
	}
	*tp = maxt + between(300 * MS, 3 * SEC);
	flushto(*tp);
	return EP_OK;
}

/* glibc pthread_t values: addresses in the mmap area, ~1.4e14 */
static void
jobsetup(void)
{
	struct rank *rk;
	int r, k;

	jobdead = 0;
	cnt.jobs++;
	nextpid += 100 + rnd(5000);
	for (r = 0; r < opt.ranks; r++) {
		rk = &ranks[r];
		rk->node = (int)((long long)r * opt.nodes / opt.ranks);
		rk->mtid = 0x7f0000000000ULL | (uint64_t)rnd(1u << 24) << 16 |
		    0x740;
		rk->pctid = rk->mtid - 0x1000000ULL * (1 + rnd(255)) - 0x80;
		for (k = 0; k < NAIO; k++)
			rk->aiotid[k] = rk->pctid - 0x801000ULL * (uint64_t)(k + 1);
		rk->mp = newproc(rk->node, r, 1, 0);
		rk->mt = getthr(rk->mp, rk->mtid);
	}
}

/* lines one epoch of nchunks chunks writes, roughly */
static double
estimate(double nchunks)
{
	double items = 0.917 * run.csize * nchunks, iv, perit = 0;
	unsigned m = run.fmt == F_NEW ? run.mask : ~0u;
	int dl = !run.async || run.spans;

	iv = 2.0 * ((m >> C_DECOMPRESS & 1) + (m >> C_READ & 1) * (run.fmt != F_V1) +
	    (m >> C_DOWNLOAD & 1) * (dl + (run.fmt != F_V1)) +
	    (m >> C_LOCK & 1) * (dl + (run.fmt == F_V1) * 0.9) +
	    (run.fmt == F_V1)) + 1.9 * (m >> C_DELETE & 1) +
	    (opt.quiet || run.fmt == F_V1 ? 0 : 3.2);
	if (run.fmt == F_V1)
		perit = 8;
	else if (run.fmt == F_NEW)
		perit = 2.0 * (m >> C_SAMPLE & 1) +
		    2.0 * (m >> C_BATCH & 1) / run.bs;
	return items * perit + (nchunks + opt.ranks * nwk) * iv;
}

static void
runsetup(int fmt, long long share)
{
	double lo, hi, mid;
	uint64_t h1, h2;
	int c;

	memset(&run, 0, sizeof(run));
	run.fmt = fmt;
	run.bs = 16 << rnd(3);
	run.csize = 128 << rnd(3);
	run.async = fmt != F_V1 && (opt.amode == A_RANDOM ? (int)rnd(2) :
	    opt.amode != A_SYNC);
	run.spans = opt.amode == A_RANDOM ? rnd(4) != 0 : opt.amode != A_NOSPAN;
	run.window = run.async ? 4 : 2;
	run.combined = fmt != F_V1 && rnd(3) == 0;
	run.mask = fmt == F_NEW ? levelmask[opt.level] : ~0u;
	run.msample = between(60 * US, 300 * US);
	run.mdl = between(30 * MS, 200 * MS);
	run.mdec = between(3 * MS, 25 * MS);
	run.mstep = (int64_t)(run.bs * run.msample / nwk *
	    (0.5 + rndf()));
	run.nchunks = (int)lmax(16, 4 * opt.ranks * nwk);
	if (share > 0) {
		/* bisect: estimate() grows with nchunks */
		lo = 1;
		hi = MAXCHUNK;
		while (hi - lo > 0.5) {
			mid = (lo + hi) / 2;
			if (estimate(mid) * opt.epochs < 0.99 * share)
				lo = mid;
			else
				hi = mid;
		}
		run.nchunks = (int)lo;
	}
	run.nchunks = (int)lmax(run.nchunks, opt.ranks * nwk);
	run.csz = xcalloc((size_t)run.nchunks, sizeof(int));
	run.cbase = xcalloc((size_t)run.nchunks, sizeof(int));
	run.order = xcalloc((size_t)run.nchunks, sizeof(int));
	for (c = 0; c < run.nchunks; c++) {
		run.csz[c] = run.csize - (int)rnd((uint32_t)run.csize / 6);
		run.cbase[c] = c > 0 ? run.cbase[c - 1] + run.csz[c - 1] : 0;
		run.order[c] = c;
	}
	h1 = rnd64();
	h2 = rnd64();
	snprintf(run.cdir, sizeof(run.cdir), "/root/.lightning/chunks/"
	    "%016llx%016llx/%u", (unsigned long long)h1,
	    (unsigned long long)h2, 1760000000u + rnd(9000000));
	run.cepoch = (int)rnd((uint32_t)opt.epochs);
	run.crank = (int)rnd((uint32_t)opt.ranks);
	run.cworker = (int)rnd((uint32_t)nwk);
	run.cfrac = 0.1 + 0.35 * rndf();
	run.bepoch = (int)rnd((uint32_t)opt.epochs);
	run.bfrac = 0.5 + 0.4 * rndf();
	run.limit = share > 0 ? cnt.lines + share : LLONG_MAX;
}

static void
dorun(int fmt, long long share, int64_t *tp)
{
	long long before, first = cnt.lines;
	int e = 0, neww, restarted = 0;

	runsetup(fmt, share);
	stopped = 0;
	for (;;) {
		jobsetup();
		if (restarted)
			noise(ranks[0].mt, *tp, N_SHUFFLE, 0, 0);
		neww = 1;
		for (;; e++) {
			if (share == 0 && e >= opt.epochs)
				goto done;
			before = cnt.lines;
			if (epoch(e, tp, &neww) == EP_CRASH)
				break;
			if (stopped || (cnt.lines == before && e >= opt.epochs))
				goto done;
			/* close enough: end with the epoch, spans closed */
			if (share > 0 && e + 1 >= opt.epochs &&
			    cnt.lines - first >= 0.97 * share)
				goto done;
		}
		restarted = 1;
	}
done:
	if (!stopped)
		flushto(NEVER);
	nheap = nfree = npool = 0;
	free(run.csz);
	free(run.cbase);
	free(run.order);
}

/*
 * -t FILE, one key=value a line, all counts of what was written:
 * lines (physical lines), event_lines (lines with a ph), noise_text
 * (lines with the ts: prefix and no ph), noise_cont (traceback lines
 * without the prefix), noise_blank (empty lines), B, E, I (event lines by
 * ph), pairs (E lines: each closes its own B on the same PID and TID;
 * v1's "Decompressing data" B pairs with "Decompressed data" E),
 * unmatched_B = B - pairs, unmatched_E (always 0), crashes (crash
 * instants), processes and threads (distinct PIDs and (PID, TID) that
 * wrote an event), pairs_CAT for CAT in epoch batch download decompress
 * read delete sample lock (old and v1 by the spec's name rules), jobs
 * (job starts, restarts included), bytes.
 */
static void
truth(void)
{
	FILE *fp;
	int c;

	if ((fp = fopen(opt.truth, "w")) == NULL)
		die(opt.truth, strerror(errno));
	fprintf(fp, "lines=%lld\nevent_lines=%lld\nnoise_text=%lld\n"
	    "noise_cont=%lld\nnoise_blank=%lld\nB=%lld\nE=%lld\nI=%lld\n"
	    "pairs=%lld\nunmatched_B=%lld\nunmatched_E=%lld\ncrashes=%lld\n"
	    "processes=%lld\nthreads=%lld\n", cnt.lines, cnt.events, cnt.text,
	    cnt.cont, cnt.blank, cnt.b, cnt.e, cnt.i, cnt.pairs,
	    cnt.b - cnt.pairs, cnt.e - cnt.pairs, cnt.crashes, cnt.procs,
	    cnt.threads);
	for (c = 0; c < C_CRASH; c++)
		fprintf(fp, "pairs_%s=%lld\n", catname[c], cnt.cat[c]);
	fprintf(fp, "jobs=%lld\nbytes=%lld\n", cnt.jobs, cnt.bytes);
	if (ferror(fp) | fclose(fp))
		die(opt.truth, strerror(errno));
}

static long long
num(const char *s, long long min, long long max, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "genlog: bad %s '%s', want %lld..%lld\n%s",
		    what, s, min, max, usagestr);
		exit(2);
	}
	return v;
}

static int
word(const char *s, const char *const *list, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return i;
	usage(what, s);
	return -1;
}

static void
help(void)
{
	fputs(usagestr, stdout);
	fputs("Write a synthetic LitData enable_tracer() log to stdout.\n"
	    "  -a MODE    chunk prefetch: sync, async, nospan (async, no download\n"
	    "             spans) or random per run (default)\n"
	    "  -b         break the training loop once (spans stay open)\n"
	    "  -c         crash once and restart the job (per run)\n"
	    "  -e EPOCHS  epochs per run (default 2; with -n: used for sizing)\n"
	    "  -f FORMAT  new (default), old, v1 or mixed (v1, old, new appended)\n"
	    "  -h         print this help\n"
	    "  -l LEVEL   new tracer level: off, batch, chunk, sample, debug (default)\n"
	    "  -N NODES   nodes the ranks are spread over (default 1)\n"
	    "  -n LINES   write about LINES lines, sizing the dataset to fit\n"
	    "  -p         persistent workers (same PIDs every epoch)\n"
	    "  -q         no noise lines (_apply_delete, INFO, tracebacks)\n"
	    "  -r RANKS   rank processes (default 2)\n"
	    "  -s SEED    random seed (default 9); same options, same bytes\n"
	    "  -t FILE    write exact counts of what was written, key=value\n"
	    "  -w WORKERS DataLoader workers per rank (default 2; 0: none)\n",
	    stdout);
	if (fflush(stdout) != 0)
		die("write error", strerror(errno));
	exit(0);
}

int
main(int argc, char *argv[])
{
	static const char *const fmts[] = { "v1", "old", "new", "mixed" };
	static const char *const amodes[] = { "random", "sync", "async",
	    "nospan" };
	static const char *const levels[] = { "off", "batch", "chunk",
	    "sample", "debug" };
	struct proc *p, *pn;
	struct thr *th, *tn;
	int64_t t;
	int ch, r, w;
	char *end;

	while ((ch = getopt(argc, argv, "a:bce:f:hl:N:n:pqr:s:t:w:")) != -1) {
		switch (ch) {
		case 'a':
			opt.amode = word(optarg, amodes, 4, "bad prefetch mode");
			break;
		case 'b':
			opt.brk = 1;
			break;
		case 'c':
			opt.crash = 1;
			break;
		case 'e':
			opt.epochs = (int)num(optarg, 1, 100000, "EPOCHS");
			break;
		case 'f':
			opt.fmt = word(optarg, fmts, 4, "bad format");
			break;
		case 'h':
			help();
			break;
		case 'l':
			opt.level = word(optarg, levels, 5, "bad level");
			break;
		case 'N':
			opt.nodes = (int)num(optarg, 1, MAXNODE, "NODES");
			break;
		case 'n':
			opt.nlines = num(optarg, 1, 1000000000000LL, "LINES");
			break;
		case 'p':
			opt.persist = 1;
			break;
		case 'q':
			opt.quiet = 1;
			break;
		case 'r':
			opt.ranks = (int)num(optarg, 1, 1024, "RANKS");
			break;
		case 's':
			errno = 0;
			opt.seed = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end != '\0' ||
			    errno != 0)
				usage("bad SEED", optarg);
			break;
		case 't':
			opt.truth = optarg;
			break;
		case 'w':
			opt.workers = (int)num(optarg, 0, 64, "WORKERS");
			break;
		default:
			fputs(usagestr, stderr);
			exit(2);
		}
	}
	if (optind < argc)
		usage("unexpected operand", argv[optind]);
	if (opt.nodes > opt.ranks)
		usage("more nodes than ranks", "-N");

	/* splitmix64 turns any seed into a good xorshift state */
	rngs = opt.seed + 0x9e3779b97f4a7c15ULL;
	rngs = (rngs ^ (rngs >> 30)) * 0xbf58476d1ce4e5b9ULL;
	rngs = (rngs ^ (rngs >> 27)) * 0x94d049bb133111ebULL;
	rngs ^= rngs >> 31;
	if (rngs == 0)
		rngs = 1;
	nwk = opt.workers > 0 ? opt.workers : 1;
	ranks = xcalloc((size_t)opt.ranks, sizeof(*ranks));
	for (r = 0; r < opt.ranks; r++)
		ranks[r].wk = xcalloc((size_t)nwk, sizeof(struct worker));
	for (r = 1; r < opt.nodes; r++)
		skew[r] = between(-40 * MS, 40 * MS);
	nextpid = 1000 + rnd(2000000);
	/* 2026: created stays within [2^30, 2^31) s */
	t = (1767225600LL + rnd(300 * 86400)) * SEC;
	t += rnd(SEC);
	if (opt.fmt == F_MIXED) {
		dorun(F_V1, opt.nlines / 3, &t);
		t = maxt + between(2 * 3600 * SEC, 5 * 86400 * SEC);
		dorun(F_OLD, opt.nlines / 3, &t);
		t = maxt + between(2 * 3600 * SEC, 5 * 86400 * SEC);
		dorun(F_NEW, opt.nlines - 2 * (opt.nlines / 3), &t);
	} else
		dorun(opt.fmt, opt.nlines, &t);
	oflush();
	if (opt.truth != NULL)
		truth();

	for (p = procs; p != NULL; p = pn) {
		for (th = p->thr; th != NULL; th = tn) {
			tn = th->next;
			free(th);
		}
		pn = p->next;
		free(p);
	}
	for (r = 0; r < opt.ranks; r++) {
		for (w = 0; w < nwk; w++)
			free(ranks[r].wk[w].iv);
		free(ranks[r].wk);
		free(ranks[r].arr);
		free(ranks[r].end);
	}
	free(ranks);
	free(pool);
	free(heap);
	free(freelist);
	return 0;
}
