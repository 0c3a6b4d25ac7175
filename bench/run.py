#!/usr/bin/env python3
"""weft benchmark driver (entry point): see bench/weftbench/cli.py, or --help.

    python3 bench/run.py [--mode test|quick|full] [--kernels a,b] [--policies ...] ...
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from weftbench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
