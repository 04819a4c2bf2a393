/*
 * link.c — Numba's cuda.jit(link=[...]) at load time. A kernel that calls a foreign
 * device function (cuda.declare_device) is compiled to PTX holding an `.extern .func`
 * for it and, ahead of its first .entry, a line
 *
 *     // kcc-link: /absolute/path/to/functions.cu
 *
 * for each file to link, in order. Loading such a PTX on a CUDA device links it with
 * those files first (runtime/cuda/link.c: the driver's linker) and loads what the
 * linker makes; a PTX without such lines loads as before, without the linker.
 *
 * A file's kind is its extension, as Numba's Linker.add_file_guess_ext decides:
 * .ptx, .cubin, .fatbin, .o, .a and .lib go to the linker as they are; .cu (CUDA C++)
 * is compiled to PTX here first by NVRTC (nvrtc.c); .ltoir needs link-time
 * optimisation, which the driver's linker lacks: a link with LTO-IR in it goes whole
 * to nvJitLink (-lto, through the compiler's table, rt_compiler.h: in libkc only),
 * whose cubin is loaded. Every file
 * is checked as the runtime checks the files it reads (files.c: a regular file within
 * a size limit) before the linker sees it, and every failure names the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_compiler.h"

#define LINK_TAG "// kcc-link: "
#define LINK_TAG_LEN (sizeof LINK_TAG - 1)

/* Does the line (ll bytes) declare an entry? The link lines come before the first. */
static int declares_entry(const char *line, size_t ll) {
  if (ll >= 2 && line[0] == '/' && line[1] == '/') return 0;   /* a comment */
  for (size_t i = 0; i + 6 <= ll; i++)
    if (memcmp(line + i, ".entry", 6) == 0) return 1;
  return 0;
}

/* The paths of the link lines ahead of the first .entry: their count, and with `at`
 * each one's first byte and length (no line end). */
static int link_lines(const char *ptx, const char **at, size_t *lens) {
  int n = 0;
  for (const char *line = ptx; *line;) {
    size_t ll = strcspn(line, "\n");
    if (ll >= LINK_TAG_LEN && memcmp(line, LINK_TAG, LINK_TAG_LEN) == 0) {
      size_t pl = ll - LINK_TAG_LEN;
      while (pl > 0 && line[LINK_TAG_LEN + pl - 1] == '\r') pl--;
      if (at) {
        at[n] = line + LINK_TAG_LEN;
        lens[n] = pl;
      }
      n++;
    } else if (declares_entry(line, ll)) {
      break;
    }
    line += ll + (line[ll] == '\n');
  }
  return n;
}

/* ---- What a file is ------------------------------------------------------------------ */
static const struct {
  const char *ext;
  rt_link_kind kind;
} link_kinds[] = {
  {"ptx", RT_LINK_PTX},       {"cubin", RT_LINK_CUBIN},   {"fatbin", RT_LINK_FATBIN},
  {"o", RT_LINK_OBJECT},      {"a", RT_LINK_LIBRARY},     {"lib", RT_LINK_LIBRARY},
  {"cu", RT_LINK_CU},         {"ltoir", RT_LINK_LTOIR},
};

#define LINK_KINDS_TEXT                                                                  \
  "kcc links .ptx (PTX), .cubin, .fatbin, .o (an object), .a or .lib (a library), .cu " \
  "(CUDA C++, compiled with NVRTC) and .ltoir (LTO-IR, with nvJitLink)"

/* The file's kind by its extension (after the last dot of its last component; a name
 * that starts with its only dot has none), or an error naming it. */
static kc_status kind_of(kc_context *ctx, const char *path, rt_link_kind *kind) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base || !dot[1])
    return rt_error(ctx, KC_ERR_UNSUPPORTED, "don't know how to link '%s': it has no "
                    "extension to say what it is; " LINK_KINDS_TEXT, path);
  for (size_t i = 0; i < sizeof link_kinds / sizeof link_kinds[0]; i++)
    if (strcmp(dot + 1, link_kinds[i].ext) == 0) {
      *kind = link_kinds[i].kind;
      return KC_OK;
    }
  return rt_error(ctx, KC_ERR_UNSUPPORTED, "don't know how to link '%s': files ending in "
                  "'%s' are none of the kinds; " LINK_KINDS_TEXT, path, dot);
}

/* ---- The link --------------------------------------------------------------------------- */
/* What a link holds until it is done: the inputs (the kernels' PTX first), each file's
 * path (a copy, NUL-terminated) and the PTX NVRTC made of a .cu (cap bytes). */
typedef struct link_job {
  kc_context *ctx;
  int n;
  rt_link_input *inputs;
  char **paths;
  char **compiled;
  size_t *caps;
} link_job;

static void job_free(link_job *j) {
  kc_context *ctx = j->ctx;
  for (int i = 0; i < j->n; i++) {
    if (j->paths) rt_free_str(ctx, j->paths[i]);
    if (j->compiled && j->compiled[i]) rt_free(ctx, j->compiled[i], j->caps[i]);
  }
  rt_free(ctx, j->inputs, (size_t)(j->n + 1) * sizeof *j->inputs);
  rt_free(ctx, j->paths, (size_t)j->n * sizeof *j->paths);
  rt_free(ctx, j->compiled, (size_t)j->n * sizeof *j->compiled);
  rt_free(ctx, j->caps, (size_t)j->n * sizeof *j->caps);
}

/* Room for n files and copies of their paths (the lines of ptx). */
static kc_status job_init(link_job *j, kc_context *ctx, const char *ptx, int n) {
  memset(j, 0, sizeof *j);
  j->ctx = ctx;
  j->n = n;
  j->inputs = rt_calloc(ctx, (size_t)n + 1, sizeof *j->inputs);
  j->paths = rt_calloc(ctx, (size_t)n, sizeof *j->paths);
  j->compiled = rt_calloc(ctx, (size_t)n, sizeof *j->compiled);
  j->caps = rt_calloc(ctx, (size_t)n, sizeof *j->caps);
  const char **at = rt_calloc(ctx, (size_t)n, sizeof *at);
  size_t *lens = rt_calloc(ctx, (size_t)n, sizeof *lens);
  int ok = j->inputs && j->paths && j->compiled && j->caps && at && lens;
  if (ok) link_lines(ptx, at, lens);
  for (int i = 0; ok && i < n; i++)
    if ((ok = (j->paths[i] = rt_alloc(ctx, lens[i] + 1)) != NULL)) {
      memcpy(j->paths[i], at[i], lens[i]);
      j->paths[i][lens[i]] = '\0';
    }
  rt_free(ctx, at, (size_t)n * sizeof *at);
  rt_free(ctx, lens, (size_t)n * sizeof *lens);
  return ok ? KC_OK : rt_error(ctx, KC_ERR_NOMEM, "out of memory");
}

/* A .cu file compiled by NVRTC for the device's compute capability: PTX data. */
static kc_status compile_cu(link_job *j, int i) {
  kc_context *ctx = j->ctx;
  kc_device_info info;
  kc_status s = rt_cuda_info(ctx, ctx->cfg.cuda_device, &info);
  char *src = NULL;
  size_t len = 0, cap = 0;
  if (s == KC_OK) s = rt_read_file(ctx, j->paths[i], KCC_MAX_SOURCE, &src, &len, &cap);
  if (s == KC_OK && len == cap) {   /* NVRTC wants the NUL */
    char *grown = rt_alloc(ctx, len + 1);
    if (grown) memcpy(grown, src, len);
    rt_free(ctx, src, cap);
    src = grown;
    cap = len + 1;
    if (!src) s = rt_error(ctx, KC_ERR_NOMEM, "out of memory reading %s", j->paths[i]);
  }
  if (s != KC_OK) return s;
  src[len] = '\0';
  s = rt_nvrtc_compile(ctx, j->paths[i], src, info.cc_major * 10 + info.cc_minor,
                       &j->compiled[i], &j->caps[i]);
  rt_free(ctx, src, cap);
  rt_link_input *in = &j->inputs[i + 1];
  if (s == KC_OK) in->data = j->compiled[i], in->len = strlen(j->compiled[i]);
  return s;
}

/* File i checked (its kind, a regular file within the limit) and made input i + 1. */
static kc_status add_file(link_job *j, int i) {
  kc_context *ctx = j->ctx;
  const char *path = j->paths[i];
  rt_link_input *in = &j->inputs[i + 1];
  in->name = path;
  if (!*path)
    return rt_error(ctx, KC_ERR_INVALID, "a \"// kcc-link:\" line of the PTX names no file");
  kc_status s = kind_of(ctx, path, &in->kind);
  if (s != KC_OK) return s;
  s = rt_file_check(ctx, path, in->kind == RT_LINK_CU ? KCC_MAX_SOURCE : RT_MAX_IMAGE_FILE);
  if (s != KC_OK) {
    char why[RT_ERR_LEN];
    snprintf(why, sizeof why, "%s", ctx->err);
    return rt_error(ctx, s, "cannot link: %s", why);
  }
  if (in->kind != RT_LINK_CU) return KC_OK;
  in->kind = RT_LINK_PTX;
  return compile_cu(j, i);
}

/* ---- LTO-IR: nvJitLink ------------------------------------------------------------ */
/* The first LTO-IR file of the job, or NULL. */
static const char *first_ltoir(const link_job *j) {
  for (int i = 1; i <= j->n; i++)
    if (j->inputs[i].kind == RT_LINK_LTOIR) return j->inputs[i].name;
  return NULL;
}

static const ptx_link_kind nvjl_kind[] = {
  [RT_LINK_PTX] = PTX_LINK_PTX,         [RT_LINK_CUBIN] = PTX_LINK_CUBIN,
  [RT_LINK_FATBIN] = PTX_LINK_FATBIN,   [RT_LINK_OBJECT] = PTX_LINK_OBJECT,
  [RT_LINK_LIBRARY] = PTX_LINK_LIBRARY, [RT_LINK_CU] = PTX_LINK_PTX,
  [RT_LINK_LTOIR] = PTX_LINK_LTOIR,
};

/* nvJitLink's answer as the context's error: absent (rc < 0) or its failure and log. */
static kc_status lto_failed(kc_context *ctx, int rc, const char *ltoir, const char *err) {
  const rt_compiler *cc = rt_compiler_get();
  if (rc < 0)
    return rt_error(ctx, KC_ERR_UNSUPPORTED, "cannot link '%s': LTO-IR links only with "
                    "nvJitLink's link-time optimisation, and %s; link= the PTX, a cubin "
                    "or the .cu source instead", ltoir,
                    !cc ? "this program is linked with libkcrt, which has no nvJitLink "
                          "(link it with libkc)"
                        : "libnvJitLink (from the CUDA toolkit) is not installed");
  return rt_error(ctx, KC_ERR_CUDA, "linking the kernels' PTX with nvJitLink (LTO-IR: "
                  "%s): %s", ltoir, err ? err : "out of memory");
}

/* LTO-IR among the files: the whole link goes to nvJitLink with -lto (the driver's
 * linker has no link-time optimisation) for the device's sm, and the cubin it makes
 * is loaded. */
static kc_status link_lto(link_job *j, void **out) {
  kc_context *ctx = j->ctx;
  kc_device_info info;
  kc_status s = rt_cuda_info(ctx, ctx->cfg.cuda_device, &info);
  if (s != KC_OK) return s;
  ptx_link_input *in = rt_calloc(ctx, (size_t)j->n + 1, sizeof *in);
  if (!in) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  for (int i = 0; i <= j->n; i++)
    in[i] = (ptx_link_input){.kind = nvjl_kind[j->inputs[i].kind],
                             .name = j->inputs[i].name, .data = j->inputs[i].data,
                             .len = j->inputs[i].len};
  const rt_compiler *cc = rt_compiler_get();
  char *cubin = NULL, *err = NULL;
  size_t len = 0;
  int rc = cc && cc->link_files
               ? cc->link_files(in, j->n + 1, info.cc_major * 10 + info.cc_minor, 1, &cubin,
                                &len, &err)
               : -1;
  rt_free(ctx, in, ((size_t)j->n + 1) * sizeof *in);
  s = rc == 0 ? rt_cuda_module_load(ctx, cubin, out) : lto_failed(ctx, rc, first_ltoir(j), err);
  free(cubin);
  free(err);
  return s;
}

kc_status rt_link_module_load(kc_context *ctx, const char *ptx, void **out) {
  int n = link_lines(ptx, NULL, NULL);
  if (n == 0) return rt_cuda_module_load(ctx, ptx, out);
  link_job j;
  kc_status s = job_init(&j, ctx, ptx, n);
  if (s == KC_OK) {
    j.inputs[0] = (rt_link_input){.kind = RT_LINK_PTX, .name = "the kernels' PTX",
                                  .data = ptx, .len = strlen(ptx)};
    for (int i = 0; i < n && s == KC_OK; i++) s = add_file(&j, i);
  }
  if (s == KC_OK)
    s = first_ltoir(&j) ? link_lto(&j, out) : rt_cuda_link_load(ctx, j.inputs, n + 1, out);
  job_free(&j);
  return s;
}
