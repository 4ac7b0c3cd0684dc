"""Query cost analysis: a request is refused before it runs when its estimated work is too big.

Depth, token and alias limits bound a query's shape, not its work: twenty aliases of
``tables(first: 100) { items { view events(limit: 500) { ... } } }`` pass all three and
asked one node for 86 MB. Here every selected field has a cost (1 for an object, 0 for a
scalar, more for a field that reads the database or runs the engine), and a list multiplies
the cost of what is selected under each of its items: by its ``first``/``limit`` argument
(clamped to the resolver's hard cap) or by a fixed size for lists without one. Anonymous
requests get a lower maximum than signed-in ones. The refusal is a validation error with the
code ``query_too_costly`` and the estimate, so a client sees why and by how much.

Over time, each token's player (or each address, without a token) has a cost budget
(``query_cost`` / ``query_cost_anonymous`` in ``config/ratelimit.py``, e.g. 200,000 per
minute): every operation but ``act`` spends its estimate there, so many requests each under
the maximum cannot add up to the load one refused request would have been. A spent budget
is refused before the operation runs, with ``rate_limited`` and ``retryAfter`` (over HTTP a
429 with ``Retry-After``), and the estimate and the budget's name in the extensions.

The estimate runs after validation (on a valid document only) with the request's variables,
so ``first: $n`` costs what ``$n`` asks for; it walks the cached parse tree and is not
cached itself (it depends on the variables and the viewer), which costs microseconds.
"""

from __future__ import annotations

from collections.abc import Iterator

from asgiref.sync import sync_to_async
from django.conf import settings
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    VariableNode,
    get_named_type,
    is_leaf_type,
)
from strawberry.extensions import SchemaExtension

from config import ratelimit

# Fields that read the database or run the engine, beyond the 1 of any object.
FIELD_COSTS = {
    "Query.tables": 5, "Query.table": 5, "Query.myTables": 5, "Query.tournaments": 5,
    "Query.tournament": 5, "Query.leaderboard": 5, "Query.moderationLog": 5,
    "Query.apiTokens": 2, "Table.view": 10, "Table.events": 5, "Table.roundResults": 5,
    "ActPayload.table": 5, "Query.tableReplay": 20,
}
# The hard cap each resolver clamps its size argument to (the estimate uses the same).
SIZE_CAPS = {
    "Query.tables": 100, "Table.events": 500, "Query.moderationLog": 100,
    "Query.tournaments": 100, "Query.leaderboard": 200, "Rating.history": 100,
}
SIZE_ARGUMENTS = ("first", "limit")
# Lists without a size argument: how many items to expect at most (10 seats at a table...).
LIST_SIZES = {"Query.games": 4}
DEFAULT_LIST_SIZE = 10
# Introspection is answered from memory and bounded by the schema: a flat price per field.
INTROSPECTION_COST = 50


class _Estimate:
    def __init__(self, schema, document, variables: dict | None):
        self.schema = schema
        self.variables = variables or {}
        self.fragments = {d.name.value: d for d in document.definitions
                          if getattr(d, "kind", None) == "fragment_definition"}

    def selection_cost(self, parent: GraphQLObjectType, selection_set, page: int | None) -> int:
        """The cost of a selection set on ``parent``; ``page`` is the size a paged parent
        (``tables(first:)`` over ``TablePage.items``) hands to its list."""
        total = 0
        for selection in self._fields(parent, selection_set):
            node, owner = selection
            total += self.field_cost(owner, node, page)
        return total

    def _fields(self, parent, selection_set) -> Iterator[tuple[FieldNode, GraphQLObjectType]]:
        if selection_set is None:
            return
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                yield selection, parent
            elif isinstance(selection, InlineFragmentNode):
                owner = (self.schema.get_type(selection.type_condition.name.value)
                         if selection.type_condition else parent)
                yield from self._fields(owner, selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments.get(selection.name.value)
                if fragment is not None:
                    owner = self.schema.get_type(fragment.type_condition.name.value)
                    yield from self._fields(owner, fragment.selection_set)

    def field_cost(self, parent, node: FieldNode, page: int | None) -> int:
        name = node.name.value
        if name.startswith("__"):
            return 0 if name == "__typename" else INTROSPECTION_COST
        fields = getattr(parent, "fields", None) or {}
        field = fields.get(name)
        if field is None:  # an abstract parent (a union): validation vouched for the field
            return 1
        key = f"{parent.name}.{name}"
        own = FIELD_COSTS.get(key, 0 if is_leaf_type(get_named_type(field.type)) else 1)
        size = self.size(key, field, node)
        named = get_named_type(field.type)
        child_parent = named if not is_leaf_type(named) else None
        inner = (self.selection_cost(child_parent, node.selection_set,
                                     size if not _is_list(field.type) else None)
                 if child_parent is not None else 0)
        if _is_list(field.type):
            count = size or page or LIST_SIZES.get(key, DEFAULT_LIST_SIZE)
            if is_leaf_type(named):
                return own
            return own + count * (1 + inner)
        return own + inner

    def size(self, key: str, field, node: FieldNode) -> int | None:
        for argument in node.arguments or ():
            if argument.name.value not in SIZE_ARGUMENTS:
                continue
            value = argument.value
            if isinstance(value, IntValueNode):
                raw = int(value.value)
            elif isinstance(value, VariableNode):
                raw = self.variables.get(value.name.value)
            else:
                raw = None
            if not isinstance(raw, int) or isinstance(raw, bool):
                raw = field.args[argument.name.value].default_value
            return _clamp(raw, SIZE_CAPS.get(key, 100))
        for name in SIZE_ARGUMENTS:  # the argument's default when it is not given
            if name in getattr(field, "args", {}):
                default = field.args[name].default_value
                return _clamp(default, SIZE_CAPS.get(key, 100))
        return None


def _clamp(value, cap: int) -> int:
    return max(1, min(value if isinstance(value, int) else cap, cap))


def _is_list(type_) -> bool:
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    return isinstance(type_, GraphQLList)


def query_cost(schema, document, variables: dict | None = None,
               operation_name: str | None = None) -> int:
    """The estimated cost of the operation ``operation_name`` (or the only one) of a valid
    document, over graphql-core's ``schema``."""
    estimate = _Estimate(schema, document, variables)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if operation_name:
        operations = [d for d in operations if d.name and d.name.value == operation_name]
    if not operations:
        return 0
    operation = operations[0]
    root = schema.get_root_type(operation.operation)
    return estimate.selection_cost(root, operation.selection_set, None) if root else 0


def max_cost(player) -> int:
    return settings.GRAPHQL_MAX_COST if player is not None else settings.GRAPHQL_MAX_COST_ANONYMOUS


class QueryCostLimiter(SchemaExtension):
    """Refuses a valid operation whose estimated cost is above the viewer's maximum. It must
    come after the validation cache, which fills in the validation errors."""

    async def on_validate(self):
        ctx = self.execution_context
        if not ctx.pre_execution_errors and ctx.graphql_document is not None:
            context = ctx.context
            player = context.get("player") if isinstance(context, dict) else None
            limit = max_cost(player)
            variables = ctx.variables if isinstance(ctx.variables, dict) else None
            cost = query_cost(ctx.schema._schema, ctx.graphql_document, variables,
                              ctx.operation_name)
            if cost > limit:
                # A new list: the validation cache hands out its cached one.
                ctx.pre_execution_errors = [GraphQLError(
                    f"this query would cost {cost}, more than the {limit} allowed "
                    f"{'per request' if player is not None else 'without a token'}: ask for "
                    "fewer items (first/limit), fewer aliases or fewer nested lists",
                    extensions={"code": "query_too_costly", "cost": cost, "maxCost": limit})]
            elif cost > 0 and ratelimit.counts_against_ceiling(ctx.query, ctx.operation_name):
                refusal = await _budget_spend(context, player, cost)
                if refusal is not None:
                    ctx.pre_execution_errors = [refusal]
        yield


async def _budget_spend(context, player, cost: int) -> GraphQLError | None:
    """Spend ``cost`` from the viewer's budget; the refusal when it does not fit."""
    if player is not None:
        name, who = "query_cost", player.pk
    else:
        request = context.get("request") if isinstance(context, dict) else None
        name, who = "query_cost_anonymous", ratelimit.request_address(request)
    try:
        # Off the event loop (Redis), and off the database thread it need not queue behind.
        await sync_to_async(ratelimit.spend, thread_sensitive=False)(name, who, amount=cost)
    except ratelimit.RateLimited as exc:
        return GraphQLError(
            f"this query costs {cost}, more than is left of your query budget "
            f"({exc.item.amount} per {exc.item.get_expiry()} s); try again in "
            f"{exc.retry_after} s, or ask for less",
            extensions={"code": exc.code, "retryAfter": exc.retry_after, "cost": cost,
                        "budget": name})
    return None
