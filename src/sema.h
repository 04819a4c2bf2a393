/*
 * sema.h — the typed program that type inference (infer.c) hands to code generation
 * (codegen.c): functions specialised per argument types, every expression node's type
 * (node->ty), every name resolved to a symbol (node->sym), and every use of a builtin
 * (cuda.threadIdx.x, math.sin, range, len ...) tagged with its id (node->aux).
 */
#ifndef KCC_SEMA_H
#define KCC_SEMA_H

#include "ast.h"
#include "compile.h"
#include "diag.h"

/* Builtins: everything the language knows by name. node->aux holds one of these on
 * N_NAME / N_ATTR / N_CALL nodes that refer to a builtin. */
typedef enum builtin_id {
  B_NONE = 0,
  /* namespaces (only valid as the left side of an attribute) */
  B_NS_CUDA, B_NS_MATH, B_NS_NUMBA, B_NS_TYPES, B_NS_NUMPY, B_NS_THREADIDX, B_NS_BLOCKIDX,
  B_NS_BLOCKDIM, B_NS_GRIDDIM, B_NS_SHARED, B_NS_LOCAL, B_NS_ATOMIC, B_NS_RANDOM,
  /* special registers: value = B_TID_X + 3 * which + axis */
  B_TID_X, B_TID_Y, B_TID_Z, B_CTAID_X, B_CTAID_Y, B_CTAID_Z,
  B_NTID_X, B_NTID_Y, B_NTID_Z, B_NCTAID_X, B_NCTAID_Y, B_NCTAID_Z,
  B_LANEID, B_WARPSIZE,
  B_GRID, B_GRIDSIZE, B_SYNCTHREADS, B_SHARED_ARRAY, B_LOCAL_ARRAY, B_ATOMIC_ADD,
  B_ATOMIC_SUB, B_ATOMIC_MAX, B_ATOMIC_MIN, B_ATOMIC_EXCH,
  /* CUDA intrinsics beyond syncthreads and the first atomics */
  B_NS_CONST, B_CONST_ARRAY_LIKE,
  B_SYNCTHREADS_COUNT, B_SYNCTHREADS_AND, B_SYNCTHREADS_OR,
  B_THREADFENCE, B_THREADFENCE_BLOCK, B_THREADFENCE_SYSTEM, B_SYNCWARP,
  B_ATOMIC_AND, B_ATOMIC_OR, B_ATOMIC_XOR, B_ATOMIC_INC, B_ATOMIC_DEC,
  B_ATOMIC_CAS, B_ATOMIC_COMPARE_AND_SWAP,
  B_SHFL_SYNC, B_SHFL_UP_SYNC, B_SHFL_DOWN_SYNC, B_SHFL_XOR_SYNC,
  B_ALL_SYNC, B_ANY_SYNC, B_EQ_SYNC, B_BALLOT_SYNC, B_MATCH_ANY_SYNC, B_MATCH_ALL_SYNC,
  B_ACTIVEMASK, B_LANEMASK_LT, B_POPC, B_BREV, B_CLZ, B_FFS, B_FMA, B_SELP,
  /* cube root and a timed sleep (B_NANOSLEEP ends the range of intrinsics from
     B_CONST_ARRAY_LIKE), and the atomics that treat NaN as a missing value */
  B_CBRT, B_NANOSLEEP, B_ATOMIC_NANMAX, B_ATOMIC_NANMIN,
  /* decorators */
  B_JIT, B_KERNEL, B_DEVICE, B_VECTORIZE,
  /* Python builtins */
  B_RANGE, B_LEN, B_ABS, B_MIN, B_MAX, B_ROUND, B_INT, B_FLOAT, B_BOOL,
  B_TYPE,      /* a scalar type used as a cast: float32(x); node->ty is the type */
  /* ---- print, and decorators that make kernels ---- */
  B_PRINT,     /* print(...): numbers, bools and string constants */
  B_REDUCE,    /* the @cuda.reduce decorator */
  B_GUVECTORIZE, /* the @guvectorize decorator */
  B_KC_ROW,    /* _kc_row(a, i): a[i] as an array of one dimension less (generated code) */
  B_KC_CELL,   /* _kc_cell(a, i): a[i:i+1] of a 1-D array (generated code) */
  /* math constants */
  B_MATH_PI, B_MATH_E, B_MATH_INF, B_MATH_NAN, B_MATH_TAU,
  /* math functions of one float argument returning the same float type */
  B_MATH_SQRT, B_MATH_EXP, B_MATH_EXP2, B_MATH_EXPM1, B_MATH_LOG, B_MATH_LOG2,
  B_MATH_LOG10, B_MATH_LOG1P, B_MATH_FABS, B_MATH_SIN, B_MATH_COS, B_MATH_TAN,
  B_MATH_ASIN, B_MATH_ACOS, B_MATH_ATAN, B_MATH_SINH, B_MATH_COSH, B_MATH_TANH,
  B_MATH_ASINH, B_MATH_ACOSH, B_MATH_ATANH, B_MATH_ERF, B_MATH_ERFC, B_MATH_GAMMA,
  B_MATH_LGAMMA,
  /* two float arguments */
  B_MATH_POW, B_MATH_FMOD, B_MATH_COPYSIGN, B_MATH_HYPOT, B_MATH_ATAN2,
  /* float -> int64 */
  B_MATH_FLOOR, B_MATH_CEIL, B_MATH_TRUNC,
  /* float -> bool */
  B_MATH_ISNAN, B_MATH_ISINF, B_MATH_ISFINITE,
  /* complex numbers: complex(x, y), z.conjugate(), the cmath module */
  B_NS_CMATH, B_COMPLEX, B_CONJUGATE,
  B_CMATH_EXP, B_CMATH_LOG, B_CMATH_SQRT,     /* complex -> complex */
  B_CMATH_PHASE, B_CMATH_POLAR, B_CMATH_RECT, /* -> float, -> (r, phi), (r, phi) -> complex */
  /* float16: cuda.fp16.*, each taking float16 arguments */
  B_NS_FP16,
  B_FP16_HADD, B_FP16_HSUB, B_FP16_HMUL, B_FP16_HDIV,            /* two -> float16 */
  B_FP16_HMAX, B_FP16_HMIN,
  B_FP16_HEQ, B_FP16_HNE, B_FP16_HGT, B_FP16_HGE, B_FP16_HLT, B_FP16_HLE, /* two -> bool */
  B_FP16_HFMA,                                                   /* three -> float16 */
  B_FP16_HNEG, B_FP16_HABS, B_FP16_HSQRT, B_FP16_HRSQRT, B_FP16_HRCP, /* one -> float16 */
  B_FP16_HEXP, B_FP16_HEXP2, B_FP16_HLOG, B_FP16_HLOG2, B_FP16_HLOG10, B_FP16_HSIN,
  B_FP16_HCOS, B_FP16_HFLOOR, B_FP16_HCEIL, B_FP16_HTRUNC, B_FP16_HRINT,
  B_COUNT
} builtin_id;

typedef enum sym_kind { SYM_LOCAL, SYM_CONST, SYM_FUNC } sym_kind;

struct func_def;

typedef struct symbol {
  sym_kind kind;
  const char *name;
  const type *ty;         /* SYM_LOCAL, SYM_CONST */
  span where;             /* first assignment / definition */
  bool weak;              /* SYM_LOCAL: every assignment so far was a bare literal */
  bool is_param;
  bool is_shared;         /* SYM_LOCAL: bound to a cuda.shared.array */
  int param_index;
  node *value;            /* SYM_CONST: the folded value (N_INT/N_FLOAT/N_BOOL/N_TUPLE) */
  struct func_def *func;  /* SYM_FUNC */
  void *cg;               /* codegen's storage for the symbol (an alloca) */
} symbol;

typedef enum func_kind {
  FN_KERNEL, FN_DEVICE, FN_VECTORIZE,
  FN_REDUCE,  /* @cuda.reduce: a binary device function and a generated kernel */
  FN_GUVECTORIZE, /* @guvectorize: a core device function and a generated loop */
} func_kind;

typedef struct func_def {
  node *def;              /* the N_FUNCDEF as parsed (never annotated: instances are
                             annotated clones) */
  func_kind kind;
  const char *name;
  ptr_vec sigs;           /* type lists: each a ptr_vec* of const type* (params), from
                             annotations, the decorator or --sig */
  ptr_vec rets;           /* FN_VECTORIZE: return type per signature */
  ptr_vec instances;      /* fn_instance* made so far */
  const char *layout;     /* FN_GUVECTORIZE: "(m,n),()->(m)" */
  span layout_sp;
  bool fastmath;          /* fastmath=True in the decorator */
  node **defaults;        /* FN_DEVICE: per parameter, its default value folded to a
                             constant (N_INT/N_FLOAT/N_BOOL/N_COMPLEX/N_TUPLE), or NULL */
  struct func_def *generated; /* FN_REDUCE: the kernel synthesised for it (synth.c), of
                             the same name; not in program.funcs, so a call of the name
                             finds the user's function */
} func_def;

typedef struct fn_instance {
  func_def *fn;
  node *def;              /* an annotated clone of fn->def */
  int nparams;
  const type **param_types;
  symbol **params;
  const type *ret;        /* TY_VOID for kernels and value-less functions */
  ptr_vec locals;         /* symbol*: params first, then other locals */
  const char *symbol_name;/* the LLVM / PTX name */
  bool is_kernel;
  bool uses_barrier;      /* this function or one it calls reaches a barrier */
  bool in_fast_kernel;    /* compiled for a fastmath kernel (the kernel itself, or a
                             device function it calls): denormals flushed on NVPTX. A
                             device function called from both kinds has an instance
                             for each */
  bool fastmath;          /* its own code uses fast math: in_fast_kernel, or a device
                             function declared fastmath=True */
  bool in_progress;       /* being inferred (recursion check) */
  bool done;
  struct fn_instance *vec_scalar; /* FN_VECTORIZE wrapper: the scalar function */
  bitset written_params;  /* i in it: array parameter i is stored to (nparams bits;
                             param_written, mark_param_written) */
  bitset omitted;         /* i in it: parameter i took its default, a constant that
                             behaves as a literal there (`x * scale` stays float32);
                             part of the specialisation, as the types are */
  ptr_vec shared;         /* symbol*: static shared arrays (locals with is_shared) */
  void *cg;               /* LLVMValueRef of the function */
} fn_instance;

/* Whether array parameter i of f is stored to (directly, through a view or by a
 * function it is passed to): one that is not is compiled read-only (noalias). */
static inline bool param_written(const fn_instance *f, int i) {
  return bitset_has(f->written_params, i);
}
static inline void mark_param_written(fn_instance *f, int i) {
  bitset_add(f->written_params, i);
}

typedef struct program {
  node *module;
  ptr_vec funcs;          /* func_def* */
  ptr_vec instances;      /* fn_instance*, every function compiled */
  ptr_vec kernels;        /* fn_instance*, the kernel entry points */
  ptr_vec untyped;        /* const char*: kernels skipped for lack of types */
} program;

/* Resolve names, infer types, specialise functions. Errors go to d; returns the
 * number of errors found. */
int infer_program(arena *a, diag_sink *d, node *module, const kcc_options *opts,
                  program *out);
/* "kernel add(a: float32[:], ...)\n  i: int32\n ..." for --emit=types. */
char *infer_dump_types(arena *a, const program *p);

/* The information codegen needs about a builtin call: its id lives in node->aux. */
static inline builtin_id node_builtin(const node *n) { return (builtin_id)n->aux; }

#endif
