/*
 * synth.c — kernels the compiler generates, written as kernel-language templates and
 * parsed with the ordinary parser (see synth.h). Names the template introduces start
 * with _kc_, so they cannot shadow the user's functions the template calls.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "synth.h"

static void respan_list(node_list *l, span sp) {
  for (int i = 0; i < l->len; i++) synth_respan(l->items[i], sp);
}

void synth_respan(node *n, span sp) {
  if (!n) return;
  n->sp = sp;
  synth_respan(n->a, sp);
  synth_respan(n->b, sp);
  synth_respan(n->c, sp);
  respan_list(&n->list, sp);
  respan_list(&n->kwargs, sp);
  respan_list(&n->body, sp);
  respan_list(&n->orelse, sp);
  respan_list(&n->params, sp);
  respan_list(&n->decorators, sp);
}

/* The first function definition of a parsed template, renamed, spans set. */
static node *template_def(arena *a, diag_sink *d, const char *text, const char *name,
                          span where) {
  int before = d->nerrors;
  node *mod = parse_kernel_source(a, d, text, strlen(text));
  if (d->nerrors != before) return NULL;
  for (int i = 0; i < mod->body.len; i++) {
    node *s = mod->body.items[i];
    if (s->kind != N_FUNCDEF) continue;
    s->str = name;
    s->decorators.len = 0;  /* the caller classifies it */
    synth_respan(s, where);
    return s;
  }
  return NULL;
}

/* One block: each thread folds its grid-stride elements with OP (a thread without
 * elements holds nothing; its first element starts the fold, as OP may have no
 * identity, and a thread without one takes a value from shared memory only to give the
 * local its type). The rest is a plain grid-stride for, which the CPU back end runs
 * step by step across the block's threads and vectorises (host_regions.c). The block's threads that hold a value are a prefix of
 * length count, combined by a shared-memory tree (pairs t, t + s while t + s < count).
 * With any_block the block may have fewer threads than the shared array (the tree's
 * first steps then find no pairs): the CPU's kernel, which the CUDA double
 * (tests/cuda_double) also launches with CUDA's block.
 * Warp shuffles would replace the last five tree steps and their barriers. */
static const char reduce_template[] =
  "def _kc_reduce(_kc_arr, _kc_out, _kc_init, _kc_has_init):\n"
  "    _kc_vals = cuda.shared.array(%d, _kc_arr.dtype)\n"
  "    _kc_t = cuda.threadIdx.x\n"
  "    _kc_n = _kc_arr.size\n"
  "    _kc_first = int64(cuda.blockIdx.x) * %s\n"
  "    _kc_stride = int64(cuda.gridDim.x) * %s\n"
  "    _kc_start = _kc_first + _kc_t\n"
  "    _kc_acc = _kc_arr[_kc_start] if _kc_start < _kc_n else _kc_vals[_kc_t]\n"
  "    for _kc_i in range(_kc_start + _kc_stride, _kc_n, _kc_stride):\n"
  "        _kc_acc = %s(_kc_acc, _kc_arr[_kc_i])\n"
  "    if _kc_start < _kc_n:\n"
  "        _kc_vals[_kc_t] = _kc_acc\n"
  "    cuda.syncthreads()\n"
  "    _kc_count = min(_kc_n - _kc_first, %s)\n"
  "    _kc_s = %d\n"
  "    while _kc_s > 0:\n"
  "        if _kc_t < _kc_s and _kc_t + _kc_s < _kc_count:\n"
  "            _kc_vals[_kc_t] = %s(_kc_vals[_kc_t], _kc_vals[_kc_t + _kc_s])\n"
  "        cuda.syncthreads()\n"
  "        _kc_s //= 2\n"
  "    if _kc_t == 0 and _kc_count > 0:\n"
  "        _kc_r = _kc_vals[0]\n"
  "        if _kc_has_init:\n"
  "            _kc_r = %s(_kc_r, _kc_init)\n"
  "        _kc_out[cuda.blockIdx.x] = _kc_r\n";

node *synth_reduce_kernel(arena *a, diag_sink *d, const char *op, int block, bool any_block,
                          span where) {
  const int b = block;
  const char *threads = any_block ? "cuda.blockDim.x" : arena_printf(a, "%d", b);
  char *text = arena_printf(a, reduce_template, b, threads, threads, op, threads, b / 2, op, op);
  return template_def(a, d, text, op, where);
}

const char *synth_lib_source(const char *module) {
  for (const synth_lib_module *m = synth_lib_modules; m->name; m++)
    if (strcmp(m->name, module) == 0) return m->source;
  return NULL;
}

node *synth_lib_module_tree(arena *a, diag_sink *d, const char *module, span where) {
  const char *src = synth_lib_source(module);
  if (!src) return NULL;
  int before = d->nerrors;
  node *m = parse_kernel_source(a, d, src, strlen(src));
  if (d->nerrors != before) return NULL;
  synth_respan(m, where);
  return m;
}

node *synth_vectorize_kernel(arena *a, diag_sink *d, const char *scalar, const char *name,
                             int nin, unsigned scalars, span where) {
  char *params = arena_strdup(a, ""), *args = arena_strdup(a, "");
  for (int k = 0; k < nin; k++) {
    params = arena_printf(a, "%s_kc_in%d, ", params, k);
    args = arena_printf(a, "%s%s_kc_in%d%s", args, k ? ", " : "", k,
                        kcc_scalar_input(scalars, k) ? "" : "[_kc_i]");
  }
  char *text = arena_printf(a,
      "def _kc_ufunc(%s_kc_out):\n"
      "    for _kc_i in range(cuda.grid(1), _kc_out.size, cuda.gridsize(1)):\n"
      "        _kc_out[_kc_i] = %s(%s)\n", params, scalar, args);
  return template_def(a, d, text, name, where);
}

/* The @guvectorize loop kernel. Loop index i runs over the broadcast loop shape
 * (e0, e1, e2) (the runtime coalesces it to at most three dimensions, outermost first,
 * padded with extent 1); bit k of _kc_b<d> says argument k is broadcast on dimension d
 * (its extent there is 1). Argument k's row is then x0 * s0 + x1 * s1 + x2 * s2 with
 * its own C-order strides, 0 where it is broadcast: with u_d = 1 - bit and
 * o_d = 1 + u_d * (e_d - 1) its extents, s2 = u2, s1 = u1 * o2, s0 = u0 * o1 * o2.
 * One loop dimension (no broadcasting, or an argument broadcast along all of it) needs
 * no division. */
static char *gu_strides(arena *a, char *text, int k) {
  for (int dim = 0; dim < 3; dim++)
    text = arena_printf(a, "%s    _kc_u%d_%d = 1 - ((_kc_b%d >> %d) & 1)\n", text, k, dim, dim, k);
  for (int dim = 1; dim < 3; dim++)
    text = arena_printf(a, "%s    _kc_o%d_%d = 1 + _kc_u%d_%d * (_kc_e%d - 1)\n", text, k, dim,
                        k, dim, dim);
  return arena_printf(a,
      "%s    _kc_s%d_2 = _kc_u%d_2\n"
      "    _kc_s%d_1 = _kc_u%d_1 * _kc_o%d_2\n"
      "    _kc_s%d_0 = _kc_u%d_0 * _kc_o%d_1 * _kc_o%d_2\n",
      text, k, k, k, k, k, k, k, k, k);
}

node *synth_guvectorize_kernel(arena *a, diag_sink *d, const char *core, const char *name,
                               const synth_gu_pass *pass, int nargs, span where) {
  char *params = arena_strdup(a, ""), *strides = arena_strdup(a, ""), *args = arena_strdup(a, "");
  for (int k = 0; k < nargs; k++) {
    const char *sep = k ? ", " : "";
    params = arena_printf(a, "%s_kc_a%d, ", params, k);
    strides = gu_strides(a, strides, k);
    char *row = arena_printf(a, "_kc_x0 * _kc_s%d_0 + _kc_x1 * _kc_s%d_1 + _kc_x2 * _kc_s%d_2",
                             k, k, k);
    if (pass[k] == GU_ROW) args = arena_printf(a, "%s%s_kc_row(_kc_a%d, %s)", args, sep, k, row);
    else if (pass[k] == GU_CELL) args = arena_printf(a, "%s%s_kc_cell(_kc_a%d, %s)", args, sep, k, row);
    else args = arena_printf(a, "%s%s_kc_a%d[%s]", args, sep, k, row);
  }
  char *text = arena_printf(a,
      "def _kc_gufunc(%s" SYNTH_GU_LOOP_PARAMS "):\n"
      "%s"
      "    _kc_nd = _kc_e1 != 1 or _kc_e2 != 1\n"
      "    for _kc_i in range(cuda.grid(1), _kc_n, cuda.gridsize(1)):\n"
      "        _kc_x0 = _kc_i\n"
      "        _kc_x1 = 0\n"
      "        _kc_x2 = 0\n"
      "        if _kc_nd:\n"
      "            _kc_x2 = _kc_i %% _kc_e2\n"
      "            _kc_x1 = _kc_i // _kc_e2 %% _kc_e1\n"
      "            _kc_x0 = _kc_i // _kc_e2 // _kc_e1\n"
      "        %s(%s)\n", params, strides, core, args);
  return template_def(a, d, text, name, where);
}
