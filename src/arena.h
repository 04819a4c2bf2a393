/*
 * arena.h — one arena per compilation: tokens, AST, types and interned names live here
 * and are freed in one call. Allocation failure does not return NULL: it longjmps to
 * the handler the compilation set (arena_set_oom), so stages need no NULL checks.
 */
#ifndef KCC_ARENA_H
#define KCC_ARENA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include "kc.h"

typedef struct arena_chunk arena_chunk;

typedef struct arena {
  arena_chunk *head;
  kc_alloc_fn alloc;   /* never NULL once made: the default calls realloc/free */
  void *user_data;
  jmp_buf *on_oom;     /* where to jump when an allocation fails */
} arena;

/* Initialise an empty arena using alloc (NULL = realloc/free). */
void arena_init(arena *a, kc_alloc_fn alloc, void *user_data);
/* Free every chunk; the arena may be used again afterwards. */
void arena_free(arena *a);
void arena_set_oom(arena *a, jmp_buf *on_oom);
/* Zeroed memory, aligned for any type. */
void *arena_alloc(arena *a, size_t size);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(arena *a, const char *fmt, va_list ap);
/* The default allocator (realloc/free), usable as a kc_alloc_fn. */
void *arena_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* A growable array of pointers kept in the arena. */
typedef struct ptr_vec {
  void **items;
  int len, cap;
} ptr_vec;
void vec_push(arena *a, ptr_vec *v, void *item);

#endif
