#!/usr/bin/env python3
"""Turns the reference gate's report into the lists of docs/compatibility.md.

    REFERENCE_REPORT=1 cargo test -p boxtrack-api --test it -- --nocapture 2>&1 \
        | python3 crates/api/tests/it/reference/report.py

prints the operations that validate (for CONFORMING in reference_gate.rs and the doc) and,
per operation that does not, its distinct violations.
"""
import re
import sys

ok, bad = set(), {}
for line in sys.stdin:
    # test progress dots may precede a line on the same output line
    m = re.search(r"reference(-ok)?: (\w+) (\S+) (\d+)(?: (.*))?$", line.rstrip("\n"))
    if not m:
        continue
    op = (m.group(2), m.group(3))
    if m.group(1):
        ok.add(op)
    else:
        bad.setdefault(op, []).append(m.group(5) or "")
conforming = sorted(ok - set(bad))
print(f"{len(conforming)} operations:\n")
for method, path in conforming:
    print(f"- `{method.upper()} {path}`")
print("\nRust (CONFORMING):\n")
for method, path in conforming:
    print(f'    ("{method}", "{path}"),')
if bad:
    print("\nNot conforming:\n")
    for (method, path), errors in sorted(bad.items()):
        shown = "; ".join(e[:160] for e in errors[:3])
        more = " …" if len(errors) > 3 else ""
        print(f"- `{method.upper()} {path}` ({len(errors)}): {shown}{more}")
