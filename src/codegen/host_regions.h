/*
 * host_regions.h — the CPU back end's region form of kernels with barriers
 * (host_regions.c), and the thread loops it shares with cg_host.c.
 */
#ifndef KCC_HOST_REGIONS_H
#define KCC_HOST_REGIONS_H

#include "cg.h"

/* Loops over a block's threads, z outermost and x innermost (open_order: `inner`
 * innermost, the other two in z, y, x order): open positions the builder in the body
 * with iv[] the thread's index; close ends the body (from wherever the builder is) and
 * leaves the builder after the loops. dims[] are the block's extents (each >= 1). */
typedef struct host_thread_loops {
  LLVMValueRef dims[3], iv[3];
  LLVMBasicBlockRef head[3];
  int order[3];           /* the axes, outermost first */
} host_thread_loops;
void host_thread_loops_open(cg_ctx *g, host_thread_loops *l);
void host_thread_loops_open_order(cg_ctx *g, host_thread_loops *l, int inner);
/* A function's locals hashed by symbol, for the CPU's scans of a kernel (host_regions.c,
 * host_order.c, host_fuse.c): a local's slot indexes arrays of cap entries (cap a power
 * of two, at least twice the locals); index gives its place in f->locals. */
typedef struct host_locals {
  int cap;
  const symbol **keys;   /* per slot: its local, or NULL */
  int *index;            /* per slot: the local's index in f->locals, or -1 */
} host_locals;
void host_locals_init(arena *ar, host_locals *L, const fn_instance *f);
/* the slot of the local whose name e is, or -1 */
int host_locals_slot(const host_locals *L, const node *e);
size_t host_locals_slot_of(const host_locals *L, const symbol *s);
/* the index in f->locals of the local whose name e is, or -1 */
int host_locals_index(const host_locals *L, const node *e);
/* The axis whose loop runs innermost in barrier-free kernel f's K__block: 0 (x), or 1
 * or 2 where f indexes its arrays' last dimension by y or z (host_order.c). */
int host_inner_axis(arena *ar, const fn_instance *f);
/* The thread axes each of barrier-free kernel f's locals depends on (host_order.c's
 * fixpoint), or NULL when they do not settle. */
typedef struct order_scan host_axes;
const host_axes *host_axes_of(arena *ar, const fn_instance *f);
/* Whether statements `body` of that kernel index an array of two or more dimensions,
 * in a dimension before its last, by a value that depends on the thread's index along
 * axis `inner` (rowsum's a[r, c], r from x): stepping the block through a loop over c,
 * the threads of a step would read a column (host_split.c). False for NULL axes. */
bool host_rows_across(const host_axes *A, const node_list *body, int inner);
/* Whether the executor may run neighbouring blocks of kernel f along `axis` as one block
 * with a longer thread loop (host_fuse.c). */
bool host_fusable(arena *ar, const fn_instance *f, int axis);
void host_thread_loops_close(cg_ctx *g, host_thread_loops *l);
/* The extents of the thread loops of block record blk (host_abi.h), with their range:
 * blockDim.x, .y, .z, but along axis `fused` (-1: none) the run's thread_span. */
void host_block_dims(cg_ctx *g, LLVMValueRef blk, LLVMValueRef dims[3], int fused);
/* The kernel's arguments from a kernelParams-style void** array (cg_host.c). */
void host_unpack_args(cg_ctx *g, fn_instance *f, LLVMValueRef argv, LLVMValueRef blk,
                      LLVMValueRef *out);

/* Rewrite f's top-level grid-stride while loops (`while i < n: ...; i += stride`) as
 * the range loops they are (host_while.c), for the region form to run step by step. */
void host_while_as_range(arena *ar, const program *p, fn_instance *f);
/* host_scan.c, for the rewrites above. Whether e reads nothing that can change while a
 * loop runs but through the locals it names: constants, shapes, thread coordinates,
 * pure builtins; no array element, no device function. */
bool host_pure_value(const node *e);
/* whether n names local s */
bool host_names(const node *n, const symbol *s);
/* the locals value e reads, and those statements l[from, to) assign (nested ones too),
 * added to out once each (symbol*) */
void host_read_locals(arena *ar, const node *e, ptr_vec *out);
void host_assigned_locals(arena *ar, const node_list *l, int from, int to, ptr_vec *out);
bool host_shares_local(const ptr_vec *a, const ptr_vec *b);
/* whether a loop body returns, or breaks or continues that loop */
bool host_leaves_loop(const node_list *body);
/* Give barrier-free kernel f's top-level float-folding loops of one length, and its loops
 * over rows the block shares around a loop its threads stride through, a barrier at
 * the start of each iteration, spreading an `if` around them over the pieces
 * (host_split.c), so that the region form steps the block through them: whether it
 * would, with the new body in *out and in *inner the innermost thread axis for it
 * (host_inner_axis of f as written). f is left as it is. */
bool host_split_loops(arena *ar, const program *p, const fn_instance *f, node_list *out,
                      int *inner);
/* Generate f's K__block in region form when f's barriers allow it; false (nothing
 * generated) when they do not, and the executor runs f's threads as fibers. */
bool host_regions_entry(cg_ctx *g, fn_instance *f);
/* cg_stmts.c's statement lists while a region-form kernel is generated: a list at the
 * block's level (outside any thread loop), split into regions. */
bool host_regions_at_block_level(const cg_ctx *g);
void host_regions_block(cg_ctx *g, node_list *body);
/* memory.c: a cuda.local.array's storage (of LLVM type at) for the call e, one per
 * thread, inside a region */
LLVMValueRef host_regions_local_array(cg_ctx *g, node *e, LLVMTypeRef at);

#endif
