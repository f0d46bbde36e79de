"""python-chess's Syzygy reader as the tests' oracle: behind the drills' prober interface, as
the verdicts of a position and of a move under the fifty-move rule, and the module fixtures
`oracle` (python-chess's tables) and `tablebase` (ours) on the shared test tables.

engine/trainer/drills.py reads the tables through any object with probe_wdl(board) and
probe_dtz(board) (our Board in, None for a position the tables do not hold).  At run time that
is Scacco's own reader; here it is `chess.syzygy`, which the package never imports.
"""
from typing import Optional

import chess
import chess.syzygy
import pytest

from tests.shared import shared_dir


def syzygy_dir():
    """The shared test tables (every 3-4 piece material and five KR..vKR 5-piece ones)."""
    return shared_dir() / "data" / "syzygy"


class SyzygyOracle:
    """probe_wdl and probe_dtz of python-chess, taking Scacco's Board (through its FEN)."""

    def __init__(self, path=None) -> None:
        self.tables = chess.syzygy.open_tablebase(str(path or syzygy_dir()))
        self.probes = 0

    def close(self) -> None:
        self.tables.close()

    @staticmethod
    def chess_board(board) -> chess.Board:
        return chess.Board(board.fen())

    def probe_wdl(self, board) -> Optional[int]:
        self.probes += 1
        try:
            return self.tables.probe_wdl(self.chess_board(board))
        except KeyError:                      # MissingTableError is a KeyError
            return None

    def probe_dtz(self, board) -> Optional[int]:
        self.probes += 1
        try:
            return self.tables.probe_dtz(self.chess_board(board))
        except KeyError:
            return None


@pytest.fixture(scope="module", name="oracle")
def oracle_tables():
    """python-chess's reader on the shared tables (import it into a test module to use it)."""
    tables = chess.syzygy.open_tablebase(str(syzygy_dir()))
    yield tables
    tables.close()


@pytest.fixture(scope="module", name="tablebase")
def our_tablebase():
    """Scacco's reader on the shared tables."""
    from scacco.engine.tablebase import Tablebase
    return Tablebase(str(syzygy_dir()))


def mover_result(oracle, board: chess.Board) -> int:
    """The side to move's result under the fifty-move rule by python-chess's tables `oracle`
    (1, 0, -1): cursed wins and blessed losses are draws, and so is a win whose zeroing move
    no longer fits in the plies the halfmove clock leaves."""
    if board.is_checkmate():
        return -1
    if board.is_stalemate():
        return 0
    wdl, dtz = oracle.probe_wdl(board), oracle.probe_dtz(board)
    if abs(wdl) < 2 or abs(dtz) + board.halfmove_clock > 100:
        return 0
    return 1 if wdl > 0 else -1


def move_result(oracle, board: chess.Board, move: chess.Move) -> int:
    """The mover's result after `move` by the oracle (a checkmate is a win); board unchanged."""
    board.push(move)
    try:
        return -mover_result(oracle, board)
    finally:
        board.pop()
