"""The start-up check: every registered game is fully declared, and has bots.

``game_problems`` is plain Python (the contract tests call it on games they declare); the
Django system check below runs it at start-up (``manage.py check``, ``migrate``, ``runserver``)
so that a half-declared game stops the server before a player meets a ``view: null``, a turn
clock playing the first legal action or a bot seat that stalls.
"""

from __future__ import annotations

from django.core import checks

from games import bots as bot_registry
from games.engine import GAMES, Game
from games.engine.declaration import Declaration


def declaration_problems(game: Game) -> list[str]:
    decl = getattr(type(game), "declaration", None)
    if not isinstance(decl, Declaration):
        return [f"game '{getattr(game, 'id', game)}' has no declaration"]
    out = decl.problems()
    if out:
        return out
    # The declaration must say what the engine does: a fresh game's views hold exactly the
    # declared fields, and every legal action is well formed by the declaration.
    declared = [v.name for v in decl.view]
    try:
        state = game.new_game(decl.min_players, 0)
        for seat in (*range(decl.min_players), None):
            keys = list(game.view(state, seat))
            missing = [k for k in declared if k not in keys]
            extra = [k for k in keys if k not in declared]
            if missing or extra:
                out.append(f"game '{decl.id}': the view of seat {seat} differs from the "
                           f"declaration (undeclared {extra}, missing {missing})")
                break
        for seat in game.actors(state):
            for action in game.legal_actions(state, seat):
                decl.validate_action(action)
    except Exception as exc:  # noqa: BLE001 - any failure here is a finding to report
        out.append(f"game '{decl.id}': a fresh game does not follow its declaration: "
                   f"{type(exc).__name__}: {exc}")
    return out


def game_problems(games: dict[str, Game] | None = None,
                  bots: dict[str, bot_registry.GameBots] | None = None) -> list[str]:
    """Everything missing or inconsistent among the registered games and their bots."""
    games = GAMES if games is None else games
    bots = bot_registry.REGISTRY if bots is None else bots
    out: list[str] = []
    for game_id, game in games.items():
        if getattr(game, "id", None) != game_id:
            out.append(f"game '{game_id}' is registered under another id")
        out += declaration_problems(game)
        if game_id not in bots:
            out.append(f"game '{game_id}' declares no bots (games/bots/{game_id}.py)")
        else:
            out += bots[game_id].problems()
    for game_id in bots:
        if game_id not in games:
            out.append(f"bots are declared for an unknown game '{game_id}'")
    from games.api.actions import action_shapes

    try:
        action_shapes([g.declaration for g in games.values()
                       if isinstance(getattr(type(g), "declaration", None), Declaration)])
    except ValueError as exc:
        out.append(f"the games' actions cannot share one ActionInput: {exc}")
    return out


@checks.register("stapel")
def check_games(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    return [checks.Error(problem, hint="see games/engine/declaration.py and docs/games/",
                         id="games.E001") for problem in game_problems()]
