"""How well a bot's estimate of each seat's chance to win the round predicts heuristic play."""

from __future__ import annotations

import math
import random

from games.bots import BOTS, search
from games.engine import GAMES


def round_log_loss(game_id: str, chances, *, deals: range, every: int, offset: int,
                   card_scale: float, rng_seed: int) -> tuple[int, float, float]:
    """Over the first round of each deal, four heuristic bots: at every ``every``-th move (from
    ``offset``) of the play phase, the log-loss of ``chances(state)`` for the seat that went
    on to win the round, and of a softmax over minus the cards held (``card_scale``).
    Returns (positions, log-loss of ``chances``, log-loss of the card softmax)."""
    engine = GAMES[game_id]
    heuristic = BOTS[game_id]["heuristic"]
    rng = random.Random(rng_seed)
    loss = cards = 0.0
    rows = 0
    for deal in deals:
        state = engine.new_game(4, deal)
        seen, step = [], 0
        while not engine.is_round_over(state):
            if step % every == offset and state["phase"] == "play":
                left = [len(h) for h in state["hands"]]
                seen.append((chances(state), search.softmax([-c / card_scale for c in left])))
            step += 1
            seat = rng.choice(engine.actors(state))
            state, _ = engine.apply(state, seat, heuristic.choose(
                engine.view(state, seat), engine.legal_actions(state, seat), rng))
        winner = engine.round_result(state)["placings"].index(1)
        for fitted, by_cards in seen:
            loss -= math.log(fitted[winner])
            cards -= math.log(by_cards[winner])
            rows += 1
    return rows, loss / rows, cards / rows
