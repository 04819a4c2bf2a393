/*
 * registry.c — kcc's builtin registry: the list of families (each family's table lives
 * in its own file, builtin.h), the tables reached by prefix, and the rows the language
 * reaches other than by a path. compile.c hands it to type inference; lookup.c searches it.
 */
#include "builtin.h"

static const builtin_family families[] = {
  {"modules", builtins_modules}, {"threads", builtins_threads}, {"sync", builtins_sync},
  {"atomics", builtins_atomics}, {"warp", builtins_warp},       {"bits", builtins_bits},
  {"memory", builtins_memory},   {"math", builtins_math},       {"complex", builtins_complex},
  {"fp16", builtins_fp16},       {"python", builtins_python},   {"print", builtins_print},
  {"numpy", builtins_numpy},     {"coop", builtins_coop},       {"dtypes", builtins_dtypes},
  {"arrays", builtins_arrays},   {"module_arrays", builtins_module_arrays},
  {"cache_hints", builtins_cache_hints}, {"bf16", builtins_bf16},
  {"operators", builtins_operators},
  {NULL, NULL},
};

/* Rows reached only under their prefix: the 300 of libdevice neither lengthen the
 * lookup of every other name nor count as a family (each family's builtins need a line
 * of docs/language.md; test_builtins checks these apart). */
static const builtin_prefixed prefixed[] = {
  {"numba.cuda.libdevice", builtins_libdevice},
  {NULL, NULL},
};

static const builtin_registry registry = {
  .families = families,
  .prefixed = prefixed,
  .type_cast = &builtin_type_cast,
  .vector_ctor = &builtin_vector_ctor,
};

const builtin_registry *kcc_builtins(void) { return &registry; }
