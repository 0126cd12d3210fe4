"""A ``drl-eval`` evaluation from its config to its files, and its report when stopped.

It plays the format, rates, prints the tables (with both clocks, mean and most time per
move, beside every row of an agent on a clock), writes ``results.json`` (with each
player's ``clocks``: moves, mean and most seconds per move), ``games.pdn`` and
``elo.png``; and when it is stopped (Ctrl-C, SIGTERM, an error) at any point, it prints and
writes the games it finished.

``drl.cli.eval.run`` locks the output folder and calls :func:`evaluate`; the signal
handling it passes in (:class:`StopGuard`) decides when a signal may cut in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from omegaconf import OmegaConf
from rich.console import Console

from drl._atomic import error_line
from drl.agents import spec_name
from drl.eval import report
from drl.eval.config import EvalConfig, planned_games
from drl.eval.elo import Ratings
from drl.eval.journal import Journal, game_dicts, interrupted_after
from drl.eval.records import GameRecord, write_pdn
from drl.eval.runners import play_format, rate, summary
from drl.eval.stats import clocks

__all__ = [
    "StopGuard",
    "evaluate",
    "header",
    "make_console",
    "player_names",
    "print_tables",
    "report_stopped",
    "report_unplayed",
]


class StopGuard(Protocol):
    """How the caller handles SIGINT and SIGTERM around the writing of the results."""

    reported: bool
    """Set once the evaluation has printed and written what it played (stopped)."""

    def hold(self) -> contextlib.AbstractContextManager[None]:
        """A block that a signal does not cut short (it waits until the block ends)."""
        ...


def make_console() -> Console:
    """A rich console for the tables (at least 120 columns when not a terminal)."""
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    return console


def header(cfg: EvalConfig) -> dict[str, Any]:
    """What ``results.json`` says before the games: the config, variant, format, players."""
    return {
        "config": OmegaConf.to_container(OmegaConf.structured(cfg)),
        "variant": cfg.variant.spec,
        "format": cfg.format,
        "players": [spec_name(s) for s in cfg.agents],
    }


def player_names(cfg: EvalConfig) -> list[str]:
    """The players' names as the records give them (two equal specs get ``#1``/``#2``)."""
    names = [spec_name(s) for s in cfg.agents]
    if len(names) == 2 and names[0] == names[1]:
        return [f"{names[0]}#1", f"{names[1]}#2"]
    return names


def print_tables(
    console: Console,
    cfg: EvalConfig,
    ratings: Ratings | None,
    records: list[GameRecord],
    players: list[str],
    note: str = "",
) -> None:
    """Print the standings (when rated), the pairs, and each player by colour and role.

    Titles end with `` - note`` when given.
    """
    suffix = f" - {note}" if note else ""
    if ratings is not None:
        title = f"Elo ({cfg.format}, {cfg.variant.spec}, anchor {ratings.anchor} = 0){suffix}"
        console.print(report.standings_table(ratings, records, title=title))
    console.print(report.pairs_table(records, players, title=f"Pairs{suffix}"))
    console.print(report.roles_table(records, players, title=f"By colour and role{suffix}"))


def evaluate(
    cfg: EvalConfig,
    out_dir: Path,
    stop: StopGuard,
    on_record: Callable[[GameRecord], None] | None = None,
) -> dict[str, Any]:
    """Play what ``cfg`` asks for, print the tables and write the results to ``out_dir``.

    ``out_dir`` is checked and locked by the caller; see ``drl.cli.eval.run`` for the files.

    Returns:
        The results dict written to ``results.json``.

    Raises:
        ValueError: a file cannot be written before the first game, or what the match
            functions raise; KeyboardInterrupt. Either after :func:`report_stopped`
            (``stop.reported`` is then True).
    """
    console = make_console()
    results = header(cfg)
    head = dict(results)
    console.print(
        f"[bold]drl-eval[/] {cfg.format} in {cfg.variant.spec}: {', '.join(results['players'])}"
    )
    journal: Journal | None = None
    try:
        try:
            journal = Journal(out_dir, head, planned_games(cfg), on_record)
        except OSError as err:
            raise ValueError(
                f"{out_dir}: cannot write the results there ({error_line(err)})"
            ) from None
        played = play_format(cfg, journal.add, console.print)
        ratings = rate(cfg, played.records, played.players)
        results.update(played.results)
        results["ratings"] = ratings.to_dict()
        results["summary"] = summary(played.records, played.players)
        results["clocks"] = clocks(played.records, played.players)
        results["games"] = game_dicts(played.records)
        print_tables(console, cfg, ratings, played.records, played.players)
        for t in played.tables:
            console.print(t)
        write_pdn(played.records, out_dir / "games.pdn")
        if cfg.plot:
            report.plot_elo(
                ratings, out_dir / "elo.png", title=f"{cfg.format} in {cfg.variant.spec}"
            )
        with stop.hold():  # complete: a Ctrl-C now waits for the last file
            journal.save("complete", results)
            console.print(f"results in {out_dir}")
    except BaseException as err:
        with stop.hold():  # a second Ctrl-C waits until the games are written
            try:
                if journal is None:
                    report_unplayed(cfg, out_dir, head, console, err)
                else:
                    report_stopped(cfg, journal, console, err)
            except Exception as why:  # never hide the first exception behind this one
                console.print(f"[bold red]drl-eval: could not save the games ({why})[/]")
            stop.reported = True
        raise
    done = {"status": "complete", "games_finished": len(played.records)}
    return {**results, **done, "games_planned": journal.planned}


def report_stopped(cfg: EvalConfig, journal: Journal, console: Console, err: BaseException) -> None:
    """Print and write what an interrupted (or failed) evaluation has played.

    A file that cannot be written (a full disk) is named; nothing here raises.
    """
    journal.close()
    records = journal.sorted()
    interrupted = isinstance(err, KeyboardInterrupt)
    if interrupted:
        note = interrupted_after(len(records), journal.planned, cfg.format)
    else:
        note = f"stopped by an error after {len(records)} games"
    results: dict[str, Any] = dict(journal.header)
    if not interrupted:
        results["error"] = f"{type(err).__name__}: {error_line(err)}"
    players = [n for n in player_names(cfg) if any(n in (r.black, r.white) for r in records)]
    ratings = None
    if len(players) >= 2:
        try:
            ratings = rate(cfg, records, players)
        except ValueError as why:  # the players who played are not connected by games yet
            results["ratings_error"] = str(why)
    if ratings is not None:
        results["ratings"] = ratings.to_dict()
    results["summary"] = summary(records, players)
    results["clocks"] = clocks(records, players)
    results["games"] = game_dicts(records)
    unwritten: list[str] = []
    try:
        write_pdn(records, journal.out_dir / "games.pdn")  # in game order, as at the end
    except OSError as why:  # the games stay in the file as they were appended
        unwritten.append(error_line(why))
    try:
        journal.save("interrupted" if interrupted else "failed", results)
    except OSError as why:
        unwritten.append(error_line(why))
    if interrupted or records:  # (an error before the first game is only reported)
        console.print(f"[bold red]drl-eval: {note}[/]")
        if records:
            print_tables(console, cfg, ratings, records, players, note)
        for what in unwritten:
            console.print(f"[bold red]drl-eval: could not write {what}[/]")
        console.print(f"the {len(records)} finished games are in {journal.out_dir}")


def report_unplayed(
    cfg: EvalConfig, out_dir: Path, head: dict[str, Any], console: Console, err: BaseException
) -> None:
    """Report an evaluation stopped before its journal was made (Ctrl-C while it started).

    Writes ``results.json`` and an empty ``games.pdn`` saying so, and prints it. Errors are
    only reported by the caller, as before any game.
    """
    if not isinstance(err, KeyboardInterrupt):
        return
    try:
        planned = planned_games(cfg)
    except ArithmeticError:  # a config interrupted before it was checked
        planned = None
    try:
        journal = Journal(out_dir, head, planned, None)
    except OSError as why:
        console.print(f"[bold red]drl-eval: {interrupted_after(0, planned, cfg.format)}[/]")
        console.print(f"[bold red]drl-eval: could not write {error_line(why)}[/]")
        return
    report_stopped(cfg, journal, console, err)
