/*
 * parse.h — the front end's entry point: source text in, an N_MODULE out, every node
 * with its span. Syntax errors go to the diag_sink (several per file: the parser
 * skips to the next line and goes on); the tree is then partial but well formed.
 *
 * The rest of this header is shared by src/syntax/lexer.l, src/syntax/parser.y and parse.c
 * only: the parse state both the scanner and the parser see.
 */
#ifndef KCC_PARSE_H
#define KCC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Parse a whole file as Python: each top-level statement in the kernel language joins
 * the module; one that is not (a class, a try, host functions, anything the grammar
 * refuses) becomes an N_HOST, reported only where a kernel uses what it binds, unless
 * it defines a kernel or is no valid Python at all (a bad byte, an unterminated
 * string, bad indentation, a nesting limit). src need not be NUL-terminated. Never
 * NULL. Running out of memory longjmps to the arena's on_oom (which must be set). */
node *parse_module(arena *a, diag_sink *d, const char *src, size_t len);
/* Parse text that is all kernel language (kcc's own library modules and templates,
 * the parser's tests): every error is reported. */
node *parse_kernel_source(arena *a, diag_sink *d, const char *src, size_t len);

/* One token, for tests and tools: kind is the parser's token number (T_NAME, T_INDENT,
 * ... from the generated parser.h; a character like '+' for one-character operators;
 * 0 for the end). val is the literal's node (N_NAME, N_INT, N_FLOAT, N_IMAG, N_STR)
 * or NULL; op is set for augmented assignments (T_AUGASSIGN). */
typedef struct lex_token {
  int kind;
  span sp;
  node *val;
  op_kind op;
} lex_token;

/* Tokenise a whole file (ending with the 0 token). Returns the number of tokens. */
int lex_tokenize(arena *a, diag_sink *d, const char *src, size_t len, lex_token **out);
/* A short readable name of a token kind ("NAME", "INDENT", "'+'", "'**'"). */
const char *lex_token_name(int kind);

/* Limits that keep later (recursive) stages' stacks bounded. */
#define PARSE_MAX_BRACKETS 200   /* nested ( [ { */
#define PARSE_MAX_BLOCKS 100     /* indentation levels */
#define PARSE_MAX_DEPTH 1000     /* expression tree depth */
#define PARSE_MAX_ELIFS 1000     /* elif branches of one if (they nest in the tree) */

typedef struct parse_state {
  arena *ar;
  diag_sink *d;
  void *scanner;           /* the flex scanner (yyscan_t) */
  node *root;              /* the N_MODULE being filled, statement by statement */
  /* ---- scanner ---- */
  int line, col;           /* where the next byte is */
  int indents[PARSE_MAX_BLOCKS + 2];
  int nindents;            /* indents[0] == 0 is always there */
  int pending_dedents;     /* DEDENTs still to hand out */
  bool pending_newline;    /* a NEWLINE before them (end of file) */
  span pending_sp;
  bool at_eof;             /* nothing more after the pending tokens */
  bool line_has_token;     /* the current logical line produced a token */
  char brackets[PARSE_MAX_BRACKETS + 1];
  span bracket_sp[PARSE_MAX_BRACKETS + 1];
  int nbrackets;
  bool indent_spaces, indent_tabs, tabs_reported, utf8_reported;
  int last_kind;           /* the last token handed to the parser: the lookahead */
  const char *last_text;   /* its text (in the scanner's buffer: valid until the next
                              token) */
  int last_len;
  span last_sp;
  int lex_error_line;      /* line of the last lexical error: a syntax error on the
                              same line is its echo and is not reported */
  bool fatal;              /* a limit was hit: stop, and report nothing more */
  bool not_python;         /* a lexical error that is no Python at all (lexer.l) */
  /* ---- parser ---- */
  bool after_error;        /* the last statement was skipped after a syntax error */
  bool recovering;         /* since a syntax error, until a statement parses */
  int syntax_error_line;   /* line of the last syntax error */
  int forgotten_brackets;  /* open when a syntax error's recovery forgot them: their
                              closers, met later, are not "unmatched" */
  bool depth_reported;     /* "too complex" said for the current statement */
} parse_state;

/* toplevel.c: where the top-level statement starting at src[pos] ends (the start of
 * the next one, or len), with the number of newlines in between into *lines; and
 * whether a statement defines a kernel or device function (its decorator nearest the
 * def ends in jit, vectorize, guvectorize, reduce, kernel or device). */
size_t toplevel_next(const char *src, size_t len, size_t pos, int *lines);
bool toplevel_defines_kernel(const char *src, size_t len);
/* The offsets of the clauses of a top-level compound statement (try:, except ...:,
 * else:, finally:: its lines with text in column 0), at most max; their number. */
int toplevel_clauses(const char *src, size_t len, size_t *starts, int max);
/* Whether any line of src is a decorator that makes a kernel or device function. */
bool toplevel_has_kernel(const char *src, size_t len);
/* Whether src starts with the keyword word (a whole word). */
bool toplevel_starts_with(const char *src, size_t len, const char *word);

/* The scanner's life (lexer.l): scan src; lex_next is the parser's yylex. */
void lex_begin(parse_state *ps, const char *src, size_t len);
void lex_end(parse_state *ps);

#endif
