#!/usr/bin/env python3
"""numba_doc_examples.py — make tests/python/numba_docs/ from Numba's documentation
examples for CUDA (the code of docs/source/cuda/examples.rst, kept by Numba in
numba/cuda/tests/doc_examples/test_*.py, BSD-2-Clause, (c) Anaconda, Inc. and others).

Each test_ex_* method becomes a script: its module's own imports (numpy), then its body
dedented, the unittest calls in it
(self.assertTrue ...) written as plain asserts, so that the example checks itself as
it does in Numba's suite. tests/python/test_docs.py runs them under `python3 -m kcc`.
    usage: scripts/numba_doc_examples.py NUMBA_DOC_EXAMPLES_DIR OUT_DIR
(Debian's python3-numba: /usr/lib/python3/dist-packages/numba/cuda/tests/doc_examples)
"""
import ast
import glob
import os
import re
import sys
import textwrap

ASSERTS = [   # unittest's calls as plain asserts
    (r'self\.assertTrue\((.*?)(, msg=\w+)?\)$', r'assert \1'),
    (r'self\.assertGreater\((.*), (.*)\)$', r'assert \1 > \2'),
    (r'self\.assertLess\((.*), (.*)\)$', r'assert \1 < \2'),
    (r'self\.skipTest\((.*)\)$', r'raise SystemExit(\1)'),
]


HARNESS = ('unittest', 'numba.cuda.testing', 'numba.tests')


def module_imports(tree, lines):
    """The test module's own top-level imports (numpy ...), not the harness's."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            text = '\n'.join(lines[node.lineno - 1:node.end_lineno])
            if not any(h in text for h in HARNESS):
                out.append(text)
    return out


def script(path, tree, node, lines):
    body = textwrap.dedent('\n'.join(lines[node.body[0].lineno - 1:node.end_lineno]))
    out = module_imports(tree, lines)
    for line in body.splitlines():
        for pattern, repl in ASSERTS:
            line = re.sub(pattern, repl, line)
        out.append(line)
    head = ('# %s of Numba 0.56.4 (numba/cuda/tests/doc_examples/%s, BSD-2-Clause),\n'
            '# made a script by scripts/numba_doc_examples.py: run by test_docs.py.\n'
            % (node.name, os.path.basename(path)))
    return head + '\n'.join(out) + '\n'


def main(src_dir, out_dir):
    for path in sorted(glob.glob(os.path.join(src_dir, 'test_*.py'))):
        src = open(path).read()
        lines = src.splitlines()
        tree = ast.parse(src)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith('test_ex'):
                name = os.path.join(out_dir, node.name[len('test_'):] + '.py')
                with open(name, 'w') as f:
                    f.write(script(path, tree, node, lines))
                print(name)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-2])
    main(sys.argv[1], sys.argv[2])
