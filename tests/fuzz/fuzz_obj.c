/* See LICENSE file for copyright and license details. */
/*
 * fuzz_obj: libFuzzer harness for obj.c and idtab.c.
 *
 * The member iterator must accept exactly the texts that the strict
 * scanner of json.c accepts as one object, and hand out members that
 * lie inside the text.  The members' keys and values then go through
 * an idtab as pid and tid, checked against a plain count.  What the
 * quick test lt_obj_plain() accepts, the strict scanner must accept
 * unchanged, and lt_obj_split() must cut it into the same members as
 * the iterator.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lt.h"
#include "idtab.h"

struct ent {
	struct ltid	 h;
	int		 n;
};

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct ltfield k, v, sk[64], sv[64];
	struct ltidtab t;
	struct ltobj it;
	struct ltjson j;
	struct ent *e;
	size_t added = 0, i = 0;
	long ns;
	int r, whole, isnew;

	whole = lt_json_whole(p, size, NULL, &j) == LT_JSON_OK &&
	    j.type == '{';
	if (lt_obj_plain(p, size) && (!whole || j.flags != 0))
		abort();
	ns = lt_obj_split(p, size, sk, sv, 64);
	if (ns >= 0 && !lt_obj_plain(p, size))
		abort();
	lt_id_init(&t, sizeof(struct ent));
	lt_obj_init(&it, p, size);
	while ((r = lt_obj_next(&it, &k, &v)) > 0) {
		if (k.p < p || k.p + k.n > p + size || v.p < p ||
		    v.p + v.n > p + size || k.n < 2 || k.p[0] != '"')
			abort();
		if (ns >= 0 && ((long)i >= ns || sk[i].p != k.p ||
		    sk[i].n != k.n || sv[i].p != v.p || sv[i].n != v.n))
			abort();
		i++;
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
	if ((r == 0) != whole || (ns >= 0 && (r != 0 || (long)i != ns)))
		abort();
	lt_id_free(&t, NULL);
	(void)added;
	return 0;
}
