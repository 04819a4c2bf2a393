/*
 * diag.h — diagnostics. Every message carries a span of the source; the sink formats
 * it GCC-style (file:line:col: error: message, the source line, a caret under the span)
 * and hands it to the user's callback (or prints it to stderr). Errors are counted so
 * that the pipeline can go on to report several and skip code generation at the end.
 */
#ifndef KCC_DIAG_H
#define KCC_DIAG_H

#include <stdarg.h>
#include <stddef.h>

#include "arena.h"
#include "kc.h"

/* A source span: 1-based line and column of the first character, and the line and
 * column one past the last. line == 0 means "no place". */
typedef struct span {
  int line, col, end_line, end_col;
} span;

typedef struct diag_sink {
  const char *file;   /* name shown in messages */
  const char *src;    /* the source text, for the quoted line */
  size_t src_len;
  arena *ar;          /* where formatted messages are kept */
  kc_diag_fn emit;    /* NULL = print to stderr */
  void *user_data;
  int color;          /* use ANSI colours in the text */
  int nerrors, nwarnings;
  int max_errors;     /* stop reporting (not counting) after this many; default 20 */
  const char *first_error; /* text of the first error, for kc_last_error */
  int stopped;        /* the cap was reached and "too many errors" said */
  int muted;          /* the last error/warning was not shown, nor are its notes */
} diag_sink;

/* Every kc_diagnostic.text ends with a newline: "file:l:c: error: msg\n", then (when
 * the span has a line) the source line and the caret line, each ending in '\n'. */

void diag_init(diag_sink *d, arena *ar, const char *file, const char *src, size_t len);
void diag_error(diag_sink *d, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(diag_sink *d, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note attached to the last error or warning (e.g. where a type came from). */
void diag_note(diag_sink *d, span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_report(diag_sink *d, kc_severity sev, span sp, const char *fmt, va_list ap);

span span_join(span a, span b);

/* The first error a muted sink met: its message alone and its span (message NULL when
 * there was none). */
typedef struct diag_first {
  const char *message;
  span sp;
} diag_first;
/* A copy of d that reports nothing and counts afresh, keeping its first error in *first
 * (texts in d's arena): for trying what may turn out not to be the user's error (a
 * top-level statement that may be host Python, a module constant only a kernel's use
 * would make an error). */
diag_sink diag_muted(const diag_sink *d, diag_first *first);
static inline span span_none(void) { span s = {0, 0, 0, 0}; return s; }

#endif
