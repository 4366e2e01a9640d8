/* See LICENSE file for copyright and license details. */
/*
 * legacy.c: the event names of every LitData release, made stable.
 *
 * Releases before 0.2.68 bake indexes into names ("read_chunk_29_size_64",
 * ltparse(1), "Names and categories") and write no category.  Such a
 * name becomes the name the current release writes, its indexes become
 * args (as the current release writes them), and a missing category is
 * inferred from the name (same section).  Only pointers into the log line
 * and static strings are handed out.
 */
#include "lt.h"
#include "ltparse.h"

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

/* The names the current release writes, their categories and roles. */
#define S(s)	s, sizeof(s) - 1
#define MAIN	PS_ROLE_MAIN
static const struct stable {
	const char	*name;
	size_t		 n;
	const char	*cat;
	int		 role;
} stable[] = {
	{ S("read"), "read", MAIN }, { S("sample"), "sample", MAIN },
	{ S("download"), "download", PS_ROLE_DOWNLOAD },
	{ S("decompress"), "decompress", PS_ROLE_DOWNLOAD },
	{ S("lock"), "lock", 0 },
	{ S("prefetch"), "download", PS_ROLE_PREFETCH },
	{ S("delete"), "delete", PS_ROLE_PREFETCH },
	{ S("batch"), "batch", MAIN | PS_ROLE_LOADER },
	{ S("dataloader"), "epoch", MAIN | PS_ROLE_LOADER },
	{ S("combined"), "epoch", MAIN },
	{ S("crash"), "crash", PS_ROLE_PREFETCH },
	/* stable names given to v1 spans the current release lacks */
	{ S("dataset"), "epoch", MAIN }, { S("get_item"), "sample", MAIN },
	{ S("load_item"), "sample", MAIN }
};
#undef MAIN

/* Categories of other names, by prefix (spec section 11). */
static const struct stable prefixes[] = {
	{ S("prefetch_download_chunk_"), "download", 0 },
	{ S("download_chunk_"), "download", 0 },
	{ S("read_chunk_"), "read", 0 }, { S("reader_reading_"), "read", 0 },
	{ S("delete_chunk_"), "delete", 0 },
	{ S("decompress"), "decompress", 0 },
	{ S("Decompress"), "decompress", 0 },
	{ S("getitem_"), "sample", 0 }, { S("load_item_"), "sample", 0 },
	{ S("get_item_"), "sample", 0 }, { S("iterating_"), "epoch", 0 }
};

/*
 * cname values of LitData that catapult's trace viewer does not know: it
 * refuses a whole trace for one of them ("Unrecognized color").  They
 * become the nearest names of its colour scheme, spelt as it spells them.
 */
static const struct colour {
	const char	*log;
	size_t		 n;
	const char	*name;
} colours[] = {
	{ S("memory_dump"), "light_memory_dump" },
	{ S("rail_animate"), "rail_animation" },
	{ S("cq_build_attempt_running"), "cq_build_attempt_runnig" }
};
#undef S

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int
match(const struct legacy *l, const char *s, size_t n, struct psnorm *nm)
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

static const struct stable *
lookup(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(stable); i++)
		if (stable[i].n == n && memcmp(stable[i].name, s, n) == 0)
			return &stable[i];
	return NULL;
}

/*
 * The first line of an exception logged by commit 25bf3ca8:
 * "[litdata] PrepareChunksThread CRASHED (rank=1, worker=0)" as the key,
 * "TypeError: message" as the value.
 */
static void
crash(const struct pslog *lg, struct psnorm *nm)
{
	const struct pskv *kv = &lg->kv[0];
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

/* The cname to write for the log's (p NULL: none). */
static void
colour(const struct ltfield *c, struct psnorm *nm)
{
	size_t i;

	nm->cname = c->p;
	nm->cnamen = c->n;
	for (i = 0; c->p != NULL && i < NELEM(colours); i++)
		if (colours[i].n == c->n && memcmp(colours[i].log, c->p,
		    c->n) == 0) {
			nm->cname = colours[i].name;
			nm->cnamen = strlen(nm->cname);
			break;
		}
}

void
ps_lognorm(const struct pslog *lg, struct psnorm *nm)
{
	const struct stable *st;
	const char *s = lg->name.p, *cat = NULL;
	size_t n = lg->name.n, i;

	colour(&lg->cname, nm);
	nm->name = s;
	nm->namen = n;
	nm->cat = lg->cat.p;
	nm->catn = lg->cat.n;
	nm->narg = nm->renamed = nm->inferred = nm->crash = 0;
	if (lg->crash) {
		crash(lg, nm);
		st = lookup(s, n);
	} else if ((st = lookup(s, n)) == NULL) {
		for (i = 0; i < NELEM(legacy); i++)
			if (match(&legacy[i], s, n, nm))
				break;
		if (i < NELEM(legacy)) {
			nm->name = legacy[i].name;
			nm->namen = strlen(nm->name);
			nm->renamed = 1;
			st = lookup(nm->name, nm->namen);
		} else {
			nm->narg = 0;
			for (i = 0; i < NELEM(prefixes) && cat == NULL; i++)
				if (n >= prefixes[i].n && memcmp(s,
				    prefixes[i].name, prefixes[i].n) == 0)
					cat = prefixes[i].cat;
			for (i = 0; i + 4 <= n && cat == NULL; i++)
				if (memcmp(s + i, "lock", 4) == 0)
					cat = "lock";
		}
	}
	if (st != NULL) {
		cat = st->cat;
		nm->role = st->role;
	} else
		nm->role = 0;
	/*
	 * 0.2.45's PrepareChunksThread looks chunks up, index -1, beside
	 * its downloads and deletes: the prefetch thread's, not the main.
	 */
	if (nm->renamed && nm->namen == 8 && memcmp(nm->name, "get_item",
	    8) == 0 && nm->narg == 2 && nm->arg[1].vn == 2 &&
	    memcmp(nm->arg[1].v, "-1", 2) == 0)
		nm->role = PS_ROLE_PREFETCH;
	if (nm->cat == NULL && cat != NULL) {
		nm->cat = cat;
		nm->catn = strlen(cat);
		nm->inferred = 1;
	}
}
