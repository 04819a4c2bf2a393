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
 * The key is XXH3-128 (xxHash, libxxhash) of those fields, each preceded by its length;
 * the entry's first line carries the whole 128-bit key and an XXH3-64 checksum of every
 * byte after that line (the kernel table and the code). An entry is used only when its
 * first line is exactly the one this key and these bytes give: any change to a stored
 * entry, in its header, its table or its code, is a miss, never a different table or
 * damaged machine code. Numbers in the table are parsed strictly besides (the libFuzzer
 * target tests/fuzz/fuzz_cache.c feeds the parser tables that pass the checksum).
 *
 * The cache is an optimisation, so every failure to read or write it is silent and
 * falls back to compiling (KC_VERBOSE says why an entry was refused). Entries are opened
 * without following links and without blocking, and anything but a regular file is a
 * miss (a FIFO in an entry's place would otherwise block the reader for ever). Entries
 * are written to a temporary file and renamed into place, so a reader never sees half
 * an entry and two processes storing the same entry at once do no harm; a refused entry
 * is replaced by the compilation that follows. The directory's size is bounded by
 * KC_CACHE_MAX with least-recently-used eviction (cache_evict.c): a hit touches its
 * entry's modification time.
 *
 * Entry format (text header, then the code's bytes; <h0>.ptxc for PTX, <h0>.cpuc for
 * object code):
 *   kcc-cache 8 <key: 32 hex digits> <checksum of the rest: XXH3-64, 16 hex digits>
 *   counts <nkernels> <nuntyped> <code bytes>
 *   kernel <flags: 1 uses a barrier, 2 cooperative, 4 / 8 inner axis y / z (compile.h's
 *          inner_axis), 16 blocks may be fused (fuse_blocks), 32 region form (regions)>
 *          <static_shared> <stack_bytes> <max_threads> <nparams> <name> <symbol>
 *          <signature...>
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
/* header-only: libkc and libkcrt need no libxxhash at run time */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kc_build_id.h"
#include "kc_config.h"
#include "rt.h"
#include "rt_compiler.h"

#define CACHE_FORMAT 8   /* 2: @guvectorize loop kernels take the broadcast parameters;
                            3: the kernel line's flags say cooperative (2);
                            4: tuple parameters, param flags (2 strided);
                            5: the code's checksum; CPU entries (object code);
                            6: XXH3 key and a checksum of the whole entry;
                            7: the kernel line's stack_bytes (later, the inner axis
                            in its flags, 4 and 8, and fused blocks, 16: absent in
                            older entries, which the build id keeps apart anyway);
                            8: the kernel line's max_threads (launch_bounds), which a
                            hit on the CPU lost: a block past it was run, not refused */
#define CACHE_MAX_ENTRY ((size_t)1 << 30)   /* a bigger file is not an entry of ours */
#define CACHE_LINE1_LEN 61                  /* "kcc-cache 8 " + 32 + " " + 16 */

/* ---- The key -------------------------------------------------------------------------- */
/* A field: its length first, so ("ab", "c") and ("a", "bc") hash apart. */
static void key_field(XXH3_state_t *st, const void *data, size_t len) {
  uint64_t n = len;
  XXH3_128bits_update(st, &n, sizeof n);
  XXH3_128bits_update(st, data, len);
}

static void key_str(XXH3_state_t *st, const char *s) {
  key_field(st, s ? s : "", s ? strlen(s) : 0);
}

static void key_int(XXH3_state_t *st, int64_t v) { key_field(st, &v, sizeof v); }

static void key_options(XXH3_state_t *st, const kcc_options *o) {
  key_int(st, CACHE_FORMAT);
  key_str(st, KC_VERSION);
  key_str(st, KC_BUILD_ID);  /* the compiler's sources: a rebuilt kcc misses old entries */
  key_str(st, KC_LLVM_VERSION);
  const char *libdevice = o->libdevice ? o->libdevice : getenv("KC_LIBDEVICE");
  key_str(st, libdevice && *libdevice ? libdevice : KC_LIBDEVICE_PATH);
  key_int(st, o->target);
  key_int(st, o->emit);
  key_int(st, o->arch);
  key_int(st, o->opt_level);
  key_int(st, o->lineinfo);
  key_int(st, o->debug);
  key_int(st, o->bounds_check);
  key_int(st, o->fastmath);
  key_int(st, o->loop_checks);
  char *cpu = o->target == KCC_TARGET_HOST ? rt_compiler_get()->cpu_id(o->cpu) : NULL;
  key_str(st, cpu ? cpu : "");  /* an unknown CPU: the compilation fails, nothing stored */
  free(cpu);
  key_int(st, o->nsigs);
  for (int i = 0; i < o->nsigs; i++) key_str(st, o->sigs[i]);
  key_str(st, o->scalar_ufunc ? o->scalar_ufunc : "");
  key_int(st, o->scalar_ufunc ? (int64_t)o->scalar_inputs : -1);
  key_str(st, o->only_kernel ? o->only_kernel : "");
  key_int(st, o->any_layout);
  for (int k = 0; k < 3; k++) key_int(st, o->block_dim[k]);
}

rt_cache_key rt_cache_key_of(const kcc_options *o, const char *name, const char *source,
                             size_t len) {
  rt_cache_key k;
  memset(&k, 0, sizeof k);
  k.host = o->target == KCC_TARGET_HOST;
  XXH3_state_t *st = XXH3_createState();
  if (!st || XXH3_128bits_reset(st) != XXH_OK) {
    k.unusable = 1;   /* out of memory: the cache is skipped */
    XXH3_freeState(st);
    return k;
  }
  key_options(st, o);
  key_str(st, name);
  key_field(st, source, len);
  XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  k.h[0] = h.low64;
  k.h[1] = h.high64;
  return k;
}

/* An entry's first line: the format, the key, the checksum of the bytes after it. */
static void first_line(const rt_cache_key *key, const void *rest, size_t len,
                       char buf[CACHE_LINE1_LEN + 2]) {
  snprintf(buf, CACHE_LINE1_LEN + 2, "kcc-cache %d %016llx%016llx %016llx\n", CACHE_FORMAT,
           (unsigned long long)key->h[1], (unsigned long long)key->h[0],
           (unsigned long long)XXH3_64bits(rest, len));
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
  if (key->unusable || rt_cache_dir(dir, sizeof dir) != 0) return -1;
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

static void note(const rt_cache_key *key, const char *path, const char *why) {
  if (key->verbose) fprintf(stderr, "kcc: cache: %s: %s: compiling instead\n", path, why);
}

/* ---- Reading ---------------------------------------------------------------------------- */
/* The entry at path opened for reading: never through a link, never blocking (a FIFO
 * opens at once and is then refused), a regular file only; -1 on a miss. */
static int open_entry(const rt_cache_key *key, const char *path, struct stat *st) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) note(key, path, "a symbolic link, not an entry");
    else if (errno != ENOENT) note(key, path, strerror(errno));
    return -1;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    note(key, path, "not a regular file");
    close(fd);
    return -1;
  }
  return fd;
}

/* All of a regular file's st_size bytes, NUL-terminated; NULL if it is empty, too big
 * or changes size under us. */
static char *read_all(int fd, const struct stat *st, size_t *len) {
  if (st->st_size <= 0 || (size_t)st->st_size >= CACHE_MAX_ENTRY) return NULL;
  size_t want = (size_t)st->st_size, got = 0;
  char *buf = malloc(want + 1);
  while (buf && got < want) {
    ssize_t n = read(fd, buf + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      free(buf);
      return NULL;
    }
    got += (size_t)n;
  }
  if (buf) buf[want] = '\0';
  *len = want;
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

/* A decimal number in [0, max], digits only; -1 for anything else. */
static int num(const char *s, unsigned long long max, unsigned long long *v) {
  if (*s < '0' || *s > '9') return -1;
  char *e;
  errno = 0;
  *v = strtoull(s, &e, 10);
  return *e || errno || *v > max ? -1 : 0;
}

static int small(const char *s, int max, int *v) {
  unsigned long long u;
  if (num(s, (unsigned long long)max, &u) != 0) return -1;
  *v = (int)u;
  return 0;
}

/* A tuple parameter's element dtypes, "9,9,10"; "-" for none. */
static int parse_tuple(char *s, kcc_param *p) {
  if (strcmp(s, "-") == 0) return 0;
  kc_dtype *el = calloc(SIG_MAX_TUPLE, sizeof *el);
  if (!el) return -1;
  p->elems = el;
  for (char *tok = s;;) {
    char *comma = strchr(tok, ',');
    if (comma) *comma = '\0';
    int d;
    if (p->nelems == SIG_MAX_TUPLE || small(tok, KC_DTYPE_COUNT - 1, &d) != 0) return -1;
    el[p->nelems++] = (kc_dtype)d;
    if (!comma) return 0;
    tok = comma + 1;
  }
}

static int parse_param(char **at, char *end, kcc_param *p) {
  char *w[6], *line = next_line(at, end);
  int dtype, ndim, flags;
  if (!line || split(line, w, 6) != 6 || strcmp(w[0], "param") != 0 ||
      small(w[1], KC_RECORD, &dtype) != 0 ||
      (dtype >= KC_DTYPE_COUNT && dtype != KC_RECORD) || small(w[2], KC_MAX_DIMS, &ndim) != 0 ||
      small(w[3], 3, &flags) != 0)
    return -1;
  p->dtype = (kc_dtype)dtype;
  p->ndim = ndim;
  p->written = flags & 1;
  p->strided = (flags >> 1) & 1;
  if (!(p->name = dup_str(w[5])) || parse_tuple(w[4], p) != 0) return -1;
  return 0;
}

static int parse_kernel(char **at, char *end, kcc_kernel *k) {
  char *w[9], *line = next_line(at, end);
  int flags, np, max_threads;
  unsigned long long shared, stack;
  if (!line || split(line, w, 9) != 9 || strcmp(w[0], "kernel") != 0 ||
      small(w[1], 63, &flags) != 0 || (flags & 12) == 12 || num(w[2], SIZE_MAX, &shared) != 0 ||
      num(w[3], SIZE_MAX, &stack) != 0 || small(w[4], 1 << 20, &max_threads) != 0 ||
      small(w[5], RT_MAX_FLAT_PARAMS, &np) != 0 || !*w[6] || !*w[7])
    return -1;
  k->max_threads = max_threads;
  k->uses_barrier = (flags & 1) != 0;
  k->cooperative = (flags & 2) != 0;
  k->inner_axis = (flags >> 2) & 3;
  k->fuse_blocks = (flags & 16) != 0;
  k->regions = (flags & 32) != 0;
  k->static_shared = (size_t)shared;
  k->stack_bytes = (size_t)stack;
  if (!(k->name = dup_str(w[6])) || !(k->symbol = dup_str(w[7])) ||
      !(k->signature = dup_str(w[8])))
    return -1;
  k->params = calloc((size_t)np + 1, sizeof *k->params);
  if (!k->params) return -1;
  k->nparams = np;
  for (int i = 0; i < np; i++)
    if (parse_param(at, end, &k->params[i]) != 0) return -1;
  return 0;
}

/* The kernel table and the code, after the first line. */
static int parse_rest(const rt_cache_key *key, char *at, char *end, kcc_output *out) {
  char *w[4], *line = next_line(&at, end);
  int nk, nu;
  unsigned long long code_len;
  if (!line || split(line, w, 4) != 4 || strcmp(w[0], "counts") != 0 ||
      small(w[1], 100000, &nk) != 0 || small(w[2], 100000, &nu) != 0 ||
      num(w[3], CACHE_MAX_ENTRY, &code_len) != 0)
    return -1;
  out->kernels = calloc((size_t)nk + 1, sizeof *out->kernels);
  out->untyped = calloc((size_t)nu + 1, sizeof *out->untyped);
  if (!out->kernels || !out->untyped) return -1;
  for (int i = 0; i < nk; i++) {
    out->nkernels = i + 1;   /* so kcc_output_free frees what was parsed */
    if (parse_kernel(&at, end, &out->kernels[i]) != 0) return -1;
  }
  for (int i = 0; i < nu; i++) {
    if (!(line = next_line(&at, end)) || split(line, w, 2) != 2 ||
        strcmp(w[0], "untyped") != 0 || !*w[1] || !(out->untyped[i] = dup_str(w[1])))
      return -1;
    out->nuntyped = i + 1;
  }
  if ((size_t)(end - at) != code_len) return -1;
  char *code = malloc((size_t)code_len + 1);
  if (!code) return -1;
  memcpy(code, at, (size_t)code_len);
  code[code_len] = '\0';
  if (key->host) {
    out->object = code;
    out->object_len = (size_t)code_len;
  } else {
    out->text = code;
    out->text_len = (size_t)code_len;
  }
  return 0;
}

/* Free what a failed parse left (the compiler's function: only libkc, which compiles,
 * reads the cache). */
static void rt_cache_output_free(kcc_output *out) {
  const rt_compiler *cc = rt_compiler_get();
  if (cc) cc->output_free(out);
  memset(out, 0, sizeof *out);
}

int rt_cache_parse(const rt_cache_key *key, char *buf, size_t len, kcc_output *out) {
  char want[CACHE_LINE1_LEN + 2];
  memset(out, 0, sizeof *out);
  if (len <= CACHE_LINE1_LEN) return -1;
  first_line(key, buf + CACHE_LINE1_LEN + 1, len - CACHE_LINE1_LEN - 1, want);
  if (memcmp(buf, want, CACHE_LINE1_LEN + 1) != 0) return -1;
  if (parse_rest(key, buf + CACHE_LINE1_LEN + 1, buf + len, out) == 0) return 0;
  rt_cache_output_free(out);
  return -1;
}

int rt_cache_load(const rt_cache_key *key, kcc_output *out) {
  char path[4200];
  size_t len = 0;
  struct stat st;
  memset(out, 0, sizeof *out);
  if (entry_path(key, path, sizeof path) != 0) return 0;
  int fd = open_entry(key, path, &st);
  if (fd < 0) return 0;
  char *buf = read_all(fd, &st, &len);
  int ok = buf && rt_cache_parse(key, buf, len, out) == 0;
  if (ok) futimens(fd, NULL);   /* used now: the last to be evicted */
  else note(key, path, buf ? "damaged, or another key's entry" : "unreadable");
  close(fd);
  free(buf);
  if (!ok) rt_cache_output_free(out);
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

static int write_kernel(FILE *f, const kcc_kernel *k) {
  if (bad_word(k->name, 0) || bad_word(k->symbol, 0) || bad_word(k->signature, 1) ||
      !*k->name || !*k->symbol)
    return -1;
  fprintf(f, "kernel %d %zu %zu %d %d %s %s %s\n",
          (k->uses_barrier != 0) | (k->cooperative ? 2 : 0) | (k->inner_axis & 3) << 2 |
          (k->fuse_blocks ? 16 : 0) | (k->regions ? 32 : 0), k->static_shared, k->stack_bytes,
          k->max_threads, k->nparams, k->name, k->symbol, k->signature);
  for (int j = 0; j < k->nparams; j++) {
    const kcc_param *p = &k->params[j];
    const char *name = p->name ? p->name : "";
    if (bad_word(name, 0)) return -1;
    fprintf(f, "param %d %d %d ", (int)p->dtype, p->ndim,
            (p->written != 0) | (p->strided != 0) << 1);
    for (int e = 0; e < p->nelems; e++) fprintf(f, "%s%d", e ? "," : "", (int)p->elems[e]);
    fprintf(f, "%s %s\n", p->nelems ? "" : "-", name);
  }
  return 0;
}

/* The entry after its first line: the table, then the code (malloc'd; NULL on failure). */
static char *entry_rest(const rt_cache_key *key, const kcc_output *out, size_t *len) {
  size_t code_len, tab_len = 0;
  const char *code = entry_code(key, out, &code_len);
  char *tab = NULL;
  FILE *f = open_memstream(&tab, &tab_len);
  if (!f) return NULL;
  int failed = 0;
  fprintf(f, "counts %d %d %zu\n", out->nkernels, out->nuntyped, code_len);
  for (int i = 0; i < out->nkernels && !failed; i++)
    failed = write_kernel(f, &out->kernels[i]) != 0;
  for (int i = 0; i < out->nuntyped && !failed; i++) {
    failed = bad_word(out->untyped[i], 0) || !*out->untyped[i];
    if (!failed) fprintf(f, "untyped %s\n", out->untyped[i]);
  }
  if (fclose(f) != 0) failed = 1;
  char *rest = failed ? NULL : realloc(tab, tab_len + code_len + 1);
  if (!rest) {
    free(tab);
    return NULL;
  }
  if (code_len) memcpy(rest + tab_len, code, code_len);
  *len = tab_len + code_len;
  return rest;
}

/* The whole entry into a new temporary file in dir, its name in tmp. */
static int write_temp(const rt_cache_key *key, const char *dir, char *tmp, size_t tmp_len,
                      const char *rest, size_t len) {
  char line[CACHE_LINE1_LEN + 2];
  first_line(key, rest, len, line);
  snprintf(tmp, tmp_len, "%s/.%016llx.XXXXXX", dir, (unsigned long long)key->h[0]);
  int fd = mkstemp(tmp);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    close(fd);
    unlink(tmp);
    return -1;
  }
  int failed = fwrite(line, 1, CACHE_LINE1_LEN + 1, f) != CACHE_LINE1_LEN + 1 ||
               fwrite(rest, 1, len, f) != len;
  if (fclose(f) != 0) failed = 1;
  if (!failed) failed = fchmodat(AT_FDCWD, tmp, 0644, 0) != 0;
  if (failed) unlink(tmp);
  return failed ? -1 : 0;
}

int rt_cache_store(const rt_cache_key *key, const kcc_output *out) {
  char dir[4096], tmp[4200], path[4200];
  size_t code_len, len = 0;
  if (!entry_code(key, out, &code_len) || rt_cache_dir(dir, sizeof dir) != 0 ||
      entry_path(key, path, sizeof path) != 0 || make_dirs(dir) != 0)
    return -1;
  char *rest = entry_rest(key, out, &len);
  if (!rest) return -1;
  int failed = write_temp(key, dir, tmp, sizeof tmp, rest, len) != 0;
  free(rest);
  if (!failed && rename(tmp, path) != 0) {
    unlink(tmp);
    failed = 1;
  }
  if (!failed) rt_cache_evict(dir, strrchr(path, '/') + 1, rt_cache_max_bytes());
  return failed ? -1 : 0;
}
