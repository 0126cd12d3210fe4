"""Diverged training is caught where it first appears: a non-finite loss term or gradient
in the learner, a non-finite network output in the evaluator (before the search sees
it), a damaged replay shard on loading, and settings that diverge by construction in the
config; the run folder stays resumable."""

import logging
import math
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import torch

from drl.encode.actions import num_actions
from drl.encode.planes import N_CHANNELS
from drl.nn import NetOutput, NetworkEvaluator, TrainingDiverged, build
from drl.nn.checkpoint import list_checkpoints, load_checkpoint, save_checkpoint
from drl.rules import Variant
from drl.search import SearchConfig
from drl.train.buffer import GameBatch, ReplayBuffer, SampleBatch, ShardError
from drl.train.config import train_settings
from drl.train.learner import LossConfig, check_network, loss_reference, train_step
from drl.train.loop import train
from drl.train.selfplay import SelfPlayActor, SelfPlayConfig

A8 = num_actions(8)


def _net(seed=0):
    torch.manual_seed(seed)
    return build(
        "resnet",
        in_channels=N_CHANNELS,
        board_size=8,
        num_actions=A8,
        channels=8,
        blocks=1,
        policy_channels=2,
        value_channels=1,
        value_hidden=16,
    )


def _sample(b=16, seed=0, **replace):
    rng = np.random.default_rng(seed)
    mask = np.zeros((b, A8), bool)
    mask[:, :5] = True
    policy = np.where(mask, 0.2, 0.0).astype(np.float32)
    fields = dict(
        obs=rng.integers(0, 2, (b, N_CHANNELS, 8, 8)).astype(np.float32),
        mask=mask,
        policy=policy,
        policy_weight=np.ones(b, np.float32),
        value=rng.choice([-1.0, 0.0, 1.0], b).astype(np.float32),
        pieces_left=np.full((b, 2), 0.5, np.float32),
        plies_left=np.full(b, 30.0, np.float32),
    )
    fields.update(replace)
    return SampleBatch(**fields)


def _state(net):
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def _same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -- learner --------------------------------------------------------------------------


def test_nan_target_is_named_and_never_reaches_the_weights():
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    train_step(net, opt, _sample(), LossConfig())
    before, opt_before = _state(net), opt.state_dict()["state"][0]["exp_avg"].clone()
    value = np.zeros(16, np.float32)
    value[3] = np.nan
    with pytest.raises(TrainingDiverged, match="loss term value_loss is nan") as info:
        train_step(net, opt, _sample(value=value), LossConfig())
    assert info.value.what == "loss term value_loss" and info.value.lr == 1e-3
    assert "lr 0.001" in str(info.value) and "Hint: lower train.lr" in str(info.value)
    # weights, batch-norm statistics and optimiser state are as before the call
    assert _same(_state(net), before)
    assert torch.equal(opt.state_dict()["state"][0]["exp_avg"], opt_before)
    train_step(net, opt, _sample(), LossConfig())  # and training goes on from there


def test_huge_learning_rate_is_caught_at_the_first_non_finite_loss():
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e20, weight_decay=0.0)
    with pytest.raises(TrainingDiverged) as info:
        for step in range(1, 11):
            before = _state(net)
            train_step(net, opt, _sample(seed=step), LossConfig())
    err = info.value
    assert err.what.startswith("loss term ") and err.lr == 1e20
    assert str(err).startswith("training diverged (lr 1e+20): loss term ")
    assert step == 2  # the first step takes the weights to about 1e20, the second overflows
    assert _same(_state(net), before)
    assert all(torch.isfinite(p).all() for p in net.parameters())


class _SqrtValue(torch.nn.Module):
    """A finite loss whose gradient is infinite: value = sqrt(s) at s = 0."""

    arch = "test"
    config = None

    def __init__(self):
        super().__init__()
        self.s = torch.nn.Parameter(torch.zeros(()))
        self.w = torch.nn.Parameter(torch.zeros(A8))

    def forward(self, obs):
        b = len(obs)
        return NetOutput(policy_logits=self.w.expand(b, A8), value=torch.sqrt(self.s).expand(b))


@pytest.mark.parametrize("grad_clip", [5.0, 0.0])
def test_infinite_gradient_with_a_finite_loss_is_refused(grad_clip):
    net = _SqrtValue()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    with pytest.raises(TrainingDiverged, match="gradient norm is inf") as info:
        train_step(
            net, opt, _sample(value=np.ones(16, np.float32)), LossConfig(grad_clip=grad_clip)
        )
    assert info.value.what == "gradient norm" and "lr 0.1" in str(info.value)
    assert float(net.s.detach()) == 0.0 and torch.all(net.w.detach() == 0)


# -- evaluator ------------------------------------------------------------------------


@pytest.mark.parametrize("output", ["value", "policy_logits"])
def test_nan_network_output_is_named_by_the_evaluator_not_the_search(output):
    net = _net()
    with torch.no_grad():
        head = net.value_out if output == "value" else net.policy_fc
        head.bias.fill_(math.nan)
    obs = np.zeros((3, N_CHANNELS, 8, 8), np.float32)
    with pytest.raises(TrainingDiverged, match=f"network output {output} is not finite"):
        NetworkEvaluator(net)(obs, np.ones((3, A8), bool))
    # self-play (search + network) stops at the same place, not at an "illegal step"
    actor = SelfPlayActor(
        [Variant.parse("english")],
        SearchConfig(num_simulations=4),
        SelfPlayConfig(games_in_flight=2, max_plies=20),
        seed=0,
    )
    with pytest.raises(TrainingDiverged, match=f"network output {output}") as info:
        actor.play(NetworkEvaluator(net), 1)
    assert info.value.what == f"network output {output}"


# -- replay shards --------------------------------------------------------------------


def _batch(n_pos=4, game_index=0, seed=0):
    rng = np.random.default_rng(seed)
    k = 3
    return GameBatch(
        obs=rng.random((n_pos, 3, 4, 4)).astype(np.float16),
        legal_offsets=np.arange(0, k * n_pos + 1, k, dtype=np.int64),
        legal_actions=np.tile(np.array([1, 5, 7], np.int16), n_pos),
        policy=np.tile(np.array([0.5, 0.25, 0.25], np.float32), n_pos),
        policy_weight=np.ones(n_pos, np.float32),
        value=np.linspace(-1, 1, n_pos).astype(np.float32),
        pieces_left=np.full((n_pos, 2), 0.5, np.float32),
        plies_left=np.arange(n_pos, dtype=np.float32),
        player=np.zeros(n_pos, np.int8),
        game_index=np.full(n_pos, game_index, np.int64),
        game_plies=np.array([n_pos]),
        game_result=np.array([1]),
        game_taker=np.array([-1]),
    )


def _with(batch, name, index, value):
    arr = getattr(batch, name).copy()
    arr.flat[index] = value
    return GameBatch(**{**batch.__dict__, name: arr})


@pytest.mark.parametrize(
    "name", ["obs", "policy", "policy_weight", "value", "pieces_left", "plies_left"]
)
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_non_finite_array_is_rejected_by_name(name, bad):
    with pytest.raises(ShardError, match=f"^{name} has 1 NaN or infinite values"):
        _with(_batch(), name, 2, bad).validate()


@pytest.mark.parametrize(
    "name, value, says",
    [
        ("policy", -0.5, r"policy has values outside \[0, inf\)"),
        ("policy_weight", -1.0, r"policy_weight has values outside \[0, 1\]"),
        ("value", 2.0, r"value has values outside \[-1, 1\]"),
        ("pieces_left", 1.5, r"pieces_left has values outside \[0, 1\]"),
        ("plies_left", -1.0, r"plies_left has values outside \[0, inf\)"),
        ("legal_actions", -3, r"legal_actions has step indices outside \[0, inf\)"),
    ],
)
def test_out_of_range_array_is_rejected_by_name(name, value, says):
    with pytest.raises(ShardError, match=says):
        _with(_batch(), name, 0, value).validate()


def test_policy_must_sum_to_one_and_steps_lie_below_num_actions():
    b = _with(_batch(), "policy", 4, 0.0)  # position 1 sums to 0.75
    with pytest.raises(ShardError, match="position 1 sums to 0.75"):
        b.validate()
    _batch().validate(num_actions=8)
    with pytest.raises(ShardError, match=r"legal_actions .* outside \[0, 7\)"):
        _batch().validate(num_actions=7)


def _poison(path, name="value"):
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays[name] = arrays[name].copy()
    arrays[name].flat[0] = np.nan
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def test_shard_with_a_nan_is_set_aside_and_its_number_never_reused(tmp_path, caplog):
    buf = ReplayBuffer(tmp_path, window=100)
    for g in range(3):
        buf.add(_batch(4, g, seed=g))
    _poison(tmp_path / "shard-000002.npz")  # the newest one
    with caplog.at_level(logging.WARNING):
        again = ReplayBuffer(tmp_path, window=100)
    assert "shard-000002.npz" in caplog.text and "value has 1 NaN" in caplog.text
    assert "set aside as shard-000002.npz.corrupt" in caplog.text
    assert not (tmp_path / "shard-000002.npz").exists()
    assert (tmp_path / "shard-000002.npz.corrupt").exists()
    assert again.set_aside == [tmp_path / "shard-000002.npz.corrupt"]
    assert (again.num_games, again.num_positions, len(again)) == (2, 8, 8)
    # the next shard takes a new number, not the set-aside one's
    assert again.num_shards == 3
    assert again.add(_batch(4, 3)).name == "shard-000003.npz"
    # and so on after another restart with the set-aside shard as the highest but one
    third = ReplayBuffer(tmp_path, window=100)
    assert (third.num_shards, third.num_games, third.set_aside) == (4, 3, [])
    s = third.sample(64, np.random.default_rng(0), num_actions=8)
    assert np.isfinite(s.value).all()


def test_set_aside_never_overwrites_an_earlier_set_aside_shard(tmp_path):
    buf = ReplayBuffer(tmp_path, window=100)
    buf.add(_batch(4, 0))
    buf.add(_batch(4, 1))
    earlier = tmp_path / "shard-000001.npz.corrupt"
    earlier.write_bytes(b"set aside before")
    _poison(tmp_path / "shard-000001.npz", "policy")
    again = ReplayBuffer(tmp_path, window=100)
    assert earlier.read_bytes() == b"set aside before"
    assert again.set_aside == [tmp_path / "shard-000001.npz.1.corrupt"]
    assert again.num_shards == 2 and again.num_games == 1


def test_shard_with_steps_beyond_the_action_count_is_set_aside(tmp_path, caplog):
    ReplayBuffer(tmp_path, window=100).add(_batch(4, 0))  # steps up to 7
    with caplog.at_level(logging.WARNING):
        buf = ReplayBuffer(tmp_path, window=100, num_actions=6)
    assert "legal_actions has step indices outside [0, 6)" in caplog.text
    assert buf.num_games == 0 and buf.num_shards == 1


# -- config ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value, says",
    [
        ("plies_scale", 0.0, "must be (a finite number )?> 0"),
        ("plies_scale", -100.0, "must be (a finite number )?> 0"),
        ("plies_scale", math.nan, "must be a finite number"),
        ("value_loss_weight", -1.0, "must be (a finite number )?>= 0"),
        ("aux_loss_weight", math.inf, "must be a finite number"),
        ("grad_clip", -1.0, "must be (a finite number )?>= 0"),
        ("lr", 0.0, "must be (a finite number )?> 0"),
        ("lr", -1e-3, "must be (a finite number )?> 0"),
        ("lr", math.inf, "must be a finite number"),
        ("weight_decay", -1e-4, "must be (a finite number )?>= 0"),
        ("lr", 1e6, r"lr \* train.weight_decay \(0.0001\) must be < 1"),
        ("min_replay", 5000, r"must lie in \[0, train.replay_window=2000\]"),
        ("min_replay", -1, r"must (be >= 0|lie in \[0, train.replay_window=2000\])"),
    ],
)
def test_settings_that_diverge_by_construction_are_refused(tiny, key, value, says):
    cfg = tiny(**{key: value})
    with pytest.raises(ValueError, match=rf"^config train\.{key}=.*{says}"):
        train_settings(cfg)


def test_sgd_momentum_outside_its_range_is_refused(tiny):
    with pytest.raises(ValueError, match=r"^config train\.momentum=.*must lie in \(0, 1\)"):
        train_settings(tiny(optimizer="sgd", momentum=0.0))
    train_settings(tiny(optimizer="adamw", momentum=0.0))  # no momentum is fine without sgd
    for momentum in (1.0, 1.5):
        with pytest.raises(ValueError, match=r"^config train\.momentum=.*must lie in \[0, 1\)"):
            train_settings(tiny(optimizer="sgd", momentum=momentum))


# -- the training loop ----------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, what",
    [
        # a non-finite loss in a learner step
        ({"lr": 1e20, "weight_decay": 0.0}, "loss term"),
        # finite losses that explode: caught at the step that sees it, before it steps
        ({"optimizer": "sgd", "lr": 1e6}, "is more than 1000 times"),
    ],
)
def test_divergence_leaves_the_last_good_checkpoint_newest(tmp_path, tiny, settings, what):
    run = tmp_path / "run"
    optimizer = settings.get("optimizer", "adamw")
    first = train(tiny(iterations=1, optimizer=optimizer), run)
    good = list_checkpoints(run / "checkpoints")
    assert good[-1] == first.checkpoint
    with pytest.raises(TrainingDiverged) as info:
        train(tiny(iterations=3, **settings), run)
    msg = str(info.value)
    assert msg.startswith("iteration 2: training diverged") and what in msg
    assert f"(lr {settings['lr']:g})" in msg and info.value.step == 4
    assert "learner step 4" in msg  # the iteration's second step (2 per iteration)
    assert f"{first.checkpoint.name} is still the newest checkpoint" in msg
    assert list_checkpoints(run / "checkpoints") == good
    # the run resumes from that checkpoint, with the games played meanwhile
    again = train(tiny(iterations=2, optimizer=optimizer), run)
    assert again.resumed_from == first.checkpoint
    assert (again.iterations, again.learner_steps, again.games) == (2, 4, 8)


def test_a_resumed_run_learns_at_its_own_learning_rate(tmp_path, tiny):
    # going on after a divergence with a lower train.lr must use that rate, not the one
    # stored with the optimiser state in the checkpoint
    run = tmp_path / "run"
    train(tiny(iterations=1, lr=2e-3), run)
    again = train(tiny(iterations=2, lr=5e-4, weight_decay=0.0), run)
    group = load_checkpoint(again.checkpoint)["optimizer"]["param_groups"][0]
    assert (group["lr"], group["weight_decay"]) == (5e-4, 0.0)


def test_a_checkpoint_with_a_nan_network_is_named_on_resume(tmp_path, tiny):
    run = tmp_path / "run"
    first = train(tiny(iterations=1), run)
    payload = load_checkpoint(first.checkpoint)
    payload["model"]["value_out.bias"].fill_(math.nan)
    payload["counters"]["iteration"] = 2
    bad = save_checkpoint(run / "checkpoints", 2, payload)  # e.g. written by older code
    with pytest.raises(TrainingDiverged, match="network output value is not finite") as info:
        train(tiny(iterations=3), run)
    assert str(info.value).startswith("iteration 3: ")
    assert f"The network of {bad} gives non-finite outputs; rename it to {bad.name}.corrupt" in (
        str(info.value)
    )
    bad.rename(bad.with_name(bad.name + ".corrupt"))
    assert train(tiny(iterations=2), run).resumed_from == first.checkpoint


def test_drl_train_reports_divergence_in_one_line(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "drl.cli.train", "train=tiny", "model=tiny"]
    cmd += ["search.num_simulations=4", "progress=false", "threads=1", "tensorboard=false"]
    cmd += ["train.lr=1e20", "train.weight_decay=0", "train.final_eval.games=0"]
    r = subprocess.run(
        cmd + [f"run_dir={run}"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("drl-train:")]
    assert len(lines) == 1, r.stderr[-3000:]
    assert lines[0].startswith("drl-train: iteration 1: training diverged at learner step")
    assert "(lr 1e+20)" in lines[0] and "loss term" in lines[0]
    # only the network before any training was checkpointed
    assert [p.name for p in list_checkpoints(run / "checkpoints")] == ["ckpt-00000000.pt"]


def test_games_after_a_set_aside_shard_take_no_number_of_a_kept_one(tmp_path, tiny):
    # A damaged shard in the middle leaves fewer games than numbers handed out; the
    # next games must be numbered past every kept game, not from the count of games.
    run = tmp_path / "run"
    train(tiny(iterations=1, final_eval=replace(tiny().train.final_eval, games=0)), run)
    shards = ReplayBuffer.shard_files(run / "replay")
    assert len(shards) == 2  # 4 games in shards of 2
    shards[0].write_bytes(b"not a shard")
    train(tiny(iterations=2, final_eval=replace(tiny().train.final_eval, games=0)), run)
    buf = ReplayBuffer(run / "replay", window=10**6)
    assert [p.name for p in buf.set_aside] == [] and buf.num_games == 6
    kept = [np.unique(np.load(p)["game_index"]) for p in buf.shard_paths()]
    indices = np.concatenate(kept)
    assert len(indices) == len(set(indices.tolist())) == 6
    assert sorted(indices.tolist()) == [2, 3, 4, 5, 6, 7]  # 0 and 1 were in the damaged shard


# -- an exploding finite loss -----------------------------------------------------------


def test_an_exploding_finite_loss_is_divergence_and_never_reaches_the_weights():
    net = _net()
    opt = torch.optim.SGD(net.parameters(), lr=1e6, momentum=0.9, nesterov=True)
    train_step(net, opt, _sample(seed=1), LossConfig())  # a sane loss; the step blows up
    before = _state(net)
    with pytest.raises(
        TrainingDiverged, match=r"the loss [\d.e+]+ is more than 1000 times"
    ) as info:
        train_step(net, opt, _sample(seed=2), LossConfig(), step=2)
    err = info.value
    assert err.what == "loss" and err.step == 2 and err.lr == 1e6
    assert str(err).startswith("training diverged at learner step 2 (lr 1e+06): the loss ")
    assert "uninformed network" in str(err) and "Hint: lower train.lr" in str(err)
    assert _same(_state(net), before)


def test_the_reference_loss_is_that_of_an_uninformed_network():
    batch = _sample()  # 5 legal steps everywhere, 30 plies left at scale 100
    loss = LossConfig()
    want = math.log(5) + 4 * loss.value_loss_weight + loss.aux_loss_weight * (1 + 0.5 * 0.3**2)
    assert loss_reference(batch, loss) == pytest.approx(want)
    # a healthy network's loss is far below the bound: a fresh one, and after training
    net = _net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    for step in range(20):
        out = train_step(net, opt, _sample(seed=step), loss)
        assert out["loss"] < 10 * loss_reference(_sample(seed=step), loss)


def test_check_network_refuses_a_network_whose_loss_exploded():
    net = _net()
    batch = _sample()
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(1e4)  # finite outputs, logits in the millions
    check_network(net, batch.obs)  # finite: the outputs alone pass
    with pytest.raises(TrainingDiverged, match="in eval mode, the loss") as info:
        check_network(net, batch.obs, step=7, lr=0.5, batch=batch, loss=LossConfig())
    assert info.value.what == "loss" and "after learner step 7 (lr 0.5)" in str(info.value)
    check_network(_net(), batch.obs, batch=batch, loss=LossConfig())  # a sane one passes
