/*
 * cg_host.c — the CPU side of code generation (cg_target.h): what a kernel stands on
 * when the CPU executor (runtime/cpu/) runs it. Every generated function takes
 * hidden (blk, tx, ty, tz) parameters first: blk the executor's kc_cpu_block
 * (host_abi.h), which holds block and grid dimensions, the block's index, shared
 * memory, the bounds-check record and the barrier and collective calls; tx, ty, tz the
 * thread's index. There is one address space; print is the C library's printf. Each
 * kernel gets two entry points, K__thread(args, blk, tx, ty, tz) and K__block(args,
 * blk), the latter looping over the block's threads so LLVM can vectorise across
 * threadIdx.x; both unpack a kernelParams-style void** argument array.
 * Assumes the layout of kc_cpu_block that host_abi.h's KC_CPU_BLOCK_OFF_* give.
 */
#include "builtins/builtin.h"
#include "cg.h"
#include "cg_records.h"
#include "records.h"
#include "host_abi.h"
#include "host_regions.h"
#include "target.h"

/* ---- kc_cpu_block ---- */

static LLVMValueRef blk_field(cg_ctx *g, int off, const char *name) {
  LLVMValueRef idx[1] = {ci64(g, off)};
  return LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, name);
}

LLVMValueRef cg_blk_load(cg_ctx *g, int off, LLVMTypeRef t, const char *name) {
  return LLVMBuildLoad2(g->b, t, blk_field(g, off, ""), name);
}

LLVMValueRef cg_host_collective(cg_ctx *g, unsigned op, LLVMValueRef mask,
                                LLVMValueRef value, LLVMValueRef arg, span sp) {
  LLVMValueRef fp = cg_blk_load(g, KC_CPU_BLOCK_OFF_COLLECTIVE, g->ptr, "collective");
  LLVMTypeRef pt[6] = {g->ptr, g->i32, g->i32, g->i64, g->i32, g->i32};
  LLVMTypeRef ft = LLVMFunctionType(g->i64, pt, 6, 0);
  LLVMValueRef args[6] = {g->blk, ci32(g, op), mask ? mask : ci32(g, -1),
                          value ? value : ci64(g, 0), arg ? arg : ci32(g, 0),
                          ci32(g, (sp.line << 16) | (sp.col & 0xffff))};
  return LLVMBuildCall2(g->b, ft, fp, args, 6, "");
}

/* ---- functions: the hidden (blk, tx, ty, tz) ---- */

static void host_hidden_param_types(cg_ctx *g, LLVMTypeRef *pt) {
  pt[0] = g->ptr;
  pt[1] = pt[2] = pt[3] = g->i32;
}

static void host_enter_function(cg_ctx *g) {
  g->blk = LLVMGetParam(g->fn, 0);
  for (int k = 0; k < 3; k++) g->tid[k] = LLVMGetParam(g->fn, 1 + (unsigned)k);
}

static void host_hidden_args(cg_ctx *g, LLVMValueRef *args) {
  args[0] = g->blk;
  for (int k = 0; k < 3; k++) args[1 + k] = g->tid[k];
}

/* Float32 denormals are kept on the CPU, fast math or not. */
static void host_function_attrs(cg_ctx *g, fn_instance *f, LLVMValueRef fn) {
  (void)g, (void)f, (void)fn;
}

/* ---- thread indices ---- */

/* kcc_options.block_dim: the launch's block shape, fixed at compile time (0: not). */
static unsigned fixed_block_dim(const cg_ctx *g, int axis) {
  const unsigned *d = g->opts->block_dim;
  return d[0] && d[1] && d[2] ? d[axis] : 0;
}

static LLVMValueRef host_special_reg(cg_ctx *g, int which, int axis) {
  if (which == 0) return g->tid[axis];
  if (which == 2 && fixed_block_dim(g, axis)) return ci32(g, (long long)fixed_block_dim(g, axis));
  static const int offs[4] = {0, KC_CPU_BLOCK_OFF_BLOCK_IDX, KC_CPU_BLOCK_OFF_BLOCK_DIM,
                              KC_CPU_BLOCK_OFF_GRID_DIM};
  LLVMValueRef v = cg_blk_load(g, offs[which] + 4 * axis, g->i32, cg_sreg_names[which]);
  LLVMSetMetadata(v, LLVMGetMDKindIDInContext(g->c, "invariant.load", 14),
                  LLVMMDNodeInContext(g->c, NULL, 0));
  /* the same ranges the GPU's special registers have */
  cg_set_range(g, v, which == 1 ? 0 : 1, which == 2 ? 1025 : 0x80000000LL);
  return v;
}

/* The linear thread index within the block, mod 32. */
static LLVMValueRef host_laneid(cg_ctx *g) {
  LLVMValueRef bx = host_special_reg(g, 2, 0), by = host_special_reg(g, 2, 1);
  LLVMValueRef lin = LLVMBuildAdd(g->b, g->tid[0],
      LLVMBuildMul(g->b, bx, LLVMBuildAdd(g->b, g->tid[1],
                   LLVMBuildMul(g->b, by, g->tid[2], ""), ""), ""), "");
  return LLVMBuildAnd(g->b, lin, ci32(g, 31), "");
}

/* ---- memory ---- */

static LLVMValueRef host_generic_ptr(cg_ctx *g, LLVMValueRef gv) {
  (void)g;
  return gv;
}

/* A slice of the block's shared buffer (blk->shared), at a 16-byte aligned offset of
 * the module's static layout (g->shared_bytes, the size the executor allocates). */
static LLVMValueRef host_shared_array(cg_ctx *g, LLVMTypeRef at, size_t bytes) {
  (void)at;
  size_t off = (g->shared_bytes + 15) & ~(size_t)15;
  g->shared_bytes = off + bytes;
  LLVMValueRef base = cg_blk_load(g, KC_CPU_BLOCK_OFF_SHARED, g->ptr, "shared");
  LLVMValueRef o[1] = {ci64(g, (long long)off)};
  return LLVMBuildInBoundsGEP2(g->b, g->i8, base, o, 1, "");
}

static void host_dynamic_shared(cg_ctx *g, LLVMValueRef *data, LLVMValueRef *bytes) {
  *data = cg_blk_load(g, KC_CPU_BLOCK_OFF_DYN_SHARED, g->ptr, "dyn_shared");
  *bytes = cg_blk_load(g, KC_CPU_BLOCK_OFF_DYN_SHARED_BYTES, g->i64, "dyn_bytes");
}

/* The launch's record (blk->error). */
static LLVMValueRef host_error_record(cg_ctx *g) {
  return cg_blk_load(g, KC_CPU_BLOCK_OFF_ERROR, g->ptr, "kc.error");
}

/* Per worker (blk->scratch). */
static LLVMValueRef host_error_scratch(cg_ctx *g) {
  return blk_field(g, KC_CPU_BLOCK_OFF_SCRATCH, "kc.scratch");
}

/* blk's function at offset off called as fn(blk): one of the executor's calls that
 * never return (they end the thread), so the block ends in `unreachable`. */
static void call_noreturn(cg_ctx *g, int off, const char *name) {
  LLVMTypeRef pt[1] = {g->ptr};
  LLVMTypeRef ft = LLVMFunctionType(g->voidt, pt, 1, 0);
  LLVMValueRef fn = cg_blk_load(g, off, g->ptr, name);
  LLVMValueRef args[1] = {g->blk};
  LLVMBuildCall2(g->b, ft, fn, args, 1, "");
  LLVMBuildUnreachable(g->b);
}

/* blk->exit_thread(blk): the executor ends the thread's fiber and never returns. */
static void host_thread_exit(cg_ctx *g) {
  call_noreturn(g, KC_CPU_BLOCK_OFF_EXIT_THREAD, "exit_thread");
}

/* blk->trap(blk, message), which fails the launch with KC_ERR_LAUNCH naming the kernel,
 * then blk->cancel(blk), which ends the thread. */
static void host_recursion_exceeded(cg_ctx *g, const char *message) {
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  LLVMValueRef fn = cg_blk_load(g, KC_CPU_BLOCK_OFF_TRAP, g->ptr, "trap");
  LLVMValueRef args[2] = {g->blk, LLVMBuildGlobalStringPtr(g->b, message, "kc.msg")};
  LLVMBuildCall2(g->b, LLVMFunctionType(g->voidt, pt, 2, 0), fn, args, 2, "");
  call_noreturn(g, KC_CPU_BLOCK_OFF_CANCEL, "cancel");
}

/* if (*blk->stop) blk->cancel(blk): a relaxed atomic load, so LLVM reloads it on every
 * pass (a plain one could be hoisted out of the loop) yet it costs a plain load. */
static void host_loop_check(cg_ctx *g) {
  LLVMValueRef flag = cg_blk_load(g, KC_CPU_BLOCK_OFF_STOP, g->ptr, "stop");
  LLVMValueRef v = LLVMBuildLoad2(g->b, g->i32, flag, "stopping");
  LLVMSetOrdering(v, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(v, 4);
  LLVMBasicBlockRef stop = cg_new_bb(g, "loop.stop"), go = cg_new_bb(g, "loop.go");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, v, ci32(g, 0), ""), stop, go);
  LLVMPositionBuilderAtEnd(g->b, stop);
  call_noreturn(g, KC_CPU_BLOCK_OFF_CANCEL, "cancel");
  LLVMPositionBuilderAtEnd(g->b, go);
}

/* ---- print ---- */

static void host_printf(cg_ctx *g, LLVMValueRef fmt, LLVMValueRef *vals, int n) {
  LLVMTypeRef pt[1] = {g->ptr};
  LLVMTypeRef ft = LLVMFunctionType(g->i32, pt, 1, 1);
  LLVMValueRef pf = LLVMGetNamedFunction(g->m, "printf");
  if (!pf) pf = LLVMAddFunction(g->m, "printf", ft);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(n + 1));
  args[0] = fmt;
  for (int i = 0; i < n; i++) args[i + 1] = vals[i];
  LLVMBuildCall2(g->b, ft, pf, args, (unsigned)n + 1, "");
}

/* ---- the kernel's entry points ---- */

/* An extent loaded from the argument array is never negative: !range [0, 2^63) on the
 * load (see cg_nvptx.c's range attribute for why). */
static void mark_nonnegative_i64(cg_ctx *g, LLVMValueRef load) {
  LLVMMetadataRef bounds[2] = {LLVMValueAsMetadata(ci64(g, 0)),
                               LLVMValueAsMetadata(ci64(g, INT64_MIN))};
  unsigned kind = LLVMGetMDKindIDInContext(g->c, "range", 5);
  LLVMSetMetadata(load, kind, LLVMMetadataAsValue(g->c, LLVMMDNodeInContext2(g->c, bounds, 2)));
}

/* A record argument at p: copied into the kernel's own aligned slot with memcpy, never
 * loaded as an LLVM aggregate value ([N x i8]: the optimiser splits one into N values,
 * which took 53 s for a record holding float64[4000]). p's alignment is the caller's. */
static LLVMValueRef record_arg(cg_ctx *g, LLVMValueRef p, const type *t) {
  LLVMValueRef slot = LLVMBuildAlloca(g->b, cg_record_mem_type(g, t), "record");
  LLVMSetAlignment(slot, 16);
  LLVMBuildMemCpy(g->b, slot, 16, p, 1, ci64(g, t->rec->size));
  return slot;
}

/* The scalar of type t that slot `slot` of argv points to. */
static LLVMValueRef load_scalar_arg(cg_ctx *g, LLVMValueRef argv, unsigned slot, const type *t) {
  LLVMValueRef idx = ci64(g, slot);
  LLVMValueRef p = LLVMBuildLoad2(g->b, g->ptr, LLVMBuildInBoundsGEP2(g->b, g->ptr, argv, &idx, 1, ""), "");
  if (t->kind == TY_RECORD) return record_arg(g, p, t);
  return cg_param_scalar_value(g, LLVMBuildLoad2(g->b, cg_param_scalar_type(g, t), p, ""), t);
}

/* Load the kernel's arguments from a kernelParams-style void** array; blk is the entry
 * point's block (an array counted per worker is the worker's copy). */
void host_unpack_args(cg_ctx *g, fn_instance *f, LLVMValueRef argv, LLVMValueRef blk,
                      LLVMValueRef *out) {
  unsigned slot = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_TUPLE) {   /* a tuple of scalars: one slot per element */
      LLVMValueRef v = LLVMGetUndef(cg_type(g, t));
      for (int k = 0; k < t->nelems; k++)
        v = LLVMBuildInsertValue(g->b, v, load_scalar_arg(g, argv, slot++, t->elems[k]), (unsigned)k, "");
      out[i] = v;
      continue;
    }
    int parts = cg_param_words(t);   /* a tuple was taken above */
    LLVMValueRef vals[1 + 2 * KC_MAX_DIMS];
    for (int k = 0; k < parts; k++) {
      LLVMValueRef idx = ci64(g, slot++);
      LLVMValueRef pp = LLVMBuildInBoundsGEP2(g->b, g->ptr, argv, &idx, 1, "");
      LLVMValueRef p = LLVMBuildLoad2(g->b, g->ptr, pp, "");
      if (t->kind == TY_RECORD) {
        vals[k] = record_arg(g, p, t);
        continue;
      }
      LLVMTypeRef vt = t->kind != TY_ARRAY ? cg_param_scalar_type(g, t) : k == 0 ? g->ptr : g->i64;
      vals[k] = LLVMBuildLoad2(g->b, vt, p, "");
      if (t->kind == TY_ARRAY && k > 0 && k <= t->ndim) mark_nonnegative_i64(g, vals[k]);
    }
    if (t->kind == TY_ARRAY) vals[0] = cg_host_private_data(g, f, i, blk, vals[0]);
    out[i] = t->kind == TY_ARRAY ? cg_build_array(g, t, vals[0], vals + 1)
             : t->kind == TY_RECORD ? vals[0] : cg_param_scalar_value(g, vals[0], t);
  }
}

/* K__thread(args, blk, tx, ty, tz): one thread, for blocks that reach a barrier (the
 * executor runs their threads as fibers). */
static void host_thread_entry(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef pt[5] = {g->ptr, g->ptr, g->i32, g->i32, g->i32};
  const char *name = arena_printf(g->ar, "%s__thread", f->symbol_name);
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->voidt, pt, 5, 0));
  LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->c, fn, "entry"));
  cg_entry_debug(g, fn, f);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 4));
  for (unsigned k = 0; k < 4; k++) args[k] = LLVMGetParam(fn, 1 + k);
  host_unpack_args(g, f, LLVMGetParam(fn, 0), args[0], args + 4);
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams + 4, "");
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
}

void host_block_dims(cg_ctx *g, LLVMValueRef blk, LLVMValueRef dims[3], int fused) {
  for (int k = 0; k < 3; k++) {
    static const char *const span_names[3] = {"span.x", "span.y", "span.z"};
    int off = k == fused ? KC_CPU_BLOCK_OFF_THREAD_SPAN : KC_CPU_BLOCK_OFF_BLOCK_DIM;
    LLVMValueRef idx = ci64(g, off + 4 * k);
    dims[k] = LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i8, blk, &idx, 1, ""),
                             k == fused ? span_names[k] : "");
    cg_set_range(g, dims[k], 1, k == fused ? 0x80000000LL : 1025);
    /* a kernel compiled for one block shape: thread loops of a known length, which LLVM
       unrolls and vectorises without remainders (a fused axis runs its span) */
    if (k != fused && fixed_block_dim(g, k)) dims[k] = ci32(g, (long long)fixed_block_dim(g, k));
  }
}

/* Three nested loops in l->order; each runs at least once (dims are >= 1). An inner
 * loop's phi restarts at 0 each time the outer head branches into it. */
void host_thread_loops_open_order(cg_ctx *g, host_thread_loops *l, int inner) {
  int n = 0;
  for (int k = 2; k >= 0; k--)
    if (k != inner) l->order[n++] = k;
  l->order[2] = inner;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b);
  for (int i = 0; i < 3; i++) {
    int k = l->order[i];
    l->head[k] = cg_new_bb(g, "loop");
    LLVMBuildBr(g->b, l->head[k]);
    LLVMPositionBuilderAtEnd(g->b, l->head[k]);
    l->iv[k] = LLVMBuildPhi(g->b, g->i32, "t");
    LLVMValueRef zero = ci32(g, 0);
    LLVMAddIncoming(l->iv[k], &zero, &pre, 1);
    pre = l->head[k];
  }
}

void host_thread_loops_open(cg_ctx *g, host_thread_loops *l) {
  host_thread_loops_open_order(g, l, 0);
}

void host_thread_loops_close(cg_ctx *g, host_thread_loops *l) {
  for (int i = 2; i >= 0; i--) {
    int k = l->order[i];
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMValueRef next = LLVMBuildNUWAdd(g->b, l->iv[k], ci32(g, 1), "");
    LLVMSetNSW(next, 1);
    LLVMAddIncoming(l->iv[k], &next, &latch, 1);
    LLVMBasicBlockRef after = cg_new_bb(g, "after");
    LLVMValueRef br = LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, next, l->dims[k], ""),
                                      l->head[k], after);
    /* a thread loop of a length fixed at compile time (kcc_options.block_dim) would be
       fully unrolled, its guards left in scalar copies, rather than vectorised */
    if (i == 2 && LLVMIsAConstantInt(l->dims[k])) host_no_unroll(g->c, br);
    LLVMPositionBuilderAtEnd(g->b, after);
  }
}

/* K__block(args, blk): for tz, ty, tx in the block (tx innermost, or as host_order.c
 * says): body(...). */
static void host_block_entry(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  const char *name = arena_printf(g->ar, "%s__block", f->symbol_name);
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->voidt, pt, 2, 0));
  LLVMValueRef saved_fn = g->fn;
  g->fn = fn;
  LLVMBasicBlockRef entry = cg_new_bb(g, "entry");
  LLVMPositionBuilderAtEnd(g->b, entry);
  cg_entry_debug(g, fn, f);
  LLVMValueRef blk = LLVMGetParam(fn, 1);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 4));
  args[0] = blk;
  host_unpack_args(g, f, LLVMGetParam(fn, 0), blk, args + 4);
  host_thread_loops l;
  f->host_inner = host_inner_axis(g->ar, f);
  f->host_fused = host_fusable(g->ar, f, f->host_inner);
  host_block_dims(g, blk, l.dims, f->host_fused ? f->host_inner : -1);
  host_thread_loops_open_order(g, &l, f->host_inner);
  args[1] = l.iv[0]; args[2] = l.iv[1]; args[3] = l.iv[2];
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams + 4, "");
  host_thread_loops_close(g, &l);
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  g->fn = saved_fn;
}

/* A kernel in region form has its K__block already (codegen.c: host_region_kernel);
 * K__thread only for a kernel the executor runs as fibers (barriers, collectives, a
 * raise, a grid barrier), which is all it is used for. */
static void host_gen_entries(cg_ctx *g, fn_instance *f) {
  if (f->host_regions) return;
  if (f->uses_barrier || f->uses_grid_sync) host_thread_entry(g, f);
  host_block_entry(g, f);
}

const cg_target cg_target_host = {
  .name = "host",
  .host = true,
  .const_addrspace = 0,
  .const_limit = 65536,   /* the GPU's, so that what compiles here compiles there */
  .string_addrspace = 0,
  .hidden_count = 4,
  .recursion_exceeded = host_recursion_exceeded,
  .hidden_param_types = host_hidden_param_types,
  .enter_function = host_enter_function,
  .hidden_args = host_hidden_args,
  .function_attrs = host_function_attrs,
  .special_reg = host_special_reg,
  .laneid = host_laneid,
  .generic_ptr = host_generic_ptr,
  .shared_array = host_shared_array,
  .dynamic_shared = host_dynamic_shared,
  .error_record = host_error_record,
  .error_scratch = host_error_scratch,
  .thread_exit = host_thread_exit,
  .loop_check = host_loop_check,
  .printf_call = host_printf,
  .gen_entries = host_gen_entries,
};
