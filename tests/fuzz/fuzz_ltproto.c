/* See LICENSE file for copyright and license details. */
/*
 * fuzz_ltproto: libFuzzer harness for ltproto's modules.  The input is
 * read as an lt1 stream, its valid records (under #valid: those whose ts
 * and dur are, the rest taken on trust) turned into a trace (with a
 * window of 3 events and 4 interned strings, so that ordering, roots and
 * resets all run), and the trace read back: every packet, and every
 * nested message ltproto writes, must be well-formed protobuf that ends
 * where its length says.  Build and run with `make fuzz`.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "ltproto.h"
#include "tally.h"
#include "fuzzfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The messages ltproto writes, and what their fields hold. */
enum {
	M_BYTES, M_TRACE, M_PACKET, M_EVENT, M_ANNO, M_LEGACY, M_DESC,
	M_INTERNED, M_ENTRY, M_SNAPSHOT, M_DEFAULTS, M_EVDEFAULTS
};

static int
child(int type, uint64_t field)
{
	switch (type) {
	case M_TRACE:
		return field == TRACE_PACKET ? M_PACKET : M_BYTES;
	case M_PACKET:
		switch (field) {
		case PKT_CLOCK_SNAPSHOT:
			return M_SNAPSHOT;
		case PKT_TRACK_EVENT:
			return M_EVENT;
		case PKT_INTERNED:
			return M_INTERNED;
		case PKT_DEFAULTS:
			return M_DEFAULTS;
		case PKT_TRACK_DESC:
			return M_DESC;
		}
		return M_BYTES;
	case M_EVENT:
		return field == EV_ANNOTATION ? M_ANNO :
		    field == EV_LEGACY ? M_LEGACY : M_BYTES;
	case M_ANNO:
		return field == DA_DICT || field == DA_ARRAY ? M_ANNO : M_BYTES;
	case M_DESC:
		/* process, thread, counter: messages of scalars and strings */
		return field == TD_PROCESS || field == TD_THREAD ||
		    field == TD_COUNTER ? M_ENTRY : M_BYTES;
	case M_INTERNED:
		return M_ENTRY;
	case M_SNAPSHOT:
		return field == CS_CLOCK ? M_ENTRY : M_BYTES;
	case M_DEFAULTS:
		return field == PKT_TRACK_EVENT ? M_EVDEFAULTS : M_BYTES;
	}
	return M_BYTES;
}

/* A message of a type, p[0..n): its fields end at its end. */
static void
check(const unsigned char *p, size_t n, int type, int depth)
{
	const unsigned char *end = p + n;
	uint64_t key, v;
	int t;

	assert(depth < 1200);
	while (p < end) {
		assert(pb_getvarint(&p, end, &key));
		assert(key >> 3 != 0);
		switch (key & 7) {
		case 0:
			assert(pb_getvarint(&p, end, &v));
			break;
		case 1:
			assert(end - p >= 8);
			p += 8;
			break;
		case 2:
			assert(pb_getvarint(&p, end, &v));
			assert(v <= (uint64_t)(end - p));
			if ((t = child(type, key >> 3)) != M_BYTES)
				check(p, (size_t)v, t, depth + 1);
			p += v;
			break;
		default:
			assert(!"wire type");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ltrd rd;
	static unsigned char *out;
	struct ltrec rec;
	struct ltin in;
	const char *why;
	char path[] = "/tmp/fuzz_ltproto.XXXXXX", *line;
	ssize_t n, got;
	off_t len;
	int64_t ts[2];
	int fd, col, has[2];

	fuzz_store(data, size);
	fuzz_open(&in);
	if ((fd = mkstemp(path)) < 0)
		abort();
	unlink(path);
	pt_out_open(dup(fd), "fuzz", 3);
	pt_roots_budget(3);
	pt_intern_init(4);
	pt_tallying = 1;	/* the counters of -S too */
	rd.valid = 0;
	while ((n = lt_in_line(&in, &line)) >= 0) {
		if (n > 4 && memcmp(line, "#t0\t", 4) == 0)
			pt_t0(line + 4, (size_t)n - 4);
		/* under #valid the records are only split, and ts and dur read */
		if (LT_ISVALID(line, (size_t)n))
			rd.valid = 1;
		if (n > 0 && line[0] == '#')
			continue;
		if (lt_rec_split(line, (size_t)n, &rec, &why) < 0 ||
		    lt_rec_checkts(&rec, &why, &col, ts, has, rd.valid) < 0)
			continue;
		pt_record(&rd, &rec);
	}
	lt_in_close(&in);
	pt_seq_use(SEQ_COMMON, 0);
	pt_tracks_finish();
	pt_out_close();
	len = lseek(fd, 0, SEEK_END);
	assert(len > 0);
	out = realloc(out, (size_t)len);
	assert(out != NULL);
	got = pread(fd, out, (size_t)len, 0);
	assert(got == (ssize_t)len);
	check(out, (size_t)len, M_TRACE, 0);
	close(fd);
	pt_event_free();
	pt_roots_free();
	pt_tracks_free();
	pt_intern_free();
	lt_tally_free();
	return 0;
}
