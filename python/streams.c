/*
 * streams.c — kcc._kcc.Stream and kcc._kcc.Event, over kc.h's streams and events
 * (Numba's cuda.stream(), cuda.default_stream(), cuda.event()):
 *   Stream()                     a new stream (kc_stream_new)
 *   Stream(default=True)         the default stream (kc.h's NULL stream)
 *   Stream(external=handle)      a stream over a CUstream of the caller's (CUDA only)
 *   Stream.synchronize(), .copy_to_device(array, obj), .copy_to_host(array, buf)
 *   Event(timing=True), .record(stream), .synchronize(), .wait(stream), .query(),
 *   .elapsed_time(end)
 *
 * Copies queued on a stream are asynchronous on CUDA: the host buffer is read or
 * written after the call has returned. The Stream therefore keeps each one (as a
 * memoryview, which also holds the buffer's export, so a NumPy array cannot be resized
 * meanwhile) in its pending list, with the device array, until its synchronize() or
 * its deallocation (which waits for the stream first). On the CPU back end the copies
 * have finished on return; the list is kept all the same, for one behaviour.
 *
 * An event never recorded behaves as CUDA's: query() is True, synchronize() and wait()
 * return at once (kc.h refuses such an event; Numba's code relies on CUDA's rule).
 */
#include "_kcc.h"

#include <string.h>

static kc_context *context_ctx(PyObject *context) {
  return ((ContextObject *)context)->ctx;
}

int stream_of(kcc_state *st, PyObject *obj, kc_stream **out) {
  *out = NULL;
  if (obj == Py_None) return 0;
  if (PyObject_TypeCheck(obj, st->stream_type)) {
    *out = ((StreamObject *)obj)->stream;
    return 0;
  }
  if (PyLong_Check(obj)) {
    int overflow;
    if (PyLong_AsLongLongAndOverflow(obj, &overflow) == 0 && !overflow) return 0;
    PyErr_Clear();
  }
  PyErr_Format(PyExc_TypeError, "stream must be a Stream (cuda.stream(), "
               "cuda.default_stream()) or 0 for the default stream, not %.100s %R",
               Py_TYPE(obj)->tp_name, obj);
  return -1;
}

/* ---- Stream ------------------------------------------------------------------------ */
static int stream_traverse(StreamObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->context);
  Py_VISIT(self->pending);
  return 0;
}

/* Wait for the stream's work (the default stream: the whole context's, as CUDA's legacy
 * default stream waits for every stream). */
static kc_status stream_wait(StreamObject *self) {
  return self->stream ? kc_stream_synchronize(self->stream)
                      : kc_synchronize(context_ctx(self->context));
}

static void stream_dealloc(StreamObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  /* queued copies still use the buffers about to be released */
  if (self->pending && PyList_GET_SIZE(self->pending) > 0) (void)stream_wait(self);
  Py_CLEAR(self->pending);
  kc_stream_free(self->stream);
  Py_CLEAR(self->context);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static kc_status make_stream(kc_context *ctx, int is_default, PyObject *external,
                             kc_stream **out) {
  *out = NULL;
  if (external != Py_None) {
    void *handle = PyLong_AsVoidPtr(external);
    if (handle == NULL && PyErr_Occurred()) return KC_ERR_INVALID;
    return kc_stream_from_cuda(ctx, handle, out);
  }
  return is_default ? KC_OK : kc_stream_new(ctx, out);
}

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"default", "external", NULL};
  int is_default = 0;
  PyObject *external = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$pO:Stream", kwlist, &is_default,
                                   &external))
    return NULL;
  if (is_default && external != Py_None) {
    PyErr_SetString(PyExc_TypeError, "Stream: default=True and external= exclude each other");
    return NULL;
  }
  kcc_state *st = state_of_type(type);
  ContextObject *context = st ? get_context(st) : NULL;
  if (context == NULL) return NULL;
  kc_stream *s = NULL;
  kc_status status = make_stream(context->ctx, is_default, external, &s);
  if (PyErr_Occurred()) return NULL;
  if (status != KC_OK) return raise_status(st, context->ctx, status);
  StreamObject *self = (StreamObject *)type->tp_alloc(type, 0);
  PyObject *pending = PyList_New(0);
  if (self == NULL || pending == NULL) {
    Py_XDECREF(pending);
    Py_XDECREF(self);
    kc_stream_free(s);
    return NULL;
  }
  self->context = Py_NewRef((PyObject *)context);
  self->stream = s;
  self->pending = pending;
  return (PyObject *)self;
}

static PyObject *stream_raise(StreamObject *self, kc_status s) {
  kcc_state *st = state_of_type(Py_TYPE(self));
  return st ? raise_status(st, context_ctx(self->context), s) : NULL;
}

static PyObject *stream_synchronize(StreamObject *self, PyObject *unused) {
  kc_status s = stream_wait(self);
  /* the queued copies are done (or failed): their buffers are free again */
  if (PyList_SetSlice(self->pending, 0, PyList_GET_SIZE(self->pending), NULL) < 0)
    return NULL;
  if (s != KC_OK) return stream_raise(self, s);
  Py_RETURN_NONE;
}

/* A device array argument of a copy, or NULL with TypeError. */
static ArrayObject *array_arg(StreamObject *self, PyObject *obj, const char *what) {
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  if (!PyObject_TypeCheck(obj, st->array_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a device array, not %.100s", what,
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return (ArrayObject *)obj;
}

/* A memoryview of obj's buffer, checked to be C-contiguous (writable when asked) and of
 * a's dtype and size; NULL with the error raised. */
static PyObject *host_view(PyObject *obj, kc_array *a, int writable, const char *what) {
  PyObject *mv = PyMemoryView_FromObject(obj);
  if (mv == NULL) return NULL;
  Py_buffer *v = PyMemoryView_GET_BUFFER(mv);
  int dtype = dtype_from_format(v->format, v->itemsize);
  if (writable && v->readonly) {
    PyErr_Format(PyExc_ValueError, "%s: the host array is read-only", what);
  } else if (!PyBuffer_IsContiguous(v, 'C')) {
    PyErr_Format(PyExc_ValueError, "%s: the host array is not C-contiguous", what);
  } else if (dtype != (int)kc_array_dtype(a) || (size_t)v->len != kc_array_bytes(a)) {
    PyErr_Format(PyExc_ValueError, "%s: the device array holds %zu bytes of %s, the host "
                 "array %zd bytes of %s", what, kc_array_bytes(a),
                 kc_dtype_name(kc_array_dtype(a)), v->len,
                 dtype < 0 ? (v->format ? v->format : "B") : kc_dtype_name((kc_dtype)dtype));
  } else {
    return mv;
  }
  Py_DECREF(mv);
  return NULL;
}

/* Keep a and b (either may be NULL) until the stream's synchronize. */
static int keep_pending(StreamObject *self, PyObject *a, PyObject *b) {
  if (a && PyList_Append(self->pending, a) < 0) return -1;
  if (b && PyList_Append(self->pending, b) < 0) return -1;
  return 0;
}

/* copy_to_device(array, obj): obj (a host buffer or a device array) into array, queued
 * on the stream. */
static PyObject *stream_copy_to_device(StreamObject *self, PyObject *args) {
  PyObject *dst_obj, *src;
  if (!PyArg_ParseTuple(args, "OO:copy_to_device", &dst_obj, &src)) return NULL;
  ArrayObject *dst = array_arg(self, dst_obj, "copy_to_device");
  if (dst == NULL) return NULL;
  kcc_state *st = state_of_type(Py_TYPE(self));
  kc_status s;
  PyObject *keep;
  if (PyObject_TypeCheck(src, st->array_type)) {
    s = kc_array_copy_async(dst->array, ((ArrayObject *)src)->array, self->stream);
    keep = Py_NewRef(src);
  } else {
    if ((keep = host_view(src, dst->array, 0, "copy_to_device")) == NULL) return NULL;
    Py_buffer *v = PyMemoryView_GET_BUFFER(keep);
    s = kc_array_copy_from_host_async(dst->array, v->buf, (size_t)v->len, self->stream);
  }
  int kept = s == KC_OK ? keep_pending(self, keep, dst_obj) : 0;
  Py_DECREF(keep);
  if (s != KC_OK) return stream_raise(self, s);
  if (kept < 0) return NULL;
  Py_RETURN_NONE;
}

/* copy_to_host(array, buf): array into buf, a writable C-contiguous buffer of its dtype
 * and size, queued on the stream: buf holds the data after synchronize(). */
static PyObject *stream_copy_to_host(StreamObject *self, PyObject *args) {
  PyObject *src_obj, *buf;
  if (!PyArg_ParseTuple(args, "OO:copy_to_host", &src_obj, &buf)) return NULL;
  ArrayObject *src = array_arg(self, src_obj, "copy_to_host");
  if (src == NULL) return NULL;
  PyObject *mv = host_view(buf, src->array, 1, "copy_to_host");
  if (mv == NULL) return NULL;
  Py_buffer *v = PyMemoryView_GET_BUFFER(mv);
  kc_status s = kc_array_to_host_async(src->array, v->buf, (size_t)v->len, self->stream);
  int kept = s == KC_OK ? keep_pending(self, mv, src_obj) : 0;
  Py_DECREF(mv);
  if (s != KC_OK) return stream_raise(self, s);
  if (kept < 0) return NULL;
  Py_RETURN_NONE;
}

/* The CUstream as an int: 0 for the default stream and on the CPU back end. */
static PyObject *stream_get_handle(StreamObject *self, void *closure) {
  void *cu = NULL;
  if (self->stream && kc_context_device(context_ctx(self->context)) == KC_DEVICE_CUDA) {
    kc_status s = kc_stream_cuda_stream(self->stream, &cu);
    if (s != KC_OK) return stream_raise(self, s);
  }
  return PyLong_FromVoidPtr(cu);
}

static PyObject *stream_get_is_default(StreamObject *self, void *closure) {
  return PyBool_FromLong(self->stream == NULL);
}

static PyObject *stream_get_pending(StreamObject *self, void *closure) {
  return PyLong_FromSsize_t(PyList_GET_SIZE(self->pending));
}

static PyMethodDef stream_methods[] = {
  {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS,
   "synchronize()\n--\n\nWait for the work queued on the stream (the default stream: all "
   "work), then release the host buffers of its copies."},
  {"copy_to_device", (PyCFunction)stream_copy_to_device, METH_VARARGS,
   "copy_to_device(array, obj)\n--\n\nQueue a copy of obj (a C-contiguous host buffer, or "
   "a device array, of array's dtype and size) into array."},
  {"copy_to_host", (PyCFunction)stream_copy_to_host, METH_VARARGS,
   "copy_to_host(array, buf)\n--\n\nQueue a copy of array into buf (a writable "
   "C-contiguous buffer of its dtype and size), valid after synchronize()."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef stream_getset[] = {
  {"handle", (getter)stream_get_handle, NULL,
   "the CUstream as an int (0: the default stream, or the CPU back end)", NULL},
  {"is_default", (getter)stream_get_is_default, NULL, "whether it is the default stream",
   NULL},
  {"pending", (getter)stream_get_pending, NULL,
   "how many objects queued copies keep alive until synchronize()", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot stream_slots[] = {
  {Py_tp_doc, "Stream(*, default=False, external=None)\n--\n\n"
              "A stream of kcc's device: launches and copies queued on it run in order."},
  {Py_tp_new, stream_new},
  {Py_tp_traverse, stream_traverse},
  {Py_tp_dealloc, stream_dealloc},
  {Py_tp_methods, stream_methods},
  {Py_tp_getset, stream_getset},
  {0, NULL},
};

static PyType_Spec stream_spec = {
  .name = "kcc._kcc.Stream",
  .basicsize = sizeof(StreamObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE |
           Py_TPFLAGS_IMMUTABLETYPE,
  .slots = stream_slots,
};

/* ---- Event ------------------------------------------------------------------------- */
typedef struct {
  PyObject_HEAD
  PyObject *context;
  kc_event *event;
  int timing;     /* made with timing=True: elapsed_time may read it */
  int recorded;   /* recorded at least once (see the comment at the top) */
} EventObject;

static int event_traverse(EventObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(self->context);
  return 0;
}

static void event_dealloc(EventObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  kc_event_free(self->event);
  Py_CLEAR(self->context);
  tp->tp_free((PyObject *)self);
  Py_DECREF(tp);
}

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"timing", NULL};
  int timing = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p:Event", kwlist, &timing)) return NULL;
  kcc_state *st = state_of_type(type);
  ContextObject *context = st ? get_context(st) : NULL;
  if (context == NULL) return NULL;
  kc_event *e = NULL;
  kc_status s = kc_event_new(context->ctx, &e);
  if (s != KC_OK) return raise_status(st, context->ctx, s);
  EventObject *self = (EventObject *)type->tp_alloc(type, 0);
  if (self == NULL) {
    kc_event_free(e);
    return NULL;
  }
  self->context = Py_NewRef((PyObject *)context);
  self->event = e;
  self->timing = timing;
  return (PyObject *)self;
}

static PyObject *event_result(EventObject *self, kc_status s) {
  if (s == KC_OK) Py_RETURN_NONE;
  kcc_state *st = state_of_type(Py_TYPE(self));
  return st ? raise_status(st, context_ctx(self->context), s) : NULL;
}

/* The stream argument of record() and wait(): None, 0 or a Stream. */
static int event_stream_arg(EventObject *self, PyObject *args, PyObject *kwargs,
                            const char *format, kc_stream **out) {
  static char *kwlist[] = {"stream", NULL};
  PyObject *obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, format, kwlist, &obj)) return -1;
  kcc_state *st = state_of_type(Py_TYPE(self));
  return st ? stream_of(st, obj, out) : -1;
}

static PyObject *event_record(EventObject *self, PyObject *args, PyObject *kwargs) {
  kc_stream *stream;
  if (event_stream_arg(self, args, kwargs, "|O:record", &stream) < 0) return NULL;
  kc_status s = kc_event_record(self->event, stream);
  if (s == KC_OK) self->recorded = 1;
  return event_result(self, s);
}

static PyObject *event_wait(EventObject *self, PyObject *args, PyObject *kwargs) {
  kc_stream *stream;
  if (event_stream_arg(self, args, kwargs, "|O:wait", &stream) < 0) return NULL;
  if (!self->recorded) Py_RETURN_NONE;
  return event_result(self, kc_stream_wait_event(stream, self->event));
}

static PyObject *event_synchronize(EventObject *self, PyObject *unused) {
  if (!self->recorded) Py_RETURN_NONE;
  return event_result(self, kc_event_synchronize(self->event));
}

static PyObject *event_query(EventObject *self, PyObject *unused) {
  int done = 1;
  kc_status s = self->recorded ? kc_event_query(self->event, &done) : KC_OK;
  if (s != KC_OK) return event_result(self, s);
  return PyBool_FromLong(done);
}

static PyObject *event_elapsed_time(EventObject *self, PyObject *end_obj) {
  kcc_state *st = state_of_type(Py_TYPE(self));
  if (st == NULL) return NULL;
  if (!PyObject_TypeCheck(end_obj, st->event_type)) {
    return PyErr_Format(PyExc_TypeError, "elapsed_time: expected an Event, not %.100s",
                        Py_TYPE(end_obj)->tp_name);
  }
  EventObject *end = (EventObject *)end_obj;
  if (!self->timing || !end->timing)
    return PyErr_Format(PyExc_ValueError, "elapsed_time: an event made with timing=False "
                        "has no time to compare");
  float ms = 0;
  kc_status s = kc_event_elapsed_ms(self->event, end->event, &ms);
  if (s != KC_OK) return event_result(self, s);
  return PyFloat_FromDouble(ms);
}

static PyObject *event_get_timing(EventObject *self, void *closure) {
  return PyBool_FromLong(self->timing);
}

static PyMethodDef event_methods[] = {
  {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS,
   "record(stream=0)\n--\n\nRecord the event on stream (0: the default stream): it "
   "completes when the work queued there before it has."},
  {"wait", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS,
   "wait(stream=0)\n--\n\nMake stream's later work wait for the event (the caller does "
   "not wait)."},
  {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS,
   "synchronize()\n--\n\nWait until the event has completed."},
  {"query", (PyCFunction)event_query, METH_NOARGS,
   "query()\n--\n\nTrue when the event has completed (or was never recorded)."},
  {"elapsed_time", (PyCFunction)event_elapsed_time, METH_O,
   "elapsed_time(end)\n--\n\nMilliseconds from this event to end, both recorded and "
   "completed."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef event_getset[] = {
  {"timing", (getter)event_get_timing, NULL, "whether elapsed_time may use the event",
   NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot event_slots[] = {
  {Py_tp_doc, "Event(timing=True)\n--\n\nAn event of kcc's device (Numba's cuda.event)."},
  {Py_tp_new, event_new},
  {Py_tp_traverse, event_traverse},
  {Py_tp_dealloc, event_dealloc},
  {Py_tp_methods, event_methods},
  {Py_tp_getset, event_getset},
  {0, NULL},
};

static PyType_Spec event_spec = {
  .name = "kcc._kcc.Event",
  .basicsize = sizeof(EventObject),
  .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE |
           Py_TPFLAGS_IMMUTABLETYPE,
  .slots = event_slots,
};

/* ---- registration --------------------------------------------------------------------- */
int kcc_streams_exec(PyObject *module, kcc_state *st) {
  if (add_type(module, &stream_spec, &st->stream_type, 1) < 0 ||
      add_type(module, &event_spec, &st->event_type, 1) < 0)
    return -1;
  return 0;
}
