/* See LICENSE file for copyright and license details. */
/*
 * lt.h: the core that every litracer program links, one block per file
 * (the Makefile's CORE): errors (err.c), allocation and growable buffers
 * (alloc.c), buffered input by line and by byte (in.c), buffered output
 * (out.c), exact decimal <-> int64 nanosecond numbers (num.c), JSON
 * string escaping (esc.c), a strict JSON scanner that validates and
 * canonicalises (json.c), the members of a JSON object column (obj.c),
 * the lt1 stream reader and writer (stream.c), a hash table (map.c), and
 * the stages of a chain run in one process (chain.c, for ltchain).
 * The stream format is described in litracer-stream(5).  What the core's
 * files share among themselves is in core.h; the modules two programs
 * or more link have headers of their own beside them; what one program
 * alone uses is in tools/PROGRAM/.
 */
#ifndef LT_H
#define LT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define LT_VERSION	"0.1.0"

#if defined(__GNUC__)
#define LT_NORETURN	__attribute__((noreturn))
#define LT_PRINTF(a, b)	__attribute__((format(printf, a, b)))
#define LT_STAGE	__attribute__((section("ltstage")))
#else
#define LT_NORETURN
#define LT_PRINTF(a, b)
#define LT_STAGE
#endif

/* Exit status, the same in every program. */
enum {
	LT_EXIT_OK = 0,
	LT_EXIT_DATA = 1,	/* bad data, or findings */
	LT_EXIT_SYS = 2		/* usage, I/O, memory */
};

/* err.c: "PROG: message"; a format ending in ':' appends strerror(errno). */
void	lt_setprog(const char *);
const char *lt_progname(void);
void	lt_die(int, const char *, ...) LT_NORETURN LT_PRINTF(2, 3);
void	lt_warn(const char *, ...) LT_PRINTF(1, 2);
void	lt_diepos(int, const char *, long, const char *, ...)
	    LT_NORETURN LT_PRINTF(4, 5);
void	lt_warnpos(const char *, long, const char *, ...) LT_PRINTF(3, 4);
void	lt_exit(int) LT_NORETURN;
void	lt_usage(const char *) LT_NORETURN;
void	lt_help(const char *, const char *) LT_NORETURN;
void	lt_version(void) LT_NORETURN;
/* getopt_long's value for --version, which every program takes. */
#define LT_OPT_VERSION	256
long long lt_strtonum(const char *, long long, long long, const char **);
size_t	lt_env_bytes(const char *, size_t);

/* alloc.c: every allocation is checked; failure exits 2. */
void	*lt_malloc(size_t);
void	*lt_calloc(size_t, size_t);
void	*lt_reallocarray(void *, size_t, size_t);
char	*lt_strdup(const char *);
/* Room for need elements of size bytes at p (doubling, from 4). */
void	*lt_grow(void *, size_t *, size_t, size_t);
void	*lt_grow_zero(void *, size_t *, size_t *, size_t, size_t);
void	 lt_trim(void);

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

/*
 * chain.c: ltchain(1) runs the stages of a chain in one process, each a
 * coroutine with its own stack.  A stage's standard input and output (as
 * in.c and out.c open fd 0 and 1) are then channels to its neighbours;
 * lt_exit() ends the stage, not the process; and the state of common/
 * marked LT_STAGE is the stage's own, swapped in when it runs.
 */
struct ltchan;
struct ltstage {
	const char	*name;
	int		(*main)(int, char *[]);
	int		 argc;
	char		**argv;
	int		 err;		/* its stderr, or -1: the chain's */
	int		 status;	/* how it ended (0 to 255) */
};

/*
 * A channel's buffers have LT_CHANHEAD bytes of room before the data, so
 * that the reader takes the writer's buffer whole, the piece of a line
 * it has left put before it, and gives its own in exchange: no copy.
 */
#define LT_CHANHEAD	(16 * 1024)
#define LT_OUTBUF	(256 * 1024)	/* an output's buffer (out.c) */

struct ltin;
struct ltout;
struct ltchan *lt_chan_of(int);
size_t	lt_chan_read(struct ltchan *, struct ltin *, size_t);
void	lt_chan_write(struct ltchan *, const char *, size_t, struct ltout *);
void	lt_chain_run(struct ltstage *, int);
int	lt_chain_fork(int);
void	lt_chain_wait(int *);

/* The programs' main functions (common/main.c, ltchain). */
int	ltparse_main(int, char *[]);
int	ltpair_main(int, char *[]);
int	ltfilter_main(int, char *[]);
int	ltlanefix_main(int, char *[]);
int	ltstat_main(int, char *[]);
int	ltjson_main(int, char *[]);
int	ltproto_main(int, char *[]);
int	ltcheck_main(int, char *[]);
int	ltchain_main(int, char *[]);

/* out.c: buffered output on a file descriptor; errors exit 2. */
struct ltout {
	int		 fd;
	const char	*name;
	char		*buf;
	size_t		 n;
	size_t		 cap;
	size_t		 head;		/* room before buf (a channel's) */
	struct ltchan	*chan;		/* fd 1 in ltchain: the next stage */
	uint64_t	 done;		/* bytes handed to chan so far */
	struct lthint	*hint;		/* lines of buf with known columns */
	size_t		 nhint, caphint;
};

int	lt_out_create(const char *);
int	lt_out_replace(const char *);
void	lt_out_commit(const char *);
void	lt_out_abandon(void);
void	lt_out_init(struct ltout *, int, const char *);
void	lt_out_mem(struct ltout *);
int	lt_tmp_open(const char *, const char **, const char **);
void	lt_out_flush(struct ltout *);
void	lt_out_close(struct ltout *);
void	lt_out_slow(struct ltout *, const void *, size_t);
/* Room for n bytes to write in place (see out.c). */
char	*lt_out_room(struct ltout *, size_t);
void	lt_out_printf(struct ltout *, const char *, ...) LT_PRINTF(2, 3);
/* pipe.c: a file's bytes from an offset on, after what an output holds. */
void	lt_out_append(struct ltout *, int, off_t, const char *);

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
	off_t		 size;		/* the bytes to read, or -1: to the end */
	struct ltchan	*chan;		/* fd 0 in ltchain: the stage before */
	struct lthint	*hint;		/* the stage before's (lt_rd_next), */
	size_t		 nhint, hi, caphint;	/*   hi the next */
};

void	lt_in_open(struct ltin *, const char *);
void	lt_in_fdopen(struct ltin *, int, const char *);
ssize_t	lt_in_line(struct ltin *, char **);
size_t	lt_in_fill(struct ltin *, size_t);
void	lt_in_close(struct ltin *);
/*
 * A regular file read from byte off on as if it were size bytes long:
 * later bytes are not read, and one that ends sooner (cut shorter
 * meanwhile) is an error, exit 2.
 */
void	lt_in_bounded(struct ltin *, const char *, off_t, off_t);
/* Read on from byte off of a file (not one read through gzip). */
void	lt_in_seek(struct ltin *, off_t);
/* Back to the start of a seekable input; -1 if not. */
int	lt_in_rewind(struct ltin *);
/* fn is called after each read of any input (a progress line). */
void	lt_in_watch(void (*)(const struct ltin *));
/* The n bytes at an offset of a file: 1, 0 if it ends before, -1 errno. */
int	lt_pread_all(int, void *, size_t, off_t);

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
	LT_JS_NUL = 1 << 6	/* NUL character, replaced by U+FFFD */
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

/* obj.c: the members of a JSON object column, checked one by one. */
struct ltobj {
	const char	*p;
	const char	*end;
	const char	*err;		/* what is wrong, after -1 */
	int		 state;
};

void	lt_obj_init(struct ltobj *, const char *, size_t);
int	lt_obj_next(struct ltobj *, struct ltfield *, struct ltfield *);

/* JSON nests at most this deep, whatever a stream claims (#valid). */
#define LT_JSON_DEPTH	1000

/* Objects of plain members (valid, canonical), cut into fields. */
int	lt_obj_plain(const char *, size_t);
/* The quick look at an object under #valid: its strings and brackets. */
int	lt_obj_sound(const char *, size_t);
long	lt_obj_split(const char *, size_t, struct ltfield *,
	    struct ltfield *, size_t);


/* stream.c: the lt1 stream. */
enum {
	LT_TS, LT_PH, LT_PID, LT_TID, LT_DUR, LT_CAT, LT_NAME, LT_ARGS,
	LT_EXTRA, LT_NCOL
};

struct ltrec {
	struct ltfield	 f[LT_NCOL];
	char		*line;
	size_t		 len;
	int		 hinted;	/* its ts and dur are in ns and has: */
					/*   lt_rd_next, lt_rec_split set it; */
					/*   one made by hand is zeroed */
	int		 has[2];
	int64_t		 ns[2];
	uint16_t	 end[LT_NCOL];	/* when hinted: struct lthint's */
};

/*
 * ltchain: a record line that a stage wrote, its columns and times as
 * the stage knew them, handed to the next stage with the bytes, so that
 * it need not look for them again (lt_out_hint, lt_rd_next).  Where
 * each column ends (its TAB, or the line's '\n' for the last), from
 * the first byte of the line, which is at off in the stream.
 */
struct lthint {
	uint64_t	 off;
	int64_t		 ns[2];		/* ts and dur, when has */
	uint16_t	 end[LT_NCOL];
	uint8_t		 has[2];
};

/*
 * The first hint of in for the stream from pos on, those before it
 * dropped (when all are, none is kept); NULL when there is none.
 */
static inline const struct lthint *
lt_in_hint(struct ltin *in, uint64_t pos)
{
	while (in->hi < in->nhint && in->hint[in->hi].off < pos)
		in->hi++;
	if (in->hi < in->nhint)
		return &in->hint[in->hi];
	in->hi = in->nhint = 0;
	return NULL;
}

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
	int		 opened;	/* an operand was */
	int		 valid;		/* under #valid: records need no check */
	int		 late;		/* a record or a second stream came */
};

/*
 * The directive by which the stage that made a stream promises that its
 * records are valid and canonical (litracer-stream(5)): honoured before
 * the first record of a reader's only stream.
 */
#define LT_VALID	"#valid"
#define LT_ISVALID(line, n)	((n) == sizeof(LT_VALID) - 1 && \
				    memcmp((line), LT_VALID, (n)) == 0)

void	lt_rd_init(struct ltrd *, int, char **);
int	lt_rd_next(struct ltrd *, struct ltrec *);
void	lt_rd_bad(struct ltrd *, const char *, ...) LT_NORETURN LT_PRINTF(2, 3);
void	lt_rd_done(struct ltrd *);
int	lt_rec_split(char *, size_t, struct ltrec *, const char **);
int	lt_rec_ts(const struct ltrec *, int, int64_t *);
/*
 * A record checked, its ts and dur handed out.  Under #valid, the string
 * and object columns are only looked at (LT_CHECK_LOOK: what a JSON
 * writer needs), or taken as they are (LT_CHECK_TRUST: a writer no text
 * can break, ltproto).
 */
enum { LT_CHECK_ALL, LT_CHECK_LOOK, LT_CHECK_TRUST };
int	lt_rec_checkts(const struct ltrec *, const char **, int *,
	    int64_t[2], int[2], int);
extern const char *const lt_colname[LT_NCOL];

#define LT_ISNONE(fl)	((fl).n == 1 && (fl).p[0] == '-')
#define LT_IS(fl, s)	((fl).n == sizeof(s) - 1 && \
			    memcmp((fl).p, (s), sizeof(s) - 1) == 0)

void	lt_put_header(struct ltout *);
void	lt_put_field(struct ltout *, const struct ltfield *);
void	lt_put_us(struct ltout *, int64_t);
void	lt_put_rec(struct ltout *, const struct ltrec *);
void	lt_hint_grow(struct ltout *);

/*
 * The record line of len bytes, its '\n' included, just written to o,
 * whose column ends (struct lthint) and times its writer knows: they go
 * with the bytes to the next stage in ltchain.  Elsewhere nothing, nor
 * for a line not whole in the buffer (flushed on the way) or too long.
 */
static inline void
lt_out_hint(struct ltout *o, size_t len, const uint16_t end[LT_NCOL],
    const int64_t ns[2], const int has[2])
{
	struct lthint *h;

	if (o->chan == NULL || o->n < len || len - 1 > UINT16_MAX)
		return;
	if (o->nhint == o->caphint)
		lt_hint_grow(o);
	h = &o->hint[o->nhint++];
	h->off = o->done + o->n - len;
	memcpy(h->end, end, sizeof(h->end));
	h->ns[0] = has[0] ? ns[0] : 0;
	h->ns[1] = has[1] ? ns[1] : 0;
	h->has[0] = has[0] != 0;
	h->has[1] = has[1] != 0;
}

/* #stat lines: one per tool, keys in a fixed order. */
struct ltstat {
	const char	*key;
	long long	 val;
};

void	lt_put_stat(struct ltout *, const char *, const struct ltstat *, size_t);

/*
 * map.c: 64-bit hash -> 32-bit value, open addressing.  eq(arg, value)
 * tells a stored key from another of the same hash (NULL: the hash is
 * the key).  Zero the struct to start.
 */
struct ltmap {
	uint64_t	*h;
	uint32_t	*v;
	size_t		 n, cap;
};

uint32_t *lt_map_get(struct ltmap *, uint64_t,
	    int (*)(const void *, uint32_t), const void *, int *);
void	lt_map_free(struct ltmap *);

/*
 * map.c: a set of indices into the caller's array, by a 64-bit hash of
 * what is behind them; 4 bytes a slot, the hashes made again by
 * hash(ctx, index) when it grows.  Zero the struct to start.
 */
struct ltix {
	uint32_t	*v;		/* index + 1, 0: free */
	size_t		 n, cap;
};

uint32_t *lt_ix_get(const struct ltix *, uint64_t,
	    int (*)(const void *, uint32_t), const void *);
void	lt_ix_room(struct ltix *, uint64_t (*)(const void *, uint32_t),
	    const void *);
void	lt_ix_set(struct ltix *, uint32_t *, uint32_t);
void	lt_ix_add(struct ltix *, uint32_t,
	    uint64_t (*)(const void *, uint32_t), const void *);
void	lt_ix_del(struct ltix *, uint32_t *,
	    uint64_t (*)(const void *, uint32_t), const void *);
void	lt_ix_free(struct ltix *);

/*
 * map.c: slots of what is alive, by a 32-bit key (a track, a sequence):
 * the caller keeps their state in its own array by slot, and a slot let
 * go of is given again, so that the array is as long as the most alive
 * at once, not as the keys ever seen.  Zero the struct to start.
 */
#define LT_NOSLOT	UINT32_MAX
#define LT_SLOTHOT	16

struct ltslots {
	struct ltix	 ix;
	uint32_t	*key;		/* by slot */
	uint32_t	*free;		/* slots let go of */
	size_t		 n, cap, nfree, capfree;
	uint32_t	 hot[LT_SLOTHOT];	/* slot + 1 of a key found */
};

uint32_t lt_slot_look(struct ltslots *, uint32_t);
uint32_t lt_slot_add(struct ltslots *, uint32_t, int *);
void	lt_slot_del(struct ltslots *, uint32_t);
void	lt_slot_free(struct ltslots *);

/* The slot of key, or LT_NOSLOT: one found lately without a call. */
static inline uint32_t
lt_slot_get(struct ltslots *sl, uint32_t key)
{
	uint32_t h = sl->hot[key & (LT_SLOTHOT - 1)];

	if (h != 0 && sl->key[h - 1] == key)
		return h - 1;
	return lt_slot_look(sl, key);
}
uint64_t lt_hash(const void *, size_t);

/*
 * A 64-bit integer mixed so that its low bits depend on all of it.
 * Inline: the tables of ltproto's window and roots mix a key for
 * every packet, several times, and the call cost more than the mix.
 */
static inline uint64_t
lt_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
