/* print.c — print() output, captured from this process's stdout (fd 1, where both the
 * CPU back end's printf and the CUDA driver's printf buffer go), compared line by line,
 * in sorted order since threads print concurrently, with lines formatted here in C by
 * the rules Numba's CUDA print follows (%lld / %llu for integers, %f for floats, bools
 * as True/False). print's sep= and end= (kernel show_sep, one thread) are compared as
 * the whole text, built here from Python's rule: the arguments joined by sep, then end. */
#include <unistd.h>

#include "harness.h"

#define N 37
#define MAX_LINE 512

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Redirect fd 1 to a temporary file until capture_end, which returns its text. */
static FILE *capture_file;
static int saved_stdout = -1;

static void capture_begin(void) {
  fflush(stdout);
  capture_file = tmpfile();
  if (!capture_file) h_die("tmpfile failed");
  saved_stdout = dup(1);
  if (saved_stdout < 0 || dup2(fileno(capture_file), 1) < 0) h_die("dup2 failed");
}

static char *capture_end(void) {
  fflush(stdout);
  dup2(saved_stdout, 1);
  close(saved_stdout);
  long len = ftell(capture_file);
  if (len < 0) h_die("ftell failed");
  char *text = h_alloc((size_t)len + 1, 1);
  rewind(capture_file);
  if (fread(text, 1, (size_t)len, capture_file) != (size_t)len) h_die("fread failed");
  fclose(capture_file);
  return text;
}

/* Split text into lines (in place); returns the count. */
static int split_lines(char *text, char **lines, int max) {
  int n = 0;
  for (char *p = text; *p && n < max;) {
    char *nl = strchr(p, '\n');
    if (!nl) h_die("output does not end with a newline: \"%s\"", p);
    *nl = '\0';
    lines[n++] = p;
    p = nl + 1;
  }
  return n;
}

/* The text show_sep prints for n, x: each print's arguments joined by its sep, then
 * its end (sep and end as the kernel's string constants decode). */
static void want_sep(char *out, size_t size, const int64_t *n, const double *x) {
  long long a = (long long)n[0], b = (long long)n[1];
  snprintf(out, size,
           "%lld, %f, %lld\n"                   /* sep=", " */
           "a%lld" "-b!\n"                       /* sep="", end="" then end="!\n" */
           "%lld%%d%%%%s%f 100%%\n"              /* '%' in sep and end printed as is */
           "tab\t%lld\n\n"                       /* sep="\t", end="\n\n" */
           "empty\n"                            /* no arguments: only end */
           "x\ny\n"                             /* sep="\n" */
           "q\"'\\r\\\n"                        /* quotes and backslashes */
           "%lld True\n"                        /* sep=None, end=None: the defaults */
           "\xc3\xa9\xe2\x86\x92%lld\n"           /* UTF-8: e-acute, arrow */
           "%lld | %f;\n"                       /* in a device function */
           "tri==1\n",                          /* triple-quoted, end a real newline */
           a, x[0], b, a, b, x[1], a, a, a, a, x[0]);
}

/* One thread of kernel name run with args: what it printed must be want. */
static void check_printed(const char *name, const kc_arg *args, int nargs, const char *want,
                          const char *what) {
  capture_begin();
  kc_status s = kc_launch(h_kernel(name), kc_dim(1), kc_dim(1), 0, NULL, args, nargs);
  if (s == KC_OK) s = kc_synchronize(H.ctx);
  char *text = capture_end();
  h_ok(s, name);
  if (strcmp(text, want) != 0 && H.failures++ == 0)
    printf("FAIL print: %s printed\n\"%s\"\nexpected\n\"%s\"\n", what, text, want);
  free(text);
}

static void check_sep(void) {
  int64_t n[2] = {-42, 7000000000ll};
  double x[2] = {0.5, -3.25};
  kc_array *na = h_array1(KC_INT64, 2, n), *xa = h_array1(KC_FLOAT64, 2, x);
  kc_arg args[2] = {kc_arg_array(na), kc_arg_array(xa)};
  char want[MAX_LINE * 4];
  want_sep(want, sizeof want, n, x);
  check_printed("show_sep", args, 2, want, "sep=/end=");
  kc_array_free(na), kc_array_free(xa);
}

/* 32 items print as usual; 33 print the format as Numba builds it: each item's
 * conversion (strings as %s, ints as %lld) joined by spaces, '%' as it is. */
static void check_many(void) {
  int64_t n[1] = {-7};
  kc_array *na = h_array1(KC_INT64, 1, n);
  kc_arg arg = kc_arg_array(na);
  char want[MAX_LINE * 4] = "";
  for (int i = 0; i < 32; i++) strcat(want, i ? " -7" : "-7");
  strcat(want, "\n%s");
  for (int i = 0; i < 31; i++) strcat(want, " %lld");
  strcat(want, " %s\n");
  check_printed("show_many", &arg, 1, want, "32 and 33 items");
  kc_array_free(na);
}

static void check_show(void) {
  int32_t i32[N];
  float f32[N];
  double f64[N];
  uint64_t u64[N];
  int8_t i8[N];
  uint8_t u8[N];
  int16_t i16[N];
  uint32_t u32[N];
  int64_t i64[N];
  uint8_t flags[N];
  for (int i = 0; i < N; i++) {
    i32[i] = (i - 18) * 100003;
    f32[i] = (float)i * 0.25f - 3.0f;
    f64[i] = (double)i * -1.125e3;
    u64[i] = 18446744073709551615ull - (uint64_t)i * 977;
    i8[i] = (int8_t)(i * 7 - 128);
    u8[i] = (uint8_t)(255 - i);
    i16[i] = (int16_t)(i * -901);
    u32[i] = 4294967295u - (uint32_t)i;
    i64[i] = (int64_t)i * -123456789012ll;
    flags[i] = (uint8_t)(i % 3 == 0);
  }
  const kc_dtype dt[] = {KC_INT32, KC_FLOAT32, KC_FLOAT64, KC_UINT64, KC_INT8,
                         KC_UINT8, KC_INT16, KC_UINT32, KC_INT64, KC_BOOL};
  const void *host[] = {i32, f32, f64, u64, i8, u8, i16, u32, i64, flags};
  kc_array *arr[10];
  kc_arg args[10];
  for (int k = 0; k < 10; k++) {
    arr[k] = h_array1(dt[k], N, host[k]);
    args[k] = kc_arg_array(arr[k]);
  }

  /* the expected lines */
  enum { MAXL = 2 * N + 2 };
  char *want[MAXL];
  int nwant = 0;
  for (int i = 0; i < N; i++) {
    char buf[MAX_LINE];
    snprintf(buf, sizeof buf, "row %d %lld %f %f %llu %lld %llu %lld %llu %lld %s 100%%", i,
             (long long)i32[i], (double)f32[i], f64[i], (unsigned long long)u64[i],
             (long long)i8[i], (unsigned long long)u8[i], (long long)i16[i],
             (unsigned long long)u32[i], (long long)i64[i], flags[i] ? "True" : "False");
    want[nwant++] = strdup(buf);
    snprintf(buf, sizeof buf, "dev %lld %f", (long long)(i64[i] * 2), (double)(f32[i] + 0.5f));
    want[nwant++] = strdup(buf);
  }
  want[nwant++] = strdup("");
  want[nwant++] = strdup("only text True False");

  capture_begin();
  kc_status s = kc_launch(h_kernel("show"), kc_dim(3), kc_dim(16), 0, NULL, args, 10);
  if (s == KC_OK) s = kc_synchronize(H.ctx);
  char *text = capture_end();
  h_ok(s, "kc_launch show");

  char *got[MAXL + 8];
  int ngot = split_lines(text, got, MAXL + 8);
  if (ngot != nwant) h_die("%d lines printed, %d expected", ngot, nwant);
  qsort(got, (size_t)ngot, sizeof *got, cmp_str);
  qsort(want, (size_t)nwant, sizeof *want, cmp_str);
  for (int i = 0; i < nwant; i++)
    if (strcmp(got[i], want[i]) != 0 && H.failures++ == 0)
      printf("FAIL print: line \"%s\" expected \"%s\" (sorted order)\n", got[i], want[i]);
  for (int i = 0; i < nwant; i++) free(want[i]);
  free(text);
  for (int k = 0; k < 10; k++) kc_array_free(arr[k]);
}

int main(int argc, char **argv) {
  h_begin("print", argc, argv);
  check_show();
  check_sep();
  check_many();
  return h_end();
}
