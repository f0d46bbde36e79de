"""Where the shared data and tools live, for the tests and the bench scripts alike.

The `shared/` folder (perft suites, mate files, openings, the match runner) sits outside the
repository, next to its root: CI clones the repository beside it.  SCACCO_SHARED overrides that.
The rule is the command line's (uci/cli/common.py's shared_folder), with the repository's root
as the base instead of the working folder, so the tests run from any folder.
"""
from pathlib import Path

from scacco.uci.cli.common import shared_folder

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The shared folder: $SCACCO_SHARED, else ../shared next to the repository root."""
    return shared_folder(str(REPO_ROOT))
