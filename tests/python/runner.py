"""runner.py — the python suite's test runner: every test_* function of a module run in
name order, each reported ok, skip (it raised Skip: what it needs is missing) or FAIL
(with its traceback); exit status 1 if any failed."""
import sys
import traceback


class Skip(Exception):
    """Raised by a test that cannot run here; reported as skipped, never as passed."""


def run(globs):
    failed = 0
    tests = [(n, f) for n, f in sorted(globs.items()) if n.startswith('test_')]
    for name, fn in tests:
        try:
            fn()
            print('ok', name)
        except Skip as e:
            print('skip', name + ':', e)
        except Exception:
            failed += 1
            print('FAIL', name)
            traceback.print_exc(file=sys.stdout)
    print('%d of %d failed' % (failed, len(tests)), flush=True)
    return 1 if failed else 0
