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

DATA = json.loads((Path(__file__).parent / "data" / "stockfish-judgements.json").read_text())


def stockfish_judgement(case):
    white = case["fen"].split()[1] == "w"
    return acc.judge(Eval(**case["before"]), Eval(**case["after"]), white)[0]


def test_the_stored_cases_cover_every_judgement():
    assert {stockfish_judgement(case) for case in DATA["moves"]} == {
        acc.BLUNDER, acc.MISTAKE, acc.INACCURACY, None}


@pytest.mark.parametrize("case", DATA["moves"], ids=lambda c: f"game{c['game']}-ply{c['ply']}")
def test_the_analysis_judges_the_move_as_stockfish_does(case):
    board = Board(case["fen"])
    game = Game(headers={"FEN": case["fen"], "SetUp": "1", "Result": "*"}, fen=case["fen"])
    game.moves.append(MoveNode(case["move"], board.san(case["move"])))
    analysis = analyse_game(game, Budget())
    assert analysis.moves[0].judgement == stockfish_judgement(case)
