/* See LICENSE file for copyright and license details. */
/*
 * fuzz_ltparts.c: libFuzzer harness for ltparse -P (parts.c): the input
 * as a log file, converted whole, then in N parts (N from the first
 * byte, 1 to 5), one after the other, without a shared directory and
 * with one (-S).  The parts, concatenated, must be byte for byte the
 * whole conversion, as ltparse(1) promises; abort() when not.  Inputs
 * that are not cut (JSON, gzip) are left out: part 1 would convert
 * them whole, with ltparse's own exits on bad JSON.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"
#include "ltparse.h"
#include "fuzzfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	 path[64], dir[] = "/tmp/fuzzparts.XXXXXX";
static int	 havedir;
static int	 outfd = -1;
static char	*got[2];
static size_t	 gotn[2];

/* The shared directory goes with the process (the parts emptied it). */
static void
dropdir(void)
{
	rmdir(dir);
}

/* A sink for one input, empty (ltparse.c main() makes it so). */
static void
sinkinit(struct pssink *s)
{
	static int64_t first[1];
	static int firstpart[1];

	memset(s, 0, sizeof(*s));
	first[0] = 0;
	firstpart[0] = 0;
	s->first = first;
	s->firstpart = firstpart;
}

/* The output file, emptied. */
static void
outstart(struct pssink *s)
{
	char tmp[] = "/tmp/fuzzout.XXXXXX";

	if (outfd < 0) {
		if ((outfd = mkstemp(tmp)) < 0)
			abort();
		unlink(tmp);
	}
	if (ftruncate(outfd, 0) != 0 || lseek(outfd, 0, SEEK_SET) != 0)
		abort();
	sinkinit(s);
}

static void
outpart(struct pssink *s)
{
	lt_out_init(&s->out, dup(outfd), "<fuzz out>");
}

/* What the output file holds, in got[i]. */
static void
outend(int i)
{
	struct stat sb;

	if (fstat(outfd, &sb) != 0)
		abort();
	got[i] = lt_reallocarray(got[i], (size_t)sb.st_size + 1, 1);
	gotn[i] = (size_t)sb.st_size;
	if (pread(outfd, got[i], gotn[i], 0) != (ssize_t)gotn[i])
		abort();
}

/* What ltparse writes after the last part's records (ltparse.c run()). */
static void
tail(struct pssink *s, struct pspin *in)
{
	ps_names(s, in);
	ps_jsonnames(s, in);
	ps_sink_stats(s, ps_nlogprocs(), ps_nthreads());
	lt_out_close(&s->out);
	lt_buf_free(&s->rec);
	ps_procs_free();
	ps_jsonids_free();
}

static void
input(struct pspin *in, off_t size)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	in->size = size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pssink s;
	struct pspin in;
	struct ltin li;
	struct stat sb;
	int k, n, shared;

	if (size < 1)
		return 0;
	n = 1 + data[0] % 5;
	fuzz_store(data + 1, size - 1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fuzzfd);
	/* Once: a name made by mkdtemp may end in X too. */
	if (!havedir) {
		if (mkdtemp(dir) == NULL)
			abort();
		havedir = 1;
		atexit(dropdir);
	}
	if (fstat(fuzzfd, &sb) != 0)
		abort();
	fuzz_open(&li);
	if ((size >= 3 && data[1] == 0x1f && data[2] == 0x8b) ||
	    ps_isjson(&li)) {
		lt_in_close(&li);
		return 0;
	}
	lt_in_close(&li);

	outstart(&s);
	outpart(&s);
	input(&in, sb.st_size);
	ps_sink_head(&s);
	lt_in_open(&li, path);
	ps_login(&in, &li, 0, &s);
	lt_in_close(&li);
	tail(&s, &in);
	outend(0);

	for (shared = 0; shared < 2; shared++) {
		outstart(&s);
		for (k = 1; k <= n; k++) {
			outpart(&s);
			input(&in, sb.st_size);
			in.dev = sb.st_dev;
			in.ino = sb.st_ino;
			ps_parts(&in, 1, k, n, shared ? dir : NULL, 0, &s);
			if (k < n) {
				lt_out_close(&s.out);
				lt_buf_free(&s.rec);
				ps_procs_free();
				ps_jsonids_free();
				sinkinit(&s);
			}
		}
		tail(&s, &in);
		outend(1);
		if (gotn[0] != gotn[1] || memcmp(got[0], got[1], gotn[0]) != 0)
			abort();
	}
	return 0;
}
