/* See LICENSE file for copyright and license details. */
/*
 * fuzz_obj: libFuzzer harness for obj.c and idtab.c.
 *
 * The member iterator must accept exactly the texts that the strict
 * scanner of json.c accepts as one object, and hand out members that
 * lie inside the text.  The members' keys and values then go through
 * an idtab as pid and tid, checked against a plain count.  What the
 * quick test lt_obj_plain() accepts, the strict scanner must accept
 * unchanged.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"

struct ent {
	struct ltid	 h;
	int		 n;
};

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct ltfield k, v;
	struct ltidtab t;
	struct ltobj it;
	struct ltjson j;
	struct ent *e;
	size_t added = 0;
	int r, whole, isnew;

	whole = lt_json_whole(p, size, NULL, &j) == LT_JSON_OK &&
	    j.type == '{';
	if (lt_obj_plain(p, size) && (!whole || j.flags != 0))
		abort();
	lt_id_init(&t, sizeof(struct ent));
	lt_obj_init(&it, p, size);
	while ((r = lt_obj_next(&it, &k, &v)) > 0) {
		if (k.p < p || k.p + k.n > p + size || v.p < p ||
		    v.p + v.n > p + size || k.n < 2 || k.p[0] != '"')
			abort();
		e = lt_id_get(&t, &k, &v, 1, &isnew);
		added += (size_t)isnew;
		e->n++;
		if (lt_id_get(&t, &k, &v, 0, NULL) != e ||
		    lt_id_get(&t, &k, NULL, 1, NULL) == NULL)
			abort();
		if (e->n == 2) {
			lt_id_del(&t, e);
			added--;
			if (lt_id_get(&t, &k, &v, 0, NULL) != NULL)
				abort();
		}
	}
	if ((r == 0) != whole)
		abort();
	lt_id_free(&t, NULL);
	(void)added;
	return 0;
}
