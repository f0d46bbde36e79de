"""Network files for the neural evaluation: reading, checking, writing, quantising.

The network is 768 -> 2 x H -> 1 (ext/nnue.pxi): for each perspective (side to move first) an
accumulator of H values over the 768 piece-square inputs (ours / theirs x 6 types x 64 squares,
the squares seen from the perspective, flipped vertically for black), SCReLU (clamp to 0..1 and
square), then one output in units of `scale` centipawns.  Integers: feature weights and biases
times QA as int16, output weights times QB as int16 in -128..127, the output bias times
QA * QB as int32.

File layout (little-endian), a 32-byte header and the payload::

    0   8 B  magic b"SCACCONN"
    8   u16  format version (VERSION)
    10  u16  inputs (INPUTS)
    12  u16  hidden size H (1..MAX_HIDDEN)
    14  u16  activation (ACTIVATION_SCRELU)
    16  u16  QA
    18  u16  QB
    20  u16  scale (centipawns per unit of the float output)
    22  u16  reserved (0)
    24  u32  payload bytes
    28  u32  CRC-32 of the payload
    32       feature weights int16 [768][H], feature bias int16 [H],
             output weights int16 [2][H] (side to move's half first), output bias int32

A file that is short, long, of another version or shape, or whose checksum does not match is
refused with a NetworkError that says which; nothing is loaded then.  Before a file is read it
must be a regular file (a FIFO would wait for a writer, a device such as /dev/zero never ends)
of at most MAX_NETWORK_BYTES, the size of the largest network the header can describe.
"""
from __future__ import annotations

import os
import stat
import struct
import zlib
from pathlib import Path
from typing import Dict, List, Tuple

from ..ext._core import NnueNetwork

__all__ = ["NetworkError", "read_network", "read_network_bytes", "parse_network", "network_bytes", "write_network",
           "quantise", "dequantise", "float_outputs", "network_search_path", "float_output", "board_features", "default_network_path",
           "packaged_network", "fit_output_scale",
           "INPUTS", "QA", "QB", "SCALE", "MAGIC", "HEADER_BYTES", "MAX_NETWORK_BYTES"]

MAGIC = b"SCACCONN"
VERSION = 1
INPUTS = 768
MAX_HIDDEN = 256
ACTIVATION_SCRELU = 1
QA = 255
QB = 64
SCALE = 400
HEADER = struct.Struct("<8sHHHHHHHHII")
HEADER_BYTES = HEADER.size
assert HEADER_BYTES == 32
# The float output weights are clipped to this in training so that they quantise to -128..127.
OUTPUT_WEIGHT_LIMIT = 127 / QB
# The network shipped in the package (engine/data), the EvalFile default.
DEFAULT_NETWORK = "scacco-default.nnue"


class NetworkError(ValueError):
    """A network file that cannot be used (with the reason)."""


def default_network_path() -> Path:
    return Path(__file__).resolve().parent / "data" / DEFAULT_NETWORK


_packaged: List[NnueNetwork] = []     # the packaged network, once read


def packaged_network() -> NnueNetwork:
    """The network shipped in the package (the default evaluation), read and checked once
    per process.  :raises NetworkError: when the installed file cannot be used."""
    if not _packaged:
        _packaged.append(read_network(default_network_path()))
    return _packaged[0]


def network_search_path(name) -> Path:
    """Where the network file `name` is: as given if it exists, else (a bare file name) among
    the networks in the package, else as given (for the error message)."""
    path = Path(name)
    if not path.exists() and path.name == str(name):
        packaged = default_network_path().parent / path.name
        if packaged.exists():
            return packaged
    return path


def _payload_bytes(hidden: int) -> int:
    return 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4


# The largest valid network file (MAX_HIDDEN hidden units): nothing longer is ever read.
MAX_NETWORK_BYTES = HEADER_BYTES + _payload_bytes(MAX_HIDDEN)


def parse_network(data: bytes, name: str = "network") -> NnueNetwork:
    """The network in `data` (a whole file).  :raises NetworkError: naming what is wrong."""
    if len(data) < HEADER_BYTES:
        raise NetworkError(f"{name}: {len(data)} bytes is too short for a network file "
                           f"(the header alone is {HEADER_BYTES})")
    (magic, version, inputs, hidden, activation, qa, qb, scale, _reserved, payload_size,
     crc) = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetworkError(f"{name}: not a Scacco network file (magic {magic!r}, "
                           f"expected {MAGIC!r})")
    if version != VERSION:
        raise NetworkError(f"{name}: format version {version}; this Scacco reads version {VERSION}")
    if inputs != INPUTS or activation != ACTIVATION_SCRELU:
        raise NetworkError(f"{name}: {inputs} inputs with activation {activation}; expected "
                           f"{INPUTS} inputs and SCReLU ({ACTIVATION_SCRELU})")
    if not 1 <= hidden <= MAX_HIDDEN:
        raise NetworkError(f"{name}: hidden size {hidden} outside 1..{MAX_HIDDEN}")
    expected = _payload_bytes(hidden)
    if payload_size != expected:
        raise NetworkError(f"{name}: header says {payload_size} payload bytes; a net with "
                           f"{hidden} hidden units has {expected}")
    payload = data[HEADER_BYTES:]
    if len(payload) != expected:
        what = "truncated" if len(payload) < expected else "too long"
        raise NetworkError(f"{name}: {what}: {len(payload)} payload bytes, expected {expected}")
    actual = zlib.crc32(payload)
    if actual != crc:
        raise NetworkError(f"{name}: checksum mismatch (CRC-32 {actual:08x}, header says "
                           f"{crc:08x}): the file is corrupted")
    a = 2 * INPUTS * hidden
    b = a + 2 * hidden
    c = b + 4 * hidden
    (output_bias,) = struct.unpack_from("<i", payload, c)
    try:
        return NnueNetwork(hidden, qa, qb, scale, payload[:a], payload[a:b], payload[b:c],
                           output_bias)
    except ValueError as error:
        raise NetworkError(f"{name}: {error}") from None


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def _check_network_file(path, info: os.stat_result) -> None:
    """Refuse what is not a regular file of at most MAX_NETWORK_BYTES (before reading it)."""
    if not stat.S_ISREG(info.st_mode):
        raise NetworkError(f"{path} is {_file_kind(info.st_mode)}: a network file must be a "
                           f"regular file")
    if info.st_size > MAX_NETWORK_BYTES:
        raise NetworkError(f"{path}: {info.st_size} bytes is larger than any network file "
                           f"(at most {MAX_NETWORK_BYTES})")


def read_network_bytes(path) -> bytes:
    """The bytes of the network file at `path`, checked before anything is read: a regular
    file (a FIFO, a device or a directory is refused, never opened for a blocking read) of at
    most MAX_NETWORK_BYTES, and no more than that many bytes are read even if it grows.  What
    the bytes hold is parse_network's to check.

    :raises NetworkError: when it is not such a file or cannot be read."""
    def unreadable(error: OSError) -> NetworkError:
        return NetworkError(f"cannot read the network file {path}: {error.strerror or error}")

    try:
        _check_network_file(path, os.stat(path))
        # Non-blocking: should a FIFO take the file's place after the check, opening it does
        # not wait for a writer, and the check of what was opened refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise unreadable(error) from None
    try:
        _check_network_file(path, os.fstat(fd))
        chunks, remaining = [], MAX_NETWORK_BYTES + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as error:
        raise unreadable(error) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_NETWORK_BYTES:
        raise NetworkError(f"{path}: larger than any network file (at most {MAX_NETWORK_BYTES} "
                           f"bytes)")
    return data


def read_network(path) -> NnueNetwork:
    """The network in the file at `path` (read as read_network_bytes does).

    :raises NetworkError: when it cannot be read or is not a valid network file."""
    return parse_network(read_network_bytes(path), str(path))


def network_bytes(hidden: int, feature_weights: bytes, feature_bias: bytes,
                  output_weights: bytes, output_bias: int, qa: int = QA, qb: int = QB,
                  scale: int = SCALE) -> bytes:
    """A whole network file from the little-endian integer arrays."""
    payload = feature_weights + feature_bias + output_weights + struct.pack("<i", output_bias)
    if len(payload) != _payload_bytes(hidden):
        raise NetworkError(f"the arrays hold {len(payload)} bytes, a net with {hidden} hidden "
                           f"units {_payload_bytes(hidden)}")
    header = HEADER.pack(MAGIC, VERSION, INPUTS, hidden, ACTIVATION_SCRELU, qa, qb, scale, 0,
                         len(payload), zlib.crc32(payload))
    return header + payload


def write_network(path, data: bytes) -> None:
    """Write a network file atomically (a temporary file renamed over `path`)."""
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# Float weights (numpy): quantising, and a float forward pass for checks

def quantise(weights: Dict[str, "object"], calibration=None, scale: int = SCALE) -> bytes:
    """The network file of float weights (numpy arrays: w1 [768, H], b1 [H], w2 [2H], b2
    scalar), rounded to the integers of the module docstring, with `scale` centipawns per unit
    of output in its header (see fit_output_scale).

    `calibration`, when given, starts with a pair of int arrays (us, them) [N, S] of active
    inputs per position (the side to move's first; INPUTS pads a row): the output bias is then corrected
    by the mean difference between the rounded and the float network's outputs over those
    positions.  The rounding errors of the 2H output weights (a step of 1/QB each) do not
    cancel: summed over the units a position activates they can shift every evaluation by tens
    of centipawns the same way, and this takes the shift out (post-training bias correction)."""
    import numpy as np

    w1 = np.asarray(weights["w1"], dtype=np.float64)
    hidden = w1.shape[1]
    if w1.shape != (INPUTS, hidden):
        raise NetworkError(f"w1 must be [{INPUTS}, H], not {list(w1.shape)}")

    def ints(values, factor, low, high):
        return np.clip(np.round(np.asarray(values, dtype=np.float64) * factor), low, high)

    fw = ints(w1, QA, -32768, 32767).astype("<i2")
    fb = ints(weights["b1"], QA, -32768, 32767).astype("<i2")
    ow = ints(weights["w2"], QB, -128, 127).astype("<i2")
    b2 = float(weights["b2"])
    if calibration is not None:
        rounded = {"w1": fw / QA, "b1": fb / QA, "w2": ow / QB, "b2": b2}
        us, them = calibration[0], calibration[1]
        shift = np.mean(float_outputs(rounded, us, them) - float_outputs(weights, us, them))
        b2 -= shift / SCALE
    ob = int(ints(b2, QA * QB, -2 ** 31, 2 ** 31 - 1))
    return network_bytes(hidden, fw.tobytes(), fb.tobytes(), ow.tobytes(), ob, scale=scale)


# Positions whose search score or float evaluation is beyond this do not steer the scale fit
# (won positions: the game result, not the score, drives their evaluation).
SCALE_FIT_LIMIT = 1000


def fit_output_scale(weights: Dict[str, "object"], us, them, scores) -> int:
    """The header scale that puts the network's evaluations on the units of the search
    scores: SCALE * k, where k minimises sum (score - k * eval)^2 over the positions (us,
    them as for float_outputs; scores from the side to move's view) whose score and eval are
    both within SCALE_FIT_LIMIT.  A net trained on sigmoid targets blended with the game
    result reads larger than the search that scored its data (a won game pulls every target
    up), and the search's margins and the levels are in the search's units.

    :raises NetworkError: when no position is usable."""
    import numpy as np

    evals = float_outputs(weights, us, them)
    scores = np.asarray(scores, dtype=np.float64)
    use = (np.abs(scores) <= SCALE_FIT_LIMIT) & (np.abs(evals) <= SCALE_FIT_LIMIT)
    if not np.any(use) or not np.any(evals[use]):
        raise NetworkError("no position to fit the output scale on")
    k = float(np.dot(scores[use], evals[use]) / np.dot(evals[use], evals[use]))
    return int(min(65535, max(1, round(SCALE * k))))


def float_outputs(weights: Dict[str, "object"], us, them, chunk: int = 4096,
                  scale: float = SCALE):
    """float_output of many positions at once: us and them int arrays [N, S] of active inputs,
    padded with INPUTS (no input).  A float64 array [N] of centipawns."""
    import numpy as np

    w1 = np.asarray(weights["w1"], dtype=np.float64)
    hidden = w1.shape[1]
    w1 = np.vstack([w1, np.zeros((1, hidden))])
    b1 = np.asarray(weights["b1"], dtype=np.float64)
    w2 = np.asarray(weights["w2"], dtype=np.float64)
    us, them = np.asarray(us, dtype=np.int64), np.asarray(them, dtype=np.int64)
    out = np.empty(len(us))
    for start in range(0, len(us), chunk):
        a = np.clip(b1 + w1[us[start:start + chunk]].sum(axis=1), 0.0, 1.0) ** 2
        b = np.clip(b1 + w1[them[start:start + chunk]].sum(axis=1), 0.0, 1.0) ** 2
        out[start:start + chunk] = a @ w2[:hidden] + b @ w2[hidden:]
    return (out + float(weights["b2"])) * scale


def dequantise(data: bytes) -> Dict[str, "object"]:
    """The float weights a network file stands for (after checking it as parse_network does)."""
    import numpy as np

    parse_network(data)
    hidden = HEADER.unpack_from(data)[3]
    payload = data[HEADER_BYTES:]
    a = 2 * INPUTS * hidden
    fw = np.frombuffer(payload, "<i2", INPUTS * hidden).reshape(INPUTS, hidden)
    fb = np.frombuffer(payload, "<i2", hidden, a)
    ow = np.frombuffer(payload, "<i2", 2 * hidden, a + 2 * hidden)
    (ob,) = struct.unpack_from("<i", payload, a + 6 * hidden)
    return {"w1": fw / QA, "b1": fb / QA, "w2": ow / QB, "b2": ob / (QA * QB)}


def board_features(board) -> Tuple[List[int], List[int]]:
    """The active inputs of a board (anything with piece_at(square) -> "P".."k" or None and a
    turn, True for white), side to move's perspective first."""
    white: List[int] = []
    black: List[int] = []
    for sq in range(64):
        symbol = board.piece_at(sq)
        if not symbol:
            continue
        colour = 0 if symbol.isupper() else 1
        kind = "pnbrqk".index(symbol.lower())
        white.append(((colour * 6 + kind) << 6) + sq)
        black.append((((colour ^ 1) * 6 + kind) << 6) + (sq ^ 56))
    return (white, black) if _white_to_move(board) else (black, white)


def _white_to_move(board) -> bool:
    turn = board.turn
    return turn() if callable(turn) else bool(turn)


def float_output(weights: Dict[str, "object"], us: List[int], them: List[int],
                 scale: float = SCALE) -> float:
    """The float network's output in centipawns for the active inputs of each perspective,
    `scale` centipawns per unit (the trainer's SCALE; a network file's header may say
    another, see fit_output_scale)."""
    import numpy as np

    w1 = np.asarray(weights["w1"], dtype=np.float64)
    b1 = np.asarray(weights["b1"], dtype=np.float64)
    w2 = np.asarray(weights["w2"], dtype=np.float64)
    hidden = w1.shape[1]
    a = np.clip(b1 + w1[us].sum(axis=0), 0.0, 1.0) ** 2
    b = np.clip(b1 + w1[them].sum(axis=0), 0.0, 1.0) ** 2
    out = a @ w2[:hidden] + b @ w2[hidden:] + float(weights["b2"])
    return out * scale
