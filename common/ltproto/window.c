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
 * that finds no group of its time is written at once.  A window of W
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

struct ent {
	int64_t		 ts;
	int64_t		 key;		/* -dur of an X begin */
	uint64_t	 order;		/* of arrival, as struct ptitem's seq */
	uint64_t	 next;		/* seq of the next of its group */
	size_t		 off;		/* packet bytes in buf */
	uint32_t	 len;
	uint32_t	 track;
	uint8_t		 kind;
	uint8_t		 first;		/* of its group */
};

static struct ltout	 out;
static struct ent	*ents;
static size_t		 cap;		/* entries */
static uint64_t		 head = 1, tail = 1;	/* seqs: next, oldest */
static char		*buf;
static size_t		 bufcap, wpos;
static struct group {
	int64_t		 ts;
	uint32_t	 track;
	uint64_t	 head, last;	/* seqs of its first and last */
}			*groups;	/* by ts and track, open addressing */
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
	for (gcap = 64; gcap < 2 * cap; gcap *= 2)
		;
	groups = lt_calloc(gcap, sizeof(*groups));
}

void
pt_put(const char *p, size_t n)
{
	lt_out_write(&out, p, n);
}

static size_t
home(int64_t ts, uint32_t track)
{
	return lt_mix((uint64_t)ts ^ (uint64_t)track << 44) & (gcap - 1);
}

/* The slot of a group: where it is, or the empty slot for it. */
static size_t
slot(int64_t ts, uint32_t track)
{
	size_t i;

	for (i = home(ts, track); groups[i].head != NIL &&
	    (groups[i].ts != ts || groups[i].track != track);
	    i = (i + 1) & (gcap - 1))
		;
	return i;
}

/* Linear probing: deleting moves up the entries that probed past i. */
static void
unslot(size_t i)
{
	size_t j = i, h;

	groups[i].head = NIL;
	for (;;) {
		j = (j + 1) & (gcap - 1);
		if (groups[j].head == NIL)
			return;
		h = home(groups[j].ts, groups[j].track);
		if ((j > i && (h <= i || h > j)) ||
		    (j < i && (h <= i && h > j))) {
			groups[i] = groups[j];
			groups[j].head = NIL;
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
 * Write the group of a track at ts in its order, or give it to the
 * root that starts there (roots.c).
 */
static void
release(int64_t ts, uint32_t track)
{
	size_t g = slot(ts, track), n = 0, i;
	uint64_t s;

	if (groups[g].head == NIL)
		return;
	for (s = groups[g].head; s != NIL; s = ENT(s)->next) {
		items = lt_grow(items, &capitems, n + 1, sizeof(*items));
		items[n].seq = ENT(s)->order;
		items[n].track = track;
		items[n].kind = ENT(s)->kind;
		items[n].key = ENT(s)->key;
		items[n].off = ENT(s)->off;
		items[n].len = ENT(s)->len;
		n++;
	}
	unslot(g);
	if (!pt_roots_keep(track, ts, items, n, buf)) {
		pt_order(items, n);
		for (i = 0; i < n; i++)
			lt_out_write(&out, buf + items[i].off, items[i].len);
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
	size_t g = slot(ts, track);
	uint64_t s;

	if (groups[g].head == NIL)
		return;
	ENT(groups[g].head)->first = 0;
	for (s = groups[g].head; s != NIL; s = e->next) {
		e = ENT(s);
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
	unslot(g);
}

/* The oldest entry leaves the window, and its group with it. */
static void
evict(void)
{
	if (ENT(tail)->first)
		release(ENT(tail)->ts, ENT(tail)->track);
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
	struct ent *e;
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
	memcpy(buf + g, p, n);
	g = slot(ts, track);
	e->first = groups[g].head == NIL;
	if (e->first) {
		groups[g].ts = ts;
		groups[g].track = track;
		groups[g].head = head;
	} else
		ENT(groups[g].last)->next = head;
	groups[g].last = head;
	head++;
}

/*
 * Hold the packet p[0..n) of an event at ts on a track, of a kind
 * (PT_K*) and, for an X begin, its duration.  X begins go to roots.c;
 * an X end is written at once when nothing of its time is held here,
 * since ends come first (roots.c gives back to the window what it
 * cannot be sure of).
 */
void
pt_hold(int64_t ts, uint32_t track, int kind, int64_t dur, const char *p,
    size_t n)
{
	struct ptitem x;

	if (n > UINT32_MAX)
		lt_die(LT_EXIT_DATA, "an event of %zu bytes: too large", n);
	arrivals++;
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
	if (kind == PT_KXEND && groups[slot(ts, track)].head == NIL) {
		lt_out_write(&out, p, n);
		return;
	}
	enter(ts, track, kind, -dur, arrivals, p, n);
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
	pt_roots_flush();
	while (head != tail)
		evict();
}

void
pt_out_close(void)
{
	pt_flush();
	lt_out_close(&out);
	free(ents);
	free(buf);
	free(groups);
	free(items);
	ents = NULL;
	buf = NULL;
	groups = NULL;
	items = NULL;
	capitems = 0;
	head = tail = 1;
	wpos = 0;
	arrivals = 0;
}
