"""Training data for the neural evaluation: self-play positions in a compact, checked file.

Each game starts from one of the shared openings, or with probability ``chess960_share`` from
one of the 960 Chess960 starts, then plays ``random_plies`` uniformly random legal moves (fewer
when the game ends by rule first), and then Scacco plays itself at a soft node budget per move
(no iteration starts once the budget is spent, so the last one is never thrown away; 8 times
the budget cuts any search)
(ext/datagen.pxi: the whole game is a C loop without the GIL, with the adjudication rules and
the quiet filter written there).  Everything about game i comes from (seed, i): the start, the
random moves, and, because every game begins with an empty table and empty histories, the game
itself.  So a run that is interrupted and started again writes exactly the file one
uninterrupted run writes.

File layout, format version 4 (little-endian).  A 40-byte header, then for each game its
36-byte records followed by one 36-byte end mark, nothing else::

    header   0  8 B  magic b"SCACCOTD"
             8  u16  format version (VERSION)
            10  u16  record size (RECORD_BYTES)
            12  u32  node budget per move (soft, see above; version 3: a hard limit)
            16  u64  seed
            24  u16  random plies
            26  u16  Chess960 share in units of 1/10000
            28  u32  CRC-32 of the openings file
            32  u32  CRC-32 of the network file the games were played with, 0 for the
                     classical evaluation
            36  u32  CRC-32 of header bytes 0..35
    record   0  u64  occupancy, bit i = square i (a1 = 0 ... h8 = 63); never 0
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
    end mark 0  u64  0 (an empty board: what tells an end mark from a record)
             8  8 B  b"SCACGAME"
            16  u32  records of the game (0 when it recorded no position)
            20  i8   the game's result, white's view
            21  u8   how it ended (an index into GAME_ENDS)
            22  5 B  zero
            27  u8   flags: 8 (an end mark)
            28  u32  CRC-32 of the game's records followed by bytes 0..27 and 32..35 here
            32  u32  game index

A game's records and end mark are written together with one write, in game order, and every
game played gets its end mark (a game whose worker failed gets none and is left out).  A kill
can leave at most one unfinished write at the end.  On resume every game in the file is
checked against its end mark (count, checksum, indices rising); an unfinished write at the end
(records of one game after the last whole one, without their end mark) is cut off and that game
played again; anything else that does not check out is refused with the byte offset, the game
and the record where it stops, and the file is left as it was.  The header's settings must
match on resume.

Versions.  Version 3 (the same layout, its games played to a hard node limit per move) and
version 2 (the same header with four zero bytes for its checksum, and records only, no end
marks) are still read by read_positions and load_numpy but not resumed: version 3's games
cannot be played again as they were, and nothing in version 2 can check a record; newer
versions are refused.

Castling rights are not recorded (the network sees pieces only); decoded FENs say "-".
"""
from __future__ import annotations

import os
import random
import signal
import stat
import struct
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator, List, NamedTuple, Optional, Tuple

from ...ext._core import ADJUDICATION, GAME_ENDS, MAX_GAME_PLIES_PY, RECORD_BYTES_PY, SelfPlay
from ..batch import Failure, run_batch
from ..board import Board
from ..nnue import NetworkError, parse_network
from ..progress import Progress
from ..stopping import Interrupted, interruptible

__all__ = ["DatagenError", "DatagenInterrupted", "FileDamaged", "Settings", "GameRecord",
           "TrainingPosition", "play_game", "game_start", "chess960_fen", "read_openings",
           "read_input_file", "generate",
           "read_positions", "read_settings", "decode_record", "end_mark", "load_numpy",
           "RECORD_BYTES", "HEADER_BYTES", "VERSION", "ADJUDICATION", "DEFAULT_NODES",
           "DEFAULT_RANDOM_PLIES", "DEFAULT_CHESS960_SHARE"]

MAGIC = b"SCACCOTD"
VERSION = 4
# Versions read_positions and load_numpy read (only VERSION is resumed).
READABLE_VERSIONS = (2, 3, 4)
HEADER = struct.Struct("<8sHHIQHHIII")
HEADER_BYTES = HEADER.size
RECORD_BYTES = RECORD_BYTES_PY
RECORD = struct.Struct("<Q16shbBBBHI")
END_MARK = struct.Struct("<Q8sIbB5xBII")
END_MAGIC = b"SCACGAME"
assert RECORD.size == END_MARK.size == RECORD_BYTES and HEADER_BYTES == 40
FLAG_BLACK_TO_MOVE = 1
FLAG_LAST_OF_GAME = 2
FLAG_CHESS960 = 4
FLAG_END_MARK = 8
RECORD_FLAGS = FLAG_BLACK_TO_MOVE | FLAG_LAST_OF_GAME | FLAG_CHESS960
NO_SQUARE = 64
# A game records at most one position per self-play ply.
MAX_GAME_RECORDS = MAX_GAME_PLIES_PY
# Input files are checked by type and size before they are read: an openings file of more
# than this is no openings file (the shared one, 4000 FENs, is 0.3 MB), and a network file is
# at most its header and the weights of engine.nnue's MAX_HIDDEN hidden units (0.4 MB).
MAX_OPENINGS_BYTES = 64 << 20
MAX_NETWORK_BYTES = 1 << 20
# Records read at a time when a file is checked or read.
CHUNK_RECORDS = 4096

DEFAULT_NODES = 5000
DEFAULT_RANDOM_PLIES = 8
DEFAULT_CHESS960_SHARE = 0.1
# Table of each game's searcher: a game of DEFAULT_NODES-node moves writes far fewer entries.
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


class DatagenInterrupted(Interrupted):
    """generate() stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP: the games finished before it
    are in the file, which the same call goes on from; the one-line message saying so (also
    `str()` of this) has been written to generate's stream.  `summary` is generate's summary
    up to there, `signum` the signal's number (SIGINT for a KeyboardInterrupt of the caller's
    own)."""

    def __init__(self, signum: int, message: str, summary: dict) -> None:
        super().__init__(signum)
        self.message = message
        self.summary = summary

    def __str__(self) -> str:
        return self.message


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
        """The header of a file of these settings (the current format version)."""
        head = HEADER.pack(MAGIC, VERSION, RECORD_BYTES, self.nodes, self.seed,
                           self.random_plies, self.share_units, self.openings_crc,
                           self.network_crc, 0)[:HEADER_BYTES - 4]
        return head + struct.pack("<I", zlib.crc32(head))


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

    def file_bytes(self) -> bytes:
        """What the file holds for this game: its records, then its end mark."""
        return self.records + end_mark(self.index, self.records, self.result,
                                       GAME_ENDS.index(self.termination))


def end_mark(index: int, records: bytes, result: int, termination: int) -> bytes:
    """The end mark of game `index` after its records (see the module docstring)."""
    mark = END_MARK.pack(0, END_MAGIC, len(records) // RECORD_BYTES, result, termination,
                         FLAG_END_MARK, 0, index)
    crc = zlib.crc32(mark[32:], zlib.crc32(mark[:28], zlib.crc32(records)))
    return mark[:28] + struct.pack("<I", crc) + mark[32:]


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


def read_input_file(path, what: str, limit: int) -> bytes:
    """The bytes of the input file at `path` (`what` names it in messages), checked before it
    is read: a regular file (a FIFO, a device such as /dev/zero, a directory are refused; it
    is opened without blocking, so a FIFO cannot hold the caller) of at most `limit` bytes.

    :raises DatagenError: when it cannot be opened or read, is no regular file or is too large."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise DatagenError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a directory" if stat.S_ISDIR(info.st_mode) else
                    "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode) else
                    "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                    "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
            raise DatagenError(f"the {what} {path} is {kind}: give a regular file")
        if info.st_size > limit:
            raise DatagenError(f"the {what} {path} has {info.st_size} bytes, more than the "
                               f"{limit} one can have")
        with os.fdopen(descriptor, "rb") as handle:
            descriptor = -1
            data = handle.read(limit + 1)
    except OSError as error:
        raise DatagenError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    finally:
        if descriptor >= 0:
            os.close(descriptor)
    if len(data) > limit:
        raise DatagenError(f"the {what} {path} grew past {limit} bytes while it was read")
    return data


def read_openings(path) -> Tuple[List[str], int]:
    """The FENs of an openings file (one a line; blank lines and # comments skipped) and the
    CRC-32 of its bytes.  The file is checked by type and size first (read_input_file).

    :raises DatagenError: when it cannot be read, is no regular file, is larger than
        MAX_OPENINGS_BYTES, holds no FEN, or a line is not a FEN (with its line number)."""
    data = read_input_file(path, "openings file", MAX_OPENINGS_BYTES)
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
    """(network, CRC-32 of the file) of the network file at `path` (checked by type and size
    first).  :raises DatagenError: when it cannot be read or is not a valid network."""
    data = read_input_file(path, "network file", MAX_NETWORK_BYTES)
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

def _read_header(handle, path) -> Tuple[Settings, int]:
    """(settings, format version) from a data file's header, of a version this build reads.
    :raises DatagenError: when it is no data file, of another version, or its header is damaged."""
    raw = handle.read(HEADER_BYTES)
    if len(raw) < HEADER_BYTES:
        raise DatagenError(f"{path} is not a Scacco training data file (too short for a header)")
    (magic, version, record_bytes, nodes, seed, plies, share, crc, network_crc,
     header_crc) = HEADER.unpack(raw)
    if magic != MAGIC:
        raise DatagenError(f"{path} is not a Scacco training data file (magic {magic!r})")
    if version not in READABLE_VERSIONS or record_bytes != RECORD_BYTES:
        age = "a newer" if version > VERSION else "an older"
        raise DatagenError(f"{path} was written by {age} Scacco (format version {version} with "
                           f"{record_bytes}-byte records); this build reads versions "
                           f"{', '.join(map(str, READABLE_VERSIONS))} with {RECORD_BYTES}-byte "
                           f"records")
    expected = zlib.crc32(raw[:HEADER_BYTES - 4]) if version >= 3 else 0
    if header_crc != expected:
        raise DatagenError(f"{path}: the header is damaged (its checksum does not match)")
    return Settings(nodes, seed, plies, share / SHARE_UNITS, crc, network_crc), version


class FileDamaged(DatagenError):
    """A data file whose games do not check out from byte `offset` on (the games before it,
    up to byte `sound`, do)."""

    def __init__(self, message: str, offset: int, sound: int) -> None:
        super().__init__(message)
        self.offset, self.sound = offset, sound


class _Games:
    """The whole games of a data file of version 3 or 4, checked against their end marks, read in
    order in constant memory: iterate for (records, game index); afterwards `sound` is the
    byte offset where the last whole game ends, `last_game` its index (-1: none), and `tail`
    the (offset, record) pairs after it that no end mark closed, `tail_bytes` the bytes after
    those (a torn record).  A unit that cannot belong to a whole game ends the iteration with
    FileDamaged; a tail is not judged here (see check_tail)."""

    def __init__(self, handle, path) -> None:
        self.handle, self.path = handle, path
        self.sound = HEADER_BYTES
        self.last_game = -1
        self.tail: List[Tuple[int, bytes]] = []
        self.tail_bytes = 0

    def damaged(self, offset: int, what: str) -> FileDamaged:
        games = f"games up to {self.last_game}" if self.last_game >= 0 else "no game"
        return FileDamaged(
            f"{self.path} is damaged at byte {offset}: {what}.  The file is sound up to byte "
            f"{self.sound} ({games}); nothing was changed: cut it there to go on with it "
            f"(truncate -s {self.sound} {self.path}) or use another file", offset, self.sound)

    def __iter__(self) -> Iterator[Tuple[List[bytes], int]]:
        handle = self.handle
        handle.seek(HEADER_BYTES)
        offset = HEADER_BYTES
        pending: List[Tuple[int, bytes]] = []
        while True:
            block = handle.read(CHUNK_RECORDS * RECORD_BYTES)
            whole = len(block) - len(block) % RECORD_BYTES
            for at in range(0, whole, RECORD_BYTES):
                unit = block[at:at + RECORD_BYTES]
                if unit[:8] != b"\0" * 8:
                    pending.append((offset + at, unit))
                    if len(pending) > MAX_GAME_RECORDS:
                        raise self.damaged(pending[0][0], f"{len(pending)} records follow "
                                           f"without an end mark, more than a game has")
                    continue
                records = [record for _, record in pending]
                index = self.check_end_mark(offset + at, unit, pending[0][0] if pending else None,
                                            len(records), b"".join(records))
                yield records, index
                self.sound, self.last_game, pending = offset + at + RECORD_BYTES, index, []
            offset += whole
            if len(block) < CHUNK_RECORDS * RECORD_BYTES:
                self.tail, self.tail_bytes = pending, len(block) - whole
                return

    def check_end_mark(self, offset: int, unit: bytes, start: Optional[int], records: int,
                       body) -> int:
        """The game index of the end mark `unit` at `offset`, which closes `records` records
        from byte `start` on (None: none), whose bytes are `body`.
        :raises FileDamaged: when it is no end mark or does not match them."""
        _, magic, count, _, termination, flags, crc, index = END_MARK.unpack(unit)
        start = offset if start is None else start
        if magic != END_MAGIC or flags != FLAG_END_MARK or unit[22:27] != bytes(5) \
                or termination >= len(GAME_ENDS):
            raise self.damaged(offset, "an empty board that is no game's end mark")
        if count != records:
            raise self.damaged(start, f"the end mark of game {index} (byte {offset}) counts "
                                      f"{count} records, {records} precede it")
        computed = zlib.crc32(unit[32:], zlib.crc32(unit[:28], zlib.crc32(body)))
        if computed != crc:
            raise self.damaged(start, f"game {index} (bytes {start}..{offset + RECORD_BYTES}) "
                                      f"does not match its checksum")
        if index <= self.last_game:
            raise self.damaged(start, f"game {index} comes after game {self.last_game}: a game "
                                      f"repeated or out of order")
        return index

    def check_tail(self) -> Optional[int]:
        """The game index of the tail's records when they are what an interrupted write of
        one game leaves (records of one game after the last whole one, in order, its last
        record flagged at most at the end), None when there is no whole record in it.
        :raises FileDamaged: for anything else."""
        game, previous_ply = None, -1
        for number, (offset, raw) in enumerate(self.tail):
            try:
                position = decode_record(raw)
            except ValueError as error:
                raise self.damaged(offset, f"not a record ({error})") from None
            where = f"record {number + 1} after the last whole game"
            if raw[27] & ~RECORD_FLAGS:
                raise self.damaged(offset, f"{where} has unknown flags {raw[27]}")
            if game is None:
                game = position.game_index
                if game <= self.last_game:
                    raise self.damaged(offset, f"{where} is of game {game}, which the file "
                                               f"already holds")
            elif position.game_index != game:
                raise self.damaged(offset, f"{where} is of game {position.game_index}, the "
                                           f"records before it of game {game}")
            if position.ply <= previous_ply:
                raise self.damaged(offset, f"{where} (game {game}) is at ply {position.ply}, "
                                           f"the one before it at ply {previous_ply}")
            if position.last_of_game and number != len(self.tail) - 1:
                raise self.damaged(offset, f"{where} (game {game}) is flagged as its game's "
                                           f"last, and records follow it")
            previous_ply = position.ply
        return game


def open_output(path, settings: Settings, stream: IO[str]) -> Tuple[IO[bytes], int]:
    """The output opened for appending, positioned after its last whole game, and the index of
    the next game to play.  A new (or empty) file gets the header.  An existing one has every
    game checked (_Games); an unfinished write at its end is cut off, and said so on `stream`
    with where it was.

    :raises DatagenError: when the path cannot be written, is not a data file of this
        version, was made with other settings, or is damaged (FileDamaged: where); the file
        is then left as it was."""
    path = Path(path)
    if path.is_dir():
        raise DatagenError(f"the output {path} is a directory")
    if not path.parent.is_dir():
        raise DatagenError(f"the output's folder {path.parent} does not exist")
    if path.exists() and not path.is_file():
        raise DatagenError(f"the output {path} is not a regular file")
    try:
        handle = open(path, "r+b" if path.exists() else "w+b")
    except OSError as error:
        raise DatagenError(f"cannot open {path} for writing: {error.strerror or error}") from None
    try:
        size = handle.seek(0, os.SEEK_END)
        if size < HEADER_BYTES and settings.header().startswith(_read_all(handle)):
            # empty, or a header cut short while it was written
            handle.seek(0)
            handle.truncate(0)
            handle.write(settings.header())
            handle.flush()
            return handle, 0
        handle.seek(0)
        found, version = _read_header(handle, path)
        if version != VERSION:
            why = ("whose records carry no checksum to check a resume with" if version == 2 else
                   "whose games were played to a hard node limit per move (this build plays to "
                   "a soft one)")
            raise DatagenError(f"{path} has format version {version}, {why}: read it as it is "
                               f"(it stays readable), and write new games to another file")
        if found.header() != settings.header():
            raise DatagenError(f"{path} was made with other settings ({_describe(found)}); "
                               f"asked for {_describe(settings)}: use another file, or the "
                               f"same settings to go on with it")
        games = _Games(handle, path)
        for _ in games:
            pass
        game = games.check_tail()
        keep = games.sound
        if keep < size:
            what = (f"game {game}'s unfinished write ({len(games.tail)} records"
                    f"{' and a torn one' if games.tail_bytes else ''})" if game is not None else
                    "a torn record")
            stream.write(f"datagen: {path}: cut off {size - keep} bytes at byte {keep}, {what}; "
                         f"it is played again\n")
            handle.truncate(keep)
        handle.seek(keep)
        return handle, games.last_game + 1
    except BaseException:
        handle.close()
        raise


def _read_all(handle) -> bytes:
    handle.seek(0)
    return handle.read()


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

    Ctrl-C (SIGINT), SIGTERM or SIGHUP (on the main thread) stops the run: the workers are
    stopped, the games finished before it stay in the file, a one-line message on `stream`
    says how far the file goes and that the same call goes on from there, and
    DatagenInterrupted (an engine.stopping.Interrupted) is raised; a command line exits on it
    without a traceback.

    :raises DatagenError: on bad settings, openings or output (before anything is played).
    :raises DatagenInterrupted: on one of those signals."""
    stream = stream if stream is not None else sys.stderr
    if not isinstance(games, int) or isinstance(games, bool) or games < 0:
        raise DatagenError(f"the number of games must be a whole number >= 0, not {games!r}")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise DatagenError(f"jobs must be at least 1, not {jobs!r}")
    if openings is None:
        raise DatagenError("an openings file is needed (the shared chessathome_openings.fen)")
    started = time.monotonic()
    done = (0, 0, 0)          # (the next game the file lacks, games played, positions written)
    handle = progress = batch = writing = None
    with interruptible():
        try:
            fens, crc = read_openings(openings)
            played_with = None
            if network is not None:
                loaded, network_crc = _read_network_file(network)
                played_with = (str(Path(network).resolve()), network_crc)
                _networks[played_with] = loaded      # games played here need not read it again
            settings = Settings(nodes, seed, random_plies, chess960_share, crc,
                                played_with[1] if played_with else 0)
            settings.check()
            handle, first = open_output(out, settings, stream)
            done = (first, 0, 0)
            if first >= games:
                stream.write(f"datagen: {out} already holds games 0..{first - 1}\n")
                return {"games": 0, "positions": 0, "seconds": 0.0, "next_game": first}

            def items() -> Iterator[tuple]:
                for index in range(first, games):
                    fen, chess960, random_seed = game_start(index, settings, fens)
                    yield index, fen, chess960, random_seed, random_plies, nodes, played_with

            progress = Progress(games, stream, noun="games", first=first)
            last_sync = time.monotonic()
            batch = run_batch(play_game, items(), jobs, ray_address)
            for index, game in zip(range(first, games), batch):
                if isinstance(game, Failure):
                    stream.write(f"datagen: game {index} failed and is left out: {game.error!r}\n")
                    progress.advance(1, positions=0)
                    continue
                # one write: the whole game and its end mark or, if killed, a part of them; an
                # interruption around it is told by where the file ends (`writing`)
                data = game.file_bytes()
                writing = (handle.tell() + len(data), index, game.positions)
                handle.write(data)
                done = (index + 1, done[1] + 1, done[2] + game.positions)
                handle.flush()
                if time.monotonic() - last_sync >= SYNC_INTERVAL:
                    os.fsync(handle.fileno())
                    last_sync = time.monotonic()
                progress.advance(1, positions=game.positions)
            os.fsync(handle.fileno())
        except KeyboardInterrupt as stop:     # Interrupted, or a caller's own Ctrl-C
            signum = getattr(stop, "signum", signal.SIGINT)
            if batch is not None:
                batch.close()                 # the workers stop
            if handle is not None:
                handle.flush()
                os.fsync(handle.fileno())
                if writing is not None and handle.tell() >= writing[0] and done[0] <= writing[1]:
                    done = (writing[1] + 1, done[1] + 1, done[2] + writing[2])
            next_game, played, written = done
            summary = {"games": played, "positions": written,
                       "seconds": time.monotonic() - started, "next_game": next_game}
            stopped = f"datagen: interrupted by {signal.Signals(signum).name}"
            if handle is None:
                message = f"{stopped} before any game was played"
            elif next_game == 0:
                message = (f"{stopped} before the first game was finished; {out} holds "
                           f"no game yet: run the same command again to start it")
            else:
                message = (f"{stopped}: {out} holds games 0..{next_game - 1} ({played} "
                           f"played and {written} positions written now): run the same command "
                           f"again to go on from game {next_game}")
            stream.write(("\n" if progress is not None and progress.tty else "") + message + "\n")
            stream.flush()
            raise DatagenInterrupted(signum, message, summary) from None
        finally:
            if handle is not None:
                handle.close()
    return {"games": done[1], "positions": done[2], "seconds": time.monotonic() - started,
            "next_game": games}


# ---------------------------------------------------------------------------------------------
# Reading

def decode_record(raw: bytes) -> TrainingPosition:
    """The position, score and result of one record.  The FEN has no castling rights (not
    recorded) and counts moves from the game's start position as move 1.

    :raises ValueError: when the bytes are not a record (wrong size, an empty board as in an
        end mark, bad piece code, too many pieces)."""
    if len(raw) != RECORD_BYTES:
        raise ValueError(f"a record has {RECORD_BYTES} bytes, not {len(raw)}")
    occupancy, packed, score, result, flags, halfmove, ep, ply, game = RECORD.unpack(raw)
    if occupancy == 0:
        raise ValueError("an empty board (a game's end mark, not a record)")
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
    """The settings in a data file's header.  :raises DatagenError: if it is not one (of a
    version this build reads)."""
    with open(path, "rb") as handle:
        return _read_header(handle, path)[0]


def read_positions(path) -> Iterator[TrainingPosition]:
    """Every record of a data file's whole games, decoded, streaming.  In a file of version 3 or 4 each
    game is checked against its end mark before its records are given, and an unfinished
    game at the end (a file still being written, or killed) is left out; a version-2 file has
    every whole record given, unchecked.

    :raises DatagenError: when the file is not a data file, or a game in it does not check
        out (FileDamaged, which says where)."""
    with open(path, "rb") as handle:
        _, version = _read_header(handle, path)
        if version >= 3:
            for records, _ in _Games(handle, path):
                for raw in records:
                    yield decode_record(raw)
            return
        while True:
            block = handle.read(RECORD_BYTES * CHUNK_RECORDS)
            for offset in range(0, len(block) - RECORD_BYTES + 1, RECORD_BYTES):
                yield decode_record(block[offset:offset + RECORD_BYTES])
            if len(block) < RECORD_BYTES * CHUNK_RECORDS:
                return


def load_numpy(path):
    """The records of a data file's whole games as a numpy structured array (fields named as
    in the module docstring: occupancy, pieces, score, result, flags, halfmove, ep, ply, game),
    for a trainer: in a file of version 3 or 4 every game checked against its end mark, the end marks
    and an unfinished game at the end left out; in a version-2 file every whole record.
    Needs numpy, which the engine itself does not.

    :raises ImportError: without numpy.  :raises DatagenError: when the file is not a data
        file, or a game in it does not check out (FileDamaged, which says where)."""
    import numpy as np

    dtype = np.dtype([("occupancy", "<u8"), ("pieces", "u1", (16,)), ("score", "<i2"),
                      ("result", "i1"), ("flags", "u1"), ("halfmove", "u1"), ("ep", "u1"),
                      ("ply", "<u2"), ("game", "<u4")])
    assert dtype.itemsize == RECORD_BYTES
    with open(path, "rb") as handle:
        _, version = _read_header(handle, path)
        size = handle.seek(0, os.SEEK_END)
    count = (size - HEADER_BYTES) // RECORD_BYTES
    units = np.fromfile(path, dtype=dtype, count=count, offset=HEADER_BYTES)
    if version < 3:
        return units
    raw = units.view(np.uint8)
    marks = np.flatnonzero(units["occupancy"] == 0)
    checker = _Games(None, path)
    start = 0
    for mark in marks.tolist():
        offset = HEADER_BYTES + mark * RECORD_BYTES
        first = HEADER_BYTES + start * RECORD_BYTES if mark > start else None
        if mark - start > MAX_GAME_RECORDS:
            raise checker.damaged(first, f"{mark - start} records follow without an end mark, "
                                         f"more than a game has")
        unit = raw[mark * RECORD_BYTES:(mark + 1) * RECORD_BYTES].tobytes()
        body = raw[start * RECORD_BYTES:mark * RECORD_BYTES]
        checker.last_game = checker.check_end_mark(offset, unit, first, mark - start, body)
        checker.sound = offset + RECORD_BYTES
        start = mark + 1
    if count - start > MAX_GAME_RECORDS:
        raise checker.damaged(HEADER_BYTES + start * RECORD_BYTES,
                              f"{count - start} records follow without an end mark, more than "
                              f"a game has")
    keep = np.ones(count, dtype=bool)
    keep[marks] = False
    keep[start:] = False              # an unfinished game at the end
    return units[keep]
