/*
 * records.h — record (structured) dtypes, as NumPy lays them out and Numba names them:
 * fields at byte offsets in a record of a given size. A record type is TY_RECORD with
 * its layout in type->rec. Numba's spelling of one,
 *   Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)
 * is also its identity: two records are the same type when their spellings are, as
 * Numba keys records by name. The runtime compares the same text (kc.h's records).
 */
#ifndef KCC_RECORDS_H
#define KCC_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

typedef struct rec_field {
  const char *name;
  const type *ty;           /* a scalar, a record, or for a nested array (NumPy's
                               subarray) the contiguous array type of its elements */
  int64_t offset;           /* bytes from the start of the record */
  int ndim;                 /* nested array: its shape (0 otherwise) */
  int64_t shape[KC_MAX_DIMS];
} rec_field;

typedef struct rec_layout {
  int nfields;
  rec_field *fields;        /* ordered by offset, then name, as Numba lists them */
  int64_t size;             /* bytes (NumPy's itemsize) */
  int align;                /* NumPy's alignment: the largest field's for align=True, 1
                               for a packed record */
  bool aligned;             /* declared align=True (Numba's `aligned`) */
  int ptr_align;            /* the alignment a record's address is known to have: what
                               an array of them gives (the lowest bit of size, at most
                               16), lower for a record nested at an odd offset */
  const char *name;         /* Numba's spelling */
} rec_layout;

/* A record of fields[0..n) (any order; they are sorted), size bytes. fields and the
 * strings they point to must live in a. NULL when two fields share a name. */
const type *rec_make(arena *a, rec_field *fields, int n, int64_t size, bool aligned);
/* NumPy's layout of fields in declaration order: packed (offsets add up), or with
 * align=True each field at a multiple of its alignment and the size rounded up to the
 * largest. Sets each field's offset, then makes the record. */
const type *rec_layout_numpy(arena *a, rec_field *fields, int n, bool align);
/* Bytes of one value of a field type (a nested array: all its elements); 0 for a type
 * that cannot be a field. */
/* A nested array in a record has 1..REC_MAX_NDIM dimensions (NumPy's subarray, as kc.h
 * and docs/language.md say). */
#define REC_MAX_NDIM 3
/* The largest field kcc lays out: far past any GPU's local or parameter memory, well
 * inside int64 and size_t arithmetic on offsets. */
#define REC_MAX_FIELD_BYTES (1 << 30)
/* Bytes of a field; INT64_MAX when the extents' product overflows (a bad shape: callers
 * compare it with the record's size and refuse). */
int64_t rec_field_size(const rec_field *f);
int64_t rec_scalar_size(const type *t);
/* The field named name, or NULL. */
const rec_field *rec_find(const type *r, const char *name);
/* The alignment a field's address has (for loads and stores): at most its size. */
int rec_field_align(const type *r, const rec_field *f);
/* Whether the field's address is aligned for its type (a packed record's may not be). */
bool rec_field_aligned(const type *r, const rec_field *f);
/* A record type nested at offset off of a record known to be aligned to outer_align:
 * the same layout with ptr_align lowered to what the address is known to have. */
const type *rec_nested(arena *a, const type *r, int64_t off, int outer_align);
bool rec_equal(const type *a, const type *b);
/* Parse Numba's spelling of a record at text[*pos] ("Record(...)"), advancing *pos.
 * NULL with a message in err (its column 1-based from text) on a bad spelling. */
const type *rec_parse(arena *a, const char *text, size_t *pos, char *err, size_t errlen);
/* "x, y, v": the field names, for messages. */
const char *rec_field_list(arena *a, const type *r);

#endif
