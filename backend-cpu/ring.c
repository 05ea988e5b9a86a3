/* backend-cpu/ring.c - rings of memory mapped twice in a row (ring.h):
 * one memfd's pages mapped at base and at base + size, over an address
 * range reserved first so that nothing else lands between them. */
#define _GNU_SOURCE
#include "ring.h"

#include <sys/mman.h>
#include <unistd.h>

bool fgr_ring_map(fgr_ring *r, size_t bytes) {
  fgr_ring_unmap(r);
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || bytes > ((size_t)-1) / 4)
    return false;
  size_t size = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
  if (size == 0)
    size = (size_t)page;
  int fd = memfd_create("fieldgraph-ring", MFD_CLOEXEC);
  if (fd < 0)
    return false;
  char *base = MAP_FAILED;
  if (ftruncate(fd, (off_t)size) == 0)
    base = mmap(NULL, 2 * size + (size_t)page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  bool ok = base != MAP_FAILED &&
            mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 fd, 0) != MAP_FAILED &&
            mmap(base + size, size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
  close(fd);
  if (!ok) {
    if (base != MAP_FAILED)
      munmap(base, 2 * size + (size_t)page);
    return false;
  }
  r->base = base;
  r->size = size;
  return true;
}

void fgr_ring_unmap(fgr_ring *r) {
  if (!r->base)
    return;
  munmap(r->base, 2 * r->size + (size_t)sysconf(_SC_PAGESIZE));
  r->base = NULL;
  r->size = 0;
}
