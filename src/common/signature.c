/*
 * signature.c — Numba type signatures as text ("void(float32[:], int32)"), parsed
 * without allocation so both the compiler and the runtime can use it. The table of
 * scalar type names here is the only one: types.c's type_from_name goes through
 * sig_dtype_from_name, so annotations, decorator strings and --sig accept the same
 * spellings.
 */
#include "signature.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Scalar names. Numba/NumPy's short aliases count BYTES (i1 i2 i4 i8 u1..u8 f4 f8;
 * so i8 is int64, as in Numba); the longer ones count BITS (i16 i32 i64 u16 u32 u64
 * f32 f64), as do the spelled-out names (int8 is one byte). The two sets overlap
 * only in i8/u8, which keep Numba's meaning (8 bytes): write int8/uint8 for a byte. */
static const struct { const char *name; kc_dtype dtype; } sig_names[] = {
  {"bool", KC_BOOL}, {"boolean", KC_BOOL}, {"bool_", KC_BOOL}, {"b1", KC_BOOL},
  {"int8", KC_INT8}, {"int16", KC_INT16}, {"int32", KC_INT32}, {"int64", KC_INT64},
  {"uint8", KC_UINT8}, {"uint16", KC_UINT16}, {"uint32", KC_UINT32},
  {"uint64", KC_UINT64}, {"float32", KC_FLOAT32}, {"float64", KC_FLOAT64},
  {"float_", KC_FLOAT64}, {"double", KC_FLOAT64}, {"int_", KC_INT64},
  {"intp", KC_INT64}, {"uintp", KC_UINT64}, {"intc", KC_INT32}, {"uintc", KC_UINT32},
  {"byte", KC_INT8}, {"ubyte", KC_UINT8}, {"short", KC_INT16}, {"ushort", KC_UINT16},
  {"single", KC_FLOAT32},
  {"complex64", KC_COMPLEX64}, {"complex128", KC_COMPLEX128}, {"complex_", KC_COMPLEX128},
  {"csingle", KC_COMPLEX64}, {"cdouble", KC_COMPLEX128}, {"c8", KC_COMPLEX64},
  {"c16", KC_COMPLEX128},
  {"float16", KC_FLOAT16}, {"half", KC_FLOAT16}, {"f2", KC_FLOAT16}, {"f16", KC_FLOAT16},
  /* byte counts (NumPy/Numba) */
  {"i1", KC_INT8}, {"i2", KC_INT16}, {"i4", KC_INT32}, {"i8", KC_INT64},
  {"u1", KC_UINT8}, {"u2", KC_UINT16}, {"u4", KC_UINT32}, {"u8", KC_UINT64},
  {"f4", KC_FLOAT32}, {"f8", KC_FLOAT64},
  /* bit counts */
  {"i16", KC_INT16}, {"i32", KC_INT32}, {"i64", KC_INT64},
  {"u16", KC_UINT16}, {"u32", KC_UINT32}, {"u64", KC_UINT64},
  {"f32", KC_FLOAT32}, {"f64", KC_FLOAT64},
};

static const char *const sig_dtype_names[KC_DTYPE_COUNT] = {
  [KC_BOOL] = "bool", [KC_INT8] = "int8", [KC_INT16] = "int16", [KC_INT32] = "int32",
  [KC_INT64] = "int64", [KC_UINT8] = "uint8", [KC_UINT16] = "uint16", [KC_UINT32] = "uint32",
  [KC_UINT64] = "uint64", [KC_FLOAT32] = "float32", [KC_FLOAT64] = "float64",
  [KC_COMPLEX64] = "complex64", [KC_COMPLEX128] = "complex128", [KC_FLOAT16] = "float16",
};

int sig_dtype_from_name(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof sig_names / sizeof sig_names[0]; i++)
    if (strlen(sig_names[i].name) == len && memcmp(sig_names[i].name, name, len) == 0)
      return (int)sig_names[i].dtype;
  return -1;
}

const char *sig_dtype_name(kc_dtype d) {
  return (unsigned)d < KC_DTYPE_COUNT ? sig_dtype_names[d] : "?";
}

/* ---- the scanner: whitespace, identifiers, punctuation ---- */

static int sig_fail(char *err, size_t errlen, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int sig_fail(char *err, size_t errlen, size_t pos, const char *fmt, ...) {
  if (err && errlen) {
    int n = snprintf(err, errlen, "column %zu: ", pos + 1);
    if (n >= 0 && (size_t)n < errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

static void sig_skip_space(const char *t, size_t *pos) {
  while (t[*pos] == ' ' || t[*pos] == '\t' || t[*pos] == '\n' || t[*pos] == '\r')
    (*pos)++;
}

static size_t sig_ident_len(const char *t, size_t pos) {
  size_t n = 0;
  if (!(isalpha((unsigned char)t[pos]) || t[pos] == '_'))
    return 0;
  while (isalnum((unsigned char)t[pos + n]) || t[pos + n] == '_')
    n++;
  return n;
}

/* What is at pos, for "expected X, found Y". */
static const char *sig_found(const char *t, size_t pos, char *buf, size_t len) {
  if (!t[pos])
    return "end of text";
  size_t n = sig_ident_len(t, pos);
  if (n)
    snprintf(buf, len, "'%.*s'", (int)(n > 40 ? 40 : n), t + pos);
  else
    snprintf(buf, len, "'%c'", t[pos]);
  return buf;
}

static int sig_expect(const char *t, size_t *pos, char c, const char *what, char *err,
                      size_t errlen) {
  char buf[64];
  sig_skip_space(t, pos);
  if (t[*pos] != c)
    return sig_fail(err, errlen, *pos, "expected %s, found %s", what,
                    sig_found(t, *pos, buf, sizeof buf));
  (*pos)++;
  return 0;
}

/* One dimension: ':' or '::1' (C-contiguous, allowed on the last dimension only). */
static int sig_parse_dim(const char *t, size_t *pos, int *contig, char *err,
                         size_t errlen) {
  if (sig_expect(t, pos, ':', "':'", err, errlen))
    return -1;
  *contig = 0;
  sig_skip_space(t, pos);
  if (t[*pos] != ':')
    return 0;
  (*pos)++;
  sig_skip_space(t, pos);
  if (t[*pos] != '1' || isalnum((unsigned char)t[*pos + 1]))
    return sig_fail(err, errlen, *pos, "expected '1' in '::1' (C-contiguous layout)");
  (*pos)++;
  *contig = 1;
  return 0;
}

/* '[' dim (',' dim)* ']' after a scalar type name. '::1' last is C order; first (of two
 * or more) it is Fortran order, read through strides as 'A' is (*strided). */
static int sig_parse_dims(const char *t, size_t *pos, int *ndim, int *strided, char *err,
                          size_t errlen) {
  char buf[64];
  (*pos)++; /* '[' */
  for (;;) {
    size_t at;
    int contig;
    sig_skip_space(t, pos);
    at = *pos;
    if (sig_parse_dim(t, pos, &contig, err, errlen))
      return -1;
    if (++*ndim > KC_MAX_DIMS)
      return sig_fail(err, errlen, at, "arrays have at most %d dimensions", KC_MAX_DIMS);
    sig_skip_space(t, pos);
    if (t[*pos] == ']') {
      (*pos)++;
      return 0;
    }
    if (contig && *ndim == 1)
      *strided = 1;   /* float32[::1, :] */
    else if (contig)
      return sig_fail(err, errlen, at, "'::1' is allowed on the last dimension (C order) "
                      "or the first (Fortran order) only");
    if (t[*pos] != ',')
      return sig_fail(err, errlen, *pos, "expected ',' or ']', found %s",
                      sig_found(t, *pos, buf, sizeof buf));
    (*pos)++;
  }
}

/* An optional module prefix in front of a type: numba.float32, types.int32, nb.f4 */
static void sig_skip_module(const char *t, size_t *pos) {
  static const char *const mods[] = {"numba.types.", "numba.", "types.", "nb."};
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++) {
    size_t n = strlen(mods[i]);
    if (strncmp(t + *pos, mods[i], n) == 0) {
      *pos += n;
      return;
    }
  }
}

size_t sig_record_len(const char *text) {
  if (strncmp(text, "Record(", 7) != 0) return 0;
  int depth = 0;
  for (size_t i = 6; text[i]; i++) {
    if (text[i] == '(' || text[i] == '[') depth++;
    else if ((text[i] == ')' || text[i] == ']') && --depth == 0) return i + 1;
  }
  return 0;
}

/* Record(...): its text is kept as is; the compiler parses it (records.c), the runtime
 * compares it with an array's record. */
static int sig_parse_record(const char *text, size_t *pos, sig_type *out, char *err,
                            size_t errlen) {
  size_t n = sig_record_len(text + *pos);
  if (!n) return sig_fail(err, errlen, *pos, "unbalanced parentheses in a Record type");
  out->dtype = KC_RECORD;
  out->rec = text + *pos;
  out->rec_len = n;
  *pos += n;
  sig_skip_space(text, pos);
  if (text[*pos] == '[') return sig_parse_dims(text, pos, &out->ndim, &out->strided, err, errlen);
  return 0;
}

/* ---- tuples of scalars ---- */

static int sig_parse_scalar(const char *t, size_t *pos, kc_dtype *out, char *err,
                            size_t errlen) {
  size_t at;
  sig_type el;
  sig_skip_space(t, pos);
  at = *pos;
  if (sig_parse_type(t, pos, &el, err, errlen))
    return -1;
  if (el.is_void || el.ndim || el.nelems || el.dtype == KC_RECORD)
    return sig_fail(err, errlen, at, "a tuple parameter holds scalars (numbers and bools)");
  *out = el.dtype;
  return 0;
}

/* UniTuple '(' scalar ',' count ')', or as Numba prints one, UniTuple(int64 x 3) (the
 * spelling its messages and --sig users copy from them) */
static int sig_parse_unituple(const char *t, size_t *pos, sig_type *out, char *err,
                              size_t errlen) {
  kc_dtype d;
  (*pos)++; /* '(' */
  if (sig_parse_scalar(t, pos, &d, err, errlen))
    return -1;
  sig_skip_space(t, pos);
  if (t[*pos] == 'x' && (t[*pos + 1] == ' ' || isdigit((unsigned char)t[*pos + 1])))
    (*pos)++;
  else if (sig_expect(t, pos, ',', "',' or 'x'", err, errlen))
    return -1;
  sig_skip_space(t, pos);
  size_t at = *pos;
  long n = 0;
  while (isdigit((unsigned char)t[*pos]) && n <= SIG_MAX_TUPLE)
    n = n * 10 + (t[(*pos)++] - '0');
  if (at == *pos || n < 1 || n > SIG_MAX_TUPLE)
    return sig_fail(err, errlen, at, "a UniTuple's count is 1 to %d", SIG_MAX_TUPLE);
  out->nelems = (int)n;
  for (int i = 0; i < out->nelems; i++)
    out->elems[i] = d;
  return sig_expect(t, pos, ')', "')'", err, errlen);
}

/* Tuple '(' scalar (',' scalar)* ')', or Numba's Tuple '((' ... '))' */
static int sig_parse_tuple(const char *t, size_t *pos, sig_type *out, char *err,
                           size_t errlen) {
  (*pos)++; /* '(' */
  sig_skip_space(t, pos);
  int inner = t[*pos] == '(';
  if (inner)
    (*pos)++;
  for (;;) {
    sig_skip_space(t, pos);
    if (out->nelems == SIG_MAX_TUPLE)
      return sig_fail(err, errlen, *pos, "a tuple parameter has at most %d elements",
                      SIG_MAX_TUPLE);
    if (sig_parse_scalar(t, pos, &out->elems[out->nelems++], err, errlen))
      return -1;
    sig_skip_space(t, pos);
    if (t[*pos] != ',')
      break;
    (*pos)++;
    sig_skip_space(t, pos);
    if (t[*pos] == ')')   /* Tuple((int32,)) */
      break;
  }
  if (inner && sig_expect(t, pos, ')', "')'", err, errlen))
    return -1;
  return sig_expect(t, pos, ')', "')'", err, errlen);
}

/* Numba's printed array type, after "array": '(' dtype ',' N 'd' ',' layout ')', layout
 * 'C' or 'A' ('F' only with one dimension, where it is 'C'). */
static int sig_parse_array_call(const char *t, size_t *pos, sig_type *out, char *err,
                                size_t errlen) {
  char buf[64];
  if (sig_expect(t, pos, '(', "'(' after 'array'", err, errlen))
    return -1;
  sig_skip_space(t, pos);
  size_t at = *pos, n = sig_ident_len(t, at);
  int d = n ? sig_dtype_from_name(t + at, n) : -1;
  if (d < 0)
    return sig_fail(err, errlen, at, "expected a dtype, found %s", sig_found(t, at, buf, sizeof buf));
  *pos += n;
  out->dtype = (kc_dtype)d;
  if (sig_expect(t, pos, ',', "','", err, errlen))
    return -1;
  sig_skip_space(t, pos);
  at = *pos;
  int nd = 0;
  while (isdigit((unsigned char)t[*pos]) && nd <= KC_MAX_DIMS)
    nd = nd * 10 + (t[(*pos)++] - '0');
  if (t[*pos] != 'd' || nd < 1 || nd > KC_MAX_DIMS)
    return sig_fail(err, errlen, at, "expected the number of dimensions, 1d to %dd", KC_MAX_DIMS);
  (*pos)++;
  out->ndim = nd;
  if (sig_expect(t, pos, ',', "','", err, errlen))
    return -1;
  sig_skip_space(t, pos);
  at = *pos;
  char lay = t[*pos];
  if (!(lay == 'C' || lay == 'A' || lay == 'F') || isalnum((unsigned char)t[*pos + 1]))
    return sig_fail(err, errlen, at, "expected the layout 'C', 'F' or 'A'");
  (*pos)++;
  /* a Fortran-ordered array of 2 or more dimensions is read through its strides, as an
     'A' array is (1-D, F is C) */
  out->strided = lay == 'A' || (lay == 'F' && nd > 1);
  return sig_expect(t, pos, ')', "')'", err, errlen);
}

int sig_parse_type(const char *text, size_t *pos, sig_type *out, char *err, size_t errlen) {
  char buf[64];
  memset(out, 0, sizeof *out);
  sig_skip_space(text, pos);
  sig_skip_module(text, pos);
  size_t start = *pos, n = sig_ident_len(text, start);
  if (n == 6 && text[start + 6] == '(' && memcmp(text + start, "Record", 6) == 0)
    return sig_parse_record(text, pos, out, err, errlen);
  if (n == 0)
    return sig_fail(err, errlen, start, "expected a type name, found %s",
                    sig_found(text, start, buf, sizeof buf));
  *pos += n;
  if ((n == 4 && memcmp(text + start, "void", 4) == 0) ||
      (n == 4 && memcmp(text + start, "none", 4) == 0)) {
    out->is_void = 1;
    out->dtype = KC_INT32;
    return 0;
  }
  int uni = n == 8 && memcmp(text + start, "UniTuple", 8) == 0;
  if ((uni || (n == 5 && memcmp(text + start, "Tuple", 5) == 0))) {
    sig_skip_space(text, pos);
    if (text[*pos] != '(')
      return sig_fail(err, errlen, *pos, "expected '(' after '%s'", uni ? "UniTuple" : "Tuple");
    return uni ? sig_parse_unituple(text, pos, out, err, errlen)
               : sig_parse_tuple(text, pos, out, err, errlen);
  }
  if (n == 5 && memcmp(text + start, "array", 5) == 0)
    return sig_parse_array_call(text, pos, out, err, errlen);
  int d = sig_dtype_from_name(text + start, n);
  if (d < 0 && n == 8 && memcmp(text + start, "bfloat16", 8) == 0)
    return sig_fail(err, errlen, start, "bfloat16 is a type of kernels' locals only: a "
                    "parameter or array cannot be bfloat16 (pass its bits as int16 and "
                    "convert with cuda.bf16.int16_as_bfloat16)");
  if (d < 0)
    return sig_fail(err, errlen, start, "unknown type '%.*s'", (int)(n > 60 ? 60 : n),
                    text + start);
  out->dtype = (kc_dtype)d;
  sig_skip_space(text, pos);
  if (text[*pos] == '[')
    return sig_parse_dims(text, pos, &out->ndim, &out->strided, err, errlen);
  return 0;
}

/* '(' [type (',' type)*] ')' */
static int sig_parse_params(const char *t, size_t *pos, sig_parsed *out, char *err,
                            size_t errlen) {
  char buf[64];
  (*pos)++; /* '(' */
  sig_skip_space(t, pos);
  if (t[*pos] == ')') {
    (*pos)++;
    return 0;
  }
  for (;;) {
    size_t at = *pos;
    if (out->nparams == SIG_MAX_PARAMS)
      return sig_fail(err, errlen, at, "more than %d parameters", SIG_MAX_PARAMS);
    sig_type *p = &out->params[out->nparams];
    if (sig_parse_type(t, pos, p, err, errlen))
      return -1;
    if (p->is_void)
      return sig_fail(err, errlen, at, "'void' is not a parameter type");
    out->nparams++;
    sig_skip_space(t, pos);
    if (t[*pos] == ')') {
      (*pos)++;
      return 0;
    }
    if (t[*pos] != ',')
      return sig_fail(err, errlen, *pos, "expected ',' or ')', found %s",
                      sig_found(t, *pos, buf, sizeof buf));
    (*pos)++;
  }
}

/* The head before '(': a return type ("void", "float32") or a kernel's name. A head
 * that is a type name is taken as the return type. */
static int sig_parse_head(const char *t, size_t *pos, sig_parsed *out, char *err,
                          size_t errlen) {
  size_t probe = *pos;
  sig_skip_module(t, &probe);
  size_t n = sig_ident_len(t, probe);
  int is_type = (n == 4 && (memcmp(t + probe, "void", 4) == 0 ||
                            memcmp(t + probe, "none", 4) == 0)) ||
                sig_dtype_from_name(t + probe, n) >= 0;
  if (is_type) {
    out->has_ret = 1;
    return sig_parse_type(t, pos, &out->ret, err, errlen);
  }
  n = sig_ident_len(t, *pos);
  if (n >= sizeof out->name)
    return sig_fail(err, errlen, *pos, "name too long");
  memcpy(out->name, t + *pos, n);
  out->name[n] = '\0';
  *pos += n;
  return 0;
}

int sig_parse(const char *text, sig_parsed *out, char *err, size_t errlen) {
  char buf[64];
  size_t pos = 0;
  memset(out, 0, sizeof *out);
  if (err && errlen)
    err[0] = '\0';
  if (!text)
    return sig_fail(err, errlen, 0, "no signature");
  sig_skip_space(text, &pos);
  if (text[pos] != '(' && sig_parse_head(text, &pos, out, err, errlen))
    return -1;
  sig_skip_space(text, &pos);
  if (text[pos] != '(')
    return sig_fail(err, errlen, pos, "expected '(', found %s",
                    sig_found(text, pos, buf, sizeof buf));
  if (sig_parse_params(text, &pos, out, err, errlen))
    return -1;
  sig_skip_space(text, &pos);
  if (text[pos])
    return sig_fail(err, errlen, pos, "unexpected %s after the signature",
                    sig_found(text, pos, buf, sizeof buf));
  return 0;
}

const char *sig_dims(int ndim) {
  static const char *const dims[] = {
    "", "[:]", "[:, :]", "[:, :, :]", "[:, :, :, :]", "[:, :, :, :, :]", "[:, :, :, :, :, :]",
    "[:, :, :, :, :, :, :]", "[:, :, :, :, :, :, :, :]",
  };
  _Static_assert(sizeof dims / sizeof dims[0] == KC_MAX_DIMS + 1, "a spelling per rank");
  return ndim >= 0 && ndim <= KC_MAX_DIMS ? dims[ndim] : "[?]";
}

void sig_format_type(sig_type t, char *buf, size_t len) {
  if (!len)
    return;
  if (t.is_void) {
    snprintf(buf, len, "void");
    return;
  }
  if (t.nelems > 0) {   /* types.c's type_name spelling */
    int uni = 1;
    for (int i = 1; i < t.nelems && i < SIG_MAX_TUPLE; i++)
      uni &= t.elems[i] == t.elems[0];
    if (uni) {
      snprintf(buf, len, "UniTuple(%s, %d)", sig_dtype_name(t.elems[0]), t.nelems);
      return;
    }
    size_t at = (size_t)snprintf(buf, len, "Tuple(");
    for (int i = 0; i < t.nelems && i < SIG_MAX_TUPLE && at < len; i++)
      at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", sig_dtype_name(t.elems[i]));
    if (at < len)
      snprintf(buf + at, len - at, ")");
    return;
  }
  if (t.dtype == KC_RECORD)
    snprintf(buf, len, "%.*s%s", (int)t.rec_len, t.rec, sig_dims(t.ndim));
  else if (t.strided && t.ndim > 0)
    snprintf(buf, len, "array(%s, %dd, A)", sig_dtype_name(t.dtype), t.ndim);
  else
    snprintf(buf, len, "%s%s", sig_dtype_name(t.dtype), sig_dims(t.ndim));
}
