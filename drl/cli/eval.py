"""``drl-eval``: matches, tournaments and ratings between agents (Hydra).

Examples::

    drl-eval variant=give_and_take agents='[alphabeta:depth=4,mcts:sims=400,random]' games=100
    drl-eval format=gauntlet agents='[az:ckpt=runs/gt-1,alphabeta:depth=4,random]'
    drl-eval variant=give_and_take:max_capture=true format=halftime \\
        agents='[alphabeta:depth=4,greedy]' games=20
    drl-eval variant=losing format=pool agents='[alphabeta:depth=2,greedy,random]' lives=3
    drl-eval format=sprt agents='[alphabeta:depth=5,alphabeta:depth=4]' sprt.elo1=50

Formats: ``round_robin`` (every pair plays ``games`` games) and ``gauntlet`` (the first
agent against each other one) end with maximum-likelihood Elo (``anchor`` = 0);
``halftime`` is a Give and Take match of ``games`` games (an even number) with roles
switched at halftime; ``pool`` is pool play with ``lives`` (``docs/rules.md``, "Match formats");
``sprt`` plays the first agent against the second in batches of ``games`` (use an even number) until
the SPRT on game pairs (pentanomial: same opening, colours and roles swapped) decides.

Every two games start from a new opening (distinct seeded random openings of ``openings``
plies, 4 by default) with colours swapped; in Give and Take the two have the same Taker
colour (each agent plays each role from it once) and the next opening the other one.
A progress bar runs
while games are played; a table is printed at the end; ``results.json``, ``games.pdn``
and ``elo.png`` are written to the Hydra run folder (``outputs/eval/<date>/<time>``, with
``-1``, ``-2``, ... added for a second run started in the same second; checked and locked
before anything runs: a folder another run is writing to, or holding an earlier run's
``results.json``, is refused). Games are saved as they finish (``games.pdn`` game by
game, ``results.json`` every few seconds); Ctrl-C or SIGTERM, at any moment from
start-up to the last file, prints the tables of the games finished so far ("interrupted
after N of M games"), writes both files with them and exits with 130 (SIGINT) or 143
(SIGTERM); an error (a full disk included) is one line and exit status 1. Counts are
bounded (``games`` at most ``drl.eval.limits.MAX_GAMES`` in all, and the other
``MAX_*``): a larger one is refused at once, naming the key and the limit.

Agent specs contain ``=``, which Hydra's override grammar does not allow inside an
unquoted list, so ``agents=[...]`` is quoted for Hydra before it parses the command line
(a spec's own ``param=value`` items after the first stay with that spec). Likewise
``variant=name:flag=value,...`` selects the ``variant/name`` config and sets
``variant.spec`` to the full string.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from drl.cli._configs import VariantCfg, config_dir
from drl.eval.sprt import SPRTSettings

if TYPE_CHECKING:
    from omegaconf import DictConfig

    from drl.eval.records import GameRecord

CONFIG_DIR = config_dir()
FORMATS = ("round_robin", "gauntlet", "halftime", "pool", "sprt")

VariantNode = VariantCfg  # the ``variant`` group, shared with ``drl-train``


SPRTNode = SPRTSettings  # the ``sprt`` group: drl.eval.sprt's settings


@dataclass
class EvalConfig:
    """Schema of ``configs/eval.yaml`` (a misspelt key is a Hydra error); the defaults here
    are the only ones (``eval.yaml`` picks ``variant=english``).

    Attributes:
        variant: the game; only ``spec`` (and ``name``) matter here.
        agents: agent specs (``alphabeta:depth=4``, ``mcts:sims=400``, ``random``, ...).
        format: ``round_robin``, ``gauntlet``, ``halftime``, ``pool`` or ``sprt``.
        games: per pair (round_robin, gauntlet), per match (halftime), per SPRT batch.
        openings: plies of distinct seeded random openings, one per two games (a variant
            with fewer of that length than ``games / 2`` is refused); None = the start
            position.
        seed: match seed.
        workers: processes; None = min(2, CPUs).
        max_plies: longer games are reported as truncated (scored 1/2), not drawn.
        anchor: rated 0 (if playing; else the first agent).
        draw_model: ``half`` (draw = half point) or ``davidson``.
        prior_draws: virtual draws per pair that met: keeps 100% scores finite.
        confidence: of the Elo intervals.
        interval: ``profile`` (likelihood) or ``hessian``.
        lives: ``format=pool``: lives per player.
        life_lost_by: ``format=pool``: ``loser`` or ``winner`` (the literal rule text;
            ``docs/rules.md``, "Match formats").
        pool_games_per_round: ``format=pool``.
        sprt: ``format=sprt`` hypotheses and error rates.
        progress: show a progress bar.
        plot: write ``elo.png``.
    """

    variant: VariantCfg = field(default_factory=VariantCfg)
    agents: list[str] = field(
        default_factory=lambda: ["alphabeta:depth=4", "mcts:sims=400", "random"]
    )
    format: str = "round_robin"
    games: int = 20
    openings: int | None = 4
    seed: int = 0
    workers: int | None = None
    max_plies: int = 400
    anchor: str | None = "random"
    draw_model: str = "half"
    prior_draws: float = 1.0
    confidence: float = 0.95
    interval: str = "profile"
    lives: int = 3
    life_lost_by: str = "loser"
    pool_games_per_round: int = 2
    sprt: SPRTNode = field(default_factory=SPRTNode)
    progress: bool = True
    plot: bool = True


def _register() -> None:
    from hydra.core.config_store import ConfigStore

    ConfigStore.instance().store(name="eval_schema", node=EvalConfig)


def _split_specs(body: str) -> list[str]:
    """``a:x=1,b:y=2,z=3,c`` -> ``["a:x=1", "b:y=2,z=3", "c"]``: an item whose text before
    its first ``=`` has no ``:`` is another parameter of the previous spec. Commas inside
    quotes (``args='-a 1,2'``) do not split."""
    from drl.agents.base import split_items

    specs: list[str] = []
    for item in filter(None, (p.strip() for p in split_items(body))):
        head = item.split("=", 1)[0]
        if specs and "=" in item and ":" not in head:
            specs[-1] += "," + item
        else:
            specs.append(item)
    return specs


def quote_overrides(argv: list[str]) -> list[str]:
    """Rewrite ``agents=[...]`` and ``variant=name:flags`` for Hydra (see module doc)."""
    out = []
    for arg in argv:
        key, eq, value = arg.partition("=")
        if (
            eq
            and key == "agents"
            and value.startswith("[")
            and value.endswith("]")
            and value[1:].lstrip()[:1] not in ("'", '"')
        ):
            items = _split_specs(value[1:-1])
            quoted = (s.replace('"', '\\"') for s in items)
            out.append("agents=[" + ",".join(f'"{s}"' for s in quoted) + "]")
        elif eq and key == "variant" and ":" in value and '"' not in value:
            name = value.split(":", 1)[0].strip()
            out += [f"variant={name}", f'variant.spec="{value}"']
        else:
            out.append(arg)
    return out


def planned_games(cfg: EvalConfig) -> int | None:
    """Games the evaluation plays (round robin, gauntlet, halftime), the most it can play
    (sprt: ``sprt.max_games`` rounded up to whole batches), or None (pool: it plays
    until one player is left)."""
    n = len(cfg.agents)
    if cfg.format == "round_robin":
        return n * (n - 1) // 2 * cfg.games
    if cfg.format == "gauntlet":
        return (n - 1) * cfg.games
    if cfg.format == "halftime":
        return cfg.games
    if cfg.format == "sprt":
        return -(-cfg.sprt.max_games // cfg.games) * cfg.games
    return None


def _check(cfg: EvalConfig) -> None:
    """Values that types cannot check; raises ValueError naming the key (and, for counts,
    the limit: :data:`drl.eval.limits.MAX_GAMES` games and the other ``MAX_*``)."""
    from drl.agents import spec_name
    from drl.eval.formats import MAX_LIVES
    from drl.eval.limits import MAX_GAMES, MAX_OPENING_PLIES, MAX_PLIES, MAX_WORKERS, check_count
    from drl.rules import Variant

    try:
        Variant.parse(cfg.variant.spec)
    except ValueError as err:
        raise ValueError(f"variant.spec={cfg.variant.spec!r}: {err}") from None
    if cfg.format not in FORMATS:
        raise ValueError(f"format={cfg.format!r}: choose one of {', '.join(FORMATS)}")

    def count(key: str, value: int, low: int, high: int, unit: str = "") -> None:
        try:
            check_count(value, key, low, high)
        except ValueError:
            raise ValueError(f"{key}={value}: must be between {low} and {high:,}{unit}") from None

    count("games", cfg.games, 1, MAX_GAMES)
    if cfg.format == "sprt" and cfg.games % 2:
        raise ValueError(f"games={cfg.games}: format=sprt plays game pairs, use an even number")
    if cfg.format == "halftime" and (cfg.games < 2 or cfg.games % 2):
        raise ValueError(
            f"games={cfg.games}: format=halftime plays two halves of games/2 "
            f"games each (roles switched at halftime), use an even number >= 2"
        )
    count("max_plies", cfg.max_plies, 1, MAX_PLIES)
    count("lives", cfg.lives, 1, MAX_LIVES)
    count("pool_games_per_round", cfg.pool_games_per_round, 1, MAX_GAMES)
    if cfg.openings is not None:
        if cfg.openings < 0:
            raise ValueError(
                f"openings={cfg.openings}: must be >= 0 plies (0 or null: the start position)"
            )
        count("openings", cfg.openings, 0, MAX_OPENING_PLIES, " plies of random moves")
    if cfg.workers is not None:
        if cfg.workers < 1:
            raise ValueError(f"workers={cfg.workers}: must be >= 1 (or null: automatic)")
        count("workers", cfg.workers, 1, MAX_WORKERS)
    if cfg.seed < 0:
        raise ValueError(f"seed={cfg.seed}: must be >= 0")
    if not 0 < cfg.confidence < 1:
        raise ValueError(f"confidence={cfg.confidence}: must be between 0 and 1")
    if not 0 <= cfg.prior_draws < math.inf:
        raise ValueError(f"prior_draws={cfg.prior_draws}: must be a finite number >= 0")
    s = cfg.sprt
    if not (0 < s.alpha < 1 and 0 < s.beta < 1):
        raise ValueError(f"sprt.alpha={s.alpha}, sprt.beta={s.beta}: must be between 0 and 1")
    if not (math.isfinite(s.elo0) and math.isfinite(s.elo1) and s.elo0 < s.elo1):
        raise ValueError(f"sprt.elo0={s.elo0}, sprt.elo1={s.elo1}: need finite elo0 < elo1")
    count("sprt.max_games", s.max_games, 1, MAX_GAMES)
    if cfg.draw_model not in ("half", "davidson"):
        raise ValueError(f"draw_model={cfg.draw_model!r}: choose half or davidson")
    if cfg.interval not in ("profile", "hessian"):
        raise ValueError(f"interval={cfg.interval!r}: choose profile or hessian")
    try:
        names = [spec_name(s) for s in cfg.agents]  # raises with the list of valid agents
    except ValueError as err:
        raise ValueError(f"agents: {err}") from None
    if cfg.format in ("halftime", "sprt") and len(names) != 2:
        raise ValueError(f"agents: format={cfg.format} needs exactly 2 agents, got {len(names)}")
    need = 3 if cfg.format == "pool" else 2
    if len(names) < need:
        raise ValueError(
            f"agents: format={cfg.format} needs at least {need} agents, got {len(names)}"
        )
    if len(set(names)) != len(names) and cfg.format not in ("halftime", "sprt"):
        raise ValueError(f"agents: names must differ (add e.g. seed=1 to tell two apart): {names}")
    total = planned_games(cfg)
    if total is not None and total > MAX_GAMES:
        raise ValueError(
            f"games={cfg.games}: format={cfg.format} with {len(names)} agents would play "
            f"{total:,} games, more than the limit of {MAX_GAMES:,}"
        )
    if cfg.format == "pool":
        from drl.eval.formats import POOL_ROUNDS

        most = cfg.pool_games_per_round * (len(names) // 2) * POOL_ROUNDS
        if most > MAX_GAMES:
            raise ValueError(
                f"pool_games_per_round={cfg.pool_games_per_round}: {len(names)} agents "
                f"over up to {POOL_ROUNDS} rounds could play {most:,} games, more than "
                f"the limit of {MAX_GAMES:,}"
            )


def _rate(cfg: EvalConfig, records, players):
    from drl.eval.elo import fit_elo

    anchor = cfg.anchor if cfg.anchor in players else None
    games = [(r.black, r.white, r.score_of(r.black)) for r in records]
    return fit_elo(
        games,
        players=players,
        anchor=anchor,
        draw_model=cfg.draw_model,
        prior_draws=cfg.prior_draws,
        confidence=cfg.confidence,
        interval=cfg.interval,
    )


class _MatchOptions(TypedDict):
    """The keywords every format's match function takes from :class:`EvalConfig`."""

    openings: int | None
    seed: int
    workers: int | None
    max_plies: int
    progress: bool


def _player_names(cfg: EvalConfig) -> list[str]:
    """The players' names as the records give them (two equal specs get ``#1``/``#2``)."""
    from drl.agents import spec_name

    names = [spec_name(s) for s in cfg.agents]
    if len(names) == 2 and names[0] == names[1]:
        return [f"{names[0]}#1", f"{names[1]}#2"]
    return names


def _games(records: list[GameRecord]) -> list[dict]:
    return [{k: v for k, v in r.to_dict().items() if k != "pdn"} for r in records]


SAVE_EVERY_S = 2.0
"""Shortest time between two rewrites of ``results.json`` while games are played."""


class _Journal:
    """Keeps an evaluation's finished games on disk while it plays: each game is appended
    to ``games.pdn`` (flushed) as it finishes, and ``results.json`` is rewritten
    atomically with the games so far (``"status": "running"``) every
    :data:`SAVE_EVERY_S` seconds at most (and no more often than every 20 times the
    last write's duration, so that a long evaluation does not spend its time writing)."""

    def __init__(
        self,
        out_dir: Path,
        header: dict[str, Any],
        planned: int | None,
        on_record: Callable[[GameRecord], None] | None,
    ) -> None:
        from drl.eval.records import PDNWriter

        self.out_dir, self.header, self.planned = out_dir, header, planned
        self.on_record = on_record
        self.records: list[GameRecord] = []
        self.pdn = PDNWriter(out_dir / "games.pdn")
        self._last = self._cost = 0.0
        self.save("running")

    def add(self, rec: GameRecord) -> None:
        """Keep one finished game (then call ``on_record``)."""
        self.pdn.add(rec)
        self.records.append(rec)
        if time.monotonic() - self._last >= max(SAVE_EVERY_S, 20 * self._cost):
            self.save("running")
        if self.on_record is not None:
            self.on_record(rec)

    def sorted(self) -> list[GameRecord]:
        return sorted(self.records, key=lambda r: r.index)

    def save(self, status: str, results: dict[str, Any] | None = None) -> None:
        """Write ``results.json``: ``results`` (default: the header and the games so far)
        with ``status``, ``games_finished`` and ``games_planned``."""
        from drl.eval import report

        start = time.monotonic()
        body = results if results is not None else {**self.header, "games": _games(self.sorted())}
        body = {
            **body,
            "status": status,
            "games_finished": len(self.records),
            "games_planned": self.planned,
        }
        report.write_json(body, self.out_dir / "results.json")
        self._last = time.monotonic()
        self._cost = self._last - start

    def close(self) -> None:
        with contextlib.suppress(OSError):  # (a full disk: each game was flushed or failed)
            self.pdn.close()


def interrupted_after(done: int, planned: int | None, fmt: str) -> str:
    """``"interrupted after N of M games"`` (sprt: ``of at most M``; pool: no ``M``)."""
    if planned is None:
        return f"interrupted after {done} games"
    return f"interrupted after {done} of {'at most ' if fmt == 'sprt' else ''}{planned} games"


def _print_tables(
    console: Any,
    cfg: EvalConfig,
    ratings: Any,
    records: list[GameRecord],
    players: list[str],
    note: str = "",
) -> None:
    from drl.eval import report

    suffix = f" - {note}" if note else ""
    if ratings is not None:
        title = f"Elo ({cfg.format}, {cfg.variant.spec}, anchor {ratings.anchor} = 0){suffix}"
        console.print(report.standings_table(ratings, records, title=title))
    console.print(report.pairs_table(records, players, title=f"Pairs{suffix}"))
    console.print(report.roles_table(records, players, title=f"By colour and role{suffix}"))


def _summary(records: list[GameRecord], players: list[str]) -> dict[str, Any]:
    from drl.eval.stats import summarize

    return {n: {k: w.to_dict() for k, w in summarize(records, n).items()} for n in players}


def _report_stopped(cfg: EvalConfig, journal: _Journal, console: Any, err: BaseException) -> None:
    """Print and write what an interrupted (or failed) evaluation has played. A file that
    cannot be written (a full disk) is named; nothing here raises."""
    from drl.eval.records import write_pdn

    journal.close()
    records = journal.sorted()
    interrupted = isinstance(err, KeyboardInterrupt)
    if interrupted:
        note = interrupted_after(len(records), journal.planned, cfg.format)
    else:
        note = f"stopped by an error after {len(records)} games"
    results: dict[str, Any] = dict(journal.header)
    if not interrupted:
        results["error"] = f"{type(err).__name__}: {_message(err)}"
    players = [n for n in _player_names(cfg) if any(n in (r.black, r.white) for r in records)]
    ratings = None
    if len(players) >= 2:
        try:
            ratings = _rate(cfg, records, players)
        except ValueError as why:  # the players who played are not connected by games yet
            results["ratings_error"] = str(why)
    if ratings is not None:
        results["ratings"] = ratings.to_dict()
    results["summary"] = _summary(records, players)
    results["games"] = _games(records)
    unwritten: list[str] = []
    try:
        write_pdn(records, journal.out_dir / "games.pdn")  # in game order, as at the end
    except OSError as why:  # the games stay in the file as they were appended
        unwritten.append(_message(why))
    try:
        journal.save("interrupted" if interrupted else "failed", results)
    except OSError as why:
        unwritten.append(_message(why))
    if interrupted or records:  # (an error before the first game is only reported)
        console.print(f"[bold red]drl-eval: {note}[/]")
        if records:
            _print_tables(console, cfg, ratings, records, players, note)
        for what in unwritten:
            console.print(f"[bold red]drl-eval: could not write {what}[/]")
        console.print(f"the {len(records)} finished games are in {journal.out_dir}")


def _report_unplayed(
    cfg: EvalConfig, out_dir: Path, header: dict[str, Any], console: Any, err: BaseException
) -> None:
    """An evaluation stopped before its journal was made (Ctrl-C while it started): write
    ``results.json`` and an empty ``games.pdn`` saying so, and print it. Errors are only
    reported by the caller, as before any game."""
    if not isinstance(err, KeyboardInterrupt):
        return
    try:
        planned = planned_games(cfg)
    except ArithmeticError:  # a config interrupted before it was checked
        planned = None
    try:
        journal = _Journal(out_dir, header, planned, None)
    except OSError as why:
        console.print(f"[bold red]drl-eval: {interrupted_after(0, planned, cfg.format)}[/]")
        console.print(f"[bold red]drl-eval: could not write {_message(why)}[/]")
        return
    _report_stopped(cfg, journal, console, err)


def _message(err: BaseException) -> str:
    """An error for one line: ``PATH: reason`` for a file that could not be written."""
    if isinstance(err, OSError) and err.filename and err.strerror:
        return f"{err.filename}: {err.strerror}"
    return str(err)


def _console() -> Any:
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    return console


def _header(cfg: EvalConfig) -> dict[str, Any]:
    """What ``results.json`` says before the games: the config, variant, format, players."""
    from omegaconf import OmegaConf

    from drl.agents import spec_name

    return {
        "config": OmegaConf.to_container(OmegaConf.structured(cfg)),
        "variant": cfg.variant.spec,
        "format": cfg.format,
        "players": [spec_name(s) for s in cfg.agents],
    }


def _play(
    cfg: EvalConfig,
    journal: _Journal,
    results: dict[str, Any],
    console: Any,
) -> tuple[list[GameRecord], list[str], list[Any]]:
    """Play the format's games, each through ``journal.add``; put the format's own results
    into ``results``. Returns ``(records, players, extra tables)``."""
    from drl.agents import spec_name
    from drl.eval.formats import halftime_match, pool_tournament
    from drl.eval.sprt import play_sprt
    from drl.eval.tournament import play_tournament

    variant = cfg.variant.spec
    names = [spec_name(s) for s in cfg.agents]
    common = _MatchOptions(
        openings=cfg.openings,
        seed=cfg.seed,
        workers=cfg.workers,
        max_plies=cfg.max_plies,
        progress=cfg.progress,
    )
    extra_tables: list[Any] = []
    if cfg.format in ("round_robin", "gauntlet"):
        match = play_tournament(
            list(cfg.agents),
            variant,
            cfg.games,
            schedule=cfg.format,
            on_record=journal.add,
            **common,
        )
        return match.records, list(match.players), extra_tables
    if cfg.format == "halftime":
        h = halftime_match(
            cfg.agents[0], cfg.agents[1], variant, cfg.games // 2, on_record=journal.add, **common
        )
        results["halftime"] = {
            "first_half": h.first_half,
            "second_half": h.second_half,
            "total": h.total,
            "winner": h.winner,
            "won_both_roles": h.won_both_roles,
        }
        console.print(
            f"halftime: {h.players[0]} takes first; halves {h.first_half} and "
            f"{h.second_half}; winner {h.winner or 'none (tied)'}"
            + (f", {h.won_both_roles} won in both roles" if h.won_both_roles else "")
        )
        return h.records, list(h.players), extra_tables
    if cfg.format == "pool":
        p = pool_tournament(
            list(cfg.agents),
            variant,
            cfg.lives,
            games_per_round=cfg.pool_games_per_round,
            life_lost_by=cfg.life_lost_by,
            on_record=journal.add,
            **common,
        )
        results["pool"] = {
            "winner": p.winner,
            "rounds": p.rounds,
            "standings": [vars(s) for s in p.standings],
        }
        from rich.table import Table

        t = Table(
            title=f"Pool ({cfg.lives} lives, a life lost by the round's {cfg.life_lost_by})",
            title_justify="left",
        )
        for col in ("player", "lives", "won", "lost", "tied", "points", "out in round"):
            t.add_column(col, justify="left" if col == "player" else "right")
        for s in p.standings:
            t.add_row(
                s.name,
                str(s.lives),
                str(s.rounds_won),
                str(s.rounds_lost),
                str(s.rounds_tied),
                f"{s.points:g}",
                str(s.out_in_round or "-"),
            )
        extra_tables.append(t)
        return p.records, names, extra_tables
    sprt = cfg.sprt

    def show(now: Any, games: int) -> None:
        console.print(
            f"SPRT after {games} games: LLR {now.llr:.2f} "
            f"[{now.lower:.2f}, {now.upper:.2f}] -> {now.decision}"
        )

    test = play_sprt(
        cfg.agents[0],
        cfg.agents[1],
        variant,
        cfg.games,
        elo0=sprt.elo0,
        elo1=sprt.elo1,
        alpha=sprt.alpha,
        beta=sprt.beta,
        max_games=sprt.max_games,
        on_batch=show,
        on_record=journal.add,
        **common,
    )
    results["sprt"] = {
        "pentanomial": test.counts,
        "llr": test.result.llr,
        "lower": test.result.lower,
        "upper": test.result.upper,
        "decision": test.result.decision,
        "games": len(test.records),
        "elo0": sprt.elo0,
        "elo1": sprt.elo1,
        "alpha": sprt.alpha,
        "beta": sprt.beta,
    }
    return test.records, list(test.players), extra_tables


def run(
    cfg: EvalConfig,
    out_dir: Path,
    on_record: Callable[[GameRecord], None] | None = None,
) -> dict:
    """Play what ``cfg`` asks for, print tables and write results to ``out_dir``.

    The folder is locked for the run (``flock`` on the folder; ``.lock`` names the pid):
    another evaluation writing there is refused. Every game is kept as it finishes: it
    is appended to ``games.pdn`` (flushed), and ``results.json`` is rewritten atomically
    with the games so far every few seconds (``"status": "running"``,
    ``games_finished``, ``games_planned``). At the end both files are rewritten whole,
    the games in order (``"status": "complete"``). If the evaluation is interrupted
    (``KeyboardInterrupt``: Ctrl-C, or SIGTERM under ``drl-eval``) or fails at any point
    from its first file to the last (building agents, playing, rating, printing tables,
    writing the files), the tables of the games finished so far are printed, marked
    ``interrupted after N of M games``, both files are written with those games
    (``"status": "interrupted"`` or ``"failed"``; a file that cannot be written, as on a
    full disk, is named instead), and the exception is raised again. Signals that come
    while the final ``results.json`` is written wait for it (``drl-eval`` then exits with
    their status).

    Args:
        cfg: the evaluation (checked by the caller, see ``_check``).
        out_dir: folder for ``results.json``, ``games.pdn`` and ``elo.png`` (created;
            files of an earlier run there are replaced: ``drl-eval`` refuses such a
            folder first).
        on_record: called with each finished game once it has been saved.

    Returns:
        The results dict written to ``results.json``.

    Raises:
        ValueError: ``out_dir`` or a file in it cannot be written, or another evaluation
            is writing there (before any game, naming the path), or what the match
            functions raise (bad agents...).
        KeyboardInterrupt: the evaluation was interrupted (after writing what it had).
    """
    from drl.cli._output import check_writable_dir, check_writable_file

    check_writable_dir(out_dir)
    for name in ("results.json", "games.pdn") + (("elo.png",) if cfg.plot else ()):
        check_writable_file(out_dir / name)
    took = claim_output_dir(out_dir)
    try:
        return _run_claimed(cfg, out_dir, on_record)
    finally:
        if took:
            with _STOP.hold():
                release_output_dir(out_dir)


def _run_claimed(
    cfg: EvalConfig, out_dir: Path, on_record: Callable[[GameRecord], None] | None
) -> dict:
    from drl.eval import report
    from drl.eval.records import write_pdn

    console = _console()
    variant = cfg.variant.spec
    results = _header(cfg)
    header = dict(results)
    console.print(f"[bold]drl-eval[/] {cfg.format} in {variant}: {', '.join(results['players'])}")
    journal: _Journal | None = None
    try:
        try:
            journal = _Journal(out_dir, header, planned_games(cfg), on_record)
        except OSError as err:
            raise ValueError(
                f"{out_dir}: cannot write the results there ({_message(err)})"
            ) from None
        records, players, extra_tables = _play(cfg, journal, results, console)
        ratings = _rate(cfg, records, players)
        results["ratings"] = ratings.to_dict()
        results["summary"] = _summary(records, players)
        results["games"] = _games(records)
        _print_tables(console, cfg, ratings, records, players)
        for t in extra_tables:
            console.print(t)
        write_pdn(records, out_dir / "games.pdn")
        if cfg.plot:
            report.plot_elo(ratings, out_dir / "elo.png", title=f"{cfg.format} in {variant}")
        with _STOP.hold():  # complete: a Ctrl-C now waits for the last file
            journal.save("complete", results)
            console.print(f"results in {out_dir}")
    except BaseException as err:
        with _STOP.hold():  # a second Ctrl-C waits until the games are written
            try:
                if journal is None:
                    _report_unplayed(cfg, out_dir, header, console, err)
                else:
                    _report_stopped(cfg, journal, console, err)
            except Exception as why:  # never hide the first exception behind this one
                console.print(f"[bold red]drl-eval: could not save the games ({why})[/]")
            _STOP.reported = True
        raise
    results = {**results, "status": "complete", "games_finished": len(records)}
    results["games_planned"] = journal.planned
    return results


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in ``drl-eval``'s main thread so that the evaluation stops and
    keeps its games as on Ctrl-C (the exit status is then 143, 128 + SIGTERM)."""


def _exit_status(err: BaseException) -> int:
    """130 for Ctrl-C (128 + SIGINT), 143 for SIGTERM."""
    return 128 + (signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT)


class _StopSignals:
    """``drl-eval``'s SIGINT and SIGTERM handler, installed first thing in :func:`main`
    (before Hydra, the config and the agents) and kept until the process exits.

    A signal raises ``KeyboardInterrupt`` (SIGTERM: :class:`Terminated`) in the main
    thread, so that whatever runs stops and the evaluation writes what it has. Inside
    :meth:`hold` (writing the results) a signal waits instead: it is recorded, and the
    exit status is still 128 + the signal. Just after one has been raised, the next one
    waits too (it would cut the writing of the games short before :meth:`hold` begins);
    one after that is raised again.

    Without the handler installed (``run`` called as a library), :meth:`hold` ignores
    SIGINT and SIGTERM instead.
    """

    def __init__(self) -> None:
        self.installed = False
        self.holding = False
        self.received: int | None = None  # the first signal, for the exit status
        self.raised = False
        self.waiting = 0
        self.reported = False  # ``run`` wrote and printed what it had played

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handle)
        self.installed = True

    def _handle(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum
        if self.holding or (self.raised and not self.waiting):
            self.waiting += 1
            return
        self.raised, self.waiting = True, 0
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Signals wait until the block is done (see the class)."""
        if not self.installed or threading.current_thread() is not threading.main_thread():
            from drl.eval.play import IgnoringSignals

            with IgnoringSignals(signal.SIGINT, signal.SIGTERM):
                yield
            return
        before, self.holding = self.holding, True
        try:
            yield
        finally:
            self.holding = before


_STOP = _StopSignals()


# Output folders this process holds: path -> (open file descriptor, the ``.lock`` file is
# the lock itself). A folder is locked with ``flock`` on the folder (deleting ``.lock``
# cannot unlock it; ``.lock`` only names the pid for the message); where folders cannot
# be locked (some network file systems), ``.lock`` is.
_CLAIMS: dict[str, tuple[int, bool]] = {}
LOCK_NAME = ".lock"


def _holder(folder: str) -> str:
    try:
        pid = int(Path(folder, LOCK_NAME).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return "another drl-eval"
    return f"another drl-eval (pid {pid})"


def claim_output_dir(folder: str | os.PathLike, key: str | None = None) -> bool:
    """Lock the output folder ``folder`` (existing) for this process until
    :func:`release_output_dir` or the process ends.

    Returns:
        True if it was locked now, False if this process already held it.

    Raises:
        ValueError: ``"{key}={folder}: another drl-eval (pid N) is writing its results
            there; ..."``, or the folder cannot be opened.
    """
    try:
        import fcntl
    except ImportError:  # (no flock: nothing to lock with)
        return False
    path = os.path.realpath(folder)
    if path in _CLAIMS:
        return False
    label = f"{key}={folder}" if key else str(folder)
    lock_file = False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as err:
        raise ValueError(f"{label}: cannot open this folder ({_message(err)})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise
        except OSError:  # folders cannot be locked here: lock the .lock file
            os.close(fd)
            fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o644)
            lock_file = True
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ValueError(
            f"{label}: {_holder(path)} is writing its results there; choose another "
            "folder (hydra.run.dir=...)"
        ) from None
    except OSError as err:
        os.close(fd)
        raise ValueError(f"{label}: cannot lock this folder ({_message(err)})") from None
    _CLAIMS[path] = (fd, lock_file)
    with contextlib.suppress(OSError):  # (only for the message of a refused run)
        if lock_file:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        else:
            Path(path, LOCK_NAME).write_text(f"{os.getpid()}\n")
    return True


def release_output_dir(folder: str | os.PathLike) -> None:
    """Unlock a folder locked by :func:`claim_output_dir` (and remove its ``.lock``)."""
    fd, lock_file = _CLAIMS.pop(os.path.realpath(folder), (-1, False))
    if fd < 0:
        return
    if not lock_file:  # (the lock is the folder: the file only named the pid)
        with contextlib.suppress(OSError):
            Path(folder, LOCK_NAME).unlink()
    os.close(fd)


def _fresh_folder(folder: str, key: str) -> Path:
    """``folder``, or ``folder-1``, ``folder-2``, ... : the first that did not exist,
    created here (``mkdir`` fails on an existing one, so two runs started in the same
    second never get the same folder)."""
    base = Path(folder).expanduser()
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        for i in range(10_000):
            path = base if i == 0 else base.with_name(f"{base.name}-{i}")
            try:
                path.mkdir()
            except FileExistsError:
                continue
            return path
    except OSError as err:
        raise ValueError(f"{key}={folder}: cannot write in this folder ({_message(err)})") from None
    raise ValueError(f"{key}={folder}: 10,000 folders of that name exist already")


def _refuse_earlier_results(folder: str, key: str) -> None:
    """A folder holding an earlier evaluation's ``results.json`` is not written over."""
    found = Path(folder, "results.json")
    if not found.exists():
        return
    try:
        body = json.loads(found.read_text(encoding="utf-8"))
        what = f"status {body['status']}, {body['games_finished']} games"
    except (OSError, ValueError, KeyError, TypeError):
        what = "unreadable"
    raise ValueError(
        f"{key}={folder}: holds the results of an earlier evaluation (results.json, {what}); "
        "choose another folder (hydra.run.dir=...), or move its files away first"
    )


class _RunState:
    """What the Hydra callback did for this process's run (see :class:`OutputDirCheck`)."""

    folder: str | None = None  # the output folder claimed
    created: bool = False  # made by the callback (the default, unique folder)
    hydra_subdir: str | None = None  # Hydra's config files, written by ``_task`` instead


_RUN = _RunState()


def _nothing(*args: Any, **kwargs: Any) -> None:
    return None


class OutputDirCheck:
    """Hydra callback (``hydra.callbacks`` in ``configs/eval.yaml``), run before Hydra
    writes anything. For ``drl-eval``'s run folder, ``hydra.run.dir``:

    - the default one (``outputs/eval/<date>/<time>``, not given on the command line) is
      made unique: created here, with ``-1``, ``-2``, ... added when it exists (two runs
      started in the same second);
    - a folder that cannot be written is refused, naming the key, instead of a
      traceback from Hydra creating it;
    - the folder is locked for the run (:func:`claim_output_dir`): a second ``drl-eval``
      with the same folder is refused, naming the pid of the first;
    - a folder holding an earlier evaluation's ``results.json`` is refused;
    - Hydra's own config files (``.hydra/``) are written by ``drl-eval`` after this, so
      that a full disk there ends in one line, not a traceback.

    In a multirun only the writability of ``hydra.sweep.dir`` is checked here; each job's
    folder is locked by :func:`run`.
    """

    def _folder(self, config: DictConfig, key: str) -> str | None:
        from omegaconf import OmegaConf

        try:
            folder = OmegaConf.select(config, key)
        except Exception:  # an interpolation only Hydra resolves later: Hydra reports it
            return None
        return None if folder is None else str(folder)

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        from omegaconf import OmegaConf, open_dict, read_write

        from drl.cli._output import check_writable_dir

        key = "hydra.run.dir"
        folder = self._folder(config, key)
        if folder is None:
            return
        given = OmegaConf.select(config, "hydra.overrides.hydra", default=None) or []
        chosen = any(str(o).split("=", 1)[0].lstrip("+~") == key for o in given)
        try:
            if not chosen:
                folder = str(_fresh_folder(folder, key))
                _RUN.created = True
                with read_write(config.hydra), open_dict(config.hydra):
                    config.hydra.run.dir = folder
            check_writable_dir(folder, key)
            claim_output_dir(folder, key)
            _RUN.folder = folder
            _refuse_earlier_results(folder, key)
        except ValueError as err:
            sys.exit(f"drl-eval: {err}")
        subdir = OmegaConf.select(config, "hydra.output_subdir", default=None)
        if subdir is not None:
            _RUN.hydra_subdir = str(subdir)
            with read_write(config.hydra), open_dict(config.hydra):
                config.hydra.output_subdir = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        from drl.cli._output import check_writable_dir

        folder = self._folder(config, "hydra.sweep.dir")
        if folder is None:
            return
        try:
            check_writable_dir(folder, "hydra.sweep.dir")
        except ValueError as err:
            sys.exit(f"drl-eval: {err}")

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name.startswith("on_"):  # Hydra's other callback hooks: nothing to do
            return _nothing
        raise AttributeError(name)


def _save_hydra_files(cfg: DictConfig, out_dir: Path) -> None:
    """Write ``.hydra/config.yaml``, ``hydra.yaml`` and ``overrides.yaml`` as Hydra
    would have (the callback turned Hydra's writing off). Raises ValueError naming the
    file that cannot be written."""
    import copy

    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf, open_dict, read_write

    if _RUN.hydra_subdir is None:
        return
    hydra_cfg = cast("DictConfig", copy.deepcopy(HydraConfig.instance().cfg))  # {"hydra": ...}
    with read_write(hydra_cfg.hydra), open_dict(hydra_cfg.hydra):
        hydra_cfg.hydra.output_subdir = _RUN.hydra_subdir
    folder = out_dir / _RUN.hydra_subdir
    for name, node in (
        ("config.yaml", cfg),
        ("hydra.yaml", hydra_cfg),
        ("overrides.yaml", hydra_cfg.hydra.overrides.task),
    ):
        path = folder / name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(OmegaConf.to_yaml(node))
        except OSError as err:
            with contextlib.suppress(OSError):
                path.unlink()
            raise ValueError(f"{path}: cannot write the run's config ({_message(err)})") from None


def _task(cfg: DictConfig) -> None:
    """``drl-eval``'s Hydra task: check the config, save it, run; every exit is a line
    and an exit status (1 for errors, 130 / 143 for SIGINT / SIGTERM)."""
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    out_dir = Path(HydraConfig.get().runtime.output_dir)
    conf: EvalConfig | None = None
    _STOP.reported = False
    try:
        conf = cast("EvalConfig", OmegaConf.to_object(cfg))  # the eval_schema's dataclass
        _save_hydra_files(cfg, out_dir)
        _check(conf)
        run(conf, out_dir)
    except KeyboardInterrupt as err:
        if conf is None:
            raise  # (main reports it)
        if not _STOP.reported:  # stopped before run made its journal
            with _STOP.hold():
                try:
                    _report_unplayed(conf, out_dir, _header(conf), _console(), err)
                except Exception as why:
                    print(f"drl-eval: could not save the results ({why})", file=sys.stderr)
        sys.exit(_exit_status(err))
    except (ValueError, RuntimeError, OSError) as err:
        sys.exit(f"drl-eval: {_message(err)}")


def _interrupted_at_start() -> None:
    """Ctrl-C before the config was read: say so, and leave no empty folder of ours."""
    from drl.cli._start import INTERRUPTED_AT_START

    print(INTERRUPTED_AT_START, file=sys.stderr)
    folder = _RUN.folder
    if folder is not None:
        release_output_dir(folder)
        if _RUN.created:
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # only when empty


def main() -> None:
    """Console entry point (``drl-eval``).

    The SIGINT / SIGTERM handler is installed before anything else (Hydra, the config,
    the agents) and stays until the process exits, so that every exit is one of
    ``drl-eval``'s: complete (0), an error (1, one line), or interrupted (130 / 143,
    with "interrupted after N of M games" and the files written once the folder is
    known)."""
    _STOP.install()
    status: int | None = None
    try:
        import hydra

        _register()
        sys.argv[1:] = quote_overrides(sys.argv[1:])
        hydra.main(version_base=None, config_path=CONFIG_DIR, config_name="eval")(_task)()
    except KeyboardInterrupt as err:
        with _STOP.hold():
            _interrupted_at_start()
        status = _exit_status(err)
    finally:
        _STOP.holding = True  # from here on a signal only sets the exit status
        for folder in list(_CLAIMS):
            release_output_dir(folder)
    if status is None and _STOP.received is not None:
        status = 128 + _STOP.received  # it came while the results were written
    for sig in (signal.SIGINT, signal.SIGTERM):  # done: no signal ends the exit itself (at
        signal.signal(sig, signal.SIG_IGN)  # shutdown Python would restore the defaults)
    if status is not None:
        sys.exit(status)


if __name__ == "__main__":
    # ``python -m drl.cli.eval``: run the module's own copy, the one Hydra's callback
    # (``drl.cli.eval.OutputDirCheck``) imports, so that both share one state
    from drl.cli.eval import main as _main_of_the_module

    _main_of_the_module()
