"""Drives boxtrack's MCP server with the official Python client (PyPI `mcp`).

Usage: MCP_URL=http://127.0.0.1:8080/mcp MCP_API_KEY=btk_... python scripts/mcp_client_check.py
Exits non-zero when anything the client sees is wrong. Run by scripts/mcp-python-check.sh.
"""

import asyncio
import json
import os
import sys

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


async def main() -> int:
    url = os.environ["MCP_URL"]
    headers = {"Authorization": f"Token {os.environ['MCP_API_KEY']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
            check(client.session.protocol_version == "2025-06-18", "protocol 2025-06-18 negotiated")
            tools = await client.list_tools()
            names = {t.name for t in tools.tools}
            for n in ["search_container", "track_container", "get_container", "get_shipment_details",
                      "get_container_transport_events", "get_supported_shipping_lines",
                      "get_container_route", "list_shipments", "list_containers",
                      "list_tracking_requests", "get_container_readiness"]:
                check(n in names, f"tool {n} listed")
            listed = await client.call_tool("list_containers", {})
            check(not listed.is_error, "list_containers succeeds")
            items = listed.structured_content["items"]
            check(len(items) >= 1, "the tracked container is listed")
            number = items[0]["number"]
            found = await client.call_tool("search_container", {"query": number})
            check(not found.is_error and found.structured_content["total_results"] >= 1, "search_container finds it")
            cid = found.structured_content["containers"][0]["id"]
            ready = await client.call_tool("get_container_readiness", {"id": cid})
            check(not ready.is_error and "ready_for_pickup" in ready.structured_content, "readiness summary")
            # the client checks each structured answer against the tool's outputSchema
            c = await client.call_tool("get_container", {"id": cid, "include": ["transport_events"]})
            check(not c.is_error and c.structured_content["container_number"] == number, "get_container in the reference server's shape")
            check(c.structured_content["demurrage"]["urgency"] in ("overdue", "imminent", "none", "unknown"), "with the LFD's urgency")
            s = await client.call_tool("get_shipment_details", {"id": c.structured_content["shipment"]["id"]})
            check(not s.is_error and "port_of_discharge" in s.structured_content["routing"], "get_shipment_details with its routing")
            ev = await client.call_tool("get_container_transport_events", {"id": cid})
            check(not ev.is_error and ev.structured_content["total_events"] == len(ev.structured_content["timeline"]), "the transport events' timeline")
            bad = await client.call_tool("get_container", {"id": "not-a-uuid"})
            check(bad.is_error, "bad arguments are an isError result")
            lines = await client.call_tool("get_supported_shipping_lines", {"search": "MSC"})
            check(any(l["scac"] == "MSCU" for l in lines.structured_content["shipping_lines"]), "shipping lines filtered")
            p = await client.get_prompt("track-shipment", {"container_number": number, "carrier": "TEST"})
            check(number in p.messages[0].content.text, "prompt track-shipment")
            r = await client.read_resource("boxtrack://docs/milestone-glossary")
            check("vessel_discharged" in r.contents[0].text, "glossary resource")
            r = await client.read_resource(f"boxtrack://container/{cid}")
            check(r.contents[0].text.startswith("# Container"), "container resource")
            print(json.dumps({"tools": len(names), "container": number}))
    return 0


sys.exit(asyncio.run(main()))
