/* See LICENSE file for copyright and license details. */
/*
 * pb.h: a small protobuf encoder (pb.c), by hand, libc only: varints,
 * fixed 64-bit fields and doubles, and length-delimited fields (strings,
 * bytes, nested messages) into a growable buffer.  A nested message is
 * opened, written, then closed: its length is patched in then, so no
 * size is computed ahead.  No schema is compiled; callers name the
 * field numbers of the schema they write.
 */
#ifndef LT_PB_H
#define LT_PB_H

#include "lt.h"

/* Wire types. */
enum {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2
};

/* The most bytes a varint takes. */
#define PB_VARINT_MAX	10

/* v as a varint at w, which has room for PB_VARINT_MAX bytes. */
static inline char *
pb_putvarint(char *w, uint64_t v)
{
	while (v >= 0x80) {
		*w++ = (char)(v | 0x80);
		v >>= 7;
	}
	*w++ = (char)v;
	return w;
}

static inline size_t
pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void	pb_fixed64(struct ltbuf *, uint32_t, uint64_t);
void	pb_double(struct ltbuf *, uint32_t, double);
void	pb_bytes(struct ltbuf *, uint32_t, const void *, size_t);
void	pb_grow(struct ltbuf *, size_t, size_t);

/* The small writes, inline: an event takes dozens of them. */
static inline void
pb_varint(struct ltbuf *b, uint64_t v)
{
	if (b->cap - b->n < PB_VARINT_MAX)
		lt_buf_grow(b, PB_VARINT_MAX);
	b->n = (size_t)(pb_putvarint(b->p + b->n, v) - b->p);
}

/*
 * What a program packs for itself to read back (state set aside, not a
 * trace): signed numbers zigzag, as sint64, small near 0 either way.
 * The readers trust what they read: it was written by pb_varint.
 */
static inline void
pb_zigzag(struct ltbuf *b, int64_t v)
{
	pb_varint(b, (uint64_t)v << 1 ^ (v < 0 ? UINT64_MAX : 0));
}

static inline uint64_t
pb_takevarint(const char **p)
{
	const unsigned char *q = (const unsigned char *)*p;
	uint64_t v = 0;
	unsigned sh = 0;

	while (*q & 0x80) {
		v |= (uint64_t)(*q++ & 0x7f) << sh;
		sh += 7;
	}
	v |= (uint64_t)*q++ << sh;
	*p = (const char *)q;
	return v;
}

static inline int64_t
pb_takezigzag(const char **p)
{
	uint64_t v = pb_takevarint(p);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A varint field: key, then value. */
static inline void
pb_uint(struct ltbuf *b, uint32_t field, uint64_t v)
{
	char *w;

	if (b->cap - b->n < 2 * PB_VARINT_MAX)
		lt_buf_grow(b, 2 * PB_VARINT_MAX);
	w = pb_putvarint(b->p + b->n, (uint64_t)field << 3 | PB_VARINT);
	b->n = (size_t)(pb_putvarint(w, v) - b->p);
}

/* int32 and int64: a negative value is ten bytes, as in protobuf. */
static inline void
pb_int(struct ltbuf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

/* Open a length-delimited field; returns where its contents start. */
static inline size_t
pb_open(struct ltbuf *b, uint32_t field)
{
	pb_varint(b, (uint64_t)field << 3 | PB_LEN);
	b->p[b->n++] = 0;	/* room: pb_varint left PB_VARINT_MAX */
	return b->n;
}

/* Close it: its length, in the byte left for it, or in more. */
static inline void
pb_close(struct ltbuf *b, size_t start)
{
	size_t len = b->n - start;

	if (len < 0x80)
		b->p[start - 1] = (char)len;
	else
		pb_grow(b, start, len);
}

/*
 * Reading: a varint, and a Perfetto trace (a Trace, a sequence of
 * TracePackets) looked through packet by packet, for ltcheck.
 */
int	pb_getvarint(const unsigned char **, const unsigned char *, uint64_t *);

struct pbtrace {
	long long	 packets;
	long long	 events;	/* TrackEvents */
	long long	 descriptors;	/* TrackDescriptors */
	long long	 interned;	/* packets with InternedData */
	long long	 bytes;
	const char	*err;		/* why it is not well-formed */
};

int	pb_istrace(struct ltin *);
int	pb_trace(struct ltin *, struct pbtrace *);

#endif
