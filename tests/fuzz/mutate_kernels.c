/*
 * mutate_kernels.c — a libFuzzer custom mutator for the compiler's targets (fuzz_parse,
 * fuzz_infer, fuzz_codegen): besides libFuzzer's own byte-level mutations (two times in
 * three), edits of kernel source of the shapes that found crashes in the reliability run
 * of issue 18, which random bytes seldom make:
 *   - many parameters: dozens to hundreds added to a def (annotated or not);
 *   - big tuples: a tuple literal of many elements, or nested ones, in a body;
 *   - stacked decorators: a decorator line repeated;
 *   - deep nesting of calls: a literal wrapped in many calls (abs(, min(1, , math.sqrt(,
 *     (, int(, …), and deep nesting of blocks (if/for/while).
 * Each edit fits max_size or is not made; the input stays text a person can read in a
 * crash report.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed);

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static uint64_t next(uint64_t *r) {   /* xorshift64* */
  *r ^= *r >> 12, *r ^= *r << 25, *r ^= *r >> 27;
  return *r * 0x2545F4914F6CDD1Dull;
}

static size_t pick(uint64_t *r, size_t n) { return n ? (size_t)(next(r) % n) : 0; }

/* Append to t; 0, or -1 once it would pass its capacity (then it stays full). */
static int put(text *t, const char *s, size_t n) {
  if (t->len + n > t->cap) return -1;
  memcpy(t->s + t->len, s, n);
  t->len += n;
  return 0;
}

static int puts_(text *t, const char *s) { return put(t, s, strlen(s)); }

/* Offsets of the starts of lines that begin with prefix (after indent, if indented). */
static size_t find_lines(const uint8_t *d, size_t n, const char *prefix, int indented,
                         size_t *at, size_t max) {
  size_t k = 0, plen = strlen(prefix);
  for (size_t i = 0; i < n && k < max; i++) {
    if (i && d[i - 1] != '\n') continue;
    size_t j = i;
    while (j < n && d[j] == ' ') j++;
    if ((j > i) != (indented != 0)) continue;
    if (n - j >= plen && memcmp(d + j, prefix, plen) == 0) at[k++] = i;
  }
  return k;
}

static size_t indent_of(const uint8_t *d, size_t n, size_t at) {
  size_t j = at;
  while (j < n && d[j] == ' ') j++;
  return j - at;
}

/* Many parameters after the '(' of a def. Where to splice in *at. */
static int many_params(const uint8_t *d, size_t n, uint64_t *r, text *ins, size_t *at) {
  size_t defs[64], k = find_lines(d, n, "def ", 0, defs, 64);
  if (!k) return -1;
  size_t def = defs[pick(r, k)];
  const uint8_t *paren = memchr(d + def, '(', n - def);
  if (!paren) return -1;
  *at = (size_t)(paren - d) + 1;
  int annotate = (int)pick(r, 2), count = 10 + (int)pick(r, 400);
  static const char *types[] = {"int32", "float32", "float64[:]", "int64", "uint8[:, :]"};
  char buf[64];
  for (int i = 0; i < count; i++) {
    int len = annotate ? snprintf(buf, sizeof buf, "p%d: %s, ", i, types[pick(r, 5)])
                       : snprintf(buf, sizeof buf, "p%d, ", i);
    if (put(ins, buf, (size_t)len) != 0) break;
  }
  return 0;
}

/* A tuple of many elements (or of tuples) assigned in an indented line. */
static int big_tuple(const uint8_t *d, size_t n, uint64_t *r, text *ins, size_t *at) {
  size_t lines[256], k = find_lines(d, n, "", 1, lines, 256);
  if (!k) return -1;
  *at = lines[pick(r, k)];
  size_t indent = indent_of(d, n, *at);
  for (size_t i = 0; i < indent; i++) puts_(ins, " ");
  puts_(ins, pick(r, 2) ? "t_ = (" : "a_, b_ = (");
  int count = 2 + (int)pick(r, 1500), nested = (int)pick(r, 3) == 0;
  char buf[48];
  for (int i = 0; i < count; i++) {
    int len = nested ? snprintf(buf, sizeof buf, "(%d, %d.5), ", i, i)
                     : snprintf(buf, sizeof buf, pick(r, 4) ? "%d, " : "%d.0, ", i);
    if (ins->len + (size_t)len + 3 > ins->cap) break;
    put(ins, buf, (size_t)len);
  }
  return puts_(ins, ")\n") == 0 ? 0 : -1;
}

/* A decorator line repeated, or @cuda.jit stacked above a def. */
static int stacked_decorators(const uint8_t *d, size_t n, uint64_t *r, text *ins,
                              size_t *at) {
  size_t lines[64], k = find_lines(d, n, "@", 0, lines, 64);
  const char *line = "@cuda.jit\n";
  size_t line_len = strlen(line);
  if (k) {
    *at = lines[pick(r, k)];
    const uint8_t *nl = memchr(d + *at, '\n', n - *at);
    if (!nl) return -1;
    line = (const char *)d + *at;
    line_len = (size_t)(nl - d) - *at + 1;
  } else {
    if (!(k = find_lines(d, n, "def ", 0, lines, 64))) return -1;
    *at = lines[pick(r, k)];
  }
  for (int i = 1 + (int)pick(r, 300); i > 0; i--)
    if (put(ins, line, line_len) != 0) break;
  return 0;
}

static int word_char(uint8_t c) {
  return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* A number literal wrapped in many nested calls; *cut its length (it is re-emitted). */
static int nested_calls(const uint8_t *d, size_t n, uint64_t *r, text *ins, size_t *at,
                        size_t *cut) {
  size_t starts[512], k = 0;
  for (size_t i = 1; i < n && k < 512; i++)
    if (d[i] >= '0' && d[i] <= '9' && !word_char(d[i - 1]) && d[i - 1] != '.')
      starts[k++] = i;
  if (!k) return -1;
  *at = starts[pick(r, k)];
  size_t end = *at;
  while (end < n && ((d[end] >= '0' && d[end] <= '9') || d[end] == '.')) end++;
  *cut = end - *at;
  static const char *wrap[] = {"abs(", "min(1, ", "max(0, ", "math.sqrt(", "(", "int(",
                               "float(", "-(", "cuda.atomic.add(a, 0, "};
  const char *w = wrap[pick(r, sizeof wrap / sizeof *wrap)];
  size_t wl = strlen(w), depth = 8 + pick(r, pick(r, 4) ? 100 : 2000);   /* mostly shallow: a deep one is slow to run */
  while (depth && ins->len + depth * (wl + 1) + *cut > ins->cap) depth /= 2;
  if (!depth) return -1;
  for (size_t i = 0; i < depth; i++) put(ins, w, wl);
  put(ins, (const char *)d + *at, *cut);
  for (size_t i = 0; i < depth; i++) put(ins, ")", 1);
  return 0;
}

/* Blocks nested many levels deep in an indented line's place. */
static int nested_blocks(const uint8_t *d, size_t n, uint64_t *r, text *ins, size_t *at) {
  size_t lines[256], k = find_lines(d, n, "", 1, lines, 256);
  if (!k) return -1;
  *at = lines[pick(r, k)];
  size_t indent = indent_of(d, n, *at), depth = 2 + pick(r, 120);
  static const char *heads[] = {"if i_ < 3:\n", "for i_ in range(2):\n", "while False:\n",
                                "if True:\n"};
  for (size_t i = 0; i < indent; i++) puts_(ins, " ");
  puts_(ins, "i_ = 0\n");
  for (size_t level = 0; level <= depth; level++) {
    if (ins->len + indent + 4 * level + 24 > ins->cap) break;
    for (size_t i = 0; i < indent + 4 * level; i++) puts_(ins, " ");
    puts_(ins, level == depth ? "i_ += 1\n" : heads[pick(r, 4)]);
  }
  return 0;
}

/* One structural edit of data into out (at most max bytes): its size, or 0 if none. */
static size_t structural(const uint8_t *d, size_t n, size_t max, uint64_t *r, uint8_t *out) {
  if (n >= max) return 0;
  text ins = {malloc(max - n), 0, max - n};
  if (!ins.s) return 0;
  size_t at = 0, cut = 0;
  int rc;
  switch (pick(r, 5)) {
  case 0: rc = many_params(d, n, r, &ins, &at); break;
  case 1: rc = big_tuple(d, n, r, &ins, &at); break;
  case 2: rc = stacked_decorators(d, n, r, &ins, &at); break;
  case 3: rc = nested_calls(d, n, r, &ins, &at, &cut); break;
  default: rc = nested_blocks(d, n, r, &ins, &at); break;
  }
  size_t len = 0;
  if (rc == 0 && ins.len && n - cut + ins.len <= max) {
    memcpy(out, d, at);
    memcpy(out + at, ins.s, ins.len);
    memcpy(out + at + ins.len, d + at + cut, n - at - cut);
    len = n - cut + ins.len;
  }
  free(ins.s);
  return len;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed) {
  uint64_t r = ((uint64_t)seed << 1 | 1) * 0x9E3779B97F4A7C15ull;
  if (pick(&r, 3) != 0 || size == 0) return LLVMFuzzerMutate(data, size, max_size);
  uint8_t *out = malloc(max_size);
  size_t len = out ? structural(data, size, max_size, &r, out) : 0;
  if (len) memcpy(data, out, len);
  free(out);
  return len ? len : LLVMFuzzerMutate(data, size, max_size);
}
