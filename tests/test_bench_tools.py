"""Helpers of the bench scripts whose figures go into docs/results: the WDL fit's intervals and
log loss (bench/wdl_fit.py) and the EPD suite's feature switches (bench/epd_suite.py), checked
against numbers worked by hand; the match tools' sorting of decisive games
(bench/match_total.py) and the score-recording tee (bench/uci_tee.py) on hand-made games and a
fake engine."""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench.epd_suite import SWITCHES, parse_switch
from bench.wdl_fit import clustered_margin, log_loss, miss_margin
from scacco.engine.score import WdlModel
from scacco.engine.search import Searcher


def test_clustered_margin_counts_a_game_once():
    # Four positions won, won, drawn, drawn: the share of wins 0.5.  As four games of one
    # position, each game's deviation is +-0.5: variance 4 * 0.25 / 4^2 = 0.0625, half-width
    # 1.96 * 0.25 = 49 points.  As two games of two positions, each game's is +-1: variance
    # 2 * 1 / 4^2 = 0.125, half-width 1.96 * sqrt(0.125) = 69.296 points.
    four_games = [(0, 40, 1, "a"), (0, 40, 1, "b"), (0, 40, 0, "c"), (0, 40, 0, "d")]
    two_games = [(0, 40, 1, "a"), (0, 40, 1, "a"), (0, 40, 0, "b"), (0, 40, 0, "b")]
    assert clustered_margin(four_games, 1) == pytest.approx(49.0)
    assert clustered_margin(two_games, 1) == pytest.approx(69.2965, abs=1e-3)
    # every position of a bucket lost: no spread at all
    assert clustered_margin([(0, 40, -1, "a"), (0, 40, -1, "b")], -1) == 0.0


def test_miss_margin_is_the_interval_of_observed_minus_predicted():
    # a = 100, b = 50 at v = 100: the model says 500 won, 482 drawn, 18 lost per mille.  The
    # draws' misses are -0.482 (game a, twice) and +0.518 (game b, twice), their mean 0.018;
    # each game's sum about that mean is -1 and +1: the same 69.296 points as above.
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78)
    rows = [(100, 40, 1, "a"), (100, 40, 1, "a"), (100, 40, 0, "b"), (100, 40, 0, "b")]
    assert miss_margin(model, rows, 0) == pytest.approx(69.2965, abs=1e-3)


def test_calibration_gives_the_score_buckets_gap_and_the_phases_gap(monkeypatch, capsys):
    # A model that says a third each everywhere.  200 positions at raw 0 in middlegames
    # (material 60), all won, and 200 in endgames (material 10), all lost, each its own game.
    # The score bucket of all material: 50% won, 0 drawn, 50% lost against 33.3 each, the
    # largest gap 33.3 points (the draws); within each phase one result at 100%: 66.7 points.
    from bench import wdl_fit
    monkeypatch.setattr(wdl_fit, "predict", lambda model, raw, m: (100 / 3, 100 / 3, 100 / 3))
    obs = ([(0, 60, 1, f"w{i}") for i in range(200)]
           + [(0, 10, -1, f"l{i}") for i in range(200)])
    by_score, by_phase = wdl_fit.calibration(None, obs)
    assert by_score == pytest.approx(100 / 3)
    assert by_phase == pytest.approx(200 / 3)
    wdl_fit.print_gaps((by_score, by_phase))
    assert ("33.3 points by score over all material (target <= 5), 66.7 within a material "
            "phase") in capsys.readouterr().out


def test_log_loss_follows_the_bent_model():
    # power 0.5, a = 100, b = 50, v = 400: g = 200, P(win) = 1 / (1 + e^-2) = 0.880797 and
    # P(loss) = 1 / (1 + e^6) = 0.002473, so a win costs -ln 0.880797 = 0.126928 and a draw
    # -ln(1 - 0.880797 - 0.002473) = 2.147889; their mean over the two, 1.137409.
    v = np.array([400.0, 400.0])
    x = np.array([40 / 58, 40 / 58])
    assert log_loss([100.0], [50.0], (0.5,), v[:1], x[:1], np.array([1])) == pytest.approx(0.126928, abs=1e-6)
    assert log_loss([100.0], [50.0], (0.5,), v[1:], x[1:], np.array([0])) == pytest.approx(2.147889, abs=1e-6)
    assert log_loss([100.0], [50.0], (0.5,), v, x, np.array([1, 0])) == pytest.approx(1.137409, abs=1e-6)
    # and it agrees with the model itself, away from its rounding to per mille
    model = WdlModel(a=(100.0,), b=(50.0,), low=0, high=78, power=(0.5,))
    assert math.exp(-log_loss(model.a, model.b, model.power, v[:1], x[:1], np.array([1]))) * 1000 \
        == pytest.approx(model.per_mille(400, 40)[0], abs=0.5)
    # a power by material, k(x) = 0.25 + 0.5 x: at x = 1 (m = 58, the fit's norm) 0.75, so v =
    # 400 reads 100 * 4 ** 0.75 = 282.8427 and a win costs -ln(1 / (1 + e^((100 - 282.8427) /
    # 50))) = ln(1 + e^-3.656854) = 0.025486; at x = 0.5, 0.5 and the 0.126928 above
    x = np.array([1.0, 0.5])
    assert log_loss([100.0], [50.0], (0.25, 0.5), v[:1], x[:1], np.array([1])) == pytest.approx(0.025486, abs=1e-6)
    assert log_loss([100.0], [50.0], (0.25, 0.5), v[1:], x[1:], np.array([1])) == pytest.approx(0.126928, abs=1e-6)


def test_epd_suite_switches():
    assert parse_switch("history_pruning=off") == ("history_pruning", False)
    assert parse_switch("singular_extensions=ON") == ("singular_extensions", True)
    assert parse_switch("node_time=0") == ("node_time", False)
    for bad in ("history_pruning", "history_pruning=maybe", "history-pruning=off", "=on", ""):
        with pytest.raises(ValueError, match="NAME=on or NAME=off"):
            parse_switch(bad)
    # every name is a switch the Searcher has
    assert all(isinstance(getattr(Searcher, name, None), property) for name in SWITCHES)


def test_the_fit_finds_the_model_that_made_the_games():
    # Outcomes drawn from a known model with a power by material (k(x) = 0.35 + 0.5 x, a and b
    # cubics of x): the fit of that shape must give back its win, draw and loss chances within
    # 4 points (20,000 outcomes), and predict them better than a power held at 1 can.
    from bench.wdl_fit import fit, model_loss
    truth = WdlModel(a=(180.0, -60.0, 10.0, 5.0), b=(20.0, 40.0, 0.0, 0.0), low=17, high=78,
                     power=(0.35, 0.5))
    rng = np.random.default_rng(20261207)
    obs = []
    for game in range(4000):
        for v, m in zip(rng.uniform(-700, 700, 5), rng.integers(10, 79, 5)):
            w, d, l = truth.per_mille(float(v), int(m))
            outcome = rng.choice([1, 0, -1], p=np.array([w, d, l]) / 1000)
            obs.append((float(v), int(m), int(outcome), game))
    plain = fit(obs, 0, quiet=True)
    bent = fit(obs, 2, quiet=True)
    # (the power itself trades against a and b where the material is high; the chances are
    # what the data fix)
    for m in (20, 40, 58, 78):
        for v in (-400, -150, 0, 80, 250, 500):
            assert all(abs(x - y) <= 40 for x, y in zip(bent.per_mille(v, m), truth.per_mille(v, m)))
    assert model_loss(bent, obs) < model_loss(plain, obs)


def _pgn(folder, games):
    path = folder / "match.pgn"
    path.write_text("\n\n".join(games) + "\n")
    return path


def test_match_endings_tell_mate_adjudication_and_material_from_a_fault(tmp_path):
    from bench.match_total import endings, white_cp
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8"
    queen_up = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
    games = [
        # the fool's mate
        '[Round "1"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1',
        # White a queen up at the end: a win the adjudication would take
        f'[Round "2"]\n[SetUp "1"]\n[FEN "{queen_up}"]\n[Result "1-0"]\n\n1. Qd2 Kf7 1-0',
        # eight plies of knight moves, Black winning in an even position
        f'[Round "3"]\n[Result "0-1"]\n\n{shuffle} 0-1',
        # the same moves with White the winner, and a draw (never looked at)
        f'[Round "4"]\n[Result "1-0"]\n\n{shuffle} 1-0',
        f'[Round "5"]\n[Result "1/2-1/2"]\n\n{shuffle} 1/2-1/2',
    ]
    path = _pgn(tmp_path, games)
    counts, to_look = endings([path])
    assert counts == {"mate": 1, "adjudicated": 0, "ahead": 1, "look": 2}
    assert [entry[1] for entry in to_look] == ["3", "4"]
    # the tee'd scores of the shuffle: each mover sees Black 1500 ahead, so Black's win is an
    # adjudication and White's still needs a look
    moves = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8".split()
    logs = tmp_path / "tee"
    logs.mkdir()
    with (logs / "1-2.jsonl").open("w") as out:
        for ply in range(len(moves)):
            position = "startpos moves " + " ".join(moves[:ply]) if ply else "startpos"
            score = "cp -1500" if ply % 2 == 0 else "cp 1500"
            out.write(json.dumps({"position": position, "score": score,
                                  "bestmove": moves[ply]}) + "\n")
    from bench.wdl_fit import tee_scores
    counts, to_look = endings([path], tee_scores(logs))
    assert counts == {"mate": 1, "adjudicated": 1, "ahead": 1, "look": 1}
    assert [entry[1] for entry in to_look] == ["4"]
    # a mate counts beyond any centipawn score, from the mover's side
    assert white_cp("mate 3", False) == -100000
    assert white_cp("cp 250", False) == -250


FAKE_ENGINE = r'''
import sys
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["uci"]:
        print("id name fake", flush=True)
        print("uciok", flush=True)
    elif words[:1] == ["go"]:
        print("info depth 1 score cp 37 pv e2e4", flush=True)
        print("bestmove e2e4", flush=True)
    elif words[:1] == ["quit"]:
        sys.exit(3)
'''


def test_uci_tee_ends_with_its_engine_though_its_input_stays_open(tmp_path):
    # A host such as python-chess sends `quit` and waits for the tee to exit without closing
    # its pipe: the tee must end when the engine does, with the engine's code, its log whole.
    engine = tmp_path / "fake_engine.py"
    engine.write_text(FAKE_ENGINE)
    tee = Path(__file__).resolve().parents[1] / "bench" / "uci_tee.py"
    logs = tmp_path / "logs"
    process = subprocess.Popen([sys.executable, str(tee), str(logs), "--", sys.executable,
                                str(engine)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, bufsize=1)
    try:
        process.stdin.write("uci\nposition startpos\ngo nodes 1\n")
        process.stdin.flush()
        answers = []
        while not answers or answers[-1] != "bestmove e2e4":
            line = process.stdout.readline()
            assert line, f"the tee's output ended before bestmove, after {answers}"
            answers.append(line.strip())
        process.stdin.write("quit\n")
        process.stdin.flush()
        # stdin stays open; a tee that waited for its end would hang here
        assert process.wait(timeout=60) == 3
    finally:
        process.kill()
        process.stdin.close()
    assert answers[:2] == ["id name fake", "uciok"]
    [log] = list(logs.iterdir())
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        {"position": "startpos", "score": "cp 37", "bestmove": "e2e4"}]
