/* fieldgraph/renderscript.h - RenderScript kernels (.rs source) as graph
 * nodes, on every backend.
 *
 *   fg_rs_script *s;
 *   char err[512];
 *   if (fg_rs_script_new_file("invert.rs", &s, err, sizeof err) != FG_OK)
 *     puts(err);                                 // "invert.rs:7:3: ..."
 *   float gain = 2;
 *   fg_rs_set(s, "gain", &gain, sizeof gain);    // a script global
 *   fg_rs_call(s, "setSaturation", 0.5);         // an invokable, on the host
 *   fg_field *img = fg_input(g, "img", fg_type_image(FG_U8, h, w, 4));
 *   fg_field *inv = fg_rs_map(g, s, "invert", 1, &img, NULL);
 *   fg_field *sum = fg_rs_reduce(g, s, "addint", 1, &ints, NULL);  // 0-D
 *   fg_output(g, "inv", inv);
 *   fg_field *grey;                              // Single-Source: process()
 *   fg_rs_invoke(g, s, "process", 1, &img, 1, &grey);  // rsForEach inside
 *   ...compile and run; then fg_rs_script_free(s) (any time: graphs and
 *   programs keep what they need).
 *
 * Mapping kernels (RS_KERNEL or __attribute__((kernel))) and reduction
 * kernels (#pragma rs reduce) are nodes like any other: mapping kernels
 * fuse with neighbouring pointwise operators, reductions take their
 * pointwise producers into their accumulation pass.  A kernel's Element
 * types are the fields' element type and tensor width (uchar4 is u8 with
 * 4 elements).  Coordinates: x is the column, y the row, z the layer.
 * Each kernel is built with its script's precision pragma (rs_fp_relaxed
 * and rs_fp_imprecise relaxed, rs_fp_full full); a fused kernel is
 * relaxed only if all its operators allow it.
 *
 * Script globals have a C value (what fg_rs_get reads) and a script value
 * (what kernels see); fg_rs_set writes both.  A compiled program reads the
 * script values when each run is started (fg_program_start, or
 * fg_program_run): a run sees the globals as they were at its start, and
 * fg_rs_set afterwards changes only later runs, even while that run waits
 * or executes.  Kernels read globals only.
 * rs_allocation globals are bound to fields with fg_rs_bind_allocation
 * and read with rsGetElementAt_<type> (a non-local read); a mapping
 * kernel that writes one (rsSetElementAt_<type>, a non-local write) makes
 * a new field, a fusion boundary (fg_rs_map).
 *
 * Builder calls follow graph.h's sticky errors; the script calls return a
 * status with a message in fg_rs_script_errmsg.  A script belongs to one
 * thread at a time.
 *
 * A script's kernels run as native code in the process that runs the
 * program: one that writes through a wild pointer corrupts or crashes
 * that process (see context.h, "What a kernel can do to its host").
 */
#ifndef FIELDGRAPH_RENDERSCRIPT_H
#define FIELDGRAPH_RENDERSCRIPT_H

#include "graph.h"

typedef struct fg_rs_script fg_rs_script;

/* Floating-point precision a script asked for with its pragma. */
typedef enum fg_rs_fp {
  FG_RS_FP_FULL,        /* #pragma rs_fp_full, the default */
  FG_RS_FP_RELAXED,     /* #pragma rs_fp_relaxed */
  FG_RS_FP_IMPRECISE    /* #pragma rs_fp_imprecise */
} fg_rs_fp;

/* How a script is loaded; zero-initialize (all fields optional).
 *
 * A script is preprocessed by clang's C preprocessor before it is read, as
 * the RenderScript compiler does: #include "x.rsh" searches the script's
 * directory (that of its file name), then include_dirs in order; #if,
 * #ifdef and macros work; RS_VERSION is 24.  The RenderScript system
 * headers (rs_debug.rsh, rs_math.rsh, ...) may be included and add
 * nothing: fieldgraph provides the runtime.  Messages point at the file
 * and line of the code, in the script or a header.  The preprocessor
 * works in a temporary directory under $TMPDIR (else /tmp), and is
 * stopped past a time and an output size (the options below); the
 * script's #include of a FIFO or a device is refused. */
typedef struct fg_rs_options {
  const char *const *include_dirs;  /* n_include_dirs directories */
  int n_include_dirs;
  const char *clang;    /* the preprocessor, and the compiler of the
                           invokables; NULL: $FG_CLANG, as for the
                           CPU backend, else the clang found by configure */
  const char *cache_dir;  /* where compiled invokables are cached (in
                             CACHE/rs); NULL: the kernel cache's directory
                             (fg_context_options.cache_dir's default),
                             checked as it is */
  int preprocess_timeout_ms;    /* the preprocessor is stopped past this
                                   (an error naming it); 0: 30 s */
  size_t preprocess_max_bytes;  /* ... or when its output passes this;
                                   0: 4 * FG_RS_MAX_SOURCE */
} fg_rs_options;

/* Parses a script from text (len bytes; (size_t)-1: up to the NUL), then
 * runs its init() function if it has one (see fg_rs_call): FG_ENOTSUP
 * naming the line when init() cannot run on the host, FG_EBUILD when it
 * does not compile.  name
 * names it in messages and generated code; file is what errors and #line
 * directives call the source (NULL: name), and its directory is where
 * quoted includes are searched first.  On failure *out is NULL and errmsg
 * (errlen bytes, may be NULL) holds "file:line:column: message".
 * FG_EINVAL bad arguments, FG_EFORMAT a script it cannot understand (or
 * preprocess: a missing header, #error), FG_EIO the preprocessor cannot
 * run, FG_ENOMEM.  Any thread. */
fg_status fg_rs_script_new_source(const char *name, const char *file,
                                  const char *text, size_t len,
                                  fg_rs_script **out, char *errmsg,
                                  size_t errlen);
/* Longest script fg_rs_script_new_file reads, in bytes. */
#define FG_RS_MAX_SOURCE (16 << 20)

/* Reads and parses the script at path (its name: the file name without
 * directory and .rs).  FG_EIO when it cannot be read or is a directory;
 * FG_EFORMAT when it is longer than FG_RS_MAX_SOURCE (a device such as
 * /dev/zero is read only that far). */
fg_status fg_rs_script_new_file(const char *path, fg_rs_script **out,
                                char *errmsg, size_t errlen);
/* The same with options (opt NULL: the defaults). */
fg_status fg_rs_script_new_source_opt(const char *name, const char *file,
                                      const char *text, size_t len,
                                      const fg_rs_options *opt,
                                      fg_rs_script **out, char *errmsg,
                                      size_t errlen);
fg_status fg_rs_script_new_file_opt(const char *path,
                                    const fg_rs_options *opt,
                                    fg_rs_script **out, char *errmsg,
                                    size_t errlen);
/* Frees the script; graphs and programs that use it keep what they need.
 * NULL does nothing. */
void fg_rs_script_free(fg_rs_script *s);
/* Message of the script's last failed call, "" if none; never NULL. */
const char *fg_rs_script_errmsg(const fg_rs_script *s);
/* What the script's kernels use that fieldgraph cannot run, found when it
 * was loaded: one "file:line:column: message" line per kernel (naming the
 * call), "" when none; owned by the script.  Such a kernel is refused when
 * a node launches it (fg_rs_map, fg_rs_reduce, fg_rs_invoke), with the
 * same message; the script's other kernels are unaffected. */
const char *fg_rs_script_warnings(const fg_rs_script *s);
/* The script's name, and its precision pragma. */
const char *fg_rs_script_name(const fg_rs_script *s);

/* What a script's function `name` is, as the script declares it (macros
 * expanded): a mapping kernel (RS_KERNEL, __attribute__((kernel)), or a
 * legacy root-shaped one) for fg_rs_map, a reduction (#pragma rs reduce)
 * for fg_rs_reduce, an invokable for fg_rs_invoke / fg_rs_call, or none
 * of these (unknown, static or without a body). */
typedef enum fg_rs_kind {
  FG_RS_NONE = 0, FG_RS_KERNEL, FG_RS_REDUCTION, FG_RS_INVOKABLE
} fg_rs_kind;
fg_rs_kind fg_rs_function_kind(const fg_rs_script *s, const char *name);
/* The element type of parameter i (from 0) of function `name` in *elem
 * when it is a numeric scalar (what fg_rs_invoke_args and fg_rs_call_args
 * take a value for); FG_ETYPE when it is another kind of parameter (an
 * rs_allocation, a vector, a pointer), FG_EINVAL when the function or
 * the parameter does not exist. */
fg_status fg_rs_function_param(const fg_rs_script *s, const char *name,
                               int i, fg_elem *elem);
fg_rs_fp fg_rs_script_fp(const fg_rs_script *s);

/* Sets non-static, non-const global `global` (its C and script values)
 * from size bytes at value; size must be the global's size in the
 * script's layout (vec3 types take 4 elements).  FG_EINVAL: no such
 * settable global, or the wrong size. */
fg_status fg_rs_set(fg_rs_script *s, const char *global, const void *value,
                    size_t size);
/* Copies the C value of non-static global `global` to value (size bytes,
 * as for fg_rs_set): its initializer, or what fg_rs_set last wrote. */
fg_status fg_rs_get(fg_rs_script *s, const char *global, void *value,
                    size_t size);
/* Size in bytes of a global, 0 when there is none of that name. */
size_t fg_rs_global_size(const fg_rs_script *s, const char *global);
/* The number type a global holds: a scalar's or vector's element, an
 * array's innermost element (bool as FG_BOOL, one byte).  FG_EINVAL: no
 * such global; FG_ETYPE: it holds a struct, an allocation or an opaque
 * handle. */
/* The name of the script's global i (0, 1, ... in declaration order), or
 * NULL past the last: for front ends that list them or suggest a name. */
const char *fg_rs_global_name(const fg_rs_script *s, int i);
fg_status fg_rs_global_elem(const fg_rs_script *s, const char *global,
                            fg_elem *elem);

/* The field rs_allocation global `global` is bound to now: what
 * fg_rs_bind_allocation bound, or the copy the last launch that set its
 * elements made (see fg_rs_map); NULL when unbound or unknown. */
fg_field *fg_rs_allocation_field(fg_rs_script *s, const char *global);

/* Binds rs_allocation global `global` to field (NULL unbinds): kernels
 * launched afterwards read it with rsGetElementAt_<type> and
 * rsAllocationGetDimX/Y/Z.  A pointer global (const uchar4 *p, as scripts
 * before API 18 bind Allocations) binds the same way to a field of its
 * element type (bool *p: an FG_U8 field); kernels read p[i], *p,
 * *(p + i), p->m and (p + i)->m, element i of the field in memory order
 * (i clamped to it), write it as fg_rs_map says, and pass p or p + i to
 * helpers' pointer parameters or to pointer locals, which read and write
 * the field as the parameter's type (a float * given a double *).  The field must be in the graph of the
 * launches that read it (kernels that do not read it are unaffected).
 * The binding lapses when the field's graph is freed: a later launch
 * reading it fails with FG_ESTATE naming the field (bind again, e.g. once
 * per graph in a graph-per-image loop).  A YUV Allocation (an NV21
 * camera frame of w x h pixels, read with rsGetElementAtYuv_uchar_Y/U/V)
 * is bound as the buffer lies: a 2-D FG_U8 field of h * 3 / 2 rows and w
 * columns (h rows of Y, then h / 2 rows of interleaved V, U pairs); its
 * rsAllocationGetDimY is then h * 3 / 2. */
fg_status fg_rs_bind_allocation(fg_rs_script *s, const char *global,
                                fg_field *field);

/* The value of an rs_sampler global (Android's Sampler.Builder), set with
 * fg_rs_set: rsSample(allocation, sampler, float2 uv[, lod]) reads a 2-D
 * uchar4 Allocation at normalized coordinates uv with filter mag (at lod
 * 0; min above), nearest or linear (bilinear), and wrap modes wrap_s
 * (x) and wrap_t (y), clamp, wrap or mirrored repeat; it returns a float4
 * in [0, 1].  A sampler never set is all zeros: nearest, clamped. */
typedef struct fg_rs_sampler {
  int32_t mag, min, wrap_s, wrap_t;     /* FG_RS_SAMPLER_* */
} fg_rs_sampler;
/* rs_sampler_value, with Android's numbers. */
enum {
  FG_RS_SAMPLER_NEAREST = 0, FG_RS_SAMPLER_LINEAR = 1,
  FG_RS_SAMPLER_LINEAR_MIP_LINEAR = 2, FG_RS_SAMPLER_WRAP = 3,
  FG_RS_SAMPLER_CLAMP = 4, FG_RS_SAMPLER_LINEAR_MIP_NEAREST = 5,
  FG_RS_SAMPLER_MIRRORED_REPEAT = 6
};

/* Script.LaunchOptions: the coordinates a launch covers, [start, end) per
 * axis; an axis with end == 0 is covered whole.  Zero-initialize. */
typedef struct fg_rs_launch {
  int64_t x_start, x_end, y_start, y_end, z_start, z_end;
  /* Mapping kernels: the shape of the output when the kernel takes no
   * input (ignored otherwise); the output outside the range takes base's
   * values (the output Allocation's old contents), or zeros when base is
   * NULL.  A legacy kernel's output pointer points at base's value too
   * (what it does not write keeps it, as on Android); zeros without. */
  fg_shape shape;
  fg_field *base;
} fg_rs_launch;

/* A node running mapping kernel `kernel` of s over n_in inputs of one
 * shape (as many as the kernel has input arguments, with the Element
 * types of its prototype); returns its output, of the kernel's return
 * type and the inputs' shape.  A struct of up to 32 bytes travels as its
 * bytes in the widest of u64, u32, u16, u8 that holds them in at most 4
 * elements (struct { float f; int i; } is one u64 per point), as a
 * kernel's result and as an argument.  opt may be NULL.
 * A kernel that sets elements of an rs_allocation global
 * (rsSetElementAt_<type>(global, v, x[, y[, z]]), at points of its
 * choosing, or rsAtomicInc/Dec/Add/Sub/And/Or/Xor/Min/Max/Cas on
 * (volatile int32_t *)rsGetElementAt(global, x[, y[, z]]) of an i32 or
 * u32 field, a histogram say; a legacy kernel may then have no output
 * pointer, and its points are the launch's), or that writes through a
 * pointer global bound to a field (int *p: p[e] = v, or +=, -=, *=, ++,
 * --, at element e in memory order), makes one more result per global it
 * writes, after a value it returns, in the order the globals are
 * declared: a copy of the field the global is bound to, with the
 * kernel's writes (points outside it are skipped; threads writing one
 * point race, as on Android), of that field's element type.  Each global
 * is rebound to its copy, which later launches read and
 * fg_rs_allocation_field returns; a kernel that returns void returns the
 * copy of the first written global here.  At most FG_MAX_OUTPUTS results
 * (the value and the copies).  A kernel that writes script globals
 * (rsAtomic* on &g or &g[i] of int or uint, or plain writes) and sets no
 * element of an allocation (fieldgraph runs kernels that do one of the
 * two) writes its launch's copy of them, which every thread shares (plain
 * writes race: some thread's last write is left); later launches in g
 * read it, and a run that ends well leaves it in the script's globals,
 * which invokables and later runs read (fg_rs_get keeps the host's
 * values); a kernel that returns void returns that copy (the globals
 * block, as bytes).  Such a launch is a fusion boundary: it runs as a
 * kernel of its own. */
fg_field *fg_rs_map(fg_graph *g, fg_rs_script *s, const char *kernel,
                    int n_in, fg_field *const *in, const fg_rs_launch *opt);

/* A node running reduction kernel `reduction` of s over n_in inputs of one
 * shape (1-3 dimensions); returns a 0-dimensional field holding the
 * result: a scalar or vector of the outconverter's result type, the
 * elements of an array result, or the bytes of a struct result.  The
 * result may be a graph output or the input of later nodes. */
fg_field *fg_rs_reduce(fg_graph *g, fg_rs_script *s, const char *reduction,
                       int n_in, fg_field *const *in,
                       const fg_rs_launch *opt);

/* Single-Source RenderScript: runs invokable function `function` of s
 * (a void function of rs_allocation and rs_script parameters) as part of
 * g.  Its body may hold straight-line code of integer locals,
 * rsAllocationGetDimX/Y/Z, rsCreateAllocation_<type>(x[, y[, z]]),
 * rs_script_call_t locals, rsForEach, rsForEachWithOptions and
 * rsClearObject; also the launches of root() that scripts before API 24
 * write, rsForEach(script, in, out[, usrData[, usrDataLen]][, &sc]), with
 * the script an rs_script parameter or global (usrData is not passed: a
 * root() that reads it is refused); rs_script_call_t (or struct
 * rs_script_call) locals set the range (strategy and array members are
 * ignored).
 * Calls of the script's functions that run on the host (fg_rs_call's
 * rules; arguments and assignments are C arithmetic of constants, integer
 * locals, numeric scalar globals and casts, float kept float as C keeps
 * it) and assignments to numeric globals run when this call builds the
 * nodes, with rsAllocationGetDimX/Y/Z of an
 * rs_allocation global as that point of the body has it: the launches
 * after them see what they set (a lookup table, a width).  Each
 * launch is the node fg_rs_map builds, so launches fuse (a temporary
 * allocation between two of them stays virtual).  args: one field per
 * rs_allocation parameter the function reads before any launch writes it,
 * in parameter order; rs_allocation globals it reads are the fields bound
 * to them (fg_rs_bind_allocation).  results (n_results slots) receive one
 * field per parameter a launch writes, in parameter order, then one per
 * rs_allocation global a launch writes (its output, or one whose elements
 * the kernel sets: fg_rs_map), in the order they are declared: its
 * contents when the function returns.  Returns FG_OK, or the graph's
 * sticky error (results NULL); an unsupported statement is an FG_ENOTSUP
 * naming its file:line:column.
 * A function that launches no kernel (no rsForEach) runs whole instead,
 * any C the kernels' runtime supports (loops, rsGetElementAt_<type>,
 * rsSetElementAt_<type>, rsAtomic*, pointer globals' elements), as one
 * thread over its rs_allocation parameters: args holds one field per
 * parameter, in order, and each allocation it sets elements of is a
 * result, a copy of its field with the writes: the parameters in order,
 * then the rs_allocation and pointer globals (rebound) in the order they
 * are declared.  Script globals it writes are no result: they go to a
 * copy of the globals block (the node's output after the results; at most
 * FG_MAX_OUTPUTS outputs in all), which the launches after it in g read
 * and each run leaves in the script's globals, as a kernel's writes; a
 * function that writes only globals has no result.  Its numeric, vector
 * and bool parameters take fg_rs_invoke_args' values. */
fg_status fg_rs_invoke(fg_graph *g, fg_rs_script *s, const char *function,
                       int n_args, fg_field *const *args, int n_results,
                       fg_field **results);
/* fg_rs_invoke of a function that also takes numeric scalar parameters
 * (void filter(rs_allocation in, rs_allocation out, float radius)):
 * values holds one pointer per parameter of the function, in order, to a
 * value of its type for each numeric scalar parameter (as fg_rs_call_args
 * takes them; NULL for rs_allocation and rs_script parameters).  Its body
 * reads them as the constants they are for this graph: in assignments to
 * globals, arguments, locals and launch bounds.  A function run as one
 * thread (no rsForEach: void prepare(int w, int h), setCenterMassPos(float
 * x, float y, float z)) takes numeric scalar and vector and bool
 * parameters so (a vec3 as 4 elements, a bool as a C bool), read anywhere
 * in it and in the functions it passes them to.  fg_rs_invoke refuses
 * such a function, naming the parameter. */
fg_status fg_rs_invoke_args(fg_graph *g, fg_rs_script *s,
                            const char *function, const void *const *values,
                            int n_args, fg_field *const *args, int n_results,
                            fg_field **results);

/* Invokable functions: a script's non-kernel functions, called from the
 * host as ScriptC.invoke_<name>() does on Android.  The function runs on
 * the host (built once with clang, cached in the cache directory), with
 * the script values of the globals: what it writes to a global, static or
 * not, is what kernels launched by later runs see (as if fg_rs_set had
 * written it), while fg_rs_get keeps reading the C values (what the host
 * set).  Its body may hold any C the script's runtime supports: locals,
 * loops, if, calls of the script's functions, the math functions.
 * init(), when a script has one, runs this way when the script is
 * created.  An invokable that launches kernels (rsForEach) or takes
 * rs_allocation parameters runs in a graph instead (fg_rs_invoke).  On
 * the host an rs_allocation global has its bound field's dimensions
 * (rsAllocationGetDimX/Y/Z; 0 when unbound) but no elements: a function
 * reading or writing them (rsGetElementAt, rsSetElementAt) is refused.
 *
 * fg_rs_call passes its variadic arguments by the parameters' types:
 * floating-point parameters as double, bool and integer ones up to 32
 * bits as int (or unsigned), long and ulong as int64_t / uint64_t, and
 * vectors and structs as a pointer to the value (in the script's layout,
 * vec3 as vec4).  fg_rs_call_args takes one pointer per parameter, to a
 * value of its type.  FG_EINVAL: no such function or the wrong number of
 * arguments; FG_ENOTSUP: the function cannot run on the host (the message
 * names the line and why); FG_EBUILD: it does not compile (clang's
 * message, at the script's line). */
fg_status fg_rs_call(fg_rs_script *s, const char *function, ...);
/* Where an invokable's rsDebug lines go (one call per line, without a
 * newline): fn(user, line); fn NULL: stderr, "script: line" (the default,
 * and what init() writes to).  In kernels rsDebug prints nothing. */
typedef void (*fg_rs_log_fn)(void *user, const char *line);
void fg_rs_set_log(fg_rs_script *s, fg_rs_log_fn fn, void *user);
/* What an invokable's rsSendToClient(id[, data, size]) calls, on the
 * calling thread before it returns (data is valid only during the call;
 * NULL and 0 without data); with no handler (the default) rsSendToClient
 * returns false.  rsRand in invokables draws from a sequence of the
 * script's own. */
typedef void (*fg_rs_message_fn)(void *user, int id, const void *data,
                                 size_t size);
void fg_rs_set_message_handler(fg_rs_script *s, fg_rs_message_fn fn,
                               void *user);
fg_status fg_rs_call_args(fg_rs_script *s, const char *function,
                          int n_args, const void *const *args);

#endif
