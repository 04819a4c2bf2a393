/*
 * parser.y — the kernel language's grammar (a pure bison parser), building the AST.
 *
 * The grammar is Python's, cut down to what kernels use; its levels restate Python's
 * precedence (test > or_test > and_test > not_test > comparison > | > ^ > & > shifts >
 * + - > * / // % @ > unary > ** > primary). Every node gets its span from the rule's
 * location (@$), so it covers the parentheses around a subexpression too.
 *
 * Depth is bounded here because later stages walk the tree recursively: brackets by
 * the scanner (PARSE_MAX_BRACKETS), blocks by the indentation stack, and the tree
 * depth of an expression by the constructors below, which keep it in node->aux.
 *
 * On a syntax error the parser reports it (yyreport_syntax_error names what was
 * expected, or the unsupported Python feature met), skips to the end of the line and
 * goes on, so one run reports several errors.
 */
%define api.pure full
%define api.location.type {span}
%define api.token.prefix {T_}
%define parse.error custom
%locations
%parse-param {parse_state *ps}
%lex-param {parse_state *ps}

%code requires {
#include "ast.h"
typedef struct parse_state parse_state;
}

%code provides {
int lex_next(YYSTYPE *lval, span *lloc, parse_state *ps);
}

%code {
#include <string.h>

#include "parse.h"

#define yylex lex_next
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                    \
  do {                                                                 \
    if (N) {                                                           \
      (Cur).line = YYRHSLOC(Rhs, 1).line;                              \
      (Cur).col = YYRHSLOC(Rhs, 1).col;                                \
      (Cur).end_line = YYRHSLOC(Rhs, N).end_line;                      \
      (Cur).end_col = YYRHSLOC(Rhs, N).end_col;                        \
    } else {                                                           \
      (Cur).line = (Cur).end_line = YYRHSLOC(Rhs, 0).end_line;         \
      (Cur).col = (Cur).end_col = YYRHSLOC(Rhs, 0).end_col;            \
    }                                                                  \
  } while (0)
/* The parse stacks live in the arena: nothing leaks on an out-of-memory longjmp. */
#define YYMAXDEPTH 20000
#define YYMALLOC(n) arena_alloc(ps->ar, (n))
#define YYFREE(p) ((void)(p))

static void yyerror(span *loc, parse_state *ps, const char *msg);
static node *mk(parse_state *ps, node_kind k, span sp);
static node *mk_bin(parse_state *ps, op_kind op, node *a, node *b, span sp);
static node *mk_unary(parse_state *ps, op_kind op, node *a, span sp);
static node *mk_boolop(parse_state *ps, op_kind op, node *a, node *b, span sp);
static node *mk_compare(parse_state *ps, node *first, node *chain, span sp);
static node *chain_push(parse_state *ps, node *chain, op_kind op, node *operand);
static node *add_child(parse_state *ps, node *parent, node *child);
static node *push_child(parse_state *ps, node *parent, node_list *l, node *child);
static node *depth_check(parse_state *ps, node *n);
static node *mk_call(parse_state *ps, node *callee, node *args, span sp);
static node *call_arg(parse_state *ps, node *call, node *arg);
static node *mk_if(parse_state *ps, span head, node *cond, node_list body,
                   node_list elifs, node_list orelse);
static node_list list1(parse_state *ps, node *n);
static node_list list_cat(parse_state *ps, node_list a, node_list b);
static span body_span(span head, node_list body);
static void check_target(parse_state *ps, node *t, bool allow_tuple);
static node *mk_assign(parse_state *ps, node_list targets, node *value, span sp);
static node *mk_alias(parse_state *ps, node *name, node *as, span sp);
static void stmt_done(parse_state *ps);
}

%union {
  node *n;
  node_list list;
  op_kind op;
  int i;
}

%token <n> NAME INT FLOAT IMAG STRING
%token NEWLINE INDENT DEDENT
%token <op> AUGASSIGN
%token POW "**" FLOORDIV "//" LSHIFT "<<" RSHIFT ">>" LE "<=" GE ">=" EQ "=="
%token NE "!=" ARROW "->" ELLIPSIS "..." LBRACE "{" RBRACE "}" WALRUS ":="
%token AND "and" AS "as" ASSERT "assert" ASYNC "async" AWAIT "await" BREAK "break"
%token CLASS "class" CONTINUE "continue" DEF "def" DEL "del" ELIF "elif" ELSE "else"
%token EXCEPT "except" FALSE "False" FINALLY "finally" FOR "for" FROM "from"
%token GLOBAL "global" IF "if" IMPORT "import" IN "in" IS "is" LAMBDA "lambda"
%token NONE "None" NONLOCAL "nonlocal" NOT "not" OR "or" PASS "pass" RAISE "raise"
%token RETURN "return" TRUE "True" TRY "try" WHILE "while" WITH "with" YIELD "yield"

%type <list> stmt stmts simple_stmts small_list suite opt_else elifs decorators
%type <list> assign_targets params param_list
%type <n> small_stmt expr_stmt compound_stmt if_stmt while_stmt for_stmt funcdef
%type <n> decorated decorator param opt_ret import_stmt import_targets import_names
%type <n> import_name dotted_as_names dotted_as_name dotted_name
%type <n> testlist test_items test or_test and_test not_test comparison comp_chain
%type <n> expr xor_expr and_expr shift_expr arith_expr term factor power primary atom
%type <n> strings list_items arglist args arg subscripts subscript_items subscript
%type <n> opt_test exprlist expr_items
%type <op> comp_op

%%

file_input:
    %empty
  | file_input stmt {
      for (int i = 0; i < $2.len; i++)
        node_push(ps->ar, &ps->root->body, $2.items[i]);
    }
  ;

stmt:
    simple_stmts       { $$ = $1; stmt_done(ps); }
  | compound_stmt      { $$ = list1(ps, $1); stmt_done(ps); }
  | error NEWLINE      {
      /* the next line is reported afresh; the scanner drops closers of skipped
         brackets and a skipped line's body is quiet (below), so nothing cascades */
      yyerrok;
      $$ = (node_list){0};
      ps->after_error = true;
      ps->depth_reported = false;
    }
  | INDENT { $<i>$ = ps->after_error; } stmts DEDENT {
      /* a block no statement opened: after a skipped line it is that line's body */
      if (!$<i>2 && @1.line != ps->lex_error_line)
        diag_error(ps->d, @1, "unexpected indent");
      $$ = (node_list){0};
    }
  ;

stmts:
    stmt               { $$ = $1; }
  | stmts stmt         { $$ = list_cat(ps, $1, $2); }
  ;

simple_stmts:
    small_list NEWLINE       { $$ = $1; }
  | small_list ';' NEWLINE   { $$ = $1; }
  ;

small_list:
    small_stmt                 { $$ = list1(ps, $1); }
  | small_list ';' small_stmt  { $$ = $1; node_push(ps->ar, &$$, $3); }
  ;

small_stmt:
    expr_stmt
  | PASS                 { $$ = mk(ps, N_PASS, @$); }
  | BREAK                { $$ = mk(ps, N_BREAK, @$); }
  | CONTINUE             { $$ = mk(ps, N_CONTINUE, @$); }
  | RETURN               { $$ = mk(ps, N_RETURN, @$); }
  | RETURN testlist      { $$ = mk(ps, N_RETURN, @$); $$->a = $2; }
  | import_stmt
  | ASSERT test          { $$ = mk(ps, N_ASSERT, @$); $$->a = $2; }
  | ASSERT test ',' test { $$ = mk(ps, N_ASSERT, @$); $$->a = $2; $$->b = $4; }
  | RAISE                { $$ = mk(ps, N_RAISE, @$); }
  | RAISE test           { $$ = mk(ps, N_RAISE, @$); $$->a = $2; }
  | RAISE test FROM test { $$ = mk(ps, N_RAISE, @$); $$->a = $2; $$->b = $4; }
  ;

expr_stmt:
    testlist                    { $$ = mk(ps, N_EXPR_STMT, @$); $$->a = $1; }
  | assign_targets testlist     { $$ = mk_assign(ps, $1, $2, @$); }
  | testlist AUGASSIGN testlist {
      check_target(ps, $1, false);
      $$ = mk(ps, N_AUGASSIGN, @$);
      $$->op = $2; $$->a = $1; $$->b = $3;
    }
  | testlist ':' test           {
      if ($1->kind != N_NAME)
        diag_error(ps->d, $1->sp, "only a plain name can be annotated in a kernel");
      $$ = mk(ps, N_ANNASSIGN, @$); $$->a = $1; $$->b = $3;
    }
  | testlist ':' test '=' testlist {
      if ($1->kind != N_NAME)
        diag_error(ps->d, $1->sp, "only a plain name can be annotated in a kernel");
      $$ = mk(ps, N_ANNASSIGN, @$); $$->a = $1; $$->b = $3; $$->c = $5;
    }
  ;

assign_targets:
    testlist '='                 { $$ = list1(ps, $1); }
  | assign_targets testlist '='  { $$ = $1; node_push(ps->ar, &$$, $2); }
  ;

import_stmt:
    IMPORT dotted_as_names                   { $$ = $2; $$->sp = @$; }
  | FROM dotted_name IMPORT import_targets   {
      $$ = $4; $$->sp = @$; $$->str = $2->str;
    }
  ;

dotted_as_names:
    dotted_as_name   { $$ = mk(ps, N_IMPORT, @$); node_push(ps->ar, &$$->list, $1); }
  | dotted_as_names ',' dotted_as_name { $$ = $1; node_push(ps->ar, &$$->list, $3); }
  ;

dotted_as_name:
    dotted_name              { $$ = mk_alias(ps, $1, NULL, @$); }
  | dotted_name AS NAME      { $$ = mk_alias(ps, $1, $3, @$); }
  ;

dotted_name:
    NAME                     { $$ = $1; }
  | dotted_name '.' NAME     {
      $$ = $1; $$->sp = @$;
      $$->str = arena_printf(ps->ar, "%s.%s", $1->str, $3->str);
    }
  ;

import_targets:
    import_names                  { $$ = $1; }
  | '(' import_names ')'          { $$ = $2; }
  | '(' import_names ',' ')'      { $$ = $2; }
  | '*'                           {
      diag_error(ps->d, @1, "'from ... import *' is not supported in kernels");
      $$ = mk(ps, N_IMPORTFROM, @$);
    }
  ;

import_names:
    import_name          { $$ = mk(ps, N_IMPORTFROM, @$); node_push(ps->ar, &$$->list, $1); }
  | import_names ',' import_name { $$ = $1; node_push(ps->ar, &$$->list, $3); }
  ;

import_name:
    NAME                 { $$ = mk_alias(ps, $1, NULL, @$); }
  | NAME AS NAME         { $$ = mk_alias(ps, $1, $3, @$); }
  ;

compound_stmt:
    if_stmt | while_stmt | for_stmt | funcdef | decorated
  ;

if_stmt:
    IF test ':' suite elifs opt_else  { $$ = mk_if(ps, @1, $2, $4, $5, $6); }
  ;

elifs:
    %empty                       { $$ = (node_list){0}; }
  | elifs ELIF test ':' suite    {
      node *e = mk(ps, N_IF, body_span(@2, $5));
      e->a = $3; e->body = $5;
      $$ = $1;
      /* they nest in the tree (each in the last one's orelse): keep the depth bounded;
         one past the limit marks it as said */
      if ($$.len == PARSE_MAX_ELIFS)
        diag_error(ps->d, @2, "too many 'elif' branches (limit %d)", PARSE_MAX_ELIFS);
      if ($$.len <= PARSE_MAX_ELIFS)
        node_push(ps->ar, &$$, e);
    }
  ;

opt_else:
    %empty               { $$ = (node_list){0}; }
  | ELSE ':' suite       { $$ = $3; }
  ;

while_stmt:
    WHILE test ':' suite opt_else {
      $$ = mk(ps, N_WHILE, body_span(body_span(@1, $4), $5));
      $$->a = $2; $$->body = $4; $$->orelse = $5;
    }
  ;

for_stmt:
    FOR exprlist IN testlist ':' suite opt_else {
      check_target(ps, $2, true);
      $$ = mk(ps, N_FOR, body_span(body_span(@1, $6), $7));
      $$->a = $2; $$->b = $4; $$->body = $6; $$->orelse = $7;
    }
  ;

suite:
    simple_stmts                   { $$ = $1; }
  | NEWLINE INDENT stmts DEDENT    { $$ = $3; }
  ;

decorated:
    decorators funcdef   { $$ = $2; $$->decorators = $1; }
  ;

decorators:
    decorator            { $$ = list1(ps, $1); }
  | decorators decorator { $$ = $1; node_push(ps->ar, &$$, $2); }
  ;

decorator:
    '@' test NEWLINE     { $$ = $2; }
  ;

funcdef:
    DEF NAME '(' params ')' opt_ret ':' suite {
      $$ = mk(ps, N_FUNCDEF, body_span(@1, $8));
      $$->str = $2->str; $$->params = $4; $$->a = $6; $$->body = $8;
    }
  ;

params:
    %empty               { $$ = (node_list){0}; }
  | param_list           { $$ = $1; }
  | param_list ','       { $$ = $1; }
  ;

param_list:
    param                { $$ = list1(ps, $1); }
  | param_list ',' param { $$ = $1; node_push(ps->ar, &$$, $3); }
  ;

param:
    NAME                 { $$ = mk(ps, N_PARAM, @$); $$->str = $1->str; }
  | NAME ':' test        { $$ = mk(ps, N_PARAM, @$); $$->str = $1->str; $$->a = $3; }
  | NAME '=' test        { $$ = mk(ps, N_PARAM, @$); $$->str = $1->str; $$->b = $3; }
  | NAME ':' test '=' test {
      $$ = mk(ps, N_PARAM, @$); $$->str = $1->str; $$->a = $3; $$->b = $5;
    }
  ;

opt_ret:
    %empty               { $$ = NULL; }
  | ARROW test           { $$ = $2; }
  ;

/* ---- expressions ---- */

testlist:
    test                 { $$ = $1; }
  | test ','             { $$ = mk(ps, N_TUPLE, @$); $$ = push_child(ps, $$, &$$->list, $1); }
  | test_items           { $$ = $1; $$->sp = @$; }
  | test_items ','       { $$ = $1; $$->sp = @$; }
  ;

test_items:
    test ',' test        {
      $$ = mk(ps, N_TUPLE, @$);
      $$ = push_child(ps, $$, &$$->list, $1);
      $$ = push_child(ps, $$, &$$->list, $3);
    }
  | test_items ',' test  { $$ = push_child(ps, $1, &$1->list, $3); }
  ;

exprlist:
    expr                 { $$ = $1; }
  | expr ','             { $$ = mk(ps, N_TUPLE, @$); $$ = push_child(ps, $$, &$$->list, $1); }
  | expr_items           { $$ = $1; $$->sp = @$; }
  | expr_items ','       { $$ = $1; $$->sp = @$; }
  ;

expr_items:
    expr ',' expr        {
      $$ = mk(ps, N_TUPLE, @$);
      $$ = push_child(ps, $$, &$$->list, $1);
      $$ = push_child(ps, $$, &$$->list, $3);
    }
  | expr_items ',' expr  { $$ = push_child(ps, $1, &$1->list, $3); }
  ;

test:
    or_test              { $$ = $1; }
  | NAME WALRUS test     {   /* n := v, an assignment expression (PEP 572) */
      $$ = mk(ps, N_NAMEDEXPR, @$);
      $$ = add_child(ps, $$, $$->a = $1);
      $$ = add_child(ps, $$, $$->b = $3);
    }
  | or_test IF or_test ELSE test {
      $$ = mk(ps, N_IFEXP, @$);
      $$ = add_child(ps, $$, $$->a = $3);
      $$ = add_child(ps, $$, $$->b = $1);
      $$ = add_child(ps, $$, $$->c = $5);
    }
  ;

or_test:
    and_test             { $$ = $1; }
  | or_test OR and_test  { $$ = mk_boolop(ps, OP_OR, $1, $3, @$); }
  ;

and_test:
    not_test             { $$ = $1; }
  | and_test AND not_test { $$ = mk_boolop(ps, OP_AND, $1, $3, @$); }
  ;

not_test:
    NOT not_test         { $$ = mk_unary(ps, OP_NOT, $2, @$); }
  | comparison           { $$ = $1; }
  ;

comparison:
    expr                 { $$ = $1; }
  | expr comp_chain      { $$ = mk_compare(ps, $1, $2, @$); }
  ;

comp_chain:
    comp_op expr         { $$ = chain_push(ps, mk(ps, N_COMPARE, @$), $1, $2); }
  | comp_chain comp_op expr { $$ = chain_push(ps, $1, $2, $3); }
  ;

comp_op:
    '<'      { $$ = OP_LT; }
  | '>'      { $$ = OP_GT; }
  | EQ       { $$ = OP_EQ; }
  | NE       { $$ = OP_NE; }
  | LE       { $$ = OP_LE; }
  | GE       { $$ = OP_GE; }
  | IN       { $$ = OP_IN; }
  | NOT IN   { $$ = OP_NOTIN; }
  | IS       { $$ = OP_IS; }
  | IS NOT   { $$ = OP_ISNOT; }
  ;

expr:
    xor_expr                 { $$ = $1; }
  | expr '|' xor_expr        { $$ = mk_bin(ps, OP_BITOR, $1, $3, @$); }
  ;

xor_expr:
    and_expr                 { $$ = $1; }
  | xor_expr '^' and_expr    { $$ = mk_bin(ps, OP_BITXOR, $1, $3, @$); }
  ;

and_expr:
    shift_expr               { $$ = $1; }
  | and_expr '&' shift_expr  { $$ = mk_bin(ps, OP_BITAND, $1, $3, @$); }
  ;

shift_expr:
    arith_expr                   { $$ = $1; }
  | shift_expr LSHIFT arith_expr { $$ = mk_bin(ps, OP_LSHIFT, $1, $3, @$); }
  | shift_expr RSHIFT arith_expr { $$ = mk_bin(ps, OP_RSHIFT, $1, $3, @$); }
  ;

arith_expr:
    term                     { $$ = $1; }
  | arith_expr '+' term      { $$ = mk_bin(ps, OP_ADD, $1, $3, @$); }
  | arith_expr '-' term      { $$ = mk_bin(ps, OP_SUB, $1, $3, @$); }
  ;

term:
    factor                   { $$ = $1; }
  | term '*' factor          { $$ = mk_bin(ps, OP_MUL, $1, $3, @$); }
  | term '/' factor          { $$ = mk_bin(ps, OP_DIV, $1, $3, @$); }
  | term FLOORDIV factor     { $$ = mk_bin(ps, OP_FLOORDIV, $1, $3, @$); }
  | term '%' factor          { $$ = mk_bin(ps, OP_MOD, $1, $3, @$); }
  | term '@' factor          { $$ = mk_bin(ps, OP_MATMUL, $1, $3, @$); }
  ;

factor:
    '-' factor               { $$ = mk_unary(ps, OP_NEG, $2, @$); }
  | '+' factor               { $$ = mk_unary(ps, OP_POS, $2, @$); }
  | '~' factor               { $$ = mk_unary(ps, OP_INVERT, $2, @$); }
  | power                    { $$ = $1; }
  ;

power:
    primary                  { $$ = $1; }
  | primary POW factor       { $$ = mk_bin(ps, OP_POW, $1, $3, @$); }
  ;

primary:
    atom                     { $$ = $1; }
  | primary '.' NAME         {
      $$ = mk(ps, N_ATTR, @$); $$->str = $3->str;
      $$ = add_child(ps, $$, $$->a = $1);
    }
  | primary '(' arglist ')'  { $$ = mk_call(ps, $1, $3, @$); }
  | primary '[' subscripts ']' {
      $$ = mk(ps, N_INDEX, @$);
      $$ = add_child(ps, $$, $$->a = $1);
      $$ = add_child(ps, $$, $$->b = $3);
    }
  ;

atom:
    NAME | INT | FLOAT | IMAG     { $$ = $1; }
  | strings                      { $$ = $1; }
  | TRUE                         { $$ = mk(ps, N_BOOL, @$); $$->ival = 1; }
  | FALSE                        { $$ = mk(ps, N_BOOL, @$); }
  | NONE                         { $$ = mk(ps, N_NONE, @$); }
  | '(' ')'                      { $$ = mk(ps, N_TUPLE, @$); }
  | '(' testlist ')'             {
      $$ = $2;
      if ($$->kind == N_TUPLE)
        $$->sp = @$;
    }
  | '[' ']'                      { $$ = mk(ps, N_LIST, @$); }
  | '[' list_items ']'           { $$ = $2; $$->sp = @$; }
  | '[' list_items ',' ']'       { $$ = $2; $$->sp = @$; }
  ;

strings:
    STRING                       { $$ = $1; }
  | strings STRING               {
      $$ = $1; $$->sp = @$;
      $$->str = arena_printf(ps->ar, "%s%s", $1->str, $2->str);
    }
  ;

list_items:
    test                         {
      $$ = mk(ps, N_LIST, @$);
      $$ = push_child(ps, $$, &$$->list, $1);
    }
  | list_items ',' test          { $$ = push_child(ps, $1, &$1->list, $3); }
  ;

arglist:
    %empty                       { $$ = mk(ps, N_CALL, @$); }
  | args                         { $$ = $1; }
  | args ','                     { $$ = $1; }
  ;

args:
    arg                          { $$ = call_arg(ps, mk(ps, N_CALL, @$), $1); }
  | args ',' arg                 { $$ = call_arg(ps, $1, $3); }
  ;

arg:
    test                         { $$ = $1; }
  | '*' test                     { $$ = mk(ps, N_STARRED, @$); $$ = add_child(ps, $$, $$->a = $2); }
  | test '=' test                {
      if ($1->kind != N_NAME)
        diag_error(ps->d, @1, "expression cannot be a keyword argument name "
                              "(did you mean '==' ?)");
      $$ = mk(ps, N_KEYWORD, @$);
      $$->str = $1->kind == N_NAME ? $1->str : "?";
      $$ = add_child(ps, $$, $$->a = $3);
    }
  ;

subscripts:
    subscript_items              {
      $$ = $1->list.len == 1 ? $1->list.items[0] : $1;
      if ($$ == $1) $$->sp = @$;
    }
  | subscript_items ','          { $$ = $1; $$->sp = @$; }
  ;

subscript_items:
    subscript                    {
      $$ = mk(ps, N_TUPLE, @$);
      $$ = push_child(ps, $$, &$$->list, $1);
    }
  | subscript_items ',' subscript { $$ = push_child(ps, $1, &$1->list, $3); }
  ;

subscript:
    test                         { $$ = $1; }
  | opt_test ':' opt_test        {
      $$ = mk(ps, N_SLICE, @$);
      $$ = add_child(ps, $$, $$->a = $1);
      $$ = add_child(ps, $$, $$->b = $3);
    }
  | opt_test ':' opt_test ':' opt_test {
      $$ = mk(ps, N_SLICE, @$);
      $$ = add_child(ps, $$, $$->a = $1);
      $$ = add_child(ps, $$, $$->b = $3);
      $$ = add_child(ps, $$, $$->c = $5);
    }
  ;

opt_test:
    %empty                       { $$ = NULL; }
  | test                         { $$ = $1; }
  ;

%%

/* ---- node construction, with the depth of each expression in aux ---- */

static node *mk(parse_state *ps, node_kind k, span sp) {
  node *n = node_new(ps->ar, k, sp);
  n->aux = 1;
  return n;
}

static int depth_of(const node *n) { return !n ? 0 : n->aux > 0 ? n->aux : 1; }

/* Too deep for the recursive stages: say so (once a statement) and put a leaf there. */
static node *depth_check(parse_state *ps, node *n) {
  if (n->aux <= PARSE_MAX_DEPTH)
    return n;
  if (!ps->depth_reported)
    diag_error(ps->d, n->sp, "expression too complex (nesting depth over %d)",
               PARSE_MAX_DEPTH);
  ps->depth_reported = true;
  return mk(ps, N_INT, n->sp);
}

static node *add_child(parse_state *ps, node *parent, node *child) {
  if (depth_of(child) + 1 > parent->aux)
    parent->aux = depth_of(child) + 1;
  return depth_check(ps, parent);
}

static node *push_child(parse_state *ps, node *parent, node_list *l, node *child) {
  node_push(ps->ar, l, child);
  return add_child(ps, parent, child);
}

static node *mk_bin(parse_state *ps, op_kind op, node *a, node *b, span sp) {
  node *n = mk(ps, N_BINOP, sp);
  n->op = op;
  n->a = a;
  n->b = b;
  add_child(ps, n, a);
  return add_child(ps, n, b);
}

static node *mk_unary(parse_state *ps, op_kind op, node *a, span sp) {
  node *n = mk(ps, N_UNARY, sp);
  n->op = op;
  n->a = a;
  return add_child(ps, n, a);
}

/* a or b or c is one node with three operands (the same meaning as nested ones). */
static node *mk_boolop(parse_state *ps, op_kind op, node *a, node *b, span sp) {
  if (a->kind == N_BOOLOP && a->op == op) {
    a->sp = sp;
    return push_child(ps, a, &a->list, b);
  }
  node *n = mk(ps, N_BOOLOP, sp);
  n->op = op;
  n = push_child(ps, n, &n->list, a);
  return push_child(ps, n, &n->list, b);
}

/* A chain under construction: list = operands after the first, cmp_ops its ops.
 * cmp_ops grows by doubling whenever its length reaches a power of two. */
static node *chain_push(parse_state *ps, node *chain, op_kind op, node *operand) {
  int n = chain->list.len;
  if (n >= 4 && (n & (n - 1)) == 0) {
    op_kind *ops = arena_alloc(ps->ar, sizeof *ops * (size_t)n * 2);
    memcpy(ops, chain->cmp_ops, sizeof *ops * (size_t)n);
    chain->cmp_ops = ops;
  } else if (n == 0) {
    chain->cmp_ops = arena_alloc(ps->ar, sizeof *chain->cmp_ops * 4);
  }
  chain->cmp_ops[n] = op;
  node_push(ps->ar, &chain->list, operand);
  add_child(ps, chain, operand);
  return chain;
}

/* first < ... : put the first operand in front of the chain's operands. */
static node *mk_compare(parse_state *ps, node *first, node *chain, span sp) {
  node_list l = {0};
  node_push(ps->ar, &l, first);
  for (int i = 0; i < chain->list.len; i++)
    node_push(ps->ar, &l, chain->list.items[i]);
  chain->list = l;
  chain->sp = sp;
  return add_child(ps, chain, first);
}

static node *call_arg(parse_state *ps, node *call, node *arg) {
  if (arg->kind == N_KEYWORD)
    return push_child(ps, call, &call->kwargs, arg);
  if (call->kwargs.len > 0)
    diag_error(ps->d, arg->sp, "positional argument follows keyword argument");
  return push_child(ps, call, &call->list, arg);
}

static node *mk_call(parse_state *ps, node *callee, node *args, span sp) {
  args->sp = sp;
  args->a = callee;
  return add_child(ps, args, callee);
}

/* if / elif... / else: each elif is an N_IF alone in the orelse of the one before. */
static node *mk_if(parse_state *ps, span head, node *cond, node_list body,
                   node_list elifs, node_list orelse) {
  for (int i = elifs.len - 1; i >= 0; i--) {
    node *e = elifs.items[i];
    e->orelse = orelse;
    e->sp = body_span(e->sp, orelse);
    orelse = list1(ps, e);
  }
  node *n = mk(ps, N_IF, body_span(body_span(head, body), orelse));
  n->a = cond;
  n->body = body;
  n->orelse = orelse;
  return n;
}

static node_list list1(parse_state *ps, node *n) {
  node_list l = {0};
  node_push(ps->ar, &l, n);
  return l;
}

static node_list list_cat(parse_state *ps, node_list a, node_list b) {
  for (int i = 0; i < b.len; i++)
    node_push(ps->ar, &a, b.items[i]);
  return a;
}

/* From a statement's head to the end of the last statement of a block. */
static span body_span(span head, node_list body) {
  return body.len ? span_join(head, body.items[body.len - 1]->sp) : head;
}

static const char *target_what(const node *t) {
  switch (t->kind) {
  case N_CALL: return "a function call";
  case N_INT: case N_FLOAT: case N_IMAG: case N_STR: case N_BOOL: case N_NONE:
    return "a literal";
  case N_COMPARE: return "a comparison";
  case N_IFEXP: return "a conditional expression";
  case N_TUPLE: return "a tuple";
  case N_LIST: return "a list";
  default: return "an expression";
  }
}

static void check_target(parse_state *ps, node *t, bool allow_tuple) {
  if (t->kind == N_NAME || t->kind == N_INDEX || t->kind == N_ATTR)
    return;
  if (allow_tuple && (t->kind == N_TUPLE || t->kind == N_LIST) && t->list.len > 0) {
    for (int i = 0; i < t->list.len; i++)
      check_target(ps, t->list.items[i], true);
    return;
  }
  diag_error(ps->d, t->sp, "cannot assign to %s", target_what(t));
}

static node *mk_assign(parse_state *ps, node_list targets, node *value, span sp) {
  node *n = mk(ps, N_ASSIGN, sp);
  for (int i = 0; i < targets.len; i++)
    check_target(ps, targets.items[i], true);
  n->list = targets;
  n->a = value;
  return n;
}

static node *mk_alias(parse_state *ps, node *name, node *as, span sp) {
  node *n = mk(ps, N_ALIAS, sp);
  n->str = name->str;
  n->str2 = as ? as->str : NULL;
  return n;
}

static void stmt_done(parse_state *ps) {
  ps->after_error = false;
  ps->recovering = false;
  ps->depth_reported = false;
}

/* ---- syntax errors ---- */

/* Python features a kernel cannot have: the message for meeting their keyword. */
static const char *unsupported_keyword(yysymbol_kind_t k) {
  switch (k) {
  case YYSYMBOL_CLASS: return "classes are not supported in kernels";
  case YYSYMBOL_LAMBDA: return "lambda expressions are not supported in kernels";
  case YYSYMBOL_TRY: case YYSYMBOL_EXCEPT: case YYSYMBOL_FINALLY:
    return "'try' statements (exceptions) are not supported in kernels";
  case YYSYMBOL_WITH: return "'with' statements are not supported in kernels";
  case YYSYMBOL_YIELD: return "generators ('yield') are not supported in kernels";
  case YYSYMBOL_GLOBAL: return "'global' declarations are not supported in kernels";
  case YYSYMBOL_NONLOCAL: return "'nonlocal' declarations are not supported in kernels";
  case YYSYMBOL_ASYNC: return "'async' functions are not supported in kernels";
  case YYSYMBOL_AWAIT: return "'await' is not supported in kernels";
  case YYSYMBOL_DEL: return "'del' statements are not supported in kernels";
  case YYSYMBOL_ELLIPSIS: return "'...' (Ellipsis) is not supported in kernels";
  default: return NULL;
  }
}

/* Tokens that continue an expression: left out of "expected ..." lists. */
static bool continues_expr(yysymbol_kind_t k) {
  static const char ops[] = "+-*/%@&|^~<>.([";
  const char *name = yysymbol_name(k);
  if (name[0] == '\'' && name[1] && strchr(ops, name[1]))
    return true;
  switch (k) {
  case YYSYMBOL_POW: case YYSYMBOL_FLOORDIV: case YYSYMBOL_LSHIFT: case YYSYMBOL_RSHIFT:
  case YYSYMBOL_LE: case YYSYMBOL_GE: case YYSYMBOL_EQ: case YYSYMBOL_NE:
  case YYSYMBOL_IF: case YYSYMBOL_OR: case YYSYMBOL_AND: case YYSYMBOL_NOT:
  case YYSYMBOL_IN: case YYSYMBOL_IS:
    return true;
  default:
    return false;
  }
}

/* "a name", "end of line", "':'" ... */
static const char *describe_expected(parse_state *ps, yysymbol_kind_t k) {
  switch (k) {
  case YYSYMBOL_YYEOF: return "end of file";
  case YYSYMBOL_NAME: return "a name";
  case YYSYMBOL_NEWLINE: return "end of line";
  case YYSYMBOL_INDENT: return "an indented block";
  case YYSYMBOL_DEDENT: return "end of block";
  case YYSYMBOL_INT: case YYSYMBOL_FLOAT: case YYSYMBOL_IMAG: return "a number";
  case YYSYMBOL_STRING: return "a string";
  case YYSYMBOL_AUGASSIGN: return "an augmented assignment";
  default: break;
  }
  /* bison gives aliases unquoted ("else", "**") and characters quoted ("'+'");
   * keywords read well bare ("expected else"), operators need the quotes */
  const char *name = yysymbol_name(k);
  if (name[0] == '\'' || (name[0] >= 'a' && name[0] <= 'z'))
    return name;
  return arena_printf(ps->ar, "'%s'", name);
}

/* The token the parser choked on, as the user wrote it. */
static const char *describe_found(parse_state *ps, yysymbol_kind_t k) {
  switch (k) {
  case YYSYMBOL_YYEOF: return "end of file";
  case YYSYMBOL_NEWLINE: return "end of line";
  case YYSYMBOL_INDENT: return "an indent";
  case YYSYMBOL_DEDENT: return "end of block";
  case YYSYMBOL_STRING: return "a string";
  default:
    return arena_printf(ps->ar, "'%.*s'", ps->last_len > 40 ? 40 : ps->last_len,
                        ps->last_text);
  }
}

static bool is_char_token(yysymbol_kind_t k, char c) {
  const char *name = yysymbol_name(k);
  return name[0] == '\'' && name[1] == c && name[2] == '\'';
}

/* A specific message for a known construct, or NULL. */
static const char *special_message(parse_state *ps, yysymbol_kind_t found,
                                   const yysymbol_kind_t *exp, int n) {
  bool want_stmt = false, want_indent = false;
  for (int i = 0; i < n; i++) {
    want_stmt |= exp[i] == YYSYMBOL_PASS;
    want_indent |= exp[i] == YYSYMBOL_INDENT;
  }
  const char *kw = unsupported_keyword(found);
  if (kw)
    return kw;
  if (want_indent && !want_stmt)
    return "expected an indented block";
  if (found == YYSYMBOL_INDENT)
    return "unexpected indent";
  if (found == YYSYMBOL_LBRACE)
    return "dict and set displays are not supported in kernels";
  if (found == YYSYMBOL_FOR && ps->nbrackets > 0)
    return ps->brackets[ps->nbrackets - 1] == '['
               ? "list comprehensions are not supported in kernels"
               : "generator expressions are not supported in kernels";
  if (found == YYSYMBOL_POW || is_char_token(found, '*'))
    return "star parameters and '**' unpacking ('*args', '**kwargs') are not supported in "
           "kernels (a call may unpack a tuple: f(*t))";
  if (is_char_token(found, '='))
    return "invalid syntax: '=' assigns; did you mean '=='?";
  if (want_stmt && found == YYSYMBOL_ELSE)
    return "'else' without a matching 'if', 'for' or 'while'";
  if (want_stmt && found == YYSYMBOL_ELIF)
    return "'elif' without a matching 'if'";
  return NULL;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, parse_state *ps) {
  yysymbol_kind_t exp[YYNTOKENS];
  yysymbol_kind_t found = yypcontext_token(ctx);
  span at = *yypcontext_location(ctx);
  if (ps->fatal || at.line == ps->lex_error_line)
    return 0; /* an echo of the scanner's error: already reported */
  int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
  if (n < 0)
    n = 0;
  const char *msg = special_message(ps, found, exp, n);
  /* A bracket left open on an earlier line is the likely cause (as Python says). */
  if (ps->nbrackets > 0 && ps->bracket_sp[ps->nbrackets - 1].line < at.line)
    diag_error(ps->d, ps->bracket_sp[ps->nbrackets - 1], "'%c' was never closed",
               ps->brackets[ps->nbrackets - 1]);
  /* Skip to the end of the line even inside brackets: forget them (their closers are
   * then not "unmatched" while recovering). A dict or set display is skipped whole,
   * its brackets kept, so the entries of one spread over lines are not read as
   * statements of their own. */
  if (found != YYSYMBOL_LBRACE) {
    ps->forgotten_brackets += ps->nbrackets;
    ps->nbrackets = 0;
  }
  ps->recovering = true;
  ps->syntax_error_line = at.line;
  if (msg) {
    diag_error(ps->d, at, "%s", msg);
    return 0;
  }
  bool want_expr = false;
  const char *list[3];
  int m = 0, kept = 0;
  for (int i = 0; i < n; i++)
    want_expr |= exp[i] == YYSYMBOL_INT;
  for (int i = 0; i < n; i++) {
    if (continues_expr(exp[i]) || exp[i] == YYSYMBOL_INT || exp[i] == YYSYMBOL_FLOAT ||
        exp[i] == YYSYMBOL_IMAG || exp[i] == YYSYMBOL_STRING || exp[i] == YYSYMBOL_TRUE ||
        exp[i] == YYSYMBOL_FALSE || exp[i] == YYSYMBOL_NONE ||
        (want_expr && exp[i] == YYSYMBOL_NAME))
      continue;
    if (m < 3)
      list[m++] = describe_expected(ps, exp[i]);
    kept++;
  }
  const char *what = describe_found(ps, found);
  if (want_expr && kept == 0)
    diag_error(ps->d, at, "expected an expression, found %s", what);
  else if (kept == 1)
    diag_error(ps->d, at, "expected %s, found %s", list[0], what);
  else if (kept == 2)
    diag_error(ps->d, at, "expected %s or %s, found %s", list[0], list[1], what);
  else if (kept == 3)
    diag_error(ps->d, at, "expected %s, %s or %s, found %s", list[0], list[1], list[2],
               what);
  else
    diag_error(ps->d, at, "invalid syntax: unexpected %s", what);
  return 0;
}

/* Only reached when the parse stack is full (YYMAXDEPTH): brackets and blocks are
 * limited, so only a very deep expression (not not ... x, 2**2**...) gets here. */
static void yyerror(span *loc, parse_state *ps, const char *msg) {
  (void)msg;
  if (!ps->fatal)
    diag_error(ps->d, *loc, "expression too complex (nesting depth over %d)",
               PARSE_MAX_DEPTH);
  ps->fatal = true;
}
