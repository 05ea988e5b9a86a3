/* examples/operators.h - the GPUOperator examples of Cog's documentation
 * written with fieldgraph's DSL, shared by the example programs and the
 * tests that check them. */
#ifndef FG_EXAMPLES_OPERATORS_H
#define FG_EXAMPLES_OPERATORS_H

#include "fieldgraph.h"

/* half: every tensor divided by 2 (float fields, small tensors). */
fg_field *ex_half(fg_graph *g, fg_field *in);
/* halfDouble: two outputs, in / 2 and in * 2. */
void ex_half_double(fg_graph *g, fg_field *in, fg_field **half,
                    fg_field **twice);
/* square: every tensor element squared; one operator that emits a big- or
 * a small-tensor kernel depending on the field's tensors. */
fg_field *ex_square(fg_graph *g, fg_field *v);
/* upsideDown: a 2-D field flipped vertically (non-local read). */
fg_field *ex_upside_down(fg_graph *g, fg_field *field);
/* RGBtoCIELAB: an RGB(A) or grey image of floats in [0, 1] to CIE L*a*b*
 * (vec3 f32: L, a, b), through pixelRGBtoXYZ and pixelXYZtoCIELAB. */
fg_field *ex_rgb_to_cielab(fg_graph *g, fg_field *image);
/* u8 pixels to floats in [0, 1], and back with rounding and saturation. */
fg_field *ex_to_unit_float(fg_graph *g, fg_field *img);
fg_field *ex_to_u8(fg_graph *g, fg_field *img);
/* The L channel of a Lab field as a grey u8 image (L * 2.55). */
fg_field *ex_lightness_u8(fg_graph *g, fg_field *lab);

/* identityTransform: copies a 2-D field through a work-group's tile of
 * local memory (Cog's local-memory example); rows x columns is the
 * work-group (0 x 0: the default 16 x 16). */
fg_field *ex_identity_transform(fg_graph *g, fg_field *field, int rows,
                                int columns);
/* A per-work-group counter with atomics: each thread takes a ticket with
 * atomic_inc on a local counter; after a barrier it writes
 * count * 1000 + ticket (count: the group's threads inside the field). */
fg_field *ex_group_tickets(fg_graph *g, fg_shape shape, int rows,
                           int columns);

#endif
