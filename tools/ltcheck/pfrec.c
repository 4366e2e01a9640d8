/* See LICENSE file for copyright and license details. */
/*
 * pfrec.c: the events ltcheck's Perfetto model keeps for the replay, as
 * 20-byte records, with what they point to: the track of each (a number
 * per thread, process or async cookie), the name and category an E must
 * match, flow slots, and the rare values that do not fit in a record (X
 * longer than 4.29 s, v2 flows).  The line of each record is kept in a
 * byte or five.  Also Perfetto's sorter: Queue::Append's bookkeeping as
 * events come, and Queue::Sort over the records at the end.
 */
#include <stdlib.h>

#include "lt.h"
#include "pfint.h"

#define CKEVERY		1024
#define MAXTRACKS	(1u << 24)

void
pf_recs_free(struct pfrecs *rs)
{
	free(rs->recs);
	free(rs->ld);
	free(rs->ckline);
	free(rs->ckpos);
	lt_map_free(&rs->tracks);
	lt_map_free(&rs->pairmap);
	lt_map_free(&rs->flowmap);
	free(rs->pairs);
	free(rs->flows);
	free(rs->v2);
	free(rs->longs);
}

/*
 * The hash of a key of a tag and two words, for maps where the hash is
 * the key: each word is mixed on its own so that no two small keys meet.
 */
uint64_t
pf_key(int tag, uint64_t a, uint64_t b)
{
	return lt_mix(lt_mix(a ^ (uint64_t)tag << 56) ^
	    b * 0x9e3779b97f4a7c15ULL);
}

/* -------- the sorter -------- */

/* Queue::Append, literally: see ltcheck(1), SORTING. */
void
pf_push(struct pfrecs *rs, int64_t ts, int isx)
{
	if (isx)
		rs->slow = 1;
	if (ts > rs->maxts || (!rs->slow && ts == rs->maxts))
		rs->maxts = ts;
	else if (rs->sort_start == 0) {
		rs->sort_start = rs->nq;
		rs->sort_min = ts;
		rs->rec_start = rs->nrec;
	} else if (ts < rs->sort_min)
		rs->sort_min = ts;
	rs->nq++;
}

/*
 * The entry for record idx in a side table (longs, v2) whose entries
 * start with the record number and are in file order; n if none.
 */
static size_t
side(const void *tab, size_t n, size_t size, uint32_t idx)
{
	const char *base = tab;
	size_t lo = 0, hi = n, mid;
	uint32_t v;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&v, base + mid * size, sizeof(v));
		if (v < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n) {
		memcpy(&v, base + lo * size, sizeof(v));
		if (v == idx)
			return lo;
	}
	return n;
}

/* The dur of an X record. */
int64_t
pf_rdur(const struct pfrecs *rs, const struct rec *r)
{
	size_t i;

	if (r->u != DUR_SIDE || !(rec_flags(r) & RF_SIDE) ||
	    (i = side(rs->longs, rs->nlongs, sizeof(*rs->longs), r->idx)) ==
	    rs->nlongs)
		return r->u;
	return (int64_t)((uint64_t)rs->longs[i].hi << 32 | rs->longs[i].lo);
}

/* SlowOperatorLess's key: E first, then the longer X, then the rest. */
static int64_t
key(const struct pfrecs *rs, const struct rec *r)
{
	switch (rec_kind(r)) {
	case K_E:
		return INT64_MIN;
	case K_X:
		return INT64_MAX - pf_rdur(rs, r);
	default:
		return INT64_MAX;
	}
}

static int
less(const struct pfrecs *rs, const struct rec *a, const struct rec *b)
{
	int64_t x = rec_ts(a), y = rec_ts(b);

	if (x != y)
		return x < y;
	if (rs->slow) {
		x = key(rs, a);
		y = key(rs, b);
		if (x != y)
			return x < y;
	}
	return a->idx < b->idx;
}

static void
swap(struct rec *a, struct rec *b)
{
	struct rec t = *a;

	*a = *b;
	*b = t;
}

static void
sift(const struct pfrecs *rs, struct rec *a, size_t i, size_t n)
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && less(rs, &a[c], &a[c + 1]))
			c++;
		if (!less(rs, &a[i], &a[c]))
			return;
		swap(&a[i], &a[c]);
		i = c;
	}
}

static void
heapsort(const struct pfrecs *rs, struct rec *a, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(rs, a, i, n);
	while (n-- > 1) {
		swap(&a[0], &a[n]);
		sift(rs, a, 0, n);
	}
}

static void
insertion(const struct pfrecs *rs, struct rec *a, size_t n)
{
	struct rec t;
	size_t i, j;

	for (i = 1; i < n; i++) {
		t = a[i];
		for (j = i; j > 0 && less(rs, &t, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/* Hoare's partition around the median of three; a[0..j] <= a[j+1..n). */
static size_t
partition(const struct pfrecs *rs, struct rec *a, size_t n)
{
	struct rec pivot;
	size_t i = 0, j = n - 1, m = n / 2;

	if (less(rs, &a[m], &a[0]))
		swap(&a[m], &a[0]);
	if (less(rs, &a[n - 1], &a[m]))
		swap(&a[n - 1], &a[m]);
	if (less(rs, &a[m], &a[0]))
		swap(&a[m], &a[0]);
	pivot = a[m];
	for (;;) {
		while (less(rs, &a[i], &pivot))
			i++;
		while (less(rs, &pivot, &a[j]))
			j--;
		if (i >= j)
			return j;
		swap(&a[i], &a[j]);
		i++;
		j--;
	}
}

/* Introsort: quicksort, insertion sort for short runs, heapsort if deep. */
static void
sort(const struct pfrecs *rs, struct rec *a, size_t n, int depth)
{
	size_t j;

	while (n > 16) {
		if (depth-- == 0) {
			heapsort(rs, a, n);
			return;
		}
		j = partition(rs, a, n);
		/* The shorter side recursively, the longer in the loop. */
		if (j + 1 < n - j - 1) {
			sort(rs, a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		} else {
			sort(rs, a + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	insertion(rs, a, n);
}

/* Queue::Sort: only from the first event that can have moved. */
void
pf_sort(struct pfrecs *rs)
{
	size_t lo = 0, hi = rs->rec_start, mid, n, i;
	int depth = 0;

	if (rs->sort_start == 0)
		return;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rec_ts(&rs->recs[mid]) < rs->sort_min)
			lo = mid + 1;
		else
			hi = mid;
	}
	n = rs->nrec - lo;
	for (i = 1; i < n; i++)
		if (less(rs, &rs->recs[lo + i], &rs->recs[lo + i - 1]))
			break;
	if (i >= n)
		return;		/* already in order */
	for (i = n; i > 0; i >>= 1)
		depth += 2;
	sort(rs, rs->recs + lo, n, depth);
}

/* -------- records and their lines -------- */

static void
addline(struct pfrecs *rs, long line)
{
	uint64_t d = line > rs->lastline ? (uint64_t)(line - rs->lastline) : 0;

	if (rs->nrec % CKEVERY == 0) {
		rs->ckline = lt_grow(rs->ckline, &rs->capck, rs->nck + 1,
		    sizeof(*rs->ckline));
		rs->ckpos = lt_reallocarray(rs->ckpos, rs->capck,
		    sizeof(*rs->ckpos));
		rs->ckline[rs->nck] = line;
		rs->ckpos[rs->nck++] = rs->nld;
		d = 0;
	}
	rs->ld = lt_grow(rs->ld, &rs->capld, rs->nld + 6, 1);
	if (d < 255)
		rs->ld[rs->nld++] = (uint8_t)d;
	else {
		if (d > UINT32_MAX)
			d = UINT32_MAX;
		rs->ld[rs->nld++] = 255;
		memcpy(rs->ld + rs->nld, &(uint32_t){ (uint32_t)d }, 4);
		rs->nld += 4;
	}
	rs->lastline = line;
}

/* The line of record idx. */
long
pf_recline(const struct pfrecs *rs, long long idx)
{
	size_t c = (size_t)idx / CKEVERY, pos, k;
	long line;
	uint32_t d;

	if (idx < 0 || (size_t)idx >= rs->nrec)
		return 0;
	line = (long)rs->ckline[c];
	pos = rs->ckpos[c];
	for (k = c * CKEVERY; k <= (size_t)idx; k++) {
		if (rs->ld[pos] < 255)
			d = rs->ld[pos++];
		else {
			memcpy(&d, rs->ld + pos + 1, 4);
			pos += 5;
		}
		line += (long)d;
	}
	return line;
}

void
pf_addrec(struct pfrecs *rs, long line, int64_t ts, int kind, int flags,
    uint32_t track, uint32_t u)
{
	struct rec *r;

	if (rs->nrec >= UINT32_MAX - 1)
		lt_die(LT_EXIT_SYS, "too many events (more than %u)",
		    UINT32_MAX - 1);
	rs->recs = lt_grow(rs->recs, &rs->caprec, rs->nrec + 1,
	    sizeof(*rs->recs));
	addline(rs, line);
	r = &rs->recs[rs->nrec];
	r->tslo = (uint32_t)(uint64_t)ts;
	r->tshi = (uint32_t)((uint64_t)ts >> 32);
	r->u = u;
	r->idx = (uint32_t)rs->nrec;
	r->tk = track << 8 | (uint32_t)flags << 4 | (uint32_t)kind;
	rs->nrec++;
}

/*
 * The u of the next X record for dur: dur itself, or DUR_SIDE with the
 * value in the side table (flags gets RF_SIDE).
 */
uint32_t
pf_setdur(struct pfrecs *rs, int64_t dur, int *flags)
{
	struct longdur *l;

	if (dur < DUR_SIDE)
		return (uint32_t)dur;
	rs->longs = lt_grow(rs->longs, &rs->caplongs, rs->nlongs + 1,
	    sizeof(*rs->longs));
	l = &rs->longs[rs->nlongs++];
	l->idx = (uint32_t)rs->nrec;
	l->hi = (uint32_t)((uint64_t)dur >> 32);
	l->lo = (uint32_t)dur;
	*flags |= RF_SIDE;
	return DUR_SIDE;
}

/* -------- what records point to -------- */

/* The track of key (pf_key), a new one if it is new. */
uint32_t
pf_track(struct pfrecs *rs, uint64_t key)
{
	uint32_t *slot;
	int created;

	/* Events of one thread often come together. */
	if (key == rs->lastkey && rs->ntracks > 0)
		return rs->lasttrack;
	rs->lastkey = key;
	slot = lt_map_get(&rs->tracks, key, NULL, NULL, &created);
	if (created) {
		if (rs->ntracks >= MAXTRACKS)
			lt_die(LT_EXIT_SYS, "too many tracks (more than %u)",
			    MAXTRACKS);
		*slot = rs->ntracks++;
	}
	return rs->lasttrack = *slot;
}

int
pf_hastrack(struct pfrecs *rs, uint64_t key)
{
	return lt_map_get(&rs->tracks, key, NULL, NULL, NULL) != NULL;
}

/* The pair of a name (hash, 0 for none) and a category index. */
uint32_t
pf_pair(struct pfrecs *rs, uint32_t cat, uint64_t name)
{
	struct pair *pp;
	uint32_t *slot;
	int created;

	slot = lt_map_get(&rs->pairmap, pf_key('n', name, cat), NULL, NULL,
	    &created);
	if (created) {
		rs->pairs = lt_grow(rs->pairs, &rs->cappairs, rs->npairs + 1,
		    sizeof(*rs->pairs));
		pp = &rs->pairs[rs->npairs];
		pp->name = name;
		pp->cat = cat;
		pp->pad = 0;
		*slot = (uint32_t)rs->npairs++;
	}
	return *slot;
}

uint32_t
pf_flowslot(struct pfrecs *rs, uint64_t key)
{
	uint32_t *slot;
	int created;

	slot = lt_map_get(&rs->flowmap, key, NULL, NULL, &created);
	if (created) {
		rs->flows = lt_grow(rs->flows, &rs->capflows, rs->nflows + 1,
		    1);
		rs->flows[rs->nflows] = 0;
		*slot = (uint32_t)rs->nflows++;
	}
	return *slot;
}

/* A v2 flow on the next record (which gets RF_V2). */
void
pf_addv2(struct pfrecs *rs, uint32_t slot, uint32_t dir)
{
	struct v2flow *f;

	rs->v2 = lt_grow(rs->v2, &rs->capv2, rs->nv2 + 1, sizeof(*rs->v2));
	f = &rs->v2[rs->nv2++];
	f->idx = (uint32_t)rs->nrec;
	f->slot = slot;
	f->dir = dir;
}

/* The v2 flow of record r, or NULL. */
const struct v2flow *
pf_recv2(const struct pfrecs *rs, const struct rec *r)
{
	size_t i;

	if (!(rec_flags(r) & RF_V2) ||
	    (i = side(rs->v2, rs->nv2, sizeof(*rs->v2), r->idx)) == rs->nv2)
		return NULL;
	return &rs->v2[i];
}
