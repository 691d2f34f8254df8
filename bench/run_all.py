"""Run every benchmark in this folder, one after the other (``make bench``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    failed = 0
    for script in sorted(HERE.glob("*_bench.py")):
        print(f"== {script.name}", flush=True)
        failed |= subprocess.call([sys.executable, str(script)])
    sys.exit(failed)
