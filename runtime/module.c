/*
 * module.c — modules and kernels: compiling source with kcc_compile (host JIT code for
 * the CPU device, PTX loaded through the driver for CUDA), loading PTX, cubins and
 * fatbins made by kcc (their kernel tables: image.c), finding kernels by name, and
 * specialising untyped kernels at their first launch.
 *
 * Each kernel gets a parameter table at load time (dtype, rank and the index of its
 * first kernelParams entry) so the launch path does no string work. A module owns
 * copies of every string it keeps; on the CPU it also keeps the kcc_output, whose
 * `host` owns the JIT-compiled code the kernels' function pointers point into.
 * On CUDA a compilation's output may come from the on-disk cache (cache.c) instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "rt.h"
#include "rt_compiler.h"
#include "signature.h"

/* arg_key's bytes: one per argument, a tuple 2 + one per element */
#define RT_ARG_KEY_MAX (SIG_MAX_PARAMS * (2 + SIG_MAX_TUPLE))

struct rt_spec {
  rt_spec *next;
  char *signature;   /* "name(float32[:], int32)" as built from the arguments (NULL
                        for a variant) */
  kc_module *module; /* compiled for that signature alone */
  kc_kernel *origin; /* the untyped kernel it specialises */
  kc_kernel *typed;  /* the kernel in module */
  int nargs;         /* the arguments' types (arg_key): compared on every launch */
  int keylen;        /* instead of the signature text */
  unsigned char key[RT_ARG_KEY_MAX];
  /* a variant (nargs -2): */
  uint64_t work;     /* done without it so far (elements, threads) */
  bool compiled;     /* tried: typed is it, or NULL when it could not be had */
};

/* ---- Kernels ------------------------------------------------------------------------ */
static void kernel_clear(kc_context *ctx, kc_kernel *k) {
  rt_free_str(ctx, k->name);
  rt_free_str(ctx, k->symbol);
  rt_free_str(ctx, k->signature);
  rt_free_str(ctx, k->listing);
  if (k->params) {
    for (int i = 0; i < k->nparams; i++) {
      rt_free_str(ctx, k->params[i].name);
      rt_free_str(ctx, k->params[i].record);
    }
    rt_free(ctx, k->params, (size_t)k->nparams * sizeof *k->params);
  }
  memset(k, 0, sizeof *k);
}

/* Fill k's names and parameter table; nparams < 0 makes an untyped kernel. */
static kc_status kernel_init(kc_module *m, kc_kernel *k, const char *name,
                             const char *symbol, const char *signature, int nparams,
                             const kcc_param *params) {
  kc_context *ctx = m->ctx;
  k->mod = m;
  k->nparams = nparams;
  k->max_threads = ctx->limits.max_threads;
  k->name = rt_strdup(ctx, name);
  k->symbol = rt_strdup(ctx, symbol ? symbol : name);
  if (signature) {
    k->signature = rt_strdup(ctx, signature);
  } else {
    char buf[300];
    snprintf(buf, sizeof buf, "%s(untyped)", name);
    k->signature = rt_strdup(ctx, buf);
  }
  if (!k->name || !k->symbol || !k->signature) goto nomem;
  if (nparams <= 0) return KC_OK;
  k->params = rt_calloc(ctx, (size_t)nparams, sizeof *k->params);
  if (!k->params) goto nomem;
  int flat = 0;
  for (int i = 0; i < nparams; i++) {
    rt_param *p = &k->params[i];
    p->dtype = params[i].dtype;
    p->ndim = params[i].ndim;
    p->strided = p->ndim > 0 && params[i].strided;
    p->flat = flat;
    p->written = p->ndim > 0 && params[i].written;
    p->name = rt_strdup(ctx, params[i].name ? params[i].name : "");
    if (!p->name) goto nomem;
    int bad = ((unsigned)p->dtype >= KC_DTYPE_COUNT && p->dtype != KC_RECORD) ||
              p->ndim < 0 || p->ndim > KC_MAX_DIMS ||
              params[i].nelems < 0 || params[i].nelems > SIG_MAX_TUPLE ||
              (params[i].nelems && (p->ndim || !params[i].elems));
    for (int e = 0; !bad && e < params[i].nelems; e++)
      bad = (unsigned)(p->elems[e] = params[i].elems[e]) >= KC_DTYPE_COUNT;
    if (bad)
      return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s': parameter %d has a bad type",
                      name, i + 1);
    p->nelems = params[i].nelems;
    /* a tuple takes a slot per element, an 'A' array its strides too */
    flat += kc_param_words(p->ndim, p->strided, p->nelems);
  }
  kc_status rs = rt_param_records(ctx, k);
  if (rs != KC_OK) return rs;
  if (flat > RT_MAX_FLAT_PARAMS)
    return rt_error(ctx, KC_ERR_UNSUPPORTED,
                    "kernel '%s' has %d parameter words; at most %d are supported", name,
                    flat, RT_MAX_FLAT_PARAMS);
  k->nflat = flat;
  int nwritten = 0, nread = 0;
  for (int i = 0; i < nparams; i++)
    if (k->params[i].ndim > 0) {
      if (k->params[i].written) nwritten++;
      else nread++;
    }
  k->alias_check = nwritten > 0 && nread > 0;
  return KC_OK;
nomem:
  return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
}

static void list_spec(kc_kernel *k, const char *sig);

/* Link kernels sharing a name (several signatures of one source kernel). The first of
 * them, which kc_module_get_kernel finds, lists every signature (Numba's
 * kernel.signatures), in the order of the decorator's list. */
static void link_overloads(kc_module *m) {
  for (int i = 0; i < m->nkernels; i++)
    for (int j = i + 1; j < m->nkernels; j++)
      if (m->kernels[i].nparams >= 0 && m->kernels[j].nparams >= 0 &&
          strcmp(m->kernels[i].name, m->kernels[j].name) == 0) {
        m->kernels[i].next_overload = &m->kernels[j];
        break;
      }
  for (int i = 0; i < m->nkernels; i++) {
    kc_kernel *k = &m->kernels[i];
    int first = 1;
    for (int j = 0; j < i && first; j++) first = m->kernels[j].next_overload != k;
    if (!first || !k->next_overload) continue;
    for (kc_kernel *o = k; o; o = o->next_overload) list_spec(k, o->signature);
  }
}

static kc_status module_alloc(kc_context *ctx, int nkernels, kc_module **out) {
  kc_module *m = rt_calloc(ctx, 1, sizeof *m);
  if (!m) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  m->ctx = ctx;
  m->opt_level = ctx->cfg.opt_level;
  m->lineinfo = ctx->cfg.lineinfo;
  if (nkernels > 0) {
    m->kernels = rt_calloc(ctx, (size_t)nkernels, sizeof *m->kernels);
    if (!m->kernels) {
      rt_free(ctx, m, sizeof *m);
      return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
    }
  }
  m->nkernels = nkernels;
  *out = m;
  return KC_OK;
}

/* Release what m holds; with park, keep the handle and its kernel table a while in the
 * context's graveyard (handles.c), so that a later use of the user's handle is caught;
 * else (a module the user never had) free them. */
static void module_destroy(kc_module *m, bool park) {
  kc_context *ctx = m->ctx;
  while (m->specs) {
    rt_spec *s = m->specs;
    m->specs = s->next;
    if (s->module) module_destroy(s->module, false);   /* none: a variant not had */
    rt_free_str(ctx, s->signature);
    rt_free(ctx, s, sizeof *s);
  }
  for (int i = 0; i < m->nkernels; i++) {
    kernel_clear(ctx, &m->kernels[i]);
    m->kernels[i].mod = m;   /* so that kc_launch finds the module freed */
  }
  if (m->error_dptr) rt_module_unlink_error_record(m);
  if (m->cu_module) rt_cuda_module_unload(ctx, m->cu_module);
  if (m->has_out) rt_compiler_get()->output_free(&m->out);  /* only compiled modules */
  rt_free_str(ctx, m->src_name);
  rt_warned_free(ctx, &m->warned);
  rt_free(ctx, m->source, m->source_len + 1);
  for (int i = 0; m->sigs && i < m->nsigs; i++) rt_free_str(ctx, m->sigs[i]);
  rt_free(ctx, m->sigs, (size_t)m->nsigs * sizeof *m->sigs);
  if (park) {   /* the kernel table first: the ring lets it go before the module */
    rt_handle_bury(ctx, m->kernels, (size_t)m->nkernels * sizeof *m->kernels, NULL);
    rt_handle_bury(ctx, m, sizeof *m, &m->magic);
  } else {
    rt_free(ctx, m->kernels, (size_t)m->nkernels * sizeof *m->kernels);
    rt_free(ctx, m, sizeof *m);
  }
}

/* A module that never reached the user (a failed compile or load): freed at once. */
static void module_discard(kc_module *m) {
  if (m) module_destroy(m, false);
}

void kc_module_free(kc_module *m) {
  if (!m || rt_handle_live(m->ctx, m->magic, "kc_module_free", "module") != KC_OK) return;
  module_destroy(m, true);
}

kc_status rt_module_from_kernels(kc_context *ctx, const kcc_kernel *table, int n,
                                 const char *const *untyped, int nuntyped,
                                 kc_module **out) {
  kc_module *m;
  *out = NULL;
  if (n < 0 || nuntyped < 0) return rt_error(ctx, KC_ERR_INVALID, "bad kernel table");
  kc_status s = module_alloc(ctx, n + nuntyped, &m);
  if (s != KC_OK) return s;
  for (int i = 0; i < n && s == KC_OK; i++) {
    const kcc_kernel *t = &table[i];
    kc_kernel *k = &m->kernels[i];
    s = kernel_init(m, k, t->name, t->symbol, t->signature, t->nparams, t->params);
    k->uses_barrier = t->uses_barrier;
    k->cooperative = t->cooperative;
    k->inner_axis = t->inner_axis;
    k->fuse_blocks = t->fuse_blocks;
    k->regions = t->regions;
    k->static_shared = t->static_shared;
    k->stack_bytes = t->stack_bytes;
    /* CUDA reads launch_bounds from the function (cuFuncGetAttribute); the CPU here */
    if (t->max_threads > 0 && (unsigned)t->max_threads < k->max_threads)
      k->max_threads = (unsigned)t->max_threads;
    /* the JIT hands back data pointers; ISO C wants a copy to turn them to functions */
    memcpy(&k->block_fn, &t->block_fn, sizeof k->block_fn);
    memcpy(&k->thread_fn, &t->thread_fn, sizeof k->thread_fn);
    if (s == KC_OK && ctx->device == KC_DEVICE_CPU &&
        !(t->uses_barrier ? (void *)t->thread_fn : (void *)t->block_fn))
      s = rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s' has no host code", t->name);
  }
  for (int i = 0; i < nuntyped && s == KC_OK; i++)
    s = kernel_init(m, &m->kernels[n + i], untyped[i], NULL, NULL, -1, NULL);
  if (s != KC_OK) {
    module_discard(m);
    return s;
  }
  link_overloads(m);
  *out = m;
  return KC_OK;
}

/* ---- Compiling ---------------------------------------------------------------------- */
static kc_status fail_compile(kc_context *ctx, kcc_output *out, const char *name) {
  kc_status s = out->status != KC_OK ? out->status : KC_ERR_INTERNAL;
  if (out->first_error)
    rt_error(ctx, s, "%s", out->first_error);
  else if (s == KC_ERR_NOMEM)
    rt_error(ctx, s, "%s: out of memory while compiling", name);
  else
    rt_error(ctx, s, "%s: compilation failed (%d error%s)", name, out->nerrors,
             out->nerrors == 1 ? "" : "s");
  rt_compiler_get()->output_free(out);
  return s;
}

/* Resolve every kernel of a CUDA module to its CUfunction, and find its error record. */
static kc_status bind_cuda_functions(kc_module *m) {
  for (int i = 0; i < m->nkernels; i++) {
    kc_kernel *k = &m->kernels[i];
    if (k->nparams < 0) continue;
    kc_status s = rt_cuda_get_function(m->ctx, m->cu_module, k->symbol, &k->cu_function,
                                       &k->max_threads);
    if (s != KC_OK) return s;
  }
  return rt_module_bind_error_record(m);
}

/* A cached CPU entry holds object code, linked here into a JIT; a PTX entry is ready.
 * When the object cannot be linked the entry is dropped (and replaced once compiled). */
static int link_cached(const rt_compiler *cc, const kcc_options *o, kcc_output *res) {
  if (o->target != KCC_TARGET_HOST || cc->load_object(o, res) == KC_OK) return 1;
  cc->output_free(res);
  return 0;
}

/* A compilation's settings: the context's, with what kc_compile_options says over them. */
/* The options that make a variant of a module's kernel (kcc_options' fields of the same
 * names); all zero for a module's own compilation. */
typedef struct variant_opts {
  const char *scalar_ufunc;
  unsigned scalar_inputs;
  const char *only_kernel;
  int any_layout;
  unsigned block_dim[3];
} variant_opts;

typedef struct settings {
  int opt, lineinfo, bounds, fast, debug;
  const char *const *sigs;
  int nsigs;
  variant_opts variant;         /* what makes a variant of a kernel (below) */
} settings;

/* The GPU a compilation for NVPTX is for: the context's kc_config.arch, else its GPU's
 * compute capability on CUDA, else sm_80, the oldest kcc supports. */
static kc_status device_arch(kc_context *ctx, int *out) {
  *out = ctx->cfg.arch ? ctx->cfg.arch : 80;
  if (ctx->cfg.arch || ctx->device != KC_DEVICE_CUDA) return KC_OK;
  kc_device_info info;
  kc_status s = rt_cuda_info(ctx, ctx->cfg.cuda_device, &info);
  if (s == KC_OK) *out = info.cc_major * 10 + info.cc_minor;
  return s;
}

/* The compiler's options for st on ctx (its allocator; diagnostics through route),
 * the target left to the caller. */
static void base_options(const rt_compiler *cc, kc_context *ctx, const settings *st,
                         rt_diag_route *route, kcc_options *o) {
  cc->options_init(o);
  o->opt_level = st->opt, o->lineinfo = st->lineinfo, o->bounds_check = st->bounds;
  o->fastmath = st->fast, o->debug = st->debug, o->sigs = st->sigs, o->nsigs = st->nsigs;
  o->scalar_ufunc = st->variant.scalar_ufunc, o->scalar_inputs = st->variant.scalar_inputs;
  o->only_kernel = st->variant.only_kernel;
  o->any_layout = st->variant.any_layout;
  memcpy(o->block_dim, st->variant.block_dim, sizeof o->block_dim);
  o->alloc = ctx->cfg.alloc;
  o->user_data = ctx->cfg.user_data;
  o->diag = rt_diag_route_fn;
  o->diag_user_data = route;
  rt_diags_reset(ctx);
}

/* A copy of the signatures kc_compile_options gave st, for compiling the module's
 * kernels again (module_settings). */
static kc_status keep_signatures(kc_module *m, const settings *st) {
  if (st->nsigs <= 0) return KC_OK;
  m->sigs = rt_calloc(m->ctx, (size_t)st->nsigs, sizeof *m->sigs);
  if (!m->sigs) return rt_error(m->ctx, KC_ERR_NOMEM, "out of memory");
  m->nsigs = st->nsigs;
  for (int i = 0; i < st->nsigs; i++)
    if (!(m->sigs[i] = rt_strdup(m->ctx, st->sigs[i] ? st->sigs[i] : "")))
      return rt_error(m->ctx, KC_ERR_NOMEM, "out of memory");
  return KC_OK;
}

/* Compile source with st's settings, its diagnostics through route (whose mode says
 * whether this is the caller's compilation or one made for a launch). */
static kc_status compile(kc_context *ctx, const char *name, const char *source, size_t len,
                         const settings *st, rt_diag_route *route, kc_module **out) {
  const rt_compiler *cc = rt_compiler_get();
  bool specialising = route->mode != RT_DIAG_ALL;
  if (!cc) return rt_no_compiler(ctx, specialising ? "specialising an untyped kernel"
                                                   : "kc_compile_source");
  kcc_options o;
  kcc_output res;
  base_options(cc, ctx, st, route, &o);
  memset(&res, 0, sizeof res);
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status s = device_arch(ctx, &o.arch);
    if (s != KC_OK) return s;
    o.target = KCC_TARGET_NVPTX;
    o.emit = KCC_EMIT_PTX;
  } else {
    o.target = KCC_TARGET_HOST;
    o.emit = KCC_EMIT_JIT;
    o.cpu = ctx->cfg.cpu_target;
  }
  /* the on-disk cache; an output with warnings is not stored, so a cache hit never
     hides a diagnostic */
  rt_cache_key key;
  int cacheable = rt_cache_enabled(ctx, o.target), cached = 0;
  if (cacheable) {
    key = rt_cache_key_of(&o, name, source, len);
    key.verbose = ctx->cfg.verbose;
    cached = rt_cache_load(&key, &res) && link_cached(cc, &o, &res);
    ctx->cache_hits += (unsigned)cached;
    o.keep_object = o.target == KCC_TARGET_HOST && !cached;
  }
  kc_status s = cached ? KC_OK : cc->compile(&o, name, source, len, &res);
  if (s != KC_OK || res.nerrors > 0) {
    if (res.status == KC_OK) res.status = s != KC_OK ? s : KC_ERR_TYPE;
    return fail_compile(ctx, &res, name);
  }
  if (cacheable && !cached && res.nwarnings == 0) rt_cache_store(&key, &res);
  cc->output_drop_object(&res);   /* linked into the JIT: not needed again */
  kc_module *m;
  s = rt_module_from_kernels(ctx, res.kernels, res.nkernels, res.untyped, res.nuntyped, &m);
  if (s != KC_OK) {
    cc->output_free(&res);
    return s;
  }
  m->out = res;
  m->has_out = 1;
  m->opt_level = st->opt;
  m->lineinfo = st->lineinfo;
  m->bounds_check = st->bounds;
  m->fastmath = st->fast;
  m->debug = st->debug;
  if (ctx->device == KC_DEVICE_CUDA) {
    s = rt_link_module_load(ctx, res.text ? res.text : "", &m->cu_module);
    if (s == KC_OK) s = bind_cuda_functions(m);
  }
  /* the name, for bounds errors */
  if (s == KC_OK && !(m->src_name = rt_strdup(ctx, name)))
    s = rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if (s == KC_OK && !specialising) {
    /* keep the source (and the signatures the options gave) to specialise untyped
       kernels at launch and to compile variants of kernels (rt_module_ufunc_scalars,
       rt_module_block_variant) */
    m->source = rt_alloc(ctx, len + 1);
    if (!m->source) {
      s = rt_error(ctx, KC_ERR_NOMEM, "out of memory");
    } else {
      memcpy(m->source, source, len);
      m->source[len] = '\0';
      m->source_len = len;
    }
    if (s == KC_OK) s = keep_signatures(m, st);
  }
  if (s != KC_OK) {
    module_discard(m);
    return s;
  }
  *out = m;
  return KC_OK;
}

void kc_compile_options_init(kc_compile_options *opts) {
  if (opts) memset(opts, 0, sizeof *opts);
}

static kc_status read_options(kc_context *ctx, const kc_compile_options *opts, settings *st) {
  memset(st, 0, sizeof *st);
  st->opt = ctx->cfg.opt_level, st->lineinfo = ctx->cfg.lineinfo;
  st->bounds = ctx->cfg.bounds_check != 0, st->fast = ctx->cfg.fastmath != 0, st->debug = 0;
  st->sigs = NULL;
  st->nsigs = 0;
  if (!opts) return KC_OK;
  /* zero is "the context's" in every field (kc.h) */
  if (opts->opt_level < KC_OPT_O0 || opts->opt_level > 3)
    return rt_error(ctx, KC_ERR_INVALID, "compile: opt_level %d is not KC_OPT_DEFAULT (0), "
                    "KC_OPT_O0 or 1..3", opts->opt_level);
  if (opts->opt_level != KC_OPT_DEFAULT)
    st->opt = opts->opt_level == KC_OPT_O0 ? 0 : opts->opt_level;
  if (opts->bounds_check) st->bounds = opts->bounds_check > 0;
  if (opts->fastmath) st->fast = opts->fastmath > 0;
  if (opts->lineinfo) st->lineinfo = opts->lineinfo > 0;
  st->debug = opts->debug > 0;
  st->sigs = opts->signatures;
  st->nsigs = opts->nsignatures;
  if (st->nsigs < 0 || (st->nsigs > 0 && !st->sigs))
    return rt_error(ctx, KC_ERR_INVALID, "compile: bad signature list");
  return KC_OK;
}

kc_status kc_compile_source(kc_context *ctx, const char *name, const char *source,
                            size_t len, const kc_compile_options *opts, kc_module **out) {
  RT_NEED(NULL, ctx, "kc_compile_source");
  RT_NEED(ctx, out, "kc_compile_source");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  RT_NEED(ctx, source, "kc_compile_source");
  if (!name) name = "<source>";
  settings st;
  kc_status s = read_options(ctx, opts, &st);
  if (s != KC_OK) return s;
  rt_warned warned = {0};
  rt_diag_route route = {ctx, RT_DIAG_ALL, 1, &warned};
  s = compile(ctx, name, source, len, &st, &route, out);
  if (s == KC_OK) (*out)->warned = warned;   /* for its specialisations */
  else rt_warned_free(ctx, &warned);
  return s;
}

/* The compiler's target and output for a kc_text_kind on ctx; -1 for an unknown kind. */
static int text_target(kc_context *ctx, kc_text_kind kind, kcc_options *o) {
  bool gpu = kind == KC_TEXT_PTX || kind == KC_TEXT_DEVICE_PTX ||
             (kind == KC_TEXT_LLVM && ctx->device == KC_DEVICE_CUDA);
  o->target = gpu ? KCC_TARGET_NVPTX : KCC_TARGET_HOST;
  o->export_device = kind != KC_TEXT_PTX;
  switch (kind) {
  case KC_TEXT_PTX: case KC_TEXT_DEVICE_PTX: o->emit = KCC_EMIT_PTX; return 0;
  case KC_TEXT_LLVM: o->emit = KCC_EMIT_LLVM; return 0;
  case KC_TEXT_TYPES: o->emit = KCC_EMIT_TYPES; return 0;
  default: return -1;
  }
}

static kc_status compile_text(kc_context *ctx, const char *fn, const char *name,
                              const char *source, size_t len, const kc_compile_options *opts,
                              kc_text_kind kind, int arch, char **text, size_t *text_len) {
  RT_NEED(NULL, ctx, fn);
  RT_NEED(ctx, text, fn);
  *text = NULL;
  RT_NEED(ctx, source, fn);
  if (!name) name = "<source>";
  const rt_compiler *cc = rt_compiler_get();
  if (!cc) return rt_no_compiler(ctx, fn);
  if (arch && (arch < 10 || arch >= 1000))
    return rt_error(ctx, KC_ERR_INVALID, "%s: arch %d is not a compute capability such as "
                    "80 (sm_80)", fn, arch);
  settings st;
  kc_status s = read_options(ctx, opts, &st);
  if (s != KC_OK) return s;
  kcc_options o;
  rt_diag_route route = {ctx, RT_DIAG_ALL, 1, NULL};
  base_options(cc, ctx, &st, &route, &o);
  if (text_target(ctx, kind, &o) < 0)
    return rt_error(ctx, KC_ERR_INVALID, "%s: %d is not a kc_text_kind", fn, (int)kind);
  o.arch = arch;
  if (o.target == KCC_TARGET_NVPTX && !arch && (s = device_arch(ctx, &o.arch)) != KC_OK)
    return s;
  kcc_output res;
  memset(&res, 0, sizeof res);
  s = cc->compile(&o, name, source, len, &res);
  if (s != KC_OK || res.nerrors > 0) {
    if (res.status == KC_OK) res.status = s != KC_OK ? s : KC_ERR_TYPE;
    return fail_compile(ctx, &res, name);
  }
  *text = rt_strdup(ctx, res.text ? res.text : "");
  if (text_len) *text_len = *text ? strlen(*text) : 0;
  cc->output_free(&res);
  return *text ? KC_OK : rt_error(ctx, KC_ERR_NOMEM, "out of memory");
}

kc_status kc_compile_ptx(kc_context *ctx, const char *name, const char *source, size_t len,
                         const kc_compile_options *opts, int arch, char **ptx,
                         size_t *ptx_len) {
  return compile_text(ctx, "kc_compile_ptx", name, source, len, opts, KC_TEXT_PTX, arch, ptx,
                      ptx_len);
}

kc_status kc_compile_text(kc_context *ctx, const char *name, const char *source, size_t len,
                          const kc_compile_options *opts, kc_text_kind kind, int arch,
                          char **text, size_t *text_len) {
  return compile_text(ctx, "kc_compile_text", name, source, len, opts, kind, arch, text,
                      text_len);
}

void kc_text_free(kc_context *ctx, char *text) {
  if (ctx && text) rt_free_str(ctx, text);
}

kc_status kc_compile_file(kc_context *ctx, const char *path, const kc_compile_options *opts,
                          kc_module **out) {
  RT_NEED(NULL, ctx, "kc_compile_file");
  RT_NEED(ctx, out, "kc_compile_file");
  *out = NULL;
  RT_NEED(ctx, path, "kc_compile_file");
  char *buf = NULL;
  size_t len = 0, cap = 0;
  kc_status s = rt_read_file(ctx, path, KCC_MAX_SOURCE, &buf, &len, &cap);
  if (s == KC_OK) s = kc_compile_source(ctx, path, buf, len, opts, out);
  rt_free(ctx, buf, cap);
  return s;
}

/* ---- Loading PTX, cubins and fatbins ----------------------------------------------------- */
/* Parse one table line "SYMBOL SIGNATURE[ written=I,J][ cooperative]" (image.c has the
 * format) into
 * kernel k; ll bytes at line, no newline. */
static kc_status table_kernel(kc_module *m, kc_kernel *k, const char *line, size_t ll) {
  char text[1024], err[256];
  size_t tl = ll < sizeof text - 1 ? ll : sizeof text - 1;
  memcpy(text, line, tl);
  text[tl] = '\0';
  text[strcspn(text, "\r")] = '\0';
  char *p = text;
  while (*p == ' ' || *p == '\t') p++;
  char *sym = p;
  while (*p && *p != ' ' && *p != '\t') p++;
  if (*p) *p++ = '\0';
  while (*p == ' ' || *p == '\t') p++;
  /* the written list and the cooperative mark follow the signature's closing
     parenthesis */
  uint64_t written = 0;
  int cooperative = 0;
  char *close = strrchr(p, ')');
  if (close && close[1]) {
    char *w = close + 1;
    close[1] = '\0';
    while (*++w == ' ' || *w == '\t') {}
    char *coop = strstr(w, "cooperative");
    if (coop && (coop == w || coop[-1] == ' ') && !coop[11]) {
      cooperative = 1;
      *coop = '\0';
      for (char *t = coop; t > w && (t[-1] == ' ' || t[-1] == '\t');) *--t = '\0';
    }
    if (*w && strncmp(w, "written=", 8) != 0)
      return rt_error(m->ctx, KC_ERR_INVALID, "kernel table: unexpected '%s' after the "
                      "signature of '%s'", w, sym);
    for (w += *w ? 8 : 0; *w;) {
      char *e;
      long i = strtol(w, &e, 10);
      if (e == w || i < 0 || i >= SIG_MAX_PARAMS || (*e && *e != ','))
        return rt_error(m->ctx, KC_ERR_INVALID, "kernel table: bad written list for '%s'",
                        sym);
      written |= (uint64_t)1 << i;
      w = *e ? e + 1 : e;
    }
  }
  sig_parsed sig;
  if (!*sym || sig_parse(p, &sig, err, sizeof err) != 0 || !sig.name[0])
    return rt_error(m->ctx, KC_ERR_INVALID, "kernel table: bad line '%.*s': %s", (int)tl,
                    line, *sym ? err : "no symbol");
  kcc_param params[SIG_MAX_PARAMS];
  for (int i = 0; i < sig.nparams; i++) {
    params[i].name = "";
    params[i].dtype = sig.params[i].dtype;
    params[i].ndim = sig.params[i].ndim;
    params[i].nelems = sig.params[i].nelems;
    params[i].elems = sig.params[i].elems;
    if (params[i].nelems) params[i].dtype = sig.params[i].elems[0];
    params[i].strided = sig.params[i].strided;
    params[i].written = (int)((written >> i) & 1);
  }
  kc_status s = kernel_init(m, k, sig.name, sym, p, sig.nparams, params);
  k->cooperative = cooperative;
  return s;
}

/* Count (m == NULL) or parse the kernel table's lines: those after `tag` when tag is
 * not NULL (PTX comments), else every non-blank line. */
static kc_status table_kernels(kc_module *m, const char *text, size_t len, const char *tag,
                               int *count) {
  const size_t taglen = tag ? strlen(tag) : 0;
  int n = 0;
  for (size_t at = 0; at < len;) {
    const char *line = text + at;
    const char *nl = memchr(line, '\n', len - at);
    size_t ll = nl ? (size_t)(nl - line) : len - at;
    at += ll + 1;
    if (tag ? ll < taglen || memcmp(line, tag, taglen) != 0
            : strspn(line, " \t\r") >= ll)
      continue;
    if (m) {
      if (n >= m->nkernels) break;
      kc_status s = table_kernel(m, &m->kernels[n], line + taglen, ll - taglen);
      if (s != KC_OK) return s;
    }
    n++;
  }
  *count = n;
  return KC_OK;
}

/* A module whose kernels come from a table (see table_kernels). */
static kc_status module_from_table(kc_context *ctx, const char *text, size_t len,
                                   const char *tag, kc_module **out) {
  int n = 0;
  kc_status s = table_kernels(NULL, text, len, tag, &n);
  if (s == KC_OK) s = module_alloc(ctx, n, out);
  if (s == KC_OK && (s = table_kernels(*out, text, len, tag, &n)) != KC_OK) {
    module_discard(*out);
    *out = NULL;
  }
  return s;
}

/* The driver loads the image; its kernels are then bound to their CUfunctions. A PTX
 * image is copied to add the NUL the driver wants, a binary one when misaligned. */
static kc_status load_on_device(kc_module *m, rt_image_kind kind, const void *data,
                                size_t len) {
  kc_context *ctx = m->ctx;
  int copy = kind == RT_IMAGE_PTX || ((uintptr_t)data & 7) != 0;
  char *buf = NULL;
  if (copy) {
    if (!(buf = rt_alloc(ctx, len + 1))) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
    memcpy(buf, data, len);
    buf[len] = '\0';
  }
  /* a PTX may name files to link with (cuda.jit(link=[...]): link.c) */
  kc_status s = kind == RT_IMAGE_PTX ? rt_link_module_load(ctx, buf, &m->cu_module)
                                     : rt_cuda_module_load(ctx, copy ? buf : data, &m->cu_module);
  if (copy) rt_free(ctx, buf, len + 1);
  return s == KC_OK ? bind_cuda_functions(m) : s;
}

/* A fatbin's table is read back through the driver once the module is loaded. */
static kc_status load_fatbin(kc_context *ctx, const void *data, size_t len,
                             kc_module **out) {
  kc_module probe = {0};
  probe.ctx = ctx;
  kc_status s = load_on_device(&probe, RT_IMAGE_FATBIN, data, len);
  char *table = NULL;
  size_t tlen = 0;
  if (s == KC_OK) s = rt_cuda_module_global(ctx, probe.cu_module, RT_TABLE_SYMBOL, &table, &tlen);
  if (s == KC_ERR_NOT_FOUND)
    rt_error(ctx, s, "fatbin: no kernel table (%s): not made from kcc's PTX; pass the "
             "table to kc_module_load_image", RT_TABLE_SYMBOL);
  if (s == KC_OK) s = module_from_table(ctx, table, strnlen(table, tlen), NULL, out);
  if (table) rt_free(ctx, table, tlen + 1);
  if (s == KC_OK) {
    (*out)->cu_module = probe.cu_module;
    probe.cu_module = NULL;
    s = bind_cuda_functions(*out);
  }
  if (probe.cu_module) rt_cuda_module_unload(ctx, probe.cu_module);
  return s;
}

static kc_status need_cuda(kc_context *ctx, rt_image_kind kind) {
  if (ctx->device == KC_DEVICE_CUDA) return KC_OK;
  return rt_error(ctx, KC_ERR_UNSUPPORTED,
                  "%s needs a CUDA device (this context runs on the CPU); compile from "
                  "source for the CPU (kc_compile_file)", rt_image_kind_name(kind));
}

kc_status kc_module_load_image(kc_context *ctx, const void *data, size_t len,
                               const char *kernel_table, kc_module **out) {
  RT_NEED(NULL, ctx, "kc_module_load_image");
  RT_NEED(ctx, out, "kc_module_load_image");
  RT_NEED(ctx, data, "kc_module_load_image");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (!data) return rt_error(ctx, KC_ERR_INVALID, "module image is NULL");
  rt_image_kind kind = rt_image_kind_of(data, len);
  if (kind == RT_IMAGE_UNKNOWN)
    return rt_error(ctx, KC_ERR_INVALID, "the module image is neither PTX (no .version), "
                    "a cubin (ELF) nor a fatbin; kernel source goes to kc_compile_source");
  const char *table = kernel_table, *tag = NULL;
  size_t tlen = kernel_table ? strlen(kernel_table) : 0;
  if (!table && kind == RT_IMAGE_PTX) {
    table = data;
    tlen = len;
    tag = "// kcc-kernel:";
  } else if (!table && kind == RT_IMAGE_CUBIN) {
    char msg[256];
    if (rt_cubin_table(data, len, &table, &tlen, msg, sizeof msg) != 0)
      return rt_error(ctx, KC_ERR_INVALID, "cubin: %s", msg);
  } else if (!table) {   /* a fatbin: the table is read through the driver */
    kc_status s = need_cuda(ctx, kind);
    return s == KC_OK ? load_fatbin(ctx, data, len, out) : s;
  }
  kc_module *m;
  kc_status s = module_from_table(ctx, table, tlen, tag, &m);
  if (s != KC_OK) return s;
  s = need_cuda(ctx, kind);
  if (s == KC_OK) s = load_on_device(m, kind, data, len);
  if (s != KC_OK) {
    module_discard(m);
    return s;
  }
  link_overloads(m);
  *out = m;
  return KC_OK;
}

kc_status kc_module_load_ptx(kc_context *ctx, const char *ptx, size_t len, kc_module **out) {
  RT_NEED(NULL, ctx, "kc_module_load_ptx");
  RT_NEED(ctx, out, "kc_module_load_ptx");
  RT_NEED(ctx, ptx, "kc_module_load_ptx");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (!ptx) return rt_error(ctx, KC_ERR_INVALID, "PTX is NULL");
  kc_status s = need_cuda(ctx, RT_IMAGE_PTX);
  if (s != KC_OK) return s;
  if (rt_image_kind_of(ptx, len) != RT_IMAGE_PTX)
    return rt_error(ctx, KC_ERR_INVALID, "this is not PTX text (no .version directive)");
  return kc_module_load_image(ctx, ptx, len, NULL, out);
}

kc_status kc_module_load_file(kc_context *ctx, const char *path, kc_module **out) {
  RT_NEED(NULL, ctx, "kc_module_load_file");
  RT_NEED(ctx, out, "kc_module_load_file");
  RT_NEED(ctx, path, "kc_module_load_file");
  *out = NULL;
  if (!path) return rt_error(ctx, KC_ERR_INVALID, "module path is NULL");
  char *buf = NULL;
  size_t len = 0, cap = 0;
  kc_status s = rt_read_file(ctx, path, RT_MAX_IMAGE_FILE, &buf, &len, &cap);
  if (s == KC_OK && rt_image_kind_of(buf, len) == RT_IMAGE_UNKNOWN)
    s = rt_error(ctx, KC_ERR_INVALID, "%s is neither PTX, a cubin nor a fatbin (kernel "
                 "source goes to kc_compile_file)", path);
  if (s == KC_OK) {
    s = kc_module_load_image(ctx, buf, len, NULL, out);
    if (s != KC_OK) {
      char msg[RT_ERR_LEN];
      snprintf(msg, sizeof msg, "%s", ctx->err);
      rt_error(ctx, s, "%s: %s", path, msg);
    }
  }
  rt_free(ctx, buf, cap);
  return s;
}

/* ---- Kernels by name ---------------------------------------------------------------------- */
kc_status kc_module_get_kernel(kc_module *m, const char *name, kc_kernel **out) {
  RT_NEED(NULL, m, "kc_module_get_kernel");
  if (rt_handle_live(m->ctx, m->magic, "kc_module_get_kernel", "module") != KC_OK)
    return KC_ERR_INVALID;
  RT_NEED(m->ctx, out, "kc_module_get_kernel");
  RT_NEED(m->ctx, name, "kc_module_get_kernel");
  *out = NULL;
  if (!name) return rt_error(m->ctx, KC_ERR_INVALID, "kernel name is NULL");
  for (int i = 0; i < m->nkernels; i++)
    if (strcmp(m->kernels[i].name, name) == 0) {
      *out = &m->kernels[i];
      return KC_OK;
    }
  return rt_error(m->ctx, KC_ERR_NOT_FOUND, "no kernel named '%s' in the module", name);
}

int kc_kernel_param_count(const kc_kernel *k) { return k ? k->nparams : 0; }

int kc_kernel_cooperative(const kc_kernel *k) {
  if (!k) return 0;
  if (k->nparams >= 0) return k->cooperative != 0;
  for (const rt_spec *sp = k->mod->specs; sp; sp = sp->next)
    if (sp->origin == k && sp->signature && sp->typed && sp->typed->cooperative) return 1;
  return 0;
}
const char *kc_kernel_signature(const kc_kernel *k) {
  if (!k) return "";
  return k->listing ? k->listing : k->signature;
}

/* Add sig to an untyped kernel's listing (Numba's kernel.signatures), in the order the
 * specialisations were compiled. Out of memory leaves the listing as it was. */
static void list_spec(kc_kernel *k, const char *sig) {
  kc_context *ctx = k->mod->ctx;
  size_t old = k->listing ? strlen(k->listing) : 0, n = strlen(sig);
  char *l = rt_alloc(ctx, old + (old ? 1 : 0) + n + 1);   /* rt_free_str's size */
  if (!l) return;
  if (old) memcpy(l, k->listing, old);
  if (old) l[old++] = '\n';
  memcpy(l + old, sig, n + 1);
  rt_free_str(ctx, k->listing);
  k->listing = l;
}

/* ---- Specialising untyped kernels ---------------------------------------------------------- */
/* A tuple argument's type as a signature spells it; -1 if it is not a tuple of 1 to
 * SIG_MAX_TUPLE valid scalars. */
static int tuple_arg_type(const kc_arg *a, char *buf, size_t len) {
  sig_type st;
  memset(&st, 0, sizeof st);
  if (a->v.tuple.n < 1 || a->v.tuple.n > SIG_MAX_TUPLE || !a->v.tuple.elems) return -1;
  st.nelems = a->v.tuple.n;
  for (int e = 0; e < st.nelems; e++) {
    const kc_arg *x = &a->v.tuple.elems[e];
    if (x->is_array || (unsigned)x->dtype >= KC_DTYPE_COUNT) return -1;
    st.elems[e] = x->dtype;
  }
  sig_format_type(st, buf, len);
  return 0;
}

static int arg_signature(const kc_kernel *k, const kc_arg *args, int nargs, char *buf,
                         size_t len) {
  size_t at = (size_t)snprintf(buf, len, "%s(", k->name);
  for (int i = 0; i < nargs && at < len; i++) {
    char t[1024];
    if (args[i].is_array == KC_ARG_TUPLE) {
      if (tuple_arg_type(&args[i], t, sizeof t) != 0) return -1 - i;
    } else if (args[i].is_array) {
      const kc_array *a = args[i].v.array;
      if (!a) return -1 - i;
      /* a non-contiguous view makes the parameter 'A', as Numba's typeof does */
      if (a->record) rt_format_array_type(a, t, sizeof t);
      else {
        sig_type st = {.dtype = a->dtype, .ndim = a->ndim, .strided = !a->contiguous};
        sig_format_type(st, t, sizeof t);
      }
    } else if (args[i].dtype == KC_RECORD) {
      if (!args[i].v.r.data || !args[i].v.r.record) return -1 - i;
      snprintf(t, sizeof t, "%s", kc_record_spelling(args[i].v.r.record));
    } else {
      if ((unsigned)args[i].dtype >= KC_DTYPE_COUNT) return -1 - i;
      rt_format_type(args[i].dtype, 0, t, sizeof t);
    }
    at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", t);
  }
  if (at < len) at += (size_t)snprintf(buf + at, len - at, ")");
  return at < len ? 0 : -1000;
}

/* The arguments' types as bytes (an array: 16 + (2 * (rank - 1) + non-contiguous) *
 * KC_DTYPE_COUNT + dtype, at most 239; a scalar: its dtype; a tuple: KEY_TUPLE, its
 * length, its elements' dtypes), so that a launch of an untyped kernel finds its
 * specialisation without formatting text. The key's length, or -1 when an argument is
 * invalid or there are too many. */
#define KEY_TUPLE 255   /* above every array's and scalar's key byte */

static int arg_key(const kc_arg *args, int nargs, unsigned char *key) {
  if (nargs < 0 || nargs > SIG_MAX_PARAMS || (nargs > 0 && !args)) return -1;
  int n = 0;
  for (int i = 0; i < nargs; i++) {
    const kc_arg *a = &args[i];
    if (a->is_array == KC_ARG_TUPLE) {
      if (a->v.tuple.n < 1 || a->v.tuple.n > SIG_MAX_TUPLE || !a->v.tuple.elems) return -1;
      key[n++] = KEY_TUPLE;
      key[n++] = (unsigned char)a->v.tuple.n;
      for (int e = 0; e < a->v.tuple.n; e++) {
        const kc_arg *x = &a->v.tuple.elems[e];
        if (x->is_array || (unsigned)x->dtype >= KC_DTYPE_COUNT) return -1;
        key[n++] = (unsigned char)x->dtype;
      }
      continue;
    }
    if (a->is_array && !a->v.array) return -1;
    kc_dtype t = a->is_array ? a->v.array->dtype : a->dtype;
    if ((unsigned)t >= KC_DTYPE_COUNT) return -1;   /* records: found by signature */
    _Static_assert(16 + 2 * KC_MAX_DIMS * KC_DTYPE_COUNT <= KEY_TUPLE, "an argument's key is a byte");
    key[n++] = (unsigned char)(a->is_array ? 16 + (2 * (a->v.array->ndim - 1) + !a->v.array->contiguous) *
                                                 KC_DTYPE_COUNT + t
                                           : t);
  }
  return n;
}

/* The module's settings, for compiling one of its kernels again (a specialisation, a
 * variant). */
static settings module_settings(const kc_module *m) {
  settings st;
  memset(&st, 0, sizeof st);
  st.opt = m->opt_level, st.lineinfo = m->lineinfo, st.bounds = m->bounds_check;
  st.fast = m->fastmath, st.debug = m->debug;
  st.sigs = (const char *const *)m->sigs, st.nsigs = m->nsigs;
  return st;
}

/* Compile k for sig (the arguments' types) and keep it in m's list. */
static kc_status new_spec(kc_kernel *k, const char *sig, rt_spec **out) {
  kc_module *m = k->mod;
  kc_context *ctx = m->ctx;
  if (!m->source)
    return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s' is untyped but its source is gone",
                    k->name);
  const char *sigs[1] = {sig};
  settings st = module_settings(m);
  st.sigs = sigs, st.nsigs = 1;
  kc_module *child;
  rt_diag_route route = {ctx, RT_DIAG_NEW, 0, &m->warned};
  kc_status s = compile(ctx, m->src_name, m->source, m->source_len, &st, &route, &child);
  if (s != KC_OK) return s;
  kc_kernel *typed = NULL;
  for (int i = 0; i < child->nkernels && !typed; i++)
    if (child->kernels[i].nparams >= 0 && strcmp(child->kernels[i].name, k->name) == 0)
      typed = &child->kernels[i];
  if (!typed) {
    module_discard(child);
    return rt_error(ctx, KC_ERR_INTERNAL, "kernel '%s': compiling %s gave no typed kernel",
                    k->name, sig);
  }
  rt_spec *sp = rt_calloc(ctx, 1, sizeof *sp);
  if (!sp || !(sp->signature = rt_strdup(ctx, sig))) {
    rt_free(ctx, sp, sizeof *sp);
    module_discard(child);
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  }
  sp->module = child;
  sp->typed = typed;
  child->parent = m;
  sp->next = m->specs;
  m->specs = sp;
  *out = sp;
  return KC_OK;
}

kc_status rt_module_specialise(kc_kernel *k, const kc_arg *args, int nargs,
                               kc_kernel **out) {
  kc_module *m = k->mod;
  kc_context *ctx = m->ctx;
  unsigned char key[RT_ARG_KEY_MAX];
  int keylen = arg_key(args, nargs, key), keyed = keylen >= 0;
  /* the launch path: a byte comparison per earlier specialisation of this module */
  for (rt_spec *sp = m->specs; keyed && sp; sp = sp->next)
    if (sp->origin == k && sp->nargs == nargs && sp->keylen == keylen &&
        memcmp(sp->key, key, (size_t)keylen) == 0) {
      *out = sp->typed;
      return KC_OK;
    }
  char sig[8192];
  int r = arg_signature(k, args, nargs, sig, sizeof sig);
  if (r == -1000 || (r == 0 && !keyed && nargs > SIG_MAX_PARAMS))
    return rt_error(ctx, KC_ERR_INVALID, "kernel '%s': too many arguments", k->name);
  if (r < 0)
    return rt_error(ctx, KC_ERR_INVALID, "kernel '%s': argument %d is invalid", k->name, -r);
  /* arrays of records have no key byte: their specialisations are found by signature */
  for (rt_spec *sp = m->specs; !keyed && sp; sp = sp->next)
    if (sp->origin == k && sp->signature && strcmp(sp->signature, sig) == 0) {
      *out = sp->typed;
      return KC_OK;
    }
  rt_spec *sp = NULL;
  kc_status s = new_spec(k, sig, &sp);
  if (s != KC_OK) return s;
  sp->origin = k;
  sp->nargs = keyed ? nargs : -1;   /* unkeyed: never matched by key */
  sp->keylen = keyed ? keylen : 0;
  if (keyed) memcpy(sp->key, key, (size_t)keylen);
  list_spec(k, sig);
  *out = sp->typed;
  return KC_OK;
}

/* ---- Variants: a kernel compiled again for one use ------------------------------------ */
/* Kernels a module compiles from its source for a particular use, kept in its list
 * (m->specs, nargs -2, found by origin and key): a ufunc's kernels for scalar
 * operands, a kernel run as regions for one block shape. A variant pays off only for
 * work that runs long enough to repay its compilation (tens of ms), so the entry first
 * counts the work done without it (elements, threads) and compiles it once that
 * reaches RT_VARIANT_WORK: a one-off small call never waits for a compiler. One that
 * cannot be had (no source, no compiler, or it failed) stays in the list with typed
 * NULL, so it is not tried again; the caller then goes on without it. */
typedef bool (*variant_match)(const kc_kernel *origin, const kc_kernel *t, const void *ud);

static rt_spec *find_variant(kc_kernel *origin, const unsigned char *key, int keylen) {
  for (rt_spec *sp = origin->mod->specs; sp; sp = sp->next)
    if (sp->origin == origin && sp->nargs == -2 && sp->keylen == keylen &&
        memcmp(sp->key, key, (size_t)keylen) == 0)
      return sp;
  return NULL;
}

/* A new entry, not compiled yet; NULL when out of memory (reported). */
static rt_spec *new_variant_entry(kc_kernel *origin, const unsigned char *key, int keylen) {
  kc_module *m = origin->mod;
  rt_spec *sp = rt_calloc(m->ctx, 1, sizeof *sp);
  if (!sp) {
    rt_error(m->ctx, KC_ERR_NOMEM, "out of memory");
    return NULL;
  }
  sp->origin = origin;
  sp->nargs = -2;   /* never matched by an untyped kernel's key; no signature */
  sp->keylen = keylen;
  memcpy(sp->key, key, (size_t)keylen);
  sp->next = m->specs;
  m->specs = sp;
  return sp;
}

/* Compile sp's variant: the module's settings with vo; sp->typed is the kernel match()
 * picks in the result. */
static void compile_variant(rt_spec *sp, const variant_opts *vo, variant_match match,
                            const void *ud) {
  kc_kernel *origin = sp->origin;
  kc_module *m = origin->mod;
  kc_context *ctx = m->ctx;
  sp->compiled = true;
  /* an untyped kernel's specialisation is compiled from its module's source, for its
     signature */
  kc_module *src = m->source ? m : m->parent;
  if (!src || !src->source || !origin->signature || !rt_compiler_get()) return;
  settings st = module_settings(src);
  st.variant = *vo;
  const char *sig[1] = {origin->signature};
  if (src != m) st.sigs = sig, st.nsigs = 1;
  kc_module *child = NULL;
  /* a failure here is not the caller's: it goes on without the variant */
  char saved[sizeof ctx->err];
  memcpy(saved, ctx->err, sizeof saved);
  rt_diag_route route = {ctx, RT_DIAG_ERRORS, 0, NULL};
  if (compile(ctx, src->src_name, src->source, src->source_len, &st, &route, &child) == KC_OK) {
    sp->module = child;
    for (int i = 0; i < child->nkernels && !sp->typed; i++)
      if (match(origin, &child->kernels[i], ud)) sp->typed = &child->kernels[i];
  }
  memcpy(ctx->err, saved, sizeof saved);
}

/* The variant of origin under key, once work summed over the calls asking for it
 * reaches RT_VARIANT_WORK (compiled then, with vo), else NULL. Once decided, a launch
 * pays a walk of the module's list and nothing more. */
static kc_status variant_for(kc_kernel *origin, const unsigned char *key, int keylen,
                             uint64_t work, const variant_opts *vo, variant_match match,
                             const void *ud, kc_kernel **out) {
  rt_spec *sp = find_variant(origin, key, keylen);
  *out = NULL;
  if (!sp && !(sp = new_variant_entry(origin, key, keylen))) return KC_ERR_NOMEM;
  if (!sp->compiled) {
    sp->work = work > UINT64_MAX - sp->work ? UINT64_MAX : sp->work + work;
    if (sp->work < RT_VARIANT_WORK) return KC_OK;
    compile_variant(sp, vo, match, ud);
  }
  *out = sp->typed;
  return KC_OK;
}

/* Kernel t of the child module is v's with the inputs of *scalars as scalars: the
 * same dtypes, in the same order. */
static bool ufunc_scalars_match(const kc_kernel *v, const kc_kernel *t, const void *ud) {
  unsigned scalars = *(const unsigned *)ud;
  if (t->nparams != v->nparams) return false;
  for (int i = 0; i < v->nparams; i++) {
    if (t->params[i].dtype != v->params[i].dtype ||
        t->params[i].ndim != (kcc_scalar_input(scalars, i) ? 0 : v->params[i].ndim))
      return false;
  }
  return true;
}

kc_status rt_module_ufunc_scalars(kc_kernel *v, unsigned scalars, uint64_t work,
                                  kc_kernel **out) {
  unsigned char key[1 + sizeof scalars];
  key[0] = 0xff;
  memcpy(key + 1, &scalars, sizeof scalars);
  variant_opts vo = {.scalar_ufunc = v->name, .scalar_inputs = scalars};
  return variant_for(v, key, (int)sizeof key, work, &vo, ufunc_scalars_match, &scalars, out);
}

/* The same kernel: its symbol names it and its signature. */
static bool same_symbol(const kc_kernel *k, const kc_kernel *t, const void *ud) {
  (void)ud;
  return t->nparams == k->nparams && strcmp(t->symbol, k->symbol) == 0;
}

/* The same kernel with each array parameter in any layout. */
static bool any_layout_match(const kc_kernel *k, const kc_kernel *t, const void *ud) {
  (void)ud;
  if (t->nparams != k->nparams || strcmp(t->name, k->name) != 0) return false;
  for (int i = 0; i < k->nparams; i++)
    if (t->params[i].dtype != k->params[i].dtype || t->params[i].ndim != k->params[i].ndim ||
        (t->params[i].ndim > 0 && !t->params[i].strided))
      return false;
  return true;
}

kc_status rt_module_layout_variant(kc_kernel *k, kc_kernel **out) {
  variant_opts vo = {.only_kernel = k->name, .any_layout = 1};
  const unsigned char key[1] = {0xfd};
  /* not a matter of speed: compiled at once (work past RT_VARIANT_WORK) */
  return variant_for(k, key, (int)sizeof key, UINT64_MAX, &vo, any_layout_match, NULL, out);
}

kc_status rt_module_block_variant(kc_kernel *k, kc_dim3 block, uint64_t work, kc_kernel **out) {
  variant_opts vo = {.only_kernel = k->name, .block_dim = {block.x, block.y, block.z}};
  unsigned char key[1 + sizeof vo.block_dim];
  key[0] = 0xfe;
  memcpy(key + 1, vo.block_dim, sizeof vo.block_dim);
  return variant_for(k, key, (int)sizeof key, work, &vo, same_symbol, NULL, out);
}
