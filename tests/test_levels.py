"""Playing levels: monotonic budgets, plausible moves, and no missed forced mate."""
import random

import chess
import pytest

from scacco.engine import Board
from scacco.engine.levels import (MAX_ELO, MIN_ELO, NAMED_LEVELS, level_for_elo, level_for_skill,
                           play, play_weakened)
from scacco.engine.search import PACKAGED, Searcher
from tests.conftest import shared_file
from tests.oracles import forces_mate


def test_budgets_grow_and_noise_shrinks_with_the_rating():
    levels = [level_for_elo(elo) for elo in range(MIN_ELO, MAX_ELO + 1, 50)]
    for lower, higher in zip(levels, levels[1:]):
        assert lower.nodes <= higher.nodes
        assert lower.depth <= higher.depth
        assert lower.candidates >= higher.candidates
        assert lower.margin >= higher.margin
        assert lower.temperature >= higher.temperature


def test_lower_level_never_out_searches_a_higher_one():
    searcher = Searcher()
    board = Board("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3")
    nodes = []
    for elo in sorted(NAMED_LEVELS.values()):
        level = level_for_elo(elo)
        searcher.clear()
        result = searcher.search(board, nodes=level.nodes, depth=level.depth, multipv=level.candidates)
        nodes.append((result.nodes, result.depth))
    for (n_low, d_low), (n_high, d_high) in zip(nodes, nodes[1:]):
        assert d_low <= d_high
        assert n_low <= n_high * 1.05 + 64


def test_ratings_are_clamped_and_skill_twenty_is_full_strength():
    assert level_for_elo(100).elo == MIN_ELO and level_for_elo(5000).elo == MAX_ELO
    assert level_for_skill(20) is None
    assert level_for_skill(0).elo == MIN_ELO
    assert level_for_skill(10).nodes < level_for_skill(19).nodes


@pytest.mark.parametrize("name,n", [("mate1.fen", 1), ("mate2.fen", 2), ("mate3.fen", 3)])
def test_weakest_level_plays_the_mate(name, n):
    """Every position of the shared mate-in-1, 2 and 3 files: the weakest level plays a move
    that python-chess proves still forces mate in n, and reports that mate."""
    searcher = Searcher()
    weakest = level_for_elo(MIN_ELO)
    rng = random.Random(7)
    lines = [l for l in shared_file(name).read_text().splitlines() if l.strip()]
    for line in lines:
        result = play_weakened(searcher, Board(line), weakest, rng=rng)
        assert result.score_mate == n, line
        assert forces_mate(chess.Board(line), chess.Move.from_uci(result.best_move), n), \
            (line, result.best_move)


@pytest.mark.parametrize("network", [None, PACKAGED], ids=["classical", "network"])
def test_weak_moves_are_legal_and_within_the_margin(network):
    # The candidates play_weakened chose from (on_candidates), not a second search: the move
    # played is one of them and never more than the level's margin below the best.
    searcher = Searcher(network=network)
    rng = random.Random(11)
    board = Board()
    reference = chess.Board()
    for ply in range(24):
        level = level_for_elo((MIN_ELO, 1200, 2100)[ply % 3], network is not None)
        seen = []
        result = play_weakened(searcher, board, level, rng=rng, on_candidates=seen.extend)
        assert chess.Move.from_uci(result.best_move) in reference.legal_moves
        if seen:
            best = max(info.score for info in seen)
            assert result.best_move in [info.pv[0] for info in seen]
            assert best - result.score <= level.margin or (result.score_mate or 0) < 0
        board.push_uci(result.best_move)
        reference.push_uci(result.best_move)
        if reference.is_game_over():
            break


def test_smallest_budget_still_weighs_several_candidates():
    # Kiwipete is full of captures: Beginner's node budget runs out inside the first
    # iteration, and the level must still score its candidates and vary among them rather
    # than always play the one line that was finished.
    fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    searcher = Searcher()
    level = level_for_elo(NAMED_LEVELS["Beginner"])
    reference = chess.Board(fen)
    played = set()
    for seed in range(20):
        searcher.clear()     # a warm table would let the budget go further than in a game
        result = play_weakened(searcher, Board(fen), level, rng=random.Random(seed))
        assert chess.Move.from_uci(result.best_move) in reference.legal_moves
        played.add(result.best_move)
    assert len(played) >= 2, played


@pytest.mark.parametrize("network", [None, PACKAGED], ids=["classical", "network"])
def test_weak_level_does_not_give_away_a_piece_for_nothing(network):
    # Black to move; the knight on f6 is attacked by the pawn on e5 and must not be left there.
    fen = "rnbqkb1r/pppppppp/5n2/4P3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
    searcher = Searcher(network=network)
    rng = random.Random(5)
    level = level_for_elo(NAMED_LEVELS["Beginner"], network is not None)
    for _ in range(12):
        move = play_weakened(searcher, Board(fen), level, rng=rng).best_move
        after = chess.Board(fen)
        after.push_uci(move)
        hanging = [reply for reply in after.legal_moves if after.is_capture(reply)
                   and after.piece_type_at(reply.to_square) in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
                   and after.piece_type_at(reply.from_square) == chess.PAWN]
        assert not hanging, (move, [m.uci() for m in hanging])


def test_weak_level_still_answers_when_every_line_is_mated():
    # Black's only move (Kg8) is met by Ra8 mate; the weakened move must still be legal.
    fen = "7k/8/6K1/8/8/8/8/R7 b - - 0 1"
    ref = chess.Board(fen)
    assert not ref.is_game_over()
    searcher = Searcher()
    for elo in (MIN_ELO, 1500, 2100):
        result = play_weakened(searcher, Board(fen), level_for_elo(elo), rng=random.Random(3))
        assert chess.Move.from_uci(result.best_move) in ref.legal_moves


def test_a_movetime_caps_a_level_search():
    # A level plays from its node budget; a movetime (here 50 ms, far less than the 400,000
    # nodes of the strongest level take) ends its search sooner, still with a legal move.
    level = level_for_elo(2400)
    result = play(Searcher(16), Board(), limit_strength=True, elo=2400, movetime=50)
    assert chess.Move.from_uci(result.best_move) in chess.Board().legal_moves
    assert result.nodes < level.nodes


def test_each_evaluation_plays_the_levels_of_its_own_table():
    """play() takes the level from the table of the searcher's evaluation: move for move the
    same as play_weakened with that table's level (node budgets and one thread make it
    deterministic), and the two tables differ."""
    assert level_for_elo(1500, network=True) != level_for_elo(1500, network=False)
    for network in (PACKAGED, None):
        searcher, twin = Searcher(network=network), Searcher(network=network)
        board = Board()
        for ply in range(8):
            elo = (MIN_ELO, 1200, 1800, 2100)[ply % 4]
            ours = play(searcher, board, limit_strength=True, elo=elo, rng=random.Random(ply))
            theirs = play_weakened(twin, board, level_for_elo(elo, network is not None),
                                   rng=random.Random(ply))
            assert (ours.best_move, ours.score) == (theirs.best_move, theirs.score), (network, ply)
            board.push_uci(ours.best_move)


def test_play_takes_the_limits_as_a_value_or_as_keywords():
    from scacco.engine.limits import SearchLimits
    board = Board()
    # full strength: the limits reach the search whole
    assert play(Searcher(1, threads=1), board, SearchLimits(depth=3)).depth == 3
    by_value = play(Searcher(16), board, SearchLimits(movetime=50), limit_strength=True,
                    elo=2400, rng=random.Random(1))
    assert chess.Move.from_uci(by_value.best_move) in chess.Board().legal_moves
    assert by_value.nodes < level_for_elo(2400).nodes               # capped as by keywords
    same = [play(Searcher(16), board, limits, limit_strength=True, elo=900, rng=random.Random(5))
            for limits in (SearchLimits(nodes=10 ** 6), None)]
    assert same[0].best_move == same[1].best_move and same[0].score == same[1].score
    with pytest.raises(ValueError, match="not both"):
        play(Searcher(1), board, SearchLimits(depth=2), depth=3)
    with pytest.raises(ValueError, match="depth"):
        play(Searcher(1), board, depth=0)
