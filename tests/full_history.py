"""The reference for the analysis's bounded history: every position kept as a copy of the board
with the whole game on it, in place of engine.review.analysis's GamePosition (at most
HISTORY_PLIES of history).  tests/test_game_robustness.py compares the results of the two,
bench/analysis_memory.py their memory; swap it in with
`engine.review.analysis._walk = full_history_walk`.
"""


class FullCopy:
    """A position kept as a copy of the board, with the whole game on it."""

    def __init__(self, board):
        self._board = board.copy()
        self.turn = bool(board.turn)
        self.fullmove_number = board.fullmove_number

    def board(self):
        return self._board.copy()


def full_history_walk(game, board):
    """engine.review.analysis._walk's (board, position) pairs, each position a FullCopy."""
    for index in range(len(game.moves) + 1):
        yield board, FullCopy(board)
        if index < len(game.moves):
            board.push_move(game.moves[index].uci)
