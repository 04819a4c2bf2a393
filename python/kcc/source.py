"""The text kcc compiles a function's kernel from: its source file, as Python would
have it bound when the kernel is first compiled.

kcc compiles whole files and refuses a file that defines a name twice at the top level,
since it cannot tell which definition a call means. A script or a notebook exported to
one often redefines a function (a ufunc for int64, then for float32), and Python simply
rebinds the name. So when a file defines names more than once, the text compiled for a
function keeps, of each such name, the one definition bound at the time (the function
itself for its own name; for another, the one its module's globals hold now, else the
last one above the function) and turns the others into blank lines, which keeps every
line number, so diagnostics still point into the user's file.
"""

import ast


def _function_of(obj):
    """The Python function behind obj (a plain function, or one of kcc's wrappers: a
    kernel Dispatcher, a CUDA ufunc or gufunc, a reduction), or None."""
    for attr in ('py_func', '_functor'):
        obj = getattr(obj, attr, obj)
    return obj if hasattr(obj, '__code__') else None


def _top_level_definitions(tree):
    """{name: [(first line, last line), ...]} of the module's functions and classes,
    the first line that of the first decorator, as a code object's co_firstlineno is."""
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.setdefault(node.name, []).append((first, node.end_lineno))
    return found


def _chosen_span(spans, line, fallback_line):
    """The span starting at line; else the last starting at or above fallback_line;
    else the first."""
    for span in spans:
        if span[0] == line:
            return span
    above = [s for s in spans if s[0] <= fallback_line]
    return above[-1] if above else spans[0]


def text_for(fn, text):
    """(key, text): the text to compile fn's kernel from, given its file's text, and a
    key naming that variant (equal keys, equal texts)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return (), text              # kcc reports it, with its own position
    twice = {n: s for n, s in _top_level_definitions(tree).items() if len(s) > 1}
    if not twice:
        return (), text
    own_line = fn.__code__.co_firstlineno
    kept = {}
    for name, spans in twice.items():
        bound = fn if name == fn.__name__ else _function_of(fn.__globals__.get(name))
        line = bound.__code__.co_firstlineno if bound is not None else None
        kept[name] = _chosen_span(spans, line, own_line)
    lines = text.splitlines(keepends=True)
    for name, spans in twice.items():
        for first, last in spans:
            if (first, last) != kept[name]:
                lines[first - 1:last] = ['\n'] * (last - first + 1)
    return tuple(sorted((n, s[0]) for n, s in kept.items())), ''.join(lines)


# ---- a function's own text ------------------------------------------------------------
# A kernel kcc cannot find decorated in its file (defined in a function or a class, in
# exec'd text or a notebook cell, or decorated at run time: f = cuda.jit(sig)(g),
# cuda.reduce(lambda a, b: a + b)) is compiled from its own source, as Numba compiles
# it: the function's text (at its own line, so diagnostics keep the file's line
# numbers), a decorator made from the Python call's arguments, and after it the globals
# and closure variables the function uses, as they are bound now (numbers, tuples,
# NumPy arrays, types, modules, device functions with their own text, recursively).

import collections
import inspect
import math
import sys
import textwrap
import types as _pytypes

import numpy as _np

_NP = '__kcc_np'        # the names the generated text uses for its own imports
_CUDA = '__kcc_cuda'
_VECTORIZE = '__kcc_vectorize'
_GUVECTORIZE = '__kcc_guvectorize'


class SourceError(Exception):
    """What keeps a function's text from being made; kcc.cuda raises it as KccError."""


def type_text(t):
    """A Numba type or signature (kcc's stand-ins or Numba's own objects) as the
    string kcc reads: 'float32', 'float32[:, ::1]', 'float32(float32, int32)'."""
    if isinstance(t, str):
        return t
    if isinstance(t, (tuple, list)):    # argument types: (float32[:], float32[:])
        return 'void(%s)' % ', '.join(type_text(a) for a in t)
    if hasattr(t, 'return_type') and hasattr(t, 'args'):
        return '%s(%s)' % (type_text(t.return_type), ', '.join(type_text(a) for a in t.args))
    if hasattr(t, 'dtype') and hasattr(t, 'ndim') and hasattr(t, 'layout'):
        dims = [':'] * t.ndim
        if t.layout == 'C' and dims:
            dims[-1] = '::1'
        return '%s[%s]' % (type_text(t.dtype), ', '.join(dims))
    return str(t)


def _number_text(v):
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, float) and not math.isfinite(v):
        return "float('%r')" % v
    if isinstance(v, complex):
        return 'complex(%s, %s)' % (_number_text(v.real), _number_text(v.imag))
    return repr(v)


def _dtype_text(dt):
    """A NumPy structured dtype as np.dtype([...]) text kcc evaluates at module level."""
    fields = []
    for name in dt.names:
        ftype = dt.fields[name][0]
        base, shape = ftype.subdtype if ftype.subdtype else (ftype, ())
        t = _dtype_text(base) if base.names else '%s.%s' % (_NP, base.name)
        fields.append('(%r, %s%s)' % (name, t, ', %r' % (tuple(shape),) if shape else ''))
    return '%s.dtype([%s], align=%r)' % (_NP, ', '.join(fields), dt.isalignedstruct)


def _literal(v):
    """v as Python text kcc evaluates to the same value, or None."""
    dt = v if isinstance(v, _np.dtype) else getattr(v, 'dtype', None)
    if isinstance(dt, _np.dtype) and dt.names and not isinstance(v, _np.ndarray):
        return _dtype_text(dt)        # a record type (NumPy's, or Numba's from_dtype)
    if isinstance(v, (bool, int, float, complex)):
        return _number_text(v)
    if isinstance(v, _np.generic) and v.dtype.kind in 'biufc':
        return '%s.%s(%s)' % (_NP, v.dtype.name, _number_text(v.item()))
    if isinstance(v, tuple):
        items = [_literal(x) for x in v]
        if None in items:
            return None
        return '(%s)' % ''.join(i + ', ' for i in items)
    if isinstance(v, _np.ndarray) and v.dtype.kind in 'biufc' and v.ndim >= 1:
        return '%s.array(%r, dtype=%s.%s)' % (_NP, v.tolist(), _NP, v.dtype.name)
    return None


def _enum_text(name, cls):
    """An Enum class a kernel uses (Color.red), as a class kcc reads at module level:
    its kind and its members' values."""
    import enum
    base = next(b for b in (enum.IntFlag, enum.Flag, enum.IntEnum, enum.Enum)
                if issubclass(cls, b))
    lines = ['import enum as __kcc_enum', 'class %s(__kcc_enum.%s):' % (name, base.__name__)]
    for member in cls:
        value = _literal(member.value)
        if value is None:
            return None
        lines.append('    %s = %s' % (member.name, value))
    return '\n'.join(lines)


def _module_text(name, mod):
    from . import cuda as kcc_cuda, random as kcc_random
    if mod is kcc_cuda:
        return 'from numba import cuda as %s' % name
    if mod is kcc_random:
        return 'import numba.cuda.random as %s' % name
    if mod.__name__ in ('numba', 'numba.cuda'):
        return 'import %s as %s' % (mod.__name__, name)
    for prefix in ('numba.cuda.', 'kcc.cuda.'):   # libdevice, fp16, shared, threadIdx ...
        ns = mod.__name__[len(prefix):]
        if mod.__name__.startswith(prefix) and getattr(kcc_cuda, ns, None) is mod:
            return 'from numba.cuda import %s as %s' % (ns, name)
    if mod.__name__ in ('numba.core.types', 'numba.types', 'kcc.types'):
        return 'from numba import types as %s' % name
    if mod.__name__ in ('math', 'cmath', 'numpy', 'operator'):
        return 'import %s as %s' % (mod.__name__, name)
    return None


def _imported_text(name, v):
    """A function or type reached by import (math.sqrt, numpy.float32, numba.float32,
    numba.cuda.random's device functions), as an import, or None."""
    from .cuda import ForeignFunction
    from .device_ns import DeviceFunction
    if isinstance(v, DeviceFunction):   # from numba.cuda.bf16 import hadd
        return 'from %s import %s as %s' % (v.module, v.__name__, name)
    if isinstance(v, ForeignFunction):
        return '%s = %s.declare_device(%r, %r)' % (name, _CUDA, v.name, type_text(v.sig))
    mod = getattr(v, '__module__', None) or ''
    own = getattr(v, '__name__', None)
    if mod == '_operator':      # operator.add is CPython's _operator.add
        mod = 'operator'
    if mod == 'kcc.random':
        return 'from numba.cuda.random import %s as %s' % (own, name)
    if mod in ('math', 'cmath', 'operator') and own:
        return 'from %s import %s as %s' % (mod, own, name)
    if own and getattr(_np, own, None) is v:
        return 'from numpy import %s as %s' % (own, name)
    if isinstance(v, _np.dtype) and v.kind in 'biufc':
        return 'from numpy import %s as %s' % (v.name, name)
    if mod.startswith(('kcc.types', 'numba.core.types')) and type_text(v).isidentifier():
        return 'from numba import %s as %s' % (type_text(v), name)
    return None


def _used_names(code):
    """The global names a code object (and the code it holds) may read."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, _pytypes.CodeType):
            names |= _used_names(c)
    return names


def _bound_values(fn):
    """{name: value} of the globals and closure variables fn reads, as bound now."""
    values = {}
    for name in _used_names(fn.__code__):
        if name in fn.__globals__:
            values[name] = fn.__globals__[name]
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            values[name] = cell.cell_contents
        except ValueError:          # a closure variable not yet bound
            pass
    return values


def _function_node(tree, fn):
    """The def (or lambda) of fn in the parsed text of its source lines."""
    if fn.__name__ == '<lambda>':
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == params:
                return node
    else:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name == fn.__name__:
                return node
    raise SourceError("kcc cannot find the text of '%s' in its source lines"
                      % fn.__name__)


# ---- text that exec() compiled --------------------------------------------------------
# Code made by exec(text) or compile(text, '<string>', ...) has no file, and Python keeps
# no copy of its text; Numba compiles such a kernel from its bytecode. kcc needs the
# text: an audit hook (PEP 578) keeps the text of every such compilation (its "compile"
# event), and a function's is found again by compiling each candidate and matching the
# function's code object. Bounded: the newest texts are kept.
_EXEC_TEXTS = collections.deque(maxlen=4096)
_matching = False       # our own compiles below raise the event too: not kept


def _audit(event, args):
    if event == 'compile' and not _matching and isinstance(args[1], str) and \
            args[1].startswith('<') and isinstance(args[0], (str, bytes)):
        _EXEC_TEXTS.append((args[1], args[0]))


sys.addaudithook(_audit)


def keep_exec_text(filename, text):
    """Keep text as one exec() compiled under filename (python3 -c's command, compiled
    before kcc was imported)."""
    _EXEC_TEXTS.append((filename, text))


def _same_code(a, b):
    """Whether two code objects were compiled from the same text: texts made from one
    template differ only in names or constants (cuda.atomic.max and .min)."""
    plain = lambda c: [x for x in c.co_consts if not isinstance(x, _pytypes.CodeType)]
    return (a.co_name, a.co_firstlineno, a.co_code, a.co_names, a.co_varnames) == \
        (b.co_name, b.co_firstlineno, b.co_code, b.co_names, b.co_varnames) and \
        plain(a) == plain(b)


def _holds(code, target):
    """Whether code (or a code object it holds) is target's twin."""
    if _same_code(code, target):
        return True
    return any(isinstance(c, _pytypes.CodeType) and _holds(c, target)
               for c in code.co_consts)


def _exec_text_lines(fn):
    """(lines, first line) of fn's definition in the exec'd text that made it, or None."""
    global _matching
    code = fn.__code__
    for filename, text in reversed(_EXEC_TEXTS):
        if filename != code.co_filename:
            continue
        if isinstance(text, bytes):
            text = text.decode('utf-8', 'replace')
        _matching = True
        try:
            top = compile(text, filename, 'exec', dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        finally:
            _matching = False
        if _holds(top, code):
            lines = text.splitlines(True)[code.co_firstlineno - 1:]
            return inspect.getblock(lines), code.co_firstlineno
    return None


def _source_lines(fn):
    """(dedented text, the file line of its first line) of fn's source."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        found = _exec_text_lines(fn) if hasattr(fn, '__code__') else None
        if found:
            return textwrap.dedent(''.join(found[0])), max(found[1], 1)
        raise SourceError("kcc compiles '%s' from its source, and Python has none for it "
                          '(defined in %s)' % (fn.__name__, fn.__code__.co_filename)) \
            from None
    return textwrap.dedent(''.join(lines)), max(first, 1)


def _parsed(fn):
    """(tree, text, file line of the text's first line) of fn's source."""
    text, first = _source_lines(fn)
    try:
        return ast.parse(text), text, first
    except SyntaxError:
        pass
    # a lambda's lines inside a larger expression: read them as one expression
    wrapped = '(\n%s\n)' % text.rstrip().rstrip(',:')
    try:
        return ast.parse(wrapped, mode='eval'), wrapped, first - 1
    except SyntaxError:
        raise SourceError("kcc cannot read the source of '%s' (%s:%d)"
                          % (fn.__name__, fn.__code__.co_filename, first)) from None


def _user_modules(fn):
    """{name: module} of the modules fn reads that kcc does not know (a project's own
    `import utils`, or a module object in a closure): their attributes are bound one by
    one, each as a name of its own (_module_attrs)."""
    return {n: v for n, v in _bound_values(fn).items()
            if isinstance(v, _pytypes.ModuleType) and _module_text(n, v) is None}


def _module_attrs(fn, node):
    """[(ast.Attribute, alias, value)] for each `mod.attr` in fn (node: its parsed def)
    with mod one of _user_modules(fn) and attr not itself a module: the alias is
    mod_attr (the same length, so columns stay), or a longer name where that one is
    taken."""
    mods = _user_modules(fn)
    if not mods:
        return []
    taken = set(fn.__globals__) | set(fn.__code__.co_varnames) | set(fn.__code__.co_names)
    found = []
    for a in ast.walk(node):
        if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and \
                a.value.id in mods and hasattr(mods[a.value.id], a.attr):
            value = getattr(mods[a.value.id], a.attr)
            if isinstance(value, _pytypes.ModuleType):
                continue
            alias = '%s_%s' % (a.value.id, a.attr)
            if alias in taken:
                alias = '__kcc_%s_%s' % (a.value.id, a.attr)
            found.append((a, alias, value))
    return found


def _def_lines(fn, name, decorator):
    """({file line: text} of fn's definition named name, decorated with decorator on the
    line above its def (its own decorators left out), {alias: value}): each `mod.attr`
    of a module kcc does not know written as its alias (_module_attrs), which the
    caller binds."""
    tree, text, first = _parsed(fn)
    node = _function_node(tree, fn)
    src = text.splitlines()
    attrs = _module_attrs(fn, node)
    for a, alias, _ in sorted(attrs, key=lambda f: (f[0].lineno, -f[0].col_offset)):
        if a.lineno == a.end_lineno:   # right to left on a line: the offsets hold
            row = src[a.lineno - 1]
            src[a.lineno - 1] = row[:a.col_offset] + alias + row[a.end_col_offset:]
    out = {}
    if isinstance(node, ast.Lambda):
        body = ast.get_source_segment(text, node.body) or ast.unparse(node.body)
        params = ', '.join(a.arg for a in node.args.args)
        line = first + node.lineno - 1
        out[line] = 'def %s(%s):\n    return (%s)' % (name, params, body)
    else:
        line = first + node.lineno - 1
        for i in range(node.lineno - 1, node.end_lineno):
            out[first + i] = src[i]
        out[line] = out[line].replace('def %s' % node.name, 'def %s' % name, 1)
    out[line - 1] = decorator
    return out, {alias: v for _, alias, v in attrs}


def _is_user_exception(v):
    """An exception class of the program's own (kernels may raise it)."""
    return isinstance(v, type) and issubclass(v, Exception) and v.__module__ != 'builtins'


def _is_enum(cls):
    import enum
    return issubclass(cls, enum.Enum) and cls not in (enum.Enum, enum.IntEnum, enum.Flag,
                                                        enum.IntFlag)


def _is_device_function(v):
    """A Python function, or a CPU @jit function (Numba's dispatcher, or kcc's plain
    stand-in): Numba compiles both for the device when a kernel calls them. Not a
    kernel, and not numba.cuda.random's functions (imported, not defined)."""
    from .cuda import Dispatcher
    if isinstance(v, Dispatcher):
        return False
    fn = _function_of(v)
    return isinstance(fn, _pytypes.FunctionType) and fn.__module__ != 'kcc.random' and \
        (fn is v or hasattr(v, 'py_func'))


class _Text:
    """The text being made: lines of the user's file at their own numbers, and after
    them what has no place there (values, functions of other files)."""

    def __init__(self, fn):
        self.file = fn.__code__.co_filename
        self.lines = {}
        self.tail = []
        self.done = {}            # code object -> the name it is compiled under
        self.bound = set()        # names bound so far
        self.aliases = {}         # code object -> {alias: value} of its module attributes

    def place(self, fn, name, decorator):
        """fn's definition at its own lines when they are free, else in the tail."""
        lines, self.aliases[fn.__code__] = _def_lines(fn, name, decorator)
        if fn.__code__.co_filename == self.file and min(lines) >= 1 and \
                not any(line in self.lines for line in lines):
            self.lines.update(lines)
        else:
            self.tail.extend(t for _, t in sorted(lines.items()))

    def add_values(self, fn):
        """Bind what fn (placed before) uses: imports, values, its module attributes'
        aliases, device functions (placed, recursively)."""
        values = dict(_bound_values(fn), **self.aliases.get(fn.__code__, {}))
        for name, v in sorted(values.items()):
            if name in self.bound:
                continue
            self.bound.add(name)
            if isinstance(v, _pytypes.ModuleType):
                line = _module_text(name, v)
            elif isinstance(v, type) and _is_enum(v):
                line = _enum_text(name, v)
            elif _is_user_exception(v):
                # declared for kcc under the name the kernel uses, which a raise reports
                # and kernel_exception looks up in the kernel's globals (its class)
                line = 'class %s(Exception):\n    pass' % name
            elif _is_device_function(v):
                line = self.device_function(name, _function_of(v),
                                            getattr(v, 'decorator', None))
            else:
                line = _imported_text(name, v)
                if line is None:
                    literal = _literal(v)
                    line = '%s = %s' % (name, literal) if literal is not None else None
            if line:
                self.tail.append(line)

    def device_function(self, name, fn, decorator=None):
        """A device function fn called as name, compiled once (a second name for it is
        bound to the first), under its decorator (kcc.cuda's DeviceDispatcher gives its
        own, with its signatures and options)."""
        if fn.__code__ in self.done:
            other = self.done[fn.__code__]
            return None if other == name else '%s = %s' % (name, other)
        self.done[fn.__code__] = name
        self.place(fn, name, decorator or '@%s.jit(device=True)' % _CUDA)
        self.add_values(fn)
        return None

    def joined(self, header):
        """The text: header on line 1, the placed lines (all moved down when one falls
        on line 1 or above), then the tail."""
        shift = max(0, 2 - min(self.lines))
        lines = [''] * (max(self.lines) + shift)
        lines[0] = header
        for line, t in self.lines.items():
            lines[line + shift - 1] = t
        return '\n'.join(lines + self.tail) + '\n'


def wrapper_text(fn, device_decorator, kernel_decorator, params, call_args, enums=None):
    """(text, kernel name) of a kernel taking params (names) that calls fn, as a device
    function under device_decorator, with call_args (expressions over params and the
    Enum classes of enums, {alias: class}, defined in the text). How kcc passes what its
    kernels do not take, as Numba passes it: a record scalar by reference (a one-record
    array there, its element [0] passed on: kcc's kernels take records by value, its
    device functions by reference), a tuple holding arrays or tuples (its leaves one
    parameter each, the tuple made again for fn), an Enum member (the member itself,
    written in the call: the kernel is compiled for it)."""
    kernel = fn.__name__             # the name the kernel's messages give
    name = '%s__kcc_body' % kernel
    text = _Text(fn)
    text.done[fn.__code__] = name
    text.place(fn, name, _own_decorator(device_decorator))
    text.add_values(fn)
    for alias, cls in sorted((enums or {}).items()):
        text.tail.append(_enum_text(alias, cls))
    text.tail += [_own_decorator(kernel_decorator),
                  'def %s(%s):' % (kernel, ', '.join(params)),
                  '    %s(%s)' % (name, ', '.join(call_args))]
    return text.joined(_header()), kernel


def function_text(fn, decorator, name=None):
    """(text, kernel name): fn's definition named name (default: its own; a lambda's is
    made from its line) under decorator (a line such as '@cuda.jit(...)'), with the
    imports, values and device functions it uses, as Python binds them now."""
    name = name or (fn.__name__ if fn.__name__ != '<lambda>' else
                    'lambda_at_line_%d' % fn.__code__.co_firstlineno)
    decorator = _own_decorator(decorator)
    text = _Text(fn)
    text.done[fn.__code__] = name
    text.place(fn, name, decorator)
    text.add_values(fn)
    return text.joined(_header()), name


def _own_decorator(decorator):
    """A decorator line naming cuda, vectorize or guvectorize as the header imports them."""
    for plain, own in (('@cuda.', '@%s.' % _CUDA), ('@vectorize(', '@%s(' % _VECTORIZE),
                       ('@guvectorize(', '@%s(' % _GUVECTORIZE)):
        if decorator.startswith(plain):
            return own + decorator[len(plain):]
    return decorator


def _header():
    """Line 1 of a function's text: the decorators' names must be imported above them."""
    return ('from numba import cuda as %s, vectorize as %s, guvectorize as %s; '
            'import numpy as %s' % (_CUDA, _VECTORIZE, _GUVECTORIZE, _NP))
