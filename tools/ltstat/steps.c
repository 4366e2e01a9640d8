/* See LICENSE file for copyright and license details. */
/*
 * steps.c: the steps of all ranks, paired.  In data-parallel training
 * every step waits for the slowest rank, so the job loses about the
 * largest of the ranks' waits of each step, not their mean.  A step is
 * a batch number of an epoch of an attempt (the k-th process of each
 * rank number: a restarted job's ranks are new processes); each rank
 * reports it once, with its wait before the batch and the batch's
 * compute time.  Per step the job counts the largest wait (its data
 * delay) and the rank that had it, the longest wait plus compute (its
 * time), and the shortest compute (its time had no rank waited: the
 * rank that waited longest holds the others in the step's collective
 * operations, so their compute holds a wait of their own).
 *
 * The steps of an epoch's batch 0 are counted at the end, from the
 * epochs (their first wait is known only when their span ends).  The
 * others wait in a table until LAG steps later and all ranks of their
 * attempt reported them; the table holds at most STEPMAX steps, beyond
 * which the oldest are counted as they are (counted as forced).
 */
#include <stdlib.h>

#include "ltstat.h"

#define LAG		1024
#define STEPMAX		65536

struct step {
	int		 used;
	int		 attempt;
	int64_t		 epoch, batch;
	long long	 seq;
	int		 n;		/* ranks that reported it */
	int64_t		 maxw, maxt, minc;
	struct rank	*slow;		/* whose wait was longest */
};

/* The steps in order of their first report, by key, as a ring. */
static struct step	*ring;
static size_t		 rhead, rn, rcap;

static size_t
home(int attempt, int64_t epoch, int64_t batch, size_t cap)
{
	uint64_t h = (uint64_t)attempt * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)epoch * 0xc2b2ae3d27d4eb4fULL ^ (uint64_t)batch;

	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 17) & (cap - 1);
}

static struct step *
find(int attempt, int64_t epoch, int64_t batch, int add)
{
	struct step *old, *s;
	size_t i, n;

	if (add && 2 * (ST.nsteps + 1) > ST.capsteps) {
		old = ST.steps;
		n = ST.capsteps;
		ST.capsteps = n != 0 ? 2 * n : 64;
		ST.steps = lt_calloc(ST.capsteps, sizeof(*ST.steps));
		ST.nsteps = 0;
		for (i = 0; i < n; i++)
			if (old[i].used) {
				s = find(old[i].attempt, old[i].epoch,
				    old[i].batch, 1);
				*s = old[i];
			}
		free(old);
	}
	if (ST.capsteps == 0)
		return NULL;
	for (i = home(attempt, epoch, batch, ST.capsteps); ST.steps[i].used;
	    i = (i + 1) & (ST.capsteps - 1))
		if (ST.steps[i].attempt == attempt &&
		    ST.steps[i].epoch == epoch && ST.steps[i].batch == batch)
			return &ST.steps[i];
	if (!add)
		return NULL;
	s = &ST.steps[i];
	memset(s, 0, sizeof(*s));
	s->used = 1;
	s->attempt = attempt;
	s->epoch = epoch;
	s->batch = batch;
	s->seq = ST.stepseq++;
	ST.nsteps++;
	return s;
}

/* Linear probing: what the entry at s pushed away moves back. */
static void
unstep(struct step *s)
{
	size_t i = (size_t)(s - ST.steps), j = i, h, mask = ST.capsteps - 1;
	struct step *t;

	for (;;) {
		ST.steps[i].used = 0;
		for (;;) {
			j = (j + 1) & mask;
			t = &ST.steps[j];
			if (!t->used)
				goto done;
			h = home(t->attempt, t->epoch, t->batch, ST.capsteps);
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		ST.steps[i] = ST.steps[j];
		i = j;
	}
done:
	ST.nsteps--;
}

/* A step of wait w and compute c of rank r joins s. */
static void
report(struct step *s, struct rank *r, int64_t c, int64_t w)
{
	int64_t t = sadd(w, c);

	if (s->n == 0 || w > s->maxw) {
		s->maxw = w;
		s->slow = r;
	}
	if (s->n == 0 || t > s->maxt)
		s->maxt = t;
	if (s->n == 0 || c < s->minc)
		s->minc = c;
	s->n++;
}

/* Step s is complete, or will not be: the job counts it. */
static void
count(const struct step *s)
{
	ST.job.steps++;
	if (s->n >= ST.natt[s->attempt])
		ST.job.paired++;
	ST.job.delay = sadd(ST.job.delay, s->maxw);
	ST.job.time = sadd(ST.job.time, s->maxt);
	ST.job.ideal = sadd(ST.job.ideal, s->minc);
	if (s->maxw > 0) {
		s->slow->nslow++;
		s->slow->slowus = sadd(s->slow->slowus, s->maxw);
	}
}

/* Count the steps at the head of the ring that are done (all: force). */
static void
drain(int force)
{
	struct step *h, *s;

	while (rn > 0) {
		h = &ring[rhead];
		s = find(h->attempt, h->epoch, h->batch, 0);
		if (!force && rn <= STEPMAX && (ST.stepseq - s->seq <= LAG ||
		    s->n < ST.natt[s->attempt]))
			break;
		if (s->n < ST.natt[s->attempt] && !force)
			ST.job.forced++;
		count(s);
		unstep(s);
		rhead = (rhead + 1) % rcap;
		rn--;
	}
}

/* Rank r's batch of epoch ep (not its first) took c after a wait w. */
void
st_step(struct rank *r, int64_t ep, int64_t batch, int64_t c, int64_t w)
{
	struct step *s, *nr;
	size_t i;

	s = find(r->attempt, ep, batch, 1);
	if (s->n == 0) {
		if (rn == rcap) {
			nr = lt_reallocarray(NULL, rcap != 0 ? 2 * rcap : 64,
			    sizeof(*nr));
			for (i = 0; i < rn; i++)
				nr[i] = ring[(rhead + i) % rcap];
			free(ring);
			ring = nr;
			rhead = 0;
			rcap = rcap != 0 ? 2 * rcap : 64;
		}
		ring[(rhead + rn++) % rcap] = *s;
	}
	report(s, r, c, w);
	drain(0);
}

/*
 * The input has ended: every step is counted, those of the first batch
 * of each epoch from the epochs of the ranks of each attempt.
 */
void
st_steps_end(void)
{
	struct epoch *e;
	struct rank *r;
	struct step *s;
	size_t i, j;

	drain(1);
	for (i = 0; i < ST.nranks; i++) {
		r = ST.ranks[i];
		for (j = 0; j < r->nep; j++) {
			e = &r->ep[j];
			if (!e->hasb0)
				continue;
			s = find(r->attempt, e->num, 0, 1);
			report(s, r, e->c0, e->first);
		}
	}
	for (i = 0; i < ST.capsteps; i++)
		if (ST.steps[i].used)
			count(&ST.steps[i]);
}

void
st_steps_free(void)
{
	free(ring);
	ring = NULL;
	rhead = rn = rcap = 0;
	free(ST.steps);
	ST.steps = NULL;
	ST.nsteps = ST.capsteps = 0;
}
