/*
 * vectorize.c — kc_vectorize and kc_vectorize_args: call a @vectorize function as
 * NumPy calls a ufunc. The compiler turns each signature of a @vectorize function into
 * a kernel of 1-D C-contiguous arrays (the inputs, then the output) whose body is a
 * grid-stride loop over the output's length, so any grid is correct and the launch
 * shape is only a matter of speed: rt_grid_stride_shape (launch.c) picks it.
 *
 * A call here picks the signature (NumPy's loop search, ufunc_cast.c), broadcasts the
 * arguments' shapes (ufunc_layout.c), and hands the kernel each argument flattened to
 * one axis: in place when it is contiguous, of the loop's dtype and of the broadcast
 * shape, else a contiguous copy converted to the loop's dtype (a scalar filled in);
 * an output that cannot be written in place receives the result through a copy. With
 * copies, the CPU runs the call in chunks (make_copies says why). Scalar inputs go to
 * the ufunc's kernel compiled for scalars (use_scalar_kernel), when there is one.
 *
 * Assumes k is such a kernel; a plain kernel of 1-D arrays would be launched with the
 * same shape, which covers every element only if it loops the same way.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define VEC_MAX_ARGS 128   /* a 1-D array is two kernelParams words: fits the table */
#define UFUNC_CPU_CHUNK ((int64_t)1 << 16)   /* elements per launch when copying (CPU) */

/* One call's state: the chosen overload, the broadcast shape, and per argument (the
 * inputs, then the output) what the kernel is given and the copy made for it. */
typedef struct ufunc_call {
  kc_context *ctx;
  kc_kernel *k, *v;         /* the kernel as given (for messages) and its overload */
  const kc_arg *args;
  int nin;
  kc_casting casting;
  kc_stream *stream;        /* where the launches go (NULL: the default stream) */
  int nd;
  int64_t shape[KC_MAX_DIMS];
  int64_t n;                /* elements of the broadcast shape */
  int64_t chunk;            /* elements per launch */
  unsigned scalars;         /* inputs passed as scalars: bit i for input i (v takes them so) */
  kc_array **temp;          /* nin + 1: a contiguous copy, or NULL */
  kc_array *flat;           /* nin + 1: the 1-D array the kernel is given */
} ufunc_call;

/* The kernel's name for parameter i, for messages: " ('x')" or "". */
static const char *param_label(const kc_kernel *k, int i, char *buf, size_t len) {
  if (i < k->nparams && k->params[i].name && k->params[i].name[0])
    snprintf(buf, len, " ('%s')", k->params[i].name);
  else
    buf[0] = '\0';
  return buf;
}

/* "(3, 4)", "(5,)" or "()". */
static const char *shape_text(int nd, const int64_t *shape, char *buf, size_t len) {
  size_t at = (size_t)snprintf(buf, len, "(");
  for (int d = 0; d < nd && at < len; d++)
    at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (at < len) snprintf(buf + at, len - at, nd == 1 ? ",)" : ")");
  return buf;
}

/* ---- the arguments ---------------------------------------------------------------- */
static kc_status check_input(ufunc_call *c, int i) {
  const kc_arg *a = &c->args[i];
  const char *name = c->k->name;
  if (a->is_array == 0) {
    if ((unsigned)a->dtype >= KC_DTYPE_COUNT)
      return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d is a scalar that "
                      "is not a number (a record); ufuncs take numbers", name, i + 1);
    return KC_OK;
  }
  if (a->is_array != 1)
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d is a tuple; ufuncs "
                    "take arrays and number scalars", name, i + 1);
  const kc_array *x = a->v.array;
  if (!x) return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d is NULL", name, i + 1);
  if (x->magic != RT_ARRAY_LIVE)
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d was freed", name, i + 1);
  if (x->ctx != c->ctx)
    return rt_error(c->ctx, KC_ERR_INVALID,
                    "vectorize '%s': input %d is an array of another context", name, i + 1);
  if (x->record)
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d is an array of "
                    "records; ufuncs take arrays of numbers", name, i + 1);
  return KC_OK;
}

static kc_dtype arg_dtype(const kc_arg *a) {
  return a->is_array ? a->v.array->dtype : a->dtype;
}

/* ---- the signature ---------------------------------------------------------------- */
/* NumPy 1.x casts scalars by their value when arrays are present and no scalar is of a
 * higher category than every array (np.add(float32_array, 2.5) is a float32 add). */
static int scalars_by_value(const ufunc_call *c) {
  int arrays = -1, scalars = -1;
  for (int i = 0; i < c->nin; i++) {
    int cat = rt_ufunc_category(arg_dtype(&c->args[i]));
    int *m = c->args[i].is_array ? &arrays : &scalars;
    if (cat > *m) *m = cat;
  }
  return arrays >= 0 && scalars <= arrays;
}

/* Whether input i goes into a loop of dtype want: exactly, or (safe) by a safe cast. */
static int input_casts(const ufunc_call *c, int i, kc_dtype want, int safe, int by_value) {
  const kc_arg *a = &c->args[i];
  if (!safe) return arg_dtype(a) == want;
  if (!a->is_array && by_value) return rt_ufunc_scalar_fits(a, want);
  return rt_ufunc_can_cast(arg_dtype(a), want, KC_CASTING_SAFE);
}

/* Is o a kernel of nin + 1 one-dimensional arrays whose inputs take the arguments? */
static int signature_takes(const ufunc_call *c, const kc_kernel *o, int safe, int by_value) {
  if (o->nparams != c->nin + 1) return 0;
  for (int i = 0; i <= c->nin; i++)
    if (o->params[i].ndim != 1) return 0;
  for (int i = 0; i < c->nin; i++)
    if (!input_casts(c, i, o->params[i].dtype, safe, by_value)) return 0;
  return 1;
}

/* Why the first signature does not take the arguments, naming the argument. */
static kc_status refuse_signature(const ufunc_call *c, int safe, int by_value) {
  const kc_kernel *k = c->k;
  const char *more = k->next_overload ? " (nor does any other signature)" : "";
  if (k->nparams != c->nin + 1)
    return rt_error(c->ctx, KC_ERR_INVALID,
                    "vectorize '%s': %d input%s given; %s takes %d%s", k->name, c->nin,
                    c->nin == 1 ? "" : "s", k->signature, k->nparams - 1, more);
  char label[200], want[80], got[80];
  for (int i = 0; i <= c->nin; i++)
    if (k->params[i].ndim != 1)
      return rt_error(c->ctx, KC_ERR_INVALID,
                      "vectorize '%s': %s is not a @vectorize kernel (parameter %d%s is "
                      "not a 1-D array)", k->name, k->signature, i + 1,
                      param_label(k, i, label, sizeof label));
  for (int i = 0; i < c->nin; i++) {
    kc_dtype w = k->params[i].dtype, g = arg_dtype(&c->args[i]);
    if (input_casts(c, i, w, safe, by_value)) continue;
    const kc_arg *a = &c->args[i];
    int nd = a->is_array ? a->v.array->ndim : 0;
    rt_format_type(w, nd, want, sizeof want);
    if (a->is_array) rt_format_type(g, nd, got, sizeof got);
    else snprintf(got, sizeof got, "%s %s scalar", strchr("aeiou", kc_dtype_name(g)[0]) ? "an" : "a",
                  kc_dtype_name(g));
    param_label(k, i, label, sizeof label);
    if (!safe)
      return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d%s is %s; the "
                      "signature wants %s (casting 'no')%s", k->name, i + 1, label, got,
                      want, more);
    char what[80];
    snprintf(what, sizeof what, "%s", !a->is_array && by_value ? "its value" : kc_dtype_name(g));
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d%s is %s; the "
                    "signature wants %s, and %s does not cast safely to %s%s", k->name,
                    i + 1, label, got, want, what, kc_dtype_name(w), more);
  }
  return rt_error(c->ctx, KC_ERR_INTERNAL, "vectorize '%s': no overload chosen", k->name);
}

/* NumPy's loop search, after Numba's exact match: the first overload whose input
 * dtypes equal the arguments', else the first the arguments cast into safely. */
static kc_status pick_overload(ufunc_call *c) {
  int by_value = scalars_by_value(c), safe = c->casting != KC_CASTING_NO;
  for (int pass = 0; pass <= safe; pass++)
    for (kc_kernel *o = c->k; o; o = o->next_overload)
      if (signature_takes(c, o, pass, by_value)) {
        c->v = o;
        return KC_OK;
      }
  return refuse_signature(c, safe, by_value);
}

/* ---- shapes and the output ---------------------------------------------------------- */
static kc_status broadcast_inputs(ufunc_call *c) {
  char label[200], a_txt[200], s_txt[200];
  c->nd = 0;
  for (int i = 0; i < c->nin; i++) {
    const kc_array *a = c->args[i].is_array ? c->args[i].v.array : NULL;
    if (!a) continue;
    int nd_before = c->nd;
    if (rt_broadcast_merge(&c->nd, c->shape, a) >= 0)
      return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': input %d%s of shape %s does "
                      "not broadcast against %s, the shape of the inputs before it (extents "
                      "broadcast when equal or 1, aligned at the right)", c->k->name, i + 1,
                      param_label(c->v, i, label, sizeof label),
                      shape_text(a->ndim, a->shape, a_txt, sizeof a_txt),
                      shape_text(nd_before, c->shape, s_txt, sizeof s_txt));
  }
  return KC_OK;
}

/* A given output: live, of the context, its shape the broadcast shape (which it may
 * widen), a dtype the result converts to. */
static kc_status check_output(ufunc_call *c, const kc_array *out) {
  char label[200], o_txt[200], s_txt[200], got[80];
  const char *name = c->k->name;
  kc_dtype r = c->v->params[c->nin].dtype;
  param_label(c->v, c->nin, label, sizeof label);
  if (out->magic != RT_ARRAY_LIVE)
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': the output%s was freed", name,
                    label);
  if (out->ctx != c->ctx)
    return rt_error(c->ctx, KC_ERR_INVALID,
                    "vectorize '%s': the output%s is an array of another context", name,
                    label);
  if (out->record || !rt_ufunc_can_cast(r, out->dtype, c->casting)) {
    rt_format_array_type(out, got, sizeof got);
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': the output%s is %s; the "
                    "result is %s, which does not cast to %s (casting '%s')", name, label,
                    got, kc_dtype_name(r), out->record ? "records" : kc_dtype_name(out->dtype),
                    rt_casting_name(c->casting));
  }
  int nd = c->nd;
  int64_t shape[KC_MAX_DIMS];
  memcpy(shape, c->shape, sizeof shape);
  int bad = rt_broadcast_merge(&nd, shape, out) >= 0 || nd != out->ndim;
  for (int d = 0; !bad && d < nd; d++) bad = shape[d] != out->shape[d];
  if (bad)
    return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': the output%s has shape %s; "
                    "the inputs broadcast to %s (an output is not broadcast)", name, label,
                    shape_text(out->ndim, out->shape, o_txt, sizeof o_txt),
                    shape_text(c->nd, c->shape, s_txt, sizeof s_txt));
  c->nd = nd;
  memcpy(c->shape, shape, sizeof shape);
  return KC_OK;
}

/* ---- the operands ------------------------------------------------------------------- */
/* Argument i (an input, or the output when i == nin) as an array, or NULL (a scalar). */
static const kc_array *operand(const ufunc_call *c, int i, const kc_array *out) {
  if (i == c->nin) return out;
  return c->args[i].is_array ? c->args[i].v.array : NULL;
}

/* Elements [off, off + len) of a's data seen as the kernel's 1-D parameter. */
static void flatten(kc_array *flat, const kc_array *a, int64_t off, int64_t len) {
  size_t es = kc_dtype_size(a->dtype);
  *flat = *a;
  if (a->ctx->device == KC_DEVICE_CUDA) flat->data.dev += (uint64_t)off * es;
  else flat->data.host = (char *)a->data.host + (size_t)off * es;
  flat->ndim = 1;
  flat->shape[0] = len;
  flat->step[0] = 1;
  flat->bytes = (size_t)len * es;
}

/* Used as it is: contiguous, of dtype want, its shape the broadcast shape. */
static int in_place(const ufunc_call *c, const kc_array *a, kc_dtype want) {
  if (a->dtype != want || !a->contiguous) return 0;
  int64_t strides[KC_MAX_DIMS];
  rt_broadcast_strides(a, c->nd, c->shape, strides);
  for (int d = 0; d < c->nd; d++)
    if (strides[d] == 0 && c->shape[d] != 1) return 0;
  return 1;
}

/* A scalar input's copy: every element its value. */
static kc_status fill_scalar(ufunc_call *c, int i) {
  kc_array *t = c->temp[i];
  unsigned char elem[16];
  rt_ufunc_scalar_elem(&c->args[i], t->dtype, elem);
  if (c->ctx->device == KC_DEVICE_CUDA) return kc_array_fill(t, elem);
  rt_convert_run(t->data.host, t->dtype, 1, elem, t->dtype, 0, t->shape[0]);
  return KC_OK;
}

/* Scalar input i as the kernel's parameter takes it: converted to the loop's dtype by
 * NumPy's rules (as fill_scalar converts it), so the launch converts nothing. */
static kc_arg scalar_arg(const ufunc_call *c, int i) {
  kc_dtype t = c->v->params[i].dtype;
  union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16;
          uint32_t u32; uint64_t u64; float f; double d; float c64[2]; double c128[2]; } e;
  memset(&e, 0, sizeof e);
  rt_ufunc_scalar_elem(&c->args[i], t, &e);
  kc_arg a = kc_arg_int(t, 0);
  switch (t) {
  case KC_BOOL: case KC_UINT8: a.v.i = e.u8; break;
  case KC_INT8: a.v.i = e.i8; break;
  case KC_INT16: a.v.i = e.i16; break;
  case KC_UINT16: a.v.i = e.u16; break;
  case KC_INT32: a.v.i = e.i32; break;
  case KC_UINT32: a.v.i = e.u32; break;
  case KC_INT64: a.v.i = e.i64; break;
  case KC_UINT64: a.v.u = e.u64; break;
  case KC_FLOAT32: a.v.f = e.f; break;
  case KC_FLOAT64: a.v.f = e.d; break;
  case KC_COMPLEX64: a.v.c.re = e.c64[0], a.v.c.im = e.c64[1]; break;
  case KC_COMPLEX128: a.v.c.re = e.c128[0], a.v.c.im = e.c128[1]; break;
  default: break;   /* not taken: use_scalar_kernel passes no other dtype */
  }
  return a;
}

/* Whether scalar_arg passes dtype t exactly (float16 would round twice). */
static bool passes_as_scalar(kc_dtype t) {
  return t != KC_FLOAT16 && t != KC_RECORD && (unsigned)t < KC_DTYPE_COUNT;
}

/* Scalar inputs go to the ufunc's kernel compiled with them as scalar parameters
 * (rt_module_ufunc_scalars) instead of an array filled with each: the loop then reads
 * as many arrays as a C loop would, and on the CPU runs in one launch where nothing
 * else is copied. That kernel is compiled (from the module's source, once) when the
 * calls with scalars in those positions have covered RT_VARIANT_WORK elements, so that
 * a few small calls never wait for a compiler; every call uses it once it exists. */
static kc_status use_scalar_kernel(ufunc_call *c) {
  unsigned scalars = 0;
  if (c->nin > 32) return KC_OK;
  for (int i = 0; i < c->nin; i++) {
    if (c->args[i].is_array) continue;
    if (!passes_as_scalar(c->v->params[i].dtype)) return KC_OK;
    scalars |= 1u << i;
  }
  if (!scalars) return KC_OK;
  kc_kernel *t = NULL;
  kc_status s = rt_module_ufunc_scalars(c->v, scalars, (uint64_t)c->n, &t);
  if (s == KC_OK && t) c->v = t, c->scalars = scalars;
  return s;
}

static bool passed_as_scalar(const ufunc_call *c, int i) {
  return i < c->nin && kcc_scalar_input(c->scalars, i);
}

/* The copies of the arguments that cannot be used in place, of the loop's dtypes. On
 * the CPU they hold a chunk of UFUNC_CPU_CHUNK elements at a time, which stays in cache
 * between its copy and the kernel (a whole-size copy costs a pass over memory and, for
 * a fresh array, a page fault per page: 25-30x a C loop); on CUDA the whole array. */
static kc_status make_copies(ufunc_call *c, const kc_array *out) {
  int copies = 0;
  for (int i = 0; i <= c->nin; i++) {
    const kc_array *a = operand(c, i, out);
    if (!passed_as_scalar(c, i)) copies |= !a || !in_place(c, a, c->v->params[i].dtype);
  }
  c->chunk = c->n;
  if (copies && c->ctx->device == KC_DEVICE_CPU && c->n > UFUNC_CPU_CHUNK)
    c->chunk = UFUNC_CPU_CHUNK;
  for (int i = 0; i <= c->nin; i++) {
    const kc_array *a = operand(c, i, out);
    kc_dtype t = c->v->params[i].dtype;
    if (passed_as_scalar(c, i) || (a && in_place(c, a, t))) continue;
    kc_status s = kc_array_new(c->ctx, t, 1, &c->chunk, &c->temp[i]);
    if (s == KC_OK && !a) s = fill_scalar(c, i);
    if (s != KC_OK) return s;
  }
  return KC_OK;
}

/* Elements [off, off + len) of the broadcast shape: the copies filled, one launch, the
 * output's copy stored. */
static kc_status run_chunk(ufunc_call *c, kc_array *out, int64_t off, int64_t len) {
  kc_arg args[VEC_MAX_ARGS];
  kc_status s = KC_OK;
  for (int i = 0; i <= c->nin && s == KC_OK; i++) {
    const kc_array *a = operand(c, i, out);
    if (passed_as_scalar(c, i)) {
      args[i] = scalar_arg(c, i);
      continue;
    }
    if (!c->temp[i]) {
      flatten(&c->flat[i], a, off, len);
    } else {
      flatten(&c->flat[i], c->temp[i], 0, len);
      if (a && i < c->nin) {
        int64_t strides[KC_MAX_DIMS];
        rt_broadcast_strides(a, c->nd, c->shape, strides);
        s = rt_ufunc_gather(c->ctx, c->temp[i], a, c->nd, c->shape, strides, off, len);
      }
    }
    args[i] = kc_arg_array(&c->flat[i]);
  }
  unsigned grid = 1, block = 1;
  if (s == KC_OK) s = rt_grid_stride_shape(c->v, len, &grid, &block);
  if (s == KC_OK) s = kc_launch(c->v, kc_dim(grid), kc_dim(block), 0, c->stream, args, c->nin + 1);
  if (s == KC_OK && c->temp[c->nin])
    s = rt_ufunc_scatter(c->ctx, out, c->temp[c->nin], c->nd, c->shape, off, len);
  return s;
}

static kc_status launch(ufunc_call *c, kc_array *out) {
  kc_status s = use_scalar_kernel(c);
  if (s == KC_OK) s = make_copies(c, out);
  for (int64_t off = 0; s == KC_OK && off < c->n; off += c->chunk)
    s = run_chunk(c, out, off, c->n - off < c->chunk ? c->n - off : c->chunk);
  return s;
}

/* Free the copies (on CUDA once the kernel that reads them is done: the call's stream
 * is waited for). */
static kc_status release(ufunc_call *c, kc_status s) {
  int any = 0;
  for (int i = 0; i <= c->nin; i++) any |= c->temp[i] != NULL;
  if (any && s == KC_OK && c->ctx->device == KC_DEVICE_CUDA) s = rt_stream_wait(c->ctx, c->stream);
  for (int i = 0; i <= c->nin; i++) kc_array_free(c->temp[i]);
  return s;
}

/* ---- the call ------------------------------------------------------------------------ */
static kc_status call(ufunc_call *c, kc_array **out) {
  kc_status s = KC_OK;
  for (int i = 0; i < c->nin && s == KC_OK; i++) s = check_input(c, i);
  if (s == KC_OK) s = pick_overload(c);
  if (s == KC_OK) s = broadcast_inputs(c);
  if (s == KC_OK && *out) s = check_output(c, *out);
  if (s != KC_OK) return s;
  if (c->nd == 0) c->nd = 1, c->shape[0] = 1;   /* scalars only: one element */
  c->n = 1;
  for (int d = 0; d < c->nd; d++)
    if (__builtin_mul_overflow(c->n, c->shape[d], &c->n))   /* (2**32, 1) with (1, 2**32) */
      return rt_error(c->ctx, KC_ERR_INVALID, "vectorize '%s': the broadcast shape has more "
                      "elements than 64-bit sizes count", c->k->name);
  kc_array *result = *out;
  if (!result &&
      (s = kc_array_new(c->ctx, c->v->params[c->nin].dtype, c->nd, c->shape, &result)) != KC_OK)
    return s;
  s = release(c, launch(c, result));
  if (s != KC_OK) {
    if (result != *out) kc_array_free(result);
    return s;
  }
  *out = result;
  return KC_OK;
}

/* The input count and list: KC_OK, or the error. */
static kc_status check_count(kc_kernel *k, int nargs, const void *list) {
  kc_context *ctx = k->mod->ctx;
  if (nargs < 0 || (nargs > 0 && !list))
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': bad input list", k->name);
  if (nargs + 1 > VEC_MAX_ARGS)
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': %d inputs; at most %d", k->name,
                    nargs, VEC_MAX_ARGS - 1);
  return KC_OK;
}

void kc_ufunc_options_init(kc_ufunc_options *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

kc_status kc_vectorize_args(kc_kernel *k, const kc_arg *args, int nargs, kc_array **out,
                            const kc_ufunc_options *opts) {
  RT_NEED(NULL, k, "kc_vectorize_args");
  RT_NEED(k->mod->ctx, out, "kc_vectorize_args");
  kc_context *ctx = k->mod->ctx;
  kc_status s = check_count(k, nargs, args);
  if (s != KC_OK) return s;
  if (k->nparams < 0)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': the kernel is untyped; a @vectorize function needs "
                    "its signatures", k->name);
  kc_casting casting = opts ? opts->casting : KC_CASTING_SAME_KIND;
  if ((unsigned)casting > KC_CASTING_NO)
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': unknown casting %d", k->name,
                    (int)casting);
  kc_stream *stream = opts ? opts->stream : NULL;
  if ((s = rt_stream_check(ctx, stream, "vectorize")) != KC_OK) return s;
  if (nargs == 0 && !*out)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': no inputs to take the shape from: pass an output",
                    k->name);
  ufunc_call c;
  memset(&c, 0, sizeof c);
  c.ctx = ctx, c.k = k, c.v = k, c.args = args, c.nin = nargs, c.casting = casting;
  c.stream = stream;
  c.temp = rt_calloc(ctx, (size_t)nargs + 1, sizeof *c.temp);
  c.flat = rt_calloc(ctx, (size_t)nargs + 1, sizeof *c.flat);
  s = c.temp && c.flat ? call(&c, out) : rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if (c.temp) rt_free(ctx, c.temp, ((size_t)nargs + 1) * sizeof *c.temp);
  if (c.flat) rt_free(ctx, c.flat, ((size_t)nargs + 1) * sizeof *c.flat);
  return s;
}

kc_status kc_vectorize(kc_kernel *k, kc_array *const *inputs, int ninputs, kc_array **out) {
  RT_NEED(NULL, k, "kc_vectorize");
  RT_NEED(k->mod->ctx, out, "kc_vectorize");
  kc_status s = check_count(k, ninputs, inputs);
  if (s != KC_OK) return s;
  kc_arg args[VEC_MAX_ARGS];
  for (int i = 0; i < ninputs; i++) args[i] = kc_arg_array(inputs[i]);
  return kc_vectorize_args(k, args, ninputs, out, NULL);
}
