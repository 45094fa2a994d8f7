# SPDX-License-Identifier: LGPL-2.1-or-later
"""schema_validate.py SCHEMA - JSON lines on stdin, each checked against
the JSON Schema 2020-12 SCHEMA, and every key declared in it; prints
"ok N", or the first problem and exits 1. Run by the Python that has
jsonschema (tests/cli/mntwatch-schema.sh finds it), which need not be
the one of the cases."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
top = set(schema["properties"])
rec = set(schema["$defs"]["record"]["properties"])
n = 0
for i, line in enumerate(sys.stdin):
    o = json.loads(line)
    errs = sorted(v.iter_errors(o), key=lambda e: list(e.path))
    if errs:
        print("line %d: %s: %s" % (i + 1, errs[0].message, line.strip()[:300]))
        sys.exit(1)
    undeclared = set(o) - top - rec
    undeclared |= set(o.get("before", {})) - rec
    if undeclared:
        print("line %d: keys not in the schema: %s" % (i + 1, sorted(undeclared)))
        sys.exit(1)
    n += 1
print("ok %d" % n)
