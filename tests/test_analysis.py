"""Game analysis (engine/review/analysis.py) and `scacco analyse`, checked with python-chess.

Small node budgets keep these fast.  What is asserted comes from references: python-chess
(legality, SAN, reading the annotated PGN back), lichess's formulas worked by hand on the
evaluations the analysis reports, and chess facts (a move that allows mate in one).
"""
import io
import json
import math
import os
import sys

import chess
import chess.pgn
import pytest

from scacco.engine.review import accuracy as acc
from scacco.engine.review import analysis as analysis_module
from scacco.engine.review.analysis import (REVIEW_BORDER, Budget, analyse_game, analyse_pgn, annotated_pgn,
                                    game_report)
from scacco.engine.batch import Failure, run_local
from scacco.engine.pgn import read_game
from scacco.engine.search import Searcher
from scacco.uci.__main__ import main
from tests.sample_games import SCHOLAR, SHORT

NODES = 3000

# The Italian trap played out badly for White: 4. Nxe5? and 5. Nxf7?? lose material to the queen,
# and 7. Be2?? allows mate in one (Nf3#, python-chess checks it): moves judged at any budget,
# by the winning-chance rule and by a mate rule.
TRAP = """[Event "trap"]
[White "G"]
[Black "H"]
[Result "*"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 *
"""

BAD = """[Event "bad"]
[White "E"]
[Black "F"]
[Result "*"]

1. e4 e5 2. Ke3 Nc6 *
"""


def read(text):
    return read_game(io.StringIO(text))


def main_line_fens(game):
    """The FEN of every position of the game's main line (python-chess), the start first."""
    board = chess.Board(game.fen, chess960=game.chess960)
    fens = [board.fen()]
    for move in game.moves:
        board.push_uci(move.uci)
        fens.append(board.fen())
    return fens


def winning_chances(cp):
    # by hand, from lichess's published formula
    return 2 / (1 + math.exp(-0.00368208 * cp)) - 1


def test_walking_into_mate_in_one_is_a_blunder():
    analysis = analyse_game(read(SCHOLAR), Budget(nodes=NODES))
    moves = analysis.moves
    assert [m.san for m in moves] == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]
    nf6 = moves[5]
    # after 3... Nf6 White mates in one (python-chess: Qxf7 is mate)
    board = chess.Board()
    for m in moves[:6]:
        board.push_uci(m.uci)
    assert board.is_checkmate() is False
    board.push_uci("h5f7")
    assert board.is_checkmate()
    assert nf6.after.mate == 1
    assert nf6.judgement == acc.BLUNDER and nf6.mate_sequence == acc.MATE_CREATED
    assert nf6.advice().startswith("Checkmate is now unavoidable.")
    # the final position is mate on the board: White won; the mating move is not judged
    assert moves[6].after.mate == 0 and moves[6].after.winner is True
    assert moves[6].judgement is None
    assert analysis.black.blunders == 1
    assert "3... Nf6?? (#1) Best: " in game_report(analysis)


def ceiled_cp(evaluation):
    # White's centipawns ceiled to +-1000, a mate (or a mate on the board) as the ceiling
    if evaluation.mate is not None:
        side = evaluation.mate > 0 if evaluation.mate else evaluation.winner
        return 1000 if side else -1000
    return max(-1000, min(1000, evaluation.cp))


def lichess_win_percent(evaluation):
    # lichess's WinPercent.fromCentiPawns on the ceiled centipawns (fromMate: the ceiling)
    return 50 + 50 * winning_chances(ceiled_cp(evaluation))


def lichess_judgement(before, after, white):
    """lichess's Advice on two White's-view evaluations: CpAdvice when both are centipawns (the
    mover's drop in winning chances, raw centipawns, against 0.3 / 0.2 / 0.1), else MateAdvice
    (a mate walked into, softened below -700 and -999 before; a mate of the mover's lost,
    softened above +700 and +999 after), as (judgement, mate sequence)."""
    def mover(evaluation):
        # (centipawns or None, mate sign or None) from the mover's view; a mate on the board
        # counts for its winner
        if evaluation.mate is None:
            return (evaluation.cp if white else -evaluation.cp), None
        side = (evaluation.mate > 0) if evaluation.mate else evaluation.winner
        return None, (1 if side == white else -1)

    (cp_before, mate_before), (cp_after, mate_after) = mover(before), mover(after)
    if mate_before is None and mate_after is None:
        fall = winning_chances(cp_before) - winning_chances(cp_after)
        return ("blunder" if fall >= 0.3 else "mistake" if fall >= 0.2 else
                "inaccuracy" if fall >= 0.1 else None), None
    if mate_before is None and mate_after == -1:
        prev = cp_before
        return ("inaccuracy" if prev < -999 else "mistake" if prev < -700 else "blunder",
                acc.MATE_CREATED)
    if mate_before == 1 and mate_after != 1:
        nxt = cp_after if cp_after is not None else 0
        return ("inaccuracy" if nxt > 999 else "mistake" if nxt > 700 else "blunder",
                acc.MATE_LOST)
    return None, None


def test_facts_per_move_agree_with_python_chess_and_the_formulas():
    analysis = analyse_game(read(TRAP), Budget(nodes=NODES))
    board = chess.Board()
    assert len(analysis.moves) == 13
    judged = []
    for index, move in enumerate(analysis.moves):
        assert move.ply == index and move.white == (board.turn == chess.WHITE)
        assert move.move_number == board.fullmove_number
        assert move.san == board.san(chess.Move.from_uci(move.uci))
        # the engine's line is legal from the position before the move, SAN as python-chess
        walker = board.copy()
        for san in move.best_line:
            walker.push_san(san)
        assert move.best_san == move.best_line[0]
        # the evaluation after a move is the one before the next
        if index + 1 < len(analysis.moves):
            assert analysis.moves[index + 1].before == move.after
        # Win% and accuracy by hand from the recorded evaluations (White's view)
        win_before, win_after = lichess_win_percent(move.before), lichess_win_percent(move.after)
        assert move.win_before == pytest.approx(win_before, abs=0.01)
        assert move.win_after == pytest.approx(win_after, abs=0.01)
        mine = (lambda w: w) if move.white else (lambda w: 100 - w)
        drop = mine(win_before) - mine(win_after)
        expected = 100.0 if drop <= 0 else max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))
        assert move.accuracy == pytest.approx(expected, abs=0.05)
        # the judgement by lichess's rules; the engine's own choice is not judged
        expected_verdict = ((None, None) if move.uci == move.best_uci else
                            lichess_judgement(move.before, move.after, move.white))
        assert (move.judgement, move.mate_sequence) == expected_verdict, move.san
        if move.judgement is not None:
            judged.append((move.san, move.judgement, move.mate_sequence))
        # the centipawn loss on the ceiled evaluations, mover's view
        before, after = ceiled_cp(move.before), ceiled_cp(move.after)
        loss = before - after if move.white else after - before
        assert move.cp_loss == max(0, min(1000, loss))
        board.push_uci(move.uci)
    # moves were judged, by both rules: 7. Be2 walks into a mate in one
    assert any(sequence is None for _, _, sequence in judged)
    assert ("Be2", acc.BLUNDER, acc.MATE_CREATED) in judged
    board.push_san("Nf3")
    assert board.is_checkmate()
    white_losses = [m.cp_loss for m in analysis.moves if m.white]
    assert analysis.white.acpl == round(sum(white_losses) / len(white_losses))


class ScriptedSearcher:
    """Stands in for Searcher: every position scores 0, except the ones in `scores`, which
    map a FEN to (score at the budget, score at more than the budget), the side to move's
    view: centipawns, or ("mate", n) for mate in n; it records the nodes asked for each
    position."""

    network = None

    def __init__(self, scores):
        self.scores, self.calls = scores, []

    def clear(self):
        pass

    def search(self, board, *, nodes):
        from scacco.engine.search import SearchResult
        fen = board.fen()
        self.calls.append((fen, nodes))
        scores = self.scores.get(fen, (0, 0))
        # at the budget, at 4x, at 16x (the last one given also for deeper looks)
        score = scores[min(len(scores) - 1, {NODES: 0, 4 * NODES: 1}.get(nodes, 2))]
        mate = score[1] if isinstance(score, tuple) else None
        return SearchResult(best_move="a1a1", ponder_move=None,
                            score_cp=None if mate else normal(score),
                            score_mate=mate, pv=[], nodes=nodes)


def long_game(plies=80):
    """A legal game of `plies` moves (python-chess picks them by a fixed rule), as PGN, and
    the FEN of every position."""
    board = chess.Board()
    fens, sans = [board.fen()], []
    for ply in range(plies):
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        move = moves[(7 * ply + 3) % len(moves)]
        sans.append(board.san(move))
        board.push(move)
        fens.append(board.fen())
    assert not board.is_game_over()
    body = " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + san for i, san in enumerate(sans))
    return read('[Event "long"]\n[Result "*"]\n\n' + body + " *\n"), fens


# The scripted searcher's raw centipawns -> the normalised ones it reports, as Searcher
# reports its scores normalised (a fixed factor here, so the numbers can be worked by hand).
SCRIPT_SCALE = 100 / 128.3


def normal(cp):
    return round(cp * SCRIPT_SCALE)


def cp_for_chances(target):
    """The smallest raw centipawns whose normalised winning chances reach target."""
    return next(cp for cp in range(0, 3000) if winning_chances(normal(cp)) >= target)


def judgement_of(fall):
    return ("blunder" if fall >= 0.3 else "mistake" if fall >= 0.2 else
            "inaccuracy" if fall >= 0.1 else None)


def drops(view):
    # the mover's drop at ply k: its own view before (view[k]) minus after (-view[k + 1])
    return [winning_chances(normal(view[k])) - winning_chances(-normal(view[k + 1]))
            for k in range(len(view) - 1)]


def test_second_look_searches_around_drops_near_the_lines_again_and_judges_on_it():
    game, fens = long_game()
    a, b = cp_for_chances(0.26), cp_for_chances(0.17)
    # (first look, 4x), the side to move's centipawns; every other position is 0.  Drops of
    # 0.26 (into and out of position 5) and 0.17 (position 10) are in the band 0.15..0.5;
    # 30 cp (position 12) is below it, and +600 (position 20, 0.6) above it
    scores = {fens[5]: (a, 20), fens[10]: (b, 400), fens[12]: (30, 400), fens[20]: (600, 0)}
    first = [scores.get(fen, (0, 0))[0] for fen in fens]
    first_drops = drops(first)
    assert [k for k, d in enumerate(first_drops) if 0.15 <= d < 0.5] == [4, 5, 9, 10]
    assert first_drops[19] >= 0.5 and 0 < first_drops[11] < 0.15
    for review in (1, 4):
        searcher = ScriptedSearcher(scores)
        analysis = analyse_game(game, Budget(nodes=NODES, review=review), searcher=searcher)
        looked_again = [fens.index(fen) for fen, nodes in searcher.calls if nodes != NODES]
        assert analysis.reviewed == len(looked_again)
        if review == 1:
            assert looked_again == []
            expected = first_drops
        else:
            # the first pass, then the moves nearest a line first: 0.17 is 0.03 from the
            # mistake line, 0.26 is 0.04 from either; each position once, at 4x
            assert [n for _, n in searcher.calls] == [NODES] * 81 + [4 * NODES] * 6
            assert looked_again == [9, 10, 11, 4, 5, 6]
            final = [scores.get(fen, (0, 0))[1] if k in looked_again else first[k]
                     for k, fen in enumerate(fens)]
            expected = drops(final)
            # 400 cp deeper is a blunder after ply 9, and the 0.26 drop was not one at all
            assert analysis.moves[9].judgement == "blunder" and analysis.moves[4].judgement is None
        for move in analysis.moves:
            assert move.judgement == judgement_of(expected[move.ply]), (review, move.ply)
        if review == 4:
            # the deeper evaluation is the one reported on both sides of the position
            assert analysis.moves[4].after.cp == -normal(20) == analysis.moves[5].before.cp


def test_third_look_at_16x_for_drops_near_the_blunder_line():
    game, fens = long_game()
    # after ply 6 the side to move is at 0.40 winning chances on the first look, at X just
    # above the blunder line (within REVIEW_BORDER of 0.3) at 4x, and +100 at 16x
    x = cp_for_chances(0.31)
    scores = {fens[7]: (cp_for_chances(0.40), x, 100)}
    searcher = ScriptedSearcher(scores)
    analysis = analyse_game(game, Budget(nodes=NODES, review=4), searcher=searcher)
    deeper = [(fens.index(fen), nodes // NODES) for fen, nodes in searcher.calls if nodes != NODES]
    # second look: plies 6 and 7 (to and from 0.40): positions 6, 7, 8 at 4x; then both are
    # near the blunder line: 6, 7, 8 at 16x (60 searches' worth, within 81)
    assert abs(winning_chances(normal(x)) - 0.3) < REVIEW_BORDER
    assert deeper == [(6, 4), (7, 4), (8, 4), (6, 16), (7, 16), (8, 16)]
    assert analysis.reviewed == 3
    assert analysis.moves[6].after.cp == -normal(100)
    assert analysis.moves[6].judgement == judgement_of(winning_chances(normal(100)))


def test_the_looks_of_a_game_cost_at_most_their_share_of_its_first_pass(monkeypatch):
    # the allowance is REVIEW_SHARE times the first pass; at one first pass, the numbers below
    monkeypatch.setattr(analysis_module, "REVIEW_SHARE", 1.0)
    game, fens = long_game()
    # thirteen positions whose drops (into and out of them) lie in the band, each a little
    # farther from the lines than the one before: 0.451, 0.454, ... 0.487
    spots = list(range(3, 79, 6))
    scores = {fens[p]: (cp_for_chances(0.451 + 0.003 * k),) * 3 for k, p in enumerate(spots)}
    assert REVIEW_BORDER <= 0.15
    searcher = ScriptedSearcher(scores)
    analysis = analyse_game(game, Budget(nodes=NODES, review=4), searcher=searcher)
    extra = [(fens.index(fen), nodes // NODES) for fen, nodes in searcher.calls if nodes != NODES]
    # no third look (the drops stay more than REVIEW_BORDER from a line); at most 81
    # searches' worth
    assert all(factor == 4 for _, factor in extra)
    assert 4 * len(extra) <= 81 < 4 * (len(extra) + 3)
    looked = {p for p, _ in extra}
    # the nearest a line were looked at, the farthest were not
    assert {spots[0], spots[0] - 1, spots[0] + 1} <= looked
    assert spots[-1] not in looked and spots[-2] not in looked
    assert analysis.reviewed == len(looked) == len(extra)


def test_second_look_covers_moves_judged_by_the_mate_rules(monkeypatch):
    # at an allowance of one first pass, this short game affords the second looks only
    monkeypatch.setattr(analysis_module, "REVIEW_SHARE", 1.0)
    game = read(SHORT)
    fens = main_line_fens(game)
    # before ply 12 its mover is -800 (a winning-chance drop from there to being mated is
    # under 0.15), and after it the side to move mates in 2 on the first look only
    scores = {fens[12]: (-800, -800), fens[13]: (("mate", 2), 50)}
    fall = winning_chances(-normal(800)) - winning_chances(-1000)
    assert 0 < fall < 0.15
    first = analyse_game(game, Budget(nodes=NODES, review=1), searcher=ScriptedSearcher(scores))
    # lichess's MateAdvice: walking into a mate from -7.00 (normalised) or better is a blunder
    assert -700 <= -normal(800)
    assert first.moves[12].judgement == acc.BLUNDER and first.moves[12].mate_sequence == acc.MATE_CREATED
    searcher = ScriptedSearcher(scores)
    second = analyse_game(game, Budget(nodes=NODES, review=4), searcher=searcher)
    # ply 12 (the mate walked into) and ply 13 (the mate let go, to 0) are looked at again
    assert [fens.index(fen) for fen, nodes in searcher.calls if nodes != NODES] == [12, 13, 14]
    assert second.moves[12].after.cp == -normal(50) and second.moves[12].mate_sequence is None


def test_a_mate_rule_still_judging_after_the_second_look_gets_a_third():
    game, fens = long_game()
    # the mover of ply 12 is at -8.00 (raw) and walks into a mate in 2 that the 4x look
    # still sees; at 16x there is no mate (+50)
    scores = {fens[12]: (-800,), fens[13]: (("mate", 2), ("mate", 2), 50)}
    searcher = ScriptedSearcher(scores)
    analysis = analyse_game(game, Budget(nodes=NODES, review=4), searcher=searcher)
    deeper = [(fens.index(fen), nodes // NODES) for fen, nodes in searcher.calls if nodes != NODES]
    assert deeper == [(12, 4), (13, 4), (14, 4), (12, 16), (13, 16), (14, 16)]
    assert analysis.moves[12].after.cp == -normal(50)
    assert analysis.moves[12].mate_sequence is None


class CountingSearcher(Searcher):
    """A Searcher that counts the searches asked of it."""

    searches = 0

    def search(self, *args, **kwargs):
        self.searches += 1
        return super().search(*args, **kwargs)


def test_a_reused_searcher_gives_the_results_of_a_fresh_one():
    # Each game analysed with a searcher of its own, then all of them, and the first again,
    # with one searcher that has searched the games before (its table and histories are
    # cleared at a game's start): the same results, and that one searcher did every search.
    fresh = {name: analyse_game(read(text), Budget(nodes=NODES)).to_dict()
             for name, text in (("short", SHORT), ("trap", TRAP), ("scholar", SCHOLAR))}
    searcher = CountingSearcher(Budget().hash_mb)
    for name, text in (("short", SHORT), ("trap", TRAP), ("scholar", SCHOLAR), ("short", SHORT)):
        game = read(text)
        before = searcher.searches
        analysis = analyse_game(game, Budget(nodes=NODES), searcher=searcher)
        assert analysis.to_dict() == fresh[name], name
        assert searcher.searches - before >= len(game.moves), name     # a search a position


def test_same_result_across_processes():
    items = [(SHORT, Budget(nodes=NODES), 1), (BAD, Budget(nodes=NODES), 2),
             (SCHOLAR, Budget(nodes=NODES), 3)]
    one = list(run_local(analyse_pgn, items, jobs=1))
    two = list(run_local(analyse_pgn, items, jobs=2))
    assert isinstance(one[1], Failure) and isinstance(two[1], Failure)
    assert "game 2" in str(two[1].error)
    for a, b in ((one[0], two[0]), (one[2], two[2])):
        assert a.to_dict() == b.to_dict()
    assert one[0].to_dict() == analyse_game(read(SHORT), Budget(nodes=NODES)).to_dict()


def test_one_move_judged_end_to_end_with_numbers_worked_by_hand():
    # The searches are scripted (ScriptedSearcher, scale SCRIPT_SCALE = 100 / 128.3,
    # engine/review/accuracy.py), at every budget alike so the extra looks change nothing.  Before
    # 4. Bg5 (position 6, White to move) the search says +128, normalised round(99.77) = +100;
    # after it (position 7, Black to move) Black's +257, round(200.31) = 200, White's -200.
    # Every other position is 0, and the scripted best move is never the one played.
    game = read(SHORT)
    fens = main_line_fens(game)
    scores = {fens[6]: (128,), fens[7]: (257,)}
    analysis = analyse_game(game, Budget(nodes=NODES), searcher=ScriptedSearcher(scores))
    bg5 = analysis.moves[6]
    assert (bg5.san, bg5.white, bg5.before, bg5.after) == ("Bg5", True, acc.Eval(cp=100), acc.Eval(cp=-200))
    # lichess's winning chances, 2 / (1 + exp(-0.00368208 cp)) - 1:
    #   +100: 2 / (1 + exp(-0.368208)) - 1 = 2 / 1.691973 - 1 = +0.182052
    #   -200: 2 / (1 + exp(+0.736416)) - 1 = 2 / 3.088437 - 1 = -0.352423
    # Win% = 50 + 50 chances: 59.1026 before, 32.3788 after, a drop of 26.7238 for White;
    # accuracy = 103.1668 exp(-0.04354 * 26.7238) - 3.1669 = 103.1668 * 0.312375 - 3.1669
    #          = 29.0598; the drop in chances, 0.182052 + 0.352423 = 0.534475 >= 0.3: a blunder;
    # the centipawn loss 100 - (-200) = 300.
    assert (bg5.win_before, bg5.win_after) == (59.10, 32.38)
    assert bg5.accuracy == 29.06
    assert (bg5.judgement, bg5.mate_sequence, bg5.cp_loss) == ("blunder", None, 300)
    assert bg5.advice().startswith("Blunder.")
    # 3... Nf6 before it: Black from 0 to White's +100, Win% 50 -> 100 - 59.1026 = 40.8974,
    # a drop of 9.1026: accuracy 103.1668 exp(-0.396327) - 3.1669 = 103.1668 * 0.672787
    # - 3.1669 = 66.2424; chances 0 -> -0.182052, a drop of 0.182052 >= 0.1: an inaccuracy.
    nf6 = analysis.moves[5]
    assert (nf6.san, nf6.white, nf6.win_before, nf6.win_after) == ("Nf6", False, 50.0, 59.10)
    assert (nf6.accuracy, nf6.judgement, nf6.cp_loss) == (66.24, "inaccuracy", 100)
    # 4... Be7 after it: Black from +200 (its view) to 0: Win% 67.6212 -> 50, a drop of
    # 17.6212: accuracy 103.1668 * exp(-0.767226) - 3.1669 = 103.1668 * 0.464299 - 3.1669
    # = 44.7334; chances +0.352423 -> 0: a blunder.
    be7 = analysis.moves[7]
    assert (be7.san, be7.win_before, be7.win_after) == ("Be7", 32.38, 50.0)
    assert (be7.accuracy, be7.judgement, be7.cp_loss) == (44.73, "blunder", 200)
    # the other moves are 0 -> 0: accuracy 100, not judged
    others = [m for m in analysis.moves if m.ply not in (5, 6, 7)]
    assert all((m.accuracy, m.judgement, m.cp_loss) == (100.0, None, 0) for m in others)
    assert (analysis.white.blunders, analysis.black.blunders, analysis.black.inaccuracies) == (1, 1, 1)


def test_annotated_pgn_reads_back_in_python_chess():
    analysis = analyse_game(read(SCHOLAR + "\n" + SHORT), Budget(nodes=NODES))
    game = chess.pgn.read_game(io.StringIO(annotated_pgn(analysis)))
    assert game.headers["White"] == "A" and game.headers["Event"] == "scholar"
    assert game.headers["Result"] == "1-0"
    nodes = list(game.mainline())
    assert [n.move.uci() for n in nodes] == [m.uci for m in analysis.moves]
    for node, move in zip(nodes, analysis.moves):
        score = node.eval()
        if move.after.mate == 0:
            assert score is None            # mate on the board: no %eval
        elif move.after.mate is not None:
            assert score.white().mate() == move.after.mate
        else:
            assert score.white().score() == move.after.cp
        expected_nags = {acc.NAGS[move.judgement]} if move.judgement else set()
        assert node.nags == expected_nags
        if move.judgement in (acc.MISTAKE, acc.BLUNDER):
            assert len(node.parent.variations) == 2     # the move and the best line
            line = node.parent.variations[1]
            assert line.move.uci() == move.best_uci
            assert f"{move.best_san} was best." in node.comment
        else:
            assert len(node.parent.variations) == 1
    nf6 = nodes[5]
    assert chess.pgn.NAG_BLUNDER in nf6.nags and "Checkmate is now unavoidable" in nf6.comment


@pytest.fixture
def games_file(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(SCHOLAR + "\n" + BAD + "\n" + SHORT)
    return path


def test_command_outputs(games_file, tmp_path, capsys, monkeypatch):
    out, report, graph = tmp_path / "out.pgn", tmp_path / "report.json", tmp_path / "eval.png"
    status = main(["analyse", str(games_file), "--nodes", str(NODES), "--jobs", "1",
                   "--out", str(out), "--json", str(report), "--graph", str(graph)])
    captured = capsys.readouterr()
    assert status == 1                              # one game could not be analysed
    assert "skipping game 2" in captured.err and "Ke3" in captured.err
    assert "positions" in captured.err              # progress
    assert "Game 1: A - B 1-0" in captured.out and "Game 3: C - D" in captured.out
    assert "Summary: 2 games analysed, 1 not" in captured.out
    games = []
    with open(out) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    assert [g.headers["Event"] for g in games] == ["scholar", "short"]
    data = json.loads(report.read_text())
    assert [g["number"] for g in data["games"]] == [1, 3]
    assert data["summary"]["failed"] == [2]
    first = data["games"][0]
    assert first["moves"][5]["judgement"] == "blunder" and first["black"]["blunders"] == 1
    if "matplotlib" in sys.modules or _has("matplotlib"):
        for number in (1, 3):
            png = tmp_path / f"eval-{number}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _has(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def test_graph_without_matplotlib_says_which_extra(tmp_path, capsys, monkeypatch):
    path = tmp_path / "one.pgn"
    path.write_text(SCHOLAR)
    monkeypatch.setitem(sys.modules, "matplotlib", None)    # import matplotlib fails
    out, graph = tmp_path / "out.pgn", tmp_path / "eval.png"
    assert main(["analyse", str(path), "--nodes", "500", "--jobs", "1", "--out", str(out),
                 "--graph", str(graph)]) == 0
    captured = capsys.readouterr()
    assert "scacco[plot]" in captured.err
    assert not graph.exists() and chess.pgn.read_game(io.StringIO(out.read_text())) is not None


def test_ray_gives_the_local_results(games_file):
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"        # nothing leaves the machine
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'scacco[ray]')")
    from scacco.engine.batch import run_ray
    items = [(SHORT, Budget(nodes=NODES), 1), (BAD, Budget(nodes=NODES), 2),
             (SCHOLAR, Budget(nodes=NODES), 3)]
    local = list(run_local(analyse_pgn, items, jobs=1))
    ray.init(num_cpus=2, include_dashboard=False, address="local",
             _node_ip_address="127.0.0.1")
    try:
        remote = list(run_ray(analyse_pgn, items))
    finally:
        ray.shutdown()
    assert isinstance(remote[1], Failure)
    assert remote[0].to_dict() == local[0].to_dict()
    assert remote[2].to_dict() == local[2].to_dict()
