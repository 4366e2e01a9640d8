/* See LICENSE file for copyright and license details. */
/*
 * fuzz_lanes: libFuzzer harness for lanes.c, the placement engine of
 * ltlanefix.  The input is read as slices (start, duration, in ns, from
 * 4 bytes each, durations possibly negative) and a threshold; after
 * placement no two slices of one lane may cross, a slice that left lane
 * 0 keeps its times, a snapped one moved by less than the threshold,
 * and lt_crossings must agree with counting every pair.  The slices
 * must have been taken in trace-lanefix's order: by start, longer first,
 * then in input order.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "lanes.h"

static uint64_t
pairs(const struct ltiv *v, size_t n)
{
	uint64_t c = 0;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (v[i].s < v[j].s && v[j].s < v[i].e &&
			    v[i].e < v[j].e)
				c++;
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ltlanes w;
	struct ltslice sl[256];
	struct ltiv iv[256], lane[256];
	uint32_t idx[256], k, nl;
	size_t n = 0, i, m;
	int64_t thr, late, early;
	const struct ltslice *a, *b;

	if (size < 2)
		return 0;
	thr = (int64_t)data[0] * 100;
	for (i = 2; i + 4 <= size && n < 256; i += 4, n++) {
		memset(&sl[n], 0, sizeof(sl[n]));
		sl[n].ts = (int64_t)(data[i] | data[i + 1] << 8) *
		    (data[1] & 1 ? 1 : 37);
		sl[n].end = sl[n].ts + (int8_t)data[i + 2] * 100 +
		    (data[i + 3] & 0x7f);
		idx[n] = (uint32_t)n;
		iv[n].s = sl[n].ts;
		iv[n].e = sl[n].end;
	}
	if (lt_crossings(&w, iv, n) != pairs(iv, n))
		abort();
	nl = lt_lanes_place(&w, sl, idx, n, thr);
	for (i = 1; i < n; i++) {
		a = &sl[idx[i - 1]];
		b = &sl[idx[i]];
		if (a->ts > b->ts || (a->ts == b->ts && (a->end < b->end ||
		    (a->end == b->end && idx[i - 1] >= idx[i]))))
			abort();
	}
	for (k = 0; k < nl; k++) {
		for (i = m = 0; i < n; i++)
			if (sl[i].lane == k) {
				lane[m].s = sl[i].nts;
				lane[m++].e = sl[i].nend;
			}
		if (pairs(lane, m) != 0 || lt_crossings(&w, lane, m) != 0)
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
