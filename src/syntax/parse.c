/*
 * parse.c — runs the scanner and the parser over one file. The scanner works on its
 * own copy of the source (flex's yy_scan_bytes), so the text need not be
 * NUL-terminated; everything either allocates lives in the arena.
 */
#include "parse.h"

#include <ctype.h>
#include <string.h>

#include "parser.h"

/* yyparse is made by bison with this prototype (not exported in its header). */
int yyparse(parse_state *ps);

/* Scan src, whose first line is line first_line of the file. */
static void parse_begin(parse_state *ps, arena *a, diag_sink *d, const char *src,
                        size_t len, int first_line) {
  memset(ps, 0, sizeof *ps);
  ps->ar = a;
  ps->d = d;
  ps->root = node_new(a, N_MODULE, span_none());
  lex_begin(ps, src, len);
  ps->line = first_line;
}

static void parse_end(parse_state *ps) { lex_end(ps); }

/* ---- whole modules ------------------------------------------------------------------
 * Each top-level statement (toplevel.c finds them) is parsed alone, first with the
 * diagnostics muted. One that parses joins the module. One that does not is host Python
 * (an N_HOST: what it binds, and why kcc cannot compile it), unless it defines a kernel:
 * that one is parsed again aloud, so its errors are reported as always. */

/* Parse src (starting on line `line`) as the kernel language. *end_line and *end_col:
 * where the scanner stopped; *invalid: it met what is no Python at all (a byte that is
 * not UTF-8, an unterminated string, bad indentation) or a limit kcc keeps, which are
 * reported even in host code. */
static node *parse_chunk(arena *a, diag_sink *d, const char *src, size_t len, int line,
                         int *end_line, int *end_col, bool *invalid) {
  parse_state ps;
  parse_begin(&ps, a, d, src, len, line);
  yyparse(&ps);
  *end_line = ps.line;
  *end_col = ps.col;
  *invalid = ps.fatal || ps.not_python || ps.depth_reported;
  parse_end(&ps);
  return ps.root;
}

node *parse_kernel_source(arena *a, diag_sink *d, const char *src, size_t len) {
  int end_line, end_col;
  bool invalid;
  node *root = parse_chunk(a, d, src, len, 1, &end_line, &end_col, &invalid);
  root->sp = (span){1, 1, end_line, end_col};
  return root;
}

static int lex_tokenize_at(arena *a, diag_sink *d, const char *src, size_t len, int line,
                           lex_token **out);

static bool binds_in_segment(const lex_token *t, int i, int end) {
  /* a target name: not an attribute (x.y = ...) nor subscripted or called */
  if (i > 0 && t[i - 1].kind == '.') return false;
  int next = i + 1 < end ? t[i + 1].kind : 0;
  return next != '.' && next != '[' && next != '(';
}

static void bind_name(arena *a, node *host, const lex_token *t) {
  if (t->kind != T_NAME || !t->val) return;
  node *n = node_new(a, N_NAME, t->sp);
  n->str = t->val->str;
  node_push(a, &host->list, n);
}

/* The targets of the assignments on one logical line [from, to): the names before each
 * '=' outside brackets; after a compound statement's header ("if x: y = 1") only what
 * follows its colon, and of an annotated name only the name. */
static void bind_assignments(arena *a, node *host, const lex_token *t, int from, int to) {
  static const int compound[] = {T_IF, T_ELIF, T_ELSE, T_WHILE, T_FOR, T_WITH, T_TRY,
                                 T_EXCEPT, T_FINALLY};
  bool header = false;
  for (size_t k = 0; k < sizeof compound / sizeof compound[0]; k++)
    header |= t[from].kind == compound[k];
  int depth = 0, seg = from, colon = -1;
  for (int i = from; i < to; i++) {
    int k = t[i].kind;
    if (k == '(' || k == '[' || k == T_LBRACE) depth++;
    if ((k == ')' || k == ']' || k == T_RBRACE) && depth > 0) depth--;
    if (depth == 0 && k == ':' && (header || colon < 0)) colon = i;
    if (depth != 0 || k != '=') continue;
    int lo = seg, hi = i;
    if (colon >= seg && header) lo = colon + 1;
    else if (colon >= seg) hi = colon;
    for (int j = lo; j < hi; j++)
      if (t[j].kind == T_NAME && binds_in_segment(t, j, hi)) bind_name(a, host, &t[j]);
    seg = i + 1;
    colon = -1;
  }
}

/* The names an import binds: import a.b (a), import a as b (b), from m import x, y as z. */
static void bind_imports(arena *a, node *host, const lex_token *t, int from, int to) {
  int i = from;
  if (t[from].kind == T_FROM) {
    while (i < to && t[i].kind != T_IMPORT) i++;
  }
  bool first = true;
  for (i++; i < to; i++) {
    int k = t[i].kind;
    if (k == ',') first = true;
    if (k == T_AS && i + 1 < to) {
      bind_name(a, host, &t[++i]);
      first = false;
      continue;
    }
    if (k != T_NAME || !first) continue;
    bool aliased = false;
    int j = i + 1;
    while (j < to && (t[j].kind == '.' || t[j].kind == T_NAME)) j++;
    aliased = j < to && t[j].kind == T_AS;
    if (!aliased) bind_name(a, host, &t[i]);
    first = false;
  }
}

/* What a host statement binds at module level, from its tokens: definitions, imports,
 * assignment and loop targets, `as` names; not what the bodies of its classes and
 * functions bind (their own scopes). */
static void host_bindings(arena *a, const diag_sink *d, node *host, const char *src,
                          size_t len, int line) {
  diag_first fe;
  diag_sink m = diag_muted(d, &fe);
  lex_token *t;
  int n = lex_tokenize_at(a, &m, src, len, line, &t);
  int depth = 0, skip_below = -1;   /* skip_below: inside a def or class body */
  for (int i = 0; i < n;) {
    while (i < n && (t[i].kind == T_INDENT || t[i].kind == T_DEDENT || t[i].kind == T_NEWLINE)) {
      depth += t[i].kind == T_INDENT ? 1 : t[i].kind == T_DEDENT ? -1 : 0;
      i++;
    }
    if (skip_below >= 0 && depth <= skip_below) skip_below = -1;
    int end = i;
    while (end < n && t[end].kind != T_NEWLINE && t[end].kind != 0) end++;
    if (i >= end) { i = end + 1; continue; }
    if (skip_below < 0) {
      int k = t[i].kind, at = k == T_ASYNC ? i + 1 : i;
      if ((t[at].kind == T_DEF || t[at].kind == T_CLASS) && at + 1 < end) {
        bind_name(a, host, &t[at + 1]);
        skip_below = depth;
      } else if (k == T_IMPORT || k == T_FROM) {
        bind_imports(a, host, t, i, end);
      } else {
        bind_assignments(a, host, t, i, end);
        for (int j = i; j + 1 < end; j++)   /* for x in, with/except ... as x */
          if (t[j].kind == T_AS || (t[j].kind == T_FOR && j == i)) bind_name(a, host, &t[j + 1]);
      }
    }
    i = end + 1;
  }
}

/* `class NAME(BASE, ...):` — BASE's last dotted part (ValueError of builtins.ValueError),
 * or NULL: what resolve.c needs to tell an exception class kernels may raise. */
static const char *class_first_base(arena *a, const char *src, size_t len) {
  if (!toplevel_starts_with(src, len, "class")) return NULL;
  const char *open = memchr(src, '(', len), *colon = memchr(src, ':', len);
  if (!open || !colon || colon < open) return NULL;
  const char *end = open + 1;
  while (end < colon && (*end == ' ' || *end == '\t')) end++;
  const char *last = end;
  while (end < colon && (isalnum((unsigned char)*end) || *end == '_' || *end == '.'))
    if (*end++ == '.') last = end;
  return end > last ? arena_strndup(a, last, (size_t)(end - last)) : NULL;
}

static node *host_statement(arena *a, const diag_sink *d, const diag_first *fe, span sp,
                            const char *src, size_t len) {
  node *h = node_new(a, N_HOST, sp);
  h->str = fe->message ? fe->message : "not in the kernel language";
  h->str2 = class_first_base(a, src, len);
  h->a = node_new(a, N_PASS, fe->message ? fe->sp : sp);
  host_bindings(a, d, h, src, len, sp.line);
  return h;
}

/* ---- try: at module level -----------------------------------------------------------
 * Python runs a module's `try:` body, and its `except` clauses only when that fails: the
 * optional-import guard (try: import cupy as cp / except ImportError: cp = None) and
 * kernels defined inside the body. kcc takes the body as run (where Numba runs, its
 * imports succeed), with the else: and finally: clauses; an except clause is host
 * Python binding what the body does not bind. */

static int count_newlines(const char *s, size_t n) {
  int k = 0;
  for (size_t i = 0; i < n; i++) k += s[i] == '\n';
  return k;
}

/* The block after a compound statement's header colon, parsed into d as the block of
 * `if 1:` in the header's place (the lines below keep their places): its statements,
 * or NULL when it did not parse as one block. */
static node_list *block_after(arena *a, diag_sink *d, const char *colon, size_t rest,
                              int line, bool *invalid) {
  char *buf = arena_alloc(a, rest + 5);
  memcpy(buf, "if 1", 4);
  memcpy(buf + 4, colon, rest);
  int end_line, end_col;
  node *root = parse_chunk(a, d, buf, rest + 4, line, &end_line, &end_col, invalid);
  if (root->body.len != 1 || root->body.items[0]->kind != N_IF) return NULL;
  return &root->body.items[0]->body;
}

/* A clause that runs (try:, else:, finally:): its statements, or NULL when it is not
 * the kernel language (its errors reported only when it holds a kernel). */
static node_list *clause_statements(arena *a, diag_sink *d, const char *src, size_t len,
                                    int line) {
  const char *colon = memchr(src, ':', len);
  if (!colon) return NULL;
  size_t rest = len - (size_t)(colon - src);
  diag_first fe;
  diag_sink m = diag_muted(d, &fe);
  bool invalid;
  node_list *body = block_after(a, &m, colon, rest, line, &invalid);
  if (m.nerrors == 0 && m.nwarnings == 0) return body;
  if (m.nerrors > 0 && !invalid && !toplevel_has_kernel(src, len)) return NULL;
  return block_after(a, d, colon, rest, line, &invalid);   /* say it aloud */
}

static bool binds_name(const node *s, const char *name) {
  switch (s->kind) {
  case N_FUNCDEF: return strcmp(s->str, name) == 0;
  case N_ASSIGN:
    for (int i = 0; i < s->list.len; i++) {
      const node *t = s->list.items[i];
      if (t->kind == N_NAME && strcmp(t->str, name) == 0) return true;
      if (t->kind == N_TUPLE)
        for (int k = 0; k < t->list.len; k++)
          if (t->list.items[k]->kind == N_NAME && strcmp(t->list.items[k]->str, name) == 0)
            return true;
    }
    return false;
  case N_ANNASSIGN: return s->a->kind == N_NAME && strcmp(s->a->str, name) == 0;
  case N_IMPORT: case N_IMPORTFROM:
    for (int i = 0; i < s->list.len; i++) {
      const node *al = s->list.items[i];
      const char *bound = al->str2 ? al->str2 : al->str;
      size_t n = s->kind == N_IMPORT && !al->str2 ? strcspn(bound, ".") : strlen(bound);
      if (strlen(name) == n && strncmp(bound, name, n) == 0) return true;
    }
    return false;
  default: return false;
  }
}

/* An except clause: host Python binding the names the clauses that run do not. */
static node *except_clause(arena *a, const diag_sink *d, const node_list *ran,
                           const char *src, size_t len, int line) {
  size_t n = 0;   /* the clause's head, up to its ':' (src is not NUL-terminated) */
  while (n < len && src[n] != ':' && src[n] != '\n') n++;
  span head = {line, 1, line, 1 + (int)n};
  diag_first why = {"a fallback in an 'except' clause (kcc takes the 'try' body, which "
                    "runs where its imports succeed)", head};
  node *h = host_statement(a, d, &why, head, src, len);
  node_list kept = {0};
  for (int i = 0; i < h->list.len; i++) {
    bool dup = false;
    for (int k = 0; k < ran->len && !dup; k++) dup = binds_name(ran->items[k], h->list.items[i]->str);
    if (!dup) node_push(a, &kept, h->list.items[i]);
  }
  h->list = kept;
  return h;
}

/* Append the statements of a module-level try to root; false (nothing appended) when
 * a clause that runs is not the kernel language: the caller makes it all host Python. */
static bool parse_try(arena *a, diag_sink *d, node *root, const char *src, size_t len,
                      int line) {
  enum { MAX_CLAUSES = 64 };
  size_t starts[MAX_CLAUSES];
  int n = toplevel_clauses(src, len, starts, MAX_CLAUSES);
  if (n < 2 || n == MAX_CLAUSES) return false;
  node_list ran = {0};
  for (int k = 0; k < n; k++) {
    size_t b = starts[k], e = k + 1 < n ? starts[k + 1] : len;
    if (toplevel_starts_with(src + b, e - b, "except")) continue;
    node_list *body = clause_statements(a, d, src + b, e - b, line + count_newlines(src, b));
    if (!body) return false;
    for (int i = 0; i < body->len; i++) node_push(a, &ran, body->items[i]);
  }
  for (int i = 0; i < ran.len; i++) node_push(a, &root->body, ran.items[i]);
  for (int k = 0; k < n; k++) {
    size_t b = starts[k], e = k + 1 < n ? starts[k + 1] : len;
    if (toplevel_starts_with(src + b, e - b, "except"))
      node_push(a, &root->body,
                except_clause(a, d, &ran, src + b, e - b, line + count_newlines(src, b)));
  }
  return true;
}

/* ---- class NAME(IntEnum): -------------------------------------------------------------
 * An enum at module level (a base named Enum, IntEnum, IntFlag or Flag, also as
 * enum.X) whose members are constants: kernels use its members (Color.RED) as
 * constants, as Numba types IntEnum and Enum members. Its body is parsed as an `if 1:`
 * block; anything but NAME = value, a docstring and pass makes it host Python. */
static bool enum_header(const char *src, size_t len, const char **name, size_t *nlen) {
  static const char *const bases[] = {"IntEnum", "Enum", "IntFlag", "Flag"};
  const char *open = memchr(src, '(', len), *close = open ? memchr(open, ')', len - (size_t)(open - src)) : NULL;
  const char *colon = memchr(src, ':', len);
  if (!open || !close || !colon || colon < close) return false;
  const char *n = src + 5;
  while (n < open && (*n == ' ' || *n == '\t')) n++;
  const char *e = n;
  while (e < open && (isalnum((unsigned char)*e) || *e == '_')) e++;
  if (e == n) return false;
  *name = n;
  *nlen = (size_t)(e - n);
  for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
    size_t bl = strlen(bases[i]);
    for (const char *p = open + 1; p + bl <= close; p++)
      if (memcmp(p, bases[i], bl) == 0 && (p[-1] == '(' || p[-1] == '.' || p[-1] == ' ') &&
          (p[bl] == ')' || p[bl] == ',' || p[bl] == ' '))
        return true;
  }
  return false;
}

/* Inside the class body a member names the ones before it plainly (BLUE = RED + 2). */
static void qualify_members(arena *a, node *e, const node *en) {
  if (!e) return;
  if (e->kind == N_NAME)
    for (int i = 0; i < en->body.len; i++) {
      const char *full = en->body.items[i]->list.items[0]->str;
      size_t n = strlen(en->str);
      if (strcmp(full + n + 1, e->str) == 0) e->str = full;
    }
  qualify_members(a, e->a, en);
  qualify_members(a, e->b, en);
  qualify_members(a, e->c, en);
  for (int i = 0; i < e->list.len; i++) qualify_members(a, e->list.items[i], en);
}

static node *parse_enum(arena *a, diag_sink *d, const char *src, size_t len, int line) {
  const char *name;
  size_t nlen;
  if (!enum_header(src, len, &name, &nlen)) return NULL;
  diag_first fe;
  diag_sink m = diag_muted(d, &fe);
  const char *close = memchr(src, ')', len);
  const char *colon = memchr(close, ':', len - (size_t)(close - src));
  bool invalid;
  node_list *body = block_after(a, &m, colon, len - (size_t)(colon - src), line, &invalid);
  if (m.nerrors > 0 || !body) return NULL;
  node *en = node_new(a, N_ENUM, (span){line, 1, line + count_newlines(src, len), 1});
  en->str = arena_strndup(a, name, nlen);
  for (int i = 0; i < body->len; i++) {
    node *s = body->items[i];
    if (s->kind == N_PASS || (s->kind == N_EXPR_STMT && s->a->kind == N_STR)) continue;
    if (s->kind != N_ASSIGN || s->list.len != 1 || s->list.items[0]->kind != N_NAME)
      return NULL;
    node *t = s->list.items[0];
    qualify_members(a, s->a, en);
    t->str = arena_printf(a, "%s.%s", en->str, t->str);
    node_push(a, &en->body, s);
  }
  return en;
}

/* A kernel is never dropped silently: a decorated def that makes one, and a block
 * statement holding one (if HAVE_CUDA: ... @cuda.jit ...), are held to the kernel
 * language. A host function or class is not, whatever it holds (a kernel factory's
 * inner @cuda.jit is made at run time, by Python). */
static bool holds_kernel(const char *src, size_t len) {
  if (src[0] == '@') return toplevel_defines_kernel(src, len);
  if (toplevel_starts_with(src, len, "def") || toplevel_starts_with(src, len, "class") ||
      toplevel_starts_with(src, len, "async"))
    return false;
  return toplevel_has_kernel(src, len);
}

node *parse_module(arena *a, diag_sink *d, const char *src, size_t len) {
  node *root = node_new(a, N_MODULE, span_none());
  int line = 1, end_line = 1, end_col = 1;
  for (size_t pos = 0; pos < len;) {
    int lines;
    size_t next = toplevel_next(src, len, pos, &lines);
    node *en = toplevel_starts_with(src + pos, next - pos, "class")
                   ? parse_enum(a, d, src + pos, next - pos, line) : NULL;
    if (en) {
      node_push(a, &root->body, en);
      line += lines;
      pos = next;
      continue;
    }
    if (toplevel_starts_with(src + pos, next - pos, "try") &&
        parse_try(a, d, root, src + pos, next - pos, line)) {
      line += lines;
      end_line = line;
      end_col = 1;
      pos = next;
      continue;
    }
    diag_first fe;
    diag_sink m = diag_muted(d, &fe);
    bool invalid;
    node *part = parse_chunk(a, &m, src + pos, next - pos, line, &end_line, &end_col,
                             &invalid);
    if (m.nerrors > 0 && !invalid && !holds_kernel(src + pos, next - pos)) {
      span sp = {line, 1, end_line, end_col};
      node_push(a, &root->body, host_statement(a, d, &fe, sp, src + pos, next - pos));
    } else {
      if (m.nerrors > 0 || m.nwarnings > 0)   /* say it aloud */
        part = parse_chunk(a, d, src + pos, next - pos, line, &end_line, &end_col, &invalid);
      for (int i = 0; i < part->body.len; i++) node_push(a, &root->body, part->body.items[i]);
    }
    line += lines;
    pos = next;
  }
  root->sp = (span){1, 1, end_line, end_col};
  return root;
}

int lex_tokenize(arena *a, diag_sink *d, const char *src, size_t len, lex_token **out) {
  return lex_tokenize_at(a, d, src, len, 1, out);
}

static int lex_tokenize_at(arena *a, diag_sink *d, const char *src, size_t len, int line,
                           lex_token **out) {
  parse_state ps;
  int n = 0, cap = 64;
  lex_token *toks = arena_alloc(a, sizeof *toks * (size_t)cap);
  parse_begin(&ps, a, d, src, len, line);
  for (;;) {
    YYSTYPE val;
    span sp;
    int kind = lex_next(&val, &sp, &ps);
    if (n == cap) {
      lex_token *more = arena_alloc(a, sizeof *toks * (size_t)cap * 2);
      memcpy(more, toks, sizeof *toks * (size_t)n);
      toks = more;
      cap *= 2;
    }
    toks[n].kind = kind;
    toks[n].sp = sp;
    toks[n].val = kind == T_AUGASSIGN ? NULL : val.n;
    toks[n].op = kind == T_AUGASSIGN ? val.op : OP_NONE;
    n++;
    if (kind == 0)
      break;
  }
  parse_end(&ps);
  *out = toks;
  return n;
}

const char *lex_token_name(int kind) {
  switch (kind) {
  case 0: return "END";
  case T_NAME: return "NAME";
  case T_INT: return "INT";
  case T_FLOAT: return "FLOAT";
  case T_IMAG: return "IMAG";
  case T_STRING: return "STRING";
  case T_NEWLINE: return "NEWLINE";
  case T_INDENT: return "INDENT";
  case T_DEDENT: return "DEDENT";
  case T_AUGASSIGN: return "AUGASSIGN";
  default: break;
  }
  static const struct { int kind; const char *name; } names[] = {
    {T_POW, "'**'"}, {T_FLOORDIV, "'//'"}, {T_LSHIFT, "'<<'"}, {T_RSHIFT, "'>>'"},
    {T_LE, "'<='"}, {T_GE, "'>='"}, {T_EQ, "'=='"}, {T_NE, "'!='"}, {T_ARROW, "'->'"},
    {T_ELLIPSIS, "'...'"}, {T_WALRUS, "':='"}, {T_LBRACE, "'{'"}, {T_RBRACE, "'}'"}, {T_AND, "and"}, {T_AS, "as"}, {T_ASSERT, "assert"},
    {T_ASYNC, "async"}, {T_AWAIT, "await"}, {T_BREAK, "break"}, {T_CLASS, "class"},
    {T_CONTINUE, "continue"}, {T_DEF, "def"}, {T_DEL, "del"}, {T_ELIF, "elif"},
    {T_ELSE, "else"}, {T_EXCEPT, "except"}, {T_FALSE, "False"}, {T_FINALLY, "finally"},
    {T_FOR, "for"}, {T_FROM, "from"}, {T_GLOBAL, "global"}, {T_IF, "if"},
    {T_IMPORT, "import"}, {T_IN, "in"}, {T_IS, "is"}, {T_LAMBDA, "lambda"},
    {T_NONE, "None"}, {T_NONLOCAL, "nonlocal"}, {T_NOT, "not"}, {T_OR, "or"},
    {T_PASS, "pass"}, {T_RAISE, "raise"}, {T_RETURN, "return"}, {T_TRUE, "True"},
    {T_TRY, "try"}, {T_WHILE, "while"}, {T_WITH, "with"}, {T_YIELD, "yield"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].kind == kind)
      return names[i].name;
  static const char chars[] = "+-*/%@&|^~<>()[],:.;=";
  const char *c = kind > 0 && kind < 128 ? strchr(chars, kind) : NULL;
  if (c) {
    static const char *const quoted[] = {
      "'+'", "'-'", "'*'", "'/'", "'%'", "'@'", "'&'", "'|'", "'^'", "'~'", "'<'",
      "'>'", "'('", "')'", "'['", "']'", "','", "':'", "'.'", "';'", "'='",
    };
    return quoted[c - chars];
  }
  return "?";
}
