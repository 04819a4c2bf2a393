/*
 * rt.h — declarations shared by the runtime's files (internal; the public face is
 * include/kc.h). The runtime is split by concern, in layers: a file calls only files
 * of the layers below it and its own (the test runtime_layers, scripts/import_cycles.py,
 * fails on a circle). From the bottom:
 *   rt_base.c   status and dtype names, errors (rt_error, the last-error text),
 *               allocation, the clock, the core count; it calls nothing else here
 *   files.c     files read by path: regular files only, within a size limit
 *   diagnostics.c  where a compilation's diagnostics go (the diag hook, stderr,
 *               kc_last_diagnostics)
 *   handles.c   freed module, stream and event handles kept to catch their later use
 *   image.c     module images (PTX, cubin, fatbin) and the kernel table inside them
 *   cache_evict.c  the disk cache's size bound (KC_CACHE_MAX), least recently used
 *               entries first
 *   cache.c     the on-disk compile cache of PTX, object code and kernel tables
 *   launch_shape.c  a launch's shape against the device's limits (both devices)
 *   cuda/       the CUDA driver, loaded with dlopen; every CUresult checked by RT_CU.
 *               driver.c loads it (its entry points: cuda_entries.def); errors.c,
 *               device.c, memory.c, module.c, launch.c, stream.c, wait.c (waits under
 *               kc_config.timeout_ms). The calls the runtime makes into it:
 *               cuda_calls.def (none.c: their stubs in a CPU-only build)
 *   nvrtc.c     CUDA C++ compiled to PTX by NVRTC (dlopen'd), for link=[...] .cu files
 *   link.c      a PTX linked with the files its "// kcc-link:" lines name, then loaded
 *   devices.c   what the devices are: device counts and info, kc_detect
 *   kernel_error.c  errors kernels report from the device (bounds, asserts, raises)
 *   cpu/        the CPU grid executor: exec.c (a launch), pool.c, coop.c, watchdog.c,
 *               fibers.c, collectives.c, job.c, switch.c (cpu/exec.h says who calls whom)
 *   array.c     device arrays (host memory on the CPU device)
 *   array_slice.c  kc_array_slice: strided views of an array
 *   records.c   record descriptions and arrays of records
 *   peer.c      copies between arrays of two contexts
 *   interop.c   array pointers, arrays over the caller's memory, CUDA handles
 *   dlpack.c    DLPack export and import
 *   host_register.c  registered host memory
 *   module.c    compiling and loading modules, kernels and their parameter tables
 *               (the compiler reached through rt_compiler.h: compiler_kcc.c in libkc,
 *               compiler_none.c in libkcrt)
 *   launch.c    kc_launch: argument checking and packing, dispatch to a device
 *   stream.c    kc_synchronize, streams and events
 *   stream_order.c, array_async.c  stream-ordered work: waits on events, queries,
 *               host callbacks, async copies and fills
 *   ufunc_cast.c, ufunc_layout.c  casting rules, broadcasting and strided copies
 *   vectorize.c kc_vectorize: @vectorize functions called on arrays
 *   guvectorize.c  kc_guvectorize: @guvectorize functions called on arrays
 *   reduce.c    kc_reduce: @cuda.reduce functions called on an array
 *   random.c    kc_random_states: numba.cuda.random's generator states
 *   context.c   a context's life: configuration, device selection, and tearing down
 *               every part it owns; nothing here calls it
 * Nothing here includes cuda.h (only runtime/cuda/ does): CUDA handles cross file
 * boundaries as void * and device pointers as uint64_t, so a CPU-only build needs no
 * CUDA headers.
 */
#ifndef KC_RT_H
#define KC_RT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "compile.h"
#include "host_abi.h"
#include "kc.h"
#include "signature.h"

#define RT_ERR_LEN 2048
#define RT_MAX_FLAT_PARAMS 256   /* flattened kernel parameters (data + extents) */
#define RT_CPU_MAX_SHARED 49152  /* shared memory per block on the CPU device, as CUDA's
                                    default limit, so CPU-tested kernels fit a GPU */
#define RT_CPU_MAX_THREADS 4096  /* the most worker threads kc_config.cpu_threads asks for */

#define RT_GRAVEYARD 256         /* freed array handles kept to catch their later use */
#define RT_HANDLE_FREED 0x66524548u /* the magic of a freed module, stream or event (handles.c) */
#define RT_ARRAY_LIVE 0x6b634152u   /* kc_array.magic of a live handle */
#define RT_ARRAY_FREED 0x66524545u  /* ... of one passed to kc_array_free */

typedef struct rt_pool rt_pool;   /* cpu/exec.h */
typedef struct rt_cuda rt_cuda;   /* cuda/driver.h: per-context CUDA state */

/* Launch limits of a device; the CPU uses CUDA's so kernels behave alike. */
typedef struct rt_limits {
  unsigned max_threads;         /* per block */
  unsigned max_block[3];
  unsigned max_grid[3];
  size_t max_shared;            /* without opt-in */
  size_t max_shared_optin;      /* with cuFuncSetAttribute (== max_shared on the CPU) */
} rt_limits;

struct kc_context {
  kc_config cfg;
  kc_device_kind device;        /* KC_DEVICE_CPU or KC_DEVICE_CUDA once chosen */
  rt_limits limits;
  int cpu_threads;              /* workers of the CPU pool (including the caller) */
  rt_pool *pool;                /* CPU: made at the first multi-block launch */
  rt_cuda *cuda;                /* CUDA: device, primary context */
  kc_module *checked;           /* CUDA: modules with a bounds-error record (a list
                                   through kc_module.next_checked) */
  kc_status broken;             /* kc_context_new failed (e.g. CUDA asked for, no
                                   driver): every call says so with broken_msg */
  char broken_msg[RT_ERR_LEN];
  int lost;                     /* broken after creation (cuda/wait.c): RT_LOST_FAULT or
                                   RT_LOST_HUNG; 0 while usable or when kc_context_new
                                   failed */
  kc_status pending;            /* CPU: a kernel fault not yet reported by a sync */
  char pending_msg[RT_ERR_LEN];
  char err[RT_ERR_LEN];         /* kc_last_error */
  unsigned cache_hits;          /* compilations the on-disk cache answered (for tests) */
  int cpu_shape;                /* KC_CPU_SHAPE: when a kernel run as regions gets a
                                   variant for its launch's block shape (launch.c):
                                   RT_SHAPE_NEVER, RT_SHAPE_BY_WORK (once the work
                                   repays it: RT_VARIANT_WORK) or RT_SHAPE_ALWAYS (at
                                   once) */
  /* the last RT_GRAVEYARD freed array handles (their memory released, the handle kept,
     marked RT_ARRAY_FREED), so a use after kc_array_free is an error and not a read of
     freed memory; a ring: older handles are really freed */
  kc_array *graveyard[RT_GRAVEYARD];
  unsigned graveyard_next;
  /* the same for freed modules, their kernel tables, streams and events (handles.c) */
  void *handle_grave[RT_GRAVEYARD];
  size_t handle_grave_size[RT_GRAVEYARD];
  unsigned handle_next;
  char *diags;                  /* kc_last_diagnostics: the texts of the last compile's
                                   diagnostics, one after another (rt_alloc'd; NULL when
                                   none) */
  size_t diags_len, diags_cap;
  struct rt_host_range *registered; /* host buffers kc_host_register'ed (host_register.c) */
};

/* One host buffer registered with kc_host_register: a list, so an unregister of a
 * pointer never registered is a clear error on both devices. */
typedef struct rt_host_range {
  void *p;
  size_t bytes;
  struct rt_host_range *next;
} rt_host_range;

struct kc_array {
  /* data comes first and shape right after: kernel parameters point into them */
  union { void *host; uint64_t dev; } data;
  int64_t shape[KC_MAX_DIMS];
  int64_t step[KC_MAX_DIMS];    /* strides in elements: what an 'A' parameter is passed */
  kc_context *ctx;
  kc_array *base;               /* the array a view looks into; NULL for an owner */
  int refs;                     /* owner: 1 + live views; memory freed at 0 */
  int freed;                    /* owner: kc_array_free was called, views remain */
  kc_dtype dtype;
  int ndim;
  int contiguous;               /* C-contiguous: a 'C' parameter (float32[:]) takes it */
  size_t bytes;                 /* of the elements (a strided view's span is larger) */
  uint32_t magic;               /* RT_ARRAY_LIVE, or RT_ARRAY_FREED once freed */
  char *record;                 /* KC_RECORD: the record's spelling (each handle its own
                                   copy); NULL for numbers */
  size_t itemsize;              /* bytes per element */
  /* owner of memory kcc did not allocate (kc_array_from_device_ptr, kc_array_from_dlpack):
     never freed by kcc; release (if not NULL) is called with release_arg instead when
     the owner and its views are all freed (interop.c) */
  int foreign;
  void (*release)(void *arg);
  void *release_arg;
};

/* One parameter of a kernel as the launch path checks and packs it. */
typedef struct rt_param {
  char *name;                   /* may be "" (PTX loaded without names) */
  kc_dtype dtype;
  char *record;                 /* KC_RECORD: the record's spelling, else NULL */
  int ndim;                     /* 0: scalar (or tuple) */
  int strided;                  /* an 'A' array: passed with its strides after its extents */
  int nelems;                   /* a tuple of scalars: its length (flat slots), 0 if none */
  kc_dtype elems[SIG_MAX_TUPLE];/* ... its elements' dtypes (dtype is elems[0]) */
  int flat;                     /* index of its first kernelParams entry */
  int written;                  /* an array the kernel stores to; the compiler marked
                                   the read-only ones noalias, so they must not overlap */
} rt_param;

typedef struct rt_spec rt_spec; /* module.c: a specialisation of an untyped kernel */

struct kc_kernel {
  kc_module *mod;
  char *name;
  char *symbol;
  char *signature;
  int nparams;                  /* -1: untyped, specialised at launch */
  int nflat;                    /* kernelParams entries */
  rt_param *params;
  int alias_check;              /* has written and read-only array parameters */
  int uses_barrier;
  int cooperative;              /* synchronises its grid: every block resident at once */
  int inner_axis;               /* CPU: kcc_kernel.inner_axis */
  int fuse_blocks;              /* CPU: kcc_kernel.fuse_blocks */
  int regions;                  /* CPU: kcc_kernel.regions */
  size_t static_shared;
  size_t stack_bytes;           /* CPU: the frame a thread needs (kcc_kernel.stack_bytes) */
  kc_cpu_block_fn block_fn;
  kc_cpu_thread_fn thread_fn;
  void *cu_function;            /* CUfunction */
  unsigned max_threads;         /* of this kernel (registers may lower it on CUDA) */
  size_t shared_optin_set;      /* dynamic shared bytes already allowed on CUDA */
  kc_kernel *next_overload;     /* another compiled signature of the same name */
  char *listing;                /* untyped: the signatures of its specialisations so far; typed
                                   with several: all of them (on the first, link_overloads);
                                   one a line (kc_kernel_signature); NULL before any */
};

/* The warnings a module's compilations have passed on, by the hash of their text. */
typedef struct rt_warned {
  uint64_t *hash;
  size_t n, cap;
} rt_warned;

struct kc_module {
  kc_context *ctx;
  uint32_t magic;               /* RT_HANDLE_FREED once kc_module_free'd, else 0 */
  int nkernels;
  kc_kernel *kernels;
  kcc_output out;               /* CPU: owns the JIT code (out.host) */
  int has_out;
  void *cu_module;              /* CUmodule */
  /* for specialising untyped kernels: the source and options it was compiled with */
  char *src_name;
  char *source;
  size_t source_len;
  int opt_level, lineinfo;
  int bounds_check;             /* compiled with bounds checks */
  int fastmath;                 /* compiled with kcc_options.fastmath */
  int debug;                    /* compiled with kcc_options.debug (-g) */
  rt_spec *specs;
  rt_warned warned;             /* warnings its compilations gave, so that a
                                   specialisation passes on only its own new ones */
  char **sigs;                  /* kc_compile_options.signatures, copied (nsigs of them) */
  int nsigs;
  kc_module *parent;            /* a specialisation's: the module it was compiled from
                                   (which owns it), holding the source */
  /* CUDA, bounds-checked PTX: the module global KC_KERNEL_ERROR_SYMBOL */
  uint64_t error_dptr;          /* its device address; 0 when the module has none */
  const char *error_kernel;     /* the kernel launched since the last check (or NULL) */
  int error_kernels;            /* how many launches since the last check */
  int error_many;               /* more than one kernel of the module launched */
  kc_module *next_checked;      /* the context's list of such modules */
};

struct kc_stream {
  kc_context *ctx;
  uint32_t magic;               /* RT_HANDLE_FREED once kc_stream_free'd, else 0 */
  void *cu_stream;              /* CUstream; NULL on the CPU */
  int borrowed;                 /* kc_stream_from_cuda: the caller's CUstream, not
                                   destroyed by kc_stream_free */
  char last_kernel[64];         /* CUDA: the last kernel launched on it, for timeouts */
};

struct kc_event {
  kc_context *ctx;
  uint32_t magic;               /* RT_HANDLE_FREED once kc_event_free'd, else 0 */
  void *cu_event;               /* CUevent; NULL on the CPU */
  double cpu_ms;                /* CPU: monotonic time when recorded, in ms */
  int recorded;
};

/* ---- rt_base.c: the bottom layer, calling nothing else in runtime/ --------------- */
/* Record a formatted message as the context's last error and return s. */
kc_status rt_error(kc_context *ctx, kc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
kc_status rt_verror(kc_context *ctx, kc_status s, const char *fmt, va_list ap);
/* KC_ERR_INVALID with "<call>: <what> is NULL", kept in ctx, or when ctx is NULL in the
 * calling thread's last error (kc_last_error(NULL)). */
kc_status rt_null_arg(kc_context *ctx, const char *call, const char *what);
/* Return that error from the calling kc_ function when the argument p is NULL. */
#define RT_NEED(ctx, p, call)                                                            \
  do {                                                                                   \
    if (!(p)) return rt_null_arg((ctx), (call), #p);                                     \
  } while (0)
/* KC_OK, or for a context whose kc_context_new failed, that failure again. */
kc_status rt_context_usable(kc_context *ctx);

void *rt_alloc(kc_context *ctx, size_t n);            /* through cfg.alloc */
/* A CPU array's data: RT_DATA_ALIGN-aligned (from 4 MiB, 2 MiB-aligned with huge
 * pages advised) unless cfg.alloc allocates (then as it does); freed as rt_alloc's
 * memory is (rt_free) */
void *rt_alloc_data(kc_context *ctx, size_t n);
/* The same without a context (malloc's memory, freed with free): what cpu_bench gives
 * its C loops, so that both sides of a comparison read the same kind of pages. */
void *rt_alloc_aligned(size_t n);
#define RT_DATA_ALIGN 256
void *rt_calloc(kc_context *ctx, size_t count, size_t size);
void rt_free(kc_context *ctx, void *p, size_t n);
char *rt_strdup(kc_context *ctx, const char *s);
void rt_free_str(kc_context *ctx, char *s);
int rt_cpu_count(void);                               /* cores this process may use */
int rt_dtype_is_float(kc_dtype t);
int rt_dtype_is_complex(kc_dtype t);
uint16_t rt_f16_bits(double v);
int rt_dtype_is_signed(kc_dtype t);
/* "float32[:, :]" or "int32" into buf. */
void rt_format_type(kc_dtype t, int ndim, char *buf, size_t len);
double rt_now_ms(void);                               /* monotonic clock */

/* The states of kc_context.lost (cuda/wait.c) */
#define RT_LOST_FAULT 1   /* a sticky CUDA error: the driver refuses all further work */
#define RT_LOST_HUNG 2    /* a wait timed out: a kernel may still run, so nothing may
                             block on the device (no frees, no synchronisation) */

/* ---- files.c: the files the runtime reads ----------------------------------------- */
/* KC_OK when path is a regular file of at most limit bytes that can be opened; else
 * KC_ERR_IO naming the path and why (missing, a directory or device, too large). */
kc_status rt_file_check(kc_context *ctx, const char *path, size_t limit);
/* The whole file at path (checked as rt_file_check does) in a buffer of *capp bytes
 * (rt_free it with that size), *lenp of them read. */
kc_status rt_read_file(kc_context *ctx, const char *path, size_t limit, char **out,
                       size_t *lenp, size_t *capp);

/* ---- diagnostics.c ---------------------------------------------------------------- */
/* A compilation's diagnostic hook (kcc_options.diag, user_data the rt_diag_route): keeps
 * each diagnostic's text for kc_last_diagnostics, then hands it to kc_config.diag, or
 * prints it to stderr when the context is verbose. When specialising, a kernel's
 * warnings (and their notes) were shown by the module's own compilation: dropped. */
typedef enum rt_diag_mode {
  RT_DIAG_ALL,        /* a compilation the caller asked for: everything, each warning kept
                         in seen */
  RT_DIAG_NEW,        /* a specialisation at a launch: errors, and warnings not in seen */
  RT_DIAG_ERRORS      /* a variant compiled behind the caller's back: errors only */
} rt_diag_mode;

typedef struct rt_diag_route {
  kc_context *ctx;
  rt_diag_mode mode;
  int pass_notes;               /* the last error or warning was passed on */
  rt_warned *seen;              /* the module's warnings so far (NULL: not kept) */
} rt_diag_route;
void rt_diag_route_fn(void *user_data, const kc_diagnostic *d);
void rt_warned_free(kc_context *ctx, rt_warned *w);
/* Forget the diagnostics of the previous compilation (at the start of a new one). */
void rt_diags_reset(kc_context *ctx);

/* ---- array.c ---------------------------------------------------------------------- */
/* KC_OK for a live array; for one passed to kc_array_free, KC_ERR_INVALID with
 * "<what>: the array was freed (kc_array_free)" in its context. */
/* The end of kc_array_from_host and its records version: a, just made, filled from host,
 * which must hold exactly its bytes (else KC_ERR_INVALID naming call and both sizes);
 * *out = a on success, a freed on failure. */
kc_status rt_array_fill_new(kc_array *a, const void *host, size_t bytes, const char *call,
                            kc_array **out);
kc_status rt_array_check(const kc_array *a, const char *what);
/* handles.c: park a freed module, kernel table, stream or event (size bytes; *magic,
 * when given, becomes RT_HANDLE_FREED); really free the parked ones (kc_context_free);
 * KC_OK for a live handle, else KC_ERR_INVALID "<call>: the <what> was already freed". */
void rt_handle_bury(kc_context *ctx, void *handle, size_t size, uint32_t *magic);
void rt_handle_graveyard_free(kc_context *ctx);
kc_status rt_handle_live(kc_context *ctx, uint32_t magic, const char *call, const char *what);
/* Really free the handles kept in the context's graveyard (at kc_context_free). */
void rt_array_graveyard_free(kc_context *ctx);
/* Drop one hold on an owner's memory (a view's, an exported DLPack tensor's): the memory
 * is released when the last one goes. */
void rt_array_unref(kc_array *owner);
/* array_slice.c: whether a's extents and element strides are a C-contiguous array's. */
int rt_array_c_contiguous(const kc_array *a);

/* Checks shared with array_async.c. */
kc_status rt_array_check_host_copy(kc_array *a, const void *host, size_t bytes);
kc_status rt_array_check_copy(kc_array *dst, const kc_array *src);
kc_status rt_array_check_fill(kc_array *a, const void *value, const char *what);

/* ---- interop.c ------------------------------------------------------------------------ */
/* A new owner array over memory kcc does not own, at ptr (the first element: a device
 * address, or a host address on the CPU device), checked as kc_array_from_device_ptr
 * says; strides in elements (NULL: C-contiguous). release(release_arg), if release is
 * not NULL, runs when the array and its views are all freed. `what` names the call in
 * messages. */
kc_status rt_array_wrap(kc_context *ctx, const char *what, kc_dtype dtype, int ndim,
                        const int64_t *shape, const int64_t *strides, uint64_t ptr,
                        void (*release)(void *), void *release_arg, kc_array **out);

/* ---- records.c ---------------------------------------------------------------------- */
/* A new array of elements of itemsize bytes; record is the spelling of KC_RECORD's. */
kc_status rt_array_alloc(kc_context *ctx, kc_dtype dtype, const char *record,
                         size_t itemsize, int ndim, const int64_t *shape, kc_array **out);
/* Set each KC_RECORD parameter's spelling from the kernel's signature text. */
kc_status rt_param_records(kc_context *ctx, kc_kernel *k);
/* An array's type for messages and signatures: "float32[:]", "Record(...)[:]". */
void rt_format_array_type(const kc_array *a, char *buf, size_t len);
void rt_format_param_type(const rt_param *p, char *buf, size_t len);

/* ---- nvrtc.c: CUDA C++ to PTX, for the .cu files link= names ------------------------ */
/* The path libnvrtc was opened from (opening it on first use: KC_NVRTC, else the
 * configured toolkit, else the sonames), or NULL when there is none. */
const char *rt_nvrtc_library(void);
/* For kc_detect, by file (opening it would run its constructors just to look): 1 with
 * the path NVRTC would be opened from in out, else 0 with what was looked for. */
int rt_nvrtc_find(char *out, size_t len);
/* Compile src (NUL-terminated CUDA C++ read from path) to PTX for compute capability
 * cc (80: compute_80), relocatable (-rdc=true), the toolkit's headers on the include
 * path: *ptx (NUL-terminated, rt_free it with *cap bytes). NVRTC missing is
 * KC_ERR_UNSUPPORTED naming where it was looked for; a failed compile KC_ERR_SYNTAX
 * with NVRTC's log, naming path. */
kc_status rt_nvrtc_compile(kc_context *ctx, const char *path, const char *src, int cc,
                           char **ptx, size_t *cap);

/* ---- link.c: a PTX linked with the files its "// kcc-link:" lines name ------------- */
/* What a file to link is, by its extension (link.c's table; Numba's add_file_guess_ext). */
typedef enum rt_link_kind {
  RT_LINK_PTX, RT_LINK_CUBIN, RT_LINK_FATBIN, RT_LINK_OBJECT, RT_LINK_LIBRARY,
  RT_LINK_CU,      /* CUDA C++: compiled to PTX with NVRTC (nvrtc.c), linked as PTX */
  RT_LINK_LTOIR    /* LTO-IR: only nvJitLink links it (then it links everything) */
} rt_link_kind;

/* One input of a link, as runtime/cuda/link.c hands it to the driver's linker. */
typedef struct rt_link_input {
  rt_link_kind kind;   /* never RT_LINK_CU (compiled to PTX first), nor for the
                          driver's linker RT_LINK_LTOIR */
  const char *name;    /* the file's path, or a name for the linker's messages */
  const char *data;    /* PTX text in memory (len bytes, NUL after them), or NULL: the
                          linker reads the file at name */
  size_t len;
} rt_link_input;

/* Load PTX (NUL-terminated) on the context's device: linked first with the files its
 * "// kcc-link: PATH" lines name (cuda.jit(link=[...])), else as rt_cuda_module_load
 * does. A file that is missing, of an unknown kind, or does not compile or link is an
 * error naming it. */
kc_status rt_link_module_load(kc_context *ctx, const char *ptx, void **out);

/* ---- cuda/: the CUDA driver, loaded with dlopen ---------------------------------- */
/* Every call into runtime/cuda/, one row of cuda/cuda_calls.def each (where each is
 * documented); a CPU-only build defines them from the same rows as stubs (cuda/none.c). */
#define RT_CUDA(ret, name, params, cpu_only) ret name params;
#define RT_CUDA_VOID(name, params) void name params;
#include "cuda/cuda_calls.def"
#undef RT_CUDA
#undef RT_CUDA_VOID

/* ---- module.c ------------------------------------------------------------------- */
/* A module of host kernels described by table (the kcc_output of a JIT compilation,
 * or a table built by hand in tests). The module copies what it needs from table. */
kc_status rt_module_from_kernels(kc_context *ctx, const kcc_kernel *table, int n,
                                 const char *const *untyped, int nuntyped,
                                 kc_module **out);
/* The kernel of an untyped kernel k specialised for these arguments (compiled and
 * cached on first use). */
kc_status rt_module_specialise(kc_kernel *k, const kc_arg *args, int nargs,
                               kc_kernel **out);

/* Variants: kernels a module compiles again from its source for one use (module.c).
 * Each call says how much work it is about to do without the variant (elements,
 * threads); the variant is compiled once that work, summed over the calls, reaches
 * RT_VARIANT_WORK (UINT64_MAX: at once), and *out is it from then on. *out is NULL
 * before that, and when it cannot be had (no source, no compiler, or it failed: the
 * caller goes on without it); an error is only running out of memory. */
#define RT_VARIANT_WORK ((uint64_t)1 << 20)
/* v's @vectorize function taking the inputs whose bit is set in scalars as scalar
 * parameters (kcc_options.scalar_ufunc). */
kc_status rt_module_ufunc_scalars(kc_kernel *v, unsigned scalars, uint64_t work,
                                  kc_kernel **out);
/* k for launches of this block shape (kcc_options.block_dim). */
kc_status rt_module_block_variant(kc_kernel *k, kc_dim3 block, uint64_t work, kc_kernel **out);
/* k compiled again with its C-contiguous array parameters in any layout (Numba's 'A',
 * as Numba reads float32[:] in a signature), for a launch that passes a non-contiguous
 * view; *out NULL where it cannot be had (no source or compiler). */
kc_status rt_module_layout_variant(kc_kernel *k, kc_kernel **out);

enum { RT_SHAPE_NEVER, RT_SHAPE_BY_WORK, RT_SHAPE_ALWAYS };

/* The largest module image kc_module_load_file reads (a fatbin of many architectures
 * can be large; sources have KCC_MAX_SOURCE). */
#define RT_MAX_IMAGE_FILE ((size_t)1 << 30)

/* ---- cpu/: the CPU grid executor (cpu/exec.h has the folder's own declarations) ----- */
/* What the CPU executor needs to run a kernel. */
typedef struct rt_cpu_kernel {
  const char *name;             /* for messages */
  kc_cpu_block_fn block_fn;     /* kernels without barriers */
  kc_cpu_thread_fn thread_fn;   /* kernels with barriers (run as fibers) */
  int uses_barrier;
  size_t static_shared;
  const char *file;             /* the module's source name, for bounds errors; or NULL */
  int cooperative;              /* grid barriers: every block runs at once */
  size_t stack_bytes;           /* the frame a thread needs: sizes the fibers' stacks */
  const rt_param *params;       /* the parameters, for arrays counted per worker
                                   (cpu/private.c); NULL: none are */
  int nparams;
  int inner_axis;               /* the grid is walked fastest along this axis (0 x, 1 y,
                                   2 z), as the block function's thread loops are */
  int fuse_blocks;              /* runs of blocks along inner_axis may run as one block
                                   (kc_cpu_block.thread_span) */
} rt_cpu_kernel;

/* Run every block of a grid on the context's pool and wait for it. Shapes are not
 * checked here (launch.c does). A trap is KC_ERR_LAUNCH, a barrier deadlock
 * KC_ERR_DEADLOCK, an index out of range (bounds-checked code) KC_ERR_BOUNDS, a failed
 * assert or a raise (debug code) KC_ERR_ASSERT, each with the message in the context. */
kc_status rt_cpu_launch(kc_context *ctx, const rt_cpu_kernel *k, kc_dim3 grid,
                        kc_dim3 block, size_t dynamic_shared, void **args);
void rt_pool_free(rt_pool *pool);
/* The most blocks of threads_per_block threads a cooperative launch runs at once on the
 * CPU back end (every block live together: a thread each, its threads fibers). */
uint64_t rt_cpu_coop_max_blocks(unsigned threads_per_block);

/* ---- image.c ---------------------------------------------------------------------- */
#define RT_TABLE_SYMBOL "__kcc_kernels"   /* the kernel table's global in kcc's PTX */
typedef enum rt_image_kind {
  RT_IMAGE_UNKNOWN, RT_IMAGE_PTX, RT_IMAGE_CUBIN, RT_IMAGE_FATBIN
} rt_image_kind;
/* By the first bytes: ELF magic, the fatbin magic, or text with a .version directive. */
rt_image_kind rt_image_kind_of(const void *data, size_t len);
const char *rt_image_kind_name(rt_image_kind k);   /* "PTX", "cubin", "fatbin" */
/* The word after a PTX directive (".version" -> "7.8", ".target" -> "sm_90") into out,
 * "?" when the text has none. */
void rt_ptx_directive(const char *ptx, const char *directive, char *out, size_t len);
/* The kernel table of an ELF cubin: the bytes of its __kcc_kernels symbol, trailing
 * NULs dropped (*table points into data). 0 when found; 1 when the cubin has none; -1
 * when data is not a well-formed 64-bit CUDA ELF; msg says why for 1 and -1. */
int rt_cubin_table(const void *data, size_t len, const char **table, size_t *tlen,
                   char *msg, size_t msglen);

/* ---- kernel_error.c: errors kernels report from the device ---------------------- */
/* The message of a kernel's error record e ("file.k:3:5: error: kernel 'k': index 10
 * is out of bounds for axis 0 with size 10 (array of shape (10,)), in block (0, 0, 0),
 * thread (10, 0, 0)"; a raise's text, a slice assignment's extents). file may be NULL. */
void rt_format_kernel_error(char *buf, size_t len, const char *kernel, const char *file,
                            const kc_kernel_error *e);
/* KC_ERR_ASSERT for a record a raise filled (a failed assert, a raise), else
 * KC_ERR_BOUNDS. */
kc_status rt_kernel_error_status(const kc_kernel_error *e);
/* On CUDA. A module loaded from bounds-checked PTX has an error record: bind finds it
 * (KC_OK without one) and lists the module in its context; unlink takes it off the
 * list (the module is being freed). A launch of one of its kernels marks the module;
 * a synchronisation then reads each marked module's record, clears it and turns the
 * first one set into KC_ERR_BOUNDS or KC_ERR_ASSERT (KC_OK when none is). */
kc_status rt_module_bind_error_record(kc_module *m);
void rt_module_unlink_error_record(kc_module *m);
void rt_module_note_launch(kc_module *m, const kc_kernel *k);
kc_status rt_check_kernel_errors(kc_context *ctx);
/* The status and message for one module's record as read from the device: KC_OK when
 * its flag is clear, else KC_ERR_BOUNDS or KC_ERR_ASSERT with the message in the
 * context. */
kc_status rt_module_error_status(kc_module *m, const kc_kernel_error *rec);

/* ---- launch_shape.c ---------------------------------------------------------------- */
/* Check a launch shape and shared memory size against the context's limits. */
kc_status rt_check_shape(kc_context *ctx, const kc_kernel *k, kc_dim3 grid, kc_dim3 block,
                         size_t shared_bytes);
/* A cooperative kernel's grid against the most blocks that can run at once (`where`:
 * "on this GPU", "on the CPU back end"): KC_ERR_LAUNCH naming the kernel and the
 * largest grid when it does not fit. */
kc_status rt_check_coop_grid(kc_context *ctx, const char *kernel, kc_dim3 grid, kc_dim3 block,
                             uint64_t max_blocks, const char *where);

/* ---- launch.c --------------------------------------------------------------------- */
/* The 1-D launch of a grid-stride kernel k over n elements (the @vectorize and
 * @guvectorize loop kernels): the block from the occupancy API, enough blocks for n
 * but on CUDA at most a few device-filling waves (the loop strides over the rest; on
 * the CPU one element per thread is fastest), and the device's limit; at least one
 * block. */
kc_status rt_grid_stride_shape(kc_kernel *k, int64_t n, unsigned *grid, unsigned *block);

/* ---- ufunc_cast.c ----------------------------------------------------------------- */
/* np.can_cast(from, to, casting) for number dtypes. */
int rt_ufunc_can_cast(kc_dtype from, kc_dtype to, kc_casting casting);
const char *rt_casting_name(kc_casting c);            /* "same_kind", "safe", "no" */
/* NumPy's category of a dtype for value-based casting: 0 bool, 1 integer, 2 float,
 * 3 complex. */
int rt_ufunc_category(kc_dtype t);
/* Whether scalar a casts safely to `to` by its value (np.min_scalar_type's rules). */
int rt_ufunc_scalar_fits(const kc_arg *a, kc_dtype to);
/* Scalar a as one element of dtype `to` at out. */
void rt_ufunc_scalar_elem(const kc_arg *a, kc_dtype to, void *out);
/* n elements from src (dtype st, every ss-th element; 0 repeats one) converted into
 * dst (dtype dt, every ds-th), as C converts (the casting rules keep it defined). */
void rt_convert_run(void *dst, kc_dtype dt, int64_t ds, const void *src, kc_dtype st,
                    int64_t ss, int64_t n);

/* ---- ufunc_layout.c --------------------------------------------------------------- */
/* Broadcast the shape (*nd dimensions) with a's, in place, as NumPy does: -1, or the
 * axis of a whose extent does not broadcast (the shape is then unchanged). */
int rt_broadcast_merge(int *nd, int64_t *shape, const kc_array *a);
/* a's element strides over the broadcast shape (nd dimensions): 0 along the axes a
 * lacks or stretches. */
void rt_broadcast_strides(const kc_array *a, int nd, const int64_t *shape, int64_t *strides);
/* Over the C-order flat indices [start, start + count) of shape: fill the contiguous
 * dst (its dtype, from its first element) from src viewed with these element strides
 * over shape, converted. */
kc_status rt_ufunc_gather(kc_context *ctx, kc_array *dst, const kc_array *src, int nd,
                          const int64_t *shape, const int64_t *strides, int64_t start,
                          int64_t count);
/* ... and store the contiguous src's first count elements into dst (of this shape, its
 * own strides) at those indices, converted. */
kc_status rt_ufunc_scatter(kc_context *ctx, kc_array *dst, const kc_array *src, int nd,
                           const int64_t *shape, int64_t start, int64_t count);

/* ---- stream_order.c --------------------------------------------------------------- */
/* KC_OK when s is NULL (the default stream) or a stream of ctx; else KC_ERR_INVALID
 * with "<what>: the stream belongs to another context". */
kc_status rt_stream_check(kc_context *ctx, const kc_stream *s, const char *what);
/* The CUstream to queue on: NULL for the default stream. */
void *rt_stream_cu(const kc_stream *s);
/* Wait for the work queued on s (the whole context for the default stream) and report
 * a kernel fault as the synchronisation calls do. */
kc_status rt_stream_wait(kc_context *ctx, kc_stream *s);

/* ---- host_register.c -------------------------------------------------------------- */
/* Unregister every buffer still registered (at kc_context_free). */
void rt_host_registry_free(kc_context *ctx);

/* ---- cache.c ---------------------------------------------------------------------- */
/* The on-disk compile cache: PTX for CUDA, object code for the CPU back end.
 * The XXH3-128 hash of everything a compilation's output depends on (h[0] its low half,
 * which names the entry's file; the entry holds all 128 bits and they are compared when
 * it is read); host says which target; verbose (set by the caller from cfg.verbose)
 * makes a refused entry say why on stderr; unusable: the key could not be computed (out
 * of memory), so load and store miss. */
typedef struct rt_cache_key { uint64_t h[2]; int host, verbose, unusable; } rt_cache_key;
rt_cache_key rt_cache_key_of(const kcc_options *o, const char *name, const char *source,
                             size_t len);
/* "$XDG_CACHE_HOME/kcc" (an absolute XDG_CACHE_HOME only), else "$HOME/.cache/kcc",
 * into buf; -1 when neither is set or buf is too small. */
int rt_cache_dir(char *buf, size_t len);
/* The context wants the cache (cfg.cache; KC_CACHE=0 clears it) and the target is one
 * whose output can be stored (both are). */
int rt_cache_enabled(const kc_context *ctx, kcc_target target);
/* Fill *out as kcc_compile would (the kernel table, the untyped names, and the PTX text
 * or, for a host key, the object code; free it with kcc_output_free) from the entry for
 * key: 1 on a hit, 0 on a miss or an unreadable or damaged entry (*out is then empty).
 * A host entry still has to be linked (kcc_load_object). */
int rt_cache_load(const rt_cache_key *key, kcc_output *out);
/* Store a compilation's output under key (its PTX, or its object code for a host key):
 * a temporary file renamed into place. 0, or -1 on any failure (ignored by callers: the
 * cache is only an optimisation). */
int rt_cache_store(const rt_cache_key *key, const kcc_output *out);
/* An entry's bytes (buf, len; changed in place) read for key into *out as
 * rt_cache_load does: 0, or -1 when they are not exactly what rt_cache_store wrote for
 * this key (*out is then empty). For tests/fuzz/fuzz_cache.c. */
int rt_cache_parse(const rt_cache_key *key, char *buf, size_t len, kcc_output *out);
/* cache_evict.c: KC_CACHE_MAX in bytes ("64M", "1G", "1048576"; default 256 MiB, also
 * for an unreadable value), and the least recently used entries of dir removed until
 * their sizes add up to at most max (keep, the entry just stored, last). */
uint64_t rt_cache_max_bytes(void);
void rt_cache_evict(const char *dir, const char *keep, uint64_t max);

#endif
