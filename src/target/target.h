/*
 * target.h — module-level work for the two back ends, after code generation has built
 * an LLVM module: the NVPTX target (data layout, libdevice, the optimisation pipeline,
 * PTX emission) and the host target (data layout for this CPU, the pipeline, and
 * machine code in memory through LLVM's ORC LLJIT).
 *
 * Every function returns 0 on success; on failure it returns non-zero and stores a
 * malloc'd message in *err (the caller frees it). Nothing here prints or exits.
 * LLVM's targets are initialised once per process, on first use, thread-safely; two
 * threads may use these functions at once on two different LLVM contexts.
 */
#ifndef KCC_TARGET_H
#define KCC_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>

#include "compile.h"

/* ---- Errors shared by both targets (target_common.c) ------------------------------- */

/* Store a malloc'd, formatted message in *err (when err is not NULL); returns 1, so a
 * caller can `return tgt_fail(...)`. */
int tgt_fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with "what: <LLVM's message>"; the LLVM message is disposed of here. */
int tgt_fail_llvm(char **err, const char *what, char *llvm_msg);
/* The same for an LLVMErrorRef (consumed). */
int tgt_fail_error(char **err, const char *what, LLVMErrorRef e);

/* Before either target's pipeline (inline_budget.c): mark noinline each device function
 * whose inlined copies would together pass `budget` instructions (its call sites times
 * its size with what it inlines), so compile time stays roughly linear in the source. */
enum { TGT_INLINE_BUDGET = 8000 };
void tgt_bound_inlining(LLVMModuleRef m, size_t budget);

/* The CPU back end's stacks (host_stack.c): the bytes of frame the host entry point
 * `entry` of m needs (its allocas and the most its callees need; 0 when there is no
 * such function), measured before optimisation; and stack probes in every function of
 * m (x86-64), so that a frame too big for its stack faults at the guard page. */
uint64_t host_stack_need(LLVMModuleRef m, const char *entry);
void host_stack_probes(LLVMModuleRef m);

/* LLVM ends the process on a few internal failures (report_fatal_error); install, once
 * per process, a handler that first says what kcc was doing and that it is kcc's bug.
 * Both targets call this when they initialise LLVM. */
void tgt_install_fatal_handler(void);
/* What this thread is doing with LLVM, for that message: stage ("emitting PTX for
 * sm_90") and the module's name (the .k file); NULL when done. Cheap: no allocation. */
void tgt_set_stage(const char *stage, LLVMModuleRef m);

/* A call of inline assembly `text` (PTX) that reads only its operands and touches no
 * memory (nounwind, memory(none): as free to move or merge as an intrinsic), returning
 * ret: for the PTX that an older LLVM has no intrinsic for. */
LLVMValueRef tgt_pure_asm(LLVMBuilderRef b, LLVMTypeRef ret, const char *text,
                          const char *constraints, LLVMValueRef *args, unsigned n);

/* ---- NVPTX ------------------------------------------------------------------------ */

/* The NVPTX calling convention of kernel entry points (LLVM's CallingConv::PTX_Kernel). */
#define NVPTX_KERNEL_CC 71

/* The oldest PTX ISA kcc emits, x10: asked for below sm_75 (LLVM's default there is
 * older), LLVM's newer default from sm_75 on. A builtin row's min_ptx must not pass it
 * (test_builtins), or the builtin would fail on old archs. */
#define NVPTX_MIN_PTX 63
#define NVPTX_STR_(x) #x
#define NVPTX_FEATURE_PTX(v) "+ptx" NVPTX_STR_(v)   /* 63 -> "+ptx63" */

/* The sm versions the installed LLVM can generate code for (20 … 121), for --arch
 * validation; non-zero when `arch` (e.g. 80 for sm_80) is one of them. */
int nvptx_arch_supported(int arch);

/* Give m the triple nvptx64-nvidia-cuda and the data layout of a target machine for
 * sm_<arch>. Call before generating code that depends on type sizes. */
int nvptx_prepare_module(LLVMModuleRef m, int arch, char **err);
/* The module flag code generation sets on a module with full debug info (not only line
 * tables): its PTX needs ISA 7.5 or later. */
#define KCC_FULL_DEBUG_FLAG "kcc.full_debug"

/* When m declares any __nv_* function: read libdevice bitcode from libdevice_path
 * (lazily: only the functions m needs, and what they call, are read and linked), set
 * the module flag "nvvm-reflect-ftz" to 0 (the NVVMReflect pass of the optimisation
 * pipeline then answers the __nvvm_reflect calls nvptx_optimize_and_emit leaves), and
 * internalise every function that is not a
 * kernel so unused ones are dropped. Does nothing when m uses no __nv_* function. */
int nvptx_link_libdevice(LLVMModuleRef m, const char *libdevice_path, char **err);

/* Verify m, mark kernels (functions listed as "kernel" in !nvvm.annotations get the
 * PTX_Kernel calling convention, and the reverse), internalise non-kernel functions,
 * inline libdevice and answer its __nvvm_reflect("__CUDA_FTZ") and
 * ("__CUDA_PREC_SQRT") per function (flush and approximate square roots in functions
 * whose "denormal-fp-math-f32" is preserve-sign, i.e. of fast-math kernels; neither
 * elsewhere), optimise with LLVM's standard pipeline at opt_level 0..3 for sm_<arch>, and emit PTX
 * text (emit_llvm == 0) or the optimised LLVM IR as text (emit_llvm != 0).
 * *out is malloc'd and NUL-terminated; *out_len excludes the NUL. m is modified. */
int nvptx_optimize_and_emit(LLVMModuleRef m, int arch, int opt_level, int emit_llvm,
                            char **out, size_t *out_len, char **err);

/* ---- Host (the CPU back end) ------------------------------------------------------- */

/* The CPU the host target compiles for, `cpu` below: NULL, "" or "host" for this CPU
 * (its name and all its features), or on x86-64 a baseline: "x86-64", "x86-64-v2",
 * "x86-64-v3", "x86-64-v4". NULL or "" defer to $KC_CPU_TARGET, then to $KC_HOST_CPU
 * (its older name). Any other name fails with a message naming the known ones. */

/* Fails when cpu (or the variable it defers to) names no CPU kcc knows; else *name is
 * the CPU's name as above, a static string ("host" for this CPU). */
int host_cpu_check(const char *cpu, const char **name, char **err);

/* Fails when cpu is unknown, or names a baseline this CPU lacks a feature of (the
 * message names it): its code could not run here. */
int host_cpu_usable(const char *cpu, char **err);

/* What code for cpu depends on, for a cache key (malloc'd): the CPU's name and, for
 * this CPU, its features. */
int host_target_id(const char *cpu, char **id, char **err);

/* Give m the host's triple and data layout (for the CPU's name and features). */
int host_prepare_module(LLVMModuleRef m, const char *cpu, char **err);

/* Verify m and optimise it with LLVM's standard pipeline at opt_level 0..3 for the
 * CPU, loop and SLP vectorisation on. */
int host_optimize(LLVMModuleRef m, int opt_level, const char *cpu, char **err);

/* Between the two rounds of host_optimize's pipeline (host_guards.c): rewrite each
 * lower-bound compare on a provably non-negative value (`i != 0`, `i >u k`, which
 * InstCombine makes of a guard `i > 0`) into `i - L > -1`, the form IRCE splits a loop
 * on, and drop llvm.assume calls, whose facts the first round has used. Results do not
 * change. */
void host_prepare_guards(LLVMModuleRef m);

/* Tell the loop whose latch branch is `term` to stay as it is: not vectorised, unrolled
 * or split by IRCE (host_budget.c; code generation marks loops too small to gain). */
void host_keep_loop(LLVMContextRef c, LLVMValueRef term);
/* Mark the loop whose latch ends in term as not to be unrolled (it stays a loop for
 * the vectoriser). */
void host_no_unroll(LLVMContextRef c, LLVMValueRef term);

/* Compile time that grows roughly linearly with a kernel's size (host_budget.c): LLVM's
 * vectorisers and machine schedulers are superlinear in the size of a loop or a block,
 * and a kernel's body, inlined into both entry points and copied by IRCE and the
 * vectoriser, was compiled up to six times over. Sizes are counted in instructions;
 * none of these changes a result.
 *  - before the first round, an always-inline function bigger than HOST_OUTLINE_BUDGET
 *    that is used more than once (a kernel's body, from K__block and K__thread) is made
 *    noinline, so it is compiled once and called;
 *  - between the rounds, a loop bigger than HOST_LOOP_BUDGET is marked not to be
 *    vectorised, unrolled or split by IRCE (what a big body gains from those is small
 *    next to what they cost); and where a block is bigger than HOST_BLOCK_BUDGET
 *    (host_has_big_block: straight-line code, if/else turned to selects) the second
 *    round leaves out the SLP vectoriser and float2int, which scan a block's
 *    instructions against each other;
 *  - after the second round, a block bigger than HOST_BLOCK_BUDGET is cut into
 *    scheduling regions of half that (llvm.fake.use, LLVM 20 and later, ends a region
 *    and emits nothing) and its function is scheduled for a generic CPU (this CPU's
 *    model may ask for post-RA scheduling, quadratic in a region's size). */
enum { HOST_OUTLINE_BUDGET = 8000, HOST_LOOP_BUDGET = 2000, HOST_BLOCK_BUDGET = 2000 };
void host_outline_big_functions(LLVMModuleRef m, size_t budget);
void host_limit_big_loops(LLVMModuleRef m, size_t budget);
bool host_has_big_block(LLVMModuleRef m, size_t budget);
void host_split_big_blocks(LLVMModuleRef m, size_t budget);

/* m as LLVM IR text (malloc'd, NUL-terminated), or NULL when out of memory. */
char *host_emit_llvm(LLVMModuleRef m);

/* Object code the JIT was given, kept for later (malloc'd). */
typedef struct host_object {
  char *data;
  size_t len;
} host_object;

/* Compile m to machine code for the CPU at opt_level, in memory (an ELF object made with
 * the CPU's target machine, then linked by LLJIT). Takes ownership of ctx and m (both
 * are disposed of, on failure too); m must be the only module in ctx. Calls from the
 * code to the C maths library (sinf, expf, …) and to the C library resolve to this
 * process's. When keep is not NULL it receives a copy of the object code, for
 * host_jit_object; extra (nextra objects, copied) are linked with it: link= files. Fails when the CPU is unknown or its code cannot run on this one
 * (x86-64-v4 without AVX-512). On success *out owns the code until host_code_free. */
int host_jit(LLVMContextRef ctx, LLVMModuleRef m, int opt_level, const char *cpu,
             host_object *keep, const host_object *extra, int nextra, kcc_host_code **out,
             char **err);

/* Object code for link= files (host_link.c): paths[i] compiled by the system's C or
 * C++ compiler into objs[i], for host_jit's extra. On failure *failed is the file's
 * index, *err says why, and nothing is left in objs. */
int host_link_objects(const char *const *paths, int n, host_object *objs, int *failed,
                      char **err);
void host_objects_free(host_object *objs, int n);

/* The same from object code host_jit kept (len bytes at data, copied), for the same
 * cpu; probe, a symbol it defines, is looked up to link it now (NULL: at the first
 * lookup). Nothing checks the code itself: a damaged object may fail here or run wrong,
 * so a store of objects must check what it hands back (the runtime's cache does). */
int host_jit_object(const void *data, size_t len, int opt_level, const char *cpu,
                    const char *probe, kcc_host_code **out, char **err);

/* The address of a function defined by the module (its LLVM name), or NULL. The first
 * lookup compiles the module. Safe to call from several threads. */
void *host_lookup(kcc_host_code *h, const char *symbol);

/* Free the code and everything the JIT holds. NULL is allowed. */
void host_code_free(kcc_host_code *h);

#endif
