/*
 * cg.h — code generation's state and the helpers that lowerings share: LLVM types of
 * kcc types, conversions, intrinsic and function calls, array access, Python's
 * arithmetic, the target's special registers (through g->target, cg_target.h), and
 * the pieces of kernel entry points both targets build. Included by codegen.c, the
 * targets (cg_nvptx.c, cg_host.c) and the builtin families (src/builtins/), whose
 * lowerings run inside it.
 */
#ifndef KCC_CG_H
#define KCC_CG_H

#include <llvm-c/Core.h>

#include "cg_target.h"
#include "host_abi.h"
#include "sema.h"

typedef struct loop_targets {
  LLVMBasicBlockRef brk, cont;
} loop_targets;

struct cg_ctx {
  arena *ar;
  diag_sink *d;
  program *prog;
  const kcc_options *opts;
  const cg_target *target;          /* what differs between NVPTX and the host */
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTypeRef ptr, i1, i8, i32, i64, f32, f64, voidt;
  /* the function being generated */
  fn_instance *fi;
  LLVMValueRef fn;
  LLVMValueRef blk, tid[3];         /* host: hidden parameters */
  LLVMBasicBlockRef entry, ret_bb;
  LLVMValueRef ret_slot;
  loop_targets *loop;
  size_t shared_bytes;              /* host: static shared layout of the module */
  unsigned long long const_bytes;   /* module arrays in const_addrspace so far */
  struct host_regions *regions;     /* host: generating a region-form K__block */
  const fn_instance *private_of;    /* host: the kernel private_mask was found for */
  uint64_t private_mask;            /* ... its parameters added to privately (host_private.c) */
  /* debug info */
  LLVMDIBuilderRef dib;
  LLVMMetadataRef di_file, di_sp;
};

/* LLVM types: a value's (i1 for bool), in memory (i8 for bool), an array value
 * {ptr, i64 extent x ndim} */
LLVMTypeRef cg_type(cg_ctx *g, const type *t);
LLVMTypeRef cg_scalar_type(cg_ctx *g, const type *t);
LLVMTypeRef cg_mem_type(cg_ctx *g, const type *t);
LLVMTypeRef cg_array_struct(cg_ctx *g, int ndim);

static inline LLVMValueRef ci32(cg_ctx *g, long long v) {
  return LLVMConstInt(g->i32, (unsigned long long)v, 1);
}
static inline LLVMValueRef ci64(cg_ctx *g, long long v) {
  return LLVMConstInt(g->i64, (unsigned long long)v, 1);
}

/* Values: an expression, an expression converted to type to, conversions. */
LLVMValueRef cg_expr(cg_ctx *g, node *e);
LLVMValueRef cg_expr_as(cg_ctx *g, node *e, const type *to);
/* A call of a foreign device function (an N_CALL with aux CALL_FOREIGN; cg_foreign.c). */
LLVMValueRef cg_foreign_call(cg_ctx *g, node *e);
/* None as a value of Optional type opt */
LLVMValueRef cg_none(cg_ctx *g, const type *opt);
LLVMValueRef cg_convert(cg_ctx *g, LLVMValueRef v, const type *from, const type *to);
LLVMValueRef cg_to_bool(cg_ctx *g, LLVMValueRef v, const type *t);
/* Python's arithmetic and comparisons on two values of type t (cg_arith.c); a ** e->b
 * for the N_BINOP (or augmented assignment) e, a already of type t. */
LLVMValueRef cg_arith_op(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t);
LLVMValueRef cg_compare_op(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t);
LLVMValueRef cg_pow(cg_ctx *g, node *e, LLVMValueRef a, const type *t);
/* The new value of an augmented assignment s (`t op= b`) from the target's current
 * value cur, both of the operation's type rt; a debug division checks its divisor. */
LLVMValueRef cg_augmented_value(cg_ctx *g, node *s, LLVMValueRef cur, const type *rt);
LLVMValueRef cg_int_pow(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t);

/* Blocks, locals, calls. */
LLVMBasicBlockRef cg_new_bb(cg_ctx *g, const char *name);
LLVMValueRef cg_entry_alloca(cg_ctx *g, LLVMTypeRef t, const char *name);
/* A call of a device function instance with argument values of its parameter types:
 * how a builtin written in the kernel language (ix_lib_instance) is lowered. */
LLVMValueRef cg_call_values(cg_ctx *g, fn_instance *callee, LLVMValueRef *vals, int n);
LLVMValueRef cg_call_intrinsic(cg_ctx *g, const char *name, LLVMTypeRef over,
                               LLVMValueRef *args, unsigned n);
bool cg_have_intrinsic(const char *name);   /* this LLVM has it (names change) */
LLVMValueRef cg_declare_fn(cg_ctx *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                           unsigned n);
LLVMValueRef cg_call_fn(cg_ctx *g, LLVMValueRef f, LLVMValueRef *args, unsigned n);
void cg_internal_error(cg_ctx *g, span sp, const char *what);

/* Arrays: extents, strides, the address of a[i, j] (ix an N_INDEX), size. */
LLVMValueRef cg_array_extent(cg_ctx *g, LLVMValueRef arr, int k);
LLVMValueRef cg_array_stride(cg_ctx *g, LLVMValueRef arr, const type *at, int k);
LLVMValueRef cg_element_ptr(cg_ctx *g, node *ix);
LLVMValueRef cg_array_size(cg_ctx *g, LLVMValueRef arr, int ndim);

/* Statements, for loops built elsewhere (cg_loops.c): a store to an assignment's or a
 * loop's target; a loop body whose break and continue go to brk and cont; an else
 * block, then on to done. cg_loops.c: a for loop over an iter_plan (loops.h), and a
 * tuple indexed (an N_INDEX whose aux is the element, or TUPLE_INDEX_DYNAMIC). */
void cg_store_target(cg_ctx *g, node *t, LLVMValueRef v, const type *vt);
void cg_loop_block(cg_ctx *g, node_list *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont);
void cg_else_block(cg_ctx *g, node_list *orelse, LLVMBasicBlockRef done);
/* One statement where the builder is (in a fresh block after a break or return); a
 * fast-math function's flags (fn_instance.fastmath) on every instruction of fn. */
void cg_statement(cg_ctx *g, node *s);
void cg_set_fast_math_flags(LLVMValueRef fn);
void cg_for_iter(cg_ctx *g, node *s);
/* the watchdog's check at the back edge of loop s (a for loop of count passes; NULL for
 * a while loop), at the builder's position, where the target has one (cg_stmts.c says
 * which loops get it) */
void cg_loop_check(cg_ctx *g, const node *s, LLVMValueRef count);
LLVMValueRef cg_tuple_index(cg_ctx *g, node *e);
/* A failed bounds check of ix (--bounds-check) into the kernel error record: the axis,
 * the index as written (i64), whether it is unsigned (i32 0/1); shape from arr, an
 * array value of type at. */
/* The launch's error record (host_abi.h): claimed by the first failing thread, which
 * fills the source position, its block and thread (cg_error_claim), then the fields of
 * its kind (cg_error_field, a byte offset) and closes with cg_error_done. */
LLVMValueRef cg_error_claim(cg_ctx *g, span sp, LLVMBasicBlockRef *done);
void cg_error_field(cg_ctx *g, LLVMValueRef rec, int off, LLVMValueRef v);
void cg_error_done(cg_ctx *g, LLVMBasicBlockRef done);
void cg_bounds_report(cg_ctx *g, node *ix, const type *at, LLVMValueRef arr,
                      LLVMValueRef axis, LLVMValueRef index, LLVMValueRef is_unsigned);

/* The target's special registers (which: 0 threadIdx, 1 blockIdx, 2 blockDim,
 * 3 gridDim; axis 0..2; cg_sreg_names their PTX names), the lane, and a generic
 * pointer to a global of the target's address spaces; !range metadata on a load. */
extern const char *const cg_sreg_names[4];
static inline LLVMValueRef cg_special_reg(cg_ctx *g, int which, int axis) {
  return g->target->special_reg(g, which, axis);
}
static inline LLVMValueRef cg_laneid(cg_ctx *g) { return g->target->laneid(g); }
static inline LLVMValueRef cg_generic_ptr(cg_ctx *g, LLVMValueRef gv) {
  return g->target->generic_ptr(g, gv);
}
void cg_set_range(cg_ctx *g, LLVMValueRef load, long long lo, long long hi);

/* For the targets' kernel entry points: an array value from a data pointer and its
 * extents; a scalar parameter's LLVM type as passed (bool as a byte) and its value
 * from one; the enum attribute name on fn's index idx (-1 the function, 0 the return,
 * 1.. the parameters); a debug subprogram for fn, an entry point of f. */
LLVMValueRef cg_build_array(cg_ctx *g, const type *t, LLVMValueRef data, LLVMValueRef *ext);
/* The flattened parameters a parameter of type t takes (host_abi.h's kc_param_words). */
static inline int cg_param_words(const type *t) {
  return kc_param_words(t->kind == TY_ARRAY ? t->ndim : 0, t->kind == TY_ARRAY && t->strided,
                        t->kind == TY_TUPLE ? t->nelems : 0);
}
LLVMTypeRef cg_param_scalar_type(cg_ctx *g, const type *t);
LLVMValueRef cg_param_scalar_value(cg_ctx *g, LLVMValueRef v, const type *t);
void cg_add_attr(cg_ctx *g, LLVMValueRef fn, int idx, const char *name);
void cg_entry_debug(cg_ctx *g, LLVMValueRef fn, fn_instance *f);

/* cg_math.c: the C library's math function name ("sqrt", "tgamma") on n values of float
 * type t, as each target calls it (libdevice, libm or an LLVM intrinsic) */
LLVMValueRef cg_math_call(cg_ctx *g, const char *name, const type *t, LLVMValueRef *args,
                          unsigned n);
/* Lowerings other code shares (defined in their families, src/builtins/). */
LLVMValueRef cg_math_unary_value(cg_ctx *g, const struct builtin *b, LLVMValueRef v,
                                 const type *t);   /* math.c: math.isnan ... on a value */
LLVMValueRef cg_dynamic_shared(cg_ctx *g, const type *t);     /* memory.c */
/* codegen.c, for cg_stmts.c: whether the current block has its terminator; a branch
 * to `to` unless it has; an element of memory type el loaded from / stored to p */
bool cg_terminated(cg_ctx *g);
void cg_br_if_open(cg_ctx *g, LLVMBasicBlockRef to);
LLVMValueRef cg_load_element(cg_ctx *g, LLVMValueRef p, const type *el);
void cg_store_element(cg_ctx *g, LLVMValueRef p, LLVMValueRef v, const type *el);
/* cg_stmts.c, for codegen.c: a function body's statements; the debug location of sp
 * (when the function has line info) */
void cg_block(cg_ctx *g, node_list *body);
void cg_set_debug_loc(cg_ctx *g, span sp);
/* cg_consts.c: the constant array (addrspace(4) on the GPU) named name holding the
 * folded nested tuple value, as an array value of type t; made once per constant and
 * element type. The first use (at sp) that takes the module past the target's
 * const_limit is an error. */
LLVMValueRef cg_const_array_value(cg_ctx *g, const char *const_name, const node *value,
                                  const type *t, span sp);
static inline LLVMValueRef cx_re(cg_ctx *g, LLVMValueRef z) {
  return LLVMBuildExtractValue(g->b, z, 0, "re");
}
static inline LLVMValueRef cx_im(cg_ctx *g, LLVMValueRef z) {
  return LLVMBuildExtractValue(g->b, z, 1, "im");
}
static inline LLVMValueRef cx_fabs(cg_ctx *g, LLVMValueRef x) {   /* of a part */
  return cg_call_intrinsic(g, "llvm.fabs", LLVMTypeOf(x), &x, 1);
}
/* cg_complex.c: complex values and their arithmetic */
LLVMValueRef cx_make(cg_ctx *g, const type *t, LLVMValueRef re, LLVMValueRef im);
LLVMValueRef cx_arith(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y, const type *t);
LLVMValueRef cx_compare(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef cx_pow_small(cg_ctx *g, LLVMValueRef z, int64_t k, const type *t);
/* a ** e->b by the library's complex power (infer.c instantiated it: e->aux_ptr) */
LLVMValueRef cx_pow(cg_ctx *g, node *e, LLVMValueRef a, const type *t);
LLVMValueRef cx_abs(cg_ctx *g, LLVMValueRef z, const type *t);
/* a.real, a.imag of a complex array value arr: a strided view of its parts (e->ty) */
LLVMValueRef cx_array_part(cg_ctx *g, node *e, LLVMValueRef arr);
LLVMValueRef cg_part(cg_ctx *g, node *e);   /* z.real, z.imag */
/* cg_checks.c: an assert or raise statement */
void cg_check_stmt(cg_ctx *g, node *s);
/* cg_checks.c: before a / b, a // b or a % b of type t at sp: in debug code a zero b
 * raises ZeroDivisionError (Numba's debug mode uses Python's error model); elsewhere
 * nothing (the operation gives NumPy's results) */
void cg_check_divisor(cg_ctx *g, span sp, op_kind op, LLVMValueRef b, const type *t);
/* t[j] out of range (bad) in a debug kernel: IndexError, the thread ends */
void cg_check_tuple_index(cg_ctx *g, span sp, LLVMValueRef bad);
/* cg_options.c: the decorator options' effects (fn_options): attributes of instance f's
 * function fn (opt=False, inline=), whether f gets line info, and whether any kernel
 * asks for debug=True (debug) or for lineinfo=True or debug=True (!debug) */
void cg_option_attrs(cg_ctx *g, fn_instance *f, LLVMValueRef fn);
bool cg_wants_lines(cg_ctx *g, const fn_instance *f);
bool cg_any_kernel_option(cg_ctx *g, bool debug);
/* cg_slices.c: t = v where t (an N_INDEX) is a view: v, of type vt, a scalar stored to
 * every element or an array broadcast and copied onto it */
void cg_store_slice(cg_ctx *g, node *t, LLVMValueRef v, const type *vt);
/* cg_elementwise.c: every element of an array, for cg_slices.c and ufuncs on arrays. A
 * loop nest over nd axes of extents ext (walking axis k backwards where back, if set,
 * has back[k] true) calls body with idx[] (allocated when NULL) at each element's
 * indices; cg_strided_elem_ptr is the element at sum(idx[k] * str[k]) of data. */
typedef struct cg_loop_nest {
  int nd;
  LLVMValueRef *ext, *back, *idx;
  void (*body)(cg_ctx *g, struct cg_loop_nest *n);
  void *user;
} cg_loop_nest;
void cg_loop_nest_build(cg_ctx *g, cg_loop_nest *n);
LLVMValueRef cg_strided_elem_ptr(cg_ctx *g, const type *el, LLVMValueRef data, LLVMValueRef *idx,
                                 LLVMValueRef *str, int nd);
/* NumPy's broadcasting of sources onto nd axes of extents ext: each source array src of
 * type st gives its strides on those axes (0 where it repeats) to sstr and its own
 * extents to sext (may be NULL); cg_broadcast_check reports the first mismatch at sp
 * when bounds-checking and returns whether all fit (i1). */
typedef struct cg_broadcast { LLVMValueRef ok, axis, got; } cg_broadcast;
void cg_broadcast_init(cg_ctx *g, cg_broadcast *bc);
void cg_broadcast_source(cg_ctx *g, cg_broadcast *bc, int nd, LLVMValueRef *ext, LLVMValueRef src,
                         const type *st, LLVMValueRef *sstr, LLVMValueRef *sext);
LLVMValueRef cg_broadcast_check(cg_ctx *g, cg_broadcast *bc, span sp, int nd, LLVMValueRef *ext);

#endif
