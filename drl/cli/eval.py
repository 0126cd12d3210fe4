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
switched at halftime (seed 000); ``pool`` is pool play with ``lives`` (seed 001);
``sprt`` plays the first agent against the second in batches of ``games`` (use an even number) until
the SPRT on game pairs (pentanomial: same opening, colours and roles swapped) decides.

Every two games start from a new opening (distinct seeded random openings of ``openings``
plies, 4 by default) with colours swapped; in Give and Take the two have the same Taker
colour (each agent plays each role from it once) and the next opening the other one.
A progress bar runs
while games are played; a table is printed at the end; ``results.json``, ``games.pdn``
and ``elo.png`` are written to the Hydra run folder (``outputs/eval/<date>/<time>``,
checked before anything runs). Games are saved as they finish (``games.pdn`` game by
game, ``results.json`` every few seconds); Ctrl-C or SIGTERM prints the tables of the
games finished so far ("interrupted after N of M games"), writes both files with them
and exits with 130 (SIGINT) or 143 (SIGTERM). Counts are bounded (``games`` at most
``drl.eval.arena.MAX_GAMES`` in all, and the other ``MAX_*``): a larger one is refused
at once, naming the key and the limit.

Agent specs contain ``=``, which Hydra's override grammar does not allow inside an
unquoted list, so ``agents=[...]`` is quoted for Hydra before it parses the command line
(a spec's own ``param=value`` items after the first stay with that spec). Likewise
``variant=name:flag=value,...`` selects the ``variant/name`` config and sets
``variant.spec`` to the full string.
"""

from __future__ import annotations

import math
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

import hydra
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from drl.cli._configs import VariantCfg, config_dir
from drl.eval.sprt import SPRTSettings

if TYPE_CHECKING:
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
        life_lost_by: ``format=pool``: ``loser`` or ``winner`` (the literal seed 001 text).
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
    the limit: :data:`drl.eval.arena.MAX_GAMES` games and the other ``MAX_*``)."""
    from drl.agents import spec_name
    from drl.eval.arena import MAX_GAMES, MAX_OPENING_PLIES, MAX_PLIES, MAX_WORKERS, check_count
    from drl.eval.formats import MAX_LIVES
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
        from drl.eval.arena import PDNWriter

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
    """Print and write what an interrupted (or failed) evaluation has played."""
    from drl.eval.arena import write_pdn

    journal.close()
    records = journal.sorted()
    interrupted = isinstance(err, KeyboardInterrupt)
    if interrupted:
        note = interrupted_after(len(records), journal.planned, cfg.format)
    else:
        note = f"stopped by an error after {len(records)} games"
    results: dict[str, Any] = dict(journal.header)
    if not interrupted:
        results["error"] = f"{type(err).__name__}: {err}"
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
    write_pdn(records, journal.out_dir / "games.pdn")  # in game order, as at the end
    journal.save("interrupted" if interrupted else "failed", results)
    if interrupted or records:  # (an error before the first game is only reported)
        console.print(f"[bold red]drl-eval: {note}[/]")
        if records:
            _print_tables(console, cfg, ratings, records, players, note)
        console.print(f"the {len(records)} finished games are in {journal.out_dir}")


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

    Every game is kept as it finishes: it is appended to ``games.pdn`` (flushed), and
    ``results.json`` is rewritten atomically with the games so far every few seconds
    (``"status": "running"``, ``games_finished``, ``games_planned``). At the end both
    files are rewritten whole, the games in order (``"status": "complete"``). If the
    evaluation is interrupted (``KeyboardInterrupt``: Ctrl-C, or SIGTERM under
    ``drl-eval``) or fails, the tables of the games finished so far are printed, marked
    ``interrupted after N of M games``, both files are written with those games
    (``"status": "interrupted"`` or ``"failed"``), and the exception is raised again.

    Args:
        cfg: the evaluation (checked by the caller, see ``_check``).
        out_dir: folder for ``results.json``, ``games.pdn`` and ``elo.png`` (created).
        on_record: called with each finished game once it has been saved.

    Returns:
        The results dict written to ``results.json``.

    Raises:
        ValueError: ``out_dir`` or a file in it cannot be written (before any game,
            naming the path), or what the match functions raise (bad agents...).
        KeyboardInterrupt: the evaluation was interrupted (after writing what it had).
    """
    from rich.console import Console

    from drl.agents import spec_name
    from drl.cli._output import check_writable_dir, check_writable_file
    from drl.eval import report
    from drl.eval.arena import write_pdn

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    variant = cfg.variant.spec
    names = [spec_name(s) for s in cfg.agents]
    check_writable_dir(out_dir)
    for name in ("results.json", "games.pdn") + (("elo.png",) if cfg.plot else ()):
        check_writable_file(out_dir / name)
    console.print(f"[bold]drl-eval[/] {cfg.format} in {variant}: {', '.join(names)}")
    results: dict[str, Any] = {
        "config": OmegaConf.to_container(OmegaConf.structured(cfg)),
        "variant": variant,
        "format": cfg.format,
        "players": names,
    }
    try:
        journal = _Journal(out_dir, dict(results), planned_games(cfg), on_record)
    except OSError as err:
        raise ValueError(f"{out_dir}: cannot write the results there ({err})") from None
    try:
        records, players, extra_tables = _play(cfg, journal, results, console)
    except BaseException as err:
        from drl.eval.arena import IgnoringSignals

        with IgnoringSignals(signal.SIGINT, signal.SIGTERM):  # a 2nd Ctrl-C waits
            _report_stopped(cfg, journal, console, err)
        raise
    journal.close()
    ratings = _rate(cfg, records, players)
    results["ratings"] = ratings.to_dict()
    results["summary"] = _summary(records, players)
    results["games"] = _games(records)
    _print_tables(console, cfg, ratings, records, players)
    for t in extra_tables:
        console.print(t)
    write_pdn(records, out_dir / "games.pdn")
    journal.save("complete", results)
    results = {**results, "status": "complete", "games_finished": len(records)}
    results["games_planned"] = journal.planned
    if cfg.plot:
        report.plot_elo(ratings, out_dir / "elo.png", title=f"{cfg.format} in {variant}")
    console.print(f"results in {out_dir}")
    return results


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in ``drl-eval``'s main thread so that the evaluation stops and
    keeps its games as on Ctrl-C (the exit status is then 143, 128 + SIGTERM)."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


class OutputDirCheck(Callback):
    """Hydra callback (``hydra.callbacks`` in ``configs/eval.yaml``): refuses an output
    folder that cannot be written before anything runs, naming ``hydra.run.dir`` (or
    ``hydra.sweep.dir``), instead of a traceback from Hydra creating it."""

    def _check(self, config: DictConfig, key: str) -> None:
        from drl.cli._output import check_writable_dir

        try:
            folder = OmegaConf.select(config, key)
        except Exception:  # an interpolation only Hydra resolves later: Hydra reports it
            return
        if folder is None:
            return
        try:
            check_writable_dir(str(folder), key)
        except ValueError as err:
            sys.exit(f"drl-eval: {err}")

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._check(config, "hydra.run.dir")

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._check(config, "hydra.sweep.dir")


@hydra.main(version_base=None, config_path=CONFIG_DIR, config_name="eval")
def _main(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    conf = cast("EvalConfig", OmegaConf.to_object(cfg))  # the eval_schema's dataclass
    try:
        _check(conf)
    except ValueError as err:
        sys.exit(f"drl-eval: {err}")
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        run(conf, out_dir)
    except Terminated:
        sys.exit(128 + signal.SIGTERM)
    except KeyboardInterrupt:
        sys.exit(128 + signal.SIGINT)
    except (ValueError, RuntimeError, OSError) as err:
        sys.exit(f"drl-eval: {err}")


def main() -> None:
    """Console entry point (``drl-eval``)."""
    _register()
    sys.argv[1:] = quote_overrides(sys.argv[1:])
    _main()


if __name__ == "__main__":
    main()
