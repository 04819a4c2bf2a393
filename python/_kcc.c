/*
 * _kcc.c — kcc._kcc, the CPython extension over libkc (include/kc.h).
 *
 * What it offers is small on purpose; the Numba-shaped API is kcc/cuda.py's:
 *   compile(name, source, signatures=())  -> Module   (kc_compile_source)
 *   Module.get_kernel(name)                -> Kernel   (kc_module_get_kernel)
 *   Kernel.launch(griddim, blockdim, args, sharedmem=0, stream=None)  (kc_launch)
 *   DeviceArray(obj) / DeviceArray(shape=, dtype=)       (kc_array_from_host, _new)
 *   DeviceArray.to_host(buf), .from_host(obj)            (kc_array_to_host, ...)
 *   synchronize(), detect(), device()
 *   Stream, Event (streams.c); array views, __cuda_array_interface__, DLPack (views.c)
 * Every kc_status other than KC_OK is raised as kcc._kcc.KccError with libkc's own
 * message (for a compile error: file:line:col, the line and a caret).
 *
 * One kc_context per interpreter, made at the first call that needs one (so that
 * `import kcc` costs nothing and KC_DEVICE is read when work starts). It lives in a
 * Context object that every array and module holds a reference to: the kc_context
 * is freed only after the last of them, whatever order the interpreter tears things
 * down in. A context is used by one thread at a time (docs/runtime.md), so calls
 * keep the GIL: two Python threads never enter libkc at once.
 *
 * Written as CPython's own Modules/_bz2module.c: multi-phase init (PEP 489), heap
 * types (PEP 573) with module state, no static PyObject. Arrays come in through the
 * buffer protocol (PEP 3118): NumPy arrays and scalars, memoryviews, array.array;
 * NumPy's C API is not needed.
 */
#include "_kcc.h"   /* Python.h, kc.h; the state and objects streams.c and views.c share */

#include <limits.h>
#include <string.h>

/* ---- module state ------------------------------------------------------------------ */

static struct PyModuleDef kcc_module_def;

kcc_state *state_of_module(PyObject *module) {
  return (kcc_state *)PyModule_GetState(module);
}

/* The state from an object of one of our types, or of a Python subclass of one
 * (kcc.cuda's DeviceNDArray): PyType_GetModuleByDef walks the MRO. */
kcc_state *state_of_type(PyTypeObject *tp) {
  PyObject *module = PyType_GetModuleByDef(tp, &kcc_module_def);
  return module ? state_of_module(module) : NULL;
}

/* ---- Context: owns the kc_context ------------------------------------------------ */
static int context_traverse(ContextObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static void context_dealloc(ContextObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kc_context_free(self->ctx);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static PyType_Slot context_slots[] = {
  {Py_tp_doc, "The process's kcc context (internal: arrays and modules keep it alive)."},
  {Py_tp_traverse, context_traverse},
  {Py_tp_dealloc, context_dealloc},
  {0, NULL},
};

static PyType_Spec context_spec = {
  .name = "kcc._kcc.Context",
  .basicsize = sizeof(ContextObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
           Py_TPFLAGS_DISALLOW_INSTANTIATION,
  .slots = context_slots,
};

/* Raise KccError(message) with .status set to the status's name. */
static PyObject *raise_kc(kcc_state *st, kc_status s, const char *message) {
  if (message[0] == '\0') message = kc_status_name(s);
  size_t len = strlen(message);
  while (len > 0 && message[len - 1] == '\n') len--;   /* diagnostics end in one */
  PyObject *exc = PyObject_CallFunction(st->error, "s#", message, (Py_ssize_t)len);
  if (exc == NULL) return NULL;
  PyObject *name = PyUnicode_FromString(kc_status_name(s));
  if (name != NULL && PyObject_SetAttrString(exc, "status", name) == 0)
    PyErr_SetObject(st->error, exc);
  Py_XDECREF(name);
  Py_DECREF(exc);
  return NULL;
}

/* kc_last_error's text, or for a compilation every diagnostic (kcc prints them all,
 * as GCC does, not only the first). */
PyObject *raise_status(kcc_state *st, kc_context *ctx, kc_status s) {
  if ((s == KC_ERR_SYNTAX || s == KC_ERR_TYPE) && ctx && kc_last_diagnostics(ctx)[0])
    return raise_kc(st, s, kc_last_diagnostics(ctx));
  PyObject *r = raise_kc(st, s, kc_last_error(ctx));
  /* A CPU launch returns its kernel's fault and the runtime keeps it for the next
     synchronisation too, as a CUDA fault surfaces there (runtime/launch.c). Raised
     here, as Numba raises a debug kernel's exception at its launch, it is taken now,
     not raised again by the program's next cuda.synchronize(). (On the CPU every
     launch is done when it returns, and Python raises each failure: what is kept is
     this one or nothing.) */
  if (ctx && kc_context_device(ctx) == KC_DEVICE_CPU) (void)kc_synchronize(ctx);
  return r;
}

/* The compile warnings Numba gives too, by the start of their message: those a Numba
 * program sees from kcc. kcc's own hints (a float32 widened to float64 ...) are about
 * code Numba compiles without a word, so a Python program does not get them. */
static const char *const numba_warnings[] = {
  "CUDA print() cannot print more than",
};

static int numba_warns_too(const char *message) {
  for (size_t i = 0; i < sizeof numba_warnings / sizeof numba_warnings[0]; i++)
    if (strncmp(message, numba_warnings[i], strlen(numba_warnings[i])) == 0) return 1;
  return 0;
}

/* The context's diagnostic hook: a compile warning's text kept until the call that
 * compiled returns (issue_warnings), since an exception a warnings filter raises could
 * not cross libkc. Called with the GIL held: no call into libkc releases it. */
static void keep_warning(void *user_data, const kc_diagnostic *d) {
  kcc_state *st = user_data;
  if (d->severity != KC_SEV_WARNING || st->warnings == NULL || !d->message ||
      !numba_warns_too(d->message))
    return;
  PyObject *text = PyUnicode_DecodeUTF8(d->text, (Py_ssize_t)strlen(d->text), "replace");
  if (text == NULL || PyList_Append(st->warnings, text) < 0) PyErr_Clear();
  Py_XDECREF(text);
}

/* The warnings the last compile kept, issued as KccWarning (Python prints each once
 * per place, as Numba's); -1 where a filter turned one into an exception. */
static int issue_warnings(kcc_state *st) {
  if (st->warnings == NULL || PyList_GET_SIZE(st->warnings) == 0) return 0;
  PyObject *texts = st->warnings;
  st->warnings = PyList_New(0);
  int rc = st->warnings == NULL ? -1 : 0;
  for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(texts); i++) {
    const char *text = PyUnicode_AsUTF8(PyList_GET_ITEM(texts, i));
    size_t len = text ? strlen(text) : 0;
    while (len > 0 && text[len - 1] == '\n') len--;
    PyObject *msg = text ? PyUnicode_FromStringAndSize(text, (Py_ssize_t)len) : NULL;
    rc = msg == NULL ? -1 : PyErr_WarnEx(st->warning, PyUnicode_AsUTF8(msg), 1);
    Py_XDECREF(msg);
  }
  Py_DECREF(texts);
  return rc;
}

/* The interpreter's Context, made at the first call; a borrowed reference. A failure
 * (KC_DEVICE=cuda on a machine without a GPU) is raised, and the next call tries
 * again. */
ContextObject *get_context(kcc_state *st) {
  if (st->context) return (ContextObject *)st->context;
  kc_context *ctx = NULL;
  kc_config config = {0};
  config.cuda_device = st->cuda_device;
  config.wrap_int_args = 1;   /* Numba passes Python ints through ctypes, which wraps */
  config.diag = keep_warning;
  config.user_data = st;
  kc_status s = kc_context_new(&config, &ctx);
  if (s != KC_OK) {
    raise_status(st, ctx, s);
    kc_context_free(ctx);
    return NULL;
  }
  ContextObject *self = PyObject_GC_New(ContextObject, st->context_type);
  if (self == NULL) {
    kc_context_free(ctx);
    return NULL;
  }
  self->ctx = ctx;
  PyObject_GC_Track(self);
  st->context = (PyObject *)self;
  return self;
}

/* ---- dtypes: buffer formats and NumPy names --------------------------------------- */
/* A PEP 3118 format ("f", "<d", "Zf", "l" ...) with its item size as a kc_dtype, or
 * -1. Integer codes are matched by size, since 'l' is 8 bytes natively and 4 under
 * '<'. Big-endian data would need swapping: refused. */
int dtype_from_format(const char *fmt, Py_ssize_t itemsize) {
  if (fmt == NULL) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
  static const char signed_codes[] = "bhilqn", unsigned_codes[] = "BHILQN";
  if (fmt[0] == '\0' || (fmt[1] != '\0' && fmt[0] != 'Z')) return -1;
  if (fmt[0] == '?' && itemsize == 1) return KC_BOOL;
  if (strchr(signed_codes, fmt[0]) || strchr(unsigned_codes, fmt[0])) {
    static const kc_dtype sints[] = {KC_INT8, KC_INT16, 0, KC_INT32, 0, 0, 0, KC_INT64};
    static const kc_dtype uints[] = {KC_UINT8, KC_UINT16, 0, KC_UINT32, 0, 0, 0, KC_UINT64};
    if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8) return -1;
    return strchr(signed_codes, fmt[0]) ? sints[itemsize - 1] : uints[itemsize - 1];
  }
  if (fmt[0] == 'e' && itemsize == 2) return KC_FLOAT16;
  if (fmt[0] == 'f' && itemsize == 4) return KC_FLOAT32;
  if (fmt[0] == 'd' && itemsize == 8) return KC_FLOAT64;
  if (strcmp(fmt, "Zf") == 0 && itemsize == 8) return KC_COMPLEX64;
  if (strcmp(fmt, "Zd") == 0 && itemsize == 16) return KC_COMPLEX128;
  return -1;
}

/* A NumPy dtype name ("float32", "bool") as a kc_dtype, or -1: kc's names are
 * NumPy's. */
int dtype_from_name(const char *name) {
  for (int t = 0; t < KC_DTYPE_COUNT; t++)
    if (strcmp(kc_dtype_name((kc_dtype)t), name) == 0) return t;
  return -1;
}

static PyObject *bad_format(const Py_buffer *view) {
  return PyErr_Format(PyExc_TypeError,
                      "kcc cannot take elements of buffer format '%s' (item size %zd): "
                      "it takes bool, integers, float16/32/64 and complex64/128 in the "
                      "machine's byte order",
                      view->format ? view->format : "B", view->itemsize);
}

/* ---- DeviceArray: a kc_array ------------------------------------------------------- */
static int array_traverse(ArrayObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->context);
  Py_VISIT(self->base);
  return 0;
}

static void array_dealloc(ArrayObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kc_array_free(self->array);   /* a view before the memory it views */
  Py_CLEAR(self->base);
  Py_CLEAR(self->context);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static kc_context *array_ctx(ArrayObject *self) {
  return ((ContextObject *)self->context)->ctx;
}

/* The extents of a Python shape: an int or a sequence of 1..KC_MAX_DIMS ints >= 0. */
static int parse_shape(PyObject *shape, int64_t *dims, int *ndim) {
  if (PyLong_Check(shape)) {
    *ndim = 1;
    dims[0] = PyLong_AsLongLong(shape);
  } else {
    PyObject *seq = PySequence_Fast(shape, "shape must be an int or a tuple of ints");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > KC_MAX_DIMS) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "kcc arrays have 1 to %d dimensions, not %zd",
                   KC_MAX_DIMS, n);
      return -1;
    }
    *ndim = (int)n;
    for (Py_ssize_t i = 0; i < n; i++)
      dims[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
  }
  if (PyErr_Occurred()) return -1;
  for (int i = 0; i < *ndim; i++)
    if (dims[i] < 0) {
      PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
      return -1;
    }
  return 0;
}

/* A C-contiguous read of obj's buffer with its format; *dtype set. */
static int get_host_buffer(PyObject *obj, Py_buffer *view, int flags, int *dtype) {
  if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
    return -1;
  *dtype = dtype_from_format(view->format, view->itemsize);
  if (*dtype < 0) {
    bad_format(view);
    PyBuffer_Release(view);
    return -1;
  }
  if (view->ndim < 1 || view->ndim > KC_MAX_DIMS) {
    PyErr_Format(PyExc_ValueError, "kcc arrays have 1 to %d dimensions; this one has %d",
                 KC_MAX_DIMS, view->ndim);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

/* DeviceArray(obj): a copy of a C-contiguous buffer on the device. */
static kc_status array_from_buffer(kc_context *ctx, PyObject *obj, kc_array **out) {
  Py_buffer view;
  int dtype;
  if (get_host_buffer(obj, &view, PyBUF_SIMPLE, &dtype) < 0) return KC_ERR_INVALID;
  int64_t dims[KC_MAX_DIMS];
  for (int i = 0; i < view.ndim; i++) dims[i] = view.shape[i];
  kc_status s = kc_array_from_host(ctx, (kc_dtype)dtype, view.ndim, dims, view.buf,
                                   (size_t)view.len, out);
  PyBuffer_Release(&view);
  return s;
}

/* DeviceArray(shape=, dtype=): uninitialised, as cuda.device_array. */
static kc_status array_new_empty(kc_context *ctx, PyObject *shape, const char *dtype_name,
                                 kc_array **out) {
  int64_t dims[KC_MAX_DIMS];
  int ndim, dtype = dtype_from_name(dtype_name);
  if (dtype < 0) {
    PyErr_Format(PyExc_TypeError, "kcc has no arrays of dtype '%s'", dtype_name);
    return KC_ERR_INVALID;
  }
  if (parse_shape(shape, dims, &ndim) < 0) return KC_ERR_INVALID;
  return kc_array_new(ctx, (kc_dtype)dtype, ndim, dims, out);
}

static PyObject *array_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"obj", "shape", "dtype", NULL};
  PyObject *obj = NULL, *shape = NULL;
  const char *dtype_name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$Os:DeviceArray", kwlist, &obj,
                                   &shape, &dtype_name))
    return NULL;
  if ((obj == NULL) == (shape == NULL || dtype_name == NULL)) {
    PyErr_SetString(PyExc_TypeError,
                    "DeviceArray takes a host array, or shape= and dtype=, not both");
    return NULL;
  }
  kcc_state *st = state_of_type(type);
  if (st == NULL) return NULL;
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  kc_array *a = NULL;
  kc_status s = obj ? array_from_buffer(context->ctx, obj, &a)
                    : array_new_empty(context->ctx, shape, dtype_name, &a);
  if (PyErr_Occurred()) return NULL;
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  return new_array_object(type, (PyObject *)context, a, NULL);
}

/* to_host(buf): copy the array into a writable C-contiguous buffer of its dtype and
 * size (kcc.cuda makes the NumPy array). */
/* An array of records' host side: any C-contiguous buffer (kcc.cuda checks the NumPy
 * dtype), its bytes taken as they are; *dtype set to KC_RECORD to match. */
static int get_record_buffer(PyObject *obj, Py_buffer *view, int flags, int *dtype) {
  *dtype = KC_RECORD;
  return PyObject_GetBuffer(obj, view, flags | PyBUF_SIMPLE | PyBUF_C_CONTIGUOUS);
}

static PyObject *array_to_host(ArrayObject *self, PyObject *out) {
  Py_buffer view;
  int dtype;
  int records = kc_array_dtype(self->array) == KC_RECORD;
  if ((records ? get_record_buffer(out, &view, PyBUF_WRITABLE, &dtype)
               : get_host_buffer(out, &view, PyBUF_WRITABLE, &dtype)) < 0)
    return NULL;
  kc_status s = KC_OK;
  if (dtype != (int)kc_array_dtype(self->array) ||
      (size_t)view.len != kc_array_bytes(self->array)) {
    PyErr_Format(PyExc_ValueError,
                 "copy_to_host: the device array holds %zu bytes of %s, the host array "
                 "%zd bytes of %s", kc_array_bytes(self->array),
                 kc_dtype_name(kc_array_dtype(self->array)), view.len,
                 kc_dtype_name((kc_dtype)dtype));
  } else {
    s = kc_array_to_host(self->array, view.buf, (size_t)view.len);
  }
  PyBuffer_Release(&view);
  if (PyErr_Occurred()) return NULL;
  if (s != KC_OK) {
    kcc_state *st = state_of_type(Py_TYPE(self));
    return st ? raise_status(st, array_ctx(self), s) : NULL;
  }
  Py_RETURN_NONE;
}

/* from_host(obj): copy a host buffer (same dtype and size) or another DeviceArray
 * into this one. */
static PyObject *array_from_host(ArrayObject *self, PyObject *obj) {
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  kc_status s;
  if (PyObject_TypeCheck(obj, st->array_type)) {
    s = kc_array_copy(self->array, ((ArrayObject *)obj)->array);
  } else {
    Py_buffer view;
    int dtype;
    if ((kc_array_dtype(self->array) == KC_RECORD
             ? get_record_buffer(obj, &view, 0, &dtype)
             : get_host_buffer(obj, &view, PyBUF_SIMPLE, &dtype)) < 0)
      return NULL;
    if (dtype != (int)kc_array_dtype(self->array)) {
      PyErr_Format(PyExc_ValueError, "copy_to_device: the device array is %s, the host "
                   "array %s", kc_dtype_name(kc_array_dtype(self->array)),
                   kc_dtype_name((kc_dtype)dtype));
      PyBuffer_Release(&view);
      return NULL;
    }
    s = kc_array_copy_from_host(self->array, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
  }
  if (s != KC_OK) return raise_status(st, array_ctx(self), s);
  Py_RETURN_NONE;
}

static PyObject *array_get_shape(ArrayObject *self, void *closure) {
  int n = kc_array_ndim(self->array);
  const int64_t *dims = kc_array_shape(self->array);
  PyObject *shape = PyTuple_New(n);
  if (shape == NULL) return NULL;
  for (int i = 0; i < n; i++) {
    PyObject *d = PyLong_FromLongLong(dims[i]);
    if (d == NULL) {
      Py_DECREF(shape);
      return NULL;
    }
    PyTuple_SET_ITEM(shape, i, d);
  }
  return shape;
}

static PyObject *array_get_dtype(ArrayObject *self, void *closure) {
  return PyUnicode_FromString(kc_dtype_name(kc_array_dtype(self->array)));
}

static PyObject *array_get_ndim(ArrayObject *self, void *closure) {
  return PyLong_FromLong(kc_array_ndim(self->array));
}

static PyObject *array_get_size(ArrayObject *self, void *closure) {
  return PyLong_FromLongLong(kc_array_size(self->array));
}

static PyObject *array_get_nbytes(ArrayObject *self, void *closure) {
  return PyLong_FromSize_t(kc_array_bytes(self->array));
}

static Py_ssize_t array_length(ArrayObject *self) {
  return (Py_ssize_t)kc_array_shape(self->array)[0];
}

static PyMethodDef array_methods[] = {
  {"to_host", (PyCFunction)array_to_host, METH_O,
   "to_host(buf)\n--\n\nCopy the array into buf, a writable C-contiguous buffer of the "
   "same dtype and size."},
  {"from_host", (PyCFunction)array_from_host, METH_O,
   "from_host(obj)\n--\n\nCopy a host buffer, or another DeviceArray, of the same dtype "
   "and size into the array."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef array_getset[] = {
  {"shape", (getter)array_get_shape, NULL, "the extents, a tuple of ints", NULL},
  {"dtype", (getter)array_get_dtype, NULL, "the element type's NumPy name", NULL},
  {"ndim", (getter)array_get_ndim, NULL, "the number of dimensions", NULL},
  {"size", (getter)array_get_size, NULL, "the number of elements", NULL},
  {"nbytes", (getter)array_get_nbytes, NULL, "the size in bytes", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot array_slots[] = {
  {Py_tp_doc, "DeviceArray(obj) or DeviceArray(shape=, dtype=)\n--\n\n"
              "An array on kcc's device: a copy of a host buffer (NumPy array), or a new "
              "uninitialised one."},
  {Py_tp_new, array_new},
  {Py_tp_traverse, array_traverse},
  {Py_tp_dealloc, array_dealloc},
  {Py_tp_methods, array_methods},
  {Py_tp_getset, array_getset},
  {Py_sq_length, array_length},
  {0, NULL},
};

static PyType_Spec array_spec = {
  .name = "kcc._kcc.DeviceArray",
  .basicsize = sizeof(ArrayObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE |
           Py_TPFLAGS_IMMUTABLETYPE,
  .slots = array_slots,
};

/* ---- Module: a compiled kc_module --------------------------------------------------- */
typedef struct {
  PyObject_HEAD
  PyObject *context;
  kc_module *module;
} ModuleObject;

static int module_traverse(ModuleObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->context);
  return 0;
}

static void module_dealloc(ModuleObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kc_module_free(self->module);
  Py_CLEAR(self->context);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

/* ---- Kernel: a kc_kernel, alive as long as its Module ------------------------------ */
typedef struct {
  PyObject_HEAD
  PyObject *module;    /* ModuleObject: the kernel belongs to it */
  kc_kernel *kernel;
  PyObject *name;
} KernelObject;

static int kernel_traverse(KernelObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->module);
  return 0;
}

static void kernel_dealloc(KernelObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->module);
  Py_CLEAR(self->name);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static PyObject *module_get_kernel(ModuleObject *self, PyObject *name) {
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  const char *cname = PyUnicode_AsUTF8(name);
  if (cname == NULL) return NULL;
  kc_kernel *k = NULL;
  kc_status s = kc_module_get_kernel(self->module, cname, &k);
  if (s != KC_OK)
    return raise_status(st, ((ContextObject *)self->context)->ctx, s);
  KernelObject *kernel = PyObject_GC_New(KernelObject, st->kernel_type);
  if (kernel == NULL) return NULL;
  kernel->module = Py_NewRef((PyObject *)self);
  kernel->kernel = k;
  kernel->name = Py_NewRef(name);
  PyObject_GC_Track(kernel);
  return (PyObject *)kernel;
}

static PyMethodDef module_methods[] = {
  {"get_kernel", (PyCFunction)module_get_kernel, METH_O,
   "get_kernel(name)\n--\n\nThe kernel of that name in the module's source."},
  {NULL, NULL, 0, NULL},
};

static PyType_Slot module_slots[] = {
  {Py_tp_doc, "A compiled kcc module (made by kcc._kcc.compile)."},
  {Py_tp_traverse, module_traverse},
  {Py_tp_dealloc, module_dealloc},
  {Py_tp_methods, module_methods},
  {0, NULL},
};

static PyType_Spec module_spec = {
  .name = "kcc._kcc.Module",
  .basicsize = sizeof(ModuleObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
           Py_TPFLAGS_DISALLOW_INSTANTIATION,
  .slots = module_slots,
};

/* ---- launching ------------------------------------------------------------------------ */
/* One launch dimension: an int or a tuple of 1 to 3 ints, each 0..UINT_MAX (zero is
 * left to kc_launch, whose message names the kernel). */
static int parse_dim(PyObject *obj, const char *what, kc_dim3 *out) {
  unsigned v[3] = {1, 1, 1};
  PyObject *seq = PyLong_Check(obj) ? PyTuple_Pack(1, obj) : PySequence_Tuple(obj);
  if (seq == NULL || PyTuple_GET_SIZE(seq) < 1 || PyTuple_GET_SIZE(seq) > 3) {
    Py_XDECREF(seq);
    PyErr_Format(PyExc_ValueError, "%s must be an int or a tuple of 1 to 3 ints", what);
    return -1;
  }
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); i++) {
    long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
    if (d == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    if (d < 0 || d > (long long)UINT_MAX) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "%s: %lld is not a valid extent", what, d);
      return -1;
    }
    v[i] = (unsigned)d;
  }
  Py_DECREF(seq);
  out->x = v[0], out->y = v[1], out->z = v[2];
  return 0;
}

/* A scalar from a zero-dimensional buffer: NumPy's scalars (np.float32(2), np.int8(1)),
 * which keep their dtype as Numba types them. */
static int scalar_from_buffer(PyObject *obj, kc_arg *out) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj, &view, PyBUF_FORMAT | PyBUF_ND) < 0) return -1;
  int t = dtype_from_format(view.format, view.itemsize);
  int ok = t >= 0 && view.ndim == 0;
  if (ok) {
    const unsigned char *p = view.buf;
    kc_arg a = {.is_array = 0, .dtype = (kc_dtype)t};
    switch (t) {
    case KC_BOOL: a.v.i = *p != 0; break;
    case KC_INT8: a.v.i = *(const int8_t *)p; break;
    case KC_INT16: { int16_t x; memcpy(&x, p, 2); a.v.i = x; break; }
    case KC_INT32: { int32_t x; memcpy(&x, p, 4); a.v.i = x; break; }
    case KC_INT64: memcpy(&a.v.i, p, 8); break;
    case KC_UINT8: a.v.u = *p; break;
    case KC_UINT16: { uint16_t x; memcpy(&x, p, 2); a.v.u = x; break; }
    case KC_UINT32: { uint32_t x; memcpy(&x, p, 4); a.v.u = x; break; }
    case KC_UINT64: memcpy(&a.v.u, p, 8); break;
    case KC_FLOAT16: a.v.f = PyFloat_Unpack2((const char *)p, 1); break;
    case KC_FLOAT32: { float x; memcpy(&x, p, 4); a.v.f = x; break; }
    case KC_FLOAT64: memcpy(&a.v.f, p, 8); break;
    case KC_COMPLEX64: {
      float x[2];
      memcpy(x, p, 8);
      a.v.c.re = x[0], a.v.c.im = x[1];
      break;
    }
    default: memcpy(&a.v.c, p, 16); break;   /* KC_COMPLEX128 */
    }
    *out = a;
  }
  PyBuffer_Release(&view);
  return ok ? 0 : -1;
}

/* A Python scalar as a kc_arg: bool, int (int64, or uint64 above its range, as Numba
 * types them), float (float64), complex (complex128), or a NumPy scalar of its own
 * dtype. kc_launch converts it to the parameter's type when the value fits. */
static int scalar_arg(PyObject *obj, Py_ssize_t index, kc_arg *out) {
  if (PyBool_Check(obj)) {
    *out = kc_arg_bool(obj == Py_True);
  } else if (PyLong_Check(obj)) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (PyErr_Occurred()) return -1;
      *out = kc_arg_int(KC_UINT64, 0);
      out->v.u = u;
    } else if (overflow < 0) {
      PyErr_Format(PyExc_OverflowError, "argument %zd: %R does not fit in int64",
                   index + 1, obj);
      return -1;
    } else {
      if (v == -1 && PyErr_Occurred()) return -1;
      *out = kc_arg_i64(v);
    }
  } else if (PyFloat_Check(obj)) {
    *out = kc_arg_f64(PyFloat_AS_DOUBLE(obj));
  } else if (PyComplex_Check(obj)) {
    Py_complex c = PyComplex_AsCComplex(obj);
    *out = kc_arg_c128(c.real, c.imag);
  } else if (scalar_from_buffer(obj, out) < 0) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "argument %zd: kcc cannot pass a %.100s to a kernel (it takes device "
                 "arrays, NumPy arrays, numbers and tuples of numbers)",
                 index + 1, Py_TYPE(obj)->tp_name);
    return -1;
  }
  return 0;
}

/* The launch's arguments, in memory sized from them: args[nargs], then every tuple's
 * elements one after another in elems. */
typedef struct {
  kc_arg *args;
  kc_arg *elems;
} launch_args;

static Py_ssize_t count_tuple_elems(PyObject *seq) {
  Py_ssize_t total = 0;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
    PyObject *a = PySequence_Fast_GET_ITEM(seq, i);
    if (PyTuple_Check(a)) total += PyTuple_GET_SIZE(a);
  }
  return total;
}

static int convert_args(kcc_state *st, PyObject *seq, launch_args *la) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), nelems = count_tuple_elems(seq), used = 0;
  la->args = PyMem_New(kc_arg, n ? n : 1);
  la->elems = PyMem_New(kc_arg, nelems ? nelems : 1);
  if (la->args == NULL || la->elems == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *a = PySequence_Fast_GET_ITEM(seq, i);
    if (PyObject_TypeCheck(a, st->array_type)) {
      la->args[i] = kc_arg_array(((ArrayObject *)a)->array);
    } else if (PyTuple_Check(a)) {
      Py_ssize_t m = PyTuple_GET_SIZE(a);
      if (m > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "argument %zd: a tuple of %zd numbers", i + 1, m);
        return -1;
      }
      for (Py_ssize_t j = 0; j < m; j++)
        if (scalar_arg(PyTuple_GET_ITEM(a, j), i, &la->elems[used + j]) < 0) return -1;
      la->args[i] = kc_arg_tuple(&la->elems[used], (int)m);
      used += m;
    } else if (record_arg_of(st, a, &la->args[i])) {
      continue;        /* a record by value: its bytes, read at the launch */
    } else if (scalar_arg(a, i, &la->args[i]) < 0) {
      return -1;
    }
  }
  return 0;
}

static PyObject *kernel_launch(KernelObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"griddim", "blockdim", "args", "sharedmem", "stream", NULL};
  PyObject *grid_obj, *block_obj, *arg_obj, *stream_obj = Py_None;
  Py_ssize_t shared = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|nO:launch", kwlist, &grid_obj,
                                   &block_obj, &arg_obj, &shared, &stream_obj))
    return NULL;
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  kc_stream *stream = NULL;
  if (stream_of(st, stream_obj, &stream) < 0) return NULL;
  kc_dim3 grid, block;
  if (parse_dim(grid_obj, "griddim", &grid) < 0 || parse_dim(block_obj, "blockdim", &block) < 0)
    return NULL;
  if (shared < 0) {
    PyErr_SetString(PyExc_ValueError, "sharedmem must not be negative");
    return NULL;
  }
  PyObject *seq = PySequence_Fast(arg_obj, "launch: args must be a sequence");
  if (seq == NULL) return NULL;
  if (PySequence_Fast_GET_SIZE(seq) > INT_MAX) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "launch: too many arguments");
  }
  launch_args la = {NULL, NULL};
  PyObject *result = NULL;
  if (convert_args(st, seq, &la) == 0) {
    kc_status s = kc_launch(self->kernel, grid, block, (size_t)shared, stream, la.args,
                            (int)PySequence_Fast_GET_SIZE(seq));
    ModuleObject *m = (ModuleObject *)self->module;
    result = issue_warnings(st) < 0 ? NULL
             : s == KC_OK ? Py_NewRef(Py_None)
                          : raise_status(st, ((ContextObject *)m->context)->ctx, s);
  }
  PyMem_Free(la.args);
  PyMem_Free(la.elems);
  Py_DECREF(seq);
  return result;
}

/* ---- ufuncs, gufuncs and reductions ---------------------------------------------------- */
PyObject *new_array_object(PyTypeObject *tp, PyObject *context, kc_array *a,
                           PyObject *base) {
  ArrayObject *self = (ArrayObject *)tp->tp_alloc(tp, 0);
  if (self == NULL) {
    kc_array_free(a);
    return NULL;
  }
  self->context = Py_NewRef(context);
  self->array = a;
  self->base = Py_XNewRef(base);
  return (PyObject *)self;
}

/* A new array owning a, of the class kcc.cuda registered with set_array_class (its
 * DeviceNDArray), else DeviceArray. */
static PyObject *wrap_array(kcc_state *st, PyObject *context, kc_array *a) {
  PyTypeObject *type = st->array_class ? (PyTypeObject *)st->array_class : st->array_type;
  return new_array_object(type, context, a, NULL);
}

static kc_context *kernel_ctx(KernelObject *self) {
  return ((ContextObject *)((ModuleObject *)self->module)->context)->ctx;
}

static PyObject *kernel_context(KernelObject *self) {
  return ((ModuleObject *)self->module)->context;
}

/* The DeviceArray obj, or NULL with a TypeError naming what (None allowed when
 * none_ok: then *out is NULL and 0 is returned). */
static int device_array_arg(kcc_state *st, PyObject *obj, const char *what, int none_ok,
                            kc_array **out) {
  *out = NULL;
  if (none_ok && obj == Py_None) return 0;
  if (!PyObject_TypeCheck(obj, st->array_type)) {
    PyErr_Format(PyExc_TypeError, "%s must be a device array, not %.100s", what,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  *out = ((ArrayObject *)obj)->array;
  return 0;
}

/* Kernel.vectorize(args, out=None): kc_vectorize_args, a ufunc called as NumPy calls
 * one; args are device arrays and numbers. Returns out, or the new output array. */
static PyObject *kernel_vectorize(KernelObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"args", "out", "stream", NULL};
  PyObject *arg_obj, *out_obj = Py_None, *stream_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:vectorize", kwlist, &arg_obj,
                                   &out_obj, &stream_obj))
    return NULL;
  kcc_state *st = state_of_type(Py_TYPE(self));
  kc_array *out = NULL;
  kc_ufunc_options opts = {0};
  if (st == NULL || device_array_arg(st, out_obj, "out", 1, &out) < 0 ||
      stream_of(st, stream_obj, &opts.stream) < 0)
    return NULL;
  PyObject *seq = PySequence_Fast(arg_obj, "vectorize: args must be a sequence");
  if (seq == NULL) return NULL;
  launch_args la = {NULL, NULL};
  PyObject *result = NULL;
  if (PySequence_Fast_GET_SIZE(seq) > INT_MAX) {
    PyErr_SetString(PyExc_ValueError, "vectorize: too many arguments");
  } else if (convert_args(st, seq, &la) == 0) {
    kc_status s = kc_vectorize_args(self->kernel, la.args,
                                    (int)PySequence_Fast_GET_SIZE(seq), &out, &opts);
    if (s != KC_OK)
      raise_status(st, kernel_ctx(self), s);
    else
      result = out_obj != Py_None ? Py_NewRef(out_obj)
                                  : wrap_array(st, kernel_context(self), out);
  }
  PyMem_Free(la.args);
  PyMem_Free(la.elems);
  Py_DECREF(seq);
  return result;
}

/* The kc_arrays of a sequence of DeviceArrays (None allowed for outputs), in memory the
 * caller frees; *n set. */
static kc_array **array_list(kcc_state *st, PyObject *seq, const char *what, int none_ok,
                             int *n) {
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  if (len > INT_MAX) {
    PyErr_Format(PyExc_ValueError, "too many %ss", what);
    return NULL;
  }
  kc_array **arrays = PyMem_New(kc_array *, len ? len : 1);
  if (arrays == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < len; i++)
    if (device_array_arg(st, PySequence_Fast_GET_ITEM(seq, i), what, none_ok,
                         &arrays[i]) < 0) {
      PyMem_Free(arrays);
      return NULL;
    }
  *n = (int)len;
  return arrays;
}

/* The outputs of a gufunc call as a list: the given ones, and the new ones wrapped. */
static PyObject *gufunc_results(kcc_state *st, KernelObject *self, PyObject *given,
                                kc_array **outputs, int n) {
  PyObject *list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(given, i);
    PyObject *item = o != Py_None ? Py_NewRef(o)
                                  : wrap_array(st, kernel_context(self), outputs[i]);
    outputs[i] = NULL;   /* owned by the list now (or freed by wrap_array) */
    if (item == NULL) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, item);
  }
  /* on failure, free what was allocated and not yet wrapped */
  for (int i = 0; i < n; i++)
    if (outputs[i] && PySequence_Fast_GET_ITEM(given, i) == Py_None)
      kc_array_free(outputs[i]);
  return list;
}

/* Kernel.guvectorize(inputs, outputs): kc_guvectorize; outputs holds device arrays or
 * None (allocated). Returns the list of outputs. */
static PyObject *kernel_guvectorize(KernelObject *self, PyObject *args) {
  PyObject *in_obj, *out_obj, *stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "OO|O:guvectorize", &in_obj, &out_obj, &stream_obj))
    return NULL;
  kcc_state *st = state_of_type(Py_TYPE(self));
  kc_stream *stream = NULL;
  if (st == NULL || stream_of(st, stream_obj, &stream) < 0) return NULL;
  PyObject *in_seq = PySequence_Fast(in_obj, "guvectorize: inputs must be a sequence");
  PyObject *out_seq = in_seq ? PySequence_Fast(out_obj, "guvectorize: outputs must be "
                                               "a sequence") : NULL;
  kc_array **inputs = NULL, **outputs = NULL;
  int nin = 0, nout = 0;
  PyObject *result = NULL;
  if (out_seq && (inputs = array_list(st, in_seq, "input", 0, &nin)) != NULL &&
      (outputs = array_list(st, out_seq, "output", 1, &nout)) != NULL) {
    kc_status s = kc_guvectorize_stream(self->kernel, inputs, nin, outputs, nout, stream);
    result = s == KC_OK ? gufunc_results(st, self, out_seq, outputs, nout)
                        : raise_status(st, kernel_ctx(self), s);
  }
  PyMem_Free(inputs);
  PyMem_Free(outputs);
  Py_XDECREF(in_seq);
  Py_XDECREF(out_seq);
  return result;
}

/* Kernel.reduce(array, init): kc_reduce; init is None or the bytes of one element of
 * the array's dtype. Returns the result's bytes (kcc.cuda makes the NumPy scalar). */
static PyObject *kernel_reduce(KernelObject *self, PyObject *args) {
  PyObject *arr_obj, *stream_obj = Py_None;
  Py_buffer init = {0};
  if (!PyArg_ParseTuple(args, "Oz*|O:reduce", &arr_obj, &init, &stream_obj)) return NULL;
  kcc_state *st = state_of_type(Py_TYPE(self));
  kc_array *arr = NULL;
  kc_stream *stream = NULL;
  PyObject *result = NULL;
  if (st != NULL && device_array_arg(st, arr_obj, "reduce's array", 0, &arr) == 0 &&
      stream_of(st, stream_obj, &stream) == 0) {
    size_t size = kc_dtype_size(kc_array_dtype(arr));
    unsigned char value[16] = {0};   /* the widest dtype, complex128 */
    if (size > sizeof value) {
      PyErr_SetString(PyExc_TypeError, "reduce: the array's elements must be numbers");
    } else if (init.buf && (size_t)init.len != size) {
      PyErr_Format(PyExc_ValueError, "reduce: init has %zd bytes, the array's elements %zu",
                   init.len, size);
    } else {
      kc_status s = kc_reduce_stream(self->kernel, arr, init.buf, value, stream);
      result = s == KC_OK ? PyBytes_FromStringAndSize((const char *)value, (Py_ssize_t)size)
                          : raise_status(st, kernel_ctx(self), s);
    }
  }
  if (init.obj) PyBuffer_Release(&init);
  return result;
}

/* Kernel.max_cooperative_blocks(threads, shared=0): kc_kernel_max_cooperative_blocks. */
static PyObject *kernel_max_cooperative_blocks(KernelObject *self, PyObject *args) {
  int threads;
  Py_ssize_t shared = 0;
  if (!PyArg_ParseTuple(args, "i|n:max_cooperative_blocks", &threads, &shared)) return NULL;
  if (shared < 0) return PyErr_Format(PyExc_ValueError, "shared memory must not be negative");
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  uint64_t blocks = 0;
  kc_status s = kc_kernel_max_cooperative_blocks(self->kernel, threads, (size_t)shared,
                                                 &blocks);
  if (s != KC_OK) return raise_status(st, kernel_ctx(self), s);
  return PyLong_FromUnsignedLongLong(blocks);
}

static PyObject *kernel_get_cooperative(KernelObject *self, void *closure) {
  (void)closure;
  return PyBool_FromLong(kc_kernel_cooperative(self->kernel));
}

static PyObject *kernel_get_signature(KernelObject *self, void *closure) {
  return PyUnicode_FromString(kc_kernel_signature(self->kernel));
}

static PyObject *kernel_get_param_count(KernelObject *self, void *closure) {
  return PyLong_FromLong(kc_kernel_param_count(self->kernel));
}

static PyObject *kernel_get_name(KernelObject *self, void *closure) {
  return Py_NewRef(self->name);
}

static PyMethodDef kernel_methods[] = {
  {"vectorize", (PyCFunction)(void (*)(void))kernel_vectorize,
   METH_VARARGS | METH_KEYWORDS,
   "vectorize(args, out=None, stream=None)\n--\n\nCall a @vectorize kernel as NumPy "
   "calls a ufunc, on stream: args are device arrays (any shape: they broadcast) and "
   "numbers; returns out, or a new device array."},
  {"guvectorize", (PyCFunction)kernel_guvectorize, METH_VARARGS,
   "guvectorize(inputs, outputs, stream=None)\n--\n\nCall a @guvectorize kernel on "
   "device arrays, on stream; "
   "outputs holds device arrays or None (allocated). Returns the list of outputs."},
  {"max_cooperative_blocks", (PyCFunction)kernel_max_cooperative_blocks, METH_VARARGS,
   "max_cooperative_blocks(threads, shared=0)\n--\n\nThe most blocks of that many "
   "threads a cooperative launch of the kernel runs at once."},
  {"reduce", (PyCFunction)kernel_reduce, METH_VARARGS,
   "reduce(array, init, stream=None)\n--\n\nReduce a 1-D device array with a "
   "@cuda.reduce kernel (on stream: waited for); "
   "init is None or one element's bytes. Returns the result's bytes."},
  {"launch", (PyCFunction)(void (*)(void))kernel_launch, METH_VARARGS | METH_KEYWORDS,
   "launch(griddim, blockdim, args, sharedmem=0, stream=None)\n--\n\n"
   "Launch the kernel (on the CPU back end it has run when this returns), on stream "
   "(a Stream; None or 0: the default stream). args: DeviceArrays, numbers, tuples of "
   "numbers."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef kernel_getset[] = {
  {"signature", (getter)kernel_get_signature, NULL,
   "the signature(s), one a line; 'name(untyped)' before an untyped kernel's first "
   "launch", NULL},
  {"param_count", (getter)kernel_get_param_count, NULL,
   "the number of parameters, -1 for an untyped kernel", NULL},
  {"name", (getter)kernel_get_name, NULL, "the kernel's name", NULL},
  {"cooperative", (getter)kernel_get_cooperative, NULL,
   "whether it synchronises its grid (for an untyped kernel: a specialisation so far)",
   NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kernel_slots[] = {
  {Py_tp_doc, "A kernel of a compiled Module."},
  {Py_tp_traverse, kernel_traverse},
  {Py_tp_dealloc, kernel_dealloc},
  {Py_tp_methods, kernel_methods},
  {Py_tp_getset, kernel_getset},
  {0, NULL},
};

static PyType_Spec kernel_spec = {
  .name = "kcc._kcc.Kernel",
  .basicsize = sizeof(KernelObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE |
           Py_TPFLAGS_DISALLOW_INSTANTIATION,
  .slots = kernel_slots,
};

/* ---- module functions --------------------------------------------------------------- */
/* The signatures as C strings, borrowed from the tuple's str objects. */
static const char **signature_strings(PyObject *sigs, Py_ssize_t *n) {
  *n = PyTuple_GET_SIZE(sigs);
  const char **out = PyMem_New(const char *, *n ? *n : 1);
  if (out == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < *n; i++) {
    out[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(sigs, i));
    if (out[i] == NULL) {
      PyMem_Free(out);
      return NULL;
    }
  }
  return out;
}

static PyObject *kcc_compile(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"name", "source", "signatures", NULL};
  const char *name, *source;
  Py_ssize_t len;
  PyObject *sigs = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss#|O!:compile", kwlist, &name, &source,
                                   &len, &PyTuple_Type, &sigs))
    return NULL;
  kcc_state *st = state_of_module(module);
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  kc_compile_options opts;
  kc_compile_options_init(&opts);
  Py_ssize_t nsigs = 0;
  const char **sig_strs = NULL;
  if (sigs && PyTuple_GET_SIZE(sigs) > 0) {
    if ((sig_strs = signature_strings(sigs, &nsigs)) == NULL) return NULL;
    if (nsigs > INT_MAX) nsigs = INT_MAX;
    opts.signatures = sig_strs;
    opts.nsignatures = (int)nsigs;
  }
  kc_module *m = NULL;
  kc_status s = kc_compile_source(context->ctx, name, source, (size_t)len, &opts, &m);
  PyMem_Free(sig_strs);
  if (issue_warnings(st) < 0) {
    kc_module_free(m);
    return NULL;
  }
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  ModuleObject *self = PyObject_GC_New(ModuleObject, st->module_type);
  if (self == NULL) {
    kc_module_free(m);
    return NULL;
  }
  self->context = Py_NewRef((PyObject *)context);
  self->module = m;
  PyObject_GC_Track(self);
  return (PyObject *)self;
}

/* compile_text(name, source, kind, arch=0): kc_compile_text, text without loading:
 * kind 'ptx', 'llvm' or 'types'. */
static PyObject *kcc_compile_text(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"name", "source", "kind", "arch", NULL};
  static const struct { const char *name; kc_text_kind kind; } kinds[] = {
    {"ptx", KC_TEXT_PTX}, {"llvm", KC_TEXT_LLVM}, {"types", KC_TEXT_TYPES},
    {"device_ptx", KC_TEXT_DEVICE_PTX}};
  const char *name, *source, *kind_name;
  Py_ssize_t len;
  int arch = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss#s|i:compile_text", kwlist, &name,
                                   &source, &len, &kind_name, &arch))
    return NULL;
  size_t k = 0;
  while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, kind_name) != 0) k++;
  if (k == sizeof kinds / sizeof kinds[0])
    return PyErr_Format(PyExc_ValueError, "compile_text: kind '%s' is not 'ptx', 'llvm', "
                        "'types' or 'device_ptx'", kind_name);
  kcc_state *st = state_of_module(module);
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  char *out = NULL;
  size_t n = 0;
  kc_status s = kc_compile_text(context->ctx, name, source, (size_t)len, NULL, kinds[k].kind,
                                arch, &out, &n);
  if (issue_warnings(st) < 0) {
    kc_text_free(context->ctx, out);
    return NULL;
  }
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  PyObject *text = PyUnicode_DecodeUTF8(out, (Py_ssize_t)n, "replace");
  kc_text_free(context->ctx, out);
  return text;
}

static PyObject *kcc_synchronize(PyObject *module, PyObject *unused) {
  kcc_state *st = state_of_module(module);
  if (st->context == NULL) Py_RETURN_NONE;   /* no work was ever queued */
  kc_context *ctx = ((ContextObject *)st->context)->ctx;
  kc_status s = kc_synchronize(ctx);
  if (s != KC_OK) return raise_status(st, ctx, s);
  Py_RETURN_NONE;
}

static PyObject *kcc_detect(PyObject *module, PyObject *unused) {
  size_t needed = 0;
  kc_detect(NULL, 0, &needed);
  char *buf = PyMem_Malloc(needed + 1);
  if (buf == NULL) return PyErr_NoMemory();
  kc_detect(buf, needed + 1, NULL);
  PyObject *text = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace");
  PyMem_Free(buf);
  return text;
}

static PyObject *kcc_device(PyObject *module, PyObject *unused) {
  ContextObject *context = get_context(state_of_module(module));
  if (context == NULL) return NULL;
  return PyUnicode_FromString(kc_context_device(context->ctx) == KC_DEVICE_CUDA ? "cuda"
                                                                                : "cpu");
}

/* set_array_class(cls): arrays made by the extension (ufunc outputs) are of cls, a
 * Python subclass of DeviceArray (kcc.cuda's DeviceNDArray), so that Python sees one
 * array type. Made with tp_alloc, as a subclass's instance is; its __init__ is not run. */
static PyObject *kcc_set_array_class(PyObject *module, PyObject *cls) {
  kcc_state *st = state_of_module(module);
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, st->array_type)) {
    PyErr_SetString(PyExc_TypeError, "set_array_class: a subclass of DeviceArray is "
                    "wanted");
    return NULL;
  }
  Py_XSETREF(st->array_class, Py_NewRef(cls));
  Py_RETURN_NONE;
}

/* The facts of a kc_device_info as a dict, with the device's kind and ordinal. */
static PyObject *device_info_dict(const kc_device_info *info, const char *kind, int id) {
  return Py_BuildValue("{s:s,s:s,s:i,s:(ii),s:K,s:i,s:i,s:K,s:O}", "name", info->name,
                       "kind", kind, "id", id, "compute_capability", info->cc_major,
                       info->cc_minor, "total_memory",
                       (unsigned long long)info->total_memory, "multiprocessors",
                       info->multiprocessors, "max_threads_per_block",
                       info->max_threads_per_block, "max_shared_per_block",
                       (unsigned long long)info->max_shared_per_block, "supported",
                       info->supported ? Py_True : Py_False);
}

/* device_info(): the context's device (made now if need be). */
static PyObject *kcc_device_info(PyObject *module, PyObject *unused) {
  kcc_state *st = state_of_module(module);
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  kc_device_info info;
  kc_status s = kc_context_device_info(context->ctx, &info);
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  int cuda = kc_context_device(context->ctx) == KC_DEVICE_CUDA;
  return device_info_dict(&info, cuda ? "cuda" : "cpu", cuda ? st->cuda_device : 0);
}

/* cuda_devices(): a dict per CUDA device the driver lists (none without a driver). */
static PyObject *kcc_cuda_devices(PyObject *module, PyObject *unused) {
  int count = 0;
  if (kc_cuda_device_count(&count) != KC_OK) count = 0;
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < count; i++) {
    kc_device_info info;
    if (kc_cuda_device_info(i, &info) != KC_OK) continue;
    PyObject *d = device_info_dict(&info, "cuda", i);
    if (d == NULL || PyList_Append(list, d) < 0) Py_CLEAR(list);
    Py_XDECREF(d);
  }
  return list;
}

/* select_device(n): the CUDA device the context is made on. The context is made once
 * and lives as long as arrays and modules need it, so after it exists only the same
 * ordinal is taken. */
static PyObject *kcc_select_device(PyObject *module, PyObject *arg) {
  kcc_state *st = state_of_module(module);
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (n < 0 || n > INT_MAX)
    return PyErr_Format(PyExc_ValueError, "select_device: no device %ld", n);
  if (st->context && n != st->cuda_device &&
      kc_context_device(((ContextObject *)st->context)->ctx) == KC_DEVICE_CUDA)
    return PyErr_Format(PyExc_RuntimeError,
                        "select_device(%d): kcc already works on device %d in this "
                        "process; select the device before the first array or kernel",
                        (int)n, st->cuda_device);
  st->cuda_device = (int)n;
  Py_RETURN_NONE;
}

/* random_states(n, seed): kc_random_states, numba.cuda.random's generator states. */
static PyObject *kcc_random_states(PyObject *module, PyObject *args) {
  long long n;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "LK:random_states", &n, &seed)) return NULL;
  kcc_state *st = state_of_module(module);
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  kc_array *a = NULL;
  kc_status s = kc_random_states(context->ctx, (int64_t)n, (uint64_t)seed, &a);
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  return wrap_array(st, (PyObject *)context, a);
}

static PyMethodDef kcc_functions[] = {
  {"device_info", kcc_device_info, METH_NOARGS,
   "device_info()\n--\n\nThe device kernels run on, as a dict (name, kind, id, "
   "compute_capability, total_memory, multiprocessors, ...)."},
  {"cuda_devices", kcc_cuda_devices, METH_NOARGS,
   "cuda_devices()\n--\n\nA dict for each CUDA device the driver lists."},
  {"select_device", kcc_select_device, METH_O,
   "select_device(n)\n--\n\nThe CUDA device kcc's context is made on (before it "
   "exists)."},
  {"random_states", kcc_random_states, METH_VARARGS,
   "random_states(n, seed)\n--\n\nn xoroshiro128+ states seeded as Numba's "
   "create_xoroshiro128p_states(n, seed): a uint64 device array of shape (n, 2)."},
  {"set_array_class", kcc_set_array_class, METH_O,
   "set_array_class(cls)\n--\n\nThe DeviceArray subclass of the arrays the extension "
   "makes (kcc.cuda's DeviceNDArray)."},
  {"compile", (PyCFunction)(void (*)(void))kcc_compile, METH_VARARGS | METH_KEYWORDS,
   "compile(name, source, signatures=())\n--\n\n"
   "Compile kcc source (a whole Python file: its kernels, the host code around them "
   "ignored) for the device. name is the file name diagnostics give; signatures, "
   "'kernel(float32[:], int32)', type kernels the source leaves untyped."},
  {"compile_text", (PyCFunction)(void (*)(void))kcc_compile_text, METH_VARARGS | METH_KEYWORDS,
   "compile_text(name, source, kind, arch=0)\n--\n\nCompile kcc source without loading "
   "it; returns the text of kind 'ptx' (for sm_<arch>; 0: the GPU's, else sm_80), 'llvm' "
   "(the device's optimised IR), 'types' (each function's locals and their types) or "
   "'device_ptx' (device functions with signatures as visible functions)."},
  {"synchronize", kcc_synchronize, METH_NOARGS,
   "synchronize()\n--\n\nWait for the device's work; raise a fault it reported."},
  {"detect", kcc_detect, METH_NOARGS,
   "detect()\n--\n\nWhat `kcc devices` prints: the CUDA driver, the devices, the CPU."},
  {"device", kcc_device, METH_NOARGS,
   "device()\n--\n\n'cuda' or 'cpu': the device kernels run on (KC_DEVICE decides)."},
  {NULL, NULL, 0, NULL},
};

/* ---- module init (PEP 489) ------------------------------------------------------------ */
int add_type(PyObject *module, PyType_Spec *spec, PyTypeObject **out, int public) {
  *out = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, NULL);
  if (*out == NULL) return -1;
  return public ? PyModule_AddType(module, *out) : 0;
}

static int kcc_exec(PyObject *module) {
  kcc_state *st = state_of_module(module);
  st->error = PyErr_NewExceptionWithDoc(
      "kcc.KccError",
      "An error of kcc: a compile error (its message: file:line:col, the source line, a "
      "caret), a bad launch, a fault in a kernel. .status names kcc's status code.",
      NULL, NULL);
  if (st->error == NULL || PyModule_AddObjectRef(module, "KccError", st->error) < 0)
    return -1;
  st->warning = PyErr_NewExceptionWithDoc(
      "kcc.KccWarning",
      "A warning of kcc's compiler (its text: file:line:col, the source line, a caret).",
      PyExc_UserWarning, NULL);
  st->warnings = PyList_New(0);
  if (st->warning == NULL || st->warnings == NULL ||
      PyModule_AddObjectRef(module, "KccWarning", st->warning) < 0)
    return -1;
  if (add_type(module, &context_spec, &st->context_type, 0) < 0 ||
      add_type(module, &module_spec, &st->module_type, 1) < 0 ||
      add_type(module, &kernel_spec, &st->kernel_type, 1) < 0 ||
      add_type(module, &array_spec, &st->array_type, 1) < 0 ||
      kcc_streams_exec(module, st) < 0 || kcc_views_exec(module) < 0 ||
      kcc_records_exec(module, st) < 0)
    return -1;
  /* the CUDA toolkit built against (cuda.h's CUDA_VERSION, 13000 for 13.0), 0 if none */
  if (PyModule_AddIntConstant(module, "cuda_version", KCC_CUDA_VERSION) < 0) return -1;
  return PyModule_AddStringConstant(module, "version", KC_VERSION_STRING);
}

static int kcc_traverse(PyObject *module, visitproc visit, void *arg) {
  kcc_state *st = state_of_module(module);
  Py_VISIT(st->error);
  Py_VISIT(st->warning);
  Py_VISIT(st->warnings);
  Py_VISIT(st->context_type);
  Py_VISIT(st->module_type);
  Py_VISIT(st->kernel_type);
  Py_VISIT(st->array_type);
  Py_VISIT(st->stream_type);
  Py_VISIT(st->event_type);
  Py_VISIT(st->array_class);
  Py_VISIT(st->record_type);
  Py_VISIT(st->record_arg_type);
  Py_VISIT(st->context);
  return 0;
}

static int kcc_clear(PyObject *module) {
  kcc_state *st = state_of_module(module);
  Py_CLEAR(st->error);
  Py_CLEAR(st->warning);
  Py_CLEAR(st->warnings);
  Py_CLEAR(st->context_type);
  Py_CLEAR(st->module_type);
  Py_CLEAR(st->kernel_type);
  Py_CLEAR(st->array_type);
  Py_CLEAR(st->stream_type);
  Py_CLEAR(st->event_type);
  Py_CLEAR(st->array_class);
  Py_CLEAR(st->record_type);
  Py_CLEAR(st->record_arg_type);
  Py_CLEAR(st->context);
  return 0;
}

static void kcc_free(void *module) { kcc_clear((PyObject *)module); }

static PyModuleDef_Slot kcc_slots[] = {
  {Py_mod_exec, kcc_exec},
  {0, NULL},
};

static struct PyModuleDef kcc_module_def = {
  PyModuleDef_HEAD_INIT,
  .m_name = "kcc._kcc",
  .m_doc = "kcc's runtime (libkc) for Python: contexts, arrays, compiling, launching.",
  .m_size = sizeof(kcc_state),
  .m_methods = kcc_functions,
  .m_slots = kcc_slots,
  .m_traverse = kcc_traverse,
  .m_clear = kcc_clear,
  .m_free = kcc_free,
};

PyMODINIT_FUNC PyInit__kcc(void);   /* found by the import system, by name */

PyMODINIT_FUNC PyInit__kcc(void) { return PyModuleDef_Init(&kcc_module_def); }
