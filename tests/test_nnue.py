"""The neural evaluation: accumulators kept by make/unmake equal a full refresh, the integer
network agrees with the float one, bad network files are refused, EvalFile and Use NNUE over
UCI.  Only the trainer's tests need PyTorch (the train extra): they are skipped without it,
except on CI (the CI variable set), where .ci/run installs it and a missing torch fails them."""
import os
import random
import struct
import zlib

import chess
import pytest

np = pytest.importorskip("numpy")

from scacco.engine import nnue  # noqa: E402
from scacco.engine.board import Board  # noqa: E402
from scacco.engine.evaluation import evaluate  # noqa: E402
from scacco.engine.search import Searcher  # noqa: E402
from scacco.uci.options import DEFAULT_EVAL_FILE  # noqa: E402
from tests.conftest import REPO_ROOT, read_perft_epd, shared_file  # noqa: E402

STANDARD_FEN = chess.STARTING_FEN


def random_weights(hidden=128, seed=1):
    """Float weights shaped like a trained net's: small feature weights, some units active."""
    rng = np.random.default_rng(seed)
    return {"w1": rng.normal(0.0, 0.06, (768, hidden)), "b1": rng.normal(0.25, 0.1, hidden),
            "w2": np.clip(rng.normal(0.0, 0.3, 2 * hidden), -nnue.OUTPUT_WEIGHT_LIMIT,
                          nnue.OUTPUT_WEIGHT_LIMIT),
            "b2": 0.03}


@pytest.fixture(scope="module")
def weights():
    return random_weights()


@pytest.fixture(scope="module")
def net_bytes(weights):
    return nnue.quantise(weights)


@pytest.fixture(scope="module")
def network(net_bytes):
    return nnue.parse_network(net_bytes)


def require_torch():
    """PyTorch for the trainer's tests: a skip without it, a failure on CI (which installs the
    train extra, so a skip there would hide that the trainer was never run)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        message = "the trainer needs PyTorch (pip install -e '.[train]')"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; CI installs the train extra", pytrace=False)
        pytest.skip(message)


def start_positions():
    """The 500 shared perft positions (400 standard, 100 Chess960) and the start position."""
    shared_file("perft-random.epd")
    out = [(STANDARD_FEN, False)]
    for _, fen, _, _ in read_perft_epd("perft-random.epd"):
        chess960 = any(ch in "abcdefghABCDEFGH" for ch in fen.split()[2])
        out.append((fen, chess960))
    return out


def move_kind(board, uci):
    """'castling', 'en passant', 'promotion' or 'other', from python-chess."""
    ref = chess.Board(board.fen(shredder=board.chess960), chess960=board.chess960)
    move = ref.parse_uci(uci) if not board.chess960 else chess.Move.from_uci(uci)
    if ref.is_castling(move):
        return "castling"
    if ref.is_en_passant(move):
        return "en passant"
    if move.promotion:
        return "promotion"
    return "other"


# ---------------------------------------------------------------------------------------------
# Accumulators


def test_incremental_accumulator_equals_refresh_after_every_move_and_unmake(network):
    """Random games from 501 starts (100 of them Chess960): after every push, pop and null
    move the accumulator make/unmake left is valid and equals one built from scratch."""
    rng = random.Random(13)
    checked = 0
    kinds = {"castling": 0, "en passant": 0, "promotion": 0, "other": 0}
    chess960_castles = 0
    for fen, chess960 in start_positions():
        board = Board(fen, chess960=chess960)
        board.set_network(network)
        evaluate(board)             # builds the root's accumulator, as a search does
        for _ in range(24):
            moves = board.legal_moves()
            if not moves:
                break
            # Prefer the special moves so that each is seen many times.
            special = [m for m in moves if move_kind(board, m) != "other"]
            move = rng.choice(special) if special and rng.random() < 0.5 else rng.choice(moves)
            kind = move_kind(board, move)
            board.push_uci(move)
            kinds[kind] += 1
            chess960_castles += chess960 and kind == "castling"
            valid, difference = board.accumulator_check()
            assert valid, f"{fen}: accumulator stale after {move}"
            assert difference == 0, f"{fen}: accumulator off by {difference} after {move}"
            checked += 1
            if rng.random() < 0.25:
                board.pop()
                valid, difference = board.accumulator_check()
                assert difference == 0 and valid, f"{fen}: after unmaking {move}"
                checked += 1
            if rng.random() < 0.1 and not board.is_check():
                board.push_null()
                valid, difference = board.accumulator_check()
                assert valid and difference == 0, f"{fen}: after a null move"
                board.pop()
    assert checked > 10000
    assert kinds["castling"] > 100 and kinds["en passant"] >= 10 and kinds["promotion"] > 100, kinds
    assert chess960_castles > 20


def test_accumulators_survive_the_state_stack_growing(network):
    """3000 plies of knights going back and forth: the stacks grow (from 1024 states) and every
    accumulator on the way, forwards and backwards, stays equal to a refresh."""
    board = Board()
    board.set_network(network)
    evaluate(board)
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(3000):
        board.push_uci(cycle[i % 4])
        assert board.accumulator_check() == (True, 0), i
    for i in range(3000):
        board.pop()
        assert board.accumulator_check() == (True, 0), i


# White in check from the bishop d5 has one legal move, Kg1; then Black has no capture and no
# check (python-chess says so in the test), so a depth-1 search scores the root as minus the
# static evaluation of the position after Kg1, and nothing else.
ONE_MOVE_FEN = "1k6/8/8/3b4/8/8/7P/7K w - - 0 1"


def test_search_with_network_in_threads_scores_with_the_network(network):
    """A search with the network in several threads evaluates with the network: at depth 1
    the score is minus the network's from-scratch evaluation of the one position it leads to
    (Board.network_evaluation), for the main thread and for every helper that completed the
    iteration, and not the classical evaluation's; deeper searches end with legal moves, after
    a change of the thread count too."""
    reference = chess.Board(ONE_MOVE_FEN)
    assert [m.uci() for m in reference.legal_moves] == ["h1g1"]
    reference.push_uci("h1g1")
    assert not reference.is_check()
    assert not [m for m in reference.legal_moves if reference.is_capture(m) or reference.gives_check(m)]
    after = Board(reference.fen())
    expected = -after.network_evaluation(network)[0]
    assert expected != -evaluate(after)          # the two evaluations tell apart here
    board = Board(ONE_MOVE_FEN)
    for threads in (2, 4):
        searcher = Searcher(16, threads=threads)
        searcher.set_network(network)
        result = searcher.search(board, depth=1)
        assert (result.best_move, result.score) == ("h1g1", expected), threads
        for depth, _, score, _, _ in searcher._core.thread_results():
            assert (depth, score) == (1, expected), threads
    searcher.set_network(None)
    assert searcher.search(board, depth=1).score == -evaluate(after)
    searcher.set_network(network)
    board = Board("r3k2r/pp3ppp/2n5/3pP3/8/2N5/PPP2PPP/R3K2R w KQkq d6 0 1")
    assert searcher.search(board, depth=7).best_move in board.legal_moves()
    searcher.set_threads(3)             # new helpers get accumulators of their own
    assert searcher.search(board, depth=6).best_move in board.legal_moves()
    searcher.set_network(None)
    assert searcher.network is None
    assert searcher.search(board, depth=5).best_move in board.legal_moves()


def test_board_evaluation_with_network_is_the_fresh_one(network):
    board = Board()
    board.set_network(network)
    for move in ["e2e4", "d7d5", "e4d5", "g8f6", "f1b5", "c7c6", "d5c6", "d8d2", "b1d2"]:
        board.push_uci(move)
        score, _ = board.network_evaluation(network)
        assert evaluate(board) == score


# ---------------------------------------------------------------------------------------------
# Integer net against float net

SUITE_POSITIONS = 300


def suite_boards():
    boards = [Board(fen, chess960=c960) for fen, c960 in start_positions()[:SUITE_POSITIONS]]
    return boards


def test_integer_output_matches_dequantised_float_forward(network, net_bytes):
    """Only the integer divisions of the output layer differ from a float forward pass of the
    very weights in the file: within 2 centipawns."""
    float_weights = nnue.dequantise(net_bytes)
    for board in suite_boards():
        _, output = board.network_evaluation(network)
        us, them = nnue.board_features(board)
        reference = nnue.float_output(float_weights, us, them)
        assert abs(output - reference) <= 2, board.fen()


# The stated tolerance of quantisation: on every position the integer net is within this many
# centipawns of the float net it was made from (plus this share of the evaluation's size), and
# within QUANTISATION_MEAN_CP on average.  The error does not shrink with the output: it grows
# with the number of active units.  Nearly all of it is the output weights' step of 1/64
# (QB): with a couple of hundred units active, each weight off by up to 1/128, the output is off
# by a few hundredths of a unit of 400 cp, and these errors need not cancel (the trainer
# corrects the output bias for their mean; bench/nnue_quantisation.py measures what is left).
QUANTISATION_CP = 45
QUANTISATION_SHARE = 0.05
QUANTISATION_MEAN_CP = 15


def assert_agrees_with_floats(network, weights):
    """The integer network's output against the float forward pass, on every suite position,
    within the tolerances above."""
    errors = []
    scale = network.constants[2]
    for board in suite_boards():
        _, output = board.network_evaluation(network)
        us, them = nnue.board_features(board)
        reference = nnue.float_output(weights, us, them, scale)
        errors.append(abs(output - reference))
        assert abs(output - reference) <= QUANTISATION_CP + QUANTISATION_SHARE * abs(reference), board.fen()
    assert np.mean(errors) <= QUANTISATION_MEAN_CP


def test_quantised_net_agrees_with_float_net(network, weights):
    assert_agrees_with_floats(network, weights)


def padded_features(boards):
    """(us, them) int arrays [N, 32] of the boards' active inputs, padded with INPUTS."""
    us = np.full((len(boards), 32), nnue.INPUTS, dtype=np.int16)
    them = np.full((len(boards), 32), nnue.INPUTS, dtype=np.int16)
    for i, board in enumerate(boards):
        a, b = nnue.board_features(board)
        us[i, :len(a)], them[i, :len(b)] = a, b
    return us, them


def assert_batches_agree(weights, boards):
    """float_outputs over the boards in odd-sized chunks equals float_output one by one."""
    batched = nnue.float_outputs(weights, *padded_features(boards), chunk=7)
    for board, value in zip(boards, batched):
        assert value == pytest.approx(nnue.float_output(weights, *nnue.board_features(board)),
                                      abs=1e-6)


def test_batched_float_outputs_equal_the_single_forward_pass(weights):
    assert_batches_agree(weights, suite_boards()[:100])


# ---------------------------------------------------------------------------------------------
# Output buckets by piece count


def fen_pieces(fen):
    """The pieces on the board of a FEN, kings included, counted from its placement field."""
    return sum(ch.isalpha() for ch in fen.split()[0])


def bucketed_weights(buckets, hidden=64, seed=4):
    """Random float weights with `buckets` output layers of their own."""
    rng = np.random.default_rng(seed)
    weights = random_weights(hidden, seed)
    weights["w2"] = np.clip(rng.normal(0.0, 0.3, (buckets, 2 * hidden)),
                            -nnue.OUTPUT_WEIGHT_LIMIT, nnue.OUTPUT_WEIGHT_LIMIT)
    weights["b2"] = rng.normal(0.0, 0.1, buckets)
    return weights


def test_output_buckets_choose_the_layer_of_the_piece_count():
    """Eight layers that differ only by their bias, a quarter of a unit (100 cp at scale
    400) apart: on every suite position the integer output exceeds the one-layer net's by
    100 cp times the bucket, (pieces - 2) // 4 capped at 7 (bullet's material-count buckets),
    the pieces counted from the FEN."""
    base = random_weights(hidden=64, seed=2)
    single = nnue.parse_network(nnue.quantise(base))
    layered = dict(base, w2=np.tile(base["w2"], (8, 1)), b2=base["b2"] + 0.25 * np.arange(8))
    bucketed = nnue.parse_network(nnue.quantise(layered))
    assert (single.buckets, bucketed.buckets) == (1, 8)
    seen = set()
    for board in suite_boards():
        bucket = min((fen_pieces(board.fen()) - 2) // 4, 7)
        seen.add(bucket)
        _, one = board.network_evaluation(single)
        _, many = board.network_evaluation(bucketed)
        assert abs(many - one - 100 * bucket) <= 1, board.fen()
    assert len(seen) >= 4        # the suite reaches several buckets, not only the full board


@pytest.mark.parametrize("buckets", [2, 5, 8])
def test_bucketed_net_agrees_with_its_float_weights(buckets):
    weights = bucketed_weights(buckets)
    network = nnue.parse_network(nnue.quantise(weights))
    assert network.buckets == buckets
    assert_agrees_with_floats(network, weights)
    assert_batches_agree(weights, suite_boards()[:60])


def test_bucketed_files_are_version_2_and_read_back_as_they_were_written(net_bytes):
    assert nnue.HEADER.unpack_from(net_bytes)[1] == 1          # one layer: version 1
    assert nnue.HEADER.unpack_from(net_bytes)[8] == 0
    data = nnue.quantise(bucketed_weights(8))
    header = nnue.HEADER.unpack_from(data)
    assert (header[1], header[8]) == (2, 8)
    again = nnue.dequantise(data)
    assert again["w2"].shape == (8, 128) and again["b2"].shape == (8,)
    assert nnue.quantise(again) == data
    # the layout of engine/nnue.py's docstring: int16 [768][64], [64], [8][2][64], int32 [8]
    assert len(data) == 32 + 2 * (768 * 64 + 64 + 8 * 2 * 64) + 4 * 8
    cases = {"one bucket in version 2": (with_header(data, version=2, reserved=1), "output buckets"),
             "nine buckets": (with_header(data, reserved=9), "output buckets"),
             "version 1 with buckets": (with_header(data, version=1), "reserved field")}
    for name, (bad, reason) in cases.items():
        with pytest.raises(nnue.NetworkError, match=reason):
            nnue.parse_network(bad, "test.nnue")


def test_bias_correction_takes_out_a_systematic_rounding_shift(weights):
    """Output weights 0.45 of a step above a multiple of 1/QB all round down, so every position
    comes out lower by the sum of its activations times 0.45/QB.  Corrected on the positions,
    the integer net's mean difference to the float net (float_output, one position at a time)
    is within a centipawn: half a centipawn of integer rounding per position at most, and the
    bias step of 400/(QA*QB)."""
    shifted = dict(weights)
    shifted["w2"] = (np.floor(np.asarray(weights["w2"]) * nnue.QB) + 0.45) / nnue.QB
    boards = suite_boards()
    us, them = padded_features(boards)

    def mean_difference(data):
        network = nnue.parse_network(data)
        return np.mean([board.network_evaluation(network)[1]
                        - nnue.float_output(shifted, *nnue.board_features(board))
                        for board in boards])

    assert mean_difference(nnue.quantise(shifted)) < -10
    assert abs(mean_difference(nnue.quantise(shifted, (us, them)))) <= 1.0


def test_the_output_scale_fit_recovers_the_factor_the_scores_were_made_with(weights):
    """Scores made as 0.6 times the float net's evaluation (plus noise that averages out) give
    the header scale 0.6 * 400 = 240; positions beyond the fit's limit do not count."""
    boards = suite_boards()
    us, them = padded_features(boards)
    evals = nnue.float_outputs(weights, us, them)
    rng = np.random.default_rng(1)
    noise = rng.choice([-1.0, 1.0], size=len(evals)) * 5.0
    scores = 0.6 * evals + noise * (np.abs(evals) > 1)
    far = np.abs(evals) > nnue.SCALE_FIT_LIMIT
    scores[far] = -scores[far]              # would pull the fit down if they counted
    assert abs(nnue.fit_output_scale(weights, us, them, scores) - 240) <= 1
    assert nnue.fit_output_scale(weights, us, them, 0.6 * evals) == 240
    with pytest.raises(nnue.NetworkError, match="no position"):
        nnue.fit_output_scale(weights, us, them, np.full(len(evals), 5000.0))


def test_the_header_scale_scales_the_engines_evaluation(weights):
    """The engine evaluates (integer output) x scale / (QA * QB): with scale 250 instead of
    400 every evaluation is 250/400 of the other within the truncation of a centipawn."""
    full = nnue.parse_network(nnue.quantise(weights))
    data = nnue.quantise(weights, scale=250)
    assert nnue.HEADER.unpack_from(data)[7] == 250
    scaled = nnue.parse_network(data)
    for board in suite_boards()[:60]:
        a, b = board.network_evaluation(full)[1], board.network_evaluation(scaled)[1]
        assert abs(b - a * 250 / 400) <= 1.5, board.fen()
    assert_agrees_with_floats(scaled, weights)       # the float pass at the header's scale


def test_packaged_net_agrees_with_its_float_weights():
    """The shipped network against the float weights the trainer wrote for it (kept in
    tests/data), with the same tolerance."""
    floats = REPO_ROOT / "tests" / "data" / (nnue.DEFAULT_NETWORK + ".npz")
    assert nnue.default_network_path().exists() and floats.exists()
    assert_agrees_with_floats(nnue.read_network(nnue.default_network_path()), dict(np.load(floats)))


def test_features_follow_the_perspective_rules():
    """e2 pawn of white: input 0*64*... by hand: white's view (ours, pawn, e2 = 12), black's
    view (theirs, pawn, e2 flipped = e7 = 52)."""
    board = Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    us, them = nnue.board_features(board)
    assert sorted(us) == sorted([0 * 64 + 12, 5 * 64 + 4, 11 * 64 + 60])
    assert sorted(them) == sorted([6 * 64 + 52, 11 * 64 + 60, 5 * 64 + 4])


# ---------------------------------------------------------------------------------------------
# Bad files


def corrupt(data, offset, value):
    out = bytearray(data)
    out[offset] = value
    return bytes(out)


def with_header(data, **fields):
    names = ["magic", "version", "inputs", "hidden", "activation", "qa", "qb", "scale",
             "reserved", "size", "crc"]
    values = dict(zip(names, nnue.HEADER.unpack_from(data)))
    values.update(fields)
    return nnue.HEADER.pack(*[values[n] for n in names]) + data[nnue.HEADER_BYTES:]


def test_bad_network_files_are_refused_with_the_reason(net_bytes):
    cases = {
        "empty": (b"", "too short"),
        "header only": (net_bytes[:nnue.HEADER_BYTES], "truncated"),
        "truncated": (net_bytes[:-100], "truncated"),
        "too long": (net_bytes + b"\0", "too long"),
        "magic": (b"NOTANET!" + net_bytes[8:], "not a Scacco network"),
        "version": (with_header(net_bytes, version=9), "version 9"),
        "inputs": (with_header(net_bytes, inputs=512), "512 inputs"),
        "hidden": (with_header(net_bytes, hidden=1024), "hidden size 1024"),
        "size": (with_header(net_bytes, size=12), "payload bytes"),
        "flipped byte": (corrupt(net_bytes, 1000, net_bytes[1000] ^ 0x40), "checksum"),
    }
    for name, (data, reason) in cases.items():
        with pytest.raises(nnue.NetworkError, match=reason):
            nnue.parse_network(data, "test.nnue")
    with pytest.raises(nnue.NetworkError, match="cannot read"):
        nnue.read_network("/nonexistent/net.nnue")


def test_out_of_range_output_weight_is_refused_even_with_a_good_checksum(net_bytes):
    payload = bytearray(net_bytes[nnue.HEADER_BYTES:])
    hidden = nnue.HEADER.unpack_from(net_bytes)[3]
    struct.pack_into("<h", payload, 2 * 768 * hidden + 2 * hidden, 300)
    data = with_header(net_bytes, crc=zlib.crc32(bytes(payload)))[:nnue.HEADER_BYTES] + bytes(payload)
    with pytest.raises(nnue.NetworkError, match="-128..127"):
        nnue.parse_network(data)


def test_default_eval_file_names_agree():
    assert DEFAULT_EVAL_FILE == nnue.DEFAULT_NETWORK


def test_a_searcher_evaluates_with_the_network_it_is_given():
    from scacco.engine.search import PACKAGED
    assert Searcher(1).network is nnue.packaged_network()             # the default
    assert Searcher(1, network=None).network is None                   # classical
    assert Searcher(1, network=PACKAGED).network is nnue.packaged_network()
    assert nnue.packaged_network() is nnue.packaged_network()        # read once
    assert nnue.packaged_network().hidden == nnue.read_network(nnue.default_network_path()).hidden


def test_an_unusable_packaged_network_falls_back_to_the_classical_evaluation(
        tmp_path, monkeypatch, capsys):
    from scacco.engine import search
    broken = tmp_path / nnue.DEFAULT_NETWORK
    broken.write_bytes(b"SCACCONN")
    monkeypatch.setattr(nnue, "default_network_path", lambda: broken)
    monkeypatch.setattr(nnue, "_packaged", [])
    monkeypatch.setattr(search, "_packaged_refusal", [])
    searcher = Searcher(1, network=search.PACKAGED)
    assert searcher.network is None
    said = capsys.readouterr().err
    assert "too short" in said and "classical evaluation" in said
    assert searcher.search(Board(), depth=3).best_move in {m.uci() for m in chess.Board().legal_moves}
    Searcher(1, network=search.PACKAGED)
    assert capsys.readouterr().err == ""           # said once


# ---------------------------------------------------------------------------------------------
# UCI


def test_eval_file_and_use_nnue_over_uci(engine, tmp_path, net_bytes):
    good = tmp_path / "good.nnue"
    good.write_bytes(net_bytes)
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(net_bytes[:-1])
    engine.send(f"setoption name EvalFile value {good}")
    engine.send("setoption name Use NNUE value true")
    engine.sync()
    engine.send("position startpos moves e2e4")
    lines = engine.ask("eval", " NNUE evaluation")
    assert "in use" in lines[-1] and "not in use" not in lines[-1] and str(good) in lines[-1]
    engine.send(f"setoption name EvalFile value {bad}")
    lines = engine.sync()
    assert any("truncated" in line and "EvalFile unchanged" in line for line in lines), lines
    lines = engine.ask("eval", " NNUE evaluation")
    assert str(good) in lines[-1] and "in use" in lines[-1]
    moves = engine.bestmove("go depth 6")
    best = moves[-1].split()[1]
    ref = chess.Board()
    ref.push_uci("e2e4")
    assert chess.Move.from_uci(best) in ref.legal_moves
    engine.send("setoption name Use NNUE value false")
    lines = engine.ask("eval", " NNUE evaluation")
    assert "not in use" in lines[-1]
    ref_best = engine.bestmove("go depth 4")[-1].split()[1]
    assert chess.Move.from_uci(ref_best) in ref.legal_moves


def test_bench_says_which_evaluation_it_searched_with(engine):
    lines = engine.ask("bench 2", "Nodes/second")
    assert any(line.split() == ["Evaluation", ":", "NNUE"] for line in lines), lines
    engine.send("setoption name Use NNUE value false")
    lines = engine.ask("bench 2", "Nodes/second")
    assert any(line.split() == ["Evaluation", ":", "classical"] for line in lines), lines


def test_the_network_is_the_default_evaluation_over_uci(engine):
    """Use NNUE is on from the start: `eval` says the packaged network is in use, and the
    option can turn it off."""
    lines = engine.ask("eval", " NNUE evaluation")
    assert "in use" in lines[-1] and "not in use" not in lines[-1], lines
    assert nnue.DEFAULT_NETWORK in lines[-1]
    engine.send("setoption name Use NNUE value false")
    lines = engine.ask("eval", " NNUE evaluation")
    assert "not in use" in lines[-1], lines


def test_use_nnue_without_a_loadable_network_changes_nothing(engine, tmp_path):
    missing = tmp_path / "missing.nnue"
    engine.send(f"setoption name EvalFile value {missing}")
    engine.send("setoption name Use NNUE value true")
    lines = engine.sync()
    assert any("EvalFile unchanged" in line for line in lines), lines
    if not nnue.default_network_path().exists():
        assert any("Use NNUE unchanged" in line for line in lines), lines
    engine.send("position startpos")
    assert engine.bestmove("go depth 4")[-1].startswith("bestmove ")


# ---------------------------------------------------------------------------------------------
# Training data decoding and the trainer


def self_play_data(path, games, seed, chess960_share):
    """A small `scacco datagen` file: `games` games at 300 nodes a move from the shared
    openings, 8 random plies each."""
    import io
    from scacco.engine.training.datagen import generate

    generate(path, games, nodes=300, seed=seed, random_plies=8, chess960_share=chess960_share,
             openings=shared_file("chessathome_openings.fen"), jobs=1, stream=io.StringIO())
    return path


def test_decoded_features_match_the_positions_of_a_data_file(tmp_path):
    """The trainer's vectorised decoding gives the inputs board_features gives for the FEN
    the data file's own reader decodes."""
    from scacco.engine.training.datagen import load_numpy, read_positions
    from scacco.engine.training.nnue_train import PAD, decode_features

    path = tmp_path / "d.bin"
    self_play_data(path, 3, seed=5, chess960_share=0.5)
    records = load_numpy(path)
    us, them = decode_features(records)
    for i, position in enumerate(read_positions(path)):
        board = Board(position.fen)
        want_us, want_them = nnue.board_features(board)
        assert sorted(int(x) for x in us[i] if x != PAD) == sorted(want_us)
        assert sorted(int(x) for x in them[i] if x != PAD) == sorted(want_them)
    assert len(records) > 0


def test_trainer_is_deterministic_and_its_net_loads(tmp_path):
    require_torch()
    from scacco.engine.training.nnue_train import train
    import io

    data = tmp_path / "d.bin"
    self_play_data(data, 4, seed=7, chess960_share=0.25)
    outputs = []
    for run in range(2):
        out = tmp_path / f"net{run}.nnue"
        train([str(data)], str(out), seed=3, hidden=32, epochs=2, batch=64, stream=io.StringIO())
        outputs.append(out.read_bytes())
        network = nnue.read_network(out)
        assert network.hidden == 32
    assert outputs[0] == outputs[1]


def test_trainer_goes_on_from_the_float_weights_of_an_earlier_run(tmp_path):
    """--init: with a learning rate of 0 the net trained from an earlier run's weights is that
    run's net, byte for byte; weights of another hidden size are refused with the reason."""
    require_torch()
    from scacco.engine.training.datagen import DatagenError
    from scacco.engine.training.nnue_train import train
    import io

    data = tmp_path / "d.bin"
    self_play_data(data, 3, seed=5, chess960_share=0.0)
    first = tmp_path / "first.nnue"
    train([str(data)], str(first), seed=3, hidden=16, epochs=1, batch=64, stream=io.StringIO())
    again = tmp_path / "again.nnue"
    train([str(data)], str(again), seed=4, hidden=16, epochs=1, batch=64, lr=0.0,
          init=str(first) + ".npz", stream=io.StringIO())
    assert again.read_bytes() == first.read_bytes()
    before, after = np.load(str(first) + ".npz"), np.load(str(again) + ".npz")
    for key in ("w1", "b1", "w2", "b2"):
        assert np.array_equal(before[key], after[key])
    with pytest.raises(DatagenError, match="hidden units"):
        train([str(data)], str(tmp_path / "other.nnue"), seed=3, hidden=8, epochs=1, batch=64,
              init=str(first) + ".npz", stream=io.StringIO())


def test_trainer_learns_output_buckets_that_the_engine_reads(tmp_path):
    """--output-buckets 4: the exported net has four layers; the engine's integer output agrees
    with the float weights the trainer saved beside it; a run from them (--init, learning rate
    0) gives the same file, and weights of another bucket count are refused."""
    require_torch()
    from scacco.engine.training.datagen import DatagenError
    from scacco.engine.training.nnue_train import train
    import io

    data = tmp_path / "d.bin"
    self_play_data(data, 3, seed=6, chess960_share=0.0)
    out = tmp_path / "b.nnue"
    train([str(data)], str(out), seed=3, hidden=16, buckets=4, epochs=1, batch=64,
          stream=io.StringIO())
    network = nnue.read_network(out)
    assert (network.hidden, network.buckets) == (16, 4)
    with np.load(str(out) + ".npz") as saved:
        weights = {key: saved[key] for key in ("w1", "b1", "w2", "b2")}
    assert weights["w2"].shape == (4, 32) and weights["b2"].shape == (4,)
    assert_agrees_with_floats(network, weights)
    again = tmp_path / "again.nnue"
    train([str(data)], str(again), seed=4, hidden=16, buckets=4, epochs=1, batch=64, lr=0.0,
          init=str(out) + ".npz", stream=io.StringIO())
    assert again.read_bytes() == out.read_bytes()
    with pytest.raises(DatagenError, match="output bucket"):
        train([str(data)], str(tmp_path / "other.nnue"), seed=3, hidden=16, buckets=2,
              epochs=1, batch=64, init=str(out) + ".npz", stream=io.StringIO())


def test_a_single_layer_net_starts_every_output_bucket(tmp_path):
    """--init with one output layer and --output-buckets 4: at a learning rate of 0 each of the
    four layers is the single one, so the bucketed net evaluates every position as the single
    net does (the integer outputs differ only by the output bias correction, made per bucket on
    that bucket's held-out positions: a centipawn or two)."""
    require_torch()
    from scacco.engine.training.nnue_train import train
    import io

    data = tmp_path / "d.bin"
    self_play_data(data, 3, seed=8, chess960_share=0.0)
    single = tmp_path / "single.nnue"
    train([str(data)], str(single), seed=3, hidden=16, epochs=1, batch=64, stream=io.StringIO())
    spread = tmp_path / "spread.nnue"
    train([str(data)], str(spread), seed=4, hidden=16, buckets=4, epochs=1, batch=64, lr=0.0,
          init=str(single) + ".npz", stream=io.StringIO())
    with np.load(str(single) + ".npz") as one, np.load(str(spread) + ".npz") as four:
        assert four["w2"].shape == (4, 32) and four["b2"].shape == (4,)
        for bucket in range(4):
            assert np.array_equal(four["w2"][bucket], one["w2"])
            assert four["b2"][bucket] == one["b2"]
        assert np.array_equal(four["w1"], one["w1"]) and np.array_equal(four["b1"], one["b1"])
    one_net, four_net = nnue.read_network(single), nnue.read_network(spread)
    assert (one_net.buckets, four_net.buckets) == (1, 4)
    seen = set()
    for board in suite_boards():
        seen.add(min((fen_pieces(board.fen()) - 2) // 4, 3))
        _, one = board.network_evaluation(one_net)
        _, four = board.network_evaluation(four_net)
        assert abs(one - four) <= 2, board.fen()
    assert len(seen) >= 3        # the suite reaches several of the four buckets


def test_score_factors_scale_a_files_scores_as_its_own_reader_reads_them(tmp_path):
    from scacco.engine.training.datagen import DatagenError, read_positions
    from scacco.engine.training.nnue_train import MAX_SCORE, load
    import io

    first, second = tmp_path / "a.bin", tmp_path / "b.bin"
    self_play_data(first, 2, seed=8, chess960_share=0.0)
    self_play_data(second, 2, seed=9, chess960_share=0.0)
    _, _, score, _, _ = load([str(first), str(second)], io.StringIO(), {str(second): 0.5})
    want = [p.score for p in read_positions(first)] + [p.score * 0.5 for p in read_positions(second)]
    want = [x for x in want if abs(x) <= MAX_SCORE]
    assert score.tolist() == pytest.approx(want)
    with pytest.raises(DatagenError, match="not among the data"):
        load([str(first)], io.StringIO(), {str(second): 0.5})


def test_the_trainer_fits_the_output_scale_on_its_held_out_positions(tmp_path):
    """--calibrate-scale: the header's scale is 400 times the least-squares factor between the
    held-out positions' scores and the float net's evaluations (worked out here with numpy's
    lstsq), and the weights are those of the uncalibrated run."""
    require_torch()
    import io
    import torch
    from scacco.engine.training.nnue_train import train

    data = tmp_path / "d.bin"
    self_play_data(data, 61, seed=10, chess960_share=0.0)       # games 0, 20, 40, 60 held out
    plain, fitted = tmp_path / "plain.nnue", tmp_path / "fitted.nnue"
    train([str(data)], str(plain), seed=2, hidden=16, epochs=1, batch=64, stream=io.StringIO())
    train([str(data)], str(fitted), seed=2, hidden=16, epochs=1, batch=64, calibrate_scale=True,
          stream=io.StringIO())
    weights = dict(np.load(str(fitted) + ".npz"))
    us, them, scores = torch.load(str(fitted) + ".ckpt", weights_only=False)["calibration"]
    evals = nnue.float_outputs(weights, us, them)
    use = (np.abs(scores) <= nnue.SCALE_FIT_LIMIT) & (np.abs(evals) <= nnue.SCALE_FIT_LIMIT)
    k = np.linalg.lstsq(evals[use, None], np.asarray(scores, dtype=np.float64)[use], rcond=None)[0][0]
    header = nnue.HEADER.unpack_from(fitted.read_bytes())
    assert header[7] == round(400 * k) and header[7] != 400
    assert fitted.read_bytes()[nnue.HEADER_BYTES:] == plain.read_bytes()[nnue.HEADER_BYTES:]


def test_bad_score_factors_are_refused_by_the_command_line(tmp_path, capsys):
    from scacco.uci.cli.training import train as main

    data = tmp_path / "d.bin"
    data.write_bytes(b"")
    for bad in (f"{data}=0", f"{data}=x", "=2", f"{tmp_path / 'other.bin'}=2"):
        with pytest.raises(SystemExit) as stop:
            main([str(data), "--out", str(tmp_path / "n.nnue"), "--score-factor", bad])
        assert stop.value.code == 2
        assert "--score-factor" in capsys.readouterr().err


def test_checkpoint_of_an_older_trainer_is_exported_with_the_data_it_was_trained_on(tmp_path):
    """A checkpoint without calibration positions (written before they were kept) is exported
    from the data files named with it, to the very file training wrote; without them the
    export is refused with the reason."""
    require_torch()
    import io
    import torch
    from scacco.engine.training.datagen import DatagenError
    from scacco.engine.training.nnue_train import export_checkpoint, train

    data = tmp_path / "d.bin"
    self_play_data(data, 3, seed=6, chess960_share=0.0)
    out = tmp_path / "net.nnue"
    train([str(data)], str(out), seed=2, hidden=16, epochs=1, batch=64, stream=io.StringIO())
    state = torch.load(str(out) + ".ckpt", weights_only=False)
    del state["calibration"]
    old = tmp_path / "old.ckpt"
    torch.save(state, old)
    with pytest.raises(DatagenError, match="calibration"):
        export_checkpoint(str(old), str(tmp_path / "x.nnue"), stream=io.StringIO())
    again = tmp_path / "again.nnue"
    export_checkpoint(str(old), str(again), [str(data)], stream=io.StringIO())
    assert again.read_bytes() == out.read_bytes()
