/*
 * guvectorize.c — kc_guvectorize: call a @guvectorize function on arrays, as a Numba
 * CUDA gufunc is called. The compiler makes one loop kernel per signature (synth.c):
 * each argument is an array whose first axis is the loop dimensions flattened, the
 * rest its core dimensions, and one thread per loop index calls the core function on
 * the views. The layout travels in the kernel's parameter names: "x(m,n)" for an
 * input, "->r(m)" for an output (compiler: infer.c, gu_param_name).
 *
 * Here: the layout is read back, every array's shape checked against it (the loop
 * dimensions equal for all arguments — no broadcasting yet — and each core dimension
 * name bound to one size), outputs allocated when not given, and each array passed
 * as a flattened alias of itself (same data, shape (loop size, core dims...)).
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define GU_MAX 32
#define GU_NAME 64
#define GU_WAVES 4

typedef struct gu_arg {
  int output;
  int ncore;
  char dim[KC_MAX_DIMS][GU_NAME];
  char name[GU_NAME];
} gu_arg;

typedef struct gu_dims {    /* core dimension names bound to sizes */
  int n;
  char name[GU_MAX * KC_MAX_DIMS][GU_NAME];
  int64_t size[GU_MAX * KC_MAX_DIMS];
} gu_dims;

/* Parse "[->]name(d1,d2)"; 0 on success. */
static int parse_param(const char *s, gu_arg *a) {
  memset(a, 0, sizeof *a);
  if (strncmp(s, "->", 2) == 0) a->output = 1, s += 2;
  const char *open = strchr(s, '('), *close = strrchr(s, ')');
  if (!open || !close || close < open || close[1] || (size_t)(open - s) >= GU_NAME) return -1;
  memcpy(a->name, s, (size_t)(open - s));
  for (const char *p = open + 1; p < close;) {
    const char *end = p;
    while (end < close && *end != ',') end++;
    if (end == p || a->ncore >= KC_MAX_DIMS || (size_t)(end - p) >= GU_NAME) return -1;
    memcpy(a->dim[a->ncore++], p, (size_t)(end - p));
    p = end < close ? end + 1 : end;
  }
  return 0;
}

static int64_t *bind(gu_dims *d, const char *name) {
  for (int i = 0; i < d->n; i++)
    if (strcmp(d->name[i], name) == 0) return &d->size[i];
  return NULL;
}

/* The layout of k's parameters; -1 when k is not a @guvectorize kernel. */
static int read_layout(const kc_kernel *k, gu_arg *args, int *nin) {
  if (k->nparams < 1 || k->nparams > GU_MAX) return -1;
  *nin = 0;
  for (int i = 0; i < k->nparams; i++) {
    if (parse_param(k->params[i].name, &args[i]) != 0) return -1;
    if (!args[i].output) {
      if (i != *nin) return -1;  /* inputs come first */
      (*nin)++;
    }
    if (k->params[i].ndim != 1 + args[i].ncore) return -1;
  }
  return 0;
}

/* Check array a (argument i) against the layout: loop dims, core dims bound in d. */
static kc_status check_shape(kc_context *ctx, const kc_kernel *k, const gu_arg *g, int i,
                             const kc_array *a, int loop_ndim, const int64_t *loop,
                             gu_dims *d) {
  int rank = loop_ndim + g->ncore;
  if (rank == 0 ? !(a->ndim == 1 && a->shape[0] == 1) : a->ndim != rank)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d ('%s') is %d-D; "
                    "the layout and the loop dimensions want %d-D", k->name, i + 1,
                    g->name, a->ndim, rank ? rank : 1);
  for (int j = 0; j < loop_ndim; j++)
    if (a->shape[j] != loop[j])
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d ('%s') has "
                      "extent %lld on loop axis %d, argument 1 has %lld (loop dimensions "
                      "are not broadcast)", k->name, i + 1, g->name,
                      (long long)a->shape[j], j, (long long)loop[j]);
  for (int c = 0; c < g->ncore; c++) {
    int64_t ext = a->shape[loop_ndim + c], *b = bind(d, g->dim[c]);
    if (!b) {
      snprintf(d->name[d->n], GU_NAME, "%s", g->dim[c]);
      d->size[d->n++] = ext;
    } else if (*b != ext) {
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d ('%s') has %s "
                      "= %lld, an earlier argument has %s = %lld", k->name, i + 1, g->name,
                      g->dim[c], (long long)ext, g->dim[c], (long long)*b);
    }
  }
  return KC_OK;
}

/* A new output of dtype t for argument g, of the loop shape then its core dims. */
static kc_status new_output(kc_context *ctx, const kc_kernel *k, const gu_arg *g,
                            kc_dtype t, int loop_ndim, const int64_t *loop, gu_dims *d,
                            kc_array **out) {
  int64_t shape[KC_MAX_DIMS];
  int nd = 0;
  for (int j = 0; j < loop_ndim; j++) shape[nd++] = loop[j];
  for (int c = 0; c < g->ncore; c++) {
    int64_t *b = bind(d, g->dim[c]);
    if (!b)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': output '%s': no input gives "
                      "its dimension '%s'; pass the output", k->name, g->name, g->dim[c]);
    if (nd >= KC_MAX_DIMS)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': output '%s' would have more "
                      "than %d dimensions", k->name, g->name, KC_MAX_DIMS);
    shape[nd++] = *b;
  }
  if (nd == 0) shape[nd++] = 1;
  return kc_array_new(ctx, t, nd, shape, out);
}

/* a as an array of shape (n, core dims...): the same memory. */
static kc_array flattened(const kc_array *a, int loop_ndim, int ncore, int64_t n) {
  kc_array f = *a;
  f.ndim = 1 + ncore;
  f.shape[0] = n;
  for (int c = 0; c < ncore; c++) f.shape[1 + c] = a->shape[loop_ndim + c];
  return f;
}

static kc_kernel *pick_overload(kc_kernel *k, kc_array *const *inputs, int ninputs) {
  for (kc_kernel *o = k; o; o = o->next_overload) {
    int ok = o->nparams == k->nparams;
    for (int i = 0; ok && i < ninputs; i++) ok = inputs[i]->dtype == o->params[i].dtype;
    if (ok) return o;
  }
  return NULL;
}

static kc_status launch(kc_kernel *v, kc_array *flat, int n, int64_t count) {
  kc_arg args[GU_MAX];
  for (int i = 0; i < n; i++) args[i] = kc_arg_array(&flat[i]);
  int b = 0, fill = 0;
  kc_status s = kc_kernel_suggest_block(v, 0, &b, &fill);
  if (s != KC_OK) return s;
  if (b < 1) b = 1;
  if (fill < 1) fill = 1;
  uint64_t grid = ((uint64_t)count + (uint64_t)b - 1) / (uint64_t)b;
  if (grid > (uint64_t)fill * GU_WAVES) grid = (uint64_t)fill * GU_WAVES;
  if (grid > v->mod->ctx->limits.max_grid[0]) grid = v->mod->ctx->limits.max_grid[0];
  return kc_launch(v, kc_dim((unsigned)grid), kc_dim((unsigned)b), 0, NULL, args, n);
}

/* Check everything, allocate missing outputs into made[], launch. */
static kc_status run(kc_context *ctx, kc_kernel *k, kc_array *const *inputs, int nin,
                     kc_array **outputs, int nout, kc_array **made) {
  gu_arg g[GU_MAX];
  int knin = 0;
  if (k->nparams < 0 || read_layout(k, g, &knin) != 0)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': %s is not the kernel of a "
                    "@guvectorize function", k->name, k->signature);
  if (knin != nin || k->nparams - knin != nout)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': %d inputs and %d outputs "
                    "given; the layout has %d and %d", k->name, nin, nout, knin,
                    k->nparams - knin);
  for (int i = 0; i < nin + nout; i++) {
    const kc_array *a = i < nin ? inputs[i] : outputs[i - nin];
    if (i < nin && !a)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': input %d is NULL", k->name, i + 1);
    if (a && a->ctx != ctx)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d is an array of "
                      "another context", k->name, i + 1);
  }
  kc_kernel *v = pick_overload(k, inputs, nin);
  if (!v)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': no signature takes these input "
                    "dtypes (first: %s)", k->name, kc_dtype_name(inputs[0]->dtype));
  int loop_ndim = inputs[0]->ndim - g[0].ncore;
  if (loop_ndim < 0)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': input 1 ('%s') is %d-D; its "
                    "layout has %d core dimensions", k->name, g[0].name, inputs[0]->ndim,
                    g[0].ncore);
  int64_t loop[KC_MAX_DIMS], count = 1;
  for (int j = 0; j < loop_ndim; j++) loop[j] = inputs[0]->shape[j], count *= loop[j];
  gu_dims d;
  d.n = 0;
  kc_array flat[GU_MAX];
  kc_status s = KC_OK;
  for (int i = 0; i < nin && s == KC_OK; i++)
    s = check_shape(ctx, v, &g[i], i, inputs[i], loop_ndim, loop, &d);
  for (int o = 0; o < nout && s == KC_OK; o++) {
    int i = nin + o;
    kc_array *a = outputs[o];
    if (!a) {
      s = new_output(ctx, v, &g[i], v->params[i].dtype, loop_ndim, loop, &d, &made[o]);
      a = made[o];
    } else if (a->dtype != v->params[i].dtype) {
      s = rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': output '%s' is %s; the "
                   "signature wants %s", k->name, g[i].name, kc_dtype_name(a->dtype),
                   kc_dtype_name(v->params[i].dtype));
    }
    if (s == KC_OK) s = check_shape(ctx, v, &g[i], i, a, loop_ndim, loop, &d);
  }
  if (s != KC_OK || count == 0) return s;
  for (int i = 0; i < nin + nout; i++) {
    const kc_array *a = i < nin ? inputs[i] : (outputs[i - nin] ? outputs[i - nin] : made[i - nin]);
    flat[i] = flattened(a, loop_ndim, g[i].ncore, count);
  }
  return launch(v, flat, nin + nout, count);
}

kc_status kc_guvectorize(kc_kernel *k, kc_array *const *inputs, int ninputs,
                         kc_array **outputs, int noutputs) {
  if (!k) return KC_ERR_INVALID;
  kc_context *ctx = k->mod->ctx;
  if (ninputs < 1 || noutputs < 1 || ninputs + noutputs > GU_MAX || !inputs || !outputs)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': bad argument lists (%d inputs, "
                    "%d outputs)", k->name, ninputs, noutputs);
  kc_array *made[GU_MAX] = {0};
  kc_status s = run(ctx, k, inputs, ninputs, outputs, noutputs, made);
  for (int o = 0; o < noutputs; o++) {
    if (!made[o]) continue;
    if (s == KC_OK) outputs[o] = made[o];
    else kc_array_free(made[o]);
  }
  return s;
}
