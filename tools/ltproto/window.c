/* See LICENSE file for copyright and license details. */
/*
 * window.c: the output of ltproto, and the order of the events of one
 * time.
 *
 * Perfetto sorts packets by timestamp and keeps the file order of those
 * with equal timestamps; a slice end or begin then closes or opens what
 * its place in that order says.  Its JSON importer orders such events
 * itself (the ends first, then X slices longest first, then the rest in
 * file order).  So that the .pftrace nests as the JSON does, packets of
 * slices, instants and flows are held here in a window of the last
 * events, in groups of one time and track; a group is written, in that
 * order, when its first packet leaves the window, the others of its
 * time coming along.  X begins are held by roots.c, which gets the
 * groups of their time and track when these leave the window; an X end
 * that finds no group of its time goes out ahead of them (see pend
 * below, which holds it until its sequence gets that far).  A window of W
 * events orders any stream where events of one time are fewer than W
 * events apart; memory is that of the window, whatever the length of
 * the stream.
 *
 * The order within a group: E records, then X ends, then X begins
 * longest first, then the rest in file order (an X slice of no duration
 * is an instant, and among them).  In a group with no X begin, the file
 * order stands and X ends come just before its first slice or instant,
 * as Perfetto's JSON importer closes X slices only when another one
 * starts (a flow event at the very end of an X slice binds to it).
 */
#include <stdlib.h>
#include <unistd.h>

#include "ltproto.h"

#define NIL	0		/* no entry: seqs start at 1 */
#ifndef SWEEP
#define SWEEP	16384		/* events between sweeps: a power of 2 */
#endif
#define TRIM	(32 * SWEEP)	/* ... and between lt_trim()s */

struct ent {
	int64_t		 ts;
	int64_t		 key;		/* -dur of an X begin */
	uint64_t	 order;		/* of arrival, as struct ptitem's seq */
	uint64_t	 next;		/* seq of the next of its group */
	uint64_t	 last;		/* ... of the last, in its first */
	size_t		 off;		/* packet bytes in buf */
	uint32_t	 len;
	uint32_t	 track;
	uint32_t	 h;		/* hash(ts, track), for release */
	uint8_t		 kind;
	uint8_t		 first;		/* of its group */
	uint8_t		 gone;		/* its group left the window */
};

static struct ltout	 out;
static struct ent	*ents;
static size_t		 cap;		/* entries */
static uint64_t		 head = 1, tail = 1;	/* seqs: next, oldest */
static char		*buf;
static size_t		 bufcap, wpos;
/*
 * The groups, by ts and track, open addressing: a slot is the hash of
 * their key and the place of their first entry, whose time and track
 * tell one hash from another.  Eight bytes, not the 32 of the key and
 * seqs, so that the table, read at random for every packet, takes a
 * fourth of the memory and of the cache.
 */
static struct group {
	uint32_t	 h;
	uint32_t	 e;		/* index in ents of its first + 1, */
}			*groups;	/*   0: an empty slot */
static size_t		 gcap;
static struct ptitem	*items;
static size_t		 capitems;
static uint64_t		 arrivals;

#define ENT(s)	(&ents[(s) % cap])

void
pt_out_open(int fd, const char *name, size_t events)
{
	lt_out_init(&out, fd, name);
	cap = events > 0 ? events : 1;
	ents = lt_calloc(cap, sizeof(*ents));
	bufcap = cap * 64;
	buf = lt_malloc(bufcap);
	/*
	 * A fourth of the slots in use at most: linear probing's runs,
	 * which every lookup and every delete (unslot) walks, stay short:
	 * at a half, a delete mispredicted two branches on average, at a
	 * fourth one (cachegrind), for 16 bytes more per event held.
	 */
	for (gcap = 64; gcap < 4 * cap; gcap *= 2)
		;
	groups = lt_calloc(gcap, sizeof(*groups));
}

/*
 * The output.  A held packet is a TracePacket's fields after its time,
 * its sequence first (pt_seq_fields()), and is written with its time
 * as a delta: each sequence's default clock, CLOCK_DELTA, is
 * incremental (intern.c), so a time is the time since the last packet
 * of the sequence written so, in 2 or 3 bytes where the time since the
 * start takes 5 or 6.  A packet earlier than that gives its time since
 * the start on CLOCK_FROM, one before the start on CLOCK_BOOTTIME.  So
 * that a sequence's packets come in order of time, an X end that
 * nothing of its time waits for is not written at once but waits, in
 * its sequence's list (pend), for the first packet of the sequence at
 * its time or later, and goes just before it: where it would have
 * gone, among the packets of its time and track, since ends come
 * first.  Packets of other sequences, on other tracks, may come
 * between.  A sequence keeps at most PENDCAP ends, the earliest going
 * first beyond.  The roots (roots.c) let go of their oldest first, for
 * the same reason.
 *
 * A sequence not used for a sweep goes to cold.c, packed: its clock
 * and its ends, and its slot is let go of; it comes back as it was when
 * a packet of it comes.  A stream has a sequence for every thread it
 * ever had, and most are gone.  The ends of a sequence in use may go
 * too, at the end of the stream: those of a thread gone wait so for the
 * end, where its roots are written (pt_flush) and bring them back; then
 * what a packet leaves, REFREEZE ends or fewer, goes back when a packet
 * of another sequence is written (warm), and comes back when a packet
 * of the sequence comes at the time of the first or later.  The roots
 * of a thread are written one after another, each packet a few ends
 * on: packing and unpacking its ends for each would cost more than
 * all the rest of the end.
 */
#define PENDMAX		24	/* bytes of an X end that waits: */
				/*   they have 21 at most */
#define PENDCAP		4096
#define REFREEZE	64

struct pend {
	int64_t		 ts;
	uint32_t	 track;
	uint8_t		 len;
	char		 p[PENDMAX];
};

static struct seqout {
	uint64_t	 last;		/* of CLOCK_DELTA */
	struct pend	*e;		/* e[lo..n), in order of time: */
	uint32_t	 lo, n, cap;	/*   most come after the others */
	unsigned char	 live;		/* the slot is a sequence's */
	unsigned char	 used;		/* since the last pt_out_sweep() */
	unsigned char	 cold;		/* its ends are in cold.c, */
	int64_t		 coldts;	/* ... the first at this time */
}			*seqout;	/* by slot */
static size_t		 nseqout, capseqout;	/* made, room for */
static struct ltslots	 seqslots;	/* sequence id -> slot */
static uint32_t		 maxseq;	/* the largest id met */
static int64_t		 base;		/* BOOTTIME ns where our clocks start */
static struct ltbuf	 took;		/* ends unwait() takes */
static struct ltbuf	 packed;	/* what pack() packs */
static int		 ending;	/* pt_flush() writes what is held */
static uint32_t		 warm = LT_NOSLOT;	/* the slot last written */
				/*   then, its ends kept out of cold.c */

/* Times count from t0 (0 or more), given before the first packet. */
void
pt_out_base(int64_t t0)
{
	base = t0;
}

int64_t
pt_out_t0(void)
{
	return base;
}

/* A sequence's array of ends freed, none left. */
static void
drop(struct seqout *so)
{
	free(so->e);
	so->e = NULL;
	so->lo = so->n = so->cap = 0;
}

/* The clock and the ends of a sequence to cold.c; its array freed. */
static void
pack(struct seqout *so)
{
	const struct pend *e;
	uint64_t last = 0;

	packed.n = 0;
	pb_varint(&packed, so->last);
	pb_varint(&packed, so->n - so->lo);
	for (e = so->e + so->lo; e < so->e + so->n; e++) {
		pb_zigzag(&packed, (int64_t)((uint64_t)e->ts - last));
		last = (uint64_t)e->ts;
		pb_varint(&packed, e->track);
		pb_varint(&packed, e->len);
		lt_buf_add(&packed, e->p, e->len);
	}
	lt_cold_put(PT_COLDEND, seqslots.key[so - seqout], packed.p,
	    packed.n);
	drop(so);
}

/* The ends of a sequence in use, if it has any, to cold.c. */
static void
freeze(struct seqout *so)
{
	if (so->lo < so->n) {
		so->cold = 1;
		so->coldts = so->e[so->lo].ts;
		pack(so);
	} else
		drop(so);
}

/*
 * The ends of sequence id, out of cold.c, and its clock when it comes
 * back (a clock packed with ends in use is an old one).
 */
static void
thaw(struct seqout *so, uint32_t id, int back)
{
	char *cold;
	const char *p;
	struct pend *e;
	uint64_t last;
	size_t i, n;

	p = cold = lt_cold_take(PT_COLDEND, id, NULL);
	last = pb_takevarint(&p);
	if (back)
		so->last = last;
	last = 0;
	n = (size_t)pb_takevarint(&p);
	so->e = n > 0 ? lt_reallocarray(NULL, n, sizeof(*so->e)) : NULL;
	for (i = 0; i < n; i++) {
		e = &so->e[i];
		last += (uint64_t)pb_takezigzag(&p);	/* mod 2^64 */
		e->ts = (int64_t)last;
		e->track = (uint32_t)pb_takevarint(&p);
		e->len = (uint8_t)pb_takevarint(&p);
		memcpy(e->p, p, e->len);
		p += e->len;
	}
	free(cold);
	so->lo = 0;
	so->n = so->cap = (uint32_t)n;
	so->cold = 0;
}

/* The sequence in slot k goes to cold.c, as it is; the slot is free. */
static void
bury(uint32_t k)
{
	struct seqout *so = &seqout[k];

	if (so->cold)
		thaw(so, seqslots.key[k], 0);
	if (so->last != 0 || so->lo < so->n)
		pack(so);
	else
		drop(so);
	so->live = 0;
	lt_slot_del(&seqslots, k);
}

/*
 * Sequence id's output, used, its ends thawed if one is at ts or
 * before: those left in cold.c are all later.
 */
static struct seqout *
seqat(size_t id, int64_t ts)
{
	struct seqout *so;
	uint32_t k;
	int isnew;

	if ((k = lt_slot_get(&seqslots, (uint32_t)id)) == LT_NOSLOT) {
		k = lt_slot_add(&seqslots, (uint32_t)id, &isnew);
		seqout = lt_grow_zero(seqout, &capseqout, &nseqout,
		    (size_t)k + 1, sizeof(*seqout));
		so = &seqout[k];
		memset(so, 0, sizeof(*so));
		so->live = 1;
		if (id > maxseq)
			maxseq = (uint32_t)id;
		if (lt_cold_has(PT_COLDEND, (uint32_t)id))
			thaw(so, (uint32_t)id, 1);
	}
	so = &seqout[k];
	if (so->cold && so->coldts <= ts)
		thaw(so, (uint32_t)id, 0);
	so->used = 1;
	return so;
}

/*
 * The sequence of a held packet of time ts: its first field
 * (pt_seq_fields()).
 */
static struct seqout *
seqof(const char *p, size_t n, int64_t ts)
{
	const unsigned char *q = (const unsigned char *)p;
	size_t id = 0, i;

	if (n >= 2 && q[1] < 0x80)	/* an id below 128 */
		return seqat(q[1], ts);
	for (i = 1; i < 6 && i < n; i++) {
		id |= (size_t)(q[i] & 0x7f) << (7 * (i - 1));
		if (q[i] < 0x80)
			break;
	}
	return seqat(id, ts);
}

/* A held packet p[0..n) at ts, out, its time as a delta where it can be. */
static void
frame(struct seqout *so, int64_t ts, const char *p, size_t n)
{
	char f[3 + 2 * PB_VARINT_MAX], *w = f, *o;
	uint64_t t = (uint64_t)(ts - base), clock = 0;
	size_t need = 1 + PB_VARINT_MAX + sizeof(f) + n;

	*w++ = PKT_TIMESTAMP << 3 | PB_VARINT;
	if (ts >= base && t >= so->last) {
		w = pb_putvarint(w, t - so->last);
		so->last = t;
	} else if (ts >= base) {
		w = pb_putvarint(w, t);
		clock = CLOCK_FROM;
	} else {
		w = pb_putvarint(w, (uint64_t)ts);
		clock = CLOCK_BOOTTIME;
	}
	if (clock != 0) {
		w = pb_putvarint(w, PKT_CLOCK_ID << 3 | PB_VARINT);
		w = pb_putvarint(w, clock);
	}
	o = out.cap - out.n >= need ? out.buf + out.n : lt_out_room(&out, need);
	o[0] = TRACE_PACKET << 3 | PB_LEN;
	o = pb_putvarint(o + 1, (uint64_t)(w - f) + n);
	/*
	 * All of f, a copy of a constant size and no call: need has room
	 * for it, and p's bytes overwrite the rest, or it lies past the
	 * end of the output.
	 */
	memcpy(o, f, sizeof(f));
	memcpy(o + (w - f), p, n);
	out.n = (size_t)(o + (w - f) + n - out.buf);
}

/*
 * At the end: the ends of the sequence written last go back to cold.c,
 * if they are REFREEZE or fewer (those left of a thread gone).
 */
static void
cool(void)
{
	struct seqout *so = &seqout[warm];

	warm = LT_NOSLOT;
	if (so->live && !so->cold && so->lo < so->n &&
	    so->n - so->lo <= REFREEZE)
		freeze(so);
}

/* The next X end of a sequence, out. */
static void
unpend(struct seqout *so)
{
	struct pend *e = &so->e[so->lo++];

	frame(so, e->ts, e->p, e->len);
	if (so->lo == so->n)
		so->lo = so->n = 0;
}

/*
 * A held packet p[0..n) of a track and kind at ts, out, after the X
 * ends it comes after: those of its time or before, but for a flow
 * those of its own track at its time, which it comes before.  Perfetto's
 * JSON importer closes an X slice only when another slice on its track
 * starts, so a flow at the very end of an X binds to it, where the
 * protobuf importer would have closed it (flow-at-slice-end.json).  The
 * end goes out before the next packet of its sequence that is not such
 * a flow.
 */
void
pt_put_at(int64_t ts, uint32_t track, int kind, const char *p, size_t n)
{
	struct seqout *so = seqof(p, n, ts);
	const struct pend *e;

	while (so->lo < so->n && (e = &so->e[so->lo])->ts <= ts) {
		if (kind == PT_KFLOW && e->ts == ts && e->track == track)
			break;
		unpend(so);
	}
	frame(so, ts, p, n);
	if (ending) {
		if (warm != LT_NOSLOT && &seqout[warm] != so)
			cool();
		if (so->lo < so->n && so->n - so->lo <= REFREEZE)
			warm = (uint32_t)(so - seqout);
	}
}

/* An X end of a track that waits for its time on its sequence. */
static void
pend(int64_t ts, uint32_t track, const char *p, size_t n)
{
	struct seqout *so;
	size_t i, room;

	if (n > PENDMAX) {
		pt_put_at(ts, track, PT_KXEND, p, n);
		return;
	}
	so = seqof(p, n, INT64_MAX);
	if (so->n - so->lo == PENDCAP)
		unpend(so);
	if (so->n == so->cap) {
		if (so->lo > 0) {
			memmove(so->e, so->e + so->lo, (so->n - so->lo) *
			    sizeof(*so->e));
			so->n -= so->lo;
			so->lo = 0;
		} else {
			room = so->cap;
			so->e = lt_grow(so->e, &room, so->n + 1,
			    sizeof(*so->e));
			so->cap = (uint32_t)room;	/* 2 PENDCAP at most */
		}
	}
	for (i = so->n; i > so->lo && so->e[i - 1].ts > ts; i--)
		;
	if (i < so->n)	/* most come last: no call to move nothing */
		memmove(so->e + i + 1, so->e + i, (so->n - i) *
		    sizeof(*so->e));
	so->e[i].ts = ts;
	so->e[i].track = track;
	so->e[i].len = (uint8_t)n;
	memcpy(so->e[i].p, p, n);
	so->n++;
}

/* The X ends waiting on sequence id, all out. */
static struct seqout *
drain(uint32_t id)
{
	struct seqout *so = seqat(id, INT64_MAX);

	while (so->lo < so->n)
		unpend(so);
	drop(so);
	return so;
}

/* The X ends waiting on sequence id, if it has any. */
void
pt_out_drain(uint32_t id)
{
	if (lt_slot_get(&seqslots, id) != LT_NOSLOT ||
	    lt_cold_has(PT_COLDEND, id))
		drain(id);
}

/*
 * Every so many events: the sequences not used since the last time go
 * to cold.c, packed.  Most of a stream's sequences are those of threads
 * gone, whose last ends wait for the end of the stream.
 */
void
pt_out_sweep(void)
{
	struct seqout *so;
	size_t k;

	for (k = 0; k < nseqout; k++) {
		so = &seqout[k];
		if (!so->live)
			continue;
		if (so->used)
			so->used = 0;
		else
			bury((uint32_t)k);
	}
	if (packed.cap > 4096)
		lt_buf_free(&packed);
}

/*
 * Every X end waiting, by sequence: a sequence in cold.c comes back
 * for it, and goes again.
 */
static void
unpendall(void)
{
	struct seqout *so;
	uint32_t id;
	int gone;

	for (id = 0; id <= maxseq; id++) {
		gone = lt_slot_get(&seqslots, id) == LT_NOSLOT;
		if (gone && !lt_cold_has(PT_COLDEND, id))
			continue;
		so = drain(id);
		if (gone)
			bury((uint32_t)(so - seqout));
	}
}

/* Sequence id starts again, with a snapshot of its clocks at 0. */
void
pt_out_restart(uint32_t id)
{
	seqat(id, INT64_MIN)->last = 0;
}

/* A whole packet, without a time: written at once. */
void
pt_put(const char *p, size_t n)
{
	lt_out_write(&out, p, n);
}

static uint32_t
hash(int64_t ts, uint32_t track)
{
	return (uint32_t)lt_mix((uint64_t)ts ^ (uint64_t)track << 44);
}

/* The first entry of the group in slot i, and the one after e. */
#define FIRST(i)	(&ents[groups[i].e - 1])
#define NEXT(e)		((e)->next != NIL ? ENT((e)->next) : NULL)

/* The slot of a group, of hash h: where it is, or the empty slot for it. */
static size_t
slot(int64_t ts, uint32_t track, uint32_t h)
{
	size_t i;

	for (i = h & (gcap - 1); groups[i].e != 0; i = (i + 1) & (gcap - 1))
		if (groups[i].h == h && FIRST(i)->ts == ts &&
		    FIRST(i)->track == track)
			break;
	return i;
}

/*
 * The tracks with groups held, each in a slot (spanslots) with the
 * number of its groups and bounds of their times: most lookups are for
 * a time outside them, and need not probe.  A track whose groups have
 * all gone lets its slot go: a stream has a track for every thread it
 * ever had, and the window holds a few of them at a time.
 */
static struct span {
	size_t		 n;
	int64_t		 lo, hi;
}			*spans;		/* by slot */
static size_t		 nspans, capspans;	/* made, room for */
static struct ltslots	 spanslots;	/* track uuid -> slot */

/* May the group of a track at ts be held? */
static int
maybe(int64_t ts, uint32_t track)
{
	uint32_t i = lt_slot_get(&spanslots, track);

	return i != LT_NOSLOT && ts >= spans[i].lo && ts <= spans[i].hi;
}

/* A new group of a track at ts, of hash h: in slot i. */
static void
inslot(size_t i, int64_t ts, uint32_t track, uint32_t h)
{
	struct span *sp;
	uint32_t k;
	int isnew;

	/*
	 * Most tracks have a group held already: their slot is found
	 * inline (lt_slot_get), without the calls of a new one.
	 */
	if ((k = lt_slot_get(&spanslots, track)) == LT_NOSLOT) {
		k = lt_slot_add(&spanslots, track, &isnew);
		spans = lt_grow_zero(spans, &capspans, &nspans,
		    (size_t)k + 1, sizeof(*spans));
		spans[k].n = 0;	/* a slot let go of has its last track's */
	}
	sp = &spans[k];
	if (sp->n++ == 0)
		sp->lo = sp->hi = ts;
	else if (ts < sp->lo)
		sp->lo = ts;
	else if (ts > sp->hi)
		sp->hi = ts;
	groups[i].h = h;
}

/*
 * The group of a track in slot i goes.  Linear probing: deleting moves
 * up the entries that probed past i.
 */
static void
unslot(size_t i, uint32_t track)
{
	size_t j = i, h;
	uint32_t k = lt_slot_get(&spanslots, track);

	if (--spans[k].n == 0)
		lt_slot_del(&spanslots, k);
	groups[i].e = 0;
	for (;;) {
		j = (j + 1) & (gcap - 1);
		if (groups[j].e == 0)
			return;
		h = groups[j].h & (gcap - 1);
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			groups[i] = groups[j];
			groups[j].e = 0;
			i = j;
		}
	}
}

static int
byorder(const void *a, const void *b)
{
	const struct ptitem *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub - y->sub;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Give the items of one track and time, it[0..n), their places. */
static void
place(struct ptitem *it, size_t n)
{
	uint64_t first = UINT64_MAX;
	size_t i;
	int hasx = 0;

	for (i = 0; i < n; i++) {
		if (it[i].kind == PT_KXBEGIN)
			hasx = 1;
		if (it[i].kind == PT_KPUSH && it[i].seq < first)
			first = it[i].seq;
	}
	for (i = 0; i < n; i++) {
		it[i].rank = 3;
		it[i].pos = it[i].seq;
		it[i].sub = 1;
		if (hasx) {
			switch (it[i].kind) {
			case PT_KE:
				it[i].rank = 0;
				break;
			case PT_KXEND:
				it[i].rank = 1;
				break;
			case PT_KXBEGIN:
				it[i].rank = 2;
				break;
			}
		} else if (it[i].kind == PT_KXEND) {
			it[i].pos = first;
			it[i].sub = 0;
		}
	}
}

/* Sort the items of one time and track into their order. */
void
pt_order(struct ptitem *it, size_t n)
{
	if (n < 2)
		return;
	place(it, n);
	qsort(it, n, sizeof(*it), byorder);
}

/*
 * Write the group of a track at ts, of hash h (that of its first
 * entry, not made again), in its order, or give it to the root that
 * starts there (roots.c).
 */
static void
release(int64_t ts, uint32_t track, uint32_t h)
{
	size_t g = slot(ts, track, h), n = 0, i;
	struct ent *e;

	if (groups[g].e == 0)
		return;
	for (e = FIRST(g); e != NULL; e = NEXT(e)) {
		e->gone = 1;
		if (e->kind == PT_KDEAD)
			continue;
		if (n == capitems)
			items = lt_grow(items, &capitems, n + 1,
			    sizeof(*items));
		items[n].seq = e->order;
		items[n].track = track;
		items[n].kind = e->kind;
		items[n].key = e->key;
		items[n].off = e->off;
		items[n].len = e->len;
		n++;
	}
	unslot(g, track);
	if (!pt_roots_keep(track, ts, items, n, buf)) {
		pt_order(items, n);
		for (i = 0; i < n; i++) {
			if (items[i].kind == PT_KXBEGIN)
				pt_roots_gone(track, ts);
			pt_put_at(ts, track, items[i].kind,
			    buf + items[i].off, items[i].len);
		}
	}
}

/*
 * Take the packets of a track at ts out of the window, for roots.c,
 * appended to items and bytes.
 */
void
pt_take(int64_t ts, uint32_t track, struct ltbuf *it, struct ltbuf *bytes)
{
	struct ptitem x;
	struct ent *e;
	size_t g;

	if (!maybe(ts, track) || groups[g = slot(ts, track,
	    hash(ts, track))].e == 0)
		return;
	FIRST(g)->first = 0;
	for (e = FIRST(g); e != NULL; e = NEXT(e)) {
		e->gone = 1;
		if (e->kind == PT_KDEAD)
			continue;
		memset(&x, 0, sizeof(x));
		x.seq = e->order;
		x.track = track;
		x.kind = e->kind;
		x.key = e->key;
		x.off = bytes->n;
		x.len = e->len;
		lt_buf_add(bytes, buf + e->off, e->len);
		lt_buf_add(it, &x, sizeof(x));
	}
	unslot(g, track);
}

/* The oldest entry leaves the window, and its group with it. */
static void
evict(void)
{
	if (ENT(tail)->first)
		release(ENT(tail)->ts, ENT(tail)->track, ENT(tail)->h);
	tail++;
}

/* Room for n bytes in buf, as one piece. */
static size_t
alloc(size_t n)
{
	size_t t;

	for (;;) {
		if (head == tail) {
			wpos = 0;
			if (n > bufcap) {
				free(buf);
				bufcap = n;
				buf = lt_malloc(bufcap);
			}
			break;
		}
		t = ENT(tail)->off;
		if (wpos >= t) {
			if (n <= bufcap - wpos)
				break;
			if (n < t) {
				wpos = 0;
				break;
			}
		} else if (wpos + n < t)
			break;
		evict();
	}
	wpos += n;
	return wpos - n;
}

/* A packet into the window, in the group of its time. */
static void
enter(int64_t ts, uint32_t track, int kind, int64_t key, uint64_t order,
    const char *p, size_t n)
{
	struct ent *e, *f;
	uint32_t h;
	size_t g;

	if (head - tail == cap)
		evict();
	g = alloc(n);
	e = ENT(head);
	e->ts = ts;
	e->key = key;
	e->order = order;
	e->next = NIL;
	e->off = g;
	e->len = (uint32_t)n;
	e->track = track;
	e->kind = (uint8_t)kind;
	e->gone = 0;
	memcpy(buf + g, p, n);
	g = slot(ts, track, h = hash(ts, track));
	e->h = h;
	e->first = groups[g].e == 0;
	if (e->first) {
		inslot(g, ts, track, h);
		groups[g].e = (uint32_t)(head % cap) + 1;
		e->last = head;
	} else {
		f = FIRST(g);
		ENT(f->last)->next = head;
		f->last = head;
	}
	head++;
}

/*
 * The X ends of a track at ts that wait on the sequence of packet
 * p[0..n), a flow of that time and track just held: into its group,
 * which orders them after it (place), where they cannot be written
 * ahead of it by a packet of a later time.
 */
static void
unwait(int64_t ts, uint32_t track, const char *p, size_t n)
{
	struct seqout *so = seqof(p, n, ts);
	const struct pend *e;
	size_t i;

	took.n = 0;
	for (i = so->n; i > so->lo && so->e[i - 1].ts >= ts;) {
		i--;
		if (so->e[i].ts != ts || so->e[i].track != track)
			continue;
		lt_buf_add(&took, &so->e[i], sizeof(so->e[i]));
		memmove(so->e + i, so->e + i + 1, (so->n - i - 1) *
		    sizeof(*so->e));
		so->n--;
	}
	if (so->lo == so->n)
		so->lo = so->n = 0;
	/* entering may let groups go, and unpend: so after */
	for (i = 0; i + sizeof(*e) <= took.n; i += sizeof(*e)) {
		e = (const struct pend *)(const void *)(took.p + i);
		enter(ts, track, PT_KXEND, 0, arrivals, e->p, e->len);
	}
}

/*
 * Hold the packet p[0..n) of an event at ts on a track, of a kind
 * (PT_K*) and, for an X begin, its duration.  X begins go to roots.c;
 * an X end goes out ahead (pend) when nothing of its time is held
 * here, since ends come first (roots.c gives back to the window what it
 * cannot be sure of).  *h is what pt_unhold() takes.
 */
void
pt_hold(int64_t ts, uint32_t track, int kind, int64_t dur, const char *p,
    size_t n, struct pthandle *h)
{
	struct ptitem x;

	h->pos = h->order = 0;

	if (n > UINT32_MAX)
		lt_die(LT_EXIT_DATA, "an event of %zu bytes: too large", n);
	if ((++arrivals & (SWEEP - 1)) == 0) {
		pt_out_sweep();
		pt_roots_sweep();
		/* The roots' buffers come and go, of every size. */
		if ((arrivals & (TRIM - 1)) == 0)
			lt_trim();
	}
	if (kind == PT_KXBEGIN) {
		memset(&x, 0, sizeof(x));
		x.seq = arrivals;
		x.track = track;
		x.kind = (uint8_t)kind;
		x.key = -dur;
		x.len = (uint32_t)n;
		pt_roots_hold(track, ts, ts + dur, &x, p);
		return;
	}
	if (kind == PT_KXEND && (!maybe(ts, track) ||
	    groups[slot(ts, track, hash(ts, track))].e == 0)) {
		pend(ts, track, p, n);
		return;
	}
	enter(ts, track, kind, -dur, arrivals, p, n);
	h->pos = head - 1;
	h->order = arrivals;
	if (kind == PT_KFLOW)
		unwait(ts, track, p, n);
}

/*
 * The packet that pt_hold() gave h for is not written after all, if it
 * is still held here; returns 1 then.
 */
int
pt_unhold(const struct pthandle *h)
{
	struct ent *e;

	if (h->pos < tail || h->pos >= head)
		return 0;
	e = ENT(h->pos);
	if (e->order != h->order || e->gone)
		return 0;
	e->kind = PT_KDEAD;
	return 1;
}

/* A packet roots.c held, back into the window (its bytes at p). */
void
pt_rehold(int64_t ts, const struct ptitem *it, const char *p)
{
	enter(ts, it->track, it->kind, it->key, it->seq, p, it->len);
}

/* Write everything held. */
void
pt_flush(void)
{
	ending = 1;
	pt_roots_flush();
	while (head != tail)
		evict();
	unpendall();
}

void
pt_out_close(void)
{
	size_t i;

	pt_flush();
	lt_out_close(&out);
	free(ents);
	free(buf);
	free(groups);
	free(items);
	free(spans);
	lt_slot_free(&spanslots);
	spans = NULL;
	nspans = capspans = 0;
	for (i = 0; i < nseqout; i++)
		free(seqout[i].e);
	lt_buf_free(&took);
	lt_buf_free(&packed);
	free(seqout);
	lt_slot_free(&seqslots);
	seqout = NULL;
	nseqout = capseqout = 0;
	maxseq = 0;
	ending = 0;
	warm = LT_NOSLOT;
	base = 0;
	ents = NULL;
	buf = NULL;
	groups = NULL;
	items = NULL;
	capitems = 0;
	head = tail = 1;
	wpos = 0;
	arrivals = 0;
}
