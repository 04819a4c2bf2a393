/*
 * registry.c — the list of builtin families and lookup by path. Each family's table
 * lives in its own file (builtin.h); a path is looked up once per use in the source,
 * so a linear scan of ~250 rows (their first characters compared first) costs less
 * than building an index would: about 0.3% of compiling a small kernel.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

static const builtin_family families[] = {
  {"modules", builtins_modules}, {"threads", builtins_threads}, {"sync", builtins_sync},
  {"atomics", builtins_atomics}, {"warp", builtins_warp},       {"bits", builtins_bits},
  {"memory", builtins_memory},   {"math", builtins_math},       {"complex", builtins_complex},
  {"fp16", builtins_fp16},       {"python", builtins_python},   {"print", builtins_print},
  {"numpy", builtins_numpy},     {"coop", builtins_coop},       {"dtypes", builtins_dtypes},
  {"arrays", builtins_arrays},   {NULL, NULL},
};

/* Rows reached only under their prefix: the 300 of libdevice neither lengthen the
 * lookup of every other name nor count as a family (each family's builtins need a line
 * of docs/language.md; test_builtins checks these apart). */
static const struct { const char *prefix; const builtin *rows; } prefixed[] = {
  {"numba.cuda.libdevice", builtins_libdevice},
};

static const builtin *find_in(const builtin *rows, const char *path) {
  for (const builtin *b = rows; b->path; b++)
    if (b->path[0] == path[0] && strcmp(b->path, path) == 0) return b;
  return NULL;
}

const builtin *builtin_find(const char *path) {
  for (size_t i = 0; i < sizeof prefixed / sizeof prefixed[0]; i++)
    if (strncmp(path, prefixed[i].prefix, strlen(prefixed[i].prefix)) == 0)
      return find_in(prefixed[i].rows, path);
  for (const builtin_family *f = families; f->name; f++) {
    const builtin *b = find_in(f->rows, path);
    if (b) return b;
  }
  return NULL;
}

const builtin *builtin_attribute(const type *t, const char *name) {
  char path[64];
  if ((size_t)snprintf(path, sizeof path, ".%s", name) >= sizeof path) return NULL;
  const builtin *b = builtin_find(path);
  if (!b || b->kind != BK_ATTRIBUTE) return NULL;
  return (b->flags & BF_ARRAY_METHOD) && t->kind == TY_ARRAY ? b : NULL;
}

const builtin_family *builtin_families(void) { return families; }

const char *builtin_user_name(const builtin *b) {
  return strncmp(b->path, "numba.", 6) == 0 ? b->path + 6 : b->path;
}

builtin_lowering builtin_lowering_for(const builtin *b, bool host) {
  return host && b->lower_host ? b->lower_host : b->lower;
}
