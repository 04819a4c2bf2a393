/*
 * records.c — record (structured) dtypes: NumPy's layout of fields (packed, or C
 * alignment with align=True), Numba's name of a record (numba/core/types/npytypes.py:
 * Record, NestedArray), and the parser of that name, which --sig and the runtime's
 * kernel tables use. Front end only: no LLVM, no inference.
 */
#include "records.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signature.h"

int64_t rec_scalar_size(const type *t) {
  switch (t->kind) {
  case TY_BOOL: return 1;
  case TY_INT: case TY_FLOAT: case TY_COMPLEX: return t->bits / 8;
  case TY_RECORD: return t->rec->size;
  default: return 0;
  }
}

int64_t rec_field_size(const rec_field *f) {
  const type *el = f->ty->kind == TY_ARRAY ? f->ty->elem : f->ty;
  int64_t n = rec_scalar_size(el);
  for (int k = 0; k < f->ndim; k++)
    if (f->shape[k] < 0 || __builtin_mul_overflow(n, f->shape[k], &n)) return INT64_MAX;
  return n;
}

/* NumPy's alignment of a field: a number's size (a complex's part's), a record's own,
 * a nested array's element's. */
static int field_align(const rec_field *f) {
  const type *el = f->ty->kind == TY_ARRAY ? f->ty->elem : f->ty;
  if (el->kind == TY_RECORD) return el->rec->align;
  if (el->kind == TY_COMPLEX) return el->bits / 16;
  return (int)rec_scalar_size(el);
}

static int64_t lowbit(int64_t v) { return v ? v & -v : 1 << 30; }

static int min_align(int64_t a, int64_t b) { return (int)(a < b ? a : b); }

static int by_offset(const void *x, const void *y) {
  const rec_field *a = x, *b = y;
  if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* "float32", "nestedarray(float32, (3,))", "Record(...)": Numba's str of a field type */
static const char *field_type_name(arena *a, const rec_field *f) {
  if (f->ty->kind != TY_ARRAY) return type_name(a, f->ty);
  const char *s = "(";
  for (int k = 0; k < f->ndim; k++)
    s = arena_printf(a, "%s%s%lld", s, k ? ", " : "", (long long)f->shape[k]);
  return arena_printf(a, "nestedarray(%s, %s%s)", type_name(a, f->ty->elem), s,
                      f->ndim == 1 ? ",)" : ")");
}

static const char *layout_name(arena *a, const rec_layout *l) {
  const char *s = "Record(";
  for (int i = 0; i < l->nfields; i++)
    s = arena_printf(a, "%s%s%s[type=%s;offset=%lld]", s, i ? "," : "", l->fields[i].name,
                     field_type_name(a, &l->fields[i]), (long long)l->fields[i].offset);
  return arena_printf(a, "%s;%lld;%s)", s, (long long)l->size, l->aligned ? "True" : "False");
}

const type *rec_make(arena *a, rec_field *fields, int n, int64_t size, bool aligned) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (strcmp(fields[i].name, fields[j].name) == 0) return NULL;
  qsort(fields, (size_t)n, sizeof *fields, by_offset);
  rec_layout *l = arena_alloc(a, sizeof *l);
  type *t = arena_alloc(a, sizeof *t);
  l->nfields = n;
  l->fields = fields;
  l->size = size;
  l->aligned = aligned;
  l->align = 1;
  for (int i = 0; aligned && i < n; i++)
    if (field_align(&fields[i]) > l->align) l->align = field_align(&fields[i]);
  l->ptr_align = min_align(16, lowbit(size));
  l->name = layout_name(a, l);
  t->kind = TY_RECORD;
  t->rec = l;
  return t;
}

const type *rec_layout_numpy(arena *a, rec_field *fields, int n, bool align) {
  int64_t off = 0;
  int maxal = 1;
  for (int i = 0; i < n; i++) {
    int al = align ? field_align(&fields[i]) : 1;
    if (al > maxal) maxal = al;
    off = (off + al - 1) / al * al;
    fields[i].offset = off;
    off += rec_field_size(&fields[i]);
  }
  if (align) off = (off + maxal - 1) / maxal * maxal;
  return rec_make(a, fields, n, off, align);
}

const rec_field *rec_find(const type *r, const char *name) {
  for (int i = 0; i < r->rec->nfields; i++)
    if (strcmp(r->rec->fields[i].name, name) == 0) return &r->rec->fields[i];
  return NULL;
}

int rec_field_align(const type *r, const rec_field *f) {
  const type *el = f->ty->kind == TY_ARRAY ? f->ty->elem : f->ty;
  int64_t nat = el->kind == TY_COMPLEX ? el->bits / 16 : rec_scalar_size(el);
  if (el->kind == TY_RECORD) nat = 16;
  return min_align(min_align(nat, r->rec->ptr_align), lowbit(f->offset));
}

bool rec_field_aligned(const type *r, const rec_field *f) {
  const type *el = f->ty->kind == TY_ARRAY ? f->ty->elem : f->ty;
  int64_t nat = el->kind == TY_COMPLEX ? el->bits / 16 : rec_scalar_size(el);
  return el->kind == TY_RECORD || rec_field_align(r, f) >= nat;
}

const type *rec_nested(arena *a, const type *r, int64_t off, int outer_align) {
  int al = min_align(min_align(outer_align, lowbit(off)), r->rec->ptr_align);
  if (al == r->rec->ptr_align) return r;
  rec_layout *l = arena_alloc(a, sizeof *l);
  type *t = arena_alloc(a, sizeof *t);
  *l = *r->rec;
  l->ptr_align = al;
  *t = *r;
  t->rec = l;
  return t;
}

bool rec_equal(const type *a, const type *b) {
  return a->rec->ptr_align == b->rec->ptr_align && strcmp(a->rec->name, b->rec->name) == 0;
}

const char *rec_field_list(arena *a, const type *r) {
  const char *s = "";
  for (int i = 0; i < r->rec->nfields; i++)
    s = arena_printf(a, "%s%s'%s'", s, i ? ", " : "", r->rec->fields[i].name);
  return s;
}

/* ---- parsing Numba's spelling ------------------------------------------------------------ */

typedef struct rp {
  arena *a;
  const char *t;
  size_t pos;
  char *err;
  size_t errlen;
  bool failed;
} rp;

static void rp_fail(rp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void rp_fail(rp *p, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = true;
  if (!p->err || !p->errlen) return;
  int n = snprintf(p->err, p->errlen, "column %zu: ", p->pos + 1);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < p->errlen) vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
  va_end(ap);
}

static void rp_space(rp *p) {
  while (p->t[p->pos] == ' ') p->pos++;
}

static bool rp_lit(rp *p, const char *s) {
  rp_space(p);
  size_t n = strlen(s);
  if (strncmp(p->t + p->pos, s, n) != 0) {
    rp_fail(p, "expected '%s' in a Record type", s);
    return false;
  }
  p->pos += n;
  return true;
}

static bool rp_peek(rp *p, const char *s) {
  rp_space(p);
  return strncmp(p->t + p->pos, s, strlen(s)) == 0;
}

static const char *rp_ident(rp *p) {
  rp_space(p);
  size_t n = 0;
  while (isalnum((unsigned char)p->t[p->pos + n]) || p->t[p->pos + n] == '_') n++;
  if (!n) {
    rp_fail(p, "expected a name in a Record type");
    return NULL;
  }
  const char *s = arena_strndup(p->a, p->t + p->pos, n);
  p->pos += n;
  return s;
}

static bool rp_int(rp *p, int64_t *v) {
  rp_space(p);
  char *end;
  long long x = strtoll(p->t + p->pos, &end, 10);
  if (end == p->t + p->pos || x < 0) {
    rp_fail(p, "expected a number in a Record type");
    return false;
  }
  p->pos = (size_t)(end - p->t);
  *v = x;
  return true;
}

static const type *rp_record(rp *p);

static const type *rp_scalar(rp *p) {
  size_t at = p->pos;
  const char *n = rp_ident(p);
  int d = n ? sig_dtype_from_name(n, strlen(n)) : -1;
  if (n && d < 0) {
    p->pos = at;
    rp_fail(p, "unknown field type '%s'", n);
  }
  return d < 0 ? NULL : type_from_dtype((kc_dtype)d);
}

/* nestedarray(float32, (3,)) or (2, 3) */
static bool rp_nested(rp *p, rec_field *f) {
  const type *el = rp_scalar(p);
  if (!el || !rp_lit(p, ",") || !rp_lit(p, "(")) return false;
  for (;;) {
    if (f->ndim == KC_MAX_DIMS) {
      rp_fail(p, "nested arrays have at most %d dimensions", KC_MAX_DIMS);
      return false;
    }
    if (!rp_int(p, &f->shape[f->ndim])) return false;
    f->ndim++;
    if (rp_peek(p, ",")) p->pos++;
    if (rp_peek(p, ")")) break;
  }
  p->pos++;
  f->ty = type_array(p->a, el, f->ndim);
  return rp_lit(p, ")");
}

static bool rp_field_type(rp *p, rec_field *f) {
  rp_space(p);
  if (rp_peek(p, "Record(")) return (f->ty = rp_record(p)) != NULL;
  if (rp_peek(p, "nestedarray(")) {
    p->pos += strlen("nestedarray(");
    return rp_nested(p, f);
  }
  return (f->ty = rp_scalar(p)) != NULL;
}

/* name[type=T;offset=N] with Numba's optional ;alignment=N or ;title=... ignored */
static bool rp_field(rp *p, rec_field *f) {
  memset(f, 0, sizeof *f);
  if (!(f->name = rp_ident(p)) || !rp_lit(p, "[type=") || !rp_field_type(p, f) ||
      !rp_lit(p, ";offset=") || !rp_int(p, &f->offset))
    return false;
  while (p->t[p->pos] && p->t[p->pos] != ']') p->pos++;
  return rp_lit(p, "]");
}

static const type *rp_record(rp *p) {
  ptr_vec fs = {0};
  if (!rp_lit(p, "Record(")) return NULL;
  while (!rp_peek(p, ";")) {
    rec_field *f = arena_alloc(p->a, sizeof *f);
    if (!rp_field(p, f)) return NULL;
    vec_push(p->a, &fs, f);
    if (rp_peek(p, ",")) p->pos++;
    else if (!rp_peek(p, ";")) {
      rp_fail(p, "expected ',' or ';' in a Record type");
      return NULL;
    }
  }
  int64_t size;
  p->pos++;
  if (!rp_int(p, &size) || !rp_lit(p, ";")) return NULL;
  bool aligned = rp_peek(p, "True");
  if (!aligned && !rp_peek(p, "False")) {
    rp_fail(p, "expected True or False (aligned) in a Record type");
    return NULL;
  }
  p->pos += aligned ? 4 : 5;
  if (!rp_lit(p, ")")) return NULL;
  rec_field *arr = arena_alloc(p->a, sizeof *arr * (size_t)(fs.len + 1));
  for (int i = 0; i < fs.len; i++) {
    arr[i] = *(rec_field *)fs.items[i];
    if (arr[i].offset + rec_field_size(&arr[i]) > size) {
      rp_fail(p, "field '%s' does not fit in the record's %lld bytes", arr[i].name,
              (long long)size);
      return NULL;
    }
  }
  const type *r = rec_make(p->a, arr, fs.len, size, aligned);
  if (!r) rp_fail(p, "two fields of a Record have the same name");
  return r;
}

const type *rec_parse(arena *a, const char *text, size_t *pos, char *err, size_t errlen) {
  rp p = {a, text, *pos, err, errlen, false};
  const type *r = rp_record(&p);
  *pos = p.pos;
  return p.failed ? NULL : r;
}
