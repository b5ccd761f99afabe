#!/usr/bin/env python3
"""Rebuilds crates/core/data/terminals.csv from the shared reference data.

    python3 scripts/refresh-terminals.py [SHARED_REFERENCE_DIR]

Sources (SHARED_REFERENCE_DIR defaults to ../shared/reference next to the checkout):
- `terminals.csv`: the reference service's North American terminal list (name, nickname,
  FIRMS code, port, city, state, IANA zone);
- `coverage/terminals.csv`: the terminals of its published coverage (public
  `Terminal49/API` repository, docs/snippets/data-sources/coverage-data.mdx, 2026-08-14):
  name, port UN/LOCODE and its code (a FIRMS code in the US, elsewhere the UN/LOCODE followed
  by the terminal's own code, e.g. `HKHKGACTHK`).
The first list wins where both name a code. A terminal's time zone and, outside the first
list, its city and state are its port's (crates/core/data/ports.csv, which must hold every
port named here: add the port and run scripts/refresh-ports.py first). Addresses (street,
ZIP) are in neither source and are not invented.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "crates", "core", "data")
FIELDS = ["name", "nickname", "firms_code", "port_locode", "city", "state_abbr", "country_code", "time_zone", "source"]


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "reference")
    with open(os.path.join(DATA, "ports.csv"), newline="") as f:
        ports = {r["locode"]: r for r in csv.DictReader(f)}
    rows = []
    with open(os.path.join(shared, "terminals.csv"), newline="") as f:
        for t in csv.DictReader(f):
            rows.append({
                "name": t["Terminal Name"], "nickname": t["Terminal Nickname"],
                "firms_code": t["Firms Code"], "port_locode": t["Port Code"],
                "city": t["City"], "state_abbr": t["State"], "country_code": t["Country"],
                "time_zone": t["Time Zone"], "source": "terminals",
            })
    known = {r["firms_code"] for r in rows}
    missing_ports = set()
    with open(os.path.join(shared, "coverage", "terminals.csv"), newline="") as f:
        for t in csv.DictReader(f):
            if t["firms_code"] in known:
                continue
            port = ports.get(t["locode"])
            if port is None:
                missing_ports.add(t["locode"])
                continue
            known.add(t["firms_code"])
            rows.append({
                "name": t["name"], "nickname": t["name"], "firms_code": t["firms_code"],
                "port_locode": t["locode"], "city": port["name"] or t["port"],
                "state_abbr": port["subdivision"] if t["locode"][:2] in ("US", "CA", "MX", "AU", "BR") else "",
                "country_code": t["locode"][:2], "time_zone": port["time_zone"],
                "source": "coverage",
            })
    if missing_ports:
        sys.exit(f"ports.csv lacks {sorted(missing_ports)}: add them first")
    for r in rows:
        for k, v in r.items():
            if "," in v or '"' in v:
                sys.exit(f"{k} of {r['firms_code']} holds a comma or quote: {v!r}")
    with open(os.path.join(DATA, "terminals.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} terminals written")


if __name__ == "__main__":
    main()
