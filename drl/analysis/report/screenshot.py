"""Pages drawn in headless Chromium (Debian's ``chromium``) to PNG files.

``python -m drl.analysis.report --screenshot PAGE.html OUT.png`` runs :func:`_main`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["CHROMIUM", "CHROMIUM_FLAGS", "screenshot"]

CHROMIUM = "/usr/bin/chromium"

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def screenshot(
    html_path: str | os.PathLike,
    png_path: str | os.PathLike,
    width: int = 1280,
    height: int = 2000,
    chromium: str = CHROMIUM,
    timeout: float = 120.0,
) -> Path:
    """Draw a page (a local file) in headless Chromium into a PNG.

    Raises:
        FileNotFoundError: no Chromium at ``chromium`` or no page at ``html_path``.
        RuntimeError: Chromium failed or wrote no picture.
    """
    page = Path(html_path).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"no page at {page}")
    if not Path(chromium).exists():
        raise FileNotFoundError(f"no Chromium at {chromium} (Debian package: chromium)")
    png = Path(png_path).resolve()
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png}",
            page.as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode or not png.exists():
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-500:]}")
    return png


def _main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m drl.analysis.report")
    ap.add_argument("--screenshot", nargs=2, metavar=("PAGE", "PNG"), required=True)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=2000)
    args = ap.parse_args(argv)
    try:
        page, png = args.screenshot
        print(screenshot(page, png, width=args.width, height=args.height))
    except (OSError, RuntimeError) as err:
        print(f"screenshot: {err}", file=sys.stderr)
        return 1
    return 0
