/* examples/square.c - Cog's big/small `square` GPUOperator: the same
 * function squares a field of 3x3 matrices (big tensors, element by
 * element) and a field of 2-vectors (small tensors, whole tensors). */
#include "example_util.h"
#include "operators.h"

int main(void) {
  float big[2 * 9], small[2 * 2], big_sq[2 * 9], small_sq[2 * 2];
  for (int i = 0; i < 18; i++)
    big[i] = (float)i - 9;
  for (int i = 0; i < 4; i++)
    small[i] = (float)i + 0.5f;
  fg_graph *g = fg_graph_new("square");
  fg_field *b = fg_input(g, "big", fg_type_matrix(FG_F32, fg_shape1(2), 3, 3));
  fg_field *s = fg_input(g, "small", fg_type_vector(FG_F32, fg_shape1(2), 2));
  fg_output(g, "big_squared", ex_square(g, b));
  fg_output(g, "small_squared", ex_square(g, s));
  int rc = example_run("square", g, 2, (const void *[]){big, small}, 2,
                       (void *[]){big_sq, small_sq});
  for (int i = 0; i < 18 && rc == 0; i++)
    printf("big[%d] = %g -> %g\n", i, big[i], big_sq[i]);
  for (int i = 0; i < 4 && rc == 0; i++)
    printf("small[%d] = %g -> %g\n", i, small[i], small_sq[i]);
  fg_graph_free(g);
  return rc;
}
