/* See LICENSE file for copyright and license details. */
/*
 * ltparse.h: what ltparse alone uses.  A LitData log line tokenised in
 * place (logline.c), the names of older releases made stable and
 * categories inferred (legacy.c), a Chrome trace event as an lt1 record
 * (jsonrec.c), and the timestamp offset of a trace ltjson wrote
 * (jsontail.c).  ltparse(1) describes the formats.
 */
#ifndef LT_LTPARSE_H
#define LT_LTPARSE_H

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

/* jsonrec.c: a Chrome trace event as an lt1 record. */
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

#endif
