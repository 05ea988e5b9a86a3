/* tools/main.c - the `fieldgraph` command: subcommand dispatch, and the
 * small subcommands that build a pipeline once for one input size:
 * check, dot (the graph drawn by viz/), explain (the fusion report, with
 * --profile the time of a run on a sample input) and devices.
 */
#include "tools/fgt.h"
#include "tools/inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

static const char usage[] =
  "usage: fieldgraph COMMAND [options] ...\n"
  "Batch image pipelines of fused tensor-field operators.\n"
  "\n"
  "commands:\n"
  "  run PIPELINE [-o DIR] INPUT...   run a pipeline file over images\n"
  "  check PIPELINE                   parse and type-check a pipeline\n"
  "  dot PIPELINE -o FILE             draw its graph (.svg .png .dot)\n"
  "  explain PIPELINE                 what fusion made of it\n"
  "  devices                          backends and OpenCL devices\n"
  "  ops                              the operators a pipeline may call\n"
  "options: --version, --help; `fieldgraph COMMAND --help` for each.\n"
  "The pipeline file format: docs/pipeline.md.\n";

/* The graph of pipeline path for the size of sample (or 256x256 RGB):
 * shared by check, dot and explain.  Returns 0 or an exit status. */
typedef struct one {
  fgt_pipeline *p;
  fgt_scripts scripts;
  fgt_built built;
  fg_image img[FGT_MAX_IO];
  int n_img;
} one;

static int one_build(one *o, const char *path, const char *sample) {
  char err[4096];
  memset(o, 0, sizeof *o);
  o->p = fgt_pipeline_load(path, err, sizeof err);
  if (!o->p) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  const char *tmpls[FGT_MAX_IO];
  int n;
  if (fgt_pipeline_inputs(o->p, &n, tmpls, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  fgt_shape_key key;
  fgt_proto_key(&key, n, NULL);
  if (sample) {
    for (int i = 0; i < n; i++) {
      char p[8200];
      if (i == 0) {
        snprintf(p, sizeof p, "%s", sample);
      } else {
        const char *s = strrchr(sample, '/');
        char name[4096];
        if (fgt_expand(name, sizeof name, tmpls[i], sample,
                       s ? s + 1 : sample, 0, err, sizeof err)) {
          fprintf(stderr, "fieldgraph: %s\n", err);
          return 1;
        }
        snprintf(p, sizeof p, "%.*s%s%s", s ? (int)(s - sample) : 0, sample,
                 s ? "/" : "", name);
      }
      if (fg_image_read(p, &o->img[i], err, sizeof err) != FG_OK) {
        fprintf(stderr, "fieldgraph: %s\n", err);
        return 1;
      }
      o->n_img = i + 1;
      key.width[i] = o->img[i].width;
      key.height[i] = o->img[i].height;
      key.channels[i] = o->img[i].channels;
      key.type[i] = (int)o->img[i].type;
    }
  }
  if (fgt_build(o->p, &o->scripts, &key, &o->built, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  return 0;
}

static void one_free(one *o) {
  fgt_built_free(&o->built);
  fgt_scripts_free(&o->scripts);
  fgt_pipeline_free(o->p);
  for (int i = 0; i < o->n_img; i++)
    fg_image_free(&o->img[i]);
}

/* Options of dot and explain. */
typedef struct common_opts {
  const char *output, *input, *backend, *device, *fusion;
  int unfused, profile;
  int inputs;            /* set by the caller: INPUT... may follow */
} common_opts;

static int parse_common(int argc, char **argv, const char *help,
                        common_opts *c) {
  enum { O_BACKEND = 256, O_DEVICE, O_FUSION, O_UNFUSED, O_PROFILE };
  static const struct option longopts[] = {
    {"output", required_argument, 0, 'o'},
    {"input", required_argument, 0, 'i'},
    {"backend", required_argument, 0, O_BACKEND},
    {"device", required_argument, 0, O_DEVICE},
    {"fusion", required_argument, 0, O_FUSION},
    {"unfused", no_argument, 0, O_UNFUSED},
    {"profile", no_argument, 0, O_PROFILE},
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int inputs = c->inputs;
  memset(c, 0, sizeof *c);
  c->inputs = inputs;
  optind = 1;
  int ch;
  while ((ch = getopt_long(argc, argv, "o:i:h", longopts, NULL)) != -1) {
    switch (ch) {
    case 'o': c->output = optarg; break;
    case 'i': c->input = optarg; break;
    case O_BACKEND: c->backend = optarg; break;
    case O_DEVICE: c->device = optarg; break;
    case O_FUSION: c->fusion = optarg; break;
    case O_UNFUSED: c->unfused = 1; break;
    case O_PROFILE: c->profile = 1; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind != argc - 1 && !(c->inputs && optind < argc)) {
    fputs(help, stderr);
    return 2;
  }
  return -1;
}

/* Compiles g as run will (every kernel built, every script's code through
 * its compiler, on backend and device): 0, or 2 (a pipeline error) with
 * the message. */
static int compile_check(fg_graph *g, const char *backend,
                         const char *device) {
  fg_context *ctx = NULL;
  fg_program *prog = NULL;
  int rc = fgt_context_for(backend, device, 0, NULL, 0, &ctx);
  if (!rc && fg_compile(ctx, g, NULL, &prog) != FG_OK) {
    fprintf(stderr, "fieldgraph: %s\n", fg_context_errmsg(ctx));
    rc = 2;
  }
  fg_program_free(prog);
  fg_context_free(ctx);
  return rc;
}

/* check PIPELINE INPUT...: the pipeline built for every size and channel
 * count among the inputs, as run will build it; 0, 1 when it does not fit
 * some of them (each named), 2 for a usage error or a pipeline that fits
 * none. */
static int check_inputs(const char *pipeline, int n, char **args,
                        const common_opts *c) {
  char err[4096];
  fgt_inputs in = {.log = stderr};
  for (int i = 0; i < n; i++)
    if (fgt_inputs_add(&in, args[i], NULL, err, sizeof err)) {
      fprintf(stderr, "fieldgraph check: %s\n", err);
      fgt_inputs_free(&in);
      return 2;
    }
  fgt_pipeline *p = fgt_pipeline_load(pipeline, err, sizeof err);
  const char *tmpls[FGT_MAX_IO];
  int nt, sizes = 0, failed = 0;
  if (!p || fgt_pipeline_inputs(p, &nt, tmpls, NULL, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    fgt_pipeline_free(p);
    fgt_inputs_free(&in);
    return 2;
  }
  fgt_scripts scripts = {0};
  fgt_shape_key *seen = calloc((size_t)in.n + 1, sizeof *seen);
  for (int i = 0; seen && i < in.n; i++) {
    fgt_shape_key key;
    fgt_proto_key(&key, nt, in.items[i].path);
    int dup = 0;
    for (int k = 0; k < sizes && !dup; k++)
      dup = !memcmp(&seen[k], &key, sizeof key);
    if (dup)
      continue;
    seen[sizes++] = key;
    fgt_built b = {0};
    if (fgt_build(p, &scripts, &key, &b, err, sizeof err)) {
      fprintf(stderr, "%s\n  (for %s: %d x %d, %d channels)\n", err,
              in.items[i].path, key.width[0], key.height[0],
              key.channels[0]);
      failed++;
    } else if (compile_check(b.g, c->backend, c->device)) {
      fprintf(stderr, "  (for %s: %d x %d, %d channels)\n",
              in.items[i].path, key.width[0], key.height[0],
              key.channels[0]);
      failed++;
    }
    fgt_built_free(&b);
  }
  int rc = !failed ? 0 : failed == sizes ? 2 : 1;
  if (!rc)
    printf("%s: ok for %d input(s) of %d size(s)\n", pipeline, in.n, sizes);
  free(seen);
  fgt_scripts_free(&scripts);
  fgt_pipeline_free(p);
  fgt_inputs_free(&in);
  return rc;
}

int fgt_cmd_check(int argc, char **argv) {
  static const char help[] =
    "usage: fieldgraph check PIPELINE [-i SAMPLE | INPUT...]\n"
    "Parses the pipeline and builds its graph for SAMPLE's size (default: a\n"
    "256x256 RGB image), or for every size among the INPUTs (files,\n"
    "directories, @LIST, as fieldgraph run takes them), and compiles its\n"
    "kernels and scripts as run will (--backend, --device), reporting each\n"
    "error at file:line:column.\n";
  common_opts c = {.inputs = 1};
  int rc = parse_common(argc, argv, help, &c);
  if (rc >= 0)
    return rc;
  if (optind < argc - 1)
    return check_inputs(argv[optind], argc - optind - 1, argv + optind + 1,
                        &c);
  one o;
  rc = one_build(&o, argv[optind], c.input);
  if (!rc)
    rc = compile_check(o.built.g, c.backend, c.device);
  if (!rc)
    printf("%s: ok: %d inputs, %d operators, %d saves, %d reports\n",
           argv[optind], o.built.n_inputs, fg_graph_op_count(o.built.g),
           o.built.n_saves, o.built.n_reports);
  one_free(&o);
  return rc;
}

int fgt_cmd_dot(int argc, char **argv) {
  static const char help[] =
    "usage: fieldgraph dot PIPELINE -o FILE.svg|FILE.png|FILE.dot\n"
    "       [--unfused] [-i SAMPLE] [--backend B] [--device D]\n"
    "Draws the pipeline's graph with Graphviz: operators grouped into the\n"
    "kernels fusion made of them, or as built with --unfused.\n";
  common_opts c;
  int rc = parse_common(argc, argv, help, &c);
  if (rc >= 0)
    return rc;
  if (!c.output) {
    fputs(help, stderr);
    return 2;
  }
  one o;
  rc = one_build(&o, argv[optind], c.input);
  fg_context *ctx = NULL;
  fg_program *prog = NULL;
  char err[1024];
  if (!rc && !c.unfused) {
    rc = fgt_context_for(c.backend, c.device, 0, NULL, 0, &ctx);
    if (!rc && fg_compile(ctx, o.built.g, NULL, &prog) != FG_OK) {
      fprintf(stderr, "fieldgraph: %s\n", fg_context_errmsg(ctx));
      rc = 1;
    }
  }
  if (!rc && fg_graph_draw(o.built.g, prog, c.output, err, sizeof err)) {
    fprintf(stderr, "fieldgraph: %s\n", err);
    rc = 1;
  }
  fg_program_free(prog);
  fg_context_free(ctx);
  one_free(&o);
  return rc;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int fgt_cmd_explain(int argc, char **argv) {
  static const char help[] =
    "usage: fieldgraph explain PIPELINE [-i SAMPLE] [--profile]\n"
    "       [--fusion on|off] [--backend B] [--device D]\n"
    "Prints the fusion report: each kernel with its operators, every field\n"
    "held in memory and why, memory traffic before and after.  --profile\n"
    "runs it five times on SAMPLE and prints the best run's time and each\n"
    "kernel's average (launch to completion).\n";
  common_opts c;
  int rc = parse_common(argc, argv, help, &c);
  if (rc >= 0)
    return rc;
  if (c.profile && !c.input) {
    fprintf(stderr, "fieldgraph explain: --profile needs -i SAMPLE\n");
    return 2;
  }
  fg_compile_options copt = {0};
  if (fgt_parse_fusion(c.fusion, &copt.fusion))
    return 2;
  one o;
  rc = one_build(&o, argv[optind], c.input);
  fg_context *ctx = NULL;
  fg_program *prog = NULL;
  if (!rc)
    rc = fgt_context_for(c.backend, c.device, 0, NULL, 0, &ctx);
  if (!rc && fg_compile(ctx, o.built.g, &copt, &prog) != FG_OK) {
    fprintf(stderr, "fieldgraph: %s\n", fg_context_errmsg(ctx));
    rc = 1;
  }
  if (!rc)
    printf("%s on %s\n%s", argv[optind], fg_context_device(ctx),
           fg_program_fusion_report(prog));
  if (!rc && c.profile) {
    int n_out = fg_program_output_count(prog);
    void **outs = calloc((size_t)n_out, sizeof *outs);
    const void *ins[FGT_MAX_IO];
    for (int i = 0; i < o.n_img; i++)
      ins[i] = o.img[i].data;
    for (int i = 0; outs && i < n_out; i++)
      outs[i] = malloc(fg_type_bytes(fg_program_output_type(prog, i)) + 8);
    double best = 1e30;
    for (int r = 0; r < 5 && !rc; r++) {
      double t = now();
      if (fg_program_run(prog, o.n_img, ins, n_out, outs) != FG_OK) {
        fprintf(stderr, "fieldgraph: %s\n", fg_context_errmsg(ctx));
        rc = 1;
      }
      t = now() - t;
      if (t < best)
        best = t;
    }
    if (!rc) {
      printf("run on %s (%dx%d): %.3f ms (best of 5)\n", c.input,
             o.img[0].width, o.img[0].height, best * 1e3);
      /* each kernel's share, averaged over the runs */
      for (int k = 0; k < fg_program_kernel_count(prog); k++) {
        double s = 0;
        long long l = 0;
        fg_program_kernel_time(prog, k, &s, &l);
        printf("  kernel %d: %.3f ms a run (%lld launches): %s\n", k,
               l ? s * 1e3 / 5 : 0.0, l, fg_program_kernel_name(prog, k));
      }
    }
    for (int i = 0; outs && i < n_out; i++)
      free(outs[i]);
    free(outs);
  }
  fg_program_free(prog);
  fg_context_free(ctx);
  one_free(&o);
  return rc;
}

int fgt_cmd_devices(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    puts("usage: fieldgraph devices\nLists the backends and the OpenCL "
         "devices with their limits.");
    return 0;
  }
  printf("backends: cpu (C compiled by clang, thread pool), opencl\n");
  fg_device_desc d[16];
  int n = 0;
  char err[512];
  if (fg_opencl_devices(d, 16, &n, err, sizeof err) != FG_OK) {
    printf("opencl: %s\n", err);
    return 0;
  }
  for (int i = 0; i < n && i < 16; i++)
    printf("opencl device %d: %s (%s, %s)\n  %s, %s; %u compute units, "
           "work-group %zu, global %llu MiB, local %llu KiB, max alloc "
           "%llu MiB, fp64 %s\n", d[i].index, d[i].name, d[i].platform,
           d[i].is_gpu ? "GPU" : "CPU", d[i].version, d[i].driver,
           d[i].compute_units, d[i].max_work_group_size,
           (unsigned long long)(d[i].global_mem >> 20),
           (unsigned long long)(d[i].local_mem >> 10),
           (unsigned long long)(d[i].max_alloc >> 20),
           d[i].fp64 ? "yes" : "no");
  if (n > 16)
    printf("and %d more OpenCL devices (this list shows the first 16)\n",
           n - 16);
  return 0;
}

/* A table cell's text for Markdown: '|' and '*' escaped. */
static void md_cell(const char *s) {
  for (; *s; s++) {
    if (*s == '|' || *s == '*')
      putchar('\\');
    putchar(*s);
  }
}

/* `fieldgraph ops [--markdown]`: the operator table (fg_ops_table), as a
 * list or as the reference table of docs/pipeline.md. */
static int cmd_ops(int argc, char **argv) {
  int markdown = argc > 1 && !strcmp(argv[1], "--markdown");
  if (argc > 2 || (argc == 2 && !markdown)) {
    fprintf(stderr, "usage: fieldgraph ops [--markdown]\n");
    return 2;
  }
  int n;
  const fg_op_info *t = fg_ops_table(&n);
  if (markdown)
    printf("| name | parameters | what | C call |\n| --- | --- | --- | --- "
           "|\n");
  for (int i = 0; i < n; i++) {
    if (markdown) {
      printf("| `%s` | ", t[i].name);
      for (const char *p = t[i].params; *p; p++)
        fputs(*p == ',' ? ", " : (char[]){*p, 0}, stdout);
      fputs(" | ", stdout);
      md_cell(t[i].doc);
      printf(" | `%s` |\n", t[i].c_call);
      continue;
    }
    char sig[64];
    snprintf(sig, sizeof sig, "%s(%s)", t[i].name, t[i].params);
    printf("%-20s %s\n", sig, t[i].doc);
  }
  if (markdown)
    printf("| every builtin of `fieldgraph/builtins.h` | positional | "
           "`sin(x)`, `atan2(y, x)`, `fmod(x, y)`, ... | `fg_call` |\n");
  else
    printf("and every builtin of fieldgraph/builtins.h by name, "
           "positionally (sin(x), atan2(y, x), ...)\n");
  return 0;
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
    printf("fieldgraph %s\n", fg_version());
    return 0;
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (!strcmp(cmd, "run"))
    return fgt_cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "check"))
    return fgt_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "dot"))
    return fgt_cmd_dot(argc - 1, argv + 1);
  if (!strcmp(cmd, "explain"))
    return fgt_cmd_explain(argc - 1, argv + 1);
  if (!strcmp(cmd, "devices"))
    return fgt_cmd_devices(argc - 1, argv + 1);
  if (!strcmp(cmd, "ops"))
    return cmd_ops(argc - 1, argv + 1);
  fprintf(stderr, "fieldgraph: unknown command '%s'\n%s", cmd, usage);
  return 2;
}

/* Standard output flushed and checked at exit, as GNU tools do: a listing
 * or JSON lines written to a full disk, a closed descriptor or a pipe
 * whose reader is gone are lost, and the exit status says so (1, unless
 * the command already failed).  Before, `fieldgraph ops >/dev/full` and
 * `fieldgraph run --json ... >/dev/full` ended with status 0. */
int main(int argc, char **argv) {
  /* A standard descriptor closed by the caller (`>&-`) would be handed to
   * the next file or libuv's own descriptors, and what is printed would
   * land there (libuv aborted on closing it).  It is held by /dev/null
   * opened the other way, so that writing stdout (reading stdin) fails
   * with EBADF and is reported, as it would have been. */
  for (int fd = 0; fd < 3; fd++)
    if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      int n = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
  int rc = dispatch(argc, argv);
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (fclose(stdout) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    fprintf(stderr, "fieldgraph: cannot write standard output: %s\n",
            e ? strerror(e) : "write error");
    return rc ? rc : 1;
  }
  return rc;
}
