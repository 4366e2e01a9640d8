/* See LICENSE file for copyright and license details. */
/*
 * fuzzfile.h: the fuzzer's data as a file, for harnesses of code that
 * reads files (it seeks, rewinds, reads the end first).  One temporary
 * file, unlinked at once, rewritten for every input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static int fuzzfd = -1;

/* The file holds data[0..size) and nothing else. */
static void
fuzz_store(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzzfile.XXXXXX";

	if (fuzzfd < 0) {
		if ((fuzzfd = mkstemp(path)) < 0)
			abort();
		unlink(path);
	}
	if (ftruncate(fuzzfd, 0) != 0 || pwrite(fuzzfd, data, size, 0) !=
	    (ssize_t)size)
		abort();
}

/* in reads the file from its start. */
static void
fuzz_open(struct ltin *in)
{
	if (lseek(fuzzfd, 0, SEEK_SET) != 0)
		abort();
	lt_in_fdopen(in, dup(fuzzfd), "fuzz");
}
