/*
 * compile.h — the compiler as the runtime and the kcc driver see it: source in, PTX or
 * JIT-compiled host code out, with a description of every kernel's parameters.
 * (Internal: the public face of this is kc_compile_* in kc.h.)
 */
#ifndef KCC_COMPILE_H
#define KCC_COMPILE_H

#include <stddef.h>

#include "kc.h"

typedef enum kcc_target { KCC_TARGET_NVPTX, KCC_TARGET_HOST } kcc_target;

typedef enum kcc_emit {
  KCC_EMIT_PTX,    /* NVPTX target: PTX text */
  KCC_EMIT_LLVM,   /* optimised LLVM IR text, for either target */
  KCC_EMIT_AST,    /* the parsed tree */
  KCC_EMIT_TYPES,  /* every function with the type of each local */
  KCC_EMIT_JIT     /* host target: machine code in memory (kcc_output.host) */
} kcc_emit;

typedef struct kcc_options {
  kcc_target target;
  kcc_emit emit;
  int arch;               /* sm version, e.g. 80 */
  int opt_level;          /* 0..3 */
  int lineinfo;           /* .loc line info */
  int debug;              /* -g */
  int bounds_check;       /* check every array index; a failure is recorded in the
                             kc_kernel_error record (host_abi.h) and reported by the
                             runtime after the launch */
  int fastmath;           /* every kernel as if declared @cuda.jit(fastmath=True):
                             approximate division, square root and float32 maths,
                             contraction, reassociation; on NVPTX float32 denormals
                             flushed to zero (docs/language.md, "Fast math") */
  int loop_checks;        /* host target: the watchdog's check at loop back edges
                             (cg_stmts.c cg_loop_check); 1 unless KC_LOOP_CHECKS=0, which
                             leaves kc_config.timeout_ms only between blocks (for
                             measuring what the checks cost: bench/watchdog.sh) */
  const char *const *sigs;/* "name(float32[:], int32)" from --sig; name may be absent
                             when the module has a single kernel */
  int nsigs;
  int export_device;      /* device functions with declared signatures are compiled for
                             each signature as visible functions (.visible .func), kernel
                             or not (Numba's compile_ptx(device=True)) */
  const char *scalar_ufunc;/* the name of a @vectorize function: compile only its kernels,
                             one per signature, each taking the inputs whose bit is set in
                             scalar_inputs (bit i: input i) as scalar parameters instead
                             of arrays, so that a ufunc call with scalar operands
                             (runtime/vectorize.c) reads no array filled with them */
  unsigned scalar_inputs;  /* kcc_scalar_input reads it */
  const char *only_kernel; /* the name of a kernel: compile it alone (its signatures),
                             nothing else of the module */
  int any_layout;         /* with only_kernel: its C-contiguous array parameters are taken
                             in any layout (Numba's 'A'): the runtime's kernel for a launch
                             that passes a non-contiguous view where a signature said
                             float32[:] (runtime/module.c, rt_module_layout_variant) */
  unsigned block_dim[3];  /* host target: when all three are set, the block shape every
                             launch of the kernels uses (blockDim a constant, the thread
                             loops of known length): the runtime's kernel for one launch
                             shape (runtime/module.c, rt_module_block_variant) */
  int aot;                /* ahead of time (kcc compile): a @cuda.reduce without signatures
                             is compiled for the usual number types, as kc_reduce would
                             compile it per dtype at run time */
  const char *libdevice;  /* NULL: KC_LIBDEVICE_PATH or $KC_LIBDEVICE */
  const char *cpu;        /* host target: the CPU to compile for; NULL, "" or "host": this
                             one ($KC_CPU_TARGET or $KC_HOST_CPU when set), or x86-64,
                             x86-64-v2, -v3, -v4 (target.h, host_cpu_check) */
  int keep_object;        /* KCC_EMIT_JIT: also keep the object code (kcc_output.object) */
  int color;              /* colour in diagnostic text */
  kc_alloc_fn alloc;      /* NULL = realloc/free */
  kc_diag_fn diag;        /* NULL = print to stderr */
  void *user_data;        /* passed to alloc, and to diag unless diag_user_data is set */
  void *diag_user_data;   /* passed to diag when not NULL (the runtime routes diagnostics
                             through its own hook while alloc keeps the caller's data) */
} kcc_options;

void kcc_options_init(kcc_options *o);

/* Whether input i is a scalar under a kcc_options.scalar_inputs mask. */
static inline int kcc_scalar_input(unsigned scalars, int i) {
  return i >= 0 && i < 32 && (scalars >> i & 1u);
}

/* Threads per block of a @cuda.reduce kernel (synth.c): kc_reduce launches it with
 * exactly this many, 256 on CUDA; 1024 on the CPU, where the block's grid-stride loop
 * runs step by step across its threads and a wider step pays the step's own work
 * fewer times (2^24 float32 on one worker: 1.24-1.35x a C loop with 256, 1.00-1.03x
 * with 1024, docs/performance.md). */
#define KCC_REDUCE_BLOCK 256
#define KCC_REDUCE_BLOCK_HOST 1024
static inline int kcc_reduce_block(int host) { return host ? KCC_REDUCE_BLOCK_HOST : KCC_REDUCE_BLOCK; }

/* One flattened parameter of a kernel, as the runtime packs it. */
typedef struct kcc_param {
  const char *name;
  kc_dtype dtype;
  int ndim;               /* 0 for a scalar, 1..KC_MAX_DIMS for an array */
  int written;            /* an array the kernel stores to (others are read-only and
                             marked noalias: the runtime must not let a written array
                             alias them) */
  int nelems;             /* a tuple of scalars (ndim 0, dtype its first element's): its length, at
                             most SIG_MAX_TUPLE; 0 otherwise */
  const kc_dtype *elems;  /* ... and its elements' dtypes */
  int strided;            /* an array of any layout (Numba's 'A'): passed with its strides
                             (in elements) after its extents; others are C-contiguous */
} kcc_param;

typedef struct kcc_kernel {
  const char *name;       /* the name in the source */
  const char *symbol;     /* the PTX entry / host symbol prefix */
  const char *signature;  /* "add(float32[:], float32[:], int32)" */
  int nparams;
  kcc_param *params;
  int uses_barrier;       /* calls cuda.syncthreads() (the CPU needs fibers) */
  int cooperative;        /* synchronises its grid (cuda.cg.this_grid().sync()): launched
                             cooperatively, every block resident at once */
  int inner_axis;         /* host target: the axis (0 x, 1 y, 2 z) of the thread loop
                             K__block runs innermost, along which the executor walks the
                             grid fastest too (host_order.c) */
  int fuse_blocks;        /* host target: the executor may run neighbouring blocks along
                             inner_axis as one (host_fuse.c, kc_cpu_block.thread_span) */
  int regions;            /* host target: K__block runs the kernel as regions of thread
                             loops (host_regions.c: its barriers, grid-stride loops) */
  size_t static_shared;   /* bytes of static shared memory */
  int max_threads;        /* launch_bounds' max threads per block (PTX .maxntid, which
                             CUDA enforces); 0 = none */
  size_t stack_bytes;     /* host target: the frame its host code needs per thread
                             (local arrays; host_stack.c), which sizes the CPU back end's
                             stacks; 0 for PTX */
  void *block_fn;         /* KCC_EMIT_JIT: kc_cpu_block_fn */
  void *thread_fn;        /* KCC_EMIT_JIT: kc_cpu_thread_fn */
} kcc_kernel;

typedef struct kcc_host_code kcc_host_code;  /* owns JIT-compiled code */

typedef struct kcc_output {
  char *text;             /* PTX / IR / AST / types text, NUL-terminated (alloc) */
  size_t text_len;
  int nkernels;
  kcc_kernel *kernels;    /* typed kernels compiled (alloc, with their strings) */
  int nuntyped;           /* kernels skipped for lack of types */
  const char **untyped;
  kcc_host_code *host;    /* KCC_EMIT_JIT */
  char *object;           /* KCC_EMIT_JIT with keep_object: the machine code as an object
                             file (alloc), for kcc_load_object */
  size_t object_len;
  int nerrors, nwarnings;
  char *first_error;      /* formatted text of the first error, or NULL */
  kc_status status;
  kc_alloc_fn alloc;      /* what the strings and tables above were allocated with
                             (the compilation's kcc_options.alloc); NULL = malloc */
  void *user_data;
} kcc_output;

/* Compile source (len bytes; need not be NUL-terminated) named `name` in messages.
 * Everything the compilation allocates outside LLVM (the arena, *out's strings and
 * tables) comes from opts->alloc; when an allocation fails the result is
 * KC_ERR_NOMEM with nothing leaked. LLVM's own allocations cannot be hooked. */
kc_status kcc_compile(const kcc_options *opts, const char *name, const char *source,
                      size_t len, kcc_output *out);
/* The largest source file `kcc compile` and kc_compile_file read (64 MiB, far past any
 * kernel): a bigger file, or one that never ends (/dev/zero), is refused with a message
 * instead of being read for ever; so is anything but a regular file (or kcc's stdin). */
#define KCC_MAX_SOURCE ((size_t)64 << 20)
void kcc_output_free(kcc_output *out);

/* The host target's code from an object kept by an earlier compilation with the same
 * options: out holds the kernels' descriptions and the object (out->object), as the
 * runtime's cache reads them back; this links the object in a new JIT (out->host) and
 * finds each kernel's entry points. On failure out->host stays NULL and the message is
 * in out->first_error (alloc). */
kc_status kcc_load_object(const kcc_options *opts, kcc_output *out);
/* Free out->object (once stored, it is not needed again). */
void kcc_output_drop_object(kcc_output *out);

/* Whether cpu names a CPU the host target knows (kcc_options.cpu, with the environment
 * variables it defers to): KC_OK and *name its name ("host", "x86-64-v2"…; static), or
 * KC_ERR_INVALID with the reason in msg. */
kc_status kcc_cpu_check(const char *cpu, const char **name, char *msg, size_t len);
/* What host code for cpu depends on, for cache keys (malloc'd; NULL when cpu is
 * unknown or out of memory): its name and, for this CPU, its features, and the code
 * generator's switches set in the environment (KC_CPU_SPLIT...). */
char *kcc_cpu_id(const char *cpu);

#endif
