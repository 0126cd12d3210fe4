"""``drl-play``: play a trained checkpoint in the terminal.

Examples::

    drl-play ckpt=runs/give_and_take-20260101-120000            # newest checkpoint of a run
    drl-play ckpt=runs/x/checkpoints/ckpt-00000016.pt color=white role=giver sims=128

Moves are typed in PDN (``11-15``, ``15x24``, ``15x24x31``; algebraic ``c3-d4`` for
variants written that way). An illegal or ambiguous move is asked again, listing the
legal moves. Commands: ``moves`` (list the legal moves), ``undo`` (take back your last
move), ``quit``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import hydra
from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

if TYPE_CHECKING:
    from drl.agents.az import AZAgent
    from drl.rules import Board


@dataclass
class PlayConfig:
    """Settings of ``drl-play``.

    Attributes:
        ckpt: checkpoint file or run folder (required).
        variant: variant string (default: the one the checkpoint was trained on).
        color: the colour you play, ``black`` (dark, moves first in most variants) or
            ``white``.
        role: Give and Take: ``taker`` or ``giver`` (sets which colour takes).
        sims: the network's simulations per step (default: as trained).
        fen: start position (default: the variant's start position).
        pdn: write the finished game to this PDN file.
        device: ``auto``, ``cpu`` or ``cuda``.
    """

    ckpt: str | None = None
    variant: str | None = None
    color: str = "black"
    role: str = "taker"
    sims: int | None = None
    fen: str | None = None
    pdn: str | None = None
    device: str = "auto"
    defaults: list[Any] = field(
        default_factory=lambda: ["_self_", {"override hydra/job_logging": "stdout"}]
    )
    hydra: Any = field(
        default_factory=lambda: {
            "run": {"dir": "."},
            "output_subdir": None,
            "job": {"chdir": False},
            "help": {"app_name": "drl-play", "template": HELP},
        }
    )


HELP = """drl-play: play a trained checkpoint in the terminal.

Usage: drl-play key=value ...   (Hydra overrides)
  drl-play ckpt=runs/give_and_take-20260101-120000
  drl-play ckpt=experiments/long-give_and_take/agent.pt color=white role=giver sims=128

== Keys and their defaults (the fields of drl.cli.play.PlayConfig) ==
$CONFIG
Moves are typed as in PDN (11-15, 15x24); commands: moves, undo, quit.
Hydra's own options: drl-play --hydra-help"""


def square_numbers(board_size: int) -> str:
    """The playable squares' PDN numbers laid out as on the board (row 1 at the top)."""
    half = board_size // 2
    lines = []
    for r in range(board_size):
        cells = ["  "] * board_size
        for k in range(half):
            c = 2 * k + (1 if r % 2 == 0 else 0)
            cells[c] = f"{r * half + k + 1:2d}"
        lines.append(" ".join(cells))
    return "\n".join(lines)


def play_session(
    cfg: PlayConfig, read: Callable[[str], str] = input, write: Callable[[str], None] = print
) -> str:
    """Run one game between the user (``read``/``write``) and the checkpoint.

    The ``pdn`` file is checked before the game starts (its folders are created); if it
    still cannot be written at the end, the game's PDN is written out (``write``) with the
    reason, so the game is not lost.

    Returns:
        The PDN result (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, or ``"*"`` if the user quit).

    Raises:
        ValueError: no ``ckpt``, a bad variant, colour, role, FEN or checkpoint, a
            checkpoint whose network does not fit the variant, or a ``pdn`` path that
            cannot be written (the message names it).
    """
    agent, board, pdn = _start(cfg)
    me = 0 if cfg.color == "black" else 1
    write(
        f"You play {cfg.color}"
        + (f" ({board.role(me)})" if board.role(me) else "")
        + f" in {board.variant} against {agent.name} from {agent.path}."
    )
    write("Type moves in PDN (e.g. 11-15, 15x24), 'moves', 'undo' or 'quit'. Squares:")
    write(square_numbers(board.variant.board_size))
    while not board.is_game_over():
        write("")
        write(str(board))
        if int(board.turn) != me:
            move = agent.select_move(board)
            write(f"network plays {move}")
            board.push(move)
        elif not _user_turn(board, read, write):
            write("game abandoned")
            return "*"
    write("")
    write(str(board))
    outcome = board.outcome()
    result = outcome.result if outcome is not None else "*"
    write(f"game over: {result} ({outcome.termination.name.lower()})" if outcome else result)
    if pdn is not None:
        _save_game(board, pdn, cfg.pdn, write, finished=outcome is not None)
    return result


def _start(cfg: PlayConfig) -> tuple[AZAgent, Board, Path | None]:
    """Check ``cfg``, load the agent and set up the board (see :func:`play_session`)."""
    from drl.agents.az import AZAgent
    from drl.cli._output import check_writable_file
    from drl.rules import Board, Variant

    if not cfg.ckpt:
        raise ValueError(
            "give the checkpoint: drl-play ckpt=PATH (a ckpt-*.pt file or a run folder)"
        )
    if cfg.color not in ("black", "white"):
        raise ValueError(f"color must be black or white, got {cfg.color!r}")
    if cfg.role not in ("taker", "giver"):
        raise ValueError(f"role must be taker or giver, got {cfg.role!r}")
    pdn = check_writable_file(cfg.pdn, "pdn") if cfg.pdn else None  # "~" expanded
    if cfg.variant is not None:
        Variant.parse(cfg.variant)  # a bad variant is named before the checkpoint is read
    agent = AZAgent(cfg.ckpt, sims=cfg.sims, device=cfg.device, variant=cfg.variant)
    variant = Variant.parse(cfg.variant or agent.trained_on or "english")
    agent.check_variant(variant)  # a checkpoint without its variant: the board still fits
    return agent, Board(variant.with_role(cfg.color, cfg.role), fen=cfg.fen), pdn


def _user_turn(board: Board, read: Callable[[str], str], write: Callable[[str], None]) -> bool:
    """Read one command of the user and act on it.

    A legal move is played, ``moves`` lists them, ``undo`` takes back the last pair of
    moves, and a bad move is named with the legal ones (the turn is asked again).

    Returns:
        False when the user quits, True otherwise.
    """
    from drl.rules import IllegalMoveError

    legal = board.legal_moves
    text = read(f"your move ({board.turn.name.lower()}): ").strip()
    if text in ("quit", "exit"):
        return False
    if text in ("moves", "?", "help"):
        write("legal moves: " + ", ".join(str(m) for m in legal))
    elif text == "undo":
        if board.ply >= 2:
            board.pop()
            board.pop()
        else:
            write("nothing to take back")
    else:
        try:
            board.push(board.parse_move(text))
        except (IllegalMoveError, ValueError) as err:
            write(f"{err}")
            write("legal moves: " + ", ".join(str(m) for m in legal))
    return True


def _save_game(
    board: Board, pdn: Path, name: str | None, write: Callable[[str], None], finished: bool
) -> None:
    """Write the game to ``pdn``; when that fails, print its PDN with the reason."""
    from drl.rules.pdn import board_to_pdn

    text = board_to_pdn(board, {"Event": "drl-play"}, None if finished else "*")
    try:
        pdn.write_text(text, encoding="utf-8")
    except OSError as err:
        write(f"could not write the game to pdn={name} ({err.strerror or err}); its PDN:")
        write(text)
    else:
        write(f"game written to {name}")


def _run(cfg: Any) -> None:
    conf = cast("PlayConfig", OmegaConf.to_object(cfg))  # the drl_play schema's dataclass
    try:
        play_session(conf)
    except (ValueError, RuntimeError) as err:
        sys.exit(f"drl-play: {err}")
    except (EOFError, KeyboardInterrupt):
        sys.exit("\ndrl-play: game abandoned")


def main() -> None:
    """Console entry point."""
    from drl.cli._torch_logs import quiet_torch_exit_logs

    ConfigStore.instance().store(name="drl_play", node=PlayConfig)
    try:
        hydra.main(config_path=None, config_name="drl_play", version_base="1.3")(_run)()
    finally:
        quiet_torch_exit_logs()


if __name__ == "__main__":
    main()
