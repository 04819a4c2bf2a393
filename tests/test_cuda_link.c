/*
 * test_cuda_link.c — cuda.jit(link=[...]) at load time (runtime/link.c), against the
 * CUDA driver double: a PTX whose "// kcc-link: PATH" lines name files is linked with
 * them by the driver's linker and the linked image loaded; a PTX without such lines
 * loads without the linker. The double cannot run the foreign functions: a launch runs
 * mul_add.k, the kernel with their arithmetic written out (out[0] = 3 * 4 + 4 checked),
 * and the tests assert on what the double recorded (its link log, cuda_double_link_log: each call with its
 * input kind and name, in order) and on the errors: a missing file, a .cuh, a file
 * without extension, a directory, an undefined function (the linker's log),
 * NVRTC missing (KC_NVRTC naming nothing), and with NVRTC a .cu that compiles and one
 * that does not (NVRTC's log in the message).
 *
 *   test_cuda_link          the tests that need no NVRTC
 *   test_cuda_link nvrtc    the .cu tests: exit 77 (skipped) when libnvrtc is absent
 *   test_cuda_link lto      LTO-IR (made here by NVRTC -dlto) linked by nvJitLink:
 *                           skipped without libnvrtc or libnvJitLink
 *   test_cuda_link_kcrt kcrt   the same program linked with libkcrt (no compiler, so
 *                           no nvJitLink): PTX files link, LTO-IR is refused
 *
 * The fixtures are tests/link/: caller.ptx (the kernel, @LINK@ where the link lines
 * go), add.ptx and mul.ptx (device functions in PTX), functions.cu and broken.cu.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kc.h"
#include "kc_config.h"

enum { CALLS, LAUNCHES, RUNS, FAULTS, VIOLATIONS, LIVE_BYTES, CTX_ALIVE, LIVE_HANDLES };

static kc_context *ctx;
static char fixtures[1024];   /* tests/link/ */
static char log_text[16384];

/* One of the double's functions for tests, by dlsym. */
static void *double_fn(const char *name) {
  void *lib = dlopen(getenv("KC_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
  ck_assert_msg(lib != NULL, "the double is not loaded");
  void *sym = dlsym(lib, name);
  ck_assert_msg(sym != NULL, "the double has no %s", name);
  dlclose(lib);   /* still loaded: the runtime holds it */
  return sym;
}

static const char *link_log(void) {
  void (*fn)(char *, size_t);
  void *sym = double_fn("cuda_double_link_log");
  memcpy(&fn, &sym, sizeof fn);
  fn(log_text, sizeof log_text);
  return log_text;
}

static void start(void) {
  const char *root = getenv("KC_SOURCE_ROOT");
  ck_assert_ptr_nonnull(root);
  snprintf(fixtures, sizeof fixtures, "%s/tests/link", root);
  char source[1200];   /* what the double runs for mul_add */
  snprintf(source, sizeof source, "%s/mul_add.k", fixtures);
  setenv("KC_CUDA_DOUBLE_SOURCE", source, 1);
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.cache = -1;
  kc_status s = kc_context_new(&cfg, &ctx);
  ck_assert_msg(s == KC_OK, "kc_context_new: %s", ctx ? kc_last_error(ctx) : "?");
}

/* After kc_context_free: no handle alive (link states destroyed), no contract broken. */
static void finish_clean(void) {
  kc_context_free(ctx);
  ctx = NULL;
  void (*fn)(unsigned long *);
  void *sym = double_fn("cuda_double_counts");
  memcpy(&fn, &sym, sizeof fn);
  unsigned long c[8];
  fn(c);
  ck_assert_uint_eq(c[LIVE_HANDLES], 0);
  ck_assert_uint_eq(c[VIOLATIONS], 0);
  ck_assert_uint_eq(c[LIVE_BYTES], 0);
}

/* caller.ptx with a "// kcc-link: DIR/NAME" line per name (NULL-terminated list; a
 * name starting with '/' is taken as it is). The text is malloc'd. */
static char *caller_ptx(const char *const *names) {
  char path[1200], links[8192] = "";
  snprintf(path, sizeof path, "%s/caller.ptx", fixtures);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  static char tmpl[16384];
  size_t n = fread(tmpl, 1, sizeof tmpl - 1, f);
  fclose(f);
  tmpl[n] = '\0';
  for (size_t i = 0; names && names[i]; i++) {
    size_t at = strlen(links);
    snprintf(links + at, sizeof links - at, "%s// kcc-link: %s%s%s", at ? "\n" : "",
             names[i][0] == '/' ? "" : fixtures, names[i][0] == '/' ? "" : "/", names[i]);
  }
  char *mark = strstr(tmpl, "@LINK@");
  ck_assert_ptr_nonnull(mark);
  size_t len = n - 6 + strlen(links) + 1;
  char *ptx = malloc(len);
  ck_assert_ptr_nonnull(ptx);
  snprintf(ptx, len, "%.*s%s%s", (int)(mark - tmpl), tmpl, links, mark + 6);
  return ptx;
}

/* mul_add(out, 3, 4) launched: out[0] = 3 * 4 + 4 (the double runs mul_add.k). */
static void run_mul_add(kc_kernel *k) {
  int64_t one[1] = {1};
  kc_array *out = NULL;
  float got = 0;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, one, &out), KC_OK);
  kc_arg args[] = {kc_arg_array(out), kc_arg_f32(3.0f), kc_arg_f32(4.0f)};
  ck_assert_msg(kc_launch(k, kc_dim(1), kc_dim(1), 0, NULL, args, 3) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_int_eq(kc_array_to_host(out, &got, sizeof got), KC_OK);
  ck_assert_float_eq(got, 16.0f);
  kc_array_free(out);
}

/* Load caller.ptx linked with names: the status, the module freed. */
static kc_status load_linked(const char *const *names) {
  char *ptx = caller_ptx(names);
  kc_module *m = NULL;
  kc_status s = kc_module_load_ptx(ctx, ptx, strlen(ptx), &m);
  if (s == KC_OK) {
    kc_kernel *k = NULL;
    ck_assert_int_eq(kc_module_get_kernel(m, "mul_add", &k), KC_OK);
    ck_assert_int_eq(kc_kernel_param_count(k), 3);
    run_mul_add(k);
  }
  kc_module_free(m);
  free(ptx);
  return s;
}

static void assert_error(kc_status got, kc_status want, const char *a, const char *b) {
  const char *msg = kc_last_error(ctx);
  ck_assert_msg(got == want, "status %s, want %s: %s", kc_status_name(got),
                kc_status_name(want), msg);
  ck_assert_msg(strstr(msg, a) != NULL, "'%s' does not say '%s'", msg, a);
  ck_assert_msg(!b || strstr(msg, b) != NULL, "'%s' does not say '%s'", msg, b);
}

/* ---- Without NVRTC ------------------------------------------------------------------ */
/* No link lines: loaded as ever, the linker never called. */
START_TEST(plain_ptx_loads_without_linker) {
  start();
  ck_assert_int_eq(load_linked(NULL), KC_OK);
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* Link lines count only ahead of the first .entry (where the compiler writes them): one
 * after it is a comment like any other, and the PTX loads without the linker. */
START_TEST(link_line_after_entry_is_ignored) {
  start();
  char *ptx = caller_ptx(NULL);
  char *brace = strstr(ptx, "{\n\t.reg");   /* the kernel's body */
  ck_assert_ptr_nonnull(brace);
  size_t len = strlen(ptx) + 64;
  char *late = malloc(len);
  ck_assert_ptr_nonnull(late);
  snprintf(late, len, "%.*s{\n// kcc-link: /nonexistent/late.ptx\n%s", (int)(brace - ptx),
           ptx, brace + 2);
  kc_module *m = NULL;
  ck_assert_msg(kc_module_load_ptx(ctx, late, strlen(late), &m) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_ptr_nonnull(strstr(late, "{\n// kcc-link: /nonexistent/late.ptx\n\t.reg"));
  kc_module_free(m);
  free(late);
  free(ptx);
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* Two PTX files: the kernels' PTX as data, then each file, in order, then the linked
 * image loaded before the link state is destroyed. */
START_TEST(links_ptx_files_in_order) {
  start();
  const char *names[] = {"add.ptx", "mul.ptx", NULL};
  ck_assert_msg(load_linked(names) == KC_OK, "%s", kc_last_error(ctx));
  char want[4096];
  snprintf(want, sizeof want,
           "cuLinkCreate\n"
           "cuLinkAddData PTX the kernels' PTX\n"
           "cuLinkAddFile PTX %s/add.ptx\n"
           "cuLinkAddFile PTX %s/mul.ptx\n"
           "cuLinkComplete\n"
           "cuModuleLoadDataEx (the linked image)\n"
           "cuLinkDestroy\n", fixtures, fixtures);
  ck_assert_str_eq(link_log(), want);
  finish_clean();
}
END_TEST

/* Each extension's input kind, as Numba's FILE_EXTENSION_MAP has it (the double
 * takes any bytes for the binary kinds but a cubin, whose ELF header it checks). */
START_TEST(kinds_by_extension) {
  start();
  char dir[] = "/tmp/kcc-link-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char *const exts[] = {"fatbin", "o", "a", "lib", "cubin"};
  char paths[5][64];
  const char *names[] = {"add.ptx", "mul.ptx", paths[0], paths[1], paths[2], paths[3],
                         paths[4], NULL};
  for (int i = 0; i < 5; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/input %d.%s", dir, i, exts[i]);   /* a space */
    FILE *f = fopen(paths[i], "wb");
    ck_assert_ptr_nonnull(f);
    fputs(i == 4 ? "\177ELF, which is all the double checks of a cubin" : "not checked", f);
    fclose(f);
  }
  kc_status s = load_linked(names);
  char want[16384];
  snprintf(want, sizeof want,
           "cuLinkCreate\ncuLinkAddData PTX the kernels' PTX\n"
           "cuLinkAddFile PTX %s/add.ptx\ncuLinkAddFile PTX %s/mul.ptx\n"
           "cuLinkAddFile FATBINARY %s\ncuLinkAddFile OBJECT %s\n"
           "cuLinkAddFile LIBRARY %s\ncuLinkAddFile LIBRARY %s\ncuLinkAddFile CUBIN %s\n"
           "cuLinkComplete\ncuModuleLoadDataEx (the linked image)\ncuLinkDestroy\n",
           fixtures, fixtures, paths[0], paths[1], paths[2], paths[3], paths[4]);
  for (int i = 0; i < 5; i++) unlink(paths[i]);
  rmdir(dir);
  ck_assert_msg(s == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_str_eq(link_log(), want);
  finish_clean();
}
END_TEST

/* kc_module_load_file links too (the PTX read from a file). */
START_TEST(load_file_links) {
  start();
  const char *names[] = {"add.ptx", "mul.ptx", NULL};
  char *ptx = caller_ptx(names);
  char path[] = "/tmp/kcc-link-caller-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, ptx, strlen(ptx)), (ssize_t)strlen(ptx));
  close(fd);
  free(ptx);
  kc_module *m = NULL;
  kc_status s = kc_module_load_file(ctx, path, &m);
  unlink(path);
  ck_assert_msg(s == KC_OK, "%s", kc_last_error(ctx));
  kc_module_free(m);
  ck_assert_ptr_nonnull(strstr(link_log(), "cuModuleLoadDataEx (the linked image)\n"));
  finish_clean();
}
END_TEST

/* The linker's own error: mul_f32_f32 defined by no input, its log in the message. */
START_TEST(undefined_function_is_the_linkers_error) {
  start();
  const char *names[] = {"add.ptx", NULL};
  assert_error(load_linked(names), KC_ERR_CUDA, "cuLinkComplete",
               "Undefined reference to 'mul_f32_f32'");
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "linker log:"));
  ck_assert_ptr_nonnull(strstr(link_log(), "cuLinkDestroy\n"));   /* not leaked */
  finish_clean();
}
END_TEST

/* A missing file: named, before the linker is started. */
START_TEST(missing_file) {
  start();
  const char *names[] = {"add.ptx", "no_such_file.ptx", NULL};
  assert_error(load_linked(names), KC_ERR_IO, "/tests/link/no_such_file.ptx",
               "No such file or directory");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

START_TEST(unknown_extension) {
  start();
  const char *names[] = {"functions.cuh", NULL};
  assert_error(load_linked(names), KC_ERR_UNSUPPORTED,
               "don't know how to link '", "/tests/link/functions.cuh'");
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "'.cuh'"));
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), ".cu (CUDA C++"));
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

START_TEST(no_extension) {
  start();
  const char *names[] = {"/some/dir.d/functions", NULL};
  assert_error(load_linked(names), KC_ERR_UNSUPPORTED,
               "don't know how to link '/some/dir.d/functions'", "no extension");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* A directory named like a PTX file: refused as the runtime refuses such paths. */
START_TEST(directory_is_not_linked) {
  start();
  char dir[] = "/tmp/kcc-link-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char sub[64];
  snprintf(sub, sizeof sub, "%s/dir.ptx", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  const char *names[] = {sub, NULL};
  kc_status s = load_linked(names);
  rmdir(sub);
  rmdir(dir);
  assert_error(s, KC_ERR_IO, sub, "a directory, not a regular file");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* No NVRTC (KC_NVRTC names a library that is not there): the message says what a .cu
 * needs and where it was looked for. */
START_TEST(nvrtc_missing) {
  setenv("KC_NVRTC", "/nonexistent/libnvrtc.so", 1);
  start();
  const char *names[] = {"add.ptx", "functions.cu", NULL};
  assert_error(load_linked(names), KC_ERR_UNSUPPORTED,
               "link= names a .cu file", "which needs NVRTC (libnvrtc.so from the CUDA "
               "toolkit): not found; searched /nonexistent/libnvrtc.so");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* ---- Out of memory ------------------------------------------------------------------ */
typedef struct counting_alloc {
  long left;    /* allocations that will still succeed; -1: all */
  long live;    /* bytes allocated and not freed */
  long calls;   /* allocations asked for */
} counting_alloc;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting_alloc *c = ud;
  if (nsize == 0) {
    if (ptr) c->live -= (long)osize;
    free(ptr);
    return NULL;
  }
  c->calls++;
  if (c->left == 0) return NULL;
  if (c->left > 0) c->left--;
  void *p = realloc(ptr, nsize);
  if (p) c->live += (long)nsize - (long)(ptr ? osize : 0);
  return p;
}

/* Load caller.ptx linked with names with the n-th allocation failing, for n = 0, 1, ...
 * until a load runs clean: each fails with KC_ERR_NOMEM, gives every byte back and
 * leaves no link state alive. Returns that n. */
static int link_each_allocation_failing(const char *const *names) {
  counting_alloc c = {-1, 0, 0};
  const char *root = getenv("KC_SOURCE_ROOT");
  snprintf(fixtures, sizeof fixtures, "%s/tests/link", root);
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.cache = -1;
  cfg.alloc = failing_alloc;
  cfg.user_data = &c;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  char *ptx = caller_ptx(names);
  long base = c.live;
  int n;
  for (n = 0; n < 1000; n++) {
    c.left = n;
    c.calls = 0;
    kc_module *m = NULL;
    kc_status st = kc_module_load_ptx(ctx, ptx, strlen(ptx), &m);
    c.left = -1;
    if (c.calls <= n) {   /* no allocation failed */
      ck_assert_msg(st == KC_OK, "%s", kc_last_error(ctx));
      kc_module_free(m);
      break;
    }
    ck_assert_msg(st == KC_ERR_NOMEM, "allocation %d failing: %s: %s", n, kc_status_name(st),
                  kc_last_error(ctx));
    ck_assert_ptr_null(m);
    ck_assert_msg(c.live == base, "allocation %d failing: %ld bytes not freed", n,
                  c.live - base);
  }
  free(ptx);
  ck_assert_int_lt(n, 1000);
  printf("linking %s, %s: clean after %d failing allocations\n", names[0], names[1], n);
  finish_clean();
  ck_assert_int_eq(c.live, 0);
  return n;
}

START_TEST(link_out_of_memory) {
  const char *names[] = {"add.ptx", "mul.ptx", NULL};
  ck_assert_int_gt(link_each_allocation_failing(names), 8);
}
END_TEST

/* ---- With NVRTC ---------------------------------------------------------------------- */
/* functions.cu compiled by NVRTC (it includes cuda_fp16.h) and added as PTX data under
 * its path; its mul_f32_f32 resolves the kernel's call (else cuLinkComplete fails). */
START_TEST(links_cu_file) {
  start();
  const char *names[] = {"add.ptx", "functions.cu", NULL};
  ck_assert_msg(load_linked(names) == KC_OK, "%s", kc_last_error(ctx));
  char want[4096];
  snprintf(want, sizeof want,
           "cuLinkCreate\n"
           "cuLinkAddData PTX the kernels' PTX\n"
           "cuLinkAddFile PTX %s/add.ptx\n"
           "cuLinkAddData PTX %s/functions.cu\n"
           "cuLinkComplete\n"
           "cuModuleLoadDataEx (the linked image)\n"
           "cuLinkDestroy\n", fixtures, fixtures);
  ck_assert_str_eq(link_log(), want);
  finish_clean();
}
END_TEST

/* The .cu path's allocations too: the source read, NVRTC's PTX. */
START_TEST(cu_link_out_of_memory) {
  const char *names[] = {"add.ptx", "functions.cu", NULL};
  ck_assert_int_gt(link_each_allocation_failing(names), 10);
}
END_TEST

START_TEST(cu_compile_error_has_nvrtcs_log) {
  start();
  const char *names[] = {"add.ptx", "broken.cu", NULL};
  assert_error(load_linked(names), KC_ERR_SYNTAX, "/tests/link/broken.cu: NVRTC could not "
               "compile it (nvrtcCompileProgram: NVRTC_ERROR_COMPILATION)", "undeclared_factor");
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "broken.cu(3)"));   /* NVRTC's line */
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* ---- LTO-IR: nvJitLink ----------------------------------------------------------------- */
static char ltoir_dir[64], ltoir_path[128];

/* NVRTC's LTO-IR of functions.cu (-dlto), written to a temporary functions.ltoir, as
 * `nvcc -dlto -dc` would make it: the fixture is made here, for this NVRTC. */
static void make_ltoir(void) {
  void *lib = dlopen(KC_CUDA_ROOT "/lib64/libnvrtc.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(lib);
  int (*create)(void **, const char *, const char *, int, const char *const *,
                const char *const *);
  int (*compile)(void *, int, const char *const *);
  int (*size)(void *, size_t *), (*get)(void *, char *);
  void *sym[4] = {dlsym(lib, "nvrtcCreateProgram"), dlsym(lib, "nvrtcCompileProgram"),
                  dlsym(lib, "nvrtcGetLTOIRSize"), dlsym(lib, "nvrtcGetLTOIR")};
  for (int i = 0; i < 4; i++) ck_assert_ptr_nonnull(sym[i]);
  memcpy(&create, &sym[0], sizeof create);
  memcpy(&compile, &sym[1], sizeof compile);
  memcpy(&size, &sym[2], sizeof size);
  memcpy(&get, &sym[3], sizeof get);
  char path[1200], src[8192], inc[600];
  snprintf(path, sizeof path, "%s/functions.cu", fixtures);
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  src[fread(src, 1, sizeof src - 1, f)] = '\0';
  fclose(f);
  snprintf(inc, sizeof inc, "-I%s/include", KC_CUDA_ROOT);
  const char *opts[] = {"-arch=compute_80", "-rdc=true", "-dlto", inc};
  void *prog = NULL;
  size_t n = 0;
  ck_assert_int_eq(create(&prog, src, "functions.cu", 0, NULL, NULL), 0);
  ck_assert_int_eq(compile(prog, 4, opts), 0);
  ck_assert_int_eq(size(prog, &n), 0);
  char *ir = malloc(n);
  ck_assert_ptr_nonnull(ir);
  ck_assert_int_eq(get(prog, ir), 0);
  snprintf(ltoir_dir, sizeof ltoir_dir, "/tmp/kcc-ltoir-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(ltoir_dir));
  snprintf(ltoir_path, sizeof ltoir_path, "%s/functions.ltoir", ltoir_dir);
  f = fopen(ltoir_path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(ir, 1, n, f), n);
  fclose(f);
  free(ir);
}

static void remove_ltoir(void) {
  unlink(ltoir_path);
  rmdir(ltoir_dir);
}

/* With LTO-IR the whole link is nvJitLink's (-lto, for the double's sm_80), never the
 * driver's linker: the cubin it makes reaches cuModuleLoadDataEx, where the double,
 * which loads only PTX, refuses it (a GPU runs it: test_cuda_gpu). */
START_TEST(ltoir_links_with_nvjitlink) {
  start();
  make_ltoir();
  const char *names[] = {"add.ptx", ltoir_path, NULL};
  kc_status s = load_linked(names);
  remove_ltoir();
  assert_error(s, KC_ERR_CUDA, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_IMAGE",
               "cuda-double: the image is not PTX text");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* nvJitLink's own error, its log in the message: add_f32_f32 defined nowhere. */
START_TEST(ltoir_undefined_is_nvjitlinks_error) {
  start();
  make_ltoir();
  const char *names[] = {ltoir_path, NULL};
  kc_status s = load_linked(names);
  remove_ltoir();
  assert_error(s, KC_ERR_CUDA, "linking the kernels' PTX with nvJitLink (LTO-IR: ",
               "add_f32_f32");
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "functions.ltoir"));
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* ---- libkcrt: the runtime without the compiler ----------------------------------------- */
/* The driver's linker needs no compiler: PTX files link and run as with libkc. */
START_TEST(kcrt_links_ptx_files) {
  start();
  const char *names[] = {"add.ptx", "mul.ptx", NULL};
  ck_assert_msg(load_linked(names) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_ptr_nonnull(strstr(link_log(), "cuLinkComplete\n"));
  finish_clean();
}
END_TEST

/* LTO-IR needs nvJitLink, which libkcrt lacks: the message says so and what to do. */
START_TEST(kcrt_refuses_ltoir) {
  start();
  char dir[] = "/tmp/kcc-link-XXXXXX", path[64];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/f.ltoir", dir);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs("never read: refused before any linker", f);
  fclose(f);
  const char *names[] = {"add.ptx", path, NULL};
  kc_status s = load_linked(names);
  unlink(path);
  rmdir(dir);
  assert_error(s, KC_ERR_UNSUPPORTED, path, "libkcrt, which has no nvJitLink");
  ck_assert_str_eq(link_log(), "");
  finish_clean();
}
END_TEST

/* libnvrtc as runtime/nvrtc.c looks for it (without KC_NVRTC). */
static int have_nvrtc(void) {
  static const char *const names[] = {KC_CUDA_ROOT "/lib64/libnvrtc.so",
                                      KC_CUDA_ROOT "/lib/libnvrtc.so", "libnvrtc.so.13",
                                      "libnvrtc.so.12", "libnvrtc.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    /* kept open: unloaded, NVIDIA's libraries leak what their constructors made */
    if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return 1;
  }
  return 0;
}

/* libnvJitLink as src/target/ptx_link.c looks for it. */
static int have_nvjitlink(void) {
  static const char *const names[] = {KC_CUDA_ROOT "/lib64/libnvJitLink.so",
                                      KC_CUDA_ROOT "/lib/libnvJitLink.so",
                                      "libnvJitLink.so.13", "libnvJitLink.so.12",
                                      "libnvJitLink.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    /* kept open: unloaded, NVIDIA's libraries leak what their constructors made */
    if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  int nvrtc = strcmp(mode, "nvrtc") == 0, lto = strcmp(mode, "lto") == 0;
  int kcrt = strcmp(mode, "kcrt") == 0;
  if ((nvrtc || lto) && !have_nvrtc()) {
    printf("no libnvrtc (the CUDA toolkit's): the .cu and LTO-IR link tests are skipped\n");
    return 77;
  }
  if (lto && !have_nvjitlink()) {
    printf("no libnvJitLink (the CUDA toolkit's): the LTO-IR link tests are skipped\n");
    return 77;
  }
  unsetenv("KC_NVRTC");
  Suite *su = suite_create(*mode ? mode : "link");
  TCase *tc = tcase_create("link");
  tcase_set_timeout(tc, 60);
  if (nvrtc) {
    tcase_add_test(tc, links_cu_file);
    tcase_add_test(tc, cu_compile_error_has_nvrtcs_log);
    tcase_add_test(tc, cu_link_out_of_memory);
  } else if (lto) {
    tcase_add_test(tc, ltoir_links_with_nvjitlink);
    tcase_add_test(tc, ltoir_undefined_is_nvjitlinks_error);
  } else if (kcrt) {
    tcase_add_test(tc, kcrt_links_ptx_files);
    tcase_add_test(tc, kcrt_refuses_ltoir);
  } else {
    tcase_add_test(tc, plain_ptx_loads_without_linker);
    tcase_add_test(tc, links_ptx_files_in_order);
    tcase_add_test(tc, link_line_after_entry_is_ignored);
    tcase_add_test(tc, kinds_by_extension);
    tcase_add_test(tc, load_file_links);
    tcase_add_test(tc, undefined_function_is_the_linkers_error);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, unknown_extension);
    tcase_add_test(tc, no_extension);
    tcase_add_test(tc, directory_is_not_linked);
    tcase_add_test(tc, nvrtc_missing);
    tcase_add_test(tc, link_out_of_memory);
  }
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
