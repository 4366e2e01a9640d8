/* See LICENSE file for copyright and license details. */
/*
 * alloc.c: checked allocation and the growable buffer.  Running out of
 * memory is a system error: exit 2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "lt.h"

static void LT_NORETURN
oom(void)
{
	lt_die(LT_EXIT_SYS, "out of memory");
}

void *
lt_malloc(size_t n)
{
	void *p;

	if ((p = malloc(n != 0 ? n : 1)) == NULL)
		oom();
	return p;
}

void *
lt_calloc(size_t nmemb, size_t size)
{
	void *p;

	if ((p = calloc(nmemb != 0 ? nmemb : 1, size != 0 ? size : 1)) == NULL)
		oom();
	return p;
}

void *
lt_reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		oom();
	if ((p = realloc(p, nmemb * size != 0 ? nmemb * size : 1)) == NULL)
		oom();
	return p;
}

char *
lt_strdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(lt_malloc(n), s, n);
}

/* Make room for at least extra more bytes, doubling. */
void
lt_buf_grow(struct ltbuf *b, size_t extra)
{
	size_t cap = b->cap != 0 ? b->cap : 256;

	if (extra > SIZE_MAX / 2 - b->n)
		oom();
	while (cap - b->n < extra)
		cap *= 2;
	b->p = lt_reallocarray(b->p, cap, 1);
	b->cap = cap;
}

void
lt_buf_free(struct ltbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

/* p with room for need elements of size bytes; *cap grows by doubling. */
void *
lt_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap != 0 ? *cap : 4;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	*cap = n;
	return lt_reallocarray(p, n, size);
}

/*
 * p with room for need elements of size bytes, of which the first *made
 * are in use: those from *made to need are zeroed, and *made becomes
 * need.  Room grows by doubling as lt_grow's, but what lies beyond need
 * is not written: a table by track of a long job would have up to half
 * its pages zeroed, resident, for nothing.
 */
void *
lt_grow_zero(void *p, size_t *cap, size_t *made, size_t need, size_t size)
{
	if (need <= *made)
		return p;
	p = lt_grow(p, cap, need, size);
	memset((char *)p + *made * size, 0, (need - *made) * size);
	*made = need;
	return p;
}

/*
 * The pages of the heap that no block uses go back to the system.  A
 * program that keeps allocating and freeing blocks of many sizes leaves
 * free holes between those in use, and free() gives back only the top
 * of the heap: the holes stay resident, and grow with the input.  glibc
 * has the call (it is not POSIX); elsewhere this does nothing.
 */
void
lt_trim(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
