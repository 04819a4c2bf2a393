/*
 * run.c — cuLaunchKernel and cuLaunchCooperativeKernel: the launch checked against the
 * PTX and the Driver API's limits, then run by the same kernel compiled for the CPU.
 *
 * The kernel's source is one of the .k files KC_CUDA_DOUBLE_SOURCE names (the meson
 * suite cuda-double sets it to the test's own file); it is compiled once on a private
 * CPU context, and an entry whose signature was not compiled there (an untyped kernel
 * specialised at launch) again with that signature, from its "// kcc-kernel:" line.
 * kcc's CPU kernels take the same flat parameter list as its PTX entries (launch.c
 * packs one list for both), and device memory here is host memory, so kernelParams is
 * handed to the CPU executor as it is: arrays are used in place, zero-copy.
 *
 * A bounds error or failed assert on the CPU is written into the module's
 * __kcc_error global, where kcc's PTX would have written it, for the runtime to find
 * at the next synchronisation; a trap becomes CUDA_ERROR_LAUNCH_FAILED and a barrier
 * deadlock CUDA_ERROR_LAUNCH_TIMEOUT (what a GPU's watchdog reports), both sticky.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double.h"
#include "rt.h"

static kc_context *cpu;
/* A source file's CPU modules, compiled without signatures, unchecked [0] and checked
 * [1]; NULL until needed or when it failed. */
typedef struct source {
  char *path;
  kc_module *mod[2];
  int tried[2];
} source;
static source *sources;
static int nsources = -1;

uint64_t dbl_cpu_coop_blocks(unsigned threads) { return rt_cpu_coop_max_blocks(threads); }

static int open_cpu(void) {
  if (cpu) return 1;
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = -1;   /* off (0 is the default: on) */
  if (kc_context_new(&cfg, &cpu) != KC_OK) {
    dbl_fatal("cannot make a CPU context: %s", cpu ? kc_last_error(cpu) : "?");
    if (cpu) kc_context_free(cpu);
    cpu = NULL;
    return 0;
  }
  return 1;
}

static void load_sources(void) {
  if (nsources >= 0) return;
  nsources = 0;
  const char *list = getenv("KC_CUDA_DOUBLE_SOURCE");
  if (!list || !*list) return;
  int n = 1;
  for (const char *p = list; *p; p++) n += *p == ':';
  sources = calloc((size_t)n, sizeof *sources);
  for (const char *p = list; sources && *p;) {
    size_t len = strcspn(p, ":");
    if (len && (sources[nsources].path = malloc(len + 1))) {
      memcpy(sources[nsources].path, p, len);
      sources[nsources].path[len] = '\0';
      nsources++;
    }
    p += len + (p[len] == ':');
  }
}

static int base_name(const char *sig, char *name, size_t len) {
  size_t n = strcspn(sig, "(");
  if (n >= len) return 0;
  memcpy(name, sig, n);
  name[n] = '\0';
  return 1;
}

static kc_kernel *typed(kc_module *mod, const char *name, const char *sig) {
  kc_kernel *k = NULL;
  if (!mod || kc_module_get_kernel(mod, name, &k) != KC_OK || k->nparams < 0) return NULL;
  for (; k; k = k->next_overload)
    if (k->signature && strcmp(k->signature, sig) == 0) return k;
  return NULL;
}

/* How to compile the CPU kernel that stands for entry e: checked (indices and
 * asserts, kc_compile_options.debug) when the PTX's kernel writes the error record,
 * else unchecked (kernels declared debug=True are checked either way). A kernel
 * compiled with bounds_check alone has its asserts compiled out on the GPU and checked
 * here: the one difference, for an assert that fails in such a kernel. */
static void options_of(const dbl_entry *e, kc_compile_options *o, int *variant) {
  memset(o, 0, sizeof *o);
  o->bounds_check = e->checked ? 1 : -1;
  o->debug = e->checked;
  *variant = e->checked;
}

/* The CPU kernel of entry e: compiled from a source file as the PTX module was, with
 * e's signature when the file alone does not give it. */
static kc_kernel *cpu_kernel(dbl_entry *e) {
  char name[512];
  if (e->cpu_kernel) return e->cpu_kernel;
  if (!e->signature || !base_name(e->signature, name, sizeof name)) {
    dbl_fatal("entry '%s' has no \"// kcc-kernel:\" line: cannot run it", e->name);
    return NULL;
  }
  load_sources();
  if (!open_cpu()) return NULL;
  if (nsources == 0) {
    dbl_fatal("kernel '%s': KC_CUDA_DOUBLE_SOURCE names no .k file to run it from", name);
    return NULL;
  }
  kc_compile_options o;
  int v;
  options_of(e, &o, &v);
  for (int i = 0; i < nsources; i++) {
    source *s = &sources[i];
    if (!s->tried[v] && kc_compile_file(cpu, s->path, &o, &s->mod[v]) != KC_OK)
      s->mod[v] = NULL;
    s->tried[v] = 1;
    kc_kernel *k = typed(s->mod[v], name, e->signature);
    if (k) return e->cpu_kernel = k;
    kc_kernel *any = NULL;
    if (!s->mod[v] || kc_module_get_kernel(s->mod[v], name, &any) != KC_OK) continue;
    const char *sigs[1] = {e->signature};
    o.signatures = sigs;
    o.nsignatures = 1;
    kc_module *m = NULL;
    if (kc_compile_file(cpu, s->path, &o, &m) != KC_OK) {
      dbl_fatal("kernel '%s' from %s: %s", e->signature, s->path, kc_last_error(cpu));
      return NULL;
    }
    e->cpu_module = m;
    if ((k = typed(m, name, e->signature))) return e->cpu_kernel = k;
  }
  dbl_fatal("kernel '%s' is in none of KC_CUDA_DOUBLE_SOURCE's files", e->signature);
  return NULL;
}

void dbl_run_cleanup(dbl_entry *e) {
  if (e->cpu_module) kc_module_free(e->cpu_module);
  e->cpu_module = NULL;
  e->cpu_kernel = NULL;
}

__attribute__((destructor)) static void run_free(void) {
  for (int i = 0; i < nsources; i++) {
    for (int v = 0; v < 2; v++)
      if (sources[i].mod[v]) kc_module_free(sources[i].mod[v]);
    free(sources[i].path);
  }
  free(sources);
  if (cpu) kc_context_free(cpu);
}

/* ---- Parameters -------------------------------------------------------------------- */
static int check_slot(const char *call, const dbl_entry *e, void **params, int slot,
                      size_t want, int is_record) {
  if (slot >= e->nparams) return 0;
  const dbl_param *pp = &e->params[slot];
  if (!is_record && pp->size != want) {
    dbl_contract("%s: kernel '%s' parameter %d: the PTX's .param has %zu bytes, the "
                 "signature's type %zu", call, e->name, slot, pp->size, want);
    return 0;
  }
  if (!params[slot]) {
    dbl_contract("%s: kernel '%s': kernelParams[%d] is NULL", call, e->name, slot);
    return 0;
  }
  size_t align = pp->align > 8 ? 8 : pp->align ? pp->align : 1;
  if (!is_record && (uintptr_t)params[slot] % align) {
    dbl_contract("%s: kernel '%s': kernelParams[%d] (%p) is not aligned to the .param's "
                 ".align %zu", call, e->name, slot, params[slot], pp->align);
    return 0;
  }
  dbl.launch_params++;
  return 1;
}

/* An array's data, extents and strides must describe memory inside one allocation. */
static int check_array(const char *call, const dbl_entry *e, const rt_param *p,
                       void **params, int index) {
  uint64_t data;
  memcpy(&data, params[p->flat], 8);
  int64_t lo = 0, hi = 0, stride = 1;
  for (int d = p->ndim - 1; d >= 0; d--) {
    int64_t n, step = stride;
    memcpy(&n, params[p->flat + 1 + d], 8);
    if (p->strided) memcpy(&step, params[p->flat + 1 + p->ndim + d], 8);
    if (n < 0) {
      dbl_contract("%s: kernel '%s' argument %d: extent %lld on axis %d", call, e->name,
                   index + 1, (long long)n, d);
      return 0;
    }
    if (n == 0) return 1;   /* empty: nothing is read */
    if (step >= 0) hi += (n - 1) * step;
    else lo += (n - 1) * step;
    stride *= n;
  }
  size_t item = p->dtype == KC_RECORD ? 1 : kc_dtype_size(p->dtype);
  char what[64];
  snprintf(what, sizeof what, "argument %d's elements", index + 1);
  return dbl_mem_check(call, what, (uintptr_t)(data + (uint64_t)(lo * (int64_t)item)),
                       (size_t)(hi - lo + 1) * item);
}

static int check_params(const char *call, const dbl_entry *e, const kc_kernel *k,
                        void **params) {
  if (k->nflat != e->nparams) {
    dbl_contract("%s: kernel '%s': the PTX's .entry has %d .params, its signature %s "
                 "flattens to %d", call, e->name, e->nparams, k->signature, k->nflat);
    return 0;
  }
  if (e->nparams && !params) {
    dbl_contract("%s: kernel '%s' takes %d parameters and kernelParams is NULL", call,
                 e->name, e->nparams);
    return 0;
  }
  for (int i = 0; i < k->nparams; i++) {
    const rt_param *p = &k->params[i];
    int ok = 1;
    if (p->ndim > 0) {
      int slots = kc_param_words(p->ndim, p->strided, 0);
      for (int s = 0; s < slots; s++) ok &= check_slot(call, e, params, p->flat + s, 8, 0);
      if (ok) ok = check_array(call, e, p, params, i);
    } else if (p->dtype == KC_RECORD) {
      ok = check_slot(call, e, params, p->flat, 0, 1);
    } else if (p->nelems > 0) {
      for (int s = 0; s < p->nelems; s++)
        ok &= check_slot(call, e, params, p->flat + s, kc_dtype_size(p->elems[s]), 0);
    } else {
      ok = check_slot(call, e, params, p->flat, kc_dtype_size(p->dtype), 0);
    }
    if (!ok) return 0;
  }
  return 1;
}

/* ---- Kernel errors back into __kcc_error --------------------------------------------- */
static void parse_shape(const char *s, kc_kernel_error *rec) {
  rec->ndim = 0;
  if (*s == '(') s++;
  while (*s && *s != ')' && rec->ndim < KC_MAX_DIMS) {
    char *end;
    rec->shape[rec->ndim++] = strtoll(s, &end, 10);
    s = end;
    while (*s == ',' || *s == ' ') s++;
  }
}

/* Read rt_format_kernel_error's text back into a record. */
static int parse_error(const char *msg, kc_kernel_error *rec) {
  memset(rec, 0, sizeof *rec);
  const char *k = strstr(msg, ": error: kernel '");
  if (!k) return 0;
  const char *c2 = k;
  while (c2 > msg && c2[-1] != ':') c2--;
  const char *c1 = c2 - 1;
  while (c1 > msg && c1[-1] != ':' && c1[-1] != ' ') c1--;
  rec->line = (uint32_t)strtoul(c1, NULL, 10);
  rec->col = (uint32_t)strtoul(c2, NULL, 10);
  const char *body = strstr(k + 17, "': ");
  if (!body) return 0;
  body += 3;
  const char *where = NULL;
  for (const char *w = strstr(body, ", in block ("); w; w = strstr(w + 1, ", in block ("))
    where = w;
  if (!where || sscanf(where, ", in block (%u, %u, %u), thread (%u, %u, %u)", &rec->block[0],
                       &rec->block[1], &rec->block[2], &rec->thread[0], &rec->thread[1],
                       &rec->thread[2]) != 6)
    return 0;
  long long v;
  unsigned axis;
  int at = 0;
  if (sscanf(body, "index %lld is out of bounds for axis %u with size %*d (array of shape %n",
             &v, &axis, &at) >= 2 && at) {
    rec->kind = KC_KERNEL_ERROR_BOUNDS;
    rec->index = v;
    rec->is_unsigned = 0;
    if (body[6] != '-' && strtoull(body + 6, NULL, 10) > (unsigned long long)INT64_MAX) {
      rec->is_unsigned = 1;
      rec->index = (int64_t)strtoull(body + 6, NULL, 10);
    }
    rec->axis = axis;
    parse_shape(body + at, rec);
  } else if (sscanf(body, "cannot assign an array of extent %lld to axis %u of a slice of "
                    "shape %n", &v, &axis, &at) >= 2 && at) {
    rec->kind = KC_KERNEL_ERROR_BOUNDS;
    rec->index = v;
    rec->axis = axis;
    rec->is_unsigned = KC_KERNEL_ERROR_SHAPE_MISMATCH;
    parse_shape(body + at, rec);
  } else {
    rec->kind = KC_KERNEL_ERROR_RAISE;
    size_t n = (size_t)(where - body);
    if (n >= sizeof rec->message) n = sizeof rec->message - 1;
    memcpy(rec->message, body, n);
  }
  rec->flag = 1;
  return 1;
}

static CUresult kernel_failed(dbl_obj *mod, const dbl_entry *e, kc_status s) {
  const char *msg = kc_last_error(cpu);
  if (s == KC_ERR_BOUNDS || s == KC_ERR_ASSERT) {
    for (int i = 0; i < mod->nglobals; i++) {
      dbl_global *g = &mod->globals[i];
      kc_kernel_error rec;
      if (strcmp(g->name, KC_KERNEL_ERROR_SYMBOL) != 0 || g->size < sizeof rec) continue;
      uint32_t flag;
      memcpy(&flag, g->mem, 4);
      if (flag) return CUDA_SUCCESS;   /* the first error stays, as on the GPU */
      if (parse_error(msg, &rec)) {
        memcpy(g->mem, &rec, sizeof rec);
        return CUDA_SUCCESS;
      }
    }
  }
  fprintf(stderr, "cuda-double: kernel '%s' failed on the CPU (%s): %s\n", e->name,
          kc_status_name(s), msg);
  dbl.pending = s == KC_ERR_DEADLOCK ? CUDA_ERROR_LAUNCH_TIMEOUT : CUDA_ERROR_LAUNCH_FAILED;
  return CUDA_SUCCESS;
}

/* ---- Launches ---------------------------------------------------------------------- */
static CUresult check_shape(const char *call, const dbl_entry *e, const unsigned g[3],
                            const unsigned b[3], unsigned shared) {
  static const CUdevice_attribute gmax[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  static const CUdevice_attribute bmax[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (int d = 0; d < 3; d++) {
    if (g[d] == 0 || g[d] > (unsigned)dbl_attribute(gmax[d]) || b[d] == 0 ||
        b[d] > (unsigned)dbl_attribute(bmax[d])) {
      dbl_contract("%s: kernel '%s': grid (%u, %u, %u), block (%u, %u, %u) outside the "
                   "device's limits", call, e->name, g[0], g[1], g[2], b[0], b[1], b[2]);
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  if (threads > dbl_max_threads(e)) {
    dbl_contract("%s: kernel '%s': %llu threads per block, the kernel takes at most %u",
                 call, e->name, (unsigned long long)threads, dbl_max_threads(e));
    return CUDA_ERROR_INVALID_VALUE;
  }
  size_t limit = e->max_dynamic_shared ? (size_t)e->max_dynamic_shared
                                       : 48 * 1024 - (e->static_shared < 48 * 1024
                                                      ? e->static_shared : 48 * 1024);
  if (shared > limit) {
    dbl_contract("%s: kernel '%s': %u bytes of dynamic shared memory, %zu allowed (%zu "
                 "static; cuFuncSetAttribute raises the limit)", call, e->name, shared,
                 limit, e->static_shared);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

static CUresult launch(const char *call, CUfunction f, const unsigned g[3],
                       const unsigned b[3], unsigned shared, CUstream s, void **params,
                       void **extra, int cooperative) {
  CUresult r = dbl_enter(call, DBL_NEED_CTX | DBL_LAUNCH);
  int faulted = dbl.pending != CUDA_SUCCESS && r == CUDA_SUCCESS;
  dbl_entry *e = NULL;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  dbl.launches++;
  if (!(e = dbl_function(f, call))) return dbl_leave(CUDA_ERROR_INVALID_HANDLE);
  if ((r = dbl_stream_check(call, s)) != CUDA_SUCCESS) return dbl_leave(r);
  if ((r = check_shape(call, e, g, b, shared)) != CUDA_SUCCESS) return dbl_leave(r);
  if (extra && params) {
    dbl_contract("%s: kernel '%s': both kernelParams and extra", call, e->name);
    return dbl_leave(CUDA_ERROR_INVALID_VALUE);
  }
  if (e->cooperative && !cooperative) {
    dbl_contract("%s: kernel '%s' synchronises its grid and is launched without "
                 "cuLaunchCooperativeKernel", call, e->name);
    return dbl_leave(CUDA_ERROR_INVALID_VALUE);
  }
  dbl_obj *fo = dbl_obj_get(f, DBL_FUNC, call, "hfunc");
  kc_kernel *k = cpu_kernel(e);
  if (!k) return dbl_leave(CUDA_ERROR_LAUNCH_FAILED);
  if (!check_params(call, e, k, params)) return dbl_leave(CUDA_ERROR_INVALID_VALUE);
  if (cooperative) {
    uint64_t blocks = (uint64_t)g[0] * g[1] * g[2];
    uint64_t fit = dbl_cpu_coop_blocks(b[0] * b[1] * b[2]);
    if (blocks > fit) {
      dbl_contract("%s: kernel '%s': %llu blocks, at most %llu are resident at once", call,
                   e->name, (unsigned long long)blocks, (unsigned long long)fit);
      return dbl_leave(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
  }
  if (faulted) return dbl_leave(CUDA_SUCCESS);   /* an injected fault: it does not run */
  rt_cpu_kernel ck = {0};
  ck.name = k->name;
  ck.block_fn = k->block_fn;
  ck.thread_fn = k->thread_fn;
  ck.uses_barrier = k->uses_barrier;
  ck.cooperative = k->cooperative;
  ck.static_shared = k->static_shared;
  ck.stack_bytes = k->stack_bytes;
  ck.file = k->mod->src_name;
  kc_dim3 grid = {g[0], g[1], g[2]}, block = {b[0], b[1], b[2]};
  kc_status st = rt_cpu_launch(cpu, &ck, grid, block, shared, params);
  dbl.runs++;
  if (st != KC_OK) r = kernel_failed(fo->module, e, st);
  return dbl_leave(r);
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
                        void **extra) {
  unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  return launch("cuLaunchKernel", f, g, b, shared, s, params, extra, 0);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                   unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                   CUstream s, void **params) {
  unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  return launch("cuLaunchCooperativeKernel", f, g, b, shared, s, params, NULL, 1);
}
