"""Training data for the neural evaluation (issue 13): self-play positions in a compact file.

Each game starts from one of the shared openings, or with probability ``chess960_share`` from
one of the 960 Chess960 starts, then plays ``random_plies`` uniformly random legal moves, and
then Scacco plays itself at a fixed node budget per move (ext/datagen.pxi: the whole game is a
C loop without the GIL, with the adjudication rules and the quiet filter written there).
Everything about game i comes from (seed, i): the start, the random moves, and, because every
game begins with an empty table and empty histories, the game itself.  So a run that is
interrupted and started again writes exactly the file one uninterrupted run writes.

File layout (little-endian).  A 32-byte header, then 36-byte records, nothing else::

    header   0  8 B  magic b"SCACCOTD"
             8  u16  format version (1)
            10  u16  record size (36)
            12  u32  nodes per move
            16  u64  seed
            24  u16  random plies
            26  u16  Chess960 share in units of 1/10000
            28  u32  CRC-32 of the openings file
            32  u32  CRC-32 of the network file the games were played with, 0 for the
                     classical evaluation
            36  4 B  zero
    record   0  u64  occupancy, bit i = square i (a1 = 0 ... h8 = 63)
             8  16 B pieces in occupancy order (lowest square first), two per byte, the first in
                     the low nibble; a piece is colour * 8 + type: white 1..6, black 9..14,
                     type 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king
            24  i16  search score in centipawns, side to move's view
            26  i8   game result, side to move's view: 1 win, 0 draw, -1 loss
            27  u8   flags: 1 black to move, 2 last record of its game, 4 a Chess960 game
            28  u8   halfmove clock (capped at 255)
            29  u8   en-passant square when a legal en-passant capture exists, else 64
            30  u16  plies from the game's start position (random plies included)
            32  u32  game index

The records of a game are written together with one write, in game order.  A kill can leave at
most an unfinished game at the end: on resume the file is cut back to the last record flagged
last-of-game and generation goes on from the game after it (games that recorded nothing are
simply played again, and record nothing again).  The header's settings must match on resume.

Castling rights are not recorded (the network sees pieces only); decoded FENs say "-".
"""
from __future__ import annotations

import os
import random
import struct
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator, List, NamedTuple, Optional, Tuple

from ..ext._core import ADJUDICATION_PY, GAME_ENDS_PY, RECORD_BYTES_PY, SelfPlay
from .batch import Failure, run_batch
from .board import Board
from .nnue import NetworkError, parse_network
from .progress import Progress

__all__ = ["DatagenError", "Settings", "GameRecord", "TrainingPosition", "play_game",
           "game_start", "chess960_fen", "read_openings", "generate", "read_positions",
           "decode_record", "load_numpy", "RECORD_BYTES", "HEADER_BYTES", "ADJUDICATION",
           "DEFAULT_NODES", "DEFAULT_RANDOM_PLIES", "DEFAULT_CHESS960_SHARE"]

MAGIC = b"SCACCOTD"
VERSION = 2
HEADER = struct.Struct("<8sHHIQHHII4x")
HEADER_BYTES = HEADER.size
RECORD_BYTES = RECORD_BYTES_PY
RECORD = struct.Struct("<Q16shbBBBHI")
assert RECORD.size == RECORD_BYTES and HEADER_BYTES == 40
FLAG_BLACK_TO_MOVE = 1
FLAG_LAST_OF_GAME = 2
FLAG_CHESS960 = 4
NO_SQUARE = 64
# The thresholds of ext/datagen.pxi, by name.
ADJUDICATION = dict(ADJUDICATION_PY)
GAME_ENDS = GAME_ENDS_PY

DEFAULT_NODES = 5000
DEFAULT_RANDOM_PLIES = 8
DEFAULT_CHESS960_SHARE = 0.1
# Table of each game's searcher: a game of 5000-node moves writes far fewer entries.
HASH_MB = 4
MAX_RANDOM_PLIES = 100
SHARE_UNITS = 10000
# fsync at most this often (seconds); every game is flushed as it is written.
SYNC_INTERVAL = 2.0

PIECE_SYMBOLS = {1: "P", 2: "N", 3: "B", 4: "R", 5: "Q", 6: "K",
                 9: "p", 10: "n", 11: "b", 12: "r", 13: "q", 14: "k"}
FILES = "abcdefgh"


class DatagenError(ValueError):
    """Bad settings, an unreadable openings file, or an output file that cannot be used."""


@dataclass(frozen=True)
class Settings:
    """What a data file is made with (its header); the same settings give the same games."""

    nodes: int = DEFAULT_NODES
    seed: int = 0
    random_plies: int = DEFAULT_RANDOM_PLIES
    chess960_share: float = DEFAULT_CHESS960_SHARE
    openings_crc: int = 0
    network_crc: int = 0      # of the network file played with; 0: the classical evaluation

    def check(self) -> None:
        """:raises DatagenError: on a value out of range."""
        if not isinstance(self.nodes, int) or not 1 <= self.nodes <= 2 ** 31:
            raise DatagenError(f"nodes must be an integer in 1..2**31, not {self.nodes!r}")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2 ** 64:
            raise DatagenError(f"seed must be an integer in 0..2**64-1, not {self.seed!r}")
        if not isinstance(self.random_plies, int) or not 0 <= self.random_plies <= MAX_RANDOM_PLIES:
            raise DatagenError(f"random plies must be in 0..{MAX_RANDOM_PLIES}, not {self.random_plies!r}")
        if not 0.0 <= self.chess960_share <= 1.0:
            raise DatagenError(f"the Chess960 share must be in 0..1, not {self.chess960_share!r}")

    @property
    def share_units(self) -> int:
        return round(self.chess960_share * SHARE_UNITS)

    def header(self) -> bytes:
        return HEADER.pack(MAGIC, VERSION, RECORD_BYTES, self.nodes, self.seed,
                           self.random_plies, self.share_units, self.openings_crc,
                           self.network_crc)


@dataclass
class GameRecord:
    """One self-play game: where it started, its moves, how it ended and its records."""

    index: int
    start_fen: str            # the opening or Chess960 start, before the random plies
    chess960: bool
    random_moves: List[str]   # UCI, played from start_fen before the self-play
    moves: List[str]          # UCI, the self-play moves
    result: int               # white's view: 1, 0, -1
    termination: str          # one of GAME_ENDS
    records: bytes
    nodes: int

    @property
    def positions(self) -> int:
        return len(self.records) // RECORD_BYTES


class TrainingPosition(NamedTuple):
    """A decoded record."""

    fen: str
    score: int        # centipawns, side to move's view
    result: int       # side to move's view: 1, 0, -1
    game_index: int
    ply: int          # plies from the game's start position
    chess960: bool
    last_of_game: bool


# ---------------------------------------------------------------------------------------------
# Start positions

def chess960_fen(number: int) -> str:
    """The Chess960 start position with Scharnagl number 0..959 (518 is the standard one),
    in Shredder-FEN."""
    if not 0 <= number < 960:
        raise ValueError(f"Chess960 numbers run 0..959, not {number}")
    rank: List[Optional[str]] = [None] * 8
    n, light = divmod(number, 4)
    rank[2 * light + 1] = "B"
    n, dark = divmod(n, 4)
    rank[2 * dark] = "B"
    n, queen = divmod(n, 6)
    empty = [i for i in range(8) if rank[i] is None]
    rank[empty[queen]] = "Q"
    knights = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)][n]
    empty = [i for i in range(8) if rank[i] is None]
    for k in knights:
        rank[empty[k]] = "N"
    empty = [i for i in range(8) if rank[i] is None]
    for i, piece in zip(empty, "RKR"):
        rank[i] = piece
    back = "".join(p for p in rank if p is not None)
    rooks = [FILES[i] for i in empty[::2]]
    castling = rooks[1].upper() + rooks[0].upper() + rooks[1] + rooks[0]
    return f"{back.lower()}/pppppppp/8/8/8/8/PPPPPPPP/{back} w {castling} - 0 1"


def read_openings(path) -> Tuple[List[str], int]:
    """The FENs of an openings file (one a line; blank lines and # comments skipped) and the
    CRC-32 of its bytes.

    :raises DatagenError: when it cannot be read, holds no FEN, or a line is not a FEN (with
        its line number)."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise DatagenError(f"cannot read the openings file {path}: {error.strerror or error}") from None
    fens = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            Board(line)
        except ValueError as error:
            raise DatagenError(f"{path}, line {number}: not a FEN: {error}") from None
        fens.append(line)
    if not fens:
        raise DatagenError(f"the openings file {path} holds no position")
    return fens, zlib.crc32(data)


def game_start(index: int, settings: Settings, openings: List[str]) -> Tuple[str, bool, int]:
    """(start FEN, chess960, seed of the random plies) of game `index`: a function of the seed
    and the index alone."""
    rng = random.Random(f"scacco-datagen:{settings.seed}:{index}")
    if rng.randrange(SHARE_UNITS) < settings.share_units:
        return chess960_fen(rng.randrange(960)), True, rng.getrandbits(64)
    return openings[rng.randrange(len(openings))], False, rng.getrandbits(64)


_networks: dict = {}      # (path, CRC) -> network, loaded once per process


def _read_network_file(path) -> Tuple[object, int]:
    """(network, CRC-32 of the file) of the network file at `path`.
    :raises DatagenError: when it cannot be read or is not a valid network."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise DatagenError(f"cannot read the network file {path}: {error.strerror or error}") from None
    try:
        return parse_network(data, str(path)), zlib.crc32(data)
    except NetworkError as error:
        raise DatagenError(str(error)) from None


def _network(path: str, crc: int):
    """The network file at `path`, which must still have CRC-32 `crc` (read once per
    process).  :raises DatagenError: when it cannot be read, is no network, or has changed."""
    key = (path, crc)
    if key not in _networks:
        network, found = _read_network_file(path)
        if found != crc:
            raise DatagenError(f"the network file {path} changed while the games were played")
        _networks[key] = network
    return _networks[key]


def _ended_by_rule(board: Board) -> bool:
    """Is the game over by a draw rule in this position (ext/datagen.pxi's step 1 for a
    position with legal moves): insufficient material, fifty moves, a third occurrence?"""
    return board.is_insufficient_material() or board.halfmove_clock >= 100 or board.repetitions() >= 2


def play_game(index: int, start_fen: str, chess960: bool, random_seed: int, random_plies: int,
              nodes: int, network: Optional[Tuple[str, int]] = None) -> GameRecord:
    """Game `index`: random_plies random legal moves from start_fen (fewer if the game ends
    by rule first: no move is played after its end), then self-play at `nodes` per move,
    evaluating with the network (path, CRC-32 of the file) or, without one, the classical
    evaluation.  A plain function of its arguments, for the batch runner (worker processes or
    Ray)."""
    board = Board(start_fen, chess960=chess960)
    rng = random.Random(random_seed)
    random_moves = []
    for _ in range(random_plies):
        codes = board.legal_move_codes()
        if not codes or _ended_by_rule(board):
            break               # the self-play below says how it ended
        code = codes[rng.randrange(len(codes))]
        random_moves.append(board.move_uci(code))
        board.push_code(code)
    player = SelfPlay(HASH_MB)
    if network is not None:
        player.set_network(_network(*network))
    records, result, termination, codes, searched = player.play(board, nodes, index, len(random_moves))
    moves = []
    for code in codes:
        moves.append(board.move_uci(code))
        board.push_code(code)
    return GameRecord(index, start_fen, chess960, random_moves, moves, result,
                      GAME_ENDS[termination], records, searched)


# ---------------------------------------------------------------------------------------------
# The file

def _read_header(handle, path) -> Settings:
    raw = handle.read(HEADER_BYTES)
    if len(raw) < HEADER_BYTES:
        raise DatagenError(f"{path} is not a Scacco training data file (too short for a header)")
    magic, version, record_bytes, nodes, seed, plies, share, crc, network_crc = HEADER.unpack(raw)
    if magic != MAGIC:
        raise DatagenError(f"{path} is not a Scacco training data file (magic {magic!r})")
    if version != VERSION or record_bytes != RECORD_BYTES:
        raise DatagenError(f"{path} has format version {version} with {record_bytes}-byte "
                           f"records; this build reads version {VERSION}, {RECORD_BYTES} bytes")
    return Settings(nodes, seed, plies, share / SHARE_UNITS, crc, network_crc)


def _resume_point(handle, size: int) -> Tuple[int, int]:
    """(bytes to keep, next game index): the end of the last finished game in the file."""
    count = (size - HEADER_BYTES) // RECORD_BYTES
    chunk = 4096
    end = count
    while end > 0:
        start = max(0, end - chunk)
        handle.seek(HEADER_BYTES + start * RECORD_BYTES)
        block = handle.read((end - start) * RECORD_BYTES)
        for i in range(end - start - 1, -1, -1):
            offset = i * RECORD_BYTES
            if block[offset + 27] & FLAG_LAST_OF_GAME:
                game = struct.unpack_from("<I", block, offset + 32)[0]
                return HEADER_BYTES + (start + i + 1) * RECORD_BYTES, game + 1
        end = start
    return HEADER_BYTES, 0


def open_output(path, settings: Settings, stream: IO[str]) -> Tuple[IO[bytes], int]:
    """The output opened for appending, positioned after its last finished game, and the index
    of the next game to play.  A new (or empty) file gets the header; an unfinished game at the
    end is cut off (and said so on `stream`).

    :raises DatagenError: when the path cannot be written, is not a data file, or was made
        with other settings."""
    path = Path(path)
    if path.is_dir():
        raise DatagenError(f"the output {path} is a directory")
    if not path.parent.is_dir():
        raise DatagenError(f"the output's folder {path.parent} does not exist")
    try:
        handle = open(path, "r+b" if path.exists() else "w+b")
    except OSError as error:
        raise DatagenError(f"cannot open {path} for writing: {error.strerror or error}") from None
    try:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            handle.write(settings.header())
            handle.flush()
            return handle, 0
        handle.seek(0)
        found = _read_header(handle, path)
        if found.header() != settings.header():
            raise DatagenError(f"{path} was made with other settings ({_describe(found)}); "
                               f"asked for {_describe(settings)}: use another file, or the "
                               f"same settings to go on with it")
        keep, next_index = _resume_point(handle, size)
        if keep < size:
            stream.write(f"datagen: {path}: cut off {size - keep} bytes of an unfinished game "
                         f"at the end\n")
            handle.truncate(keep)
        handle.seek(keep)
        return handle, next_index
    except BaseException:
        handle.close()
        raise


def _describe(s: Settings) -> str:
    return (f"nodes {s.nodes}, seed {s.seed}, random plies {s.random_plies}, Chess960 share "
            f"{s.chess960_share:g}, openings CRC {s.openings_crc:08x}, "
            + (f"network CRC {s.network_crc:08x}" if s.network_crc else "classical evaluation"))


def generate(out, games: int, *, nodes: int = DEFAULT_NODES, seed: int = 0,
             random_plies: int = DEFAULT_RANDOM_PLIES,
             chess960_share: float = DEFAULT_CHESS960_SHARE, openings=None, jobs: int = 1,
             ray_address: Optional[str] = None, network=None,
             stream: Optional[IO[str]] = None) -> dict:
    """Make `out` hold games 0..games-1 of these settings, playing the ones it lacks (in
    `jobs` processes, or on the Ray cluster at ray_address), with progress on `stream`
    (stderr).  With `network` (the path of a network file, checked first) the games are
    played with the neural evaluation; the file's CRC-32 goes into the header, so a file is
    only ever resumed with the same network (on a Ray cluster every worker must see the file
    at that path).  Returns {"games": played now, "positions": written now, "seconds": ...,
    "next_game": games afterwards}.

    :raises DatagenError: on bad settings, openings or output (before anything is played)."""
    stream = stream if stream is not None else sys.stderr
    if not isinstance(games, int) or isinstance(games, bool) or games < 0:
        raise DatagenError(f"the number of games must be a whole number >= 0, not {games!r}")
    if not isinstance(jobs, int) or jobs < 1:
        raise DatagenError(f"jobs must be at least 1, not {jobs!r}")
    if openings is None:
        raise DatagenError("an openings file is needed (the shared chessathome_openings.fen)")
    fens, crc = read_openings(openings)
    played_with = None
    if network is not None:
        loaded, network_crc = _read_network_file(network)
        played_with = (str(Path(network).resolve()), network_crc)
        _networks[played_with] = loaded      # games played in this process need not read it again
    settings = Settings(nodes, seed, random_plies, chess960_share, crc,
                        played_with[1] if played_with else 0)
    settings.check()
    handle, first = open_output(out, settings, stream)
    started = time.monotonic()
    written = played = 0
    try:
        if first >= games:
            stream.write(f"datagen: {out} already holds games 0..{first - 1}\n")
            return {"games": 0, "positions": 0, "seconds": 0.0, "next_game": first}

        def items() -> Iterator[tuple]:
            for index in range(first, games):
                fen, chess960, random_seed = game_start(index, settings, fens)
                yield index, fen, chess960, random_seed, random_plies, nodes, played_with

        progress = Progress(games, stream, noun="games", first=first)
        last_sync = time.monotonic()
        for index, game in zip(range(first, games), run_batch(play_game, items(), jobs, ray_address)):
            if isinstance(game, Failure):
                stream.write(f"datagen: game {index} failed and is left out: {game.error!r}\n")
                progress.advance(1, positions=0)
                continue
            handle.write(game.records)      # one write: the whole game or, if killed, a tail
            handle.flush()
            if time.monotonic() - last_sync >= SYNC_INTERVAL:
                os.fsync(handle.fileno())
                last_sync = time.monotonic()
            written += game.positions
            played += 1
            progress.advance(1, positions=game.positions)
        os.fsync(handle.fileno())
    finally:
        handle.close()
    return {"games": played, "positions": written, "seconds": time.monotonic() - started,
            "next_game": games}


# ---------------------------------------------------------------------------------------------
# Reading

def decode_record(raw: bytes) -> TrainingPosition:
    """The position, score and result of one record.  The FEN has no castling rights (not
    recorded) and counts moves from the game's start position as move 1.

    :raises ValueError: when the bytes are not a record (wrong size, bad piece code, too many
        pieces)."""
    if len(raw) != RECORD_BYTES:
        raise ValueError(f"a record has {RECORD_BYTES} bytes, not {len(raw)}")
    occupancy, packed, score, result, flags, halfmove, ep, ply, game = RECORD.unpack(raw)
    squares = [sq for sq in range(64) if occupancy >> sq & 1]
    if len(squares) > 32:
        raise ValueError(f"a record holds at most 32 pieces, not {len(squares)}")
    board = [""] * 64
    for i, sq in enumerate(squares):
        code = packed[i >> 1] >> (4 * (i & 1)) & 15
        if code not in PIECE_SYMBOLS:
            raise ValueError(f"bad piece code {code} on square {sq}")
        board[sq] = PIECE_SYMBOLS[code]
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            symbol = board[8 * rank + file]
            if symbol:
                row += (str(empty) if empty else "") + symbol
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    black = bool(flags & FLAG_BLACK_TO_MOVE)
    first_black = black ^ (ply & 1)
    en_passant = "-" if ep >= NO_SQUARE else FILES[ep & 7] + str(ep // 8 + 1)
    fen = (f"{'/'.join(rows)} {'b' if black else 'w'} - {en_passant} {halfmove} "
           f"{1 + (ply + first_black) // 2}")
    return TrainingPosition(fen, score, result, game, ply, bool(flags & FLAG_CHESS960),
                            bool(flags & FLAG_LAST_OF_GAME))


def read_settings(path) -> Settings:
    """The settings in a data file's header.  :raises DatagenError: if it is not one."""
    with open(path, "rb") as handle:
        return _read_header(handle, path)


def read_positions(path) -> Iterator[TrainingPosition]:
    """Every record of a data file, decoded, streaming (a torn record at the end is skipped).

    :raises DatagenError: when the file is not a data file."""
    with open(path, "rb") as handle:
        _read_header(handle, path)
        while True:
            block = handle.read(RECORD_BYTES * 4096)
            for offset in range(0, len(block) - RECORD_BYTES + 1, RECORD_BYTES):
                yield decode_record(block[offset:offset + RECORD_BYTES])
            if len(block) < RECORD_BYTES * 4096:
                return


def load_numpy(path):
    """The records of a data file as a numpy structured array (fields named as in the module
    docstring: occupancy, pieces, score, result, flags, halfmove, ep, ply, game), for a trainer.
    Needs numpy, which the engine itself does not.

    :raises ImportError: without numpy.  :raises DatagenError: when the file is not a data file."""
    import numpy as np

    dtype = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("score", "<i2"),
                      ("result", "i1"), ("flags", "u1"), ("halfmove", "u1"), ("ep", "u1"),
                      ("ply", "<u2"), ("game", "<u4")])
    assert dtype.itemsize == RECORD_BYTES
    size = os.path.getsize(path)
    read_settings(path)
    count = (size - HEADER_BYTES) // RECORD_BYTES
    return np.fromfile(path, dtype=dtype, count=count, offset=HEADER_BYTES)
