/*
 * main.c — the `kcc` command: `kcc compile` (kernel source to PTX, LLVM IR, the AST,
 * the inferred types, a C header for ahead-of-time use (written by emit_header.c), or a
 * cubin through nvJitLink in process or ptxas), `kcc devices`, `kcc --help`,
 * `kcc --version`.
 *
 * The only file that prints usage or exits. Every user error (a bad option, a missing
 * file, a compile error) ends with exit status 1 and a message on stderr; success is 0.
 * The compiler itself prints diagnostics (GCC format, coloured when stderr is a
 * terminal and NO_COLOR is unset).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "compile.h"
#include "emit_header.h"
#include "file_kind.h"
#include "ptx_link.h"
#include "kc.h"
#include "kc_config.h"
#include "signature.h"
#include "target.h"

extern char **environ;

#define KCC_DEFAULT_ARCH 80

static const char usage_text[] =
  "Usage: kcc <command> [options]\n"
  "\n"
  "Commands:\n"
  "  compile FILE.k [options]  compile the kernels of FILE.k to PTX (or LLVM IR, the\n"
  "                            AST, the inferred types, a C header, a cubin)\n"
  "  devices                   the CUDA devices and the CPU device kcc sees, and where\n"
  "                            the CUDA driver, libdevice and ptxas were found\n"
  "  help, --help, -h          this text\n"
  "  version, --version        the versions of kcc and LLVM, and the default GPU arch\n"
  "\n"
  "'kcc compile --help' lists the compiler's options.\n";

static const char compile_usage_text[] =
  "Usage: kcc compile FILE.k [options]\n"
  "\n"
  "Compile the kernels of FILE.k ('-' reads standard input).\n"
  "\n"
  "Options:\n"
  "  -o OUT               write the result to OUT ('-' for standard output); by default\n"
  "                       FILE.ptx, FILE.ll (llvm), FILE.cubin (cubin) or FILE_kc.h\n"
  "                       (header) in the current directory, and standard output for\n"
  "                       ast and types\n"
  "  --emit=KIND          what to produce:\n"
  "                         ptx     PTX assembly (the default)\n"
  "                         llvm    the optimised LLVM IR\n"
  "                         ast     the parsed program\n"
  "                         types   every function with the type of each local\n"
  "                         header  a C header embedding the PTX, with a typed launch\n"
  "                                 function per kernel (see docs/cli.md)\n"
  "                         cubin   GPU machine code for --arch, through nvJitLink\n"
  "                                 in process (else ptxas)\n"
  "  --arch=sm_XX         the GPU architecture (default sm_" "80" ")\n"
  "  -O0, -O1, -O2, -O3   optimisation level (default -O3)\n"
  "  --sig='NAME(TYPES)'  the parameter types of kernel NAME in Numba's spelling, for\n"
  "                       kernels with no types in the source; repeatable, e.g.\n"
  "                       --sig 'add(float32[:], float32[:], int32)'\n"
  "  -g                   debug information (source lines and variables), and every\n"
  "                       kernel's asserts and raises checked, as @cuda.jit(debug=True)\n"
  "                       does: a failure stops the launch (KC_ERR_ASSERT)\n"
  "  --lineinfo           source line information (.loc) in the PTX, for profilers\n"
  "  --bounds-check       check every array index: one out of range stops the kernel's\n"
  "                       launch with an error naming file:line:col, the index and the\n"
  "                       array's shape (on by default with -g --target=host)\n"
  "  --no-bounds-check    no checks (the default otherwise)\n"
  "  --fastmath           every kernel as if declared @cuda.jit(fastmath=True):\n"
  "                       approximate division, square root and float32 maths,\n"
  "                       fused multiply-adds, float32 denormals flushed to zero\n"
  "  --device-functions   also compile each device function with a declared signature\n"
  "                       on its own, as a visible function (.visible .func), called\n"
  "                       or not (Numba's compile_ptx(device=True); --emit=types lists\n"
  "                       them)\n"
  "  --target=nvptx|host  generate code for the GPU (the default) or for this CPU\n"
  "                       (the CPU back end: --emit=llvm, ast or types)\n"
  "  --block=X[,Y[,Z]]    --target=host: the block shape every launch will use, so\n"
  "                       that blockDim is a constant (what the runtime compiles a\n"
  "                       barrier kernel for at a big launch)\n"
  "  -h, --help           this text\n"
  "\n"
  "Options taking a value accept it as the next argument or after '='.\n";

/* ---- Messages ------------------------------------------------------------------------ */

/* Colour only for a terminal, and not when NO_COLOR is set (no-color.org). */
static int want_color(void) {
  const char *no_color = getenv("NO_COLOR");
  const char *term = getenv("TERM");
  if (no_color && *no_color) return 0;
  if (term && strcmp(term, "dumb") == 0) return 0;
  return isatty(STDERR_FILENO);
}

static const char *error_label(void) {
  return want_color() ? "kcc: \033[1;31merror:\033[0m " : "kcc: error: ";
}

static void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void error_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(error_label(), stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* A usage error: the message, then where to look. Returns the exit status. */
static int usage_error(const char *help_cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int usage_error(const char *help_cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs(error_label(), stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fprintf(stderr, "Try '%s --help' for more information.\n", help_cmd);
  return 1;
}


/* ---- Files --------------------------------------------------------------------------- */

/* path opened for reading: a regular file only, opened without blocking (a FIFO's open
 * would wait for a writer); "-" is standard input, which may be a pipe. NULL after a
 * message. */
static FILE *open_source(const char *path) {
  if (strcmp(path, "-") == 0) return stdin;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    error_msg("cannot read '%s': %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  FILE *f = NULL;
  if (!S_ISREG(st.st_mode))
    error_msg("cannot read '%s': %s, not a regular file", path, file_kind(st.st_mode));
  else if ((uint64_t)st.st_size > KCC_MAX_SOURCE)
    error_msg("cannot read '%s': larger than the %zu MiB limit on a source file", path,
              KCC_MAX_SOURCE >> 20);
  else if (!(f = fdopen(fd, "rb")))
    error_msg("cannot read '%s': %s", path, strerror(errno));
  if (!f) close(fd);
  return f;
}

/* Read all of path ("-" = standard input), at most KCC_MAX_SOURCE bytes, into a
 * malloc'd buffer. On failure prints the error and returns NULL. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = open_source(path);
  if (!f) return NULL;
  /* one byte past the limit tells a pipe, or a file that grew, is too big */
  size_t cap = 1 << 16, n = 0, want = KCC_MAX_SOURCE + 1;
  char *buf = malloc(cap);
  int saved = 0;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap || n == want) break;
    size_t more = cap * 2 < want ? cap * 2 : want;
    char *bigger = realloc(buf, more);
    if (!bigger) free(buf);
    buf = bigger;
    cap = more;
  }
  int too_big = buf && n > KCC_MAX_SOURCE;
  int failed = !buf || ferror(f) || too_big;
  if (failed) saved = buf ? errno : ENOMEM;
  if (f != stdin) fclose(f);
  if (too_big) {
    error_msg("cannot read '%s': larger than the %zu MiB limit on a source file", path,
              KCC_MAX_SOURCE >> 20);
    free(buf);
    return NULL;
  }
  if (failed) {
    error_msg("cannot read '%s': %s", path, strerror(saved));
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* Write len bytes to path ("-" = standard output). Prints the error; returns 0 or 1. */
static int write_file(const char *path, const void *data, size_t len) {
  int to_stdout = strcmp(path, "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(path, "wb");
  if (!f) {
    error_msg("cannot write '%s': %s", path, strerror(errno));
    return 1;
  }
  size_t n = fwrite(data, 1, len, f);
  int failed = n != len || fflush(f) != 0 || ferror(f);
  int saved = errno;
  if (!to_stdout && fclose(f) != 0) failed = 1;
  if (failed) {
    error_msg("cannot write '%s': %s", to_stdout ? "standard output" : path,
              strerror(saved ? saved : EIO));
    if (!to_stdout) remove(path);
    return 1;
  }
  return 0;
}

/* The source's name without directory or ".k" (malloc'd): "dir/add.k" -> "add". */
static char *stem_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(path, "-") == 0 || !*base) base = "out";
  size_t len = strlen(base);
  if (len > 2 && strcmp(base + len - 2, ".k") == 0) len -= 2;
  char *stem = malloc(len + 1);
  if (stem) {
    memcpy(stem, base, len);
    stem[len] = '\0';
  }
  return stem;
}

static char *concat(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = malloc(la + lb + 1);
  if (s) {
    memcpy(s, a, la);
    memcpy(s + la, b, lb + 1);
  }
  return s;
}

/* ---- Options ------------------------------------------------------------------------- */

typedef enum emit_kind {
  EMIT_PTX, EMIT_LLVM, EMIT_AST, EMIT_TYPES, EMIT_HEADER, EMIT_CUBIN
} emit_kind;

static const char *const emit_names[] = {"ptx", "llvm", "ast", "types", "header", "cubin"};

typedef struct cli_options {
  const char *input;
  const char *output;   /* NULL: the default for the emit kind */
  emit_kind emit;
  int arch;
  int arch_given;       /* --arch was on the command line (--emit=header adds a cubin) */
  int opt_level;
  int debug, lineinfo;
  int bounds_check;     /* 0: the default (on with -g for the host), 1 on, -1 off */
  int fastmath;         /* --fastmath */
  int device_functions; /* --device-functions */
  unsigned block[3];    /* --block: all 0 when not given */
  kcc_target target;
  const char **sigs;
  int nsigs;
  const char *source;   /* the input's text, for --emit=header's CPU fallback */
  size_t source_len;
} cli_options;

/* The value of an option spelled "--name=value" or "--name value" (argv[*i] is the
 * option); advances *i past a separate value. NULL if there is none. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] == '\0' && *i + 1 < argc) return argv[++*i];
  return NULL;
}

/* Is argv[i] the option `name`, in either spelling? */
static int is_option(const char *arg, const char *name) {
  size_t n = strlen(name);
  return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* --block=X[,Y[,Z]]: 1 to 1024 threads on each axis, 1024 in all, as CUDA allows. */
static int parse_block(cli_options *o, const char *v) {
  unsigned d[3] = {1, 1, 1};
  bool ok = v != NULL;
  const char *p = v;
  for (int n = 0; ok; n++) {   /* each extent, then a comma or the end */
    char *end = NULL;
    long x = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
    ok = n < 3 && x >= 1 && x <= 1024 && (*end == ',' || *end == '\0');
    if (ok) d[n] = (unsigned)x;
    if (!ok || *end == '\0') break;
    p = end + 1;
  }
  if (!ok || (unsigned long)d[0] * d[1] * d[2] > 1024)
    return usage_error("kcc compile", "bad --block '%s' (e.g. --block=16,16: at most 1024 "
                       "threads)", v ? v : "");
  memcpy(o->block, d, sizeof d);
  return 0;
}

/* "sm_80", "80", "compute_80" -> 80; -1 if not of that form. */
static int parse_arch(const char *s) {
  if (strncmp(s, "sm_", 3) == 0) s += 3;
  else if (strncmp(s, "compute_", 8) == 0) s += 8;
  if (!isdigit((unsigned char)s[0])) return -1;
  char *end;
  long v = strtol(s, &end, 10);
  if (*end || v <= 0 || v > 10000) return -1;
  return (int)v;
}

static int parse_emit(const char *s, emit_kind *out) {
  for (size_t i = 0; i < sizeof emit_names / sizeof emit_names[0]; i++)
    if (strcmp(s, emit_names[i]) == 0) {
      *out = (emit_kind)i;
      return 0;
    }
  return -1;
}

static int parse_sig(cli_options *o, const char *sig) {
  sig_parsed parsed;
  char msg[256];
  if (sig_parse(sig, &parsed, msg, sizeof msg) != 0)
    return usage_error("kcc compile", "bad --sig '%s': %s", sig, msg);
  const char **more = realloc(o->sigs, (size_t)(o->nsigs + 1) * sizeof *more);
  if (!more) {
    error_msg("out of memory");
    return 1;
  }
  o->sigs = more;
  o->sigs[o->nsigs++] = sig;
  return 0;
}

/* Parse one option at argv[*i]. Returns 0, 1 on error (reported), or -1 for --help. */
static int parse_one(cli_options *o, int argc, char **argv, int *i) {
  const char *arg = argv[*i], *v;
  if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) return -1;
  if (strcmp(arg, "-g") == 0) {
    o->debug = 1;
  } else if (strcmp(arg, "--lineinfo") == 0) {
    o->lineinfo = 1;
  } else if (strcmp(arg, "--bounds-check") == 0) {
    o->bounds_check = 1;
  } else if (strcmp(arg, "--no-bounds-check") == 0) {
    o->bounds_check = -1;
  } else if (strcmp(arg, "--fastmath") == 0) {
    o->fastmath = 1;
  } else if (strcmp(arg, "--device-functions") == 0) {
    o->device_functions = 1;
  } else if (arg[0] == '-' && arg[1] == 'O') {
    if (!(arg[2] >= '0' && arg[2] <= '3' && arg[3] == '\0'))
      return usage_error("kcc compile", "bad optimisation level '%s' (use -O0 to -O3)", arg);
    o->opt_level = arg[2] - '0';
  } else if (strcmp(arg, "-o") == 0 || strncmp(arg, "-o", 2) == 0) {
    o->output = arg[2] ? arg + 2 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!o->output || !*o->output) return usage_error("kcc compile", "-o needs a file name");
  } else if (is_option(arg, "--output")) {
    if (!(o->output = option_value(argc, argv, i, "--output")) || !*o->output)
      return usage_error("kcc compile", "--output needs a file name");
  } else if (is_option(arg, "--emit")) {
    if (!(v = option_value(argc, argv, i, "--emit")) || parse_emit(v, &o->emit))
      return usage_error("kcc compile",
                         "bad --emit '%s' (use ptx, llvm, ast, types, header or cubin)",
                         v ? v : "");
  } else if (is_option(arg, "--arch") || is_option(arg, "-arch")) {
    const char *name = arg[1] == '-' ? "--arch" : "-arch";
    o->arch_given = 1;
    if (!(v = option_value(argc, argv, i, name)) || (o->arch = parse_arch(v)) < 0)
      return usage_error("kcc compile", "bad --arch '%s' (e.g. --arch=sm_80)", v ? v : "");
    if (!nvptx_arch_supported(o->arch))
      return usage_error("kcc compile",
                         "--arch sm_%d: not an architecture LLVM %s knows "
                         "('kcc --version' lists them)", o->arch, KC_LLVM_VERSION);
  } else if (is_option(arg, "--sig")) {
    if (!(v = option_value(argc, argv, i, "--sig")))
      return usage_error("kcc compile", "--sig needs a signature, e.g. --sig 'k(float32[:])'");
    return parse_sig(o, v);
  } else if (is_option(arg, "--block")) {
    return parse_block(o, option_value(argc, argv, i, "--block"));
  } else if (is_option(arg, "--target")) {
    v = option_value(argc, argv, i, "--target");
    if (v && (strcmp(v, "nvptx") == 0 || strcmp(v, "cuda") == 0)) o->target = KCC_TARGET_NVPTX;
    else if (v && (strcmp(v, "host") == 0 || strcmp(v, "cpu") == 0)) o->target = KCC_TARGET_HOST;
    else return usage_error("kcc compile", "bad --target '%s' (use nvptx or host)", v ? v : "");
  } else {
    return usage_error("kcc compile", "unknown option '%s'", arg);
  }
  return 0;
}

static int check_combination(cli_options *o) {
  if (!o->input) return usage_error("kcc compile", "no input file");
  if (o->block[0] && o->target != KCC_TARGET_HOST)
    return usage_error("kcc compile", "--block needs --target=host");
  if (o->target == KCC_TARGET_HOST &&
      (o->emit == EMIT_PTX || o->emit == EMIT_HEADER || o->emit == EMIT_CUBIN))
    return usage_error("kcc compile", "--emit=%s needs --target=nvptx",
                       emit_names[o->emit]);
  return 0;
}

/* Returns 0 to go on, 1 on error (reported), -1 when --help was asked for. */
static int parse_compile_args(cli_options *o, int argc, char **argv) {
  int only_files = 0;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    if (!only_files && strcmp(arg, "--") == 0) {
      only_files = 1;
    } else if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (o->input)
        return usage_error("kcc compile", "more than one input file ('%s' and '%s')",
                           o->input, arg);
      o->input = arg;
    } else {
      int rc = parse_one(o, argc, argv, &i);
      if (rc) return rc;
    }
  }
  return 0;
}

/* ---- ptxas ----------------------------------------------------------------------------- */

/* ptxas from the CUDA toolkit kcc was configured with, else from PATH (malloc'd). */
static char *find_ptxas(void) {
  const char *configured = KC_CUDA_ROOT "/bin/ptxas";
  if (access(configured, X_OK) == 0) return concat(configured, "");
  const char *path = getenv("PATH");
  while (path && *path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    char dir[PATH_MAX];
    if (n > 0 && n < sizeof dir - 8) {
      memcpy(dir, path, n);
      strcpy(dir + n, "/ptxas");
      if (access(dir, X_OK) == 0) return concat(dir, "");
    }
    path = end ? end + 1 : NULL;
  }
  return NULL;
}

static int run_program(char *const argv[]) {
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    error_msg("cannot run '%s': %s", argv[0], strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int make_temp(char *path, size_t size, const char *suffix) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, size, "%s/kcc-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0) error_msg("cannot make a temporary file in '%s': %s",
                        dir && *dir ? dir : "/tmp", strerror(errno));
  return fd;
}

/* ptxas's command line: the architecture, the level, line info when asked for. */
static void ptxas_argv(const cli_options *o, char *ptxas, char *arch, size_t arch_size,
                       char *opt, size_t opt_size, char *in, char *out, char **argv) {
  snprintf(arch, arch_size, "-arch=sm_%d", o->arch);
  snprintf(opt, opt_size, "-O%d", o->opt_level);
  int n = 0;
  argv[n++] = ptxas;
  argv[n++] = arch;
  argv[n++] = opt;
  if (o->lineinfo || o->debug) argv[n++] = (char *)"-lineinfo";
  argv[n++] = in;
  argv[n++] = (char *)"-o";
  argv[n++] = out;
  argv[n] = NULL;
}

/* Assemble PTX into a cubin for sm_<arch>: in process through nvJitLink when it is
 * installed, else with ptxas as a process. 0 with the bytes in *cubin (malloc'd), 1 on
 * failure (said), -1 when there is neither (said only if `why` names what needed it). */
static int ptx_to_cubin(const cli_options *o, const char *ptx, size_t len, char **cubin,
                        size_t *clen, const char *why) {
  char *err = NULL;
  int linked = ptx_link_cubin(ptx, len, o->arch, o->opt_level, o->lineinfo || o->debug,
                              cubin, clen, &err);
  if (linked > 0) error_msg("%s", err ? err : "nvJitLink failed");
  free(err);
  if (linked >= 0) return linked;
  char *ptxas = find_ptxas();
  if (!ptxas) {
    if (why)
      error_msg("%s needs libnvJitLink or ptxas, neither of which is in %s nor on PATH "
                "(install the CUDA toolkit, or use --emit=ptx)", why, KC_CUDA_ROOT);
    return -1;
  }
  char ptx_path[PATH_MAX], cubin_path[PATH_MAX], arch[32], opt[8];
  char *argv[8];
  int rc = 1;
  int fd = make_temp(ptx_path, sizeof ptx_path, ".ptx");
  if (fd < 0) goto out;
  ssize_t n = write(fd, ptx, len);
  int saved = errno;
  close(fd);
  if (n != (ssize_t)len) {
    error_msg("cannot write '%s': %s", ptx_path, strerror(n < 0 ? saved : ENOSPC));
    goto unlink_ptx;
  }
  fd = make_temp(cubin_path, sizeof cubin_path, ".cubin");
  if (fd < 0) goto unlink_ptx;
  close(fd);
  ptxas_argv(o, ptxas, arch, sizeof arch, opt, sizeof opt, ptx_path, cubin_path, argv);
  int status = run_program(argv);
  if (status > 0) error_msg("ptxas failed (exit status %d)", status);
  if (status == 0 && (*cubin = read_file(cubin_path, clen)) != NULL) rc = 0;
  unlink(cubin_path);
unlink_ptx:
  unlink(ptx_path);
out:
  free(ptxas);
  return rc;
}

/* PTX that calls foreign functions: its link= files come first as "// kcc-link:"
 * lines (compile.c), linked by the runtime when it loads the PTX (a .cu through NVRTC). */
static bool links_files(const char *ptx) {
  return strncmp(ptx, "// kcc-link: ", 13) == 0;
}

/* --emit=cubin: the cubin written to out_path. */
static int write_cubin(const cli_options *o, const char *ptx, size_t len,
                       const char *out_path) {
  char *cubin = NULL;
  size_t clen = 0;
  if (links_files(ptx)) {
    error_msg("%s links files (link=), which the runtime links with its PTX when it loads "
              "it: kcc compile makes no cubin of it; emit PTX (the default)", o->input);
    return 1;
  }
  int rc = ptx_to_cubin(o, ptx, len, &cubin, &clen, "--emit=cubin");
  if (rc == 0) rc = write_file(out_path, cubin, clen);
  free(cubin);
  return rc != 0;
}

/* ---- --emit=header ----------------------------------------------------------------------- */

/* --emit=header: with --arch, a cubin too when ptxas is there (a note when it is not). */
static int write_header(const cli_options *o, const kcc_output *out, const char *dest) {
  char *cubin = NULL;
  size_t clen = 0, len = 0;
  if (o->arch_given && links_files(out->text))
    fprintf(stderr, "kcc: note: %s links files (link=): the header carries PTX only, which "
                    "the runtime links when it loads it\n", o->input);
  else if (o->arch_given) {
    int r = ptx_to_cubin(o, out->text, out->text_len, &cubin, &clen, NULL);
    if (r > 0) return 1;
    if (r < 0)
      fprintf(stderr, "kcc: note: no ptxas in %s/bin or on PATH: the header carries PTX "
                      "only, no cubin for sm_%d\n", KC_CUDA_ROOT, o->arch);
  }
  char *stem = stem_of(o->input);
  hdr_options h = {
    .input = o->input, .stem = stem, .source = o->source, .source_len = o->source_len,
    .sigs = o->sigs, .nsigs = o->nsigs, .arch = o->arch, .opt_level = o->opt_level,
    .bounds_check = o->bounds_check > 0, .fastmath = o->fastmath,
    .cubin = cubin, .cubin_len = clen,
  };
  char *header = stem ? hdr_make(&h, out, &len) : NULL;
  int rc = header ? write_file(dest, header, len) : 1;
  if (!header) error_msg("out of memory");
  free(header);
  free(stem);
  free(cubin);
  return rc;
}

/* ---- kcc compile --------------------------------------------------------------------- */

static const char *default_suffix(emit_kind e) {
  switch (e) {
  case EMIT_PTX: return ".ptx";
  case EMIT_LLVM: return ".ll";
  case EMIT_HEADER: return "_kc.h";
  case EMIT_CUBIN: return ".cubin";
  default: return NULL;  /* standard output */
  }
}

static kcc_emit compiler_emit(emit_kind e) {
  switch (e) {
  case EMIT_LLVM: return KCC_EMIT_LLVM;
  case EMIT_AST: return KCC_EMIT_AST;
  case EMIT_TYPES: return KCC_EMIT_TYPES;
  default: return KCC_EMIT_PTX;  /* ptx, header, cubin */
  }
}

/* Write the compiler's output where it belongs, in the form asked for. */
static int emit_result(const cli_options *o, const kcc_output *out) {
  char *path = NULL;
  const char *dest = o->output;
  if (!dest) {
    const char *suffix = default_suffix(o->emit);
    if (suffix) {
      char *stem = stem_of(o->input);
      path = stem ? concat(stem, suffix) : NULL;
      free(stem);
      if (!path) {
        error_msg("out of memory");
        return 1;
      }
      dest = path;
    } else {
      dest = "-";
    }
  }
  int rc;
  if (o->emit == EMIT_CUBIN) {
    rc = write_cubin(o, out->text, out->text_len, dest);
  } else if (o->emit == EMIT_HEADER) {
    rc = write_header(o, out, dest);
  } else {
    rc = write_file(dest, out->text ? out->text : "", out->text ? out->text_len : 0);
  }
  free(path);
  return rc;
}

static int cmd_compile(int argc, char **argv) {
  cli_options o = {0};
  o.arch = KCC_DEFAULT_ARCH;
  o.opt_level = 3;
  o.target = KCC_TARGET_NVPTX;
  int set_emit = 0;
  for (int i = 0; i < argc; i++) set_emit |= is_option(argv[i], "--emit");
  int rc = parse_compile_args(&o, argc, argv);
  if (rc < 0) {
    fputs(compile_usage_text, stdout);
    free(o.sigs);
    return 0;
  }
  if (!rc && o.target == KCC_TARGET_HOST && !set_emit) o.emit = EMIT_LLVM;
  if (!rc) rc = check_combination(&o);
  size_t len = 0;
  char *source = rc ? NULL : read_file(o.input, &len);
  if (!source) {
    free(o.sigs);
    return 1;
  }
  o.source = source;
  o.source_len = len;
  kcc_options opts;
  kcc_options_init(&opts);
  opts.target = o.target;
  opts.emit = compiler_emit(o.emit);
  opts.arch = o.arch;
  opts.opt_level = o.opt_level;
  opts.lineinfo = o.lineinfo || o.debug;
  opts.debug = o.debug;
  opts.bounds_check = o.bounds_check > 0 ||
                      (o.bounds_check == 0 && o.debug && o.target == KCC_TARGET_HOST);
  opts.fastmath = o.fastmath;
  opts.export_device = o.device_functions;
  opts.sigs = o.sigs;
  opts.nsigs = o.nsigs;
  memcpy(opts.block_dim, o.block, sizeof opts.block_dim);
  opts.aot = 1;
  opts.color = want_color();
  kcc_output out;
  memset(&out, 0, sizeof out);
  const char *name = strcmp(o.input, "-") == 0 ? "<stdin>" : o.input;
  kc_status st = kcc_compile(&opts, name, source, len, &out);
  if (st != KC_OK) {
    if (out.nerrors == 0)  /* nothing printed yet: say what happened */
      error_msg("%s", out.first_error ? out.first_error : kc_status_name(st));
    rc = 1;
  } else {
    rc = emit_result(&o, &out);
  }
  kcc_output_free(&out);
  free(source);
  free(o.sigs);
  return rc;
}

/* ---- kcc devices, --version ---------------------------------------------------------- */

static int cmd_devices(int argc, char **argv) {
  if (argc > 0 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
    puts("Usage: kcc devices\n\nList the CUDA devices and the CPU device kcc can use, "
         "and where the CUDA\ndriver, libdevice, ptxas and nvJitLink were found.");
    return 0;
  }
  if (argc > 0) return usage_error("kcc devices", "unexpected argument '%s'", argv[0]);
  size_t needed = 0;
  char small[4096];
  if (kc_detect(small, sizeof small, &needed) != KC_OK) {
    error_msg("cannot query the devices");
    return 1;
  }
  if (needed < sizeof small) {
    fputs(small, stdout);
    return 0;
  }
  char *big = malloc(needed + 1);
  if (!big || kc_detect(big, needed + 1, NULL) != KC_OK) {
    free(big);
    error_msg("cannot query the devices");
    return 1;
  }
  fputs(big, stdout);
  free(big);
  return 0;
}

static int cmd_version(void) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  printf("kcc %s\n", KC_VERSION);
  printf("LLVM %u.%u.%u (built with %s)\n", major, minor, patch, KC_LLVM_VERSION);
  printf("default arch: sm_%d\n", KCC_DEFAULT_ARCH);
  printf("GPU archs:");
  for (int arch = 20; arch <= 200; arch++)
    if (nvptx_arch_supported(arch)) printf(" sm_%d", arch);
  printf("\nlibdevice: %s\n", KC_LIBDEVICE_PATH);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage_text, stderr);
    return 1;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 2, argv + 2);
  if (strcmp(cmd, "devices") == 0) return cmd_devices(argc - 2, argv + 2);
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    if (argc > 2 && strcmp(argv[2], "compile") == 0) fputs(compile_usage_text, stdout);
    else fputs(usage_text, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0)
    return cmd_version();
  if (cmd[0] == '-') return usage_error("kcc", "unknown option '%s'", cmd);
  return usage_error("kcc", "unknown command '%s' (use compile or devices)", cmd);
}
