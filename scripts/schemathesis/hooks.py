"""Schemathesis hooks for boxtrack (loaded through SCHEMATHESIS_HOOKS by
scripts/schemathesis-check.sh).

`POST /v2/email_submissions` takes a raw e-mail (`message/rfc822`), a media type
schemathesis has no serializer for: its generated strings are sent as they are.

`POST /v2/ingest/dcsa` is authenticated by its `Notification-Signature` header, the
HMAC-SHA256 of the exact body keyed with the subscription secret (security scheme
DcsaSignature). With BTK_DCSA_SECRET set (the base64 secret the server was started with),
a request that carries the header is sent with the body's true signature; one that a
negative test made without it is left without it.
"""

import base64
import hashlib
import hmac
import json
import os

import schemathesis


@schemathesis.serializer("message/rfc822")
def rfc822(ctx, value):
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": str(value).encode("utf-8")}


def _header(headers, name):
    for k in list(headers or {}):
        if k.lower() == name.lower():
            return k
    return None


@schemathesis.hook
def before_call(context, case, kwargs):
    secret = os.environ.get("BTK_DCSA_SECRET")
    if not secret or case.path != "/v2/ingest/dcsa" or case.method.upper() != "POST":
        return
    name = _header(case.headers, "Notification-Signature")
    if name is None:
        return
    body = case.body
    if isinstance(body, bytes):
        raw = body
    elif isinstance(body, str):
        raw = body.encode("utf-8")
    else:
        try:
            raw = json.dumps(body).encode("utf-8")
        except (TypeError, ValueError):
            return
    # the bytes signed are the bytes sent
    kwargs["data"] = raw
    key = base64.b64decode(secret)
    case.headers[name] = "sha256=" + hmac.new(key, raw, hashlib.sha256).hexdigest()
