/*
 * host_link.c — link= files for the CPU back end. The GPU links them when the runtime
 * loads the PTX; here they become object code for the JIT, compiled by the system's C
 * or C++ compiler ($CC or cc, $CXX or c++):
 *
 *   - a .cu file itself, as C++ with CUDA's function qualifiers (__device__,
 *     __host__, __forceinline__ ...) defined away, which is all a function of numbers
 *     such as Numba's ffi example needs;
 *   - for GPU code (PTX, a cubin, a fat binary, an object, a library, LTO-IR), a C or
 *     C++ file beside it of the same stem (functions.c or functions.cpp beside
 *     functions.ptx): the CPU's version of the function; without one, an error that
 *     says so.
 *
 * The function keeps Numba's ABI on the CPU too: int name(T *return_value, args...).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

enum { LINK_LOG_MAX = 2000 };

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcmp(path + n - e, ext) == 0;
}

/* The source to compile for path (malloc'd), and whether it is C (else C++); NULL when
 * there is none. */
static char *cpu_source(const char *path, bool *is_c) {
  *is_c = false;
  if (has_ext(path, ".cu")) return strdup(path);
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
  static const char *const exts[] = {".c", ".cpp", ".cc", ".cxx"};
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
    char *p = malloc(stem + 8);
    if (!p) return NULL;
    snprintf(p, stem + 8, "%.*s%s", (int)stem, path, exts[i]);
    if (is_file(p)) {
      *is_c = i == 0;
      return p;
    }
    free(p);
  }
  return NULL;
}

/* Whether prog (a path, or a name looked up in $PATH as execvp does) names an
 * executable file. Checked before forking, so that a child never has to fail its exec
 * and exit: under valgrind such a child would report the whole parent's heap as its
 * leaks and exit with valgrind's status instead of 127. */
static bool can_execute(const char *prog) {
  if (strchr(prog, '/')) return access(prog, X_OK) == 0 && is_file(prog);
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  for (const char *dir = path;; dir++) {
    const char *end = strchr(dir, ':');
    size_t n = end ? (size_t)(end - dir) : strlen(dir);
    char full[4096];
    if (snprintf(full, sizeof full, "%.*s/%s", (int)n, n ? dir : ".", prog) <
            (int)sizeof full &&
        access(full, X_OK) == 0 && is_file(full))
      return true;
    if (!end) return false;
    dir = end;
  }
}

/* Run argv with its standard error into log (NUL-terminated); its exit status, or -1
 * when it could not be run. */
static int run_compiler(char *const argv[], char *log, size_t len) {
  int fd[2];
  log[0] = '\0';
  if (!can_execute(argv[0])) {
    snprintf(log, len, "cannot run %s: no executable file of that name%s", argv[0],
             strchr(argv[0], '/') ? "" : " in $PATH");
    return -1;
  }
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 2);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, 1), dup2(null, 0);
    close(fd[0]);
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s", argv[0], strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  size_t used = 0;
  char buf[512];
  ssize_t got;
  while ((got = read(fd[0], buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR)) {
    size_t take = got > 0 ? (size_t)got : 0;
    if (used + take >= len) take = used < len - 1 ? len - 1 - used : 0;
    memcpy(log + used, buf, take);
    used += take;
  }
  log[used] = '\0';
  close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int read_object(const char *path, host_object *obj) {
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  int bad = fseek(f, 0, SEEK_END) != 0;
  long n = bad ? -1 : ftell(f);
  bad = n <= 0 || fseek(f, 0, SEEK_SET) != 0;
  obj->data = bad ? NULL : malloc((size_t)n);
  obj->len = obj->data && fread(obj->data, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
  fclose(f);
  if (obj->len) return 0;
  free(obj->data);
  obj->data = NULL;
  return 1;
}

/* Compile src (C when is_c) to an object in obj. */
static int compile_one(const char *src, bool is_c, host_object *obj, char **err) {
  const char *cc = getenv(is_c ? "CC" : "CXX");
  if (!cc || !*cc) cc = is_c ? "cc" : "c++";
  const char *tmp = getenv("TMPDIR");
  char out[4096];
  snprintf(out, sizeof out, "%s/kcc-link-XXXXXX.o", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemps(out, 2);
  if (fd < 0) return tgt_fail(err, "cannot make a temporary file for '%s': %s", src,
                              strerror(errno));
  close(fd);
  char *const c_args[] = {(char *)cc, "-x", "c", "-O2", "-fPIC", "-c", (char *)src, "-o",
                          out, NULL};
  char *const cxx_args[] = {(char *)cc, "-x", "c++", "-O2", "-fPIC", "-D__device__=",
                            "-D__host__=", "-D__global__=", "-D__forceinline__=",
                            "-D__noinline__=", "-c", (char *)src, "-o", out, NULL};
  char log[LINK_LOG_MAX];
  int rc = run_compiler(is_c ? c_args : cxx_args, log, sizeof log);
  int bad = rc != 0 || read_object(out, obj);
  unlink(out);
  if (!bad) return 0;
  if (rc == 127 || rc < 0)
    return tgt_fail(err, "the CPU back end compiles '%s' with the system's %s compiler (%s; "
                    "set %s to choose another), which could not be run: %s", src,
                    is_c ? "C" : "C++", cc, is_c ? "CC" : "CXX", log);
  return tgt_fail(err, "the CPU back end compiled '%s' with %s (as %s%s) and it failed:\n%s",
                  src, cc, is_c ? "C" : "C++",
                  is_c ? "" : ", with __device__ and CUDA's other qualifiers defined away",
                  log);
}

int host_link_objects(const char *const *paths, int n, host_object *objs, int *failed,
                      char **err) {
  for (int i = 0; i < n; i++) {
    bool is_c;
    char *src = cpu_source(paths[i], &is_c);
    *failed = i;
    if (!src) {
      host_objects_free(objs, i);
      return tgt_fail(err, "'%s' is GPU code, which the CPU back end cannot run: put the "
                      "functions' C or C++ source beside it with the same name (a .c or "
                      ".cpp file), which kcc compiles for the CPU", paths[i]);
    }
    int rc = compile_one(src, is_c, &objs[i], err);
    free(src);
    if (rc) {
      host_objects_free(objs, i);
      return 1;
    }
  }
  return 0;
}

void host_objects_free(host_object *objs, int n) {
  for (int i = 0; i < n; i++) free(objs[i].data), objs[i].data = NULL;
}
