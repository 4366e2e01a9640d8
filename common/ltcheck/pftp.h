/* See LICENSE file for copyright and license details. */
/*
 * pftp.h: ltcheck -P, the real importer beside the model (pftp.c).
 */
#ifndef PFTP_H
#define PFTP_H

#include "pfsim.h"

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

#endif
