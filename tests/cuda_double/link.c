/*
 * link.c — the driver's linker (cuLinkCreate ... cuLinkDestroy), checked as the
 * Driver API says: a live link state, option arrays that match their count, input
 * types that are CUjitInputType values (not the deprecated NVVM), data that is what
 * its type says (PTX text, an ELF cubin), files that exist, nothing added after
 * cuLinkComplete, and the image loaded before the state that owns it is destroyed.
 *
 * The double has no nvlink: the "linked image" is the PTX inputs one after another
 * (what cuModuleLoadDataEx then parses), and cuLinkComplete fails as nvlink would when
 * a PTX input's `.extern .func` is defined by none of the inputs (it can only tell
 * when every input is PTX). Every call is written to a log the tests read
 * (cuda_double_link_log), one line each: "cuLinkAddFile CUBIN /path", ...
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double.h"

typedef struct dbl_link {
  char *err;                   /* CU_JIT_ERROR_LOG_BUFFER from cuLinkCreate, or NULL */
  size_t err_size;
  char **ptx;                  /* each PTX input's text (NUL-terminated copies) */
  char **ptx_names;
  int nptx;
  int ninputs, others;         /* inputs in all, and those that are not PTX */
  int completed;
  char *image;                 /* cuLinkComplete's image, zeroed when destroyed */
} dbl_link;

static char *log_text;
static size_t log_len;

static void link_log(const char *call, CUjitInputType type, const char *name) {
  static const char *const types[] = {"CUBIN", "PTX", "FATBINARY", "OBJECT", "LIBRARY",
                                      "NVVM"};
  char line[1200];
  int n = (int)type >= 0 && type < CU_JIT_NUM_INPUT_TYPES
              ? snprintf(line, sizeof line, "%s %s %s\n", call, types[type],
                         name ? name : "(no name)")
              : snprintf(line, sizeof line, "%s\n", call);
  char *grown = realloc(log_text, log_len + (size_t)n + 1);
  if (!grown) return;
  memcpy(grown + log_len, line, (size_t)n + 1);
  log_text = grown;
  log_len += (size_t)n;
}

/* For tests (dlsym): every link call so far, a line each; "" before any. */
void cuda_double_link_log(char *buf, size_t len) {
  if (len) snprintf(buf, len, "%s", log_text ? log_text : "");
}

/* What nvlink would write into the error log the caller gave cuLinkCreate. */
__attribute__((format(printf, 2, 3)))
static void link_error(dbl_link *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (l->err && l->err_size) vsnprintf(l->err, l->err_size, fmt, ap);
  va_end(ap);
}

/* n options: arrays present, each a CUjit_option; the error log's buffer and size. */
static CUresult read_options(const char *call, unsigned n, CUjit_option *opts, void **vals,
                             dbl_link *l) {
  if (n && (!opts || !vals)) {
    dbl_contract("%s: %u options but options %p, values %p", call, n, (void *)opts,
                 (void *)vals);
    return CUDA_ERROR_INVALID_VALUE;
  }
  int sized = 0;
  for (unsigned i = 0; i < n; i++) {
    if ((int)opts[i] < 0 || opts[i] >= CU_JIT_NUM_OPTIONS) {
      dbl_contract("%s: option %d is not a CUjit_option", call, (int)opts[i]);
      return CUDA_ERROR_INVALID_VALUE;
    }
    if (l && opts[i] == CU_JIT_ERROR_LOG_BUFFER) l->err = vals[i];
    if (l && opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
      l->err_size = (size_t)(uintptr_t)vals[i];
      sized = 1;
    }
  }
  if (l && l->err && !sized) {
    dbl_contract("%s: an error log buffer without its size", call);
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

/* The live link state behind h, not yet completed when adding; else a report. */
static dbl_link *get_link(CUlinkState h, const char *call, int adding) {
  dbl_obj *o = dbl_obj_get(h, DBL_LINK, call, "state");
  if (!o) return NULL;
  if (adding && o->link->completed) {
    dbl_contract("%s: the link state was already completed", call);
    return NULL;
  }
  return o->link;
}

CUresult cuLinkCreate(unsigned n, CUjit_option *opts, void **vals, CUlinkState *out) {
  CUresult r = dbl_enter("cuLinkCreate", DBL_NEED_CTX);
  dbl_link probe = {0};
  if (r == CUDA_SUCCESS) r = read_options("cuLinkCreate", n, opts, vals, &probe);
  if (r == CUDA_SUCCESS && !out) {
    dbl_contract("cuLinkCreate: stateOut is NULL");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  dbl_obj *o = dbl_obj_new(DBL_LINK);
  if (!o || !(o->link = calloc(1, sizeof *o->link))) return dbl_leave(CUDA_ERROR_OUT_OF_MEMORY);
  *o->link = probe;
  *out = (CUlinkState)(void *)o;
  link_log("cuLinkCreate", (CUjitInputType)-1, NULL);
  return dbl_leave(CUDA_SUCCESS);
}

/* Keep a PTX input's text (size bytes, with or without its NUL). */
static CUresult keep_ptx(dbl_link *l, const char *data, size_t size, const char *name) {
  size_t len = strnlen(data, size);
  char *copy = malloc(len + 1), *nm = strdup(name ? name : "(no name)");
  char **p = realloc(l->ptx, (size_t)(l->nptx + 1) * sizeof *p);
  if (p) l->ptx = p;
  char **q = realloc(l->ptx_names, (size_t)(l->nptx + 1) * sizeof *q);
  if (q) l->ptx_names = q;
  if (!copy || !nm || !p || !q) {
    free(copy);
    free(nm);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  memcpy(copy, data, len);
  copy[len] = '\0';
  if (!strstr(copy, ".version") || !strstr(copy, ".target")) {
    link_error(l, "ptxas fatal   : '%s': not PTX (no .version/.target)", nm);
    free(copy);
    free(nm);
    return CUDA_ERROR_INVALID_PTX;
  }
  l->ptx[l->nptx] = copy;
  l->ptx_names[l->nptx++] = nm;
  return CUDA_SUCCESS;
}

/* One input of `type`, size bytes at data, named name: checked, then kept. */
static CUresult add_input(dbl_link *l, CUjitInputType type, const char *data, size_t size,
                          const char *name) {
  if (type == CU_JIT_INPUT_CUBIN && (size < 4 || memcmp(data, "\177ELF", 4) != 0)) {
    link_error(l, "nvlink error   : '%s' is not a cubin (no ELF header)", name);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  CUresult r = type == CU_JIT_INPUT_PTX ? keep_ptx(l, data, size, name) : CUDA_SUCCESS;
  if (r == CUDA_SUCCESS) {
    l->ninputs++;
    l->others += type != CU_JIT_INPUT_PTX;
  }
  return r;
}

static int input_type_ok(const char *call, CUjitInputType type) {
  if ((int)type < 0 || type >= CU_JIT_NUM_INPUT_TYPES) {
    dbl_contract("%s: type %d is not a CUjitInputType", call, (int)type);
    return 0;
  }
  if (type == CU_JIT_INPUT_NVVM) {   /* deprecated since CUDA 12.0: LTO is nvJitLink's */
    dbl_contract("%s: CU_JIT_INPUT_NVVM (deprecated; LTO-IR goes to nvJitLink)", call);
    return 0;
  }
  return 1;
}

CUresult cuLinkAddData(CUlinkState st, CUjitInputType type, void *data, size_t size,
                       const char *name, unsigned n, CUjit_option *opts, void **vals) {
  CUresult r = dbl_enter("cuLinkAddData", DBL_NEED_CTX);
  dbl_link *l = NULL;
  if (r == CUDA_SUCCESS && !(l = get_link(st, "cuLinkAddData", 1)))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && !input_type_ok("cuLinkAddData", type)) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS && (!data || size == 0)) {
    dbl_contract("cuLinkAddData: data %p, size %zu", data, size);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) r = read_options("cuLinkAddData", n, opts, vals, NULL);
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  link_log("cuLinkAddData", type, name);
  return dbl_leave(add_input(l, type, data, size, name ? name : "(no name)"));
}

/* The file at path into a malloc'd buffer (NUL after it); NULL if it cannot be read. */
static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = '\0';
    *size = (size_t)n;
  } else {
    free(buf);
    buf = NULL;
  }
  if (f) fclose(f);
  return buf;
}

CUresult cuLinkAddFile(CUlinkState st, CUjitInputType type, const char *path, unsigned n,
                       CUjit_option *opts, void **vals) {
  CUresult r = dbl_enter("cuLinkAddFile", DBL_NEED_CTX);
  dbl_link *l = NULL;
  if (r == CUDA_SUCCESS && !(l = get_link(st, "cuLinkAddFile", 1)))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && !input_type_ok("cuLinkAddFile", type)) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS && !path) {
    dbl_contract("cuLinkAddFile: path is NULL");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) r = read_options("cuLinkAddFile", n, opts, vals, NULL);
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  link_log("cuLinkAddFile", type, path);
  size_t size = 0;
  char *data = read_file(path, &size);
  if (!data) return dbl_leave(CUDA_ERROR_FILE_NOT_FOUND);
  r = size ? add_input(l, type, data, size, path) : CUDA_ERROR_INVALID_IMAGE;
  free(data);
  return dbl_leave(r);
}

/* ---- cuLinkComplete --------------------------------------------------------------- */
/* The function a ".func" declaration line names (after its return parameter). */
static void decl_name(const char *s, char *out, size_t len) {
  while (isspace((unsigned char)*s)) s++;
  if (*s == '(') {
    const char *close = strchr(s, ')');
    s = close ? close + 1 : s + strlen(s);
    while (isspace((unsigned char)*s)) s++;
  }
  size_t n = strcspn(s, "( \t;\n");
  if (n >= len) n = len - 1;
  memcpy(out, s, n);
  out[n] = '\0';
}

/* Does some PTX input define (not merely declare) function `name`? */
static int defined(const dbl_link *l, const char *name) {
  for (int i = 0; i < l->nptx; i++)
    for (const char *p = l->ptx[i]; (p = strstr(p, ".func ")); p += 6) {
      const char *bol = p;
      while (bol > l->ptx[i] && bol[-1] != '\n') bol--;
      if (strstr(bol, ".extern") && strstr(bol, ".extern") < p) continue;
      char got[256];
      decl_name(p + 6, got, sizeof got);
      if (strcmp(got, name) == 0) return 1;
    }
  return 0;
}

/* nvlink's "Undefined reference" for an .extern .func no input defines; 0 if none. */
static int undefined_reference(dbl_link *l) {
  for (int i = 0; i < l->nptx; i++)
    for (const char *p = l->ptx[i]; (p = strstr(p, ".extern .func ")); p += 14) {
      char name[256];
      decl_name(p + 14, name, sizeof name);
      if (!defined(l, name)) {
        link_error(l, "nvlink error   : Undefined reference to '%s' in '%s'", name,
                   l->ptx_names[i]);
        return 1;
      }
    }
  return 0;
}

/* The image: a header line, then every PTX input in order. */
static char *make_image(const dbl_link *l) {
  size_t n = 128;
  for (int i = 0; i < l->nptx; i++) n += strlen(l->ptx[i]) + 1;
  char *img = malloc(n);
  if (!img) return NULL;
  size_t at = (size_t)snprintf(img, n, "// cuda-double linked image: %d inputs\n",
                               l->ninputs);
  for (int i = 0; i < l->nptx; i++)
    at += (size_t)snprintf(img + at, n - at, "%s\n", l->ptx[i]);
  return img;
}

CUresult cuLinkComplete(CUlinkState st, void **image, size_t *size) {
  CUresult r = dbl_enter("cuLinkComplete", DBL_NEED_CTX);
  dbl_link *l = NULL;
  if (r == CUDA_SUCCESS && !(l = get_link(st, "cuLinkComplete", 1)))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && (!image || !size)) {
    dbl_contract("cuLinkComplete: cubinOut %p, sizeOut %p", (void *)image, (void *)size);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && l->ninputs == 0) {
    dbl_contract("cuLinkComplete: nothing was added to the link");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  link_log("cuLinkComplete", (CUjitInputType)-1, NULL);
  if (l->others == 0 && undefined_reference(l)) return dbl_leave(CUDA_ERROR_INVALID_IMAGE);
  if (l->nptx == 0) {   /* no PTX: nothing the double could load */
    link_error(l, "cuda-double: a link of %d inputs, none PTX: the double loads only PTX",
               l->ninputs);
    return dbl_leave(CUDA_ERROR_NOT_SUPPORTED);
  }
  if (!(l->image = make_image(l))) return dbl_leave(CUDA_ERROR_OUT_OF_MEMORY);
  l->completed = 1;
  *image = l->image;
  *size = strlen(l->image) + 1;
  return dbl_leave(CUDA_SUCCESS);
}

void dbl_link_release(dbl_obj *o) {
  dbl_link *l = o->link;
  if (!l) return;
  for (int i = 0; i < l->nptx; i++) {
    free(l->ptx[i]);
    free(l->ptx_names[i]);
  }
  free(l->ptx);
  free(l->ptx_names);
  free(l->image);
  free(l);
  o->link = NULL;
}

CUresult cuLinkDestroy(CUlinkState st) {
  CUresult r = dbl_enter("cuLinkDestroy", DBL_NEED_CTX | DBL_RELEASES);
  dbl_obj *o = NULL;
  if (r == CUDA_SUCCESS && !(o = dbl_obj_get(st, DBL_LINK, "cuLinkDestroy", "state")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (o) {
    link_log("cuLinkDestroy", (CUjitInputType)-1, NULL);
    o->live = 0;
    /* the image goes with the state: zeroed, not freed, so that a module load from
       it afterwards is caught (dbl_link_image) rather than read after free */
    if (o->link->image) memset(o->link->image, 0, strlen(o->link->image));
  }
  return dbl_leave_release(r);
}

int dbl_link_image(const void *image) {
  for (dbl_obj *o = dbl.objs; o; o = o->next)
    if (o->kind == DBL_LINK && o->link && o->link->image == image) {
      if (o->live) link_log("cuModuleLoadDataEx (the linked image)", (CUjitInputType)-1, NULL);
      return o->live ? 1 : -1;
    }
  return 0;
}
