"""Network files for the neural evaluation: reading, checking, writing, quantising.

The network is 768 -> 2 x H -> 1 (ext/nnue.pxi): for each perspective (side to move first) an
accumulator of H values over the 768 piece-square inputs (ours / theirs x 6 types x 64 squares,
the squares seen from the perspective, flipped vertically for black), SCReLU (clamp to 0..1 and
square), then one output in units of `scale` centipawns.  The output layer may come in B
buckets (1..MAX_BUCKETS) by the number of pieces on the board, kings included: bucket_of.
Integers: feature weights and biases times QA as int16, output weights times QB as int16 in
-128..127, the output biases times QA * QB as int32.

File layout (little-endian), a 32-byte header and the payload::

    0   8 B  magic b"SCACCONN"
    8   u16  format version: 1 (one output layer) or 2 (output buckets)
    10  u16  inputs (INPUTS)
    12  u16  hidden size H (1..MAX_HIDDEN)
    14  u16  activation (ACTIVATION_SCRELU)
    16  u16  QA
    18  u16  QB
    20  u16  scale (centipawns per unit of the float output)
    22  u16  version 1: reserved (0); version 2: output buckets B (2..MAX_BUCKETS)
    24  u32  payload bytes
    28  u32  CRC-32 of the payload
    32       feature weights int16 [768][H], feature bias int16 [H],
             output weights int16 [B][2][H] (side to move's half first), output biases
             int32 [B]

A net with one output layer is written as version 1 (B = 1: the same payload), so builds that
read only version 1 still read it.  In the float weights (dicts of numpy arrays) w2 is [2H]
and b2 a number for one output layer, [B, 2H] and [B] for B buckets.

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
           "packaged_network", "fit_output_scale", "bucket_of", "output_layers",
           "INPUTS", "QA", "QB", "SCALE", "MAGIC", "HEADER_BYTES", "MAX_NETWORK_BYTES",
           "MAX_BUCKETS"]

MAGIC = b"SCACCONN"
VERSION = 1                # one output layer
VERSION_BUCKETS = 2        # output buckets
INPUTS = 768
MAX_HIDDEN = 256
MAX_BUCKETS = 8
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


def _payload_bytes(hidden: int, buckets: int = 1) -> int:
    return 2 * (INPUTS * hidden + hidden + buckets * 2 * hidden) + 4 * buckets


# The largest valid network file (MAX_HIDDEN hidden units, MAX_BUCKETS output buckets): nothing
# longer is ever read.
MAX_NETWORK_BYTES = HEADER_BYTES + _payload_bytes(MAX_HIDDEN, MAX_BUCKETS)


def bucket_of(pieces, buckets: int):
    """The output bucket of a position with `pieces` pieces (kings included; a number or a
    numpy array): 32 // buckets piece counts to a bucket from two pieces up, the last bucket
    taking what is left over (as ext/nnue.pxi's nnue_bucket)."""
    divisor = 32 // buckets
    if isinstance(pieces, int):
        return min(max(pieces - 2, 0) // divisor, buckets - 1)
    import numpy as np
    return np.minimum(np.maximum(np.asarray(pieces) - 2, 0) // divisor, buckets - 1)


def parse_network(data: bytes, name: str = "network") -> NnueNetwork:
    """The network in `data` (a whole file).  :raises NetworkError: naming what is wrong."""
    if len(data) < HEADER_BYTES:
        raise NetworkError(f"{name}: {len(data)} bytes is too short for a network file "
                           f"(the header alone is {HEADER_BYTES})")
    (magic, version, inputs, hidden, activation, qa, qb, scale, buckets, payload_size,
     crc) = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise NetworkError(f"{name}: not a Scacco network file (magic {magic!r}, "
                           f"expected {MAGIC!r})")
    if version not in (VERSION, VERSION_BUCKETS):
        raise NetworkError(f"{name}: format version {version}; this Scacco reads versions "
                           f"{VERSION} and {VERSION_BUCKETS}")
    if version == VERSION:
        if buckets != 0:
            raise NetworkError(f"{name}: version {VERSION} with {buckets} in the reserved field "
                               f"(0 expected)")
        buckets = 1
    elif not 2 <= buckets <= MAX_BUCKETS:
        raise NetworkError(f"{name}: {buckets} output buckets outside 2..{MAX_BUCKETS}")
    if inputs != INPUTS or activation != ACTIVATION_SCRELU:
        raise NetworkError(f"{name}: {inputs} inputs with activation {activation}; expected "
                           f"{INPUTS} inputs and SCReLU ({ACTIVATION_SCRELU})")
    if not 1 <= hidden <= MAX_HIDDEN:
        raise NetworkError(f"{name}: hidden size {hidden} outside 1..{MAX_HIDDEN}")
    expected = _payload_bytes(hidden, buckets)
    if payload_size != expected:
        raise NetworkError(f"{name}: header says {payload_size} payload bytes; a net with "
                           f"{hidden} hidden units and {buckets} output bucket(s) has {expected}")
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
    c = b + buckets * 4 * hidden
    biases = list(struct.unpack_from(f"<{buckets}i", payload, c))
    try:
        return NnueNetwork(hidden, qa, qb, scale, payload[:a], payload[a:b], payload[b:c], biases)
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
                  output_weights: bytes, output_bias, qa: int = QA, qb: int = QB,
                  scale: int = SCALE) -> bytes:
    """A whole network file from the little-endian integer arrays; `output_bias` one int, or a
    list of one per output bucket (version 2 when more than one)."""
    biases = [output_bias] if isinstance(output_bias, int) else [int(b) for b in output_bias]
    buckets = len(biases)
    if not 1 <= buckets <= MAX_BUCKETS:
        raise NetworkError(f"{buckets} output buckets outside 1..{MAX_BUCKETS}")
    payload = (feature_weights + feature_bias + output_weights
               + struct.pack(f"<{buckets}i", *biases))
    if len(payload) != _payload_bytes(hidden, buckets):
        raise NetworkError(f"the arrays hold {len(payload)} bytes, a net with {hidden} hidden "
                           f"units and {buckets} output bucket(s) "
                           f"{_payload_bytes(hidden, buckets)}")
    version, field = (VERSION, 0) if buckets == 1 else (VERSION_BUCKETS, buckets)
    header = HEADER.pack(MAGIC, version, INPUTS, hidden, ACTIVATION_SCRELU, qa, qb, scale, field,
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

def output_layers(weights: Dict[str, "object"]):
    """(w2, b2) of float weights as arrays [B, 2H] and [B], whether the weights have one output
    layer (w2 [2H], b2 a number) or B buckets."""
    import numpy as np

    w2 = np.asarray(weights["w2"], dtype=np.float64)
    b2 = np.asarray(weights["b2"], dtype=np.float64)
    if w2.ndim == 1:
        return w2[None, :], b2.reshape(1)
    if b2.shape != (w2.shape[0],):
        raise NetworkError(f"b2 must hold one bias per output bucket ({w2.shape[0]}), not "
                           f"shape {list(b2.shape)}")
    return w2, b2


def _active_counts(us):
    """Pieces on the board of each row of active inputs (INPUTS pads a row)."""
    import numpy as np

    return (np.asarray(us) != INPUTS).sum(axis=1)


def quantise(weights: Dict[str, "object"], calibration=None, scale: int = SCALE) -> bytes:
    """The network file of float weights (numpy arrays: w1 [768, H], b1 [H], w2 [2H], b2
    scalar, or w2 [B, 2H] and b2 [B] for B output buckets), rounded to the integers of the
    module docstring, with `scale` centipawns per unit of output in its header (see
    fit_output_scale).

    `calibration`, when given, starts with a pair of int arrays (us, them) [N, S] of active
    inputs per position (the side to move's first; INPUTS pads a row): each output bias is then
    corrected by the mean difference between the rounded and the float network's outputs over
    those positions of its bucket.  The rounding errors of the 2H output weights (a step of 1/QB each) do not
    cancel: summed over the units a position activates they can shift every evaluation by tens
    of centipawns the same way, and this takes the shift out (post-training bias correction)."""
    import numpy as np

    w1 = np.asarray(weights["w1"], dtype=np.float64)
    hidden = w1.shape[1]
    if w1.shape != (INPUTS, hidden):
        raise NetworkError(f"w1 must be [{INPUTS}, H], not {list(w1.shape)}")

    def ints(values, factor, low, high):
        return np.clip(np.round(np.asarray(values, dtype=np.float64) * factor), low, high)

    w2, b2 = output_layers(weights)
    buckets = len(b2)
    if not 1 <= buckets <= MAX_BUCKETS or w2.shape[1] != 2 * hidden:
        raise NetworkError(f"w2 must be [2H] or [B, 2H] with B in 1..{MAX_BUCKETS}, not "
                           f"{list(w2.shape)}")
    fw = ints(w1, QA, -32768, 32767).astype("<i2")
    fb = ints(weights["b1"], QA, -32768, 32767).astype("<i2")
    ow = ints(w2, QB, -128, 127).astype("<i2")
    b2 = b2.copy()
    if calibration is not None:
        rounded = {"w1": fw / QA, "b1": fb / QA, "w2": ow / QB, "b2": b2}
        us, them = calibration[0], calibration[1]
        difference = float_outputs(rounded, us, them) - float_outputs(weights, us, them)
        bucket = bucket_of(_active_counts(us), buckets)
        for k in range(buckets):
            if np.any(bucket == k):
                b2[k] -= np.mean(difference[bucket == k]) / SCALE
    ob = [int(v) for v in ints(b2, QA * QB, -2 ** 31, 2 ** 31 - 1)]
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
    w2, b2 = output_layers(weights)
    us, them = np.asarray(us, dtype=np.int64), np.asarray(them, dtype=np.int64)
    bucket = bucket_of(_active_counts(us), len(b2))
    out = np.empty(len(us))
    for start in range(0, len(us), chunk):
        a = np.clip(b1 + w1[us[start:start + chunk]].sum(axis=1), 0.0, 1.0) ** 2
        b = np.clip(b1 + w1[them[start:start + chunk]].sum(axis=1), 0.0, 1.0) ** 2
        layer = w2[bucket[start:start + chunk]]
        out[start:start + chunk] = ((a * layer[:, :hidden]).sum(axis=1)
                                    + (b * layer[:, hidden:]).sum(axis=1))
    return (out + b2[bucket]) * scale


def dequantise(data: bytes) -> Dict[str, "object"]:
    """The float weights a network file stands for (after checking it as parse_network does)."""
    import numpy as np

    buckets = parse_network(data).buckets
    hidden = HEADER.unpack_from(data)[3]
    payload = data[HEADER_BYTES:]
    a = 2 * INPUTS * hidden
    fw = np.frombuffer(payload, "<i2", INPUTS * hidden).reshape(INPUTS, hidden)
    fb = np.frombuffer(payload, "<i2", hidden, a)
    ow = np.frombuffer(payload, "<i2", buckets * 2 * hidden, a + 2 * hidden)
    ob = np.array(struct.unpack_from(f"<{buckets}i", payload, a + 2 * hidden + buckets * 4 * hidden),
                  dtype=np.float64)
    if buckets == 1:
        return {"w1": fw / QA, "b1": fb / QA, "w2": ow / QB, "b2": float(ob[0]) / (QA * QB)}
    return {"w1": fw / QA, "b1": fb / QA, "w2": ow.reshape(buckets, 2 * hidden) / QB,
            "b2": ob / (QA * QB)}


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
    another, see fit_output_scale); the output layer of the bucket of len(us) pieces."""
    import numpy as np

    w1 = np.asarray(weights["w1"], dtype=np.float64)
    b1 = np.asarray(weights["b1"], dtype=np.float64)
    w2, b2 = output_layers(weights)
    k = bucket_of(len(us), len(b2))
    hidden = w1.shape[1]
    a = np.clip(b1 + w1[us].sum(axis=0), 0.0, 1.0) ** 2
    b = np.clip(b1 + w1[them].sum(axis=0), 0.0, 1.0) ** 2
    out = a @ w2[k, :hidden] + b @ w2[k, hidden:] + b2[k]
    return out * scale
