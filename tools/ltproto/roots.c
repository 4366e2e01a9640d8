/* See LICENSE file for copyright and license details. */
/*
 * roots.c: the slices of a track that no slice read so far encloses,
 * with the packets of their start held.
 *
 * ltpair writes a slice when it ends, so a parent comes after all its
 * children: an epoch span that starts at the very instant of its first
 * sample comes thousands of events after it.  Perfetto opens slices
 * that start at one time in file order, so the first sample's begin,
 * written first, would enclose the epoch.  A slice nothing encloses yet
 * (a root) may still get such a parent, so the packets of its start
 * (the begins, and what the window gives of their time and track) stay
 * here; when a slice that starts earlier encloses it, no parent can
 * start with it any more in a stream in order of end, and they go back
 * to the window (window.c), which writes them with what comes of their
 * time and track while it holds them; a slice that starts with a root
 * joins it, and they go together, the longest first.
 *
 * Roots of a track are disjoint and come in order of start, a stack.
 * Memory is bounded: a track keeps its oldest roots and its newest (an
 * epoch starts with the oldest, a batch with the newest ones); beyond,
 * the oldest of the newest go back to the window, where a parent that
 * starts with one may still find it (a crash's span, closed at the end
 * of its thread: pftrace-same-start.lt).  One that comes after they
 * were written is put on a track of its own, keeping its times, and
 * counted (pt_roots_lost).  Streams written in order of start have no
 * such parents: their roots go as the newest do.
 */
#include <stdlib.h>

#include "ltproto.h"

/*
 * Oldest and newest roots kept, each: a parent starts with one of the
 * oldest (an epoch) or of the last few (a batch), and a root held long
 * is read back from far in memory.
 */
#define HALFMAX	64
#define HALFMIN	4
#define GONE	64		/* starts of roots written, kept */
#define GONESLOT(t)	(lt_mix((uint64_t)(t)) & (GONE - 1))
#define LEFT	8		/* the last roots that left a track, kept */

struct span {
	int64_t		 start, end;
};

struct root {
	int64_t		 start, end;
	struct ltbuf	 items;		/* struct ptitem */
	struct ltbuf	 bytes;
};

struct stack {
	struct root	*bot;		/* the oldest */
	size_t		 nbot;
	struct root	*ring;		/* the newest, ring[head] the oldest */
	size_t		 head, nring;
	size_t		 half;		/* capacity of bot and ring, each: */
					/*   a power of 2, for a mask */
	int64_t		 gone[GONE];	/* starts of slices written, by hash */
	struct span	 left[LEFT];	/* the last roots that left */
	unsigned	 nleft, nextleft;
	int64_t		 leftmax;	/* no end of theirs is later */
	int64_t		 maxend;	/* nor of its roots', when it has */
	int		 used;		/* since the last pt_roots_sweep() */
};

static struct stack	**stacks;	/* by track uuid */
static size_t		  nstacks, capstacks, ntracks;
static size_t		  budget = 65536;
static long long	  lost;

/*
 * The stacks of tracks left alone a while are packed (freeze), and kept
 * by cold.c: a stream has a track for every thread it ever had, and
 * those whose threads are gone keep their last roots (written at the
 * end, with nothing to enclose them), the starts written and the roots
 * that left, for as long as a slice may come there.  Packed, that is
 * their bytes and a few varints, not the arrays of a stack in use.
 */
static struct ltbuf	  packed;
static struct ltbuf	  pk[2];	/* thaw's last packet, and its next */

static void	thaw(uint32_t);

/*
 * Stacks and buffers let go of, for the next ones: tracks are packed
 * and unpacked all the time, and malloc's would cost more than the rest.
 */
#define SPOOL	16
#define BPOOL	256
#define BUFKEEP	4096		/* bytes: a larger buffer is freed */
static struct stack	 *spool[SPOOL];
static size_t		  nspool;
static struct ltbuf	  bpool[BPOOL];
static size_t		  nbpool;

/* A stack with nothing in it, half roots each side. */
static struct stack *
newstack(size_t half)
{
	struct stack *st;
	struct root *bot, *ring;
	size_t i;

	for (i = 0; i < nspool; i++)
		if (spool[i]->half == half)
			break;
	if (i < nspool) {
		st = spool[i];
		spool[i] = spool[--nspool];
		bot = st->bot;
		ring = st->ring;
		memset(st, 0, sizeof(*st));
		memset(bot, 0, half * sizeof(*bot));
		memset(ring, 0, half * sizeof(*ring));
		st->bot = bot;
		st->ring = ring;
	} else {
		st = lt_calloc(1, sizeof(*st));
		st->bot = lt_calloc(half, sizeof(*st->bot));
		st->ring = lt_calloc(half, sizeof(*st->ring));
	}
	st->half = half;
	return st;
}

/* A buffer let go of: to the pool, or freed. */
static void
recycle(struct ltbuf *b)
{
	if (b->cap > 0 && b->cap <= BUFKEEP && nbpool < BPOOL) {
		b->n = 0;
		bpool[nbpool++] = *b;
		b->p = NULL;
		b->cap = 0;
	} else
		lt_buf_free(b);
}

/*
 * Room for n more bytes in a root's buffer, from the pool if it has
 * none.  A new one is made of n bytes, not lt_buf_grow()'s 256: most
 * roots hold one packet, of one item, and the thousands kept would
 * take memory (and page faults) for nothing.
 */
static void
fresh(struct ltbuf *b, size_t n)
{
	if (b->cap == 0 && nbpool > 0)
		*b = bpool[--nbpool];
	if (b->cap == 0 && n > 0) {
		b->p = lt_malloc(n);
		b->cap = n;
	}
}

static struct stack *
stackof(uint32_t track, int create)
{
	struct stack *st;
	size_t i;

	if (track >= nstacks) {
		if (!create)
			return NULL;
		stacks = lt_grow_zero(stacks, &capstacks, &nstacks,
		    (size_t)track + 1, sizeof(*stacks));
	}
	if (stacks[track] == NULL && lt_cold_has(PT_COLDSTACK, track))
		thaw(track);
	if ((st = stacks[track]) != NULL || !create) {
		if (st != NULL)
			st->used = 1;
		return st;
	}
	ntracks++;
	for (i = HALFMAX; i > HALFMIN && i > budget / (2 * ntracks); i /= 2)
		;
	st = newstack(i);
	for (i = 0; i < GONE; i++)
		st->gone[i] = INT64_MIN;	/* no time is: ts >= 0 */
	stacks[track] = st;
	st->used = 1;
	return st;
}

static size_t
depth(const struct stack *st)
{
	return st->nbot + st->nring;
}

/* The i-th root from the bottom. */
static struct root *
at(struct stack *st, size_t i)
{
	if (i < st->nbot)
		return &st->bot[i];
	return &st->ring[(st->head + i - st->nbot) & (st->half - 1)];
}

/*
 * Let the packets of a root go, with those of its time and track the
 * window still holds: written in their order.  A packet of that time
 * and track may still come, in a stream in no order: an X slice that
 * ends or starts there is then put on a track of its own (the starts
 * let go last are kept, see pt_roots_cross); an instant or flow comes
 * after the begins, where it belongs.  The root leaves the stack first
 * (detach), so that what the window gives to roots meanwhile does not
 * land in it.
 */
static struct ltbuf	 sitems, sbytes;	/* the root let go */

static void
detach(struct root *r)
{
	struct ltbuf t;

	t = sitems;
	sitems = r->items;
	r->items = t;
	t = sbytes;
	sbytes = r->bytes;
	r->bytes = t;
	r->items.n = r->bytes.n = 0;
}

static void
release(uint32_t track, struct stack *st, int64_t start)
{
	struct ptitem *it;
	size_t i, n;

	if (st == NULL) {	/* back to the window: see pt_roots_hold */
		it = (struct ptitem *)(void *)sitems.p;
		n = sitems.n / sizeof(*it);
		for (i = 0; i < n; i++)
			pt_rehold(start, &it[i], sbytes.p + it[i].off);
		sitems.n = sbytes.n = 0;
		return;
	}
	pt_take(start, track, &sitems, &sbytes);
	it = (struct ptitem *)(void *)sitems.p;
	n = sitems.n / sizeof(*it);
	pt_order(it, n);
	for (i = 0; i < n; i++)
		pt_put_at(start, track, it[i].kind, sbytes.p + it[i].off,
		    it[i].len);
	sitems.n = sbytes.n = 0;
	st->gone[GONESLOT(start)] = start;
}

/*
 * A root leaves the stack, written or given back to the window: its
 * times are kept a while, for pt_roots_cross.
 */
static void
leave(struct stack *st, int64_t start, int64_t end)
{
	st->left[st->nextleft].start = start;
	st->left[st->nextleft].end = end;
	st->nextleft = (st->nextleft + 1) % LEFT;
	if (st->nleft < LEFT)
		st->nleft++;
	if (st->nleft == 1 || end > st->leftmax)
		st->leftmax = end;
}

static void
pop(struct stack *st)
{
	if (st->nring > 0)
		st->nring--;
	else
		st->nbot--;
}

static struct root *
push(uint32_t track, struct stack *st, int64_t start, int64_t end)
{
	struct root *r;

	if (st->nring == 0 && st->nbot < st->half)
		r = &st->bot[st->nbot++];
	else {
		if (st->nring == st->half) {
			/* the oldest of the newest, to the window */
			r = &st->ring[st->head];
			leave(st, r->start, r->end);
			detach(r);
			st->head = (st->head + 1) & (st->half - 1);
			st->nring--;
			release(track, NULL, r->start);
		}
		r = &st->ring[(st->head + st->nring++) & (st->half - 1)];
	}
	r->start = start;
	r->end = end;
	if (depth(st) == 1 || end > st->maxend)
		st->maxend = end;
	return r;
}

/* Keep the item it (bytes p) in root r. */
static void
keep(struct root *r, const struct ptitem *it, const char *p)
{
	struct ptitem x = *it;

	fresh(&r->bytes, it->len);
	fresh(&r->items, sizeof(x));
	x.off = r->bytes.n;
	lt_buf_add(&r->bytes, p, it->len);
	lt_buf_add(&r->items, &x, sizeof(x));
}

/*
 * The begin of an X slice [start, end) on a track, item it with the
 * bytes p: the roots after its start are written (it encloses them, or
 * the stream is not nested there), and it joins the root of its start
 * or is a new one.
 */
void
pt_roots_hold(uint32_t track, int64_t start, int64_t end,
    const struct ptitem *it, const char *p)
{
	struct stack *st = stackof(track, 1);
	struct root *r;

	while (depth(st) > 0) {
		r = at(st, depth(st) - 1);
		if (r->start < start)
			break;
		if (r->start == start) {
			if (end > r->end)
				r->end = end;
			if (end > st->maxend)
				st->maxend = end;
			keep(r, it, p);
			return;
		}
		/*
		 * Enclosed, or after its end, or crossed: no parent can
		 * start with it any more in a stream in order of end, but
		 * in another order (gentrace -f dense) the end or start of
		 * another slice may still fall on its start.  So its
		 * packets go back to the window, which orders them with
		 * what comes of their time and track while they are held
		 * there, as the JSON's are.
		 */
		detach(r);
		pop(st);
		leave(st, r->start, r->end);
		release(track, NULL, r->start);
	}
	keep(push(track, st, start, end), it, p);
}

/*
 * Does a slice [start, end) that starts inside root r and ends in it
 * cross one of the slices that start with r, which end at their own
 * times: one that ends between its start and end?
 */
static int
member(const struct root *r, int64_t start, int64_t end)
{
	const struct ptitem *it = (const struct ptitem *)(const void *)
	    r->items.p;
	size_t i, n = r->items.n / sizeof(*it);
	int64_t e;

	if (n < 2)
		return 0;	/* r alone */
	for (i = 0; i < n; i++) {
		if (it[i].kind != PT_KXBEGIN)
			continue;
		e = r->start - it[i].key;
		if (start < e && e < end)
			return 1;
	}
	return 0;
}

/*
 * Would an X slice [start, end) cross one on the track?  Perfetto moves
 * a slice that starts inside another and ends after it off the thread's
 * track (JSON), or closes the wrong one (protobuf), so it is written on
 * a track of its own (event.c): then every slice keeps its times, if
 * not always the one that JSON would move.  The slice it would cross is
 * the innermost one around its start: in a stream in order of end, a
 * root (those that start after it, it encloses, and they are passed
 * over); in order of start, one of the last roots, which are looked at.
 */
#define CROSSLOOK	8

int
pt_roots_cross(uint32_t track, int64_t start, int64_t end)
{
	struct stack *st = stackof(track, 0);
	struct root *r;
	int64_t r0, r1;
	size_t i, n;

	if (st == NULL)
		return 0;
	if (st->gone[GONESLOT(start)] == start ||
	    st->gone[GONESLOT(end)] == end) {
		lost += st->gone[GONESLOT(start)] == start;
		return 1;		/* too late to be ordered there */
	}
	/* A slice that starts after they end crosses none of them. */
	for (i = 0; start < st->leftmax && i < st->nleft; i++) {
		r0 = st->left[i].start;
		r1 = st->left[i].end;
		if ((r0 < start && start < r1 && r1 < end) ||
		    (start < r0 && r0 < end && end < r1))
			return 1;	/* one that left lately */
	}
	/*
	 * Nor does one that starts after they end, which is most: the
	 * loop below would pass over CROSSLOOK roots before it, in as
	 * many places in memory, to find nothing.
	 */
	if (start >= st->maxend)
		return 0;
	for (i = depth(st), n = 0; i > 0 && n < CROSSLOOK; i--) {
		r = at(st, i - 1);
		if (r->start > start) {
			if (r->start < end && r->end > end)
				return 1;	/* came first, starts inside */
			continue;	/* it encloses them, or ends before */
		}
		if (r->start == start) {
			if (end <= r->end)
				return 0;	/* inside it */
			continue;	/* around it: its parent decides */
		}
		if (r->end > start)
			return end > r->end || member(r, start, end);
		n++;
	}
	return 0;
}

/*
 * The root of a track that starts at ts, or NULL (roots are in order).
 * Most times asked for are those of roots let go of, from the oldest
 * of the newest (push): between the newest of the oldest and the
 * oldest of the newest, which two looks tell, not a search of the
 * whole stack, far in memory.
 */
static struct root *
find(struct stack *st, int64_t ts)
{
	size_t lo = 0, hi = depth(st), mid;
	struct root *r;

	if (st->nbot > 0 && st->nring > 0 &&
	    ts > st->bot[st->nbot - 1].start &&
	    ts < st->ring[st->head].start)
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = at(st, mid);
		if (r->start == ts)
			return r;
		if (r->start < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The packets it[0..n) of a track at ts, leaving the window (their
 * bytes in buf): kept, and 1 returned, when a root starts there.
 */
int
pt_roots_keep(uint32_t track, int64_t ts, const struct ptitem *it, size_t n,
    const char *buf)
{
	struct stack *st = stackof(track, 0);
	struct root *r;
	size_t i;

	if (st == NULL || (r = find(st, ts)) == NULL)
		return 0;
	for (i = 0; i < n; i++)
		keep(r, &it[i], buf + it[i].off);
	return 1;
}

/* A stack let go of, and its buffers: to the pools, or freed. */
static void
dispose(struct stack *st)
{
	size_t i;

	for (i = 0; i < st->half; i++) {
		recycle(&st->bot[i].items);
		recycle(&st->bot[i].bytes);
		recycle(&st->ring[i].items);
		recycle(&st->ring[i].bytes);
	}
	if (nspool < SPOOL) {
		spool[nspool++] = st;
		return;
	}
	free(st->bot);
	free(st->ring);
	free(st);
}

/*
 * Pack the stack of a track: its numbers, then the starts written (a
 * mask of the slots, then each time from the one before), the roots
 * that left, and the roots, each with its items (arrival, -dur, kind
 * and length) and their bytes, but those it starts with alike with the
 * packet before: most of a track's are alike up to their args.  The
 * ring starts at 0 when thawed.
 */
static void
freeze(uint32_t track)
{
	struct stack *st = stacks[track];
	const struct ptitem *it;
	struct root *r;
	const char *prev = NULL, *q;
	uint64_t mask = 0, seq = 0;
	int64_t last = 0;
	size_t i, j, k, n, prevn = 0;

	packed.n = 0;
	pb_varint(&packed, st->half);
	pb_varint(&packed, st->nbot);
	pb_varint(&packed, st->nring);
	pb_varint(&packed, st->nleft);
	pb_varint(&packed, st->nextleft);
	pb_zigzag(&packed, st->leftmax);
	for (i = 0; i < GONE; i++)
		if (st->gone[i] != INT64_MIN)
			mask |= 1ULL << i;
	pb_varint(&packed, mask);
	for (i = 0; i < GONE; i++)
		if (st->gone[i] != INT64_MIN) {
			pb_zigzag(&packed, st->gone[i] - last);
			last = st->gone[i];
		}
	for (i = 0; i < st->nleft; i++) {
		pb_zigzag(&packed, st->left[i].start - last);
		pb_zigzag(&packed, st->left[i].end - st->left[i].start);
		last = st->left[i].start;
	}
	for (i = 0; i < depth(st); i++) {
		r = at(st, i);
		pb_zigzag(&packed, r->start - last);
		pb_zigzag(&packed, r->end - r->start);
		last = r->start;
		it = (const struct ptitem *)(const void *)r->items.p;
		n = r->items.n / sizeof(*it);
		pb_varint(&packed, n);
		for (j = 0; j < n; j++) {
			pb_zigzag(&packed, (int64_t)(it[j].seq - seq));
			seq = it[j].seq;
			pb_zigzag(&packed, it[j].key);
			pb_varint(&packed, it[j].kind);
			q = r->bytes.p + it[j].off;
			for (k = 0; k < prevn && k < it[j].len &&
			    prev[k] == q[k]; k++)
				;
			pb_varint(&packed, it[j].len);
			pb_varint(&packed, k);
			lt_buf_add(&packed, q + k, it[j].len - k);
			prev = q;
			prevn = it[j].len;
		}
	}
	lt_cold_put(PT_COLDSTACK, track, packed.p, packed.n);
	dispose(st);
	stacks[track] = NULL;
}

/* The stack of a track, unpacked to be used. */
static void
thaw(uint32_t track)
{
	char *cold;
	const char *p;
	struct stack *st;
	struct ptitem x;
	struct root *r;
	struct ltbuf t;
	uint64_t mask, seq = 0;
	int64_t last = 0;
	size_t i, j, k, n;

	p = cold = lt_cold_take(PT_COLDSTACK, track, NULL);
	st = newstack(pb_takevarint(&p));
	st->nbot = pb_takevarint(&p);
	st->nring = pb_takevarint(&p);
	st->nleft = (unsigned)pb_takevarint(&p);
	st->nextleft = (unsigned)pb_takevarint(&p);
	st->leftmax = pb_takezigzag(&p);
	mask = pb_takevarint(&p);
	for (i = 0; i < GONE; i++)
		if (mask >> i & 1) {
			st->gone[i] = last + pb_takezigzag(&p);
			last = st->gone[i];
		} else
			st->gone[i] = INT64_MIN;
	for (i = 0; i < st->nleft; i++) {
		st->left[i].start = last + pb_takezigzag(&p);
		st->left[i].end = st->left[i].start + pb_takezigzag(&p);
		last = st->left[i].start;
	}
	for (i = 0; i < depth(st); i++) {
		r = at(st, i);
		r->start = last + pb_takezigzag(&p);
		r->end = r->start + pb_takezigzag(&p);
		if (i == 0 || r->end > st->maxend)
			st->maxend = r->end;
		last = r->start;
		n = pb_takevarint(&p);
		for (j = 0; j < n; j++) {
			memset(&x, 0, sizeof(x));
			x.seq = seq += (uint64_t)pb_takezigzag(&p);
			x.key = pb_takezigzag(&p);
			x.kind = (uint8_t)pb_takevarint(&p);
			x.len = (uint32_t)pb_takevarint(&p);
			x.track = track;
			k = pb_takevarint(&p);
			pk[1].n = 0;
			lt_buf_add(&pk[1], pk[0].p, k);
			lt_buf_add(&pk[1], p, x.len - k);
			p += x.len - k;
			keep(r, &x, pk[1].p);
			t = pk[0];
			pk[0] = pk[1];
			pk[1] = t;
		}
	}
	free(cold);
	stacks[track] = st;
}

/*
 * Every so many events: the stacks that nothing used since the last
 * time are packed.
 */
void
pt_roots_sweep(void)
{
	size_t t;

	for (t = 0; t < nstacks; t++)
		if (stacks[t] != NULL && !stacks[t]->used)
			freeze((uint32_t)t);
		else if (stacks[t] != NULL)
			stacks[t]->used = 0;
}

/*
 * Let every root go, the oldest first: their packets then come in
 * order of time (window.c writes times as deltas).  Nothing comes to
 * the roots meanwhile.
 */
void
pt_roots_flush(void)
{
	struct stack *st;
	struct root *r;
	size_t t, i;

	for (t = 0; t < nstacks; t++) {
		if ((st = stacks[t]) == NULL && (st = stackof((uint32_t)t,
		    0)) != NULL)
			st->used = 0;	/* thawed: packed again below */
		if (st == NULL)
			continue;
		for (i = 0; i < depth(st); i++) {
			r = at(st, i);
			detach(r);
			release((uint32_t)t, st, r->start);
		}
		st->nbot = st->nring = st->head = 0;
		if (!st->used)
			freeze((uint32_t)t);
	}
}

/* The X slices of a track at ts were written (by the window). */
void
pt_roots_gone(uint32_t track, int64_t ts)
{
	struct stack *st = stackof(track, 0);

	if (st != NULL)
		st->gone[GONESLOT(ts)] = ts;
}

void
pt_roots_budget(size_t events)
{
	budget = events;
}

long long
pt_roots_lost(void)
{
	return lost;
}

void
pt_roots_free(void)
{
	struct stack *st;
	size_t t;

	for (t = 0; t < nstacks; t++)
		if ((st = stacks[t]) != NULL)
			dispose(st);
	while (nspool > 0) {
		st = spool[--nspool];
		free(st->bot);
		free(st->ring);
		free(st);
	}
	while (nbpool > 0)
		lt_buf_free(&bpool[--nbpool]);
	lt_cold_free();
	lt_buf_free(&packed);
	lt_buf_free(&pk[0]);
	lt_buf_free(&pk[1]);
	free(stacks);
	stacks = NULL;
	nstacks = capstacks = ntracks = 0;
	lost = 0;
	lt_buf_free(&sitems);
	lt_buf_free(&sbytes);
}
