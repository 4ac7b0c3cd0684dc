"""A seeded random number generator whose whole state is one JSON integer.

The state of a game must be plain JSON and replay exactly from seed and actions, so the RNG
cannot be a ``random.Random`` object. This is SplitMix64: tiny, fast in pure Python, good
enough statistically for shuffling cards and rolling dice. Every function takes the current
RNG state and returns the new one alongside its result, so callers stay pure.
"""

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int | str) -> int:
    """Turn any int or str seed into an initial RNG state (< 2**63, safe in JSONB)."""
    if isinstance(seed, str):
        value = 0
        for byte in seed.encode():
            value = (value * 131 + byte) & _MASK
        seed = value
    state, first = next_u64(int(seed) & _MASK)
    return first >> 1


def next_u64(state: int) -> tuple[int, int]:
    """Return ``(new_state, value)`` with a uniformly random 64-bit value."""
    state = (state + _GOLDEN) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def randbelow(state: int, n: int) -> tuple[int, int]:
    """Return ``(new_state, k)`` with ``0 <= k < n`` (multiply-shift, bias below 2**-50)."""
    state, value = next_u64(state)
    return state, (value * n) >> 64


def shuffled(state: int, items: list) -> tuple[int, list]:
    """Return ``(new_state, a shuffled copy of items)`` (Fisher-Yates)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state = (state + _GOLDEN) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        out[i], out[j] = out[j], out[i]
    return state, out


def roll_die(state: int, sides: int = 6) -> tuple[int, int]:
    """Return ``(new_state, face)`` with ``1 <= face <= sides``."""
    state, k = randbelow(state, sides)
    return state, k + 1
