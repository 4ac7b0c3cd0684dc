"""Issue 14 on the real stack, two web nodes (uvicorn processes) on one Redis channel layer:
a revoked token's sockets close on both nodes; the costly query is refused fast by a live
node that keeps answering; private tables answer outsiders as if they did not exist."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from .client import GraphQLError, Http, Socket
from .conftest import service_env, start_server
from .play import new_guest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def second_node(live_server_url, artifacts_dir):
    proc, url = start_server(artifacts_dir, service_env())
    yield url
    proc.stop()


async def test_revoking_a_token_closes_its_sockets_on_every_node(live_server_url, second_node):
    alice = await new_guest(live_server_url, "Alice")
    spare = (await alice('mutation { createApiToken(name: "spare") { token } }')
             )["createApiToken"]["token"]
    on_a = await Socket(live_server_url, alice.token).connect()
    on_b = await Socket(second_node, alice.token).connect()
    spare_on_b = await Socket(second_node, spare).connect()
    assert (await on_b.execute("{ me { displayName } }"))["me"]["displayName"] == "Alice"

    tokens = (await Http(second_node, spare)("{ apiTokens { id name } }"))["apiTokens"]
    guest_id = next(t["id"] for t in tokens if t["name"] == "guest")
    started = time.monotonic()
    revoked = await Http(second_node, spare)(
        "mutation($id: ID!) { revokeApiToken(id: $id) { errors { code } } }", {"id": guest_id})
    assert revoked["revokeApiToken"]["errors"] == []

    await asyncio.wait_for(asyncio.gather(on_a.closed.wait(), on_b.closed.wait()), 5)
    assert (on_a.close_code, on_b.close_code) == (4403, 4403)
    assert time.monotonic() - started < 5
    # The token is refused over HTTP on both nodes; the spare token's socket lives on.
    for url in (live_server_url, second_node):
        with pytest.raises(GraphQLError) as refused:
            await Http(url, alice.token)("{ me { id } }")
        assert refused.value.args[0][0]["extensions"]["code"] == "invalid_token"
    assert (await spare_on_b.execute("{ me { displayName } }"))["me"]["displayName"] == "Alice"
    await spare_on_b.close()
    await on_a.close()
    await on_b.close()


ONE = ("t{i}: tables(status: FINISHED, first: 100) {{ items {{ id view {{ __typename }} "
       "events(limit: 500) {{ seq kind events {{ type data }} }} }} }}")
COSTLY = "{ " + " ".join(ONE.format(i=i) for i in range(20)) + " }"


async def test_the_costly_query_is_refused_in_milliseconds_and_the_node_stays_up(
        live_server_url, second_node):
    async with httpx.AsyncClient(timeout=10) as client:
        started = time.monotonic()
        responses = await asyncio.gather(*(
            client.post(f"{url}/graphql/", json={"query": COSTLY})
            for url in (live_server_url, second_node) for _ in range(10)))
        elapsed = time.monotonic() - started
        for response in responses:
            assert response.status_code == 200
            assert response.json()["errors"][0]["extensions"]["code"] == "query_too_costly"
        assert elapsed < 3, elapsed
        health = await client.get(f"{live_server_url}/health/")
        assert health.status_code == 200


async def test_an_invalid_frame_closes_the_socket_on_the_real_server(live_server_url):
    alice = await new_guest(live_server_url, "Alice")
    socket = await Socket(live_server_url, alice.token).connect()
    await socket.ws.send('"x"')
    await asyncio.wait_for(socket.closed.wait(), 5)
    assert socket.close_code == 4400
    await socket.close()


async def test_a_websocket_upgrade_on_the_admin_is_refused(live_server_url):
    import websockets

    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(live_server_url.replace("http", "ws") + "/admin/")
    assert refused.value.response.status_code == 403


async def test_a_private_table_is_not_found_by_outsiders_on_any_node(live_server_url,
                                                                    second_node):
    alice = await new_guest(live_server_url, "Alice")
    mallory = await new_guest(second_node, "Mallory")
    created = await alice("""mutation { createTable(input: {game: "kato", visibility: PRIVATE})
        { table { id } errors { code } } }""")
    table_id = created["createTable"]["table"]["id"]
    query = "query($id: ID!) { table(id: $id) { id seats { player { displayName } } } }"
    for url in (live_server_url, second_node):
        assert (await Http(url, mallory.token)(query, {"id": table_id})) == {"table": None}
    socket = await Socket(second_node, mallory.token).connect()
    sub = await socket.subscribe("subscription($id: ID!) { tableEvents(tableId: $id) { seq } }",
                                 {"id": table_id})
    with pytest.raises(GraphQLError) as refused:
        await sub.next(timeout=10)
    assert refused.value.args[0][0]["extensions"]["code"] == "not_found"
    await socket.close()
    assert (await alice(query, {"id": table_id}))["table"]["id"] == table_id
