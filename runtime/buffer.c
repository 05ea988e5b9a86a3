/* runtime/buffer.c - fields kept in a context's device memory between
 * runs (fg_buffer, context.h): making, filling, reading and freeing them
 * (runs bind them in run.c); and host memory the device copies at full
 * speed (fg_host_alloc). */
#include "buffer_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether t is a type a field may have (what fg_input accepts). */
static bool type_ok(fg_type t) {
  if (t.elem == FG_BOOL || !fg_elem_size(t.elem) || t.field.ndim < 0 ||
      t.field.ndim > 3 || t.tensor.ndim < 0 || t.tensor.ndim > 2)
    return false;
  for (int i = 0; i < t.field.ndim; i++)
    if (t.field.dim[i] < 1 || t.field.dim[i] > FG_MAX_DIM_EXTENT)
      return false;
  for (int i = 0; i < t.tensor.ndim; i++)
    if (t.tensor.dim[i] < 1)
      return false;
  return fg_type_bytes(t) != SIZE_MAX;
}

bool fg__buffer_idle(const void *buf) {
  return ((const fg_buffer *)buf)->uses == 0;
}

fg_status fg_buffer_new(fg_context *ctx, fg_type t, fg_buffer **out) {
  if (out)
    *out = NULL;
  if (!ctx)
    return FG_EINVAL;
  if (!out)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_buffer_new: out is NULL");
  if (ctx->zombie)
    return fg__ctx_fail(ctx, FG_ESTATE, "fg_buffer_new: the context was "
                        "freed");
  if (!type_ok(t)) {
    char ts[FG_TYPE_STR_MAX];
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_buffer_new: %s is not a field "
                        "type (an element type other than bool, extents of "
                        "at least 1)", fg_type_str(t, ts, sizeof ts));
  }
  size_t bytes = fg_type_bytes(t);
  fg_buffer *b = calloc(1, sizeof *b);
  void *zero = calloc(1, bytes ? bytes : 1);
  if (!b || !zero) {
    free(b);
    free(zero);
    return fg__ctx_fail(ctx, FG_ENOMEM, "fg_buffer_new: out of memory for "
                        "%zu bytes", bytes);
  }
  fg_status st = fg__be_alloc(ctx->be, bytes, &b->mem);
  if (st == FG_OK && (st = fg__be_upload(ctx->be, b->mem, zero, bytes)))
    fg__be_buffer_free(ctx->be, b->mem);
  free(zero);
  if (st != FG_OK) {
    free(b);
    return fg__ctx_fail(ctx, st, "fg_buffer_new: %zu bytes on the device: "
                        "%s", bytes, ctx->errmsg);
  }
  b->ctx = ctx;
  b->type = t;
  b->bytes = bytes;
  ctx->live_buffers++;
  *out = b;
  return FG_OK;
}

fg_status fg_buffer_wrap(fg_context *ctx, fg_type t, void *host,
                         fg_buffer **out) {
  if (out)
    *out = NULL;
  if (!ctx)
    return FG_EINVAL;
  char ts[FG_TYPE_STR_MAX];
  if (!out || !host)
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_buffer_wrap: %s is NULL",
                        out ? "the host memory" : "out");
  if (ctx->zombie)
    return fg__ctx_fail(ctx, FG_ESTATE, "fg_buffer_wrap: the context was "
                        "freed");
  if (!type_ok(t))
    return fg__ctx_fail(ctx, FG_EINVAL, "fg_buffer_wrap: %s is not a field "
                        "type (an element type other than bool, extents of "
                        "at least 1)", fg_type_str(t, ts, sizeof ts));
  fg_buffer *b = calloc(1, sizeof *b);
  if (!b)
    return fg__ctx_fail(ctx, FG_ENOMEM, "fg_buffer_wrap: out of memory");
  b->ctx = ctx;
  b->type = t;
  b->bytes = fg_type_bytes(t);
  b->host = host;
  ctx->live_buffers++;
  *out = b;
  return FG_OK;
}

void fg_buffer_free(fg_buffer *b) {
  if (!b)
    return;
  fg_context *ctx = b->ctx;
  fg__loop_wait_until(ctx, fg__buffer_idle, b);
  if (b->mem)
    fg__be_buffer_free(ctx->be, b->mem);
  free(b);
  ctx->live_buffers--;
  fg__ctx_release(ctx);
}

fg_type fg_buffer_type(const fg_buffer *b) {
  fg_type zero;
  memset(&zero, 0, sizeof zero);
  return b ? b->type : zero;
}

/* Checks a read's or write's arguments and waits for the runs using b. */
static fg_status before_copy(fg_buffer *b, const char *fn, const void *p,
                             size_t size) {
  fg_context *ctx = b->ctx;
  if (!p)
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: the host memory is NULL", fn);
  if (size != b->bytes)
    return fg__ctx_fail(ctx, FG_EINVAL, "%s: the buffer holds %zu bytes, "
                        "got %zu", fn, b->bytes, size);
  fg__loop_wait_until(ctx, fg__buffer_idle, b);
  return FG_OK;
}

fg_status fg_buffer_write(fg_buffer *b, const void *src, size_t size) {
  if (!b)
    return FG_EINVAL;
  fg_status st = before_copy(b, "fg_buffer_write", src, size);
  if (st == FG_OK && !b->mem)
    memmove(b->host, src, size);
  else if (st == FG_OK &&
           (st = fg__be_upload(b->ctx->be, b->mem, src, size)))
    fg__ctx_fail(b->ctx, st, "fg_buffer_write: %s", b->ctx->errmsg);
  return st;
}

fg_status fg_buffer_read(fg_buffer *b, void *dst, size_t size) {
  if (!b)
    return FG_EINVAL;
  fg_status st = before_copy(b, "fg_buffer_read", dst, size);
  if (st == FG_OK && !b->mem)
    memmove(dst, b->host, size);
  else if (st == FG_OK &&
           (st = fg__be_download(b->ctx->be, b->mem, dst, size)))
    fg__ctx_fail(b->ctx, st, "fg_buffer_read: %s", b->ctx->errmsg);
  return st;
}

/* ---- host memory the device copies at full speed ------------------------ */

/* One fg_host_alloc block: the backend's page-locked buffer mapped at
 * host, or (buf NULL) ordinary page-aligned memory. */
typedef struct fg__host_block {
  struct fg__host_block *next;
  void *host;
  fg__buffer *buf;
} fg__host_block;

void *fg_host_alloc(fg_context *ctx, size_t bytes) {
  if (!ctx)
    return NULL;
  if (ctx->zombie) {
    fg__ctx_fail(ctx, FG_ESTATE, "fg_host_alloc: the context was freed");
    return NULL;
  }
  fg__host_block *h = calloc(1, sizeof *h);
  if (!h) {
    fg__ctx_fail(ctx, FG_ENOMEM, "fg_host_alloc: out of memory");
    return NULL;
  }
  fg_status st = fg__be_pin(ctx->be, bytes, &h->buf, &h->host);
  if (st == FG_OK && (uintptr_t)h->host % 16) {
    /* a mapping not aligned for a float4: ordinary memory instead */
    fg__be_buffer_free(ctx->be, h->buf);
    h->buf = NULL;
    st = FG_ENOTSUP;
  }
  if (st == FG_ENOTSUP) {
    size_t page = 4096, n = (bytes + page - 1) / page * page;
    h->host = n >= bytes ? aligned_alloc(page, n ? n : page) : NULL;
    st = h->host ? FG_OK : FG_ENOMEM;
    if (st != FG_OK)
      fg__ctx_fail(ctx, st, "out of memory");
  }
  if (st != FG_OK) {
    free(h);
    fg__ctx_fail(ctx, st, "fg_host_alloc: %zu bytes: %s", bytes,
                 ctx->errmsg);
    return NULL;
  }
  h->next = ctx->host_blocks;
  ctx->host_blocks = h;
  ctx->live_buffers++;
  return h->host;
}

void fg_host_free(fg_context *ctx, void *p) {
  if (!ctx || !p)
    return;
  fg__host_block **pp = &ctx->host_blocks;
  while (*pp && (*pp)->host != p)
    pp = &(*pp)->next;
  fg__host_block *h = *pp;
  if (!h) {
    fg__ctx_fail(ctx, FG_EINVAL, "fg_host_free: %p is not a block of this "
                 "context's fg_host_alloc", p);
    return;
  }
  /* runs may still copy from or to it */
  fg_context_wait(ctx);
  *pp = h->next;
  if (h->buf)
    fg__be_buffer_free(ctx->be, h->buf);
  else
    free(h->host);
  free(h);
  ctx->live_buffers--;
  fg__ctx_release(ctx);
}
