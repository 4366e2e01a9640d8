/* See LICENSE file for copyright and license details. */
/*
 * logrec.c: an event of a LitData log (tokenised by logline.c, its name
 * made stable by legacy.c) as an lt1 record.
 *
 * The columns: ts in microseconds (the text of the line when it is lt1
 * already), ph, the pid and tid of the thread, the category and the
 * stable name, then args (the indexes taken from a legacy name first,
 * then every other key in the order of the line; a value that is a JSON
 * integer becomes a number, any other a string; a legacy name is kept
 * as legacy_name) and extra (the cname).
 */
#include "lt.h"
#include "ltparse.h"

/*
 * A record is made through a cursor w, once room for the most it can
 * take is there, so that each piece is a plain copy; lt_esc, for a
 * record with something to escape, works on the buffer itself.
 */
struct rec {
	struct ltbuf	*b;
	int		 plain;		/* nothing to escape */
	long long	 replaced;	/* bytes replaced by lt_esc */
};

#define PUTS(w, s)	lt_put((w), (s), sizeof(s) - 1)

/*
 * JSON string contents; a plain record needs no escaping at all.  This,
 * putstr and putarg are inline: every arg of every event goes through
 * them, a few bytes each time (about 3% of ltparse's instructions).
 */
static inline char *
putesc(struct rec *r, char *w, const char *p, size_t n)
{
	if (r->plain)
		return lt_put(w, p, n);
	r->b->n = (size_t)(w - r->b->p);
	r->replaced += (long long)lt_esc(r->b, p, n);
	return r->b->p + r->b->n;
}

static inline char *
putstr(struct rec *r, char *w, const char *p, size_t n)
{
	*w++ = '"';
	w = putesc(r, w, p, n);
	*w++ = '"';
	return w;
}

/* Is v a JSON integer that fits int64 (0 or -?[1-9][0-9]*)? */
static int
isint(const char *v, size_t n)
{
	int64_t iv;
	size_t i;

	if (n == 0 || n > 18)
		return n > 18 && lt_int_parse(v, n, &iv) == LT_NUM_OK;
	i = *v == '-';
	if (i == n || (v[i] == '0' && n > i + 1))
		return 0;
	for (; i < n; i++)
		if ((unsigned)v[i] - '0' > 9)
			return 0;
	return 1;
}

/* "key":value, the value a JSON integer when it is one, else a string. */
static inline char *
putarg(struct rec *r, char *w, const char *k, size_t kn, const char *v,
    size_t vn, int comma)
{
	if (comma)
		*w++ = ',';
	w = putstr(r, w, k, kn);
	*w++ = ':';
	return isint(v, vn) ? lt_put(w, v, vn) : putstr(r, w, v, vn);
}

/* Is key k one of the args taken from the name? */
static int
named(const struct psnorm *nm, const char *k, size_t kn)
{
	int i;

	for (i = 0; i < nm->narg; i++)
		if (strlen(nm->arg[i].k) == kn &&
		    memcmp(nm->arg[i].k, k, kn) == 0)
			return 1;
	return 0;
}

/*
 * The args of the env keys kv[kvtail..nkv), m args after the '{': as
 * their cache has them, or written and then cached.
 */
static char *
puttail(struct rec *r, char *w, const struct pslog *lg, int m)
{
	struct pstail *t = lg->tail;
	size_t i, n;
	char *w0 = w;

	if (t->outn > 0)
		return lt_put(w, t->out + (m == 0), t->outn - (m == 0));
	for (i = lg->kvtail; i < lg->nkv; i++)
		w = putarg(r, w, lg->kv[i].k, lg->kv[i].kn, lg->kv[i].v,
		    lg->kv[i].vn, m++);
	/* Written in place only in a plain record (putesc). */
	if (r->plain) {
		n = (size_t)(w - w0);
		t->out[0] = ',';
		memcpy(t->out + 1, w0 + (*w0 == ','), n - (*w0 == ','));
		t->outn = (uint16_t)(n + (*w0 != ','));
	}
	return w;
}

/* The args object, from its '{' to its '}'. */
static char *
putargs(struct rec *r, char *w, const struct pslog *lg,
    const struct psnorm *nm)
{
	size_t i;
	int j, m = 0;

	*w++ = '{';
	for (j = 0; j < nm->narg; j++)
		w = putarg(r, w, nm->arg[j].k, strlen(nm->arg[j].k),
		    nm->arg[j].v, nm->arg[j].vn, m++);
	for (i = 0; i < lg->nkv && !nm->crash; i++) {
		if (lg->tail != NULL && i == lg->kvtail && nm->narg == 0) {
			w = puttail(r, w, lg, m);
			m++;
			break;
		}
		if (nm->narg == 0 || !named(nm, lg->kv[i].k, lg->kv[i].kn))
			w = putarg(r, w, lg->kv[i].k, lg->kv[i].kn,
			    lg->kv[i].v, lg->kv[i].vn, m++);
	}
	if (nm->renamed) {
		w = m > 0 ? PUTS(w, ",\"legacy_name\":") :
		    PUTS(w, "\"legacy_name\":");
		if (nm->crash)
			w = putstr(r, w, lg->kv[0].k, lg->kv[0].kn);
		else
			w = putstr(r, w, lg->name.p, lg->name.n);
	}
	*w++ = '}';
	return w;
}

/*
 * The record of event lg, name nm, of a line of n bytes, of the thread
 * whose "\tpid\ttid\t-\t" is id (its "\tpid" pidn bytes), in b; returns
 * its length, '\n' included, adds the bytes replaced by U+FFFD to
 * *replaced, and puts where each column ends in end (struct lthint).
 * Everything it writes comes from the line, the name up to three times
 * (as name, legacy_name and args taken from it), or is short and fixed;
 * escaping makes a byte six at most.
 */
size_t
ps_logrec(struct ltbuf *b, const struct pslog *lg, const struct psnorm *nm,
    const char *id, size_t idn, size_t pidn, size_t n, long long *replaced,
    uint16_t end[LT_NCOL])
{
	struct rec r;
	size_t need;
	char *w;

	r.b = b;
	r.plain = lg->plain;
	r.replaced = 0;
	need = (r.plain ? 1 : 6) * (3 * n + 256) + 16 * lg->nkv + 512;
	b->n = 0;
	if (b->cap < need)
		lt_buf_grow(b, need);
	w = b->p;
	if (lg->tsus.p != NULL)
		w = lt_put(w, lg->tsus.p, lg->tsus.n);
	else
		w += lt_us_fmt(w, lg->ts);
	end[LT_TS] = (uint16_t)(w - b->p);
	*w++ = '\t';
	*w++ = lg->ph.p[0];
	end[LT_PH] = (uint16_t)(end[LT_TS] + 2);
	end[LT_PID] = (uint16_t)(end[LT_PH] + pidn);
	end[LT_TID] = (uint16_t)(end[LT_PH] + idn - 3);
	end[LT_DUR] = (uint16_t)(end[LT_PH] + idn - 1);
	w = lt_put(w, id, idn);
	if (nm->cat != NULL)
		w = putesc(&r, w, nm->cat, nm->catn);
	end[LT_CAT] = (uint16_t)(w - b->p);
	*w++ = '\t';
	w = putesc(&r, w, nm->name, nm->namen);
	end[LT_NAME] = (uint16_t)(w - b->p);
	*w++ = '\t';
	w = putargs(&r, w, lg, nm);
	end[LT_ARGS] = (uint16_t)(w - b->p);
	w = PUTS(w, "\t{");
	if (nm->cname != NULL) {
		w = PUTS(w, "\"cname\":");
		w = putstr(&r, w, nm->cname, nm->cnamen);
	}
	w = PUTS(w, "}");
	end[LT_EXTRA] = (uint16_t)(w - b->p);
	*w++ = '\n';
	*replaced += r.replaced;
	b->n = (size_t)(w - b->p);
	return b->n;
}
