"""Policy-value networks (torch) and their batched inference adapter."""

from drl.nn.evaluator import NetworkEvaluator, UniformEvaluator
from drl.nn.masking import masked_log_softmax, masked_softmax, policy_entropy
from drl.nn.network import NetConfig, NetOutput, PolicyValueNet

__all__ = [
    "NetConfig",
    "NetOutput",
    "NetworkEvaluator",
    "PolicyValueNet",
    "UniformEvaluator",
    "masked_log_softmax",
    "masked_softmax",
    "policy_entropy",
]
