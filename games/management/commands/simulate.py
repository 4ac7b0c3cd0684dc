"""``manage.py simulate``: bot-vs-bot matches at scale, with confidence intervals and a chart.

Only the pure engines and bots run (games/bots/simulate.py): no database, no server. Seats
rotate from match to match so that the first seat's advantage cancels; matches run in
``--workers`` processes, each match seeded from ``--seed`` and its index, so a run is
reproducible whatever the number of workers (up to the time budget of search bots, which
``--iterations`` with ``--time-ms 0`` removes).
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from games.bots import levels as bot_levels
from games.bots.simulate import MAX_MOVES, lineup_for, play_match, summarize
from games.engine import GAMES, EngineError


def _leave_with(parent: int) -> None:
    """A pool worker's initializer: end the worker when ``parent`` (the command) is gone.
    A killed command cannot shut its pool down, and its spawned workers would otherwise wait
    for work for ever (each also holds the job queue's write end, so it never reads EOF)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="leave-with-parent", daemon=True).start()


PARENT_CHECK_SECONDS = 1.0


def _one(job: tuple) -> dict:
    game, levels, seed, options, budget, max_moves = job
    return play_match(game, levels, seed, options, budget=budget, max_moves=max_moves)


class Command(BaseCommand):
    help = ("Play bots against each other and print win rate, placing and points per level "
            "with 95% confidence intervals, e.g. "
            "`simulate kato --lineup strong,heuristic,heuristic,heuristic --matches 1000`.")

    def add_arguments(self, parser):
        parser.add_argument("game", choices=sorted(GAMES))
        parser.add_argument("--lineup", default="heuristic,heuristic,heuristic,heuristic",
                            help="one bot level per seat, comma-separated")
        parser.add_argument("--matches", type=int, default=100)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--options", default="{}", help="house rules as a JSON object")
        parser.add_argument("--workers", type=int, default=1, help="processes")
        parser.add_argument("--iterations", type=int, default=None,
                            help="search iterations per move (default: the setting)")
        parser.add_argument("--time-ms", type=float, default=None,
                            help="search time per move in ms, 0 for none (default: the setting)")
        parser.add_argument("--max-moves", type=int, default=MAX_MOVES,
                            help="give a match up after this many moves and leave it out of "
                                 f"the rates, counted as unfinished (default {MAX_MOVES}; "
                                 "0: no limit)")
        parser.add_argument("--csv", help="write one row per level to this CSV file")
        parser.add_argument("--json-out", help="write the summary (and every match) as JSON")
        parser.add_argument("--chart", help="write a PNG chart of the win rate per level")
        parser.add_argument("--json", action="store_true",
                            help="print one JSON object instead of the table")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        game = opts["game"]
        levels = [lv.strip() for lv in opts["lineup"].split(",") if lv.strip()]
        known = bot_levels(game)
        unknown = [lv for lv in levels if lv not in known]
        if unknown:
            raise CommandError(f"unknown bot level(s) {', '.join(unknown)}; "
                               f"{game} has {', '.join(sorted(known))}")
        engine = GAMES[game]
        if not engine.min_players <= len(levels) <= engine.max_players:
            raise CommandError(f"{engine.name} takes {engine.min_players} to "
                               f"{engine.max_players} seats, the line-up has {len(levels)}")
        try:
            options = json.loads(opts["options"])
            engine.new_game(len(levels), 0, options)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from exc
        except EngineError as exc:
            raise CommandError(f"invalid options: {exc}") from exc
        if opts["matches"] < 1 or opts["workers"] < 1:
            raise CommandError("--matches and --workers must be at least 1")
        budget = {
            "iterations": opts["iterations"] if opts["iterations"] is not None
            else settings.STAPEL_STRONG_BOT_ITERATIONS,
            "time_ms": opts["time_ms"] if opts["time_ms"] is not None
            else settings.STAPEL_STRONG_BOT_TIME_MS,
        }
        if opts["max_moves"] < 0:
            raise CommandError("--max-moves must be at least 0 (0: no limit)")
        max_moves = opts["max_moves"] or None
        jobs = [(game, lineup_for(levels, i), opts["seed"] * 1_000_003 + i, options, budget,
                 max_moves) for i in range(opts["matches"])]
        results, stopped = self._run(jobs, opts["workers"],
                                     not opts["no_progress"] and not opts["json"])
        matches = [m for m in results if m is not None]
        summary = summarize(matches)
        summary.update(game=game, lineup=levels, seed=opts["seed"], budget=budget,
                       options=engine.validate_options(options), max_moves=max_moves,
                       planned=len(jobs), stopped=stopped)
        if opts["csv"]:
            self._write_csv(opts["csv"], summary)
        if opts["json_out"]:
            with open(opts["json_out"], "w") as fh:
                json.dump({**summary, "match_results": matches}, fh, indent=1)
        if opts["chart"]:
            self._write_chart(opts["chart"], summary)
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self._print_table(summary)
        if stopped is not None:
            # The figures of the matches that ended are out (and written); the exit status
            # still says the run is not what was asked for.
            raise CommandError(f"the run stopped after {len(matches)} of {len(jobs)} matches: "
                               f"{stopped}")

    @staticmethod
    def _run(jobs: list, workers: int, progress: bool, play=None) -> tuple[list, str | None]:
        """Every job's result (None for a job that did not end) and, where the run was cut
        short, why: a worker process that died (say, killed for its memory) or an interrupt.
        What ended before is kept either way. ``play`` runs one job (default ``_one``)."""
        from tqdm import tqdm

        play = play or _one

        bar = tqdm(total=len(jobs), unit="match", disable=not progress, file=sys.stderr)
        out: list = [None] * len(jobs)
        if workers == 1:
            try:
                for i, job in enumerate(jobs):
                    out[i] = play(job)
                    bar.update()
            except KeyboardInterrupt:
                return out, "interrupted"
            finally:
                bar.close()
            return out, None
        # Spawned, not forked: the parent may hold threads (a test server, a DB pool).
        pool = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_leave_with, initargs=(os.getpid(),))
        stopped = None
        try:
            # Counted as they end, not in order: one long match does not stop the bar.
            index = {pool.submit(play, job): i for i, job in enumerate(jobs)}
            for future in as_completed(index):
                try:
                    out[index[future]] = future.result()
                except BrokenProcessPool:
                    stopped = "a worker process died (killed, or out of memory)"
                    break
                bar.update()
        except KeyboardInterrupt:
            stopped = "interrupted"
        finally:
            bar.close()
            pool.shutdown(wait=stopped is None, cancel_futures=True)
        if stopped is not None:  # keep what ended before the pool broke
            for future, i in index.items():
                if out[i] is None and future.done() and not future.cancelled() \
                        and future.exception() is None:
                    out[i] = future.result()
        return out, stopped

    def _print_table(self, s: dict) -> None:
        w = self.stdout.write
        w(f"{s['game']}: {s['matches']} matches, line-up {','.join(s['lineup'])}, "
          f"seed {s['seed']}, budget {s['budget']}")
        if s.get("stopped"):
            w(f"PARTIAL: {s['stopped']}. {s['matches'] + s['unfinished']} of {s['planned']} "
              "matches were played; the figures below are theirs")
        w(f"{'level':<12}{'seats':>7}{'win rate':>10}  {'95% CI':<17}"
          f"{'placing':>9}{'±':>6}{'points':>10}{'±':>8}")
        for level, r in sorted(s["levels"].items()):
            lo, hi = r["ci95"]
            w(f"{level:<12}{r['matches']:>7}{r['win_rate']:>10.3f}  [{lo:.3f}, {hi:.3f}]   "
              f"{r['mean_placing']:>8.3f}{r['placing_ci95']:>6.3f}{r['mean_score']:>10.2f}"
              f"{r['score_ci95']:>8.2f}")
        w(f"fair share (the win rate of a level no better than the others): "
          f"{s['fair_share']:.3f}")
        if s["unfinished"]:
            w(f"{s['unfinished']} match(es) had not ended after {s['max_moves']} moves: given "
              "up, and left out of the rates above")
        t = s["strong_move_ms"]
        w(f"mean match length {s['mean_moves']:.1f} moves ({s['mean_rounds']:.2f} rounds), "
          f"{s['moves_per_second']:.0f} moves/s")
        if t["count"]:
            w(f"strong move time: p50 {t['p50']:.1f} ms, p99 {t['p99']:.1f} ms, "
              f"max {t['max']:.1f} ms over {t['count']} moves")

    @staticmethod
    def _write_csv(path: str, s: dict) -> None:
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["game", "level", "matches", "wins", "win_rate", "ci95_low",
                             "ci95_high", "mean_placing", "placing_ci95", "mean_score",
                             "score_ci95"])
            for level, r in sorted(s["levels"].items()):
                writer.writerow([s["game"], level, r["matches"], r["wins"],
                                 f"{r['win_rate']:.4f}", f"{r['ci95'][0]:.4f}",
                                 f"{r['ci95'][1]:.4f}", f"{r['mean_placing']:.4f}",
                                 f"{r['placing_ci95']:.4f}", f"{r['mean_score']:.4f}",
                                 f"{r['score_ci95']:.4f}"])

    @staticmethod
    def _write_chart(path: str, s: dict) -> None:
        import matplotlib

        matplotlib.use("Agg")  # files only, no display
        from matplotlib import pyplot as plt

        names = sorted(s["levels"])
        rates = [s["levels"][n]["win_rate"] for n in names]
        low = [r - s["levels"][n]["ci95"][0] for n, r in zip(names, rates, strict=True)]
        high = [s["levels"][n]["ci95"][1] - r for n, r in zip(names, rates, strict=True)]
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.bar(names, rates, yerr=[low, high], capsize=6, color="#4c72b0")
        ax.axhline(s["fair_share"], color="grey", linestyle="--", linewidth=1,
                   label="fair share")
        ax.set_ylabel("win rate (95% CI)")
        ax.set_ylim(0, 1)
        ax.set_title(f"{s['game']}: {s['matches']} matches")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
