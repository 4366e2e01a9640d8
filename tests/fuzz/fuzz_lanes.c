/* See LICENSE file for copyright and license details. */
/*
 * fuzz_lanes: libFuzzer harness for lanes.c and cross.c, the placement
 * engine of ltlanefix.  The input is read as slices (start, duration, in
 * ns, from 4 bytes each, durations possibly negative) and a threshold;
 * after placement no two slices of one lane may cross, a slice that left
 * lane 0 keeps its times, a snapped one moved by less than the
 * threshold, each lane's slices came in order of their placed start, and
 * the crossing counter must agree with counting every pair.  The slices
 * must have been taken in trace-lanefix's order: by start, longer
 * first, then in input order.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "ltlanefix.h"

static uint64_t
pairs(const int64_t *s, const int64_t *e, size_t n)
{
	uint64_t c = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (s[i] < s[j] && s[j] < e[i] && e[i] < e[j])
				c++;
	return c;
}

/* The counter over s[], e[] in the order given, which is by start. */
static uint64_t
counted(struct lfxc *c, const int64_t *s, const int64_t *e, size_t n)
{
	uint64_t k = 0;
	size_t i;

	lf_xc_reset(c);
	for (i = 0; i < n; i++)
		k += lf_xc_add(c, s[i], e[i]);
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lflanes w;
	static struct lfxc xc;
	struct lftrack tr;
	struct lfslice sl[256];
	int64_t s[256] = {0}, e[256] = {0};	/* gcc 12 warns otherwise */
	uint32_t idx[256], k, nl;
	size_t n = 0, i, m;
	int64_t thr, late, early;
	const struct lfslice *a, *b;

	if (size < 2)
		return 0;
	thr = (int64_t)data[0] * 100;
	memset(sl, 0, sizeof(sl));
	for (i = 2; i + 4 <= size && n < 256; i += 4, n++) {
		sl[n].ts = (int64_t)(data[i] | data[i + 1] << 8) *
		    (data[1] & 1 ? 1 : 37);
		sl[n].end = sl[n].ts + (int8_t)data[i + 2] * 100 +
		    (data[i + 3] & 0x7f);
		idx[n] = (uint32_t)n;
	}
	lf_lanes_sort(&w, sl, idx, n);
	lf_track_init(&tr);
	for (i = 0; i < n; i++) {
		s[i] = sl[idx[i]].ts;
		e[i] = sl[idx[i]].end;
		k = lf_track_put(&w, &tr, &sl[idx[i]], thr);
		if (k > tr.nlanes - 1)
			abort();
	}
	nl = tr.nlanes;
	lf_track_free(&w, &tr);
	if (counted(&xc, s, e, n) != pairs(s, e, n))
		abort();
	for (i = 1; i < n; i++) {
		a = &sl[idx[i - 1]];
		b = &sl[idx[i]];
		if (a->ts > b->ts || (a->ts == b->ts && (a->end < b->end ||
		    (a->end == b->end && idx[i - 1] >= idx[i]))))
			abort();
	}
	for (k = 0; k < nl; k++) {
		for (i = m = 0; i < n; i++)
			if (sl[idx[i]].lane == k) {
				s[m] = sl[idx[i]].nts;
				e[m] = sl[idx[i]].nend;
				if (m > 0 && s[m] < s[m - 1])
					abort();
				m++;
			}
		if (pairs(s, e, m) != 0 || counted(&xc, s, e, m) != 0)
			abort();
	}
	for (i = 0; i < n; i++) {
		if (sl[i].lane >= nl)
			abort();
		if (sl[i].lane != 0 && (sl[i].nts != sl[i].ts ||
		    sl[i].nend != sl[i].end || sl[i].snaps != 0))
			abort();
		late = sl[i].nts - sl[i].ts;
		early = sl[i].end - sl[i].nend;
		if (late < 0 || (sl[i].snaps == 0 && (late != 0 ||
		    sl[i].nend != sl[i].end)))
			abort();
		if (sl[i].snaps != 0 && late + (early > 0 ? early : 0) >= thr)
			abort();
	}
	return 0;
}
