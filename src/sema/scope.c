/*
 * scope.c — what a name means in type inference: a local of the function being typed, a
 * module constant, a function, or an alias of a dotted path (bound by imports, resolve.c,
 * or one of the names a kernel file may use without importing: cuda, math, np ...), and
 * the builtin path a name/attribute chain spells ("cuda.grid" -> "numba.cuda.grid").
 * Python's scoping as kcc has it: function locals, then module level, then builtins.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "typing.h"

/* Names bound without an import: Numba code always imports them, but we let a kernel
 * file stand alone. */
static const alias default_aliases[] = {
  {"cuda", "numba.cuda"}, {"math", "math"}, {"numba", "numba"}, {"types", "numba.types"},
  {"vectorize", "numba.vectorize"}, {"guvectorize", "numba.guvectorize"}, {"jit", "numba.jit"},
  {"np", "numpy"}, {"cmath", "cmath"},
};

/* A scalar type spelled by a path: "float32", "numba.float32", "numba.types.int32",
 * "numpy.float64". */
const type *ix_type_from_path(const char *path) {
  /* numba-cuda also exports the scalar types from numba.cuda (and bfloat16 from
     numba.cuda.bf16) */
  static const char *const prefixes[] = {"numba.types.", "numba.cuda.types.", "numba.cuda.bf16.",
                                         "numba.cuda.", "numba.", "numpy.", ""};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(path, prefixes[i], n) == 0 && !strchr(path + n, '.'))
      return type_from_name(path + n);
  }
  return NULL;
}

/* The dotted path a module-level name stands for, or NULL. */
const char *ix_alias_path(infer_ctx *ic, const char *name) {
  for (int i = ic->aliases.len - 1; i >= 0; i--) {
    alias *al = ic->aliases.items[i];
    if (strcmp(al->name, name) == 0) return al->path;
  }
  for (size_t i = 0; i < sizeof default_aliases / sizeof default_aliases[0]; i++)
    if (strcmp(default_aliases[i].name, name) == 0) return default_aliases[i].path;
  if (builtin_find(ic->builtins, name) || type_from_name(name)) return name;
  return NULL;
}

symbol *ix_find_local(fn_instance *f, const char *name) {
  if (!f) return NULL;
  for (int i = 0; i < f->locals.len; i++) {
    symbol *s = f->locals.items[i];
    if (strcmp(s->name, name) == 0) return s;
  }
  return NULL;
}

symbol *ix_find_const(infer_ctx *ic, const char *name) {
  for (int i = 0; i < ic->consts.len; i++) {
    symbol *s = ic->consts.items[i];
    if (strcmp(s->name, name) == 0) return s;
  }
  return NULL;
}

func_def *ix_find_func(infer_ctx *ic, const char *name) {
  for (int i = 0; i < ic->prog->funcs.len; i++) {
    func_def *f = ic->prog->funcs.items[i];
    if (strcmp(f->name, name) == 0) return f;
  }
  return NULL;
}

/* The builtin path of a name/attribute chain whose root is not a value ("cuda.grid" ->
 * "numba.cuda.grid"), or NULL when the root is a local, constant or function. */
const char *ix_dotted_path(infer_ctx *ic, const node *e) {
  if (e->kind == N_NAME) {
    if (ix_find_local(ic->cur, e->str) || ix_find_const(ic, e->str) || ix_find_func(ic, e->str))
      return NULL;
    return ix_alias_path(ic, e->str);
  }
  if (e->kind == N_ATTR) {
    const char *base = ix_dotted_path(ic, e->a);
    /* CuPy's scalar types are NumPy's own (cp.float32 is np.float32), and Numba
       resolves them so; the rest of CuPy is host Python */
    if (base && strcmp(base, "host:cupy") == 0 && type_from_name(e->str))
      return arena_printf(ic->ar, "numpy.%s", e->str);
    return base ? arena_printf(ic->ar, "%s.%s", base, e->str) : NULL;
  }
  return NULL;
}

void ix_forget_const(infer_ctx *ic, const char *name) {
  for (int i = 0; i < ic->consts.len; i++) {
    symbol *s = ic->consts.items[i];
    if (strcmp(s->name, name) != 0) continue;
    ic->consts.items[i] = ic->consts.items[--ic->consts.len];
    return;
  }
}

/* Bind a module-level name to a dotted path (an import; later bindings win: an alias
 * replaces a constant of the same name, as in Python: cuda = None, then try: from
 * numba import cuda). */
void ix_bind_alias(infer_ctx *ic, const char *name, const char *path) {
  ix_forget_const(ic, name);
  alias *al = arena_alloc(ic->ar, sizeof *al);
  al->name = name;
  al->path = path;
  vec_push(ic->ar, &ic->aliases, al);
}
