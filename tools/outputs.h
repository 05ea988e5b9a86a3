/* tools/outputs.h - where `fieldgraph run` writes (outputs.c): save()
 * templates checked before any input runs, output names kept inside the
 * -o folder, and output names that two inputs would share found up front.
 */
#ifndef FG_TOOLS_OUTPUTS_H
#define FG_TOOLS_OUTPUTS_H

#include "tools/inputs.h"

#include <stddef.h>

/* Checks a save() template on its own, for any input: 0, or -1 with the
 * reason in err when it is empty, absolute, ends in '/', has a ".."
 * component or a field fgt_expand does not know. */
int fgt_tmpl_check(const char *tmpl, char *err, size_t errlen);

/* The name (relative to -o) tmpl gives the input at path (rel, index as
 * for fgt_expand) into out: 0, or -1 with a message in err naming the
 * input, the template and why: a {stem} or {name} of "." or ".." or with
 * a '/' in it, or an expanded name that is absolute or has a ".."
 * component (it would leave the -o folder). */
int fgt_output_name(char *out, size_t size, const char *tmpl,
                    const char *path, const char *rel, long index, char *err,
                    size_t errlen);

/* Bytes an output's temporary names add to its own: ".tmp-<index>" and
 * its extension, then fgu_atomic's ".tmp-XXXXXX". */
enum { FGT_TMP_ROOM = 40 };

/* Creates the folders of name (relative to the folder outdir, which
 * exists) one component at a time below outdir, never through a
 * symbolic link (O_NOFOLLOW): 0, or -1 with a message in err naming the
 * output, the component and why (a symbolic link or a file where a folder
 * belongs, or mkdir's error), so a link planted inside -o cannot lead an
 * output out of it.  A file name longer than NAME_MAX - FGT_TMP_ROOM is
 * refused too: its temporary names would not fit. */
int fgt_output_dir_make(const char *outdir, const char *name, char *err,
                        size_t errlen);

/* Finds output names that two inputs of in (or two saves of one input)
 * would share, index i of in->items expanding with {index} i: 0 when
 * none; -1 with a message in err listing the first colliding inputs, the
 * name and the template fields that tell them apart.  Inputs that
 * fgt_output_name refuses are left out (they fail on their own). */
int fgt_outputs_collide(const fgt_inputs *in, const char *const *tmpls,
                        int n_tmpls, char *err, size_t errlen);

/* Removes the temporaries that a writer of path killed while writing left
 * beside it (path.tmp-*).  */
void fgt_remove_stale_temporaries(const char *path);

#endif
