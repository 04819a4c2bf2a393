/*
 * test_cache.c — the on-disk compile cache (runtime/cache.c) without a GPU: the key
 * (every input changes it, fields cannot run into each other), the directory from
 * XDG_CACHE_HOME / HOME, entries stored and read back field by field (atomically: no
 * temporary file left), damaged or foreign entries read as misses, and the CPU back
 * end's object code: a second compilation (a second context, as a second process would)
 * found in the cache and run, a changed source, option or CPU missing it, a damaged
 * entry refused and compiled again. Issue 18: every byte of an entry changed (first
 * line, kernel table, code; PTX and CPU entries) and 20 000 random changes to a table
 * are misses, never a different table; a FIFO, a symbolic link or a directory in an
 * entry's place is a miss at once; KC_CACHE_MAX bounds the directory, evicting the
 * least recently used. Each test runs under its own temporary XDG_CACHE_HOME.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

static char tmpdir[256];

static void rm_tree(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[1024];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      rm_tree(sub);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static void setup(void) {
  snprintf(tmpdir, sizeof tmpdir, "%s/kcc-cache-test-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
  setenv("XDG_CACHE_HOME", tmpdir, 1);
  unsetenv("KC_CACHE");
}

static void teardown(void) { rm_tree(tmpdir); }

/* Files in the cache directory (-1 when it does not exist); *tmp counts dot files. */
static int count_entries(int *tmp) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/kcc", tmpdir);
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  *tmp = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (e->d_name[0] == '.') (*tmp)++;
    else n++;
  }
  closedir(d);
  return n;
}

static kcc_options ptx_options(void) {
  kcc_options o;
  kcc_options_init(&o);
  o.target = KCC_TARGET_NVPTX;
  o.emit = KCC_EMIT_PTX;
  o.arch = 80;
  o.opt_level = 3;
  return o;
}

/* ---- the key --------------------------------------------------------------------------- */
static int same(rt_cache_key a, rt_cache_key b) { return a.h[0] == b.h[0] && a.h[1] == b.h[1]; }

START_TEST(key_covers_every_input) {
  const char *src = "def k(): pass\n";
  kcc_options o = ptx_options();
  rt_cache_key base = rt_cache_key_of(&o, "a.k", src, strlen(src));
  ck_assert(same(base, rt_cache_key_of(&o, "a.k", src, strlen(src))));
  ck_assert(base.h[0] != base.h[1]);
  ck_assert(!same(base, rt_cache_key_of(&o, "b.k", src, strlen(src))));
  ck_assert(!same(base, rt_cache_key_of(&o, "a.k", src, strlen(src) - 1)));
  ck_assert(!same(base, rt_cache_key_of(&o, "a.k", "def k(): pass\t", strlen(src))));
  kcc_options v = o;
  v.arch = 90;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.opt_level = 2;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.lineinfo = 1;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.debug = 1;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.bounds_check = 1;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.fastmath = 1;   /* fast-math PTX must never be served for a precise compilation */
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  v = o;
  v.target = KCC_TARGET_HOST;
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
#if defined(__x86_64__)
  v = o;   /* the CPU: this one (its name and features) or a baseline */
  v.target = KCC_TARGET_HOST;
  v.cpu = "host";   /* not KC_HOST_CPU's, which tests/run_valgrind.py sets */
  rt_cache_key host = rt_cache_key_of(&v, "a.k", src, strlen(src));
  ck_assert(host.host);
  v.cpu = "x86-64-v2";
  ck_assert(!same(host, rt_cache_key_of(&v, "a.k", src, strlen(src))));
#endif
  v = o;
  v.libdevice = "/elsewhere/libdevice.10.bc";
  ck_assert(!same(base, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  const char *sig1[] = {"k(float32[:])"}, *sig2[] = {"k(float64[:])"};
  const char *split_a[] = {"ab", "c"}, *split_b[] = {"a", "bc"};
  v = o;
  v.sigs = sig1, v.nsigs = 1;
  rt_cache_key k1 = rt_cache_key_of(&v, "a.k", src, strlen(src));
  ck_assert(!same(base, k1));
  v.sigs = sig2;
  ck_assert(!same(k1, rt_cache_key_of(&v, "a.k", src, strlen(src))));
  /* fields carry their lengths: moving a byte across a boundary changes the key */
  v.sigs = split_a, v.nsigs = 2;
  rt_cache_key ka = rt_cache_key_of(&v, "a.k", src, strlen(src));
  v.sigs = split_b;
  ck_assert(!same(ka, rt_cache_key_of(&v, "a.k", src, strlen(src))));
}
END_TEST

START_TEST(directory_from_environment) {
  char buf[512], want[512];
  ck_assert_int_eq(rt_cache_dir(buf, sizeof buf), 0);
  snprintf(want, sizeof want, "%s/kcc", tmpdir);
  ck_assert_str_eq(buf, want);
  ck_assert_int_eq(rt_cache_dir(buf, 8), -1);   /* too small */
  char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  setenv("HOME", "/home/someone", 1);
  setenv("XDG_CACHE_HOME", "relative/dir", 1);  /* the spec says: ignore it */
  ck_assert_int_eq(rt_cache_dir(buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "/home/someone/.cache/kcc");
  unsetenv("XDG_CACHE_HOME");
  ck_assert_int_eq(rt_cache_dir(buf, sizeof buf), 0);
  ck_assert_str_eq(buf, "/home/someone/.cache/kcc");
  unsetenv("HOME");
  ck_assert_int_eq(rt_cache_dir(buf, sizeof buf), -1);
  if (home) setenv("HOME", home, 1);
  free(home);
}
END_TEST

START_TEST(enabled_for_both_targets) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(rt_cache_enabled(ctx, KCC_TARGET_HOST), 1);
  ck_assert_int_eq(rt_cache_enabled(ctx, KCC_TARGET_NVPTX), 1);
  kc_context_free(ctx);
  cfg.cache = -1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(rt_cache_enabled(ctx, KCC_TARGET_NVPTX), 0);
  kc_context_free(ctx);
  setenv("KC_CACHE", "0", 1);
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(rt_cache_enabled(ctx, KCC_TARGET_NVPTX), 0);
  kc_context_free(ctx);
  unsetenv("KC_CACHE");
}
END_TEST

/* ---- entries ----------------------------------------------------------------------------- */
/* An output as kcc_compile makes one: malloc'd strings, two kernels, an untyped name. */
static void fake_output(kcc_output *out) {
  memset(out, 0, sizeof *out);
  out->text = strdup("// kcc-kernel: add add(float32[:], int32)\n.version 7.0\n\"ptx\"\n");
  out->text_len = strlen(out->text);
  out->nkernels = 2;
  out->kernels = calloc(2, sizeof *out->kernels);
  kcc_kernel *k = &out->kernels[0];
  k->name = strdup("add"), k->symbol = strdup("add"),
  k->signature = strdup("add(float32[:], int32, Tuple(int32, float64))");
  k->nparams = 3;
  k->params = calloc(3, sizeof *k->params);
  k->params[0] = (kcc_param){strdup("out"), KC_FLOAT32, 1, 1, 0, NULL, 1};   /* 'A' */
  k->params[1] = (kcc_param){strdup(""), KC_INT32, 0, 0, 0, NULL, 0};
  kc_dtype *el = calloc(2, sizeof *el);
  el[0] = KC_INT32, el[1] = KC_FLOAT64;
  k->params[2] = (kcc_param){strdup("t"), KC_INT32, 0, 0, 2, el, 0};
  k = &out->kernels[1];
  k->name = strdup("red"), k->symbol = strdup("red__f64"), k->signature = strdup("red()");
  k->uses_barrier = 1;
  k->static_shared = 4096;
  k->max_threads = 64;   /* launch_bounds=64: a hit on the CPU once lost it */
  out->kernels[0].inner_axis = 2;   /* z innermost (host_order.c) */
  out->nuntyped = 1;
  out->untyped = calloc(2, sizeof *out->untyped);
  out->untyped[0] = strdup("later");
}

START_TEST(store_and_load) {
  kcc_options o = ptx_options();
  rt_cache_key key = rt_cache_key_of(&o, "x.k", "src", 3), other = key;
  kcc_output out, back;
  fake_output(&out);
  int tmp = 0;
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);   /* empty cache: a miss */
  ck_assert_int_eq(back.nkernels, 0);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  ck_assert_int_eq(count_entries(&tmp), 1);
  ck_assert_int_eq(tmp, 0);
  ck_assert_int_eq(rt_cache_load(&key, &back), 1);
  ck_assert_uint_eq(back.text_len, out.text_len);
  ck_assert_str_eq(back.text, out.text);
  ck_assert_int_eq(back.nkernels, 2);
  ck_assert_str_eq(back.kernels[0].name, "add");
  ck_assert_str_eq(back.kernels[0].signature, "add(float32[:], int32, Tuple(int32, float64))");
  ck_assert_int_eq(back.kernels[0].nparams, 3);
  ck_assert_int_eq(back.kernels[0].params[1].nelems, 0);
  ck_assert_int_eq(back.kernels[0].params[2].nelems, 2);
  ck_assert_int_eq(back.kernels[0].params[2].elems[0], KC_INT32);
  ck_assert_int_eq(back.kernels[0].params[2].elems[1], KC_FLOAT64);
  ck_assert_str_eq(back.kernels[0].params[2].name, "t");
  ck_assert_str_eq(back.kernels[0].params[0].name, "out");
  ck_assert_int_eq(back.kernels[0].params[0].dtype, KC_FLOAT32);
  ck_assert_int_eq(back.kernels[0].params[0].ndim, 1);
  ck_assert_int_eq(back.kernels[0].params[0].written, 1);
  ck_assert_int_eq(back.kernels[0].params[0].strided, 1);
  ck_assert_int_eq(back.kernels[0].params[1].strided, 0);
  ck_assert_str_eq(back.kernels[0].params[1].name, "");
  ck_assert_int_eq(back.kernels[0].params[1].dtype, KC_INT32);
  ck_assert_int_eq(back.kernels[0].params[1].ndim, 0);
  ck_assert_str_eq(back.kernels[1].symbol, "red__f64");
  ck_assert_int_eq(back.kernels[0].inner_axis, 2);
  ck_assert_int_eq(back.kernels[0].uses_barrier, 0);
  ck_assert_int_eq(back.kernels[1].uses_barrier, 1);
  ck_assert_int_eq(back.kernels[1].inner_axis, 0);
  ck_assert_uint_eq(back.kernels[1].static_shared, 4096);
  ck_assert_int_eq(back.kernels[1].max_threads, 64);
  ck_assert_int_eq(back.kernels[0].max_threads, 0);
  ck_assert_int_eq(back.kernels[1].nparams, 0);
  ck_assert_int_eq(back.nuntyped, 1);
  ck_assert_str_eq(back.untyped[0], "later");
  kcc_output_free(&back);
  /* a second key that shares the file name (first hash) but not the check hash */
  other.h[1] ^= 1;
  ck_assert_int_eq(rt_cache_load(&other, &back), 0);
  other = key;
  other.h[0] ^= 1;
  ck_assert_int_eq(rt_cache_load(&other, &back), 0);
  /* storing again replaces the entry */
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  ck_assert_int_eq(count_entries(&tmp), 1);
  ck_assert_int_eq(tmp, 0);
  kcc_output_free(&out);
}
END_TEST

START_TEST(damaged_entries_are_misses) {
  kcc_options o = ptx_options();
  rt_cache_key key = rt_cache_key_of(&o, "x.k", "src", 3);
  kcc_output out, back;
  fake_output(&out);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  char path[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.ptxc", tmpdir, (unsigned long long)key.h[0]);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  /* cut short at every length: never a hit, never a crash */
  for (off_t len = st.st_size - 1; len >= 0; len -= 7) {
    ck_assert_int_eq(rt_cache_store(&key, &out), 0);
    ck_assert_int_eq(truncate(path, len), 0);
    ck_assert_int_eq(rt_cache_load(&key, &back), 0);
    ck_assert_int_eq(back.nkernels, 0);
    ck_assert_ptr_null(back.text);
  }
  /* a bad dtype */
  FILE *f = fopen(path, "w");
  fprintf(f, "kcc-cache 2 %016llx %016llx\ncounts 1 0 0\nkernel 0 0 1 k k k(x)\n"
             "param 99 1 0 a\n", (unsigned long long)key.h[0], (unsigned long long)key.h[1]);
  fclose(f);
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);
  /* the directory cannot be made: storing fails quietly */
  char file[600];
  snprintf(file, sizeof file, "%s/plainfile", tmpdir);
  fclose(fopen(file, "w"));
  setenv("XDG_CACHE_HOME", file, 1);
  ck_assert_int_eq(rt_cache_store(&key, &out), -1);
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);
  setenv("XDG_CACHE_HOME", tmpdir, 1);
  kcc_output_free(&out);
}
END_TEST

/* A real PTX compilation stored and read back gives the same text and kernel table. */
START_TEST(real_compilation_round_trip) {
  static const char src[] =
    "from numba import cuda, float32\n"
    "@cuda.jit\n"
    "def scale(a: float32[:], out: float32[:], s: float32):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = a[i] * s\n";
  kcc_options o = ptx_options();
  kcc_output out, back;
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(kcc_compile(&o, "scale.k", src, sizeof src - 1, &out), KC_OK);
  rt_cache_key key = rt_cache_key_of(&o, "scale.k", src, sizeof src - 1);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  ck_assert_int_eq(rt_cache_load(&key, &back), 1);
  ck_assert_str_eq(back.text, out.text);
  ck_assert_int_eq(back.nkernels, out.nkernels);
  for (int i = 0; i < out.nkernels; i++) {
    ck_assert_str_eq(back.kernels[i].signature, out.kernels[i].signature);
    ck_assert_str_eq(back.kernels[i].symbol, out.kernels[i].symbol);
    ck_assert_int_eq(back.kernels[i].nparams, out.kernels[i].nparams);
    for (int j = 0; j < out.kernels[i].nparams; j++) {
      ck_assert_str_eq(back.kernels[i].params[j].name, out.kernels[i].params[j].name);
      ck_assert_int_eq(back.kernels[i].params[j].written, out.kernels[i].params[j].written);
    }
  }
  kcc_output_free(&back);
  kcc_output_free(&out);
}
END_TEST

/* ---- the CPU back end's object code ------------------------------------------------ */
/* It calls the C library's expf, which the JIT is given by address (target_host.c):
 * resolved in an object read back from the cache as in one just compiled. */
static const char scale_src[] =
  "import math\n"
  "from numba import cuda, float32\n"
  "@cuda.jit\n"
  "def scale(a: float32[:], out: float32[:], s: float32):\n"
  "    i = cuda.grid(1)\n"
  "    if i < out.size:\n"
  "        out[i] = a[i] * s + math.exp(a[i])\n";

/* A CPU context (a new one per call: as a second process would see the cache). */
static kc_context *cpu_context(int fastmath, const char *cpu) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.fastmath = fastmath;
  cfg.cpu_target = cpu;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  return ctx;
}

/* Compile src on ctx and check its scale kernel on 1000 elements against C: returns
 * whether the cache answered. */
static int compile_and_run(kc_context *ctx, const char *src, float s) {
  enum { N = 1000 };
  unsigned hits = ctx->cache_hits;
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  ck_assert_msg(kc_compile_source(ctx, "scale.k", src, strlen(src), NULL, &m) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(m, "scale", &k), KC_OK);
  float a[N], got[N];
  for (int i = 0; i < N; i++) a[i] = (float)i * 0.01f - 5.0f;
  int64_t shape[1] = {N};
  kc_array *da, *dout;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, a, (size_t)shape[0] * sizeof *a, &da), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, shape, &dout), KC_OK);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_f32(s)};
  ck_assert_int_eq(kc_launch(k, kc_dim(8), kc_dim(128), 0, NULL, args, 3), KC_OK);
  ck_assert_int_eq(kc_array_to_host(dout, got, sizeof got), KC_OK);
  for (int i = 0; i < N; i++) {   /* within fast math's error (one run uses it) */
    float want = a[i] * s + expf(a[i]);
    ck_assert_float_eq_tol(got[i], want, 1e-5f * fabsf(want) + 1e-6f);
  }
  kc_array_free(da);
  kc_array_free(dout);
  kc_module_free(m);
  return ctx->cache_hits != hits;
}

/* Compile and run on a fresh context; whether the cache answered. */
static int fresh_run(const char *src, float s, int fastmath, const char *cpu) {
  kc_context *ctx = cpu_context(fastmath, cpu);
  int hit = compile_and_run(ctx, src, s);
  kc_context_free(ctx);
  return hit;
}

START_TEST(cpu_code_is_cached) {
  int tmp = 0;
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(count_entries(&tmp), 1);
  ck_assert_int_eq(tmp, 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 1);   /* a second process */
  ck_assert_int_eq(fresh_run(scale_src, -0.5f, 0, NULL), 1);  /* arguments are not code */
  /* in one context too: each compilation looks */
  kc_context *ctx = cpu_context(0, NULL);
  ck_assert_int_eq(compile_and_run(ctx, scale_src, 2.0f), 1);
  ck_assert_int_eq(compile_and_run(ctx, scale_src, 2.0f), 1);
  ck_assert_uint_eq(ctx->cache_hits, 2);
  kc_context_free(ctx);
  ck_assert_int_eq(count_entries(&tmp), 1);
}
END_TEST

START_TEST(cpu_cache_misses_on_changes) {
  char other[sizeof scale_src + 8];
  snprintf(other, sizeof other, "%s\n", scale_src);   /* one more byte */
  int tmp = 0;
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(fresh_run(other, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 1, NULL), 0);    /* fast math */
  int entries = 3;
#if defined(__x86_64__)
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, "x86-64"), 0);  /* another CPU */
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, "x86-64"), 1);
  entries++;
#endif
  /* a code generator's switch from the environment (docs/language.md) */
  setenv("KC_CPU_WIDE", "0", 1);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 1);
  unsetenv("KC_CPU_WIDE");
  entries++;
  ck_assert_int_eq(count_entries(&tmp), entries);
  ck_assert_int_eq(fresh_run(other, 3.0f, 0, NULL), 1);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 1, NULL), 1);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 1);
}
END_TEST

/* The one .cpuc entry's path. */
static void cpu_entry(char *path, size_t len) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/kcc", tmpdir);
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  struct dirent *e;
  path[0] = '\0';
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".cpuc")) snprintf(path, len, "%s/%s", dir, e->d_name);
  closedir(d);
  ck_assert_msg(path[0], "no .cpuc entry");
}

/* Xor the byte at offset from the file's start with mask. */
static void flip_byte_at(const char *path, long offset, int mask) {
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
  int c = fgetc(f);
  ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
  fputc(c ^ mask, f);
  fclose(f);
}

/* Flip one bit of the file at offset from its end. */
static void flip_bit(const char *path, long from_end) {
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, -from_end, SEEK_END), 0);
  int c = fgetc(f);
  ck_assert_int_eq(fseek(f, -from_end, SEEK_END), 0);
  fputc(c ^ 0x10, f);
  fclose(f);
}

START_TEST(damaged_cpu_entry_is_compiled_again) {
  char path[1024];
  struct stat st;
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  cpu_entry(path, sizeof path);
  ck_assert_int_eq(stat(path, &st), 0);
  /* a bit of the machine code changed: refused (the checksum), compiled, stored again */
  flip_bit(path, st.st_size / 3);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 1);
  /* the code cut short */
  ck_assert_int_eq(truncate(path, st.st_size - 100), 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 1);
  /* object code that passes the checksum but is no object: refused by the linker */
  kcc_options o;
  kcc_options_init(&o);
  o.target = KCC_TARGET_HOST;
  o.emit = KCC_EMIT_JIT;
  kcc_output out;
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(kcc_compile(&o, "scale.k", scale_src, strlen(scale_src), &out), KC_OK);
  out.object = strdup("not an object file");
  out.object_len = strlen(out.object);
  kc_context *ctx = cpu_context(0, NULL);
  o.cpu = ctx->cfg.cpu_target;   /* the key the context computes */
  rt_cache_key key = rt_cache_key_of(&o, "scale.k", scale_src, strlen(scale_src));
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  kcc_output_free(&out);
  int tmp = 0;
  ck_assert_int_eq(compile_and_run(ctx, scale_src, 3.0f), 0);
  ck_assert_int_eq(count_entries(&tmp), 1);   /* the same entry, replaced */
  ck_assert_int_eq(compile_and_run(ctx, scale_src, 3.0f), 1);
  kc_context_free(ctx);
}
END_TEST


/* ---- damage, foreign files and the size bound (issue 18) --------------------------- */
/* The entry for key as bytes (malloc'd), its length in *len. */
static char *entry_bytes(const rt_cache_key *key, size_t *len) {
  char path[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.%s", tmpdir, (unsigned long long)key->h[0],
           key->host ? "cpuc" : "ptxc");
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
  *len = (size_t)ftell(f);
  rewind(f);
  char *buf = malloc(*len + 1);
  ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
  fclose(f);
  return buf;
}

/* rt_cache_parse on a copy of bytes with byte i xor'd with mask: must be a miss and
 * leave *out empty. */
static void parse_must_miss(const rt_cache_key *key, const char *bytes, size_t len,
                            size_t i, int mask) {
  char *copy = malloc(len + 1);
  memcpy(copy, bytes, len);
  copy[i] = (char)(copy[i] ^ mask);
  kcc_output back;
  ck_assert_msg(rt_cache_parse(key, copy, len, &back) == -1, "byte %zu ^ %#x was loaded", i,
                mask);
  ck_assert_int_eq(back.nkernels, 0);
  ck_assert_ptr_null(back.kernels);
  ck_assert_ptr_null(back.text);
  free(copy);
}

/* Every byte of an entry (first line, counts, kernel and param lines, untyped names,
 * code) changed in several ways, through the file and rt_cache_load: never loaded. */
START_TEST(every_changed_byte_is_a_miss) {
  kcc_options o = ptx_options();
  rt_cache_key key = rt_cache_key_of(&o, "x.k", "src", 3);
  kcc_output out, back;
  fake_output(&out);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  size_t len;
  char *good = entry_bytes(&key, &len);
  const char *regions[] = {"kcc-cache", "counts", "kernel", "param", "untyped", ".version"};
  for (size_t r = 0; r < sizeof regions / sizeof *regions; r++)   /* all are there */
    ck_assert_msg(memmem(good, len, regions[r], strlen(regions[r])), "%s", regions[r]);
  char path[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.ptxc", tmpdir, (unsigned long long)key.h[0]);
  const int masks[] = {0x01, 0x04, 0x20, 0x80};
  for (size_t i = 0; i < len; i++) {
    for (size_t m = 0; m < sizeof masks / sizeof *masks; m++) {
      FILE *f = fopen(path, "wb");
      fwrite(good, 1, len, f);
      fclose(f);
      flip_byte_at(path, (long)i, masks[m]);
      ck_assert_msg(rt_cache_load(&key, &back) == 0, "byte %zu ^ %#x was loaded", i, masks[m]);
      ck_assert_int_eq(back.nkernels, 0);
    }
  }
  /* the damaged entry is replaced by the next store, and read again */
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  ck_assert_int_eq(rt_cache_load(&key, &back), 1);
  kcc_output_free(&back);
  free(good);
  kcc_output_free(&out);
}
END_TEST

/* The measurement: 20 000 random byte changes to an entry's kernel table (one
 * loaded 4 545 of them as a different table before entries had a checksum): none. */
START_TEST(random_table_changes_are_misses) {
  kcc_options o = ptx_options();
  rt_cache_key key = rt_cache_key_of(&o, "x.k", "src", 3);
  kcc_output out;
  fake_output(&out);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);
  size_t len;
  char *good = entry_bytes(&key, &len);
  size_t table = (size_t)((char *)memmem(good, len, "counts", 6) - good);
  size_t code = (size_t)((char *)memmem(good, len, "// kcc-kernel", 13) - good);
  uint64_t x = 0x9e3779b97f4a7c15ull;   /* xorshift64: a fixed sequence */
  for (int n = 0; n < 20000; n++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t i = table + (size_t)(x % (code - table));
    int mask = (int)((x >> 32) % 255) + 1;
    parse_must_miss(&key, good, len, i, mask);
  }
  free(good);
  kcc_output_free(&out);
}
END_TEST

/* A real CPU entry (an object file): every byte of its header and table, and every
 * 61st byte of its machine code, changed. */
START_TEST(changed_cpu_entry_is_a_miss) {
  ck_assert_int_eq(fresh_run(scale_src, 3.0f, 0, NULL), 0);
  kc_context *ctx = cpu_context(0, NULL);
  kcc_options o;
  kcc_options_init(&o);
  o.target = KCC_TARGET_HOST;
  o.emit = KCC_EMIT_JIT;
  o.cpu = ctx->cfg.cpu_target;   /* the key the context computes */
  kc_context_free(ctx);
  rt_cache_key key = rt_cache_key_of(&o, "scale.k", scale_src, strlen(scale_src));
  size_t len;
  char *good = entry_bytes(&key, &len);
  char *copy = malloc(len + 1);
  memcpy(copy, good, len);
  kcc_output back;
  ck_assert_int_eq(rt_cache_parse(&key, copy, len, &back), 0);   /* as stored: a hit */
  ck_assert_uint_gt(back.object_len, 0);
  kcc_output_free(&back);
  size_t table_end = (size_t)((char *)memmem(good, len, "untyped", 7) - good);
  for (size_t i = 0; i < len; i += i < table_end + 64 ? 1 : 61)
    parse_must_miss(&key, good, len, i, 0x40);
  free(copy);
  free(good);
}
END_TEST

/* A FIFO where an entry should be: a miss at once (it used to block for ever), then
 * replaced by a store; so are a symbolic link and a directory refused. */
START_TEST(fifo_entry_is_a_miss_without_blocking) {
  kcc_options o = ptx_options();
  rt_cache_key key = rt_cache_key_of(&o, "x.k", "src", 3);
  key.verbose = 1;   /* says why on stderr */
  kcc_output out, back;
  fake_output(&out);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);   /* makes the directory */
  char path[600], elsewhere[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.ptxc", tmpdir, (unsigned long long)key.h[0]);
  snprintf(elsewhere, sizeof elsewhere, "%s/good-entry", tmpdir);
  ck_assert_int_eq(rename(path, elsewhere), 0);
  ck_assert_int_eq(mkfifo(path, 0644), 0);
  alarm(10);   /* a blocked open or read fails the test instead of hanging it */
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);
  alarm(0);
  ck_assert_int_eq(back.nkernels, 0);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);   /* renamed over the FIFO */
  ck_assert_int_eq(rt_cache_load(&key, &back), 1);
  kcc_output_free(&back);
  /* a link to a good entry is not followed */
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(symlink(elsewhere, path), 0);
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);
  ck_assert_int_eq(rt_cache_store(&key, &out), 0);   /* replaces the link itself */
  ck_assert_int_eq(rt_cache_load(&key, &back), 1);
  kcc_output_free(&back);
  /* a directory: a miss, and storing fails quietly */
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_eq(rt_cache_load(&key, &back), 0);
  ck_assert_int_eq(rt_cache_store(&key, &out), -1);
  ck_assert_int_eq(rmdir(path), 0);
  kcc_output_free(&out);
}
END_TEST

START_TEST(cache_max_from_environment) {
  const struct { const char *s; uint64_t want; } cases[] = {
    {"1048576", 1048576}, {"64M", 64u << 20}, {"64MiB", 64u << 20}, {"2k", 2048},
    {"1G", 1u << 30}, {"3MB", 3u << 20}, {"0", 0},
    {"", 256u << 20}, {"lots", 256u << 20}, {"12Q", 256u << 20}, {"-5", 256u << 20},
    {"99999999999999999999", 256u << 20}, {"99999999999T", 256u << 20},
  };
  unsetenv("KC_CACHE_MAX");
  ck_assert_uint_eq(rt_cache_max_bytes(), 256u << 20);   /* the documented default */
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    setenv("KC_CACHE_MAX", cases[i].s, 1);
    ck_assert_msg(rt_cache_max_bytes() == cases[i].want, "KC_CACHE_MAX=%s", cases[i].s);
  }
  unsetenv("KC_CACHE_MAX");
}
END_TEST

/* Bytes of the entries in the cache directory. */
static uint64_t cache_bytes(void) {
  char dir[512], sub[1024];
  snprintf(dir, sizeof dir, "%s/kcc", tmpdir);
  DIR *d = opendir(dir);
  uint64_t total = 0;
  struct dirent *e;
  struct stat st;
  while (d && (e = readdir(d))) {
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.' && stat(sub, &st) == 0) total += (uint64_t)st.st_size;
  }
  if (d) closedir(d);
  return total;
}

static int entry_exists(const rt_cache_key *key) {
  char path[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.ptxc", tmpdir, (unsigned long long)key->h[0]);
  return access(path, F_OK) == 0;
}

/* Last used `ago` seconds before now. */
static void age_entry(const rt_cache_key *key, time_t ago) {
  char path[600];
  snprintf(path, sizeof path, "%s/kcc/%016llx.ptxc", tmpdir, (unsigned long long)key->h[0]);
  struct timespec t[2] = {{time(NULL) - ago, 0}, {time(NULL) - ago, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Entries of one size under KC_CACHE_MAX = three of them: storing a fourth evicts the
 * least recently used (a load counts as a use), and the total stays under the bound. */
START_TEST(eviction_keeps_recent_entries) {
  kcc_options o = ptx_options();
  kcc_output out;
  fake_output(&out);
  rt_cache_key k[5];
  const char *names[] = {"a.k", "b.k", "c.k", "d.k", "e.k"};
  for (int i = 0; i < 5; i++) k[i] = rt_cache_key_of(&o, names[i], "src", 3);
  ck_assert_int_eq(rt_cache_store(&k[0], &out), 0);
  uint64_t one = cache_bytes();
  char max[32];
  snprintf(max, sizeof max, "%llu", (unsigned long long)(3 * one + one / 2));
  setenv("KC_CACHE_MAX", max, 1);
  ck_assert_int_eq(rt_cache_store(&k[1], &out), 0);
  ck_assert_int_eq(rt_cache_store(&k[2], &out), 0);
  for (int i = 0; i < 3; i++) age_entry(&k[i], 300 - 100 * i);   /* a oldest, c newest */
  kcc_output back;
  ck_assert_int_eq(rt_cache_load(&k[0], &back), 1);   /* a used now: b is the oldest */
  kcc_output_free(&back);
  ck_assert_int_eq(rt_cache_store(&k[3], &out), 0);
  ck_assert(entry_exists(&k[0]) && !entry_exists(&k[1]) && entry_exists(&k[2]) &&
            entry_exists(&k[3]));
  ck_assert_uint_le(cache_bytes(), 3 * one + one / 2);
  age_entry(&k[3], 50);   /* now c (200 s) is the oldest */
  ck_assert_int_eq(rt_cache_store(&k[4], &out), 0);
  ck_assert(entry_exists(&k[0]) && !entry_exists(&k[2]) && entry_exists(&k[3]) &&
            entry_exists(&k[4]));
  ck_assert_uint_le(cache_bytes(), 3 * one + one / 2);
  /* a temporary file a dead process left an hour ago goes; a fresh one stays */
  char stale[600], fresh[600];
  snprintf(stale, sizeof stale, "%s/kcc/.0123456789abcdef.AbCdEf", tmpdir);
  snprintf(fresh, sizeof fresh, "%s/kcc/.0123456789abcdef.GhIjKl", tmpdir);
  fclose(fopen(stale, "w"));
  fclose(fopen(fresh, "w"));
  struct timespec t[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, stale, t, 0), 0);
  ck_assert_int_eq(rt_cache_store(&k[1], &out), 0);
  ck_assert_int_ne(access(stale, F_OK), 0);
  ck_assert_int_eq(access(fresh, F_OK), 0);
  /* a budget smaller than one entry keeps nothing */
  setenv("KC_CACHE_MAX", "100", 1);
  ck_assert_int_eq(rt_cache_store(&k[2], &out), 0);
  ck_assert_uint_eq(cache_bytes(), 0);
  unsetenv("KC_CACHE_MAX");
  kcc_output_free(&out);
}
END_TEST

static Suite *cache_suite(void) {
  Suite *s = suite_create("cache");
  TCase *t = tcase_create("cache");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, key_covers_every_input);
  tcase_add_test(t, directory_from_environment);
  tcase_add_test(t, enabled_for_both_targets);
  tcase_add_test(t, store_and_load);
  tcase_add_test(t, damaged_entries_are_misses);
  tcase_add_test(t, real_compilation_round_trip);
  tcase_add_test(t, cpu_code_is_cached);
  tcase_add_test(t, cpu_cache_misses_on_changes);
  tcase_add_test(t, damaged_cpu_entry_is_compiled_again);
  tcase_add_test(t, every_changed_byte_is_a_miss);
  tcase_add_test(t, random_table_changes_are_misses);
  tcase_add_test(t, changed_cpu_entry_is_a_miss);
  tcase_add_test(t, fifo_entry_is_a_miss_without_blocking);
  tcase_add_test(t, cache_max_from_environment);
  tcase_add_test(t, eviction_keeps_recent_entries);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(cache_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
