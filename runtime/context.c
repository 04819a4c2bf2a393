/*
 * context.c — a context's life: its configuration resolved (defaults, KC_* variables),
 * its device chosen (KC_DEVICE=cpu|cuda|cuda:N|auto) and, at kc_context_free, every
 * part it owns torn down (the CPU pool, freed handles kept to catch their reuse,
 * registered host memory, the CUDA context). A context picks its device once, at
 * kc_context_new; AUTO means CUDA when the driver loads and the configured GPU is
 * usable, else the CPU back end.
 *
 * The top of the runtime's layers: it calls the parts it owns, and none of them calls
 * it (the names, errors and allocation they all use are rt_base.c's).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt.h"
#include "rt_compiler.h"

/* ---- Configuration and contexts -------------------------------------------------------- */
void kc_config_init(kc_config *cfg) {
  if (cfg) memset(cfg, 0, sizeof *cfg);
}

/* An on/off field: 1 on, -1 off, 0 the default, which the environment variable env
 * may set ("0" off, anything else on). */
static int config_switch(int value, const char *env, int dflt) {
  if (value) return value > 0;
  const char *e = getenv(env);
  if (e && *e) return strcmp(e, "0") != 0;
  return dflt;
}

/* digits as an int: 1 when they are decimal digits only (at least one) from 0 to
 * INT_MAX, so "x", "-1", " 5" and "99999999999" are refused, not read as 0, -1 or a
 * wrapped int. */
static int decimal_int(const char *digits, int *out) {
  long long v = 0;
  const char *p = digits;
  for (; *p >= '0' && *p <= '9'; p++) {
    v = v * 10 + (*p - '0');
    if (v > INT_MAX) return 0;
  }
  if (p == digits || *p != '\0') return 0;
  *out = (int)v;
  return 1;
}

/* cfg.timeout_ms: -1 means none (0 after this), 0 defers to KC_TIMEOUT_MS (decimal
 * milliseconds, 0 = none), a positive value is kept. */
static kc_status resolve_timeout(kc_context *ctx) {
  kc_config *c = &ctx->cfg;
  if (c->timeout_ms < -1)
    return rt_error(ctx, KC_ERR_INVALID, "config: timeout_ms %d is not 0 (the default), "
                    "-1 (none) or a number of milliseconds", c->timeout_ms);
  if (c->timeout_ms == -1) {
    c->timeout_ms = 0;
    return KC_OK;
  }
  const char *e = getenv("KC_TIMEOUT_MS");
  if (c->timeout_ms > 0 || !e || !*e) return KC_OK;
  if (!decimal_int(e, &c->timeout_ms))
    return rt_error(ctx, KC_ERR_INVALID, "KC_TIMEOUT_MS=%s: not a number of milliseconds "
                    "(decimal digits, 0 for none, at most %d)", e, INT_MAX);
  return KC_OK;
}

/* ctx->cfg as the caller gave it (zero meaning "the default") turned into the values
 * the rest of the runtime reads: opt_level 0..3, the switches 0 or 1. */
static kc_status resolve_config(kc_context *ctx) {
  kc_config *c = &ctx->cfg;
  if (c->opt_level < KC_OPT_O0 || c->opt_level > 3)
    return rt_error(ctx, KC_ERR_INVALID, "config: opt_level %d is not KC_OPT_DEFAULT (0), "
                    "KC_OPT_O0 or 1..3", c->opt_level);
  c->opt_level = c->opt_level == KC_OPT_DEFAULT ? 3 : c->opt_level == KC_OPT_O0 ? 0 : c->opt_level;
  /* a worker thread each, with its stacks: 100 000 of them exhaust the process */
  if (c->cpu_threads < 0 || c->cpu_threads > RT_CPU_MAX_THREADS)
    return rt_error(ctx, KC_ERR_INVALID, "config: cpu_threads %d is not 0 (all cores) or "
                    "1..%d worker threads", c->cpu_threads, RT_CPU_MAX_THREADS);
  c->cache = config_switch(c->cache, "KC_CACHE", 1);
  c->verbose = config_switch(c->verbose, "KC_VERBOSE", 0);
  c->bounds_check = config_switch(c->bounds_check, "KC_BOUNDS_CHECK", 0);
  c->lineinfo = c->lineinfo > 0;
  c->fastmath = c->fastmath > 0;
  c->wrap_int_args = c->wrap_int_args > 0;
  /* KC_CPU_SHAPE=0: no block-shape variants (for measuring what they gain); 1: one at
     the first launch, however small (tests) */
  const char *shape = getenv("KC_CPU_SHAPE");
  ctx->cpu_shape = !shape || !*shape ? RT_SHAPE_BY_WORK
                 : strcmp(shape, "0") == 0 ? RT_SHAPE_NEVER : RT_SHAPE_ALWAYS;
  return resolve_timeout(ctx);
}

static void cpu_limits(rt_limits *l) {
  l->max_threads = 1024;
  l->max_block[0] = 1024; l->max_block[1] = 1024; l->max_block[2] = 64;
  l->max_grid[0] = 2147483647u; l->max_grid[1] = 65535; l->max_grid[2] = 65535;
  l->max_shared = RT_CPU_MAX_SHARED;
  l->max_shared_optin = RT_CPU_MAX_SHARED;
}

/* kc_context_new failed but hands the context back for its message: keep the status
 * so every later call on it fails the same way instead of half-working. */
static kc_status broken_context(kc_context *ctx, kc_status s) {
  ctx->device = KC_DEVICE_CPU;
  ctx->cpu_threads = 1;
  cpu_limits(&ctx->limits);
  ctx->broken = s;
  snprintf(ctx->broken_msg, sizeof ctx->broken_msg, "%s", ctx->err);
  return s;
}

/* The N of KC_DEVICE=cuda:N: decimal digits only, from 0 to INT_MAX (so "cuda:x",
 * "cuda:-1" and "cuda:99999999999" are refused, not read as 0, -1 or a wrapped int). */
static kc_status parse_ordinal(kc_context *ctx, const char *env, const char *digits,
                               int *out) {
  if (!decimal_int(digits, out))
    return rt_error(ctx, KC_ERR_INVALID,
                    "KC_DEVICE='%s': the device ordinal must be a number from 0 to %d",
                    env, INT_MAX);
  return KC_OK;
}

/* The device asked for: the config's, or KC_DEVICE's when the config says AUTO
 * (cpu, cuda, gpu, auto, or cuda:N / gpu:N for the CUDA device of ordinal N, which then
 * replaces cfg.cuda_device). *explicit_ordinal says an ordinal was named, so a missing
 * device is reported with where it was asked for. */
static kc_status requested_device(kc_context *ctx, kc_device_kind *out, int *explicit_ordinal) {
  *out = ctx->cfg.device;
  *explicit_ordinal = ctx->cfg.cuda_device != 0;
  if (ctx->cfg.cuda_device < 0)
    return rt_error(ctx, KC_ERR_INVALID, "config: cuda_device %d is negative",
                    ctx->cfg.cuda_device);
  if (*out != KC_DEVICE_AUTO) {
    if (*out != KC_DEVICE_CPU && *out != KC_DEVICE_CUDA)
      return rt_error(ctx, KC_ERR_INVALID, "config: unknown device kind %d", (int)*out);
    return KC_OK;
  }
  const char *env = getenv("KC_DEVICE");
  if (!env || !*env || strcasecmp(env, "auto") == 0) return KC_OK;
  if (strcasecmp(env, "cpu") == 0) *out = KC_DEVICE_CPU;
  else if (strcasecmp(env, "cuda") == 0 || strcasecmp(env, "gpu") == 0) *out = KC_DEVICE_CUDA;
  else if (strncasecmp(env, "cuda:", 5) == 0 || strncasecmp(env, "gpu:", 4) == 0) {
    kc_status s = parse_ordinal(ctx, env, strchr(env, ':') + 1, &ctx->cfg.cuda_device);
    if (s != KC_OK) return s;
    *out = KC_DEVICE_CUDA;
    *explicit_ordinal = 1;
  } else
    return rt_error(ctx, KC_ERR_INVALID,
                    "KC_DEVICE='%s' is not one of cpu, cuda, cuda:N, auto", env);
  return KC_OK;
}

/* Say where a missing CUDA device was asked for: "KC_DEVICE=cuda:3: no CUDA device 3:
 * there are 2 CUDA devices (0..1)", "config cuda_device 3: no CUDA driver found
 * (libcuda.so.1)". */
static void name_the_ordinal(kc_context *ctx) {
  char why[RT_ERR_LEN];
  snprintf(why, sizeof why, "%s", ctx->err);
  const char *env = getenv("KC_DEVICE");
  if (ctx->cfg.device == KC_DEVICE_AUTO && env && strchr(env, ':'))
    rt_error(ctx, KC_ERR_NO_DEVICE, "KC_DEVICE=%s: %s", env, why);
  else
    rt_error(ctx, KC_ERR_NO_DEVICE, "config cuda_device %d: %s", ctx->cfg.cuda_device, why);
}

static void use_cpu(kc_context *ctx, const char *why) {
  ctx->device = KC_DEVICE_CPU;
  cpu_limits(&ctx->limits);
  int n = ctx->cfg.cpu_threads > 0 ? ctx->cfg.cpu_threads : rt_cpu_count();
  ctx->cpu_threads = n;
  if (ctx->cfg.verbose)
    fprintf(stderr, "kcc: using the CPU device (%d thread%s)%s%s\n", n, n == 1 ? "" : "s",
            why ? ": " : "", why ? why : "");
}

/* The CPU back end's target CPU, from the config or the environment, checked now and
 * kept by its static name, so a bad name fails here and the environment is read once.
 * Without a compiler (libkcrt) nothing is compiled for it: it is left as given. */
static kc_status resolve_cpu_target(kc_context *ctx) {
  const char *name;
  char msg[RT_ERR_LEN];
  const rt_compiler *cc = rt_compiler_get();
  if (!cc) return KC_OK;
  if (cc->cpu_check(ctx->cfg.cpu_target, &name, msg, sizeof msg) != KC_OK)
    return rt_error(ctx, KC_ERR_INVALID, "config: %s", msg);
  ctx->cfg.cpu_target = name;
  return KC_OK;
}

kc_status kc_context_new(const kc_config *cfg, kc_context **out) {
  RT_NEED(NULL, out, "kc_context_new");
  *out = NULL;
  kc_config defaults;
  if (!cfg) {
    kc_config_init(&defaults);
    cfg = &defaults;
  }
  kc_context *ctx = cfg->alloc ? cfg->alloc(cfg->user_data, NULL, 0, sizeof *ctx)
                               : malloc(sizeof *ctx);
  if (!ctx) return KC_ERR_NOMEM;
  memset(ctx, 0, sizeof *ctx);
  ctx->cfg = *cfg;
  ctx->err[0] = '\0';

  kc_device_kind want;
  int explicit_ordinal = 0;
  kc_status s = resolve_config(ctx);
  if (s == KC_OK) s = resolve_cpu_target(ctx);
  if (s == KC_OK) s = requested_device(ctx, &want, &explicit_ordinal);
  if (s != KC_OK) {
    *out = ctx;
    return broken_context(ctx, s);
  }
  if (want == KC_DEVICE_CPU) {
    use_cpu(ctx, NULL);
    *out = ctx;
    return KC_OK;
  }
  s = rt_cuda_open(ctx, ctx->cfg.cuda_device);
  if (s == KC_OK) {
    ctx->device = KC_DEVICE_CUDA;
    if (ctx->cfg.verbose) {
      kc_device_info info;
      if (rt_cuda_info(ctx, ctx->cfg.cuda_device, &info) == KC_OK)
        fprintf(stderr, "kcc: using CUDA device %d: %s (sm_%d%d)\n", ctx->cfg.cuda_device,
                info.name, info.cc_major, info.cc_minor);
    }
    *out = ctx;
    return KC_OK;
  }
  if (want == KC_DEVICE_CUDA) {
    /* keep the context so the error can be read; it refuses all work */
    if (explicit_ordinal && s == KC_ERR_NO_DEVICE) name_the_ordinal(ctx);
    *out = ctx;
    return broken_context(ctx, s);
  }
  char why[RT_ERR_LEN];
  snprintf(why, sizeof why, "%s", ctx->err);
  ctx->err[0] = '\0';
  use_cpu(ctx, why);
  *out = ctx;
  return KC_OK;
}

void kc_context_free(kc_context *ctx) {
  if (!ctx) return;
  if (ctx->pool) rt_pool_free(ctx->pool);
  rt_array_graveyard_free(ctx);
  rt_handle_graveyard_free(ctx);
  rt_host_registry_free(ctx);
  if (ctx->cuda) rt_cuda_close(ctx);
  rt_free(ctx, ctx->diags, ctx->diags_cap);
  if (ctx->cfg.alloc) ctx->cfg.alloc(ctx->cfg.user_data, ctx, sizeof *ctx, 0);
  else free(ctx);
}

kc_device_kind kc_context_device(const kc_context *ctx) {
  return ctx ? ctx->device : KC_DEVICE_CPU;
}
