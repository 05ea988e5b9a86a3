/* tests/check_buffers.c - fields kept in device memory between runs
 * (fg_buffer): runs over buffers give the bits of runs over host memory
 * for every kind of output (a kernel's result, a second output of it, an
 * input passed through, a constant, a reduction and arithmetic the host
 * evaluates on it and on a 0-D input), in check mode too; programs chained
 * through buffers keep their order when runs overlap; reads and writes
 * wait for the runs using a buffer; bad arguments are refused with the
 * object named; a context freed before its buffers lingers until the
 * last one goes; runs over fg_host_alloc's memory.  Results are checked against C computations.  Runs on
 * the backend $FG_TEST_BACKEND names. */
#include "testutil.h"

#include <math.h>

enum { BR = 61, BC = 97, BN = BR * BC };   /* odd: tails everywhere */

static float xval(int i, int seed) {
  return (float)((unsigned)(i * 2654435761u + (unsigned)seed * 40503u) >>
                 8) / 16777215.0f;
}

/* Inputs x (f32 BRxBC), m (u8 BRxBC) and k (0-D f32); outputs
 *   blur, y, y2, m3  tu_blur_clamp_m3's, with y = clamp(blur * 1.75 -
 *         0.25, 0, 1)
 *   xp    x itself; c a constant (BC f32)
 *   s     sum of x; sk = s * k (the host computes it)
 *   xn    x / s (a kernel reading the reduction's result) */
static fg_graph *mixed_graph(void) {
  fg_shape sh = fg_shape2(BR, BC);
  fg_type t = fg_type_scalar(FG_F32, sh), tm = fg_type_scalar(FG_U8, sh);
  fg_type t0 = fg_type_scalar(FG_F32, fg_shape0());
  fg_type tc = fg_type_scalar(FG_F32, fg_shape1(BC));
  fg_graph *g = fg_graph_new("buffers");
  fg_field *x = fg_input(g, "x", t);
  fg_field *m = fg_input(g, "m", tm);
  fg_field *k = fg_input(g, "k", t0);
  tu_blur_clamp_m3(g, x, m, 1.75f, -0.25f);
  fg_output(g, "xp", x);
  float cdata[BC];
  for (int i = 0; i < BC; i++)
    cdata[i] = (float)i * 0.5f - 3.0f;
  fg_output(g, "c", fg_constant(g, "c", tc, cdata));
  fg_field *s = fg_reduce(g, "s", FG_REDUCE_SUM, x);
  fg_output(g, "s", s);
  fg_op *op = fg_op_begin(g, "sk", 1, &t0);
  fg_write_tensor(op, 0, fg_mul(fg_read_tensor(op, s), fg_read_tensor(op, k)));
  fg_output(g, "sk", fg_op_end(op));
  op = fg_op_begin(g, "xn", 1, &t);
  fg_write_tensor(op, 0, fg_div(fg_read_tensor(op, x), fg_read_tensor(op, s)));
  fg_output(g, "xn", fg_op_end(op));
  ck_assert_msg(fg_graph_status(g) == FG_OK, "%s", fg_graph_errmsg(g));
  return g;
}

/* Host memory for every input and output of a program. */
typedef struct hostio {
  int n_in, n_out;
  void *in[8], *out[16];
  size_t in_bytes[8], out_bytes[16];
} hostio;

static void hostio_init(hostio *h, fg_program *p, int seed) {
  h->n_in = fg_program_input_count(p);
  h->n_out = fg_program_output_count(p);
  ck_assert(h->n_in <= 8 && h->n_out <= 16);
  for (int i = 0; i < h->n_in; i++) {
    h->in_bytes[i] = fg_type_bytes(fg_program_input_type(p, i));
    h->in[i] = malloc(h->in_bytes[i]);
    ck_assert_ptr_nonnull(h->in[i]);
    fg_type t = fg_program_input_type(p, i);
    size_t n = h->in_bytes[i] / fg_elem_size(t.elem);
    for (size_t j = 0; j < n; j++) {
      if (t.elem == FG_F32)
        ((float *)h->in[i])[j] = xval((int)j, seed + i) + 0.01f;
      else
        ((uint8_t *)h->in[i])[j] = (uint8_t)((j * 7 + (size_t)seed * 13) %
                                             81);
    }
  }
  for (int i = 0; i < h->n_out; i++) {
    h->out_bytes[i] = fg_type_bytes(fg_program_output_type(p, i));
    h->out[i] = malloc(h->out_bytes[i]);
    ck_assert_ptr_nonnull(h->out[i]);
    memset(h->out[i], 0xee, h->out_bytes[i]);
  }
}

static void hostio_free(hostio *h) {
  for (int i = 0; i < h->n_in; i++)
    free(h->in[i]);
  for (int i = 0; i < h->n_out; i++)
    free(h->out[i]);
}

/* Buffers of ctx for every input and output of p: device buffers, or with
 * wrap 1 (2) the even (odd) inputs and the odd (even) outputs over memory
 * of the test's own (fg_buffer_wrap), which runs take as host memory. */
typedef struct bufio {
  int n_in, n_out;
  fg_buffer *in[8], *out[16];
  void *host[24];            /* the wrapped ones' memory */
} bufio;

static fg_buffer *one_buffer(bufio *b, fg_context *ctx, fg_type t, int slot,
                             bool wrapped) {
  fg_buffer *buf = NULL;
  if (wrapped) {
    b->host[slot] = calloc(1, fg_type_bytes(t) + 8);
    ck_assert_ptr_nonnull(b->host[slot]);
    ck_assert_msg(fg_buffer_wrap(ctx, t, b->host[slot], &buf) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
  } else {
    ck_assert_msg(fg_buffer_new(ctx, t, &buf) == FG_OK, "%s",
                  fg_context_errmsg(ctx));
  }
  return buf;
}

static void bufio_init(bufio *b, fg_context *ctx, fg_program *p, int wrap) {
  memset(b, 0, sizeof *b);
  b->n_in = fg_program_input_count(p);
  b->n_out = fg_program_output_count(p);
  for (int i = 0; i < b->n_in; i++)
    b->in[i] = one_buffer(b, ctx, fg_program_input_type(p, i), i,
                          wrap && i % 2 == wrap - 1);
  for (int i = 0; i < b->n_out; i++)
    b->out[i] = one_buffer(b, ctx, fg_program_output_type(p, i), 8 + i,
                           wrap && i % 2 != wrap - 1);
}

static void bufio_free(bufio *b) {
  for (int i = 0; i < b->n_in; i++)
    fg_buffer_free(b->in[i]);
  for (int i = 0; i < b->n_out; i++)
    fg_buffer_free(b->out[i]);
  for (int i = 0; i < 24; i++)
    free(b->host[i]);
}

/* Runs p over host memory and over buffers holding the same inputs (all
 * on the device, and mixed with wrapped ones both ways), and asserts every
 * output's bytes agree (a wrapped output's memory too); leaves the host
 * run's in h. */
static void same_as_host(fg_context *ctx, fg_program *p, hostio *h) {
  ck_assert_msg(fg_program_run(p, h->n_in, (const void *const *)h->in,
                               h->n_out, h->out) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  for (int wrap = 0; wrap < 3; wrap++) {
    bufio b;
    bufio_init(&b, ctx, p, wrap);
    for (int i = 0; i < h->n_in; i++)
      ck_assert_int_eq(fg_buffer_write(b.in[i], h->in[i], h->in_bytes[i]),
                       FG_OK);
    ck_assert_msg(fg_program_run_buffers(p, b.n_in, b.in, b.n_out, b.out) ==
                  FG_OK, "%s", fg_context_errmsg(ctx));
    for (int i = 0; i < h->n_out; i++) {
      unsigned char *got = malloc(h->out_bytes[i]);
      ck_assert_ptr_nonnull(got);
      ck_assert_int_eq(fg_buffer_read(b.out[i], got, h->out_bytes[i]),
                       FG_OK);
      ck_assert_msg(!memcmp(got, h->out[i], h->out_bytes[i]), "output '%s' "
                    "over buffers (wrap %d) differs from the run over host "
                    "memory", fg_program_output_name(p, i), wrap);
      ck_assert(!b.host[8 + i] ||
                !memcmp(b.host[8 + i], h->out[i], h->out_bytes[i]));
      free(got);
    }
    bufio_free(&b);
  }
}

/* The mixed graph's outputs in h against C. */
static void check_mixed(fg_program *p, const hostio *h) {
  const float *x = h->in[fg_program_input_index(p, "x")];
  const uint8_t *m = h->in[fg_program_input_index(p, "m")];
  float k = *(const float *)h->in[fg_program_input_index(p, "k")];
  const float *blur = h->out[fg_program_output_index(p, "blur")];
  const float *y = h->out[fg_program_output_index(p, "y")];
  const uint8_t *m3 = h->out[fg_program_output_index(p, "m3")];
  const float *c = h->out[fg_program_output_index(p, "c")];
  float s = *(const float *)h->out[fg_program_output_index(p, "s")];
  float sk = *(const float *)h->out[fg_program_output_index(p, "sk")];
  const float *xn = h->out[fg_program_output_index(p, "xn")];
  double sum = 0;
  for (int i = 0; i < BN; i++)
    sum += x[i];
  ck_assert_msg(fabs(s - sum) <= 1e-5 * fabs(sum), "s %.9g, expected %.9g",
                s, sum);
  ck_assert_msg(!memcmp(&(float){s * k}, &sk, sizeof sk), "sk %.9g, "
                "expected s * k = %.9g", sk, s * k);
  for (int r = 0; r < BR; r++)
    for (int col = 0; col < BC; col++) {
      double acc = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++) {
          int rr = r + dr < 0 ? 0 : r + dr >= BR ? BR - 1 : r + dr;
          int cc = col + dc < 0 ? 0 : col + dc >= BC ? BC - 1 : col + dc;
          acc += x[rr * BC + cc];
        }
      int i = r * BC + col;
      double v = acc / 9 * 1.75 - 0.25;
      ck_assert_msg(fabs(blur[i] - acc / 9) <= 1e-6, "blur[%d]", i);
      ck_assert_msg(fabs(y[i] - (v < 0 ? 0 : v > 1 ? 1 : v)) <= 4e-6,
                    "y[%d]", i);
      ck_assert_msg(m3[i] == (uint8_t)(m[i] * 3 + 1), "m3[%d]", i);
      ck_assert_msg(xn[i] == x[i] / s, "xn[%d] %.9g, expected %.9g", i,
                    xn[i], x[i] / s);
    }
  for (int i = 0; i < BC; i++)
    ck_assert(c[i] == (float)i * 0.5f - 3.0f);
  ck_assert(!memcmp(h->out[fg_program_output_index(p, "xp")], x,
                    BN * sizeof(float)));
  ck_assert(!memcmp(h->out[fg_program_output_index(p, "y2")], y,
                    BN * sizeof(float)));
}

static void mixed_case(fg_fusion fusion) {
  fg_context *ctx = tu_context();
  fg_graph *g = mixed_graph();
  fg_compile_options o = {.fusion = fusion};
  fg_program *p;
  ck_assert_msg(fg_compile(ctx, g, &o, &p) == FG_OK, "%s",
                fg_context_errmsg(ctx));
  fg_graph_free(g);
  hostio h;
  hostio_init(&h, p, 3);
  *(float *)h.in[fg_program_input_index(p, "k")] = 0.375f;
  same_as_host(ctx, p, &h);
  check_mixed(p, &h);
  hostio_free(&h);
  fg_program_free(p);
  tu_context_free(ctx);
}

START_TEST(test_buffers_every_output_kind) { mixed_case(FG_FUSION_ON); }
END_TEST

START_TEST(test_buffers_unfused) { mixed_case(FG_FUSION_OFF); }
END_TEST

/* check mode compares the fused outputs, there in buffers, with the
 * unfused ones */
START_TEST(test_buffers_check_mode) { mixed_case(FG_FUSION_CHECK); }
END_TEST

/* Program a: y = x * 2 + 1; program b: z = sqrt(y) + y (both f32). */
static fg_program *affine_program(fg_context *ctx, bool second, int rows,
                                  int cols) {
  fg_type t = fg_type_scalar(FG_F32, fg_shape2(rows, cols));
  fg_graph *g = fg_graph_new(second ? "b" : "a");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, second ? "sqrt_plus" : "affine", 1, &t);
  fg_expr *v = fg_read_tensor(op, x);
  fg_write_tensor(op, 0, second ? fg_add(fg_sqrt(v), v)
                                : fg_addf(fg_mulf(v, 2.0f), 1.0f));
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  fg_graph_free(g);
  return p;
}

static int runs_done;
static void count_done(fg_run *r, fg_status st, void *user) {
  (void)user;
  ck_assert_msg(st == FG_OK, "%s", fg_run_errmsg(r));
  runs_done++;
}

/* a -> mid -> b, twice over one mid, all four started at once with room
 * for four: the second a waits until the first b has read mid */
START_TEST(test_buffers_chained_runs_keep_order) {
  fg_context *ctx = tu_context();
  ck_assert_int_eq(fg_context_set_max_runs(ctx, 4), FG_OK);
  /* big enough that no run ends while it starts */
  enum { CN = 1024 * 1024 };
  fg_program *a = affine_program(ctx, false, 1024, 1024);
  fg_program *b = affine_program(ctx, true, 1024, 1024);
  fg_type t = fg_program_input_type(a, 0);
  fg_buffer *in1, *in2, *mid, *out1, *out2;
  fg_buffer **all[] = {&in1, &in2, &mid, &out1, &out2};
  for (int i = 0; i < 5; i++)
    ck_assert_int_eq(fg_buffer_new(ctx, t, all[i]), FG_OK);
  float *x1 = malloc(CN * sizeof *x1), *x2 = malloc(CN * sizeof *x2);
  float *z1 = malloc(CN * sizeof *z1), *z2 = malloc(CN * sizeof *z2);
  ck_assert(x1 && x2 && z1 && z2);
  for (int i = 0; i < CN; i++) {
    x1[i] = xval(i, 1);
    x2[i] = 100.0f + xval(i, 2);
  }
  ck_assert_int_eq(fg_buffer_write(in1, x1, CN * sizeof *x1), FG_OK);
  ck_assert_int_eq(fg_buffer_write(in2, x2, CN * sizeof *x2), FG_OK);
  runs_done = 0;
  for (int round = 0; round < 3; round++) {
    ck_assert_int_eq(fg_program_start_buffers(a, 1, &in1, 1, &mid, count_done,
                                              NULL, NULL), FG_OK);
    ck_assert_int_eq(fg_program_start_buffers(b, 1, &mid, 1, &out1,
                                              count_done, NULL, NULL), FG_OK);
    ck_assert_int_eq(fg_program_start_buffers(a, 1, &in2, 1, &mid, count_done,
                                              NULL, NULL), FG_OK);
    ck_assert_int_eq(fg_program_start_buffers(b, 1, &mid, 1, &out2,
                                              count_done, NULL, NULL), FG_OK);
  }
  /* the reads wait for the runs writing out1 and out2 */
  ck_assert_int_eq(fg_buffer_read(out1, z1, CN * sizeof *z1), FG_OK);
  ck_assert_int_eq(fg_buffer_read(out2, z2, CN * sizeof *z2), FG_OK);
  ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
  ck_assert_int_eq(runs_done, 12);
  for (int i = 0; i < CN; i++) {
    float y1 = x1[i] * 2.0f + 1.0f, y2 = x2[i] * 2.0f + 1.0f;
    ck_assert_msg(fabsf(z1[i] - (sqrtf(y1) + y1)) <= 2e-6f * z1[i],
                  "z1[%d] %.9g, expected %.9g", i, z1[i], sqrtf(y1) + y1);
    ck_assert_msg(fabsf(z2[i] - (sqrtf(y2) + y2)) <= 2e-6f * z2[i],
                  "z2[%d] %.9g, expected %.9g", i, z2[i], sqrtf(y2) + y2);
  }
  fg_context_stats cs;
  ck_assert_int_eq(fg_context_get_stats(ctx, &cs), FG_OK);
  ck_assert_msg(cs.in_place == 24 && cs.copied == 0, "in place %llu, copied "
                "%llu (expected 24 and 0: one input and one output a run)",
                (unsigned long long)cs.in_place,
                (unsigned long long)cs.copied);
  for (int i = 0; i < 5; i++)
    fg_buffer_free(*all[i]);
  free(x1);
  free(x2);
  free(z1);
  free(z2);
  fg_program_free(a);
  fg_program_free(b);
  tu_context_free(ctx);
}
END_TEST

/* out = x, after while (v >= 0) v = v * 1 with v = |x|: never ends (until
 * its deadline); with plus_one, out = x + 1 at once instead (i32). */
static fg_program *spin_program(fg_context *ctx, bool plus_one) {
  fg_type t = fg_type_scalar(FG_I32, fg_shape2(BR, BC));
  fg_graph *g = fg_graph_new(plus_one ? "plus_one" : "spin");
  fg_field *x = fg_input(g, "x", t);
  fg_op *op = fg_op_begin(g, plus_one ? "plus_one" : "spin", 1, &t);
  fg_expr *v = fg_var(op, FG_I32, 1);
  fg_assign(v, fg_read_tensor(op, x));
  if (plus_one) {
    fg_assign(v, fg_add(v, fg_int(op, 1)));
  } else {
    fg_while(fg_ge(fg_mul(v, v), fg_int(op, 0)));
    fg_assign(v, fg_mul(v, fg_int(op, 1)));
    fg_end(op);
  }
  fg_write_tensor(op, 0, v);
  fg_output(g, "y", fg_op_end(op));
  fg_program *p = tu_compile(ctx, g);
  fg_graph_free(g);
  return p;
}

static void spin_ended(fg_run *r, fg_status st, void *user) {
  (void)user;
  ck_assert_msg(st == FG_ETIMEDOUT, "the endless run ended %s: %s",
                fg_status_name(st), fg_run_errmsg(r));
}

/* the reader's callback: the writer it follows has ended */
static void reader_ended(fg_run *r, fg_status st, void *writer) {
  ck_assert_msg(st == FG_OK, "%s", fg_run_errmsg(r));
  ck_assert_msg(fg_run_done(writer), "a run reading a buffer ended before "
                "the run writing it, started first");
  runs_done++;
}

/* A run reading a buffer begins only once the run started before it that
 * writes the buffer has ended: here that one spins until its deadline,
 * and the reader, which would take a moment, ends after it. */
START_TEST(test_buffers_reader_waits_for_writer) {
  fg_context *ctx = tu_context();
  fg_program *spin = spin_program(ctx, false), *inc = spin_program(ctx, true);
  fg_type t = fg_program_input_type(spin, 0);
  fg_buffer *x, *mid, *out;
  ck_assert_int_eq(fg_buffer_new(ctx, t, &x), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, t, &mid), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, t, &out), FG_OK);
  fg_run *w;
  ck_assert_int_eq(fg_program_start_buffers(spin, 1, &x, 1, &mid, spin_ended,
                                            NULL, &w), FG_OK);
  ck_assert_int_eq(fg_run_set_timeout(w, 400), FG_OK);
  runs_done = 0;
  ck_assert_int_eq(fg_program_start_buffers(inc, 1, &mid, 1, &out,
                                            reader_ended, w, NULL), FG_OK);
  ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
  ck_assert_int_eq(runs_done, 1);
  ck_assert_int_eq(fg_run_status(w), FG_ETIMEDOUT);
  fg_run_free(w);
  fg_buffer_free(x);
  fg_buffer_free(mid);
  fg_buffer_free(out);
  fg_program_free(spin);
  fg_program_free(inc);
  tu_context_free(ctx);
}
END_TEST

/* A write to a buffer a started run reads waits for it: the run sees the
 * old contents.  A new buffer holds zeros. */
START_TEST(test_buffers_write_waits_for_readers) {
  fg_context *ctx = tu_context();
  fg_program *a = affine_program(ctx, false, BR, BC);
  fg_type t = fg_program_input_type(a, 0);
  fg_buffer *in, *out;
  ck_assert_int_eq(fg_buffer_new(ctx, t, &in), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, t, &out), FG_OK);
  float *v = malloc(BN * sizeof *v);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(fg_buffer_read(out, v, BN * sizeof *v), FG_OK);
  for (int i = 0; i < BN; i++)
    ck_assert_msg(v[i] == 0.0f, "a new buffer holds %g at %d", v[i], i);
  for (int i = 0; i < BN; i++)
    v[i] = (float)i;
  ck_assert_int_eq(fg_buffer_write(in, v, BN * sizeof *v), FG_OK);
  fg_run *r;
  ck_assert_int_eq(fg_program_start_buffers(a, 1, &in, 1, &out, NULL, NULL,
                                            &r), FG_OK);
  for (int i = 0; i < BN; i++)
    v[i] = -1.0f;
  ck_assert_int_eq(fg_buffer_write(in, v, BN * sizeof *v), FG_OK);
  ck_assert(fg_run_done(r));
  ck_assert_int_eq(fg_run_status(r), FG_OK);
  ck_assert_ptr_null(fg_run_output(r, 0));
  float one;
  ck_assert_int_eq(fg_run_get(r, 0, &one, sizeof one), FG_EINVAL);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "fg_buffer_read"));
  fg_run_free(r);
  ck_assert_int_eq(fg_buffer_read(out, v, BN * sizeof *v), FG_OK);
  for (int i = 0; i < BN; i++)
    ck_assert_msg(v[i] == (float)i * 2.0f + 1.0f, "out[%d] %g", i, v[i]);
  ck_assert_int_eq(fg_program_run_buffers(a, 1, &in, 1, &out), FG_OK);
  ck_assert_int_eq(fg_buffer_read(out, v, BN * sizeof *v), FG_OK);
  for (int i = 0; i < BN; i++)
    ck_assert_msg(v[i] == -1.0f, "out[%d] %g after the second run", i, v[i]);
  free(v);
  fg_buffer_free(in);
  fg_buffer_free(out);
  fg_program_free(a);
  tu_context_free(ctx);
}
END_TEST

static void expect_msg(fg_context *ctx, fg_status got, const char *part) {
  ck_assert_msg(got == FG_EINVAL, "status %s, expected FG_EINVAL (%s)",
                fg_status_name(got), part);
  ck_assert_msg(strstr(fg_context_errmsg(ctx), part), "message '%s' lacks "
                "'%s'", fg_context_errmsg(ctx), part);
}

START_TEST(test_buffers_bad_arguments) {
  fg_context *ctx = tu_context(), *other = tu_context();
  fg_program *a = affine_program(ctx, false, BR, BC);
  fg_type t = fg_program_input_type(a, 0);
  fg_type small = fg_type_scalar(FG_F32, fg_shape2(BR, BC - 1));
  fg_buffer *in, *out, *wrong, *foreign, *none = NULL;
  ck_assert_int_eq(fg_buffer_new(ctx, t, &in), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, t, &out), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, small, &wrong), FG_OK);
  ck_assert_int_eq(fg_buffer_new(other, t, &foreign), FG_OK);
  expect_msg(ctx, fg_buffer_new(ctx, fg_type_scalar(FG_BOOL, fg_shape1(4)),
                                &none), "not a field type");
  ck_assert_ptr_null(none);
  expect_msg(ctx, fg_buffer_new(ctx, fg_type_scalar(FG_F32, fg_shape2(0, 4)),
                                &none), "not a field type");
  expect_msg(ctx, fg_program_run_buffers(a, 1, &wrong, 1, &out),
             "input 'x' is f32[61x97], its buffer holds f32[61x96]");
  expect_msg(ctx, fg_program_run_buffers(a, 1, &in, 1, &wrong),
             "output 'y' is f32[61x97]");
  expect_msg(ctx, fg_program_run_buffers(a, 1, &foreign, 1, &out),
             "input 'x' belongs to another context");
  expect_msg(ctx, fg_program_run_buffers(a, 1, &in, 1, &in),
             "output 'y' and input 'x' are the same buffer");
  expect_msg(ctx, fg_program_run_buffers(a, 1, &none, 1, &out),
             "input 0 ('x') is NULL");
  float *mem = calloc(BN + 8, sizeof *mem);
  fg_buffer *w1, *w2;
  ck_assert_int_eq(fg_buffer_wrap(ctx, t, mem, &w1), FG_OK);
  ck_assert_int_eq(fg_buffer_wrap(ctx, t, mem + 8, &w2), FG_OK);
  expect_msg(ctx, fg_program_run_buffers(a, 1, &w1, 1, &w2),
             "the memory of output 'y' overlaps input 'x'");
  expect_msg(ctx, fg_buffer_wrap(ctx, t, NULL, &none),
             "the host memory is NULL");
  fg_buffer_free(w1);
  fg_buffer_free(w2);
  free(mem);
  expect_msg(ctx, fg_program_run_buffers(a, 2, (fg_buffer *[]){in, in}, 1,
                                         &out), "got 2 input(s)");
  expect_msg(ctx, fg_program_run_buffers(a, 1, NULL, 1, &out),
             "inputs array is NULL");
  float v[4];
  expect_msg(ctx, fg_buffer_write(in, v, sizeof v), "holds 23668 bytes, "
             "got 16");
  expect_msg(ctx, fg_buffer_read(in, NULL, fg_type_bytes(t)),
             "the host memory is NULL");
  ck_assert_int_eq(fg_program_run_buffers(NULL, 1, &in, 1, &out), FG_EINVAL);
  ck_assert_int_eq(fg_buffer_new(NULL, t, &none), FG_EINVAL);
  ck_assert_int_eq(fg_buffer_write(NULL, v, sizeof v), FG_EINVAL);
  ck_assert(fg_buffer_type(NULL).elem == 0 && fg_buffer_type(NULL).field.ndim
            == 0);
  ck_assert(fg_type_equal(fg_buffer_type(wrong), small));
  fg_buffer_free(NULL);
  ck_assert_int_eq(fg_program_run_buffers(a, 1, &in, 1, &out), FG_OK);
  fg_buffer_free(in);
  fg_buffer_free(out);
  fg_buffer_free(wrong);
  fg_buffer_free(foreign);
  fg_program_free(a);
  tu_context_free(ctx);
  tu_context_free(other);
}
END_TEST

/* A context freed while a buffer lives stays until the buffer goes (the
 * leak check of a sanitizer build sees the rest freed). */
START_TEST(test_buffers_outlive_their_context) {
  fg_context *ctx = tu_context();
  fg_program *a = affine_program(ctx, false, BR, BC);
  fg_buffer *in, *out;
  ck_assert_int_eq(fg_buffer_new(ctx, fg_program_input_type(a, 0), &in),
                   FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, fg_program_input_type(a, 0), &out),
                   FG_OK);
  ck_assert_int_eq(fg_program_start_buffers(a, 1, &in, 1, &out, NULL, NULL,
                                            NULL), FG_OK);
  float *v = calloc(BN, sizeof *v);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(fg_buffer_read(out, v, BN * sizeof *v), FG_OK);
  ck_assert_msg(v[7] == 1.0f, "out[7] %g (x = 0: 1 expected)", v[7]);
  free(v);
  fg_program_free(a);
  fg_context_free(ctx);
  fg_buffer *late = NULL;
  ck_assert_int_eq(fg_buffer_new(ctx, fg_buffer_type(in), &late), FG_ESTATE);
  ck_assert_ptr_null(late);
  fg_buffer_free(in);
  fg_buffer_free(out);
}
END_TEST

/* An OpenCL context that copies run inputs and outputs (zero copy off):
 * PoCL's device then takes the paths of a GPU with memory of its own. */
static fg_context *copying_context(void) {
  fg_context_options o = {.backend = FG_BACKEND_OPENCL,
                          .disable = FG_CAP_ZERO_COPY};
  fg_context *ctx;
  char err[512];
  ck_assert_msg(fg_context_new(&o, &ctx, err, sizeof err) == FG_OK, "%s",
                err);
  return ctx;
}

/* Runs over buffers alone make no pooled device buffer for the fields
 * they take from buffers: the context's live buffers are the two the test
 * made.  A run over host memory then gets the pool's, on a device with
 * memory of its own (here: OpenCL with zero copy off) one for the input
 * and one for the output. */
static void pool_case(fg_context *ctx, bool copies) {
  fg_program *a = affine_program(ctx, false, BR, BC);
  fg_type t = fg_program_input_type(a, 0);
  fg_buffer *in, *out;
  ck_assert_int_eq(fg_buffer_new(ctx, t, &in), FG_OK);
  ck_assert_int_eq(fg_buffer_new(ctx, t, &out), FG_OK);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(fg_program_run_buffers(a, 1, &in, 1, &out), FG_OK);
  fg_live_objects l;
  ck_assert_int_eq(fg_context_live(ctx, &l), FG_OK);
  ck_assert_msg(l.buffers == 2, "%lld device buffers after runs over "
                "buffers (2 expected: the test's)", (long long)l.buffers);
  float *x = calloc(BN, sizeof *x), *y = calloc(BN, sizeof *y);
  ck_assert(x && y);
  ck_assert_int_eq(fg_program_run(a, 1, (const void *[]){x}, 1,
                                  (void *[]){y}), FG_OK);
  ck_assert_int_eq(fg_context_live(ctx, &l), FG_OK);
  ck_assert_msg(l.buffers == (copies ? 4 : 2), "%lld device buffers after "
                "a run over host memory (%d expected)", (long long)l.buffers,
                copies ? 4 : 2);
  ck_assert(y[0] == 1.0f);
  free(x);
  free(y);
  fg_buffer_free(in);
  fg_buffer_free(out);
  fg_program_free(a);
  tu_context_free(ctx);
}

START_TEST(test_buffers_make_no_pool_buffers) {
  const char *b = getenv("FG_TEST_BACKEND");
  if (!b || strcmp(b, "opencl")) {
    pool_case(tu_context(), false);   /* the CPU's runs wrap the memory */
    return;
  }
  pool_case(copying_context(), true);
}
END_TEST

/* 600 random steps over 5 shared buffers (one of them wrapped memory), 4
 * runs in flight: runs of two programs from one buffer into another,
 * writes and reads, a fixed seed.
 * Runs sharing buffers keep their order, so every read, and every buffer
 * at the end, holds what the steps give one after another in C. */
START_TEST(test_buffers_random_steps_match_sequential) {
  enum { NB = 5 };
  fg_context *ctx = tu_context();
  ck_assert_int_eq(fg_context_set_max_runs(ctx, 4), FG_OK);
  fg_program *p[2] = {affine_program(ctx, false, BR, BC),
                      affine_program(ctx, true, BR, BC)};
  fg_buffer *buf[NB];
  float *sim = calloc((size_t)NB * BN, sizeof *sim), *tmp = malloc(BN * 4);
  ck_assert(sim && tmp);
  /* buffer 0 over memory of the test's own (fg_buffer_wrap) */
  float *own = calloc(BN, sizeof *own);
  ck_assert_ptr_nonnull(own);
  ck_assert_int_eq(fg_buffer_wrap(ctx, fg_program_input_type(p[0], 0), own,
                                  &buf[0]), FG_OK);
  for (int i = 1; i < NB; i++)
    ck_assert_int_eq(fg_buffer_new(ctx, fg_program_input_type(p[0], 0),
                                   &buf[i]), FG_OK);
  uint32_t rng = 12345;
  for (int step = 0; step < 600; step++) {
    rng = rng * 1664525u + 1013904223u;
    int kind = (int)(rng >> 8) % 10, a = (int)(rng >> 12) % NB;
    int c = (int)(rng >> 20) % NB, which = (int)(rng >> 28) & 1;
    float *sa = sim + (size_t)a * BN, *sc = sim + (size_t)c * BN;
    if (kind < 7 && a != c) {
      ck_assert_int_eq(fg_program_start_buffers(p[which], 1, &buf[a], 1,
                                                &buf[c], NULL, NULL, NULL),
                       FG_OK);
      for (int i = 0; i < BN; i++)
        sc[i] = which ? sqrtf(sa[i]) + sa[i] : sa[i] * 2.0f + 1.0f;
    } else if (kind < 8) {
      for (int i = 0; i < BN; i++)
        tmp[i] = xval(i, step);
      ck_assert_int_eq(fg_buffer_write(buf[a], tmp, BN * 4), FG_OK);
      memcpy(sa, tmp, BN * 4);
    } else if (kind >= 8) {
      ck_assert_int_eq(fg_buffer_read(buf[a], tmp, BN * 4), FG_OK);
      for (int i = 0; i < BN; i++)
        ck_assert_msg(tmp[i] == sa[i] || (isnan(tmp[i]) && isnan(sa[i])),
                      "step %d, buffer %d, point %d: %g, expected %g", step,
                      a, i, tmp[i], sa[i]);
    }
  }
  ck_assert_int_eq(fg_context_wait(ctx), FG_OK);
  for (int b = 0; b < NB; b++) {
    ck_assert_int_eq(fg_buffer_read(buf[b], tmp, BN * 4), FG_OK);
    for (int i = 0; i < BN; i++) {
      float want = sim[(size_t)b * BN + i];
      ck_assert_msg(tmp[i] == want || (isnan(tmp[i]) && isnan(want)),
                    "buffer %d at the end, point %d: %g, expected %g", b, i,
                    tmp[i], want);
    }
    fg_buffer_free(buf[b]);
  }
  free(sim);
  free(tmp);
  free(own);
  fg_program_free(p[0]);
  fg_program_free(p[1]);
  tu_context_free(ctx);
}
END_TEST

/* fg_host_alloc's memory (page-locked where the device has its own) is
 * what runs read and write, to C's results; a pointer not of it is
 * refused; the leak check sees every block freed.  On OpenCL also with
 * zero copy off, where PoCL's device takes the page-locked path. */
static void host_alloc_case(fg_context *ctx) {
  fg_program *a = affine_program(ctx, false, BR, BC);
  float *in = fg_host_alloc(ctx, BN * sizeof *in);
  float *out = fg_host_alloc(ctx, BN * sizeof *out);
  ck_assert_msg(in && out, "%s", fg_context_errmsg(ctx));
  ck_assert_int_eq((int)((uintptr_t)in % 16), 0);
  for (int i = 0; i < BN; i++)
    in[i] = xval(i, 5);
  ck_assert_int_eq(fg_program_run(a, 1, (const void *[]){in}, 1,
                                  (void *[]){out}), FG_OK);
  for (int i = 0; i < BN; i++)
    ck_assert_msg(out[i] == in[i] * 2.0f + 1.0f, "out[%d] %g", i, out[i]);
  float local;
  fg_host_free(ctx, &local);
  ck_assert_ptr_nonnull(strstr(fg_context_errmsg(ctx), "is not a block"));
  fg_host_free(ctx, NULL);
  fg_host_free(ctx, in);
  fg_host_free(ctx, out);
  fg_program_free(a);
  tu_context_free(ctx);
}

START_TEST(test_buffers_host_alloc) {
  ck_assert_ptr_null(fg_host_alloc(NULL, 16));
  host_alloc_case(tu_context());
  const char *b = getenv("FG_TEST_BACKEND");
  if (b && !strcmp(b, "opencl")) {
    host_alloc_case(copying_context());
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("buffers");
  TCase *tc = tcase_create("buffers");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_buffers_every_output_kind);
  tcase_add_test(tc, test_buffers_unfused);
  tcase_add_test(tc, test_buffers_check_mode);
  tcase_add_test(tc, test_buffers_chained_runs_keep_order);
  tcase_add_test(tc, test_buffers_reader_waits_for_writer);
  tcase_add_test(tc, test_buffers_write_waits_for_readers);
  tcase_add_test(tc, test_buffers_bad_arguments);
  tcase_add_test(tc, test_buffers_outlive_their_context);
  tcase_add_test(tc, test_buffers_host_alloc);
  tcase_add_test(tc, test_buffers_random_steps_match_sequential);
  tcase_add_test(tc, test_buffers_make_no_pool_buffers);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
