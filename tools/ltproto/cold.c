/* See LICENSE file for copyright and license details. */
/*
 * cold.c: what is left alone, packed: the stacks of tracks (roots.c),
 * by track, and the X ends that sequences hold (window.c), by
 * sequence.  They stay in memory while they take at most COLDMEM bytes
 * in all; beyond, those in memory go to a temporary file in $TMPDIR (or
 * /tmp), removed as soon as it is made, and are read back when their
 * track or sequence is used again.  A long job has a track and a
 * sequence for every thread it ever had, and those whose threads are
 * gone keep their last roots and X ends to the end: on disk, not in
 * memory.  The file only grows (by what is packed, a few bytes an
 * event); without it (none can be made, or a write fails, which is
 * said once) they stay in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "ltproto.h"

#define COLDMEM		(1 << 18)	/* bytes of packed stacks in memory */
#define STAGE		65536		/* bytes written at a time */

enum { NONE, MEM, DISK };

struct cold {
	uint64_t	 at;		/* MEM: the bytes; DISK: their offset */
	uint64_t	 n : 61;
	uint64_t	 where : 2;
	uint64_t	 fresh : 1;	/* MEM: packed since the last spill */
};

static struct table {
	struct cold	*c;		/* by track uuid, or sequence id */
	size_t		 n, cap;	/* made, room for */
}			 tabs[PT_NCOLD];
static size_t		 inmem;		/* bytes of those in memory */
static int		 fd = -1, nofile;
static const char	*tmpdir;	/* where the file is */
static const char	*fromenv;	/* " (TMPDIR)" when it says so, or "" */
static uint64_t		 fend;		/* bytes written to the file */
static struct ltbuf	 stage;		/* bytes to write, of those staged */
static uint64_t		*staged;	/* kind << 32 | key */
static size_t		 nstaged, capstaged;

static char *
memof(const struct cold *c)
{
	return (char *)(uintptr_t)c->at;
}

/* The entry of key, of a kind (PT_COLD*). */
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
	lt_warn("cannot %s a temporary file in %s%s: %s; the tracks it holds "
	    "stay in memory", what, tmpdir, fromenv, strerror(err));
}

static int
opentmp(void)
{
	if ((fd = lt_tmp_open("ltproto", &tmpdir, &fromenv)) < 0) {
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
 * The stacks in memory to the file, if there can be one, but those
 * packed since the last time: a track left alone a short while is
 * often used again soon, and is read back from memory then.
 */
static void
spill(void)
{
	struct cold *c;
	size_t t;
	int k;

	if (nofile || (fd < 0 && !opentmp()))
		return;
	for (k = 0; k < PT_NCOLD; k++)
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

int
pt_cold_has(int kind, uint32_t key)
{
	return key < tabs[kind].n && entry(kind, key)->where != NONE;
}

/* What is packed of key, of a kind, p[0..n), kept. */
void
pt_cold_put(int kind, uint32_t key, const char *p, size_t n)
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
	if ((inmem += n) > COLDMEM)
		spill();
}

/*
 * What is packed of key, of a kind (pt_cold_has), in memory the caller
 * frees, and no longer kept here.
 */
char *
pt_cold_take(int kind, uint32_t key)
{
	struct cold *c = entry(kind, key);
	char *p;
	int r;

	if (c->where == MEM) {
		p = memof(c);
		inmem -= c->n;
	} else {
		p = lt_malloc(c->n > 0 ? c->n : 1);
		if ((r = lt_pread_all(fd, p, c->n, (off_t)c->at)) <= 0)
			lt_die(LT_EXIT_SYS, "reading back its temporary file: "
			    "%s", r < 0 ? strerror(errno) : "cut short");
	}
	memset(c, 0, sizeof(*c));
	return p;
}

void
pt_cold_free(void)
{
	size_t t;
	int k;

	for (k = 0; k < PT_NCOLD; k++) {
		for (t = 0; t < tabs[k].n; t++)
			if (tabs[k].c[t].where == MEM)
				free(memof(&tabs[k].c[t]));
		free(tabs[k].c);
		tabs[k].c = NULL;
		tabs[k].n = tabs[k].cap = 0;
	}
	free(staged);
	lt_buf_free(&stage);
	if (fd >= 0)
		close(fd);
	staged = NULL;
	inmem = nstaged = capstaged = 0;
	fd = -1;
	nofile = 0;
	fend = 0;
}
