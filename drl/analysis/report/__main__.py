"""``python -m drl.analysis.report --screenshot PAGE.html OUT.png``."""

import sys

from drl.analysis.report.screenshot import _main

sys.exit(_main(sys.argv[1:]))
