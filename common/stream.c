/* See LICENSE file for copyright and license details. */
/*
 * stream.c: reading and writing lt1, the toolkit's event stream.
 *
 * A stream is a "#lt1" header line, then directives ("#...") and records
 * of nine TAB-separated columns (litracer-stream(5)).  Records are split
 * in place; nothing is allocated per line.  Operands are read one after
 * the other, each with its own header; none or "-" is standard input.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "bytes.h"
#include "scan.h"

static const char *stdin_only[] = { "-" };

void
lt_rd_init(struct ltrd *rd, int argc, char **argv)
{
	memset(rd, 0, sizeof(*rd));
	if (argc > 0) {
		rd->files = (const char **)argv;
		rd->nfiles = argc;
	} else {
		rd->files = stdin_only;
		rd->nfiles = 1;
	}
}

/* Bad data at the current line: "PROG: FILE:LINE: message", exit 1. */
void
lt_rd_bad(struct ltrd *rd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lt_diepos(LT_EXIT_DATA, rd->in.name, rd->in.line, "%s", msg);
}

/* Is the line a header, "#lt1" alone or with more after a TAB? */
static int
islt1(const char *line, size_t n)
{
	return n >= 4 && memcmp(line, "#lt1", 4) == 0 &&
	    (n == 4 || line[4] == '\t');
}

/*
 * Read the header of an operand.  Returns 1 when it ends a #valid, and
 * is then in rec to be handed out; else 0.
 */
static int
header(struct ltrd *rd, struct ltrec *rec)
{
	char *line;
	ssize_t n;
	int valid = rd->valid;

	if ((n = lt_in_line(&rd->in, &line)) < 0) {
		/* The stage before failed, and said why. */
		if (strcmp(rd->in.name, "<stdin>") == 0)
			lt_exit(LT_EXIT_DATA);
		lt_diepos(LT_EXIT_DATA, rd->in.name, 1,
		    "empty input, not an lt1 stream");
	}
	if (islt1(line, (size_t)n)) {
		rd->valid = 0;
		rec->line = line;
		rec->len = (size_t)n;
		return valid;
	}
	if (n >= 3 && memcmp(line, "#lt", 3) == 0)
		lt_rd_bad(rd, "unsupported stream version \"%.*s\"",
		    (int)(n > 16 ? 16 : n), line);
	lt_rd_bad(rd, "not an lt1 stream: missing #lt1 header (a log or a "
	    "trace is read by ltparse, or converted by litracer)");
}

/*
 * What a directive does to #valid; 0 for one that is not handed out.
 * #valid holds from before the first record to the end of the only
 * stream: so the stage passes it on ahead of all it writes.  A later one
 * is dropped, and a second stream (operand or "#lt1" line) ends it, its
 * header passed on, so that the stages after know it ended too.
 */
static int
directive(struct ltrd *rd, const struct ltrec *rec)
{
	if (LT_ISVALID(rec->line, rec->len)) {
		if (rd->late)
			return 0;
		rd->valid = 1;
	} else if (islt1(rec->line, rec->len)) {
		rd->valid = 0;
		rd->late = 1;
	}
	return 1;
}

/*
 * The columns of the record at line, up to end or to its first byte
 * stop ('\t': none), sixteen bytes at a time, its TABs and the stop
 * taken from the same mask in order.  Returns where it ends, *ntab its
 * TABs, or NULL when it has more than nine columns.
 */
static inline char *
cols(char *line, char *end, int stop, struct ltrec *rec, int *ntab)
{
	char *p = line, *b, *t;
	unsigned m;
	int i = 0;

	for (b = line; b < end; b += 16) {
		if (end - b >= 16)
			m = lt_scan16(b, '\t', stop);
		else
			for (m = 0, t = b; t < end; t++)
				if (*t == '\t' || *t == stop)
					m |= 1U << (t - b);
		for (; m != 0; m &= m - 1) {
			t = b + lt_scan_first(m);
			if (*t != '\t')
				goto out;
			if (i == LT_NCOL - 1)
				return NULL;
			rec->f[i].p = p;
			rec->f[i++].n = (size_t)(t - p);
			p = t + 1;
		}
	}
	t = end;
out:
	*ntab = i;
	rec->f[LT_EXTRA].p = p;
	rec->f[LT_EXTRA].n = (size_t)(t - p);
	return t;
}

/*
 * LT_HINTCHECK in the environment: each hint is checked against what
 * splitting and reading its line give (the tests set it).
 */
static void
hintcheck(const struct lthint *h, char *line, char *end,
    const struct ltrec *rec)
{
	struct ltrec r;
	int64_t ns;
	int i, ntab, n;

	if (cols(line, end, '\n', &r, &ntab) != line + h->end[LT_EXTRA] ||
	    ntab != LT_NCOL - 1)
		goto bad;
	for (i = 0; i < LT_NCOL; i++)
		if (r.f[i].p != rec->f[i].p || r.f[i].n != rec->f[i].n)
			goto bad;
	for (i = 0; i < 2; i++) {
		r.hinted = 0;
		if ((n = lt_rec_ts(&r, i ? LT_DUR : LT_TS, &ns)) < 0 ||
		    n != rec->has[i] || (n && ns != rec->ns[i]))
			goto bad;
	}
	return;
bad:
	lt_die(LT_EXIT_SYS, "internal error: a hint that is not its line's: "
	    "%.*s", (int)(end - line > 200 ? 200 : end - line), line);
}

/*
 * The record line at in's position when the stage before gave a hint
 * for it: its columns set from the hint, not looked for.  Returns its
 * end, or NULL.
 */
static char *
hinted(struct ltin *in, struct ltrec *rec)
{
	static int check = -1;
	const struct lthint *h;
	uint64_t off = (uint64_t)(in->off + (off_t)in->pos);
	char *line = in->buf + in->pos;
	size_t i, from;

	if ((h = lt_in_hint(in, off)) == NULL || h->off != off ||
	    h->end[LT_EXTRA] >= in->end - in->pos)
		return NULL;
	if (++in->hi == in->nhint)
		in->hi = in->nhint = 0;
	memcpy(rec->end, h->end, sizeof(rec->end));
	for (i = 0, from = 0; i < LT_NCOL; i++) {
		rec->f[i].p = line + from;
		rec->f[i].n = rec->end[i] - from;
		from = (size_t)rec->end[i] + 1;
	}
	rec->hinted = 1;
	rec->has[0] = h->has[0];
	rec->has[1] = h->has[1];
	rec->ns[0] = h->ns[0];
	rec->ns[1] = h->ns[1];
	if (check < 0)
		check = getenv("LT_HINTCHECK") != NULL;
	if (check)
		hintcheck(h, line, in->buf + in->end, rec);
	return line + h->end[LT_EXTRA];
}

/*
 * The record line at in's position, found and split in one look: its
 * end and its columns come from the same masks, so that its bytes are
 * not read once for the one and again for the other.  Returns its
 * length; -1 leaves the line to lt_in_line() and lt_rec_split(), as for
 * a directive, a line that does not end in what is buffered, or one
 * that does not have nine columns (for their message).
 */
static ssize_t
quickrec(struct ltin *in, struct ltrec *rec)
{
	char *line = in->buf + in->pos, *end = in->buf + in->end, *t;
	int ntab;

	if (in->limit >= 0 || line == end || *line == '#')
		return -1;
	if (in->hi < in->nhint && (t = hinted(in, rec)) != NULL)
		goto found;
	rec->hinted = 0;
	if ((t = cols(line, end, '\n', rec, &ntab)) == NULL || t == end ||
	    ntab < LT_NCOL - 1)
		return -1;
found:
	*t = '\0';
	rec->line = line;
	rec->len = (size_t)(t - line);
	in->lineoff = in->off + (off_t)in->pos;
	in->pos += rec->len + 1;
	in->line++;
	return (ssize_t)rec->len;
}

/*
 * The next record or directive of the input.  A record is split into
 * rec->f[]; a directive is in rec->line.  Returns LT_REC, LT_DIR or
 * LT_EOF after the last operand.
 */
int
lt_rd_next(struct ltrd *rd, struct ltrec *rec)
{
	const char *why;
	char *line;
	ssize_t n;

	for (;;) {
		if (!rd->open) {
			if (rd->nfiles == 0)
				return LT_EOF;
			lt_in_open(&rd->in, rd->files[0]);
			rd->files++;
			rd->nfiles--;
			rd->late |= rd->opened;
			rd->open = rd->opened = 1;
			if (header(rd, rec))
				return LT_DIR;
		}
		if (quickrec(&rd->in, rec) >= 0) {
			rd->late = 1;
			return LT_REC;
		}
		if ((n = lt_in_line(&rd->in, &line)) < 0) {
			lt_in_close(&rd->in);
			rd->open = 0;
			continue;
		}
		if (n == 0 || line[0] != '#')
			break;
		rec->line = line;
		rec->len = (size_t)n;
		if (directive(rd, rec))
			return LT_DIR;
	}
	if (lt_rec_split(line, (size_t)n, rec, &why) < 0)
		lt_rd_bad(rd, "%s", why);
	rd->late = 1;
	return LT_REC;
}

/*
 * Split a record line into its nine columns, in place.  Returns 0, or -1
 * with *why saying what is wrong.  The line is looked at once.
 */
int
lt_rec_split(char *line, size_t n, struct ltrec *rec, const char **why)
{
	static const char *few[] = {
		"expected 9 columns, found 1", "expected 9 columns, found 2",
		"expected 9 columns, found 3", "expected 9 columns, found 4",
		"expected 9 columns, found 5", "expected 9 columns, found 6",
		"expected 9 columns, found 7", "expected 9 columns, found 8"
	};
	int ntab;

	rec->line = line;
	rec->len = n;
	rec->hinted = 0;
	if (cols(line, line + n, '\t', rec, &ntab) == NULL) {
		*why = "expected 9 columns, found more";
		return -1;
	}
	if (ntab < LT_NCOL - 1) {
		*why = few[ntab];
		return -1;
	}
	return 0;
}

void
lt_rd_done(struct ltrd *rd)
{
	if (rd->open)
		lt_in_close(&rd->in);
	rd->open = 0;
}

/*
 * Column col (LT_TS or LT_DUR) in nanoseconds.  Returns 1 with *ns set,
 * 0 when the column is "-", and -1 when it is not lt1 microseconds.
 */
int
lt_rec_ts(const struct ltrec *rec, int col, int64_t *ns)
{
	const struct ltfield *f = &rec->f[col];

	if (rec->hinted) {
		if (rec->has[col == LT_DUR])
			*ns = rec->ns[col == LT_DUR];
		return rec->has[col == LT_DUR];
	}
	if (LT_ISNONE(*f))
		return 0;
	return lt_us_parse(f->p, f->n, ns) == LT_NUM_OK ? 1 : -1;
}

const char *const lt_colname[LT_NCOL] = {
	"ts", "ph", "pid", "tid", "dur", "cat", "name", "args", "extra"
};

/* A pid or tid column: 0 canonical, 1 "-0" (written "0"), -1 invalid. */
static int
idcol(const struct ltfield *f)
{
	struct ltjson j;
	int64_t v;
	size_t i;

	if (LT_ISNONE(*f))
		return 0;
	/*
	 * Up to 18 digits, the first not 0 unless alone: canonical, within
	 * int64 and not "-0", what every record has; its value is not
	 * wanted.
	 */
	if (f->n - 1 < 18 && (f->p[0] != '0' || f->n == 1)) {
		for (i = 0; i < f->n && (unsigned)f->p[i] - '0' <= 9; i++)
			;
		if (i == f->n)
			return 0;
	}
	if (f->n > 0 && f->p[0] == '"')
		return lt_json_whole(f->p, f->n, NULL, &j) == LT_JSON_OK &&
		    j.type == '"' && j.flags == 0 ? 0 : -1;
	if (lt_int_parse(f->p, f->n, &v) != LT_NUM_OK)
		return -1;
	return v == 0 && f->n == 2;
}

/*
 * Check every column of a record against litracer-stream(5).  Returns 0
 * when the record is valid; 1 when it is valid but a string or object
 * column is not in canonical form (blanks, other escapes, characters
 * that must be replaced), so the caller may canonicalise it; -1 when it
 * is invalid, with *why saying what and *col which column.
 */
int
lt_rec_check(const struct ltrec *rec, const char **why, int *col)
{
	int64_t ns[2];
	int has[2];

	return lt_rec_checkts(rec, why, col, ns, has, LT_CHECK_ALL);
}

/* Column i of rec, ts or dur, into ns[] and has[]; -1 when malformed. */
static int
timecol(const struct ltrec *rec, int i, const char **why, int64_t ns[2],
    int has[2])
{
	int r;

	if ((r = lt_rec_ts(rec, i, &ns[i == LT_DUR])) < 0) {
		*why = "not microseconds (-?D+ with at most 3 decimals) or -";
		return -1;
	}
	has[i == LT_DUR] = r > 0;
	return 0;
}

/*
 * Is an extra column plain (lt_obj_plain)?  The extras of a stream are
 * mostly the same few ({"cname":"generic_work"}): the last one found
 * plain is kept, and the same bytes are not looked at again.
 */
static int
extraplain(const struct ltfield *f)
{
	static char last[64];
	static size_t lastn;		/* 0: none */

	if (f->n == lastn && lastn != 0 && lt_same(f->p, last, f->n))
		return 1;
	if (!lt_obj_plain(f->p, f->n))
		return 0;
	if (f->n <= sizeof(last)) {
		memcpy(last, f->p, f->n);
		lastn = f->n;
	}
	return 1;
}

/* The phases whose args a JSON writer only looks at under #valid. */
static int
looked(int ph)
{
	return ph == 'X' || ph == 'B' || ph == 'E' || ph == 'i' || ph == 'I';
}

/*
 * lt_rec_check, which also hands out what it read of ts and dur: in
 * ns[0] and ns[1], has[] saying which are not "-".  Under #valid, how
 * is LT_CHECK_LOOK or LT_CHECK_TRUST.  A look at the args column of a
 * slice or an instant is quick (lt_obj_sound): its strings close and its
 * brackets nest, so that whatever a damaged stream claims, a JSON trace
 * written from it loads (Perfetto's importer drops an arg of those it
 * cannot read, not the trace) and a reader of the column never nests
 * deeper than LT_JSON_DEPTH.  The others are checked as without #valid,
 * which costs little: a JSON writer puts the text of cat, name and extra
 * among the event's own members, and Perfetto reads the args of other
 * phases (M, C) strictly (it fails, or hangs, on {"a":1,2}).  A column
 * that fails the look is checked in full.
 */
int
lt_rec_checkts(const struct ltrec *rec, const char **why, int *col,
    int64_t ns[2], int has[2], int how)
{
	const struct ltfield *f = rec->f;
	struct ltjson j;
	int i, c, r, ret = 0;

	*why = NULL;
	ns[0] = ns[1] = 0;
	has[0] = has[1] = 0;
	for (i = 0; i < (how == LT_CHECK_TRUST ? LT_CAT : LT_NCOL); i++) {
		*col = i;
		switch (i) {
		case LT_TS:
		case LT_DUR:
			if (timecol(rec, i, why, ns, has) < 0)
				return -1;
			break;
		case LT_PH:
			c = f[i].n == 1 ? (unsigned char)f[i].p[0] : 0;
			if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') {
				*why = "not a one-character phase";
				return -1;
			}
			break;
		case LT_PID:
		case LT_TID:
			if ((r = idcol(&f[i])) < 0) {
				*why = "not an integer, a JSON string or -";
				return -1;
			}
			ret |= r;
			break;
		case LT_CAT:
		case LT_NAME:
			if (lt_esc_plain(f[i].p, f[i].n))
				break;
			if (lt_json_str(f[i].p, f[i].n, NULL, &j) !=
			    LT_JSON_OK) {
				*why = j.err;
				return -1;
			}
			if (j.flags != 0)
				ret = 1;
			break;
		default:
			if (how == LT_CHECK_LOOK && i == LT_ARGS &&
			    looked(f[LT_PH].p[0]) ? lt_obj_sound(f[i].p,
			    f[i].n) : i == LT_EXTRA ? extraplain(&f[i]) :
			    lt_obj_plain(f[i].p, f[i].n))
				break;
			if (lt_json_whole(f[i].p, f[i].n, NULL, &j) !=
			    LT_JSON_OK) {
				*why = j.err;
				return -1;
			}
			if (j.type != '{') {
				*why = "not a JSON object";
				return -1;
			}
			if (j.flags != 0)
				ret = 1;
		}
	}
	return ret;
}

void
lt_put_header(struct ltout *o)
{
	lt_out_write(o, "#lt1\n", 5);
}

void
lt_put_field(struct ltout *o, const struct ltfield *f)
{
	lt_out_write(o, f->p, f->n);
}

/* Room for one more hint in o (lt_out_hint). */
void
lt_hint_grow(struct ltout *o)
{
	o->hint = lt_grow(o->hint, &o->caphint, o->nhint + 1,
	    sizeof(*o->hint));
}

/*
 * A record read (rec) written again as it is: with its hint when it
 * came with one (lt_out_hint).
 */
void
lt_put_rec(struct ltout *o, const struct ltrec *rec)
{
	lt_out_write(o, rec->line, rec->len);
	lt_out_putc(o, '\n');
	if (rec->hinted)
		lt_out_hint(o, rec->len + 1, rec->end, rec->ns, rec->has);
}

/* ns as lt1 microseconds. */
void
lt_put_us(struct ltout *o, int64_t ns)
{
	char num[LT_NUMBUF];

	lt_out_write(o, num, lt_us_fmt(num, ns));
}

/* "#stat<TAB>TOOL<TAB>key=value..." */
void
lt_put_stat(struct ltout *o, const char *tool, const struct ltstat *st,
    size_t n)
{
	char num[LT_NUMBUF];
	size_t i;

	lt_out_puts(o, "#stat\t");
	lt_out_puts(o, tool);
	for (i = 0; i < n; i++) {
		lt_out_putc(o, '\t');
		lt_out_puts(o, st[i].key);
		lt_out_putc(o, '=');
		lt_out_write(o, num, lt_i64_fmt(num, st[i].val));
	}
	lt_out_putc(o, '\n');
}
