/* See LICENSE file for copyright and license details. */
/*
 * core.h: what the modules of common/ share among themselves, beside
 * lt.h; the programs do not call it.  Also the tokens that json.c makes
 * of a value as it scans it, which jsonev.c hands to its users.
 */
#ifndef LT_CORE_H
#define LT_CORE_H

#include "lt.h"

/* esc.c: UTF-8 and \u escapes, for json.c. */
size_t	lt_utf8_len(const unsigned char *, size_t);
size_t	lt_utf8_put(char *, long);
long	lt_hex4(const char *);

/* json.c: canonicalised only when not canonical already (jsonev.c). */
int	lt_json_lazy(const char *, size_t, struct ltbuf *, struct ltjson *);
/* The first member of an object: lt_obj_next's check. */
int	lt_json_first(const char *, size_t, struct ltbuf *, struct ltjson *);

/*
 * A token of a JSON value, as jsmn 1.1.0 makes them with JSMN_STRICT and
 * JSMN_PARENT_LINKS (the same members; jsonev.c maps jsmn's types): the
 * value is p[start..end); size counts an object's keys, an array's
 * elements, a key's value.
 */
enum {
	LT_JT_OBJECT = 1,
	LT_JT_ARRAY,
	LT_JT_STRING,
	LT_JT_PRIMITIVE
};

struct ltjtok {
	int	 type;
	int	 start;
	int	 end;
	int	 size;
	int	 parent;
};

/* json.c: a value scanned strictly and cut into tokens in one pass. */
#define LT_JTOK_LAZY	1	/* canonicalised only when not canonical */
#define LT_JTOK_WHOLE	2	/* the text does not stop inside the value */
int	lt_json_tokens(const char *, size_t, struct ltbuf *, int,
	    struct ltjson *, struct ltjtok **, unsigned *, int *);

/* stream.c: every column of a record checked (lt_rec_checkts without
 * handing out ts and dur), for the fuzz harnesses. */
int	lt_rec_check(const struct ltrec *, const char **, int *);

/* pipe.c: a bigger pipe buffer (Linux), for lt_in_fdopen and lt_out_init. */
void	lt_pipe_grow(int);

#endif
