/*
 * vectorize.c — kc_vectorize: call a @vectorize function on device arrays, as Numba's
 * CUDA ufuncs are called. The compiler turns each signature of a @vectorize function
 * into a kernel of 1-D arrays (the inputs, then the output) whose body is a grid-stride
 * loop over the output's length, so any grid is correct and the launch shape is only a
 * matter of speed: rt_grid_stride_shape (launch.c) picks it.
 *
 * Assumes k is such a kernel; a plain kernel of 1-D arrays would be launched with the
 * same shape, which covers every element only if it loops the same way.
 */
#include <stdio.h>

#include "rt.h"

#define VEC_MAX_ARGS 128   /* a 1-D array is two kernelParams words: fits the table */

/* The kernel's name for parameter i, for messages: " ('x')" or "". */
static const char *param_label(const kc_kernel *k, int i, char *buf, size_t len) {
  if (i < k->nparams && k->params[i].name && k->params[i].name[0])
    snprintf(buf, len, " ('%s')", k->params[i].name);
  else
    buf[0] = '\0';
  return buf;
}

/* Is k a kernel of ninputs + 1 one-dimensional arrays whose inputs take these dtypes? */
static int signature_matches(const kc_kernel *k, kc_array *const *inputs, int ninputs) {
  if (k->nparams != ninputs + 1) return 0;
  for (int i = 0; i <= ninputs; i++)
    if (k->params[i].ndim != 1) return 0;
  for (int i = 0; i < ninputs; i++)
    if (inputs[i]->dtype != k->params[i].dtype) return 0;
  return 1;
}

/* Every input present, of this context, one-dimensional. */
static kc_status check_inputs(kc_context *ctx, const kc_kernel *k, kc_array *const *inputs,
                              int ninputs) {
  for (int i = 0; i < ninputs; i++) {
    const kc_array *a = inputs[i];
    if (!a)
      return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': input %d is NULL", k->name,
                      i + 1);
    if (a->magic != RT_ARRAY_LIVE)
      return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': input %d was freed", k->name,
                      i + 1);
    if (a->ctx != ctx)
      return rt_error(ctx, KC_ERR_INVALID,
                      "vectorize '%s': input %d is an array of another context", k->name,
                      i + 1);
    if (a->ndim != 1)
      return rt_error(ctx, KC_ERR_INVALID,
                      "vectorize '%s': input %d is a %d-D array; @vectorize kernels take "
                      "1-D arrays", k->name, i + 1, a->ndim);
  }
  return KC_OK;
}

/* The overload of k (one per @vectorize signature) whose inputs take these dtypes, or
 * an error that names the first argument the first signature does not accept. */
static kc_status pick_overload(kc_context *ctx, kc_kernel *k, kc_array *const *inputs,
                               int ninputs, kc_kernel **out) {
  for (kc_kernel *o = k; o; o = o->next_overload)
    if (signature_matches(o, inputs, ninputs)) {
      *out = o;
      return KC_OK;
    }
  const char *more = k->next_overload ? " (nor does any other signature)" : "";
  if (k->nparams != ninputs + 1)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': %d input%s given; %s takes %d%s", k->name, ninputs,
                    ninputs == 1 ? "" : "s", k->signature, k->nparams - 1, more);
  char label[200], want[64], got[64];
  for (int i = 0; i <= ninputs; i++)
    if (k->params[i].ndim != 1)
      return rt_error(ctx, KC_ERR_INVALID,
                      "vectorize '%s': %s is not a @vectorize kernel (parameter %d%s is "
                      "not a 1-D array)", k->name, k->signature, i + 1,
                      param_label(k, i, label, sizeof label));
  for (int i = 0; i < ninputs; i++)
    if (inputs[i]->dtype != k->params[i].dtype) {
      rt_format_type(k->params[i].dtype, 1, want, sizeof want);
      rt_format_type(inputs[i]->dtype, 1, got, sizeof got);
      return rt_error(ctx, KC_ERR_INVALID,
                      "vectorize '%s': input %d%s is %s; the signature wants %s%s", k->name,
                      i + 1, param_label(k, i, label, sizeof label), got, want, more);
    }
  return rt_error(ctx, KC_ERR_INTERNAL, "vectorize '%s': no overload chosen", k->name);
}

/* Every input (and a given output) has n elements; the output has the result dtype. */
static kc_status check_lengths(kc_context *ctx, const kc_kernel *k, kc_array *const *inputs,
                               int ninputs, const kc_array *out, int64_t n) {
  char label[200], want[64], got[64];
  for (int i = 1; i < ninputs; i++)
    if (inputs[i]->shape[0] != n)
      return rt_error(ctx, KC_ERR_INVALID,
                      "vectorize '%s': input %d%s has %lld elements, input 1 has %lld",
                      k->name, i + 1, param_label(k, i, label, sizeof label),
                      (long long)inputs[i]->shape[0], (long long)n);
  if (!out) return KC_OK;
  param_label(k, ninputs, label, sizeof label);
  if (out->magic != RT_ARRAY_LIVE)
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': the output%s was freed", k->name,
                    label);
  if (out->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': the output%s is an array of another context", k->name,
                    label);
  const rt_param *p = &k->params[ninputs];
  if (out->ndim != 1 || out->dtype != p->dtype) {
    rt_format_type(p->dtype, 1, want, sizeof want);
    rt_format_type(out->dtype, out->ndim, got, sizeof got);
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': the output%s is %s; the signature wants %s", k->name,
                    label, got, want);
  }
  if (ninputs > 0 && out->shape[0] != n)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': the output%s has %lld elements, the inputs have %lld",
                    k->name, label, (long long)out->shape[0], (long long)n);
  return KC_OK;
}

kc_status kc_vectorize(kc_kernel *k, kc_array *const *inputs, int ninputs, kc_array **out) {
  if (!k || !out) return KC_ERR_INVALID;
  kc_context *ctx = k->mod->ctx;
  if (ninputs < 0 || (ninputs > 0 && !inputs))
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': bad input list", k->name);
  if (ninputs + 1 > VEC_MAX_ARGS)
    return rt_error(ctx, KC_ERR_INVALID, "vectorize '%s': %d inputs; at most %d", k->name,
                    ninputs, VEC_MAX_ARGS - 1);
  if (k->nparams < 0)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': the kernel is untyped; a @vectorize function needs "
                    "its signatures", k->name);
  kc_status s = check_inputs(ctx, k, inputs, ninputs);
  if (s != KC_OK) return s;
  kc_kernel *v = NULL;
  if ((s = pick_overload(ctx, k, inputs, ninputs, &v)) != KC_OK) return s;
  if (ninputs == 0 && !*out)
    return rt_error(ctx, KC_ERR_INVALID,
                    "vectorize '%s': no inputs to take the length from: pass an output",
                    k->name);
  int64_t n = ninputs > 0 ? inputs[0]->shape[0] : (*out)->shape[0];
  if ((s = check_lengths(ctx, v, inputs, ninputs, *out, n)) != KC_OK) return s;

  kc_array *result = *out;
  if (!result && (s = kc_array_new(ctx, v->params[ninputs].dtype, 1, &n, &result)) != KC_OK)
    return s;
  if (n > 0) {
    kc_arg args[VEC_MAX_ARGS];
    for (int i = 0; i < ninputs; i++) args[i] = kc_arg_array(inputs[i]);
    args[ninputs] = kc_arg_array(result);
    unsigned grid = 1, block = 1;
    s = rt_grid_stride_shape(v, n, &grid, &block);
    if (s == KC_OK) s = kc_launch(v, kc_dim(grid), kc_dim(block), 0, NULL, args, ninputs + 1);
  }
  if (s != KC_OK) {
    if (result != *out) kc_array_free(result);
    return s;
  }
  *out = result;
  return KC_OK;
}
