"""Ätsch's strong bot values a playout cut off before the round ends by each seat's chance to
win from there, fitted on heuristic rounds (games/bots/aetsch.py, ``win_chances``)."""

from __future__ import annotations

import math

from games.bots import aetsch
from games.engine import GAMES

from .calibration import round_log_loss

AETSCH = GAMES["aetsch"]


def _world(hands: list[list[str]], turn: int = 0) -> dict:
    return {"hands": hands, "turn": turn}


def test_chances_sum_to_one_and_follow_the_cards_held():
    plain = ["hearts-3", "clubs-4", "spades-6"]
    chances = aetsch.win_chances(_world([plain[:1], plain, plain, plain], turn=1))
    assert sum(chances) == 1.0 or math.isclose(sum(chances), 1.0)
    assert chances[0] > chances[2]  # fewer cards
    assert chances[1] > chances[2]  # the seat to play
    wild = aetsch.win_chances(_world([["joker", "clubs-J", "hearts-3"], plain, plain, plain]))
    assert wild[0] > wild[1]  # wild cards in hand


def test_the_chances_predict_heuristic_rounds_better_than_a_fair_share():
    """On positions of 120 rounds of four heuristic bots (other deals than the fit's), the
    log-loss of the chance given to the seat that went on to win is below that of a fair
    share; the softmax over cards held alone (scale 2) that it replaced was far above it
    (1,578 positions: 1.333, against 1.386 and 1.541)."""
    rows, loss, old = round_log_loss("aetsch", aetsch.win_chances,
                                     deals=range(31_000, 31_120), every=7, offset=3,
                                     card_scale=2.0, rng_seed=11)
    assert rows == 1578
    assert loss < math.log(4) < old
