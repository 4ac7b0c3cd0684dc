"""What the plain HTTP endpoints (exports, replays, calendars) share: who is asking, and how
a refusal looks.

They authenticate like ``/graphql/``: ``Authorization: Bearer <token>``; without the header
the request is anonymous (a signed-in admin session counts too, so staff can open the links
from the admin). A refusal is JSON ``{"error": {"code", "message"}}`` with its status, never
an HTML page.
"""

from __future__ import annotations

import json

from django.http import HttpResponse

from accounts import services as account_services
from accounts.errors import AuthError, DomainError

STATUS_OF = {"not_found": 404, "not_finished": 409, "not_started": 409, "not_elimination": 404, "forbidden": 403,
             "unauthenticated": 401, "invalid_token": 401, "token_expired": 401,
             "malformed_authorization": 401, "banned": 403, "inactive": 403}


def request_player(request):
    """The player of this request (bearer token first, then the admin session), or None.
    Raises ``AuthError`` for a header that is present but not good."""
    header = request.headers.get("Authorization")
    if header:
        return account_services.player_for_token(account_services.bearer_token(header))
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user
    return None


def error_response(exc: DomainError) -> HttpResponse:
    code = getattr(exc, "code", "error")
    status = STATUS_OF.get(code, 400)
    body = {"error": {"code": code, "message": getattr(exc, "message", str(exc))}}
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json")
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="stapel"'
    return response


def file_response(content: str | bytes, *, content_type: str, filename: str,
                  attachment: bool = False) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    disposition = "attachment" if attachment else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    return response


__all__ = ["AuthError", "error_response", "file_response", "request_player"]
