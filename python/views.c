/*
 * views.c — functions of kcc._kcc over device arrays' layout: views, strides and the
 * interop protocols. kcc/cuda.py's DeviceNDArray builds Numba's indexing, reshape,
 * __cuda_array_interface__ and __dlpack__ on them:
 *   array_layout(a)                       -> (strides in elements, C-contiguous, address)
 *   array_slice(a, starts, stops, steps)  a view, one Python slice per axis (kc_array_slice)
 *   array_restride(a, shape, strides, offset=0)
 *                                         a view of a's memory with other extents and
 *                                         strides (an axis dropped, a reshape, a span),
 *                                         checked to stay inside the memory a reaches
 *   array_wrap(cls, owner, address, shape, strides, dtype)
 *                                         an array over another library's memory
 *                                         (kc_array_from_device_ptr), owner kept alive
 *   array_to_dlpack(a), array_dlpack_device(a), array_from_dlpack(cls, capsule)
 *
 * Every view holds what it views in ArrayObject.base, so the memory outlives the view
 * whatever order Python frees them in.
 */
#include "_kcc.h"

#ifdef KC_HAVE_DLPACK
#include <dlpack/dlpack.h>
#endif

static kc_context *array_ctx(ArrayObject *a) {
  return ((ContextObject *)a->context)->ctx;
}

static ArrayObject *array_arg(kcc_state *st, PyObject *obj, const char *what) {
  if (PyObject_TypeCheck(obj, st->array_type)) return (ArrayObject *)obj;
  PyErr_Format(PyExc_TypeError, "%s: expected a device array, not %.100s", what,
               Py_TYPE(obj)->tp_name);
  return NULL;
}

/* n int64s from a sequence of ints (None as none_value); -1 with the error set. */
static int int64s(PyObject *obj, int n, int64_t none_value, int64_t *out, const char *what) {
  PyObject *seq = PySequence_Fast(obj, what);
  if (seq == NULL) return -1;
  if (PySequence_Fast_GET_SIZE(seq) != n) {
    PyErr_Format(PyExc_ValueError, "%s: expected %d values, got %zd", what, n,
                 PySequence_Fast_GET_SIZE(seq));
    Py_DECREF(seq);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    PyObject *v = PySequence_Fast_GET_ITEM(seq, i);
    out[i] = v == Py_None ? none_value : PyLong_AsLongLong(v);
    if (out[i] == -1 && PyErr_Occurred()) break;
  }
  Py_DECREF(seq);
  return PyErr_Occurred() ? -1 : 0;
}

static PyObject *int64_tuple(const int64_t *v, int n) {
  PyObject *t = PyTuple_New(n);
  for (int i = 0; t != NULL && i < n; i++) {
    PyObject *x = PyLong_FromLongLong(v[i]);
    if (x == NULL) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, i, x);
  }
  return t;
}

/* The number of dimensions of a shape given from Python: 1..KC_MAX_DIMS. */
static int ndim_of(PyObject *shape, int *ndim) {
  Py_ssize_t n = PyObject_Length(shape);
  if (n < 0) return -1;
  if (n < 1 || n > KC_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "kcc arrays have 1 to %d dimensions, not %zd",
                 KC_MAX_DIMS, n);
    return -1;
  }
  *ndim = (int)n;
  return 0;
}

/* ---- layout ----------------------------------------------------------------------- */
static PyObject *array_layout(PyObject *module, PyObject *obj) {
  kcc_state *st = state_of_module(module);
  ArrayObject *a = array_arg(st, obj, "array_layout");
  if (a == NULL) return NULL;
  uint64_t ptr = 0;
  kc_status s = kc_array_device_ptr(a->array, &ptr);
  if (s != KC_OK) return raise_status(st, array_ctx(a), s);
  PyObject *strides = int64_tuple(kc_array_strides(a->array), kc_array_ndim(a->array));
  if (strides == NULL) return NULL;
  return Py_BuildValue("(NOK)", strides, kc_array_is_contiguous(a->array) ? Py_True
                                                                           : Py_False,
                       (unsigned long long)ptr);
}

/* ---- views -------------------------------------------------------------------------- */
static PyObject *array_slice(PyObject *module, PyObject *args) {
  PyObject *obj, *starts, *stops, *steps;
  if (!PyArg_ParseTuple(args, "OOOO:array_slice", &obj, &starts, &stops, &steps))
    return NULL;
  kcc_state *st = state_of_module(module);
  ArrayObject *a = array_arg(st, obj, "array_slice");
  if (a == NULL) return NULL;
  int n = kc_array_ndim(a->array);
  int64_t start[KC_MAX_DIMS], stop[KC_MAX_DIMS], step[KC_MAX_DIMS];
  if (int64s(starts, n, KC_SLICE_NONE, start, "array_slice: starts") < 0 ||
      int64s(stops, n, KC_SLICE_NONE, stop, "array_slice: stops") < 0 ||
      int64s(steps, n, 1, step, "array_slice: steps") < 0)
    return NULL;
  kc_array *v = NULL;
  kc_status s = kc_array_slice(a->array, start, stop, step, &v);
  if (s != KC_OK) return raise_status(st, array_ctx(a), s);
  return new_array_object(Py_TYPE(a), a->context, v, obj);
}

/* The elements an array reaches below and above its first one: [*lo, *hi] in
 * elements (*lo <= 0 <= *hi). Returns 0 when it is empty, -1 when the reach
 * overflows, else 1. */
static int reach(int ndim, const int64_t *shape, const int64_t *strides, int64_t *lo,
                 int64_t *hi) {
  *lo = *hi = 0;
  for (int d = 0; d < ndim; d++)
    if (shape[d] == 0) return 0;
  for (int d = 0; d < ndim; d++) {
    int64_t far;
    if (shape[d] < 0 || __builtin_mul_overflow(shape[d] - 1, strides[d], &far) ||
        __builtin_add_overflow(far < 0 ? *lo : *hi, far, far < 0 ? lo : hi))
      return -1;
  }
  return 1;
}

/* Whether extents and strides (elements), offset `offset` elements from a's first
 * element, reach only memory that a reaches. */
static int within(const kc_array *a, int ndim, const int64_t *shape, const int64_t *strides,
                  int64_t offset) {
  int64_t lo, hi, alo, ahi, first, last;
  int r = reach(ndim, shape, strides, &lo, &hi);
  if (r <= 0) return r == 0;
  if (reach(kc_array_ndim(a), kc_array_shape(a), kc_array_strides(a), &alo, &ahi) != 1)
    return 0;
  if (__builtin_add_overflow(offset, lo, &first) || __builtin_add_overflow(offset, hi, &last))
    return 0;
  return first >= alo && last <= ahi;
}

static PyObject *array_restride(PyObject *module, PyObject *args) {
  PyObject *obj, *shape_obj, *strides_obj;
  long long offset = 0;
  if (!PyArg_ParseTuple(args, "OOO|L:array_restride", &obj, &shape_obj, &strides_obj,
                        &offset))
    return NULL;
  kcc_state *st = state_of_module(module);
  ArrayObject *a = array_arg(st, obj, "array_restride");
  int ndim;
  int64_t shape[KC_MAX_DIMS], strides[KC_MAX_DIMS];
  if (a == NULL || ndim_of(shape_obj, &ndim) < 0 ||
      int64s(shape_obj, ndim, 0, shape, "array_restride: shape") < 0 ||
      int64s(strides_obj, ndim, 0, strides, "array_restride: strides") < 0)
    return NULL;
  if (!within(a->array, ndim, shape, strides, (int64_t)offset))
    return PyErr_Format(PyExc_ValueError, "array_restride: the view would reach memory "
                        "outside the array it views");
  uint64_t ptr = 0;
  kc_status s = kc_array_device_ptr(a->array, &ptr);
  kc_array *v = NULL;
  if (s == KC_OK) {
    ptr += (uint64_t)(offset * (int64_t)kc_dtype_size(kc_array_dtype(a->array)));
    s = kc_array_from_device_ptr(array_ctx(a), kc_array_dtype(a->array), ndim, shape,
                                 strides, ptr, &v);
  }
  if (s != KC_OK) return raise_status(st, array_ctx(a), s);
  return new_array_object(Py_TYPE(a), a->context, v, obj);
}

/* array_wrap(cls, owner, address, shape, strides, dtype): Numba's as_cuda_array. */
static PyObject *array_wrap(PyObject *module, PyObject *args) {
  PyTypeObject *cls;
  PyObject *owner, *shape_obj, *strides_obj;
  unsigned long long ptr;
  const char *dtype_name;
  if (!PyArg_ParseTuple(args, "O!OKOOs:array_wrap", &PyType_Type, &cls, &owner, &ptr,
                        &shape_obj, &strides_obj, &dtype_name))
    return NULL;
  kcc_state *st = state_of_module(module);
  int ndim, dtype = dtype_from_name(dtype_name);
  int64_t shape[KC_MAX_DIMS], strides[KC_MAX_DIMS];
  if (!PyType_IsSubtype(cls, st->array_type))
    return PyErr_Format(PyExc_TypeError, "array_wrap: %.100s is not a device array type",
                        cls->tp_name);
  if (dtype < 0)
    return PyErr_Format(PyExc_TypeError, "kcc has no arrays of dtype '%s'", dtype_name);
  if (ndim_of(shape_obj, &ndim) < 0 ||
      int64s(shape_obj, ndim, 0, shape, "array_wrap: shape") < 0 ||
      (strides_obj != Py_None &&
       int64s(strides_obj, ndim, 0, strides, "array_wrap: strides") < 0))
    return NULL;
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  kc_array *a = NULL;
  kc_status s = kc_array_from_device_ptr(context->ctx, (kc_dtype)dtype, ndim, shape,
                                         strides_obj == Py_None ? NULL : strides, ptr, &a);
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  return new_array_object(cls, (PyObject *)context, a, owner);
}

/* ---- DLPack --------------------------------------------------------------------------- */
#ifdef KC_HAVE_DLPACK
/* What a consumer gets: kc_array_to_dlpack's tensor, and the array it came from, whose
 * reference keeps the context (the deleter uses its allocator) and, for a view, the
 * memory's owner alive until the consumer is done. */
typedef struct {
  DLManagedTensor outer;
  DLManagedTensor *inner;
  PyObject *array;
} export_tensor;

/* The consumer's deleter: may run on any thread, so it takes the GIL. */
static void export_deleter(DLManagedTensor *self) {
  export_tensor *t = self->manager_ctx;
  if (!Py_IsInitialized()) return;   /* at exit: nothing left to free into */
  PyGILState_STATE g = PyGILState_Ensure();
  if (t->inner->deleter) t->inner->deleter(t->inner);
  Py_DECREF(t->array);
  PyMem_RawFree(t);
  PyGILState_Release(g);
}

/* The capsule's destructor (the DLPack spec's): a consumer renames a capsule it took
 * to "used_dltensor" and deletes the tensor itself; otherwise nobody took it. */
static void dlpack_capsule_destructor(PyObject *capsule) {
  if (PyCapsule_IsValid(capsule, "used_dltensor")) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
  if (m == NULL) PyErr_WriteUnraisable(capsule);
  else if (m->deleter) m->deleter(m);
  PyErr_Restore(type, value, tb);
}

static PyObject *export_capsule(kcc_state *st, ArrayObject *a, PyObject *obj) {
  export_tensor *t = PyMem_RawCalloc(1, sizeof *t);
  if (t == NULL) return PyErr_NoMemory();
  kc_status s = kc_array_to_dlpack(a->array, &t->inner);
  if (s != KC_OK) {
    PyMem_RawFree(t);
    return raise_status(st, array_ctx(a), s);
  }
  t->outer.dl_tensor = t->inner->dl_tensor;
  t->outer.manager_ctx = t;
  t->outer.deleter = export_deleter;
  t->array = Py_NewRef(obj);
  PyObject *capsule = PyCapsule_New(&t->outer, "dltensor", dlpack_capsule_destructor);
  if (capsule == NULL) export_deleter(&t->outer);
  return capsule;
}

static PyObject *array_to_dlpack(PyObject *module, PyObject *obj) {
  kcc_state *st = state_of_module(module);
  ArrayObject *a = array_arg(st, obj, "__dlpack__");
  return a ? export_capsule(st, a, obj) : NULL;
}

/* (device type, device id) as DLPack numbers them: read from an export, which kc.h
 * fills (the CUDA ordinal is not otherwise in kc.h). */
static PyObject *array_dlpack_device(PyObject *module, PyObject *obj) {
  kcc_state *st = state_of_module(module);
  ArrayObject *a = array_arg(st, obj, "__dlpack_device__");
  if (a == NULL) return NULL;
  DLManagedTensor *m = NULL;
  kc_status s = kc_array_to_dlpack(a->array, &m);
  if (s != KC_OK) return raise_status(st, array_ctx(a), s);
  DLDevice dev = m->dl_tensor.device;
  if (m->deleter) m->deleter(m);
  return Py_BuildValue("(ii)", (int)dev.device_type, (int)dev.device_id);
}

static PyObject *array_from_dlpack(PyObject *module, PyObject *args) {
  PyTypeObject *cls;
  PyObject *capsule;
  if (!PyArg_ParseTuple(args, "O!O:array_from_dlpack", &PyType_Type, &cls, &capsule))
    return NULL;
  kcc_state *st = state_of_module(module);
  if (!PyType_IsSubtype(cls, st->array_type))
    return PyErr_Format(PyExc_TypeError, "array_from_dlpack: %.100s is not a device array "
                        "type", cls->tp_name);
  if (!PyCapsule_IsValid(capsule, "dltensor"))
    return PyErr_Format(PyExc_ValueError, "from_dlpack: expected an unused DLPack capsule "
                        "('dltensor'), got %.100s", Py_TYPE(capsule)->tp_name);
  DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
  ContextObject *context = m ? get_context(st) : NULL;
  if (context == NULL) return NULL;
  kc_array *a = NULL;
  kc_status s = kc_array_from_dlpack(context->ctx, m, &a);
  if (s != KC_OK) return raise_status(st, context->ctx, s);   /* still the capsule's */
  /* the array owns the tensor now: its deleter runs when the array is freed */
  if (PyCapsule_SetName(capsule, "used_dltensor") < 0) {
    kc_array_free(a);
    return NULL;
  }
  return new_array_object(cls, (PyObject *)context, a, NULL);
}
#else
static PyObject *no_dlpack(void) {
  return PyErr_Format(PyExc_NotImplementedError, "this kcc was built without DLPack "
                      "(dlpack/dlpack.h, Debian's libdlpack-dev)");
}
static PyObject *array_to_dlpack(PyObject *module, PyObject *obj) { return no_dlpack(); }
static PyObject *array_dlpack_device(PyObject *module, PyObject *obj) { return no_dlpack(); }
static PyObject *array_from_dlpack(PyObject *module, PyObject *args) { return no_dlpack(); }
#endif

static PyMethodDef view_functions[] = {
  {"array_layout", array_layout, METH_O,
   "array_layout(a)\n--\n\n(strides in elements, C-contiguous, address of the first "
   "element: a CUdeviceptr on CUDA, a host address on the CPU back end)."},
  {"array_slice", array_slice, METH_VARARGS,
   "array_slice(a, starts, stops, steps)\n--\n\nThe view a[start:stop:step, ...], one "
   "slice per axis (None: a bound or step left out)."},
  {"array_restride", array_restride, METH_VARARGS,
   "array_restride(a, shape, strides, offset=0)\n--\n\nA view of a's memory: extents, "
   "strides in elements, first element offset elements from a's; it must stay inside "
   "the memory a reaches."},
  {"array_wrap", array_wrap, METH_VARARGS,
   "array_wrap(cls, owner, address, shape, strides, dtype)\n--\n\nAn array of type cls "
   "over memory owner holds (strides in elements or None); owner is kept alive."},
  {"array_to_dlpack", array_to_dlpack, METH_O,
   "array_to_dlpack(a)\n--\n\nA DLPack capsule ('dltensor') sharing a's memory."},
  {"array_dlpack_device", array_dlpack_device, METH_O,
   "array_dlpack_device(a)\n--\n\n(DLPack device type, device id) of a's memory."},
  {"array_from_dlpack", array_from_dlpack, METH_VARARGS,
   "array_from_dlpack(cls, capsule)\n--\n\nAn array of type cls sharing a DLPack "
   "capsule's tensor (the capsule is consumed)."},
  {NULL, NULL, 0, NULL},
};

int kcc_views_exec(PyObject *module) {
  return PyModule_AddFunctions(module, view_functions);
}
