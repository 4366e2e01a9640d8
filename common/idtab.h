/* See LICENSE file for copyright and license details. */
/*
 * idtab.h: processes and threads by the text of their pid and tid
 * columns (idtab.c), for ltpair, ltfilter and ltstat.  An entry is the
 * caller's struct starting with struct ltid.
 */
#ifndef LT_IDTAB_H
#define LT_IDTAB_H

#include "lt.h"

/*
 * The key is TAB pid [TAB tid], in keyin when it fits (most keys: 40
 * bytes in all), else where keyin points.  lt_id_key() gives it.
 */
struct ltid {
	struct ltid	*next;
	uint32_t	 hash;		/* the low bits pick the bucket */
	uint32_t	 keyn;
	uint32_t	 keycap;	/* 0: in keyin; else its room */
	char		 keyin[20];
};

static inline char *
lt_id_key(const struct ltid *e)
{
	char *p;

	if (e->keycap == 0)
		return (char *)(uintptr_t)e->keyin;
	memcpy(&p, e->keyin, sizeof(p));
	return p;
}

struct ltidtab {
	struct ltid	**bkt;
	size_t		 nbkt;
	size_t		 n;		/* live entries */
	size_t		 esz;
	struct ltid	*freel;
	void		*slabs;		/* where entries are cut from */
	size_t		 left;		/* entries left in the first */
};

void	 lt_id_init(struct ltidtab *, size_t);
void	*lt_id_get(struct ltidtab *, const struct ltfield *,
	    const struct ltfield *, int, int *);
void	 lt_id_del(struct ltidtab *, void *);
void	 lt_id_each(struct ltidtab *, void (*)(void *));
void	 lt_id_free(struct ltidtab *, void (*)(void *));

#endif
