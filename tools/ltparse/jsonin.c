/* See LICENSE file for copyright and license details. */
/*
 * jsonin.c: a Chrome trace JSON input of ltparse, recognised and read
 * event by event (jsonev.c), each event written as an lt1 record
 * (jsonrec.c), the other top-level members as #top directives.
 *
 * A trace ltjson wrote records the ts offset it subtracted in its
 * metadata, which comes last, and the offset is needed before the first
 * event: it is found in the trace's last bytes or proved absent by a
 * search (jsontail.c) and, only when neither settles it, by a first
 * reading of the whole trace.  An input that cannot seek is kept in a
 * temporary file to be read twice; a compressed file is decompressed
 * once more.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jsonev.h"
#include "ltparse.h"

/*
 * JSON input starts with '{' then '"' or '}', or with '[' then '{' or
 * ']' or nothing (blanks and a UTF-8 byte order mark allowed before):
 * no LitData log line does.  Returns the form, '{' or '[', or 0.
 */
int
ps_isjson(struct ltin *in)
{
	size_t i = 0, have;
	int c = 0, first = 0;

	have = lt_in_fill(in, 4096);
	if (have >= 3 && memcmp(in->buf + in->pos, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (;;) {
		for (; i < have; i++) {
			c = (unsigned char)in->buf[in->pos + i];
			if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
				break;
		}
		if (i == have) {
			if ((have = lt_in_fill(in, have + 4096)) > i)
				continue;
			return first == '[';
		}
		if (first != 0)
			break;
		if (c != '{' && c != '[')
			return 0;
		first = c;
		i++;
	}
	if (first == '{')
		return c == '"' || c == '}' ? '{' : 0;
	return c == '{' || c == ']' ? '[' : 0;
}

/* Is path a regular file (not "-", a pipe, a device)? */
int
ps_isreg(const char *path)
{
	struct stat sb;

	return strcmp(path, "-") != 0 && stat(path, &sb) == 0 &&
	    S_ISREG(sb.st_mode);
}

/* The ts offset of the trace in, read from its start to its end. */
static int64_t
prescan(struct ltin *in)
{
	int64_t ns;

	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
	ns = ps_jr_prescan(in);
	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s: cannot seek:", in->name);
	return ns;
}

/* Read n bytes at off of fd into p; 0 when they are not all there. */
static int
readat(int fd, const char *name, char *p, size_t n, off_t off)
{
	int r;

	if ((r = lt_pread_all(fd, p, n, off)) < 0)
		lt_die(LT_EXIT_SYS, "read error: %s:", name);
	return r;
}

/*
 * Search the first limit bytes of the file of in for the spelling of
 * the offset key: where it is first, or -1 nowhere.
 */
static off_t
search(struct ltin *in, char *buf, off_t limit)
{
	struct ltjdirty d;
	off_t at;
	size_t n;

	memset(&d, 0, sizeof(d));
	d.first = -1;
	for (at = 0; at < limit && d.first < 0; at += (off_t)n) {
		n = limit - at < PS_JTAIL ? (size_t)(limit - at) : PS_JTAIL;
		if (!readat(in->fd, in->name, buf, n, at))
			break;
		ps_jdirty_feed(&d, buf, n);
	}
	return at < limit && d.first < 0 ? 0 : d.first;
}

/*
 * The ts offset of a trace in object form in the regular file of in,
 * of size bytes, as jsontail.c finds it: from its last bytes, or a
 * search for the key's spelling before them (dirty: where it was found
 * already, -1 nowhere, -2 not looked for), or a first reading of it all.
 */
static int64_t
fileoffset(struct ltin *in, off_t size, off_t dirty)
{
	char *buf;
	off_t base = size - PS_JTAIL, limit;
	size_t from;
	int64_t ns = 0;
	int done;

	if (size <= PS_JTAIL)
		return prescan(in);
	buf = lt_malloc(PS_JTAIL);
	if (!readat(in->fd, in->name, buf, PS_JTAIL, base)) {
		free(buf);
		return prescan(in);	/* it shrank meanwhile */
	}
	done = ps_jtail(buf, PS_JTAIL, &ns, &from);
	limit = base + (off_t)from;
	if (!done && dirty == -2)
		dirty = search(in, buf, limit);
	free(buf);
	if (done || dirty < 0 || dirty >= limit)
		return ns;
	return prescan(in);
}

/* The last PS_JTAIL bytes of a stream, kept in a ring. */
struct ring {
	char	*p;
	size_t	 at;		/* where the next byte goes */
	size_t	 n;		/* bytes kept */
};

static void
keep(struct ring *r, const char *p, size_t n)
{
	size_t k;

	if (n >= PS_JTAIL) {
		p += n - PS_JTAIL;
		n = PS_JTAIL;
	}
	k = PS_JTAIL - r->at < n ? PS_JTAIL - r->at : n;
	memcpy(r->p + r->at, p, k);
	memcpy(r->p, p + k, n - k);
	r->at = (r->at + n) % PS_JTAIL;
	r->n = r->n + n < PS_JTAIL ? r->n + n : PS_JTAIL;
}

/* The bytes kept, in order, in a buffer of their own. */
static char *
kept(const struct ring *r)
{
	char *p = lt_malloc(PS_JTAIL);
	size_t first = r->n < PS_JTAIL ? 0 : r->at;

	memcpy(p, r->p + first, r->n - first);
	memcpy(p + r->n - first, r->p, first);
	return p;
}

/*
 * The same for a compressed file: it is decompressed once more, for
 * its last bytes and the search, and once again in the rare case that
 * these do not settle it.
 */
static int64_t
zipoffset(const char *path)
{
	struct ltjdirty d;
	struct ring r;
	struct ltin in;
	char *tail;
	size_t from;
	int64_t ns = 0;
	int done = 0;

	memset(&d, 0, sizeof(d));
	d.first = -1;
	r.p = lt_malloc(PS_JTAIL);
	r.at = r.n = 0;
	lt_in_open(&in, path);
	while (lt_in_fill(&in, 1) > 0) {
		ps_jdirty_feed(&d, in.buf + in.pos, in.end - in.pos);
		keep(&r, in.buf + in.pos, in.end - in.pos);
		in.pos = in.end;
	}
	lt_in_close(&in);
	if (d.seen > (off_t)r.n) {
		tail = kept(&r);
		done = ps_jtail(tail, r.n, &ns, &from) || d.first < 0 ||
		    d.first >= d.seen - (off_t)r.n + (off_t)from;
		free(tail);
	}
	free(r.p);
	if (done)
		return ns;
	lt_in_open(&in, path);
	ns = ps_jr_prescan(&in);
	lt_in_close(&in);
	return ns;
}

/* An input that cannot seek, kept in a temporary file to be read twice. */
static void
spool(struct ltin *in, struct ltjdirty *d)
{
	char path[4096];
	const char *dir, *name;
	ssize_t w;
	int fd;

	if ((dir = getenv("TMPDIR")) == NULL || *dir == '\0')
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/ltparse.XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0)
		lt_die(LT_EXIT_SYS, "%s: temporary file:", dir);
	unlink(path);
	name = in->name;
	while (lt_in_fill(in, 1) > 0) {
		ps_jdirty_feed(d, in->buf + in->pos, in->end - in->pos);
		w = write(fd, in->buf + in->pos, in->end - in->pos);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			lt_die(LT_EXIT_SYS, "write error: %s:", path);
		in->pos += (size_t)w;
	}
	lt_in_close(in);
	lt_in_fdopen(in, fd, name);
	if (lt_in_rewind(in) < 0)
		lt_die(LT_EXIT_SYS, "%s:", path);
}

/*
 * The ts offset of a trace in object form: ltjson writes its metadata
 * last, and it is needed before the first event.
 */
static int64_t
offset(const struct pspin *ip, struct ltin *in)
{
	struct ltjdirty d;
	struct stat sb;

	if (in->child == -1 && fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode))
		return fileoffset(in, sb.st_size, -2);
	if (in->child != -1 && ps_isreg(ip->path))
		return zipoffset(ip->path);
	memset(&d, 0, sizeof(d));
	d.first = -1;
	spool(in, &d);
	return fileoffset(in, d.seen, d.first);
}

/* A top-level member other than traceEvents: a #top directive. */
static void
top(struct pssink *s, const struct ltjev *ev)
{
	const char *lt;
	size_t vn;

	lt_out_puts(&s->out, "#top\t");
	lt_out_write(&s->out, ev->key, ev->keyn);
	lt_out_putc(&s->out, '\t');
	lt_out_write(&s->out, ev->p, ev->n);
	lt_out_putc(&s->out, '\n');
	s->n[PS_C_TOP]++;
	/* ltjson's trace: its metadata says which version made it */
	if (ev->keyn == 8 && memcmp(ev->key, "metadata", 8) == 0 &&
	    (lt = lt_json_member(ev->p, ev->n, "litracer", &vn)) != NULL &&
	    *lt == '{' && lt_json_member(lt, vn, "version", &vn) != NULL)
		s->ours = 1;
}

/* One element of traceEvents: a record, or skipped and counted. */
static void
element(struct pssink *s, struct ltin *in, const struct ltjev *ev,
    struct psjrec *jc)
{
	const char *tab;
	int64_t ns;

	/* As jsonev.c says of a bare number: not a trace. */
	if (ev->type != '{')
		lt_diepos(LT_EXIT_DATA, in->name, ev->line, "byte %lld: "
		    "an event is not an object", ev->off + 1);
	s->n[PS_C_LINES]++;
	s->n[PS_C_JSON]++;
	s->rec.n = 0;
	if (ps_jrec(ev, &s->rec, jc) < 0) {
		s->n[jc->skip]++;
		if (s->verbose)
			lt_warnpos(in->name, ev->line, "skipped %s", jc->why);
		return;
	}
	if ((ev->flags & LT_JS_REPAIRED) || jc->fixed || jc->numbers > 0)
		s->n[PS_C_REPAIRED]++;
	tab = memchr(s->rec.p, '\t', s->rec.n);
	if (!s->t0done)
		ps_sink_t0(s, s->rec.p, (size_t)(tab - s->rec.p), tab[1]);
	if (lt_us_parse(s->rec.p, (size_t)(tab - s->rec.p), &ns) == LT_NUM_OK)
		ps_sink_first(s, jc->in, ns, tab[1]);
	ps_hold_put(s, s->rec.p, s->rec.n);
	s->n[PS_C_EVENTS]++;
}

/* The JSON input in of ip, in form '{' or '[', to the stream of s. */
void
ps_jsonin(const struct pspin *ip, struct ltin *in, int form,
    struct pssink *s)
{
	struct psjrec jc;
	struct ltjev ev;
	struct ltjr jr;
	int k;

	memset(&jc, 0, sizeof(jc));
	if (form == '{')
		jc.offset = offset(ip, in);
	jc.in = ip;
	lt_jr_init(&jr, in, 1);
	while ((k = lt_jr_next(&jr, &ev)) != LT_JEV_EOF) {
		if (k == LT_JEV_ERROR)
			lt_diepos(LT_EXIT_DATA, in->name, jr.errline,
			    "byte %lld: %s", jr.erroff + 1, jr.err);
		if (k == LT_JEV_TOP)
			top(s, &ev);
		else
			element(s, in, &ev, &jc);
	}
	ps_hold_flush(s);
	s->n[PS_C_DUPKEYS] += jc.dupkeys;
	lt_jr_free(&jr);
}
