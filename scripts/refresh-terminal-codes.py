#!/usr/bin/env python3
"""Rebuilds crates/core/data/terminal-codes.csv: each terminal's SMDG terminal code, BIC
Facility Code, street and postal code, where a public source gives them.

    python3 scripts/refresh-terminal-codes.py SMDG_CSV [BIC_SAMPLE_CSV]

Reads local copies only (no network):
- SMDG_CSV: the SMDG Terminal Code List as converted to CSV by the public
  `datasets/smdg-master-terminal-facilities-list` repository
  (`data/smdg-master-terminal-facilities-list.csv`; the copy used is that of commit
  10da9767984f39ce75aceebe7d98f055a02d15a3, 2026-01-01, whose newest entry is dated
  2025-12-16). Columns used: UNLOCODE, Terminal Code, Valid Until, Terminal Address.
- BIC_SAMPLE_CSV (optional): `sample-bic-facility-codes.csv` of the public `bic-org/Facility-Code`
  repository (commit 0e4a0c09d5affc57b0bfce83fca3b858729f8fac, 2021-11-24), the only public
  extract of the BIC Facility Code register found: 157 facilities in DEHAM, GBLIV, ITGOA and
  NLRTM. Without it the BIC column stays empty.

Which SMDG entry is which boxtrack terminal is the table SMDG below, matched by hand: the
terminal's own code ends in the SMDG code (coverage terminals, e.g. HKHKGACTHK -> ACTHK), or
the names agree (FIRMS-coded terminals), or (TraPac Jacksonville) the SMDG entry's address is
the one the port authority's page gives for the terminal. Terminals without an SMDG entry
that names them are absent from the table; a few of them have a street address from the
terminal's own page (PAGES). An SMDG entry whose `Valid Until` is before AS_OF is not used.

Street and postal code come from the SMDG `Terminal Address` (free text, comma-separated):
the postal code is the code the address carries for its country; the street is what comes
before the locality (before `City, ST ZIP` in the US and Canada, before `ZIP City` or
`City ZIP` elsewhere, before `District, Hong Kong` in Hong Kong) without `Berth(s) ...` parts.
A post-office box is not a street: such an address gives neither (its postal code is the
box's). Nothing is filled by hand.
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "crates", "core", "data")
OUT = os.path.join(DATA, "terminal-codes.csv")
FIELDS = ["firms_code", "smdg_code", "bic_facility_code", "street", "zip", "source"]
AS_OF = "2026-01-01"
SMDG_TAG = "smdg-2026-01"
BIC_TAG = "bic-sample-2021"

# boxtrack firms_code -> (UN/LOCODE the SMDG list files it under, SMDG terminal code)
SMDG = {
    "A321": ("USBAL", "DMT"), "C324": ("USBAL", "SMT"), "A295": ("USBOS", "PWCMT"),
    "S787": ("USHOU", "BCMT"), "V136": ("USHOU", "BPTM"),
    "M029": ("USJAX", "DPJL"),  # same address (9834 New Berlin Road) as JAXPORT gives TraPac Jacksonville
    "N762": ("USJAX", "TMG"),
    "WAC8": ("USLGB", "LBCT"), "Z952": ("USLGB", "TTI"), "Y309": ("USLGB", "ITS"),
    "W182": ("USLGB", "SSAPCT"), "Z978": ("USLGB", "SSATA"),
    "W185": ("USLAX", "APMT"), "Y257": ("USLAX", "EAGLE"), "Y773": ("USLAX", "WBCT"),
    "Y124": ("USLAX", "ETS"), "Y258": ("USLAX", "TRAP"), "Y790": ("USLAX", "YUSEN"),
    "L239": ("USMIA", "POM"), "N775": ("USMIA", "SOU"), "R103": ("USMOB", "APMT"),
    "P260": ("USMSY", "NOLA"), "Q795": ("USMSY", "NOT"),
    "E425": ("USNYC", "APMT"), "E005": ("USNYC", "NYCT"), "E416": ("USNYC", "MAHER"),
    "E364": ("USNYC", "GTC"), "F577": ("USNYC", "PNCT"),
    "Z985": ("USOAK", "B58"), "Y549": ("USOAK", "TPOAK"), "Y738": ("USOAK", "BENT"),
    "WBA5": ("USOAK", "BENT"),
    "C095": ("USPHL", "PAMT"), "N751": ("USPEF", "FIT"), "O664": ("USPEF", "PET"),
    "M669": ("USTPA", "PTCT"),  # boxtrack files it under USPOT; SMDG under USTPA
    "L737": ("USSAV", "GCMT"),
    "X117": ("USSEA", "SSA18"), "Y197": ("USSEA", "SSA30"), "Y400": ("USSEA", "SSA5"),
    "X215": ("USTIW", "PCT"), "Z693": ("USTIW", "HUSKY"), "Z705": ("USTIW", "WUT"),
    "X335": ("USTIW", "WSIT"),
    "N195": ("USPTM", "VIG"),  # SMDG: USPTM, alternative UN/LOCODE USORF
    "L005": ("USORF", "NIT"),
    "LCT9": ("USCHS", "HLT"), "L391": ("USCHS", "NCMT"), "N598": ("USCHS", "WWMT"),
    "L194": ("USILM", "NCSPA"), "X005": ("USPDX", "PT6"),
    "HKHKGACTHK": ("HKHKG", "ACTHK"), "HKHKGCHTHK": ("HKHKG", "CHTHK"),
    "HKHKGHITHK": ("HKHKG", "HITHK"), "HKHKGMTLHK": ("HKHKG", "MTLHK"),
    "2036": ("CAHAL", "HAFXT"),
    "2425": ("CAMTR", "MGTCAS"),
    "2591": ("CAMTR", "MGTRAC"),  # SMDG says Section 62, boxtrack Section 66
    "2619": ("CAMTR", "TMTMAI"), "5540": ("CAMTR", "VIAU"),
    "3380": ("CAVAN", "CTM"), "3891": ("CAVAN", "DLT"), "3395": ("CAVAN", "VTM"),
    # Prince Rupert Container Terminal is the port's Fairview Container Terminal (DP World)
    "5086": ("CAPRR", "FCTPRR"),
    "ESBCNBEST": ("ESBCN", "BEST"), "PLGDYBCT": ("PLGDY", "PLBCT"),
    "DEHAMCTA": ("DEHAM", "CTA"), "DEHAMCTB": ("DEHAM", "CTB"), "DEHAMCTT": ("DEHAM", "CTT"),
    "ITLIVTAFLIV": ("ITLIV", "TAFLIV"), "ITLIVTDT": ("ITLIV", "TDT"),
    "ITLIVIMP": ("ITLIV", "IMP"), "ITLIVLOREN": ("ITLIV", "LOREN"),
    "ITNAPCONA": ("ITNAP", "CONA"), "ECGYECONTE": ("ECGYE", "CONTE"),
    "20": ("MXATM", "ATP"), "27": ("MXESE", "EIT"), "257": ("MXLZC", "APMT"),
    "200": ("MXLZC", "LCT"), "241": ("MXZLO", "CMSA"), "39": ("MXZLO", "SSAMX"),
    "40": ("MXZLO", "TIMSA"), "184": ("MXPGO", "TCY"), "69": ("MXVER", "ICAVE"),
    "SADMMFCT": ("SADMM", "FCT"), "SADMMSCT": ("SADMM", "SCT"),
    "AEJEADPWJ2": ("AEJEA", "DPWJ2"), "AEJEADPWJ3": ("AEJEA", "DPWJ3"),
    "AEJEADPWJA": ("AEJEA", "DPWJA"), "AEJEADPWJ4": ("AEJEA", "DPWJ4"),
    "SAJEDDPW": ("SAJED", "DPW"), "SAJEDRSGT": ("SAJED", "RSGT"),
    "OMSLLAPMT": ("OMSLL", "APMT"),
    "IQUQRBGTE": ("IQUQR", "BGTE"), "IQUQRBGTW": ("IQUQR", "BGTW"),
    "GBFXTLNG": ("GBFXT", "LNG"), "GBFXTTTY": ("GBFXT", "TTY"),
    "GBLGPDPWLG": ("GBLGP", "DPWLG"), "GBSOUDPWS": ("GBSOU", "DPWS"),
}

# boxtrack firms_code -> BIC Facility Code of the BIC sample (checked against the file)
BIC = {
    "DEHAMCTB": "DEHAMHHLA",  # "Container Terminal Burchardkai (CTB)"
    "DEHAMCTT": "DEHAMHCCF",  # "Container Terminal Tollerort (CTT)"
}

# Terminals the SMDG list does not name: street and postal code as the terminal's own page
# (stored copy) gives them. firms_code -> (street, zip, tag)
PAGES = {
    # https://voyagertrack.portsamerica.com/logon?siteId=TCT_TAC (Ports America, TCT; its
    # notices date it to November 2019)
    "WAM2": ("710 Port of Tacoma Rd.", "98421", "site-tct-2019"),
    # https://vaports.com/FAC-term-pmt.htm (Virginia Port Authority; undated)
    "L045": ("2000 Seaboard Ave.", "23707", "site-vaports"),
}

POSTAL = {
    "US": r"^[A-Z]{2} (\d{5}(?:-\d{4})?)$",
    "CA": r"^[A-Z]{2} ([A-Z]\d[A-Z] \d[A-Z]\d)$",
    "GB": r"([A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2})",
    "PL": r"\b(\d{2}-\d{3})\b",
    "EC": r"\b(\d{6})\b",
    "BD": r"\b(\d{4})\b",
    "OM": r"\b(\d{3})\b",
}
DEFAULT_POSTAL = r"\b(\d{5})\b"
PO_BOX = re.compile(r"^P\.? ?O\.? ?Box\b", re.I)
BERTH = re.compile(r"^Berths? ", re.I)


def street_zip(address, country):
    """(street, zip) from an SMDG address; empty strings where it has none."""
    parts = [p.strip() for p in address.split(",") if p.strip()]
    if len(parts) < 2:
        return "", ""
    if country == "HK":
        street_parts, zip_code = parts[:-2], ""
    else:
        pattern = re.compile(POSTAL.get(country, DEFAULT_POSTAL))
        at = None
        for i in range(len(parts) - 1, 0, -1):
            m = pattern.search(parts[i])
            if m:
                at, zip_code = i, m.group(1)
                break
        if at is None:
            return "", ""
        # US/Canada: `street, City, ST ZIP`; elsewhere the locality shares the ZIP's part.
        street_parts = parts[: at - 1] if country in ("US", "CA") else parts[:at]
    if street_parts and PO_BOX.match(street_parts[0]):
        return "", ""
    street_parts = [p for p in street_parts if not BERTH.match(p)]
    return ", ".join(street_parts), zip_code


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with open(os.path.join(DATA, "terminals.csv"), newline="") as f:
        terminals = [t["firms_code"] for t in csv.DictReader(f)]
    entries = {}
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["Valid Until"] and r["Valid Until"] < AS_OF:
                continue
            entries.setdefault((r["UNLOCODE"], r["Terminal Code"]), r)
    bic_names = {}
    if len(sys.argv) > 2:
        with open(sys.argv[2], newline="", encoding="utf-8") as f:
            bic_names = {r["Facility BIC Code"]: r["Facility Name"] for r in csv.DictReader(f)}
    unknown = sorted((set(SMDG) | set(BIC) | set(PAGES)) - set(terminals))
    if unknown:
        sys.exit(f"not in terminals.csv: {unknown}")
    rows, missing = [], []
    for code in terminals:
        row = dict.fromkeys(FIELDS, "")
        row["firms_code"] = code
        tags = []
        if code in SMDG:
            entry = entries.get(SMDG[code])
            if entry is None:
                missing.append(f"{code}: SMDG {SMDG[code]} absent or expired")
            else:
                row["smdg_code"] = entry["Terminal Code"]
                row["street"], row["zip"] = street_zip(entry["Terminal Address"], SMDG[code][0][:2])
                tags.append(SMDG_TAG)
        if code in BIC and BIC[code] in bic_names:
            row["bic_facility_code"] = BIC[code]
            tags.append(BIC_TAG)
        if code in PAGES and not (row["street"] or row["zip"]):
            row["street"], row["zip"], tag = PAGES[code]
            tags.append(tag)
        if tags:
            row["source"] = ";".join(tags)
            rows.append(row)
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    count = {k: sum(1 for r in rows if r[k]) for k in FIELDS[1:5]}
    print(f"{len(rows)} of {len(terminals)} terminals written; {count}")
    for m in missing:
        print(m)


if __name__ == "__main__":
    main()
