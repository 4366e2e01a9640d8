/* See LICENSE file for copyright and license details. */
/*
 * fuzz_stream: libFuzzer harness for the lt1 reader.  The input is read
 * through struct ltin from a pipe-less temporary file, line by line, and
 * every line is split and checked as ltjson does; columns that check as
 * valid but not canonical are canonicalised and must then check clean.
 * Every record that splits is also written as ltjson writes one under
 * #valid, whatever its columns hold (a broken promise): no crash.
 * Where the stages' reader takes the input (a "#lt1" header, then
 * directives and records of nine columns: it exits on anything else),
 * it must hand out the same records, split the same, at the same line
 * numbers, though it finds a record's end and columns in one look.
 * Build and run with `make fuzz`.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lt.h"
#include "core.h"
#include "jsonw.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Does fd hold a stream lt_rd_next() reads to the end? */
static int
readable(int fd)
{
	struct ltrec rec;
	struct ltin in;
	const char *why;
	char *line;
	ssize_t n;
	int ok = 1;

	lseek(fd, 0, SEEK_SET);
	lt_in_fdopen(&in, dup(fd), "fuzz");
	if ((n = lt_in_line(&in, &line)) != 4 || memcmp(line, "#lt1", 4) != 0)
		ok = 0;
	while (ok && (n = lt_in_line(&in, &line)) >= 0)
		if ((n == 0 || line[0] != '#') &&
		    lt_rec_split(line, (size_t)n, &rec, &why) < 0)
			ok = 0;
	lt_in_close(&in);
	return ok;
}

/* lt_rd_next() hands out what lt_in_line() and lt_rec_split() make. */
static void
samerecs(int fd)
{
	struct ltrec rec, want;
	struct ltrd rd;
	struct ltin in;
	const char *why;
	char name[64], *argv[1], *line;
	ssize_t n;
	int i;

	if (!readable(fd))
		return;
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	argv[0] = name;
	lt_rd_init(&rd, 1, argv);
	lseek(fd, 0, SEEK_SET);
	lt_in_fdopen(&in, dup(fd), "fuzz");
	while ((n = lt_in_line(&in, &line)) >= 0) {
		if (n > 0 && line[0] == '#')
			continue;
		assert(lt_rec_split(line, (size_t)n, &want, &why) == 0);
		while ((i = lt_rd_next(&rd, &rec)) == LT_DIR)
			;
		assert(i == LT_REC && rec.len == want.len &&
		    memcmp(rec.line, want.line, want.len) == 0 &&
		    rd.in.line == in.line);
		for (i = 0; i < LT_NCOL; i++)
			assert(rec.f[i].n == want.f[i].n &&
			    rec.f[i].p - rec.line == want.f[i].p - want.line);
	}
	while ((i = lt_rd_next(&rd, &rec)) == LT_DIR)
		;
	assert(i == LT_EOF);
	lt_rd_done(&rd);
	lt_in_close(&in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ltbuf fix, json;
	static struct ltjw jw;
	struct ltjwrec jr;
	struct ltrec rec;
	struct ltjson j;
	struct ltin in;
	const char *why;
	char path[] = "/tmp/fuzz_stream.XXXXXX", *line;
	ssize_t n;
	int fd, col, r, i;
	int64_t ns;

	if ((fd = mkstemp(path)) < 0)
		return 0;
	unlink(path);
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return 0;
	}
	lt_in_fdopen(&in, fd, "fuzz");
	while ((n = lt_in_line(&in, &line)) >= 0) {
		if (n > 0 && line[0] == '#')
			continue;
		if (lt_rec_split(line, (size_t)n, &rec, &why) < 0)
			continue;
		jw.valid = 1;
		if (lt_jw_rec(&jw, &rec, &jr, &why, &col) == 0) {
			json.n = 0;
			if (json.cap < jr.need)
				lt_buf_grow(&json, jr.need);
			assert((size_t)(lt_jw_put(json.p, &jr) - json.p) <=
			    jr.need);
		}
		if ((r = lt_rec_check(&rec, &why, &col)) < 0)
			continue;
		lt_rec_ts(&rec, LT_TS, &ns);
		for (i = LT_CAT; r > 0 && i < LT_NCOL; i++) {
			fix.n = 0;
			if (i <= LT_NAME)
				r = lt_json_str(rec.f[i].p, rec.f[i].n, &fix, &j);
			else
				r = lt_json_whole(rec.f[i].p, rec.f[i].n, &fix,
				    &j);
			assert(r == LT_JSON_OK);
			if (i <= LT_NAME)
				r = lt_json_str(fix.p, fix.n, NULL, &j);
			else
				r = lt_json_whole(fix.p, fix.n, NULL, &j);
			assert(r == LT_JSON_OK && j.flags == 0);
			r = 1;
		}
	}
	samerecs(fd);
	lt_in_close(&in);
	close(fd);
	return 0;
}
