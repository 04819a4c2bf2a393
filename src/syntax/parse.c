/*
 * parse.c — runs the scanner and the parser over one file. The scanner works on its
 * own copy of the source (flex's yy_scan_bytes), so the text need not be
 * NUL-terminated; everything either allocates lives in the arena.
 */
#include "parse.h"

#include <string.h>

#include "parser.h"

/* yyparse is made by bison with this prototype (not exported in its header). */
int yyparse(parse_state *ps);

static void parse_begin(parse_state *ps, arena *a, diag_sink *d, const char *src,
                        size_t len) {
  memset(ps, 0, sizeof *ps);
  ps->ar = a;
  ps->d = d;
  ps->root = node_new(a, N_MODULE, span_none());
  lex_begin(ps, src, len);
}

static void parse_end(parse_state *ps) { lex_end(ps); }

/* The module's span: from the start of the file to where the scanner stopped. */
static void parse_module_span(parse_state *ps) {
  span sp = {1, 1, ps->line, ps->col};
  ps->root->sp = sp;
}

node *parse_module(arena *a, diag_sink *d, const char *src, size_t len) {
  parse_state ps;
  parse_begin(&ps, a, d, src, len);
  yyparse(&ps);
  parse_module_span(&ps);
  parse_end(&ps);
  return ps.root;
}

int lex_tokenize(arena *a, diag_sink *d, const char *src, size_t len, lex_token **out) {
  parse_state ps;
  int n = 0, cap = 64;
  lex_token *toks = arena_alloc(a, sizeof *toks * (size_t)cap);
  parse_begin(&ps, a, d, src, len);
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
    {T_ELLIPSIS, "'...'"}, {T_LBRACE, "'{'"}, {T_RBRACE, "'}'"}, {T_AND, "and"}, {T_AS, "as"}, {T_ASSERT, "assert"},
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
