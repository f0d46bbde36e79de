"""lichess's formulas (engine/review/accuracy.py) against numbers worked out by hand.

Every expected number below comes from the published formulas evaluated by hand (a pocket
calculator: exp(-0.00368208 * cp), 103.1668 * exp(-0.04354 * d) - 3.1669), never from our
own output.
"""
import math

import pytest

from scacco.engine.review import accuracy as acc
from scacco.engine.review.accuracy import (BLUNDER, INACCURACY, MATE_CREATED, MATE_LOST, MISTAKE, Eval,
                                    average_centipawn_loss, centipawn_loss, eval_win_percent,
                                    game_accuracy, harmonic_mean, judge, move_accuracy,
                                    standard_deviation, weighted_mean, win_percent)
from scacco.engine.score import winning_chances


def test_win_percent_by_hand():
    # exp(-0.368208) = 0.691948, 2 / 1.691948 - 1 = 0.182052
    assert win_percent(0) == 50.0
    assert win_percent(100) == pytest.approx(59.1026, abs=1e-3)
    assert win_percent(-100) == pytest.approx(40.8974, abs=1e-3)
    # exp(-1.104624) = 0.331331, 2 / 1.331331 - 1 = 0.502251
    assert win_percent(300) == pytest.approx(75.1126, abs=1e-3)
    # clamped at 1000 cp: exp(-3.68208) = 0.025179, 2 / 1.025179 - 1 = 0.950882
    assert win_percent(1000) == pytest.approx(97.5441, abs=1e-3)
    assert win_percent(5000) == win_percent(1000)
    assert win_percent(-5000) == pytest.approx(100 - 97.5441, abs=1e-3)


def test_winning_chances_not_clamped_below_the_ceiling_of_one():
    # the Advice's winning chances use the raw centipawns: exp(-5.52312) = 0.003993
    assert winning_chances(1500) == pytest.approx(2 / 1.003993 - 1, abs=1e-5)
    assert winning_chances(0) == 0.0


def test_mate_counts_as_the_ceiling():
    assert eval_win_percent(Eval(mate=3)) == pytest.approx(97.5441, abs=1e-3)
    assert eval_win_percent(Eval(mate=-1)) == pytest.approx(2.4559, abs=1e-3)
    assert eval_win_percent(Eval(mate=0, winner=False)) == pytest.approx(2.4559, abs=1e-3)


def test_move_accuracy_by_hand():
    # 103.1668 * exp(-0.4354) - 3.1669 = 103.1668 * 0.647056 - 3.1669 = 63.5826
    assert move_accuracy(60, 50) == pytest.approx(63.5826, abs=1e-3)
    # d = 20: 103.1668 * 0.418690 - 3.1669 = 40.0204
    assert move_accuracy(70, 50) == pytest.approx(40.0204, abs=1e-3)
    # d = 5: 103.1668 * 0.804417 - 3.1669 = 79.8170
    assert move_accuracy(55.5, 50.5) == pytest.approx(79.8170, abs=1e-3)
    # no drop, or a gain: 100; a huge drop: clamped at 0 (d = 100 gives -1.84)
    assert move_accuracy(50, 50) == 100.0
    assert move_accuracy(40, 70) == 100.0
    assert move_accuracy(100, 0) == 0.0


def test_judgement_thresholds_on_winning_chances():
    # winning chances: 0 cp -> 0; 100 cp -> 0.182052; 300 -> 0.502251; -100 -> -0.182052
    assert judge(Eval(cp=100), Eval(cp=0), True) == (INACCURACY, None)    # drop 0.182
    assert judge(Eval(cp=20), Eval(cp=0), True) == (None, None)           # drop 0.037
    # White's drop 0.182 + 0.182 = 0.364 from +1 to -1: a blunder
    assert judge(Eval(cp=100), Eval(cp=-100), True) == (BLUNDER, None)
    # 300 -> 100: drop 0.320 (blunder); 300 -> 140: wc(140) = 2/(1+exp(-0.515491)) - 1 =
    # 2 / 1.597207 - 1 = 0.252186, drop 0.250 (mistake); 300 -> 200: wc(200) = 0.351655,
    # drop 0.151 (inaccuracy); 300 -> 250: wc(250) = 0.430434, drop 0.072 (nothing)
    assert judge(Eval(cp=300), Eval(cp=100), True)[0] == BLUNDER
    assert judge(Eval(cp=300), Eval(cp=140), True)[0] == MISTAKE
    assert judge(Eval(cp=300), Eval(cp=200), True)[0] == INACCURACY
    assert judge(Eval(cp=300), Eval(cp=250), True)[0] is None
    # the same numbers from Black's side: White's view rising is Black's drop
    assert judge(Eval(cp=-300), Eval(cp=-140), False)[0] == MISTAKE
    assert judge(Eval(cp=-300), Eval(cp=-140), True)[0] is None


def test_mate_rules():
    # walking into a forced mate: a blunder from an ordinary position
    assert judge(Eval(cp=50), Eval(mate=-4), True) == (BLUNDER, MATE_CREATED)
    assert judge(Eval(cp=-50), Eval(mate=4), False) == (BLUNDER, MATE_CREATED)
    # ... a mistake when already below -7, an inaccuracy below -9.99 (the mover's view)
    assert judge(Eval(cp=-800), Eval(mate=-4), True) == (MISTAKE, MATE_CREATED)
    assert judge(Eval(cp=-1200), Eval(mate=-4), True) == (INACCURACY, MATE_CREATED)
    assert judge(Eval(cp=1200), Eval(mate=4), False) == (INACCURACY, MATE_CREATED)
    # losing a forced mate: a blunder, softened when still far ahead
    assert judge(Eval(mate=3), Eval(cp=200), True) == (BLUNDER, MATE_LOST)
    assert judge(Eval(mate=3), Eval(cp=800), True) == (MISTAKE, MATE_LOST)
    assert judge(Eval(mate=3), Eval(cp=1100), True) == (INACCURACY, MATE_LOST)
    assert judge(Eval(mate=3), Eval(mate=-2), True) == (BLUNDER, MATE_LOST)
    assert judge(Eval(mate=-3), Eval(cp=-200), False) == (BLUNDER, MATE_LOST)
    # a slower mate, a found mate, escaping a mate, or mate delivered: not judged
    assert judge(Eval(mate=2), Eval(mate=5), True) == (None, None)
    assert judge(Eval(cp=0), Eval(mate=5), True) == (None, None)
    assert judge(Eval(mate=-2), Eval(cp=-300), True) == (None, None)
    assert judge(Eval(mate=1), Eval(mate=0, winner=True), True) == (None, None)


def test_centipawn_loss_and_average():
    assert centipawn_loss(Eval(cp=50), Eval(cp=-30), True) == 80
    assert centipawn_loss(Eval(cp=50), Eval(cp=-30), False) == 0      # Black gained
    assert centipawn_loss(Eval(cp=-50), Eval(cp=30), False) == 80
    # mates count as 1000, and a loss is capped at 1000
    assert centipawn_loss(Eval(mate=2), Eval(cp=300), True) == 700
    assert centipawn_loss(Eval(cp=900), Eval(mate=-1), True) == 1000
    assert average_centipawn_loss([80, 0, 25]) == 35
    assert average_centipawn_loss([]) is None


def test_means():
    assert standard_deviation([50, 40]) == 5.0
    assert standard_deviation([2, 4, 4, 4, 5, 5, 7, 9]) == 2.0
    assert weighted_mean([(10, 1), (40, 2)]) == 30.0
    # lichess counts each value as at least 1: 2 / (1/1 + 1/100)
    assert harmonic_mean([0.0, 100.0]) == pytest.approx(2 / 1.01)
    assert harmonic_mean([50.0, 100.0]) == pytest.approx(2 / 0.03)


def test_game_accuracy_four_moves():
    # Win% (White's view) 50, 40, 60, 30, 35: four moves, window 2.
    # Windows [50,40] sd 5, [40,60] sd 10, [60,30] sd 15 -> clamped 12, [30,35] sd 2.5.
    # White: 50->40 (drop 10: 63.5826, weight 5), 60->30 (drop 30: 103.1668 * exp(-1.3062)
    # - 3.1669 = 103.1668 * 0.270839 - 3.1669 = 24.7756, weight 12).
    # Black (its Win% = 100 - White's): 60->40 (drop 20: 40.0204, weight 10),
    # 70->65 (drop 5: 79.8170, weight 2.5).
    white_weighted = (63.5826 * 5 + 24.7756 * 12) / 17
    white_harmonic = 2 / (1 / 63.5826 + 1 / 24.7756)
    black_weighted = (40.0204 * 10 + 79.8170 * 2.5) / 12.5
    black_harmonic = 2 / (1 / 40.0204 + 1 / 79.8170)
    white, black = game_accuracy([50, 40, 60, 30, 35])
    assert white == pytest.approx((white_weighted + white_harmonic) / 2, abs=1e-3)
    assert black == pytest.approx((black_weighted + black_harmonic) / 2, abs=1e-3)
    # Black moving first swaps the roles of the moves
    black_first = game_accuracy([50, 40, 60, 30, 35], white_first=False)
    assert black_first[0] is not None and black_first[0] != white


def test_game_accuracy_thirty_moves_window_three():
    # 30 moves (window 30 // 10 = 3), Win% 50 everywhere but 30 after move 15 (index 15).
    # Move 14 (White, 50 -> 30) and move 15 (Black, 70 -> 50) drop 20: accuracy 40.0204;
    # every other move keeps its Win%: 100.  The windows holding index 15 are the sliding
    # ones starting at 13, 14, 15, which weigh moves 14, 15, 16 (the first window is
    # repeated once, for move 0): sd(50, 50, 30) = sqrt(800 / 9) = 9.42809.  Other weights:
    # sd 0, clamped to 0.5.  White has moves 14 (40.0204) and 16 (100) at 9.42809 and 13
    # more at 100 with 0.5; Black has move 15 at 9.42809 and 14 moves at 100 with 0.5.
    sd = math.sqrt(800 / 9)
    values = [50.0] * 31
    values[15] = 30.0
    white_weighted = (40.0204 * sd + 100 * sd + 100 * 0.5 * 13) / (2 * sd + 6.5)
    black_weighted = (40.0204 * sd + 100 * 0.5 * 14) / (sd + 7)
    harmonic = 15 / (14 / 100 + 1 / 40.0204)
    white, black = game_accuracy(values)
    assert white == pytest.approx((white_weighted + harmonic) / 2, abs=1e-3)   # 84.307
    assert black == pytest.approx((black_weighted + harmonic) / 2, abs=1e-3)   # 78.247
    assert white == pytest.approx(84.307, abs=1e-2) and black == pytest.approx(78.247, abs=1e-2)


def test_game_accuracy_no_moves():
    assert game_accuracy([50.0]) == (None, None)
    white, black = game_accuracy([50.0, 45.0])
    assert black is None and white == pytest.approx(79.8170, abs=1e-3)


def test_eval_texts():
    assert Eval(cp=35).pgn() == "0.35"
    assert Eval(cp=-120).pgn() == "-1.20"
    assert Eval(mate=-3).pgn() == "#-3"
    assert Eval(mate=2).pgn() == "#2"
    assert Eval(cp=-410).short() == "-4.1"


def test_winning_chance_drop_takes_centipawns_unclamped_and_mates_as_one():
    def chances(cp):   # lichess's winningChances, by hand
        return 2 / (1 + math.exp(-0.00368208 * cp)) - 1

    # +12.90 -> +4.50 for White is a drop of about 0.30 (lila's CpAdvice does not clamp)
    assert acc.winning_chance_drop(Eval(cp=1290), Eval(cp=450), True) == pytest.approx(chances(1290) - chances(450))
    assert acc.winning_chance_drop(Eval(cp=1290), Eval(cp=450), True) == pytest.approx(0.3032, abs=1e-4)
    # the same move by Black is a gain of as much
    assert acc.winning_chance_drop(Eval(cp=1290), Eval(cp=450), False) == pytest.approx(chances(450) - chances(1290))
    # White's mate in 2 given up for 0.00: all of White's winning chances
    assert acc.winning_chance_drop(Eval(mate=2), Eval(cp=0), True) == pytest.approx(1.0)
    # Black, at -1.00, walks into being mated: from -chances(100) to -1 (Black's view)
    assert acc.winning_chance_drop(Eval(cp=100), Eval(mate=3), False) == pytest.approx(1.0 - chances(100))
