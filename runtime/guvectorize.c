/*
 * guvectorize.c — kc_guvectorize: call a @guvectorize function on arrays, as a Numba
 * CUDA gufunc is called. The compiler makes one loop kernel per signature (synth.c):
 * each argument is an array whose first axis is its loop dimensions flattened, the
 * rest its core dimensions, and one thread per loop index calls the core function on
 * the views. The layout travels in the kernel's parameter names: "x(m,n)" for an
 * input, "->r(m)" for an output (compiler: infer.c, gu_param_name); six int64
 * parameters follow the arrays (synth.h, SYNTH_GU_LOOP_PARAMS).
 *
 * Here: the layout is read back and the loop dimensions broadcast as NumPy broadcasts
 * a gufunc's: right-aligned, a missing or size-1 dimension takes the other arguments'
 * extent, outputs take part in the loop shape but are never broadcast themselves. Each
 * core dimension name is bound to one size, outputs are allocated when not given, and
 * the loop shape is coalesced (dimensions of size 1 dropped, neighbours merged where
 * every argument is broadcast along both or neither) to at most three, whose inner
 * extents and per-dimension masks of the broadcast arguments the kernel takes. Each
 * array is passed as a flattened alias of itself: the same data, shape (its own loop
 * rows, core dims...).
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

#define GU_MAX 32
#define GU_NAME 64
#define GU_KDIMS 3   /* loop dimensions the kernel indexes, after coalescing */
#define GU_NLOOP 6   /* its int64 parameters after the arrays (synth.h) */

/* The names of those parameters, as SYNTH_GU_LOOP_PARAMS in src/sema/synth.h gives them. */
static const char *const gu_loop_names[GU_NLOOP] = {"_kc_n", "_kc_e1", "_kc_e2",
                                                    "_kc_b0", "_kc_b1", "_kc_b2"};

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

typedef struct gu_loop {    /* the broadcast loop shape */
  int ndim;
  int64_t extent[KC_MAX_DIMS];
  int from[KC_MAX_DIMS];    /* the argument that gave extent[d] when it is not 1 */
} gu_loop;

typedef struct gu_plan {    /* the coalesced loop the kernel runs */
  int64_t count;
  int64_t extent[GU_KDIMS];
  uint64_t broadcast[GU_KDIMS];  /* bit k: argument k is broadcast along the dimension */
} gu_plan;

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

/* The layout of k's array parameters and their count; -1 when k is not a @guvectorize
 * loop kernel (of this version of kcc: the loop parameters follow the arrays). */
static int read_layout(const kc_kernel *k, gu_arg *args, int *nargs, int *nin) {
  int n = k->nparams - GU_NLOOP;
  if (n < 1 || n > GU_MAX) return -1;
  for (int i = 0; i < GU_NLOOP; i++) {
    const rt_param *p = &k->params[n + i];
    if (p->ndim != 0 || p->dtype != KC_INT64 || strcmp(p->name, gu_loop_names[i]) != 0)
      return -1;
  }
  *nargs = n;
  *nin = 0;
  for (int i = 0; i < n; i++) {
    if (parse_param(k->params[i].name, &args[i]) != 0) return -1;
    if (!args[i].output) {
      if (i != *nin) return -1;  /* inputs come first */
      (*nin)++;
    }
    if (k->params[i].ndim != 1 + args[i].ncore) return -1;
  }
  return 0;
}

/* "(4, 5)", as NumPy writes a shape. */
static const char *shape_text(char *buf, size_t size, int nd, const int64_t *shape) {
  int at = snprintf(buf, size, "(");
  for (int j = 0; j < nd && at > 0 && (size_t)at < size; j++)
    at += snprintf(buf + at, size - (size_t)at, "%s%lld", j ? ", " : "", (long long)shape[j]);
  if (at > 0 && (size_t)at < size) snprintf(buf + at, size - (size_t)at, ")");
  return buf;
}

/* Fold argument i's loop dimensions (the leading ones of a, before its core ones) into
 * the loop shape, right-aligned: an extent broadcasts against an equal one or 1. */
static kc_status broadcast(kc_context *ctx, const kc_kernel *k, const gu_arg *g, int i,
                           const kc_array *a, gu_loop *loop) {
  int nd = a->ndim - g->ncore;
  if (nd < 0)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d ('%s') is %d-D; "
                    "its layout has %d core dimensions", k->name, i + 1, g->name, a->ndim,
                    g->ncore);
  if (nd > loop->ndim) {  /* new outer dimensions, of extent 1 so far */
    int add = nd - loop->ndim;
    for (int d = loop->ndim - 1; d >= 0; d--)
      loop->extent[d + add] = loop->extent[d], loop->from[d + add] = loop->from[d];
    for (int d = 0; d < add; d++) loop->extent[d] = 1, loop->from[d] = -1;
    loop->ndim = nd;
  }
  for (int j = 0; j < nd; j++) {
    int d = loop->ndim - nd + j;
    int64_t e = a->shape[j];
    if (e == loop->extent[d] || e == 1) continue;
    if (loop->extent[d] == 1) {
      loop->extent[d] = e, loop->from[d] = i;
      continue;
    }
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d ('%s') has extent "
                    "%lld on its axis %d, which does not broadcast against extent %lld of "
                    "argument %d (loop dimensions broadcast when equal or 1)", k->name,
                    i + 1, g->name, (long long)e, j, (long long)loop->extent[d],
                    loop->from[d] + 1);
  }
  return KC_OK;
}

/* Bind argument i's core dimensions (the trailing ones of a) in d. */
static kc_status bind_core(kc_context *ctx, const kc_kernel *k, const gu_arg *g, int i,
                           const kc_array *a, gu_dims *d) {
  for (int c = 0; c < g->ncore; c++) {
    int64_t ext = a->shape[a->ndim - g->ncore + c], *b = bind(d, g->dim[c]);
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

/* An output is written, never broadcast: its loop dimensions (which took part in the
 * loop shape) are the loop shape. */
static kc_status check_output(kc_context *ctx, const kc_kernel *k, const gu_arg *g,
                              const kc_array *a, const gu_loop *loop) {
  int nd = a->ndim - g->ncore, same = nd == loop->ndim;
  for (int d = 0; same && d < loop->ndim; d++) same = a->shape[d] == loop->extent[d];
  if (same) return KC_OK;
  char has[96], want[96];
  return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': output '%s' has loop dimensions "
                  "%s, the arguments broadcast to %s (an output is not broadcast)", k->name,
                  g->name, shape_text(has, sizeof has, nd, a->shape),
                  shape_text(want, sizeof want, loop->ndim, loop->extent));
}

/* A new output of dtype t for argument g, of the loop shape then its core dims. */
static kc_status new_output(kc_context *ctx, const kc_kernel *k, const gu_arg *g,
                            kc_dtype t, const gu_loop *loop, gu_dims *d, kc_array **out) {
  int64_t shape[KC_MAX_DIMS];
  int nd = 0;
  for (int j = 0; j < loop->ndim; j++) shape[nd++] = loop->extent[j];
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

/* a's extent on loop dimension d (1 where a has no such dimension). */
static int64_t own_extent(const kc_array *a, const gu_arg *g, const gu_loop *loop, int d) {
  int skip = loop->ndim - (a->ndim - g->ncore);  /* missing leading dimensions */
  return d < skip ? 1 : a->shape[d - skip];
}

/* The loop the kernel runs: dimensions of extent 1 dropped, neighbours merged where
 * each argument is broadcast along both or along neither (its rows are then one C-order
 * run), which leaves at most three; then padded with extent 1. */
static void coalesce(const gu_loop *loop, kc_array *const *arr, const gu_arg *g, int nargs,
                     gu_plan *p) {
  int nd = 0;
  p->count = 1;
  for (int d = 0; d < loop->ndim; d++) {
    int64_t e = loop->extent[d];
    p->count *= e;
    if (e == 1) continue;
    uint64_t bits = 0;
    for (int k = 0; k < nargs; k++)
      if (own_extent(arr[k], &g[k], loop, d) == 1) bits |= (uint64_t)1 << k;
    if (nd > 0 && p->broadcast[nd - 1] == bits) {
      p->extent[nd - 1] *= e;
    } else {
      p->extent[nd] = e, p->broadcast[nd] = bits;
      nd++;
    }
  }
  for (; nd < GU_KDIMS; nd++) p->extent[nd] = 1, p->broadcast[nd] = 0;
}

/* Argument k as an array of shape (its rows in the loop, core dims...): same memory. */
static kc_array flattened(const kc_array *a, const gu_arg *g, const gu_plan *p, int k) {
  kc_array f = *a;
  f.ndim = 1 + g->ncore;
  f.shape[0] = 1;
  for (int d = 0; d < GU_KDIMS; d++)
    if (!((p->broadcast[d] >> k) & 1)) f.shape[0] *= p->extent[d];
  for (int c = 0; c < g->ncore; c++) f.shape[1 + c] = a->shape[a->ndim - g->ncore + c];
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

static kc_status launch(kc_kernel *v, kc_array *flat, int n, const gu_plan *p,
                        kc_stream *stream) {
  kc_arg args[GU_MAX + GU_NLOOP];
  for (int i = 0; i < n; i++) args[i] = kc_arg_array(&flat[i]);
  const int64_t loop[GU_NLOOP] = {p->count, p->extent[1], p->extent[2],
                                  (int64_t)p->broadcast[0], (int64_t)p->broadcast[1],
                                  (int64_t)p->broadcast[2]};
  for (int i = 0; i < GU_NLOOP; i++) args[n + i] = kc_arg_i64(loop[i]);
  unsigned grid, block;
  kc_status s = rt_grid_stride_shape(v, p->count, &grid, &block);
  if (s != KC_OK) return s;
  return kc_launch(v, kc_dim(grid), kc_dim(block), 0, stream, args, n + GU_NLOOP);
}

/* The arrays are those of this context, the inputs not NULL. */
static kc_status check_arrays(kc_context *ctx, const kc_kernel *k, kc_array *const *inputs,
                              int nin, kc_array *const *outputs, int nout) {
  for (int i = 0; i < nin + nout; i++) {
    const kc_array *a = i < nin ? inputs[i] : outputs[i - nin];
    if (i < nin && !a)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': input %d is NULL", k->name, i + 1);
    if (a && a->ctx != ctx)
      return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': argument %d is an array of "
                      "another context", k->name, i + 1);
  }
  return KC_OK;
}

/* Check everything, allocate missing outputs into made[], launch. */
static kc_status run(kc_context *ctx, kc_kernel *k, kc_array *const *inputs, int nin,
                     kc_array **outputs, int nout, kc_array **made, kc_stream *stream) {
  gu_arg g[GU_MAX];
  int nargs = 0, knin = 0;
  if (k->nparams < 0 || read_layout(k, g, &nargs, &knin) != 0)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': %s is not the loop kernel of a "
                    "@guvectorize function (of this kcc)", k->name, k->signature);
  if (knin != nin || nargs - knin != nout)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': %d inputs and %d outputs "
                    "given; the layout has %d and %d", k->name, nin, nout, knin,
                    nargs - knin);
  kc_status s = check_arrays(ctx, k, inputs, nin, outputs, nout);
  if (s != KC_OK) return s;
  kc_kernel *v = pick_overload(k, inputs, nin);
  if (!v)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': no signature takes these input "
                    "dtypes (first: %s)", k->name, kc_dtype_name(inputs[0]->dtype));
  gu_loop loop = {0};
  gu_dims d;
  d.n = 0;
  for (int i = 0; i < nargs && s == KC_OK; i++) {
    const kc_array *a = i < nin ? inputs[i] : outputs[i - nin];
    if (i >= nin && a && a->dtype != v->params[i].dtype)
      s = rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': output '%s' is %s; the "
                   "signature wants %s", k->name, g[i].name, kc_dtype_name(a->dtype),
                   kc_dtype_name(v->params[i].dtype));
    if (a && s == KC_OK) s = broadcast(ctx, v, &g[i], i, a, &loop);
    if (a && s == KC_OK) s = bind_core(ctx, v, &g[i], i, a, &d);
  }
  kc_array *arr[GU_MAX];
  for (int i = 0; i < nargs && s == KC_OK; i++) {
    arr[i] = i < nin ? inputs[i] : outputs[i - nin];
    if (i < nin) continue;
    if (arr[i]) {
      s = check_output(ctx, v, &g[i], arr[i], &loop);
    } else {
      s = new_output(ctx, v, &g[i], v->params[i].dtype, &loop, &d, &made[i - nin]);
      arr[i] = made[i - nin];
    }
  }
  if (s != KC_OK) return s;
  gu_plan plan;
  coalesce(&loop, arr, g, nargs, &plan);
  if (plan.count == 0) return KC_OK;
  kc_array flat[GU_MAX];
  for (int i = 0; i < nargs; i++) flat[i] = flattened(arr[i], &g[i], &plan, i);
  return launch(v, flat, nargs, &plan, stream);
}

kc_status kc_guvectorize(kc_kernel *k, kc_array *const *inputs, int ninputs,
                         kc_array **outputs, int noutputs) {
  return kc_guvectorize_stream(k, inputs, ninputs, outputs, noutputs, NULL);
}

kc_status kc_guvectorize_stream(kc_kernel *k, kc_array *const *inputs, int ninputs,
                                kc_array **outputs, int noutputs, kc_stream *stream) {
  RT_NEED(NULL, k, "kc_guvectorize");
  RT_NEED(k->mod->ctx, inputs, "kc_guvectorize");
  RT_NEED(k->mod->ctx, outputs, "kc_guvectorize");
  kc_context *ctx = k->mod->ctx;
  if (ninputs < 1 || noutputs < 1 || ninputs + noutputs > GU_MAX || !inputs || !outputs)
    return rt_error(ctx, KC_ERR_INVALID, "guvectorize '%s': bad argument lists (%d inputs, "
                    "%d outputs)", k->name, ninputs, noutputs);
  kc_status s = rt_stream_check(ctx, stream, "guvectorize");
  if (s != KC_OK) return s;
  kc_array *made[GU_MAX] = {0};
  s = run(ctx, k, inputs, ninputs, outputs, noutputs, made, stream);
  for (int o = 0; o < noutputs; o++) {
    if (!made[o]) continue;
    if (s == KC_OK) outputs[o] = made[o];
    else kc_array_free(made[o]);
  }
  return s;
}
