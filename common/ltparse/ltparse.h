/* See LICENSE file for copyright and license details. */
/*
 * ltparse.h: what ltparse alone uses.  A LitData log line tokenised in
 * place (logline.c), the names of older releases made stable and
 * categories inferred (legacy.c), a log event as an lt1 record
 * (logrec.c), a Chrome trace event as an lt1 record (jsonrec.c), the
 * timestamp offset of a trace ltjson wrote (jsontail.c), the reading of
 * a log input (login.c) and a JSON input (jsonin.c), the parts of -P
 * (parts.c), the processes and threads of the logs (procs.c) and the
 * ids of JSON inputs (jsonids.c), and the output with its counters
 * (sink.c).  ltparse(1) describes the formats.
 */
#ifndef LT_LTPARSE_H
#define LT_LTPARSE_H

#include <stdio.h>

#include "lt.h"

struct ltjev;			/* jsonev.h */

/* logline.c: one line of a LitData log, tokenised in place. */
enum {
	LT_LOG_EVENT,		/* a record with a ph */
	LT_SKIP_BLANK,		/* empty or blank */
	LT_SKIP_TEXT,		/* a record without ph: a logger message */
	LT_SKIP_NOISE,		/* not a record: stray output */
	LT_SKIP_TRACEBACK,	/* a line of a Python traceback */
	LT_SKIP_TORN,		/* a damaged record */
	LT_SKIP_PHASE,		/* an event of a phase LitData never writes */
	LT_NKIND,
	LT_LOG_MORE = LT_NKIND	/* lt_logread: the line goes on */
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

/*
 * Are the n bytes at a and at b the same?  For the short texts of ids:
 * a few loads, which may overlap, no call.
 */
static inline int
lt_same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t c, d;
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&c, a, 4);
		memcpy(&d, b, 4);
		if (c != d)
			return 0;
		memcpy(&c, a + n - 4, 4);
		memcpy(&d, b + n - 4, 4);
		return c == d;
	}
	return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] &&
	    a[n - 1] == b[n - 1]);
}

/* The last PID or TID text read, and its value. */
struct ltidc {
	char		 text[20];
	unsigned char	 n;		/* 0: none */
	uint64_t	 id;
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
	struct ltidc	 pidc, tidc;
};

int	lt_logline(char *, size_t, struct ltlog *);
int	lt_logread(char *, size_t, int, struct ltlog *, size_t *);
void	lt_logline_free(struct ltlog *);

/*
 * legacy.c: the names of older LitData releases made stable
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

/* sink.c: the stream ltparse writes, and what it counts. */
enum {
	LT_C_LINES,
	LT_C_EVENTS,
	LT_C_SKIP,		/* + kind - 1: skipped log lines by kind */
	LT_C_SKIPJSON = LT_C_SKIP + LT_NKIND - 1,
	LT_C_SKIPDUR,		/* JSON X events of negative dur */
	LT_C_GEN,		/* + LT_GEN_*: records by generation */
	LT_C_JSON = LT_C_GEN + LT_NGEN,
	LT_C_RENAMED,
	LT_C_INFERRED,
	LT_C_SALVAGED,
	LT_C_META,
	LT_C_REPLACED,
	LT_C_REPAIRED,
	LT_C_DUPKEYS,
	LT_C_TOP,
	LT_NCOUNT
};

struct ltsink {
	struct ltout	 out;
	struct ltbuf	 rec;		/* the record being made */
	long long	 n[LT_NCOUNT];
	int		 verbose;	/* -v: every skipped line on stderr */
	int		 quiet;		/* rebuilding state: nothing written */
	int		 t0done;	/* #t0 is behind us */
};

void	lt_sink_head(struct ltsink *);
void	lt_sink_t0(struct ltsink *, const char *, size_t, int);
void	lt_sink_meta(struct ltsink *, uint64_t, uint32_t, const char *,
	    const char *, long long);
void	lt_sink_stats(struct ltsink *, long long, long long);
const char *lt_quote(char *, size_t, const char *, size_t);

/* logrec.c: a log event as an lt1 record, made in a buffer. */
size_t	lt_logrec(struct ltbuf *, const struct ltlog *, const struct ltnorm *,
	    const char *, size_t, size_t, long long *);

/* procs.c: the processes and threads of the inputs. */
struct ltpin {
	const char	*path;
	uint32_t	 index;		/* 0, 1, ... in the order given */
	uint32_t	 block;		/* pid block; 0 keeps the OS pids */
	char		 label[32];	/* "node N", "input I", or "" */
	off_t		 size;		/* in part mode */
};

struct ltthread {
	uint64_t	 os;		/* the OS thread id from the log */
	uint32_t	 proc;		/* index of its process */
	uint32_t	 tid;		/* small, unique within the process */
	uint32_t	 next;		/* next thread of the process, or 0 */
	unsigned	 roles;		/* LT_ROLE_* of its events */
	unsigned char	 idn;
	char		 id[40];	/* "\tpid\ttid\t-\t", made once */
};

enum {
	LT_START_NONE,		/* neither known */
	LT_START_RANK,		/* the rank known, LT_INHERIT stands for it */
	LT_START_WORKER,	/* the worker known, the same */
	LT_NSTART
};
#define LT_INHERIT	(-2)

struct ltproc {
	uint64_t	 key;		/* block << 32 | OS pid */
	uint64_t	 pid;		/* as written */
	const struct ltpin *in;
	/*
	 * The rank and the worker (-1: unknown) that its events give,
	 * from each state they may start in (LT_START_*); in the first,
	 * once all are read, the process's.
	 */
	int64_t		 rank[LT_NSTART];
	int64_t		 worker[LT_NSTART];
	int64_t		 arank, aworker; /* lt_procs_load: of parts before */
	int		 main;		/* wrote dataloader or batch spans */
	uint32_t	 nthreads;
	uint32_t	 first;		/* first thread, or 0 */
	uint32_t	 last;
};

struct ltthread	*lt_thread(const struct ltpin *, uint64_t, uint64_t);
int	lt_hasthread(const struct ltpin *, uint64_t, uint64_t);
struct ltproc	*lt_threadproc(const struct ltthread *);
void	lt_learn(struct ltproc *, const struct ltlog *, const struct ltnorm *);
void	lt_names(struct ltsink *, const struct ltpin *);
void	lt_procs_save(FILE *);
int	lt_procs_load(FILE *, const struct ltpin *, uint32_t);
void	lt_procs_merged(void);
long long lt_nlogprocs(void);
long long lt_nthreads(void);
void	lt_procs_free(void);

/* jsonids.c: the pids and tids of JSON inputs, made valid. */
enum {
	LT_JID_NONE,		/* absent */
	LT_JID_INT,		/* an integer, or a string spelling one: v */
	LT_JID_TEXT		/* any other number or string: p[0..n) */
};

struct ltjid {			/* a pid or tid as written */
	int		 kind;
	int		 str;		/* a string: p is its contents */
	int64_t		 v;
	const char	*p;
	size_t		 n;
};

const char *lt_jsonids(const struct ltpin *, const struct ltjid *, int,
	    uint64_t *);
void	lt_jsonnames(struct ltsink *, const struct ltpin *);
void	lt_jsonids_free(void);

/* login.c: a log input, line by line. */
struct ltsid {			/* a thread of a log, as written */
	uint32_t	 input;
	uint64_t	 pid;
	uint64_t	 os;
};

#define LT_SCANCACHE	8

struct ltscan {			/* the threads a range's events make */
	struct ltsid	*id;	/* in order of their first event */
	size_t		 nid, capid;
	struct ltmap	 seen;
	/*
	 * The text of threads seen, last found: "PID:P; TID:T;" as it
	 * follows the ts of a record.
	 */
	char		 last[LT_SCANCACHE][48];
	unsigned char	 lastn[LT_SCANCACHE];
	int		 hit, next;
};

void	lt_login(const struct ltpin *, struct ltin *, off_t, struct ltsink *);
void	lt_logscan(const struct ltpin *, struct ltin *, struct ltscan *);
void	lt_scan_free(struct ltscan *);

/* parts.c: part k of N of the inputs (-P), the state kept in dir. */
void	lt_parts(struct ltpin *, int, int, int, const char *,
	    struct ltsink *);

/* jsonrec.c: a Chrome trace event as an lt1 record. */
struct ltjrec {
	int64_t		 offset;	/* ns added to every ts */
	const struct ltpin *in;		/* the input, for jsonids.c */
	const char	*why;		/* why an event has no lt1 form */
	int		 negdur;	/* it is an X of negative dur */
	long long	 dupkeys;	/* repeated members dropped */
};

int	lt_jrec(const struct ltjev *, struct ltbuf *, struct ltjrec *);

/* jsontail.c: the ts offset of a trace that ltjson wrote. */
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
int64_t	lt_jr_prescan(struct ltin *);

/* jsonin.c: a JSON input, recognised and converted. */
int	lt_isjson(struct ltin *);
int	lt_isreg(const char *);
void	lt_jsonin(const struct ltpin *, struct ltin *, int, struct ltsink *);

#endif
