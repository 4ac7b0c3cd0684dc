"""Every authenticated request reads its bearer token and player: on PostgreSQL in one
prepared statement, giving exactly what the ORM gives, with the same refusals."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services
from accounts.errors import AuthError
from accounts.models import ApiToken

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_token_and_its_player_are_one_statement_and_what_the_orm_reads():
    player, raw = services.guest_create(display_name="Alice")
    services.player_for_token(raw)  # its first use is written down (last_used_at)
    with CaptureQueriesContext(connection) as queries:
        found = services.player_for_token(raw)
    expected = ApiToken.objects.select_related("player").get(pk=player.auth_token.pk)
    if connection.vendor == "postgresql":
        # One read: the token was just used, its last_used_at is not written again.
        assert len(queries.captured_queries) == 1
        assert "JOIN" in queries.captured_queries[0]["sql"]
    for model_object, orm_object in ((found.auth_token, expected),
                                     (found, expected.player)):
        for field in type(orm_object)._meta.concrete_fields:
            assert getattr(model_object, field.attname) == getattr(orm_object, field.attname)
    assert found.auth_token.player is found and found._state.adding is False
    # Its use is known to the ORM as any loaded row is: saving changes one field.
    found.display_name = "Alicia"
    found.save(update_fields=["display_name"])
    assert type(found).objects.get(pk=found.pk).display_name == "Alicia"


def test_a_revoked_or_unknown_token_is_refused_as_before():
    player, raw = services.guest_create(display_name="Bob")
    with pytest.raises(AuthError) as refused:
        services.player_for_token(raw[:-1] + ("x" if raw[-1] != "x" else "y"))
    assert refused.value.code == "invalid_token"
    ApiToken.objects.filter(pk=player.auth_token.pk).update(revoked_at=timezone.now())
    with pytest.raises(AuthError) as refused:
        services.player_for_token(raw)
    assert refused.value.code == "invalid_token"


def test_an_http_request_reads_its_token_on_a_thread_that_keeps_its_connection(
        gql, monkeypatch):
    """Not on the request's thread-sensitive executor, which starts a thread and takes a
    pooled connection for each request."""
    import threading

    from config import graphql

    threads = []
    original = graphql._authenticate

    def recorded(header):
        threads.append(threading.current_thread().name)
        return original(header)

    monkeypatch.setattr(graphql, "_authenticate", recorded)
    _, raw = services.guest_create(display_name="Carol")
    for _ in range(3):
        answer = gql.raw("{ me { displayName } }", headers={"Authorization": f"Bearer {raw}"})
        assert answer.json()["data"]["me"]["displayName"] == "Carol"
    assert len(threads) == 3 and all(name.startswith("stapel-move-") for name in threads)
