#!/usr/bin/env python3
"""A wrk script of keyed container reads from bench-seed's json.

    bench/cpu-per-request/containers-lua.py /tmp/seed10k.json > /tmp/containers.lua

Each request is `GET /v2/containers/{id}?include=shipment` with its account's key, 50 sample
containers of each seeded account in turn (500 for the default 10 accounts).
"""
import json
import sys

seed = json.load(open(sys.argv[1]))
lines = ["local reqs = {}", "local i = 0"]
n = 0
for account in seed["accounts"]:
    for container in account["sample"][:50]:
        n += 1
        lines.append(
            'reqs[%d] = {"/v2/containers/%s?include=shipment", "Token %s"}'
            % (n, container, account["key"])
        )
lines.append(
    "request = function() i = (i %% %d) + 1; local r = reqs[i]; "
    "return wrk.format('GET', r[1], {['Authorization'] = r[2]}) end" % n
)
print("\n".join(lines))
