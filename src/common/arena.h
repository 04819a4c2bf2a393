/*
 * arena.h — one arena per compilation: tokens, AST, types and interned names live here
 * and are freed in one call. Allocation failure does not return NULL: it longjmps to
 * the handler the compilation set (arena_set_oom), so stages need no NULL checks.
 */
#ifndef KCC_ARENA_H
#define KCC_ARENA_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* A copy of s fit for an object-file or PTX symbol: ASCII letters, digits and _ kept,
 * every other byte $XX (hex). PTX takes $ in a name and Python never writes one, so
 * distinct names (Σ and Φ, which PTX would both make _$_) stay distinct. */
char *arena_symbol(arena *a, const char *s);
char *arena_vprintf(arena *a, const char *fmt, va_list ap);
/* The default allocator (realloc/free), usable as a kc_alloc_fn. */
void *arena_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/* A growable array of pointers kept in the arena. */
typedef struct ptr_vec {
  void **items;
  int len, cap;
} ptr_vec;
void vec_push(arena *a, ptr_vec *v, void *item);

/* A set of indices 0..nbits-1 (a function's parameters), its words in the arena and
 * sized from the count, so no program outgrows it. The zero value is the empty set of
 * no bits; an index at or past nbits is never in the set. */
typedef struct bitset {
  uint32_t *words;
  int nbits;
} bitset;
bitset bitset_new(arena *a, int nbits);
bool bitset_has(bitset s, int i);
/* Add i (0 <= i < s.nbits; an index past the end is ignored). */
void bitset_add(bitset s, int i);
bool bitset_empty(bitset s);
/* The same indices, whatever the two sizes. */
bool bitset_equal(bitset a, bitset b);
/* The set as one hexadecimal number, bit i worth 2^i, without leading zeros ("0" when
 * empty): for indices below 32 what printf's %x writes of the 32-bit mask. */
char *bitset_hex(arena *a, bitset s);

#endif
