/*
 * infer_records.c — record dtypes in type inference: the module-level declarations
 * (`rec = np.dtype([('x', np.float32), ...], align=True)`, `rec_t = from_dtype(rec)`,
 * folded to record types), record types in signatures and --sig, and field access
 * (`r.x`, `a[i].x = v`, `a[i].v[k]` on a nested array), and a CUDA vector's fields. A record read from an array is
 * a reference to the element, as in Numba: `r = a[i]; r.x = v` writes the array.
 */
#include <string.h>

#include "records.h"
#include "typing.h"

/* A folded constant that is a record type: node->aux REC_CONST, node->ty the record,
 * node->ival 0 for the NumPy dtype (np.dtype) and 1 for the Numba type (from_dtype). */
#define REC_CONST 0x5245

const type *ix_record_const(const node *v, bool *is_numba_type) {
  if (!v || v->kind != N_NONE || v->aux != REC_CONST) return NULL;
  if (is_numba_type) *is_numba_type = v->ival == 1;
  return v->ty;
}

static node *rec_const(infer_ctx *ic, const type *r, int numba_type, span sp) {
  node *n = node_new(ic->ar, N_NONE, sp);
  n->aux = REC_CONST;
  n->ty = r;
  n->ival = numba_type;
  return n;
}

/* ---- np.dtype([...]) --------------------------------------------------------------------- */

/* 'f4', '<f4', 'float32', 'i8' ...: NumPy's type strings for numbers (byte order marks
 * accepted for little-endian and native only). */
static const type *dtype_string(const char *s) {
  if (s[0] == '<' || s[0] == '=' || s[0] == '|') s++;
  return type_from_name(s);
}

static bool shape_of(infer_ctx *ic, node *e, rec_field *f) {
  node_list single = {&e, 1, 1};
  node_list *dims = e->kind == N_TUPLE ? &e->list : &single;
  if (dims->len < 1 || dims->len > REC_MAX_NDIM) {
    ix_error(ic, e->sp, "a nested array in a record has 1 to %d dimensions", REC_MAX_NDIM);
    return false;
  }
  for (int k = 0; k < dims->len; k++) {
    int64_t v;
    if (!ix_const_int(ic, dims->items[k], &v) || v < 1) {
      ix_error(ic, dims->items[k]->sp, "a nested array's extents are positive integer "
           "constants, e.g. ('v', np.float32, (3,))");
      return false;
    }
    f->shape[k] = v;
  }
  f->ndim = dims->len;
  f->ty = type_array(ic->ar, f->ty, f->ndim);
  if (rec_field_size(f) > REC_MAX_FIELD_BYTES) {   /* (2**32, 2**32) wrapped to 0 */
    ix_error(ic, e->sp, "nested array '%s' is larger than a record can be (%d MiB)", f->name,
             REC_MAX_FIELD_BYTES >> 20);
    return false;
  }
  return true;
}

/* A field's format: np.float32, 'f4', another record dtype, or (format, shape). */
static bool field_format(infer_ctx *ic, node *e, rec_field *f) {
  if (e->kind == N_TUPLE && e->list.len == 2)
    return field_format(ic, e->list.items[0], f) && f->ty->kind != TY_ARRAY &&
           shape_of(ic, e->list.items[1], f);
  const type *t = NULL;
  if (e->kind == N_STR) {
    t = dtype_string(e->str);
  } else if (e->kind == N_NAME && ix_find_const(ic, e->str)) {
    t = ix_record_const(ix_find_const(ic, e->str)->value, NULL);
  } else {
    const char *p = ix_dotted_path(ic, e);
    t = p ? ix_type_from_path(p) : NULL;
  }
  if (!t || t->kind == TY_VOID) {
    ix_error(ic, e->sp, "a record field's type is a NumPy number type (np.float32, 'f4'), "
         "another record dtype, or (type, shape) for a nested array");
    return false;
  }
  f->ty = t;
  return true;
}

/* ('name', format) or ('name', format, shape) */
static bool ascii_identifier(const char *s) {
  if (!s[0] || (s[0] >= '0' && s[0] <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return false;
  return true;
}

static bool dtype_field(infer_ctx *ic, node *e, rec_field *f) {
  memset(f, 0, sizeof *f);
  if (e->kind != N_TUPLE || e->list.len < 2 || e->list.len > 3 ||
      ((node *)e->list.items[0])->kind != N_STR) {
    ix_error(ic, e->sp, "a record field is ('name', type) or ('name', type, shape)");
    return false;
  }
  f->name = ((node *)e->list.items[0])->str;
  if (!ascii_identifier(f->name)) {
    /* the name travels in Numba's Record spelling and in the PTX's kernel table, which
       ptxas reads as ASCII, and whose , ; [ ] = would cut the spelling */
    ix_error(ic, ((node *)e->list.items[0])->sp, "record field name '%s': kcc takes field "
             "names made of ASCII letters, digits and _ (not starting with a digit)", f->name);
    return false;
  }
  if (!field_format(ic, e->list.items[1], f)) return false;
  if (e->list.len == 3) {
    if (f->ty->kind == TY_ARRAY) {
      ix_error(ic, e->sp, "field '%s' has two shapes", f->name);
      return false;
    }
    return shape_of(ic, e->list.items[2], f);
  }
  return true;
}

static bool align_keyword(infer_ctx *ic, node *e, bool *align) {
  *align = false;
  for (int i = 0; i < e->kwargs.len; i++) {
    node *kw = e->kwargs.items[i];
    if (strcmp(kw->str, "align") != 0 || kw->a->kind != N_BOOL) {
      ix_error(ic, kw->sp, "np.dtype takes only align=True or align=False here");
      return false;
    }
    *align = kw->a->ival != 0;
  }
  return true;
}

static node *fold_np_dtype(infer_ctx *ic, node *e) {
  bool align;
  node *spec = e->list.len >= 1 ? e->list.items[0] : NULL;
  if (!align_keyword(ic, e, &align)) return NULL;
  if (e->list.len == 2 && ((node *)e->list.items[1])->kind == N_BOOL)
    align = ((node *)e->list.items[1])->ival != 0;
  else if (e->list.len != 1)
    spec = NULL;
  if (!spec || (spec->kind != N_LIST && spec->kind != N_TUPLE) || spec->list.len == 0) {
    ix_error(ic, e->sp, "kcc evaluates np.dtype for records: np.dtype([('x', np.float32), "
         "('y', np.int32)], align=True); a number type is written as itself (np.float32)");
    return NULL;
  }
  int n = spec->list.len;
  rec_field *fs = arena_alloc(ic->ar, sizeof *fs * (size_t)n);
  for (int i = 0; i < n; i++)
    if (!dtype_field(ic, spec->list.items[i], &fs[i])) return NULL;
  const type *r = rec_layout_numpy(ic->ar, fs, n, align);
  if (!r) {
    ix_error(ic, spec->sp, "two fields of the record have the same name");
    return NULL;
  }
  return rec_const(ic, r, 0, e->sp);
}

/* from_dtype(rec): the Numba type of a record dtype */
static node *fold_from_dtype(infer_ctx *ic, node *e) {
  node *v = e->list.len == 1 && !e->kwargs.len ? ix_fold(ic, e->list.items[0]) : NULL;
  const type *r = ix_record_const(v, NULL);
  if (!r) {
    ix_error(ic, e->sp, "kcc's from_dtype takes a record dtype made with np.dtype([...]) "
         "(for a number type, write the type itself, e.g. float32)");
    return NULL;
  }
  return rec_const(ic, r, 1, e->sp);
}

node *ix_record_fold_call(infer_ctx *ic, node *e, const builtin *b) {
  return strcmp(b->path, "numpy.dtype") == 0 ? fold_np_dtype(ic, e) : fold_from_dtype(ic, e);
}

/* In a kernel these only exist at module level. */
const type *ix_record_maker(infer_ctx *ic, node *e, const builtin *b) {
  const char *name = builtin_user_name(b);
  ix_error(ic, e->sp, "%s%s is evaluated at module level only: declare the record there "
       "(rec = np.dtype([...]); rec_t = from_dtype(rec))",
       strncmp(name, "numpy.", 6) == 0 ? "np." : "", name + (strncmp(name, "numpy.", 6) == 0 ? 6 : 0));
  return NULL;
}

/* ---- record types in signatures ------------------------------------------------------------ */

/* A module constant used as a type (rec_t in void(rec_t[:])): its record, or NULL when
 * the name is not one (an error when it is a NumPy dtype rather than a Numba type). */
const type *ix_record_annotation(infer_ctx *ic, node *base) {
  symbol *s = base->kind == N_NAME ? ix_find_const(ic, base->str) : NULL;
  bool numba_type;
  const type *r = s ? ix_record_const(s->value, &numba_type) : NULL;
  if (r && !numba_type) {
    ix_error(ic, base->sp, "'%s' is a NumPy dtype: a signature takes its Numba type, "
         "from_dtype(%s)", base->str, base->str);
    return NULL;
  }
  return r;
}

/* A record written in Numba's spelling in a signature string or --sig. */
const type *ix_sig_record(infer_ctx *ic, const char *text, size_t len, span sp) {
  char err[160];
  size_t pos = 0;
  const char *s = arena_strndup(ic->ar, text, len);
  const type *r = rec_parse(ic->ar, s, &pos, err, sizeof err);
  if (!r) ix_error(ic, sp, "bad record type '%s': %s", s, err);
  return r;
}

/* ---- fields -------------------------------------------------------------------------------- */

static const rec_field *field_of(infer_ctx *ic, node *e, const type *rt) {
  const rec_field *f = rec_find(rt, e->str);
  if (!f)
    ix_error(ic, e->sp, "record has no field '%s' (its fields: %s)", e->str,
         rec_field_list(ic->ar, rt));
  return f;
}

/* r.x: a number, a nested record (a reference into r), or a nested array (a view). */
const type *ix_record_field(infer_ctx *ic, node *e, const type *rt) {
  const rec_field *f = field_of(ic, e, rt);
  if (!f) return NULL;
  if (f->ty->kind == TY_RECORD)
    return ix_set_type(e, rec_nested(ic->ar, f->ty, f->offset, rt->rec->ptr_align), false);
  if (f->ty->kind == TY_ARRAY && !rec_field_aligned(rt, f)) {
    /* its elements are indexed as any array's, at their natural alignment */
    ix_error(ic, e->sp, "nested array '%s' is not aligned for its %s elements in this packed "
         "record (offset %lld): declare the dtype with align=True, or read whole fields",
         f->name, ix_tname(ic, f->ty->elem), (long long)f->offset);
    return NULL;
  }
  return ix_set_type(e, f->ty, false);
}

/* v.x, v.y, v.z, v.w of a CUDA vector (builtins/vectors.c): e->aux the element. */
const type *ix_vector_field(infer_ctx *ic, node *e, const type *vt) {
  static const char *const fields[] = {"x", "y", "z", "w"};
  for (int k = 0; k < vt->nelems; k++)
    if (strcmp(e->str, fields[k]) == 0) {
      e->aux = k;
      return ix_set_type(e, vt->elem, false);
    }
  ix_error(ic, e->sp, "%s has no attribute '%s' (its fields: %.*s)", ix_tname(ic, vt), e->str,
       3 * vt->nelems - 2, "x, y, z, w");
  return NULL;
}

static node *root_of(node *t) {
  while (t->kind == N_ATTR || t->kind == N_INDEX) t = t->a;
  return t;
}

/* A store through a record local or parameter may reach any array of records the
 * function was given (r = a[i]; r.x = v): those arrays are written. */
static void mark_record_arrays_written(infer_ctx *ic) {
  fn_instance *f = ic->cur;
  for (int i = 0; f && i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY && t->elem->kind == TY_RECORD) mark_param_written(f, i);
  }
}

/* The effect of writing into a record reached by expression e. */
void ix_record_written(infer_ctx *ic, node *e) {
  node *root = root_of(e);
  symbol *s = root->kind == N_NAME ? root->sym : NULL;
  if (s && s->kind == SYM_LOCAL && s->is_param && s->ty && s->ty->kind == TY_ARRAY)
    mark_param_written(ic->cur, s->param_index);
  else
    mark_record_arrays_written(ic);
}

/* r[k] for a constant k: the record's k-th field (from the end when negative), in
 * Numba's order (by offset), e rewritten as r.name: 1; -1 after an error (k out of
 * range); 0 when e is not such an index. */
int ix_record_position(infer_ctx *ic, node *e, const type *bt) {
  int64_t k;
  if (bt->kind != TY_RECORD || !e->b || e->b->kind == N_STR || !ix_const_int(ic, e->b, &k))
    return 0;
  int n = bt->rec->nfields;
  if (k < -n || k >= n) {
    ix_error(ic, e->b->sp, "field index %lld is out of range for a record of %d fields",
             (long long)k, n);
    return -1;
  }
  e->kind = N_ATTR;
  e->str = bt->rec->fields[k < 0 ? k + n : k].name;
  e->b = NULL;
  return 1;
}

/* t as r.h[:], its place a slice of nested array field h. */
static void as_whole_slice(infer_ctx *ic, node *t) {
  node *field = node_new(ic->ar, t->kind, t->sp);
  *field = *t;
  node *all = node_new(ic->ar, N_SLICE, t->sp);
  *t = (node){.kind = N_INDEX, .sp = t->sp, .a = field, .b = all};
}

/* r.x = v, a[i].x = v (r["x"] = v, its key resolved: ix_record_key), rt the type of r
 * (NULL after an error there): a number field takes a number (converted as an array
 * element does). A nested array takes an array in a plain assignment, copied in as
 * Numba copies it: t becomes r.h[:] and true is returned, for the caller to store v
 * there as into any slice (its shape checked so); a number is refused there, as Numba
 * refuses it. A nested record is written field by field. */
bool ix_record_store(infer_ctx *ic, node *t, const type *rt, const type *vt, bool plain) {
  if (!rt) return false;
  if (rt->kind == TY_VECTOR) {
    ix_error(ic, t->sp, "the fields of %s are read-only, as in numba-cuda: make a new vector "
         "(e.g. v = %s(...))", ix_tname(ic, rt), ix_tname(ic, rt));
    return false;
  }
  if (rt->kind != TY_RECORD) {
    ix_error(ic, t->sp, "cannot assign to an attribute of %s", ix_tname(ic, rt));
    return false;
  }
  const rec_field *f = field_of(ic, t, rt);
  if (!f) return false;
  t->ty = f->ty;
  ix_record_written(ic, t->a);
  if (f->ty->kind == TY_ARRAY && plain && vt && vt->kind == TY_ARRAY) {
    as_whole_slice(ic, t);
    return true;
  }
  if (f->ty->kind == TY_ARRAY) {
    ix_error(ic, t->sp, "field '%s' is a nested array: assign it an array (copied in, as "
             "Numba does) or assign its elements one by one", f->name);
    return false;
  }
  if (f->ty->kind == TY_RECORD) {
    ix_error(ic, t->sp, "field '%s' is a record: assign its fields one by one", f->name);
    return false;
  }
  if (vt && !type_is_scalar(vt))
    ix_error(ic, t->sp, "cannot store %s into field '%s' (%s)", ix_tname(ic, vt), f->name,
         ix_tname(ic, f->ty));
  return false;
}
