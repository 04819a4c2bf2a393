/*
 * cache.c — the on-disk compile cache, so a second process skips compilation. An entry
 * is the output of one compilation: the kernel table (names, parameter types and names,
 * which arrays are written, barriers, static shared memory, the untyped kernels) and
 * the code: PTX text for CUDA, an object file of machine code for the CPU back end (the
 * JIT links it instead of compiling, kcc_load_object). Entries live in
 * $XDG_CACHE_HOME/kcc (default ~/.cache/kcc), named by a hash of everything the output
 * depends on: the source and its name, the signatures, the target, arch, optimisation
 * level, line and debug info, bounds checking, fast math, libdevice's path, the CPU
 * (its name and, for this machine's own, its features), the versions of kcc and LLVM,
 * and a fingerprint of the compiler's sources (KC_BUILD_ID, scripts/build_id.py), so a
 * rebuilt compiler misses old entries.
 *
 * The cache is an optimisation, so every failure to read or write it is silent and
 * falls back to compiling. Entries are written to a temporary file and renamed into
 * place, so a reader never sees half an entry and two processes storing the same entry
 * at once do no harm. An entry is used only when its header names the key's two hashes
 * and its code has the length and the checksum the header gives: damaged machine code
 * must never run.
 *
 * Entry format (text header, then the code's bytes; <h0>.ptxc for PTX, <h0>.cpuc for
 * object code):
 *   kcc-cache 6 <hash0> <hash1>
 *   counts <nkernels> <nuntyped> <code bytes> <code checksum: FNV-1a 64, hex>
 *   kernel <flags: 1 uses a barrier, 2 cooperative> <static_shared> <stack_bytes> <nparams> <name> <symbol> <signature...>
 *   param <dtype> <ndim> <flags> <tuple> <name...>   (nparams lines per kernel; flags:
 *                                        1 written, 2 strided ('A'); tuple is "-", or a
 *                                        tuple's element dtypes "9,9,10")
 *   untyped <name>
 *   <code>
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kc_build_id.h"
#include "kc_config.h"
#include "rt.h"

#define CACHE_FORMAT 6   /* 2: @guvectorize loop kernels take the broadcast parameters;
                            3: the kernel line's flags say cooperative (2);
                            4: tuple parameters, param flags (2 strided);
                            5: the code's checksum; CPU entries (object code);
                            6: the kernel line's stack_bytes */
#define CACHE_MAX_ENTRY ((size_t)1 << 30)   /* a bigger file is not an entry of ours */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* ---- The key -------------------------------------------------------------------------- */
static void fnv_bytes(uint64_t *h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    *h ^= p[i];
    *h *= FNV_PRIME;
  }
}

/* A field: its length first, so ("ab", "c") and ("a", "bc") hash apart. */
static void key_field(rt_cache_key *k, const void *data, size_t len) {
  uint64_t n = len;
  for (int i = 0; i < 2; i++) {
    fnv_bytes(&k->h[i], &n, sizeof n);
    fnv_bytes(&k->h[i], data, len);
  }
}

static void key_str(rt_cache_key *k, const char *s) { key_field(k, s ? s : "", s ? strlen(s) : 0); }

static void key_int(rt_cache_key *k, int64_t v) { key_field(k, &v, sizeof v); }

rt_cache_key rt_cache_key_of(const kcc_options *o, const char *name, const char *source,
                             size_t len) {
  rt_cache_key k;
  k.h[0] = FNV_OFFSET;
  k.h[1] = FNV_OFFSET;
  fnv_bytes(&k.h[1], "kcc second hash", 15);  /* a different function, for a check */
  key_int(&k, CACHE_FORMAT);
  key_str(&k, KC_VERSION);
  key_str(&k, KC_BUILD_ID);  /* the compiler's sources: a rebuilt kcc misses old entries */
  key_str(&k, KC_LLVM_VERSION);
  const char *libdevice = o->libdevice ? o->libdevice : getenv("KC_LIBDEVICE");
  key_str(&k, libdevice && *libdevice ? libdevice : KC_LIBDEVICE_PATH);
  key_int(&k, o->target);
  key_int(&k, o->emit);
  key_int(&k, o->arch);
  key_int(&k, o->opt_level);
  key_int(&k, o->lineinfo);
  key_int(&k, o->debug);
  key_int(&k, o->bounds_check);
  key_int(&k, o->fastmath);
  char *cpu = o->target == KCC_TARGET_HOST ? kcc_cpu_id(o->cpu) : NULL;
  key_str(&k, cpu ? cpu : "");  /* an unknown CPU: the compilation fails, nothing stored */
  free(cpu);
  k.host = o->target == KCC_TARGET_HOST;
  key_int(&k, o->nsigs);
  for (int i = 0; i < o->nsigs; i++) key_str(&k, o->sigs[i]);
  key_str(&k, name);
  key_field(&k, source, len);
  return k;
}

/* The checksum of an entry's code. */
static uint64_t code_sum(const void *code, size_t len) {
  uint64_t h = FNV_OFFSET;
  fnv_bytes(&h, code, len);
  return h;
}

/* ---- Where entries live ---------------------------------------------------------------- */
int rt_cache_dir(char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(buf, len, "%s/kcc", xdg);
  else if (home && *home) n = snprintf(buf, len, "%s/.cache/kcc", home);
  else return -1;
  return n > 0 && (size_t)n < len ? 0 : -1;
}

int rt_cache_enabled(const kc_context *ctx, kcc_target target) {
  return ctx->cfg.cache && (target == KCC_TARGET_NVPTX || target == KCC_TARGET_HOST);
}

static int entry_path(const rt_cache_key *key, char *buf, size_t len) {
  char dir[4096];
  if (rt_cache_dir(dir, sizeof dir) != 0) return -1;
  int n = snprintf(buf, len, "%s/%016llx.%s", dir, (unsigned long long)key->h[0],
                   key->host ? "cpuc" : "ptxc");
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p for the cache directory. */
static int make_dirs(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int r = mkdir(path, 0755);
    *p = '/';
    if (r != 0 && errno != EEXIST) return -1;
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* ---- Reading ---------------------------------------------------------------------------- */
static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && st.st_size > 0 && (size_t)st.st_size < CACHE_MAX_ENTRY &&
      (buf = malloc((size_t)st.st_size + 1))) {
    *len = fread(buf, 1, (size_t)st.st_size, f);
    if (*len != (size_t)st.st_size) {
      free(buf);
      buf = NULL;
    } else {
      buf[*len] = '\0';
    }
  }
  fclose(f);
  return buf;
}

/* The next line of the header (NUL-terminated in place), or NULL at the end. */
static char *next_line(char **at, char *end) {
  char *line = *at;
  if (line >= end) return NULL;
  char *nl = memchr(line, '\n', (size_t)(end - line));
  if (!nl) return NULL;
  *nl = '\0';
  *at = nl + 1;
  return line;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

/* Words of a line: up to max separated by one space; the last takes the rest. */
static int split(char *line, char **words, int max) {
  int n = 0;
  while (n < max - 1) {
    words[n++] = line;
    char *sp = strchr(line, ' ');
    if (!sp) return n;
    *sp = '\0';
    line = sp + 1;
  }
  words[n++] = line;
  return n;
}

/* A tuple parameter's element dtypes, "9,9,10"; "-" for none. */
static int parse_tuple(const char *s, kcc_param *p) {
  if (strcmp(s, "-") == 0) return 0;
  kc_dtype *el = calloc(SIG_MAX_TUPLE, sizeof *el);
  if (!el) return -1;
  p->elems = el;
  for (;;) {
    char *e;
    long d = strtol(s, &e, 10);
    if (e == s || d < 0 || d >= KC_DTYPE_COUNT || p->nelems == SIG_MAX_TUPLE) return -1;
    el[p->nelems++] = (kc_dtype)d;
    if (*e != ',') return *e ? -1 : 0;
    s = e + 1;
  }
}

static int parse_kernel(char **at, char *end, kcc_kernel *k) {
  char *w[9], *line = next_line(at, end);
  if (!line || split(line, w, 8) != 8 || strcmp(w[0], "kernel") != 0) return -1;
  k->uses_barrier = (atoi(w[1]) & 1) != 0;
  k->cooperative = (atoi(w[1]) & 2) != 0;
  k->static_shared = (size_t)strtoull(w[2], NULL, 10);
  k->stack_bytes = (size_t)strtoull(w[3], NULL, 10);
  int np = atoi(w[4]);
  if (np < 0 || np > RT_MAX_FLAT_PARAMS) return -1;
  if (!(k->name = dup_str(w[5])) || !(k->symbol = dup_str(w[6])) ||
      !(k->signature = dup_str(w[7])))
    return -1;
  k->params = calloc((size_t)np + 1, sizeof *k->params);
  if (!k->params) return -1;
  k->nparams = np;
  for (int i = 0; i < np; i++) {
    kcc_param *p = &k->params[i];
    if (!(line = next_line(at, end)) || split(line, w, 6) != 6 || strcmp(w[0], "param") != 0)
      return -1;
    int dtype = atoi(w[1]), ndim = atoi(w[2]);
    if (dtype < 0 || (dtype >= KC_DTYPE_COUNT && dtype != KC_RECORD) || ndim < 0 ||
        ndim > KC_MAX_DIMS)
      return -1;
    p->dtype = (kc_dtype)dtype;
    p->ndim = ndim;
    p->written = atoi(w[3]) & 1;
    p->strided = (atoi(w[3]) >> 1) & 1;
    if (!(p->name = dup_str(w[5])) || parse_tuple(w[4], p) != 0) return -1;
  }
  return 0;
}

static int parse_entry(const rt_cache_key *key, char *buf, size_t len, kcc_output *out) {
  char *at = buf, *end = buf + len, *w[8], *line = next_line(&at, end);
  char want[64];
  snprintf(want, sizeof want, "kcc-cache %d %016llx %016llx", CACHE_FORMAT,
           (unsigned long long)key->h[0], (unsigned long long)key->h[1]);
  if (!line || strcmp(line, want) != 0) return -1;
  if (!(line = next_line(&at, end)) || split(line, w, 5) != 5 || strcmp(w[0], "counts") != 0)
    return -1;
  int nk = atoi(w[1]), nu = atoi(w[2]);
  size_t code_len = (size_t)strtoull(w[3], NULL, 10);
  uint64_t sum = strtoull(w[4], NULL, 16);
  if (nk < 0 || nu < 0 || nk > 100000 || nu > 100000) return -1;
  out->kernels = calloc((size_t)nk + 1, sizeof *out->kernels);
  out->untyped = calloc((size_t)nu + 1, sizeof *out->untyped);
  if (!out->kernels || !out->untyped) return -1;
  for (int i = 0; i < nk; i++) {
    out->nkernels = i + 1;   /* so kcc_output_free frees what was parsed */
    if (parse_kernel(&at, end, &out->kernels[i]) != 0) return -1;
  }
  for (int i = 0; i < nu; i++) {
    if (!(line = next_line(&at, end)) || split(line, w, 2) != 2 ||
        strcmp(w[0], "untyped") != 0 || !(out->untyped[i] = dup_str(w[1])))
      return -1;
    out->nuntyped = i + 1;
  }
  if ((size_t)(end - at) != code_len || code_sum(at, code_len) != sum) return -1;
  char *code = malloc(code_len + 1);
  if (!code) return -1;
  memcpy(code, at, code_len);
  code[code_len] = '\0';
  if (key->host) {
    out->object = code;
    out->object_len = code_len;
  } else {
    out->text = code;
    out->text_len = code_len;
  }
  return 0;
}

int rt_cache_load(const rt_cache_key *key, kcc_output *out) {
  char path[4200];
  size_t len = 0;
  memset(out, 0, sizeof *out);
  if (entry_path(key, path, sizeof path) != 0) return 0;
  char *buf = read_all(path, &len);
  if (!buf) return 0;
  int ok = parse_entry(key, buf, len, out) == 0;
  free(buf);
  if (!ok) kcc_output_free(out);
  return ok;
}

/* ---- Writing ------------------------------------------------------------------------------ */
/* A word of the header must not break its line structure. */
static int bad_word(const char *s, int spaces_ok) {
  if (!s) return 1;
  for (; *s; s++)
    if (*s == '\n' || *s == '\r' || (*s == ' ' && !spaces_ok)) return 1;
  return 0;
}

/* The code an output holds for the key's target (NULL: none to store). */
static const char *entry_code(const rt_cache_key *key, const kcc_output *out, size_t *len) {
  *len = key->host ? out->object_len : out->text_len;
  if (key->host) return out->object;
  return out->host ? NULL : out->text;
}

static int write_entry(FILE *f, const rt_cache_key *key, const kcc_output *out) {
  size_t code_len;
  const char *code = entry_code(key, out, &code_len);
  fprintf(f, "kcc-cache %d %016llx %016llx\ncounts %d %d %zu %016llx\n", CACHE_FORMAT,
          (unsigned long long)key->h[0], (unsigned long long)key->h[1], out->nkernels,
          out->nuntyped, code_len, (unsigned long long)code_sum(code, code_len));
  for (int i = 0; i < out->nkernels; i++) {
    const kcc_kernel *k = &out->kernels[i];
    if (bad_word(k->name, 0) || bad_word(k->symbol, 0) || bad_word(k->signature, 1) ||
        !*k->name || !*k->symbol)
      return -1;
    fprintf(f, "kernel %d %zu %zu %d %s %s %s\n",
            (k->uses_barrier != 0) | (k->cooperative ? 2 : 0), k->static_shared,
            k->stack_bytes, k->nparams, k->name, k->symbol, k->signature);
    for (int j = 0; j < k->nparams; j++) {
      const kcc_param *p = &k->params[j];
      const char *name = p->name ? p->name : "";
      if (bad_word(name, 0)) return -1;
      fprintf(f, "param %d %d %d ", (int)p->dtype, p->ndim,
              (p->written != 0) | (p->strided != 0) << 1);
      for (int e = 0; e < p->nelems; e++) fprintf(f, "%s%d", e ? "," : "", (int)p->elems[e]);
      fprintf(f, "%s %s\n", p->nelems ? "" : "-", name);
    }
  }
  for (int i = 0; i < out->nuntyped; i++) {
    if (bad_word(out->untyped[i], 0)) return -1;
    fprintf(f, "untyped %s\n", out->untyped[i]);
  }
  if (code_len && fwrite(code, 1, code_len, f) != code_len) return -1;
  return 0;
}

int rt_cache_store(const rt_cache_key *key, const kcc_output *out) {
  char dir[4096], tmp[4200], path[4200];
  size_t code_len;
  if (!entry_code(key, out, &code_len) || rt_cache_dir(dir, sizeof dir) != 0 ||
      entry_path(key, path, sizeof path) != 0 || make_dirs(dir) != 0)
    return -1;
  snprintf(tmp, sizeof tmp, "%s/.%016llx.XXXXXX", dir, (unsigned long long)key->h[0]);
  int fd = mkstemp(tmp);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    return -1;
  }
  int failed = write_entry(f, key, out) != 0;
  if (fclose(f) != 0) failed = 1;
  if (!failed) {
    chmod(tmp, 0644);
    failed = rename(tmp, path) != 0;
  }
  if (failed) unlink(tmp);
  return failed ? -1 : 0;
}
