#!/usr/bin/env python3
"""import_cycles.py [--nm NM] [--graph] FILE... — circles in the file-level call graph.

FILEs are object files or archives of them (the runtime's: libkcruntime.a). Who calls
whom comes from `nm`: a file that leaves a symbol undefined (U) uses the file among the
FILEs that defines it (T, D, B, R: functions and data). Calls to anything outside the
FILEs (libc, CUDA, the front end) are not edges. Each strongly connected set of two or
more files is a circle: the files in it cannot be read, tested or replaced one below
the other. Exit status 1 when there is one (each printed with an edge path through
it), 0 when the files form layers; --graph prints every file's callees as well.

The runtime is meant to be layered (docs/internals.md): rt_base.c at the bottom, the
lifecycle (context.c) at the top; meson's test runtime_layers runs this on it. With
--across-folders only circles through two or more folders count (the compiler's
src/<stage>/ folders: a stage's files may call each other, but no circle may run
through two stages); meson's test compiler_layers runs that on the compiler."""
import argparse
import collections
import os
import re
import subprocess
import sys

DEFINED = set("TDBRVW")   # W/V: weak definitions count as defining too
LINE = re.compile(r"^(?P<file>.*?)(?:\[(?P<member>[^\]]+)\])?: (?P<sym>\S+) (?P<kind>\S)")


def short(name):
    """Meson's object name for a source, runtime/cuda/memory.c -> runtime_cuda_memory.c.o,
    shown as cuda_memory.c (the folder joined to the name, as meson joins it)."""
    base = os.path.basename(name)
    if base.endswith(".o"):
        base = base[:-2]
    return base[len("runtime_"):] if base.startswith("runtime_") else base


def folder(name):
    """The folder of meson's object name: src_sema_infer.c.o -> sema (src/sema/)."""
    parts = name.split("_")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else ""


def symbols(nm, paths):
    """{file: (defined set, undefined set)} from nm's POSIX output."""
    out = subprocess.run([nm, "-A", "-P"] + paths, check=True, capture_output=True,
                         text=True).stdout
    files = collections.defaultdict(lambda: (set(), set()))
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        name = short(m.group("member") or m.group("file"))
        kind = m.group("kind")
        if kind == "U":
            files[name][1].add(m.group("sym"))
        elif kind in DEFINED:
            files[name][0].add(m.group("sym"))
    return files


def graph(files):
    """{file: {callee file: [symbols]}}."""
    owner = {}
    for f, (defined, _) in files.items():
        for s in defined:
            owner.setdefault(s, f)
    edges = {f: collections.defaultdict(list) for f in files}
    for f, (_, undefined) in files.items():
        for s in sorted(undefined):
            g = owner.get(s)
            if g and g != f:
                edges[f][g].append(s)
    return edges


def components(edges):
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def circle_path(edges, comp):
    """One closed path through the component: from its first file back to it."""
    members, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [w, v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path))
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    ap.add_argument("--graph", action="store_true", help="print every file's callees")
    ap.add_argument("--across-folders", action="store_true",
                    help="count only circles through more than one folder")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    try:
        files = symbols(args.nm, args.files)
    except (OSError, subprocess.CalledProcessError) as e:
        print("import_cycles.py: cannot run %s: %s" % (args.nm, e))
        return 1
    if len(files) < 2:
        print("import_cycles.py: %d object files in %s: nothing to check" % (len(files),
              " ".join(args.files)))
        return 1
    edges = graph(files)
    if args.graph:
        for f in sorted(edges):
            print("%s -> %s" % (f, ", ".join(sorted(edges[f])) or "(nothing)"))
    circles = [c for c in components(edges)
               if len(c) > 1 and (not args.across_folders or len(set(map(folder, c))) > 1)]
    for c in circles:
        path = circle_path(edges, c)
        print("circle of %d files: %s" % (len(c), " ".join(c)))
        for a, b in zip(path, path[1:]):
            print("  %s -> %s (%s)" % (a, b, ", ".join(edges[a][b][:4])))
    if not circles:
        print("%d files, no circle%s" % (len(edges), " through two folders"
                                          if args.across_folders else ""))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
