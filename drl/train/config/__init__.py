"""The training configuration: its Hydra schema, its one conversion, and its checks.

One job per module:

- :mod:`~drl.train.config.settings`: the loop's own settings (:class:`LoopCfg`,
  :class:`TrainEvalCfg`, :class:`RuntimeCfg`) and :class:`TrainSettings`, all the loop
  reads;
- :mod:`~drl.train.config.schema`: the Hydra schema (:class:`Config`), generated from the
  code's dataclasses;
- :mod:`~drl.train.config.convert`: :func:`train_settings`, the one conversion of a
  config into :class:`TrainSettings`;
- :mod:`~drl.train.config.checks`: the checks that span several keys, on the settings;
- :mod:`~drl.train.config.memory`: the memory a run's arrays take, and its check.
- :mod:`~drl.train.config.budget`: iterations sized by the training time budget.

Import the names from this package.

``drl-train`` composes ``configs/config.yaml`` with the groups ``variant``, ``model``,
``search``, ``train``, ``algo`` and ``runtime`` on top of :class:`Config`, registered with
Hydra's ConfigStore as ``base_config``, so that a misspelt key or a value of the wrong
type is reported by Hydra when the config is composed. Each setting's range (or choices)
is checked once, by the dataclass that holds it, in its ``__post_init__``;
:func:`train_settings` builds each of those dataclasses once from the config, reports
their errors under the config key (``config search.c_puct=-1.0: must be >= 0``), and
checks what spans several keys on the result (the variant string, the learning settings
together, the evaluation's openings and baselines, the memory the run needs).

Each default lives in one place, the dataclass the code uses; the schema of a group is
derived from it field by field (:func:`schema`) and the YAML files in ``configs/`` state
only what differs:

- ``search``: a ``name`` and the fields of :class:`drl.search.SearchConfig`;
- ``model``: ``name``, ``arch`` and the size fields of the architecture's config class
  (``resnet``: :class:`drl.nn.NetConfig`); each registered architecture is also a
  ``model`` option of its own (``model=resnet`` is the code's defaults), and the option
  files extend it (``defaults: [resnet]``);
- ``train``: the loop's own settings, the fields of
  :class:`drl.train.selfplay.SelfPlayConfig` (except ``max_plies``, which is
  ``variant.max_plies``) and those of :class:`drl.train.learner.LossConfig`;
- ``variant``: :class:`drl._configs.VariantCfg` (shared with ``drl-eval``);
- ``algo``: :class:`~drl.train.config.AlgoCfg`, the self-play algorithm (``az`` or
  ``minimax``), and ``minimax`` (a node, not a group) the fields of
  :class:`drl.train.minimax.MinimaxConfig`, read with ``algo=minimax``.

:func:`search_config`, :func:`selfplay_config`, :func:`loss_config` and
:func:`network_config` turn a config into the code's objects, passing every field by name;
:func:`train_settings` turns a whole config into them at once (:class:`TrainSettings`),
which is all the training loop reads.
"""

from drl.train.config.checks import check_baselines, check_learning, check_openings, check_settings
from drl.train.config.convert import (
    config_error,
    loss_config,
    network_config,
    search_config,
    selfplay_config,
    train_settings,
    variants_of,
)
from drl.train.config.memory import (
    MEMORY_KEYS,
    check_memory,
    memory_estimate,
    setting,
    with_setting,
)
from drl.train.config.schema import (
    Config,
    MinimaxCfg,
    ModelCfg,
    ModelNode,
    SearchCfg,
    TrainCfg,
    VariantCfg,
    model_node,
    register_configs,
    schema,
)
from drl.train.config.settings import (
    ALGOS,
    DEVICES,
    OPTIMIZERS,
    RUNTIMES,
    AlgoCfg,
    Device,
    LoopCfg,
    Optimizer,
    RuntimeCfg,
    RuntimeName,
    TrainEvalCfg,
    TrainSettings,
)

__all__ = [
    "ALGOS",
    "AlgoCfg",
    "Config",
    "DEVICES",
    "Device",
    "LoopCfg",
    "MEMORY_KEYS",
    "MinimaxCfg",
    "ModelCfg",
    "ModelNode",
    "OPTIMIZERS",
    "Optimizer",
    "RUNTIMES",
    "RuntimeCfg",
    "RuntimeName",
    "SearchCfg",
    "TrainCfg",
    "TrainEvalCfg",
    "TrainSettings",
    "VariantCfg",
    "check_baselines",
    "check_learning",
    "check_memory",
    "check_openings",
    "check_settings",
    "config_error",
    "loss_config",
    "memory_estimate",
    "model_node",
    "network_config",
    "register_configs",
    "schema",
    "search_config",
    "selfplay_config",
    "setting",
    "train_settings",
    "variants_of",
    "with_setting",
]
