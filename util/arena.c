/* util/arena.c - bump allocator for graph nodes, fields and kernel IR.
 * Everything built into a graph dies with it (STYLE rule 12), so the graph
 * owns one arena and frees it whole. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fgu_arena_chunk {
  fgu_arena_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

enum { CHUNK_MIN = 16 * 1024 };

void *fgu_arena_alloc(fgu_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (size == 0)
    size = 16;
  fgu_arena_chunk *c = a->head;
  if (!c || c->cap - c->used < size) {
    size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
    c = malloc(sizeof *c + cap);
    if (!c)
      return NULL;
    c->used = 0;
    c->cap = cap;
    c->next = a->head;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

char *fgu_arena_strdup(fgu_arena *a, const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *p = fgu_arena_alloc(a, n);
  if (p)
    memcpy(p, s, n);
  return p;
}

char *fgu_arena_printf(fgu_arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return NULL;
  char *p = fgu_arena_alloc(a, (size_t)n + 1);
  if (!p)
    return NULL;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void fgu_arena_free(fgu_arena *a) {
  fgu_arena_chunk *c = a->head;
  while (c) {
    fgu_arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  a->head = NULL;
}
