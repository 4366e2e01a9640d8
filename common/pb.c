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
