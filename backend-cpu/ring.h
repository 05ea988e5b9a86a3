/* backend-cpu/ring.h - a ring of memory mapped twice in a row: `size`
 * bytes (a multiple of the page size) at base and again at base + size,
 * then a page of zeros, so that any span of at most size bytes that
 * starts in the first copy is contiguous (the row windows of bands.c
 * advance over it without moving a byte).  Internal. */
#ifndef FG_CPU_RING_H
#define FG_CPU_RING_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fgr_ring {
  char *base;                 /* NULL when not mapped */
  size_t size;
} fgr_ring;

/* Maps r anew with at least `bytes` (unmapping what it held); false when
 * the system cannot (r is then empty). */
bool fgr_ring_map(fgr_ring *r, size_t bytes);
/* Unmaps r; an empty ring does nothing. */
void fgr_ring_unmap(fgr_ring *r);

#endif
