/* tools/fgt.h - the fieldgraph command's internals: the pipeline file's
 * tokens and syntax tree (lexer.c, parse.c), the values it computes and
 * the graph it builds for one set of input types (eval.c), the operator
 * table (ops_table.c) and the batch runner (run.c).  Prefix fgt_.
 */
#ifndef FG_TOOLS_FGT_H
#define FG_TOOLS_FGT_H

#include "fieldgraph.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- source positions and diagnostics ----------------------------------- */

/* A pipeline file held in memory; lines are found on demand for messages. */
typedef struct fgt_source {
  char *path;   /* as given on the command line */
  char *text;   /* NUL-terminated */
  size_t len;
} fgt_source;

typedef struct fgt_pos {
  int line, col;  /* 1-based */
} fgt_pos;

/* Writes "file:line:col: error: MSG\n  source line\n  caret\n" into buf
 * (size bytes, truncated as needed). */
void fgt_diag(char *buf, size_t size, const fgt_source *src, fgt_pos pos,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- tokens ------------------------------------------------------------- */

typedef enum fgt_tok_kind {
  FGT_T_EOF, FGT_T_NEWLINE, FGT_T_NAME, FGT_T_NUMBER, FGT_T_STRING,
  FGT_T_PUNCT,    /* one of ( ) [ ] , . = + - * / % ^ ; */
  FGT_T_ERROR
} fgt_tok_kind;

typedef struct fgt_tok {
  fgt_tok_kind kind;
  fgt_pos pos;
  const char *start;   /* into the source text */
  int len;
  double number;
  int is_integer;      /* a number written without '.' or exponent */
  char punct;
} fgt_tok;

/* The lexer: newlines are tokens except inside () and []. */
typedef struct fgt_lexer {
  const fgt_source *src;
  const char *p;
  fgt_pos pos;
  int depth;           /* open brackets */
} fgt_lexer;

void fgt_lex_init(fgt_lexer *lx, const fgt_source *src);
/* Next token; FGT_T_ERROR with the reason in the token's text fields
 * (start points at the bad character). */
fgt_tok fgt_lex_next(fgt_lexer *lx);

/* ---- syntax tree -------------------------------------------------------- */

typedef enum fgt_node_kind {
  FGT_N_NUMBER, FGT_N_STRING, FGT_N_NAME, FGT_N_VECTOR, FGT_N_UNARY,
  FGT_N_BINARY, FGT_N_MEMBER, FGT_N_CALL
} fgt_node_kind;

/* The deepest expression a file may hold: parse, evaluation and freeing
 * recurse once per level, so a deeper one would overflow the stack. */
enum { FGT_MAX_DEPTH = 256 };

typedef struct fgt_node fgt_node;
struct fgt_node {
  fgt_node_kind kind;
  fgt_pos pos;
  int height;           /* 1 + the tallest operand's (at most FGT_MAX_DEPTH) */
  double number;
  int is_integer;
  char *text;           /* NAME's name, STRING's text, MEMBER's member */
  char op;              /* UNARY '-', BINARY + - * / % ^ */
  fgt_node *a, *b;      /* operands; MEMBER's object in a; CALL's callee */
  int n;                /* VECTOR items, CALL arguments */
  fgt_node **items;
  char **arg_names;     /* CALL: NULL or the name of a named argument */
  fgt_pos *arg_pos;     /* CALL: where each argument (or its name) starts */
};

typedef enum fgt_stmt_kind {
  FGT_S_ASSIGN,     /* names = expr (several names: an invokable's results) */
  FGT_S_SET,        /* script.global = expr */
  FGT_S_EXPR        /* a call: save(...), report(...) */
} fgt_stmt_kind;

typedef struct fgt_stmt {
  fgt_stmt_kind kind;
  fgt_pos pos;
  int n_names;
  char **names;         /* ASSIGN: targets; SET: script, global */
  fgt_pos *name_pos;
  fgt_node *expr;
} fgt_stmt;

/* A parsed pipeline file. */
typedef struct fgt_pipeline {
  fgt_source src;
  int n_stmts;
  fgt_stmt *stmts;
} fgt_pipeline;

/* Reads and parses the file at path.  On failure returns NULL with a
 * diagnostic (file:line:col, the line and a caret) in err. */
fgt_pipeline *fgt_pipeline_load(const char *path, char *err, size_t errlen);
/* Parses text (copied) as the file named path. */
fgt_pipeline *fgt_pipeline_parse(const char *path, const char *text,
                                 char *err, size_t errlen);
void fgt_pipeline_free(fgt_pipeline *p);

/* ---- values and the graph of one run ------------------------------------ */

typedef enum fgt_vkind {
  FGT_V_NONE, FGT_V_NUMBER, FGT_V_VECTOR, FGT_V_STRING, FGT_V_FIELD,
  FGT_V_SCRIPT, FGT_V_METHOD
} fgt_vkind;

typedef struct fgt_value {
  fgt_vkind kind;
  double v[4];          /* NUMBER: v[0]; VECTOR: n of them */
  int n;
  int is_integer;
  const char *str;      /* STRING (the tree's text), METHOD's name */
  fg_field *field;
  fg_field *alpha;      /* FIELD: the input's alpha kept beside its colour
                           (f32 in [0, 1]), NULL if none */
  fg_rs_script *script; /* SCRIPT, METHOD */
} fgt_value;

/* An output the pipeline saves: the graph output's index, the file name
 * template and the encoder's options. */
typedef struct fgt_save {
  int output;
  char tmpl[512];         /* without a trailing [options] */
  fg_image_save_options opt;
  fg_elem elem;           /* u8, u16 or f32 (stored) */
  int channels;
} fgt_save;

/* A reduction result the pipeline reports, by name. */
typedef struct fgt_report {
  int output;
  char name[64];
  fg_elem elem;
  int n;                  /* values: tensor elements times points */
} fgt_report;

/* An image input: index 0 is the input file itself; others are read from
 * a name template next to it ("{stem}_mask.png"). */
typedef struct fgt_input {
  const char *tmpl;       /* NULL for the main input */
  int index;              /* graph input index */
} fgt_input;

enum { FGT_MAX_IO = 32, FGT_MAX_REPORT = 256 /* values per report */ };

/* The types of the image inputs a graph is built for. */
typedef struct fgt_shape_key {
  int n;
  int width[FGT_MAX_IO], height[FGT_MAX_IO], channels[FGT_MAX_IO];
  int type[FGT_MAX_IO];   /* fg_image_type of each input's samples */
} fgt_shape_key;

/* A graph built from a pipeline for one set of input types. */
typedef struct fgt_built {
  fg_graph *g;
  int n_inputs, n_saves, n_reports;
  fgt_input inputs[FGT_MAX_IO];
  fgt_save saves[FGT_MAX_IO];
  fgt_report reports[FGT_MAX_IO];
} fgt_built;

/* Scripts a pipeline loaded, shared by every graph built from it. */
typedef struct fgt_scripts {
  int n;
  char *path[16];
  fg_rs_script *s[16];
} fgt_scripts;

/* Lists the image inputs the pipeline declares, in order (templates of
 * the extra ones), without building anything: *n and tmpls[0..*n-1]
 * (NULL for the main input), and (space non-NULL) the working space the
 * first input() names with profile= in *space (NULL: none; checked by
 * fgt_build).  Returns 0, or -1 with a diagnostic. */
int fgt_pipeline_inputs(const fgt_pipeline *p, int *n, const char **tmpls,
                        const char **space, char *err, size_t errlen);

/* Builds the graph of p for inputs of the given types into *out.
 * Returns FG_OK, or a status with a diagnostic pointing into the file
 * (out's graph is then freed). */
fg_status fgt_build(const fgt_pipeline *p, fgt_scripts *scripts,
                    const fgt_shape_key *key, fgt_built *out, char *err,
                    size_t errlen);
void fgt_built_free(fgt_built *b);
/* The shape key a pipeline of n inputs is checked with before the inputs
 * run: the size and channels of the image at path (every input the same),
 * or FGT_PROTO_SIZE x FGT_PROTO_SIZE RGB when path is NULL or unreadable. */
#define FGT_PROTO_SIZE 256
void fgt_proto_key(fgt_shape_key *key, int n, const char *path);
void fgt_scripts_free(fgt_scripts *s);

/* ---- number lists ------------------------------------------------------- */

/* A list of numbers from a vector literal, nested one level for a
 * matrix ([[1, 2, 1], [2, 4, 2], [1, 2, 1]]: rows 3, cols 3; a flat
 * list: rows 1, cols n); the storage behind an fg_op_list argument of the
 * operator table (fieldgraph/op_table.h). */
enum { FGT_MAX_FLOATS = 63 * 63 };
typedef struct fgt_floats {
  int n, rows, cols;
  float v[FGT_MAX_FLOATS];
} fgt_floats;

/* ---- file name templates ------------------------------------------------ */

/* Expands {stem} {name} {dir} {ext} {index} of tmpl for the input at
 * path (rel: its path relative to the directory it was found under, or
 * its file name).  0, or -1 when it does not fit or a field is unknown
 * (message in err). */
int fgt_expand(char *out, size_t size, const char *tmpl, const char *path,
               const char *rel, long index, char *err, size_t errlen);

/* ---- subcommands -------------------------------------------------------- */

/* A context for --backend/--device (NULL: the defaults) with threads
 * kernel threads (0: one per core), completions on loop (NULL: its own)
 * and max_runs runs in flight (0: the default).  0, or an exit status
 * after printing why. */
int fgt_context_for(const char *backend, const char *device, int threads,
                    struct uv_loop_s *loop, int max_runs, fg_context **ctx);
/* --fusion on|off|check (NULL: the default); -1 after printing why. */
int fgt_parse_fusion(const char *s, fg_fusion *out);

int fgt_cmd_run(int argc, char **argv);
int fgt_cmd_dot(int argc, char **argv);
int fgt_cmd_explain(int argc, char **argv);
int fgt_cmd_devices(int argc, char **argv);
int fgt_cmd_check(int argc, char **argv);

#endif
