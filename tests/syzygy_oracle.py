"""python-chess's Syzygy reader behind the drills' prober interface: the tests' oracle.

engine/trainer/drills.py reads the tables through any object with probe_wdl(board) and
probe_dtz(board) (our Board in, None for a position the tables do not hold).  At run time that
is Scacco's own reader; here it is `chess.syzygy`, which the package never imports.
"""
from typing import Optional

import chess
import chess.syzygy

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
