"""Where the shared data and tools live, for the tests and the bench scripts alike.

The `shared/` folder (perft suites, mate files, openings, the match runner) sits outside the
repository, next to its root: CI clones the repository beside it.  SCACCO_SHARED overrides that.
"""
import os
from pathlib import Path


def shared_dir() -> Path:
    """The shared folder: $SCACCO_SHARED, else ../shared next to the repository root."""
    override = os.environ.get("SCACCO_SHARED")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "shared"
