/* See LICENSE file for copyright and license details. */
/*
 * fuzz_ltstat.c: libFuzzer harness for ltstat's path: every line of the
 * input as a directive or a record (bad ones skipped, as ltstat would
 * stop there), then the end of the input, the records -t adds and both
 * reports, written to /dev/null.  The first byte picks how many waits
 * and chunks are listed and whether the additions are on.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
sink(struct ltout *o)
{
	int fd;

	if ((fd = open("/dev/null", O_WRONLY)) < 0)
		abort();
	lt_out_init(o, fd, "/dev/null");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ltout out, rep;
	struct ltrec rec;
	struct ltin in;
	const char *why;
	char *line;
	ssize_t n;

	memset(&in, 0, sizeof(in));
	in.fd = -1;
	in.name = "<fuzz>";
	in.cap = size;
	in.buf = lt_malloc(size + 1);
	memcpy(in.buf, data, size);
	in.end = size;
	in.eof = 1;
	in.limit = -1;
	in.child = -1;
	sink(&out);
	st_init(size > 0 ? data[0] % 7 : 5, size > 0 && data[0] & 8 ? T_ALL :
	    0, &out);
	while ((n = lt_in_line(&in, &line)) >= 0) {
		if (n > 0 && line[0] == '#')
			why = st_directive(line, (size_t)n);
		else if (lt_rec_split(line, (size_t)n, &rec, &why) == 0)
			why = st_record(&rec);
		(void)why;
	}
	st_end();
	lt_out_close(&out);
	sink(&rep);
	st_report(&rep, 0);
	st_report(&rep, 1);
	lt_out_close(&rep);
	st_free();
	free(in.buf);
	return 0;
}
