/* examples/half_double.c - Cog's two-output `halfDouble` GPUOperator. */
#include "example_util.h"
#include "operators.h"

int main(void) {
  float in[6] = {1, 2, 3, 4, 5, 6}, half[6], twice[6];
  fg_graph *g = fg_graph_new("halfDouble");
  fg_field *h, *d;
  ex_half_double(g, fg_input(g, "in", fg_type_scalar(FG_F32, fg_shape1(6))),
                 &h, &d);
  fg_output(g, "half", h);
  fg_output(g, "double", d);
  int rc = example_run("halfDouble", g, 1, (const void *[]){in}, 2,
                       (void *[]){half, twice});
  for (int i = 0; i < 6 && rc == 0; i++)
    printf("%g -> half %g, double %g\n", in[i], half[i], twice[i]);
  fg_graph_free(g);
  return rc;
}
