/*
 * module.c — modules, functions, globals, function attributes and occupancy.
 *
 * A module is PTX text (kcc's, or any NVPTX output): cuModuleLoadDataEx reads its
 * entries, parameter lists and globals (ptx.c); an injected failure fills the JIT
 * error log the caller passed, as ptxas would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double.h"

void dbl_module_destroy(dbl_obj *m) {
  m->live = 0;
  for (int i = 0; i < m->nentries; i++) {
    dbl_entry *e = &m->entries[i];
    if (e->fn) e->fn->live = 0;
    dbl_run_cleanup(e);
    free(e->name);
    free(e->signature);
    free(e->params);
  }
  free(m->entries);
  m->entries = NULL;
  m->nentries = 0;
  for (int i = 0; i < m->nglobals; i++) {
    free(m->globals[i].name);
    dbl_mem *g = dbl_mem_find((uintptr_t)m->globals[i].mem);
    if (g) dbl_mem_release(g);
  }
  free(m->globals);
  m->globals = NULL;
  m->nglobals = 0;
}

/* The JIT options the runtime passes: the error log buffer and its size (in, then
 * out: the bytes written), and the info log likewise. */
typedef struct jit_logs {
  char *err;
  size_t err_size;
  int err_size_at;   /* index of CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, or -1 */
} jit_logs;

static CUresult read_options(unsigned n, CUjit_option *opts, void **vals, jit_logs *logs) {
  logs->err = NULL;
  logs->err_size = 0;
  logs->err_size_at = -1;
  if (n && (!opts || !vals)) {
    dbl_contract("cuModuleLoadDataEx: %u options but options %p, values %p", n,
                 (void *)opts, (void *)vals);
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (unsigned i = 0; i < n; i++) {
    if ((int)opts[i] < 0 || opts[i] >= CU_JIT_NUM_OPTIONS) {
      dbl_contract("cuModuleLoadDataEx: option %d is not a CUjit_option", (int)opts[i]);
      return CUDA_ERROR_INVALID_VALUE;
    }
    if (opts[i] == CU_JIT_ERROR_LOG_BUFFER) logs->err = vals[i];
    if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      logs->err_size = (size_t)(uintptr_t)vals[i];
      logs->err_size_at = (int)i;
    }
  }
  if (logs->err && logs->err_size_at < 0) {
    dbl_contract("cuModuleLoadDataEx: an error log buffer without its size");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static void jit_error(const jit_logs *logs, void **vals, const char *text) {
  if (!logs->err || logs->err_size == 0) return;
  int n = snprintf(logs->err, logs->err_size, "%s", text);
  size_t used = (size_t)n < logs->err_size ? (size_t)n + 1 : logs->err_size;
  vals[logs->err_size_at] = (void *)(uintptr_t)used;
}

CUresult cuModuleLoadDataEx(CUmodule *out, const void *image, unsigned n, CUjit_option *opts,
                            void **vals) {
  CUresult r = dbl_enter("cuModuleLoadDataEx", DBL_NEED_CTX);
  jit_logs logs;
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_PTX) return dbl_leave(r);
  CUresult injected = r;
  r = read_options(n, opts, vals, &logs);
  if (r == CUDA_SUCCESS && (!out || !image)) {
    dbl_contract("cuModuleLoadDataEx: module %p, image %p", (void *)out, image);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  if (injected != CUDA_SUCCESS) {
    jit_error(&logs, vals, "ptxas application ptx input, line 1; error   : injected by "
              "the CUDA driver double (KC_CUDA_DOUBLE_FAIL)\nptxas fatal   : Ptx assembly "
              "aborted due to errors");
    return dbl_leave(injected);
  }
  if (dbl_link_image(image) < 0) {
    dbl_contract("cuModuleLoadDataEx: the image of a link state already destroyed "
                 "(cuLinkComplete's image lives only as long as its state)");
    return dbl_leave(CUDA_ERROR_INVALID_VALUE);
  }
  const char *ptx = image;
  if (!strstr(ptx, ".version") || !strstr(ptx, ".target")) {
    /* a cubin or fatbin: the double has no ELF loader; garbage: what ptxas says */
    jit_error(&logs, vals, "cuda-double: the image is not PTX text (.version/.target)");
    return dbl_leave(CUDA_ERROR_INVALID_IMAGE);
  }
  dbl_obj *m = dbl_obj_new(DBL_MODULE);
  if (!m || !dbl_ptx_parse(m, ptx)) {
    if (m) dbl_module_destroy(m);
    return dbl_leave(CUDA_ERROR_OUT_OF_MEMORY);
  }
  *out = (CUmodule)(void *)m;
  return dbl_leave(CUDA_SUCCESS);
}

CUresult cuModuleUnload(CUmodule mod) {
  CUresult r = dbl_enter("cuModuleUnload", DBL_NEED_CTX | DBL_RELEASES | DBL_BLOCKS);
  dbl_obj *m = NULL;
  if (r == CUDA_SUCCESS && !(m = dbl_obj_get(mod, DBL_MODULE, "cuModuleUnload", "hmod")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (m) dbl_module_destroy(m);
  return dbl_leave_release(r);
}

CUresult cuModuleGetFunction(CUfunction *out, CUmodule mod, const char *name) {
  CUresult r = dbl_enter("cuModuleGetFunction", DBL_NEED_CTX);
  dbl_obj *m = NULL;
  if (r == CUDA_SUCCESS && (!out || !name)) {
    dbl_contract("cuModuleGetFunction: hfunc %p, name %p", (void *)out, (const void *)name);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !(m = dbl_obj_get(mod, DBL_MODULE, "cuModuleGetFunction", "hmod")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  for (int i = 0; i < m->nentries; i++) {
    dbl_entry *e = &m->entries[i];
    if (strcmp(e->name, name) != 0) continue;
    if (!e->fn && (e->fn = dbl_obj_new(DBL_FUNC))) {
      e->fn->module = m;
      e->fn->entry = i;
    }
    if (!e->fn) return dbl_leave(CUDA_ERROR_OUT_OF_MEMORY);
    *out = (CUfunction)(void *)e->fn;
    return dbl_leave(CUDA_SUCCESS);
  }
  dbl_contract("cuModuleGetFunction: the module has no .entry '%s'", name);
  return dbl_leave(CUDA_ERROR_NOT_FOUND);
}

CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule mod, const char *name) {
  CUresult r = dbl_enter("cuModuleGetGlobal", DBL_NEED_CTX);
  dbl_obj *m = NULL;
  if (r == CUDA_SUCCESS && !name) {
    dbl_contract("cuModuleGetGlobal: NULL name");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !(m = dbl_obj_get(mod, DBL_MODULE, "cuModuleGetGlobal", "hmod")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  for (int i = 0; i < m->nglobals; i++)
    if (strcmp(m->globals[i].name, name) == 0) {
      if (dptr) *dptr = (CUdeviceptr)(uintptr_t)m->globals[i].mem;
      if (bytes) *bytes = m->globals[i].size;
      return dbl_leave(CUDA_SUCCESS);
    }
  return dbl_leave(CUDA_ERROR_NOT_FOUND);   /* the runtime asks for optional globals */
}

/* The entry behind a live CUfunction, or NULL after a report. */
dbl_entry *dbl_function(CUfunction f, const char *call) {
  dbl_obj *o = dbl_obj_get(f, DBL_FUNC, call, "hfunc");
  if (!o) return NULL;
  if (!o->module->live) {
    dbl_contract("%s: the function's module was unloaded", call);
    return NULL;
  }
  return &o->module->entries[o->entry];
}

unsigned dbl_max_threads(const dbl_entry *e) {
  unsigned mt = (unsigned)dbl_attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  return e->maxntid && e->maxntid < mt ? e->maxntid : mt;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  CUresult r = dbl_enter("cuFuncGetAttribute", DBL_NEED_CTX);
  dbl_entry *e = NULL;
  if (r == CUDA_SUCCESS && !v) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS && !(e = dbl_function(f, "cuFuncGetAttribute")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  switch (a) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = (int)dbl_max_threads(e); break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = (int)e->static_shared; break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 32; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *v = 80; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *v = e->max_dynamic_shared ? e->max_dynamic_shared
                               : 48 * 1024 - (int)e->static_shared;
    break;
  default: *v = 0;
  }
  return dbl_leave(CUDA_SUCCESS);
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  CUresult r = dbl_enter("cuFuncSetAttribute", DBL_NEED_CTX);
  dbl_entry *e = NULL;
  if (r == CUDA_SUCCESS && !(e = dbl_function(f, "cuFuncSetAttribute")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    long optin = dbl_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    if (v < 0 || (long)v + (long)e->static_shared > optin) {
      dbl_contract("cuFuncSetAttribute: %d dynamic shared bytes + %zu static exceed the "
                   "opt-in limit %ld", v, e->static_shared, optin);
      return dbl_leave(CUDA_ERROR_INVALID_VALUE);
    }
    e->max_dynamic_shared = v;
  } else if (a != CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT) {
    dbl_contract("cuFuncSetAttribute: attribute %d cannot be set", (int)a);
    return dbl_leave(CUDA_ERROR_INVALID_VALUE);
  }
  return dbl_leave(CUDA_SUCCESS);
}

/* Blocks of `threads` threads one SM holds: an A100's rules (2048 threads, 32 blocks,
 * the shared memory), and never more than the CPU back end runs at once for a
 * cooperative launch (all SMs together). */
static int blocks_per_sm(const dbl_entry *e, int threads, size_t shared) {
  int sms = dbl_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  int n = 2048 / threads;
  if (n > 32) n = 32;
  size_t per_block = shared + e->static_shared;
  if (per_block && (size_t)n * per_block > 164 * 1024) n = (int)(164 * 1024 / per_block);
  uint64_t cpu = dbl_cpu_coop_blocks((unsigned)threads) / (uint64_t)sms;
  if ((uint64_t)n > cpu) n = (int)cpu;
  return n;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int threads,
                                                     size_t shared) {
  CUresult r = dbl_enter("cuOccupancyMaxActiveBlocksPerMultiprocessor", DBL_NEED_CTX);
  dbl_entry *e = NULL;
  if (r == CUDA_SUCCESS &&
      !(e = dbl_function(f, "cuOccupancyMaxActiveBlocksPerMultiprocessor")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && (!n || threads <= 0 || (unsigned)threads > dbl_max_threads(e))) {
    dbl_contract("cuOccupancyMaxActiveBlocksPerMultiprocessor: numBlocks %p, blockSize %d "
                 "(the kernel takes at most %u)", (void *)n, threads,
                 e ? dbl_max_threads(e) : 0);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) *n = blocks_per_sm(e, threads, shared);
  return dbl_leave(r);
}

CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f,
                                          CUoccupancyB2DSize to_shared, size_t shared,
                                          int limit) {
  CUresult r = dbl_enter("cuOccupancyMaxPotentialBlockSize", DBL_NEED_CTX);
  dbl_entry *e = NULL;
  if (r == CUDA_SUCCESS && (!min_grid || !block || limit < 0)) {
    dbl_contract("cuOccupancyMaxPotentialBlockSize: minGridSize %p, blockSize %p, limit %d",
                 (void *)min_grid, (void *)block, limit);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !(e = dbl_function(f, "cuOccupancyMaxPotentialBlockSize")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  int b = (int)dbl_max_threads(e);
  if (limit > 0 && b > limit) b = limit;
  if (b > 1024) b = 1024;
  size_t sh = to_shared ? to_shared(b) : shared;
  int per_sm = 2048 / b;
  if (sh + e->static_shared > 0 && (size_t)per_sm * (sh + e->static_shared) > 164 * 1024)
    per_sm = (int)(164 * 1024 / (sh + e->static_shared));
  if (per_sm < 1) per_sm = 1;
  *block = b;
  *min_grid = per_sm * dbl_attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  return dbl_leave(CUDA_SUCCESS);
}
