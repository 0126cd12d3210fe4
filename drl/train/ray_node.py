"""``ray start`` kept on loopback: ``python -m drl.train.ray_node start ...``.

Ray replaces ``--node-ip-address=127.0.0.1`` (and a ``127.0.0.1`` in ``--address``) by
the machine's outward address unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, and with
that variable set ``ray start`` refuses to join a cluster. This entry point sets the
variable for every process the node starts, and lifts only the refusal, so that both the
head and further nodes on one machine use 127.0.0.1 throughout. The arguments are those
of ``ray start``.
"""

from __future__ import annotations

import os
import sys

LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}


def main(argv: list[str] | None = None) -> None:
    """Run ``ray`` with ``argv`` (default: this process's arguments), on loopback."""
    os.environ.update(LOOPBACK_ENV)
    from ray._private import ray_constants, services
    from ray.scripts import scripts

    # The variable above already made Ray resolve 127.0.0.1 to itself; joining a
    # cluster is refused only while this flag is False.
    ray_constants.ENABLE_RAY_CLUSTER = True
    services.resolve_ip_for_localhost = lambda host: host
    sys.argv = ["ray", *(sys.argv[1:] if argv is None else argv)]
    scripts.main()


if __name__ == "__main__":
    main()
