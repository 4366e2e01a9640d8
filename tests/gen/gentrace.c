/* See LICENSE file for copyright and license details. */
/*
 * gentrace: deterministic Chrome/Kineto-shaped traces for tests and
 * benchmarks.  Writes to standard output, libc only.
 *
 *   -f kineto  a PyTorch profiler trace (the default): object form with
 *              schemaVersion, deviceProperties and traceEvents; M names
 *              for processes and threads; CPU ops nested several deep on
 *              a few threads; kernels on GPU streams launched by
 *              cudaLaunchKernel, joined to them by s/f flows (bp "e");
 *              epoch microseconds with 3 decimals.  -x crossing pairs are
 *              made: on the streams, two thirds under 5 us, the rest real
 *              overlaps; one in five on the CPU threads, a child outliving
 *              its parent by under 1 us.  Each crosses exactly one slice.
 *              -i gives the CPU threads the ids Perfetto coerces or keeps
 *              apart (issue reports of real Kineto traces): one tid
 *              negative, one above 2^32-1 (both become the main thread in
 *              Perfetto, and they run beside it), and a fourth thread whose events carry its tid
 *              as a string while its flow starts carry the number.  -d
 *              puts that many days between the two halves of the trace.
 *   -f dense   many small tracks of 2-25 random slices, most of them
 *              crossing, a fifth properly nested; each slice carries
 *              {"i":N} in args (for the randomised test of ltlanefix).
 *   -f stair   -n slices on one track, each crossing every other one.
 *
 * -n is the number of events (slices for stair), -s the seed, -l writes
 * an lt1 stream instead of JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define USAGE	"usage: gentrace [-il] [-d days] [-f kineto|dense|stair] " \
		"[-n events] [-s seed] [-x crossings]\n"

#define BASE	((int64_t)1692108548132154000)	/* ns: an epoch time */
#define US	((int64_t)1000)

static int		 lflag;
static int		 iflag;		/* odd tids */
static long long	 days;		/* the gap in the middle */
static long long	 strtid;	/* written as a string, but in flows */
static uint64_t		 rng;
static long long	 nevents, limit;
static long long	 ncross, nkernels, kernelno, nops, opno;
static int		 counting;	/* first pass: count kernels only */

static uint64_t
next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t
between(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

static int
chance(int percent)
{
	return (int)(next() % 100) < percent;
}

/* ns as microseconds: JSON always with 3 decimals, lt1 shortest. */
static void
putus(int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;
	int f = (int)(a % 1000);

	printf("%s%lld", ns < 0 ? "-" : "", (long long)(a / 1000));
	if (!lflag)
		printf(".%03d", f);
	else if (f % 100 == 0 && f != 0)
		printf(".%d", f / 100);
	else if (f % 10 == 0 && f != 0)
		printf(".%02d", f / 10);
	else if (f != 0)
		printf(".%03d", f);
}

/*
 * One event.  pid and tid are numbers; dur < 0 means none; args is a
 * minified JSON object (or NULL); for flows, id and bp.
 */
struct ev {
	int		 ph;
	int64_t		 ts, dur;
	long long	 pid, tid;
	const char	*cat, *name, *args;
	long long	 id;		/* flows */
	int		 bp;		/* 'e' or 0 */
};

/* Is the tid of e written as a string (all but flows of strtid)? */
static int
quoted(const struct ev *e)
{
	return strtid != 0 && e->tid == strtid && e->ph != 's' &&
	    e->ph != 't' && e->ph != 'f';
}

static void
emit(const struct ev *e)
{
	static int first = 1;

	nevents++;
	if (counting)
		return;
	if (lflag) {
		if (e->ts >= 0 || e->ph != 'M')
			putus(e->ts);
		else
			putchar('-');
		printf(quoted(e) ? "\t%c\t%lld\t\"%lld\"\t" :
		    "\t%c\t%lld\t%lld\t", e->ph, e->pid, e->tid);
		if (e->dur >= 0)
			putus(e->dur);
		else
			putchar('-');
		printf("\t%s\t%s\t%s\t", e->cat != NULL ? e->cat : "",
		    e->name, e->args != NULL ? e->args : "{}");
		if (e->ph == 's' || e->ph == 'f' || e->ph == 't')
			printf("{\"id\":%lld%s}\n", e->id,
			    e->bp == 'e' ? ",\"bp\":\"e\"" : "");
		else
			printf(e->ph == 'i' ? "{\"s\":\"t\"}\n" : "{}\n");
		return;
	}
	/* Kineto writes one member per line for args, the rest on two. */
	printf("%s  {\n    \"ph\": \"%c\"", first ? "" : ",\n", e->ph);
	first = 0;
	if (e->cat != NULL)
		printf(", \"cat\": \"%s\"", e->cat);
	printf(quoted(e) ? ", \"name\": \"%s\", \"pid\": %lld, \"tid\": "
	    "\"%lld\"" : ", \"name\": \"%s\", \"pid\": %lld, \"tid\": %lld",
	    e->name, e->pid, e->tid);
	if (e->ts >= 0) {
		printf(",\n    \"ts\": ");
		putus(e->ts);
	}
	if (e->dur >= 0) {
		printf(", \"dur\": ");
		putus(e->dur);
	}
	if (e->ph == 's' || e->ph == 'f' || e->ph == 't')
		printf(", \"id\": %lld%s", e->id, e->bp == 'e' ?
		    ", \"bp\": \"e\"" : "");
	if (e->ph == 'i')
		printf(", \"s\": \"t\"");
	if (e->args != NULL) {
		const char *p;

		printf(",\n    \"args\": {\n      ");
		for (p = e->args + 1; p[1] != '\0'; p++) {
			if (*p == ',' && (p[1] == '"'))
				printf(", ");
			else if (*p == ':' && p[-1] == '"')
				printf(": ");
			else
				putchar(*p);
		}
		printf("\n    }");
	}
	printf("\n  }");
}

static void
slice(int64_t ts, int64_t dur, long long pid, long long tid,
    const char *cat, const char *name, const char *args)
{
	struct ev e = { 'X', ts, dur, pid, tid, cat, name, args, 0, 0 };

	emit(&e);
}

static void
meta(long long pid, long long tid, const char *name, const char *args)
{
	struct ev e = { 'M', BASE / US * US, -1, pid, tid, NULL, name, args,
	    0, 0 };

	emit(&e);
}

/* -------- kineto -------- */

#define CPU	3100453LL	/* the process and its main thread */
#define NSTREAM	3

static const long long streams[NSTREAM] = { 7, 20, 24 };
static int ncpu = 3;			/* CPU threads */

/* The tid of CPU thread i. */
static long long
cputid(int i)
{
	if (!iflag || i == 0)
		return CPU + i * 17;
	if (i == 1)
		return -19360192;
	if (i == 2)
		return CPU + 34 + 4294967296LL;
	return CPU + i * 17;
}
static int64_t cursor[NSTREAM];		/* when each stream is free */
static int64_t room[NSTREAM];	/* how far a kernel may start before */
static long long owed, cpuowed;	/* crossings spread here, not yet made */
static long long corr = 1000, extid = 1, total;

static const char *const ops[] = {
	"aten::linear", "aten::addmm", "aten::matmul", "aten::layer_norm",
	"aten::native_layer_norm", "aten::gelu", "aten::softmax",
	"aten::_softmax", "aten::dropout", "aten::add", "aten::mul",
	"aten::copy_", "aten::to", "aten::_to_copy", "aten::empty",
	"aten::view", "aten::reshape", "aten::transpose", "aten::t",
	"aten::bmm", "aten::baddbmm", "aten::cat", "aten::embedding"
};

static const char *const kernels[] = {
	"void at::native::vectorized_elementwise_kernel<4, at::native::"
	    "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::"
	    "GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::"
	    "operator()() const::{lambda(float)#1}, at::detail::Array<char*, "
	    "2> >(int, at::native::GeluCUDAKernelImpl, at::detail::Array<char*"
	    ", 2>)",
	"ampere_sgemm_128x64_tn",
	"ampere_sgemm_64x32_sliced1x4_nn",
	"nvjet_sm120_tst_mma_256x112x64_2_64x56x64_tmaAB_bz_TNNN",
	"void at::native::(anonymous namespace)::vectorized_layer_norm_"
	    "kernel<float, float>(int, float, float const*, float const*, "
	    "float const*, float*, float*, float*)",
	"void cunn_SoftMaxForward<4, float, float, float, cunn::"
	    "SoftMaxForwardEpilogue>(float*, float const*, int)",
	"void at::native::unrolled_elementwise_kernel<at::native::"
	    "direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}"
	    "::operator()() const::{lambda()#7}::operator()() const::"
	    "{lambda(float)#1}, at::detail::Array<char*, 2>, "
	    "TrivialOffsetCalculator<1, unsigned int>, char*, at::native::"
	    "memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >"
	    "(int, at::native::direct_copy_kernel_cuda, at::detail::Array<"
	    "char*, 2>, TrivialOffsetCalculator<1, unsigned int>, char*, "
	    "at::native::memory::LoadWithCast<1>, at::native::memory::"
	    "StoreWithCast<1>)"
};

#define NOPS	(sizeof(ops) / sizeof(ops[0]))
#define NKERN	(sizeof(kernels) / sizeof(kernels[0]))

/*
 * Is event k of n one of the want to spread evenly over them?  They are
 * spread over the first nine tenths, so that one that cannot be made
 * where it falls still finds a place before the end.
 */
static int
spread(long long k, long long want, long long n)
{
	n -= n / 10;
	return n > 0 && k < n && (k + 1) * want / n > k * want / n;
}

/*
 * A launch at [ts, ts+dur] on tid: the kernel and its flow pair.  Every
 * random number is drawn whatever is decided, so that the counting pass
 * and the real one draw the same sequence.
 */
static void
launch(int64_t ts, int64_t dur, long long tid)
{
	char args[512];
	int s = (int)(next() % NSTREAM), k = (int)(kernelno % 3);
	int64_t start, kdur = between(2 * US, 180 * US), d, small, big, wait;
	const char *name = kernels[next() % NKERN];
	struct ev f = { 's', ts, -1, CPU, tid, "ac2g", "ac2g", NULL, 0, 0 };

	corr++;
	snprintf(args, sizeof(args), "{\"External id\":%lld,\"cbid\":211,"
	    "\"correlation\":%lld}", extid, corr);
	slice(ts, dur, CPU, tid, "cuda_runtime", "cudaLaunchKernel", args);
	start = ts + dur + between(1 * US, 8 * US);
	wait = between(0, 2 * US);
	if (start < cursor[s])
		start = cursor[s] + wait;
	/*
	 * Two thirds of the crossings under 5 us, the rest real overlaps;
	 * each starts after every kernel but the last of its stream ended,
	 * and ends after that one, so it crosses it and nothing else.
	 */
	small = between(1, 4900);
	big = between(5500, 5500 + 100 * US);
	d = k < 2 || room[s] < 12 * US ? small : big;
	if (d >= room[s])
		d = room[s] / 2;
	if (!counting && spread(kernelno, ncross - ncross / 5, nkernels))
		owed++;
	/* A kernel starts after its launch: else the flow would go back. */
	if (owed > 0 && d >= 1 && cursor[s] - d > ts + dur) {
		start = cursor[s] - d;
		if (kdur <= d + US)
			kdur = d + 2 * US;
		owed--;
	}
	kernelno++;
	snprintf(args, sizeof(args), "{\"device\":0,\"stream\":%lld,"
	    "\"correlation\":%lld,\"registers per thread\":%d,\"grid\":[%d, "
	    "1, 1],\"block\":[%d, 1, 1]}", streams[s], corr,
	    16 + (int)(next() % 200), 1 + (int)(next() % 4096),
	    32 << (next() % 4));
	slice(start, kdur, 0, streams[s], "kernel", name, args);
	f.id = corr;
	emit(&f);
	f.ph = 'f';
	f.ts = start;
	f.pid = 0;
	f.tid = streams[s];
	f.bp = 'e';
	emit(&f);
	room[s] = start + kdur - (cursor[s] > start ? cursor[s] : start);
	cursor[s] = start + kdur;
}

/* A [memory] instant of the allocator, as profile_memory=True makes. */
static void
memory(int64_t ts, long long tid)
{
	long long bytes = between(1, 64) * 512;
	char args[192];
	struct ev e = { 'i', ts, -1, CPU, tid, "cpu_instant_event",
	    "[memory]", args, 0, 0 };

	total += chance(50) ? bytes : -bytes;
	snprintf(args, sizeof(args), "{\"Addr\":%lld,\"Bytes\":%lld}",
	    139637000000000LL + between(0, 1 << 30), total > 0 ? bytes :
	    -bytes);
	emit(&e);
}

/*
 * An op at ts on tid with depth levels of children; returns the end of
 * the time it takes.  Children end at least 1.5 us before their parent;
 * with cross set, the parent ends up to 0.9 us before its last child
 * instead, so that child crosses its parent and nothing else.
 */
static int64_t
op(int64_t ts, long long tid, int depth, int cross)
{
	char args[256];
	const char *name = ops[next() % NOPS];
	int64_t t = ts + between(1 * US, 6 * US), end, last = -1, eps;
	int i, n = depth > 0 ? (int)between(1, 4) : 0;

	for (i = 0; i < n && nevents < limit; i++) {
		last = op(t, tid, depth - 1, 0);
		t = last + between(500, 4 * US);
	}
	if (depth == 0) {
		for (i = (int)between(2, 8); i > 0 && nevents < limit; i--)
			memory(t - between(0, 900), tid);
		if (chance(60)) {
			launch(t, between(3 * US, 9 * US), tid);
			t += 10 * US;
		}
	}
	end = t + between(1 * US, 5 * US);
	eps = between(1, 900);
	snprintf(args, sizeof(args), "{\"External id\":%lld,\"Record "
	    "function id\":0,\"Ev Idx\":%lld}", extid, nevents);
	extid++;
	if (cross && last >= 0) {
		slice(ts, last - eps - ts, CPU, tid, "cpu_op", name, args);
		cpuowed--;
		return last;
	}
	slice(ts, end - ts, CPU, tid, "cpu_op", name, args);
	return end;
}

static void
kineto(void)
{
	char args[128];
	int64_t t = BASE, end, step0, start = BASE, e;
	long long step = 0, tid;
	int i;

	if (!counting)
		printf(lflag ? "#lt1\n#top\tschemaVersion\t1\n#top\tdeviceProperties"
	    "\t[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"totalGlobalMem"
	    "\":85899345920,\"computeMajor\":8,\"computeMinor\":0,\"maxThreads"
	    "PerBlock\":1024,\"numSms\":108}]\n" : "{\n  \"schemaVersion\": "
	    "1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": "
	    "\"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85899345920,\n"
	    "      \"computeMajor\": 8, \"computeMinor\": 0,\n      \"max"
	    "ThreadsPerBlock\": 1024, \"numSms\": 108\n    }\n  ],\n  \"trace"
	    "Events\": [\n");
	meta(CPU, 0, "process_name", "{\"name\":\"python3\"}");
	meta(CPU, 0, "process_sort_index", "{\"sort_index\":3100453}");
	meta(0, 0, "process_name", "{\"name\":\"GPU 0\"}");
	meta(0, 0, "process_sort_index", "{\"sort_index\":5000000}");
	for (i = 0; i < ncpu; i++) {
		tid = cputid(i);
		snprintf(args, sizeof(args), "{\"name\":\"thread %lld (%s)\"}",
		    tid, i == 0 ? "python3" : i == 1 ? "pt_autograd_0" :
		    i == 2 ? "pt_data_worker" : "pt_autograd_1");
		meta(CPU, tid, "thread_name", args);
		snprintf(args, sizeof(args), "{\"sort_index\":%lld}", tid);
		meta(CPU, tid, "thread_sort_index", args);
	}
	for (i = 0; i < NSTREAM; i++) {
		snprintf(args, sizeof(args), "{\"name\":\"stream %lld\"}",
		    streams[i]);
		meta(0, streams[i], "thread_name", args);
		snprintf(args, sizeof(args), "{\"sort_index\":%lld}",
		    streams[i]);
		meta(0, streams[i], "thread_sort_index", args);
		cursor[i] = BASE;
		room[i] = 0;
	}
	/* A fifth of the crossings are on the CPU threads. */
	while (nevents < limit) {
		step0 = t;
		if (days > 0 && nevents >= limit / 2 && t < BASE +
		    days * 86400000000 * US)
			t += days * 86400000000 * US;
		for (i = 0; i < ncpu && nevents < limit; i++) {
			tid = cputid(i);
			if (!counting && spread(opno, ncross / 5, nops))
				cpuowed++;
			opno++;
			/*
			 * The coerced tids run beside the main thread, as
			 * in the traces where Perfetto then crosses them.
			 */
			if (!iflag || i == 0 || i == 3)
				start = t + 3 * US;
			else
				start += US;
			e = op(start, tid, 3, cpuowed > 0);
			if (e > t)
				t = e;
		}
		end = t + 20 * US;
		snprintf(args, sizeof(args), "{\"External id\":%lld}", extid++);
		slice(step0, end - step0 + 10 * US, CPU, CPU, "user_annotation",
		    step % 2 == 0 ? "ProfilerStep#0" : "ProfilerStep#1", args);
		t = end + 40 * US;
		step++;
	}
	if (!lflag && !counting)
		printf("\n  ],\n  \"traceName\": \"gentrace.pt.trace.json\","
		    "\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\":"
		    " 1692100000000000000\n}\n");
}

/* -------- dense and stair -------- */

static void
dense_slice(int64_t ts, int64_t dur, long long pid, long long tid)
{
	char args[64];

	snprintf(args, sizeof(args), "{\"i\":%lld}", nevents);
	slice(ts, dur, pid, tid, chance(30) ? "kernel" : "cpu_op",
	    chance(50) ? "a" : "b", args);
}

/* Properly nested: children split their parent's time. */
static void
nested(int64_t ts, int64_t end, long long pid, long long tid, int depth,
    int *left)
{
	int64_t t = ts, e;
	int i, n = depth > 0 ? (int)between(0, 3) : 0;

	dense_slice(ts, end - ts, pid, tid);
	--*left;
	for (i = 0; i < n && *left > 0 && t < end; i++) {
		e = t + between(0, (end - t) / 2);
		if (chance(30))
			t = e;
		nested(t, e, pid, tid, depth - 1, left);
		t = e;
	}
}

static void
dense(void)
{
	long long tid = 0, pid;
	int64_t span, ts;
	int n, left;

	printf(lflag ? "#lt1\n" : "{\"traceEvents\":[\n");
	while (nevents < limit) {
		tid++;
		pid = between(1, 4);
		n = (int)between(2, 25);
		span = between(5, 100) * US;
		if (chance(20)) {
			left = n;
			while (left > 0 && nevents < limit) {
				ts = between(0, span);
				nested(ts, ts + between(0, span / 2), pid, tid,
				    3, &left);
				span += span / 2 + 1;
			}
			continue;
		}
		while (n-- > 0 && nevents < limit) {
			ts = between(0, span);
			if (chance(30))
				ts -= ts % US;
			dense_slice(ts, chance(50) ? between(0, 8 * US) :
			    between(0, span / 2), pid, tid);
		}
	}
	if (!lflag)
		printf("\n]}\n");
}

static void
stair(void)
{
	long long i;

	printf(lflag ? "#lt1\n" : "{\"traceEvents\":[\n");
	for (i = 0; i < limit; i++)
		slice(BASE + i * US, (limit + 10) * US, 1, 1, "cpu_op", "step",
		    NULL);
	if (!lflag)
		printf("\n]}\n");
}

static long long
number(const char *s, long long max)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > max) {
		fprintf(stderr, "gentrace: bad number: %s\n", s);
		exit(2);
	}
	return v;
}

int
main(int argc, char *argv[])
{
	const char *form = "kineto";
	uint64_t seed = 1;
	int c;

	limit = 100000;
	while ((c = getopt(argc, argv, "d:f:hiln:s:x:")) != -1) {
		switch (c) {
		case 'd':
			days = number(optarg, 10000);
			break;
		case 'f':
			form = optarg;
			break;
		case 'h':
			fputs(USAGE, stdout);
			return 0;
		case 'i':
			iflag = 1;
			ncpu = 4;
			strtid = CPU + 3 * 17;
			break;
		case 'l':
			lflag = 1;
			break;
		case 'n':
			limit = number(optarg, 1000000000LL);
			break;
		case 's':
			seed = (uint64_t)number(optarg, INT64_MAX);
			break;
		case 'x':
			ncross = number(optarg, 1000000000LL);
			break;
		default:
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(USAGE, stderr);
		return 2;
	}
	rng = seed;
	if (strcmp(form, "kineto") == 0) {
		/* A first, silent pass counts the kernels to spread -x. */
		counting = 1;
		kineto();
		nkernels = kernelno;
		nops = opno;
		counting = 0;
		kernelno = opno = nevents = owed = cpuowed = 0;
		corr = 1000;
		extid = 1;
		total = 0;
		rng = seed;
		kineto();
	} else if (strcmp(form, "dense") == 0)
		dense();
	else if (strcmp(form, "stair") == 0)
		stair();
	else {
		fputs(USAGE, stderr);
		return 2;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		perror("gentrace: write error");
		return 2;
	}
	return 0;
}
