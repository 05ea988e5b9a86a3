/* runtime/run_hooks.h - fault injection for the run engine's tests: makes
 * one run's kernel end as if the device had reported a failure, through
 * the same completion path a real failure takes.  Internal. */
#ifndef FG_RUNTIME_RUN_HOOKS_H
#define FG_RUNTIME_RUN_HOOKS_H

#include "fieldgraph.h"

/* The nth run started on ctx after this call (0: the next one) does not
 * launch its kernel `kernel` (an index of fg_program_kernel_name); the
 * kernel ends with FG_EBACKEND and msg instead. */
void fg__context_fail_kernel(fg_context *ctx, int nth, int kernel,
                             const char *msg);

#endif
