/*
 * test_image.c — module images without a GPU (runtime/image.c, module.c's loaders):
 * telling PTX, cubins and fatbins apart; the kernel table found in a cubin's ELF
 * symbol table, both in an ELF built here byte by byte and in a real cubin that ptxas
 * makes from kcc's PTX (skipped without ptxas); every truncation and corruption of an
 * ELF read safely; kernel-table lines parsed or rejected with a message naming the
 * line; and CPU contexts refusing images with a message that says what to do instead.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kc_config.h"
#include "rt.h"

/* ---- A minimal 64-bit CUDA ELF: null, .shstrtab, .strtab, .symtab, .nv.constant3 --- */
typedef struct blob {
  unsigned char b[4096];
  size_t n;
} blob;

static void put(blob *o, size_t at, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; i++) o->b[at + i] = (unsigned char)(v >> (8 * i));
}

static size_t append(blob *o, const void *data, size_t n) {
  size_t at = (o->n + 7) & ~(size_t)7;
  memcpy(o->b + at, data, n);
  o->n = at + n;
  return at;
}

static void section_header(blob *o, size_t shoff, int i, uint32_t name, uint32_t type,
                           size_t off, size_t size, uint32_t link, size_t entsize) {
  size_t at = shoff + 64 * (size_t)i;
  put(o, at, name, 4);
  put(o, at + 4, type, 4);
  put(o, at + 24, off, 8);
  put(o, at + 32, size, 8);
  put(o, at + 40, link, 4);
  put(o, at + 56, entsize, 8);
}

/* An ELF whose symbol `symbol` holds `data` (len bytes) at offset 4 of .nv.constant3;
 * machine is the e_machine field (190 for CUDA). */
static void make_elf(blob *o, const char *symbol, const char *data, size_t len,
                     unsigned machine) {
  static const char shstr[] = "\0.shstrtab\0.strtab\0.symtab\0.nv.constant3";
  memset(o, 0, sizeof *o);
  o->n = 64;
  o->b[0] = 0x7f, o->b[1] = 'E', o->b[2] = 'L', o->b[3] = 'F';
  o->b[4] = 2, o->b[5] = 1, o->b[6] = 1;
  put(o, 16, 2, 2);         /* ET_EXEC */
  put(o, 18, machine, 2);
  char strtab[64] = {0};
  snprintf(strtab + 1, sizeof strtab - 1, "%s", symbol);
  size_t strtab_len = 2 + strlen(symbol);
  unsigned char cdata[512] = {0};
  memcpy(cdata + 4, data, len);
  unsigned char sym[48] = {0};   /* symbol 0 is null; symbol 1 is ours */
  size_t shstr_at = append(o, shstr, sizeof shstr);
  size_t strtab_at = append(o, strtab, strtab_len);
  size_t cdata_at = append(o, cdata, len + 4);
  size_t sym_at = append(o, sym, sizeof sym);
  put(o, sym_at + 24, 1, 4);        /* st_name */
  o->b[sym_at + 24 + 4] = 0x11;     /* GLOBAL OBJECT */
  put(o, sym_at + 24 + 6, 4, 2);    /* st_shndx: .nv.constant3 */
  put(o, sym_at + 24 + 8, 4, 8);    /* st_value */
  put(o, sym_at + 24 + 16, len, 8); /* st_size */
  size_t shoff = (o->n + 7) & ~(size_t)7;
  o->n = shoff + 5 * 64;
  put(o, 0x28, shoff, 8);
  put(o, 0x34, 64, 2);
  put(o, 0x3a, 64, 2);
  put(o, 0x3c, 5, 2);
  put(o, 0x3e, 1, 2);
  section_header(o, shoff, 1, 1, 3, shstr_at, sizeof shstr, 0, 0);
  section_header(o, shoff, 2, 11, 3, strtab_at, strtab_len, 0, 0);
  section_header(o, shoff, 3, 19, 2, sym_at, sizeof sym, 2, 24);
  section_header(o, shoff, 4, 27, 1, cdata_at, len + 4, 0, 0);
}

static const char table_text[] =
    "vadd vadd(float32[:], float32[:], float32[:]) written=2\n"
    "scale_i32 scale(int32[:], int32) written=0\n";

START_TEST(image_kinds) {
  blob e;
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 190);
  ck_assert_int_eq(rt_image_kind_of(e.b, e.n), RT_IMAGE_CUBIN);
  static const char ptx[] = "// kcc-kernel: k k()\n.version 7.0\n.target sm_80\n";
  ck_assert_int_eq(rt_image_kind_of(ptx, sizeof ptx - 1), RT_IMAGE_PTX);
  ck_assert_int_eq(rt_image_kind_of(ptx, 20), RT_IMAGE_UNKNOWN);   /* cut before it */
  const unsigned char fatbin[8] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  ck_assert_int_eq(rt_image_kind_of(fatbin, sizeof fatbin), RT_IMAGE_FATBIN);
  ck_assert_int_eq(rt_image_kind_of("@cuda.jit\ndef k(): pass\n", 24), RT_IMAGE_UNKNOWN);
  ck_assert_int_eq(rt_image_kind_of(NULL, 10), RT_IMAGE_UNKNOWN);
  ck_assert_int_eq(rt_image_kind_of("\x7f" "EL", 3), RT_IMAGE_UNKNOWN);
  ck_assert_str_eq(rt_image_kind_name(RT_IMAGE_CUBIN), "cubin");
}
END_TEST

START_TEST(cubin_table_found) {
  blob e;
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 190);
  const char *t;
  size_t n;
  char msg[256];
  ck_assert_int_eq(rt_cubin_table(e.b, e.n, &t, &n, msg, sizeof msg), 0);
  ck_assert_uint_eq(n, sizeof table_text - 1);   /* the trailing NUL dropped */
  ck_assert_int_eq(memcmp(t, table_text, n), 0);
  ck_assert_ptr_eq(t, (const char *)e.b + (t - (const char *)e.b));
}
END_TEST

START_TEST(cubin_without_table_or_foreign) {
  blob e;
  const char *t;
  size_t n;
  char msg[256];
  make_elf(&e, "some_other_global", table_text, sizeof table_text, 190);
  ck_assert_int_eq(rt_cubin_table(e.b, e.n, &t, &n, msg, sizeof msg), 1);
  ck_assert_ptr_null(t);
  ck_assert_msg(strstr(msg, "no kernel table (__kcc_kernels)"), "%s", msg);
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 62);   /* x86-64 */
  ck_assert_int_eq(rt_cubin_table(e.b, e.n, &t, &n, msg, sizeof msg), -1);
  ck_assert_str_eq(msg, "an ELF file for machine 62, not a CUDA cubin (machine 190)");
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 190);
  e.b[4] = 1;   /* ELFCLASS32 */
  ck_assert_int_eq(rt_cubin_table(e.b, e.n, &t, &n, msg, sizeof msg), -1);
  ck_assert_str_eq(msg, "not a 64-bit little-endian ELF file, as cubins are");
  make_elf(&e, RT_TABLE_SYMBOL, "a\0b", 3, 190);
  ck_assert_int_eq(rt_cubin_table(e.b, e.n, &t, &n, msg, sizeof msg), -1);
  ck_assert_msg(strstr(msg, "is not text"), "%s", msg);
}
END_TEST

/* Every prefix of the file, and every byte of it flipped, is read without going past
 * the end (ASan and valgrind runs would catch a stray read); results stay in -1..1. */
START_TEST(cubin_truncated_and_corrupted) {
  blob e;
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 190);
  const char *t;
  size_t n;
  char msg[256];
  for (size_t len = 0; len < e.n; len++) {
    unsigned char *copy = malloc(len ? len : 1);   /* exact size: overreads are caught */
    memcpy(copy, e.b, len);
    int r = rt_cubin_table(copy, len, &t, &n, msg, sizeof msg);
    ck_assert_msg(r == -1 || r == 1, "prefix of %zu bytes gave %d", len, r);
    free(copy);
  }
  for (size_t i = 0; i < e.n; i++) {
    unsigned char *copy = malloc(e.n);
    memcpy(copy, e.b, e.n);
    copy[i] ^= 0xff;
    int r = rt_cubin_table(copy, e.n, &t, &n, msg, sizeof msg);
    ck_assert(r >= -1 && r <= 1);
    if (r == 0) ck_assert((const unsigned char *)t >= copy && (const unsigned char *)t + n <= copy + e.n);
    free(copy);
  }
}
END_TEST

/* ---- A real cubin: kcc's PTX through ptxas ------------------------------------------ */
static char *compile_ptx(const char *src, size_t *len) {
  kcc_options o;
  kcc_output out;
  kcc_options_init(&o);
  o.arch = 80;
  memset(&out, 0, sizeof out);
  ck_assert_int_eq(kcc_compile(&o, "t.k", src, strlen(src), &out), KC_OK);
  char *text = strdup(out.text);
  *len = out.text_len;
  kcc_output_free(&out);
  return text;
}

static const char kernel_src[] =
    "from numba import cuda, float32, int32\n"
    "@cuda.jit\n"
    "def saxpy(a: float32, x: float32[:], y: float32[:], out: float32[:]):\n"
    "    i = cuda.grid(1)\n"
    "    if i < out.size:\n"
    "        out[i] = a * x[i] + y[i]\n"
    "@cuda.jit\n"
    "def bump(x: int32[:, :], n: int32):\n"
    "    i, j = cuda.grid(2)\n"
    "    if i < x.shape[0] and j < x.shape[1]:\n"
    "        x[i, j] += n\n";

/* The "// kcc-kernel:" comment lines of the PTX, prefixes dropped: what the cubin's
 * table must hold too. */
static void comment_table(const char *ptx, char *buf, size_t len) {
  size_t o = 0;
  for (const char *p = ptx; (p = strstr(p, "// kcc-kernel: ")); ) {
    p += strlen("// kcc-kernel: ");
    size_t ll = strcspn(p, "\n");
    o += (size_t)snprintf(buf + o, len - o, "%.*s\n", (int)ll, p);
    p += ll;
  }
}

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = malloc(1 << 20);
  *len = fread(b, 1, 1 << 20, f);
  fclose(f);
  return b;
}

/* ptxas's cubin of kcc's PTX, or NULL (and a note) without ptxas. */
static unsigned char *real_cubin(size_t *clen, char *expected, size_t elen) {
  char ptxas[512], ptx_path[64] = "/tmp/kcc-image-XXXXXX.ptx", cmd[2048];
  snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", KC_CUDA_ROOT);
  if (access(ptxas, X_OK) != 0) {
    fprintf(stderr, "note: no %s: the real-cubin checks did not run\n", ptxas);
    return NULL;
  }
  size_t plen;
  char *ptx = compile_ptx(kernel_src, &plen);
  comment_table(ptx, expected, elen);
  int fd = mkstemps(ptx_path, 4);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, ptx, plen), (ssize_t)plen);
  close(fd);
  char cubin_path[80];
  snprintf(cubin_path, sizeof cubin_path, "%s.cubin", ptx_path);
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_80 '%s' -o '%s'", ptxas, ptx_path, cubin_path);
  ck_assert_int_eq(system(cmd), 0);
  unsigned char *cubin = read_all(cubin_path, clen);
  unlink(ptx_path);
  unlink(cubin_path);
  free(ptx);
  ck_assert_ptr_nonnull(cubin);
  return cubin;
}

START_TEST(ptxas_cubin_carries_the_table) {
  char expected[2048] = "";
  size_t clen;
  unsigned char *cubin = real_cubin(&clen, expected, sizeof expected);
  if (!cubin) return;
  ck_assert_ptr_nonnull(strstr(expected, "bump bump(int32[:, :], int32) written=0\n"));
  ck_assert_ptr_nonnull(strstr(expected, "saxpy(float32, float32[:], float32[:], "
                                         "float32[:]) written=3\n"));
  ck_assert_int_eq(rt_image_kind_of(cubin, clen), RT_IMAGE_CUBIN);
  const char *t;
  size_t n;
  char msg[256];
  ck_assert_int_eq(rt_cubin_table(cubin, clen, &t, &n, msg, sizeof msg), 0);
  ck_assert_uint_eq(n, strlen(expected));
  ck_assert_int_eq(memcmp(t, expected, n), 0);
  /* on the CPU device the image is read and its table parsed, then refused */
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx;
  kc_module *m = (kc_module *)1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_int_eq(kc_module_load_image(ctx, cubin, clen, NULL, &m), KC_ERR_UNSUPPORTED);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(kc_last_error(ctx),
                   "cubin needs a CUDA device (this context runs on the CPU); compile from "
                   "source for the CPU (kc_compile_file)");
  kc_context_free(ctx);
  free(cubin);
}
END_TEST

/* ---- The public loaders on a CPU context -------------------------------------------- */
static kc_context *cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  return ctx;
}

START_TEST(load_image_errors_on_cpu) {
  kc_context *ctx = cpu_context();
  kc_module *m;
  blob e;
  make_elf(&e, RT_TABLE_SYMBOL, table_text, sizeof table_text, 190);
  /* a well-formed table: parsed, then the device refuses */
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, NULL, &m), KC_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "cubin needs a CUDA device"));
  static const char ptx[] = "// kcc-kernel: k k(int32)\n.version 7.0\n";
  ck_assert_int_eq(kc_module_load_image(ctx, ptx, sizeof ptx - 1, NULL, &m),
                   KC_ERR_UNSUPPORTED);
  ck_assert_str_eq(kc_last_error(ctx), "PTX needs a CUDA device (this context runs on the "
                   "CPU); compile from source for the CPU (kc_compile_file)");
  /* what is not an image */
  ck_assert_int_eq(kc_module_load_image(ctx, "def k(): pass", 13, NULL, &m), KC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), "neither PTX (no .version), a cubin"));
  ck_assert_int_eq(kc_module_load_image(ctx, NULL, 0, NULL, &m), KC_ERR_INVALID);
  ck_assert_int_eq(kc_module_load_image(NULL, ptx, 3, NULL, &m), KC_ERR_INVALID);
  /* a cubin without a table, and bad tables given or found */
  make_elf(&e, "other", table_text, sizeof table_text, 190);
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, NULL, &m), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "cubin: no kernel table (__kcc_kernels): not made "
                   "by kcc; pass the table to kc_module_load_image");
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "k k(int32) written=0", &m),
                   KC_ERR_UNSUPPORTED);   /* a table given: parsed, then refused */
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "k k(float33[:])", &m),
                   KC_ERR_INVALID);
  ck_assert_msg(strstr(kc_last_error(ctx), "kernel table: bad line 'k k(float33[:])'"), "%s",
                kc_last_error(ctx));
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "k k(int32[:]) written=x", &m),
                   KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "kernel table: bad written list for 'k'");
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "k k(int32[:]) read=0", &m),
                   KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "kernel table: unexpected 'read=0' after the signature of 'k'");
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "k k(int32[:]) written=64", &m),
                   KC_ERR_INVALID);
  /* blank lines are skipped; a line without a symbol is an error */
  ck_assert_int_eq(kc_module_load_image(ctx, e.b, e.n, "\n  \nk k(int32)\n\n", &m),
                   KC_ERR_UNSUPPORTED);
  kc_context_free(ctx);
}
END_TEST

START_TEST(load_file_on_cpu) {
  kc_context *ctx = cpu_context();
  kc_module *m;
  ck_assert_int_eq(kc_module_load_file(ctx, "/nonexistent/a.cubin", &m), KC_ERR_IO);
  ck_assert_str_eq(kc_last_error(ctx), "/nonexistent/a.cubin: cannot open the file (No such file or directory)");
  char path[512];
  snprintf(path, sizeof path, "%s/samples/vector_add.k",
           getenv("KC_SOURCE_ROOT") ? getenv("KC_SOURCE_ROOT") : ".");
  ck_assert_int_eq(kc_module_load_file(ctx, path, &m), KC_ERR_INVALID);
  ck_assert_msg(strstr(kc_last_error(ctx), "is neither PTX, a cubin nor a fatbin (kernel "
                                           "source goes to kc_compile_file)"),
                "%s", kc_last_error(ctx));
  char tmp[] = "/tmp/kcc-image-XXXXXX.ptx";
  int fd = mkstemps(tmp, 4);
  static const char ptx[] = "// kcc-kernel: k k(int32)\n.version 7.0\n";
  ck_assert_int_eq(write(fd, ptx, sizeof ptx - 1), (ssize_t)sizeof ptx - 1);
  close(fd);
  ck_assert_int_eq(kc_module_load_file(ctx, tmp, &m), KC_ERR_UNSUPPORTED);
  ck_assert_ptr_eq(strstr(kc_last_error(ctx), tmp), kc_last_error(ctx));   /* names it */
  ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), ": PTX needs a CUDA device"));
  unlink(tmp);
  kc_context_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("image");
  TCase *t = tcase_create("image");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, image_kinds);
  tcase_add_test(t, cubin_table_found);
  tcase_add_test(t, cubin_without_table_or_foreign);
  tcase_add_test(t, cubin_truncated_and_corrupted);
  tcase_add_test(t, ptxas_cubin_carries_the_table);
  tcase_add_test(t, load_image_errors_on_cpu);
  tcase_add_test(t, load_file_on_cpu);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
