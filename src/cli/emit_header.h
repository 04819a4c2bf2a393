/*
 * emit_header.h — `kcc compile --emit=header`: a C header embedding a compiled module
 * (its PTX, optionally a cubin, and its source) with a typed launch function per kernel.
 * Used by the kcc driver (main.c) only; docs/cli.md describes the header's contents.
 */
#ifndef KCC_EMIT_HEADER_H
#define KCC_EMIT_HEADER_H

#include <stddef.h>

#include "compile.h"

/* What the header records about the compilation that made it. */
typedef struct hdr_options {
  const char *input;             /* the source's path as given; "-" for standard input */
  const char *stem;              /* its file name without directory or ".k", non-empty
                                    ("add" for "dir/add.k"): as a C identifier, the prefix
                                    of every name the header defines (add_load,
                                    add_<kernel>_launch) */
  const char *source;            /* the source's text (source_len bytes), embedded for contexts
                                    that cannot load PTX (the CPU compiles it) */
  size_t source_len;
  const char *const *sigs;       /* the --sig signatures, passed on to that compilation */
  int nsigs;
  int arch;                      /* sm version the PTX (and the cubin) are for, e.g. 80 */
  int opt_level;                 /* 0..3, also for the CPU's compilation */
  int bounds_check;              /* 1: the CPU's compilation checks indices */
  int fastmath;                  /* 1: the CPU's compilation uses fast maths */
  const char *cubin;             /* GPU machine code for arch, or NULL for none */
  size_t cubin_len;
} hdr_options;

/* The header for out (a KCC_EMIT_PTX compilation). Returns the text (malloc'd, *len
 * bytes, NUL-terminated), or NULL when memory runs out. */
char *hdr_make(const hdr_options *o, const kcc_output *out, size_t *len);

#endif
