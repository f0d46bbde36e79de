"""python-chess helpers shared by the tests and bench/, independent of Scacco: exhaustive mate
searches (oracles) and random play."""
import chess


def can_mate(board: chess.Board, moves: int) -> bool:
    """Can the side to move force checkmate within `moves` of its own moves?"""
    if moves <= 0:
        return False
    candidates = sorted(board.legal_moves, key=lambda m: not board.gives_check(m))
    return any(forces_mate(board, move, moves) for move in candidates)


def forces_mate(board: chess.Board, move: chess.Move, moves: int) -> bool:
    """After `move`, does every defence allow checkmate within `moves` moves (this one counted)?"""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        if moves <= 1 or board.is_game_over():
            return False
        for reply in list(board.legal_moves):
            board.push(reply)
            mate = can_mate(board, moves - 1)
            board.pop()
            if not mate:
                return False
        return True
    finally:
        board.pop()


def play_random(board: chess.Board, rng, plies: int) -> None:
    """Play up to `plies` uniformly random legal moves on board (fewer if the game ends)."""
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            return
        board.push(rng.choice(moves))
