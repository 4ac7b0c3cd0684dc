"""The one GraphQL schema, assembled from each domain's Query, Mutation and Subscription.

Limits (depth, tokens, aliases) keep hostile queries cheap to refuse; the parser and
validation caches make the repeated operations of real clients cheap to run. Unexpected
exceptions are masked; typed domain errors and GraphQL validation errors pass with a code.
"""

import functools
import logging

import strawberry
from django.conf import settings
from graphql.error import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxTokensLimiter,
    ValidationCache,
    max_aliases,
    query_depth_limiter,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types

from accounts.api.schema import Mutation as AccountsMutation
from accounts.api.schema import Query as AccountsQuery
from accounts.errors import DomainError
from games.api.moderation import Mutation as ModerationMutation
from games.api.moderation import Query as ModerationQuery
from games.api.replays import Query as ReplaysQuery
from games.api.schema import Mutation as GamesMutation
from games.api.schema import Query as GamesQuery
from games.api.schema import Subscription as GamesSubscription
from tournaments.api.control import Mutation as ControlMutation
from tournaments.api.schema import Mutation as TournamentsMutation
from tournaments.api.schema import Query as TournamentsQuery
from tournaments.api.schema import Subscription as TournamentsSubscription
from tournaments.api.webhooks import Mutation as WebhooksMutation
from tournaments.api.webhooks import Query as WebhooksQuery

from .cost import QueryCostLimiter
from .validation import SafeParserCache, StringInputValidation

log = logging.getLogger("stapel.graphql")

EXPECTED = (DomainError,)


def _client_mistake(error: GraphQLError) -> bool:
    """A variable that does not coerce to its type (``"abc"`` for ``Int!``, a bad enum, an
    unknown ``ActionInput`` key, NaN): graphql-core raises it before execution, so it has
    no path, and carries the coercion's error as its original."""
    return error.path is None and isinstance(error.original_error,
                                             (GraphQLError, ValueError, TypeError))


def _expected(error: GraphQLError) -> bool:
    original = error.original_error
    return original is None or isinstance(original, EXPECTED) or _client_mistake(error) or (
        type(original).__name__ in {"IllegalAction", "InvalidOptions", "InvalidDeck"})


class StapelMaskErrors(MaskErrors):
    """Unexpected errors become "Unexpected error." with code ``internal_error``; domain
    errors carry their ``code`` (and ``field``) in ``extensions``."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=lambda e: not _expected(e))

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        log.error("unexpected error in %s", error.path, exc_info=error.original_error)
        return GraphQLError(message=self.error_message, nodes=error.nodes, source=error.source,
                            positions=error.positions, path=error.path,
                            extensions={"code": "internal_error"})

    def _process_errors(self, errors):
        out = []
        for error in errors:
            if self.should_mask_error(error):
                out.append(self.anonymise_error(error))
                continue
            original = error.original_error
            if original is not None and _client_mistake(error):
                error = GraphQLError(message=error.message, nodes=error.nodes,
                                     source=error.source, positions=error.positions,
                                     extensions={"code": "graphql_validation_failed"})
            elif original is not None:
                ext = {**(getattr(original, "extensions", None) or {}),
                       "code": getattr(original, "code", "error")}
                if getattr(original, "field", None):
                    ext["field"] = original.field
                if getattr(original, "retry_after", None):  # rate_limited (config/ratelimit.py)
                    ext["retryAfter"] = original.retry_after
                error = GraphQLError(message=error.message, nodes=error.nodes,
                                     source=error.source, positions=error.positions,
                                     path=error.path, extensions=ext)
            elif not (error.extensions or {}).get("code"):
                error = GraphQLError(message=error.message, nodes=error.nodes,
                                     source=error.source, positions=error.positions,
                                     path=error.path,
                                     extensions={**(error.extensions or {}),
                                                 "code": "graphql_validation_failed"})
            out.append(error)
        return out


@functools.cache
def _limit_rules(max_depth: int, max_aliases_count: int) -> tuple:
    return (query_depth_limiter.create_validator(max_depth, None, None),
            max_aliases.create_validator(max_aliases_count))


class QueryLimits(AddValidationRules):
    """Strawberry's depth and alias limiters, with their rule classes made once.

    ``QueryDepthLimiter`` and ``MaxAliasesLimiter`` build a new rule class for every request,
    and the validation cache is keyed by the rule classes, so with them every request was
    validated afresh (a third of a move's CPU time). The same rules, built once, keep the
    cache hitting."""

    def __init__(self) -> None:
        super().__init__(list(_limit_rules(settings.GRAPHQL_MAX_DEPTH,
                                           settings.GRAPHQL_MAX_ALIASES)))


Query = merge_types("Query", (AccountsQuery, GamesQuery, ModerationQuery, ReplaysQuery,
                              TournamentsQuery, WebhooksQuery))
Mutation = merge_types("Mutation", (AccountsMutation, GamesMutation, ModerationMutation,
                                    TournamentsMutation, ControlMutation, WebhooksMutation))
Subscription = merge_types("Subscription", (GamesSubscription, TournamentsSubscription))


class StapelSchema(strawberry.Schema):
    def process_errors(self, errors, execution_context=None) -> None:
        """Log unexpected errors only: a refused token or a typed domain error is an answer,
        not a server fault, and must not fill the logs with tracebacks."""
        super().process_errors([e for e in errors if not _expected(e)], execution_context)


def build_schema() -> StapelSchema:
    """The schema of the games registered now: each game's view type joins the ``GameView``
    union when a schema is built (games/api/types.py). The server builds it once, below; a
    test that registers a game of its own builds another."""
    return StapelSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        config=StrawberryConfig(disable_field_suggestions=not settings.DEBUG),
        extensions=[
            QueryLimits,
            lambda: MaxTokensLimiter(max_token_count=settings.GRAPHQL_MAX_TOKENS),
            lambda: SafeParserCache(maxsize=512),
            lambda: ValidationCache(maxsize=512),
            # After the validation cache: these see valid documents only.
            StringInputValidation,
            QueryCostLimiter,
            StapelMaskErrors,
        ],
    )


schema = build_schema()
