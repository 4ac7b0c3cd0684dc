"""Signed webhooks for organisers: endpoints, the events they get, and their delivery.

An event is written as one ``WebhookDelivery`` row per matching endpoint inside the
transaction that changed the tournament (an outbox), and a Celery task sends it after commit.
Each try is signed per Standard Webhooks (``webhook-id``, ``webhook-timestamp``,
``webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">``); a failed try is
retried with exponential backoff under the same ``webhook-id``, so delivery is at least once
and receivers de-duplicate on the id. The tournament clock re-queues tries whose task was
lost. An endpoint failing too many tries in a row is disabled and says why (API and admin).

Only http(s) URLs to public addresses are called: loopback, private, link-local and other
non-global addresses are refused (``STAPEL_WEBHOOK_ALLOWED_NETWORKS`` lets some through, for
tests and closed networks). The address is resolved and checked at every try and the request
goes to that checked address, so a name cannot be re-pointed between check and use. Short
timeouts; redirects are never followed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import uuid
from datetime import datetime, timedelta
from functools import partial
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from games import scheduling

from .errors import TournamentError
from .models import (
    DeliveryStatus,
    Standing,
    Tournament,
    TournamentRound,
    TournamentTable,
    WebhookDelivery,
    WebhookEndpoint,
)
from .selectors import is_organiser

log = logging.getLogger("stapel.webhooks")

# Event types, as sent in the payload's ``type``; endpoints choose among them.
EVENTS = (
    "tournament.registration_opened",
    "tournament.registration_closed",
    "tournament.started",
    "tournament.round_started",
    "tournament.table_finished",
    "tournament.round_finished",
    "tournament.finished",
    "tournament.cancelled",
    "tournament.player_disqualified",
)
TEST_EVENT = "webhook.test"
MAX_ENDPOINTS_PER_OWNER = 20
USER_AGENT = "Stapel-Webhooks/1"


def _setting(name: str, default):
    return getattr(settings, f"STAPEL_WEBHOOK_{name}", default)


# --- signing (Standard Webhooks) ----------------------------------------------------------------

def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix("whsec_"))


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value of one try."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify(secret: str, headers: dict, body: bytes, *, tolerance: int = 300,
           now: int | None = None) -> bool:
    """What a receiver does (documented in docs/tournaments.md; used by our tests)."""
    headers = {k.lower(): v for k, v in headers.items()}
    try:
        message_id = headers["webhook-id"]
        timestamp = int(headers["webhook-timestamp"])
        signatures = headers["webhook-signature"].split()
    except (KeyError, ValueError):
        return False
    now = int(timezone.now().timestamp()) if now is None else now
    if abs(now - timestamp) > tolerance:
        return False
    expected = sign(secret, message_id, timestamp, body)
    return any(hmac.compare_digest(expected, s) for s in signatures)


def body_of(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


# --- addresses --------------------------------------------------------------------------------

class Refused(Exception):
    """A URL or address we do not call; the message is safe to show its owner."""


def _allowed_networks():
    return [ipaddress.ip_network(n, strict=False)
            for n in _setting("ALLOWED_NETWORKS", [])]


def _address_ok(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if any(ip in net for net in _allowed_networks()):
        return True
    return ip.is_global and not ip.is_multicast


def _split(url: str):
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https"):
        raise Refused("only http and https URLs")
    if not parts.hostname:
        raise Refused("the URL has no host")
    if parts.username or parts.password:
        raise Refused("no credentials in the URL: check the signature instead")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("the URL's port is not a number") from None
    return parts, port


def resolve(url: str) -> list[str]:
    """The URL's addresses, every one of them allowed; else ``Refused``."""
    parts, port = _split(url)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused("the host name does not resolve") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses or not all(_address_ok(a) for a in addresses):
        raise Refused("the host is a loopback, private, link-local or reserved address")
    return addresses


def check_url(url: str) -> str:
    url = (url or "").strip()
    if len(url) > 500:
        raise TournamentError("invalid_url", "at most 500 characters", field="url")
    try:
        resolve(url)
    except Refused as exc:
        raise TournamentError("invalid_url", str(exc), field="url") from None
    return url


# --- endpoints --------------------------------------------------------------------------------

def _check_events(events: list[str] | None) -> list[str]:
    events = list(dict.fromkeys(events or []))
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise TournamentError("invalid_events", f"unknown events: {', '.join(unknown)}",
                              field="events")
    return events


def _may_manage(actor: Player, endpoint: WebhookEndpoint) -> bool:
    return actor.is_staff or endpoint.owner_id == actor.pk


def _endpoint_for(actor: Player, endpoint_id, *, lock: bool = False) -> WebhookEndpoint:
    qs = WebhookEndpoint.objects.select_for_update() if lock else WebhookEndpoint.objects
    try:
        endpoint = qs.get(pk=int(endpoint_id))
    except (WebhookEndpoint.DoesNotExist, ValueError, TypeError):
        endpoint = None
    if endpoint is None or not _may_manage(actor, endpoint):
        raise TournamentError("not_found", "no such webhook endpoint", field="endpointId")
    return endpoint


@transaction.atomic
def endpoint_create(*, owner: Player, url: str, tournament_id=None,
                    events: list[str] | None = None, description: str = "",
                    ) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret (shown this once). Organisers register for their own
    tournaments (one, or all of them); staff for any one tournament."""

    if not (owner.is_staff or is_organiser(owner)):
        raise TournamentError("not_organiser", "only organisers and staff register webhooks")
    tournament = None
    if tournament_id is not None:
        try:
            tournament = Tournament.objects.get(pk=int(tournament_id))
        except (Tournament.DoesNotExist, ValueError, TypeError):
            raise TournamentError("not_found", "no such tournament",
                                  field="tournamentId") from None
        if not (owner.is_staff or tournament.organiser_id == owner.pk):
            raise TournamentError("not_organiser", "not your tournament", field="tournamentId")
    if WebhookEndpoint.objects.filter(owner=owner).count() >= MAX_ENDPOINTS_PER_OWNER:
        raise TournamentError("too_many_endpoints",
                              f"at most {MAX_ENDPOINTS_PER_OWNER} webhook endpoints")
    secret = new_secret()
    endpoint = WebhookEndpoint.objects.create(
        owner=owner, tournament=tournament, url=check_url(url), events=_check_events(events),
        description=(description or "").strip()[:200], secret=secret)
    return endpoint, secret


@transaction.atomic
def endpoint_update(*, actor: Player, endpoint_id, url: str | None = None,
                    events: list[str] | None = None, description: str | None = None,
                    active: bool | None = None) -> WebhookEndpoint:
    """Change an endpoint; ``active=True`` enables a disabled one again (its failure count
    starts over)."""
    endpoint = _endpoint_for(actor, endpoint_id, lock=True)
    if url is not None:
        endpoint.url = check_url(url)
    if events is not None:
        endpoint.events = _check_events(events)
    if description is not None:
        endpoint.description = description.strip()[:200]
    if active is True and not endpoint.is_active:
        endpoint.is_active = True
        endpoint.consecutive_failures = 0
        endpoint.disabled_at = None
        endpoint.disabled_reason = ""
    elif active is False and endpoint.is_active:
        endpoint.is_active = False
        endpoint.disabled_at = timezone.now()
        endpoint.disabled_reason = f"disabled by {actor.username}"
    endpoint.save()
    return endpoint


@transaction.atomic
def endpoint_rotate_secret(*, actor: Player, endpoint_id) -> tuple[WebhookEndpoint, str]:
    endpoint = _endpoint_for(actor, endpoint_id, lock=True)
    endpoint.secret = new_secret()
    endpoint.save(update_fields=["secret"])
    return endpoint, endpoint.secret


@transaction.atomic
def endpoint_delete(*, actor: Player, endpoint_id) -> None:
    _endpoint_for(actor, endpoint_id, lock=True).delete()


@transaction.atomic
def endpoint_send_test(*, actor: Player, endpoint_id) -> WebhookDelivery:
    """A ``webhook.test`` event to this endpoint alone, disabled or not (to check a fixed
    receiver before enabling it again)."""
    endpoint = _endpoint_for(actor, endpoint_id)
    data = {"endpointId": str(endpoint.pk), "requestedBy": actor.username}
    return _deliveries_create([endpoint], TEST_EVENT, data)[0]


def endpoints_of(owner: Player) -> list[WebhookEndpoint]:
    return list(WebhookEndpoint.objects.filter(owner=owner).order_by("id"))


def deliveries_of(*, actor: Player, endpoint_id, first: int = 50) -> list[WebhookDelivery]:
    endpoint = _endpoint_for(actor, endpoint_id)
    return list(endpoint.deliveries.order_by("-id")[:first])


# --- events -----------------------------------------------------------------------------------

def _player(player_id: int, names: dict[int, str]) -> dict:
    return {"id": str(player_id), "displayName": names.get(player_id, "")}


def _names(ids) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=set(ids)).values_list("pk", "display_name"))


def _tournament(t: Tournament) -> dict:
    return {"id": str(t.pk), "name": t.name, "game": t.game, "format": t.format,
            "status": t.status, "round": t.current_round}


def _standings(t: Tournament) -> list[dict]:
    rows = list(Standing.objects.filter(tournament=t).select_related("player").order_by("rank"))
    return [{"rank": s.rank, "player": {"id": str(s.player_id),
                                         "displayName": s.player.display_name},
             "points": s.points, "buchholz": s.buchholz, "wins": s.wins,
             "placingSum": s.placing_sum, "matches": s.matches, "byes": s.byes,
             "eliminatedInRound": s.eliminated_in_round} for s in rows]


def _table(link: TournamentTable, names: dict[int, str], *, placings: bool = False) -> dict:
    out = {"number": link.number, "tableId": link.table.public_id, "seats": link.seats,
           "players": [_player(p, names) for p in link.players]}
    if placings:
        out["placings"] = [{**_player(int(p), names), "placing": v}
                           for p, v in sorted((link.placings or {}).items(),
                                              key=lambda kv: (kv[1], int(kv[0])))]
    return out


def _data(t: Tournament, event: str, *, round: TournamentRound | None = None,
          tables: list[TournamentTable] | None = None, link: TournamentTable | None = None,
          player_id: int | None = None, reason: str = "") -> dict:
    data = {"tournament": _tournament(t)}
    if round is not None:
        data["round"] = round.number
    if event == "tournament.round_started":
        tables = tables or []
        names = _names([p for x in tables for p in x.players] + list(round.byes if round else []))
        data["tables"] = [_table(x, names) for x in tables]
        data["byes"] = [_player(p, names) for p in (round.byes if round else [])]
    elif event == "tournament.table_finished" and link is not None:
        data["round"] = link.round.number
        data["table"] = _table(link, _names(link.players), placings=True)
    elif event in ("tournament.round_finished", "tournament.finished"):
        data["standings"] = _standings(t)
    elif event == "tournament.player_disqualified":
        data["player"] = _player(player_id, _names([player_id]))
        data["reason"] = reason
    elif event == "tournament.cancelled":
        data["reason"] = reason
    return data


def _deliveries_create(endpoints: list[WebhookEndpoint], event: str,
                       data: dict) -> list[WebhookDelivery]:
    now = timezone.now()
    payload = {"type": event, "timestamp": now.isoformat().replace("+00:00", "Z"),
               "data": data}
    rows = WebhookDelivery.objects.bulk_create([
        WebhookDelivery(endpoint=e, message_id=f"msg_{uuid.uuid4().hex}", event_type=event,
                        payload=payload, next_attempt_at=now) for e in endpoints])
    from . import tasks

    for row in rows:
        transaction.on_commit(partial(scheduling.schedule, tasks.webhook_deliver, [row.pk]))
    return rows


def emit(t: Tournament, event: str, **context) -> int:
    """Queue ``event`` of ``t`` for every active endpoint that wants it; call inside the
    transaction that made the change (the rows commit with it). Returns how many."""
    assert event in EVENTS, event
    endpoints = list(WebhookEndpoint.objects.filter(owner_id=t.organiser_id,
                                                    tournament__isnull=True, is_active=True))
    endpoints += list(WebhookEndpoint.objects.filter(tournament=t, is_active=True))
    endpoints = [e for e in endpoints if not e.events or event in e.events]
    if not endpoints:
        return 0
    return len(_deliveries_create(endpoints, event, _data(t, event, **context)))


# --- delivery ---------------------------------------------------------------------------------

def backoff_seconds(attempts: int) -> float:
    """Wait after the ``attempts``-th failed try: base, x3 each time, at most 30 minutes (a
    countdown stays well below the broker's visibility timeout)."""
    base = float(_setting("RETRY_BASE_SECONDS", 10.0))
    return min(base * 3 ** max(0, attempts - 1), 1800.0)


def _send(url: str, body: bytes, headers: dict) -> tuple[int | None, str]:
    """One POST to the checked address of ``url``: (status code, error or "")."""
    parts, port = _split(url)
    address = resolve(url)[0]
    host = f"[{address}]" if ":" in address else address
    target = urlunsplit((parts.scheme, f"{host}:{port}", parts.path or "/", parts.query, ""))
    headers = {**headers, "Host": parts.netloc.rsplit("@", 1)[-1]}
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    timeout = float(_setting("TIMEOUT_SECONDS", 5.0))
    with httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 3.0)),
                      follow_redirects=False, trust_env=False) as client:
        with client.stream("POST", target, content=body, headers=headers,
                           extensions=extensions) as response:
            snippet = b""
            for chunk in response.iter_bytes():
                snippet += chunk
                if len(snippet) >= 200:
                    break
            if 200 <= response.status_code < 300:
                return response.status_code, ""
            text = snippet[:120].decode("utf-8", "replace").strip()
            reason = f"HTTP {response.status_code}"
            if 300 <= response.status_code < 400:
                reason += " (redirects are not followed)"
            return response.status_code, f"{reason}: {text}" if text else reason


def delivery_attempt(*, delivery_id: int, now: datetime | None = None) -> float | None:
    """Try one due delivery once. Returns the seconds until its next try, or None when it is
    done (succeeded, failed for good, not due, or gone). Safe to call twice: a try claims the
    row first (pushing ``next_attempt_at`` past the request's timeout)."""
    now = now or timezone.now()
    with transaction.atomic():
        d = (WebhookDelivery.objects.select_for_update().select_related("endpoint")
             .filter(pk=delivery_id).first())
        if d is None or d.status != DeliveryStatus.PENDING:
            return None
        if d.next_attempt_at and d.next_attempt_at > now:
            return None
        endpoint = d.endpoint
        if not endpoint.is_active and d.event_type != TEST_EVENT:
            d.status = DeliveryStatus.FAILED
            d.last_error = "endpoint disabled"
            d.next_attempt_at = None
            d.save(update_fields=["status", "last_error", "next_attempt_at"])
            return None
        d.attempts += 1
        d.last_attempt_at = now
        d.next_attempt_at = now + timedelta(
            seconds=float(_setting("TIMEOUT_SECONDS", 5.0)) * 2 + 30)
        d.save(update_fields=["attempts", "last_attempt_at", "next_attempt_at"])
        url, secret = endpoint.url, endpoint.secret
        body = body_of(d.payload)
        message_id, attempts = d.message_id, d.attempts

    timestamp = int(timezone.now().timestamp())
    headers = {"content-type": "application/json", "user-agent": USER_AGENT,
               "webhook-id": message_id, "webhook-timestamp": str(timestamp),
               "webhook-signature": sign(secret, message_id, timestamp, body)}
    try:
        code, error = _send(url, body, headers)
    except Refused as exc:
        code, error = None, f"refused: {exc}"
    except httpx.TimeoutException:
        code, error = None, "timed out"
    except httpx.HTTPError as exc:
        code, error = None, f"{type(exc).__name__}: {str(exc)[:150]}"

    with transaction.atomic():
        d = WebhookDelivery.objects.select_for_update().get(pk=delivery_id)
        endpoint = WebhookEndpoint.objects.select_for_update().get(pk=d.endpoint_id)
        done = timezone.now()
        d.last_status_code = code
        d.last_error = error[:300]
        if not error:
            d.status = DeliveryStatus.SUCCEEDED
            d.delivered_at = done
            d.next_attempt_at = None
            endpoint.consecutive_failures = 0
            endpoint.save(update_fields=["consecutive_failures"])
            d.save()
            return None
        log.info("webhook %s to endpoint %s failed (try %d): %s", message_id, endpoint.pk,
                 attempts, error)
        retry_in = None
        if attempts >= int(_setting("MAX_ATTEMPTS", 6)):
            d.status = DeliveryStatus.FAILED
            d.next_attempt_at = None
        else:
            retry_in = backoff_seconds(attempts)
            d.next_attempt_at = done + timedelta(seconds=retry_in)
        d.save()
        endpoint.consecutive_failures += 1
        endpoint.save(update_fields=["consecutive_failures"])
        if (endpoint.is_active and endpoint.consecutive_failures
                >= int(_setting("DISABLE_AFTER_FAILURES", 15))):
            _disable(endpoint, done, f"{endpoint.consecutive_failures} failed tries in a row; "
                                     f"last: {error}"[:300])
            if d.event_type != TEST_EVENT:
                retry_in = None
        return retry_in


def _disable(endpoint: WebhookEndpoint, now: datetime, reason: str) -> None:
    endpoint.is_active = False
    endpoint.disabled_at = now
    endpoint.disabled_reason = reason
    endpoint.save(update_fields=["is_active", "disabled_at", "disabled_reason"])
    endpoint.deliveries.filter(status=DeliveryStatus.PENDING).exclude(
        event_type=TEST_EVENT).update(status=DeliveryStatus.FAILED, next_attempt_at=None,
                                      last_error="endpoint disabled")
    log.warning("webhook endpoint %s disabled: %s", endpoint.pk, reason)


def deliveries_sweep(*, now: datetime | None = None, grace_seconds: float = 30.0) -> int:
    """Re-queue pending tries overdue by more than ``grace_seconds`` (their task was lost)."""
    now = now or timezone.now()
    from . import tasks

    overdue = list(WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING,
        next_attempt_at__lte=now - timedelta(seconds=grace_seconds))
        .values_list("pk", flat=True)[:500])
    for pk in overdue:
        scheduling.schedule(tasks.webhook_deliver, [pk])
    return len(overdue)
