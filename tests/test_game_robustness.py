"""Odd but legal games through the analysis, the puzzle finder and the themes: null moves in
the main line, Chess960, very long games (the history kept per position), and the messages
of games that cannot be read.

References: python-chess (legality, positions, repetitions, Chess960 games and reading the
annotated PGN back), lichess's accuracy formulas worked by hand, and the old way of keeping
positions (a full copy of the board per position) for the results that must not change.
"""
import io
import json
import random
import re

import chess
import chess.pgn
import pytest

from scacco.engine.review import accuracy as acc
from scacco.engine.review import analysis as analysis_module
from scacco.engine.review.accuracy import Eval
from scacco.engine.review.analysis import (HISTORY_PLIES, AnalysisError, Budget, analyse_game,
                                    analyse_pgn, annotated_pgn, game_positions, game_report)
from scacco.engine.trainer.puzzle_finder import (FinderBudget, FinderError, find_puzzles,
                                         find_puzzles_pgn, verify_material)
from scacco.engine.pgn import read_game
from scacco.engine.trainer.themes import tag_puzzle

from tests.full_history import full_history_walk

SMALL_FINDER = FinderBudget(scan_nodes=1000, pair_nodes=3000, mate_nodes=20000)


def read(text):
    game = read_game(io.StringIO(text))
    assert game is not None and game.errors == [], game.errors if game else None
    return game


# ---------------------------------------------------------------------------------------------
# Null moves

# White passes at move 3 (ply 4): then Black is to move in the same position with White's
# pieces where they were.
PASS_GAME = "1. e4 e5 2. Nf3 Nc6 3. {} Nf6 4. Bc4 Bc5 5. O-O d6 *"


@pytest.mark.parametrize("spelling", ["--", "Z0", "0000"])
def test_a_null_move_is_analysed_as_a_pass(spelling):
    analysis = analyse_pgn(PASS_GAME.format(spelling), Budget(nodes=800), number=3)
    moves = analysis.moves
    reference = chess.Board()
    for move in moves:
        # every best move is legal in python-chess's position before the move (the one after
        # the pass included: it is Black's move there with White's pieces unmoved)
        assert move.best_uci is None or chess.Move.from_uci(move.best_uci) in reference.legal_moves
        reference.push(chess.Move.from_uci(move.uci) if move.uci != "0000" else chess.Move.null())
    passed = moves[4]
    assert (passed.uci, passed.san, passed.white, passed.move_number) == ("0000", "--", True, 3)
    assert passed.judgement is None and passed.accuracy is None and passed.cp_loss is None
    # the position after the pass was searched: it is the one before Black's reply
    assert moves[5].before == passed.after and moves[5].white is False
    assert all(m.accuracy is not None and m.cp_loss is not None for m in moves if m is not passed)
    # White's average loss is over its four real moves only (lichess: the rounded mean)
    white_losses = [m.cp_loss for m in moves if m.white and m is not passed]
    assert len(white_losses) == 4
    assert analysis.white.acpl == round(sum(white_losses) / 4)
    # the outputs stay valid: JSON, the text report, the annotated PGN (python-chess reads the
    # pass back as its null move)
    # the positions kept for the second looks are those python-chess reaches through the pass
    reference = chess.Board()
    for position, move in zip(game_positions(read(PASS_GAME.format(spelling))), moves + [None]):
        assert position.board().fen() == reference.fen()
        if move is not None:
            reference.push(chess.Move.from_uci(move.uci))
    data = json.loads(json.dumps(analysis.to_dict()))
    assert data["moves"][4]["accuracy"] is None and data["moves"][4]["san"] == "--"
    assert "Game 3" in game_report(analysis)
    text = annotated_pgn(analysis)
    assert " -- " in text
    back = chess.pgn.read_game(io.StringIO(text))
    assert back.errors == []
    assert [m.uci() for m in back.mainline_moves()] == [m.uci for m in moves]


def test_game_accuracy_leaves_a_pass_out():
    # tests/test_accuracy.py's four moves by hand: Win% 50, 40, 60, 30, 35.  White's moves are
    # 50->40 (accuracy 63.5826, weight 5) and 60->30; with the second a pass, White's accuracy
    # is its one move's: the weighted and the harmonic mean are both 63.5826.  Black's moves
    # keep theirs (40.0204 at weight 10, 79.8170 at weight 2.5).
    white, black = analysis_module._game_accuracy([50, 40, 60, 30, 35], True, {2})
    assert white == pytest.approx(63.5826, abs=1e-3)
    black_weighted = (40.0204 * 10 + 79.8170 * 2.5) / 12.5
    black_harmonic = 2 / (1 / 40.0204 + 1 / 79.8170)
    assert black == pytest.approx((black_weighted + black_harmonic) / 2, abs=1e-3)
    # without passes it is accuracy.game_accuracy, step for step
    rng = random.Random(5)
    for length in (1, 2, 5, 31, 90):
        values = [rng.uniform(0, 100) for _ in range(length)]
        for white_first in (True, False):
            assert (analysis_module._game_accuracy(values, white_first, set())
                    == acc.game_accuracy(values, white_first))


SCHOLAR = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"
# The same blunder after a pass: not reachable by legal play, so no puzzle.
SCHOLAR_AFTER_A_PASS = "1. e4 e5 2. Bc4 Nc6 3. -- a6 4. Qh5 Nf6 5. Qxf7# 1-0"


def test_no_puzzle_through_a_null_move():
    plain = find_puzzles_pgn(SCHOLAR, SMALL_FINDER).puzzles
    assert [(p.ply, p.kind, p.moves) for p in plain] == [(5, "mate", ["g8f6", "h5f7"])]
    calls = []
    game = read(SCHOLAR_AFTER_A_PASS)
    assert find_puzzles(game, SMALL_FINDER, on_position=lambda: calls.append(1)) == []
    assert len(calls) == len(game.moves)          # progress still counts every position
    # a pass as the "blunder" itself gives no puzzle either (the mate in one stays)
    assert find_puzzles_pgn("1. e4 e5 2. Bc4 Nc6 3. Qh5 -- *", SMALL_FINDER).puzzles == []


def test_themes_refuse_a_null_move_clearly():
    with pytest.raises(ValueError, match="null move"):
        tag_puzzle(chess.STARTING_FEN, ["e2e4", "0000"])


# ---------------------------------------------------------------------------------------------
# Chess960


def random_chess960_games(count, seed, plies=80):
    """Seeded random Chess960 games by python-chess, captures and castling preferred (so that
    blunders and castling rights come up), as PGN texts with [Variant "Chess960"]."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        board.chess960 = True
        while not board.is_game_over() and board.ply() < plies:
            moves = list(board.legal_moves)
            keen = [m for m in moves if board.is_capture(m) or board.is_castling(m)]
            board.push(rng.choice(keen) if keen and rng.random() < 0.6 else rng.choice(moves))
        texts.append(str(chess.pgn.Game.from_board(board)))
    return texts


def test_chess960_games_through_the_finder_the_themes_and_the_analysis():
    found = 0
    for number, text in enumerate(random_chess960_games(16, seed=1), 1):
        for puzzle in find_puzzles_pgn(text, SMALL_FINDER, number).puzzles:
            found += 1
            assert puzzle.chess960
            board = chess.Board(puzzle.fen, chess960=True)      # the line is legal Chess960
            for uci in puzzle.moves:
                assert chess.Move.from_uci(uci) in board.legal_moves, (puzzle, uci)
                board.push_uci(uci)
            assert tag_puzzle(puzzle.fen, puzzle.moves, chess960=True) == \
                tag_puzzle(puzzle.fen, puzzle.moves)
        # every position as the analysis keeps it (a FEN and a few moves) is python-chess's
        game = read(text)
        reference = chess.pgn.read_game(io.StringIO(text)).board()
        for position, node in zip(game_positions(game), game.moves + [None]):
            again = chess.Board(position.board().fen(), chess960=True)
            assert again._transposition_key() == reference._transposition_key()
            if node is not None:
                reference.push_uci(node.uci)
        if number % 4 == 0:
            analysis = analyse_pgn(text, Budget(nodes=300, review=2), number)
            assert analysis.chess960
            back = chess.pgn.read_game(io.StringIO(annotated_pgn(analysis)))
            assert back.errors == [] and back.board().chess960
    assert found > 0            # the games gave the finder something to check


# Chess960 start 0 (python-chess): king on g1, rooks on f1 and h1; White to move.
CHESS960_FEN = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"


def test_verify_material_and_themes_take_a_chess960_fen():
    assert chess.Board(CHESS960_FEN, chess960=True).is_valid()
    moves = ["e2e4", "e7e5", "d1e3"]
    assert verify_material(CHESS960_FEN, moves, SMALL_FINDER) in (True, False)
    assert verify_material(CHESS960_FEN, moves, SMALL_FINDER, chess960=True) in (True, False)
    assert isinstance(tag_puzzle(CHESS960_FEN, moves), list)
    # castling as king takes rook (g1h1: the king stays, the rook goes to f1) in a line
    castling = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNN1KR b Hh - 0 1"
    board = chess.Board(castling, chess960=True)
    board.push_uci("a7a6")
    assert board.is_castling(chess.Move.from_uci("g1h1"))
    assert "castling" in tag_puzzle(castling, ["a7a6", "g1h1"], chess960=True)
    assert "castling" in tag_puzzle(castling, ["a7a6", "g1h1"])


# ---------------------------------------------------------------------------------------------
# Long games: the history kept per position


def shuffle_game(plies):
    """1. e4 e5, then knights to and fro (every position repeats, the halfmove clock grows
    past the cap), a capture and pawn moves in the middle, knights again."""
    cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    half = (plies - 8) // 2
    moves = ["e4", "e5"] + [cycle[i % 4] for i in range(half)]
    moves += ["d4", "exd4", "Qxd4", "Nc6"]
    cycle = ["Qd1", "Nb8", "Qd4", "Nc6"]
    moves += [cycle[i % 4] for i in range(plies - len(moves) - 2)] + ["a3", "a6"]
    return read(" ".join(moves) + " *")


def reference_repetitions(game):
    """python-chess: for each position of the main line, how often it occurred before since
    the last capture or pawn move, and its FEN."""
    board = game.board()
    reference = chess.Board(game.fen)
    keys, out = [reference._transposition_key()], []
    out.append((0, reference.fen()))
    for node in game.moves:
        reference.push_uci(node.uci)
        key = reference._transposition_key()
        if reference.halfmove_clock == 0:
            keys = []
        out.append((keys.count(key), reference.fen()))
        keys.append(key)
    del board
    return out


def test_a_long_games_positions_keep_a_bounded_history():
    game = shuffle_game(2000)
    positions = game_positions(game)
    assert len(positions) == 2001
    reference = reference_repetitions(game)
    longest = 0
    for position, (repeated, fen) in zip(positions, reference):
        assert len(position.moves) <= HISTORY_PLIES
        longest = max(longest, len(position.moves))
        board = position.board()
        assert board.ply == len(position.moves) and board.fen() == fen
        clock = int(fen.split()[4])
        if position.ply:
            assert len(position.moves) >= 1          # the move that led here
        if clock < HISTORY_PLIES:
            # the whole reversible stretch is there: repetitions as python-chess counts them
            assert len(position.moves) == min(clock + 1, position.ply)
            assert board.repetitions() == repeated
    assert longest == HISTORY_PLIES


def test_the_analysis_searches_boards_with_a_bounded_history(monkeypatch):
    seen = []

    def fake(searcher, board, budget, limits=None):
        seen.append(board.ply)
        return Eval(cp=0), None, [], 0

    monkeypatch.setattr(analysis_module, "evaluate_position", fake)
    analysis = analyse_game(shuffle_game(2000), Budget(nodes=1, review=1))
    assert analysis.plies == 2000 and len(seen) == 2001
    assert max(seen) <= 2 * HISTORY_PLIES + 1


@pytest.mark.parametrize("text", [
    None,    # shuffle_game(420): repetitions, a halfmove clock past the cap, captures
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 "
    "Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 "
    "17. dxe5 Nxe4 18. Bxe7 Qxe7 19. exd6 Qf6 20. Nbd2 Nxd6 *",
])
def test_results_are_those_of_full_copies(monkeypatch, text):
    game = shuffle_game(420) if text is None else read(text)
    budget = Budget(nodes=400)                      # the second and third looks included
    new = analyse_game(game, budget).to_dict()
    monkeypatch.setattr(analysis_module, "_walk", full_history_walk)
    old = analyse_game(game, budget).to_dict()
    assert new == old


# ---------------------------------------------------------------------------------------------
# Messages name the game once, with its number in the file


def test_errors_name_the_game_once():
    text = "1. e4 e5 2. Ke3 Nc6 *"
    with pytest.raises(AnalysisError) as raised:
        analyse_pgn(text, Budget(nodes=100), number=7)
    assert str(raised.value).startswith("game 7, move 2.: illegal move 'Ke3'")
    assert len(re.findall(r"game \d", str(raised.value))) == 1
    with pytest.raises(FinderError) as raised:
        find_puzzles_pgn(text, SMALL_FINDER, number=7)
    assert str(raised.value).startswith("game 7, move 2.: illegal move 'Ke3'")
    assert len(re.findall(r"game \d", str(raised.value))) == 1
