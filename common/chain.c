/* See LICENSE file for copyright and license details. */
/*
 * chain.c: the stages of a chain in one process (ltchain(1)).  Each
 * stage is its program's main function, run as a coroutine on a stack
 * of its own, and one runs at a time: a stage that writes a buffer of
 * its standard output hands it to the next stage and runs that one
 * until it has read it all; a stage that wants more input runs the one
 * before.  No byte goes through the kernel between stages, and the
 * buffer read is still in the cache that wrote it.
 *
 * What a process would have of its own, a stage has: the state of
 * common/ marked LT_STAGE (the linker gathers it in one section, which
 * is swapped as stages take turns), its standard error (a descriptor
 * put on fd 2), getopt's start, and an end of its own: lt_exit() and a
 * return from main end the stage, the next one reads the end of its
 * input, and the one before, writing to a stage that has gone, ends as
 * a process would on SIGPIPE (128 + 13).  Outside ltchain, none of this
 * runs: lt_chan_of() says there are no channels.
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <ucontext.h>

#include "lt.h"

#define STACK	(8 * 1024 * 1024)

/*
 * AddressSanitizer is told of each switch of stacks, or it takes the
 * other stacks' frames for overflows; it is not told through
 * swapcontext(), which it warns of: getcontext() and setcontext() do
 * the same.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LT_ASAN	1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LT_ASAN	1
#endif
#ifdef LT_ASAN
#include <sanitizer/common_interface_defs.h>
#else
#define __sanitizer_start_switch_fiber(save, bottom, size)
#define __sanitizer_finish_switch_fiber(save, bottom, size)
#endif

struct ltchan {
	const char	*p;		/* the writer's bytes, handed over */
	size_t		 n, pos;	/* how many, read so far */
	struct ltout	*out;		/* whose buffer p is, or NULL */
	int		 done;		/* the writer has ended */
	int		 gone;		/* the reader has ended */
};

struct co {
	struct ltstage	*st;
	ucontext_t	 uc;
	char		*stack;
	const void	*bottom;	/* of its stack, and the size */
	size_t		 size;
	void		*fake;		/* AddressSanitizer's, while away */
	char		*state;		/* its copy of the LT_STAGE section */
	int		 started, ended;
	int		 returned;	/* from its main: it freed its own */
};

/* The linker's bounds of the LT_STAGE section. */
extern char	 __start_ltstage[], __stop_ltstage[];

/* the stages, then the caller */
static struct co	*stages;
static struct ltchan	*chans;		/* chans[i]: stage i to i + 1 */
static int		 nco, cur, prev;
static int		 errfd, stderrfd;	/* on fd 2; the chain's own */

/*
 * The stacks and states of the stages that ended midway (lt_exit(), a
 * reader gone), kept till the process ends: what they point to was in
 * use when the stage ended, as a process's memory is when it calls
 * exit(3), and LeakSanitizer, which finds it reachable then, finds it
 * reachable here too instead of leaked.
 */
static void		**kept;
static size_t		 nkept, capkept;

struct ltchan *
lt_chan_of(int fd)
{
	if (stages == NULL || cur == nco)
		return NULL;
	if (fd == 0)
		return cur > 0 ? &chans[cur - 1] : NULL;
	return cur < nco - 1 ? &chans[cur] : NULL;
}

static void	run(void);

/* Back on the stack of cur, from prev's. */
static void
landed(void *fake)
{
	struct co *p = &stages[prev];

	(void)p;
	(void)fake;
	__sanitizer_finish_switch_fiber(fake, &p->bottom, &p->size);
}

/* Run stage to (nco: the caller of lt_chain_run) until it hands back. */
static void
switchto(int to)
{
	struct co *f = &stages[cur], *t = &stages[to];
	size_t n = (size_t)(__stop_ltstage - __start_ltstage);
	volatile int back = 0;
	int e;

	memcpy(f->state, __start_ltstage, n);
	memcpy(__start_ltstage, t->state, n);
	e = to < nco && t->st->err >= 0 ? t->st->err : stderrfd;
	if (e != errfd && dup2(e, 2) >= 0)
		errfd = e;
	if (!t->started) {
		t->started = 1;
		if (getcontext(&t->uc) < 0)
			lt_die(LT_EXIT_SYS, "getcontext:");
		t->stack = lt_malloc(STACK);
		t->bottom = t->stack;
		t->size = STACK;
		t->uc.uc_stack.ss_sp = t->stack;
		t->uc.uc_stack.ss_size = STACK;
		t->uc.uc_link = NULL;
		makecontext(&t->uc, run, 0);
	}
	prev = cur;
	cur = to;
	/* an ended stage's fake stack goes: it never comes back */
	__sanitizer_start_switch_fiber(f->ended ? NULL : &f->fake, t->bottom,
	    t->size);
	if (getcontext(&f->uc) < 0)
		lt_die(LT_EXIT_SYS, "getcontext:");
	if (!back) {
		back = 1;
		setcontext(&t->uc);
		lt_die(LT_EXIT_SYS, "setcontext:");
	}
	landed(f->fake);
}

/*
 * The stage that runs ends with status.  The next stage alive reads the
 * end of its input; when none is left after it, the last one alive
 * before it finds its reader gone; when none is left at all, the caller
 * goes on.
 */
static void LT_NORETURN
end(int status)
{
	struct co *c = &stages[cur];
	int i;

	lt_out_abandon();
	c->ended = 1;
	c->st->status = status & 255;
	if (cur > 0)
		chans[cur - 1].gone = 1;
	if (cur < nco - 1)
		chans[cur].done = 1;
	for (i = cur + 1; i < nco && stages[i].ended; i++)
		;
	if (i == nco)
		for (i = cur - 1; i >= 0 && stages[i].ended; i--)
			;
	switchto(i >= 0 ? i : nco);
	abort();		/* an ended stage never runs again */
}

static void
run(void)
{
	struct ltstage *s = stages[cur].st;
	int status;

	landed(NULL);
	/* getopt from the start, as in a new process */
#ifdef __GLIBC__
	optind = 0;
#else
	optind = 1;
#endif
	opterr = 1;
	status = s->main(s->argc, s->argv);
	stages[cur].returned = 1;
	end(status);
}

void
lt_exit(int status)
{
	if (stages != NULL && cur < nco)
		end(status);
	exit(status);
}

/*
 * The hints of what the writer handed (struct lthint) to in, after those
 * it has for bytes not read yet: the others are dropped, so that a
 * reader that reads lines some other way keeps no more than a buffer's.
 */
static void
takehints(struct ltin *in, struct ltout *o)
{
	uint64_t pos = (uint64_t)(in->off + (off_t)in->pos);
	struct lthint *t;
	size_t k;

	(void)lt_in_hint(in, pos);
	if (o->nhint == 0)
		return;
	if (in->nhint == 0) {
		t = in->hint;
		in->hint = o->hint;
		o->hint = t;
		k = in->caphint;
		in->caphint = o->caphint;
		o->caphint = k;
		in->nhint = o->nhint;
	} else {
		in->hint = lt_grow(in->hint, &in->caphint, in->nhint +
		    o->nhint, sizeof(*in->hint));
		memcpy(in->hint + in->nhint, o->hint, o->nhint *
		    sizeof(*o->hint));
		in->nhint += o->nhint;
	}
	o->nhint = 0;
}

/*
 * Up to n bytes more for in, after its unread bytes, which start at
 * in->pos; their number, 0 at the end.  When the writer handed its
 * buffer and the unread bytes fit in its room before the data, the two
 * trade buffers instead: in gets the writer's, the unread bytes put just
 * before what it wrote, and the writer in's, to write on.
 */
size_t
lt_chan_read(struct ltchan *c, struct ltin *in, size_t n)
{
	struct ltout *o;
	size_t k, left;
	char *b;

	while (c->pos == c->n) {
		if (c->done)
			return 0;
		switchto(cur - 1);
	}
	o = c->out;
	left = in->end - in->pos;
	if (o != NULL && c->pos == 0)
		takehints(in, o);
	if (o != NULL && c->pos == 0 && left <= LT_CHANHEAD &&
	    in->cap >= 2 * LT_CHANHEAD) {
		b = o->buf - LT_CHANHEAD;
		memcpy(o->buf - left, in->buf + in->pos, left);
		in->off += (off_t)in->pos - (off_t)(LT_CHANHEAD - left);
		o->buf = in->buf + LT_CHANHEAD;
		k = o->cap;
		o->cap = in->cap - LT_CHANHEAD;
		in->buf = b;
		in->cap = LT_CHANHEAD + k;
		in->pos = LT_CHANHEAD - left;
		in->end = LT_CHANHEAD;
		c->pos = c->n;
		return c->n;
	}
	k = c->n - c->pos;
	if (k > n)
		k = n;
	memcpy(in->buf + in->end, c->p + c->pos, k);
	c->pos += k;
	return k;
}

/*
 * The n bytes at p to the next stage, which runs till it has read them
 * all: o when p is o's buffer, which the reader may take (above).
 */
void
lt_chan_write(struct ltchan *c, const char *p, size_t n, struct ltout *o)
{
	c->p = p;
	c->n = n;
	c->pos = 0;
	c->out = o;
	while (!c->gone && c->pos < c->n)
		switchto(cur + 1);
	c->out = NULL;
	if (c->gone)
		end(128 + SIGPIPE);
	c->n = c->pos = 0;
}

/*
 * Run the n stages of st, the first reading this process's standard
 * input and the last writing its standard output; their statuses are
 * in st[i].status when it returns.
 */
void
lt_chain_run(struct ltstage *st, int n)
{
	size_t sz = (size_t)(__stop_ltstage - __start_ltstage);
	int i;

	if ((stderrfd = dup(2)) < 0)
		lt_die(LT_EXIT_SYS, "dup:");
	errfd = stderrfd;
	stages = lt_calloc((size_t)n + 1, sizeof(*stages));
	chans = lt_calloc((size_t)n, sizeof(*chans));
	nco = n;
	for (i = 0; i <= n; i++) {
		stages[i].st = i < n ? &st[i] : NULL;
		stages[i].state = lt_malloc(sz + 1);
		memcpy(stages[i].state, __start_ltstage, sz);
	}
	stages[n].started = 1;
	cur = n;
	/* the last stage first: it asks the others for input */
	switchto(n - 1);
	for (i = 0; i <= n; i++) {
		if (i < n && !stages[i].returned) {
			kept = lt_grow(kept, &capkept, nkept + 2,
			    sizeof(*kept));
			kept[nkept++] = stages[i].stack;
			kept[nkept++] = stages[i].state;
			continue;
		}
		free(stages[i].stack);
		free(stages[i].state);
	}
	free(stages);
	free(chans);
	stages = NULL;
	chans = NULL;
	if (errfd != stderrfd)
		dup2(stderrfd, 2);
	close(stderrfd);
}
