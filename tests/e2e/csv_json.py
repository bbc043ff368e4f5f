#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
End to end: --csv against --json. A TCP loopback sweep (2 sizes x 2
depths) is written as JSON (valid against schema/) and as CSV (a header
and a row per result, RFC 4180 with CRLF); then the saved JSON is rendered
again with --report ... --csv, and every cell must be the JSON's value at
the path doc/csv-columns.txt gives for its column: the same number (as a
double), true/false, the same text, or empty where the JSON has null.

    python3 tests/e2e/csv_json.py /path/to/rdmaperf
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from e2elib import QUICK, Run, check, check_doc, main, run  # noqa: E402

COLUMNS_DOC = os.path.join(HERE, "..", "..", "doc", "csv-columns.txt")
SWEEP = ["--loopback", "-x", "tcp", "-S", "1K,64K", "-q", "1,4",
         "-C", "3000"] + QUICK
POINTS = 4  # 2 sizes x 2 depths


def doc_columns():
    """[(column, JSON path in a result)] from doc/csv-columns.txt: a line
    "name (unit)" then an indented "path: meaning"."""
    cols, name = [], None
    with open(COLUMNS_DOC) as f:
        for line in f:
            if name and line.startswith("    "):
                cols.append((name, line.strip().split(":", 1)[0]))
                name = None
            elif line.rstrip().endswith(")") and " (" in line and \
                    not line.startswith(" "):
                name = line.split(" (", 1)[0]
            else:
                name = None
    check(cols, "no columns found in " + COLUMNS_DOC)
    return cols


def parse_csv(r):
    """The rows of a run's CSV stdout; every line must end in CRLF."""
    check(r.out.endswith("\r\n"), lambda: "CSV does not end in CRLF:\n" +
          r.describe())
    quoted = False
    for i, ch in enumerate(r.out):
        if ch == '"':
            quoted = not quoted  # "" inside quotes toggles twice
        elif ch == "\n" and not quoted:
            check(i > 0 and r.out[i - 1] == "\r",
                  lambda: "a CSV line ends in a bare LF:\n" + r.describe())
    rows = list(csv.reader(io.StringIO(r.out, newline="")))
    check(len(rows) >= 1, lambda: "no CSV header:\n" + r.describe())
    width = len(rows[0])
    for i, row in enumerate(rows[1:], 1):
        check(len(row) == width, "CSV row %d has %d fields, the header %d" %
              (i, len(row), width))
    return rows


def json_at(obj, path):
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def cell_matches(cell, value):
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, (int, float)):
        try:
            return float(cell) == float(value)
        except ValueError:
            return False
    return cell == value


def run_ok(binary, args, what, raw=False):
    """A run that must succeed. @raw: stdout exactly as written (e2elib's
    run() reads text, which turns CRLF into LF)."""
    if raw:
        t0 = time.monotonic()
        p = subprocess.run([binary] + args, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=180)
        r = Run(args, p.returncode, p.stdout.decode(errors="replace"),
                p.stderr.decode(errors="replace"), time.monotonic() - t0)
    else:
        r = run(binary, args, timeout=180)
    check(r.rc == 0, lambda: what + " failed:\n" + r.describe())
    return r


def test_csv_shape(binary):
    """--csv alone: the documented header, then a row per point."""
    rows = parse_csv(run_ok(binary, SWEEP + ["--csv"], "--csv", raw=True))
    want = [c for c, _ in doc_columns()]
    check(rows[0] == want, "CSV header %r\n differs from %s: %r" %
          (rows[0], COLUMNS_DOC, want))
    check(len(rows) == 1 + POINTS, "%d CSV rows, want %d" %
          (len(rows) - 1, POINTS))
    got = [(r[want.index("size")], r[want.index("queue_depth")])
           for r in rows[1:]]
    check(got == [("1024", "1"), ("1024", "4"), ("65536", "1"),
                  ("65536", "4")], "points %r, want size-major" % got)


def compare(rows, doc, cols):
    """Every cell of @rows against @doc's results; a list of mismatches."""
    bad = []
    names = rows[0]
    for i, (row, res) in enumerate(zip(rows[1:], doc["results"])):
        for k, (name, path) in enumerate(cols):
            check(names[k] == name, "column %d is %r, want %r" %
                  (k, names[k], name))
            value = json_at(res, path)
            check(not isinstance(value, (dict, list)),
                  "%s: %s is not a scalar in the JSON" % (name, path))
            if not cell_matches(row[k], value):
                bad.append("row %d %s: CSV %r, JSON %s = %r" %
                           (i + 1, name, row[k], path, value))
    return bad


def test_csv_equals_json(binary):
    """--report saved.json --csv: the same run's numbers, cell by cell."""
    r = run_ok(binary, SWEEP + ["--json"], "--json")
    doc = r.json()  # validated against the schema
    check(len(doc["results"]) == POINTS and doc["error"] is None,
          "want %d good results: %r" % (POINTS, doc["error"]))
    with tempfile.TemporaryDirectory() as tmp:
        saved = os.path.join(tmp, "saved.json")
        with open(saved, "w") as f:
            f.write(r.out)
        rows = parse_csv(run_ok(binary, ["--report", saved, "--csv"],
                                "--report --csv", raw=True))
        again = run_ok(binary, ["--report", saved, "--json"],
                       "--report --json")
    check(len(rows) == 1 + POINTS, "%d CSV rows for %d results" %
          (len(rows) - 1, POINTS))
    bad = compare(rows, doc, doc_columns())
    check(not bad, lambda: "CSV differs from the JSON:\n  " +
          "\n  ".join(bad[:30]))
    check_doc(json.loads(again.out), "--report --json")


if __name__ == "__main__":
    main([
        ("csv_shape", test_csv_shape),
        ("csv_equals_json", test_csv_equals_json),
    ])
