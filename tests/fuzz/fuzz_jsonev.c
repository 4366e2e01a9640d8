/* See LICENSE file for copyright and license details. */
/*
 * fuzz_jsonev: libFuzzer harness for the Chrome trace JSON reader
 * (jsonev.c, json.c) and its conversion to lt1 records (jsonrec.c).
 * The input is read as a file, event by event, in canonical mode (as
 * ltparse reads it, with and without a pid block), raw mode and
 * check-only mode; every record made must be valid lt1
 * (lt_rec_check) with a pid and tid Perfetto takes as they are, and an
 * error must come with its message and line.
 * In canonical mode the text of every event is canonical JSON.  The
 * tokens the strict scanner makes as it reads an event are those jsmn
 * makes of its text, token for token.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "jsonev.h"
#include "ltparse.h"
#include "fuzzfile.h"

/* A type of jsmn's as core.h has it. */
static int
ltype(jsmntype_t t)
{
	return t == JSMN_OBJECT ? LT_JT_OBJECT : t == JSMN_ARRAY ? LT_JT_ARRAY :
	    t == JSMN_STRING ? LT_JT_STRING : t == JSMN_PRIMITIVE ?
	    LT_JT_PRIMITIVE : -1;
}

/* The tokens of ev are jsmn's. */
static void
asjsmn(const struct ltjev *ev)
{
	static jsmntok_t tok[65536];
	jsmn_parser ps;
	int i, n;

	jsmn_init(&ps);
	n = jsmn_parse(&ps, ev->p, ev->n, tok, 65536);
	if (n == JSMN_ERROR_NOMEM)
		return;
	if (n != ev->ntok)
		abort();
	for (i = 0; i < n; i++)
		if (ltype(tok[i].type) != ev->tok[i].type ||
		    tok[i].start != ev->tok[i].start ||
		    tok[i].end != ev->tok[i].end ||
		    tok[i].size != ev->tok[i].size ||
		    tok[i].parent != ev->tok[i].parent)
			abort();
}


/* An id column: "-", or an integer in 0..2^32-1. */
static void
validid(const struct ltfield *f)
{
	uint64_t v;

	if (f->n == 1 && f->p[0] == '-')
		return;
	if (lt_uint_parse(f->p, f->n, &v) != LT_NUM_OK || v > UINT32_MAX)
		abort();
}

static void
record(struct ltbuf *b)
{
	struct ltrec rec;
	const char *why;
	char *p = b->p, *end = b->p + b->n - 1, *tab;
	int i, col;

	memset(&rec, 0, sizeof(rec));
	if (b->n == 0 || b->p[b->n - 1] != '\n')
		abort();
	for (i = 0; i < LT_NCOL - 1; i++) {
		if ((tab = memchr(p, '\t', (size_t)(end - p))) == NULL)
			abort();
		rec.f[i].p = p;
		rec.f[i].n = (size_t)(tab - p);
		p = tab + 1;
	}
	if (memchr(p, '\t', (size_t)(end - p)) != NULL ||
	    memchr(b->p, '\n', b->n - 1) != NULL)
		abort();
	rec.f[LT_EXTRA].p = p;
	rec.f[LT_EXTRA].n = (size_t)(end - p);
	if (lt_rec_check(&rec, &why, &col) < 0)
		abort();
	validid(&rec.f[LT_PID]);
	validid(&rec.f[LT_TID]);
}


/* In canonical mode an event's text needs no edit. */
static void
canonical(const struct ltjev *ev)
{
	struct ltjson j;

	if (lt_json_whole(ev->p, ev->n, NULL, &j) != LT_JSON_OK ||
	    j.flags != 0)
		abort();
}

static void
readall(int canon, int block)
{
	static struct ltbuf b;
	struct psjrec jc;
	struct ltjev ev;
	struct ltjr jr;
	struct ltin in;
	int k;

	fuzz_open(&in);
	static struct pspin pin[2] = {
		{ .path = "in", .index = 0, .block = 0, .label = "" },
		{ .path = "in", .index = 1, .block = 1, .label = "node 0" }
	};

	memset(&jc, 0, sizeof(jc));
	jc.offset = 1000;
	jc.in = &pin[block];
	lt_jr_init(&jr, &in, canon);
	while ((k = lt_jr_next(&jr, &ev)) != LT_JEV_EOF) {
		if (k == LT_JEV_ERROR) {
			if (jr.err == NULL || jr.errline < 1)
				abort();
			break;
		}
		if (k == LT_JEV_EVENT && canon != LT_JR_CHECK)
			asjsmn(&ev);
		/* ps_jrec() takes canonical events, as ltparse reads them. */
		if (k == LT_JEV_TOP || canon != 1)
			continue;
		canonical(&ev);
		b.n = 0;
		if (ps_jrec(&ev, &b, &jc) == 0)
			record(&b);
		else if (jc.why == NULL)
			abort();
	}
	lt_jr_free(&jr);
	lt_in_close(&in);
	ps_jsonids_free();
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_store(data, size);
	readall(1, 0);
	readall(1, 1);
	readall(0, 0);
	readall(LT_JR_CHECK, 0);
	readall(LT_JR_LAZY, 0);
	return 0;
}
