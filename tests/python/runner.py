"""runner.py — the python suite's test runner: every test_* function of a module run in
name order, each reported ok or FAIL (with its traceback); exit status 1 if any failed."""
import sys
import traceback


def run(globs):
    failed = 0
    tests = [(n, f) for n, f in sorted(globs.items()) if n.startswith('test_')]
    for name, fn in tests:
        try:
            fn()
            print('ok', name)
        except Exception:
            failed += 1
            print('FAIL', name)
            traceback.print_exc(file=sys.stdout)
    print('%d of %d failed' % (failed, len(tests)), flush=True)
    return 1 if failed else 0
