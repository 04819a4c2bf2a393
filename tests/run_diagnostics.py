#!/usr/bin/env python3
"""run_diagnostics.py — check kcc's diagnostics against expectations in the sources.

usage: run_diagnostics.py KCC ERRORS_DIR [NAME...]

Every ERRORS_DIR/*.k (or only the NAMEs given) is compiled with
`KCC compile FILE -o /dev/null`. A file states what it expects in comments:

    # expect-error: LINE:COL: text       an error starting at LINE:COL whose message
    # expect-warning: LINE:COL: text     contains `text` (a warning, likewise)
    # expect-note: LINE:COL: text        a note (notes are otherwise not checked)
    # ptx-sig: NAME(TYPES)               compile with --sig NAME(TYPES) (a kernel
                                         typed at its launch, as Numba types it)

and the run must then
  - exit 1 when an error is expected, 0 otherwise (only warnings, or nothing);
  - print every expected diagnostic as `FILE:LINE:COL: error: ...text...`;
  - print no error that was not expected (and, for a file expecting nothing, no
    warning either);
  - not crash (killed by a signal, or an exit status above 1) nor hang (20 s).

Some inputs are generated here rather than committed: bytes that are not UTF-8, 300
nested parentheses, a 100000-term sum and deeply nested blocks. For those a clear
error or a success is fine; a crash or a hang is not.

With KC_VALGRIND=1 (and valgrind installed) each case also runs under
`valgrind --error-exitcode=99 --leak-check=full`: any memory error or leak fails it.

Prints one line per file and a last line `N passed, N failed`; exits 1 if any failed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 20
VALGRIND_TIMEOUT = 300
EXPECT_RE = re.compile(r"#\s*expect-(error|warning|note):\s*(\d+):(\d+):\s*(.*?)\s*$")
DIAG_RE = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|note): (.*)$")


def parse_expectations(data):
    """[(severity, line, col, text)] from the `# expect-...` comments of a source."""
    text = data.decode("utf-8", errors="replace")
    out = []
    for line in text.splitlines():
        m = EXPECT_RE.search(line)
        if m:
            out.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    return out


def parse_diagnostics(stderr, path):
    """[(severity, line, col, message)] of the GCC-format lines naming `path`."""
    diags = []
    for line in stderr.splitlines():
        m = DIAG_RE.match(line)
        if m and (m.group(1) == path or m.group(1).endswith(os.path.basename(path))):
            diags.append((m.group(4), int(m.group(2)), int(m.group(3)), m.group(5)))
    return diags


SIG_RE = re.compile(r"^#\s*ptx-sig:\s*(.*?)\s*$")


def file_sigs(path):
    """The --sig options a file asks for in `# ptx-sig:` comments."""
    args = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = SIG_RE.match(line)
                if m:
                    args += ["--sig", m.group(1)]
    except OSError:
        pass
    return args


def run_kcc(kcc, path, valgrind):
    cmd = [kcc, "compile", path, "-o", os.devnull] + file_sigs(path)
    timeout = TIMEOUT
    if valgrind:
        cmd = [valgrind, "--error-exitcode=99", "--leak-check=full", "-q"] + cmd
        timeout = VALGRIND_TIMEOUT
    env = dict(os.environ)
    env.pop("KC_COLOR", None)
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stderr.decode("utf-8", errors="replace")


def check_expected(path, expects, rc, stderr):
    """Return a list of problems (empty when the case passes)."""
    problems = []
    diags = parse_diagnostics(stderr, path)
    want_rc = 1 if any(e[0] == "error" for e in expects) else 0
    if rc != want_rc:
        problems.append("exit status %d, expected %d" % (rc, want_rc))
    matched = set()
    for sev, line, col, text in expects:
        hit = None
        for k, (dsev, dline, dcol, msg) in enumerate(diags):
            if dsev == sev and dline == line and dcol == col and text in msg:
                hit = k
                break
        if hit is None:
            near = [d for d in diags if d[0] == sev and d[1] == line]
            hint = (" (on that line: %s)" % "; ".join("%d:%d: %s" % (d[1], d[2], d[3])
                                                       for d in near)) if near else ""
            problems.append("missing %s %d:%d: %s%s" % (sev, line, col, text, hint))
        else:
            matched.add(hit)
    for k, (dsev, dline, dcol, msg) in enumerate(diags):
        if k in matched:
            continue
        if dsev == "error" or (not expects and dsev == "warning"):
            problems.append("unexpected %s %d:%d: %s" % (dsev, dline, dcol, msg))
    if not expects and stderr.strip() and not problems:
        problems.append("expected no output, got: %s" % stderr.strip().splitlines()[0])
    return problems


def check_robust(path, rc, stderr):
    """Generated inputs: success, or exit 1 with at least one located error."""
    if rc == 0:
        return []
    diags = [d for d in parse_diagnostics(stderr, path) if d[0] == "error"]
    if rc == 1 and diags:
        return []
    if rc == 1:
        return ["exit 1 without a `FILE:LINE:COL: error:` line: %r" % stderr[:200]]
    return ["exit status %d" % rc]


def generated_cases(tmp):
    """(name, path, check) for the inputs written here."""
    cases = []

    def write(name, data):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    head = b"from numba import cuda, float32\n\n@cuda.jit\ndef k(a: float32[:]):\n"
    # Latin-1 bytes in a comment and in a string: not UTF-8.
    data = (b"# caf\xe9\n" + head + b"    i = cuda.grid(1)\n    a[i] = 1  # \xff\xfe\n")
    cases.append(("non_utf8.k", write("non_utf8.k", data),
                  # each top-level statement is read alone: its first bad byte each
                  ("expect", [("error", 1, 6, "UTF-8"), ("error", 7, 17, "UTF-8")])))
    deep = b"(" * 300 + b"a[0]" + b")" * 300
    cases.append(("deep_parens.k",
                  write("deep_parens.k", head + b"    a[0] = " + deep + b"\n"),
                  ("robust", None)))
    terms = b" + ".join(b"a[%d]" % (k % 7) for k in range(100000))
    cases.append(("long_sum.k", write("long_sum.k", head + b"    a[0] = " + terms + b"\n"),
                  ("robust", None)))
    body = b""
    for depth in range(1, 201):
        body += b"    " * depth + b"if a[0] > %d:\n" % depth
    body += b"    " * 201 + b"a[0] = 0\n"
    cases.append(("deep_blocks.k", write("deep_blocks.k", head + body), ("robust", None)))
    deep_unary = b"-" * 5000 + b"a[0]"
    cases.append(("deep_unary.k",
                  write("deep_unary.k", head + b"    a[0] = " + deep_unary + b"\n"),
                  ("robust", None)))
    return cases


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    kcc, errors_dir, only = argv[1], argv[2], set(argv[3:])
    if not os.access(kcc, os.X_OK):
        print("FAIL: %s is not an executable" % kcc)
        return 1
    valgrind = None
    if os.environ.get("KC_VALGRIND") == "1":
        valgrind = shutil.which("valgrind")
        if not valgrind:
            print("note: KC_VALGRIND=1 but valgrind is not installed; running without it")

    cases = []
    for name in sorted(os.listdir(errors_dir)):
        if name.endswith(".k"):
            path = os.path.join(errors_dir, name)
            with open(path, "rb") as f:
                cases.append((name, path, ("expect", parse_expectations(f.read()))))
    tmp = tempfile.mkdtemp(prefix="kcc-diag-")
    try:
        cases += generated_cases(tmp)
        if only:
            cases = [c for c in cases if c[0] in only or c[0][:-2] in only]
        passed = failed = 0
        for name, path, (kind, expects) in cases:
            rc, stderr = run_kcc(kcc, path, valgrind)
            if rc is None:
                problems = ["hung: no answer within %d s" % (VALGRIND_TIMEOUT if valgrind
                                                             else TIMEOUT)]
            elif rc == 99 and valgrind:
                problems = ["valgrind reported errors:\n" + stderr[-3000:]]
            elif rc < 0:
                problems = ["crashed: killed by signal %d" % -rc]
            elif kind == "expect":
                problems = check_expected(path, expects, rc, stderr)
            else:
                problems = check_robust(path, rc, stderr)
            if problems:
                failed += 1
                print("FAIL %s: %s" % (name, "; ".join(problems)))
                if stderr.strip():
                    print("  | " + "\n  | ".join(stderr.strip().splitlines()[:12]))
            else:
                passed += 1
                print("PASS %s%s" % (name, " (valgrind)" if valgrind else ""))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
