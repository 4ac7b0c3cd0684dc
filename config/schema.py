"""The one GraphQL schema, assembled from each domain's Query, Mutation and Subscription.

Limits (depth, tokens, aliases) keep hostile queries cheap to refuse; the parser and
validation caches make the repeated operations of real clients cheap to run. Unexpected
exceptions are masked; typed domain errors and GraphQL validation errors pass with a code.
"""

import logging

import strawberry
from django.conf import settings
from graphql.error import GraphQLError
from strawberry.extensions import (
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types

from accounts.api.schema import Mutation as AccountsMutation
from accounts.api.schema import Query as AccountsQuery
from accounts.errors import DomainError
from games.api.moderation import Mutation as ModerationMutation
from games.api.moderation import Query as ModerationQuery
from games.api.schema import Mutation as GamesMutation
from games.api.schema import Query as GamesQuery
from games.api.schema import Subscription as GamesSubscription
from tournaments.api.schema import Mutation as TournamentsMutation
from tournaments.api.schema import Query as TournamentsQuery
from tournaments.api.schema import Subscription as TournamentsSubscription

log = logging.getLogger("stapel.graphql")

EXPECTED = (DomainError,)


def _expected(error: GraphQLError) -> bool:
    original = error.original_error
    return original is None or isinstance(original, EXPECTED) or (
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
            if original is not None:
                ext = {"code": getattr(original, "code", "error")}
                if getattr(original, "field", None):
                    ext["field"] = original.field
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


Query = merge_types("Query", (AccountsQuery, GamesQuery, ModerationQuery, TournamentsQuery))
Mutation = merge_types("Mutation", (AccountsMutation, GamesMutation, ModerationMutation,
                                    TournamentsMutation))
Subscription = merge_types("Subscription", (GamesSubscription, TournamentsSubscription))

schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    config=StrawberryConfig(disable_field_suggestions=not settings.DEBUG),
    extensions=[
        lambda: QueryDepthLimiter(max_depth=settings.GRAPHQL_MAX_DEPTH),
        lambda: MaxTokensLimiter(max_token_count=settings.GRAPHQL_MAX_TOKENS),
        lambda: MaxAliasesLimiter(max_alias_count=settings.GRAPHQL_MAX_ALIASES),
        lambda: ParserCache(maxsize=512),
        lambda: ValidationCache(maxsize=512),
        StapelMaskErrors,
    ],
)
