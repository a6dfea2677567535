"""Helpers shared by the Sentio notebooks: find (or build) the `sentio` binary, run it, read its output.

The notebooks only drive the CLI; every number they show comes from `sentio` or from a reference library.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import tempfile
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
PALETTE = {"accent": "#3B82F6", "positive": "#10B981", "negative": "#EF4444",
           "slate": "#64748B", "muted": "#94A3B8", "text": "#0F172A"}


def binary() -> str:
    """`$SENTIO_BINARY`, else the newer of .build/release/sentio and .build/debug/sentio, else a fresh debug build."""
    env = os.environ.get("SENTIO_BINARY")
    if env:
        return env
    candidates = [ROOT / ".build" / c / "sentio" for c in ("release", "debug")]
    existing = [c for c in candidates if c.exists()]
    if not existing:
        subprocess.run(["swift", "build", "--product", "sentio"], cwd=ROOT, check=True)
        existing = [ROOT / ".build" / "debug" / "sentio"]
    return str(max(existing, key=lambda p: p.stat().st_mtime))


def binary_label() -> str:
    """The binary's path relative to the repository (for printing)."""
    return os.path.relpath(binary(), ROOT)


def run(*args) -> str:
    """Runs `sentio ARGS` from the repository root; raises with its standard error when it fails."""
    cmd = [binary(), *map(str, args)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


def run_json(*args):
    """`sentio ARGS` parsed as JSON."""
    return json.loads(run(*args))


def run_csv(*args, **read_csv) -> pd.DataFrame:
    """`sentio ARGS` read as CSV."""
    return pd.read_csv(io.StringIO(run(*args)), **read_csv)


def scratch_dir() -> Path:
    """A temporary directory for files the notebooks write (removed with the process)."""
    global _SCRATCH
    try:
        return Path(_SCRATCH.name)
    except NameError:
        _SCRATCH = tempfile.TemporaryDirectory(prefix="sentio-nb-")
        return Path(_SCRATCH.name)


def style() -> None:
    """Small, readable figures in the report palette (keeps the executed notebooks light)."""
    matplotlib.rcParams.update({
        "figure.dpi": 72, "savefig.dpi": 72, "figure.figsize": (10, 3.6),
        "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
        "grid.color": "#E2E8F0", "axes.edgecolor": PALETTE["muted"],
        "axes.prop_cycle": matplotlib.cycler(color=[PALETTE["accent"], PALETTE["slate"], PALETTE["positive"],
                                                    PALETTE["negative"], PALETTE["muted"]]),
        "font.size": 10,
    })
    pd.options.display.float_format = "{:,.4f}".format


def goog_csv() -> Path:
    """backtesting.py's daily GOOG sample (2004-2013) written as an OHLCV CSV that `sentio` reads."""
    import warnings
    with warnings.catch_warnings():  # backtesting.py announces its Bokeh notebook mode on import
        warnings.simplefilter("ignore")
        from backtesting.test import GOOG
    path = scratch_dir() / "GOOG.csv"
    frame = GOOG.rename(columns=str.lower)[["open", "high", "low", "close", "volume"]].copy()
    frame.index = frame.index.strftime("%Y-%m-%d")
    frame.index.name = "date"
    frame.to_csv(path)
    return path
