"""Executes every notebook given on the command line headlessly (nbclient), in the Notebooks folder.

Each executed notebook is written to OUT_DIR (default Notebooks/.out); with --in-place it replaces the
source (to refresh the committed outputs). Exit status 1 if any cell of any notebook raises.
"""
import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

parser = argparse.ArgumentParser()
parser.add_argument("notebooks", nargs="+", type=Path)
parser.add_argument("--out-dir", type=Path, default=Path(__file__).parent / ".out")
parser.add_argument("--in-place", action="store_true")
parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
args = parser.parse_args()

failures = 0
for path in args.notebooks:
    started = time.monotonic()
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=args.timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    try:
        client.execute()
        status = "ok"
    except CellExecutionError as error:
        failures += 1
        status = "FAILED"
        print(f"{path}: {error}", file=sys.stderr)
    target = path if args.in_place else args.out_dir / path.name
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    print(f"{status:6} {path.name} in {time.monotonic() - started:.1f} s -> {target}")
print(f"notebooks: {len(args.notebooks) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
