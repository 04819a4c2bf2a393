/*
 * vector_types.h — CUDA's vector types as numba-cuda provides them
 * (numba/cuda/vector_types.py, stubs.py): int8x1 ... float64x4 and their CUDA C
 * aliases (char2, int4, float4, double2 ...), imported from numba.cuda.
 */
#ifndef KCC_VECTOR_TYPES_H
#define KCC_VECTOR_TYPES_H

#include "types.h"

/* The vector type a dotted path names ("numba.cuda.float32x4", "numba.cuda.float4"),
 * or NULL. The types are static constants. */
const type *vec_type_from_path(const char *path);

#endif
