/* See LICENSE file for copyright and license details. */
/*
 * cold.c: the packed stacks of the tracks left alone (roots.c), by
 * track.  They stay in memory while they take at most COLDMEM bytes in
 * all; beyond, those in memory go to a temporary file in $TMPDIR (or
 * /tmp), removed as soon as it is made, and are read back when their
 * track is used again.  A long job has a track for every thread
 * it ever had, and those whose threads are gone keep their last roots
 * to the end: on disk, not in memory.  The file only grows (by what is
 * packed, a few bytes an event); without it (none can be made, or a
 * write fails, which is said once) the stacks stay in memory.
 */
#include <errno.h>
#include <stdio.h>
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

static struct cold	*colds;		/* by track uuid */
static size_t		 capcolds;
static size_t		 inmem;		/* bytes of those in memory */
static int		 fd = -1, nofile;
static const char	*tmpdir;	/* where the file is */
static const char	*fromenv;	/* " (TMPDIR)" when it says so, or "" */
static uint64_t		 fend;		/* bytes written to the file */
static struct ltbuf	 stage;		/* bytes to write, of tracks staged */
static uint32_t		*staged;
static size_t		 nstaged, capstaged;

static char *
memof(const struct cold *c)
{
	return (char *)(uintptr_t)c->at;
}

/* From now on, the stacks stay in memory: why is said once. */
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
	char path[4096];

	fromenv = " (TMPDIR)";
	if ((tmpdir = getenv("TMPDIR")) == NULL || *tmpdir == '\0') {
		tmpdir = "/tmp";
		fromenv = "";
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/ltproto.XXXXXX",
	    tmpdir) >= sizeof(path)) {
		nomore("make", ENAMETOOLONG);
		return 0;
	}
	if ((fd = mkstemp(path)) < 0) {
		nomore("make", errno);
		return 0;
	}
	unlink(path);
	return 1;
}

/* The staged bytes written: their tracks' stacks are on disk then. */
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
		c = &colds[staged[i]];
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
	size_t t;

	if (nofile || (fd < 0 && !opentmp()))
		return;
	for (t = 0; t < capcolds; t++) {
		if (colds[t].where != MEM)
			continue;
		if (colds[t].fresh) {
			colds[t].fresh = 0;
			continue;
		}
		if (stage.n > 0 && stage.n + colds[t].n > STAGE && !flush())
			return;
		lt_buf_add(&stage, memof(&colds[t]), colds[t].n);
		staged = lt_grow(staged, &capstaged, nstaged + 1,
		    sizeof(*staged));
		staged[nstaged++] = (uint32_t)t;
	}
	if (stage.n > 0)
		flush();
}

int
pt_cold_has(uint32_t track)
{
	return track < capcolds && colds[track].where != NONE;
}

/* The packed stack of track, p[0..n), kept. */
void
pt_cold_put(uint32_t track, const char *p, size_t n)
{
	size_t old = capcolds;

	if (track >= capcolds) {
		colds = lt_grow(colds, &capcolds, (size_t)track + 1,
		    sizeof(*colds));
		memset(colds + old, 0, (capcolds - old) * sizeof(*colds));
	}
	colds[track].at = (uintptr_t)memcpy(lt_malloc(n), p, n);
	colds[track].n = n;
	colds[track].where = MEM;
	colds[track].fresh = 1;
	if ((inmem += n) > COLDMEM)
		spill();
}

/*
 * The packed stack of track (pt_cold_has), in memory the caller frees,
 * and no longer kept here.
 */
char *
pt_cold_take(uint32_t track)
{
	struct cold *c = &colds[track];
	size_t off = 0;
	ssize_t r;
	char *p;

	if (c->where == MEM) {
		p = memof(c);
		inmem -= c->n;
	} else {
		p = lt_malloc(c->n > 0 ? c->n : 1);
		while (off < c->n) {
			r = pread(fd, p + off, c->n - off,
			    (off_t)(c->at + off));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				lt_die(LT_EXIT_SYS, "reading back its "
				    "temporary file: %s", r < 0 ?
				    strerror(errno) : "cut short");
			off += (size_t)r;
		}
	}
	memset(c, 0, sizeof(*c));
	return p;
}

void
pt_cold_free(void)
{
	size_t t;

	for (t = 0; t < capcolds; t++)
		if (colds[t].where == MEM)
			free(memof(&colds[t]));
	free(colds);
	free(staged);
	lt_buf_free(&stage);
	if (fd >= 0)
		close(fd);
	colds = NULL;
	staged = NULL;
	capcolds = inmem = nstaged = capstaged = 0;
	fd = -1;
	nofile = 0;
	fend = 0;
}
