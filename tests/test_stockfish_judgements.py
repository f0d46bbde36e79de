"""The analysis judges moves as lichess's rules do on Stockfish's evaluations: a blunder, a
mistake, an inaccuracy and good moves of real games, with Stockfish 15.1's evaluations stored
in tests/data/stockfish-judgements.json (no Stockfish needed).  bench/analysis_quality.py
makes the full comparison on many games."""
import json
from pathlib import Path

import pytest

from scacco.engine.pgn import Game, MoveNode
from scacco.engine.board import Board
from scacco.engine.review import accuracy as acc
from scacco.engine.review.accuracy import Eval
from scacco.engine.review.analysis import Budget, analyse_game
from scacco.engine.score import winning_chances

DATA = json.loads((Path(__file__).parent / "data" / "stockfish-judgements.json").read_text())


def stockfish_judgement(case):
    white = case["fen"].split()[1] == "w"
    return acc.judge(Eval(**case["before"]), Eval(**case["after"]), white)[0]


def test_the_stored_cases_cover_every_judgement():
    assert {stockfish_judgement(case) for case in DATA["moves"]} == {
        acc.BLUNDER, acc.MISTAKE, acc.INACCURACY, None}


# Within this distance of one of lichess's lines, the verdict is a matter of a few centipawns
# (0.05 in winning chances is about 30 cp near -1.20): there the class on the
# line's other side is accepted too.
NEAR_LINE = 0.05
LINES = ((acc.BLUNDER_DROP, acc.MISTAKE, acc.BLUNDER), (acc.MISTAKE_DROP, acc.INACCURACY, acc.MISTAKE),
         (acc.INACCURACY_DROP, None, acc.INACCURACY))


def accepted_judgements(case):
    """Stockfish's judgement of the move, and its neighbour across a line its drop is near."""
    accepted = {stockfish_judgement(case)}
    if "cp" in case["before"] and "cp" in case["after"]:
        sign = 1 if case["fen"].split()[1] == "w" else -1
        drop = (winning_chances(sign * case["before"]["cp"])
                - winning_chances(sign * case["after"]["cp"]))
        for line, below, above in LINES:
            if abs(drop - line) <= NEAR_LINE:
                accepted |= {below, above}
    return accepted


# Known disagreements at the default budget, each with what our search reads (issue 29's
# recall is still short of its target: these are its misses, kept visible).
KNOWN_MISSES = {
    (8, 1): "1... Kf8: Stockfish +0.11 -> +0.99 (an inaccuracy, 0.16 in winning chances); our "
            "150,000-node search reads +0.12 -> +0.45 (0.06) since the table's move is tried before "
            "generation (the build before read -0.13 -> +0.51, an inaccuracy 0.02 above the line)",
}


def case_param(case):
    reason = KNOWN_MISSES.get((case["game"], case["ply"]))
    marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
    return pytest.param(case, marks=marks, id=f"game{case['game']}-ply{case['ply']}")


@pytest.mark.parametrize("case", [case_param(case) for case in DATA["moves"]])
def test_the_analysis_judges_the_move_as_stockfish_does(case):
    board = Board(case["fen"])
    game = Game(headers={"FEN": case["fen"], "SetUp": "1", "Result": "*"}, fen=case["fen"])
    game.moves.append(MoveNode(case["move"], board.san(case["move"])))
    analysis = analyse_game(game, Budget())
    assert analysis.moves[0].judgement in accepted_judgements(case)


def test_near_a_line_both_neighbours_are_accepted():
    # h3 of game 5: Stockfish +0.38 -> -1.20, a drop of 2 / (1 + e^(0.00368208 * 38)) - 2 /
    # (1 + e^(-0.00368208 * 120)) = 0.2872, a mistake within 0.05 of the blunder line
    case = next(c for c in DATA["moves"] if c["game"] == 5 and c["ply"] == 0)
    assert accepted_judgements(case) == {acc.MISTAKE, acc.BLUNDER}
    # game 2's Nxf7: +4.18 -> +4.16, far from every line: only "no judgement"
    case = next(c for c in DATA["moves"] if c["game"] == 2 and c["ply"] == 10)
    assert accepted_judgements(case) == {None}
