/* See LICENSE file for copyright and license details. */
/*
 * args.c: the args columns of ltpair(1).  An args column split into its
 * members, and the values of the identifying keys (-m) among them, by
 * which an E tells its B from other open spans of the same name; and
 * args columns written back: a B's members with a marker, or a B's and
 * an E's merged.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltpair.h"

/* A key's length, second and last but one byte (it is quoted), in 7 bits. */
static unsigned
keyhash(const struct ltfield *k)
{
	return ((unsigned)k->n * 37 + (unsigned char)k->p[1] * 7 +
	    (unsigned char)k->p[k->n - 2]) & 127;
}

/* -m: "a,b" to the quoted keys "\"a\"", "\"b\"". */
void
lp_setkeys(struct keys *ks, const char *list)
{
	const char *p, *comma;
	size_t i, n;
	unsigned h;

	ks->text.n = 0;
	ks->n = 0;
	for (p = list; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		if (comma == p)
			continue;
		lt_buf_addc(&ks->text, '"');
		lt_esc(&ks->text, p, (size_t)(comma - p));
		lt_buf_addc(&ks->text, '"');
		lt_buf_addc(&ks->text, '\0');
		ks->n++;
	}
	free(ks->k);
	ks->k = lt_reallocarray(NULL, ks->n, sizeof(*ks->k));
	ks->sig[0] = ks->sig[1] = 0;
	for (i = 0, p = ks->text.p; i < ks->n; i++, p += n + 1) {
		n = strlen(p);
		ks->k[i].p = (char *)p;
		ks->k[i].n = n;
		h = keyhash(&ks->k[i]);
		ks->sig[h >> 6] |= 1ULL << (h & 63);
	}
}

void
lp_keys_free(struct keys *ks)
{
	free(ks->k);
	lt_buf_free(&ks->text);
}

void
lp_room(struct members *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->cap = n;		/* exactly: open spans may be many */
	m->k = lt_reallocarray(m->k, m->cap, sizeof(*m->k));
	m->v = lt_reallocarray(m->v, m->cap, sizeof(*m->v));
}

void
lp_members_free(struct members *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/*
 * Split the args column into m and its identifying values into id.
 * Returns NULL, or what is wrong with a malformed column.
 */
const char *
lp_members(const struct keys *ks, const struct ltfield *args,
    struct members *m, struct ltfield *id)
{
	struct ltfield k, v;
	struct ltobj it;
	size_t i, j;
	long n;
	unsigned h;
	int r;

	for (i = 0; i < ks->n; i++)
		id[i].p = NULL;
	/* What our tools write is split at once; the rest is checked. */
	if ((n = lt_obj_split(args->p, args->n, m->k, m->v, m->cap)) >= 0) {
		m->n = (size_t)n;
		m->plain = 1;
	} else {
		m->n = 0;
		m->plain = 0;
		lt_obj_init(&it, args->p, args->n);
		while ((r = lt_obj_next(&it, &k, &v)) > 0) {
			lp_room(m, m->n + 1);
			m->k[m->n] = k;
			m->v[m->n++] = v;
		}
		if (r < 0)
			return it.err;
	}
	for (j = 0; j < m->n; j++) {
		/* Most members are told from every key by one bit. */
		h = keyhash(&m->k[j]);
		if ((ks->sig[h >> 6] >> (h & 63) & 1) == 0)
			continue;
		for (i = 0; i < ks->n; i++)
			if (m->k[j].n == ks->k[i].n &&
			    m->k[j].p[1] == ks->k[i].p[1] &&
			    memcmp(m->k[j].p, ks->k[i].p, ks->k[i].n) == 0) {
				id[i] = m->v[j];	/* the last one counts */
				break;
			}
	}
	return NULL;
}

static void
putmember(struct ltout *out, int *first, const struct ltfield *k,
    const struct ltfield *v)
{
	if (!*first)
		lt_out_putc(out, ',');
	*first = 0;
	lt_out_write(out, k->p, k->n);
	lt_out_putc(out, ':');
	lt_out_write(out, v->p, v->n);
}

/* The members of m, then the marker (if any), as an args column. */
void
lp_putargs(struct ltout *out, const struct members *m, const char *mark,
    int64_t negdur)
{
	size_t i;
	int first = 1;

	lt_out_putc(out, '{');
	for (i = 0; i < m->n; i++)
		putmember(out, &first, &m->k[i], &m->v[i]);
	if (mark != NULL) {
		lt_out_puts(out, first ? "\"ltpair\":\"" : ",\"ltpair\":\"");
		lt_out_puts(out, mark);
		lt_out_putc(out, '"');
		if (negdur < 0) {
			lt_out_puts(out, ",\"ltpair_dur\":");
			lt_put_us(out, negdur);
		}
	}
	lt_out_putc(out, '}');
}

/*
 * The args of an X: the B's members bm in their order, then those of the
 * E, em, that the B lacks.  On a conflict the B wins and the E's value
 * is kept under "E.key".
 */
void
lp_putmerged(struct ltout *out, const struct members *bm,
    const struct members *em, const char *mark, int64_t negdur)
{
	size_t i, j;
	int first = 1;

	lt_out_putc(out, '{');
	for (i = 0; i < bm->n; i++)
		putmember(out, &first, &bm->k[i], &bm->v[i]);
	for (j = 0; j < em->n; j++) {
		for (i = 0; i < bm->n; i++)
			if (lp_feq(&bm->k[i], &em->k[j]))
				break;
		if (i == bm->n) {
			putmember(out, &first, &em->k[j], &em->v[j]);
			continue;
		}
		if (lp_feq(&bm->v[i], &em->v[j]))
			continue;
		/* "E." and the key's contents, its closing quote included */
		lt_out_puts(out, first ? "\"E." : ",\"E.");
		first = 0;
		lt_out_write(out, em->k[j].p + 1, em->k[j].n - 1);
		lt_out_putc(out, ':');
		lt_out_write(out, em->v[j].p, em->v[j].n);
	}
	if (mark != NULL) {
		lt_out_puts(out, first ? "\"ltpair\":\"" : ",\"ltpair\":\"");
		lt_out_puts(out, mark);
		lt_out_puts(out, "\",\"ltpair_dur\":");
		lt_put_us(out, negdur);
	}
	lt_out_putc(out, '}');
}
