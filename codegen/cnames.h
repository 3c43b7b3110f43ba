/*
 * codegen/cnames.h - (private to codegen/) names C or C++ has taken, which
 * the view renames: see codegen/cnames.c.
 */
#ifndef PLANWRAP_CODEGEN_CNAMES_H
#define PLANWRAP_CODEGEN_CNAMES_H

#include <stdbool.h>

/* A C11 library function or macro, a type or macro of the included
 * headers, or a runtime name: a kernel with this name is renamed. */
bool cg_is_c_library_name(const char *n);
/* An object-like macro of the included headers or a GNU predefined one
 * (NULL, SIZE_MAX, INT8_MAX, linux, ...): a struct field is renamed. */
bool cg_is_header_macro(const char *n);
/* A C++ keyword (or a name nvcc's host compiler predefines): renamed in
 * CUDA output. */
bool cg_is_cxx_keyword(const char *n);
/* For tests: every list is in strcmp order. */
bool cg_cnames_sorted(void);

#endif
