/*
 * synth.h — code the compiler writes for the program, in the kernel language itself:
 * the kernel behind a @cuda.reduce function (and, later, other generated kernels).
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
 * Block b reduces the grid-stride slice of arr starting at b * KCC_REDUCE_BLOCK into
 * out[b]; with has_init, init is combined into each block's result (the runtime
 * passes it to the last stage only). A launch of one block reduces arr to out[0].
 * Spans are set to `where`. NULL when the template does not parse (a bug). */
node *synth_reduce_kernel(arena *a, diag_sink *d, const char *op, span where);

/* Set the span of n and everything under it to sp. */
void synth_respan(node *n, span sp);

#endif
