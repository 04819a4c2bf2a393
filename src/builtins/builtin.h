/*
 * builtin.h — the builtin registry: everything the kernel language knows by name
 * (cuda.threadIdx.x, cuda.atomic.add, math.sin, range, print, @cuda.jit ...), one row
 * per dotted path.
 *
 * A row says what the name is (a module, a value, a function, a method, a decorator),
 * how many arguments it takes, the GPU it needs, its effects (flags), and carries the
 * two functions that give it meaning: its typing (run by type inference, infer.c) and
 * its lowering to LLVM IR (run by code generation, codegen.c), with a CPU lowering
 * beside it where the CPU back end differs. The rows live in one file per family
 * under src/builtins/ (threads.c, sync.c, atomics.c, warp.c, bits.c, memory.c,
 * math.c, complex.c, fp16.c, bf16.c, python.c, print.c, modules.c, numpy.c, coop.c), each a table next to the
 * code it names; registry.c lists the families. Type inference finds a row by path
 * and stores it in node->bi; code generation calls its lowering. Adding a builtin is a
 * row and its functions in one family file (docs/internals.md walks through one).
 */
#ifndef KCC_BUILTIN_H
#define KCC_BUILTIN_H

#include <llvm-c/Types.h>
#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "types.h"

typedef struct infer_ctx infer_ctx;
typedef struct cg_ctx cg_ctx;
typedef struct builtin builtin;

typedef enum builtin_kind {
  BK_MODULE,    /* a namespace: only the left side of an attribute (numba.cuda, math) */
  BK_VALUE,     /* a value: cuda.threadIdx.x, math.pi */
  BK_FUNCTION,  /* called: cuda.grid(1), math.sin(x), len(a) */
  BK_METHOD,    /* called on a value: z.conjugate(); its path starts with '.' */
  BK_DECORATOR, /* @cuda.jit, @vectorize ...: op holds the func_kind it makes */
  BK_ATTRIBUTE, /* an attribute of a value: a.strides, a.T; its path starts with '.' */
} builtin_kind;

/* What a builtin does besides computing its value, and what is known of that value: read
 * by type inference, and by the CPU back end's region form (host_regions.c), which asks
 * these flags, never paths or families, which builtins it may run once per block. */
enum {
  BF_BARRIER = 1 << 0,       /* a block-wide barrier: the threads of a block meet there */
  BF_WARP = 1 << 1,          /* exchanges values between the threads of a warp */
  BF_WRITES_ARG0 = 1 << 2,   /* stores to its first argument, an array */
  BF_NEW_ARRAY = 1 << 3,     /* makes an array bound to a name: shared, local, const */
  BF_READ_ONLY = 1 << 4,     /* BF_NEW_ARRAY: the array cannot be written (const) */
  BF_LOOP = 1 << 5,          /* only as the iterable of a for loop (range) */
  BF_DECORATOR_ARGS = 1 << 6,/* BK_DECORATOR: takes signatures and keywords (cuda.jit) */
  BF_CONSTANT = 1 << 7,      /* BK_VALUE: a float64 constant (value), folded as literals are */
  BF_FOLD = 1 << 8,          /* BK_FUNCTION: evaluated at module level by constant folding,
                                by the row's fold (np.array, np.arange, np.dtype ...) */
  BF_GROUP = 1 << 9,         /* BK_METHOD: a method of a cooperative group (g.sync()),
                                not of numbers */
  BF_ARRAY_METHOD = 1 << 10, /* BK_METHOD, BK_ATTRIBUTE: of an array (a.view, a.T); other
                                methods are of numbers */
  BF_PURE = 1 << 11,         /* no effect, and a value that depends on its arguments alone
                                (math.sin, len, float32(x)): the same in every thread when
                                they are */
  BF_ARRAY_SHAPE = 1 << 12,  /* BF_PURE: reads an array argument's shape, not its elements
                                (len), so it stays the same in every thread */
  BF_UNIFORM = 1 << 13,      /* the same in every thread of a block (cuda.blockIdx.x,
                                cuda.blockDim.x, cuda.gridsize(1), cuda.warpsize) */
  BF_THREAD_INDEX = 1 << 14, /* the thread's own place, computed from its coordinates alone
                                (cuda.threadIdx.x, cuda.grid(1), cuda.laneid) */
  BF_COLLECTIVE = 1 << 15,   /* BF_BARRIER: also exchanges values between the block's threads
                                (syncthreads_count/and/or); a barrier without it or BF_GROUP
                                is cuda.syncthreads() */
  BF_REFUSED = 1 << 16,      /* BK_METHOD: a name Python or NumPy has and kernels do not
                                (a.copy()): its typing says why and what to write
                                instead; never lowered */
  BF_ADDS_TO_ARG0 = 1 << 17, /* BF_WRITES_ARG0: adds to an element, and nothing else
                                (atomic add and sub): integer arrays only changed so can
                                be counted in private copies and summed (host_private.c) */
  BF_REWRITTEN = 1 << 18,    /* BK_FUNCTION: its typing turns the call into another node
                                (operator.add(a, b) into a + b) and types that; never
                                lowered */
};

/* Where an array a memory.c row makes lives: its op. BF_NEW_ARRAY rows are MEM_SHARED
 * and MEM_CONST (one array for the whole block) and MEM_LOCAL (one per thread); MEM_ROW
 * and MEM_CELL are @guvectorize's views of an argument (_kc_row, _kc_cell). */
typedef enum mem_kind { MEM_SHARED, MEM_LOCAL, MEM_CONST, MEM_ROW, MEM_CELL } mem_kind;

/* Typing: check e's arguments, type them, return e's type (NULL after an error).
 * e is the N_CALL (BK_FUNCTION, BK_METHOD) or the N_NAME/N_ATTR (BK_VALUE). */
typedef const type *(*builtin_typing)(infer_ctx *ic, node *e, const builtin *b);
/* Lowering: e's value (NULL for a call with no value). */
typedef LLVMValueRef (*builtin_lowering)(cg_ctx *g, node *e, const builtin *b);
/* Folding (BF_FOLD): the call e at module level evaluated to a constant node (a module
 * array, a record type ...), NULL after an error; run by constant folding (fold.c). */
typedef node *(*builtin_fold)(infer_ctx *ic, node *e, const builtin *b);

/* Rows are written with designated initializers, naming only the fields they set
 * ({.path = "numba.cuda.nanosleep", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
 * .min_sm = 70, .min_ptx = 63, .typing = ..., .lower = ..., .lower_host = ...}): a field
 * left out is 0 or NULL, which is each field's "nothing" (any GPU, no flags ...). */
struct builtin {
  const char *path;          /* "numba.cuda.atomic.add", "math.sin", "len" */
  builtin_kind kind;
  signed char min_args;      /* BK_FUNCTION, BK_METHOD: positional arguments, checked */
  signed char max_args;      /*   before typing (no keywords then); max_args < 0: the
                                typing function checks */
  unsigned char min_sm;      /* NVPTX: the oldest GPU with the instruction (0: any) */
  unsigned char min_ptx;     /* NVPTX: the PTX ISA version it needs, x10 (0: any) */
  unsigned flags;            /* BF_* */
  int op;                    /* the family's own datum: a register, an opcode, a
                                KC_COLL_* code, a func_kind ... */
  const char *name;          /* the family's own string: a libm name, a PTX mode ... */
  double value;              /* BF_CONSTANT: the constant */
  builtin_typing typing;
  builtin_lowering lower;    /* both targets, unless lower_host is given */
  builtin_lowering lower_host; /* the CPU back end, where it differs (may be NULL) */
  builtin_fold fold;         /* BF_FOLD: the call evaluated at module level */
};

/* A family's rows, ended by a row with a NULL path. */
typedef struct builtin_family {
  const char *name;          /* "atomics": the file src/builtins/atomics.c */
  const builtin *rows;
} builtin_family;

/* Rows reached only under a path prefix (cuda.libdevice's 300), ended by a NULL prefix. */
typedef struct builtin_prefixed {
  const char *prefix;
  const builtin *rows;
} builtin_prefixed;

/* Everything the language knows by name: what type inference is given to look names up
 * in (infer_program's builtins), as Go's type checker is given its universe. The stages
 * see rows only through it and the nodes it tagged, so the family files, which call
 * into typing and code generation, sit above both (registry.c makes the one registry;
 * compile.c hands it down). */
typedef struct builtin_registry {
  const builtin_family *families;   /* ended by one with a NULL name */
  const builtin_prefixed *prefixed;
  const builtin *type_cast;         /* float32(x): a type called as a cast (python.c) */
  const builtin *vector_ctor;       /* float32x4(...): every vector type's constructor
                                       (vectors.c) */
} builtin_registry;

/* lookup.c: the row for a dotted path ("numba.cuda.atomic.add"), or NULL. */
const builtin *builtin_find(const builtin_registry *r, const char *path);
/* The BK_ATTRIBUTE row for attribute name of a value of type t (".strides" of an array),
 * or NULL. */
const builtin *builtin_attribute(const builtin_registry *r, const type *t, const char *name);
/* The name as users write it: "cuda.atomic.add" for "numba.cuda.atomic.add". */
const char *builtin_user_name(const builtin *b);
/* The lowering for the target: lower_host on the CPU back end when given. */
builtin_lowering builtin_lowering_for(const builtin *b, bool host);

/* registry.c: kcc's builtins, every family and table below. */
const builtin_registry *kcc_builtins(void);

/* the families (each defined in its file) */
extern const builtin builtins_modules[], builtins_threads[], builtins_sync[],
    builtins_atomics[], builtins_warp[], builtins_bits[], builtins_memory[],
    builtins_math[], builtins_complex[], builtins_fp16[], builtins_bf16[], builtins_python[],
    builtins_print[], builtins_numpy[], builtins_coop[], builtins_dtypes[], builtins_arrays[],
    builtins_module_arrays[], builtins_cache_hints[], builtins_operators[];

/* math.c: the typing and lowering of a float64 constant row (math.pi; np.pi too) */
const type *ix_math_constant(infer_ctx *ic, node *e, const builtin *b);
LLVMValueRef cg_math_constant(cg_ctx *g, node *e, const builtin *b);

/* libdevice.c: cuda.libdevice.*, ended by a NULL path. Not a family: builtin_find
 * looks in it only for paths under numba.cuda.libdevice. */
extern const builtin builtins_libdevice[];

/* module_arrays.c: A.reshape(...), A.astype(t), A.copy(), A.flatten(), A.ravel() on a
 * module array, folded at module level (op: MA_*); arrays.c's rows refuse them in
 * kernels */
enum { MA_RESHAPE, MA_ASTYPE, MA_COPY, MA_FLATTEN };
node *ma_fold_method(infer_ctx *ic, node *e, const builtin *b);

/* fp16.c, for bf16.c: the type of a cuda.fp16 (float16) or cuda.bf16 (bfloat16) row's
 * arguments; the arguments checked to be of it (a literal adopts it); their values. A
 * row's typing that gives that type; lowerings: the operator op, the LLVM intrinsic
 * name, the libm function name computed in float32 and rounded once */
const type *builtin_half_type(const builtin *b);
bool builtin_half_args(infer_ctx *ic, node *e, const builtin *b);
void cg_half_values(cg_ctx *g, node *e, const builtin *b, LLVMValueRef a[3]);
const type *ix_half(infer_ctx *ic, node *e, const builtin *b);
LLVMValueRef cg_half_arith(cg_ctx *g, node *e, const builtin *b);
LLVMValueRef cg_half_intrinsic(cg_ctx *g, node *e, const builtin *b);
LLVMValueRef cg_half_math(cg_ctx *g, node *e, const builtin *b);

/* memory.c: the dtype an argument names (float32, np.int8, 'f4', a.dtype, a local
 * holding a type), or NULL; shared by the array makers and a.view(dtype). */
const type *ix_dtype_arg(infer_ctx *ic, node *d);

/* Rows the language reaches other than by a path (kcc_builtins()'s type_cast and
 * vector_ctor). */
extern const builtin builtin_type_cast;
extern const builtin builtin_vector_ctor;

#endif
