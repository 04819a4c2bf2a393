/*
 * sema.h — the typed program that type inference (infer.c) hands to code generation
 * (codegen.c): functions specialised per argument types, every expression node's type
 * (node->ty), every name resolved to a symbol (node->sym), and every use of a builtin
 * (cuda.threadIdx.x, math.sin, range, len ...) tagged with its registry row (node->bi,
 * src/builtins/builtin.h).
 */
#ifndef KCC_SEMA_H
#define KCC_SEMA_H

#include "ast.h"
#include "compile.h"
#include "diag.h"

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
  bool poisoned;          /* SYM_LOCAL: a value assigned to it had an error (reported), so
                             its uses say nothing more */
  int param_index;
  node *value;            /* SYM_CONST: the folded value (N_INT/N_FLOAT/N_BOOL/N_TUPLE) */
  node *literal;          /* a parameter of a literal instance: the constant every call
                             of that instance passes (N_INT/N_BOOL/N_TUPLE), folded as a
                             module constant is */
  struct func_def *func;  /* SYM_FUNC */
  void *cg;               /* codegen's storage for the symbol (an alloca) */
} symbol;

typedef enum func_kind {
  FN_KERNEL, FN_DEVICE, FN_VECTORIZE,
  FN_REDUCE,  /* @cuda.reduce: a binary device function and a generated kernel */
  FN_GUVECTORIZE, /* @guvectorize: a core device function and a generated loop */
} func_kind;

/* @cuda.jit's keyword options beyond device= and fastmath= (resolve_options.c). */
typedef enum fn_inline { FN_INLINE_DEFAULT, FN_INLINE_ALWAYS, FN_INLINE_NEVER } fn_inline;

typedef struct fn_options {
  bool debug;             /* debug=True: asserts, raises and indices checked, full debug
                             info (cg_checks.c) */
  bool noopt;             /* opt=False: its code is not optimised (LLVM optnone) */
  bool lineinfo;          /* lineinfo=True: .loc line info in the PTX */
  int max_registers;      /* max_registers=N: PTX .maxnreg; 0 = none */
  int max_threads;        /* launch_bounds[0]: .maxntid; 0 = none */
  int min_blocks;         /* launch_bounds[1]: .minnctapersm; 0 = none */
  int max_cluster;        /* launch_bounds[2]: .maxclusterrank (sm_90); 0 = none */
  fn_inline inline_mode;  /* inline= / forceinline= of a device function */
  ptr_vec links;          /* link=[...]: link_file* (foreign.c) */
  bool link_given;        /* link= was written (its files may have been refused) */
} fn_options;

/* A file link= names: its absolute path, and the entry that named it. */
typedef struct link_file {
  const char *path;
  span where;
} link_file;

/* A foreign device function: f = cuda.declare_device('name', 'float32(float32)')
 * (foreign.c). Called with Numba's ABI: int name(T *return_value, args...). */
typedef struct foreign_fn {
  const char *name;       /* the Python name bound */
  const char *symbol;     /* the function's name in the linked file */
  const type *ret;
  int nparams;
  const type **params;
  span where;             /* the declare_device call */
  bool called;            /* a kernel compiled calls it; first_call: where first */
  span first_call;
} foreign_fn;

/* node->aux of an N_CALL of a foreign function (node->aux_ptr: its foreign_fn) */
#define CALL_FOREIGN 0x4646

typedef struct func_def {
  node *def;              /* the N_FUNCDEF as parsed (never annotated: instances are
                             annotated clones) */
  func_kind kind;
  const char *name;
  ptr_vec sigs;           /* type lists: each a ptr_vec* of const type* (params), from
                             annotations, the decorator or --sig */
  int source_sigs;        /* how many of sigs the source wrote (the rest came from --sig) */
  bool sig_failed;        /* a written signature was refused (reported): no "untyped" warning */
  ptr_vec rets;           /* FN_VECTORIZE: return type per signature; FN_DEVICE with
                             signatures: the declared result per signature, or NULL */
  ptr_vec instances;      /* fn_instance* made so far */
  const char *layout;     /* FN_GUVECTORIZE: "(m,n),()->(m)" */
  span layout_sp;
  bool fastmath;          /* fastmath=True in the decorator */
  fn_options opts;        /* its other decorator options */
  node **defaults;        /* FN_DEVICE: per parameter, its default value folded to a
                             constant (N_INT/N_FLOAT/N_BOOL/N_COMPLEX/N_TUPLE), or NULL */
  struct func_def *generated; /* FN_REDUCE, FN_VECTORIZE: the kernel synthesised for it
                             (synth.c), of the same name; not in program.funcs, so a
                             call of the name finds the user's function */
  /* An inner function (a def inside a function, funcval.c): the names it reads from the
   * enclosing function, passed as hidden parameters after its own, and the enclosing
   * instance's locals they are. */
  bool inner;
  const char *lib;        /* the library module that defined it ("numba.cuda.random"),
                             NULL for the file's own functions */
  int ncaptures;
  const char **captures;
  struct symbol **capsyms;
} func_def;

/* node->aux of the N_ATTR nodes that carry an inner function's captured values to a
 * call (e->params after its own arguments; node->ival: which capture): code generation
 * reads them from the callee's value (funcval.c). */
#define FV_CAPTURE 0x4356

typedef struct fn_instance {
  func_def *fn;
  node *def;              /* an annotated clone of fn->def */
  int nparams;
  const type **param_types;
  symbol **params;
  const type *ret;        /* TY_VOID for kernels and value-less functions */
  bool ret_failed;        /* a return's value did not type (reported): callers stay quiet */
  bool exported;          /* kcc_options.export_device: a visible function of its own */
  bool ret_guessed;       /* ret is void only because no return gave it a type */
  bool ret_declared;      /* ret comes from a signature (@cuda.jit("int64(int64)",
                             device=True)): returns convert to it, and the function may
                             call itself */
  ptr_vec locals;         /* symbol*: params first, then other locals */
  const char *symbol_name;/* the LLVM / PTX name */
  bool is_kernel;
  bool uses_barrier;      /* this function or one it calls reaches a barrier */
  bool host_regions;      /* CPU: its barriers split it into regions (host_regions.c), so
                             it runs as a block function, not as fibers */
  int host_inner;         /* CPU: the thread axis K__block loops over innermost (0: x),
                             and the axis the executor walks the grid fastest along
                             (host_order.c) */
  bool host_fused;        /* CPU: the executor may run neighbouring blocks along host_inner
                             as one (host_fuse.c; kc_cpu_block.thread_span) */
  bool uses_grid_sync;    /* it or one it calls synchronises the grid (g.sync()): the
                             kernel must be launched cooperatively */
  bool in_fast_kernel;    /* compiled for a fastmath kernel (the kernel itself, or a
                             device function it calls): denormals flushed on NVPTX. A
                             device function called from both kinds has an instance
                             for each */
  bool fastmath;          /* its own code uses fast math: in_fast_kernel, or a device
                             function declared fastmath=True */
  bool debug;             /* compiled for a debug kernel (its decorator's debug=True, or
                             kcc_options.debug): asserts, raises and array indices
                             checked; a device function called from both kinds has an
                             instance for each, as for fast math */
  bool noopt;             /* compiled for an opt=False kernel: not optimised */
  bool in_progress;       /* being inferred (recursion check) */
  bool done;
  bitset written_params;  /* i in it: array parameter i is stored to (nparams bits;
                             param_written, mark_param_written) */
  bitset omitted;         /* i in it: parameter i took its default, a constant that
                             behaves as a literal there (`x * scale` stays float32);
                             part of the specialisation, as the types are */
  ptr_vec shared;         /* symbol*: static shared arrays (locals with is_shared) */
  ptr_vec local_arrays;   /* node*: its cuda.local.array calls, each once, in source
                             order (their sum is held to CUDA's per-thread limit) */
  node **literals;        /* a literal instance (Numba's literal dispatch): literals[i]
                             the constant parameter i is specialised on, or NULL; NULL
                             for an ordinary instance */
  bool failed_silently;   /* its last silent typing pass met an error: a call passing
                             constants then takes a literal instance instead */
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
  ptr_vec foreign;        /* foreign_fn*: cuda.declare_device */
  ptr_vec links;          /* link_file*: the link= files of the functions compiled, each
                             once, in order */
  const struct builtin *range;   /* the registry's range() and cuda.syncthreads(), for */
  const struct builtin *barrier; /* the code a back end writes itself (host_while.c,
                                    host_split.c) */
} program;

typedef struct builtin_registry builtin_registry;

/* Resolve names, infer types, specialise functions, knowing builtins' names (the
 * compiler's are kcc_builtins(), builtins/builtin.h). Errors go to d; returns the
 * number of errors found. */
int infer_program(arena *a, diag_sink *d, node *module, const kcc_options *opts,
                  const builtin_registry *builtins, program *out);
/* "kernel add(a: float32[:], ...)\n  i: int32\n ..." for --emit=types. */
char *infer_dump_types(arena *a, const program *p);

#endif
