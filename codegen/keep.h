/*
 * codegen/keep.h - the keys that `gen` keeps in its plan view (private to
 * codegen/; the declarations would belong in codegen.h).
 *
 * `planwrap gen` with the built-in templates only renders templates it
 * knows: a view key that none of them names can never be looked up, so
 * gen builds the view without those keys (and their values).  The view of
 * `plan --emit view`, of user templates (--templates) and of every other
 * caller of cg_build_view_opts is complete.
 */
#ifndef PLANWRAP_CODEGEN_KEEP_H
#define PLANWRAP_CODEGEN_KEEP_H

#include <stdbool.h>
#include <stddef.h>

/* From now on, cg_build_view_opts keeps only the keys passed to
 * cg_view_keep_add (plus those it reads back itself). */
void cg_view_keep_begin(void);
void cg_view_keep_add(const char *key, size_t len);
/* Back to complete views; frees the key set. */
void cg_view_keep_end(void);

/* Adds every name looked up by any built-in template (all targets, all
 * partials) with cg_view_keep_add.  False when a built-in does not
 * compile (then nothing should be filtered). */
bool cg_builtin_names(void);

#endif /* PLANWRAP_CODEGEN_KEEP_H */
