/* See LICENSE file for copyright and license details. */
/*
 * pb.c: protobuf wire format, written by hand (see pb.h).
 *
 * A field is a key, (field number << 3) | wire type, as a varint, then
 * its value: a varint, eight little-endian bytes, or a varint length
 * and that many bytes.  Negative int32/int64 values are varints of
 * their 64-bit two's complement, ten bytes, as protobuf says.
 *
 * pb_open() (pb.h) writes the key of a length-delimited field and one
 * byte for its length, and returns where its contents start; pb_close()
 * writes the length there.  Most nested messages here are shorter than 128
 * bytes, so the one byte is right; a longer one is moved up by the
 * bytes its length needs more.
 */
#include "pb.h"

static void
room(struct ltbuf *b, size_t n)
{
	if (b->cap - b->n < n)
		lt_buf_grow(b, n);
}

void
pb_fixed64(struct ltbuf *b, uint32_t field, uint64_t v)
{
	int i;

	pb_varint(b, (uint64_t)field << 3 | PB_FIXED64);
	room(b, 8);
	for (i = 0; i < 8; i++)
		b->p[b->n++] = (char)(v >> (8 * i));
}

/* A double is its IEEE 754 bits, as fixed64. */
void
pb_double(struct ltbuf *b, uint32_t field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(b, field, v);
}

void
pb_bytes(struct ltbuf *b, uint32_t field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb_varint(b, n);
	lt_buf_add(b, p, n);
}

/* pb_close of a field of len bytes at start, len >= 128: move it up. */
void
pb_grow(struct ltbuf *b, size_t start, size_t len)
{
	size_t more = pb_varint_len(len) - 1;

	room(b, more);
	memmove(b->p + start + more, b->p + start, len);
	pb_putvarint(b->p + start - 1, len);
	b->n += more;
}

/* The varint at *p, not read past end: 1, or 0 when it is cut short. */
int
pb_getvarint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	int shift;

	for (*v = 0, shift = 0; *p < end && shift < 64; shift += 7) {
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if ((*(*p)++ & 0x80) == 0)
			return 1;
	}
	return 0;
}

/* The fields of one TracePacket p[0..n): counted, and checked to end. */
static int
packet(const unsigned char *p, size_t n, struct pbtrace *t)
{
	const unsigned char *end = p + n;
	uint64_t key, v;

	while (p < end) {
		if (!pb_getvarint(&p, end, &key) || key >> 3 == 0)
			return 0;
		switch (key & 7) {
		case PB_VARINT:
			if (!pb_getvarint(&p, end, &v))
				return 0;
			break;
		case PB_FIXED64:
			if (end - p < 8)
				return 0;
			p += 8;
			break;
		case PB_LEN:
			if (!pb_getvarint(&p, end, &v) ||
			    v > (uint64_t)(end - p))
				return 0;
			p += v;
			/* TrackEvent, InternedData, TrackDescriptor */
			t->events += key >> 3 == 11;
			t->interned += key >> 3 == 12;
			t->descriptors += key >> 3 == 60;
			break;
		case 5:			/* fixed32 */
			if (end - p < 4)
				return 0;
			p += 4;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/*
 * Does in start with a TracePacket, well-formed, and then another one or
 * nothing?  Nothing is read off in, so that a text input (JSON that
 * starts with a newline, which is also the key of Trace.packet) is then
 * read as usual.
 */
int
pb_istrace(struct ltin *in)
{
	struct pbtrace t;
	const unsigned char *p, *q;
	uint64_t key, len;
	size_t have;

	have = lt_in_fill(in, 2 * PB_VARINT_MAX);
	p = q = (const unsigned char *)in->buf + in->pos;
	if (!pb_getvarint(&q, p + have, &key) || key != (1 << 3 | PB_LEN) ||
	    !pb_getvarint(&q, p + have, &len) || len == 0 ||
	    len > 64 * 1024 * 1024)
		return 0;
	have = (size_t)(q - p) + (size_t)len;
	if (lt_in_fill(in, have + 1) < have)
		return 0;
	p = (const unsigned char *)in->buf + in->pos;
	memset(&t, 0, sizeof(t));
	return packet(p + have - len, (size_t)len, &t) &&
	    (in->end - in->pos == have || p[have] == (1 << 3 | PB_LEN));
}

/*
 * Look through the trace of in, streaming: every Trace.packet (field 1)
 * and its fields must end where their lengths say.  Returns 1 when the
 * whole input is such a trace; 0, with t->err, when it is not one, or
 * stops short (t->packets says how far it went).
 */
int
pb_trace(struct ltin *in, struct pbtrace *t)
{
	const unsigned char *p, *q;
	uint64_t key, len;
	size_t have, head;

	memset(t, 0, sizeof(*t));
	while ((have = lt_in_fill(in, 2 * PB_VARINT_MAX)) > 0) {
		p = q = (const unsigned char *)in->buf + in->pos;
		if (!pb_getvarint(&q, p + have, &key) ||
		    key != (1 << 3 | PB_LEN)) {
			t->err = "not a Trace.packet field";
			return 0;
		}
		if (!pb_getvarint(&q, p + have, &len) ||
		    len > (uint64_t)(SIZE_MAX / 2)) {
			t->err = "a packet length cut short";
			return 0;
		}
		head = (size_t)(q - p);
		if (lt_in_fill(in, head + (size_t)len) < head + (size_t)len) {
			t->err = "the last packet is cut short";
			return 0;
		}
		/* The buffer may have moved. */
		p = (const unsigned char *)in->buf + in->pos + head;
		if (!packet(p, (size_t)len, t)) {
			t->err = "a packet is not well-formed";
			return 0;
		}
		t->packets++;
		t->bytes += (long long)(head + (size_t)len);
		in->pos += head + (size_t)len;
	}
	return 1;
}
