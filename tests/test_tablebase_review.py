"""Analysis and hints with Syzygy tablebases, python-chess's `chess.syzygy` as the oracle.

Short games into KQvKR, KRPvKR and KPvK endings are built move by move from the oracle's
answers: best play for both sides, one winning move that is not the fastest, and one move
that throws the win away.  The analysis must give every position in the tables the oracle's
verdict, judge the thrown-away win a blunder with a move that kept it, and leave the slower
win unjudged; hints in table positions must keep the oracle's best result; and without tables
the analysis must not change.
"""
import io

import chess
import chess.pgn
import pytest

from scacco.engine.board import Board
from scacco.engine.pgn import read_game
from scacco.engine.review.analysis import (TABLEBASE_LOST_DRAW, TABLEBASE_LOST_WIN,
                                           TABLEBASE_WIN_CP, Budget, analyse_game,
                                           annotated_pgn, game_report)
from scacco.engine.search import Searcher
from scacco.engine.trainer.hints import game_hint
from tests.sample_games import SHORT
from tests.syzygy_oracle import (move_result, mover_result, oracle_tables,  # noqa: F401
                                 our_tablebase, syzygy_dir)

BUDGET = Budget(nodes=2000, review=1)
# Starting positions (the oracle must call each a win for the side to move) and the ply at
# which the winner throws the win away; the ply before it, the winner plays its slowest win.
ENDINGS = {
    "KQvKR": ("8/8/8/4k3/8/8/3QK3/7r w - - 0 1", 4),
    "KRPvKR": ("1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1", 4),
    "KPvK": ("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", 2),
}


def move_dtz(oracle, board: chess.Board, move: chess.Move) -> int:
    """The oracle's plies to zeroing after the move, from the mover's view (0 when it zeroes)."""
    board.push(move)
    try:
        return 0 if board.halfmove_clock == 0 or board.is_checkmate() else -oracle.probe_dtz(board)
    finally:
        board.pop()


def best_move(oracle, board: chess.Board) -> chess.Move:
    """Best play by the oracle: the best result, then the fastest win or longest resistance."""
    def key(move):
        result = move_result(oracle, board, move)
        dtz = move_dtz(oracle, board, move)
        return (-result, dtz if result > 0 else -abs(dtz) if result < 0 else 0)
    return min(board.legal_moves, key=lambda m: (key(m), m.uci()))


def scripted_game(oracle, fen: str, throw_ply: int):
    """(PGN text, ply of the slower win, ply of the thrown win, python-chess board at the
    end) of a game: best play, except the winner's slowest winning move at throw_ply - 2 and
    a move that spoils the win at throw_ply, then two more plies of best play."""
    board = chess.Board(fen)
    assert mover_result(oracle, board) == 1, "the ending must start as a win for the side to move"
    game = chess.pgn.Game()
    game.setup(board)
    node = game
    for ply in range(throw_ply + 3):
        if not any(True for _ in board.legal_moves):
            break
        if ply == throw_ply - 2:
            wins = [m for m in board.legal_moves if move_result(oracle, board, m) == 1]
            move = max(wins, key=lambda m: (move_dtz(oracle, board, m), m.uci()))
        elif ply == throw_ply:
            spoil = [m for m in board.legal_moves if move_result(oracle, board, m) < 1]
            assert spoil, "a move that throws the win away must exist"
            move = max(spoil, key=lambda m: (move_result(oracle, board, m), m.uci()))
        else:
            move = best_move(oracle, board)
        node = node.add_variation(move)
        board.push(move)
    return str(game), throw_ply - 2, throw_ply, board


def expected_words(oracle, board: chess.Board) -> str:
    if board.is_stalemate() or board.is_checkmate():
        result = -1 if board.is_checkmate() else 0
    else:
        result = mover_result(oracle, board)
    white = result if board.turn == chess.WHITE else -result
    return {1: "White wins", 0: "draw", -1: "Black wins"}[white]


@pytest.mark.parametrize("material", sorted(ENDINGS))
def test_a_thrown_win_is_a_blunder_and_table_evals_are_the_oracles(material, oracle, tablebase):
    fen, throw_ply = ENDINGS[material]
    text, slow_ply, thrown_ply, _ = scripted_game(oracle, fen, throw_ply)
    analysis = analyse_game(read_game(io.StringIO(text)), BUDGET, tablebase=tablebase)
    board = chess.Board(fen)
    for move in analysis.moves:
        before = board.copy()
        board.push_uci(move.uci)
        # every evaluation is the oracle's verdict
        for evaluation, position in ((move.before, before), (move.after, board)):
            words = expected_words(oracle, position)
            assert evaluation.tablebase == words, (material, position.fen())
            if words == "draw":
                assert (evaluation.cp, evaluation.mate) == (0, None)
            elif evaluation.mate is None:
                assert abs(evaluation.cp) == TABLEBASE_WIN_CP
                assert (evaluation.cp > 0) == (words == "White wins")
            else:
                assert evaluation.mate_sign == (1 if words == "White wins" else -1)
        # the engine's best move keeps the oracle's best result
        best = chess.Move.from_uci(move.best_uci)
        assert move_result(oracle, before, best) == max(
            move_result(oracle, before, m) for m in before.legal_moves)
        if move.ply == thrown_ply:
            lost = move_result(oracle, before, chess.Move.from_uci(move.uci))
            assert move.judgement == "blunder"
            assert move.mate_sequence == (TABLEBASE_LOST_WIN if lost < 1 else TABLEBASE_LOST_DRAW)
            assert move_result(oracle, before, best) == 1
            assert move.mate_sequence in move.advice() and move.best_san in move.advice()
        elif (move_result(oracle, before, chess.Move.from_uci(move.uci))
              == mover_result(oracle, before)):
            assert move.judgement is None, (material, move.ply, move.san)
    assert analysis.moves[slow_ply].judgement is None
    assert analysis.nodes == 0, "positions the tables decide are not searched"
    report = game_report(analysis)
    assert TABLEBASE_LOST_WIN in report
    pgn = annotated_pgn(analysis)
    assert "Tablebase: " in pgn
    # python-chess reads the %eval of every move as the tables' verdict
    reread = chess.pgn.read_game(io.StringIO(pgn))
    for node, move in zip(reread.mainline(), analysis.moves):
        score = node.eval().white()
        if move.after.mate is not None:
            assert score.mate() == move.after.mate
        else:
            assert score.score() == move.after.cp


def test_a_draw_thrown_away_is_a_lost_draw(oracle, tablebase):
    # KRvKR: Black to move in a drawn position plays a move that loses (the oracle's choice)
    board = chess.Board("7r/8/8/3k4/8/8/R7/3K4 b - - 0 1")
    assert board.is_valid()
    assert mover_result(oracle, board) == 0
    losing = [m for m in board.legal_moves if move_result(oracle, board, m) < 0]
    assert losing
    move = min(losing, key=lambda m: m.uci())
    game = chess.pgn.Game()
    game.setup(board)
    game.add_variation(move)
    analysis = analyse_game(read_game(io.StringIO(str(game))), BUDGET, tablebase=tablebase)
    (judged,) = analysis.moves
    assert judged.judgement == "blunder" and judged.mate_sequence == TABLEBASE_LOST_DRAW
    assert move_result(oracle, board, chess.Move.from_uci(judged.best_uci)) == 0
    assert judged.before.tablebase == "draw" and judged.before.cp == 0


def test_hints_keep_the_oracles_best_result(oracle, tablebase):
    searcher = Searcher(16)
    for material, (fen, throw_ply) in sorted(ENDINGS.items()):
        _, _, _, end = scripted_game(oracle, fen, throw_ply)
        for position in (chess.Board(fen), end):
            if not any(True for _ in position.legal_moves):
                continue
            hint = game_hint(Board(position.fen()), tablebase=tablebase, searcher=searcher,
                             nodes=2000)
            best = max(move_result(oracle, position, m) for m in position.legal_moves)
            assert move_result(oracle, position, chess.Move.from_uci(hint.move)) == best, \
                (material, position.fen(), hint)
            if hint.mate_in is None:
                assert "tablebases" in hint.why


def test_without_tables_the_analysis_is_unchanged(tablebase):
    # a game no table holds: the tables change nothing, and no tablebase field appears
    game = read_game(io.StringIO(SHORT))
    plain = analyse_game(game, BUDGET)
    with_tables = analyse_game(read_game(io.StringIO(SHORT)), BUDGET, tablebase=tablebase)
    assert plain.to_dict() == with_tables.to_dict()
    assert annotated_pgn(plain) == annotated_pgn(with_tables)
    assert "tablebase" not in repr(plain.to_dict())
    assert "Tablebase" not in annotated_pgn(plain)


def test_command_line_analyse_and_hint_with_tables(oracle, tmp_path, capsys, monkeypatch):
    from scacco.uci.__main__ import main
    monkeypatch.delenv("SCACCO_SYZYGY", raising=False)
    fen, throw_ply = ENDINGS["KQvKR"]
    text, _, thrown_ply, _ = scripted_game(oracle, fen, throw_ply)
    games = tmp_path / "games.pgn"
    games.write_text(text)
    out = tmp_path / "annotated.pgn"
    assert main(["analyse", str(games), "--nodes", "500", "--jobs", "1",
                 "--syzygy-path", str(syzygy_dir()), "--out", str(out)]) == 0
    assert TABLEBASE_LOST_WIN in capsys.readouterr().out
    assert "Tablebase: White wins." in out.read_text()
    assert main(["hint", "--fen", fen, "--syzygy-path", str(syzygy_dir())]) == 0
    san, why = capsys.readouterr().out.splitlines()
    board = chess.Board(fen)
    assert move_result(oracle, board, board.parse_san(san)) == 1 and "tablebases" in why


@pytest.mark.parametrize("command", ["analyse", "hint"])
@pytest.mark.parametrize("path, message", [("/no/such/folder", "no such folder"),
                                           ("", "names no folder"),
                                           ("tables-empty", "no Syzygy tables")])
def test_a_bad_syzygy_path_is_refused(command, path, message, tmp_path, capsys, monkeypatch):
    from scacco.uci.__main__ import main
    monkeypatch.delenv("SCACCO_SYZYGY", raising=False)
    if path == "tables-empty":
        path = str(tmp_path)
    games = tmp_path / "games.pgn"
    games.write_text(SHORT)
    out = tmp_path / "out.pgn"
    argv = (["analyse", str(games), "--jobs", "1", "--out", str(out)] if command == "analyse"
            else ["hint", "--fen", ENDINGS["KPvK"][0]])
    with pytest.raises(SystemExit) as stop:
        main(argv + ["--syzygy-path", path])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert not out.exists()


def test_the_environment_names_the_default_tables(oracle, capsys, monkeypatch):
    from scacco.uci.__main__ import main
    monkeypatch.setenv("SCACCO_SYZYGY", str(syzygy_dir()))
    fen = ENDINGS["KPvK"][0]
    assert main(["hint", "--fen", fen]) == 0
    san, why = capsys.readouterr().out.splitlines()
    board = chess.Board(fen)
    assert move_result(oracle, board, board.parse_san(san)) == 1 and "tablebases" in why


def test_the_fifty_move_rule_turns_a_late_win_into_a_draw(oracle, tablebase):
    # the oracle's DTZ decides: a win whose zeroing move still fits in the plies the halfmove
    # clock leaves is a win, one ply later it is a draw
    from scacco.engine.review.analysis import tablebase_verdict
    fen = ENDINGS["KQvKR"][0]
    dtz = oracle.probe_dtz(chess.Board(fen))
    assert dtz > 0
    for clock, words in ((100 - dtz, "White wins"), (101 - dtz, "draw")):
        late = fen.replace(" 0 1", f" {clock} 60")
        assert expected_words(oracle, chess.Board(late)) == words
        evaluation, best, _ = tablebase_verdict(tablebase, Board(late))
        assert evaluation.tablebase == words
        assert evaluation.cp == (TABLEBASE_WIN_CP if words == "White wins" else 0)
