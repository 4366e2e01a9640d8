/* See LICENSE file for copyright and license details. */
/*
 * kineto.c: the step-time breakdown of a PyTorch profiler (Kineto)
 * trace, by the rules of TensorBoard's profiler plugin (its Overview
 * page; the rules, checked to the µs against the plugin, are in the
 * project's spec kineto-step-breakdown.md, whose sections the comments
 * cite).  Per ProfilerStep#N: the step's bounds moved to cover the GPU
 * work launched in it, then each instant of the step counted once, under
 * the first busy role of kernel, memcpy, memset, communication, runtime,
 * DataLoader and CPU exec, else other; the average step and its shares.
 *
 * The X events with a role are kept (compactly: times, kind, ids) until
 * the end of the input, the DataLoader and CPU exec ones as unions of
 * time: the plugin's rules look at the whole trace (launch links, step
 * boundaries, the union of each role).  Several traces (rank files, or
 * inputs of one ltparse) are told apart by the stream they come in and
 * the pid block ltparse gives each input; distributedInfo names a rank.
 */
#include <stdlib.h>
#include <stdio.h>
#include <math.h>

#include "ltstat.h"

/* Event kinds (spec 2) that matter, and the roles (spec 4). */
enum { E_OP, E_ANNOT, E_PYTHON, E_RUNTIME, E_KERNEL, E_MEMCPY, E_MEMSET };
enum { R_KERNEL, R_MEMCPY, R_MEMSET, R_COMM, R_RUNTIME, R_DATALOADER,
	R_CPU, NROLE };

/* A runtime, device or step event: 40 bytes. */
struct kev {
	int64_t		 ts, end;
	int64_t		 id;		/* correlation; a step's number */
	int64_t		 ext;		/* external id */
	uint32_t	 seq;		/* file order */
	uint8_t		 kind;		/* E_RUNTIME, ..., or KSTEP */
	uint8_t		 noid, noext;	/* the id is missing */
	uint8_t		 pad;
};

#define KSTEP	100

static const char *const colkey[NROLE + 1] = {
	"kernel", "memcpy", "memset", "communication", "runtime",
	"dataloader", "cpu_exec", "other"
};

/* The names of the collective operations the plugin knows (spec 4.1). */
static const char *const commname[] = {
	"nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather",
	"nccl:reduce_scatter", "gloo:broadcast", "gloo:reduce",
	"gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter", NULL
};

/* The kinds of a lower-cased category (spec 2.1), or -1. */
static int
kindof(const struct ltfield *cat)
{
	/* With their lengths: every span of every log is looked up. */
#define K(s, k)	{ s, sizeof(s) - 1, k }
	static const struct { const char *s; size_t n; int k; } t[] = {
		K("cpu_op", E_OP), K("operator", E_OP),
		K("user_annotation", E_ANNOT),
		K("gpu_user_annotation", E_ANNOT), K("python", E_PYTHON),
		K("runtime", E_RUNTIME), K("cuda_runtime", E_RUNTIME),
		K("mtia_runtime", E_RUNTIME), K("glow_runtime", E_RUNTIME),
		K("xpu_runtime", E_RUNTIME),
		K("privateuse1_runtime", E_RUNTIME), K("kernel", E_KERNEL),
		K("memcpy", E_MEMCPY), K("gpu_memcpy", E_MEMCPY),
		K("memset", E_MEMSET), K("gpu_memset", E_MEMSET), { NULL, 0, 0 }
	};
#undef K
	/* the last category looked up: most spans have the one before's */
	static char last[19];
	static size_t lastn;		/* 0: none */
	static int lastk;
	size_t i;
	int k;

	if (cat->n < 6 || cat->n > 19)
		return -1;
	if (cat->n == lastn && memcmp(cat->p, last, lastn) == 0)
		return lastk;
	for (k = 0; t[k].s != NULL; k++) {
		if (t[k].n != cat->n)
			continue;
		for (i = 0; i < cat->n; i++)
			if ((cat->p[i] | 0x20) != t[k].s[i] &&
			    !(cat->p[i] == '_' && t[k].s[i] == '_'))
				break;
		if (i == cat->n)
			break;
	}
	memcpy(last, cat->p, cat->n);
	lastn = cat->n;
	return lastk = t[k].s != NULL ? t[k].k : -1;
}

static int
prefix(const struct ltfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->n >= n && memcmp(f->p, s, n) == 0;
}

static int
suffix(const struct ltfield *f, const char *s)
{
	size_t n = strlen(s);

	return f->n >= n && memcmp(f->p + f->n - n, s, n) == 0;
}

static int
iscomm(const struct ltfield *name)
{
	int k;

	for (k = 0; commname[k] != NULL; k++)
		if (name->n == strlen(commname[k]) &&
		    memcmp(name->p, commname[k], name->n) == 0)
			return 1;
	return 0;
}

/*
 * A step's number: the text after "ProfilerStep#" to the next '#', as
 * Python's int() reads it (blanks around, a sign, '_' between digits),
 * or -1 for what it would refuse, and for a negative one (which the
 * plugin would take: ltstat leaves such a step out).
 */
static int64_t
stepnum(const struct ltfield *name)
{
	const char *p = name->p + 13, *end = name->p + name->n, *h;
	int64_t v = 0;
	int neg = 0, digits = 0, under = 0;

	if ((h = memchr(p, '#', (size_t)(end - p))) != NULL)
		end = h;
	while (p < end && *p == ' ')
		p++;
	while (end > p && end[-1] == ' ')
		end--;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	for (; p < end; p++) {
		if (*p == '_' && digits > 0 && !under) {
			under = 1;
			continue;
		}
		if ((unsigned)*p - '0' > 9 || v > INT64_MAX / 10 - 10)
			return -1;
		v = v * 10 + (*p - '0');
		digits++;
		under = 0;
	}
	return digits == 0 || under || neg ? -1 : v;
}

/* The integer value of args member key, if it has one. */
static int
argint(const struct ltfield *args, const char *key, int64_t *v)
{
	const char *p;
	size_t n;

	if ((p = lt_json_member(args->p, args->n, key, &n)) == NULL)
		return 0;
	return lt_int_parse(p, n, v) == LT_NUM_OK;
}

/* -------- the traces -------- */

struct ktrace {
	int64_t		 key;		/* segment << 32 | pid block */
	int64_t		 rank;		/* distributedInfo, or -1 */
	struct kev	*ev;
	size_t		 nev, capev;
	struct tl	 dl, cpu, comm;	/* DataLoader, CPU exec and collective
					   ops, as unions */
	long long	 nrole[NROLE];	/* events of each role, any length */
	int64_t		*ext;		/* external ids of collectives */
	size_t		 next, capext;
	int		 commnone;	/* one without an external id */
	int		 hasspan;	/* python, op or step events */
	int		 loader;	/* 1 single-process iterator, 2 multi */
	int64_t		 lo, hi;	/* their extent (spec 5.3) */
	/* the result */
	int		 done;
	int		 nostep;	/* no ProfilerStep: one step, 0 */
	struct kstep	*row;
	size_t		 nrow;
	int64_t		 sum[NROLE + 2];	/* total, columns, other */
	double		 avg[NROLE + 2];
};

static struct ktrace	*tr;
static size_t		 ntr, captr;
static int64_t		 segment, lastkey = -1, pendrank = -1;
static uint32_t		 seq;
static int		 lightning;

const char		*st_kin_pattern;	/* -d: DataLoader names too */

static struct ktrace *
trace(int64_t key)
{
	struct ktrace *t;
	size_t i;

	for (i = ntr; i > 0; i--)
		if (tr[i - 1].key == key)
			return &tr[i - 1];
	tr = lt_grow(tr, &captr, ntr + 1, sizeof(*tr));
	t = &tr[ntr++];
	memset(t, 0, sizeof(*t));
	t->key = key;
	t->rank = pendrank;
	pendrank = -1;
	return t;
}

/* The trace of a pid: its segment and ltparse's block of its input. */
static struct ktrace *
traceof(const struct ltfield *pid)
{
	int64_t v, key;

	if (lt_int_parse(pid->p, pid->n, &v) == LT_NUM_OK && v >= 0 &&
	    v < 2147483648LL)
		key = segment << 32 | v >> 22;
	else
		key = lastkey >= 0 ? lastkey : segment << 32;
	lastkey = key;
	return trace(key);
}

static void
keep(struct ktrace *t, const struct kev *e)
{
	t->ev = lt_grow(t->ev, &t->capev, t->nev + 1, sizeof(*t->ev));
	t->ev[t->nev++] = *e;
}

static int
contains(const struct ltfield *f, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; n > 0 && i + n <= f->n; i++)
		if (memcmp(f->p + i, s, n) == 0)
			return 1;
	return 0;
}

/* Does a name hold the user's DataLoader name (-d)? */
static int
userloader(const struct ltfield *name)
{
	return st_kin_pattern != NULL && contains(name, st_kin_pattern);
}

/*
 * An X record of category cat and name, [ts, ts + dur): kept if it has
 * a role, or counts for the extent of a trace without steps.
 */
void
st_kin_span(const struct ltrec *rec, int64_t ts, int64_t dur)
{
	const struct ltfield *nm = &rec->f[LT_NAME];
	const struct ltfield *args = &rec->f[LT_ARGS];
	struct ktrace *t;
	struct kev e;
	int k, comm;

	if ((k = kindof(&rec->f[LT_CAT])) < 0)
		return;
	t = traceof(&rec->f[LT_PID]);
	memset(&e, 0, sizeof(e));
	e.ts = ts;
	e.end = sadd(ts, dur);
	e.seq = seq++;
	e.kind = (uint8_t)k;
	if (k == E_OP || k == E_PYTHON ||
	    (k == E_ANNOT && prefix(nm, "ProfilerStep#"))) {
		if (!t->hasspan || ts < t->lo)
			t->lo = ts;
		if (!t->hasspan || e.end > t->hi)
			t->hi = e.end;
		t->hasspan = 1;
	}
	if (k == E_RUNTIME || k == E_KERNEL || k == E_MEMCPY ||
	    k == E_MEMSET) {
		e.noid = !argint(args, "correlation", &e.id);
		e.noext = !argint(args, "external id", &e.ext) &&
		    !argint(args, "External id", &e.ext);
		t->nrole[k == E_RUNTIME ? R_RUNTIME : k == E_MEMCPY ?
		    R_MEMCPY : k == E_MEMSET ? R_MEMSET : R_KERNEL]++;
		keep(t, &e);
		return;
	}
	comm = iscomm(nm);
	/* Spec 4.1: a collective's external id makes its kernels comm. */
	if (comm) {
		if (argint(args, "external id", &e.ext) ||
		    argint(args, "External id", &e.ext)) {
			t->ext = lt_grow(t->ext, &t->capext, t->next + 1,
			    sizeof(*t->ext));
			t->ext[t->next++] = e.ext;
		} else
			t->commnone = 1;
	}
	if (k != E_PYTHON && prefix(nm, "ProfilerStep#")) {
		if ((e.id = stepnum(nm)) < 0)
			return;
		e.kind = KSTEP;
		keep(t, &e);
		return;
	}
	if (lightning && k == E_OP && (prefix(nm, "[pl][profile]") ||
	    prefix(nm, "[pl][module]")))
		return;
	if (comm) {
		t->nrole[R_COMM]++;
		st_tl_add(&t->comm, ts, e.end);
		return;
	}
	if ((k != E_PYTHON && ((prefix(nm, "enumerate(DataLoader)#") &&
	    suffix(nm, ".__next__")) || prefix(nm, "enumerate(DataPipe)#"))) ||
	    userloader(nm)) {
		t->nrole[R_DATALOADER]++;
		st_tl_add(&t->dl, ts, e.end);
		if (contains(nm, "_SingleProcessDataLoaderIter"))
			t->loader = 1;
		else if (contains(nm, "_MultiProcessingDataLoaderIter"))
			t->loader = 2;
		return;
	}
	t->nrole[R_CPU]++;
	st_tl_add(&t->cpu, ts, e.end);
}

/*
 * #top directives: distributedInfo's rank names the trace it belongs to
 * (the current one when it has none, else the next); Framework
 * pytorch-lightning switches on the Lightning rules (spec 2.4).
 */
void
st_kin_top(const char *line, size_t n)
{
	const char *v;
	size_t vn;
	int64_t r;

	if (n > 21 && memcmp(line, "#top\tdistributedInfo\t", 21) == 0) {
		if ((v = lt_json_member(line + 21, n - 21, "rank", &vn)) ==
		    NULL || lt_int_parse(v, vn, &r) != LT_NUM_OK || r < 0)
			return;
		if (lastkey >= 0 && trace(lastkey)->rank < 0)
			trace(lastkey)->rank = r;
		else
			pendrank = r;
	} else if (n > 15 && memcmp(line, "#top\tFramework\t", 15) == 0)
		lightning = n - 15 == 19 &&
		    memcmp(line + 15, "\"pytorch-lightning\"", 19) == 0;
}

/* A new stream begins ("#lt1" after records): a new segment. */
void
st_kin_segment(void)
{
	segment++;
	lastkey = -1;
}

/* -------- sets of time -------- */

/* a ∩ b, into out (emptied first). */
static void
tlinter(struct tl *out, const struct tl *a, const struct tl *b)
{
	size_t i = a->off, j = b->off;
	int64_t x, y;

	out->off = out->n = 0;
	while (i < a->n && j < b->n) {
		x = a->v[i].a > b->v[j].a ? a->v[i].a : b->v[j].a;
		y = a->v[i].b < b->v[j].b ? a->v[i].b : b->v[j].b;
		if (x < y)
			st_tl_add(out, x, y);
		if (a->v[i].b < b->v[j].b)
			i++;
		else
			j++;
	}
}

/* a - b, into out (emptied first). */
static void
tlminus(struct tl *out, const struct tl *a, const struct tl *b)
{
	size_t i, j = b->off;
	int64_t x, y;

	out->off = out->n = 0;
	for (i = a->off; i < a->n; i++) {
		x = a->v[i].a;
		y = a->v[i].b;
		while (j < b->n && b->v[j].b <= x)
			j++;
		for (; j < b->n && b->v[j].a < y; j++) {
			if (b->v[j].a > x)
				st_tl_add(out, x, b->v[j].a);
			if (b->v[j].b >= y) {
				x = y;
				break;
			}
			x = b->v[j].b;
		}
		if (x < y)
			st_tl_add(out, x, y);
	}
}

static void
tlcopyall(struct tl *out, const struct tl *a)
{
	size_t i;

	out->off = out->n = 0;
	for (i = a->off; i < a->n; i++)
		st_tl_add(out, a->v[i].a, a->v[i].b);
}

/* Does t cover the point x (some range with a <= x < b)? */
static int
covers(const struct tl *t, int64_t x)
{
	return st_tl_meas(t, x, x + 1) > 0;
}

/* -------- the breakdown of one trace -------- */

struct kstep {
	int64_t		 num;
	int64_t		 start, end;
	int64_t		 col[NROLE + 1];	/* the roles, then other */
};

static int
byts(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
isdev(const struct kev *e)
{
	return e->kind == E_KERNEL || e->kind == E_MEMCPY ||
	    e->kind == E_MEMSET;
}

/* A correlation id, and what the launch links know of it (spec 6). */
struct corr {
	int		 used;
	int64_t		 id;
	long		 rt;		/* its latest runtime, or -1 */
	long		 wait;		/* devices waiting on it, a chain */
};

static struct corr *
corrof(struct corr *h, size_t cap, const struct kev *e)
{
	uint64_t k = e->noid ? 0x8000000000000001ULL : (uint64_t)e->id;
	size_t i;

	for (i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
	    h[i].used; i = (i + 1) & (cap - 1))
		if ((uint64_t)h[i].id == k)
			return &h[i];
	h[i].used = 1;
	h[i].id = (int64_t)k;
	h[i].rt = h[i].wait = -1;
	return &h[i];
}

/*
 * Which runtime launched each device event (spec 6): own[i] for the
 * event at i, or -1.  Devices wait on their correlation id until a
 * runtime of it comes; a runtime takes them, and those after it.
 */
static void
links(const struct ktrace *t, long *own)
{
	struct corr *h, *c;
	size_t cap = 64, i;
	long *next, d, nd;

	while (cap < 2 * t->nev)
		cap *= 2;
	h = lt_calloc(cap, sizeof(*h));
	next = lt_reallocarray(NULL, t->nev + 1, sizeof(*next));
	for (i = 0; i < t->nev; i++) {
		own[i] = -1;
		if (t->ev[i].kind == E_RUNTIME) {
			c = corrof(h, cap, &t->ev[i]);
			for (d = c->wait; d >= 0; d = nd) {
				nd = next[d];
				own[d] = (long)i;
			}
			c->wait = -1;
			c->rt = (long)i;
		} else if (isdev(&t->ev[i])) {
			c = corrof(h, cap, &t->ev[i]);
			if (c->rt >= 0)
				own[i] = c->rt;
			else {
				next[i] = c->wait;
				c->wait = (long)i;
			}
		}
	}
	free(next);
	free(h);
}

/* The role of a device event (kernel: communication by its ext id). */
static int
devrole(const struct ktrace *t, const struct kev *e)
{
	if (e->kind == E_MEMCPY)
		return R_MEMCPY;
	if (e->kind == E_MEMSET)
		return R_MEMSET;
	if (e->noext ? t->commnone : t->next > 0 && bsearch(&e->ext, t->ext,
	    t->next, sizeof(*t->ext), i64cmp) != NULL)
		return R_COMM;
	return R_KERNEL;
}

/*
 * The bounds of the steps (spec 7-9): each begins where the one before
 * ended (or at its host start, if later) and ends when its host span
 * and the device work launched in it are over; the trailing steps
 * without device work are dropped, and the last with some when it has
 * less than 80% of the one before.
 */
static void
bounds(struct ktrace *t, const long *own)
{
	long *head, *next;
	long long *count;
	int64_t *dmin, *dmax, prev;
	char *linked;
	size_t i, r, k;
	long d;
	int any = 0;

	head = lt_reallocarray(NULL, t->nev + 1, sizeof(*head));
	next = lt_reallocarray(NULL, t->nev + 1, sizeof(*next));
	linked = lt_calloc(t->nev + 1, 1);
	count = lt_calloc(t->nrow, sizeof(*count));
	dmin = lt_calloc(t->nrow, sizeof(*dmin));
	dmax = lt_calloc(t->nrow, sizeof(*dmax));
	for (i = 0; i < t->nev; i++)
		head[i] = -1;
	for (i = t->nev; i > 0; i--)
		if (own[i - 1] >= 0) {
			next[i - 1] = head[own[i - 1]];
			head[own[i - 1]] = (long)(i - 1);
		}
	/* The runtimes inside each host span, in order of start (7.1). */
	for (i = 0, r = 0; i < t->nrow && r < t->nev;) {
		if (t->ev[r].kind != E_RUNTIME || t->ev[r].ts <
		    t->row[i].start) {
			r++;
			continue;
		}
		if (t->ev[r].end <= t->row[i].end) {
			for (d = head[r]; d >= 0; d = next[d]) {
				if (count[i]++ == 0 || t->ev[d].ts < dmin[i])
					dmin[i] = t->ev[d].ts;
				if (count[i] == 1 || t->ev[d].end > dmax[i])
					dmax[i] = t->ev[d].end;
				linked[d] = any = 1;
			}
			r++;
		} else if (t->ev[r].ts < t->row[i].end)
			r++;
		else
			i++;
	}
	if (any) {
		/* 8.2: work launched before the first step pushes it (Q2). */
		prev = t->row[0].start;
		for (d = 0; count[0] > 0 && d < (long)t->nev; d++)
			if (isdev(&t->ev[d]) && !linked[d] &&
			    t->ev[d].end < dmin[0] && t->ev[d].end > prev)
				prev = t->ev[d].end;
		for (i = 0; i < t->nrow; i++) {
			if (prev > t->row[i].start)
				t->row[i].start = prev;
			if (count[i] == 0) {
				if (t->row[i].end < t->row[i].start)
					t->row[i].end = t->row[i].start;
			} else {
				if (dmax[i] > t->row[i].end)
					t->row[i].end = dmax[i];
				if (t->row[i].end < t->row[i].start)
					t->row[i].end = t->row[i].start;
			}
			prev = t->row[i].end;
		}
		/* 9: the tail (Q4), in IEEE double as the plugin does. */
		if (t->nrow > 1) {
			for (k = t->nrow; k > 0 && count[k - 1] == 0; k--)
				;
			if (k > 1 && (double)count[k - 2] * 0.8 >
			    (double)count[k - 1])
				k--;
			if (k > 0)
				t->nrow = k;
		}
	}
	free(head);
	free(next);
	free(linked);
	free(count);
	free(dmin);
	free(dmax);
}

/*
 * Each instant of the steps under the first busy role (spec 10), as the
 * plugin does it: Kernel, and any role that finds nothing remaining,
 * take their whole union (full mode); the others what remains of the
 * steps; what remains after CPU exec is other.
 */
static void
breakdown(struct ktrace *t, struct tl *role)
{
	struct tl steps, rem, tmp, cost[NROLE];
	int64_t *pt = NULL, a, b;
	char *live = NULL;
	size_t i, j, npt = 0;
	int r, any;

	memset(&steps, 0, sizeof(steps));
	memset(&rem, 0, sizeof(rem));
	memset(&tmp, 0, sizeof(tmp));
	memset(cost, 0, sizeof(cost));
	for (i = 0; i < t->nrow; i++)
		st_tl_add(&steps, t->row[i].start, t->row[i].end);
	/* 10.4: isolated points, zero-length steps alone at their time. */
	pt = lt_calloc(t->nrow + 1, sizeof(*pt));
	live = lt_calloc(t->nrow + 1, 1);
	for (i = 0; i < t->nrow; i++) {
		a = t->row[i].start;
		if (t->row[i].end != a)
			continue;
		for (j = 0; j < i && t->row[j].end < a; j++)
			;
		if (j < i)
			continue;
		for (j = i + 1; j < t->nrow && !(t->row[j].start == a &&
		    t->row[j].end > a); j++)
			;
		if (j == t->nrow)
			pt[npt++] = a;
	}
	for (r = 0; r < NROLE; r++) {
		any = rem.n > rem.off;
		for (i = 0; i < npt && !any; i++)
			any = live[i];
		if (r == R_KERNEL || !any) {
			tlcopyall(&cost[r], &role[r]);
			tlminus(&rem, &steps, &role[r]);
			for (i = 0; i < npt; i++)
				live[i] = !covers(&role[r], pt[i]);
		} else {
			tlinter(&cost[r], &rem, &role[r]);
			tlminus(&tmp, &rem, &cost[r]);
			tlcopyall(&rem, &tmp);
		}
	}
	for (i = 0; i < t->nrow; i++) {
		a = t->row[i].start;
		b = t->row[i].end;
		for (r = 0; r < NROLE; r++)
			t->row[i].col[r] = st_tl_meas(&cost[r], a, b);
		t->row[i].col[NROLE] = st_tl_meas(&rem, a, b);
	}
	st_tl_free(&steps);
	st_tl_free(&rem);
	st_tl_free(&tmp);
	for (r = 0; r < NROLE; r++)
		st_tl_free(&cost[r]);
	free(pt);
	free(live);
}

/* The breakdown of trace t and its average step (spec 11). */
static void
analyse(struct ktrace *t)
{
	struct tl role[NROLE];
	long *own;
	size_t i, ns = 0;
	double sum;
	int r;

	t->done = 1;
	if (t->nev > 1)
		qsort(t->ev, t->nev, sizeof(*t->ev), byts);
	if (t->next > 1)
		qsort(t->ext, t->next, sizeof(*t->ext), i64cmp);
	for (i = 0; i < t->nev; i++)
		ns += t->ev[i].kind == KSTEP;
	t->row = lt_calloc(ns + 1, sizeof(*t->row));
	for (i = 0; i < t->nev; i++)
		if (t->ev[i].kind == KSTEP) {
			t->row[t->nrow].num = t->ev[i].id;
			t->row[t->nrow].start = t->ev[i].ts;
			t->row[t->nrow++].end = t->ev[i].end;
		}
	t->nostep = t->nrow == 0;
	if (t->nrow == 0) {
		if (!t->hasspan)
			return;
		t->row[0].start = t->lo;
		t->row[0].end = t->hi;
		t->nrow = 1;
	}
	own = lt_reallocarray(NULL, t->nev + 1, sizeof(*own));
	links(t, own);
	bounds(t, own);
	free(own);
	memset(role, 0, sizeof(role));
	for (i = 0; i < t->nev; i++) {
		if (isdev(&t->ev[i]))
			r = devrole(t, &t->ev[i]);
		else if (t->ev[i].kind == E_RUNTIME)
			r = R_RUNTIME;
		else
			continue;
		st_tl_add(&role[r], t->ev[i].ts, t->ev[i].end);
		if (r == R_COMM) {
			t->nrole[R_COMM]++;
			t->nrole[R_KERNEL]--;
		}
	}
	for (i = t->comm.off; i < t->comm.n; i++)
		st_tl_add(&role[R_COMM], t->comm.v[i].a, t->comm.v[i].b);
	role[R_DATALOADER] = t->dl;
	role[R_CPU] = t->cpu;
	breakdown(t, role);
	for (r = 0; r <= R_RUNTIME; r++)
		st_tl_free(&role[r]);
	/* 11.1: sums in step order from 0.0, in double, then / n. */
	for (r = 0; r <= NROLE + 1; r++) {
		for (sum = 0, i = 0; i < t->nrow; i++)
			sum += r == 0 ? (double)(t->row[i].end -
			    t->row[i].start) / 1000 :
			    (double)t->row[i].col[r - 1] / 1000;
		t->avg[r] = sum / (double)t->nrow;
	}
	for (i = 0; i < t->nrow; i++) {
		t->sum[0] = sadd(t->sum[0], t->row[i].end - t->row[i].start);
		for (r = 0; r <= NROLE; r++)
			t->sum[r + 1] = sadd(t->sum[r + 1], t->row[i].col[r]);
	}
}

/* -------- the job, and the report -------- */

static const char *const colname[NROLE + 1] = {
	"kernel", "memcpy", "memset", "comm", "runtime", "dataloader",
	"cpu exec", "other"
};

/* The traces with something to break down; 0 when none. */
int
st_kin_end(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ntr; i++) {
		if (!tr[i].done)
			analyse(&tr[i]);
		n += tr[i].nrow > 0;
	}
	return n;
}

static int
traces(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < ntr; i++)
		n += tr[i].nrow > 0;
	return n;
}

/* The DataLoader's share of the steps of t (the plugin's ratio, 12.1). */
static double
dlshare(const struct ktrace *t)
{
	return t->avg[0] > 0 ? t->avg[1 + R_DATALOADER] / t->avg[0] : 0;
}

/*
 * The job's step N: the row of the trace whose step N was longest (its
 * time sets the step's), or NULL.  *from gets the trace.
 */
static const struct kstep *
jobstep(int64_t num, const struct ktrace **from)
{
	const struct kstep *best = NULL;
	size_t i, j;

	for (i = 0; i < ntr; i++)
		for (j = 0; j < tr[i].nrow; j++)
			if (tr[i].row[j].num == num && (best == NULL ||
			    tr[i].row[j].end - tr[i].row[j].start >
			    best->end - best->start)) {
				best = &tr[i].row[j];
				*from = &tr[i];
			}
	return best;
}

/* The job's steps, in order of number, each once; calls f on each. */
static void
eachstep(void (*f)(const struct kstep *, const struct ktrace *, void *),
    void *arg)
{
	const struct ktrace *from = NULL;
	int64_t last = -1, next;
	size_t i, j;

	for (;;) {
		next = -1;
		for (i = 0; i < ntr; i++)
			for (j = 0; j < tr[i].nrow; j++)
				if (tr[i].row[j].num > last &&
				    (next < 0 || tr[i].row[j].num < next))
					next = tr[i].row[j].num;
		if (next < 0)
			return;
		f(jobstep(next, &from), from, arg);
		last = next;
	}
}

static void
addjob(const struct kstep *s, const struct ktrace *t, void *arg)
{
	int64_t *sum = arg;

	(void)t;
	sum[0] = sadd(sum[0], s->end - s->start);
	sum[1] = sadd(sum[1], s->col[R_DATALOADER]);
	sum[2]++;
}

/*
 * The verdict on a Kineto trace, in SV: the DataLoader's share of the
 * job's steps (for one trace, its average step's).  0 when there is no
 * trace to break down.
 */
int
st_kin_verdict(void)
{
	struct ltbuf *b;
	int64_t sum[3] = { 0, 0, 0 };
	const struct ktrace *t;
	size_t i;

	if (traces() == 0)
		return 0;
	eachstep(addjob, sum);
	SV.known = sum[0] > 0;
	SV.share = SV.known ? (double)sum[1] / (double)sum[0] : 0;
	SV.level = SV.known ? st_level(SV.share) : V_NONE;
	SV.delay = sum[1];
	SV.time = sum[0];
	SV.steps = sum[2];
	for (i = 0; i < ntr; i++) {
		t = &tr[i];
		if (t->nrow == 0 || !t->nostep || SV.nwhy == 16)
			continue;
		b = &SV.why[SV.nwhy++];
		st_bprintf(b, "no ProfilerStep in the trace%s: its whole "
		    "extent is one step, 0, as TensorBoard's plugin made it",
		    ntr > 1 ? " of a rank" : "");
	}
	if (SV.level == V_NONE)
		return 1;
	for (i = 0; i < ntr && SV.nwhy < 16; i++) {
		if (tr[i].nrow == 0 || tr[i].loader == 0)
			continue;
		b = &SV.why[SV.nwhy++];
		st_bprintf(b, "the DataLoader's next batch is loaded on the "
		    "training thread: %s", tr[i].loader == 1 ?
		    "_SingleProcessDataLoaderIter, num_workers=0" :
		    "_MultiProcessingDataLoaderIter waits for its workers");
		break;
	}
	b = &SV.next[SV.nnext++];
	if (SV.level == V_NOT)
		st_bprintf(b, "nothing to do for the input: the DataLoader "
		    "takes under 5%% of the step time");
	else
		st_bprintf(b, "DataLoader (%.1f%% of the step time): set "
		    "num_workers on the DataLoader's construction, to load in "
		    "worker processes "
		    "(https://pytorch.org/docs/stable/data.html"
		    "#single-and-multi-process-data-loading); with workers "
		    "already, more of them, pin_memory=True, or a faster "
		    "dataset", 100 * SV.share);
	return 1;
}

/* -------- output -------- */

static struct ltout	*o;

#define pf(...)	lt_out_printf(o, __VA_ARGS__)

/* The columns a trace shows (spec 13): comm only with collectives. */
static int
shown(const struct ktrace *t, int r)
{
	if (r == R_COMM)
		return t->nrole[R_COMM] > 0;
	if (r <= R_RUNTIME)
		return t->nrole[R_KERNEL] + t->nrole[R_MEMCPY] +
		    t->nrole[R_MEMSET] + t->nrole[R_COMM] +
		    t->nrole[R_RUNTIME] > 0;
	return 1;
}

static void
cell(int64_t ns)
{
	char num[LT_NUMBUF];

	num[lt_us_fmt(num, ns)] = '\0';
	pf(" %11s", num);
}

static void
ttrace(const struct ktrace *t)
{
	size_t i;
	int r;

	pf("\n");
	if (t->rank >= 0)
		pf("rank %lld: ", (long long)t->rank);
	pf("%zu step%s, in \u00b5s: each instant counted once, under the "
	    "first busy column from kernel to cpu exec, else other\n",
	    t->nrow, t->nrow == 1 ? "" : "s");
	pf("  %-8s %11s", "step", "total");
	for (r = 0; r <= NROLE; r++)
		if (r == NROLE || shown(t, r))
			pf(" %11s", colname[r]);
	pf("\n");
	for (i = 0; i < t->nrow; i++) {
		pf("  %-8lld", (long long)t->row[i].num);
		cell(t->row[i].end - t->row[i].start);
		for (r = 0; r <= NROLE; r++)
			if (r == NROLE || shown(t, r))
				cell(t->row[i].col[r]);
		pf("\n");
	}
	pf("  %-8s %11.3f", "average", t->avg[0]);
	for (r = 0; r <= NROLE; r++)
		if (r == NROLE || shown(t, r))
			pf(" %11.3f", t->avg[r + 1]);
	pf("\n  %-8s %11s", "%", "100.00");
	for (r = 0; r <= NROLE; r++)
		if (r == NROLE || shown(t, r))
			pf(" %11.2f", t->avg[0] > 0 ? 100 * t->avg[r + 1] /
			    t->avg[0] : 0);
	pf("\n");
}

/* The text of the breakdowns. */
void
st_kin_text(struct ltout *out)
{
	size_t i;

	o = out;
	for (i = 0; i < ntr; i++)
		if (tr[i].nrow > 0)
			ttrace(&tr[i]);
}

/* "ltstat: a PyTorch profiler trace; ..." when there is one. */
int
st_kin_head(struct ltout *out, long long spans)
{
	size_t i, n = 0;

	if (traces() == 0)
		return 0;
	o = out;
	for (i = 0; i < ntr; i++)
		n += tr[i].nostep ? 0 : tr[i].nrow;
	pf("ltstat: a PyTorch profiler (Kineto) trace; %d trace%s, %zu "
	    "profiler step%s, %lld spans\n", traces(), traces() == 1 ? "" :
	    "s", n, n == 1 ? "" : "s", spans);
	return 1;
}

static void
us(int64_t ns)
{
	lt_put_us(o, ns);
}

static void
jrow(const struct kstep *s)
{
	int r;

	pf("{\"step\":%lld,\"total_us\":", (long long)s->num);
	us(s->end - s->start);
	for (r = 0; r <= NROLE; r++) {
		pf(",\"%s_us\":", colkey[r]);
		us(s->col[r]);
	}
	pf("}");
}

static void
jstep(const struct kstep *s, const struct ktrace *t, void *arg)
{
	int *n = arg;

	(void)t;
	if ((*n)++ > 0)
		pf(",");
	jrow(s);
}

/* The job's steps, as "steps":[...]. */
void
st_kin_jsteps(struct ltout *out)
{
	int n = 0;

	o = out;
	pf("\"steps\":[");
	eachstep(jstep, &n);
	pf("]");
}

/* The traces, as the objects of "ranks". */
void
st_kin_jranks(struct ltout *out)
{
	const struct ktrace *t;
	size_t i, j;
	int r, n = 0;

	o = out;
	for (i = 0; i < ntr; i++) {
		t = &tr[i];
		if (t->nrow == 0)
			continue;
		pf("%s{\"rank\":", n++ > 0 ? "," : "");
		if (t->rank >= 0)
			pf("%lld", (long long)t->rank);
		else
			pf("null");
		pf(",\"verdict\":\"%s\",\"wait_share\":%.4f,\"wait_us\":",
		    st_levelname[st_level(dlshare(t))], dlshare(t));
		us(t->sum[1 + R_DATALOADER]);
		pf(",\"wait_by_cause_us\":{\"dataloader\":");
		us(t->sum[1 + R_DATALOADER]);
		pf("},\"profiler_steps\":%s,\"steps\":[",
		    t->nostep ? "false" : "true");
		for (j = 0; j < t->nrow; j++) {
			if (j > 0)
				pf(",");
			jrow(&t->row[j]);
		}
		pf("],\"average\":{\"total_us\":%.3f", t->avg[0]);
		for (r = 0; r <= NROLE; r++)
			pf(",\"%s_us\":%.3f", colkey[r], t->avg[r + 1]);
		pf("},\"percent\":{");
		for (r = 0; r <= NROLE; r++)
			pf("%s\"%s\":%.2f", r > 0 ? "," : "", colkey[r],
			    t->avg[0] > 0 ? 100 * t->avg[r + 1] / t->avg[0] :
			    0);
		pf("}}");
	}
}

void
st_kin_free(void)
{
	size_t i;

	for (i = 0; i < ntr; i++) {
		free(tr[i].ev);
		free(tr[i].ext);
		free(tr[i].row);
		st_tl_free(&tr[i].dl);
		st_tl_free(&tr[i].cpu);
		st_tl_free(&tr[i].comm);
	}
	free(tr);
	tr = NULL;
	ntr = captr = 0;
}
