/*
 * signature.h — Numba type signatures as text, shared by the compiler (decorator
 * strings, --sig) and the runtime (the "// kcc-kernel:" lines in PTX):
 *   "float32[:, ::1]"                   one type
 *   "array(float32, 2d, A)"             an array of any layout (Numba's printed form)
 *   "void(float32[:], float32[:])"      a kernel signature, return type first
 *   "add(float32[:], int32)"            a named signature (--sig)
 *   "float32(float32, float32)"         a vectorize signature
 *   "void(UniTuple(float32, 3), Tuple(int32, float64))"   tuples of scalars
 * Type names are Numba's (float32, int64, uint8, boolean, ...) and their short
 * aliases (f4, f32, i32, u8, ...). No allocation.
 */
#ifndef KCC_SIGNATURE_H
#define KCC_SIGNATURE_H

#include <stddef.h>

#include "kc.h"

#define SIG_MAX_PARAMS 64
#define SIG_MAX_TUPLE 16   /* elements of a tuple parameter (docs/language.md) */

typedef struct sig_type {
  kc_dtype dtype;    /* KC_RECORD for a record (Numba's Record(...) spelling) */
  int ndim;          /* 0 = scalar, 1..KC_MAX_DIMS = array */
  int is_void;       /* the `void` return type */
  int strided;       /* an array of any layout, "array(float32, 1d, A)"; others are
                        C-contiguous ("float32[:]") */
  const char *rec;   /* KC_RECORD: the record's spelling, inside the parsed text */
  size_t rec_len;
  int nelems;        /* a tuple of scalars (ndim 0, dtype unused): its element count,
                        as written "UniTuple(float32, 3)", "Tuple(int32, float64)" or
                        Numba's "Tuple((int32, float64))"; 0 otherwise */
  kc_dtype elems[SIG_MAX_TUPLE];
} sig_type;

typedef struct sig_parsed {
  char name[128];    /* "" when the text gave no name */
  int has_ret;       /* a return type came first: "void(...)", "float32(...)" */
  sig_type ret;
  int nparams;
  sig_type params[SIG_MAX_PARAMS];
} sig_parsed;

/* Parse a whole signature. Returns 0 on success; otherwise -1 with a message in err
 * that names the 1-based column of the problem ("column 9: unknown type 'flaot32'"). */
int sig_parse(const char *text, sig_parsed *out, char *err, size_t errlen);
/* Parse one type at *pos in text, advancing *pos. Same return convention. */
int sig_parse_type(const char *text, size_t *pos, sig_type *out, char *err, size_t errlen);
/* The scalar dtype of a Numba type name or alias; -1 if unknown. */
int sig_dtype_from_name(const char *name, size_t len);
/* The Numba name of a dtype ("float32"); "?" when out of range. Same as
 * kc_dtype_name, but in the front end (no runtime needed). */
const char *sig_dtype_name(kc_dtype d);
/* The length of the Record(...) spelling at text (its parentheses balanced), or 0. */
size_t sig_record_len(const char *text);
/* The dimensions of an array of rank ndim as Numba writes them: "[:, :]" ("" for 0,
 * "[?]" out of range). */
const char *sig_dims(int ndim);
/* Write "float32[:, :]" / "int32" / "UniTuple(float32, 3)" into buf. */
void sig_format_type(sig_type t, char *buf, size_t len);

#endif
