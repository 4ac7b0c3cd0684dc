"""``manage.py simulate`` end to end on a small job: table, JSON, CSV and chart."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.bots.simulate import lineup_for, play_match, summarize

ROOT = Path(__file__).resolve().parents[2]


def test_a_small_job_prints_json_and_writes_its_csv_and_chart(tmp_path):
    out = io.StringIO()
    call_command("simulate", "kato", "--lineup", "strong,heuristic", "--matches", "4",
                 "--seed", "3", "--options", '{"rounds": 1}', "--iterations", "12",
                 "--time-ms", "0", "--csv", str(tmp_path / "r.csv"),
                 "--chart", str(tmp_path / "r.png"), "--json-out", str(tmp_path / "r.json"),
                 "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["matches"] == 4
    for level in ("strong", "heuristic"):
        row = summary["levels"][level]
        assert row["matches"] == 4  # seats rotate: each level sat in each seat twice
        assert 0 <= row["ci95"][0] <= row["win_rate"] <= row["ci95"][1] <= 1
        assert 1 <= row["mean_placing"] <= 2
    assert summary["strong_move_ms"]["count"] > 0
    with open(tmp_path / "r.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["level"] for r in rows} == {"strong", "heuristic"}
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(json.loads((tmp_path / "r.json").read_text())["match_results"]) == 4
    # Same seed and budget, same results, whatever the number of workers.
    again = io.StringIO()
    call_command("simulate", "kato", "--lineup", "strong,heuristic", "--matches", "4",
                 "--seed", "3", "--options", '{"rounds": 1}', "--iterations", "12",
                 "--time-ms", "0", "--workers", "2", "--json", stdout=again)
    assert json.loads(again.getvalue())["levels"] == summary["levels"]


def test_the_table_names_every_level():
    out = io.StringIO()
    call_command("simulate", "karma", "--lineup", "heuristic,random", "--matches", "2",
                 "--no-progress", stdout=out)
    text = out.getvalue()
    assert "heuristic" in text and "random" in text and "95% CI" in text


@pytest.mark.parametrize("args, message", [
    (["kato", "--lineup", "strong,grandmaster"], "unknown bot level"),
    (["karma", "--lineup", "heuristic"], "seats"),
    (["kato", "--lineup", "heuristic,heuristic", "--options", "{bad"], "not JSON"),
    (["kato", "--lineup", "heuristic,heuristic", "--options", '{"hand_size": 99}'],
     "invalid options"),
])
def test_bad_arguments_are_clear_errors(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", *args, "--matches", "1")


def test_seats_rotate_so_every_level_sits_everywhere():
    levels = ["strong", "heuristic", "heuristic"]
    seats = [lineup_for(levels, i).index("strong") for i in range(3)]
    assert sorted(seats) == [0, 1, 2]


def test_a_shared_first_place_counts_as_a_win_for_each():
    summary = summarize([{"levels": ["a", "b"], "placings": [1, 1], "scores": [0, 0],
                          "moves": 3, "rounds": 1, "seconds": 0.1, "search_ms": []}])
    assert summary["levels"]["a"]["win_rate"] == summary["levels"]["b"]["win_rate"] == 1.0


def test_the_fair_share_is_what_a_level_no_better_than_the_others_wins():
    # Krass Kariert: everyone but the loser shares the first place. A level that wins 3 of 4
    # seats there is no better than the rest, and the chart's line must say so (not 1/4).
    def match(placings):
        return {"levels": ["a", "b", "b", "b"], "placings": placings, "scores": [0] * 4,
                "moves": 3, "rounds": 1, "seconds": 0.1, "search_ms": []}

    shared = summarize([match([1, 1, 1, 4]), match([4, 1, 1, 1])])
    assert shared["fair_share"] == 0.75
    assert summarize([match([1, 2, 3, 4]), match([2, 1, 3, 4])])["fair_share"] == 0.25


def test_a_match_that_goes_on_too_long_is_given_up_and_left_out():
    """A Karma match can go round for ever; it must not hold a run up (or end it)."""
    whole = play_match("karma", ["heuristic"] * 3, 5, max_moves=None)
    cut = play_match("karma", ["heuristic"] * 3, 5, max_moves=whole["moves"] - 1)
    assert whole["finished"] and sorted(whole["placings"]) == [1, 2, 3]
    assert not cut["finished"] and cut["placings"] is None and cut["moves"] == whole["moves"] - 1
    summary = summarize([whole, cut])
    assert summary["matches"] == 1 and summary["unfinished"] == 1
    assert summary["levels"]["heuristic"]["matches"] == 3  # the ended match's three seats
    assert summary["mean_moves"] == whole["moves"]


def test_the_command_counts_the_matches_it_gave_up():
    out = io.StringIO()
    call_command("simulate", "karma", "--lineup", "heuristic,random", "--matches", "2",
                 "--max-moves", "3", "--no-progress", stdout=out)
    assert "2 match(es) had not ended after 3 moves" in out.getvalue()
    out = io.StringIO()
    call_command("simulate", "karma", "--lineup", "heuristic,random", "--matches", "2",
                 "--max-moves", "3", "--json", stdout=out)
    summary = json.loads(out.getvalue())
    assert (summary["matches"], summary["unfinished"], summary["max_moves"]) == (0, 2, 3)
    with pytest.raises(CommandError, match="max-moves"):
        call_command("simulate", "karma", "--lineup", "heuristic,random", "--max-moves", "-1")


def _die_in_the_third(job: tuple) -> dict:
    """A match job whose worker process dies (as one killed for its memory does) in the
    third match; the others play as usual. Module-level: spawned workers import it."""
    import os

    from games.management.commands.simulate import _one

    if job[2] % 1_000_003 == 2:
        os._exit(9)
    return _one(job)


def test_a_dead_worker_keeps_the_matches_that_ended():
    from games.management.commands.simulate import Command

    jobs = [("kato", lineup_for(["heuristic", "heuristic"], i), i, {"rounds": 1}, None, None)
            for i in range(3)]
    out, stopped = Command._run(jobs, 2, False, play=_die_in_the_third)
    assert stopped is not None and "worker" in stopped
    assert out[2] is None
    # The third job went to a worker after its first job had ended: that one at least stays.
    kept = [m for m in out[:2] if m is not None]
    assert kept and all(m["finished"] for m in kept)


def test_an_interrupted_run_prints_and_writes_what_ended_and_fails(monkeypatch, tmp_path):
    from games.management.commands import simulate as command

    played = []

    def interrupted_in_the_third(job):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(job)
        return play_match(*job[:4], budget=job[4], max_moves=job[5])

    monkeypatch.setattr(command, "_one", interrupted_in_the_third)
    out = io.StringIO()
    with pytest.raises(CommandError, match="stopped after 2 of 4 matches: interrupted"):
        call_command("simulate", "kato", "--lineup", "heuristic,heuristic", "--matches", "4",
                     "--options", '{"rounds": 1}', "--no-progress",
                     "--json-out", str(tmp_path / "r.json"), stdout=out)
    assert "PARTIAL: interrupted. 2 of 4 matches were played" in out.getvalue()
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["matches"] == 2 and written["planned"] == 4
    assert written["stopped"] == "interrupted" and len(written["match_results"]) == 2


def _wait_for_ever(job: tuple) -> dict:
    """A match job that never ends; it leaves its worker's pid in the folder ``job[0]``.
    Module-level: spawned workers import it."""
    import os
    import pathlib
    import time

    pathlib.Path(job[0], f"{os.getpid()}.pid").touch()
    time.sleep(600)
    return {}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return not any(line.startswith("State:") and "Z" in line.split()[1]
                           for line in status)
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads processes from /proc")
def test_the_workers_leave_when_the_command_is_killed(tmp_path):
    """Killed (SIGKILL: it cannot shut its pool down), the command leaves no worker behind;
    before, they waited for work for ever."""
    script = (
        "import django, sys\n"
        "django.setup()\n"
        "from games.management.commands.simulate import Command\n"
        "from tests.bots.test_simulate_command import _wait_for_ever\n"
        f"Command._run([({str(tmp_path)!r},)] * 2, 2, False, play=_wait_for_ever)\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    command = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 90
        while len(list(tmp_path.glob("*.pid"))) < 2:
            assert time.monotonic() < deadline, "the workers did not start"
            assert command.poll() is None, "the command ended by itself"
            time.sleep(0.1)
        workers = [int(p.stem) for p in tmp_path.glob("*.pid")]
        assert all(_alive(pid) for pid in workers)
    finally:
        command.kill()
        command.wait()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:  # not to leave them behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, "workers outlived the killed command"
