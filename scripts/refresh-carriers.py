#!/usr/bin/env python3
"""Rebuilds crates/core/data/shipping-lines.csv from the shared reference data.

    python3 scripts/refresh-carriers.py [SHARED_REFERENCE_DIR]

Sources (SHARED_REFERENCE_DIR defaults to ../shared/reference next to the checkout):
- `coverage/carriers.csv`: the reference service's published coverage (its public
  `Terminal49/API` repository, docs/snippets/data-sources/coverage-data.mdx, generated
  2026-08-14): display and legal names, SCAC, alternative SCACs, whether the line is on for
  every account (`public`) or enabled per account (`account`), and which identifiers it
  tracks (bill of lading, booking, container number). Where the lists disagree, this wins.
- `shipping-lines.csv`: the reference's older shipping-line list, for bill-of-lading prefixes
  and for the lines the coverage list does not name (Hamburg Sud).

Re-running it on the same inputs writes the same file.
"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "core", "data", "shipping-lines.csv")
FIELDS = [
    "scac", "name", "short_name", "alternative_scacs", "bol_prefix",
    "bill_of_lading", "booking_number", "container_number", "access", "source",
]


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "reference")
    with open(os.path.join(shared, "coverage", "carriers.csv"), newline="") as f:
        coverage = list(csv.DictReader(f))
    with open(os.path.join(shared, "shipping-lines.csv"), newline="") as f:
        older = [r for r in csv.DictReader(f) if r["SCAC"]]
    rows = []
    for c in coverage:
        alternatives = c["alternative_scacs"].split()
        codes = [c["scac"], *alternatives]
        prefix = next(
            (o["BOL Prefix"] for o in older if o["SCAC"] in codes and o["BOL Prefix"]), ""
        )
        rows.append({
            "scac": c["scac"], "name": c["legal_name"], "short_name": c["name"],
            "alternative_scacs": " ".join(alternatives), "bol_prefix": prefix,
            "bill_of_lading": c["bill_of_lading"], "booking_number": c["booking_number"],
            "container_number": c["container_number"], "access": c["access"],
            "source": "coverage",
        })
    known = {code for r in rows for code in [r["scac"], *r["alternative_scacs"].split()]}
    for o in older:
        if o["SCAC"] in known or o["Support"] not in ("Yes", "Partial"):
            continue
        known.add(o["SCAC"])
        no_containers = "No container" in (o.get("Notes") or "")
        rows.append({
            "scac": o["SCAC"], "name": o["Full Name"], "short_name": o["Nickname"],
            "alternative_scacs": "", "bol_prefix": o["BOL Prefix"],
            "bill_of_lading": "true", "booking_number": "true",
            "container_number": "false" if no_containers else "true", "access": "public",
            "source": "shipping-lines",
        })
    rows.sort(key=lambda r: r["short_name"].lower())
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} shipping lines written to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
