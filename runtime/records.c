/*
 * records.c (runtime) — record descriptions (kc_record) and arrays of records. A
 * record's identity is Numba's spelling of it, made by the compiler's records.c from
 * the fields, so an array made here matches a kernel parameter declared in the source
 * (np.dtype + from_dtype) or in --sig exactly when Numba would call them one type.
 *
 * A nested record of the same context is shared, not copied: the new record takes a
 * reference to it (kc_record_free drops one; the last frees it), so that a chain of n
 * records each nesting the last costs O(n) per level (its spelling) rather than
 * re-parsing every level below (cubic: 800 levels took 23 s). One of another context is
 * copied through its spelling, as before.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "records.h"
#include "rt.h"
#include "signature.h"

struct kc_record {
  kc_context *ctx;
  arena ar;                 /* holds the layout */
  const type *t;            /* TY_RECORD */
  atomic_int refs;          /* the caller's, and one per record nesting this one */
  kc_record **holds;        /* the nested records whose types t shares (arena) */
  int nholds;
};

static bool is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return false;
  return true;
}

/* One field into the record's arena; NULL with the context's error set. */
static kc_status make_field(kc_record *r, const kc_record_field *in, int i, size_t size,
                            rec_field *f) {
  kc_context *ctx = r->ctx;
  if (!is_identifier(in->name))
    return rt_error(ctx, KC_ERR_INVALID, "record: field %d's name is not an identifier", i);
  if (in->dtype == KC_RECORD ? !in->record : (unsigned)in->dtype >= KC_DTYPE_COUNT)
    return rt_error(ctx, KC_ERR_INVALID, "record: field '%s' has %s", in->name,
                    in->dtype == KC_RECORD ? "no nested record" : "an unknown dtype");
  if (in->ndim < 0 || in->ndim > REC_MAX_NDIM)
    return rt_error(ctx, KC_ERR_INVALID, "record: field '%s': ndim is 0..%d", in->name,
                    REC_MAX_NDIM);
  f->name = arena_strdup(&r->ar, in->name);
  f->offset = (int64_t)in->offset;
  if (in->dtype == KC_RECORD && in->record->ctx == ctx && in->record->t) {
    kc_record *nested = (kc_record *)in->record;   /* shared: its count is not the value */
    atomic_fetch_add(&nested->refs, 1);
    r->holds[r->nholds++] = nested;
    f->ty = nested->t;
  } else if (in->dtype == KC_RECORD) {
    size_t pos = 0;
    f->ty = rec_parse(&r->ar, kc_record_spelling(in->record), &pos, NULL, 0);
  } else {
    f->ty = type_from_dtype(in->dtype);
  }
  for (int k = 0; k < in->ndim; k++) {
    if (in->shape[k] < 1)
      return rt_error(ctx, KC_ERR_INVALID, "record: field '%s': extent %d is not positive",
                      in->name, k);
    f->shape[k] = in->shape[k];
  }
  f->ndim = in->ndim;
  if (f->ndim) f->ty = type_array(&r->ar, f->ty, f->ndim);
  if (in->offset > size || (size_t)rec_field_size(f) > size - in->offset)
    return rt_error(ctx, KC_ERR_INVALID, "record: field '%s' (%lld bytes at offset %zu) "
                    "does not fit in %zu bytes", in->name, (long long)rec_field_size(f),
                    in->offset, size);
  return KC_OK;
}

static kc_status build(kc_record *r, const kc_record_field *fields, int n, size_t size,
                       int aligned) {
  rec_field *fs = arena_alloc(&r->ar, sizeof *fs * (size_t)n);
  r->holds = arena_alloc(&r->ar, sizeof *r->holds * (size_t)n);
  for (int i = 0; i < n; i++) {
    kc_status s = make_field(r, &fields[i], i, size, &fs[i]);
    if (s != KC_OK) return s;
  }
  r->t = rec_make(&r->ar, fs, n, (int64_t)size, aligned != 0);
  if (!r->t) return rt_error(r->ctx, KC_ERR_INVALID, "record: two fields have one name");
  return KC_OK;
}

kc_status kc_record_new(kc_context *ctx, const kc_record_field *fields, int nfields,
                        size_t size, int aligned, kc_record **out) {
  RT_NEED(NULL, ctx, "kc_record_new");
  RT_NEED(ctx, out, "kc_record_new");
  RT_NEED(ctx, fields, "kc_record_new");
  *out = NULL;
  if (!fields || nfields < 1)
    return rt_error(ctx, KC_ERR_INVALID, "record: it needs at least one field");
  kc_record *r = rt_calloc(ctx, 1, sizeof *r);
  if (!r) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  r->ctx = ctx;
  atomic_init(&r->refs, 1);
  arena_init(&r->ar, ctx->cfg.alloc, ctx->cfg.user_data);
  jmp_buf oom;
  kc_status s;
  if (setjmp(oom) == 0) {
    arena_set_oom(&r->ar, &oom);
    s = build(r, fields, nfields, size, aligned);
  } else {
    s = rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  }
  arena_set_oom(&r->ar, NULL);
  if (s != KC_OK) {
    kc_record_free(r);
    return s;
  }
  *out = r;
  return KC_OK;
}

void kc_record_free(kc_record *r) {
  if (!r || atomic_fetch_sub(&r->refs, 1) > 1) return;
  for (int i = 0; i < r->nholds; i++) kc_record_free(r->holds[i]);
  arena_free(&r->ar);
  rt_free(r->ctx, r, sizeof *r);
}

const char *kc_record_spelling(const kc_record *r) {
  return r && r->t ? r->t->rec->name : "";
}

size_t kc_record_size(const kc_record *r) { return r && r->t ? (size_t)r->t->rec->size : 0; }

kc_status kc_array_new_records(kc_context *ctx, const kc_record *rec, int ndim,
                               const int64_t *shape, kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_new_records");
  RT_NEED(ctx, out, "kc_array_new_records");
  RT_NEED(ctx, shape, "kc_array_new_records");
  RT_NEED(ctx, rec, "kc_array_new_records");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (!rec || !rec->t) return rt_error(ctx, KC_ERR_INVALID, "array of records: no record");
  return rt_array_alloc(ctx, KC_RECORD, kc_record_spelling(rec), kc_record_size(rec), ndim,
                        shape, out);
}

kc_status kc_array_from_host_records(kc_context *ctx, const kc_record *rec, int ndim,
                                     const int64_t *shape, const void *host, size_t bytes,
                                     kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_from_host_records");
  RT_NEED(ctx, out, "kc_array_from_host_records");
  RT_NEED(ctx, shape, "kc_array_from_host_records");
  RT_NEED(ctx, rec, "kc_array_from_host_records");
  *out = NULL;
  RT_NEED(ctx, host, "kc_array_from_host_records");
  kc_array *a;
  kc_status s = kc_array_new_records(ctx, rec, ndim, shape, &a);
  if (s != KC_OK) return s;
  return rt_array_fill_new(a, host, bytes, "kc_array_from_host_records", out);
}

const char *kc_array_record(const kc_array *a) { return a && a->record ? a->record : ""; }

kc_status rt_param_records(kc_context *ctx, kc_kernel *k) {
  sig_parsed sig;
  char err[160];
  bool any = false;
  for (int i = 0; i < k->nparams; i++) any |= k->params[i].dtype == KC_RECORD;
  if (!any) return KC_OK;
  if (sig_parse(k->signature, &sig, err, sizeof err) != 0 || sig.nparams != k->nparams)
    return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s': bad signature '%s'", k->name,
                    k->signature);
  for (int i = 0; i < k->nparams; i++) {
    const sig_type *st = &sig.params[i];
    if (st->dtype != KC_RECORD) continue;
    char *s = rt_alloc(ctx, st->rec_len + 1);
    if (!s) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
    memcpy(s, st->rec, st->rec_len);
    s[st->rec_len] = '\0';
    k->params[i].record = s;
  }
  return KC_OK;
}

/* A type as a signature spells it: a record by its spelling, an array of any layout
 * (strided) as Numba prints it, array(float32, 2d, A). */
static void format_type(kc_dtype t, const char *record, int ndim, int strided, char *buf,
                        size_t len) {
  sig_type st = {.dtype = t, .ndim = ndim, .strided = strided && ndim > 0};
  if (t == KC_RECORD) {
    snprintf(buf, len, "%s%s", record ? record : "Record(?)", sig_dims(ndim));
    return;
  }
  sig_format_type(st, buf, len);
}

void rt_format_array_type(const kc_array *a, char *buf, size_t len) {
  format_type(a->dtype, a->record, a->ndim, !a->contiguous, buf, len);
}

void rt_format_param_type(const rt_param *p, char *buf, size_t len) {
  format_type(p->dtype, p->record, p->ndim, p->strided, buf, len);
}
