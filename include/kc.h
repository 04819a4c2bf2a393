/*
 * kc.h — the one public header of kcc: the compiler (JIT) and the runtime.
 *
 * A program makes a context (which picks a device: a CUDA GPU or the CPU back end),
 * compiles kernel source into a module (or loads PTX / an AOT header's module), gets a
 * kernel by name and launches it on arrays that live on the context's device.
 *
 *     kc_config cfg;  kc_config_init(&cfg);
 *     kc_context *ctx;  kc_context_new(&cfg, &ctx);
 *     kc_module *m;  kc_compile_file(ctx, "add.k", NULL, &m);
 *     kc_kernel *k;  kc_module_get_kernel(m, "add", &k);
 *     kc_arg args[] = { kc_arg_array(a), kc_arg_array(b), kc_arg_array(out) };
 *     kc_launch(k, kc_dim(n / 256), kc_dim(256), 0, NULL, args, 3);
 *
 * Every call returns a kc_status; on failure the message is kept in the context
 * (kc_last_error). Nothing here exits or aborts on bad input. Handles are opaque and
 * each has its kc_*_free. A handle freed twice, or used after its free, is caught
 * (KC_ERR_INVALID naming the call; a second free does nothing) while it is among the
 * last 256 arrays, or the last 256 modules, streams and events, freed on its context;
 * beyond that, as with free() in C, it is undefined. A kc_kernel lives as long as its
 * module. A context is used by one thread at a time; two contexts may
 * be used on two threads at once.
 */
#ifndef KC_H
#define KC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(KC_BUILDING) && defined(__GNUC__)
#define KC_API __attribute__((visibility("default")))
#else
#define KC_API
#endif

#define KC_VERSION_STRING "0.1.0"

/* ---- Status codes -------------------------------------------------------------- */
typedef enum kc_status {
  KC_OK = 0,
  KC_ERR_SYNTAX,      /* the kernel source does not parse */
  KC_ERR_TYPE,        /* the kernel source parses but is not a valid program */
  KC_ERR_NOMEM,       /* an allocation (host or device) failed */
  KC_ERR_NO_DEVICE,   /* no CUDA driver or no GPU, and CUDA was asked for */
  KC_ERR_CUDA,        /* the CUDA driver returned an error (message names the call) */
  KC_ERR_LAUNCH,      /* bad launch: shape, arguments, or a fault while running */
  KC_ERR_INVALID,     /* a bad argument to an API call */
  KC_ERR_IO,          /* a file could not be read or written */
  KC_ERR_NOT_FOUND,   /* no kernel of that name, etc. */
  KC_ERR_UNSUPPORTED, /* a feature this device or back end does not support */
  KC_ERR_DEADLOCK,    /* threads of a block never met at a barrier (CPU back end) */
  KC_ERR_BOUNDS,      /* an array index out of range in a kernel compiled with bounds
                         checking (the message names the kernel, file:line:col, the
                         index and the array's shape) */
  KC_ERR_INTERNAL,    /* a bug in kcc: please report it */
  KC_ERR_ASSERT,      /* a failed `assert` or a `raise` in a kernel compiled with debug=True
                         (or kcc compile -g, kc_compile_options.debug): the message names
                         the kernel, file:line:col, the exception and its message, and the
                         block and thread that raised. Reported as KC_ERR_BOUNDS is: by
                         kc_launch on the CPU, by the next synchronisation on CUDA */
  KC_ERR_TIMEOUT      /* a kernel ran past kc_config.timeout_ms (KC_TIMEOUT_MS): the
                         message names the kernel and the limit. On the CPU the launch is
                         stopped and the context runs on; on CUDA the kernel cannot be
                         stopped and the context is unusable (docs/runtime.md, "Runaway
                         kernels") */
} kc_status;

/* A short constant string naming the status ("KC_ERR_TYPE"). */
KC_API const char *kc_status_name(kc_status s);

/* ---- Element types ------------------------------------------------------------- */
typedef enum kc_dtype {
  KC_BOOL = 0,
  KC_INT8, KC_INT16, KC_INT32, KC_INT64,
  KC_UINT8, KC_UINT16, KC_UINT32, KC_UINT64,
  KC_FLOAT32, KC_FLOAT64,
  /* complex: two floats (real, imaginary), laid out as C99's float _Complex and
     double _Complex */
  KC_COMPLEX64, KC_COMPLEX128,
  /* IEEE binary16 (half precision) */
  KC_FLOAT16,
  KC_DTYPE_COUNT,
  /* not a number type: the dtype of an array of records (kc_array_new_records), whose
     element layout is a kc_record */
  KC_RECORD = 32
} kc_dtype;

/* Size in bytes of one element (bool is one byte). */
KC_API size_t kc_dtype_size(kc_dtype t);
/* Numba spelling of the type ("float32"). */
KC_API const char *kc_dtype_name(kc_dtype t);

/* ---- Diagnostics --------------------------------------------------------------- */
typedef enum kc_severity { KC_SEV_ERROR, KC_SEV_WARNING, KC_SEV_NOTE } kc_severity;

typedef struct kc_diagnostic {
  kc_severity severity;
  const char *file;    /* the source's name as given to the compiler */
  int line, col;       /* 1-based start of the span; 0 when the message has no place */
  int end_line, end_col; /* end of the span (end_col is one past the last column) */
  const char *message; /* the message alone, no position */
  const char *text;    /* GCC-style text: "file:l:c: error: msg", the line, a caret */
} kc_diagnostic;

/* ---- Configuration ------------------------------------------------------------- */
typedef enum kc_device_kind {
  KC_DEVICE_AUTO = 0, /* CUDA when a driver and a GPU are found, else the CPU */
  KC_DEVICE_CPU,
  KC_DEVICE_CUDA
} kc_device_kind;

/* Allocation hook, as Lua's lua_Alloc: nsize == 0 frees ptr and returns NULL;
 * otherwise reallocates ptr (NULL for a new block) from osize to nsize bytes, and
 * returns NULL on failure (ptr untouched). */
typedef void *(*kc_alloc_fn)(void *user_data, void *ptr, size_t osize, size_t nsize);
/* Diagnostic hook: called for every error, warning and note of a compilation. */
typedef void (*kc_diag_fn)(void *user_data, const kc_diagnostic *d);

/* Optimisation levels, for kc_config.opt_level and kc_compile_options.opt_level. 0 is
 * "the default" so that a zero-initialised struct means the defaults; -O0 (no LLVM
 * optimisation) is asked for with KC_OPT_O0, and 1..3 mean -O1..-O3. */
#define KC_OPT_DEFAULT 0
#define KC_OPT_O0 (-1)

/* Every field's zero is its default, so `kc_config cfg = {0};` and kc_config_init(&cfg)
 * (and a NULL config) mean the same thing. On/off fields take 0 = the default (which the
 * named environment variable may change), 1 = on, -1 = off. */
typedef struct kc_config {
  kc_device_kind device; /* 0 = KC_DEVICE_AUTO; the KC_DEVICE environment variable
                            (cpu|cuda|cuda:N|auto) overrides AUTO; cuda:N also sets
                            cuda_device to N (a decimal ordinal, else KC_ERR_INVALID) */
  int cuda_device;       /* default 0: the CUDA device ordinal, as `kcc devices` lists
                            them. One that does not exist makes kc_context_new fail with
                            KC_ERR_NO_DEVICE ("KC_DEVICE=cuda:3: no CUDA device 3: there
                            are 2 CUDA devices (0..1)") when CUDA was asked for; AUTO
                            falls back to the CPU. Negative: KC_ERR_INVALID */
  int opt_level;         /* 0 = KC_OPT_DEFAULT: -O3; KC_OPT_O0, or 1..3: LLVM's -O0..-O3;
                            another value makes kc_context_new fail with KC_ERR_INVALID */
  int arch;              /* default 0: sm version for PTX (80 = sm_80); 0 = the device's */
  int cpu_threads;       /* default 0: worker threads of the CPU back end, 0 = all cores;
                            at most 4096 (else KC_ERR_INVALID) */
  int verbose;           /* 0 = off unless KC_VERBOSE=1; 1 on, -1 off: say which device
                            was picked, and print every diagnostic to stderr when there
                            is no diag hook, and why a disk-cache entry was refused */
  int lineinfo;          /* default 0 (off), 1 on: emit source line info into PTX */
  int cache;             /* 0 = on unless KC_CACHE=0; 1 on, -1 off: the on-disk compile
                            cache in $XDG_CACHE_HOME/kcc (~/.cache/kcc): PTX on CUDA,
                            machine code on the CPU */
  int bounds_check;      /* 0 = off unless KC_BOUNDS_CHECK=1; 1 on, -1 off: check every
                            array index of every kernel compiled on this context; an index
                            out of range makes the launch (or the next synchronisation,
                            on CUDA) fail with KC_ERR_BOUNDS. Costs a compare per index */
  int fastmath;          /* default 0 (off), 1 on: compile every kernel of this context as
                            if it were declared @cuda.jit(fastmath=True) (docs/language.md,
                            "Fast math"): approximate division, square root and float32
                            maths, fused multiply-adds, reassociation; on CUDA, float32
                            denormals flushed to zero. Results may differ in the last bits */
  const char *cpu_target;/* default NULL: the CPU the CPU back end compiles for. NULL or
                            "" defer to KC_CPU_TARGET (else KC_HOST_CPU, its older
                            name); unset, or "host": this CPU with all its features;
                            "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4": that
                            baseline (code for other machines; valgrind). Another name
                            makes kc_context_new fail with KC_ERR_INVALID, and a level
                            this CPU cannot run makes compiling fail */
  kc_alloc_fn alloc;     /* default NULL: realloc/free */
  kc_diag_fn diag;       /* default NULL: diagnostics are not printed (unless verbose)
                            but kept: kc_last_diagnostics gives them all */
  void *user_data;       /* passed to alloc and diag */
  int timeout_ms;        /* 0 = none unless KC_TIMEOUT_MS=N (milliseconds, decimal; 0 is
                            none); N > 0: N ms; -1: none. A watchdog: on the CPU a launch
                            that runs longer is stopped (its threads end at their next loop
                            iteration) and fails with KC_ERR_TIMEOUT naming the kernel;
                            the context stays usable. On CUDA a wait (kc_synchronize,
                            stream and event waits, copies back to the host) that lasts
                            longer fails with KC_ERR_TIMEOUT and the context is then
                            unusable, as the GPU cannot stop a kernel. Another negative
                            value, or a bad KC_TIMEOUT_MS, makes kc_context_new fail with
                            KC_ERR_INVALID */
  int wrap_int_args;     /* default 0 (off): an integer argument outside its parameter's
                            type (300 for a uint8, 2**32 for an int32) makes the launch
                            fail with KC_ERR_LAUNCH; 1: it is wrapped to the type's width
                            (two's complement; a bool parameter takes any non-zero as
                            true), as Numba passes Python ints through ctypes. kcc's
                            Python package sets it */
} kc_config;

/* Fill cfg with the defaults: every field zero, as `kc_config cfg = {0};` (the
 * environment variables named above are read by kc_context_new). NULL: does nothing. */
KC_API void kc_config_init(kc_config *cfg);

/* ---- Context ------------------------------------------------------------------- */
typedef struct kc_context kc_context;
typedef struct kc_module kc_module;
typedef struct kc_kernel kc_kernel;
typedef struct kc_array kc_array;
typedef struct kc_stream kc_stream;
typedef struct kc_event kc_event;

/* Make a context on the configured device. cfg may be NULL for the defaults.
 * On failure *out is NULL, unless the failure is about the device, in which case
 * *out is still a context (so kc_last_error can be read) that must be freed. */
KC_API kc_status kc_context_new(const kc_config *cfg, kc_context **out);
KC_API void kc_context_free(kc_context *ctx);
/* The device actually in use: KC_DEVICE_CPU or KC_DEVICE_CUDA. */
KC_API kc_device_kind kc_context_device(const kc_context *ctx);
/* The message of the last failed call on this context ("" if none). For a failed
 * compilation it is the first error's text; kc_last_diagnostics has them all. A call
 * given a NULL handle has no context to keep its message in: it keeps it per thread,
 * and kc_last_error(NULL) returns that thread's last such message ("" if none). */
KC_API const char *kc_last_error(const kc_context *ctx);
/* Every diagnostic (error, warning, note) of the last compilation on this context
 * (kc_compile_source, kc_compile_file, a specialisation compiled at a launch, or a
 * ufunc's kernel for scalar operands compiled by kc_vectorize_args), in
 * GCC format as kcc prints them: "file:l:c: error: msg", the source line, a caret;
 * one after another, each ending in a newline. "" when it had none (or for NULL).
 * The library prints none of them unless the context is verbose (kc_config.verbose,
 * KC_VERBOSE=1) and has no diag hook. Valid until the next compilation on ctx. */
KC_API const char *kc_last_diagnostics(const kc_context *ctx);
/* Wait until all work queued on the context's device is done. A kernel fault (a trap,
 * a barrier deadlock on the CPU, an index out of range in bounds-checked code) is
 * returned here as CUDA reports asynchronous faults;
 * on the CPU device, where kc_launch itself waits, kc_launch returns it too and the next
 * kc_synchronize or kc_stream_synchronize returns it once more, then clears it. */
KC_API kc_status kc_synchronize(kc_context *ctx);

/* ---- Devices ------------------------------------------------------------------- */
typedef struct kc_device_info {
  char name[256];
  int cc_major, cc_minor;   /* compute capability; 0.0 for the CPU */
  size_t total_memory;      /* bytes */
  int multiprocessors;      /* SMs, or CPU cores */
  int max_threads_per_block;
  size_t max_shared_per_block;
  int supported;            /* kcc can run kernels on it */
} kc_device_info;

/* Number of CUDA devices (0 with no driver; returns KC_ERR_NO_DEVICE then). */
KC_API kc_status kc_cuda_device_count(int *count);
KC_API kc_status kc_cuda_device_info(int index, kc_device_info *info);
/* Info on the context's own device. */
KC_API kc_status kc_context_device_info(kc_context *ctx, kc_device_info *info);
/* What `kcc devices` prints, like Numba's cuda.detect(): where the CUDA driver,
 * libdevice, ptxas and libnvJitLink were found (or that they were not), each CUDA
 * device with its name, compute capability, memory and whether kcc supports it, with
 * several GPUs which of them each can access directly (peer access: "  [0] peer
 * access: 1 yes, 2 no"), and the CPU device with its core count. One fact per line.
 *   buf:    where the NUL-terminated text goes; may be NULL when len is 0
 *   len:    size of buf in bytes; the text is cut short to fit (still NUL-terminated)
 *   needed: if not NULL, receives the length of the whole text (without the NUL), so
 *           a caller can retry with a buffer of needed + 1 bytes
 * Returns KC_OK (a missing driver is reported in the text, not as an error), or
 * KC_ERR_INVALID when buf is NULL and len is not 0. */
KC_API kc_status kc_detect(char *buf, size_t len, size_t *needed);

/* ---- Arrays ---------------------------------------------------------------------- */
#define KC_MAX_DIMS 8

/* A new uninitialised C-contiguous array of ndim (1..KC_MAX_DIMS) dimensions on the
 * device. Its elements start on a 256-byte boundary, as cuMemAlloc's do (on the CPU
 * device too, unless kc_config.alloc allocates them; there an array of 4 MiB or more
 * starts on a 2 MiB boundary and asks Linux for transparent huge pages, as NumPy's
 * arrays do). */
KC_API kc_status kc_array_new(kc_context *ctx, kc_dtype dtype, int ndim,
                              const int64_t *shape, kc_array **out);
/* A new array holding a copy of host data (Numba's cuda.to_device). bytes is the size
 * of the host buffer: it must be exactly the array's size (the product of shape times
 * kc_dtype_size), as for kc_array_to_host; anything else is KC_ERR_INVALID, with both
 * sizes in the message, and nothing is read. */
KC_API kc_status kc_array_from_host(kc_context *ctx, kc_dtype dtype, int ndim,
                                    const int64_t *shape, const void *host, size_t bytes,
                                    kc_array **out);
/* A new uninitialised array of the same dtype and shape (device_array_like). */
KC_API kc_status kc_array_like(const kc_array *a, kc_array **out);
/* A view of rows [start, stop) of a's first axis; shares a's memory and must be
 * freed before a. */
KC_API kc_status kc_array_view(kc_array *a, int64_t start, int64_t stop, kc_array **out);
/* A view selecting, on each axis d, the Python slice start[d]:stop[d]:step[d] (NumPy's
 * a[1:7:2, ::-1]): negative bounds count from the end, bounds are clamped, a negative
 * step walks backwards; KC_SLICE_NONE stands for a bound left out (a[:3], a[::2]).
 *   start, stop: ndim bounds each, or NULL for all left out
 *   step:        ndim steps (not 0), or NULL for all 1
 * The view shares a's memory and must be freed before a. Unless it is still
 * C-contiguous (kc_array_is_contiguous) it can be passed only to a kernel parameter
 * declared in any layout (Numba's 'A': "array(float32, 1d, A)"); a kernel taking
 * float32[:] (compiled for C-contiguous arrays) refuses it at launch, and copies and
 * fills of it are KC_ERR_INVALID. */
#define KC_SLICE_NONE INT64_MIN
KC_API kc_status kc_array_slice(kc_array *a, const int64_t *start, const int64_t *stop,
                                const int64_t *step, kc_array **out);
/* 1 when a is C-contiguous (every array kc_array_new makes; views may not be). */
KC_API int kc_array_is_contiguous(const kc_array *a);
/* a's strides in elements, one per dimension (NumPy's strides divided by the itemsize). */
KC_API const int64_t *kc_array_strides(const kc_array *a);
/* Copy the whole array to host memory of exactly `bytes` bytes, and back. */
KC_API kc_status kc_array_to_host(kc_array *a, void *host, size_t bytes);
KC_API kc_status kc_array_copy_from_host(kc_array *a, const void *host, size_t bytes);
/* Copy between two arrays of the same dtype and size. */
KC_API kc_status kc_array_copy(kc_array *dst, const kc_array *src);
/* Copy between arrays of two contexts (one per GPU, say), of the same dtype and size,
 * both C-contiguous:
 *   GPU to GPU: cuMemcpyPeerAsync between the two devices (NVLink or PCIe peer-to-peer
 *               where `kcc devices` says "peer access", else staged by the driver);
 *   CPU to CPU: a plain copy; a CPU and a GPU context: one host<->device copy;
 *   one context: kc_array_copy.
 *   stream: NULL, and the copy has finished on return; or a stream of either array's
 *           context, and the GPU-to-GPU copy is ordered on it (the other cases finish
 *           on return, as on the CPU every stream's work has)
 * Returns KC_OK, KC_ERR_INVALID (a freed or strided array, dtypes or sizes that differ,
 * a stream of a third context), KC_ERR_CUDA; the message is in dst's context. */
KC_API kc_status kc_array_copy_peer(kc_array *dst, const kc_array *src, kc_stream *stream);
/* Set every element to *value (one element of the array's dtype), or to zero. */
KC_API kc_status kc_array_fill(kc_array *a, const void *value);
KC_API kc_status kc_array_zero(kc_array *a);
KC_API void kc_array_free(kc_array *a);
KC_API kc_dtype kc_array_dtype(const kc_array *a);
KC_API int kc_array_ndim(const kc_array *a);
KC_API const int64_t *kc_array_shape(const kc_array *a);
KC_API int64_t kc_array_size(const kc_array *a);   /* number of elements */
KC_API size_t kc_array_bytes(const kc_array *a);

/* ---- Records (structured dtypes) ----------------------------------------------------------- */
/* The layout of a record, as a NumPy structured dtype gives it (np.dtype([('x',
 * np.float32), ('y', np.int32)], align=True)): each field's name, type and byte offset,
 * and the record's size. Kernels declare the same record at module level, or take it in
 * Numba's spelling (kc_record_spelling) in a signature; an array of records made with it
 * passes as their parameter when the two spellings agree. The host writes the data as
 * a C struct of the same layout. */
typedef struct kc_record kc_record;

typedef struct kc_record_field {
  const char *name;          /* a Python identifier (letters, digits, '_'); unique */
  kc_dtype dtype;            /* a number dtype, or KC_RECORD for a nested record */
  const kc_record *record;   /* KC_RECORD: the nested record (copied: may be freed after) */
  size_t offset;             /* bytes from the start of the record (offsetof) */
  int ndim;                  /* 0: one value; 1..3: a nested array (NumPy's subarray,
                                ('v', np.float32, (3,))) of this shape, C order */
  int64_t shape[KC_MAX_DIMS];
} kc_record_field;

/* A record description (host-side only; no device memory).
 *   fields, nfields: the fields (at least one), in any order
 *   size:    the record's size in bytes (sizeof the C struct; NumPy's itemsize)
 *   aligned: 1 when the dtype was made with align=True (Numba's `aligned`), else 0;
 *            it is part of the record's identity, as in Numba
 * Returns KC_OK, KC_ERR_INVALID (a bad name, dtype or shape, a field past size, two
 * fields of one name: the message says which), KC_ERR_NOMEM. */
KC_API kc_status kc_record_new(kc_context *ctx, const kc_record_field *fields, int nfields,
                               size_t size, int aligned, kc_record **out);
KC_API void kc_record_free(kc_record *r);
/* Numba's spelling, as a signature or --sig takes it and kcc prints it:
 * "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;True)". Lives as long as r. */
KC_API const char *kc_record_spelling(const kc_record *r);
KC_API size_t kc_record_size(const kc_record *r);
/* A new uninitialised C-contiguous array of records (dtype KC_RECORD), like
 * kc_array_new; kc_array_copy_from_host and kc_array_to_host move its bytes. */
KC_API kc_status kc_array_new_records(kc_context *ctx, const kc_record *rec, int ndim,
                                      const int64_t *shape, kc_array **out);
/* kc_array_new_records, then a copy of shape's records from host, whose size bytes
 * must be the array's (as for kc_array_from_host). */
KC_API kc_status kc_array_from_host_records(kc_context *ctx, const kc_record *rec, int ndim,
                                            const int64_t *shape, const void *host,
                                            size_t bytes, kc_array **out);
/* The spelling of an array's record ("" for an array of numbers). */
KC_API const char *kc_array_record(const kc_array *a);

/* Page-locked host memory for fast copies (plain host memory on the CPU device). */
KC_API kc_status kc_host_alloc(kc_context *ctx, size_t bytes, void **out);
KC_API void kc_host_free(kc_context *ctx, void *p);

/* ---- Compiling and loading modules ------------------------------------------------ */
/* Options of a compilation; zero-initialised (or NULL, or kc_compile_options_init)
 * every field means "as the context says". */
typedef struct kc_compile_options {
  const char *const *signatures; /* "name(float32[:], int32)" for untyped kernels */
  int nsignatures;
  int opt_level;                 /* 0 = KC_OPT_DEFAULT: the context's (kc_config.opt_level);
                                    KC_OPT_O0, or 1..3: -O0..-O3; another value is
                                    KC_ERR_INVALID */
  int lineinfo;                  /* 0 = the context's (kc_config.lineinfo), 1 = emit line
                                    info, -1 = do not */
  int bounds_check;              /* 0 = the context's (kc_config.bounds_check), 1 = check
                                    every array index, -1 = do not */
  int fastmath;                  /* 0 = the context's (kc_config.fastmath), 1 = every kernel
                                    with fast math, -1 = only kernels declared
                                    fastmath=True */
  int debug;                     /* 0 = only kernels declared debug=True are checked, 1 = as
                                    `kcc compile -g`: every kernel as if declared
                                    @cuda.jit(debug=True): its asserts and raises checked
                                    (KC_ERR_ASSERT), its indices bounds-checked, and full
                                    debug info in its code */
} kc_compile_options;

/* Fill opts with the defaults: every field zero, as `kc_compile_options o = {0};`.
 * NULL: does nothing. */
KC_API void kc_compile_options_init(kc_compile_options *opts);

/* Compile kernel source to PTX without loading it (Numba's cuda.compile_ptx): on any
 * context, the CPU's too, for a GPU of compute capability arch (80 = sm_80; 0 = what
 * the context compiles for: kc_config.arch, else its GPU's on CUDA, else sm_80). opts as for kc_compile_source (signatures type
 * untyped kernels: a lazy one has no PTX). Diagnostics as kc_compile_source's.
 *   ptx:     receives the NUL-terminated text (with kcc's "// kcc-kernel:" table lines);
 *            free it with kc_text_free(ctx, ptx)
 *   ptx_len: if not NULL, receives its length without the NUL
 * Returns KC_OK, KC_ERR_SYNTAX / KC_ERR_TYPE (a compile error), KC_ERR_INVALID (a bad
 * option or arch), KC_ERR_NOMEM, KC_ERR_UNSUPPORTED (libkcrt: no compiler). */
KC_API kc_status kc_compile_ptx(kc_context *ctx, const char *name, const char *source,
                                size_t len, const kc_compile_options *opts, int arch,
                                char **ptx, size_t *ptx_len);
/* What kc_compile_text writes: */
typedef enum kc_text_kind {
  KC_TEXT_PTX,    /* PTX for sm_<arch>, as kc_compile_ptx */
  KC_TEXT_LLVM,   /* the optimised LLVM IR: for the GPU (NVPTX, sm_<arch>) on a CUDA
                     context, for the CPU back end on a CPU one (Numba's inspect_llvm);
                     device functions with declared signatures compiled on their own too */
  KC_TEXT_TYPES,  /* each kernel and device function with its signature and the type
                     of each local (Numba's inspect_types; kcc --emit=types); device
                     functions with declared signatures among them, called or not */
  KC_TEXT_DEVICE_PTX /* PTX for sm_<arch> of each device function with a declared
                     signature, compiled on its own as a visible function (.visible
                     .func), called by a kernel or not (Numba's compile_ptx(device=True)) */
} kc_text_kind;

/* Compile kernel source to text of the given kind without loading it; arguments and
 * results as kc_compile_ptx's (arch is read for the GPU's texts only). KC_ERR_INVALID
 * also for an unknown kind. */
KC_API kc_status kc_compile_text(kc_context *ctx, const char *name, const char *source,
                                 size_t len, const kc_compile_options *opts,
                                 kc_text_kind kind, int arch, char **text, size_t *text_len);
/* Free a text kc_compile_ptx or kc_compile_text returned (NULL: nothing). */
KC_API void kc_text_free(kc_context *ctx, char *text);

/* Compile kernel source for the context's device. name is used in diagnostics
 * (e.g. the file name). Diagnostics go to the config's diag hook (printed to stderr
 * only when there is none and the context is verbose); all of them are kept for
 * kc_last_diagnostics, and the first error's text as kc_last_error. opts may be NULL. */
KC_API kc_status kc_compile_source(kc_context *ctx, const char *name, const char *source,
                                   size_t len, const kc_compile_options *opts,
                                   kc_module **out);
KC_API kc_status kc_compile_file(kc_context *ctx, const char *path,
                                 const kc_compile_options *opts, kc_module **out);
/* Load PTX made by kcc (its kernel signatures are read from the "// kcc-kernel:"
 * lines kcc writes into it). CUDA contexts only. */
KC_API kc_status kc_module_load_ptx(kc_context *ctx, const char *ptx, size_t len,
                                    kc_module **out);
/* Load a module image from memory: PTX text, a cubin (ELF, from `kcc compile
 * --emit=cubin`, ptxas or nvJitLink) or a fatbin, told apart by its first bytes.
 * CUDA contexts only: on the CPU device this is KC_ERR_UNSUPPORTED (compile the source
 * instead). The driver's JIT error log is in kc_last_error when it rejects the image.
 * A PTX whose "// kcc-link: PATH" lines name files (a kernel compiled with
 * @cuda.jit(link=[...]), calling functions declared with cuda.declare_device) is linked
 * with them first: .ptx, .cubin, .fatbin, .o, .a, .lib by the driver's linker, .cu
 * compiled by NVRTC, .ltoir by nvJitLink (docs/runtime.md, "Linking files").
 *   data, len:    the image; need not be NUL-terminated or aligned (it is copied when
 *                 it must be); only read during the call
 *   kernel_table: NULL to use the table kcc put into the image (the "// kcc-kernel:"
 *                 lines of PTX, the __kcc_kernels global of a cubin or fatbin); or,
 *                 for an image kcc did not make, one line per kernel,
 *                 "SYMBOL SIGNATURE[ written=I,J]", e.g. "add add(float32[:], int32)"
 *                 (written= lists the 0-based array parameters the kernel stores to)
 * Returns KC_OK, KC_ERR_INVALID (not an image; no or a bad kernel table: the message
 * says which line), KC_ERR_UNSUPPORTED (a CPU context; a file to link of no known kind,
 * or that needs NVRTC or nvJitLink where it is absent), KC_ERR_CUDA (the driver
 * refused it, or the linker failed: its log in the message), KC_ERR_NOT_FOUND (a table
 * entry the image lacks), KC_ERR_IO (a file to link cannot be read), KC_ERR_SYNTAX (a
 * .cu file to link does not compile: NVRTC's log in the message), KC_ERR_NOMEM. */
KC_API kc_status kc_module_load_image(kc_context *ctx, const void *data, size_t len,
                                      const char *kernel_table, kc_module **out);
/* kc_module_load_image of a file's contents (a .ptx, .cubin or .fatbin file); errors
 * name the file. KC_ERR_IO when it cannot be read. */
KC_API kc_status kc_module_load_file(kc_context *ctx, const char *path, kc_module **out);
KC_API void kc_module_free(kc_module *m);

/* A kernel of the module by its name in the source. The kernel belongs to the
 * module and lives as long as it does. */
KC_API kc_status kc_module_get_kernel(kc_module *m, const char *name, kc_kernel **out);
/* Number of parameters (-1 when the kernel is untyped: specialised at launch). */
KC_API int kc_kernel_param_count(const kc_kernel *k);
/* 1 when k synchronises its whole grid (cuda.cg.this_grid().sync()), so that it must be
 * launched cooperatively, every block resident at once (Numba's overload.cooperative);
 * for an untyped kernel, when a specialisation compiled so far does. 0 otherwise, and
 * for NULL. */
KC_API int kc_kernel_cooperative(const kc_kernel *k);
/* The kernel's signature in Numba spelling, "add(float32[:], float32[:], int32)"; for
 * one declared with several, all of them, one a line, in the decorator's order. For
 * an untyped kernel (specialised at launch), the signatures it has been compiled for so
 * far, one a line in the order of their first launch, as Numba's kernel.signatures:
 * "add(float32[:], int32)\nadd(float64[:], int32)"; "add(untyped)" before the first.
 * Valid until the next launch of the kernel or kc_module_free. "" for NULL. */
KC_API const char *kc_kernel_signature(const kc_kernel *k);

/* ---- Launching --------------------------------------------------------------------- */
typedef struct kc_dim3 { unsigned x, y, z; } kc_dim3;

static inline kc_dim3 kc_dim(unsigned x) { kc_dim3 d = {x, 1, 1}; return d; }
static inline kc_dim3 kc_dim2(unsigned x, unsigned y) { kc_dim3 d = {x, y, 1}; return d; }
static inline kc_dim3 kc_dim3_(unsigned x, unsigned y, unsigned z) {
  kc_dim3 d = {x, y, z}; return d;
}

/* A complex scalar argument's value (both parts in double precision). */
typedef struct kc_complex { double re, im; } kc_complex;

/* One launch argument: an array, a scalar of a given dtype, or a tuple of scalars. */
typedef struct kc_arg {
  int is_array;         /* 1: an array (v.array); KC_ARG_TUPLE: a tuple (v.tuple); 0: a
                           scalar */
  kc_dtype dtype;       /* for scalars */
  union {
    kc_array *array; int64_t i; uint64_t u; double f; kc_complex c;
    struct { const kc_record *record; const void *data; } r;   /* KC_RECORD */
    struct { const struct kc_arg *elems; int n; } tuple;
  } v;
} kc_arg;
#define KC_ARG_TUPLE 2

static inline kc_arg kc_arg_array(kc_array *a) {
  kc_arg r; r.is_array = 1; r.dtype = KC_FLOAT32; r.v.array = a; return r;
}
static inline kc_arg kc_arg_int(kc_dtype t, int64_t v) {
  kc_arg r; r.is_array = 0; r.dtype = t; r.v.i = v; return r;
}
static inline kc_arg kc_arg_i32(int32_t v) { return kc_arg_int(KC_INT32, v); }
static inline kc_arg kc_arg_i64(int64_t v) { return kc_arg_int(KC_INT64, v); }
static inline kc_arg kc_arg_u32(uint32_t v) { return kc_arg_int(KC_UINT32, (int64_t)v); }
static inline kc_arg kc_arg_bool(int v) { return kc_arg_int(KC_BOOL, v != 0); }
static inline kc_arg kc_arg_f32(float v) {
  kc_arg r; r.is_array = 0; r.dtype = KC_FLOAT32; r.v.f = v; return r;
}
static inline kc_arg kc_arg_f64(double v) {
  kc_arg r; r.is_array = 0; r.dtype = KC_FLOAT64; r.v.f = v; return r;
}
/* A float16 scalar, rounded to the nearest half-precision value at launch. */
static inline kc_arg kc_arg_f16(float v) {
  kc_arg r; r.is_array = 0; r.dtype = KC_FLOAT16; r.v.f = v; return r;
}
/* Complex scalars: real and imaginary parts. A complex argument converts only to a
 * complex parameter; a real one (integer or float) converts to complex as well. */
static inline kc_arg kc_arg_c64(float re, float im) {
  kc_arg r; r.is_array = 0; r.dtype = KC_COMPLEX64; r.v.c.re = re; r.v.c.im = im; return r;
}
static inline kc_arg kc_arg_c128(double re, double im) {
  kc_arg r; r.is_array = 0; r.dtype = KC_COMPLEX128; r.v.c.re = re; r.v.c.im = im; return r;
}

/* A record scalar: rec's size bytes at data, read when the kernel is launched (so they
 * may change after kc_launch returns); the kernel gets a copy, as its local value. */
static inline kc_arg kc_arg_record(const kc_record *rec, const void *data) {
  kc_arg r; r.is_array = 0; r.dtype = KC_RECORD; r.v.r.record = rec; r.v.r.data = data; return r;
}

/* A tuple argument, for a parameter typed UniTuple(float32, 3) or Tuple(int32, float64)
 * (docs/language.md): n scalar arguments (kc_arg_f32 ...), each converted to its
 * element's type as a scalar argument is. elems is only read during kc_launch. An
 * untyped kernel is specialised for UniTuple(dtype, n) when the elements' dtypes are
 * equal, else for Tuple(...) of them. At most 16 elements. */
static inline kc_arg kc_arg_tuple(const kc_arg *elems, int n) {
  kc_arg r; r.is_array = KC_ARG_TUPLE; r.dtype = KC_INT64; r.v.tuple.elems = elems;
  r.v.tuple.n = n; return r;
}

/* Launch a kernel (asynchronously on CUDA) with grid x block threads, shared_bytes of
 * dynamic shared memory, on stream (NULL = the default stream). Arguments are checked
 * against the kernel's signature: count, dtype and rank, with an error naming the
 * parameter; scalars convert to the parameter's type when the value fits. */
KC_API kc_status kc_launch(kc_kernel *k, kc_dim3 grid, kc_dim3 block, size_t shared_bytes,
                           kc_stream *stream, const kc_arg *args, int nargs);

/* A launch shape for a 1-D elementwise kernel (what @vectorize uses): the block size
 * that gives the best occupancy (the driver's occupancy API on CUDA; 256 on the CPU),
 * and the smallest grid that fills the device with such blocks.
 *   k:            a typed kernel (KC_ERR_INVALID for an untyped one)
 *   shared_bytes: dynamic shared memory each block will use
 *   block:        receives the block size (threads, x only)
 *   min_grid:     receives the number of blocks that fills the device; may be NULL */
KC_API kc_status kc_kernel_suggest_block(kc_kernel *k, size_t shared_bytes, int *block,
                                         int *min_grid);

/* The largest grid (in blocks) of a cooperative launch of k: how many blocks of
 * threads_per_block threads and shared_bytes of dynamic shared memory can be resident
 * at once (Numba's max_cooperative_grid_blocks); a kernel that calls
 * cuda.cg.this_grid().sync() is refused a larger grid. On CUDA the occupancy calculator
 * times the SMs (0 on a GPU without cooperative launch); on the CPU what the back end
 * runs at once.
 *   k:                 a typed kernel (KC_ERR_INVALID for an untyped one)
 *   threads_per_block: 1 to the kernel's most threads per block (else KC_ERR_INVALID)
 *   blocks:            receives the number of blocks */
KC_API kc_status kc_kernel_max_cooperative_blocks(kc_kernel *k, int threads_per_block,
                                                  size_t shared_bytes, uint64_t *blocks);

/* Call a @vectorize function on arrays, as a Numba CUDA ufunc is called: out[i] =
 * f(inputs[0][i], inputs[1][i], ...) for every i. The same as kc_vectorize_args (below)
 * with each input passed as kc_arg_array and the default options: inputs of any shape
 * broadcast together, inputs of another dtype cast into the signature, the output of
 * the broadcast shape. The launch goes on the default stream and is asynchronous on
 * CUDA (unless an argument had to be copied).
 *   k:       the kernel of the @vectorize function (kc_module_get_kernel with its
 *            name); with several signatures, the one picked as kc_vectorize_args says.
 *            A kernel that is not a @vectorize one is not detected when its parameters
 *            are all 1-D arrays: do not pass one.
 *   inputs:  ninputs arrays of the context; may be NULL when ninputs is 0
 *   ninputs: the number of inputs (the function's arity)
 *   out:     in: NULL to have the output allocated, or an array of the broadcast shape
 *            (it may not overlap an input the kernel reads in place); out: the output
 *            array (the caller frees an allocated one with kc_array_free). Left
 *            unchanged on failure.
 * Returns KC_OK, KC_ERR_INVALID for a mismatch (the message names the input, its
 * dtype or shape and what the signature wants), KC_ERR_NOMEM, or what kc_launch
 * returns. */
KC_API kc_status kc_vectorize(kc_kernel *k, kc_array *const *inputs, int ninputs,
                              kc_array **out);

/* How far a ufunc call may convert dtypes (NumPy's casting= argument). Inputs are
 * always converted only safely (np.can_cast(from, to, 'safe'): int32 into float64,
 * float32 into complex64, never int32 into float32); the setting says what else may
 * be converted. */
typedef enum kc_casting {
  KC_CASTING_SAME_KIND = 0, /* the default, NumPy's: the result converts into a given
                               output of its kind or a higher one (float64 into a float32
                               output, int64 into int8; not float into int) */
  KC_CASTING_SAFE,          /* the result converts into the output only safely */
  KC_CASTING_NO             /* nothing converts: inputs of the signature's dtypes exactly
                               (as Numba's CUDA ufuncs want) and an output of its result
                               dtype */
} kc_casting;

/* Options of kc_vectorize_args; a zero-initialised struct (or NULL) gives the defaults. */
typedef struct kc_ufunc_options {
  kc_casting casting;       /* KC_CASTING_SAME_KIND (0) unless set */
  kc_stream *stream;        /* NULL (the default): the default stream; else a stream of
                               the kernel's context, on which the launches are queued
                               after the work already there (Numba's stream=) */
} kc_ufunc_options;

/* Fill opts with the defaults: every field zero, as `kc_ufunc_options o = {0};`.
 * NULL: does nothing. */
KC_API void kc_ufunc_options_init(kc_ufunc_options *opts);

/* Call a @vectorize function as NumPy calls a ufunc: f(a, b, out=o, casting=...).
 *   k:     as for kc_vectorize
 *   args:  nargs inputs, each an array of the context (kc_arg_array: any shape, any
 *          strides, e.g. a kc_array_slice view) or a number scalar (kc_arg_f64(0.5),
 *          kc_arg_i64(3), ...; no tuples or records); may be NULL when nargs is 0.
 *          Shapes broadcast as NumPy's: aligned at the right, a missing or size-1
 *          dimension stretched to the others' extent, a scalar taking every position.
 *          The signature is the first whose input dtypes equal the arguments' (a
 *          scalar's as given), else, unless casting is KC_CASTING_NO, the first into
 *          which every argument casts safely; a scalar casts by its value when arrays
 *          are present and it is of no higher kind (bool < integer < float < complex)
 *          than they are (NumPy 1.x: 2.5 goes into a float32 loop, 300 into int16 but
 *          not int8).
 *   nargs: the number of inputs (the function's arity)
 *   out:   in: NULL to have the output allocated (C-contiguous, the broadcast shape, or
 *          (1,) when every input is a scalar; the signature's result dtype), or an
 *          array whose shape is the broadcast shape (it may widen it, as NumPy's out=
 *          does, but is never broadcast itself), of a dtype the result converts to
 *          under opts->casting, any strides; out: the output (the caller frees an
 *          allocated one). Left unchanged on failure.
 *   opts:  NULL or a kc_ufunc_options (zero-initialised fields mean defaults)
 * Contiguous inputs of the loop's dtype and the broadcast shape, and a contiguous
 * output of the result dtype, are used in place; any other input is first copied into
 * a contiguous array of the loop's dtype, and any other output receives the result
 * through one (on CUDA such copies go through host memory, and the call then waits).
 * Scalar inputs are passed to the kernel as scalars: once calls with scalars in some
 * positions have covered 2^20 elements in all, the function's kernels that take those
 * inputs as scalar parameters are compiled from the module's source and kept with the
 * module (and in the on-disk cache) for every later call with scalars in those
 * positions; before that, and for a module without source, a scalar fills an array of
 * the loop's dtype. Returns KC_OK, KC_ERR_INVALID for a mismatch (the message names the input and axis,
 * or the input's dtype and the signature's), KC_ERR_NOMEM, or what kc_launch
 * returns. */
KC_API kc_status kc_vectorize_args(kc_kernel *k, const kc_arg *args, int nargs,
                                   kc_array **out, const kc_ufunc_options *opts);

/* ---- Generalised ufuncs (@guvectorize) ------------------------------------------------- */
/* Call a @guvectorize function on arrays, as a Numba CUDA gufunc is called. With the
 * layout "(m,n),(n)->(m)", each argument's trailing dimensions are its core dimensions
 * (m, n ...; a () argument has none) and its leading ones the loop dimensions, which
 * broadcast as NumPy's (right-aligned; a missing or size-1 dimension takes the others'
 * extent; an output is never broadcast); the core function runs once per index of the
 * broadcast loop shape, one thread each, on views of the core dimensions. Every array
 * must be C-contiguous (all kc arrays are). Asynchronous on CUDA (default stream).
 *   k:        the kernel of the @guvectorize function (kc_module_get_kernel with its
 *             name); with several signatures, the one matching the inputs' dtypes
 *   inputs:   ninputs arrays (a () input declared as a scalar is an array of its loop
 *             dimensions; a 1-element 1-D array is one scalar for every loop index)
 *   outputs:  noutputs slots: in, NULL to allocate (loop shape then core dims, sizes
 *             taken from the inputs) or an array of the signature's dtype whose loop
 *             dimensions are the broadcast loop shape (it takes part in it); out, the
 *             outputs (the caller frees allocated ones). Unchanged on failure.
 * Returns KC_OK, KC_ERR_INVALID for a mismatch (the message names the argument, the
 * axis or dimension and both sizes), KC_ERR_NOMEM, or what kc_launch returns. */
KC_API kc_status kc_guvectorize(kc_kernel *k, kc_array *const *inputs, int ninputs,
                                kc_array **outputs, int noutputs);
/* kc_guvectorize with its launch queued on stream (NULL = the default stream), after
 * the work already there (Numba's gufunc(..., stream=s)). Asynchronous on CUDA: read the
 * outputs after kc_stream_synchronize(stream) or a copy queued on the same stream. */
KC_API kc_status kc_guvectorize_stream(kc_kernel *k, kc_array *const *inputs, int ninputs,
                                       kc_array **outputs, int noutputs, kc_stream *stream);

/* ---- Reductions (@cuda.reduce) ------------------------------------------------------------ */
/* Reduce a 1-D array with a @cuda.reduce function, as Numba's Reduce object is called:
 * the function combines the elements pairwise in an unspecified order (so it must be
 * associative and commutative, as for Numba), then init when one is given. Two launches
 * on the default stream (one for arrays of at most 256 elements); waits for the result.
 *   k:      the kernel of the @cuda.reduce function (kc_module_get_kernel with its
 *           name). Plain @cuda.reduce is compiled for arr's dtype on first use (then
 *           cached in the module); with signatures, the one of arr's dtype is used.
 *   arr:    a 1-D array of the context, of a number dtype (not bool); may be empty
 *   init:   NULL, or one element of arr's dtype (Numba's init=), combined into the
 *           result; the result of an empty array
 *   result: host memory for one element of arr's dtype, written on success
 * Returns KC_OK, KC_ERR_INVALID (not a reduce kernel, a bad array, an empty array with
 * no init; no signature for the dtype), KC_ERR_NOMEM, or what kc_launch returns. */
KC_API kc_status kc_reduce(kc_kernel *k, kc_array *arr, const void *init, void *result);
/* kc_reduce with its launches queued on stream (NULL = the default stream), after the
 * work already there, as Numba's Reduce(f)(arr, init=..., stream=s) without res=: the
 * call waits for that stream (not for the others) and writes *result before it
 * returns, so it may be read at once. */
KC_API kc_status kc_reduce_stream(kc_kernel *k, kc_array *arr, const void *init,
                                  void *result, kc_stream *stream);

/* ---- Random numbers (numba.cuda.random) --------------------------------------------- */
/* A new array of n xoroshiro128+ generator states for the functions of
 * numba.cuda.random (xoroshiro128p_uniform_float32 and friends, imported in a kernel
 * file as in Numba), seeded as Numba's create_xoroshiro128p_states(n, seed): splitmix64
 * of seed gives generator 0, and generator i + 1 starts 2**64 steps after generator i,
 * so kernels draw the same numbers as under Numba. Seeding runs on the host (n jumps of
 * 128 steps), then the states are copied to the device.
 *   n:    the number of generators (>= 1): typically one per thread
 *   seed: any 64-bit value
 *   out:  receives a uint64 array of shape (n, 2), row i = (s0, s1) of generator i
 *         (the bytes of Numba's record array); free it with kc_array_free
 * Returns KC_OK, KC_ERR_INVALID (n < 1), KC_ERR_NOMEM, or a copy's error. */
KC_API kc_status kc_random_states(kc_context *ctx, int64_t n, uint64_t seed, kc_array **out);

/* ---- Streams and events ---------------------------------------------------------------- */
KC_API kc_status kc_stream_new(kc_context *ctx, kc_stream **out);
KC_API kc_status kc_stream_synchronize(kc_stream *s);
KC_API void kc_stream_free(kc_stream *s);
KC_API kc_status kc_event_new(kc_context *ctx, kc_event **out);
KC_API kc_status kc_event_record(kc_event *e, kc_stream *s);
KC_API kc_status kc_event_synchronize(kc_event *e);
/* Milliseconds between two recorded events. */
KC_API kc_status kc_event_elapsed_ms(kc_event *start, kc_event *end, float *ms);
KC_API void kc_event_free(kc_event *e);

/* ---- Interop: raw pointers, CUDA handles, DLPack -------------------------------------- */
/* Handing kcc's arrays and CUDA objects to other libraries (cuBLAS, cuFFT, CuPy, PyTorch,
 * NumPy...) and taking theirs, without copies. Ownership never moves silently: what
 * kcc made, kcc frees; what the caller passes in stays the caller's (docs/runtime.md,
 * "Interop"). CUDA handles are passed as void * (CUcontext, CUstream) and device
 * addresses as uint64_t (CUdeviceptr), so kc.h needs no CUDA header. */

/* The address of a's first element (a[0, 0, ...]; for a view, the element the view
 * starts at, which for a negative stride is not its lowest address): the CUdeviceptr on
 * a CUDA context, the host address on the CPU device. Valid while a (or the array it
 * views) is alive. Like Numba's `arr.device_ctypes_pointer` /
 * `__cuda_array_interface__['data']`.
 * Returns KC_OK, or KC_ERR_INVALID (NULL, or a freed array). */
KC_API kc_status kc_array_device_ptr(const kc_array *a, uint64_t *out);
/* The host pointer of a's first element on the CPU device (as kc_array_device_ptr, as a
 * pointer); KC_ERR_UNSUPPORTED on a CUDA context, where the elements are not in host
 * memory. */
KC_API kc_status kc_array_data(const kc_array *a, void **out);
/* An array over memory the caller owns (Numba's cuda.as_cuda_array of an object with
 * __cuda_array_interface__): nothing is copied, and kcc never frees the memory:
 * kc_array_free frees only the handle (and the memory must outlive it and its views).
 *   dtype:   a number dtype (not KC_RECORD)
 *   ndim, shape: as for kc_array_new (extents >= 0)
 *   strides: ndim strides in elements (NumPy's strides / itemsize; may be negative or
 *            0), or NULL for C-contiguous. A non-contiguous array is passed only to
 *            kernel parameters of any layout ('A'), as a kc_array_slice view is
 *   ptr:     the first element: a CUdeviceptr on a CUDA context (cuMemAlloc, cudaMalloc,
 *            a pool, managed memory...), a host address on the CPU device; aligned to
 *            the element's size (a complex number's: its part's); not 0 unless the
 *            shape is empty
 * On CUDA, ptr is checked with cuPointerGetAttribute: memory CUDA does not know, or of
 * another device, is refused. Returns KC_OK, KC_ERR_INVALID (the message says which
 * argument and why), KC_ERR_NOMEM. */
KC_API kc_status kc_array_from_device_ptr(kc_context *ctx, kc_dtype dtype, int ndim,
                                          const int64_t *shape, const int64_t *strides,
                                          uint64_t ptr, kc_array **out);
/* The CUcontext a CUDA context runs in (the device's primary context, which the runtime
 * API, cuBLAS, CuPy and PyTorch share), in *out. Stays kcc's: do not destroy it (retain
 * it with cuDevicePrimaryCtxRetain to keep it past kc_context_free). KC_ERR_UNSUPPORTED
 * on the CPU device (*out = NULL). */
KC_API kc_status kc_context_cuda_context(kc_context *ctx, void **out);
/* The CUstream of a stream (kc_stream_new's or kc_stream_from_cuda's), in *out, e.g.
 * for cublasSetStream. Stays the stream's: destroyed by kc_stream_free unless it was
 * borrowed. KC_ERR_UNSUPPORTED on the CPU device (*out = NULL). */
KC_API kc_status kc_stream_cuda_stream(kc_stream *s, void **out);
/* A kc_stream over the caller's CUstream (Numba's cuda.external_stream), so that
 * launches and copies queue on it: kc_stream_free frees the handle and never destroys
 * the CUstream, which must outlive the handle. cu_stream must belong to the context's
 * CUcontext (checked with cuStreamGetCtx where the driver has it); NULL,
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are taken as they are. Returns KC_OK,
 * KC_ERR_INVALID (another CUcontext's stream), KC_ERR_UNSUPPORTED on the CPU device,
 * KC_ERR_NOMEM. */
KC_API kc_status kc_stream_from_cuda(kc_context *ctx, void *cu_stream, kc_stream **out);

/* DLPack (dlpack/dlpack.h): the exchange struct of PyTorch (torch.utils.dlpack), CuPy,
 * JAX and NumPy (np.from_dlpack). kc.h only declares the struct: include dlpack.h to
 * read it. A kcc built without dlpack.h returns KC_ERR_UNSUPPORTED from both calls. */
struct DLManagedTensor;
/* Export a as a DLManagedTensor, zero-copy: data is a's first element (byte_offset 0),
 * the device kDLCUDA with the context's ordinal or kDLCPU, shape and strides in elements
 * as a's, the dtype kDLInt/kDLUInt/kDLFloat/kDLComplex of the element's bits (bool:
 * kDLBool with a DLPack 0.8+ header, else kDLUInt of 8 bits; lanes 1). The tensor holds
 * a's memory: a may be freed (kc_array_free) before the tensor's deleter runs, and the
 * memory is released when both are gone. The consumer calls the deleter once, on the
 * thread that uses the context (it touches the context's allocator) and before
 * kc_context_free. Returns KC_OK, KC_ERR_INVALID (NULL, a freed array),
 * KC_ERR_UNSUPPORTED (an array of records), KC_ERR_NOMEM. */
KC_API kc_status kc_array_to_dlpack(kc_array *a, struct DLManagedTensor **out);
/* Import a DLManagedTensor as an array, zero-copy (like kc_array_from_device_ptr over
 * data + byte_offset). Checked: the device (on a CUDA context kDLCUDA of its ordinal or
 * kDLCUDAManaged; on the CPU device kDLCPU or kDLCUDAHost; anything else is refused,
 * named), the dtype (the codes and bits kc_array_to_dlpack makes, kDLBool of 8 bits,
 * lanes 1), ndim (1..KC_MAX_DIMS: 0-d tensors are refused), strides (NULL:
 * C-contiguous; otherwise the array is non-contiguous unless they are C's), the
 * pointer's alignment and, on CUDA, its device. On success the array owns the tensor:
 * its deleter is called once, when the array and its views are all freed. On failure
 * the tensor is untouched and still the caller's. Returns KC_OK, KC_ERR_INVALID (the
 * message says what was refused), KC_ERR_UNSUPPORTED (no DLPack), KC_ERR_NOMEM. */
KC_API kc_status kc_array_from_dlpack(kc_context *ctx, struct DLManagedTensor *managed,
                                      kc_array **out);

/* ---- Stream-ordered work ------------------------------------------------------------- */
/* Work queued on one stream runs in the order it was queued: launches, the copies and
 * fills below, event records, waits and host callbacks. The NULL stream is the default
 * stream, which every stream of kcc waits for and which waits for every stream (CUDA's
 * legacy default stream). On CUDA the calls return once the work is queued; on the CPU
 * device they run it before returning, so the order is kept trivially (docs/runtime.md,
 * "What overlaps, per device"). Each call returns KC_OK, KC_ERR_INVALID (a NULL
 * or freed array, a stream or event of another context, a size mismatch: the message
 * names the call and both sizes), or the driver's error. */

/* Copy host memory of exactly `bytes` bytes (the array's size) into a, queued on stream
 * (Numba's cuda.to_device(x, stream=s) into an existing array, a.copy_to_device(x,
 * stream=s)). The host buffer must stay valid and unchanged until the copy is done
 * (kc_stream_synchronize, an event, or a callback after it); page-locked memory
 * (kc_host_alloc, kc_host_register) lets the copy overlap kernels on CUDA, pageable
 * memory makes the driver stage it (then the call may wait). */
KC_API kc_status kc_array_copy_from_host_async(kc_array *a, const void *host, size_t bytes,
                                               kc_stream *stream);
/* Copy a to host memory of exactly `bytes` bytes, queued on stream (Numba's
 * a.copy_to_host(h, stream=s)). The host bytes are only valid once the stream has
 * reached the copy (kc_stream_synchronize, an event, or a host callback after it). */
KC_API kc_status kc_array_to_host_async(kc_array *a, void *host, size_t bytes,
                                        kc_stream *stream);
/* Copy between two arrays of the same dtype and size, queued on stream. */
KC_API kc_status kc_array_copy_async(kc_array *dst, const kc_array *src, kc_stream *stream);
/* Set every element to *value (one element of a's dtype, read during the call), or to
 * zero, queued on stream. */
KC_API kc_status kc_array_fill_async(kc_array *a, const void *value, kc_stream *stream);
KC_API kc_status kc_array_zero_async(kc_array *a, kc_stream *stream);

/* Page-lock `bytes` bytes of existing host memory at p (cuMemHostRegister; the memory
 * the caller allocated, e.g. with malloc), so async copies from and to it overlap
 * kernels, as kc_host_alloc's memory does. On the CPU device nothing is locked; the
 * arguments are still checked and the range remembered. Unregister it before freeing
 * the memory; kc_context_free unregisters what is left.
 * Returns KC_OK, KC_ERR_INVALID (p NULL, bytes 0, or a range overlapping one already
 * registered on this context), KC_ERR_NOMEM, or the driver's error. */
KC_API kc_status kc_host_register(kc_context *ctx, void *p, size_t bytes);
/* Undo kc_host_register(ctx, p, ...): p must be the pointer it was given, else
 * KC_ERR_INVALID ("... was not registered"). Wait for copies using it first. */
KC_API kc_status kc_host_unregister(kc_context *ctx, void *p);

/* Make stream wait, for the work queued on it from now on, until the work before
 * event's last kc_event_record is done (cuStreamWaitEvent; Numba's event.wait(stream)).
 * The caller does not wait. stream NULL = the default stream. KC_ERR_INVALID when the
 * event was never recorded or belongs to another context. */
KC_API kc_status kc_stream_wait_event(kc_stream *stream, kc_event *event);
/* Whether the work before event's last record is done, without waiting (cuEventQuery;
 * Numba's event.query()): *done = 1 when it is, 0 while it is not. Returns KC_OK in both
 * cases, KC_ERR_INVALID (NULL arguments, an event never recorded), or a fault of that
 * work (as kc_event_synchronize would). */
KC_API kc_status kc_event_query(kc_event *event, int *done);

/* A host function queued on a stream (cuLaunchHostFunc's CUhostFn). */
typedef void (*kc_host_fn)(void *user_data);
/* Call fn(user_data) on the host once the work queued on stream before it is done; the
 * work queued after it waits until fn has returned (Numba's stream.add_callback, whose
 * callback also gets the stream and a status). On CUDA fn runs on a driver thread: it
 * must not call kc_ functions on this context (or any CUDA call), and should be short;
 * on the CPU device it runs inside this call. stream must not be NULL (it names the
 * context; queue on a stream of your own). Returns KC_OK, KC_ERR_INVALID (stream or fn
 * NULL), or the driver's error. */
KC_API kc_status kc_stream_add_callback(kc_stream *stream, kc_host_fn fn, void *user_data);

#ifdef __cplusplus
}
#endif
#endif /* KC_H */
