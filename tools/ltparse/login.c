/* See LICENSE file for copyright and license details. */
/*
 * login.c: a LitData log input of ltparse, read line by line: each line
 * classified (logline.c), an event written as an lt1 record (logrec.c),
 * every other line counted by kind (ps_login).  For the parts of -P, a
 * first look at a range only finds the threads its events make, in
 * order, and counts its lines (ps_logscan): a record of a thread it
 * has seen is passed over without being cut into tokens.
 */
#include <stdlib.h>

#include "lt.h"
#include "ltparse.h"

/* The event lg of a line of n bytes of input ip. */
static void
event(const struct pspin *ip, const struct pslog *lg, size_t n,
    struct pssink *s)
{
	struct psthread *th;
	struct psproc *pr;
	struct psnorm nm;
	const char *id;
	size_t idn, pidn;
	uint16_t end[LT_NCOL];
	int64_t ns[2];
	int has[2] = { 1, 0 };

	ps_lognorm(lg, &nm);
	th = ps_thread(ip, lg->pid, lg->tid, &pr);
	th->roles |= (unsigned)nm.role;
	ps_learn(pr, lg, &nm);
	s->n[PS_C_EVENTS]++;
	s->n[PS_C_RENAMED] += nm.renamed;
	s->n[PS_C_INFERRED] += nm.inferred;
	s->n[PS_C_SALVAGED] += lg->salvaged;
	ps_sink_first(s, ip, lg->ts, lg->ph.p[0]);
	/* Before a part's range only the count of replacements is wanted. */
	if (s->quiet && lg->plain) {
		s->t0done = 1;
		return;
	}
	id = ps_threadid(&idn, &pidn);
	ps_logrec(&s->rec, lg, &nm, id, idn, pidn, n, &s->n[PS_C_REPLACED],
	    end);
	if (!s->t0done)
		ps_sink_t0(s, s->rec.p, end[LT_TS], lg->ph.p[0]);
	if (s->quiet)
		return;
	lt_out_write(&s->out, s->rec.p, s->rec.n);
	ns[0] = lg->ts;
	ns[1] = 0;
	lt_out_hint(&s->out, s->rec.n, end, ns, has);
}

/*
 * The message of a text line p[0..n) ("ts:...;PID:P; TID:T; message"),
 * when it is one of LitData's configuration lines (spec 13): the
 * loader's settings, which a report quotes.  NULL for any other.
 */
static const char *
configtext(const char *p, size_t n, size_t *tn)
{
	static const char *const pre[] = {
		"Async chunk prefetch:", "max_cache_size",
		"The provided `max_cache_size`", "POSIX-fast",
		"Elastic resume:", NULL
	};
	const char *end = p + n, *t, *e;
	int k;

	for (t = p; end - t >= 4 && memcmp(t, "TID:", 4) != 0; t++)
		;
	if (end - t < 4 || (t = memchr(t, ';', (size_t)(end - t))) == NULL)
		return NULL;
	for (t++; t < end && *t == ' '; t++)
		;
	for (e = end; e > t && (e[-1] == ' ' || e[-1] == '\r'); e--)
		;
	for (k = 0; pre[k] != NULL; k++)
		if ((size_t)(e - t) > strlen(pre[k]) &&
		    memcmp(t, pre[k], strlen(pre[k])) == 0) {
			*tn = (size_t)(e - t);
			return t;
		}
	return NULL;
}

/* Is the next line of in beyond its limit (or its end)? */
static int
atlimit(const struct ltin *in)
{
	return in->limit >= 0 && in->off + (off_t)in->pos >= in->limit;
}

/* The line of n bytes at the unread bytes of in has been read. */
static void
consume(struct ltin *in, size_t n)
{
	in->lineoff = in->off + (off_t)in->pos;
	in->pos += n + (n < in->end - in->pos);		/* and its '\n' */
	in->line++;
}

/*
 * The next line of input in, classified in lg, of *n bytes.  Returns
 * its kind, or -1 at the end of the input or of the part (only lines
 * that start before in->limit are read).
 */
static int
readline(struct ltin *in, struct pslog *lg, size_t *n)
{
	size_t have;
	int k;

	if (atlimit(in))
		return -1;
	for (;;) {
		if ((have = in->end - in->pos) == 0 &&
		    (have = lt_in_fill(in, 1)) == 0)
			return -1;
		k = ps_logread(in->buf + in->pos, have, in->eof, lg, n);
		if (k != PS_LOG_MORE)
			break;
		lt_in_fill(in, have + 1);
	}
	return k;
}

static const char *const kinds[PS_NKIND] = {
	"event", "blank", "text", "noise", "traceback", "torn", "phase"
};

/*
 * The lines of log input in of ip, from where it is to its limit; the
 * lines that start before quiet only rebuild the state a whole run has
 * there (nothing is written for them).
 */
void
ps_login(const struct pspin *ip, struct ltin *in, off_t quiet,
    struct pssink *s)
{
	struct pslog lg;
	const char *text;
	char q[64];
	size_t n, tn;
	int k, intb = 0;

	memset(&lg, 0, sizeof(lg));
	for (;;) {
		s->quiet = in->off + (off_t)in->pos < quiet;
		if ((k = readline(in, &lg, &n)) < 0)
			break;
		s->n[PS_C_LINES]++;
		/* The exception line that ends a traceback is not indented. */
		if (k == PS_SKIP_NOISE && intb)
			k = PS_SKIP_TRACEBACK;
		intb = k == PS_SKIP_TRACEBACK;
		if (k == PS_LOG_EVENT || k == PS_SKIP_TEXT ||
		    k == PS_SKIP_PHASE)
			s->n[PS_C_GEN + lg.gen]++;
		if (k == PS_LOG_EVENT)
			event(ip, &lg, n, s);
		else
			s->n[PS_C_SKIP + k - 1]++;
		if (k == PS_SKIP_TEXT && !s->quiet &&
		    (text = configtext(in->buf + in->pos, n, &tn)) != NULL)
			ps_sink_config(s, lg.pid, text, tn);
		consume(in, n);
		if (k == PS_LOG_EVENT || !s->verbose || s->quiet ||
		    k == PS_SKIP_BLANK)
			continue;
		if (k == PS_SKIP_PHASE)
			lt_warnpos(in->name, in->line, "skipped phase line: "
			    "ph %s, not a phase LitData writes",
			    ps_quote(q, sizeof(q), lg.ph.p, lg.ph.n));
		else
			lt_warnpos(in->name, in->line, "skipped %s line%s%s",
			    kinds[k], lg.why != NULL ? ": " : "",
			    lg.why != NULL ? lg.why : "");
	}
	s->quiet = 0;
	ps_logline_free(&lg);
}

/*
 * The length of the line at p[0..n), up to its '\n' or n, and whether
 * it holds a NUL byte.
 */
static size_t
findline(const char *p, size_t n, int *nul)
{
	const char *nl = memchr(p, '\n', n);

	n = nl != NULL ? (size_t)(nl - p) : n;
	*nul = memchr(p, '\0', n) != NULL;
	return n;
}

/* The digits at p, up to end; their end. */
static const char *
digits(const char *p, const char *end)
{
	while (p < end && (unsigned)*p - '0' <= 9)
		p++;
	return p;
}

/*
 * The text of the PID and the TID of line p[0..n), a record
 * "ts:...;PID:P; TID:T;" (v1: "ts:...; logger_name:L; level:V; PID:P;
 * TID:T;"), in id[0] and id[1]; 0 for any other form, left to
 * ps_logline().  Where this finds them, ps_logline() finds the same
 * numbers, or makes no event of the line.
 */
static int
quickid(const char *p, size_t n, struct ltfield id[2])
{
	const char *end = p + n, *v, *e;

	if (n < 3 || memcmp(p, "ts:", 3) != 0 ||
	    (v = memchr(p, ';', n)) == NULL)
		return 0;
	for (v++;;) {
		while (v < end && *v == ' ')
			v++;
		if (end - v >= 12 && memcmp(v, "logger_name:", 12) == 0)
			e = memchr(v, ';', (size_t)(end - v));
		else if (end - v >= 6 && memcmp(v, "level:", 6) == 0)
			e = memchr(v, ';', (size_t)(end - v));
		else
			break;
		if (e == NULL)
			return 0;
		v = e + 1;
	}
	if (end - v < 4 || memcmp(v, "PID:", 4) != 0)
		return 0;
	e = digits(v += 4, end);
	if (e == end || *e != ';' || e == v)
		return 0;
	id[0].p = (char *)v;
	id[0].n = (size_t)(e - v);
	for (v = e + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	if (end - v < 4 || memcmp(v, "TID:", 4) != 0)
		return 0;
	e = digits(v += 4, end);
	if ((e < end && *e != ';') || e == v)
		return 0;
	id[1].p = (char *)v;
	id[1].n = (size_t)(e - v);
	return 1;
}

static uint64_t
idhash(const struct pssid *d)
{
	return lt_mix(d->pid * 0x9e3779b97f4a7c15ULL ^ d->os ^
	    (uint64_t)d->input << 40);
}

struct idkey {
	const struct psscan	*sc;
	const struct pssid	*d;
};

static int
eqid(const void *arg, uint32_t v)
{
	const struct idkey *k = arg;
	const struct pssid *d = &k->sc->id[v];

	return d->input == k->d->input && d->pid == k->d->pid &&
	    d->os == k->d->os;
}

/* Has the scan seen thread d?  With add, it has now. */
static int
seen(struct psscan *sc, const struct pssid *d, int add)
{
	struct idkey k;
	uint32_t *v;
	int created;

	k.sc = sc;
	k.d = d;
	v = lt_map_get(&sc->seen, idhash(d), eqid, &k, add ? &created : NULL);
	if (!add || !created)
		return v != NULL;
	sc->id = lt_grow(sc->id, &sc->capid, sc->nid + 1, sizeof(*sc->id));
	sc->id[sc->nid] = *d;
	*v = (uint32_t)sc->nid++;
	return 0;
}

/* Does t[0..n) start with entry e of the scan's cache? */
static int
cached(const struct psscan *sc, int e, const char *t, size_t n)
{
	return sc->lastn[e] != 0 && sc->lastn[e] <= n &&
	    lt_same(t, sc->last[e], sc->lastn[e]);
}

/* Is line p[0..n) a record of a thread the scan has seen? */
static int
known(struct psscan *sc, uint32_t input, const char *p, size_t n)
{
	const char *semi, *t;
	struct ltfield id[2];
	struct pssid d;
	size_t tn;
	int e;

	if (n < 3 || memcmp(p, "ts:", 3) != 0 ||
	    (semi = memchr(p, ';', n)) == NULL)
		return 0;
	/*
	 * Lines of a few threads interleave: the text of the last ones
	 * found known is kept, to be compared, not read and looked up.
	 */
	t = semi + 1;
	tn = (size_t)(p + n - t);
	if (cached(sc, sc->hit, t, tn))
		return 1;
	for (e = 0; e < PS_SCANCACHE; e++)
		if (cached(sc, e, t, tn))
			return (sc->hit = e), 1;
	d.input = input;
	if (!quickid(p, n, id) ||
	    lt_uint_parse(id[0].p, id[0].n, &d.pid) != LT_NUM_OK ||
	    lt_uint_parse(id[1].p, id[1].n, &d.os) != LT_NUM_OK ||
	    !seen(sc, &d, 0))
		return 0;
	/* "PID:P; TID:T;" right after the ts (not v1): keep it. */
	tn = (size_t)(id[1].p + id[1].n + 1 - t);
	if (id[0].p == t + 4 && id[1].p + id[1].n < p + n &&
	    tn <= sizeof(sc->last[0])) {
		e = sc->next;
		sc->next = (sc->next + 1) % PS_SCANCACHE;
		memcpy(sc->last[e], t, tn);
		sc->lastn[e] = (unsigned char)tn;
		sc->hit = e;
	}
	return 1;
}

/* One line of a first look: a thread its event makes goes to sc. */
static void
scanline(struct psscan *sc, uint32_t input, struct pslog *lg, char *line,
    size_t n, int nul)
{
	struct pssid d;

	if ((!nul && known(sc, input, line, n)) ||
	    ps_logline(line, n, lg) != PS_LOG_EVENT)
		return;
	d.input = input;
	d.pid = lg->pid;
	d.os = lg->tid;
	seen(sc, &d, 1);
}

/*
 * A first look at the lines of log input in of ip, from where it is to
 * its limit: the threads their events make, in order, in sc.
 */
void
ps_logscan(const struct pspin *ip, struct ltin *in, struct psscan *sc)
{
	struct pslog lg;
	size_t have, n;
	char *line;
	int nul;

	memset(&lg, 0, sizeof(lg));
	memset(sc->lastn, 0, sizeof(sc->lastn));
	while (!atlimit(in)) {
		if ((have = in->end - in->pos) == 0 &&
		    (have = lt_in_fill(in, 1)) == 0)
			break;
		line = in->buf + in->pos;
		if ((n = findline(line, have, &nul)) == have && !in->eof) {
			lt_in_fill(in, have + 1);
			continue;
		}
		consume(in, n);
		scanline(sc, ip->index, &lg, line, n, nul);
	}
	ps_logline_free(&lg);
}

void
ps_scan_free(struct psscan *sc)
{
	free(sc->id);
	lt_map_free(&sc->seen);
	memset(sc, 0, sizeof(*sc));
}
