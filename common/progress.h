/* See LICENSE file for copyright and license details. */
/*
 * progress.h: a progress line on a terminal (progress.c), for ltparse and
 * ltlanefix, which take --progress-fd from the driver.
 */
#ifndef LT_PROGRESS_H
#define LT_PROGRESS_H

#include "lt.h"

/* All zero: no progress line. */
struct ltprog {
	int		 on;
	int		 fd;
	const char	*what;		/* "reading x.log", "placing lanes" */
	long long	 total;		/* what done goes to; 0: not known */
	int		 bytes;		/* done counts bytes: MB and MB/s */
	int		 shown;
	int		 every;		/* ms between two lines */
	int64_t		 t0, last;	/* ms */
};

void	lt_prog_start(struct ltprog *, int, const char *, long long, int);
/* done so far: the line redrawn, five times a second at most. */
void	lt_prog_at(struct ltprog *, long long);
void	lt_prog_end(struct ltprog *);
/* The file descriptor of --progress-fd's argument, or exit 2. */
int	lt_prog_fd(const char *);

#endif
