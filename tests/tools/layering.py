#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layering of DESIGN.md ("Layers"), checked on the include graph.

    layering.py SRC_DIR

Reads every "..." include of the .c and .h files under SRC_DIR (src/) and
fails, naming the files, on:

- an include that points up the layers: cli/ > cluster/ > report/ > run/ >
  proto/ > xport/ > core/ > platform/ (a folder may include its own files
  and those of any layer below it; so platform/ includes nothing of core/);
- a file of report/ that reaches xport/ or run/config.h through any chain
  of includes (report/ formats a test's results: it never sees the
  transport seam, nor the settings of the run that cli/ owns);
- a cycle of includes, anywhere (headers that include each other).

The call graph between the files of one folder (a circle of calls between
sibling files) is checked from the object files by circles.py.

Exit status: 0 clean, 1 with the violations on stdout, 2 on bad usage.
"""
import os
import re
import sys

import graph as scc

LAYERS = ["platform", "core", "xport", "proto", "run", "report", "cluster",
          "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_graph(src):
    graph = {}
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as fh:
                graph[rel] = sorted(
                    m.group(1) for m in map(INCLUDE.match, fh) if m)
    return graph


def layer(path):
    top = path.split("/")[0]
    return LAYERS.index(top) if top in LAYERS else None


def upward(graph):
    bad = []
    for f, incs in sorted(graph.items()):
        lf = layer(f)
        for i in incs:
            li = layer(i)
            if lf is None or li is None:
                bad.append(f"{f}: includes {i}: a folder outside the layers "
                           f"({', '.join(LAYERS)})")
            elif li > lf:
                bad.append(f"{f}: includes {i}, a layer above it "
                           f"({LAYERS[lf]}/ is below {LAYERS[li]}/)")
    return bad


def reach(graph, start):
    """Every file @start reaches, with the chain that first got there."""
    seen = {start: [start]}
    todo = [start]
    while todo:
        f = todo.pop()
        for i in graph.get(f, []):
            if i not in seen:
                seen[i] = seen[f] + [i]
                todo.append(i)
    return seen


def report_unseen(g):
    return g.startswith("xport/") or g == "run/config.h"


def report_sees_xport(graph):
    bad = []
    for f in sorted(graph):
        if not f.startswith("report/"):
            continue
        for g, chain in sorted(reach(graph, f).items()):
            if report_unseen(g):
                bad.append(f"{f}: reaches {g}: {' -> '.join(chain)}")
                break
    return bad


def cycles(graph):
    """Include cycles, each named once (components of more than one file,
    or a file including itself)."""
    return ["include cycle: " + " <-> ".join(c)
            for c in scc.strongly_connected(graph)]


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: layering.py SRC_DIR", file=sys.stderr)
        return 2
    graph = read_graph(argv[1])
    bad = upward(graph) + report_sees_xport(graph) + cycles(graph)
    for b in bad:
        print(b)
    print(f"layering: {len(graph)} files, "
          f"{sum(map(len, graph.values()))} includes, "
          f"{len(bad)} violation{'s' if len(bad) != 1 else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
