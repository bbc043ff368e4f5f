#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Circles of calls between the files of one folder, read from a build.

    circles.py [--folder DIR]... [--nm NM] BUILD_DIR

Reads the object files a build made of src/ (BUILD_DIR/CMakeFiles/
TARGET.dir/src/FOLDER/FILE.c.o) with `nm -P`: the file that defines a
global symbol (a function, a table) and the files that use it. A use of
a symbol defined by a sibling file (same folder: src/run, src/report,
src/xport/verbs; not a subfolder) is an edge between the two files, and
a circle is a set of sibling files that reach each other through those
edges: a strongly connected component of more than one file. Each
circle is printed once, with every edge inside it and the symbols that
make the edge, then its elementary cycles (the first few).

A file of one folder should sit above or below each of its siblings,
never both: the shared helpers of a split file belong in a bottom file
that calls up to none of them.

Objects that are stale are left out, with a note on stderr: an object
older than its source, or whose source no longer exists (a file moved
or deleted since the last build). Build first for a full answer.

--folder restricts the report to folders whose path (relative to the
source tree, e.g. src/run) is DIR or below it; it may be repeated.

Exit status: 0 when there is no circle, 1 with the circles on stdout,
2 on bad usage or when nm fails.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

import graph as scc

MAX_CYCLES = 12
DEFINED = set("TDBRGSVWCi")


def source_dir(build):
    """The source tree of @build, from its CMakeCache.txt."""
    cache = os.path.join(build, "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = re.match(r"CMAKE_HOME_DIRECTORY:INTERNAL=(.*)", line)
                if m:
                    return m.group(1).strip()
    except OSError:
        pass
    return None


def objects(build, src):
    """(target, source path relative to @src, object path) of every
    fresh object of src/, and the notes on those left out."""
    found, notes = [], []
    pattern = os.path.join(build, "CMakeFiles", "*.dir", "src", "**", "*.o")
    for obj in sorted(glob.glob(pattern, recursive=True)):
        rel = os.path.relpath(obj, os.path.join(build, "CMakeFiles"))
        parts = rel.replace(os.sep, "/").split("/")
        target = parts[0][: -len(".dir")]
        source = "/".join(parts[1:])[: -len(".o")]
        path = os.path.join(src, source)
        if not os.path.exists(path):
            notes.append(f"{obj}: skipped, {source} no longer exists")
            continue
        if os.path.getmtime(obj) < os.path.getmtime(path):
            notes.append(f"{obj}: skipped, older than {source}")
            continue
        found.append((target, source, obj))
    return found, notes


def symbols(nm, obj):
    """(defined, used) global symbols of @obj."""
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            used.add(f[0])
        elif f[1] in DEFINED:
            defined.add(f[0])
    return defined, used


def read_graph(nm, objs):
    """{folder: {file: {sibling: set(symbols)}}}, a file naming its
    source path, for uses of symbols a sibling of the same target (or,
    failing that, of another target) defines."""
    info = {}
    for target, source, obj in objs:
        info[(target, source)] = symbols(nm, obj)
    definers = {}
    for (target, source), (defined, _) in info.items():
        folder = os.path.dirname(source)
        for s in defined:
            definers.setdefault((folder, s), []).append((target, source))
    graph = {}
    for (target, source), (_, used) in info.items():
        folder = os.path.dirname(source)
        edges = graph.setdefault(folder, {}).setdefault(source, {})
        for s in used:
            cands = definers.get((folder, s), [])
            same = [c for c in cands if c[0] == target]
            for _, to in same or cands:
                if to != source:
                    edges.setdefault(to, set()).add(s)
    return graph


def components(edges):
    """Strongly connected components of more than one file."""
    return [c for c in scc.strongly_connected(edges) if len(c) > 1]


def elementary(edges, comp, limit):
    """Up to @limit elementary cycles inside @comp, each starting at its
    least file (so each is found once), shortest first."""
    members = set(comp)
    found = []

    def walk(start, path, seen):
        if len(found) >= limit * 4:
            return
        for w in sorted(edges.get(path[-1], {})):
            if w == start:
                found.append(path[:])
            elif w in members and w > start and w not in seen:
                seen.add(w)
                path.append(w)
                walk(start, path, seen)
                path.pop()
                seen.discard(w)

    for start in comp:
        walk(start, [start], {start})
    found.sort(key=lambda c: (len(c), c))
    return found[:limit], len(found)


def short(path):
    return os.path.basename(path)


def report(folder, edges, comp):
    lines = [f"circle in {folder}: {', '.join(map(short, comp))}"]
    for a in comp:
        for b in sorted(edges.get(a, {})):
            if b in comp:
                syms = ", ".join(sorted(edges[a][b]))
                lines.append(f"  {short(a)} -> {short(b)}: {syms}")
    cycles, total = elementary(edges, comp, MAX_CYCLES)
    for c in cycles:
        lines.append("  cycle: " + " -> ".join(map(short, c + [c[0]])))
    if total > len(cycles):
        lines.append(f"  ... and more cycles ({total - len(cycles)}"
                     f"{'+' if total >= MAX_CYCLES * 4 else ''} not shown)")
    return lines


def main(argv):
    ap = argparse.ArgumentParser(
        prog="circles.py",
        description="Report every circle of calls (or table references) "
        "between the files of one folder of src/, from the object "
        "files of a build.",
        epilog="Exit status: 0 no circle, 1 circles listed on stdout, "
        "2 bad usage or nm failed. Stale objects (older than their "
        "source, or whose source is gone) are skipped with a note on "
        "stderr.")
    ap.add_argument("build", metavar="BUILD_DIR",
                    help="a CMake build directory (has CMakeCache.txt)")
    ap.add_argument("--folder", action="append", default=[],
                    metavar="DIR",
                    help="only folders at or below DIR (e.g. src/run); "
                    "may be repeated")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"),
                    help="the nm to run (default: $NM or nm)")
    ap.add_argument("--src", help="the source tree (default: read from "
                    "BUILD_DIR/CMakeCache.txt)")
    args = ap.parse_args(argv[1:])
    src = args.src or source_dir(args.build)
    if not src or not os.path.isdir(src):
        print(f"circles.py: {args.build}: no CMakeCache.txt naming the "
              "source tree (give --src)", file=sys.stderr)
        return 2
    objs, notes = objects(args.build, src)
    for n in notes:
        print(n, file=sys.stderr)
    if not objs:
        print(f"circles.py: {args.build}: no fresh object of src/ (build "
              "first)", file=sys.stderr)
        return 2
    try:
        graph = read_graph(args.nm, objs)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"circles.py: {args.nm}: {e}", file=sys.stderr)
        return 2
    wanted = [f.rstrip("/") for f in args.folder]
    count, nedges = 0, 0
    for folder in sorted(graph):
        if wanted and not any(folder == w or folder.startswith(w + "/")
                              for w in wanted):
            continue
        edges = graph[folder]
        nedges += sum(len(e) for e in edges.values())
        for comp in components(edges):
            print("\n".join(report(folder, edges, comp)))
            count += 1
    print(f"circles: {len(objs)} objects, {nedges} edges between siblings, "
          f"{count} circle{'s' if count != 1 else ''}"
          f"{f', {len(notes)} stale skipped' if notes else ''}")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
