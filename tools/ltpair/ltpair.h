/* See LICENSE file for copyright and license details. */
/*
 * ltpair.h: the private modules of ltpair(1).  args.c splits and writes
 * args columns; spans.c keeps the open spans, indexed so that an E finds
 * its B among any number of open ones, and tells ltlanefix which spans
 * are open (#open, #close).
 */
#ifndef LT_LTPAIR_H
#define LT_LTPAIR_H

#include "lt.h"
#include "idtab.h"

/* Are two fields the same bytes? */
static inline int
lp_feq(const struct ltfield *a, const struct ltfield *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* args.c: the members of an args column, and its identifying ones. */
struct members {
	struct ltfield	*k;
	struct ltfield	*v;
	size_t		 n;
	size_t		 cap;
	int		 plain;		/* minified, plain members */
};

struct keys {
	struct ltfield	*k;		/* identifying keys, quoted */
	size_t		 n;
	uint64_t	 sig[2];	/* a bit for each key's hash (args.c) */
	struct ltbuf	 text;
};

void	lp_setkeys(struct keys *, const char *);
void	lp_keys_free(struct keys *);
void	lp_room(struct members *, size_t);
const char *lp_members(const struct keys *, const struct ltfield *,
	    struct members *, struct ltfield *);
void	lp_putargs(struct ltout *, const struct members *, const char *,
	    int64_t);
void	lp_putmerged(struct ltout *, const struct members *,
	    const struct members *, const char *, int64_t);
void	lp_members_free(struct members *);

/* spans.c: the open spans of every thread. */
enum { L_THREAD, L_NAME, L_GROUP, L_FRESH, L_ALL, NLIST };

struct span;
struct thread;
struct named;
struct group;

struct link {
	struct span	*next, *prev;
};

struct span {
	struct link	 l[NLIST];	/* newest first, L_ALL oldest first */
	struct thread	*th;
	struct named	*nm;		/* the spans of its name */
	struct group	*g;		/* of its name and identifying args */
	unsigned	 mask;		/* which identifying args it has (indexed) */
	unsigned long long seq;		/* later spans have larger ones */
	int64_t		 ts;
	int		 told;		/* announced by #open */
	struct ltbuf	 line;		/* the B record */
	struct ltfield	 f[LT_NCOL];	/* its columns, in line */
	struct ltfield	*id;		/* its identifying args, p NULL: absent */
	struct members	 m;		/* its args */
	int		 split;		/* m and id are (lp_split) */
	int		 asis;		/* its args are canonical */
};

struct thread {
	struct ltid	 h;
	struct span	*open;		/* newest first */
	struct span	*fresh;		/* open and not announced yet */
	struct thread	*dnext;		/* in the list of threads to tell */
	long long	 nopen;
	int64_t		 last;		/* latest time since it had none open */
	int64_t		 now;		/* latest time seen on it */
	/* Flags in bytes: a log may have a thread for every task. */
	unsigned char	 indexed;	/* its open spans are by name too */
	unsigned char	 dirty;
	unsigned char	 quiet;		/* never told: pid or tid not a column */
};

/*
 * A thread asleep: no span open and all it reached told, so only the
 * time it reached is kept, with its "PID\tTID" as two integers below
 * 2^32 written plainly, PID << 32 | TID (other keys stay awake).  16
 * bytes: a long job has tens of thousands.
 */
struct sleeper {
	int64_t		 now;
	uint64_t	 key;
};

struct spans {
	struct ltidtab	 threads, names, groups;
	struct sleeper	*zz;		/* every thread that slept, once */
	size_t		 nzz, capzz;
	struct ltix	 zix;		/* their indices, by key */
	struct thread	*lastth;	/* of the last record */
	struct span	*first, *last;	/* every open span, oldest first */
	struct span	*freel;
	struct thread	*dirty;		/* threads seen since the last #open */
	const struct keys *keys;
	unsigned long long seq;
	int64_t		 latest;	/* the latest time of any thread */
	int64_t		 told;		/* the latest at the last #open */
	long long	 nopen, maxopen;
	struct ltbuf	 key;		/* scratch */
	struct members	 m;		/* scratch of lp_split */
	struct ltrd	*rd;		/* for what lp_split finds */
};

/* The next older span after s in list l. */
static inline struct span *
lp_next(const struct span *s, int l)
{
	return s->l[l].next;
}

void	lp_spans_init(struct spans *, const struct keys *, struct ltrd *);
void	lp_split(struct spans *, struct span *);
struct thread *lp_thread(struct spans *, const struct ltrec *, int);
void	lp_touch(struct spans *, struct thread *, int64_t);
struct span *lp_open(struct spans *, const struct ltrec *, int64_t,
	    struct thread *, const struct members *, const struct ltfield *);
void	lp_close(struct spans *, struct span *);
struct span *lp_named(struct spans *, struct thread *,
	    const struct ltfield *);
unsigned lp_mask(const struct spans *, const struct ltfield *);
int	lp_masks(const struct span *, unsigned *, int);
struct span *lp_group(struct spans *, const struct span *, unsigned,
	    const struct ltfield *);
void	lp_tell(struct spans *, struct ltout *);
void	lp_told(struct ltout *, const struct span *);
void	lp_spans_free(struct spans *);

#endif
