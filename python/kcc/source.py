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
