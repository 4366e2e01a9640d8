/* See LICENSE file for copyright and license details. */
/*
 * ltcheck.h: ltcheck(1)'s modules: a model of Perfetto's JSON importer
 * and, for -P, the real importer beside it.
 *
 * The caller cuts each trace event into a struct pfev (the members
 * Perfetto looks at, as JSON text); pf_event() applies the tokenizer and
 * parser checks that need no ordering, pushes the event through a model
 * of the sorter's bookkeeping and keeps a 20-byte record of it when the
 * slice stacks or flows need it.  pf_finish() sorts the records as
 * Perfetto's Queue::Sort does and replays them through per-track slice
 * stacks and the flow tracker.  Every predicted counter increment or
 * silent loss is a finding (struct pffind), keyed by rule and counter.
 *
 * The files call one way, each only those below it:
 *
 *	pfjson.c	a JSON event as a struct pfev
 *	pfsim.c		the checks of one event; keeps records
 *	pfstack.c	the replay: slice stacks and flows
 *	pfrec.c		the records, their tracks and their order
 *	pfsum.c		categories, durations, processes (-s)
 *	pfkin.c		what a PyTorch profiler trace loses, silently
 *	pffind.c	the findings table
 *	pfnum.c		Perfetto's numbers
 *
 * One block per file below; pfint.h holds what pfsim.c, pfstack.c and
 * pfrec.c share about the records.  pftp.c, for ltcheck -P, runs
 * Perfetto's own importer beside the model and uses none of it but the
 * findings.  Above them all, ltcheck.c (options, main, the choice of
 * report and exit status) calls read.c (the JSON, lt1 and .pftrace
 * readers) and report.c (the report writers); they share a struct
 * pfcheck.
 */
#ifndef LTCHECK_H
#define LTCHECK_H

#include "lt.h"

#define PF_ISDIGIT(c)	((unsigned)(c) - '0' < 10)

/* ts + dur for ts, dur >= 0, saturated as no real trace reaches it. */
static inline int64_t
pf_endof(int64_t ts, int64_t dur)
{
	return dur > INT64_MAX - ts ? INT64_MAX : ts + dur;
}

/* pfnum.c: Perfetto's number parser and CoerceToTs (json_parser.h). */
struct pfnum {
	int		 isint;		/* no '.', no exponent */
	int		 wrap;		/* integer digits overflowed */
	int		 fracwrap;	/* fractional digits overflowed */
	int		 exact;		/* a whole number of nanoseconds */
	int64_t		 i;
	double		 d;
};

int		 pf_num(const char *, size_t, struct pfnum *);
int		 pf_finite(const struct pfnum *);
int		 pf_tons(const struct pfnum *, int64_t *);
int		 pf_integral(double);

/* pffind.c: the findings, by rule, counter and card. */
enum {	/* UI cards, in the order reports list them */
	PF_FATAL, PF_TE, PF_IE, PF_DL, PF_INFO, PF_SILENT, PF_OK, PF_NCARD
};

#define PF_NEX		5	/* examples kept per finding */

struct pffind {
	const char	*rule;		/* PF-..., SC-..., LT-... */
	const char	*counter;	/* Perfetto's stat, "fatal", or NULL */
	int		 card;
	long long	 n;
	int		 nex;
	int		 exrec[PF_NEX];	/* example is a record number */
	long long	 ex[PF_NEX];	/* a line, or a record number */
	const char	*detail;	/* first occurrence, for some rules */
};

struct pffinds {
	struct pffind	*f;
	size_t		 n, cap;
};

struct pffind	*pf_find(struct pffinds *, const char *, const char *, int,
		    long, const char *);
struct pffind	*pf_findrec(struct pffinds *, const char *, const char *,
		    int, uint32_t);
void		 pf_finds_free(struct pffinds *);
const char	*pf_cardname(int);
const char	*pf_cardlong(int);
const char	*pf_what(const char *);

/* A member of an event: its type and its text. */
struct pfval {
	int		 type;		/* 0 absent, '"', 'n' number, 't', */
	const char	*p;		/*   'f', 'z' null, '{', '[' */
	size_t		 n;		/* strings: contents, without quotes */
};

/* pfsum.c: per category and per process, for the report and -s. */
struct pfcat {
	const char	*name;
	size_t		 namelen;
	long long	 count;		/* events */
	long long	 nslices;	/* durations seen */
	int64_t		 total;		/* ns */
	int64_t		 max;
	int64_t		*dur;		/* exact durations, while kept */
	size_t		 ndur, capdur;
	uint32_t	*hist;		/* log histogram, once too many */
};

struct pfproc {
	int		 str;		/* the pid was a string */
	uint64_t	 pid;		/* or the hash of the string */
	const char	*name;
	size_t		 namelen;
	long long	 count;
};

struct pfsum {
	int		 on;		/* durations and processes (-s) */
	struct pfcat	*cats;		/* index 0 unused: no category */
	size_t		 ncats, capcats;
	uint32_t	 lastcat;
	struct ltmap	 catmap;
	struct pfproc	*procs;
	size_t		 nprocs, capprocs;
	struct ltmap	 procmap;
	size_t		 nexact;	/* durations kept exactly, in all */
	int64_t		 first, last;	/* ns; first > last: no times */
	long long	 nph[128];
	long long	 events;
};

void		 pf_sum_init(struct pfsum *, int);
void		 pf_sum_free(struct pfsum *);
uint32_t	 pf_catid(struct pfsum *, const struct pfval *);
void		 pf_adddur(struct pfsum *, uint32_t, int64_t);
void		 pf_countproc(struct pfsum *, const struct pfval *);
int64_t		 pf_percentile(const struct pfcat *, int);

/* pfsim.c: the model. */
enum {	/* the version bands (-V): <= v50, v51-56, v57+ */
	PF_V50, PF_V56, PF_V57
};

/* What one event holds, as the caller found it. */
struct pfev {
	long		 line;
	int		 empty;		/* {} */
	int		 notobj;	/* not an object at all */
	struct pfval	 ph, ts, dur, tdur, tts, pid, tid, name, cat, id;
	struct pfval	 bind_id, flow_in, flow_out, bp, s, args;
	struct pfval	 id2_local, id2_global;
	int		 has_id2;
	int		 id2_bad;	/* id2 is not an object with local/global */
	int		 dupkey;
	int		 ctrl;		/* raw control character in a string */
	int		 surrogate_top;	/* \uD8xx escape in a top-level field */
	int		 surrogate_args;
	int		 args_count;	/* members of args, -1 if not an object */
	int		 args_badnum;	/* args values that are not numbers */
	int		 m_name_ok;	/* args.name is a non-empty string */
	int		 m_sort_ok;	/* args.sort_index is a number */
	int		 p_profile;	/* args.data.cpuProfile present */
	int		 inf_member;	/* a member is a number Perfetto */
	int		 inf_args;	/*   makes infinite; one in args */
};

struct pfsim;

struct pfsim	*pf_new(int, int);
void		 pf_free(struct pfsim *);
void		 pf_event(struct pfsim *, const struct pfev *);
void		 pf_finish(struct pfsim *);
int		 pf_stalled(const struct pfsim *);
struct pffinds	*pf_finds(struct pfsim *);
const struct pfsum *pf_sum(const struct pfsim *);

/* pfkin.c: what a PyTorch profiler trace loses, silently. */
struct pfkin;
struct pfkin	*pf_kin_new(void);
void		 pf_kin_event(struct pfkin *, struct pffinds *,
		    const struct pfev *);
void		 pf_kin_finish(struct pfkin *, struct pffinds *);
void		 pf_kin_free(struct pfkin *);

/* pfjson.c */
struct ltjev;
void		 pf_sniff(struct pfsim *, const char *, size_t);
void		 pf_jsonev(struct pfsim *, const struct ltjev *, long);

/* pftp.c: ltcheck -P, the real importer beside the model. */
/* A stat the trace processor counted. */
struct pfstat {
	char		*name;
	int		 card;		/* PF_TE, PF_IE, PF_DL or PF_INFO */
	long long	 value;
};

struct pftp {
	const char	*prog;
	int		 loaded;	/* 0: the load failed, */
	char		 why[256];	/*   for this reason */
	struct pfstat	*st;
	size_t		 n, cap;
};

/* A counter, as predicted and as counted. */
struct pfrow {
	const char	*counter;
	int		 card;
	long long	 predicted, counted;
};

char		*pf_tp_find(void);
void		 pf_tp_import(struct pftp *, const char *, const char *);
size_t		 pf_tp_rows(const struct pftp *, const struct pffinds *,
		    struct pfrow **);
int		 pf_tp_differs(const struct pftp *, const struct pfrow *,
		    size_t, int);
char		*pf_tp_tmpfile(int *);
char		*pf_tp_spool(struct ltin *);
void		 pf_tp_free(struct pftp *);

/* ltcheck.c, read.c, report.c: one run of ltcheck. */
enum {	/* what it writes */
	PF_MODE_REPORT, PF_MODE_TAB, PF_MODE_QUIET
};

#define PF_NCOUNT	9	/* counts ltjson records (read.c) */

struct pfcheck {
	struct pfsim	*sim;
	struct pffinds	*fd;		/* the findings of sim */
	struct ltout	 out;
	const char	*fname;
	int		 band;
	int		 mode;
	int		 sflag;		/* -s */
	int		 form;		/* '{', '[' or 'l' for lt1 */
	long long	 bytes;
	long long	 recorded[PF_NCOUNT];
	int		 hasrecorded;
	char		 mismatch[256];
	char		 synerr[256];
	/* -P: the real importer, and the file it imports if not the input */
	int		 pflag;
	char		*tpprog;	/* NULL: none found */
	struct pftp	 tp;
	char		*tmp;
	int		 copying;	/* an lt1 input as JSON, in tmp */
	struct ltout	 copy;
	long long	 ncopy;
};

/* read.c */
void		 pf_readjson(struct pfcheck *, struct ltin *);
void		 pf_readlt1(struct pfcheck *, struct ltin *);
void		 pf_counts(struct pfcheck *);
int		 pf_readpb(struct pfcheck *, struct ltin *);

/* report.c: each given the findings sorted, and their cards. */
void		 pf_report(struct pfcheck *, const struct pffind *, size_t,
		    const int *);
void		 pf_tabs(struct pfcheck *, const struct pffind *, size_t,
		    const int *, const struct pfrow *, size_t);
void		 pf_quiet(struct pfcheck *, const struct pffind *, size_t,
		    const int *);
void		 pf_tpreport(struct pfcheck *, const struct pfrow *, size_t,
		    int, int);
void		 pf_tpquiet(struct pfcheck *, const struct pfrow *, size_t,
		    int);
void		 pf_summary(struct pfcheck *);

#endif
