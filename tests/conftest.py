"""Shared helpers of the test suite: where the shared test data lives, the repo root, and a
fresh UCI engine process (the `engine` fixture, which a module may override).

The perft files and other data live outside the repository, in a `shared/` folder that is a
sibling of the repository root (CI clones the repo next to it).  SCACCO_SHARED overrides that.
"""
import inspect
import os
from pathlib import Path

import pytest

from tests.shared import shared_dir

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path:
    """The shared/data folder: $SCACCO_SHARED/data, else ../shared/data next to the repo."""
    return shared_dir() / "data"


def shared_file(name: str) -> Path:
    """Path of a shared data file.  Missing data is a failure on CI (the CI environment
    variable is set) and a skip elsewhere, with a message saying where it was looked for."""
    path = shared_data_dir() / name
    if not path.is_file():
        message = (f"shared test data {name} not found at {path}: put the shared/ folder next "
                   f"to the repository or set SCACCO_SHARED to it")
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


def default_stop_signals() -> None:
    """In a child before exec: SIGINT, SIGTERM and SIGHUP at their defaults, as a terminal
    leaves them to a foreground program.  A test runner started in the background has SIGINT
    ignored, under nohup SIGHUP too, and a program keeps a signal its caller ignores (Python
    installs no KeyboardInterrupt for an ignored SIGINT; scacco's long runs keep the three), so
    a test that stops a program by a signal must not let the runner's state through."""
    import signal
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


def read_perft_epd(name: str):
    """Lines of a perft EPD file as (line_number, fen, {depth: nodes}, label)."""
    out = []
    path = shared_data_dir() / name
    if not path.is_file():
        return out
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = [part.strip() for part in line.split(";")]
        counts = {}
        label = f"{name.split('.')[0]}:{number}"
        for field in fields[1:]:
            if field.startswith("D"):
                depth, nodes = field[1:].split()
                counts[int(depth)] = int(nodes)
            elif field.startswith("id "):
                label += "-" + field[3:].strip().strip('"')
        out.append((number, fields[0], counts, label))
    return out


def is_shredder_castling(fen: str) -> bool:
    """Shredder-FEN castling letters (file letters) mark the Chess960 lines of the perft files."""
    return any(ch in "abcdefghABCDEFGH" for ch in fen.split()[2])


@pytest.fixture
def engine():
    """A fresh `scacco` UCI process that has answered `uci` and `isready`."""
    from uci_client import UciProcess
    with UciProcess() as process:
        process.ask("uci", "uciok")
        process.sync()
        yield process


# SCACCO_TEST_THREADS=N runs the tests' searchers with N threads (Lazy SMP) unless a test asks
# for a count: the search tests under the debug build with several threads look for races on
# the shared table.  Tests whose assertions need one thread's determinism are marked
# `single_thread` and skipped then.  tests/test_threads.py checks that the mode took.
TEST_THREADS = int(os.environ.get("SCACCO_TEST_THREADS", "1") or "1")


def set_parameter_default(function, name: str, value) -> None:
    """Give `function`'s parameter `name` the default `value`, found by name (positional
    defaults are stored by position from the end, keyword-only ones in a dict), leaving
    every other default as it is.

    :raises TypeError: when the function has no such parameter, or it has no default."""
    parameter = inspect.signature(function).parameters.get(name)
    if parameter is None or parameter.default is inspect.Parameter.empty:
        raise TypeError(f"{function.__qualname__} has no parameter {name!r} with a default")
    if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
        function.__kwdefaults__ = {**function.__kwdefaults__, name: value}
        return
    code = function.__code__
    positional = code.co_varnames[:code.co_posonlyargcount + code.co_argcount]
    defaults = list(function.__defaults__)
    defaults[positional.index(name) - (len(positional) - len(defaults))] = value
    function.__defaults__ = tuple(defaults)


def pytest_configure(config):
    config.addinivalue_line("markers", "single_thread: needs the determinism of one search thread")
    if TEST_THREADS > 1:
        from scacco.engine.search import Searcher
        set_parameter_default(Searcher.__init__, "threads", TEST_THREADS)


def pytest_collection_modifyitems(config, items):
    if TEST_THREADS > 1:
        skip = pytest.mark.skip(reason=f"needs one search thread (SCACCO_TEST_THREADS={TEST_THREADS})")
        for item in items:
            if "single_thread" in item.keywords:
                item.add_marker(skip)
