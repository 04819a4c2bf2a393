/*
 * test_builtins.c — the builtin registry (src/builtins/) checked as data: every row is
 * well formed (paths unique, arities ordered, functions present for its kind, the
 * PTX it needs no newer than any kcc writes), and every builtin a user can write is
 * documented and tested: its name appears in a code span of docs/language.md, and a
 * kernel test (a .k file in tests/kernels/, comments stripped) calls it or reads it.
 */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/builtin.h"
#include "libdevice_host.h"
#include "target.h"

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = '\0';
  fclose(f);
  return s;
}

static const char *source_root(void) {
  const char *r = getenv("KC_SOURCE_ROOT");
  return r ? r : ".";
}

/* The text of every `code span` of a Markdown file, one per line. */
static char *code_spans(const char *md) {
  char *out = calloc(strlen(md) + 2, 1);
  size_t n = 0;
  for (const char *p = md; *p; p++) {
    if (*p != '`') continue;
    const char *end = strchr(p + 1, '`');
    if (!end) break;
    memcpy(out + n, p + 1, (size_t)(end - p - 1));
    n += (size_t)(end - p - 1);
    out[n++] = '\n';
    p = end;
  }
  return out;
}

/* Every .k file in tests/kernels/, '#' comments removed (a name in a comment is not a use). */
static char *kernel_tests(void) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/kernels", source_root());
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  size_t cap = 1 << 16, n = 0;
  char *all = malloc(cap);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 3 || strcmp(de->d_name + len - 2, ".k") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    char *s = read_file(path);
    if (!s) continue;
    size_t sl = strlen(s);
    if (n + sl + 2 > cap) {
      while (n + sl + 2 > cap) cap *= 2;
      all = realloc(all, cap);
    }
    bool comment = false;
    for (const char *p = s; *p; p++) {
      if (*p == '#') comment = true;
      if (*p == '\n') comment = false;
      if (!comment) all[n++] = *p;
    }
    all[n++] = '\n';
    free(s);
  }
  closedir(d);
  all[n] = '\0';
  return all;
}

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* key occurs in text with no word character right before it (a '.' may be: the key
 * "atomic.add(" is in "cuda.atomic.add(") and, when whole, none right after. A
 * method's key (".conjugate(") follows its receiver ("z.conjugate(") directly. */
static bool mentions(const char *text, const char *key, bool whole) {
  size_t k = strlen(key);
  for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
    if (key[0] != '.' && p > text && word_char(p[-1])) continue;
    if (whole && word_char(p[k])) continue;
    return true;
  }
  return false;
}

/* The last two components of a user name ("atomic.add" of "cuda.atomic.add"), or the
 * name itself. */
static const char *tail2(const char *name) {
  const char *last = strrchr(name, '.');
  if (!last) return name;
  const char *p = last;
  while (p > name && p[-1] != '.') p--;
  return p;
}

static bool user_visible(const builtin *b) {
  return (b->kind == BK_FUNCTION || b->kind == BK_VALUE || b->kind == BK_METHOD ||
          b->kind == BK_ATTRIBUTE) && !(b->flags & BF_REFUSED) &&
         strncmp(b->path, "_kc_", 4) != 0;   /* _kc_row, _kc_cell: generated code only */
}

/* The flags the CPU back end's region form reads (host_regions.c) say one thing each:
 * a pure row has no effect, a uniform one is no thread's own, an array maker says where
 * its array lives. */
static void row_flags_agree(const builtin *b) {
  unsigned fl = b->flags;
  const unsigned effects = BF_BARRIER | BF_WARP | BF_WRITES_ARG0 | BF_NEW_ARRAY | BF_GROUP;
  ck_assert_msg(!(fl & BF_PURE) || !(fl & effects), "%s: pure, with an effect", b->path);
  ck_assert_msg(!(fl & BF_ARRAY_SHAPE) || (fl & BF_PURE), "%s: BF_ARRAY_SHAPE, not pure", b->path);
  ck_assert_msg(!(fl & BF_UNIFORM) || !(fl & BF_THREAD_INDEX), "%s: uniform and per thread",
                b->path);
  ck_assert_msg(!(fl & BF_COLLECTIVE) || (fl & BF_BARRIER), "%s: a collective, no barrier",
                b->path);
  ck_assert_msg(!(fl & BF_FOLD) == !b->fold, "%s: BF_FOLD, and only it, has a fold", b->path);
  ck_assert_msg(!(fl & BF_NEW_ARRAY) || b->op == MEM_SHARED || b->op == MEM_LOCAL ||
                b->op == MEM_CONST, "%s: an array maker's op is where its array lives", b->path);
}

/* Exactly one row is the plain barrier, cuda.syncthreads() (host_regions.c splits there). */
START_TEST(one_plain_barrier) {
  int n = 0;
  for (const builtin_family *f = kcc_builtins()->families; f->name; f++)
    for (const builtin *b = f->rows; b->path; b++)
      if ((b->flags & BF_BARRIER) && !(b->flags & (BF_COLLECTIVE | BF_GROUP | BF_WARP))) {
        ck_assert_str_eq(b->path, "numba.cuda.syncthreads");
        n++;
      }
  ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(rows_are_well_formed) {
  for (const builtin_family *f = kcc_builtins()->families; f->name; f++) {
    for (const builtin *b = f->rows; b->path; b++) {
      ck_assert_msg(builtin_find(kcc_builtins(), b->path) == b, "%s: path listed twice", b->path);
      ck_assert_msg(b->max_args < 0 || b->min_args <= b->max_args, "%s: arity", b->path);
      ck_assert_msg(b->min_ptx <= NVPTX_MIN_PTX, "%s: needs PTX %d.%d", b->path,
                    b->min_ptx / 10, b->min_ptx % 10);
      bool typed = b->kind == BK_FUNCTION || b->kind == BK_VALUE || b->kind == BK_METHOD ||
                   b->kind == BK_ATTRIBUTE;
      ck_assert_msg(!typed || b->typing, "%s: no typing function", b->path);
      ck_assert_msg(!typed || b->lower || (b->flags & (BF_LOOP | BF_FOLD | BF_REFUSED | BF_REWRITTEN)), "%s: no lowering",
                    b->path);
      ck_assert_msg(typed || (!b->typing && !b->lower), "%s: a %s has no functions", b->path,
                    b->kind == BK_MODULE ? "module" : "decorator");
      bool of_value = b->kind == BK_METHOD || b->kind == BK_ATTRIBUTE;
      ck_assert_msg(of_value == (b->path[0] == '.'),
                    "%s: a method's or attribute's path, and only theirs, starts with '.'",
                    b->path);
      ck_assert_msg(!(b->flags & BF_CONSTANT) || b->kind == BK_VALUE, "%s: constant", b->path);
      row_flags_agree(b);
    }
  }
}
END_TEST

START_TEST(lookup_by_path) {
  ck_assert_ptr_null(builtin_find(kcc_builtins(), "numba.cuda.no_such_thing"));
  const builtin *b = builtin_find(kcc_builtins(), "numba.cuda.atomic.add");
  ck_assert_ptr_nonnull(b);
  ck_assert_str_eq(builtin_user_name(b), "cuda.atomic.add");
  ck_assert(b->flags & BF_WRITES_ARG0);
  ck_assert(builtin_find(kcc_builtins(), "numba.cuda.syncthreads")->flags & BF_BARRIER);
  ck_assert_int_eq(builtin_find(kcc_builtins(), "numba.cuda.match_any_sync")->min_sm, 70);
}
END_TEST

START_TEST(every_builtin_documented_and_tested) {
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/language.md", source_root());
  char *md = read_file(path);
  ck_assert_msg(md != NULL, "cannot read %s", path);
  char *spans = code_spans(md);
  char *kernels = kernel_tests();
  int missing = 0;
  for (const builtin_family *f = kcc_builtins()->families; f->name; f++) {
    for (const builtin *b = f->rows; b->path; b++) {
      if (!user_visible(b)) continue;
      bool of_value = b->kind == BK_METHOD || b->kind == BK_ATTRIBUTE;
      bool called = b->kind == BK_FUNCTION || b->kind == BK_METHOD;
      const char *name = of_value ? b->path : builtin_user_name(b);
      /* numpy.sin is written np.sin, NumPy's conventional alias, in docs and kernels */
      char np_name[256];
      if (strncmp(name, "numpy.", 6) == 0) {
        snprintf(np_name, sizeof np_name, "np.%s", name + 6);
        name = np_name;
      }
      if (!mentions(spans, name, true)) {
        fprintf(stderr, "%s (src/builtins/%s.c): no `%s` in docs/language.md\n", b->path,
                f->name, name);
        missing++;
      }
      char key[300];
      snprintf(key, sizeof key, "%s%s", tail2(name), called ? "(" : "");
      if (!mentions(kernels, key, !called)) {
        fprintf(stderr, "%s (src/builtins/%s.c): no kernel test in tests/kernels/ uses %s\n",
                b->path, f->name, key);
        missing++;
      }
    }
  }
  free(md);
  free(spans);
  free(kernels);
  ck_assert_msg(missing == 0, "%d builtins undocumented or untested (listed above)", missing);
}
END_TEST

/* cuda.libdevice's rows (libdevice.c, outside the families): reached by path, each
 * signature of the letters libdevice.c reads, and each function bound to a host
 * version for the CPU back end (libdevice_host.c), and no host version without a row. */
static bool host_has(const char *name) {
  for (size_t i = 0; i < libdevice_host_nfns; i++)
    if (strcmp(libdevice_host_fns[i].name, name) == 0) return true;
  return false;
}

START_TEST(libdevice_rows) {
  int n = 0;
  for (const builtin *b = builtins_libdevice; b->path; b++) {
    ck_assert_msg(builtin_find(kcc_builtins(), b->path) == b, "%s: not found by path", b->path);
    if (b->kind == BK_MODULE) continue;
    n++;
    const char *sig = b->name;
    ck_assert_msg(sig && strchr("dfilsv", sig[0]) && sig[1] == ':', "%s: signature", b->path);
    ck_assert_msg(strspn(sig + 2, "dfilsDFI") == strlen(sig + 2) && strlen(sig + 2) <= 4,
                  "%s: parameters '%s'", b->path, sig + 2);
    char nv[128];
    snprintf(nv, sizeof nv, "__nv_%s", strrchr(b->path, '.') + 1);
    ck_assert_msg(host_has(nv), "%s: no host version of %s", b->path, nv);
  }
  ck_assert_int_eq((size_t)n, libdevice_host_nfns);
  ck_assert_ptr_nonnull(builtin_find(kcc_builtins(), "numba.cuda.libdevice.sincos"));
  ck_assert_ptr_null(builtin_find(kcc_builtins(), "numba.cuda.libdevice.nan"));  /* left out, as Numba */
}
END_TEST

int main(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = tcase_create("registry");
  tcase_add_test(tc, rows_are_well_formed);
  tcase_add_test(tc, one_plain_barrier);
  tcase_add_test(tc, lookup_by_path);
  tcase_add_test(tc, every_builtin_documented_and_tested);
  tcase_add_test(tc, libdevice_rows);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
