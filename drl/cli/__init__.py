"""The command-line entry points (``[project.scripts]`` of pyproject.toml).

``drl-train``, ``drl-eval``, ``drl-analyze``, ``drl-play``, ``drl-hub``, ``drl-perft`` and
``drl-demo``.
"""
