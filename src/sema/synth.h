/*
 * synth.h — code the compiler writes for the program, in the kernel language itself:
 * the kernels behind @vectorize, @guvectorize and @cuda.reduce functions, and the
 * library modules of lib/.
 * Each is parsed from text with the ordinary parser and handed to type inference as
 * if the user had written it; every node's span is set to the span of the user's
 * code that asked for it, so any message points there.
 */
#ifndef KCC_SYNTH_H
#define KCC_SYNTH_H

#include "ast.h"
#include "compile.h"
#include "diag.h"

/* The N_FUNCDEF of the reduction kernel for the binary device function `op`:
 *   def <op>(arr, out, init, has_init)   (parameter names prefixed with _kc_)
 * Each block has `block` threads (kcc_reduce_block), or with any_block at most that
 * many (cuda.blockDim.x), and block b reduces the
 * grid-stride slice of arr starting at b * block into out[b]; with has_init, init is combined into each block's result (the runtime
 * passes it to the last stage only). A launch of one block reduces arr to out[0].
 * Spans are set to `where`. NULL when the template does not parse (a bug). */
node *synth_reduce_kernel(arena *a, diag_sink *d, const char *op, int block, bool any_block,
                          span where);

/* The N_FUNCDEF of the elementwise kernel of a @vectorize function `scalar` of nin
 * arguments, the contract of runtime/vectorize.c:
 *   def <name>(_kc_in0, ..., _kc_in<nin-1>, _kc_out)   1-D arrays
 * one grid-stride loop over the output's length storing scalar(in0[i], ...) into
 * out[i], so any launch shape covers every element. An input whose bit is set in
 * scalars (bit k: input k) is a scalar, passed to every call as it is
 * (kcc_options.scalar_ufunc). Spans are set to `where`. */
node *synth_vectorize_kernel(arena *a, diag_sink *d, const char *scalar, const char *name,
                             int nin, unsigned scalars, span where);

/* How the @guvectorize loop kernel passes argument k to the core function. */
typedef enum synth_gu_pass {
  GU_ROW,   /* core dims >= 1: the sub-array _kc_row(a, i) */
  GU_CELL,  /* core () declared as an array: the one-element array _kc_cell(a, i) */
  GU_ELEM   /* core () declared as a scalar: the element a[i] */
} synth_gu_pass;

/* The int64 parameters the @guvectorize loop kernel takes after its nargs arrays, in
 * this order (runtime/guvectorize.c passes them): the loop count, the extents of loop
 * dimensions 1 and 2 (of at most three, coalesced), and per loop dimension a mask of
 * the arguments broadcast along it (bit k: argument k). */
#define SYNTH_GU_LOOP_PARAMS "_kc_n, _kc_e1, _kc_e2, _kc_b0, _kc_b1, _kc_b2"
#define SYNTH_GU_NLOOP_PARAMS 6

/* The N_FUNCDEF of the loop kernel of a @guvectorize function `core` with nargs
 * arguments: each argument k is an array whose first axis is its loop dimensions
 * flattened (fewer rows where it is broadcast); one thread per loop index (grid-stride)
 * calls core with the views pass[k] says of the rows the broadcast picks. Named `name`,
 * spans set to `where`. */
node *synth_guvectorize_kernel(arena *a, diag_sink *d, const char *core, const char *name,
                               const synth_gu_pass *pass, int nargs, span where);

/* The standard library written in the kernel language (the .k files of lib/), embedded at build
 * time by scripts/embed_lib.py: module name ("numba.cuda.random") and source text. */
typedef struct synth_lib_module {
  const char *name;
  const char *source;
} synth_lib_module;
extern const synth_lib_module synth_lib_modules[];  /* ends with {NULL, NULL} */

/* The source of a library module, or NULL when there is no such module. */
const char *synth_lib_source(const char *module);

/* The parsed tree (N_MODULE) of a library module, every span set to `where` (the
 * import that asked for it, where any message about its code then points); NULL when
 * there is no such module or it does not parse (a bug). */
node *synth_lib_module_tree(arena *a, diag_sink *d, const char *module, span where);

/* Set the span of n and everything under it to sp. */
void synth_respan(node *n, span sp);

#endif
