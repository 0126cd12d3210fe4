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

Colours, and in Give and Take roles, are swapped from every opening. A progress bar runs
while games are played; a table is printed at the end; ``results.json``, ``games.pdn``
and ``elo.png`` are written to the Hydra run folder (``outputs/eval/<date>/<time>``).

Agent specs contain ``=``, which Hydra's override grammar does not allow inside an
unquoted list, so ``agents=[...]`` is quoted for Hydra before it parses the command line
(a spec's own ``param=value`` items after the first stay with that spec). Likewise
``variant=name:flag=value,...`` selects the ``variant/name`` config and sets
``variant.spec`` to the full string.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, cast

import hydra
from omegaconf import DictConfig, OmegaConf

from drl.cli._configs import VariantCfg, config_dir
from drl.eval.sprt import SPRTSettings

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
        openings: plies of seeded random openings; None = the start position.
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
    its first ``=`` has no ``:`` is another parameter of the previous spec."""
    specs: list[str] = []
    for item in filter(None, (p.strip() for p in body.split(","))):
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
            and '"' not in value
            and "'" not in value
        ):
            items = _split_specs(value[1:-1])
            out.append("agents=[" + ",".join(f'"{s}"' for s in items) + "]")
        elif eq and key == "variant" and ":" in value and '"' not in value:
            name = value.split(":", 1)[0].strip()
            out += [f"variant={name}", f'variant.spec="{value}"']
        else:
            out.append(arg)
    return out


def _check(cfg: EvalConfig) -> None:
    """Values that types cannot check; raises ValueError naming the key."""
    from drl.agents import spec_name
    from drl.rules import Variant

    try:
        Variant.parse(cfg.variant.spec)
    except ValueError as err:
        raise ValueError(f"variant.spec={cfg.variant.spec!r}: {err}") from None
    if cfg.format not in FORMATS:
        raise ValueError(f"format={cfg.format!r}: choose one of {', '.join(FORMATS)}")
    if cfg.games < 1:
        raise ValueError(f"games={cfg.games}: must be >= 1")
    if cfg.format == "sprt" and cfg.games % 2:
        raise ValueError(f"games={cfg.games}: format=sprt plays game pairs, use an even number")
    if cfg.format == "halftime" and (cfg.games < 2 or cfg.games % 2):
        raise ValueError(
            f"games={cfg.games}: format=halftime plays two halves of games/2 "
            f"games each (roles switched at halftime), use an even number >= 2"
        )
    for key in ("max_plies", "lives", "pool_games_per_round"):
        if getattr(cfg, key) < 1:
            raise ValueError(f"{key}={getattr(cfg, key)}: must be >= 1")
    if cfg.openings is not None and cfg.openings < 0:
        raise ValueError(
            f"openings={cfg.openings}: must be >= 0 plies (0 or null: the start position)"
        )
    if cfg.workers is not None and cfg.workers < 1:
        raise ValueError(f"workers={cfg.workers}: must be >= 1 (or null: automatic)")
    if not 0 < cfg.confidence < 1:
        raise ValueError(f"confidence={cfg.confidence}: must be between 0 and 1")
    if not 0 <= cfg.prior_draws < math.inf:
        raise ValueError(f"prior_draws={cfg.prior_draws}: must be a finite number >= 0")
    s = cfg.sprt
    if not (0 < s.alpha < 1 and 0 < s.beta < 1):
        raise ValueError(f"sprt.alpha={s.alpha}, sprt.beta={s.beta}: must be between 0 and 1")
    if not (math.isfinite(s.elo0) and math.isfinite(s.elo1) and s.elo0 < s.elo1):
        raise ValueError(f"sprt.elo0={s.elo0}, sprt.elo1={s.elo1}: need finite elo0 < elo1")
    if s.max_games < 1:
        raise ValueError(f"sprt.max_games={s.max_games}: must be >= 1")
    if cfg.draw_model not in ("half", "davidson"):
        raise ValueError(f"draw_model={cfg.draw_model!r}: choose half or davidson")
    if cfg.interval not in ("profile", "hessian"):
        raise ValueError(f"interval={cfg.interval!r}: choose profile or hessian")
    names = [spec_name(s) for s in cfg.agents]  # raises with the list of valid agents
    if cfg.format in ("halftime", "sprt") and len(names) != 2:
        raise ValueError(f"agents: format={cfg.format} needs exactly 2 agents, got {len(names)}")
    need = 3 if cfg.format == "pool" else 2
    if len(names) < need:
        raise ValueError(
            f"agents: format={cfg.format} needs at least {need} agents, got {len(names)}"
        )
    if len(set(names)) != len(names) and cfg.format not in ("halftime", "sprt"):
        raise ValueError(f"agents: names must differ (add e.g. seed=1 to tell two apart): {names}")


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


def run(cfg: EvalConfig, out_dir: Path) -> dict:
    """Play what ``cfg`` asks for, print tables and write results to ``out_dir``.

    Returns:
        The results dict written to ``results.json``.
    """
    from rich.console import Console

    from drl.agents import spec_name
    from drl.eval import report
    from drl.eval.arena import write_pdn
    from drl.eval.formats import halftime_match, pool_tournament
    from drl.eval.sprt import play_sprt
    from drl.eval.stats import summarize
    from drl.eval.tournament import play_tournament

    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 120))
    variant = cfg.variant.spec
    names = [spec_name(s) for s in cfg.agents]
    common = _MatchOptions(
        openings=cfg.openings,
        seed=cfg.seed,
        workers=cfg.workers,
        max_plies=cfg.max_plies,
        progress=cfg.progress,
    )
    console.print(f"[bold]drl-eval[/] {cfg.format} in {variant}: {', '.join(names)}")
    results: dict[str, Any] = {
        "config": OmegaConf.to_container(OmegaConf.structured(cfg)),
        "variant": variant,
        "format": cfg.format,
        "players": names,
    }
    extra_tables = []
    if cfg.format in ("round_robin", "gauntlet"):
        match = play_tournament(list(cfg.agents), variant, cfg.games, schedule=cfg.format, **common)
        records, players = match.records, list(match.players)
    elif cfg.format == "halftime":
        h = halftime_match(cfg.agents[0], cfg.agents[1], variant, cfg.games // 2, **common)
        records, players = h.records, list(h.players)
        results["halftime"] = {
            "first_half": h.first_half,
            "second_half": h.second_half,
            "total": h.total,
            "winner": h.winner,
            "won_both_roles": h.won_both_roles,
        }
        console.print(
            f"halftime: {players[0]} takes first; halves {h.first_half} and "
            f"{h.second_half}; winner {h.winner or 'none (tied)'}"
            + (f", {h.won_both_roles} won in both roles" if h.won_both_roles else "")
        )
    elif cfg.format == "pool":
        p = pool_tournament(
            list(cfg.agents),
            variant,
            cfg.lives,
            games_per_round=cfg.pool_games_per_round,
            life_lost_by=cfg.life_lost_by,
            **common,
        )
        records, players = p.records, names
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
    else:  # sprt
        sprt = cfg.sprt

        def show(now, games: int) -> None:
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
            **common,
        )
        records, players = test.records, list(test.players)
        results["sprt"] = {
            "pentanomial": test.counts,
            "llr": test.result.llr,
            "lower": test.result.lower,
            "upper": test.result.upper,
            "decision": test.result.decision,
            "games": len(records),
            "elo0": sprt.elo0,
            "elo1": sprt.elo1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
        }
    ratings = _rate(cfg, records, players)
    results["ratings"] = ratings.to_dict()
    results["summary"] = {
        n: {k: w.to_dict() for k, w in summarize(records, n).items()} for n in players
    }
    results["games"] = [{k: v for k, v in r.to_dict().items() if k != "pdn"} for r in records]

    console.print(
        report.standings_table(
            ratings, records, title=f"Elo ({cfg.format}, {variant}, anchor {ratings.anchor} = 0)"
        )
    )
    console.print(report.pairs_table(records, players))
    console.print(report.roles_table(records, players))
    for t in extra_tables:
        console.print(t)
    out_dir.mkdir(parents=True, exist_ok=True)
    report.write_json(results, out_dir / "results.json")
    write_pdn(records, out_dir / "games.pdn")
    if cfg.plot:
        report.plot_elo(ratings, out_dir / "elo.png", title=f"{cfg.format} in {variant}")
    console.print(f"results in {out_dir}")
    return results


@hydra.main(version_base=None, config_path=CONFIG_DIR, config_name="eval")
def _main(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    conf = cast("EvalConfig", OmegaConf.to_object(cfg))  # the eval_schema's dataclass
    try:
        _check(conf)
    except ValueError as err:
        sys.exit(f"drl-eval: {err}")
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        run(conf, out_dir)
    except ValueError as err:
        sys.exit(f"drl-eval: {err}")


def main() -> None:
    """Console entry point (``drl-eval``)."""
    _register()
    sys.argv[1:] = quote_overrides(sys.argv[1:])
    _main()


if __name__ == "__main__":
    main()
