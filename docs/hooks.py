"""MkDocs hooks: the pages generated from the code (named in mkdocs.yml, ``hooks:``).

- ``environments/<name>.md``: one page per registered Gymnasium id, from the registry
  and the env itself (its spaces, roles, rewards, defaults);
- in any page, ``<!-- drl:config-keys -->`` becomes the table of every training key
  with its default and meaning (:mod:`drl.train.config_doc`), ``<!-- drl:agent-kinds -->``
  the agent kinds and their parameters (``drl.agents.describe_agents``), and
  ``<!-- drl:agent-index -->`` the index of committed agents (``experiments/AGENTS.md``).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]


def env_slug(env_id: str) -> str:
    """``drl/GiveAndTake-Taker-v0`` -> ``giveandtake-taker-v0``."""
    return env_id.split("/", 1)[1].lower()


def _env_page(env_id: str, fixed: dict) -> str:
    import gymnasium as gym

    from drl.envs.gym_env import DraughtsEnv
    from drl.rules import Variant

    env = gym.make(env_id)
    defaults = {
        name: p.default
        for name, p in inspect.signature(DraughtsEnv.__init__).parameters.items()
        if p.default is not inspect.Parameter.empty and name not in fixed
    }
    variant = Variant.parse(fixed["variant"])
    role = fixed.get("role")
    obs, act = env.observation_space, env.action_space
    both = "both Givers" if "give/give" in fixed["variant"] else "none"
    mask = "`obs['action_mask']`, `info['action_mask']`, `env.action_masks()`"
    lines = [
        f"# `{env_id}`",
        "",
        "```python",
        "import gymnasium as gym",
        "import drl.envs  # registers the ids",
        "",
        f'env = gym.make("{env_id}")',
        "obs, info = env.reset(seed=0)",
        "```",
        "",
        "| | |",
        "|---|---|",
        f"| variant | `{fixed['variant']}` ({variant.board_size}x{variant.board_size}) |",
        f"| agent's role | {role or both} |",
        f"| observation | `{obs}` |",
        f"| action | `{act}`: one step (hop) of a move, in the mover's frame |",
        f"| mask | {mask} (int8, 1 = legal) |",
        "| reward | +1 win, -1 loss, 0 draw, from the agent's side at the end; 0 otherwise "
        "(an illegal action: `illegal_action` below) |",
        "| version | v0: the first version of these rules, encoding and rewards |",
        "",
        "Keyword arguments left free, with their defaults:",
        "",
        "| argument | default |",
        "|---|---|",
    ]
    lines += [f"| `{k}` | `{v!r}` |" for k, v in defaults.items()]
    env.close()
    if variant.role(0) is not None:
        lines += [
            "",
            "The Taker wins by capturing the Giver's last piece; the Giver wins when it is "
            "to move and cannot (see the rules for the flags that change this). With a role "
            "fixed by the id, the agent's colour (`agent_color`, random by default) decides "
            "which colour is the Taker.",
        ]
    lines += [
        "",
        "The rules and their sources are in [the rules](../rules.md); the arguments, the "
        "`info` keys and the errors are those of [`DraughtsEnv`](../reference/env.md).",
        "",
    ]
    return "\n".join(lines)


def on_files(files, config):  # noqa: D103 (MkDocs hook)
    import drl.envs

    for env_id, fixed in drl.envs.ENV_IDS.items():
        files.append(
            File.generated(
                config, f"environments/{env_slug(env_id)}.md", content=_env_page(env_id, fixed)
            )
        )
    return files


def on_config(config):  # noqa: D103 (MkDocs hook)
    import drl.envs

    for item in config["nav"]:
        if isinstance(item, dict) and "Environments" in item:
            pages = item["Environments"]
            pages += [
                {env_id: f"environments/{env_slug(env_id)}.md"} for env_id in drl.envs.ENV_IDS
            ]
    return config


def _agent_index() -> str:
    text = (ROOT / "experiments" / "AGENTS.md").read_text(encoding="utf-8")
    text = re.sub(r"^# .*\n", "", text, count=1)
    return text.replace("## Training commands", "### Training commands")


def _agent_kinds() -> str:
    from drl.agents import describe_agents

    return "```text\n" + describe_agents().rstrip() + "\n```"


def _config_keys() -> str:
    from drl.train.config_doc import keys_markdown

    return keys_markdown()


_MARKERS = {
    "<!-- drl:config-keys -->": _config_keys,
    "<!-- drl:agent-kinds -->": _agent_kinds,
    "<!-- drl:agent-index -->": _agent_index,
}


def on_page_markdown(markdown, page, config, files):  # noqa: D103 (MkDocs hook)
    for marker, make in _MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):<code>(~?)([^<]+)</code>")


def _role(found: re.Match) -> str:
    name = found.group(2).rsplit(".", 1)[-1] if found.group(1) else found.group(2)
    return f"<code>{name}</code>"


def on_page_content(html, page, config, files):  # noqa: D103 (MkDocs hook)
    # The docstrings name objects with reST roles (:class:`~drl.rules.Variant`); shown as
    # code, the short name where the role asks for it (~).
    return _ROLE.sub(_role, html)
