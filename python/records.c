/*
 * records.c — NumPy structured dtypes for kcc._kcc: Record (a kc_record), arrays of
 * records, and RecordArg (one record passed to a kernel by value).
 *
 *   Record(fields, size, aligned)         kc_record_new; fields are (name, dtype name or
 *                                         Record, offset, shape) tuples, as kcc.cuda reads
 *                                         them from a NumPy dtype
 *   Record.spelling                       Numba's spelling (kc_record_spelling)
 *   record_array(record, shape, host)     kc_array_new_records / _from_host_records: host
 *                                         None, or a C-contiguous buffer of the records'
 *                                         bytes
 *   array_record(array)                   an array's record spelling ("" for numbers)
 *   RecordArg(record, data)               a record argument: data, the bytes of one record
 *
 * A Record holds the Context (kc_record_new reports through it); a RecordArg holds its
 * Record and its bytes, which the launch reads (kc_arg_record) before it returns.
 */
#include "_kcc.h"

#include <string.h>

/* ---- Record --------------------------------------------------------------------------- */
static int record_traverse(RecordObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->context);
  return 0;
}

static void record_dealloc(RecordObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kc_record_free(self->record);
  Py_CLEAR(self->context);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

/* One field from (name, dtype name or Record, offset, shape); names stay borrowed from
 * the tuple, which the caller keeps alive while the fields are used. */
static int read_field(kcc_state *st, PyObject *item, kc_record_field *f) {
  PyObject *type, *shape;
  const char *name;
  Py_ssize_t offset;
  memset(f, 0, sizeof *f);
  if (!PyArg_ParseTuple(item, "sOnO:Record field (name, type, offset, shape)", &name, &type,
                        &offset, &shape))
    return -1;
  f->name = name;
  f->offset = offset >= 0 ? (size_t)offset : 0;
  if (PyObject_TypeCheck(type, st->record_type)) {
    f->dtype = KC_RECORD;
    f->record = ((RecordObject *)type)->record;
  } else {
    int d = PyUnicode_Check(type) ? dtype_from_name(PyUnicode_AsUTF8(type)) : -1;
    if (d < 0) {
      PyErr_Format(PyExc_TypeError, "record field '%s': kcc has no fields of type %R",
                   name, type);
      return -1;
    }
    f->dtype = (kc_dtype)d;
  }
  PyObject *dims = PySequence_Fast(shape, "a record field's shape must be a tuple");
  if (dims == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(dims);
  if (n > 3) {
    Py_DECREF(dims);
    PyErr_Format(PyExc_ValueError, "record field '%s': %zd dimensions (kcc takes 0 to 3)",
                 name, n);
    return -1;
  }
  f->ndim = (int)n;
  for (Py_ssize_t i = 0; i < n; i++) f->shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(dims, i));
  Py_DECREF(dims);
  return PyErr_Occurred() ? -1 : 0;
}

static PyObject *record_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"fields", "size", "aligned", NULL};
  PyObject *fields_obj;
  Py_ssize_t size;
  int aligned = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "On|p:Record", kwlist, &fields_obj, &size,
                                   &aligned))
    return NULL;
  kcc_state *st = state_of_type(type);
  ContextObject *context = st ? get_context(st) : NULL;
  if (context == NULL) return NULL;
  PyObject *seq = PySequence_Fast(fields_obj, "Record: fields must be a sequence");
  if (seq == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  kc_record_field *fields = PyMem_New(kc_record_field, n ? n : 1);
  PyObject *result = NULL;
  kc_record *rec = NULL;
  if (fields == NULL) {
    PyErr_NoMemory();
  } else if (n > INT_MAX || size < 0) {
    PyErr_SetString(PyExc_ValueError, "Record: bad field count or size");
  } else {
    int ok = 1;
    for (Py_ssize_t i = 0; ok && i < n; i++)
      ok = read_field(st, PySequence_Fast_GET_ITEM(seq, i), &fields[i]) == 0;
    kc_status s = ok ? kc_record_new(context->ctx, fields, (int)n, (size_t)size, aligned, &rec)
                     : KC_ERR_INVALID;
    if (ok && s != KC_OK) raise_status(st, context->ctx, s);
    if (ok && s == KC_OK) {
      RecordObject *self = (RecordObject *)type->tp_alloc(type, 0);
      if (self == NULL) {
        kc_record_free(rec);
      } else {
        self->record = rec;
        self->context = Py_NewRef((PyObject *)context);
        result = (PyObject *)self;
      }
    }
  }
  PyMem_Free(fields);
  Py_DECREF(seq);
  return result;
}

static PyObject *record_get_spelling(RecordObject *self, void *closure) {
  return PyUnicode_FromString(kc_record_spelling(self->record));
}

static PyObject *record_get_size(RecordObject *self, void *closure) {
  return PyLong_FromSize_t(kc_record_size(self->record));
}

static PyGetSetDef record_getset[] = {
  {"spelling", (getter)record_get_spelling, NULL, "Numba's spelling of the record", NULL},
  {"size", (getter)record_get_size, NULL, "the record's size in bytes", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot record_slots[] = {
  {Py_tp_doc, "Record(fields, size, aligned=False)\n--\n\nA record type (a NumPy "
              "structured dtype) for kernels: fields are (name, type, offset, shape)."},
  {Py_tp_new, record_new},
  {Py_tp_traverse, record_traverse},
  {Py_tp_dealloc, record_dealloc},
  {Py_tp_getset, record_getset},
  {0, NULL},
};

static PyType_Spec record_spec = {
  .name = "kcc._kcc.Record",
  .basicsize = sizeof(RecordObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
  .slots = record_slots,
};

/* ---- RecordArg: one record by value ---------------------------------------------------- */
static int record_arg_traverse(RecordArgObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->record);
  Py_VISIT(self->data);
  return 0;
}

static void record_arg_dealloc(RecordArgObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->record);
  Py_CLEAR(self->data);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static PyObject *record_arg_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  kcc_state *st = state_of_type(type);
  PyObject *record, *data;
  if (st == NULL || !PyArg_ParseTuple(args, "O!O!:RecordArg", st->record_type, &record,
                                      &PyBytes_Type, &data))
    return NULL;
  size_t want = kc_record_size(((RecordObject *)record)->record);
  if ((size_t)PyBytes_GET_SIZE(data) != want)
    return PyErr_Format(PyExc_ValueError, "RecordArg: %zd bytes for a record of %zu",
                        PyBytes_GET_SIZE(data), want);
  RecordArgObject *self = (RecordArgObject *)type->tp_alloc(type, 0);
  if (self == NULL) return NULL;
  self->record = Py_NewRef(record);
  self->data = Py_NewRef(data);
  return (PyObject *)self;
}

static PyType_Slot record_arg_slots[] = {
  {Py_tp_doc, "RecordArg(record, data)\n--\n\nOne record passed to a kernel by value: "
              "data holds its bytes."},
  {Py_tp_new, record_arg_new},
  {Py_tp_traverse, record_arg_traverse},
  {Py_tp_dealloc, record_arg_dealloc},
  {0, NULL},
};

static PyType_Spec record_arg_spec = {
  .name = "kcc._kcc.RecordArg",
  .basicsize = sizeof(RecordArgObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_IMMUTABLETYPE,
  .slots = record_arg_slots,
};

int record_arg_of(kcc_state *st, PyObject *obj, kc_arg *out) {
  if (!PyObject_TypeCheck(obj, st->record_arg_type)) return 0;
  RecordArgObject *r = (RecordArgObject *)obj;
  *out = kc_arg_record(((RecordObject *)r->record)->record, PyBytes_AS_STRING(r->data));
  return 1;
}

/* ---- arrays of records ------------------------------------------------------------------ */
/* record_array(cls, record, shape, host): a new array of records, uninitialised or a
 * copy of host's bytes; of class cls (kcc.cuda's DeviceNDArray). */
static PyObject *record_array(PyObject *module, PyObject *args) {
  kcc_state *st = state_of_module(module);
  PyTypeObject *cls;
  PyObject *record, *shape, *host;
  if (!PyArg_ParseTuple(args, "O!O!OO:record_array", &PyType_Type, &cls, st->record_type,
                        &record, &shape, &host))
    return NULL;
  if (!PyType_IsSubtype(cls, st->array_type))
    return PyErr_Format(PyExc_TypeError, "record_array: %.100s is not a device array type",
                        cls->tp_name);
  PyObject *dims = PySequence_Fast(shape, "record_array: shape must be a tuple");
  if (dims == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(dims);
  int64_t ext[KC_MAX_DIMS];
  for (Py_ssize_t i = 0; i < n && i < KC_MAX_DIMS; i++)
    ext[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(dims, i));
  Py_DECREF(dims);
  if (PyErr_Occurred()) return NULL;
  if (n < 1 || n > KC_MAX_DIMS)
    return PyErr_Format(PyExc_ValueError, "kcc arrays have 1 to %d dimensions, not %zd",
                        KC_MAX_DIMS, n);
  ContextObject *context = get_context(st);
  if (context == NULL) return NULL;
  const kc_record *rec = ((RecordObject *)record)->record;
  kc_array *a = NULL;
  kc_status s;
  if (host == Py_None) {
    s = kc_array_new_records(context->ctx, rec, (int)n, ext, &a);
  } else {
    Py_buffer view;
    if (PyObject_GetBuffer(host, &view, PyBUF_SIMPLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    s = kc_array_from_host_records(context->ctx, rec, (int)n, ext, view.buf,
                                   (size_t)view.len, &a);
    PyBuffer_Release(&view);
  }
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  return new_array_object(cls, (PyObject *)context, a, NULL);
}

static PyObject *array_record(PyObject *module, PyObject *obj) {
  kcc_state *st = state_of_module(module);
  if (!PyObject_TypeCheck(obj, st->array_type))
    return PyErr_Format(PyExc_TypeError, "array_record: expected a device array, not %.100s",
                        Py_TYPE(obj)->tp_name);
  return PyUnicode_FromString(kc_array_record(((ArrayObject *)obj)->array));
}

static PyMethodDef record_functions[] = {
  {"record_array", record_array, METH_VARARGS,
   "record_array(cls, record, shape, host)\n--\n\nA new array of records: uninitialised "
   "(host None) or a copy of host's bytes."},
  {"array_record", array_record, METH_O,
   "array_record(array)\n--\n\nNumba's spelling of an array's record, or ''."},
  {NULL, NULL, 0, NULL},
};

int kcc_records_exec(PyObject *module, kcc_state *st) {
  if (add_type(module, &record_spec, &st->record_type, 1) < 0 ||
      add_type(module, &record_arg_spec, &st->record_arg_type, 1) < 0)
    return -1;
  return PyModule_AddFunctions(module, record_functions);
}
