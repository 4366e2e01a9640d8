/* See LICENSE file for copyright and license details. */
/*
 * jsonev.h: Chrome trace JSON as a stream of events (jsonev.c), for
 * ltparse and ltcheck: each event checked strictly and cut into tokens
 * (struct ltjtok, core.h), the tokens jsmn would make of it.  Only
 * jsonev.c sees jsmn.
 */
#ifndef LT_JSONEV_H
#define LT_JSONEV_H

#include "core.h"

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
	struct ltjtok	*tok;		/* LT_JEV_EVENT: tokens of p */
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
	struct ltjtok	*tok;
	unsigned	 ntokcap;
	void		*jsmn;		/* lt_jr_tokens: jsmn's tokens, */
	unsigned	 njsmncap;	/*   copied into tok */
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

/* lt_jr_init modes besides 0 (as written) and 1 (canonical). */
#define LT_JR_LAZY	2	/* canonical copies only of events not */
				/*   written canonically (ltcheck) */
#define LT_JR_CHECK	(-1)	/* no tokens: ev->ntok is 0 (ltparse) */

void	lt_jr_init(struct ltjr *, struct ltin *, int);
int	lt_jr_next(struct ltjr *, struct ltjev *);
void	lt_jr_free(struct ltjr *);
/* Tokens of p[0..n) into jr->tok: their number, or a jsmn error. */
int	lt_jr_tokens(struct ltjr *, const char *, size_t);
int	lt_jtok_skip(const struct ltjtok *, int);
int	lt_jtok_get(const char *, const struct ltjtok *, int, const char *);

#endif
