/*
 * compile_bench.c — compile latency of kcc side by side with its peers, one row per
 * kernel of bench/kernels/NAME.k (peer: bench/cuda/NAME.cu), as a Markdown table:
 *
 *   kcc          source -> PTX in process (kcc_compile, the JIT path), warm median
 *   kcc 1st      the first compile in a fresh process (this program run again)
 *   NVRTC        the .cu -> PTX in process through libnvrtc (dlopen'd), warm median
 *   NVRTC 1st    its first compile in a fresh process
 *   kcc proc     `kcc compile NAME.k -o X.ptx` as a process
 *   nvcc proc    `nvcc -ptx -O3 -arch=sm_80 NAME.cu` as a process
 *   nvJitLink    kcc's PTX -> cubin in process (ptx_link.c), warm median
 *   ptxas proc   `ptxas -O3 -arch=sm_80` on the same PTX as a process
 *   cache load   a second process finding the PTX in a warm on-disk cache (the lookup
 *                kc_compile_source does on CUDA before loading the module)
 *
 * Times are CPU time (user + system) in milliseconds, medians of repeated runs: the
 * machine these run on is shared, and CPU time is what a compile costs whoever else is
 * running. Usage:
 *   compile_bench KERNELS_DIR CUDA_DIR KCC [REPS]    the table (and DAT, for a chart)
 *   compile_bench --first FILE.k | --nvrtc-first FILE.cu | --cache-store FILE.k |
 *                 --cache-load FILE.k                 one measurement (used by the table)
 */
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "kc_config.h"
#include "ptx_link.h"
#include "rt.h"

#define MAX_KERNELS 32
#define MAX_REPS 64

/* ---- Clocks and files ----------------------------------------------------------------- */

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double children_cpu_ms(void) {
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); s = NULL; }
  fclose(f);
  if (s) { s[n] = 0; *len = (size_t)n; }
  return s;
}

static void die(const char *what, const char *name) {
  fprintf(stderr, "compile_bench: %s: %s\n", name, what);
  exit(1);
}

/* ---- kcc in process -------------------------------------------------------------------- */

/* One compile of src to PTX; returns its CPU ms, the PTX in *ptx when asked for. */
static double kcc_once(const char *name, const char *src, size_t len, char **ptx) {
  kcc_options o;
  kcc_options_init(&o);
  kcc_output out;
  double t0 = cpu_ms();
  kc_status st = kcc_compile(&o, name, src, len, &out);
  double t = cpu_ms() - t0;
  if (st != KC_OK) die("kcc compile failed", name);
  if (ptx) *ptx = strdup(out.text);
  kcc_output_free(&out);
  return t;
}

/* ---- NVRTC in process, through libnvrtc loaded at run time ---------------------------------- */

typedef struct nvrtc_api {
  int (*create)(void **prog, const char *src, const char *name, int nh, const char *const *h,
                const char *const *hn);
  int (*compile)(void *prog, int nopts, const char *const *opts);
  int (*ptx_size)(void *prog, size_t *n);
  int (*ptx)(void *prog, char *out);
  int (*log_size)(void *prog, size_t *n);
  int (*log)(void *prog, char *out);
  int (*destroy)(void **prog);
} nvrtc_api;

static int nvrtc_sym(void *lib, const char *name, void *slot, size_t size) {
  void *p = dlsym(lib, name);
  if (p) memcpy(slot, &p, size);
  return p != NULL;
}

/* libnvrtc from the toolkit kcc was configured with; 0 when absent. */
static int nvrtc_load(nvrtc_api *r) {
  static const char *const names[] = {KC_CUDA_ROOT "/lib64/libnvrtc.so", "libnvrtc.so.13",
                                      "libnvrtc.so.12", "libnvrtc.so"};
  void *lib = NULL;
  for (size_t i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  return lib && nvrtc_sym(lib, "nvrtcCreateProgram", &r->create, sizeof r->create) &&
         nvrtc_sym(lib, "nvrtcCompileProgram", &r->compile, sizeof r->compile) &&
         nvrtc_sym(lib, "nvrtcGetPTXSize", &r->ptx_size, sizeof r->ptx_size) &&
         nvrtc_sym(lib, "nvrtcGetPTX", &r->ptx, sizeof r->ptx) &&
         nvrtc_sym(lib, "nvrtcGetProgramLogSize", &r->log_size, sizeof r->log_size) &&
         nvrtc_sym(lib, "nvrtcGetProgramLog", &r->log, sizeof r->log) &&
         nvrtc_sym(lib, "nvrtcDestroyProgram", &r->destroy, sizeof r->destroy);
}

/* One .cu -> PTX compile (-O3 is NVRTC's default), CPU ms. */
static double nvrtc_once(const nvrtc_api *r, const char *name, const char *src) {
  static const char *const opts[] = {"-arch=compute_80"};
  void *prog = NULL;
  double t0 = cpu_ms();
  if (r->create(&prog, src, name, 0, NULL, NULL)) die("nvrtcCreateProgram failed", name);
  int bad = r->compile(prog, 1, opts);
  size_t n = 0;
  char *ptx = NULL;
  if (!bad && !r->ptx_size(prog, &n) && (ptx = malloc(n))) bad = r->ptx(prog, ptx);
  double t = cpu_ms() - t0;
  if (bad || !ptx) {
    size_t ln = 0;
    char log[4096] = "";
    if (!r->log_size(prog, &ln) && ln < sizeof log) r->log(prog, log);
    fprintf(stderr, "%s", log);
    die("NVRTC compile failed", name);
  }
  free(ptx);
  r->destroy(&prog);
  return t;
}

/* ---- Processes ------------------------------------------------------------------------------ */

/* Run argv (stdout to /dev/null unless `out` is given: then its first line is read
 * into out); returns the child's CPU ms, or -1 when it failed. */
static double run_cpu_ms(char *const argv[], char *out, size_t outlen) {
  int fds[2];
  if (out && pipe(fds)) return -1;
  double t0 = children_cpu_ms();
  pid_t pid = fork();
  if (pid == 0) {
    if (out) { dup2(fds[1], 1); close(fds[0]); close(fds[1]); }
    else if (!freopen("/dev/null", "w", stdout)) _exit(127);
    execvp(argv[0], argv);
    _exit(127);
  }
  if (out) {
    close(fds[1]);
    ssize_t n = read(fds[0], out, outlen - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
  }
  int status;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return children_cpu_ms() - t0;
}

/* The median over reps runs of argv (or -1 when any failed). */
static double process_median(char *const argv[], int reps) {
  double v[MAX_REPS];
  for (int i = 0; i < reps; i++)
    if ((v[i] = run_cpu_ms(argv, NULL, 0)) < 0) return -1;
  return median(v, reps);
}

/* The median of what `self MODE FILE` prints (one number per run), over reps runs. */
static double self_median(const char *self, const char *mode, const char *file, int reps) {
  double v[MAX_REPS];
  for (int i = 0; i < reps; i++) {
    char line[64];
    char *argv[] = {(char *)self, (char *)mode, (char *)file, NULL};
    if (run_cpu_ms(argv, line, sizeof line) < 0) return -1;
    v[i] = atof(line);
  }
  return median(v, reps);
}

/* ---- One measurement in this process (the fresh process of a table cell) ---------------------- */

static int measure_here(const char *mode, const char *file) {
  size_t len;
  char *src = read_file(file, &len);
  if (!src) die("cannot read", file);
  if (strcmp(mode, "--first") == 0) {
    printf("%.3f\n", kcc_once(file, src, len, NULL));
  } else if (strcmp(mode, "--nvrtc-first") == 0) {
    nvrtc_api r;
    if (!nvrtc_load(&r)) die("libnvrtc not found", file);
    printf("%.3f\n", nvrtc_once(&r, file, src));
  } else if (strcmp(mode, "--cache-store") == 0 || strcmp(mode, "--cache-load") == 0) {
    kcc_options o;
    kcc_options_init(&o);
    rt_cache_key key = rt_cache_key_of(&o, file, src, len);
    kcc_output out;
    if (mode[8] == 's') {  /* --cache-store */
      if (kcc_compile(&o, file, src, len, &out) != KC_OK) die("kcc compile failed", file);
      if (rt_cache_store(&key, &out)) die("cannot store in the cache", file);
      printf("0\n");
    } else {
      double t0 = cpu_ms();
      key = rt_cache_key_of(&o, file, src, len);
      int hit = rt_cache_load(&key, &out);
      double t = cpu_ms() - t0;
      if (!hit) die("not in the cache", file);
      printf("%.3f\n", t);
    }
    kcc_output_free(&out);
  } else {
    die("unknown mode", mode);
  }
  free(src);
  return 0;
}

/* ---- The table ------------------------------------------------------------------------------- */

enum { C_KCC, C_KCC1, C_NVRTC, C_NVRTC1, C_KPROC, C_NVCC, C_NVJL, C_PTXAS, C_CACHE, NCOLS };
static const char *const col_names[NCOLS] = {
  "kcc", "kcc 1st", "NVRTC", "NVRTC 1st", "kcc proc", "nvcc proc", "nvJitLink", "ptxas proc",
  "cache load"};

typedef struct row { char name[64]; double v[NCOLS]; } row;

static int list_kernels(const char *dir, char names[][64]) {
  DIR *d = opendir(dir);
  if (!d) die("cannot open", dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_KERNELS) {
    size_t l = strlen(e->d_name);
    if (l > 2 && l < 60 && strcmp(e->d_name + l - 2, ".k") == 0) {
      memcpy(names[n], e->d_name, l - 2);
      names[n++][l - 2] = '\0';
    }
  }
  closedir(d);
  qsort(names, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
  return n;
}

static void write_tmp(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0) die("cannot write", path);
  fclose(f);
}

static void measure_kernel(row *r, const char *self, const char *kdir, const char *cdir,
                           const char *kcc, const nvrtc_api *nv, int have_nvrtc, int reps,
                           const char *tmp) {
  char kfile[512], cfile[512], ptx_path[600], cubin_path[600];
  snprintf(kfile, sizeof kfile, "%s/%s.k", kdir, r->name);
  snprintf(cfile, sizeof cfile, "%s/%s.cu", cdir, r->name);
  snprintf(ptx_path, sizeof ptx_path, "%s/%s.ptx", tmp, r->name);
  snprintf(cubin_path, sizeof cubin_path, "%s/%s.cubin", tmp, r->name);
  for (int c = 0; c < NCOLS; c++) r->v[c] = -1;
  size_t klen, clen;
  char *ksrc = read_file(kfile, &klen), *csrc = read_file(cfile, &clen);
  if (!ksrc) die("cannot read", kfile);
  double v[MAX_REPS];
  char *ptx = NULL;
  kcc_once(kfile, ksrc, klen, &ptx);  /* warm-up, and the PTX for the cubin columns */
  for (int i = 0; i < reps; i++) v[i] = kcc_once(kfile, ksrc, klen, NULL);
  r->v[C_KCC] = median(v, reps);
  r->v[C_KCC1] = self_median(self, "--first", kfile, reps);
  if (csrc && have_nvrtc) {
    nvrtc_once(nv, cfile, csrc);
    for (int i = 0; i < reps; i++) v[i] = nvrtc_once(nv, cfile, csrc);
    r->v[C_NVRTC] = median(v, reps);
    r->v[C_NVRTC1] = self_median(self, "--nvrtc-first", cfile, reps);
  }
  char *kargv[] = {(char *)kcc, "compile", kfile, "-o", ptx_path, NULL};
  r->v[C_KPROC] = process_median(kargv, reps);
  char nvcc[600];
  snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", KC_CUDA_ROOT);
  if (csrc && access(nvcc, X_OK) == 0) {
    char out[600];
    snprintf(out, sizeof out, "%s/%s.nvcc.ptx", tmp, r->name);
    char *nargv[] = {nvcc, "-ptx", "-O3", "-arch=sm_80", cfile, "-o", out, NULL};
    r->v[C_NVCC] = process_median(nargv, reps);
  }
  if (ptx_link_library()) {
    char *cubin;
    size_t n;
    for (int i = 0; i <= reps; i++) {
      double t0 = cpu_ms();
      if (ptx_link_cubin(ptx, strlen(ptx), 80, 3, 0, &cubin, &n, NULL)) die("nvJitLink", kfile);
      if (i > 0) v[i - 1] = cpu_ms() - t0;  /* the first run loads the library */
      free(cubin);
    }
    r->v[C_NVJL] = median(v, reps);
  }
  char ptxas[600];
  snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", KC_CUDA_ROOT);
  if (access(ptxas, X_OK) == 0) {
    write_tmp(ptx_path, ptx);
    char *pargv[] = {ptxas, "-O3", "-arch=sm_80", ptx_path, "-o", cubin_path, NULL};
    r->v[C_PTXAS] = process_median(pargv, reps);
  }
  char *sargv[] = {(char *)self, "--cache-store", kfile, NULL};
  if (run_cpu_ms(sargv, NULL, 0) >= 0) r->v[C_CACHE] = self_median(self, "--cache-load", kfile, reps);
  free(ptx), free(ksrc), free(csrc);
}

static void print_cell(double v) {
  if (v < 0) printf(" | -");
  else printf(" | %.2f", v);
}

static double geomean(const row *rows, int n, int c) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (rows[i].v[c] <= 0) return -1;
    s += log(rows[i].v[c]);
  }
  return n ? exp(s / n) : -1;
}

static void print_ratio(double a, double b) {
  if (a <= 0 || b <= 0) printf(" | -");
  else printf(" | %.2fx", a / b);
}

static void print_table(const row *rows, int n, const double *gm) {
  printf("| kernel");
  for (int c = 0; c < NCOLS; c++) printf(" | %s", col_names[c]);
  printf(" | kcc/NVRTC | kcc proc/nvcc |\n|---");
  for (int c = 0; c < NCOLS + 2; c++) printf("|---:");
  printf("|\n");
  for (int i = 0; i < n; i++) {
    printf("| %s", rows[i].name);
    for (int c = 0; c < NCOLS; c++) print_cell(rows[i].v[c]);
    print_ratio(rows[i].v[C_KCC], rows[i].v[C_NVRTC]);
    print_ratio(rows[i].v[C_KPROC], rows[i].v[C_NVCC]);
    printf(" |\n");
  }
  printf("| **geometric mean**");
  for (int c = 0; c < NCOLS; c++) print_cell(gm[c]);
  print_ratio(gm[C_KCC], gm[C_NVRTC]);
  print_ratio(gm[C_KPROC], gm[C_NVCC]);
  printf(" |\n");
}

static void print_ratio_target(const char *what, double a, double b, double target) {
  if (a <= 0 || b <= 0) {
    printf("- %s <= %.2fx: not measured\n", what, target);
    return;
  }
  printf("- %s <= %.2fx: %.3fx, %s\n", what, target, a / b,
         a / b <= target ? "met" : "not met");
}

static void print_targets(const row *rows, int n, const double *gm) {
  double first = 0, proc = 0, cache = 0;
  for (int i = 0; i < n; i++) {
    if (rows[i].v[C_KCC1] > first) first = rows[i].v[C_KCC1];
    if (rows[i].v[C_KPROC] > proc) proc = rows[i].v[C_KPROC];
    if (rows[i].v[C_CACHE] > cache) cache = rows[i].v[C_CACHE];
  }
  printf("\nTargets (issue 7):\n\n");
  printf("- in process, geometric mean <= 3 ms: %.2f ms, %s\n", gm[C_KCC],
         gm[C_KCC] > 0 && gm[C_KCC] <= 3 ? "met" : "not met");
  printf("- first compile in a fresh process <= 15 ms: worst %.2f ms, %s\n", first,
         first > 0 && first <= 15 ? "met" : "not met");
  printf("- whole `kcc compile` process <= 25 ms: worst %.2f ms, %s\n", proc,
         proc > 0 && proc <= 25 ? "met" : "not met");
  printf("- warm disk cache, second process <= 1 ms: worst %.3f ms, %s\n", cache,
         cache > 0 && cache <= 1 ? "met" : "not met");
  printf("- Numba `compile_ptx`: not run: numba not installed\n");
  printf("\nTargets (issue 31), geometric means:\n\n");
  print_ratio_target("in process against NVRTC", gm[C_KCC], gm[C_NVRTC], 0.15);
  print_ratio_target("a whole `kcc compile` process against `nvcc -ptx`", gm[C_KPROC],
                     gm[C_NVCC], 0.05);
}

/* kernel kcc NVRTC kcc-proc nvcc-proc, for the chart */
static void write_dat(const char *path, const row *rows, int n, const double *gm) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write", path);
  fprintf(f, "# kernel kcc NVRTC kcc_proc nvcc_proc nvJitLink ptxas_proc (CPU ms)\n");
  for (int i = 0; i <= n; i++) {
    const double *v = i < n ? rows[i].v : gm;
    fprintf(f, "%s %.3f %.3f %.3f %.3f %.3f %.3f\n", i < n ? rows[i].name : "geomean",
            v[C_KCC], v[C_NVRTC], v[C_KPROC], v[C_NVCC], v[C_NVJL], v[C_PTXAS]);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc == 3 && strncmp(argv[1], "--", 2) == 0) return measure_here(argv[1], argv[2]);
  if (argc < 4) {
    fprintf(stderr, "usage: compile_bench KERNELS_DIR CUDA_DIR KCC [REPS [DAT]]\n");
    return 2;
  }
  int reps = argc > 4 ? atoi(argv[4]) : 11;
  if (reps < 1) reps = 1;
  if (reps > MAX_REPS) reps = MAX_REPS;
  char self[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) die("cannot find itself", "/proc/self/exe");
  self[sl] = '\0';
  char tmp[] = "/tmp/kcc-compile-bench.XXXXXX";
  if (!mkdtemp(tmp)) die("cannot make a temporary directory", tmp);
  setenv("XDG_CACHE_HOME", tmp, 1);  /* a cache of this run's own */
  nvrtc_api nv;
  int have_nvrtc = nvrtc_load(&nv);
  char names[MAX_KERNELS][64];
  int n = list_kernels(argv[1], names);
  row rows[MAX_KERNELS];
  for (int i = 0; i < n; i++) {
    memcpy(rows[i].name, names[i], sizeof rows[i].name);
    measure_kernel(&rows[i], self, argv[1], argv[2], argv[3], &nv, have_nvrtc, reps, tmp);
    fprintf(stderr, "compile_bench: %s done\n", names[i]);
  }
  double gm[NCOLS];
  for (int c = 0; c < NCOLS; c++) gm[c] = geomean(rows, n, c);
  print_table(rows, n, gm);
  print_targets(rows, n, gm);
  if (!have_nvrtc) printf("- NVRTC: not run: libnvrtc not found\n");
  if (argc > 5) write_dat(argv[5], rows, n, gm);
  char cmd[sizeof tmp + 16];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "compile_bench: could not remove %s\n", tmp);
  return 0;
}
