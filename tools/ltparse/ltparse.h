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
#ifndef PS_LTPARSE_H
#define PS_LTPARSE_H

#include <stdio.h>

#include "lt.h"
#include "bytes.h"

struct ltjev;			/* jsonev.h */

/* logline.c: one line of a LitData log, tokenised in place. */
enum {
	PS_LOG_EVENT,		/* a record with a ph */
	PS_SKIP_BLANK,		/* empty or blank */
	PS_SKIP_TEXT,		/* a record without ph: a logger message */
	PS_SKIP_NOISE,		/* not a record: stray output */
	PS_SKIP_TRACEBACK,	/* a line of a Python traceback */
	PS_SKIP_TORN,		/* a damaged record */
	PS_SKIP_PHASE,		/* an event of a phase LitData never writes */
	PS_NKIND,
	PS_LOG_MORE = PS_NKIND	/* ps_logread: the line goes on */
};

/* The formatter that wrote a record (ltparse(1), section Logs). */
enum {
	PS_GEN_V1,		/* 0.2.45-0.2.56: logger_name, level, seconds */
	PS_GEN_OLD,		/* 0.2.57-0.2.67: seconds */
	PS_GEN_NEW,		/* 0.2.68-: microseconds */
	PS_NGEN
};

struct pskv {
	const char	*k;
	size_t		 kn;
	const char	*v;
	size_t		 vn;
};

/* The last PID or TID texts read, and their values. */
#define PS_IDCACHE	4

struct psidc {
	struct {
		char		 text[20];
		unsigned char	 n;	/* 0: none */
		uint64_t	 id;
	}		 e[PS_IDCACHE];
	unsigned	 hit;		/* the entry that matched last */
	unsigned	 next;		/* the entry replaced next */
};

/*
 * The env keys that end every event of a process ("dist_world_size: 2;
 * ...;worker_rank: 1;"), as read last in a process: their text, where
 * their keys and values are in it, and their args as logrec.c writes
 * them (each after a ',').  A record that ends in the same bytes takes
 * them from here instead of cutting and writing them again.
 */
#define PS_NTAIL	64		/* processes remembered, by pid */
#define PS_TAILRAW	160
#define PS_TAILKV	8
#define PS_TAILOUT	(PS_TAILRAW + 6 * PS_TAILKV)

struct pstail {
	uint16_t	 n;		/* bytes of raw, 0: none */
	uint16_t	 outn;		/* bytes of out, 0: not written yet */
	uint8_t		 nkv;
	struct {
		uint8_t	 k, kn, v, vn;	/* offsets and lengths in raw */
	}		 kv[PS_TAILKV];
	char		 raw[PS_TAILRAW];
	char		 out[PS_TAILOUT];
};

/*
 * What the bytes after the ts of a record give, from its PID to the end
 * of the columns right after its TID ("PID:P; TID:T; name: N;ph: B;cat:
 * C;cname: X;"), as read last in a thread: their text, the pid and tid,
 * and where the values of name, ph, cat and cname are in it (offset 0:
 * not there).  A thread writes these bytes again and again but for the
 * ph: a record that starts so after its ts, its ph aside, takes them
 * from here instead of cutting them again.
 */
#define PS_NHEAD	64		/* slots, by the first bytes (logline.c) */
#define PS_HEADRAW	128

enum { PS_HNAME, PS_HPH, PS_HCAT, PS_HCNAME, PS_NHCOL };

struct pshead {
	uint8_t		 n;		/* bytes of raw, 0: none */
	uint8_t		 off[PS_NHCOL];	/* of a column's value in raw */
	uint8_t		 len[PS_NHCOL];
	uint64_t	 pid;
	uint64_t	 tid;
	char		 raw[PS_HEADRAW];
};

struct pslog {
	int		 kind;
	const char	*why;		/* for PS_SKIP_TORN */
	int		 gen;		/* PS_GEN_*, for records */
	int		 salvaged;	/* the record followed NUL bytes */
	int		 plain;		/* printable ASCII, nothing to escape */
	int		 crash;		/* a 25bf3ca8 CRASHED message */
	int64_t		 ts;		/* nanoseconds */
	uint64_t	 pid;
	uint64_t	 tid;
	struct ltfield	 name, ph, cat, cname;	/* p == NULL: absent */
	struct ltfield	 tsus;		/* ts as written, when it is lt1 */
	struct pskv	*kv;		/* other keys, in order */
	size_t		 nkv;
	size_t		 kvcap;
	struct psidc	 pidc, tidc;
	struct pstail	 tails[PS_NTAIL];
	struct pstail	*tail;		/* the env keys of this record: */
	size_t		 kvtail;	/*   kv[kvtail..nkv), or NULL */
	struct pshead	 heads[PS_NHEAD];
};

int	ps_logline(char *, size_t, struct pslog *);
/* The quick ways of logline.c for the usual prefix and ts: 1, unless a
   test compares them with the general ones. */
extern int ps_logquick;
int	ps_logread(char *, size_t, int, struct pslog *, size_t *);
void	ps_logline_free(struct pslog *);

/*
 * legacy.c: the names of older LitData releases made stable
 * (v1 "getitem_dataset_for_chunk_index_12_and_index_6151" -> "sample"
 * chunk=12 index=6151), and categories inferred from names.
 */
struct psarg {
	const char	*k;
	const char	*v;		/* text of the value, in the line */
	size_t		 vn;
};

struct psnorm {
	const char	*name;		/* the stable name */
	size_t		 namen;
	const char	*cat;		/* the category, or NULL */
	size_t		 catn;
	struct psarg	 arg[4];	/* found in the name, in order */
	int		 narg;
	int		 renamed;	/* name is not the log's */
	int		 inferred;	/* cat is not the log's */
	int		 role;		/* PS_ROLE_* of the stable name */
	int		 crash;		/* a CRASHED message: kv is its text */
	const char	*cname;		/* a colour trace viewers know, or NULL */
	size_t		 cnamen;
};

/* What an event says about the thread and the process writing it. */
enum {
	PS_ROLE_MAIN = 1,	/* a worker's or the main process's thread */
	PS_ROLE_PREFETCH = 2,	/* PrepareChunksThread */
	PS_ROLE_DOWNLOAD = 4,	/* download and decompress threads */
	PS_ROLE_LOADER = 8	/* the process that iterates the DataLoader */
};

void	ps_lognorm(const struct pslog *, struct psnorm *);

/* sink.c: the stream ltparse writes, and what it counts. */
enum {
	PS_C_LINES,
	PS_C_EVENTS,
	PS_C_SKIP,		/* + kind - 1: skipped log lines by kind */
	PS_C_SKIPJSON = PS_C_SKIP + PS_NKIND - 1,
	PS_C_SKIPDUR,		/* JSON X events of negative dur */
	PS_C_SKIPMETA,		/* JSON M events Perfetto fails */
	PS_C_GEN,		/* + PS_GEN_*: records by generation */
	PS_C_JSON = PS_C_GEN + PS_NGEN,
	PS_C_RENAMED,
	PS_C_INFERRED,
	PS_C_SALVAGED,
	PS_C_META,
	PS_C_REPLACED,
	PS_C_REPAIRED,
	PS_C_DUPKEYS,
	PS_C_TOP,
	PS_C_FLOWSMOVED,	/* flow starts kept from a 0-ns slice */
	PS_NCOUNT
};

struct pspin;

struct pssink {
	struct ltout	 out;
	struct ltbuf	 rec;		/* the record being made */
	long long	 n[PS_NCOUNT];
	int		 verbose;	/* -v: every skipped line on stderr */
	int		 quiet;		/* rebuilding state: nothing written */
	int		 t0done;	/* #t0 is behind us */
	int		 ours;		/* an input was a trace litracer wrote */
	int64_t		*first;		/* ns: each input's first event, */
	int		*firstpart;	/*   of part firstpart; 0: none yet */
};

void	ps_sink_head(struct pssink *);
void	ps_sink_t0(struct pssink *, const char *, size_t, int);
void	ps_sink_meta(struct pssink *, uint64_t, uint32_t, const char *,
	    const char *, long long);
void	ps_sink_config(struct pssink *, uint64_t, const char *, size_t);
void	ps_sink_stats(struct pssink *, long long, long long);
void	ps_sink_first(struct pssink *, const struct pspin *, int64_t, int);
void	ps_clocks(const struct pssink *, const struct pspin *, int);
const char *ps_quote(char *, size_t, const char *, size_t);

/* logrec.c: a log event as an lt1 record, made in a buffer. */
size_t	ps_logrec(struct ltbuf *, const struct pslog *, const struct psnorm *,
	    const char *, size_t, size_t, size_t, long long *,
	    uint16_t[LT_NCOL]);

/* procs.c: the processes and threads of the inputs. */
struct pspin {
	const char	*path;
	uint32_t	 index;		/* 0, 1, ... in the order given */
	uint32_t	 block;		/* pid block; 0 keeps the OS pids */
	char		 label[32];	/* "node N", "input I", or "" */
	off_t		 size;		/* in part mode: the bytes read, */
	dev_t		 dev;		/* of the file */
	ino_t		 ino;
};

/*
 * A thread: its OS id and what its events say it does.  A long job has
 * tens of thousands, so it keeps no more: its tid is its place on its
 * process's list, which is kept newest first.
 */
struct psthread {
	uint32_t	 os[2];		/* the OS thread id, low word first */
	uint32_t	 next : 28;	/* the thread made before, or 0 */
	uint32_t	 roles : 4;	/* PS_ROLE_* of its events */
};

enum {
	PS_START_NONE,		/* neither known */
	PS_START_RANK,		/* the rank known, PS_INHERIT stands for it */
	PS_START_WORKER,	/* the worker known, the same */
	PS_NSTART
};
#define PS_INHERIT	(-2)

#define PS_NBLOCKS	1024		/* pid blocks; inputs are fewer */

struct psproc {
	uint32_t	 ospid;		/* the OS pid */
	uint32_t	 pid;		/* as written with a block, else 0 */
	/*
	 * The rank and the worker (-1: unknown) that its events give; with
	 * parts (-P), from the first state they may start in (PS_START_*),
	 * the others being in procs.c, and once all are read, the process's.
	 * Kept in 32 bits, as procs.c reads them.
	 */
	int32_t		 rank;
	int32_t		 worker;
	uint32_t	 in : 10;	/* the index of its input */
	uint32_t	 block : 10;	/* of its input */
	uint32_t	 main : 1;	/* wrote dataloader or batch spans */
	uint32_t	 v1 : 1;	/* wrote 0.2.45-0.2.56 lines */
	uint32_t	 nthreads;
	uint32_t	 last;		/* the thread made last, or 0 */
};

struct psthread	*ps_thread(const struct pspin *, uint64_t, uint64_t,
	    struct psproc **);
int	ps_hasthread(const struct pspin *, uint64_t, uint64_t);
const char *ps_threadid(size_t *, size_t *);
void	ps_learn(struct psproc *, const struct pslog *, const struct psnorm *);
void	ps_names(struct pssink *, const struct pspin *);
void	ps_procs_parts(void);
void	ps_procs_save(FILE *);
int	ps_procs_load(FILE *, const struct pspin *, uint32_t);
void	ps_procs_merged(void);
long long ps_nlogprocs(void);
long long ps_nthreads(void);
void	ps_procs_free(void);

/* jsonids.c: the pids and tids of JSON inputs, made valid. */
enum {
	PS_JID_NONE,		/* absent */
	PS_JID_INT,		/* an integer, or a string spelling one: v */
	PS_JID_TEXT		/* any other number or string: p[0..n) */
};

struct psjid {			/* a pid or tid as written */
	int		 kind;
	int		 str;		/* a string: p is its contents */
	int64_t		 v;
	const char	*p;
	size_t		 n;
};

const char *ps_jsonids(const struct pspin *, const struct psjid *, int,
	    uint64_t *);
void	ps_jsonnames(struct pssink *, const struct pspin *);
void	ps_jsonids_free(void);
uint64_t ps_jsonflowid(uint64_t);

/* login.c: a log input, line by line. */
struct pssid {			/* a thread of a log, as written */
	uint32_t	 input;
	uint64_t	 pid;
	uint64_t	 os;
};

#define PS_SCANCACHE	8

struct psscan {			/* the threads a range's events make */
	struct pssid	*id;	/* in order of their first event */
	size_t		 nid, capid;
	struct ltmap	 seen;
	/*
	 * The text of threads seen, last found: "PID:P; TID:T;" as it
	 * follows the ts of a record.
	 */
	char		 last[PS_SCANCACHE][48];
	unsigned char	 lastn[PS_SCANCACHE];
	int		 hit, next;
};

void	ps_login(const struct pspin *, struct ltin *, off_t, struct pssink *);
void	ps_logscan(const struct pspin *, struct ltin *, struct psscan *);
void	ps_scan_free(struct psscan *);

/* parts.c: part k of N of the inputs (-P), the state kept in dir. */
void	ps_parts(struct pspin *, int, int, int, const char *, int,
	    struct pssink *);
void	ps_parts_end(struct ltout *);

/* jsonrec.c: a Chrome trace event as an lt1 record. */
struct psjrec {
	int64_t		 offset;	/* ns added to every ts */
	const struct pspin *in;		/* the input, for jsonids.c */
	const char	*why;		/* why an event has no lt1 form */
	int		 skip;		/* and the counter it goes to */
	int		 numbers;	/* numbers rewritten or left out */
	int		 fixed;		/* a string ts or dur, a flow id >= 2^53 */
	long long	 dupkeys;	/* repeated members dropped */
};

int	ps_jrec(const struct ltjev *, struct ltbuf *, struct psjrec *);

/* jsonhold.c: flow starts kept from 0-ns slices of their time. */
void	ps_hold_put(struct pssink *, const char *, size_t);
void	ps_hold_flush(struct pssink *);
void	ps_hold_free(void);

/* jsonnum.c: numbers Perfetto's JSON importer cannot read as written. */
int	ps_jnum_ok(const char *, size_t);
int	ps_jnum(const char *, size_t, struct ltbuf *);

/* jsontail.c: the ts offset of a trace that ltjson wrote. */
#define PS_JTAIL	(1024 * 1024)	/* bytes of a trace's end read */
#define PS_JDIRTY_KEEP	11

struct ltjdirty {
	off_t		 seen;		/* bytes fed */
	off_t		 first;		/* offset of the first find, or -1 */
	char		 keep[PS_JDIRTY_KEEP];
	size_t		 nkeep;
};

int	ps_jtail(const char *, size_t, int64_t *, size_t *);
size_t	ps_jdirty(const char *, size_t);
void	ps_jdirty_feed(struct ltjdirty *, const char *, size_t);
int64_t	ps_jr_prescan(struct ltin *);

/* jsonin.c: a JSON input, recognised and converted. */
int	ps_isjson(struct ltin *);
int	ps_isreg(const char *);
void	ps_jsonin(const struct pspin *, struct ltin *, int, struct pssink *);

#endif
