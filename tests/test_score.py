"""engine.score: the normalised centipawns and the win-draw-loss model, with numbers worked by
hand, and the searcher and the UCI engine reporting them."""
import math

import pytest

from scacco.engine import Board
from scacco.engine.score import (CLASSICAL_SCALE, NETWORK_SCALE, WDL_MODEL, Scale, WdlModel,
                                 material, normalised_cp, scale_of, wdl)
from tests.uci_client import UciProcess


def test_material_counts_both_sides_pieces_without_kings():
    # 16 pawns + 4 knights * 3 + 4 bishops * 3 + 4 rooks * 5 + 2 queens * 9 = 78
    assert material(Board()) == 78
    assert material(Board("8/8/4k3/8/8/3K4/8/8 w - - 0 1")) == 0
    # a rook (5), a knight (3) and two pawns: 10
    assert material(Board("8/8/4k3/3pn3/8/3K4/3P4/R7 w - - 0 1")) == 10


def test_the_scale_is_linear_in_material_between_its_ends():
    scale = Scale(middlegame=1.2, endgame=0.6, full=60, bare=20)
    assert scale.factor(78) == pytest.approx(1.2)      # above full: the middlegame factor
    assert scale.factor(60) == pytest.approx(1.2)
    assert scale.factor(40) == pytest.approx(0.9)      # halfway: (1.2 + 0.6) / 2
    assert scale.factor(30) == pytest.approx(0.75)     # a quarter of the way: 0.6 + 0.6 / 4
    assert scale.factor(5) == pytest.approx(0.6)


def test_the_scale_curve_by_hand():
    straight = Scale(middlegame=1.2, endgame=0.6, full=60, bare=20)
    assert straight.to_cp(200, 40) == pytest.approx(180.0)      # no knee: 0.9 * 200
    assert straight.to_raw(-180, 40) == pytest.approx(-200.0)
    curve = Scale(middlegame=1.2, endgame=0.6, full=60, bare=20, knee=100, exponent=0.5)
    # up to the knee a straight line, beyond it sign * factor * 100 * (|raw| / 100) ** 0.5
    assert curve.to_cp(50, 78) == pytest.approx(60.0)            # 1.2 * 50
    assert curve.to_cp(100, 40) == pytest.approx(90.0)           # the knee: 0.9 * 100
    assert curve.to_cp(400, 78) == pytest.approx(240.0)          # 1.2 * 100 * 2
    assert curve.to_cp(-900, 5) == pytest.approx(-180.0)         # -(0.6 * 100 * 3)
    assert curve.to_cp(0, 40) == 0.0
    assert curve.to_raw(240, 78) == pytest.approx(400.0)         # 100 * (240 / 120) ** 2
    assert curve.to_raw(-180, 5) == pytest.approx(-900.0)
    assert curve.to_raw(60, 78) == pytest.approx(50.0)
    for raw in (-5000, -333, -1, 1, 57, 100, 2500):
        assert curve.to_raw(curve.to_cp(raw, 33), 33) == pytest.approx(raw)


def test_normalised_cp_uses_each_evaluations_own_scale():
    assert scale_of(None) is CLASSICAL_SCALE and scale_of(object()) is NETWORK_SCALE
    assert normalised_cp(200, None, 78) == round(CLASSICAL_SCALE.to_cp(200, 78))
    assert normalised_cp(-200, "net", 12) == round(NETWORK_SCALE.to_cp(-200, 12))
    assert normalised_cp(0, "net", 40) == 0
    # cut below 10000 in size, whatever the factor
    assert normalised_cp(10 ** 6, "net", 78) == 9999 and normalised_cp(-10 ** 6, None, 0) == -9999


def test_wdl_model_by_hand():
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78)
    # v = a: the win is 1 / (1 + e^0) = 500; the loss 1 / (1 + e^((100 + 100) / 50)) =
    # 1 / (1 + e^4) = 0.017986, 18 per mille; the draw the rest, 482.
    assert model.per_mille(100, 40) == (500, 482, 18)
    assert model.per_mille(-100, 40) == (18, 482, 500)
    # v = 0: both 1 / (1 + e^2) = 0.119203, 119 each, 762 drawn
    assert model.per_mille(0, 40) == (119, 762, 119)
    # polynomials of x = material / norm, the material clamped: with norm 2, a(x) = 10 + 2 x
    # and b(x) = 30 + x / 2 are at m = 20 (x = 10) a 30, b 35, and at m = 90 clamped to 78
    # (x = 39) a 88, b 49.5
    model = WdlModel(a=(10.0, 2.0), b=(30.0, 0.5), low=0, high=78, norm=2)
    assert model.parameters(20) == (30.0, 35.0)
    assert model.parameters(90) == (88.0, 49.5)
    win = 1 / (1 + math.exp((30 - 90) / 35))
    loss = 1 / (1 + math.exp((30 + 90) / 35))
    assert model.per_mille(90, 20) == (round(1000 * win), 1000 - round(1000 * win) - round(1000 * loss),
                                       round(1000 * loss))
    # the bent score: with power 0.5, v = 400 reads g = 100 * 4 ** 0.5 = 200, so the win is
    # 1 / (1 + e^((100 - 200) / 50)) = 1 / (1 + e^-2) = 0.880797 and the loss
    # 1 / (1 + e^((100 + 200) / 50)) = 1 / (1 + e^6) = 0.002473; v = 25 reads g = 50, the win
    # 1 / (1 + e^1) = 0.268941, the loss 1 / (1 + e^3) = 0.047426
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78, power=(0.5,))
    assert model.bent(400, 40) == 200.0 and model.bent(-25, 40) == -50.0 and model.bent(0, 40) == 0.0
    assert model.per_mille(400, 40) == (881, 117, 2)
    assert model.per_mille(25, 40) == (269, 684, 47)
    assert model.per_mille(-25, 40) == (47, 684, 269)
    # the power by material: k(x) = 0.25 + 0.5 x with norm 40 is 0.5 at m = 20 (x = 0.5), where
    # v = 400 reads 100 * 4 ** 0.5 = 200 as above, and 0.75 at m = 40 (x = 1), where it reads
    # 100 * 4 ** 0.75 = 282.8427: the win 1 / (1 + e^((100 - 282.8427) / 50)) = 1 / (1 +
    # e^-3.656854) = 0.974836, the loss 1 / (1 + e^7.656854) = 0.000473
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78, norm=40, power=(0.25, 0.5))
    assert model.exponent(20) == 0.5 and model.exponent(40) == 0.75
    assert model.bent(400, 20) == pytest.approx(200.0) and model.bent(-400, 40) == pytest.approx(-282.8427, abs=1e-4)
    assert model.per_mille(400, 20) == (881, 117, 2)
    assert model.per_mille(400, 40) == (975, 25, 0)
    # held within [0.2, 2]: k = 0.25 + 1.0 x is 2.2 at m = 78 (x = 1.95), held at 2, and
    # 0.25 at m = 0; with x clamped by low = 10 first, 0.25 + 0.25 = 0.5
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78, norm=40, power=(0.25, 1.0))
    assert model.exponent(78) == 2.0 and model.bent(400, 78) == pytest.approx(1600.0)
    assert model.exponent(0) == 0.25
    model = WdlModel(a=(100.0,), b=(50.0,), low=10, high=78, norm=40, power=(0.25, 1.0))
    assert model.exponent(0) == 0.5
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78, norm=40, power=(0.1,))
    assert model.exponent(40) == 0.2


def test_the_fitted_wdl_model_sums_to_1000_is_monotone_and_symmetric():
    assert all(b > 0 for b in (WDL_MODEL.parameters(m)[1] for m in range(0, 79)))
    for m in (4, 20, 40, 60, 78):
        previous = None
        for cp in range(-2000, 2001, 25):
            w, d, l = wdl(cp, m)
            assert w + d + l == 1000 and min(w, d, l) >= 0
            assert wdl(-cp, m) == (l, d, w)
            if previous is not None:
                assert w >= previous[0] and l <= previous[2]
            previous = (w, d, l)
        assert wdl(2000, m)[0] > 900 and wdl(0, m)[0] < 500


def test_search_lines_carry_normalised_centipawns_and_wdl():
    from scacco.engine.search import Searcher, score_to_cp_mate
    searcher = Searcher(16)
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    result = searcher.search(board, depth=2)
    assert result.score_mate == 1 and result.wdl == (1000, 0, 0)        # Qxf7#
    board = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    seen = []
    result = searcher.search(board, depth=4, on_info=seen.append)
    for info in seen + result.lines:
        raw, mate = score_to_cp_mate(info.score)
        assert mate is None
        assert info.score_cp == normalised_cp(raw, searcher.network, 78)
        assert info.wdl == wdl(info.score_cp, 78)
    assert result.score_cp == result.lines[0].score_cp and result.wdl == result.lines[0].wdl


def test_uci_show_wdl_adds_wdl_to_every_score():
    with UciProcess() as engine:
        engine.send("setoption name UCI_ShowWDL value true")
        engine.send("position fen 4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
        lines = engine.ask("go depth 6", "bestmove")
        scored = [line.split() for line in lines if " score " in line]
        assert scored
        for words in scored:
            at = words.index("wdl")
            assert words[at - 3] == "score" and words[at - 2] in ("cp", "mate")
            w, d, l = (int(x) for x in words[at + 1:at + 4])
            assert w + d + l == 1000 and w > 900        # KQvK: White wins
        engine.send("setoption name UCI_ShowWDL value false")
        lines = engine.ask("go depth 3", "bestmove")
        assert not any(" wdl " in line for line in lines)


def test_eval_prints_the_normalised_score_and_its_wdl():
    import re
    from scacco.engine.evaluation import eval_table
    board = Board("4k3/8/8/8/8/8/3QK3/8 b - - 0 1")
    table = eval_table(board)
    line = next(row for row in table.splitlines() if row.startswith(" Normalised"))
    w, d, l = (int(x) for x in re.search(r"wdl (\d+) (\d+) (\d+)", line).groups())
    assert w + d + l == 1000 and l > 900           # Black to move, a queen down
