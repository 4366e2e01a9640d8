/* See LICENSE file for copyright and license details. */
/*
 * intern.c: the interned strings of ltproto's one packet sequence.
 *
 * Event names, categories, debug annotation names and the string values
 * that repeat (args.c) are written once,
 * in InternedData, and referred to by iid (1, 2, ... per kind).  New
 * entries are gathered while a record is turned into packets and
 * written by pt_intern_put() in a packet of their own, before those
 * packets: held ones (window.c) go out later, so every reference comes
 * after its definition in the file, where Perfetto reads them.
 *
 * Memory is bounded: past the limit of strings, pt_intern_due() says so
 * and the caller (after writing out what it holds) calls
 * pt_intern_reset(), which forgets every string and writes a packet
 * with SEQ_INCREMENTAL_STATE_CLEARED, so the iids start again.  The
 * first packet of the sequence is such a packet too.
 */
#include <stdlib.h>

#include "ltproto.h"

struct memo {
	uint64_t	 gen;		/* reset count + 1 when valid */
	uint64_t	 iid;
	size_t		 n;
	char		 s[40];
};

struct table {
	struct ltmap	 map;		/* hash -> index */
	size_t		*off;		/* index -> string in keys */
	size_t		*len;
	size_t		 n, cap;
	struct memo	 memo[PT_MEMOS];
};

static struct table	 tab[PT_NTAB];
static struct ltbuf	 keys;		/* every string, one after another */
static struct ltbuf	 pending;	/* InternedData entries to write */
static struct ltbuf	 pkt;
static size_t		 limit;
static size_t		 total;
static uint64_t		 gen = 1;
static long long	 resets;
static int64_t		 base;		/* of our clock, in BOOTTIME ns */
static int		 started;

static const uint32_t field[PT_NTAB] = {
	IN_NAMES, IN_CATEGORIES, IN_ANNOTATION_NAMES, IN_STRING_VALUES
};

/* Eight bytes at a time: names are hashed for every record. */
uint64_t
pt_hash(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, p, n);
	return lt_mix(h ^ w);
}

struct key {
	const struct table	*t;
	const char		*p;
	size_t			 n;
};

static int
eq(const void *arg, uint32_t i)
{
	const struct key *k = arg;

	return k->t->len[i] == k->n &&
	    memcmp(keys.p + k->t->off[i], k->p, k->n) == 0;
}

/*
 * The first packet of the sequence, and the first after a reset: it
 * clears the incremental state and sets it up again, the clock of our
 * timestamps with it.  They count from base, so that most take 5 or 6
 * bytes, not 9: clock CLOCK_OURS is base ns behind BOOTTIME, the clock
 * Perfetto puts the trace in (and JSON times), so times stay absolute
 * integer nanoseconds.  A time before base is given in BOOTTIME.
 */
static void
cleared(void)
{
	size_t o, c, k;

	pkt.n = 0;
	o = pb_open(&pkt, TRACE_PACKET);
	pb_uint(&pkt, PKT_SEQ_ID, SEQ_ID);
	pb_uint(&pkt, PKT_FLAGS, SEQ_CLEARED | SEQ_NEEDS_STATE);
	if (resets == 0)
		pb_uint(&pkt, PKT_FIRST_ON_SEQ, 1);
	c = pb_open(&pkt, PKT_CLOCK_SNAPSHOT);
	k = pb_open(&pkt, CS_CLOCK);
	pb_uint(&pkt, CLK_ID, CLOCK_OURS);
	pb_uint(&pkt, CLK_TIMESTAMP, 0);
	pb_close(&pkt, k);
	k = pb_open(&pkt, CS_CLOCK);
	pb_uint(&pkt, CLK_ID, CLOCK_BOOTTIME);
	pb_uint(&pkt, CLK_TIMESTAMP, (uint64_t)base);
	pb_close(&pkt, k);
	pb_close(&pkt, c);
	c = pb_open(&pkt, PKT_DEFAULTS);
	pb_uint(&pkt, PKT_CLOCK_ID, CLOCK_OURS);
	pb_close(&pkt, c);
	pb_close(&pkt, o);
	pt_put(pkt.p, pkt.n);
}

void
pt_intern_init(size_t max)
{
	limit = max;
}

/*
 * Start the sequence, its times counting from base (0 or more), before
 * the first packet that has a time.
 */
void
pt_seq_start(int64_t t0)
{
	if (started)
		return;
	started = 1;
	base = t0;
	cleared();
}

/* The time of the packet being written in b, and its sequence flags. */
void
pt_ts(struct ltbuf *b, int64_t ts)
{
	if (ts >= base)
		pb_uint(b, PKT_TIMESTAMP, (uint64_t)(ts - base));
	else {
		pb_uint(b, PKT_TIMESTAMP, (uint64_t)ts);
		pb_uint(b, PKT_CLOCK_ID, CLOCK_BOOTTIME);
	}
	pb_uint(b, PKT_SEQ_ID, SEQ_ID);
	pb_uint(b, PKT_FLAGS, SEQ_NEEDS_STATE);
}

/*
 * The iid of p[0..n) in table t, interned if new.  A caller that asks
 * for the same strings in the same order each record (the names of its
 * args, one after the other) gives each its own memo slot: a string
 * equal to the last one asked in that slot is answered without a hash.
 */
uint64_t
pt_iid(int t, int slot, const char *p, size_t n)
{
	struct table *tb = &tab[t];
	struct memo *m = &tb->memo[slot];
	struct key k;
	uint32_t *v;
	size_t o;
	int isnew;

	if (m->gen == gen && m->n == n && memcmp(m->s, p, n) == 0)
		return m->iid;
	k.t = tb;
	k.p = p;
	k.n = n;
	v = lt_map_get(&tb->map, pt_hash(p, n), eq, &k, &isnew);
	if (isnew) {
		if (tb->n == tb->cap) {
			tb->off = lt_grow(tb->off, &tb->cap, tb->n + 1,
			    sizeof(*tb->off));
			tb->len = lt_reallocarray(tb->len, tb->cap,
			    sizeof(*tb->len));
		}
		tb->off[tb->n] = keys.n;
		tb->len[tb->n] = n;
		lt_buf_add(&keys, p, n);
		*v = (uint32_t)tb->n++;
		total++;
		o = pb_open(&pending, field[t]);
		pb_uint(&pending, IN_IID, *v + 1);
		pb_bytes(&pending, IN_NAME, p, n);
		pb_close(&pending, o);
	}
	if (n <= sizeof(m->s)) {
		m->gen = gen;
		m->n = n;
		memcpy(m->s, p, n);
		m->iid = *v + 1;
	}
	return *v + 1;
}

/* Has the table grown past its limit? */
int
pt_intern_due(void)
{
	return total > limit;
}

void
pt_intern_put(void)
{
	size_t o, d;

	if (pending.n == 0)
		return;
	pkt.n = 0;
	o = pb_open(&pkt, TRACE_PACKET);
	pb_uint(&pkt, PKT_SEQ_ID, SEQ_ID);
	pb_uint(&pkt, PKT_FLAGS, SEQ_NEEDS_STATE);
	d = pb_open(&pkt, PKT_INTERNED);
	lt_buf_add(&pkt, pending.p, pending.n);
	pb_close(&pkt, d);
	pb_close(&pkt, o);
	pt_put(pkt.p, pkt.n);
	pending.n = 0;
}

static void
clear(void)
{
	int i;

	for (i = 0; i < PT_NTAB; i++) {
		lt_map_free(&tab[i].map);
		free(tab[i].off);
		free(tab[i].len);
		memset(&tab[i], 0, sizeof(tab[i]));
	}
	keys.n = 0;
	pending.n = 0;
	total = 0;
	gen++;
}

/* Forget every string; the caller holds no packet that uses them. */
void
pt_intern_reset(void)
{
	clear();
	resets++;
	cleared();
}

long long
pt_intern_resets(void)
{
	return resets;
}

void
pt_intern_free(void)
{
	clear();
	lt_buf_free(&keys);
	lt_buf_free(&pending);
	lt_buf_free(&pkt);
}
