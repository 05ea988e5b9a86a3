/* examples/half.c - Cog's `half` GPUOperator applied to scalar, vector,
 * matrix and colour fields in one graph; prints a value of each. */
#include "example_util.h"
#include "operators.h"

#include <stdlib.h>

int main(void) {
  fg_shape shape = fg_shape2(4, 5);
  fg_type types[4] = {fg_type_scalar(FG_F32, shape),
                      fg_type_vector(FG_F32, shape, 3),
                      fg_type_matrix(FG_F32, shape, 2, 2),
                      fg_type_vector(FG_F32, shape, 4)};
  const char *names[4] = {"scalar", "vector", "matrix", "color"};
  fg_graph *g = fg_graph_new("half");
  float *in[4], *out[4];
  for (int i = 0; i < 4; i++) {
    size_t n = fg_type_bytes(types[i]) / sizeof(float);
    in[i] = malloc(n * sizeof(float));
    out[i] = calloc(n, sizeof(float));
    for (size_t j = 0; j < n; j++)
      in[i][j] = (float)j;
    char oname[32];
    snprintf(oname, sizeof oname, "half_%s", names[i]);
    fg_output(g, oname, ex_half(g, fg_input(g, names[i], types[i])));
  }
  int rc = example_run("half", g, 4, (const void *const *)in, 4,
                       (void *const *)out);
  for (int i = 0; i < 4 && rc == 0; i++) {
    char ts[96];
    printf("half(%s %s): in[7] = %g -> out[7] = %g\n", names[i],
           fg_type_str(types[i], ts, sizeof ts), in[i][7], out[i][7]);
  }
  fg_graph_free(g);
  for (int i = 0; i < 4; i++) {
    free(in[i]);
    free(out[i]);
  }
  return rc;
}
