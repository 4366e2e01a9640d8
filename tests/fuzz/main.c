/* See LICENSE file for copyright and license details. */
/*
 * main.c: a harness without libFuzzer.  Linked with one fuzz_*.c by the
 * normal compiler (make check), it gives each file named on the command
 * line, read whole, to LLVMFuzzerTestOneInput once: the harness is built
 * with every module, so one that no longer compiles or links fails make
 * check, and its seeds are replayed (a failed assert aborts).  Exit 0,
 * or 2 when a file cannot be read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The whole of the file path, its size in *n; NULL when unreadable. */
static uint8_t *
slurp(const char *path, size_t *n)
{
	uint8_t *p = NULL, *q;
	size_t cap = 0, r;
	FILE *f;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	*n = 0;
	do {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			if ((q = realloc(p, cap)) == NULL) {
				free(p);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			p = q;
		}
		r = fread(p + *n, 1, cap - *n, f);
		*n += r;
	} while (r > 0);
	if (ferror(f)) {
		free(p);
		fclose(f);
		return NULL;
	}
	fclose(f);
	/* exactly n bytes, as libFuzzer gives: a sanitizer sees overreads */
	if ((q = realloc(p, *n > 0 ? *n : 1)) == NULL) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	return q;
}

int
main(int argc, char *argv[])
{
	uint8_t *data;
	size_t n;
	int i;

	for (i = 1; i < argc; i++) {
		if ((data = slurp(argv[i], &n)) == NULL) {
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i],
			    strerror(errno));
			return 2;
		}
		LLVMFuzzerTestOneInput(data, n);
		free(data);
	}
	return 0;
}
