"""Pairing players onto tables, and ranking them: pure functions, no Django.

Players are plain ids (ints). Every function is deterministic given its inputs (and ``seed``
where it takes one), so a round can be recomputed and tested without a database.

Formats:

- **Round robin**: players meet as evenly as the table size allows. With tables of 2 it is the
  classic circle method (every pair meets exactly once in ``n - 1`` rounds, a bye per round
  when ``n`` is odd); with larger tables each round minimises the number of repeat meetings.
- **Swiss**: players ordered by standing are grouped into tables, minimising repeat
  opponents first and keeping close standings together second (``tables_for``: an in-order
  search, exact for small fields, then swaps between tables and a bounded number of shakes,
  so at tables of 3 to 6 seats nobody meets an opponent again while a split without it is
  found). The first seat goes to whoever at the table sat first least often. When the count
  does not divide the table size, the lowest-ranked players who had the fewest byes sit out,
  so nobody gets a second bye while someone has none.
- **Single elimination**: tables by seed (snake order), byes to the top seeds when the count
  does not divide; the top ``advance`` placings of each table and every bye go on, until one
  table is left: the final.
- **Arena**: players join any time during a window; as soon as a table's worth of players
  waits, they are seated (first come, first served; among those seated now, every earlier
  meeting counts as a repeat and the last table's opponents count double). Points by
  placing.

Points by placing: at a table of ``k`` seats, placing ``p`` (1 = best) scores ``k - p``; a bye
scores ``table_size // 2`` (a middling result, like a chess bye's win for tables of two).

Tie-breaks of a standing, in order (documented for players): points; Buchholz (the sum of
the final points of every opponent met); wins (first places); the lower total of placings;
the seed (registration order).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
SINGLE_ELIMINATION = "single_elimination"
ARENA = "arena"
FORMATS = (ROUND_ROBIN, SWISS, SINGLE_ELIMINATION, ARENA)

MAX_CANDIDATES = 2_000  # tables tried per step; beyond, seats are filled greedily
SEARCH_BUDGET = 100_000  # candidate tables looked at before the best so far is taken
START_BUDGET = 5_000  # the in-order search before swaps take over (exact for small fields)
KICKS = 60  # shakes of a split that still has repeats (see _improve)
IMPROVE_BUDGET = 100_000  # swaps tried in all (deterministic, unlike a time limit)


@dataclass(frozen=True)
class Pairing:
    """One round: the tables (players in seat order) and the players who sit out."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...] = ()

    @property
    def seated(self) -> list[int]:
        return [p for t in self.tables for p in t]


# --- meetings --------------------------------------------------------------------------------

def meetings(history: Iterable[Sequence[int]]) -> Counter:
    """How often each pair of players sat at one table, from the tables of earlier rounds."""
    met: Counter = Counter()
    for table in history:
        for a, b in combinations(sorted(set(table)), 2):
            met[(a, b)] += 1
    return met


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def repeat_cost(tables: Iterable[Sequence[int]], met: Mapping) -> int:
    """Repeat meetings a pairing would add: each pair costs how often it met before."""
    return sum(met.get(_pair(a, b), 0) for t in tables for a, b in combinations(t, 2))


def _partition(order: Sequence[int], size: int, met: Mapping,
               budget: int = SEARCH_BUDGET) -> list[tuple[int, ...]]:
    """Split ``order`` (a multiple of ``size`` long) into tables of ``size``, with the fewest
    repeat meetings; among equally good splits the one closest to ``order`` (the first found
    by a depth-first search that tries neighbours in ``order`` first). Exact for small fields;
    for big ones the search stops after ``budget`` candidate tables with the best split so
    far (the first split found is already the greedy one)."""
    index = {p: i for i, p in enumerate(order)}
    window = max(8, 2 * size)  # candidates for a table: the next few in order
    best: list = [None, float("inf")]
    work = 0

    def rec(remaining: list[int], tables: list[tuple[int, ...]], cost: int) -> None:
        nonlocal work
        if cost >= best[1]:
            return
        if not remaining:
            best[0], best[1] = list(tables), cost
            return
        if work > budget and best[0] is not None:
            return
        head, rest = remaining[0], remaining[1:]
        options = []
        if comb(len(rest[:window]), size - 1) <= MAX_CANDIDATES:
            for others in combinations(rest[:window], size - 1):
                table = (head, *others)
                options.append((repeat_cost([table], met), [index[p] for p in others], table))
        else:  # big tables: fill greedily, one seat at a time
            table = [head]
            pool = list(rest)
            for _ in range(size - 1):
                pick = min(pool, key=lambda p: (sum(met.get(_pair(p, q), 0) for q in table),
                                                index[p]))
                table.append(pick)
                pool.remove(pick)
            options.append((repeat_cost([table], met), [], tuple(table)))
        work += len(options)
        options.sort(key=lambda o: (o[0], o[1]))
        for added, _, table in options:
            taken = set(table)
            rec([p for p in rest if p not in taken], [*tables, table], cost + added)
            if best[1] == 0:
                return

    rec(list(order), [], 0)
    return best[0] or []


def _improve(tables: list[tuple[int, ...]], met: Mapping, rank: Mapping[int, int],
             seed: int, kicks: int = 0) -> list[tuple[int, ...]]:
    """Swap players between tables while it removes repeat meetings, or keeps them and brings
    a table's ranks closer (``rank``: lower is better). With ``kicks``, a split that still
    has repeats is shaken that many times (a player of a repeated pair swapped with a random
    player of another table, then swaps again) and the best split is kept: the in-order
    search alone gets stuck where the players left for the last tables all met before."""
    if len(tables) < 2:
        return tables
    work = [list(t) for t in tables]

    def table_cost(t: list[int]) -> tuple[int, int]:
        ranks = [rank[p] for p in t]
        return (sum(met.get(_pair(a, b), 0) for a, b in combinations(t, 2)),
                max(ranks) - min(ranks))

    spent = 0

    def m(a: int, b: int) -> int:
        return met.get((a, b) if a < b else (b, a), 0)

    def spread(t: list[int], out: int, into: int) -> int:
        ranks = [rank[q] for q in t if q != out] + [rank[into]]
        return max(ranks) - min(ranks)

    def descend() -> None:
        """Swaps in a fixed order, each accepted when (repeats, spread) of the two tables
        drop; a swap's change in repeats is counted from the two players' rows alone."""
        nonlocal spent
        spreads = [table_cost(t)[1] for t in work]
        improved = True
        while improved and spent < IMPROVE_BUDGET:
            improved = False
            for i in range(len(work)):
                for j in range(i + 1, len(work)):
                    ti, tj = work[i], work[j]
                    spent += len(ti) * len(tj)
                    for x in range(len(ti)):
                        for y in range(len(tj)):
                            a, b = ti[x], tj[y]
                            repeats = (sum(m(b, q) - m(a, q) for q in ti if q != a)
                                       + sum(m(a, q) - m(b, q) for q in tj if q != b))
                            if repeats > 0:
                                continue
                            si, sj = spread(ti, a, b), spread(tj, b, a)
                            if repeats < 0 or si + sj < spreads[i] + spreads[j]:
                                ti[x], tj[y] = b, a
                                spreads[i], spreads[j] = si, sj
                                improved = True

    def total() -> tuple[int, int]:
        costs = [table_cost(t) for t in work]
        return sum(c[0] for c in costs), sum(c[1] for c in costs)

    descend()
    best, best_cost = [list(t) for t in work], total()
    rng = random.Random(seed)
    for _ in range(kicks):
        if best_cost[0] == 0 or spent >= IMPROVE_BUDGET:
            break
        clashing = [i for i, t in enumerate(work) if table_cost(t)[0] > 0]
        i = rng.choice(clashing)
        j = rng.choice([k for k in range(len(work)) if k != i])
        x, y = rng.randrange(len(work[i])), rng.randrange(len(work[j]))
        work[i][x], work[j][y] = work[j][y], work[i][x]
        descend()
        cost = total()
        if cost < best_cost:
            best, best_cost = [list(t) for t in work], cost
        else:
            work = [list(t) for t in best]
    return [tuple(t) for t in best]


def _seat(tables: Iterable[Sequence[int]], rank: Mapping[int, int],
          first_seats: Mapping[int, int]) -> list[tuple[int, ...]]:
    """Seat order at each table: the player who sat first least often so far sits first
    (ties: the better ranked); the others follow by rank. Tables come best ranked first."""
    out = []
    for table in tables:
        ordered = sorted(table, key=lambda p: rank[p])
        head = min(ordered, key=lambda p: (first_seats.get(p, 0), rank[p]))
        out.append((head, *[p for p in ordered if p != head]))
    return sorted(out, key=lambda t: min(rank[p] for p in t))


def first_seats(history: Iterable[Sequence[int]]) -> Counter:
    """How often each player sat first (seat 0), from earlier tables in seat order."""
    return Counter(t[0] for t in history if t)


def tables_for(order: Sequence[int], size: int, history: Sequence[Sequence[int]] = (),
               met: Mapping | None = None) -> list[tuple[int, ...]]:
    """Split ``order`` (best first; a multiple of ``size`` long) into tables: the fewest
    repeat meetings first, tables of close rank second, then seats balanced so everyone sits
    first about as often. The in-order search finds the best split of small fields exactly;
    swaps between tables and a bounded number of shakes take bigger ones further."""
    met = meetings(history) if met is None else met
    rank = {p: i for i, p in enumerate(order)}
    tables = _partition(order, size, met, budget=START_BUDGET)
    seed = hash(tuple(order)) & 0xFFFFFFFF  # deterministic: ints hash to themselves
    tables = _improve(tables, met, rank, seed, kicks=KICKS)
    return _seat(tables, rank, first_seats(history))


def _choose_byes(order: Sequence[int], count: int, bye_counts: Mapping[int, int]) -> list[int]:
    """The ``count`` players latest in ``order`` among those with the fewest byes so far."""
    if count <= 0:
        return []
    ranked = sorted(range(len(order)), key=lambda i: (bye_counts.get(order[i], 0), -i))
    return [order[i] for i in sorted(ranked[:count])]


# --- points ----------------------------------------------------------------------------------

def placing_points(placing: int, seats: int) -> int:
    return max(0, seats - placing)


def bye_points(table_size: int) -> int:
    return table_size // 2


# --- round robin -----------------------------------------------------------------------------

def round_robin_rounds(player_count: int, table_size: int) -> int:
    """Rounds for every player to meet every other once, were the tables perfect."""
    if player_count < 2:
        return 0
    return max(1, -(-(player_count - 1) // (table_size - 1)))


def round_robin(players: Sequence[int], *, table_size: int, round_number: int, seed: int,
                history: Iterable[Sequence[int]] = (),
                bye_counts: Mapping[int, int] | None = None) -> Pairing:
    """Round ``round_number`` (from 1) of a round robin of ``players``."""
    order = list(players)
    random.Random(seed).shuffle(order)
    if table_size == 2:
        return _circle_round(order, round_number)
    bye_counts = bye_counts or {}
    shift = (round_number - 1) % max(1, len(order))
    rotated = order[shift:] + order[:shift]
    byes = _choose_byes(rotated, len(rotated) % table_size, bye_counts)
    playing = [p for p in rotated if p not in byes]
    return Pairing(tuple(tables_for(playing, table_size, list(history))), tuple(byes))


def _circle_round(order: list[int], round_number: int) -> Pairing:
    """Berger tables: seat 0 stays, the others rotate; ``None`` is the bye."""
    ring: list[int | None] = list(order) + ([None] if len(order) % 2 else [])
    n = len(ring)
    if n < 2:
        return Pairing((), tuple(order))
    r = (round_number - 1) % (n - 1)
    rest = ring[1:]
    rest = rest[-r:] + rest[:-r] if r else rest
    ring = [ring[0], *rest]
    tables, byes = [], []
    for i in range(n // 2):
        a, b = ring[i], ring[n - 1 - i]
        if a is None or b is None:
            byes.append(a if b is None else b)
        else:
            tables.append((a, b))
    return Pairing(tuple(tables), tuple(byes))


# --- swiss -----------------------------------------------------------------------------------

def swiss(ranked: Sequence[int], *, table_size: int, history: Iterable[Sequence[int]] = (),
          bye_counts: Mapping[int, int] | None = None) -> Pairing:
    """One Swiss round. ``ranked`` is the current standing, best first (for the first round,
    the seeded order)."""
    byes = _choose_byes(ranked, len(ranked) % table_size, bye_counts or {})
    playing = [p for p in ranked if p not in byes]
    return Pairing(tuple(tables_for(playing, table_size, list(history))), tuple(byes))


def seeded_order(players: Sequence[int], seed: int) -> list[int]:
    order = list(players)
    random.Random(seed).shuffle(order)
    return order


# --- single elimination ----------------------------------------------------------------------

def elimination(seeded: Sequence[int], *, table_size: int, min_size: int = 2) -> Pairing:
    """One elimination round. ``seeded`` is best first. When everyone fits one table it is the
    final; fewer than ``min_size`` players left means no table at all (the tournament ends)."""
    n = len(seeded)
    if n < min_size:
        return Pairing((), tuple(seeded))
    if n <= table_size:
        return Pairing((tuple(seeded),), ())
    bye_count = n % table_size
    byes = tuple(seeded[:bye_count])
    playing = list(seeded[bye_count:])
    count = len(playing) // table_size
    tables: list[list[int]] = [[] for _ in range(count)]
    for i, player in enumerate(playing):  # snake: 0 1 2 2 1 0 0 1 2 ...
        lap, pos = divmod(i, count)
        tables[pos if lap % 2 == 0 else count - 1 - pos].append(player)
    return Pairing(tuple(tuple(t) for t in tables), byes)


def elimination_advancing(pairing: Pairing, placings: Mapping[int, int], *, advance: int,
                          seed_rank: Mapping[int, int]) -> list[int]:
    """Who plays the next round, best first: the byes, then the top ``advance`` of each table,
    ordered by placing and then by seed. ``placings`` maps each seated player to their placing
    at their table (filler bots are simply not among a table's players)."""
    going = [(0, seed_rank.get(p, 0), p) for p in pairing.byes]
    for table in pairing.tables:
        ranked = sorted(table, key=lambda p: (placings[p], seed_rank.get(p, 0)))
        going += [(placings[p], seed_rank.get(p, 0), p) for p in ranked[:advance]]
    return [p for *_, p in sorted(going)]


def is_final(pairing: Pairing) -> bool:
    return len(pairing.tables) == 1 and not pairing.byes


# --- arena -----------------------------------------------------------------------------------

@dataclass
class ArenaPairing:
    tables: list[tuple[int, ...]] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)


def arena_pair(waiting: Sequence[int], *, table_size: int,
               last_opponents: Mapping[int, Iterable[int]] | None = None,
               history: Sequence[Sequence[int]] = ()) -> ArenaPairing:
    """Seat as many tables as the waiting players fill, earliest arrivals first. Among the
    players seated now, every earlier meeting (``history``: the arena's tables so far, in
    seat order) counts as a repeat, and a player's last opponents count double; seats are
    balanced as in Swiss. The latest arrivals beyond full tables wait on."""
    count = len(waiting) // table_size
    if count == 0:
        return ArenaPairing([], list(waiting))
    now = list(waiting[:count * table_size])
    met: Counter = meetings(history)
    met.update({_pair(player, other) for player, others in (last_opponents or {}).items()
                for other in others if other != player})
    return ArenaPairing(tables_for(now, table_size, list(history), met=met),
                        list(waiting[count * table_size:]))


# --- standings -------------------------------------------------------------------------------

@dataclass
class Line:
    """One player's standing, as ranked."""

    player: int
    points: int = 0
    buchholz: int = 0
    wins: int = 0
    placing_sum: int = 0
    matches: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)
    rank: int = 0


def standings(players: Sequence[int], results: Iterable[Mapping[int, int]],
              byes: Iterable[int], *, table_size: int,
              seats_of: Iterable[int] | None = None) -> list[Line]:
    """Rank ``players`` (given in seed order) from the ``results`` of their tables (each a
    mapping player -> placing; filler bots absent) and the byes they had. ``seats_of`` gives
    each result's seat count (default: the table size)."""
    lines = {p: Line(p) for p in players}
    seat_counts = list(seats_of) if seats_of is not None else None
    for i, result in enumerate(results):
        seats = seat_counts[i] if seat_counts is not None else table_size
        for player, placing in result.items():
            line = lines.get(player)
            if line is None:
                continue
            line.points += placing_points(placing, seats)
            line.wins += int(placing == 1)
            line.placing_sum += placing
            line.matches += 1
            line.opponents += [o for o in result if o != player]
    for player in byes:
        if player in lines:
            lines[player].points += bye_points(table_size)
            lines[player].byes += 1
    for line in lines.values():
        line.buchholz = sum(lines[o].points for o in line.opponents if o in lines)
    seed = {p: i for i, p in enumerate(players)}
    ranked = sorted(lines.values(), key=lambda ln: (-ln.points, -ln.buchholz, -ln.wins,
                                                    ln.placing_sum, seed[ln.player]))
    for i, line in enumerate(ranked, start=1):
        line.rank = i
    return ranked


def elimination_order(seeded: Sequence[int], rounds: Sequence[tuple[Pairing, Mapping[int, int]]]
                      ) -> list[int]:
    """Final ranking of an elimination: who got further ranks higher; among those out in the
    same round (or at the final), the better placing at their table, then the seed."""
    seed = {p: i for i, p in enumerate(seeded)}
    reached: dict[int, tuple[int, int]] = {p: (0, 0) for p in seeded}
    for number, (pairing, placings) in enumerate(rounds, start=1):
        for p in pairing.byes:
            reached[p] = (number, 0)
        for p in pairing.seated:
            if p in reached:
                reached[p] = (number, placings.get(p, 99))
    return sorted(seeded, key=lambda p: (-reached[p][0], reached[p][1], seed[p]))
