/*
 * dtypes.c — the names that declare record dtypes at module level:
 * np.dtype([...], align=...) and Numba's from_dtype. Both are folded by constant
 * folding (BF_FOLD; infer_records.c evaluates them) into record types; in a kernel
 * they are an error, as Numba-CUDA cannot make a dtype on the device either.
 */
#include "../typing.h"

#define RECORD_MAKER(path) \
  {path, BK_FUNCTION, -1, -1, 0, 0, BF_FOLD, 0, NULL, 0, ix_record_maker, NULL, NULL}

const builtin builtins_dtypes[] = {
  {"numba.np", BK_MODULE, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL},
  {"numba.np.numpy_support", BK_MODULE, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL},
  RECORD_MAKER("numpy.dtype"),
  RECORD_MAKER("numba.from_dtype"),
  RECORD_MAKER("numba.np.numpy_support.from_dtype"),
  {NULL},
};
