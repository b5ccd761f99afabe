"""Schemathesis hooks for boxtrack (loaded through SCHEMATHESIS_HOOKS by
scripts/schemathesis-check.sh).

`POST /v2/email_submissions` takes a raw e-mail (`message/rfc822`), a media type
schemathesis has no serializer for: its generated strings are sent as they are.
"""

import schemathesis


@schemathesis.serializer("message/rfc822")
def rfc822(ctx, value):
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": str(value).encode("utf-8")}
