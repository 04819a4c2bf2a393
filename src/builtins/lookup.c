/*
 * lookup.c — finding a row in a builtin registry (builtin.h). A path is looked up once
 * per use in the source, so a linear scan of ~250 rows (their first characters compared
 * first) costs less than building an index would: about 0.3% of compiling a small kernel.
 * This file reads the registry it is given and names no family, so type inference and
 * code generation, which call it, do not depend on the family files that call them.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

static const builtin *find_in(const builtin *rows, const char *path) {
  for (const builtin *b = rows; b->path; b++)
    if (b->path[0] == path[0] && strcmp(b->path, path) == 0) return b;
  return NULL;
}

const builtin *builtin_find(const builtin_registry *r, const char *path) {
  for (const builtin_prefixed *p = r->prefixed; p->prefix; p++)
    if (strncmp(path, p->prefix, strlen(p->prefix)) == 0) return find_in(p->rows, path);
  for (const builtin_family *f = r->families; f->name; f++) {
    const builtin *b = find_in(f->rows, path);
    if (b) return b;
  }
  return NULL;
}

const builtin *builtin_attribute(const builtin_registry *r, const type *t, const char *name) {
  char path[64];
  if ((size_t)snprintf(path, sizeof path, ".%s", name) >= sizeof path) return NULL;
  const builtin *b = builtin_find(r, path);
  if (!b || b->kind != BK_ATTRIBUTE) return NULL;
  return (b->flags & BF_ARRAY_METHOD) && t->kind == TY_ARRAY ? b : NULL;
}

const char *builtin_user_name(const builtin *b) {
  return strncmp(b->path, "numba.", 6) == 0 ? b->path + 6 : b->path;
}

builtin_lowering builtin_lowering_for(const builtin *b, bool host) {
  return host && b->lower_host ? b->lower_host : b->lower;
}
