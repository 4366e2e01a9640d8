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
#define _DEFAULT_SOURCE		/* MAP_ANONYMOUS, POSIX.1-2024's */

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
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
	struct ring	*ring;		/* to or from another process */
};

/*
 * A channel between two processes of a chain (ltchain's "||"): slots
 * of memory both share, each a writer's buffer and the hints of its
 * lines, and a pair of sockets on which the writer names each slot it
 * filled and the reader each slot it has read, so that the bytes are
 * copied once, in memory, instead of through the kernel twice, and the
 * reader gets the hints.  A socket, not a pipe: a peer gone is an error
 * of send (MSG_NOSIGNAL), not a signal that would end every stage of
 * the process.  The reader's side shut says it is gone; the writer,
 * when its stage ends, says so (REND) before it shuts its side: a part
 * whose writer went without a word was killed, and the parts after it
 * end as killed too (SIGTERM), as the stages of one process would, not
 * as if their input had ended.
 */
#define RSLOTS	4
#define REND	RSLOTS		/* the writer's last word: it has ended */
#define RHINTS	4096		/* hints a slot keeps; lines past them */
				/*   are read without */
struct slot {
	size_t		 n, nhint;
	struct lthint	 hint[RHINTS];
	char		 data[LT_OUTBUF];
};

struct ring {
	struct slot	*slot;		/* RSLOTS of them, shared */
	int		 fd[2];		/* the writer's socket, the reader's */
	int		 free[RSLOTS];	/* the writer's slots to fill */
	int		 nfree;
	int		 cur;		/* the reader's slot, or -1 */
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

/* this process's part of a chain of several (lt_chain_fork) */
static struct ltchan	 ringin, ringout;	/* ring NULL: none */
static struct ring	*rings;
static pid_t		*kids;
static int		 nring;

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
		return cur > 0 ? &chans[cur - 1] : ringin.ring != NULL ?
		    &ringin : NULL;
	return cur < nco - 1 ? &chans[cur] : ringout.ring != NULL ?
	    &ringout : NULL;
}

static void	run(void);
static int	sendslot(int, int);

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
	else if (ringin.ring != NULL)
		shutdown(ringin.ring->fd[1], SHUT_RDWR);
	if (cur < nco - 1)
		chans[cur].done = 1;
	else if (ringout.ring != NULL) {
		(void)sendslot(ringout.ring->fd[0], REND);
		shutdown(ringout.ring->fd[0], SHUT_WR);
	}
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

/* n hints more for in, after those it has for bytes not read yet. */
static void
addhints(struct ltin *in, const struct lthint *h, size_t n)
{
	(void)lt_in_hint(in, (uint64_t)(in->off + (off_t)in->pos));
	if (n == 0)
		return;
	in->hint = lt_grow(in->hint, &in->caphint, in->nhint + n,
	    sizeof(*in->hint));
	memcpy(in->hint + in->nhint, h, n * sizeof(*h));
	in->nhint += n;
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
	} else
		addhints(in, o->hint, o->nhint);
	o->nhint = 0;
}

/*
 * A slot's number from the other side, on fd, or REND; -1 once it is
 * gone.
 */
static int
recvslot(int fd)
{
	int k;
	ssize_t r;

	while ((r = recv(fd, &k, sizeof(k), MSG_WAITALL)) < 0 &&
	    errno == EINTR)
		;
	if (r != (ssize_t)sizeof(k))
		return -1;
	if (k < 0 || k > REND)
		lt_die(LT_EXIT_SYS, "slot %d from another process", k);
	return k;
}

/* Slot k to the other side, on fd; -1 when it is gone. */
static int
sendslot(int fd, int k)
{
	ssize_t r;

	while ((r = send(fd, &k, sizeof(k), MSG_NOSIGNAL)) < 0 &&
	    errno == EINTR)
		;
	return r == (ssize_t)sizeof(k) ? 0 : -1;
}

/* Up to n of the bytes c holds still, after in's. */
static size_t
copyout(struct ltchan *c, struct ltin *in, size_t n)
{
	size_t k = c->n - c->pos;

	if (k > n)
		k = n;
	memcpy(in->buf + in->end, c->p + c->pos, k);
	c->pos += k;
	return k;
}

/* lt_chan_read from the process before, through c's ring. */
static size_t
ringread(struct ltchan *c, struct ltin *in, size_t n)
{
	struct ring *r = c->ring;
	struct slot *s;

	while (r->cur < 0 || c->pos == c->n) {
		if (r->cur >= 0) {
			/* read: the writer's again (unless it has gone) */
			(void)sendslot(r->fd[1], r->cur);
			r->cur = -1;
		}
		if (c->done)
			return 0;
		if ((r->cur = recvslot(r->fd[1])) == REND || r->cur < 0) {
			if (r->cur < 0)
				raise(SIGTERM);	/* the part before was killed */
			r->cur = -1;
			c->done = 1;
			return 0;
		}
		s = &r->slot[r->cur];
		c->p = s->data;
		c->n = s->n <= sizeof(s->data) ? s->n : 0;
		c->pos = 0;
		addhints(in, s->hint, s->nhint <= RHINTS ? s->nhint : 0);
	}
	return copyout(c, in, n);
}

/* lt_chan_write to the process after, through c's ring. */
static void
ringwrite(struct ltchan *c, const char *p, size_t n, struct ltout *o)
{
	struct ring *r = c->ring;
	struct slot *s;
	size_t k;
	int i;

	while (n > 0) {
		if (r->nfree == 0) {
			if ((i = recvslot(r->fd[0])) < 0 || i == REND)
				end(128 + SIGPIPE);
			r->free[r->nfree++] = i;
		}
		s = &r->slot[r->free[--r->nfree]];
		k = n < sizeof(s->data) ? n : sizeof(s->data);
		memcpy(s->data, p, k);
		s->n = k;
		s->nhint = 0;
		if (o != NULL && o->nhint > 0) {
			/* all with the first piece: kept till their line */
			s->nhint = o->nhint < RHINTS ? o->nhint : RHINTS;
			memcpy(s->hint, o->hint, s->nhint * sizeof(*s->hint));
			o->nhint = 0;
		}
		o = NULL;
		if (sendslot(r->fd[0], (int)(s - r->slot)) < 0)
			end(128 + SIGPIPE);
		p += k;
		n -= k;
	}
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

	if (c->ring != NULL)
		return ringread(c, in, n);
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
	return copyout(c, in, n);
}

/*
 * The n bytes at p to the next stage, which runs till it has read them
 * all: o when p is o's buffer, which the reader may take (above).
 */
void
lt_chan_write(struct ltchan *c, const char *p, size_t n, struct ltout *o)
{
	if (c->ring != NULL) {
		ringwrite(c, p, n, o);
		return;
	}
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

/* This process's side (0 the writer's, 1 the reader's) of c's ring gone. */
static void
unring(struct ltchan *c, int side)
{
	if (c->ring == NULL)
		return;
	close(c->ring->fd[side]);
	munmap(c->ring->slot, RSLOTS * sizeof(*c->ring->slot));
	c->ring = NULL;
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
	/* the other parts see this one end, if they had not */
	unring(&ringin, 1);
	unring(&ringout, 0);
	if (errfd != stderrfd)
		dup2(stderrfd, 2);
	close(stderrfd);
}

/*
 * The chain in n parts, each a process, joined by rings (ltchain's
 * "||"): this process runs part 0, a child of it each other part.
 * Returns the part the caller is to run: lt_chain_run then joins its
 * first stage to the part before, and its last to the part after.
 */
int
lt_chain_fork(int n)
{
	struct ring *r;
	pid_t pid;
	int i, j, part = 0;

	nring = n - 1;
	rings = lt_calloc((size_t)nring, sizeof(*rings));
	kids = lt_calloc((size_t)nring, sizeof(*kids));
	for (i = 0; i < nring; i++) {
		r = &rings[i];
		r->slot = mmap(NULL, RSLOTS * sizeof(*r->slot),
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (r->slot == MAP_FAILED)
			lt_die(LT_EXIT_SYS, "mmap:");
		/* not to a stage's child (gzip): the end is the part's */
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, r->fd) < 0 ||
		    fcntl(r->fd[0], F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(r->fd[1], F_SETFD, FD_CLOEXEC) < 0)
			lt_die(LT_EXIT_SYS, "socketpair:");
		for (j = 0; j < RSLOTS; j++)
			r->free[j] = j;
		r->nfree = RSLOTS;
		r->cur = -1;
	}
	for (i = 1; i < n; i++) {
		if ((pid = fork()) < 0)
			lt_die(LT_EXIT_SYS, "fork:");
		if (pid == 0) {
			part = i;
			nring = 0;	/* its parts are the parent's */
			break;
		}
		kids[i - 1] = pid;
	}
	/*
	 * A part keeps the reader's side of the ring before it and the
	 * writer's of the ring after it.
	 */
	for (i = 0; i < n - 1; i++) {
		if (i != part - 1)
			close(rings[i].fd[1]);
		if (i != part)
			close(rings[i].fd[0]);
		if (i != part - 1 && i != part)
			munmap(rings[i].slot, RSLOTS * sizeof(*rings[i].slot));
	}
	if (part > 0)
		ringin.ring = &rings[part - 1];
	if (part < n - 1)
		ringout.ring = &rings[part];
	return part;
}

/*
 * In part 0, once its stages have ended: wait for the other parts.
 * st[i - 1] is how part i ended: its exit status, or minus the signal
 * that killed it, before it could say how its stages ended.
 */
void
lt_chain_wait(int *st)
{
	int i, w;

	for (i = 0; i < nring; i++) {
		while (waitpid(kids[i], &w, 0) < 0)
			if (errno != EINTR)
				lt_die(LT_EXIT_SYS, "waitpid:");
		st[i] = WIFEXITED(w) ? WEXITSTATUS(w) : -WTERMSIG(w);
	}
	free(rings);
	free(kids);
	rings = NULL;
	kids = NULL;
	nring = 0;
}
