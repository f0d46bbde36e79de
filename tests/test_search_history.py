"""Long game histories and the search: the search threads get only the plies that can still
count for a repetition (since the last capture, pawn move or null move, and none once the
fifty-move rule has drawn the game), and search exactly as from that recent part alone."""
import chess
import pytest

from scacco.engine.board import Board
from scacco.engine.search import Searcher

SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"]     # knights out and back: no capture, no pawn move
# The fifty-move rule in plies: a position with a halfmove clock this high is drawn.
FIFTY_MOVES = 100


def board_after(moves):
    board = Board()
    for move in moves:
        board.push_uci(move)
    return board


def reference(moves) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


@pytest.mark.parametrize("tail", [[], ["e2e4", "e7e5"] + SHUFFLE * 2, ["d2d4", "d7d5"] + SHUFFLE * 30])
def test_threads_get_only_the_plies_that_can_repeat(tail):
    moves = SHUFFLE * 5000 + tail                 # 20,000 plies and more
    searcher = Searcher(16, threads=4)
    result = searcher.search(board_after(moves), depth=3)
    oracle = reference(moves)
    assert chess.Move.from_uci(result.best_move) in oracle.legal_moves
    expected = min(oracle.halfmove_clock, FIFTY_MOVES)
    assert searcher._core.history_plies() == [expected] * 4


@pytest.mark.parametrize("tail", [["e2e4", "e7e5"] + SHUFFLE * 2,
                                  ["e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8", "g1f3"],
                                  SHUFFLE * 26])
def test_a_long_history_searches_as_its_recent_part(tail):
    """The same search (move, score, nodes, every line) from 20,000 plies of history and
    from the plies since the last irreversible move only."""
    def trace(moves):
        result = Searcher(16, threads=1).search(board_after(moves), depth=7)
        return (result.best_move, result.score_cp, result.score_mate, result.nodes,
                [(info.depth, info.score_cp, info.pv) for info in result.lines])
    assert trace(SHUFFLE * 5000 + tail) == trace(tail)
