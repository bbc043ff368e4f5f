#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Validate rdmaperf's JSON output against schema/ (JSON Schema 2020-12).

    check_json.py doc FILE...      each FILE is one `rdmaperf --json` document
    check_json.py stream FILE...   each FILE holds `rdmaperf --json-stream`
                                   lines: every line parses alone and
                                   validates; the last is type "summary"
    check_json.py matrix FILE...   each FILE is one `rdmaperf --matrix
                                   --json` document (rank 0's)
    check_json.py diff FILE...     each FILE is one `rdmaperf diff --json`
                                   document

Exit 0 when every file is valid; 1, with one line per error on stderr,
when one is not; 2 on a usage error. As a module:

    from check_json import validate_doc, validate_stream_lines
    errors = validate_doc(obj)             # a parsed document
    errors = validate_stream_lines(lines)  # str lines (or parsed objects)

each returns a list of one-line error strings, empty when valid;
check_doc() and check_stream_lines() raise SchemaError instead.

Needs python3-jsonschema (scripts/install-deps.sh): without it, importing
this module raises ImportError, never a silent pass.
"""
import json
import os
import sys

try:
    import jsonschema
    from jsonschema.exceptions import best_match
except ImportError as e:  # loud: a test must not pass unvalidated
    raise ImportError("check_json needs the jsonschema module "
                      "(python3-jsonschema; scripts/install-deps.sh): %s" % e)

SCHEMA_DIR = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema"))
DOC_SCHEMA = "rdmaperf-1.schema.json"
STREAM_SCHEMA = "rdmaperf-stream-1.schema.json"
MATRIX_SCHEMA = "rdmaperf-matrix-1.schema.json"
DIFF_SCHEMA = "rdmaperf-diff-1.schema.json"
MAX_MESSAGE = 240  # characters of one error's message

_validators = {}


class SchemaError(ValueError):
    """Raised by check_doc/check_stream_lines: the errors, one per line."""

    def __init__(self, errors):
        super().__init__("\n".join(errors))
        self.errors = errors


def _load(name):
    with open(os.path.join(SCHEMA_DIR, name)) as f:
        return json.load(f)


def _make_validator(schema, schemas):
    """A validator for @schema whose relative $refs find @schemas by $id,
    without the network: a referencing registry (jsonschema >= 4.18), else
    a RefResolver store (older, e.g. Debian 12's 4.10)."""
    cls = jsonschema.Draft202012Validator
    try:
        from referencing import Registry, Resource
        registry = Registry().with_resources(
            [(s["$id"], Resource.from_contents(s)) for s in schemas])
        return cls(schema, registry=registry)
    except (ImportError, TypeError):
        store = {s["$id"]: s for s in schemas}
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver)


def _validator(name):
    if name not in _validators:
        names = (DOC_SCHEMA, STREAM_SCHEMA, MATRIX_SCHEMA, DIFF_SCHEMA)
        schemas = [_load(n) for n in names]
        for s in schemas:
            jsonschema.Draft202012Validator.check_schema(s)
        by_name = dict(zip(names, schemas))
        _validators[name] = _make_validator(by_name[name], schemas)
    return _validators[name]


def _path(err):
    parts = ["$"]
    for p in err.absolute_path:
        parts.append("[%d]" % p if isinstance(p, int) else "." + str(p))
    return "".join(parts)


def _one_line(text):
    text = " ".join(str(text).split())
    if len(text) > MAX_MESSAGE:
        text = text[:MAX_MESSAGE - 3] + "..."
    return text


def _errors(name, obj, where):
    """@obj against schema @name: a line per error, the most telling
    cause of each (inside oneOf/anyOf branches), prefixed by @where."""
    out = []
    errs = sorted(_validator(name).iter_errors(obj),
                  key=lambda e: list(map(str, e.absolute_path)))
    for err in errs:
        cause = best_match([err])
        out.append("%s%s: %s" % (where, _path(cause),
                                 _one_line(cause.message)))
    return out


def validate_doc(obj, where=""):
    """Errors of the parsed --json document @obj, [] when valid."""
    return _errors(DOC_SCHEMA, obj, where)


def validate_matrix(obj, where=""):
    """Errors of the parsed --matrix --json document @obj, [] when valid."""
    return _errors(MATRIX_SCHEMA, obj, where)


def validate_diff(obj, where=""):
    """Errors of the parsed rdmaperf diff --json document @obj, [] when
    valid."""
    return _errors(DIFF_SCHEMA, obj, where)


def validate_stream_lines(lines, where=""):
    """Errors of the --json-stream output @lines (str each, or already
    parsed): each line alone must be a valid stream object, the last
    (and only the last) of type "summary". [] when valid."""
    out, objs = [], []
    for i, line in enumerate(lines, 1):
        at = "%sline %d: " % (where, i)
        if isinstance(line, (str, bytes)):
            try:
                line = json.loads(line)
            except ValueError as e:
                out.append(at + "not JSON: " + _one_line(e))
                objs.append(None)
                continue
        objs.append(line)
        out.extend(_errors(STREAM_SCHEMA, line, at))
    types = [o.get("type") if isinstance(o, dict) else None for o in objs]
    if not types or types[-1] != "summary":
        out.append("%sthe last line is not of type \"summary\"" % where)
    for i, t in enumerate(types[:-1], 1):
        if t == "summary":
            out.append("%sline %d: a \"summary\" before the last line" %
                       (where, i))
    if "start" in types[1:]:
        out.append("%sa \"start\" line that is not the first" % where)
    return out


def check_doc(obj, where=""):
    errors = validate_doc(obj, where)
    if errors:
        raise SchemaError(errors)


def check_stream_lines(lines, where=""):
    errors = validate_stream_lines(lines, where)
    if errors:
        raise SchemaError(errors)


def _check_file(mode, path):
    where = path + ": "
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        return [where + "cannot read: " + _one_line(e)]
    if mode == "stream":
        return validate_stream_lines(text.splitlines(), where)
    try:
        obj = json.loads(text)
    except ValueError as e:
        return [where + "not one JSON document: " + _one_line(e)]
    if mode == "matrix":
        return validate_matrix(obj, where)
    if mode == "diff":
        return validate_diff(obj, where)
    return validate_doc(obj, where)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("doc", "stream", "matrix", "diff"):
        sys.stderr.write("usage: %s doc|stream|matrix|diff FILE...\n" %
                         argv[0])
        return 2
    errors = []
    for path in argv[2:]:
        errors.extend(_check_file(argv[1], path))
    for e in errors:
        sys.stderr.write(e + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
