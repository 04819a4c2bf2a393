/*
 * vector_types.c — the names of CUDA's vector types. numba-cuda makes, for each of
 * int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 and each count 1
 * to 4, a type `<base>x<count>` with fields x, y, z, w, and CUDA C's aliases of each
 * (`char`, `short`, `int`, `long`, `longlong`, `uchar` ... `float`, `double` followed
 * by the count, the C types' sizes on Linux: long is 64 bits). Front end only.
 */
#include "vector_types.h"

#include <stdlib.h>
#include <string.h>

#define VEC(el, n) {.kind = TY_VECTOR, .elem = &el, .nelems = (n)}
#define VEC4(el) {VEC(el, 1), VEC(el, 2), VEC(el, 3), VEC(el, 4)}

static const type vec_types[][4] = {
  VEC4(ty_i8), VEC4(ty_i16), VEC4(ty_i32), VEC4(ty_i64),
  VEC4(ty_u8), VEC4(ty_u16), VEC4(ty_u32), VEC4(ty_u64),
  VEC4(ty_f32), VEC4(ty_f64),
};

static const struct { const char *base, *alias; int row; } vec_bases[] = {
  {"int8", "char", 0},     {"int16", "short", 1},    {"int32", "int", 2},
  {"int64", "long", 3},    {"int64", "longlong", 3}, {"uint8", "uchar", 4},
  {"uint16", "ushort", 5}, {"uint32", "uint", 6},    {"uint64", "ulong", 7},
  {"uint64", "ulonglong", 7}, {"float32", "float", 8}, {"float64", "double", 9},
};

/* name (without "numba.cuda.") is prefix + "x"? + one digit 1..4 */
static const type *match(const char *name, const char *prefix, bool with_x, int row) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) != 0) return NULL;
  name += n;
  if (with_x && *name++ != 'x') return NULL;
  if (name[0] < '1' || name[0] > '4' || name[1]) return NULL;
  return &vec_types[row][name[0] - '1'];
}

const type *vec_type_from_path(const char *path) {
  static const char mod[] = "numba.cuda.";
  if (strncmp(path, mod, sizeof mod - 1) != 0) return NULL;
  const char *name = path + sizeof mod - 1;
  for (size_t i = 0; i < sizeof vec_bases / sizeof vec_bases[0]; i++) {
    const type *t = match(name, vec_bases[i].base, true, vec_bases[i].row);
    if (!t) t = match(name, vec_bases[i].alias, false, vec_bases[i].row);
    if (t) return t;
  }
  return NULL;
}
