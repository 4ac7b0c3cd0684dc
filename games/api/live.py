"""The live path of the API: table updates as they happen, and moves over the websocket.

``table_updates`` is the one source of a subscriber's ``tableEvents``: first what it missed
after ``afterSeq`` (from the log), then each change as the fan-out delivers it
(games/fanout.py), with gaps filled from the log, for whatever seat the player holds.

The hot operations are served without running GraphQL for every subscriber and every move.
Each document a client sends is compiled once (``plan_for``, cached by its text): parsed,
validated against the schema, its fields collected by the spec's rules (aliases, fragments,
type conditions on the ``GameView`` union). A compiled ``tableEvents`` subscription or
``act`` mutation then only projects the typed result onto the client's selection and writes
the frame; the typed result of a change is built once per audience in each process, and the
projected frame once per distinct document. Anything the plan does not cover (directives,
field arguments, resolver fields such as ``ActPayload.table``, invalid variables, errors
before the first update) runs through strawberry as before, so answers and errors are the
schema's own; a test compares both paths frame by frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import json
import queue
import threading
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter

import orjson
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLBoolean,
    GraphQLError,
    GraphQLID,
    GraphQLInputObjectType,
    GraphQLInt,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLString,
    GraphQLUnionType,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    Undefined,
    VariableNode,
    get_named_type,
    is_required_input_field,
    parse,
    type_from_ast,
    validate,
    value_from_ast,
)
from graphql.execution.values import get_argument_values, get_variable_values
from graphql.language import Visitor, visit

from accounts.errors import DomainError
from config.api import UserError
from config.validation import bad_string, string_error
from games import fanout, realtime, selectors, services
from games.engine import GAMES
from games.errors import GameError

from .types import GameEvent, TableStatusEnum, TableUpdate, event_data, view_readers

# --- table updates -----------------------------------------------------------------------------


def _id(value) -> selectors.PublicTableId:
    return selectors.public_table_id(value)


def watch_check(table_id, player, after_seq: int = 0) -> tuple[int, int]:
    """Checks the player may watch from ``after_seq``; the table's internal key, and the
    spectator delay that applies to the player whenever they do not sit there (0: never)."""
    table = selectors.table_for(table_id, player)
    seat = selectors.viewer_seat(table, player)
    last_seq = table.last_seq
    delay = selectors.reader_delay(table, player, seat)
    if after_seq > 0 and delay:  # a delayed reader learns no newer seq from the refusal
        last_seq = min(last_seq, selectors.delay_cut(table, delay))
    if after_seq > last_seq:
        raise GameError("bad_after_seq", f"afterSeq is beyond the table's last seq "
                                         f"({last_seq}): resubscribe with at most that",
                        field="afterSeq", extensions={"lastSeq": last_seq})
    if not selectors.may_watch(table, player, seat):
        raise GameError("spectators_not_allowed", "this table does not allow spectators")
    return table.pk, selectors.table_delay(table, player)


def update_of(entry, public_id: str, seat: int | None, status: str,
              view_payload=None) -> TableUpdate:
    # The status as of this entry; `status` (today's) only for entries logged without one.
    return TableUpdate.of(public_id, entry.seq, entry.kind, entry.version,
                          entry.status or status,
                          realtime.redact_events(entry.events, seat), view_payload)


def _replay(table_id: int, player, after_seq: int):
    """Missed entries after ``after_seq``, redacted for the seat the player holds now, and
    the current view.

    The log is read before the table: the table's ``last_seq`` is then at least every entry
    read, so the view is attached only to the entry it belongs to (a change committed
    between the two reads makes the caller read again). Read the other way round, a
    change committing in between was replayed without its view and its live message was
    skipped as already seen: the client waited for ever."""
    entries = selectors.log_after(table_id, after_seq)
    table = selectors.table_get(table_id)
    seat = selectors.viewer_seat(table, player)
    return entries, seat, table.status, selectors.view_for(table, seat), table.last_seq


# The typed update of one published message, built once per process however many local
# sockets receive it (every spectator of a table, several tabs of one player), for the
# subscriptions strawberry runs; compiled ones project the message itself (``_frame_data``).
_UPDATES: OrderedDict[tuple, TableUpdate] = OrderedDict()
_UPDATES_MAX = 4096


def update_from_message(message: dict) -> TableUpdate:
    cache_key = (message["table"], message["audience"], message["seq"])
    update = _UPDATES.get(cache_key)
    if update is None:
        update = TableUpdate.of(message["public_id"], message["seq"], message["kind"],
                                message["version"], message["status"], message["events"],
                                message["view"])
        _UPDATES[cache_key] = update
        if len(_UPDATES) > _UPDATES_MAX:
            _UPDATES.popitem(last=False)
    return update


async def _gap(tid: int, player, public_id: str, last: int, seq: int):
    """The log's entries after ``last`` and before ``seq``: what the fan-out dropped."""
    entries, seat, status, _, _ = await database_sync_to_async(_replay)(tid, player, last)
    for entry in entries:
        if entry.seq >= seq:
            break
        yield update_of(entry, public_id, seat, status)


async def table_updates(table_id, player, after_seq: int = 0, *,
                        live=update_from_message) -> AsyncIterator[TableUpdate]:
    """Every change at the table after ``after_seq`` as ``player`` may see it, in seq order,
    without end. Raises ``GameError`` (before the first update) where the player may not
    watch. A change that comes live is yielded as ``live(message)``: typed by default, the
    published message itself for a compiled subscription (``_frame_data``)."""
    public_id = _id(table_id)
    tid, delay = await database_sync_to_async(watch_check)(public_id, player, after_seq)
    if delay:
        async for update in _delayed_updates(tid, public_id, player, after_seq, delay, live):
            yield update
        return
    mine = realtime.player_audience(player.pk)
    channels = [realtime.group_name(tid, mine), realtime.group_name(tid, realtime.SPECTATORS)]
    async with fanout.listen(channels) as queue:
        last = max(0, after_seq)
        # Listening first, reading the log second: nothing falls between the two.
        while True:
            entries, seat, status, view, last_seq = await database_sync_to_async(_replay)(
                tid, player, last)
            for i, entry in enumerate(entries):
                final = i == len(entries) - 1 and entry.seq == last_seq
                yield update_of(entry, public_id, seat, status, view if final else None)
                last = entry.seq
            if last >= last_seq:
                break
        while True:
            message = await queue.get()
            # The spectators' copy is for those who hold no seat there.
            if (message["audience"] == realtime.SPECTATORS
                    and player.pk in message.get("seated", ())):
                continue
            seq = message["seq"]
            if seq <= last:
                continue
            if seq > last + 1:  # the fan-out dropped something: fill from the log
                async for update in _gap(tid, player, public_id, last, seq):
                    yield update
                    last = update.seq
            yield live(message)
            last = seq


# --- the spectator delay ------------------------------------------------------------------------
#
# At a table with a spectator delay, whoever does not sit there (and is not staff) gets each
# change ``delay`` seconds after it was logged: the spectators' copy of a change carries its
# time (``at``) and the delay (games/journal.py), and the subscription holds it until then, in
# order. The publish path sets no timer, and tables without a delay take the loop above. A
# replay after ``afterSeq`` and a gap fill follow the same cut (games/selectors.py): nothing
# younger than the delay, and the view attached is the one as of the last entry sent.


def _delayed_replay(table_id: int, player, after_seq: int, delay: int):
    """``_replay`` for a subscriber who may be delayed: ``(entry, view or None)`` for the
    entries they may have now, the younger ones as ``(due, entry, view or None)``, their seat,
    the table's status and last seq. The view goes with the entry it belongs to: the last
    entry of the log as read (the table's current view), or, where younger entries are held
    back, the last one sent (its view rebuilt as of then)."""
    entries = selectors.log_after(table_id, after_seq)
    table = selectors.table_get(table_id)
    seat = selectors.viewer_seat(table, player)
    cutoff = selectors.delay_cutoff(delay).timestamp()
    young = len(entries) if seat is not None else next(
        (i for i, e in enumerate(entries) if e.created_at.timestamp() > cutoff), len(entries))
    ready = [(e, None) for e in entries[:young]]
    held = [(e.created_at.timestamp() + delay, e, None) for e in entries[young:]]
    current = selectors.view_for(table, seat)
    if held and held[-1][1].seq == table.last_seq:
        held[-1] = (*held[-1][:2], current)
    if ready and held:
        ready[-1] = (ready[-1][0], selectors.view_for(
            selectors.table_as_of(table, ready[-1][0].seq), None))
    elif ready and ready[-1][0].seq == table.last_seq:
        ready[-1] = (ready[-1][0], current)
    return ready, held, seat, table.status, table.last_seq


async def _delayed_updates(tid: int, public_id: str, player, after_seq: int,
                           delay: int, live) -> AsyncIterator[TableUpdate]:
    """``table_updates`` at a table with a spectator delay. A seated player's own changes
    come at once (and release whatever was held before them: they sit there now); the
    spectators' copies are held until due. Order is kept: a change is never overtaken."""
    mine = realtime.player_audience(player.pk)
    channels = [realtime.group_name(tid, mine), realtime.group_name(tid, realtime.SPECTATORS)]
    # (due, item): a log entry's update or a live message, in seq order.
    held: deque = deque()
    async with fanout.listen(channels) as queue:
        last = taken = max(0, after_seq)  # last: sent; taken: sent or held
        # Listening first, reading the log second: nothing falls between the two.
        while True:
            ready, later, seat, status, last_seq = await database_sync_to_async(
                _delayed_replay)(tid, player, taken, delay)
            for entry, view in ready:
                update = update_of(entry, public_id, seat, status, view)
                if held:  # read again behind held entries: they keep their turn
                    held.append((0.0, update))
                else:
                    yield update
                    last = entry.seq
                taken = entry.seq
            for due, entry, view in later:
                held.append((due, update_of(entry, public_id, seat, status, view)))
                taken = entry.seq
            if taken >= last_seq:
                break

        async def release(item):
            nonlocal last
            if isinstance(item, TableUpdate):
                if item.seq > last:
                    last = item.seq
                    yield item
                return
            seq = item["seq"]
            if seq <= last:
                return
            if seq > last + 1:  # the fan-out dropped something: fill from the log
                async for update in _gap(tid, player, public_id, last, seq):
                    yield update
                    last = update.seq
            last = seq
            yield live(item)

        while True:
            while held and held[0][0] <= selectors.delay_clock():
                async for update in release(held.popleft()[1]):
                    yield update
            if held:
                # At most a second: a wall clock that was stepped (NTP) cannot hold a change
                # back for longer than it is due.
                wait = min(1.0, max(0.0, held[0][0] - selectors.delay_clock()))
                try:
                    message = await asyncio.wait_for(queue.get(), wait)
                except TimeoutError:
                    continue
            else:
                message = await queue.get()
            spectators = message["audience"] == realtime.SPECTATORS
            if spectators and player.pk in message.get("seated", ()):
                continue  # the spectators' copy is for those who hold no seat there
            if message["seq"] <= taken:
                continue
            taken = message["seq"]
            if spectators:
                due = message.get("at", selectors.delay_clock()) + message.get("delay", delay)
                held.append((due, message))
                continue
            # Their own change: they sit there, and may have everything before it too.
            while held:
                async for update in release(held.popleft()[1]):
                    yield update
            async for update in release(message):
                yield update


async def held_until_due(messages: AsyncIterator[dict], due) -> AsyncIterator[dict]:
    """``messages`` (a channel listener), each once ``due(message)`` has come (epoch seconds on
    ``selectors.delay_clock``; None: at once). Held ones keep their order among themselves
    (a table's are due in the order they were logged); the others do not wait behind them."""
    inbox: asyncio.Queue = asyncio.Queue()

    async def pump():  # the listener is read in a task of its own: waiting with a timeout
        async for message in messages:  # on it directly would close it when the time is up
            inbox.put_nowait(message)

    reader = asyncio.get_running_loop().create_task(pump())
    held: list = []  # heap of (due, arrival, message)
    arrived = 0
    try:
        while True:
            while held and held[0][0] <= selectors.delay_clock():
                yield heapq.heappop(held)[2]
            if reader.done() and inbox.empty():
                reader.result()  # the listener ended: so do we (or its error is raised)
                return
            wait = min(1.0, max(0.0, held[0][0] - selectors.delay_clock())) if held else None
            try:
                message = await asyncio.wait_for(inbox.get(), wait)
            except TimeoutError:
                continue
            when = due(message)
            if when is None:
                yield message
            else:
                arrived += 1
                heapq.heappush(held, (when, arrived, message))
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


# --- the database thread of a move --------------------------------------------------------------

class _MoveThreads:
    """A few threads that keep their database connection, fed from one queue: a job is put
    on a ``SimpleQueue`` and its answer comes back with one ``call_soon_threadsafe``. (A
    ``ThreadPoolExecutor`` behind ``run_in_executor`` costs about twice as much per hop: its
    own future, work item, semaphore and a chained asyncio future; it was 8 % of a move.)"""

    def __init__(self, count: int) -> None:
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.threads = [threading.Thread(target=self._work, name=f"stapel-move-{i}",
                                         daemon=True) for i in range(count)]
        for thread in self.threads:
            thread.start()

    def _work(self) -> None:
        while True:
            context, fn, kwargs, loop, future = self.jobs.get()
            try:
                result, error = context.run(_in_thread, fn, kwargs), None
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
                result, error = None, exc
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:
                pass  # the loop closed meanwhile: nobody waits for the answer


def _settle(future: asyncio.Future, result, error) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_MOVE_THREADS: _MoveThreads | None = None
_MOVE_THREADS_LOCK = threading.Lock()


def _move_threads() -> _MoveThreads:
    global _MOVE_THREADS
    if _MOVE_THREADS is None:
        with _MOVE_THREADS_LOCK:
            if _MOVE_THREADS is None:
                _MOVE_THREADS = _MoveThreads(settings.STAPEL_LIVE_DB_THREADS)
    return _MOVE_THREADS


def _in_thread(fn, kwargs):
    try:
        return fn(**kwargs)
    except Exception:
        connection.close_if_unusable_or_obsolete()  # a broken connection is not kept
        raise


async def in_db_thread(fn, /, **kwargs):
    """Run the sync ``fn`` on one of a few threads that keep their database connection: a
    move takes one hop there and back, without asgiref's per-call machinery or a pool
    checkout (``database_sync_to_async`` costs several times more per call). Moves of
    different tables run side by side, up to ``LIVE_DB_THREADS`` at once."""
    # The caller's context goes along: the request id of config/logs.py reaches the tasks
    # the move queues on commit. copy_context is O(1).
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    _move_threads().jobs.put((contextvars.copy_context(), fn, kwargs, loop, future))
    return await future


# --- compiled operations -------------------------------------------------------------------------

LEAF, OBJECT = 0, 1


@dataclass(frozen=True, eq=False)  # identity: one plan per document (cached)
class Plan:
    """One document's hot operation: its root field and the projection of its result."""

    root: str  # "tableEvents" or "act"
    response_key: str
    document: object
    field_node: FieldNode
    field_def: object
    operation: OperationDefinitionNode
    projection: tuple
    # (argument's name, its variable's name, the variable's type), when every argument is a
    # variable without a default: ``fast_arguments`` can then coerce them without graphql-core.
    variables: tuple | None = None
    # tableEvents: ``projection`` over a published message's dicts (``_readable``).
    message_projection: tuple | None = None

    def arguments(self, variables: dict | None) -> dict | None:
        """The root field's coerced arguments, or None where the variables are not valid
        (strawberry then answers with the schema's own errors)."""
        if variables and bad_string(variables) is not None:
            return None  # strawberry answers `invalid_input`, naming the field
        if self.variables is not None and (variables is None or type(variables) is dict):
            try:
                return fast_arguments(self.variables, variables or {})
            except _Slow:
                pass
        schema = _schema()
        values = get_variable_values(schema, self.operation.variable_definitions or (),
                                     variables or {})
        if isinstance(values, list):
            return None
        try:
            return get_argument_values(self.field_def, self.field_node, values)
        except GraphQLError:
            return None

    def frame_data(self, result) -> str:
        return orjson.dumps({self.response_key: project(result, self.projection)}).decode()

    def message_frame_data(self, message: dict) -> str:
        """``frame_data`` of the ``TableUpdate`` a published message stands for."""
        return orjson.dumps({self.response_key: project(
            message, self.message_projection)}).decode()


def _schema():
    from config.schema import schema

    return schema._schema


# --- coercing the variables of a compiled document ------------------------------------------------
#
# graphql-core's coercion is general (paths, error callbacks, every default of every input
# field): for an ``act`` it cost about 110 µs, more than the engine's move. The values a client
# sends for a compiled document are almost always plain: this coerces those exactly as
# graphql-core would and gives up (``_Slow``) on anything else — a wrong type, a missing
# value, a default, a scalar of our own — so graphql-core judges it and its errors stay the
# schema's own. A test compares both on generated variables.


class _Slow(Exception):
    pass


def _int(value):
    if type(value) is int and -2_147_483_648 <= value <= 2_147_483_647:
        return value
    raise _Slow


def _str(value):
    if type(value) is str:
        return value
    raise _Slow


def _bool(value):
    if type(value) is bool:
        return value
    raise _Slow


def _id_value(value):
    if type(value) is str:
        return value
    if type(value) is int:
        return str(value)
    raise _Slow


_LEAVES = {GraphQLInt: _int, GraphQLString: _str, GraphQLBoolean: _bool, GraphQLID: _id_value}
# Per input object type: the fields that must be given or have a default (either means the
# general path: graphql-core fills defaults and reports what is missing).
_NEEDED: dict[int, frozenset] = {}


def _needed(type_: GraphQLInputObjectType) -> frozenset:
    needed = _NEEDED.get(id(type_))
    if needed is None:
        needed = _NEEDED[id(type_)] = frozenset(
            name for name, field in type_.fields.items()
            if is_required_input_field(field) or field.default_value is not Undefined)
    return needed


def fast_value(value, type_):
    """``value`` coerced to the input type ``type_``, as graphql-core's coercion would; raises
    ``_Slow`` for anything but the plain cases."""
    if type(type_) is GraphQLNonNull:
        if value is None:
            raise _Slow
        type_ = type_.of_type
    elif value is None:
        return None
    leaf = _LEAVES.get(type_)
    if leaf is not None:
        return leaf(value)
    if type(type_) is GraphQLInputObjectType:
        if type(value) is not dict or _needed(type_):
            raise _Slow
        fields = type_.fields
        coerced = {}
        for name, item in value.items():
            field = fields.get(name)
            if field is None:
                raise _Slow
            coerced[field.out_name or name] = fast_value(item, field.type)
        if type_.is_one_of and (len(coerced) != 1 or next(iter(coerced.values())) is None):
            raise _Slow
        try:
            return type_.out_type(coerced) if type_.out_type is not None else coerced
        except Exception:
            raise _Slow from None
    if type(type_) is GraphQLList:
        item_type = type_.of_type
        if type(value) is list:
            return [fast_value(item, item_type) for item in value]
        if type(value) in (str, int, bool):
            return [fast_value(value, item_type)]  # a lone value is a list of one
    raise _Slow


def fast_arguments(plan_variables: tuple, variables: dict) -> dict:
    """The root field's arguments from the request's variables (see ``Plan.variables``)."""
    arguments = {}
    for argument, name, type_, default, variable_default in plan_variables:
        value = Undefined if name is None else variables.get(name, Undefined)
        if value is Undefined and variable_default is not Undefined:
            arguments[argument] = variable_default  # coerced when the document was compiled
            continue
        if value is Undefined:
            if default is not Undefined:
                arguments[argument] = default  # graphql-core takes the argument's default
            elif type(type_) is GraphQLNonNull:
                raise _Slow
            continue  # omitted: graphql-core leaves the argument out too
        arguments[argument] = fast_value(value, type_)
    if len(variables) > sum(1 for entry in plan_variables if entry[1] is not None):
        raise _Slow  # variables the document does not declare: graphql-core judges them
    return arguments


def _plan_variables(schema, field_def, field_node: FieldNode,
                    operation: OperationDefinitionNode) -> tuple | None:
    """``Plan.variables``: per argument (its name, its variable's name or None, the
    variable's type, the argument's default, the variable's default coerced), or None where
    an argument is a literal or a variable has a type other than the argument's."""
    definitions = {d.variable.name.value: d for d in operation.variable_definitions or ()}
    used = []
    given = {node.name.value: node.value for node in field_node.arguments}
    for name, argument in field_def.args.items():
        node = given.get(name)
        key = argument.out_name or name
        if node is None:
            if argument.default_value is Undefined:
                if type(argument.type) is GraphQLNonNull:
                    return None
                continue
            used.append((key, None, None, argument.default_value, Undefined))
            continue
        if not isinstance(node, VariableNode):
            return None
        definition = definitions[node.name.value]
        if definition.directives:
            return None
        type_ = type_from_ast(schema, definition.type)
        variable_default = Undefined
        if definition.default_value is not None:
            variable_default = value_from_ast(definition.default_value, type_)
            if variable_default is Undefined:
                return None
        if str(type_) not in (str(argument.type), f"{argument.type}!"):
            return None  # a variable of another (compatible) type: the general path
        used.append((key, node.name.value, type_, argument.default_value, variable_default))
    if len({entry[1] for entry in used if entry[1] is not None}) != len(definitions):
        return None  # a variable used twice or not by this field
    return tuple(used)


class _Unsupported(Exception):
    pass


class _NoDirectives(Visitor):
    def enter_directive(self, *_):
        raise _Unsupported


def _applies(schema, condition, runtime: GraphQLObjectType) -> bool:
    if condition is None:
        return True
    cond = schema.get_type(condition.name.value)
    if cond is runtime:
        return True
    if isinstance(cond, GraphQLUnionType | GraphQLInterfaceType):
        return schema.is_sub_type(cond, runtime)
    return False


def _collect(schema, fragments, runtime: GraphQLObjectType, selection_sets,
             into: dict | None = None, visited: set | None = None) -> dict[str, list[FieldNode]]:
    """The spec's CollectFields (no directives: those documents are not compiled)."""
    into = {} if into is None else into
    visited = set() if visited is None else visited
    for selection_set in selection_sets:
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                key = (selection.alias or selection.name).value
                into.setdefault(key, []).append(selection)
            elif isinstance(selection, InlineFragmentNode):
                if _applies(schema, selection.type_condition, runtime):
                    _collect(schema, fragments, runtime, [selection.selection_set], into,
                             visited)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in visited:
                    continue
                visited.add(name)
                fragment = fragments[name]
                if _applies(schema, fragment.type_condition, runtime):
                    _collect(schema, fragments, runtime, [fragment.selection_set], into,
                             visited)
    return into


def _serializer(named):
    if named.name in ("Int", "Float", "String", "Boolean", "JSON"):
        return None  # the value is already what JSON carries
    if named.name == "ID":
        return str
    return named.serialize


def _projection(schema, fragments, runtime: GraphQLObjectType, fields: dict) -> tuple:
    items = []
    for key, nodes in fields.items():
        name = nodes[0].name.value
        if name == "__typename":
            items.append((key, None, LEAF, runtime.name))
            continue
        if name.startswith("__") or any(node.arguments for node in nodes):
            raise _Unsupported
        field = runtime.fields[name]
        definition = field.extensions.get("strawberry-definition")
        if definition is None or definition.base_resolver is not None:
            raise _Unsupported  # a resolver does work of its own: leave it to strawberry
        named = get_named_type(field.type)
        if isinstance(named, GraphQLObjectType | GraphQLUnionType | GraphQLInterfaceType):
            possible = ([named] if isinstance(named, GraphQLObjectType)
                        else schema.get_possible_types(named))
            by_class = {}
            for object_type in possible:
                sub = _collect(schema, fragments, object_type,
                               [node.selection_set for node in nodes if node.selection_set])
                origin = object_type.extensions["strawberry-definition"].origin
                by_class[origin] = _projection(schema, fragments, object_type, sub)
            items.append((key, definition.python_name, OBJECT, by_class))
        else:
            items.append((key, definition.python_name, LEAF, _serializer(named)))
    return tuple(items)


def project(value, projection: tuple) -> dict:
    """``value`` projected onto a document's selection (``_readable``)."""
    out = {}
    for key, read, kind, detail in projection:
        if read is None:
            out[key] = detail  # __typename
            continue
        item = read(value)
        if item is None:
            out[key] = None
        elif kind == LEAF:
            if detail is None:
                out[key] = item
            elif isinstance(item, list):
                out[key] = [None if x is None else detail(x) for x in item]
            else:
                out[key] = detail(item)
        elif isinstance(item, list):
            out[key] = [None if x is None else project(x, detail(x)) for x in item]
        else:
            out[key] = project(item, detail(item))
    return out


HOT_ROOTS = {"tableEvents": OperationType.SUBSCRIPTION, "act": OperationType.MUTATION}


@lru_cache(maxsize=512)
def plan_for(query: str, operation_name: str | None) -> Plan | None:
    """The compiled plan of a hot operation, or None (strawberry runs the document)."""
    if len(query) > 10_000:
        return None
    try:
        document = parse(query, max_tokens=settings.GRAPHQL_MAX_TOKENS)
        visit(document, _NoDirectives())
    except (GraphQLError, _Unsupported):
        return None
    schema = _schema()
    if validate(schema, document) or string_error(document, None) is not None:
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name is not None:
        operations = [d for d in operations if d.name and d.name.value == operation_name]
    if len(operations) != 1:
        return None
    operation = operations[0]
    root_type = {OperationType.SUBSCRIPTION: schema.subscription_type,
                 OperationType.MUTATION: schema.mutation_type}.get(operation.operation)
    if root_type is None:
        return None
    fragments = {d.name.value: d for d in document.definitions
                 if not isinstance(d, OperationDefinitionNode)}
    roots = _collect(schema, fragments, root_type, [operation.selection_set])
    if len(roots) != 1:
        return None
    ((key, nodes),) = roots.items()
    name = nodes[0].name.value
    if HOT_ROOTS.get(name) != operation.operation or len(nodes) != 1:
        return None
    aliases = sum(1 for n in _all_fields(document) if n.alias is not None)
    if aliases > settings.GRAPHQL_MAX_ALIASES:
        return None
    field_def = root_type.fields[name]
    result_type = get_named_type(field_def.type)
    try:
        sub = _collect(schema, fragments, result_type, [nodes[0].selection_set])
        fields = _projection(schema, fragments, result_type, sub)
        projection = _readable(None, fields, messages=False)
        message_projection = (_readable(TableUpdate, fields, messages=True)
                              if name == "tableEvents" else None)
    except _Unsupported:
        return None
    return Plan(root=name, response_key=key, document=document, field_node=nodes[0],
                field_def=field_def, operation=operation, projection=projection,
                variables=_plan_variables(schema, field_def, nodes[0], operation),
                message_projection=message_projection)


def _all_fields(document):
    found = []

    class Fields(Visitor):
        def enter_field(self, node, *_):
            found.append(node)

    visit(document, Fields())
    return found


# --- live changes, projected from the published message ---------------------------------------
#
# A live change reaches a compiled subscription as the message the journal published (plain
# dicts), and its frame is projected from the message itself, without building the typed
# ``TableUpdate`` first: each plan also holds its projection over the message
# (``message_projection``), where every field is read from the dicts by the readers the typed
# classes are built with (games/api/types.py). The fields no document selects cost nothing.
# A test compares both projections on every game's views.

_MESSAGE_READERS: dict[type, dict] = {
    TableUpdate: {
        "table_id": lambda m: m["public_id"],
        "seq": lambda m: m["seq"],
        "kind": lambda m: m["kind"],
        "version": lambda m: m["version"],
        "status": lambda m: TableStatusEnum(m["status"]),
        "events": lambda m: m["events"],
        "view": lambda m: m["view"] if m["view"] is not None and m["view"]["game"] in GAMES
        else None,
    },
    GameEvent: {"type": lambda e: e["type"], "data": event_data},
}


def _readers(origin: type) -> dict:
    readers = _MESSAGE_READERS.get(origin)
    if readers is not None:
        return readers
    for game_id in GAMES:
        made, readers = view_readers(game_id)
        if made is origin:
            return readers
    raise _Unsupported(origin)


def _readable(origin: type, projection: tuple, *, messages: bool) -> tuple:
    """``projection`` (``_projection``: key, attribute, kind, detail) as ``project`` walks it:
    (key, reader, kind, detail), where an object's detail picks the projection of each item.
    The readers take the typed objects' attributes, or with ``messages`` read the published
    message's dicts as the typed classes are built from them."""
    readers = _readers(origin) if messages else None
    items = []
    for key, attr, kind, detail in projection:
        read = None if attr is None else readers[attr] if messages else attrgetter(attr)
        if kind == LEAF:
            items.append((key, read, kind, detail))
            continue
        by_class = {cls: _readable(cls, sub, messages=messages) for cls, sub in detail.items()}
        items.append((key, read, kind, _picker(by_class) if messages
                      else lambda item, by_class=by_class: by_class[type(item)]))
    return tuple(items)


def _picker(by_class: dict):
    if len(by_class) == 1:
        (only,) = by_class.values()
        return lambda item: only
    # The GameView union: a view payload's projection is its game's.
    by_game = {game_id: by_class[made] for game_id in GAMES
               if (made := view_readers(game_id)[0]) in by_class}
    return lambda payload: by_game[payload["game"]]


def _as_message(message: dict) -> dict:
    return message


# Serialised frames of one live change per document: every spectator of a table on this
# process with the same subscription document shares one projection and one json.dumps.
_FRAMES: OrderedDict[tuple, str] = OrderedDict()
_FRAMES_MAX = 4096


def _frame_data(plan: Plan, update) -> str:
    if type(update) is not dict:  # a replayed entry (or a gap's), read for this subscriber
        return plan.frame_data(update)
    cache_key = (plan, update["table"], update["audience"], update["seq"])
    data = _FRAMES.get(cache_key)
    if data is None:
        data = _FRAMES[cache_key] = plan.message_frame_data(update)
        if len(_FRAMES) > _FRAMES_MAX:
            _FRAMES.popitem(last=False)
    return data


# --- running them on the websocket ---------------------------------------------------------------

async def _send_next(operation, data: str) -> None:
    if operation.completed:
        return
    await operation.handler.websocket.ws_consumer.send(
        '{"id":' + json.dumps(operation.id) + ',"type":"next","payload":{"data":' + data + "}}")


async def run_table_events(operation, plan: Plan, args: dict, player) -> bool:
    """Serve a compiled ``tableEvents``; False (nothing sent) where strawberry must answer
    (the player may not watch, or the table is not there for them)."""
    updates = table_updates(args["tableId"], player, args.get("afterSeq", 0),
                            live=_as_message)
    try:
        first = await anext(updates)
    except DomainError:
        await updates.aclose()
        return False
    try:
        await _send_next(operation, _frame_data(plan, first))
        async for update in updates:
            await _send_next(operation, _frame_data(plan, update))
    finally:
        await updates.aclose()
    return True


async def act_payload(*, player, table_id, action: dict, expected_version: int,
                      idempotency_key: str | None):
    """``act``'s answer (an ``ActPayload``) for an engine action (``actions.to_engine`` of an
    ``ActionInput``), the move made in one trip to a database thread. Every transport's
    ``act`` comes here."""
    from .schema import ActPayload

    try:
        result = await in_db_thread(
            services.act, player=player, table_id=_id(table_id), action=action,
            expected_version=expected_version, idempotency_key=idempotency_key)
    except DomainError as exc:
        return ActPayload(errors=[UserError.of(exc)])
    errors = [UserError(code="idempotency_key_reused", field="idempotencyKey", message=(
        "this idempotency key was used for another action: the answer is that action's"))
    ] if result.key_reused else []
    return ActPayload(version=result.version, seq=result.seq, replayed=result.replayed,
                      errors=errors, _table_id=result.table_id, _player=player)


async def compiled_act(plan: Plan, args: dict, player) -> str:
    """A compiled ``act``: the frame data (``{"<key>": {...}}``) of its answer."""
    from .actions import engine_action
    from .schema import ActPayload

    try:
        action = engine_action(args["action"])
    except DomainError as exc:
        return plan.frame_data(ActPayload(errors=[UserError.of(exc)]))
    payload = await act_payload(player=player, table_id=args["tableId"], action=action,
                                expected_version=args["expectedVersion"],
                                idempotency_key=args.get("idempotencyKey"))
    return plan.frame_data(payload)


async def run_act(operation, plan: Plan, args: dict, player) -> bool:
    await _send_next(operation, await compiled_act(plan, args, player))
    await operation.send_operation_message({"id": operation.id, "type": "complete"})
    return True


def http_act_plan(query, operation_name) -> Plan | None:
    """The compiled plan of an ``act`` sent over HTTP, or None (strawberry runs it)."""
    if not isinstance(query, str) or not settings.STAPEL_LIVE_FAST_PATH:
        return None
    plan = plan_for(query, operation_name)
    return plan if plan is not None and plan.root == "act" else None


async def run(handler, operation) -> bool:
    """Run ``operation`` on the compiled path if it is a hot one; False: strawberry runs it."""
    query = operation.query
    if not isinstance(query, str) or not settings.STAPEL_LIVE_FAST_PATH:
        return False
    plan = plan_for(query, operation.operation_name)
    if plan is None:
        return False
    player = handler.context.get("player") if isinstance(handler.context, dict) else None
    if player is None:
        return False
    args = plan.arguments(operation.variables)
    if args is None:
        return False
    if plan.root == "act":
        return await run_act(operation, plan, args, player)
    return await run_table_events(operation, plan, args, player)
