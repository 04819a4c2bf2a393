/*
 * ptx.c — what the double reads from a PTX module: its .entry lines with their .param
 * lists, .maxntid, .shared sizes, module-scope .global/.const variables (with byte
 * initialisers), and kcc's "// kcc-kernel: SYMBOL SIGNATURE" lines.
 *
 * Only the subset of PTX that LLVM's NVPTX back end writes is understood; anything
 * else in a line is ignored. Sizes come from the element type (.b8/.u16/.f32/.b64 ...)
 * times an [N] extent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double.h"
#include "host_abi.h"

static size_t type_size(const char *t) {
  if (t[0] != '.') return 0;
  char k = t[1];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
  if (k == 'f' && t[2] == '1' && t[3] == '6' && t[4] == 'x') return 4;   /* .f16x2 */
  int bits = atoi(t + 2);
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (size_t)bits / 8 : 0;
}

/* One declaration's tokens: [.align N] .type name[[N]]. Returns the size, 0 if none;
 * *elem_out (when not NULL) the element's size. */
static size_t decl_elem(const char *s, size_t *align, char *name, size_t name_len,
                        size_t *elem_out) {
  size_t elem = 0;
  *align = 0;
  name[0] = '\0';
  while (*s) {
    while (isspace((unsigned char)*s) || *s == ',') s++;
    const char *t = s;
    while (*s && !isspace((unsigned char)*s) && *s != ',' && *s != ';' && *s != '=') s++;
    size_t n = (size_t)(s - t);
    if (n == 0) break;
    if (n == 6 && strncmp(t, ".align", 6) == 0) {
      while (isspace((unsigned char)*s)) s++;
      *align = strtoul(s, (char **)&s, 10);
    } else if (t[0] == '.') {
      size_t z = type_size(t);
      if (z) elem = z;
    } else if (elem) {
      size_t count = 1;
      const char *br = memchr(t, '[', n);
      size_t nl = br ? (size_t)(br - t) : n;
      if (br) count = strtoul(br + 1, NULL, 10);
      if (nl >= name_len) nl = name_len - 1;
      memcpy(name, t, nl);
      name[nl] = '\0';
      if (!*align) *align = elem;
      if (elem_out) *elem_out = elem;
      return elem * count;
    }
    if (*s == ';' || *s == '=') break;
  }
  return 0;
}

static size_t decl(const char *s, size_t *align, char *name, size_t name_len) {
  return decl_elem(s, align, name, name_len, NULL);
}

static int grow(void **p, int n, size_t size) {
  if (n & (n - 1) && n != 0) return 1;   /* capacity doubles at powers of two */
  void *q = realloc(*p, (size_t)(n ? 2 * n : 4) * size);
  if (!q) return 0;
  *p = q;
  return 1;
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

/* "= {1, 2, 3}" after a .b8 (or wider) declaration: the values, little-endian. */
static void initialise(char *mem, size_t size, size_t elem, const char *eq) {
  const char *s = strchr(eq, '{');
  if (!s) return;
  s++;
  for (size_t off = 0; off + elem <= size && *s && *s != '}';) {
    while (isspace((unsigned char)*s) || *s == ',') s++;
    if (*s == '}' || !*s) break;
    unsigned long long v;
    if (s[0] == '0' && (s[1] == 'f' || s[1] == 'd') && isxdigit((unsigned char)s[2]))
      v = strtoull(s + 2, (char **)&s, 16);   /* 0f3F800000: a float's bits */
    else v = strtoull(s, (char **)&s, 0);
    memcpy(mem + off, &v, elem);   /* little-endian host */
    off += elem;
  }
}

static int add_global(dbl_obj *m, const char *line) {
  size_t align, elem = 0;
  char name[256];
  size_t size = decl_elem(line, &align, name, sizeof name, &elem);
  if (!size || !name[0]) return 1;
  if (!grow((void **)&m->globals, m->nglobals, sizeof *m->globals)) return 0;
  dbl_global *g = &m->globals[m->nglobals];
  g->name = dup_n(name, strlen(name));
  g->size = size;
  g->mem = dbl_mem_new(size, DBL_GLOBAL);
  if (!g->name || !g->mem) return 0;
  memset(g->mem, 0, size);
  const char *eq = strchr(line, '=');
  if (eq) initialise(g->mem, size, elem ? elem : 1, eq);
  m->nglobals++;
  return 1;
}

static int add_param(dbl_entry *e, const char *line) {
  size_t align;
  char name[256];
  size_t size = decl(strstr(line, ".param") + 6, &align, name, sizeof name);
  if (!size) return 1;
  if (!grow((void **)&e->params, e->nparams, sizeof *e->params)) return 0;
  e->params[e->nparams].size = size;
  e->params[e->nparams].align = align;
  e->nparams++;
  return 1;
}

static dbl_entry *add_entry(dbl_obj *m, const char *at) {
  const char *s = at + 6;   /* past ".entry" */
  while (isspace((unsigned char)*s)) s++;
  size_t n = strcspn(s, "( \t\r\n");
  if (!grow((void **)&m->entries, m->nentries, sizeof *m->entries)) return NULL;
  dbl_entry *e = &m->entries[m->nentries];
  memset(e, 0, sizeof *e);
  if (!(e->name = dup_n(s, n))) return NULL;
  m->nentries++;
  return e;
}

/* "// kcc-kernel: SYMBOL name(sig...)[ written=..][ cooperative]" */
static void kcc_line(dbl_obj *m, const char *s) {
  s += strlen("// kcc-kernel:");
  while (*s == ' ') s++;
  size_t sn = strcspn(s, " \n");
  const char *sig = s + sn;
  while (*sig == ' ') sig++;
  const char *p = strchr(sig, '(');
  int depth = 0;
  for (; p && *p && *p != '\n'; p++) {
    depth += *p == '(';
    if (*p == ')' && --depth == 0) break;
  }
  if (!p || *p != ')') return;
  const char *eol = sig + strcspn(sig, "\n");
  for (int i = 0; i < m->nentries; i++) {
    dbl_entry *e = &m->entries[i];
    if (strlen(e->name) != sn || strncmp(e->name, s, sn) != 0) continue;
    e->signature = dup_n(sig, (size_t)(p + 1 - sig));
    const char *c = strstr(p, " cooperative");
    e->cooperative = c && c < eol;
  }
}

/* A growing string. */
typedef struct strbuf {
  char *s;
  size_t len, cap;
  int failed;
} strbuf;

static void sb_add(strbuf *b, const char *x, const char *y, const char *z) {
  size_t n = strlen(x) + strlen(y) + strlen(z);
  if (b->failed) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = (b->len + n + 1) * 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->failed = 1;
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  b->len += (size_t)snprintf(b->s + b->len, b->cap - b->len, "%s%s%s", x, y, z);
}

/* ".func (.param .b32 r) name(" or ".func name(": the name. */
static void func_name(const char *s, char *out, size_t len) {
  while (isspace((unsigned char)*s)) s++;
  if (*s == '(') {
    const char *close = strchr(s, ')');
    s = close ? close + 1 : s + strlen(s);
    while (isspace((unsigned char)*s)) s++;
  }
  size_t n = strcspn(s, "( \t");
  if (n >= len) n = len - 1;
  memcpy(out, s, n);
  out[n] = '\0';
}

/* An entry that calls a device function writing the error record is checked too
 * (one level of calls: kcc's .funcs are a kernel's body split off, or leaf helpers). */
static void mark_callers(dbl_obj *m, const char *funcs, const char *calls) {
  for (const char *f = funcs; f && *f;) {
    while (*f == ' ') f++;
    size_t n = strcspn(f, " ");
    if (!n) break;
    for (const char *c = calls; c && (c = strstr(c, "\n"));) {
      c++;
      int idx = atoi(c);
      const char *eol = strchr(c, '\n');
      size_t ll = eol ? (size_t)(eol - c) : strlen(c);
      for (const char *h = c; (h = memchr(h, f[0], ll - (size_t)(h - c))); h++) {
        if ((size_t)(h - c) + n > ll) break;
        if (strncmp(h, f, n) == 0 && !(isalnum((unsigned char)h[n]) || h[n] == '_') &&
            !(isalnum((unsigned char)h[-1]) || h[-1] == '_')) {
          if (idx >= 0 && idx < m->nentries) m->entries[idx].checked = 1;
          break;
        }
      }
    }
    f += n;
  }
}

int dbl_ptx_parse(dbl_obj *m, const char *ptx) {
  dbl_entry *cur = NULL;   /* the entry whose header or body we are in */
  char func[256] = "";     /* the .func whose body we are in */
  int in_params = 0, depth = 0, in_func = 0;
  size_t module_shared = 0;
  strbuf checked_funcs = {0}, calls = {0};   /* " name name ", "\nentry-index: line" */
  for (const char *line = ptx; *line;) {
    size_t len = strcspn(line, "\n");
    char buf[4096];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, line, n);
    buf[n] = '\0';
    const char *s = buf;
    while (isspace((unsigned char)*s)) s++;
    const char *entry = strstr(s, ".entry ");
    if (depth == 0 && strncmp(s, "//", 2) != 0 && (entry || strstr(s, ".func "))) {
      in_func = !entry;   /* a device function's body belongs to no entry */
      if (in_func) func_name(strstr(s, ".func ") + 6, func, sizeof func);
      if (entry && !(cur = add_entry(m, entry))) return 0;
      in_params = entry && strchr(entry, '(') && !strchr(entry, ')');
    } else if (in_params) {
      if (*s == ')') in_params = 0;
      else if (strncmp(s, ".param", 6) == 0 && !add_param(cur, s)) return 0;
    } else if (cur && depth == 0 && (strncmp(s, ".maxntid", 8) == 0 ||
                                     strncmp(s, ".reqntid", 8) == 0)) {
      unsigned x = 1, y = 1, z = 1;
      char *q;
      x = (unsigned)strtoul(s + 8, &q, 10);
      if (*q == ',') y = (unsigned)strtoul(q + 1, &q, 10);
      if (*q == ',') z = (unsigned)strtoul(q + 1, &q, 10);
      cur->maxntid = x * y * z;
    } else if (strstr(s, ".shared") && !strstr(s, ".extern") && strncmp(s, "//", 2) != 0 &&
               (strncmp(s, ".shared", 7) == 0 || strncmp(s, ".visible .shared", 16) == 0 ||
                strncmp(s, ".global .shared", 15) == 0)) {
      size_t align;
      char name[256];
      size_t z = decl(strstr(s, ".shared") + 7, &align, name, sizeof name);
      if (depth > 0 && cur) cur->static_shared += z;
      else module_shared += z;
    } else if (depth == 0 && (strncmp(s, ".global", 7) == 0 || strncmp(s, ".const", 6) == 0 ||
                              strncmp(s, ".visible .global", 16) == 0 ||
                              strncmp(s, ".visible .const", 15) == 0)) {
      const char *full = s;
      char *big = NULL;
      if (len >= sizeof buf - 1) full = big = dup_n(line, len);   /* long initialisers */
      int ok = full && add_global(m, full);
      free(big);
      if (!ok) return 0;
    }
    /* a kernel that writes the error record was compiled with checks (bounds_check,
       debug): the CPU kernel that stands for it must be too (run.c) */
    if (depth > 0 && strstr(s, KC_KERNEL_ERROR_SYMBOL)) {
      if (in_func) sb_add(&checked_funcs, " ", func, " ");
      else if (cur) cur->checked = 1;
    }
    if (depth > 0 && !in_func && cur && strstr(s, "call")) {
      char idx[32];
      snprintf(idx, sizeof idx, "\n%d:", m->nentries - 1);
      sb_add(&calls, idx, s, "");
    }
    for (const char *c = s; *c && !(c[0] == '/' && c[1] == '/'); c++)
      depth += (*c == '{') - (*c == '}');
    if (depth < 0) depth = 0;
    line += len + (line[len] == '\n');
  }
  for (int i = 0; i < m->nentries; i++) m->entries[i].static_shared += module_shared;
  mark_callers(m, checked_funcs.s, calls.s);
  free(checked_funcs.s);
  free(calls.s);
  if (checked_funcs.failed || calls.failed) return 0;
  for (const char *l = strstr(ptx, "// kcc-kernel:"); l; l = strstr(l + 1, "// kcc-kernel:"))
    kcc_line(m, l);
  return 1;
}
