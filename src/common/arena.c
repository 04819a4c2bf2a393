/*
 * arena.c — the compilation's bump allocator. Memory comes in chunks from the user's
 * kc_alloc_fn; nothing is freed until arena_free drops every chunk at once. A failed
 * allocation longjmps to the handler set with arena_set_oom, so callers never check
 * for NULL (that is why the handler must be set before anything can fail).
 */
#include "arena.h"

#include <ctype.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_MIN (64 * 1024)
#define ARENA_ALIGN 16

struct arena_chunk {
  arena_chunk *next;
  size_t size;   /* bytes of data[] */
  size_t used;
  _Alignas(ARENA_ALIGN) unsigned char data[];
};

void *arena_default_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

void arena_init(arena *a, kc_alloc_fn alloc, void *user_data) {
  a->head = NULL;
  a->alloc = alloc ? alloc : arena_default_alloc;
  a->user_data = user_data;
  a->on_oom = NULL;
}

void arena_free(arena *a) {
  arena_chunk *c = a->head;
  while (c) {
    arena_chunk *next = c->next;
    a->alloc(a->user_data, c, sizeof(arena_chunk) + c->size, 0);
    c = next;
  }
  a->head = NULL;
}

void arena_set_oom(arena *a, jmp_buf *on_oom) { a->on_oom = on_oom; }

/* Out of memory: jump to the handler. Without one we can only say so and hand back
 * NULL — never abort, the input may be a user's. */
static void *arena_oom(arena *a, size_t size) {
  if (a->on_oom)
    longjmp(*a->on_oom, 1);
  fprintf(stderr, "kcc: out of memory allocating %zu bytes (no handler set)\n", size);
  return NULL;
}

static arena_chunk *arena_new_chunk(arena *a, size_t need) {
  size_t size = need > ARENA_CHUNK_MIN ? need : ARENA_CHUNK_MIN;
  if (size > SIZE_MAX - sizeof(arena_chunk))
    return NULL;
  arena_chunk *c = a->alloc(a->user_data, NULL, 0, sizeof(arena_chunk) + size);
  if (!c)
    return NULL;
  c->size = size;
  c->used = 0;
  c->next = a->head;
  a->head = c;
  return c;
}

void *arena_alloc(arena *a, size_t size) {
  if (size == 0)
    size = 1;
  if (size > SIZE_MAX - ARENA_ALIGN)
    return arena_oom(a, size);
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  arena_chunk *c = a->head;
  if (!c || c->size - c->used < size) {
    c = arena_new_chunk(a, size);
    if (!c)
      return arena_oom(a, size);
  }
  void *p = c->data + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (!p)
    return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_vprintf(arena *a, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0)
    n = 0;
  char *p = arena_alloc(a, (size_t)n + 1);
  if (!p)
    return NULL;
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *arena_printf(arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = arena_vprintf(a, fmt, ap);
  va_end(ap);
  return p;
}

/* Grows by doubling; the old items are left in the arena (freed with it). */
void vec_push(arena *a, ptr_vec *v, void *item) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **items = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (!items)
      return;
    if (v->len)
      memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = item;
}

/* ---- bitsets -------------------------------------------------------------------- */

static int bitset_words(int nbits) { return nbits > 0 ? (nbits + 31) / 32 : 0; }

bitset bitset_new(arena *a, int nbits) {
  bitset s = {NULL, nbits > 0 ? nbits : 0};
  if (s.nbits) s.words = arena_alloc(a, sizeof *s.words * (size_t)bitset_words(nbits));
  return s;
}

bool bitset_has(bitset s, int i) {
  return i >= 0 && i < s.nbits && (s.words[i / 32] >> (i % 32) & 1u);
}

void bitset_add(bitset s, int i) {
  if (i >= 0 && i < s.nbits) s.words[i / 32] |= 1u << (i % 32);
}

/* The index of the highest non-zero word, -1 when there is none. */
static int bitset_top(bitset s) {
  int w = bitset_words(s.nbits) - 1;
  while (w >= 0 && !s.words[w]) w--;
  return w;
}

bool bitset_empty(bitset s) { return bitset_top(s) < 0; }

bool bitset_equal(bitset a, bitset b) {
  int top = bitset_top(a);
  if (top != bitset_top(b)) return false;
  for (int w = 0; w <= top; w++)
    if (a.words[w] != b.words[w]) return false;
  return true;
}

char *bitset_hex(arena *a, bitset s) {
  int top = bitset_top(s);
  if (top < 0) return arena_strdup(a, "0");
  char *out = arena_alloc(a, 8 * (size_t)(top + 1) + 1);
  int n = sprintf(out, "%x", (unsigned)s.words[top]);
  for (int w = top - 1; w >= 0; w--) n += sprintf(out + n, "%08x", (unsigned)s.words[w]);
  return out;
}

char *arena_symbol(arena *a, const char *s) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    n += isalnum(*p) && *p < 0x80 ? 1 : *p == '_' ? 1 : 3;
  char *out = arena_alloc(a, n + 1), *o = out;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if ((isalnum(*p) && *p < 0x80) || *p == '_') {
      *o++ = (char)*p;
    } else {
      snprintf(o, 4, "$%02X", *p);
      o += 3;
    }
  }
  *o = '\0';
  return out;
}
