/* See LICENSE file for copyright and license details. */
/*
 * intern.c: the packet sequences of the trace and their incremental
 * state: interned strings, clock, defaults.
 *
 * Each thread's events are a sequence of their own, whose defaults name
 * its track, so that no event repeats it (but its first few: see
 * pt_thread_seq()); so are each counter's values.
 * Event names, categories, debug annotation names and the string values
 * that repeat (args.c) are interned: each string has one iid (1, 2, ...
 * per kind), and is written in InternedData on a sequence before the
 * first packet of that sequence that uses it.  New entries are gathered
 * while a record is turned into packets and written by pt_intern_put()
 * in a packet of their own, before those packets: held ones (window.c)
 * go out later, so every reference comes after its definition in the
 * file, where Perfetto reads them.
 *
 * Memory is bounded: past the limit of strings, pt_intern_due() says so
 * and the caller (after writing out what it holds) calls
 * pt_intern_reset(), which forgets every string; each sequence then
 * starts again with a packet with SEQ_INCREMENTAL_STATE_CLEARED, as its
 * first packet does.
 */
#include <stdlib.h>

#include "ltproto.h"

/*
 * A string asked for lately, in a cache of CACHE entries by a quick hash
 * of its bytes: most are names of args that every record repeats.  It is
 * known by its length and its first and last eight bytes (or four, or
 * three), which are the whole of a string of 16 bytes or less, a longer
 * one compared with its copy in the table.  seqs has a bit for each of
 * the sequences 0 to 63 it is defined on, and last the last of the
 * others it was found on, so that a thread's records (which come in
 * runs) look up neither table nor bits.
 */
#define CACHE		128
struct memo {
	uint64_t	 a, z;		/* its first and last bytes */
	uint64_t	 seqs;
	uint64_t	 gen;		/* reset count + 1 when valid */
	uint32_t	 n;
	uint32_t	 iid;
	uint32_t	 last;		/* a sequence from 64 up it is */
					/*   defined on, or 0 */
};

struct table {
	struct ltmap	 map;		/* hash -> index */
	size_t		*off;		/* index -> string in keys */
	size_t		*len;
	size_t		 n, cap;
	struct memo	 memo[CACHE];
};

/*
 * A sequence: its generation of state, and the iids it has defined, a
 * bit each: those below 64 here (a LitData trace has a few dozen
 * strings, and a long job a sequence for each of its thousands of
 * threads), the others in more, made when one is needed.
 */
struct seqmore {
	uint64_t	*bits[PT_NTAB];	/* iid i: word i / 64 - 1, bit i % 64 */
	size_t		 words[PT_NTAB];
};

struct seq {
	uint64_t	 gen;		/* 0: not started in this one */
	uint64_t	 track;		/* default track uuid, or 0 */
	uint64_t	 low[PT_NTAB];	/* iids 1 to 63 */
	struct seqmore	*more;
};

static struct table	 tab[PT_NTAB];
static struct ltbuf	 keys;		/* every string, one after another */
static struct ltbuf	 pending;	/* InternedData entries to write */
static struct ltbuf	 pkt;
static size_t		 limit;
static size_t		 total;
static uint64_t		 gen = 1;
static long long	 resets;
static struct seq	*seqs;		/* by id */
static size_t		 nseqs, capseqs;	/* made, room for */
static uint32_t		 cur;		/* the sequence being written */

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
 * The first packet of a sequence, and the first after a reset: it
 * clears the incremental state and sets it up again, the clock of our
 * timestamps with it.  Clocks CLOCK_DELTA and CLOCK_FROM are at 0 when
 * BOOTTIME, the clock Perfetto puts the trace in (and JSON times), is
 * at the base of window.c (pt_out_t0()); CLOCK_DELTA, the default, is
 * incremental: window.c writes each time as the delta from the last one
 * of the sequence, so times stay absolute integer nanoseconds in 2 or 3
 * bytes.  A time before the last one is given on CLOCK_FROM, one before
 * the base in BOOTTIME.
 */
static void
cleared(uint32_t id, const struct seq *sq)
{
	size_t o, c, k;

	pkt.n = 0;
	o = pb_open(&pkt, TRACE_PACKET);
	pb_uint(&pkt, PKT_SEQ_ID, id);
	pb_uint(&pkt, PKT_FLAGS, SEQ_CLEARED | SEQ_NEEDS_STATE);
	if (resets == 0)
		pb_uint(&pkt, PKT_FIRST_ON_SEQ, 1);
	c = pb_open(&pkt, PKT_CLOCK_SNAPSHOT);
	k = pb_open(&pkt, CS_CLOCK);
	pb_uint(&pkt, CLK_ID, CLOCK_DELTA);
	pb_uint(&pkt, CLK_TIMESTAMP, 0);
	pb_uint(&pkt, CLK_INCREMENTAL, 1);
	pb_close(&pkt, k);
	k = pb_open(&pkt, CS_CLOCK);
	pb_uint(&pkt, CLK_ID, CLOCK_FROM);
	pb_uint(&pkt, CLK_TIMESTAMP, 0);
	pb_close(&pkt, k);
	k = pb_open(&pkt, CS_CLOCK);
	pb_uint(&pkt, CLK_ID, CLOCK_BOOTTIME);
	pb_uint(&pkt, CLK_TIMESTAMP, (uint64_t)pt_out_t0());
	pb_close(&pkt, k);
	pb_close(&pkt, c);
	c = pb_open(&pkt, PKT_DEFAULTS);
	pb_uint(&pkt, PKT_CLOCK_ID, CLOCK_DELTA);
	if (sq->track != 0) {
		k = pb_open(&pkt, PKT_TRACK_EVENT);
		pb_uint(&pkt, EV_TRACK_UUID, sq->track);
		pb_close(&pkt, k);
	}
	pb_close(&pkt, c);
	pb_close(&pkt, o);
	pt_put(pkt.p, pkt.n);
	pt_out_restart(id);
}

void
pt_intern_init(size_t max)
{
	limit = max;
}

/*
 * Write on sequence id (1 and up), whose default track is track (0 for
 * none), from now on; it is started if it is not yet.
 */
void
pt_seq_use(uint32_t id, uint64_t track)
{
	struct seq *sq;
	int t;

	if (id >= nseqs)	/* a call for every record, else */
		seqs = lt_grow_zero(seqs, &capseqs, &nseqs, (size_t)id + 1,
		    sizeof(*seqs));
	sq = &seqs[id];
	cur = id;
	if (sq->gen == gen)
		return;
	memset(sq->low, 0, sizeof(sq->low));
	for (t = 0; sq->more != NULL && t < PT_NTAB; t++)
		if (sq->more->words[t] > 0)
			memset(sq->more->bits[t], 0, sq->more->words[t] *
			    sizeof(*sq->more->bits[t]));
	sq->gen = gen;
	sq->track = track;
	cleared(id, sq);
}

/*
 * The sequence written, and the generation of the interned strings:
 * what was found defined on that sequence in that generation still is.
 */
uint32_t
pt_seq_cur(void)
{
	return cur;
}

uint64_t
pt_intern_gen(void)
{
	return gen;
}

/* The default track of the sequence written, 0 for none. */
uint64_t
pt_seq_track(void)
{
	return seqs[cur].track;
}

/*
 * The first fields of a packet held (window.c writes its time): its
 * sequence, and, when it names interned strings (iids), the flag that
 * says so.
 */
void
pt_seq_fields(struct ltbuf *b, int iids)
{
	pb_uint(b, PKT_SEQ_ID, cur);
	if (iids)
		pb_uint(b, PKT_FLAGS, SEQ_NEEDS_STATE);
}

/* The word of sq's bits where iid (64 or more) of table t is. */
static uint64_t *
moreword(struct seq *sq, int t, uint64_t iid)
{
	struct seqmore *m;
	size_t w = (size_t)(iid / 64 - 1), old;

	if (sq->more == NULL)
		sq->more = lt_calloc(1, sizeof(*sq->more));
	m = sq->more;
	if (w >= (old = m->words[t])) {
		m->bits[t] = lt_grow(m->bits[t], &m->words[t], w + 1,
		    sizeof(*m->bits[t]));
		memset(m->bits[t] + old, 0, (m->words[t] - old) *
		    sizeof(*m->bits[t]));
	}
	return &m->bits[t][w];
}

/* Is iid (from 1) of table t defined on the sequence written?  Now it is. */
static int
defined(int t, uint64_t iid)
{
	struct seq *sq = &seqs[cur];
	uint64_t *w, bit = 1ULL << (iid % 64);

	w = iid < 64 ? &sq->low[t] : moreword(sq, t, iid);
	if (*w & bit)
		return 1;
	*w |= bit;
	return 0;
}

static void
define(int t, uint64_t iid, const char *p, size_t n)
{
	size_t o;

	o = pb_open(&pending, field[t]);
	pb_uint(&pending, IN_IID, iid);
	pb_bytes(&pending, IN_NAME, p, n);
	pb_close(&pending, o);
}

/*
 * The first and last bytes of p[0..n), read whole (a copy of n bytes
 * into a word would cost more than the rest).
 */
static void
ends(const char *p, size_t n, uint64_t *a, uint64_t *z)
{
	uint32_t a4, z4;

	if (n >= 8) {
		memcpy(a, p, 8);
		memcpy(z, p + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&a4, p, 4);
		memcpy(&z4, p + n - 4, 4);
		*a = a4;
		*z = z4;
	} else {
		*a = n > 0 ? (unsigned char)p[0] | (unsigned char)p[n / 2] << 8 |
		    (unsigned char)p[n - 1] << 16 : 0;
		*z = 0;
	}
}

/* The iid of p[0..n) in table t, interned if new. */
uint64_t
pt_iid(int t, const char *p, size_t n)
{
	struct table *tb = &tab[t];
	struct memo *m;
	struct key k;
	uint32_t *v;
	uint64_t iid, a, z;
	int isnew;

	ends(p, n, &a, &z);
	m = &tb->memo[((a ^ z * 0x9e3779b97f4a7c15ULL ^ n) *
	    0xbf58476d1ce4e5b9ULL) >> 57];
	if (m->gen == gen && m->n == n && m->a == a && m->z == z &&
	    (n <= 16 || memcmp(keys.p + tb->off[m->iid - 1], p, n) == 0)) {
		if (cur < 64 ? (m->seqs >> cur & 1) != 0 : m->last == cur)
			return m->iid;
		if (!defined(t, m->iid))
			define(t, m->iid, p, n);
		if (cur < 64)
			m->seqs |= 1ULL << cur;
		else
			m->last = cur;
		return m->iid;
	}
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
	}
	iid = *v + 1;
	if (!defined(t, iid))
		define(t, iid, p, n);
	m->gen = gen;
	m->n = (uint32_t)n;
	m->a = a;
	m->z = z;
	m->iid = (uint32_t)iid;
	m->seqs = cur < 64 ? 1ULL << cur : 0;
	m->last = cur < 64 ? 0 : cur;
	return iid;
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
	pb_uint(&pkt, PKT_SEQ_ID, cur);
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

/*
 * Forget every string; the caller holds no packet that uses them.  Each
 * sequence starts again when next used.
 */
void
pt_intern_reset(void)
{
	clear();
	resets++;
}

void
pt_intern_free(void)
{
	size_t i;
	int t;

	for (i = 0; i < nseqs; i++) {
		if (seqs[i].more == NULL)
			continue;
		for (t = 0; t < PT_NTAB; t++)
			free(seqs[i].more->bits[t]);
		free(seqs[i].more);
	}
	free(seqs);
	seqs = NULL;
	nseqs = capseqs = 0;
	cur = 0;
	resets = 0;
	clear();
	lt_buf_free(&keys);
	lt_buf_free(&pending);
	lt_buf_free(&pkt);
}
