/* See LICENSE file for copyright and license details. */
/*
 * lt.h: the shared library of the litracer tools.
 *
 * Errors and allocation (err.c, alloc.c), buffered input by line and by
 * byte (in.c), buffered output (out.c), the lt1 stream reader and writer
 * (stream.c), exact decimal <-> int64 nanosecond numbers (num.c), JSON
 * string escaping (esc.c), a strict JSON scanner that validates and
 * canonicalises (json.c), and a streaming reader of Chrome trace JSON
 * built on jsmn (jsonev.c).  The stream format is described in
 * litracer-stream(5).
 */
#ifndef LT_H
#define LT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#ifndef JSMN_H		/* only jsonev.c compiles jsmn's code */
#define JSMN_HEADER
#define JSMN_PARENT_LINKS
#include <jsmn.h>
#undef JSMN_HEADER
#endif

#define LT_VERSION	"0.1.0"

#if defined(__GNUC__)
#define LT_NORETURN	__attribute__((noreturn))
#define LT_PRINTF(a, b)	__attribute__((format(printf, a, b)))
#else
#define LT_NORETURN
#define LT_PRINTF(a, b)
#endif

/* Exit status, the same in every program. */
enum {
	LT_EXIT_OK = 0,
	LT_EXIT_DATA = 1,	/* bad data, or findings */
	LT_EXIT_SYS = 2		/* usage, I/O, memory */
};

/* err.c: "PROG: message"; a format ending in ':' appends strerror(errno). */
extern const char *lt_prog;
void	lt_setprog(const char *);
void	lt_die(int, const char *, ...) LT_NORETURN LT_PRINTF(2, 3);
void	lt_warn(const char *, ...) LT_PRINTF(1, 2);
void	lt_diepos(int, const char *, long, const char *, ...)
	    LT_NORETURN LT_PRINTF(4, 5);
void	lt_warnpos(const char *, long, const char *, ...) LT_PRINTF(3, 4);
void	lt_usage(const char *) LT_NORETURN;
void	lt_help(const char *, const char *) LT_NORETURN;
long long lt_strtonum(const char *, long long, long long, const char **);

/* alloc.c: every allocation is checked; failure exits 2. */
void	*lt_malloc(size_t);
void	*lt_calloc(size_t, size_t);
void	*lt_reallocarray(void *, size_t, size_t);
char	*lt_strdup(const char *);

struct ltfield {
	char	*p;
	size_t	 n;
};

/* A growable byte buffer. */
struct ltbuf {
	char	*p;
	size_t	 n;
	size_t	 cap;
};

void	lt_buf_grow(struct ltbuf *, size_t);
void	lt_buf_free(struct ltbuf *);

static inline void
lt_buf_add(struct ltbuf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (b->cap - b->n < n)
		lt_buf_grow(b, n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void
lt_buf_addc(struct ltbuf *b, int c)
{
	if (b->cap == b->n)
		lt_buf_grow(b, 1);
	b->p[b->n++] = (char)c;
}

static inline void
lt_buf_adds(struct ltbuf *b, const char *s)
{
	lt_buf_add(b, s, strlen(s));
}

/* strtab.c: a set of strings with dense indexes in insertion order. */
struct ltstrtab {
	uint32_t	*slot;
	size_t		 cap;
	struct ltbuf	 keys;
	size_t		*off;
	size_t		*len;
	size_t		 n;
	size_t		 capn;
};

size_t	lt_strtab_get(struct ltstrtab *, const char *, size_t, int *);
const char *lt_strtab_key(const struct ltstrtab *, size_t, size_t *);
void	lt_strtab_free(struct ltstrtab *);
uint64_t lt_hash(const void *, size_t);

/* out.c: buffered output on a file descriptor; errors exit 2. */
struct ltout {
	int		 fd;
	const char	*name;
	char		*buf;
	size_t		 n;
	size_t		 cap;
};

void	lt_out_init(struct ltout *, int, const char *);
void	lt_out_flush(struct ltout *);
void	lt_out_close(struct ltout *);
void	lt_out_slow(struct ltout *, const void *, size_t);

static inline void
lt_out_write(struct ltout *o, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (o->cap - o->n >= n) {
		memcpy(o->buf + o->n, p, n);
		o->n += n;
	} else
		lt_out_slow(o, p, n);
}

static inline void
lt_out_putc(struct ltout *o, int c)
{
	if (o->n == o->cap)
		lt_out_flush(o);
	o->buf[o->n++] = (char)c;
}

static inline void
lt_out_puts(struct ltout *o, const char *s)
{
	lt_out_write(o, s, strlen(s));
}

/*
 * in.c: buffered input.  Lines are returned in place, without their
 * '\n'; they stay valid until the next call.  Lines of any length are
 * read.  "-" is standard input.  Open and read errors exit 2.
 */
struct ltin {
	int		 fd;
	const char	*name;		/* as given, "<stdin>" for "-" */
	char		*buf;
	size_t		 cap;
	size_t		 pos;		/* start of unread data */
	size_t		 end;		/* end of data */
	int		 eof;
	long		 line;		/* number of the last line returned */
	off_t		 off;		/* file offset of buf[0] */
	off_t		 lineoff;	/* file offset of the last line */
	off_t		 limit;		/* stop reading here; -1 for none */
	pid_t		 child;		/* decompressor, or -1 */
};

void	lt_in_open(struct ltin *, const char *);
void	lt_in_fdopen(struct ltin *, int, const char *);
ssize_t	lt_in_line(struct ltin *, char **);
size_t	lt_in_fill(struct ltin *, size_t);
void	lt_in_close(struct ltin *);

/* num.c: decimal text <-> int64 nanoseconds, exactly, no floating point. */
enum {
	LT_NUM_OK = 0,
	LT_NUM_SYNTAX = -1,
	LT_NUM_RANGE = -2
};

int	lt_us_parse(const char *, size_t, int64_t *);
int	lt_dec_parse(const char *, size_t, int, int64_t *);
size_t	lt_us_fmt(char *, int64_t);
int	lt_int_parse(const char *, size_t, int64_t *);
int	lt_uint_parse(const char *, size_t, uint64_t *);
size_t	lt_i64_fmt(char *, int64_t);
size_t	lt_u64_fmt(char *, uint64_t);
#define LT_NUMBUF	32

/* esc.c: raw bytes -> JSON string contents (see litracer-stream(5)). */
size_t	lt_esc(struct ltbuf *, const char *, size_t);
int	lt_esc_plain(const char *, size_t);
size_t	lt_utf8_len(const unsigned char *, size_t);
size_t	lt_utf8_put(char *, long);
long	lt_hex4(const char *);
/* esc.c: JSON string contents -> the characters they stand for. */
void	lt_unesc(struct ltbuf *, const char *, size_t);

/*
 * json.c: a strict JSON scanner.  It checks one value against RFC 8259
 * and, given a buffer, writes its canonical minified form: no blanks,
 * strings as esc.c writes them, numbers as written.  What it had to
 * change is or-ed into flags; what it cannot accept is an error.
 */
enum {
	LT_JS_BLANK = 1 << 0,	/* whitespace between tokens */
	LT_JS_ESCAPE = 1 << 1,	/* an escape written another way */
	LT_JS_CTRL = 1 << 2,	/* raw control character in a string */
	LT_JS_UTF8 = 1 << 3,	/* invalid UTF-8, replaced by U+FFFD */
	LT_JS_SURROGATE = 1 << 4, /* \uD800-\uDFFF escape */
	LT_JS_LONE = 1 << 5,	/* lone surrogate, replaced by U+FFFD */
	LT_JS_NUL = 1 << 6,	/* NUL character, replaced by U+FFFD */
	LT_JS_DUPKEY = 1 << 7	/* not detected here; for callers */
};
#define LT_JS_REPAIRED	(LT_JS_CTRL | LT_JS_UTF8 | LT_JS_LONE | LT_JS_NUL)

enum {
	LT_JSON_OK = 0,
	LT_JSON_BAD = -1,	/* syntax error: see err and errat */
	LT_JSON_MORE = -2	/* the text ends inside the value */
};

struct ltjson {
	const char	*err;		/* what is wrong */
	size_t		 errat;		/* offset of the error */
	size_t		 end;		/* offset just after the value */
	unsigned	 flags;		/* LT_JS_* */
	int		 type;		/* first byte of the value: { [ " n t f */
	long		 lines;		/* '\n' bytes up to end */
};

int	lt_json_value(const char *, size_t, struct ltbuf *, struct ltjson *);
int	lt_json_whole(const char *, size_t, struct ltbuf *, struct ltjson *);
int	lt_json_str(const char *, size_t, struct ltbuf *, struct ltjson *);
int	lt_json_objnext(const char **, const char *, const char **, size_t *,
	    const char **, size_t *);
const char *lt_json_member(const char *, size_t, const char *, size_t *);

/* logline.c: one line of a LitData log, tokenised in place. */
enum {
	LT_LOG_EVENT,		/* a record with a ph */
	LT_SKIP_BLANK,		/* empty or blank */
	LT_SKIP_TEXT,		/* a record without ph: a logger message */
	LT_SKIP_NOISE,		/* not a record: stray output */
	LT_SKIP_TRACEBACK,	/* a line of a Python traceback */
	LT_SKIP_TORN,		/* a damaged record */
	LT_NKIND
};

/* The formatter that wrote a record (ltparse(1), section Logs). */
enum {
	LT_GEN_V1,		/* 0.2.45-0.2.56: logger_name, level, seconds */
	LT_GEN_OLD,		/* 0.2.57-0.2.67: seconds */
	LT_GEN_NEW,		/* 0.2.68-: microseconds */
	LT_NGEN
};

struct ltkv {
	const char	*k;
	size_t		 kn;
	const char	*v;
	size_t		 vn;
};

struct ltlog {
	int		 kind;
	const char	*why;		/* for LT_SKIP_TORN */
	int		 gen;		/* LT_GEN_*, for records */
	int		 salvaged;	/* the record followed NUL bytes */
	int		 plain;		/* printable ASCII, nothing to escape */
	int		 crash;		/* a 25bf3ca8 CRASHED message */
	int64_t		 ts;		/* nanoseconds */
	uint64_t	 pid;
	uint64_t	 tid;
	struct ltfield	 name, ph, cat, cname;	/* p == NULL: absent */
	struct ltfield	 tsus;		/* ts as written, when it is lt1 */
	struct ltkv	*kv;		/* other keys, in order */
	size_t		 nkv;
	size_t		 kvcap;
};

int	lt_logline(char *, size_t, struct ltlog *);
void	lt_logline_free(struct ltlog *);

/*
 * jsonev.c: Chrome trace JSON as a stream of events (object or array
 * form), each checked strictly, then cut into jsmn tokens.
 */
enum {
	LT_JEV_EOF = 0,
	LT_JEV_EVENT,		/* an element of traceEvents */
	LT_JEV_TOP,		/* a top-level member other than traceEvents */
	LT_JEV_ERROR
};

struct ltjev {
	int		 kind;
	int		 type;		/* first byte: { [ " n t f - 0-9 */
	unsigned	 flags;		/* LT_JS_* found by the scan */
	const char	*p;		/* the text tokenised (canonical when */
	size_t		 n;		/*   asked for, or repaired) */
	const char	*raw;		/* the event as written in the input */
	size_t		 rawn;
	const char	*key;		/* LT_JEV_TOP: the key's contents */
	size_t		 keyn;
	jsmntok_t	*tok;		/* LT_JEV_EVENT: tokens of p */
	int		 ntok;
	int		 canon;		/* p is a canonical copy, not raw */
	long		 line;		/* where the value starts */
	long long	 off;
};

struct ltjr {
	struct ltin	*in;
	int		 canonical;	/* 1: tokenise canonicalised events,
					   0: as written; see LT_JR_* */
	int		 state;
	int		 form;		/* '{' or '[' */
	int		 first;
	int		 seen_events;
	long		 line;
	jsmntok_t	*tok;
	unsigned	 ntokcap;
	struct ltbuf	 canon;
	struct ltbuf	 key;
	/* What was accepted although strict JSON would not. */
	int		 bom;
	int		 unterminated;	/* array form without its ']' */
	long		 trailing_comma;
	long long	 nevents;
	/* LT_JEV_ERROR */
	const char	*err;
	long		 errline;
	long long	 erroff;
	int		 errtrunc;	/* the input ended there */
};

void	lt_jr_init(struct ltjr *, struct ltin *, int);
int	lt_jr_next(struct ltjr *, struct ltjev *);
void	lt_jr_free(struct ltjr *);
int	lt_jtok_skip(const jsmntok_t *, int);
int	lt_jtok_get(const char *, const jsmntok_t *, int, const char *);

/* stream.c: the lt1 stream. */
enum {
	LT_TS, LT_PH, LT_PID, LT_TID, LT_DUR, LT_CAT, LT_NAME, LT_ARGS,
	LT_EXTRA, LT_NCOL
};

struct ltrec {
	struct ltfield	 f[LT_NCOL];
	char		*line;
	size_t		 len;
};

enum {
	LT_EOF = 0,
	LT_REC = 1,
	LT_DIR = 2
};

struct ltrd {
	struct ltin	 in;
	const char	**files;	/* remaining operands */
	int		 nfiles;
	int		 open;
};

void	lt_rd_init(struct ltrd *, int, char **);
int	lt_rd_next(struct ltrd *, struct ltrec *);
void	lt_rd_bad(struct ltrd *, const char *, ...) LT_NORETURN LT_PRINTF(2, 3);
void	lt_rd_done(struct ltrd *);
int	lt_rec_split(char *, size_t, struct ltrec *, const char **);
int	lt_rec_ts(const struct ltrec *, int, int64_t *);
int	lt_rec_check(const struct ltrec *, const char **, int *);
extern const char *const lt_colname[LT_NCOL];

#define LT_ISNONE(fl)	((fl).n == 1 && (fl).p[0] == '-')
#define LT_IS(fl, s)	((fl).n == sizeof(s) - 1 && \
			    memcmp((fl).p, (s), sizeof(s) - 1) == 0)

void	lt_put_header(struct ltout *);
void	lt_put_rec(struct ltout *, const struct ltrec *);
void	lt_put_field(struct ltout *, const struct ltfield *);
void	lt_put_us(struct ltout *, int64_t);

/* #stat lines: one per tool, keys in a fixed order. */
struct ltstat {
	const char	*key;
	long long	 val;
};

void	lt_put_stat(struct ltout *, const char *, const struct ltstat *, size_t);

/* ltcheck: jsonev.c extensions. */
#define LT_JR_LAZY	2	/* lt_jr_init: canonical copies only of */
				/*   events not written canonically */
int	lt_jr_tokens(struct ltjr *, const char *, size_t);

/*
 * ltlanefix: lanes.c, placing the X slices of one track into lanes so
 * that none cross, and counting crossings.
 */
struct ltslice {
	int64_t		 ts, end;	/* as read, ns */
	int64_t		 nts, nend;	/* as placed */
	uint32_t	 lane;		/* 0: the track itself */
	uint32_t	 snaps;		/* snap steps taken */
};

struct ltiv {
	int64_t		 s, e;
};

struct ltkey;			/* lanes.c */

struct ltlanes {
	uint32_t	*idx;		/* the track's slices, sorted */
	uint32_t	*below;		/* position -> position under it */
	size_t		 belowcap;
	uint32_t	 top0;		/* lane 0's top position */
	uint32_t	*top;		/* lane k's top position */
	size_t		 topcap;
	uint32_t	 nlanes;
	int64_t		*tmax, *tmin;	/* segment tree over lanes */
	size_t		 leaves;
	int64_t		*ends;		/* lt_crossings scratch */
	size_t		 endscap;
	uint32_t	*fen;
	size_t		 fencap;
	struct ltkey	*keys;		/* sort scratch */
	size_t		 keyscap;
};

uint32_t lt_lanes_place(struct ltlanes *, struct ltslice *, uint32_t *,
	    size_t, int64_t);
uint64_t lt_crossings(struct ltlanes *, struct ltiv *, size_t);
void	*lt_grow(void *, size_t *, size_t, size_t);
void	lt_lanes_free(struct ltlanes *);

/* ltpair, ltfilter: obj.c, idtab.c, and lt_json_first in json.c. */
int	lt_json_first(const char *, size_t, struct ltbuf *, struct ltjson *);

/* obj.c: the members of a JSON object column, checked one by one. */
struct ltobj {
	const char	*p;
	const char	*end;
	const char	*err;		/* what is wrong, after -1 */
	int		 state;
};

void	lt_obj_init(struct ltobj *, const char *, size_t);
int	lt_obj_next(struct ltobj *, struct ltfield *, struct ltfield *);

/*
 * idtab.c: processes and threads by the text of their pid and tid
 * columns.  An entry is the caller's struct starting with struct ltid.
 */
struct ltid {
	struct ltid	*next;
	uint64_t	 hash;
	char		*key;		/* TAB pid [TAB tid] */
	size_t		 keyn;
	size_t		 keycap;	/* 0: key is in keyin */
	char		 keyin[24];	/* most keys: one cache line less */
};

struct ltidtab {
	struct ltid	**bkt;
	size_t		 nbkt;
	size_t		 n;		/* live entries */
	size_t		 esz;
	struct ltid	*freel;
};

void	 lt_id_init(struct ltidtab *, size_t);
void	*lt_id_get(struct ltidtab *, const struct ltfield *,
	    const struct ltfield *, int, int *);
void	 lt_id_del(struct ltidtab *, void *);
void	 lt_id_each(struct ltidtab *, void (*)(void *));
void	 lt_id_free(struct ltidtab *, void (*)(void *));

/*
 * ltparse: legacy.c, the names of older LitData releases made stable
 * (v1 "getitem_dataset_for_chunk_index_12_and_index_6151" -> "sample"
 * chunk=12 index=6151), and categories inferred from names.
 */
struct ltarg {
	const char	*k;
	const char	*v;		/* text of the value, in the line */
	size_t		 vn;
};

struct ltnorm {
	const char	*name;		/* the stable name */
	size_t		 namen;
	const char	*cat;		/* the category, or NULL */
	size_t		 catn;
	struct ltarg	 arg[4];	/* found in the name, in order */
	int		 narg;
	int		 renamed;	/* name is not the log's */
	int		 inferred;	/* cat is not the log's */
	int		 role;		/* LT_ROLE_* of the stable name */
	int		 crash;		/* a CRASHED message: kv is its text */
	const char	*cname;		/* a colour trace viewers know, or NULL */
	size_t		 cnamen;
};

/* What an event says about the thread and the process writing it. */
enum {
	LT_ROLE_MAIN = 1,	/* a worker's or the main process's thread */
	LT_ROLE_PREFETCH = 2,	/* PrepareChunksThread */
	LT_ROLE_DOWNLOAD = 4,	/* download and decompress threads */
	LT_ROLE_LOADER = 8	/* the process that iterates the DataLoader */
};

void	lt_lognorm(const struct ltlog *, struct ltnorm *);

/* ltparse: jsonrec.c, a Chrome trace event as an lt1 record. */
struct ltjrec {
	int64_t		 offset;	/* ns added to every ts */
	uint64_t	(*pid)(void *, uint64_t); /* remaps pids, or NULL */
	void		*arg;
	const char	*label;		/* "node N": string pids get " (node N)",
					   process names " (node N, pid P)" */
	const char	*why;		/* why an event has no lt1 form */
	long long	 dupkeys;	/* repeated members dropped */
	int		 named;		/* the event named a moved process */
};

int	lt_jrec(const struct ltjev *, struct ltbuf *, struct ltjrec *);

/* ltparse: jsonev.c, lt_jr_init mode that only checks events. */
#define LT_JR_CHECK	(-1)	/* no tokens: ev->ntok is 0 */

/* ltparse: in.c, back to the start of a seekable input; -1 if not. */
int	lt_in_rewind(struct ltin *);

/* ltparse, JSON speed: json.c, canonicalised only when not canonical. */
int	lt_json_lazy(const char *, size_t, struct ltbuf *, struct ltjson *);

/* ltparse, JSON speed: jsontail.c, the ts offset of an ltjson trace. */
#define LT_JTAIL	(1024 * 1024)	/* bytes of a trace's end read */
#define LT_JDIRTY_KEEP	11

struct ltjdirty {
	off_t		 seen;		/* bytes fed */
	off_t		 first;		/* offset of the first find, or -1 */
	char		 keep[LT_JDIRTY_KEEP];
	size_t		 nkeep;
};

int	lt_jtail(const char *, size_t, int64_t *, size_t *);
size_t	lt_jdirty(const char *, size_t);
void	lt_jdirty_feed(struct ltjdirty *, const char *, size_t);
int64_t	lt_jtsoffset(const char *, size_t);
int64_t	lt_jr_prescan(struct ltin *);

/*
 * fastchain: pipe.c, a bigger pipe buffer (Linux) for the stream
 * between two stages; called by lt_in_fdopen and lt_out_init.
 */
void	lt_pipe_grow(int);

/* fastchain: obj.c, objects of plain members (valid, canonical). */
int	lt_obj_plain(const char *, size_t);
long	lt_obj_split(const char *, size_t, struct ltfield *,
	    struct ltfield *, size_t);

/* fastchain: out.c, room for n bytes to write in place (see out.c). */
char	*lt_out_room(struct ltout *, size_t);

/*
 * fastchain: n bytes of p to w, which has room; returns w + n.  Most
 * pieces of a record are a few bytes: two moves that may overlap, never
 * reading outside p[0..n), cost less than a call to memcpy.
 */
static inline char *
lt_put(char *w, const char *p, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n >= 8 && n <= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
		memcpy(w, &a, 8);
		memcpy(w + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&c, p, 4);
		memcpy(&d, p + n - 4, 4);
		memcpy(w, &c, 4);
		memcpy(w + n - 4, &d, 4);
	} else if (n > 16)
		memcpy(w, p, n);
	else if (n > 0) {
		w[0] = p[0];		/* 1 to 3 bytes */
		w[n / 2] = p[n / 2];
		w[n - 1] = p[n - 1];
	}
	return w + n;
}

/* fastchain: stream.c, lt_rec_check handing out ts and dur as read. */
int	lt_rec_checkts(const struct ltrec *, const char **, int *,
	    int64_t[2], int[2]);

#endif
