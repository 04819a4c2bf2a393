/*
 * diag.c — formats diagnostics the way GCC does and hands them to one callback:
 *
 *   file.k:12:9: error: message
 *       x = a +* b
 *             ^~
 *
 * The quoted line is the source line as written (tabs kept, so the caret line copies
 * them to stay aligned; invalid UTF-8 shown as '?'). Errors are counted past the cap
 * so the pipeline still knows it failed, but only the first max_errors are shown.
 */
#include "diag.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define DIAG_BOLD "\033[1m"
#define DIAG_RED "\033[1;31m"
#define DIAG_MAGENTA "\033[1;35m"
#define DIAG_CYAN "\033[1;36m"
#define DIAG_GREEN "\033[1;32m"
#define DIAG_RESET "\033[0m"

void diag_init(diag_sink *d, arena *ar, const char *file, const char *src, size_t len) {
  memset(d, 0, sizeof *d);
  d->file = file ? file : "<input>";
  d->src = src;
  d->src_len = src ? len : 0;
  d->ar = ar;
  d->max_errors = 20;
}

span span_join(span a, span b) {
  if (a.line == 0)
    return b;
  if (b.line == 0)
    return a;
  span r = a;
  if (b.line < r.line || (b.line == r.line && b.col < r.col)) {
    r.line = b.line;
    r.col = b.col;
  }
  if (b.end_line > a.end_line || (b.end_line == a.end_line && b.end_col > a.end_col)) {
    r.end_line = b.end_line;
    r.end_col = b.end_col;
  }
  return r;
}

/* ---- a tiny growable string in the arena ---- */
typedef struct diag_buf {
  arena *ar;
  char *s;
  size_t len, cap;
} diag_buf;

static void buf_putn(diag_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 128;
    while (cap < b->len + n + 1)
      cap *= 2;
    char *ns = arena_alloc(b->ar, cap);
    if (!ns)
      return;
    if (b->len)
      memcpy(ns, b->s, b->len);
    b->s = ns;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

static void buf_puts(diag_buf *b, const char *s) { buf_putn(b, s, strlen(s)); }
static void buf_putc(diag_buf *b, char c) { buf_putn(b, &c, 1); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when invalid. */
static int diag_utf8_len(const unsigned char *s, size_t n) {
  int len;
  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    len = 2;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    len = 3;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    len = 4;
  else
    return 0;
  if ((size_t)len > n)
    return 0;
  for (int i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  return len;
}

/* The text of 1-based line `line` (without its newline), or NULL. */
static const char *diag_find_line(const diag_sink *d, int line, size_t *len) {
  if (!d->src || line <= 0)
    return NULL;
  const char *p = d->src, *end = d->src + d->src_len;
  for (int l = 1; l < line; l++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      return NULL;
    p = nl + 1;
  }
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
  if (n > 0 && p[n - 1] == '\r')
    n--;
  if (!nl && n == 0 && p == end && line > 1)
    return NULL;
  *len = n;
  return p;
}

/* The quoted line: bytes as written, except invalid UTF-8 (shown as '?'). */
static void diag_quote_line(diag_buf *b, const char *text, size_t n) {
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < n;) {
    int k = diag_utf8_len(s + i, n - i);
    if (k == 0 || (s[i] < 0x20 && s[i] != '\t')) {
      buf_putc(b, '?');
      i++;
    } else {
      buf_putn(b, text + i, (size_t)k);
      i += (size_t)k;
    }
  }
  buf_putc(b, '\n');
}

/* The caret line: '^' under column col, '~' up to end_col (exclusive) on this line.
 * Columns count bytes; a multi-byte character takes one place on screen. */
static void diag_caret_line(diag_buf *b, const char *text, size_t n, int col, int end_col,
                            int color) {
  const unsigned char *s = (const unsigned char *)text;
  size_t start = col > 0 ? (size_t)col - 1 : 0;
  size_t stop = end_col > col ? (size_t)end_col - 1 : start + 1;
  size_t i = 0;
  if (start > n)
    start = n;
  while (i < start) {
    int k = diag_utf8_len(s + i, n - i);
    buf_putc(b, s[i] == '\t' ? '\t' : ' ');
    i += k ? (size_t)k : 1;
  }
  if (color)
    buf_puts(b, DIAG_GREEN);
  buf_putc(b, '^');
  if (i < n) {
    int k = diag_utf8_len(s + i, n - i);
    i += k ? (size_t)k : 1;
  }
  while (i < stop && i < n) {
    int k = diag_utf8_len(s + i, n - i);
    buf_putc(b, '~');
    i += k ? (size_t)k : 1;
  }
  if (color)
    buf_puts(b, DIAG_RESET);
  buf_putc(b, '\n');
}

static const char *diag_sev_name(kc_severity sev) {
  return sev == KC_SEV_ERROR ? "error" : sev == KC_SEV_WARNING ? "warning" : "note";
}

static const char *diag_sev_color(kc_severity sev) {
  return sev == KC_SEV_ERROR ? DIAG_RED : sev == KC_SEV_WARNING ? DIAG_MAGENTA : DIAG_CYAN;
}

/* "file:l:c: error: msg\n<line>\n<caret>\n" */
static char *diag_format(diag_sink *d, kc_severity sev, span sp, const char *msg) {
  diag_buf b = {d->ar, NULL, 0, 0};
  char loc[64];
  if (sp.line > 0)
    snprintf(loc, sizeof loc, ":%d:%d: ", sp.line, sp.col);
  else
    snprintf(loc, sizeof loc, ": ");
  if (d->color)
    buf_puts(&b, DIAG_BOLD);
  buf_puts(&b, d->file);
  buf_puts(&b, loc);
  if (d->color) {
    buf_puts(&b, DIAG_RESET);
    buf_puts(&b, diag_sev_color(sev));
  }
  buf_puts(&b, diag_sev_name(sev));
  buf_puts(&b, ": ");
  if (d->color)
    buf_puts(&b, DIAG_RESET);
  buf_puts(&b, msg);
  buf_putc(&b, '\n');
  size_t n;
  const char *line = diag_find_line(d, sp.line, &n);
  if (line) {
    int end_col = sp.end_line == sp.line ? sp.end_col : (int)n + 1;
    diag_quote_line(&b, line, n);
    diag_caret_line(&b, line, n, sp.col, end_col, d->color);
  }
  return b.s ? b.s : arena_strdup(d->ar, "");
}

static void diag_emit(diag_sink *d, kc_severity sev, span sp, const char *msg,
                      const char *text) {
  kc_diagnostic kd;
  kd.severity = sev;
  kd.file = d->file;
  kd.line = sp.line;
  kd.col = sp.col;
  kd.end_line = sp.end_line;
  kd.end_col = sp.end_col;
  kd.message = msg;
  kd.text = text;
  if (d->emit)
    d->emit(d->user_data, &kd);
  else
    fputs(text, stderr);
}

/* The cap: true when this message is not to be shown. Says so once. */
static bool diag_capped(diag_sink *d, kc_severity sev) {
  if (sev == KC_SEV_NOTE)
    return d->muted;
  int cap = d->max_errors > 0 ? d->max_errors : 20;
  if (sev == KC_SEV_ERROR && d->nerrors > cap && !d->stopped) {
    d->stopped = 1;
    const char *msg = "too many errors, stopping";
    diag_emit(d, KC_SEV_ERROR, span_none(), msg, diag_format(d, KC_SEV_ERROR,
                                                              span_none(), msg));
  }
  d->muted = d->stopped;
  return d->muted;
}

void diag_report(diag_sink *d, kc_severity sev, span sp, const char *fmt, va_list ap) {
  if (sev == KC_SEV_ERROR)
    d->nerrors++;
  else if (sev == KC_SEV_WARNING)
    d->nwarnings++;
  if (diag_capped(d, sev))
    return;
  const char *msg = arena_vprintf(d->ar, fmt, ap);
  const char *text = diag_format(d, sev, sp, msg);
  if (sev == KC_SEV_ERROR && !d->first_error)
    d->first_error = text;
  diag_emit(d, sev, sp, msg, text);
}

void diag_error(diag_sink *d, span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(d, KC_SEV_ERROR, sp, fmt, ap);
  va_end(ap);
}

void diag_warning(diag_sink *d, span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(d, KC_SEV_WARNING, sp, fmt, ap);
  va_end(ap);
}

void diag_note(diag_sink *d, span sp, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_report(d, KC_SEV_NOTE, sp, fmt, ap);
  va_end(ap);
}

static void keep_first_error(void *user_data, const kc_diagnostic *kd) {
  diag_first *first = user_data;
  if (kd->severity != KC_SEV_ERROR || first->message) return;
  first->message = kd->message;
  first->sp = (span){kd->line, kd->col, kd->end_line, kd->end_col};
}

diag_sink diag_muted(const diag_sink *d, diag_first *first) {
  diag_sink m = *d;
  m.emit = keep_first_error;
  m.user_data = first;
  m.nerrors = m.nwarnings = 0;
  m.max_errors = 1 << 30;
  m.first_error = NULL;
  m.stopped = m.muted = 0;
  memset(first, 0, sizeof *first);
  return m;
}
