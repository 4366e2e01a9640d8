/* See LICENSE file for copyright and license details. */
/*
 * fuzz_ltcheck.c: libFuzzer harness for ltcheck's path: the sniffed
 * prefix, the JSON event reader, the event model and the replay of the
 * slice stacks, for each of the three version bands.  The input is one
 * trace file, as bytes.
 */
#include <stdlib.h>

#include "jsonev.h"
#include "ltcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pfsim *sim;
	struct ltjev ev;
	struct ltjr jr;
	struct ltin in;
	int band, k;

	for (band = PF_V50; band <= PF_V57; band++) {
		/* An input already at its end: nothing is read from fd. */
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
		sim = pf_new(band, band == PF_V57);
		pf_sniff(sim, in.buf, size);
		lt_jr_init(&jr, &in, LT_JR_LAZY);
		while ((k = lt_jr_next(&jr, &ev)) == LT_JEV_EVENT ||
		    k == LT_JEV_TOP)
			if (k == LT_JEV_EVENT)
				pf_jsonev(sim, &ev, ev.line);
		pf_finish(sim);
		lt_jr_free(&jr);
		pf_free(sim);
		free(in.buf);
	}
	return 0;
}
