/*
 * toplevel.c — a module's top-level statements, found without parsing them.
 *
 * Numba reads a module by running it: the host code is Python's business, and only the
 * decorated functions and the globals they use are compiled. kcc reads the file itself,
 * so parse.c parses each top-level statement alone: one that is not in the kernel
 * language is host Python (N_HOST), never an error unless a kernel uses what it binds.
 * This file finds where each statement ends, knowing only what Python's tokenizer
 * knows about lines (brackets, strings, comments, backslash continuations), and says
 * which statements define kernels, whose errors are the user's to see.
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "parse.h"

/* Past a string literal whose opening quote is at src[pos] (triple or single). */
static size_t skip_string(const char *src, size_t len, size_t pos) {
  char q = src[pos];
  bool triple = pos + 2 < len && src[pos + 1] == q && src[pos + 2] == q;
  size_t i = pos + (triple ? 3 : 1);
  while (i < len) {
    if (src[i] == '\\') {
      i += 2;
      continue;
    }
    if (!triple && src[i] == '\n') return i;   /* unterminated: the parser says so */
    if (src[i] == q && (!triple || (i + 2 < len && src[i + 1] == q && src[i + 2] == q)))
      return i + (triple ? 3 : 1);
    i++;
  }
  return len;
}

static bool word_at(const char *src, size_t len, size_t pos, const char *w) {
  size_t n = strlen(w);
  return pos + n <= len && memcmp(src + pos, w, n) == 0 &&
         (pos + n == len || !(isalnum((unsigned char)src[pos + n]) || src[pos + n] == '_'));
}

/* A line that goes on the statement before it: an else/elif/except/finally clause, or
 * (after decorators) the decorated definition. */
static bool continues_statement(const char *src, size_t len, size_t pos, bool decorators) {
  if (word_at(src, len, pos, "else") || word_at(src, len, pos, "elif") ||
      word_at(src, len, pos, "except") || word_at(src, len, pos, "finally"))
    return true;
  return decorators && (src[pos] == '@' || word_at(src, len, pos, "def") ||
                        word_at(src, len, pos, "class") || word_at(src, len, pos, "async"));
}

/* From src[i] on, the start of the next physical line that has text in column 0
 * outside brackets, strings and backslash continuations (blank and comment-only lines
 * do not count), or len; the newlines passed are added to *nl. */
static size_t next_col0_line(const char *src, size_t len, size_t i, int *nl) {
  int depth = 0;
  bool continued = false;
  while (i < len) {
    char c = src[i];
    if (c == '#') {
      while (i < len && src[i] != '\n') i++;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t end = skip_string(src, len, i);
      for (size_t k = i; k < end; k++) *nl += src[k] == '\n';
      i = end;
      continue;
    }
    if (c == '\\' && i + 1 < len && src[i + 1] == '\n') {
      continued = true;
      i += 2;
      (*nl)++;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') depth++;
    if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
    i++;
    if (c != '\n') continue;
    (*nl)++;
    if (depth > 0 || continued) {
      continued = false;
      continue;
    }
    size_t j = i;
    while (j < len && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f')) j++;
    if (j < len && j == i && src[j] != '\n' && src[j] != '\r' && src[j] != '#') return i;
  }
  return len;
}

size_t toplevel_next(const char *src, size_t len, size_t pos, int *lines) {
  bool decorators = pos < len && src[pos] == '@';
  int nl = 0;
  size_t i = pos;
  for (;;) {
    i = next_col0_line(src, len, i, &nl);
    if (i == len || !continues_statement(src, len, i, decorators)) break;
    decorators = decorators && src[i] == '@';
  }
  *lines = nl;
  return i;
}

int toplevel_clauses(const char *src, size_t len, size_t *starts, int max) {
  int n = 0, nl = 0;
  for (size_t i = 0; i < len && n < max; i = next_col0_line(src, len, i, &nl))
    starts[n++] = i;
  return n;
}

bool toplevel_starts_with(const char *src, size_t len, const char *word) {
  return word_at(src, len, 0, word);
}

/* The dotted name of a decorator line ("@cuda.jit(...)" -> "cuda.jit"), into out. */
static void decorator_name(const char *s, size_t n, char *out, size_t cap) {
  size_t i = 1, k = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  while (i < n && k + 1 < cap && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.'))
    out[k++] = s[i++];
  out[k] = '\0';
}

static bool kernel_decorator(const char *line, size_t n);

bool toplevel_has_kernel(const char *src, size_t len) {
  for (size_t i = 0; i < len;) {
    size_t j = i;
    while (j < len && (src[j] == ' ' || src[j] == '\t')) j++;
    if (j < len && src[j] == '@' && kernel_decorator(src + j, len - j)) return true;
    while (i < len && src[i] != '\n') i++;
    i++;
  }
  return false;
}

bool toplevel_defines_kernel(const char *src, size_t len) {
  /* the decorator nearest the def is the one that makes the function (Python applies
     it first): the last line starting with '@' before the def */
  size_t last = len;
  for (size_t i = 0; i < len;) {
    if (src[i] == '@') last = i;
    else if (word_at(src, len, i, "def") || word_at(src, len, i, "async") ||
             word_at(src, len, i, "class"))
      break;
    while (i < len && src[i] != '\n') i++;
    i++;
  }
  return last < len && kernel_decorator(src + last, len - last);
}

/* A decorator line (from its '@') that makes a kernel or device function. */
static bool kernel_decorator(const char *line, size_t n) {
  char name[128];
  decorator_name(line, n, name, sizeof name);
  const char *tail = strrchr(name, '.');
  tail = tail ? tail + 1 : name;
  static const char *const makers[] = {"jit", "vectorize", "guvectorize", "reduce", "kernel",
                                       "device"};
  if (strcmp(name, "njit") == 0 || strcmp(name, "numba.njit") == 0) return false;
  for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
    if (strcmp(tail, makers[i]) == 0) return true;
  return false;
}
