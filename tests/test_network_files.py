"""Network files are checked by type and size before they are read: a FIFO, a device or a
directory is refused without waiting on it, a file larger than the largest network is refused
without reading it, and over UCI the old network stays (an info string says why) while
isready and quit keep answering."""
import os
import subprocess
import sys
import threading

import chess
import pytest

from scacco.engine import nnue
from uci_client import ENGINE_COMMAND, HANG_TIMEOUT, UciProcess

# The largest network the format describes (the module docstring's layout, 256 hidden units
# and 8 output buckets): a 32-byte header, int16 feature weights [768][256], feature bias
# [256], output weights [8][2][256], and int32 output biases [8].
LARGEST_NETWORK_BYTES = 32 + 2 * (768 * 256 + 256 + 8 * 2 * 256) + 4 * 8
PACKAGED = nnue.default_network_path()

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX's")


def read_in_thread(path, timeout=HANG_TIMEOUT):
    """What nnue.read_network(path) raises (or returns), run on a thread that may hang: a
    hang fails the test, and a writer is then opened on the FIFO to set the thread free."""
    outcome = {}

    def run():
        try:
            outcome["value"] = nnue.read_network(path)
        except Exception as error:          # the outcome is the test's to judge
            outcome["error"] = error
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        with open(path, "wb"):              # the blocked open() pairs with this one
            pass
        thread.join(timeout)
        pytest.fail(f"reading {path} waited for a writer")
    return outcome


def test_the_largest_network_is_the_size_the_format_gives():
    assert nnue.MAX_NETWORK_BYTES == LARGEST_NETWORK_BYTES
    hidden = 256
    data = nnue.network_bytes(hidden, bytes(2 * 768 * hidden), bytes(2 * hidden),
                              bytes(8 * 2 * 2 * hidden), [0] * 8)
    assert len(data) == LARGEST_NETWORK_BYTES
    assert nnue.parse_network(data).buckets == 8


def test_a_network_of_the_largest_size_is_read(tmp_path):
    hidden = 256
    path = tmp_path / "wide.nnue"
    path.write_bytes(nnue.network_bytes(hidden, bytes(2 * 768 * hidden), bytes(2 * hidden),
                                        bytes(2 * 2 * hidden), 0))
    assert nnue.read_network(path).hidden == hidden
    link = tmp_path / "link.nnue"           # a symbolic link to a regular file is that file
    link.symlink_to(PACKAGED)
    assert nnue.read_network(link).hidden == nnue.read_network(PACKAGED).hidden


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "net.nnue"
    os.mkfifo(fifo)
    outcome = read_in_thread(fifo)
    assert "FIFO" in str(outcome.get("error")) and "regular file" in str(outcome["error"])
    assert isinstance(outcome["error"], nnue.NetworkError)


@pytest.mark.parametrize("kind", ["directory", "character device"])
def test_directories_and_devices_are_refused(tmp_path, kind):
    path = tmp_path if kind == "directory" else "/dev/null"
    if not os.path.exists(path):
        pytest.skip(f"no {path}")
    with pytest.raises(nnue.NetworkError, match=f"is a {kind}: a network file must be a regular file"):
        nnue.read_network(path)


def test_a_file_larger_than_any_network_is_refused_by_its_size(tmp_path):
    path = tmp_path / "big.nnue"
    path.write_bytes(b"\0" * (LARGEST_NETWORK_BYTES + 1))
    with pytest.raises(nnue.NetworkError, match=f"{LARGEST_NETWORK_BYTES + 1} bytes is larger "
                                                f"than any network file"):
        nnue.read_network(path)
    path.write_bytes(b"\0" * LARGEST_NETWORK_BYTES)     # at the bound: read, and refused as
    with pytest.raises(nnue.NetworkError, match="not a Scacco network"):   # what it holds
        nnue.read_network(path)


# ---------------------------------------------------------------------------------------------
# UCI: the old network stays, the engine keeps answering


def eval_line(engine):
    return engine.ask("eval", " NNUE evaluation")[-1]


def refuse(engine, path, reason):
    """EvalFile set to `path` is refused for `reason`; the packaged network stays in use."""
    before = eval_line(engine)
    assert "in use" in before and "not in use" not in before, before
    engine.send(f"setoption name EvalFile value {path}")
    lines = engine.sync()
    said = [line for line in lines if line.startswith("info string ")]
    assert len(said) == 1 and reason in said[0] and "EvalFile unchanged" in said[0], lines
    assert eval_line(engine) == before
    engine.send("position startpos")
    assert chess.Move.from_uci(engine.bestmove("go depth 3")[-1].split()[1]) in chess.Board().legal_moves


def test_a_fifo_as_eval_file_is_refused_and_quit_still_works(engine, tmp_path):
    fifo = tmp_path / "net.nnue"
    os.mkfifo(fifo)
    refuse(engine, fifo, "FIFO")
    engine.send("quit")
    assert engine.proc.wait(HANG_TIMEOUT) == 0


def limit_address_space():
    """A child process with 3 GB of address space: a file read whole fails there at once
    instead of taking the machine's memory."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_endless_and_huge_files_as_eval_file_are_refused_unread(tmp_path):
    huge = tmp_path / "huge.nnue"
    with open(huge, "wb") as handle:          # 3 GB, sparse: no disk space taken
        handle.truncate(3 << 30)
    with UciProcess(preexec_fn=limit_address_space) as engine:
        engine.ask("uci", "uciok")
        engine.sync()
        if os.path.exists("/dev/zero"):
            refuse(engine, "/dev/zero", "character device")
        refuse(engine, huge, f"{3 << 30} bytes is larger than any network file")


def test_a_fifo_in_place_of_the_default_network_does_not_hang_the_engine(tmp_path):
    """The default EvalFile is looked for in the working folder first: a FIFO there is refused
    and the engine searches classically."""
    os.mkfifo(tmp_path / nnue.DEFAULT_NETWORK)
    proc = subprocess.Popen(ENGINE_COMMAND, cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, _ = proc.communicate(b"isready\nposition startpos\ngo depth 3\n",
                                  timeout=HANG_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        with open(tmp_path / nnue.DEFAULT_NETWORK, "wb"):
            pass
        proc.communicate()
        pytest.fail("the engine hung on the FIFO")
    lines = out.decode().splitlines()
    assert "readyok" in lines
    said = [line for line in lines if "cannot be used" in line]
    assert len(said) == 1 and "FIFO" in said[0] and "classical" in said[0], lines
    best = [line for line in lines if line.startswith("bestmove")]
    assert len(best) == 1 and chess.Move.from_uci(best[0].split()[1]) in chess.Board().legal_moves
