/* See LICENSE file for copyright and license details. */
/*
 * ltpair: match B and E events into complete X spans, streaming.
 *
 * Reads an lt1 stream (operands, "-" or none for standard input) and
 * writes it back with every matched B/E pair replaced by one X record,
 * written where the E was.  An E closes the most recent open B of its
 * thread with the same name (any name for an E without one), the same
 * category when both have one, and equal values of the identifying args
 * that both carry (-m).  What cannot be paired stays visible: an E with
 * no open B becomes an instant, a B still open at the end becomes an X
 * reaching the last event of its thread; both are marked in args.  With
 * -k the B and E records are kept as they are.  Every other record and
 * every directive passes through unchanged, in order.  Memory holds the
 * open B records only.
 */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "lt.h"

#define SYNOPSIS	"ltpair [-k] [-m keys] [file ...]"
#define DEFKEYS		"epoch,batch,chunk,index,op,path"

struct thread;

/* The members of an args column. */
struct members {
	struct ltfield	*k;
	struct ltfield	*v;
	size_t		 n;
	size_t		 cap;
	int		 plain;		/* minified, plain members */
};

struct span {
	struct span	*tnext, *tprev;	/* the thread's open spans, newest first */
	struct span	*onext, *oprev;	/* all open spans, oldest first */
	struct thread	*th;
	int64_t		 ts;
	struct ltbuf	 line;		/* the B record */
	struct ltfield	 f[LT_NCOL];	/* its columns, in line */
	struct ltfield	*id;		/* its identifying args, p NULL: absent */
	struct members	 m;		/* its args */
	int		 asis;		/* m is the args column, written as is */
};

struct thread {
	struct ltid	 h;
	struct span	*open;		/* newest first */
	int64_t		 last;		/* latest time seen on the thread */
};

static struct ltout	 out;
static struct ltidtab	 threads;	/* threads with open spans */
static struct span	*ofirst, *olast;	/* open spans */
static struct span	*freespans;
static struct ltfield	*keys;		/* identifying keys, quoted */
static size_t		 nkeys;
static struct ltbuf	 keytext;
static struct ltfield	*eid;		/* identifying args of an E */
static struct members	 em;		/* of the B or E being handled */
static int		 kflag;

static long long	 nrec, nb, ne, npair, nx, ni, nub, nue, ncrash, nneg;
static long long	 nuntimed, nopen, maxopen;

/* -m: "a,b" to the quoted keys "\"a\"", "\"b\"". */
static void
setkeys(const char *list)
{
	const char *p, *comma;
	size_t i, n;

	keytext.n = 0;
	nkeys = 0;
	for (p = list; *p != '\0'; p = *comma != '\0' ? comma + 1 : comma) {
		if ((comma = strchr(p, ',')) == NULL)
			comma = p + strlen(p);
		if (comma == p)
			continue;
		lt_buf_addc(&keytext, '"');
		lt_esc(&keytext, p, (size_t)(comma - p));
		lt_buf_addc(&keytext, '"');
		lt_buf_addc(&keytext, '\0');
		nkeys++;
	}
	keys = lt_reallocarray(NULL, nkeys, sizeof(*keys));
	eid = lt_reallocarray(NULL, nkeys, sizeof(*eid));
	for (i = 0, p = keytext.p; i < nkeys; i++, p += n + 1) {
		n = strlen(p);
		keys[i].p = (char *)p;
		keys[i].n = n;
	}
}

static int
feq(const struct ltfield *a, const struct ltfield *b)
{
	return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

static void
room(struct members *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->cap = n;		/* exactly: open spans may be many */
	m->k = lt_reallocarray(m->k, m->cap, sizeof(*m->k));
	m->v = lt_reallocarray(m->v, m->cap, sizeof(*m->v));
}

/*
 * Split the args of rec into m and its identifying values into id; a
 * malformed args column is bad data.
 */
static void
members(struct ltrd *rd, const struct ltfield *args, struct members *m,
    struct ltfield *id)
{
	struct ltfield k, v;
	struct ltobj it;
	size_t i, j;
	long n;
	int r;

	for (i = 0; i < nkeys; i++)
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
			room(m, m->n + 1);
			m->k[m->n] = k;
			m->v[m->n++] = v;
		}
		if (r < 0)
			lt_rd_bad(rd, "column args: %s", it.err);
	}
	for (j = 0; j < m->n; j++)
		for (i = 0; i < nkeys; i++)
			if (m->k[j].n == keys[i].n &&
			    m->k[j].p[1] == keys[i].p[1] &&
			    memcmp(m->k[j].p, keys[i].p, keys[i].n) == 0) {
				id[i] = m->v[j];	/* the last one counts */
				break;
			}
}

/* Are the keys of m all different? */
static int
unique(const struct members *m)
{
	size_t i, j;

	for (i = 1; i < m->n; i++)
		for (j = 0; j < i; j++)
			if (m->k[i].n == m->k[j].n &&
			    m->k[i].p[1] == m->k[j].p[1] &&
			    memcmp(m->k[i].p, m->k[j].p, m->k[i].n) == 0)
				return 0;
	return 1;
}

static void
putline(const struct ltrec *rec)
{
	lt_out_write(&out, rec->line, rec->len);
	lt_out_putc(&out, '\n');
}

/*
 * What B and E records need first: their ts in *ns.  Returns 0 for a
 * record without ts, which passes unchanged.
 */
static int
timed(struct ltrd *rd, const struct ltrec *rec, int64_t *ns)
{
	int r;

	if ((r = lt_rec_ts(rec, LT_TS, ns)) < 0)
		lt_rd_bad(rd, "column ts: not microseconds (-?D+ with at "
		    "most 3 decimals) or -");
	if (r == 0) {
		nuntimed++;
		putline(rec);
		return 0;
	}
	return 1;
}

static void
later(struct thread *th, int64_t t)
{
	if (t > th->last)
		th->last = t;
}

/* A record at ts of a thread with open spans moves its last time on. */
static void
touch(struct thread *th, const struct ltrec *rec, int64_t ts)
{
	int64_t dur;

	later(th, ts);
	if (!LT_ISNONE(rec->f[LT_DUR]) && lt_rec_ts(rec, LT_DUR, &dur) > 0)
		later(th, dur > 0 && ts > INT64_MAX - dur ? INT64_MAX :
		    ts + dur);
}

static void
putcol(const struct ltfield *f)
{
	lt_out_write(&out, f->p, f->n);
	lt_out_putc(&out, '\t');
}

static void
putmember(int *first, const struct ltfield *k, const struct ltfield *v)
{
	if (!*first)
		lt_out_putc(&out, ',');
	*first = 0;
	lt_out_write(&out, k->p, k->n);
	lt_out_putc(&out, ':');
	lt_out_write(&out, v->p, v->n);
}

/* The members of m, then the marker (if any), as an args column. */
static void
putargs(const struct members *m, const char *mark, int64_t negdur)
{
	size_t i;
	int first = 1;

	lt_out_putc(&out, '{');
	for (i = 0; i < m->n; i++)
		putmember(&first, &m->k[i], &m->v[i]);
	if (mark != NULL) {
		lt_out_puts(&out, first ? "\"ltpair\":\"" : ",\"ltpair\":\"");
		lt_out_puts(&out, mark);
		lt_out_putc(&out, '"');
		if (negdur < 0) {
			lt_out_puts(&out, ",\"ltpair_dur\":");
			lt_put_us(&out, negdur);
		}
	}
	lt_out_putc(&out, '}');
}

/*
 * The args of an X: the B's members in their order, then those of the
 * E that the B lacks.  On a conflict the B wins and the E's value is
 * kept under "E.key".
 */
static void
putmerged(const struct members *bm, const char *mark, int64_t negdur)
{
	size_t i, j;
	int first = 1;

	lt_out_putc(&out, '{');
	for (i = 0; i < bm->n; i++)
		putmember(&first, &bm->k[i], &bm->v[i]);
	for (j = 0; j < em.n; j++) {
		for (i = 0; i < bm->n; i++)
			if (feq(&bm->k[i], &em.k[j]))
				break;
		if (i == bm->n) {
			putmember(&first, &em.k[j], &em.v[j]);
			continue;
		}
		if (feq(&bm->v[i], &em.v[j]))
			continue;
		/* "E." and the key's contents, its closing quote included */
		lt_out_puts(&out, first ? "\"E." : ",\"E.");
		first = 0;
		lt_out_write(&out, em.k[j].p + 1, em.k[j].n - 1);
		lt_out_putc(&out, ':');
		lt_out_write(&out, em.v[j].p, em.v[j].n);
	}
	if (mark != NULL) {
		lt_out_puts(&out, first ? "\"ltpair\":\"" : ",\"ltpair\":\"");
		lt_out_puts(&out, mark);
		lt_out_puts(&out, "\",\"ltpair_dur\":");
		lt_put_us(&out, negdur);
	}
	lt_out_putc(&out, '}');
}

/* Copy a B record into a span (from the free list when possible). */
static struct span *
newspan(const struct ltrec *rec, int64_t ts, struct thread *th)
{
	struct span *s;
	size_t i;

	if ((s = freespans) != NULL)
		freespans = s->tnext;
	else {
		s = lt_calloc(1, sizeof(*s));
		s->id = lt_reallocarray(NULL, nkeys, sizeof(*s->id));
	}
	if (s->line.cap < rec->len) {
		free(s->line.p);
		s->line.p = lt_malloc(rec->len);
		s->line.cap = rec->len;
	}
	memcpy(s->line.p, rec->line, rec->len);
	s->line.n = rec->len;
	for (i = 0; i < LT_NCOL; i++) {
		s->f[i].p = s->line.p + (rec->f[i].p - rec->line);
		s->f[i].n = rec->f[i].n;
	}
	for (i = 0; i < nkeys; i++) {
		s->id[i].p = eid[i].p == NULL ? NULL :
		    s->line.p + (eid[i].p - rec->line);
		s->id[i].n = eid[i].n;
	}
	room(&s->m, em.n);
	for (i = 0; i < em.n; i++) {
		s->m.k[i].p = s->line.p + (em.k[i].p - rec->line);
		s->m.k[i].n = em.k[i].n;
		s->m.v[i].p = s->line.p + (em.v[i].p - rec->line);
		s->m.v[i].n = em.v[i].n;
	}
	s->m.n = em.n;
	/*
	 * Written back member by member, plain args with distinct keys
	 * are the column as it is (and stay so when the E's are the same).
	 */
	s->asis = em.plain && unique(&em);
	s->ts = ts;
	s->th = th;
	s->tprev = NULL;
	if ((s->tnext = th->open) != NULL)
		th->open->tprev = s;
	th->open = s;
	s->onext = NULL;
	if ((s->oprev = olast) != NULL)
		olast->onext = s;
	else
		ofirst = s;
	olast = s;
	if (++nopen > maxopen)
		maxopen = nopen;
	return s;
}

/* Unlink a closed span; a thread left without open spans is forgotten. */
static void
dropspan(struct span *s)
{
	struct thread *th = s->th;

	if (s->tprev != NULL)
		s->tprev->tnext = s->tnext;
	else
		th->open = s->tnext;
	if (s->tnext != NULL)
		s->tnext->tprev = s->tprev;
	if (s->oprev != NULL)
		s->oprev->onext = s->onext;
	else
		ofirst = s->onext;
	if (s->onext != NULL)
		s->onext->oprev = s->oprev;
	else
		olast = s->oprev;
	s->tnext = freespans;
	freespans = s;
	nopen--;
	if (th->open == NULL)
		lt_id_del(&threads, th);
}

static void
begin(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	int64_t ts;
	int isnew;

	nb++;
	if (!timed(rd, rec, &ts))
		return;
	members(rd, &rec->f[LT_ARGS], &em, eid);
	th = lt_id_get(&threads, &rec->f[LT_PID], &rec->f[LT_TID], 1,
	    &isnew);
	if (isnew)
		th->last = ts;
	touch(th, rec, ts);
	newspan(rec, ts, th);
	if (kflag)
		putline(rec);
}

/*
 * The args of the E being handled in em and eid, split once, when first
 * needed: an E whose args are those of its B needs none of it.
 */
static void
eargs(struct ltrd *rd, const struct ltrec *rec, int *done)
{
	if (!*done)
		members(rd, &rec->f[LT_ARGS], &em, eid);
	*done = 1;
}

/* Does the open span s admit the E being handled (rec)? */
static int
admits(struct ltrd *rd, const struct span *s, const struct ltrec *rec,
    int *done)
{
	const struct ltfield *f = rec->f;
	size_t i;

	if (f[LT_NAME].n > 0 && !feq(&s->f[LT_NAME], &f[LT_NAME]))
		return 0;
	if (f[LT_CAT].n > 0 && s->f[LT_CAT].n > 0 &&
	    !feq(&s->f[LT_CAT], &f[LT_CAT]))
		return 0;
	/* The same args (a valid column: the B's) have the same values. */
	if (feq(&s->f[LT_ARGS], &f[LT_ARGS]))
		return 1;
	eargs(rd, rec, done);
	for (i = 0; i < nkeys; i++)
		if (eid[i].p != NULL && s->id[i].p != NULL &&
		    !feq(&eid[i], &s->id[i]))
			return 0;
	return 1;
}

/* An E with no open B: an instant, marked, so Perfetto keeps it. */
static void
lonely(const struct ltrec *rec)
{
	nue++;
	putcol(&rec->f[LT_TS]);
	lt_out_write(&out, "i\t", 2);
	putcol(&rec->f[LT_PID]);
	putcol(&rec->f[LT_TID]);
	lt_out_write(&out, "-\t", 2);
	putcol(&rec->f[LT_CAT]);
	putcol(&rec->f[LT_NAME]);
	putargs(&em, "unmatched_E", 0);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, rec->f[LT_EXTRA].p, rec->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

/* The X of span s closed by the E rec at ets. */
static void
complete(struct ltrd *rd, const struct span *s, const struct ltrec *rec,
    int64_t dur, int *done)
{
	const struct ltfield *cat;
	char *w;
	int i;

	cat = s->f[LT_CAT].n > 0 ? &s->f[LT_CAT] : &rec->f[LT_CAT];
	nx++;
	/* All but args and extra: pieces of the B, the cat, a number. */
	w = lt_out_room(&out, s->line.n + cat->n + LT_NUMBUF + 8);
	w = lt_put(w, s->f[LT_TS].p, s->f[LT_TS].n);
	w = lt_put(w, "\tX\t", 3);
	for (i = LT_PID; i <= LT_TID; i++) {
		w = lt_put(w, s->f[i].p, s->f[i].n);
		*w++ = '\t';
	}
	w += lt_us_fmt(w, dur < 0 ? 0 : dur);
	*w++ = '\t';
	w = lt_put(w, cat->p, cat->n);
	*w++ = '\t';
	w = lt_put(w, s->f[LT_NAME].p, s->f[LT_NAME].n);
	*w++ = '\t';
	out.n = (size_t)(w - out.buf);
	if (s->asis && dur >= 0 && feq(&s->f[LT_ARGS], &rec->f[LT_ARGS]))
		lt_put_field(&out, &s->f[LT_ARGS]);
	else {
		eargs(rd, rec, done);
		putmerged(&s->m, dur < 0 ? "negative_dur" : NULL, dur);
	}
	lt_out_putc(&out, '\t');
	lt_out_write(&out, s->f[LT_EXTRA].p, s->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

/* -k: the E as it came, or moved to its B's ts when it came before. */
static void
rawend(const struct span *s, const struct ltrec *rec, int64_t dur)
{
	int i;

	if (dur >= 0) {
		putline(rec);
		return;
	}
	putcol(&s->f[LT_TS]);
	for (i = LT_PH; i < LT_ARGS; i++)
		putcol(&rec->f[i]);
	putargs(&em, "negative_dur", dur);
	lt_out_putc(&out, '\t');
	lt_out_write(&out, rec->f[LT_EXTRA].p, rec->f[LT_EXTRA].n);
	lt_out_putc(&out, '\n');
}

static void
end(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	struct span *s = NULL;
	int64_t ts, dur;
	int done = 0;

	ne++;
	if (!timed(rd, rec, &ts))
		return;
	if ((th = lt_id_get(&threads, &rec->f[LT_PID], &rec->f[LT_TID], 0,
	    NULL)) != NULL) {
		touch(th, rec, ts);
		for (s = th->open; s != NULL; s = s->tnext)
			if (admits(rd, s, rec, &done))
				break;
	}
	if (s == NULL) {
		eargs(rd, rec, &done);
		lonely(rec);
		return;
	}
	if ((s->ts < 0 && ts > INT64_MAX + s->ts) ||
	    (s->ts > 0 && ts < INT64_MIN + s->ts))
		lt_rd_bad(rd, "column ts: too far from the ts of its B");
	dur = ts - s->ts;
	npair++;
	if (dur < 0)
		nneg++;
	if (kflag) {
		if (dur < 0)
			eargs(rd, rec, &done);
		rawend(s, rec, dur);
	} else
		complete(rd, s, rec, dur, &done);
	dropspan(s);
}

/*
 * At the end: every B still open becomes an X reaching the last event
 * of its thread (-k: gets an E there), marked.  Newest first, so that
 * with -k the E of an inner span comes before that of its parent.
 */
static void
unmatched(void)
{
	struct span *s;
	int64_t dur;

	while ((s = olast) != NULL) {
		nub++;
		if (kflag) {
			lt_put_us(&out, s->th->last);
			lt_out_write(&out, "\tE\t", 3);
			putcol(&s->f[LT_PID]);
			putcol(&s->f[LT_TID]);
			lt_out_write(&out, "-\t", 2);
			putcol(&s->f[LT_CAT]);
			putcol(&s->f[LT_NAME]);
			lt_out_puts(&out,
			    "{\"ltpair\":\"unmatched_B\"}\t{}\n");
			dropspan(s);
			continue;
		}
		if (s->ts < 0 && s->th->last > INT64_MAX + s->ts)
			dur = INT64_MAX;
		else
			dur = s->th->last - s->ts;
		putcol(&s->f[LT_TS]);
		lt_out_write(&out, "X\t", 2);
		putcol(&s->f[LT_PID]);
		putcol(&s->f[LT_TID]);
		lt_put_us(&out, dur);
		lt_out_putc(&out, '\t');
		putcol(&s->f[LT_CAT]);
		putcol(&s->f[LT_NAME]);
		putargs(&s->m, "unmatched_B", 0);
		lt_out_putc(&out, '\t');
		lt_out_write(&out, s->f[LT_EXTRA].p, s->f[LT_EXTRA].n);
		lt_out_putc(&out, '\n');
		dropspan(s);
	}
}

static int
hascrash(const struct ltfield *name)
{
	size_t i;

	if (LT_IS(*name, "crash"))
		return 1;
	for (i = 0; i + 7 <= name->n; i++)
		if (memcmp(name->p + i, "crashed", 7) == 0)
			return 1;
	return 0;
}

static void
record(struct ltrd *rd, const struct ltrec *rec)
{
	struct thread *th;
	int64_t ts;
	int ph;

	nrec++;
	if (rec->f[LT_PH].n != 1)
		lt_rd_bad(rd, "column ph: not a one-character phase");
	switch ((ph = rec->f[LT_PH].p[0])) {
	case 'B':
		begin(rd, rec);
		return;
	case 'E':
		end(rd, rec);
		return;
	case 'I':
	case 'i':
		ni++;
		if (hascrash(&rec->f[LT_NAME]))
			ncrash++;
		break;
	}
	if (threads.n > 0 && (th = lt_id_get(&threads, &rec->f[LT_PID],
	    &rec->f[LT_TID], 0, NULL)) != NULL &&
	    lt_rec_ts(rec, LT_TS, &ts) > 0)
		touch(th, rec, ts);
	putline(rec);
}

static void
stats(void)
{
	struct ltstat st[] = {
		{ "records", nrec },
		{ "B", nb },
		{ "E", ne },
		{ "pairs", npair },
		{ "X", nx },
		{ "I", ni },
		{ "unmatched_B", nub },
		{ "unmatched_E", nue },
		{ "crashes", ncrash },
		{ "negative_dur", nneg },
		{ "untimed", nuntimed },
		{ "open_max", maxopen }
	};

	lt_put_stat(&out, "ltpair", st, sizeof(st) / sizeof(st[0]));
}

static void
freeall(void)
{
	struct span *s;

	while ((s = freespans) != NULL) {
		freespans = s->tnext;
		lt_buf_free(&s->line);
		free(s->id);
		free(s->m.k);
		free(s->m.v);
		free(s);
	}
	lt_id_free(&threads, NULL);
	free(keys);
	free(eid);
	lt_buf_free(&keytext);
	free(em.k);
	free(em.v);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "no-complete", no_argument, NULL, 'k' },
		{ "match", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	struct ltrec rec;
	struct ltrd rd;
	int c, k;

	lt_setprog(argv[0]);
	setkeys(DEFKEYS);
	while ((c = getopt_long(argc, argv, "hkm:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			lt_help(SYNOPSIS,
			    "  -k, --no-complete  keep B and E records, do not "
			    "make X\n"
			    "  -m, --match keys   identifying args, "
			    "comma-separated (default " DEFKEYS ")\n"
			    "  -h, --help         show this help\n");
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			free(keys);
			free(eid);
			setkeys(optarg);
			break;
		default:
			lt_usage(SYNOPSIS);
		}
	}
	argc -= optind;
	argv += optind;

	lt_id_init(&threads, sizeof(struct thread));
	lt_out_init(&out, 1, "<stdout>");
	lt_put_header(&out);
	lt_rd_init(&rd, argc, argv);
	while ((k = lt_rd_next(&rd, &rec)) != LT_EOF) {
		if (k == LT_REC)
			record(&rd, &rec);
		else
			putline(&rec);
	}
	lt_rd_done(&rd);
	unmatched();
	stats();
	lt_out_close(&out);
	freeall();
	return LT_EXIT_OK;
}
