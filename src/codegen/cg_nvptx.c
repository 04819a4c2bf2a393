/*
 * cg_nvptx.c — the GPU side of code generation (cg_target.h): what a kernel stands on
 * when it runs on NVIDIA hardware. Thread indices are PTX special registers; memory
 * lives in NVPTX's address spaces (global 1, shared 3, constant 4), reached through
 * generic pointers; print is CUDA's vprintf with the arguments packed in a buffer;
 * the bounds-check record is a module global the runtime reads after a launch; and
 * each kernel is one ptx_kernel entry point taking the flattened launch arguments
 * (CUDA kernelParams layout, host_abi.h) and calling the kernel's body.
 * Functions take no hidden parameters. Fast-math kernels flush float32 denormals.
 * Assumes the module is for nvptx64 (target.h: nvptx_prepare_module).
 */
#include <stdio.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "cg_records.h"
#include "host_abi.h"
#include "target.h"

enum { NVPTX_AS_GLOBAL = 1, NVPTX_AS_SHARED = 3, NVPTX_AS_CONST = 4 };

/* ---- functions ---- */

static void nvptx_no_hidden(cg_ctx *g, LLVMTypeRef *pt) { (void)g, (void)pt; }
static void nvptx_enter_function(cg_ctx *g) { (void)g; }
static void nvptx_no_hidden_args(cg_ctx *g, LLVMValueRef *args) { (void)g, (void)args; }

/* Every function of a fast-math kernel (device functions included, so that they still
 * inline into it) flushes float32 denormals to zero: ftz forms of the instructions. */
static void nvptx_flush_denormals(cg_ctx *g, LLVMValueRef fn) {
  static const char key[] = "denormal-fp-math-f32", value[] = "preserve-sign,preserve-sign";
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(g->c, key, sizeof key - 1, value,
                                                    sizeof value - 1));
}

static void nvptx_function_attrs(cg_ctx *g, fn_instance *f, LLVMValueRef fn) {
  if (f->in_fast_kernel) nvptx_flush_denormals(g, fn);
}

/* ---- thread indices ---- */

static LLVMValueRef nvptx_special_reg(cg_ctx *g, int which, int axis) {
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", cg_sreg_names[which],
           "xyz"[axis]);
  return cg_call_intrinsic(g, name, NULL, NULL, 0);
}

static LLVMValueRef nvptx_laneid(cg_ctx *g) {
  return cg_call_intrinsic(g, "llvm.nvvm.read.ptx.sreg.laneid", NULL, NULL, 0);
}

/* ---- memory ---- */

static LLVMValueRef nvptx_generic_ptr(cg_ctx *g, LLVMValueRef gv) {
  return LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
}

/* One addrspace(3) global per shared array, named in kcc's reserved __kcc_ space: a
 * kernel named like it (def shared(a)) would otherwise be renamed shared.1, which PTX
 * does not accept as a name. */
static LLVMValueRef nvptx_shared_array(cg_ctx *g, LLVMTypeRef at, size_t bytes) {
  (void)bytes;
  LLVMValueRef gv = LLVMAddGlobalInAddressSpace(g->m, at, "__kcc_shared", NVPTX_AS_SHARED);
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetInitializer(gv, LLVMGetUndef(at));
  LLVMSetAlignment(gv, 16);
  return nvptx_generic_ptr(g, gv);
}

/* PTX's %dynamic_smem_size: the launch's dynamic shared memory in bytes. LLVM 22 has an
 * intrinsic for it, 19 has not: there the register is read by inline PTX, which
 * touches no memory (so it is as free to move or merge as the intrinsic). */
static LLVMValueRef dynamic_smem_size(cg_ctx *g) {
  static const char intrinsic[] = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size";
  if (LLVMLookupIntrinsicID(intrinsic, sizeof intrinsic - 1))
    return cg_call_intrinsic(g, intrinsic, NULL, NULL, 0);
  return tgt_pure_asm(g->b, g->i32, "mov.u32 $0, %dynamic_smem_size;", "=r", NULL, 0);
}

/* The extern, zero-sized __kcc_dynamic_shared: PTX places it after the static arrays. */
static void nvptx_dynamic_shared(cg_ctx *g, LLVMValueRef *data, LLVMValueRef *bytes) {
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, "__kcc_dynamic_shared");
  if (!gv) {
    gv = LLVMAddGlobalInAddressSpace(g->m, LLVMArrayType2(g->i8, 0), "__kcc_dynamic_shared",
                                     NVPTX_AS_SHARED);
    LLVMSetLinkage(gv, LLVMExternalLinkage);
    LLVMSetAlignment(gv, 16);
  }
  *data = nvptx_generic_ptr(g, gv);
  *bytes = LLVMBuildZExt(g->b, dynamic_smem_size(g), g->i64, "");
}

/* A zero-initialised module global of size bytes in global memory, made once. */
static LLVMValueRef nvptx_module_global(cg_ctx *g, const char *name, unsigned size,
                                        unsigned align, bool internal) {
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, name);
  if (!gv) {
    LLVMTypeRef t = LLVMArrayType2(g->i8, size);
    gv = LLVMAddGlobalInAddressSpace(g->m, t, name, NVPTX_AS_GLOBAL);
    if (internal) LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, LLVMConstNull(t));
    LLVMSetAlignment(gv, align);
  }
  return nvptx_generic_ptr(g, gv);
}

/* The module global KC_KERNEL_ERROR_SYMBOL, read and cleared by the runtime after a
 * launch. */
static LLVMValueRef nvptx_error_record(cg_ctx *g) {
  return nvptx_module_global(g, KC_KERNEL_ERROR_SYMBOL, KC_KERNEL_ERROR_SIZE, 8, false);
}

/* 16 bytes: the widest element, and aligned for atomics. */
static LLVMValueRef nvptx_error_scratch(cg_ctx *g) {
  return nvptx_module_global(g, "__kcc_scratch", 16, 16, true);
}

/* PTX's exit: LLVM's intrinsic where it has one, else the instruction written inline. */
static void nvptx_thread_exit(cg_ctx *g) {
  static const char intrinsic[] = "llvm.nvvm.exit";
  if (cg_have_intrinsic(intrinsic)) {
    cg_call_intrinsic(g, intrinsic, NULL, NULL, 0);
  } else {
    LLVMTypeRef ft = LLVMFunctionType(g->voidt, NULL, 0, 0);
    LLVMValueRef code = LLVMGetInlineAsm(ft, "exit;", 5, "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(g->b, ft, code, NULL, 0, "");
  }
  LLVMBuildUnreachable(g->b);
}

/* ---- print ---- */

/* vprintf(fmt, buf): the arguments packed in a local buffer, each at its natural
 * alignment, which an LLVM struct gives. */
static void nvptx_printf(cg_ctx *g, LLVMValueRef fmt, LLVMValueRef *vals, int n) {
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  LLVMValueRef buf = LLVMConstNull(g->ptr);
  if (n > 0) {
    LLVMTypeRef *tys = arena_alloc(g->ar, sizeof *tys * (size_t)n);
    for (int i = 0; i < n; i++) tys[i] = LLVMTypeOf(vals[i]);
    LLVMTypeRef st = LLVMStructTypeInContext(g->c, tys, (unsigned)n, 0);
    buf = cg_entry_alloca(g, st, "printf.args");
    for (int i = 0; i < n; i++)
      LLVMBuildStore(g->b, vals[i], LLVMBuildStructGEP2(g->b, st, buf, (unsigned)i, ""));
  }
  LLVMValueRef vp = cg_declare_fn(g, "vprintf", g->i32, pt, 2);
  LLVMValueRef args[2] = {fmt, buf};
  cg_call_fn(g, vp, args, 2);
}

/* ---- the kernel's entry point ---- */

/* An array extent parameter is never negative: say so (range [0, 2^63)), so that LLVM
 * can drop what only a negative extent would need: the -1 divisor case and sign fixups
 * of `x % a.size`, wrap-around of indices computed from it. LLVM 19 has range
 * attributes in its C API; older ones go without. */
static void add_nonnegative_i64_attr(cg_ctx *g, LLVMValueRef fn, int idx) {
#if LLVM_VERSION_MAJOR >= 19
  unsigned kind = LLVMGetEnumAttributeKindForName("range", 5);
  if (kind == 0) return;
  const uint64_t lo = 0, hi = UINT64_C(1) << 63;
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)idx,
                          LLVMCreateConstantRangeAttribute(g->c, kind, 64, &lo, &hi));
#else
  (void)g, (void)fn, (void)idx;
#endif
}

/* The kernel's parameters flattened as the entry point takes them (host_abi.h): one
 * per scalar, a data pointer and its extents per array. */
static int flat_param_count(const fn_instance *f) {
  int n = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    n += cg_param_words(t);
  }
  return n;
}

/* One performance directive of the entry fn: a function attribute from LLVM 20 on,
 * an nvvm.annotations entry before (annotation, with "x" for a dimension). */
static void nvptx_directive(cg_ctx *g, LLVMValueRef fn, const char *attr,
                            const char *annotation, int value) {
  if (value <= 0) return;
#if LLVM_VERSION_MAJOR >= 20
  (void)annotation;
  char text[16];
  snprintf(text, sizeof text, "%d", value);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(g->c, attr, (unsigned)strlen(attr), text,
                                (unsigned)strlen(text)));
#else
  (void)attr;
  LLVMValueRef md[3] = {fn, LLVMMDStringInContext(g->c, annotation, (unsigned)strlen(annotation)),
                        ci32(g, value)};
  LLVMAddNamedMetadataOperand(g->m, "nvvm.annotations", LLVMMDNodeInContext(g->c, md, 3));
#endif
}

/* launch_bounds= and max_registers= (resolve_options.c): .maxntid, .minnctapersm,
 * .maxclusterrank and .maxnreg. */
static void nvptx_kernel_bounds(cg_ctx *g, fn_instance *f, LLVMValueRef fn) {
  const fn_options *o = &f->fn->opts;
  nvptx_directive(g, fn, "nvvm.maxntid", "maxntidx", o->max_threads);
  nvptx_directive(g, fn, "nvvm.minctasm", "minctasm", o->min_blocks);
  nvptx_directive(g, fn, "nvvm.maxclusterrank", "maxclusterrank", o->max_cluster);
  nvptx_directive(g, fn, "nvvm.maxnreg", "maxnreg", o->max_registers);
}

/* A record parameter is passed as clang passes a struct to a kernel: a byval pointer
 * into the parameter space, read where it lies. As an LLVM aggregate value ([N x i8])
 * it was N byte loads and stores, and float64[4000] by value took a minute. */
static void record_param_attrs(cg_ctx *g, LLVMValueRef fn, unsigned p, const type *t) {
  const char *byval = "byval";
  LLVMAttributeRef a = LLVMCreateTypeAttribute(g->c, LLVMGetEnumAttributeKindForName(byval, 5),
                                               cg_record_mem_type(g, t));
  LLVMAddAttributeAtIndex(fn, p + 1, a);
  LLVMSetParamAlignment(LLVMGetParam(fn, p), 16);
}

/* K(flat parameters): reassemble the body's arguments and call it. */
static void nvptx_gen_entries(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef *pt = arena_alloc(g->ar, sizeof *pt * (size_t)(flat_param_count(f) + 1));
  unsigned n = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY) {
      pt[n++] = g->ptr;
      for (int k = 1; k < cg_param_words(t); k++) pt[n++] = g->i64;
    } else if (t->kind == TY_TUPLE) {   /* a tuple of scalars: element by element */
      for (int k = 0; k < t->nelems; k++) pt[n++] = cg_param_scalar_type(g, t->elems[k]);
    } else if (t->kind == TY_RECORD) {
      pt[n++] = g->ptr;   /* byval: record_param_attrs */
    } else {
      pt[n++] = cg_param_scalar_type(g, t);
    }
  }
  LLVMValueRef fn = LLVMAddFunction(g->m, f->symbol_name, LLVMFunctionType(g->voidt, pt, n, 0));
  LLVMSetFunctionCallConv(fn, NVPTX_KERNEL_CC);
  if (f->in_fast_kernel) nvptx_flush_denormals(g, fn);
  nvptx_kernel_bounds(g, f, fn);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->c, fn, "entry");
  LLVMPositionBuilderAtEnd(g->b, bb);
  cg_entry_debug(g, fn, f);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 1));
  unsigned p = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY) {
      unsigned dp = p;
      LLVMValueRef data = LLVMGetParam(fn, p++);
      LLVMValueRef ext[2 * KC_MAX_DIMS];
      for (int k = 0; k < cg_param_words(t) - 1; k++) {
        if (k < t->ndim) add_nonnegative_i64_attr(g, fn, (int)p + 1);   /* not strides */
        ext[k] = LLVMGetParam(fn, p++);
      }
      args[i] = cg_build_array(g, t, data, ext);
      /* arrays the kernel never writes may be read through the non-coherent cache */
      if (!param_written(f, i)) {
        cg_add_attr(g, fn, (int)dp + 1, "noalias");
        cg_add_attr(g, fn, (int)dp + 1, "readonly");
      }
      cg_add_attr(g, fn, (int)dp + 1, "nocapture");
    } else if (t->kind == TY_TUPLE) {
      LLVMValueRef v = LLVMGetUndef(cg_type(g, t));
      for (int k = 0; k < t->nelems; k++)
        v = LLVMBuildInsertValue(g->b, v, cg_param_scalar_value(g, LLVMGetParam(fn, p++), t->elems[k]),
                                 (unsigned)k, "");
      args[i] = v;
    } else if (t->kind == TY_RECORD) {   /* the body copies it for the thread */
      record_param_attrs(g, fn, p, t);
      args[i] = LLVMGetParam(fn, p++);
    } else {
      args[i] = cg_param_scalar_value(g, LLVMGetParam(fn, p++), t);
    }
  }
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams, "");
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  /* also the classic annotation, read by tools and older LLVMs */
  LLVMValueRef md[3] = {fn, LLVMMDStringInContext(g->c, "kernel", 6), ci32(g, 1)};
  LLVMAddNamedMetadataOperand(g->m, "nvvm.annotations", LLVMMDNodeInContext(g->c, md, 3));
}

const cg_target cg_target_nvptx = {
  .name = "nvptx",
  .host = false,
  .const_addrspace = NVPTX_AS_CONST,
  .const_limit = 65536,
  .string_addrspace = NVPTX_AS_GLOBAL,
  .hidden_count = 0,
  .hidden_param_types = nvptx_no_hidden,
  .enter_function = nvptx_enter_function,
  .hidden_args = nvptx_no_hidden_args,
  .function_attrs = nvptx_function_attrs,
  .special_reg = nvptx_special_reg,
  .laneid = nvptx_laneid,
  .generic_ptr = nvptx_generic_ptr,
  .shared_array = nvptx_shared_array,
  .dynamic_shared = nvptx_dynamic_shared,
  .error_record = nvptx_error_record,
  .error_scratch = nvptx_error_scratch,
  .thread_exit = nvptx_thread_exit,
  .printf_call = nvptx_printf,
  .gen_entries = nvptx_gen_entries,
};
