/* See LICENSE file for copyright and license details. */
/*
 * legacy.c: the event names of every LitData release, made stable.
 *
 * Releases before 0.2.68 bake indexes into names ("read_chunk_29_size_64",
 * litdata-log.md sections 3.2 and 3.3) and write no category.  Such a
 * name becomes the name the current release writes, its indexes become
 * args (as the current release writes them), and a missing category is
 * inferred from the name (section 11).  Only pointers into the log line
 * and static strings are handed out.
 */
#include "lt.h"

/*
 * A pattern is matched whole: '%' stands for an integer (-?[0-9]+),
 * '*' for the rest of the name (blanks around it dropped, not empty).
 * Each '%' or '*' becomes an arg named by keys, in order, after op.
 */
static const struct legacy {
	const char	*pat;
	const char	*name;
	const char	*cat;
	const char	*op;
	const char	*keys[2];
} legacy[] = {
	/* old, 0.2.57-0.2.67 */
	{ "iterating_dataloader", "dataloader", "epoch", NULL, { NULL } },
	{ "iterating_combined_dataset", "combined", "epoch", NULL, { NULL } },
	{ "prefetch_download_chunk_%", "prefetch", "download", NULL,
	    { "chunk" } },
	{ "increment_lock_chunk_%_to_%", "lock", "lock", "increment",
	    { "chunk", "count" } },
	{ "decrement_lock_%_to_%", "lock", "lock", "decrement",
	    { "chunk", "count" } },
	{ "download_chunk_%", "download", "download", NULL, { "chunk" } },
	{ "read_chunk_%_size_%", "read", "read", NULL, { "chunk", "size" } },
	{ "delete_chunk_%", "delete", "delete", NULL, { "chunk" } },
	/* v1, 0.2.45-0.2.56 */
	{ "iterating_dataset", "dataset", "epoch", NULL, { NULL } },
	{ "getitem_dataset_for_chunk_index_%_and_index_%", "sample", "sample",
	    NULL, { "chunk", "index" } },
	{ "reader_reading_chunk_index_%_and_index_%", "read", "read", NULL,
	    { "chunk", "index" } },
	{ "get_item_for_chunk_index_%_and_index_%", "get_item", "sample", NULL,
	    { "chunk", "index" } },
	{ "load_item_from_chunk_for_chunk_index_%_and_index_%", "load_item",
	    "sample", NULL, { "chunk", "index" } },
	{ "decrement_local_lock_for_*", "lock", "lock", "decrement",
	    { "path" } },
	{ "increment_local_lock_for_*", "lock", "lock", "increment",
	    { "path" } },
	{ "download_chunk_from_index_%", "download", "download", NULL,
	    { "chunk" } },
	{ "Decompressing data", "decompress", "decompress", NULL, { NULL } },
	{ "Decompressed data", "decompress", "decompress", NULL, { NULL } },
	{ "delete_chunk_for_chunk_index_%", "delete", "delete", NULL,
	    { "chunk" } },
	/* LitData's own unit test, through the current formatter */
	{ "prepare_chunks_thread_crashed_*", "crash", "crash", NULL,
	    { "exception" } }
};

/* The names the current release writes, and their categories. */
static const struct stable {
	const char	*name;
	const char	*cat;
} stable[] = {
	{ "dataloader", "epoch" }, { "batch", "batch" },
	{ "combined", "epoch" }, { "prefetch", "download" },
	{ "download", "download" }, { "decompress", "decompress" },
	{ "read", "read" }, { "delete", "delete" }, { "sample", "sample" },
	{ "lock", "lock" }, { "crash", "crash" },
	/* stable names given to v1 spans the current release lacks */
	{ "dataset", "epoch" }, { "get_item", "sample" },
	{ "load_item", "sample" }
};

/* Categories of other names, by prefix (spec section 11). */
static const struct stable prefixes[] = {
	{ "prefetch_download_chunk_", "download" },
	{ "download_chunk_", "download" },
	{ "read_chunk_", "read" }, { "reader_reading_", "read" },
	{ "delete_chunk_", "delete" },
	{ "decompress", "decompress" }, { "Decompress", "decompress" },
	{ "getitem_", "sample" }, { "load_item_", "sample" },
	{ "get_item_", "sample" }, { "iterating_", "epoch" }
};

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int
match(const struct legacy *l, const char *s, size_t n, struct ltnorm *nm)
{
	const char *pat = l->pat, *end = s + n, *v;
	int key = 0;

	nm->narg = 0;
	if (l->op != NULL) {
		nm->arg[0].k = "op";
		nm->arg[0].v = l->op;
		nm->arg[0].vn = strlen(l->op);
		nm->narg = 1;
	}
	for (; *pat != '\0'; pat++) {
		if (*pat == '%') {
			v = s;
			if (s < end && *s == '-')
				s++;
			if (s == end || (unsigned)*s - '0' > 9)
				return 0;
			while (s < end && (unsigned)*s - '0' <= 9)
				s++;
		} else if (*pat == '*') {
			v = s;
			while (v < end && *v == ' ')
				v++;
			while (end > v && end[-1] == ' ')
				end--;
			if (v == end)
				return 0;
			s = end;
		} else {
			if (s == end || *s != *pat)
				return 0;
			s++;
			continue;
		}
		nm->arg[nm->narg].k = l->keys[key++];
		nm->arg[nm->narg].v = v;
		nm->arg[nm->narg].vn = (size_t)(s - v);
		nm->narg++;
	}
	return s == end;
}

static const char *
stablecat(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(stable); i++)
		if (strlen(stable[i].name) == n &&
		    memcmp(stable[i].name, s, n) == 0)
			return stable[i].cat;
	return NULL;
}

/*
 * The first line of an exception logged by commit 25bf3ca8:
 * "[litdata] PrepareChunksThread CRASHED (rank=1, worker=0)" as the key,
 * "TypeError: message" as the value.
 */
static void
crash(const struct ltlog *lg, struct ltnorm *nm)
{
	const struct ltkv *kv = &lg->kv[0];
	const char *p, *e, *end = kv->k + kv->kn;
	int i;

	nm->crash = 1;
	nm->renamed = 1;
	nm->narg = 0;
	for (p = kv->v; p < kv->v + kv->vn && *p != ':' && *p != ' '; p++)
		;
	if (p < kv->v + kv->vn && *p == ':' && p > kv->v) {
		nm->arg[nm->narg].k = "exception";
		nm->arg[nm->narg].v = kv->v;
		nm->arg[nm->narg++].vn = (size_t)(p - kv->v);
	}
	nm->arg[nm->narg].k = "error";
	nm->arg[nm->narg].v = kv->v;
	nm->arg[nm->narg++].vn = kv->vn;
	/* "(rank=R, worker=W)", as the env keys of the later releases */
	for (i = 0; i < 2; i++) {
		static const char *const word[] = { "rank=", "worker=" };
		static const char *const key[] = { "dist_global_rank",
		    "worker_rank" };
		size_t wn = strlen(word[i]);

		for (p = kv->k; p + wn <= end && memcmp(p, word[i], wn) != 0;
		    p++)
			;
		if (p + wn > end)
			continue;
		for (p += wn, e = p; e < end && (unsigned)*e - '0' <= 9; e++)
			;
		if (e > p) {
			nm->arg[nm->narg].k = key[i];
			nm->arg[nm->narg].v = p;
			nm->arg[nm->narg++].vn = (size_t)(e - p);
		}
	}
}

void
lt_lognorm(const struct ltlog *lg, struct ltnorm *nm)
{
	const char *s = lg->name.p, *cat;
	size_t n = lg->name.n, i, k;

	memset(nm, 0, sizeof(*nm));
	nm->name = s;
	nm->namen = n;
	if (lg->cat.p != NULL) {
		nm->cat = lg->cat.p;
		nm->catn = lg->cat.n;
	}
	if (lg->crash)
		crash(lg, nm);
	else if ((cat = stablecat(s, n)) != NULL) {
		if (nm->cat == NULL) {
			nm->cat = cat;
			nm->catn = strlen(cat);
			nm->inferred = 1;
		}
		return;
	} else {
		for (i = 0; i < NELEM(legacy); i++)
			if (match(&legacy[i], s, n, nm))
				break;
		if (i < NELEM(legacy)) {
			nm->name = legacy[i].name;
			nm->namen = strlen(nm->name);
			nm->renamed = 1;
			cat = legacy[i].cat;
		} else {
			nm->narg = 0;
			cat = NULL;
			for (k = 0; k < NELEM(prefixes) && cat == NULL; k++)
				if (n >= strlen(prefixes[k].name) &&
				    memcmp(s, prefixes[k].name,
				    strlen(prefixes[k].name)) == 0)
					cat = prefixes[k].cat;
			for (k = 0; k + 4 <= n && cat == NULL; k++)
				if (memcmp(s + k, "lock", 4) == 0)
					cat = "lock";
		}
	}
	if (nm->crash)
		cat = "crash";
	if (nm->cat == NULL && cat != NULL) {
		nm->cat = cat;
		nm->catn = strlen(cat);
		nm->inferred = 1;
	}
}
