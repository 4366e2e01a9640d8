/* See LICENSE file for copyright and license details. */
/*
 * cold.c: what a program leaves alone, packed, by kind and key: in
 * ltproto the stacks of tracks and the X ends of sequences, in ltstat
 * the processes asleep.  They stay in memory while they take at most
 * the bytes lt_cold_init gave in all; beyond, those in memory go to a
 * temporary file in $TMPDIR (or /tmp), removed as soon as it is made,
 * and are read back when their key is used again.  A long job has a
 * track, a sequence and a process for every thread and worker it ever
 * had, and those that are gone keep what they were to the end: on
 * disk, not in memory.  The file only grows (by what is packed);
 * without it (none can be made, or a write fails, which is said once)
 * they stay in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cold.h"

#define STAGE		65536		/* bytes written at a time */

enum { NONE, MEM, DISK };

struct cold {
	uint64_t	 at;		/* MEM: the bytes; DISK: their offset */
	uint64_t	 n : 61;
	uint64_t	 where : 2;
	uint64_t	 fresh : 1;	/* MEM: packed since the last spill */
};

/* The state, which each stage of ltchain has its own of (LT_STAGE). */
LT_STAGE static struct table {
	struct cold	*c;		/* by key */
	size_t		 n, cap;	/* made, room for */
} tabs[LT_NCOLD];
LT_STAGE static size_t	 inmem;		/* bytes of those in memory */
LT_STAGE static size_t	 memmax = 1 << 18;	/* ... at most */
LT_STAGE static const char *stem = "lt";	/* of the file's name */
LT_STAGE static const char *holds = "what it holds";	/* said without */
LT_STAGE static int	 fd = -1, nofile;
LT_STAGE static const char *tmpdir;	/* where the file is */
LT_STAGE static const char *fromenv;	/* " (TMPDIR)" when it said, or "" */
LT_STAGE static uint64_t fend;		/* bytes written to the file */
LT_STAGE static struct ltbuf stage;	/* bytes to write, of those staged */
LT_STAGE static struct ltbuf peekbuf;	/* what lt_cold_peek read */
LT_STAGE static uint64_t *staged;	/* kind << 32 | key */
LT_STAGE static size_t	 nstaged, capstaged;

static char *
memof(const struct cold *c)
{
	return (char *)(uintptr_t)c->at;
}

/* The entry of key, of a kind (0 to LT_NCOLD - 1). */
static struct cold *
entry(int kind, uint32_t key)
{
	return &tabs[kind].c[key];
}

/* From now on, what is left alone stays in memory: why is said once. */
static void
nomore(const char *what, int err)
{
	nofile = 1;
	lt_warn("cannot %s a temporary file in %s%s: %s; %s stay in memory",
	    what, tmpdir, fromenv, strerror(err), holds);
}

static int
opentmp(void)
{
	if ((fd = lt_tmp_open(stem, &tmpdir, &fromenv)) < 0) {
		nomore("make", errno);
		return 0;
	}
	return 1;
}

/* The staged bytes written: what they pack is on disk then. */
static int
flush(void)
{
	size_t off = 0, i;
	ssize_t w;
	struct cold *c;

	while (off < stage.n) {
		w = pwrite(fd, stage.p + off, stage.n - off,
		    (off_t)(fend + off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			nomore("write", w < 0 ? errno : ENOSPC);
			stage.n = nstaged = 0;
			return 0;
		}
		off += (size_t)w;
	}
	for (i = 0, off = 0; i < nstaged; i++) {
		c = entry((int)(staged[i] >> 32), (uint32_t)staged[i]);
		free(memof(c));
		inmem -= c->n;
		c->at = fend + off;
		c->where = DISK;
		off += c->n;
	}
	fend += stage.n;
	stage.n = nstaged = 0;
	return 1;
}

/*
 * What is in memory to the file, if there can be one, but what was
 * packed since the last time: a key left alone a short while is often
 * used again soon, and is read back from memory then.
 */
static void
spill(void)
{
	struct cold *c;
	size_t t;
	int k;

	if (nofile || (fd < 0 && !opentmp()))
		return;
	for (k = 0; k < LT_NCOLD; k++)
		for (t = 0; t < tabs[k].n; t++) {
			c = &tabs[k].c[t];
			if (c->where != MEM)
				continue;
			if (c->fresh) {
				c->fresh = 0;
				continue;
			}
			if (stage.n > 0 && stage.n + c->n > STAGE && !flush())
				return;
			lt_buf_add(&stage, memof(c), c->n);
			staged = lt_grow(staged, &capstaged, nstaged + 1,
			    sizeof(*staged));
			staged[nstaged++] = (uint64_t)k << 32 | t;
		}
	if (stage.n > 0)
		flush();
}

/*
 * What the file is named after (a program's name), what is in it (said
 * when there can be none: "the tracks it holds"), and how many packed
 * bytes stay in memory, unless LT_COLD_MEM says.
 */
void
lt_cold_init(const char *name, const char *what, size_t mem)
{
	stem = name;
	holds = what;
	memmax = lt_env_bytes("LT_COLD_MEM", mem);
}

int
lt_cold_has(int kind, uint32_t key)
{
	return key < tabs[kind].n && entry(kind, key)->where != NONE;
}

/* What is packed of key, of a kind, p[0..n), kept. */
void
lt_cold_put(int kind, uint32_t key, const char *p, size_t n)
{
	struct table *tb = &tabs[kind];
	struct cold *c;

	tb->c = lt_grow_zero(tb->c, &tb->cap, &tb->n, (size_t)key + 1,
	    sizeof(*tb->c));
	c = &tb->c[key];
	c->at = (uintptr_t)memcpy(lt_malloc(n), p, n);
	c->n = n;
	c->where = MEM;
	c->fresh = 1;
	if ((inmem += n) > memmax)
		spill();
}

/* c's bytes, from the file, into p. */
static void
readback(const struct cold *c, char *p)
{
	int r;

	if ((r = lt_pread_all(fd, p, c->n, (off_t)c->at)) <= 0)
		lt_die(LT_EXIT_SYS, "reading back its temporary file: %s",
		    r < 0 ? strerror(errno) : "cut short");
}

/*
 * What is packed of key, of a kind (lt_cold_has), in memory the caller
 * frees, and no longer kept here; its size in *n, unless n is NULL.
 */
char *
lt_cold_take(int kind, uint32_t key, size_t *n)
{
	struct cold *c = entry(kind, key);
	char *p;

	if (n != NULL)
		*n = c->n;
	if (c->where == MEM) {
		p = memof(c);
		inmem -= c->n;
	} else
		readback(c, p = lt_malloc(c->n > 0 ? c->n : 1));
	memset(c, 0, sizeof(*c));
	return p;
}

/*
 * What is packed of key, of a kind (lt_cold_has), left where it is:
 * valid until the next call here.
 */
const char *
lt_cold_peek(int kind, uint32_t key)
{
	const struct cold *c = entry(kind, key);

	if (c->where == MEM)
		return memof(c);
	peekbuf.n = 0;
	lt_buf_grow(&peekbuf, c->n > 0 ? c->n : 1);
	readback(c, peekbuf.p);
	return peekbuf.p;
}

void
lt_cold_free(void)
{
	size_t t;
	int k;

	for (k = 0; k < LT_NCOLD; k++) {
		for (t = 0; t < tabs[k].n; t++)
			if (tabs[k].c[t].where == MEM)
				free(memof(&tabs[k].c[t]));
		free(tabs[k].c);
		tabs[k].c = NULL;
		tabs[k].n = tabs[k].cap = 0;
	}
	free(staged);
	lt_buf_free(&stage);
	lt_buf_free(&peekbuf);
	if (fd >= 0)
		close(fd);
	staged = NULL;
	inmem = nstaged = capstaged = 0;
	fd = -1;
	nofile = 0;
	fend = 0;
}
