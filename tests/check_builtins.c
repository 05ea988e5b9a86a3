/* tests/check_builtins.c - the built-in function families of Cog's
 * GPUOperator (integer, math, geometric, common and relational functions,
 * vector literals, type conversion and reinterpretation), run on the
 * backend $FG_TEST_BACKEND names (cpu by default) over fields of inputs
 * that include the edge cases (0, -0, negative values, the limits of each
 * integer type, NaN, infinities, subnormals), each compared with the C
 * library or with an independent computation written here: exactly for
 * integers, relational results and conversions, and within a stated
 * number of ulps for floating point.  Several functions share one
 * operator (up to FG_MAX_OUTPUTS outputs) to keep the kernel count low.
 *
 * Each family is a file of its own (tests/builtins_*.c) over the helpers
 * of tests/builtins_util.c; this file runs them as one suite. */
#include "builtins_util.h"

int main(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = tcase_create("builtins");
  tcase_set_timeout(tc, 120);
  builtins_integer_tests(tc);
  builtins_math_tests(tc);
  builtins_geometric_tests(tc);
  builtins_common_tests(tc);
  builtins_relational_tests(tc);
  builtins_vector_tests(tc);
  builtins_conversion_tests(tc);
  builtins_types_tests(tc);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
