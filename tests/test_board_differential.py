"""engine.Board against python-chess on thousands of positions from seeded random games.

Standard chess and Chess960 (random starting arrays), with games that shuffle pieces back and
forth to reach repetitions, games started with high halfmove clocks to cross the fifty- and
seventy-five-move marks, and random sparse endgames for insufficient material.  At every
position: the legal move set, every game-end verdict, the FEN both ways, make-then-unmake
restoring FEN and Zobrist key, the search's legality check of a single move (every 16-bit
code) agreeing with the legal move set, and the Zobrist key agreeing with python-chess's notion of
"same position" (pieces, side to move, castling rights, legal en passant).
"""
import collections
import random

import chess
import pytest

from scacco.engine import Board, Termination

# ---------------------------------------------------------------------------------------------
# Comparison helpers


def reference_moves(ref: chess.Board):
    return {ref.uci(move) for move in ref.legal_moves}


def reference_position_key(ref: chess.Board):
    """What python-chess considers the same position for repetitions."""
    return (ref.board_fen(), ref.turn, ref.clean_castling_rights(),
            ref.ep_square if ref.has_legal_en_passant() else None)


def outcome_tuple(outcome):
    if outcome is None:
        return None
    return outcome.termination.name, outcome.winner


def reference_structures(ref: chess.Board):
    """The pawns, white's other pieces and black's other pieces as python-chess sees them:
    what the three structure keys (CoreBoard.structure_keys) stand for."""
    def pieces(color, pawns):
        return frozenset((square, piece.symbol()) for square, piece in ref.piece_map().items()
                         if piece.color == color and (piece.piece_type == chess.PAWN) == pawns)
    return ((pieces(chess.WHITE, True), pieces(chess.BLACK, True)),
            pieces(chess.WHITE, False), pieces(chess.BLACK, False))


class KeyRegistry:
    """Checks that Zobrist keys and python-chess positions correspond one to one, and so do
    the structure keys (pawns; each colour's other pieces) and python-chess's structures."""

    def __init__(self):
        self.ours_by_reference = {}
        self.reference_by_ours = {}
        self.structures = [({}, {}) for _ in range(3)]

    def check(self, ours: Board, ref: chess.Board):
        key = ours.zobrist_key()
        position = reference_position_key(ref)
        assert self.ours_by_reference.setdefault(position, key) == key, \
            f"one position, two Zobrist keys: {ref.fen()}"
        assert self.reference_by_ours.setdefault(key, position) == position, \
            f"Zobrist key collision: {ref.fen()} and {self.reference_by_ours[key]}"
        for (by_reference, by_ours), key, structure in zip(
                self.structures, ours.structure_keys(), reference_structures(ref)):
            assert by_reference.setdefault(structure, key) == key, \
                f"one structure, two keys: {ref.fen()}"
            assert by_ours.setdefault(key, structure) == structure, \
                f"structure key collision: {ref.fen()}"


def assert_same_position(ours: Board, ref: chess.Board, *, claim_draw=True):
    fen = ref.fen()
    moves = ours.legal_moves()
    assert len(moves) == len(set(moves)), f"duplicate moves in {fen}"
    assert set(moves) == reference_moves(ref), fen
    # the search's legality check of a table move (any 16 bits) agrees with the generator
    assert not ours.legal_check_mismatches(), fen
    assert ours.fen() == fen
    assert ours.fen(shredder=True) == ref.fen(shredder=True)
    assert ours.turn == ref.turn
    assert ours.halfmove_clock == ref.halfmove_clock
    assert ours.fullmove_number == ref.fullmove_number
    assert ours.is_check() == ref.is_check(), fen
    assert ours.is_checkmate() == ref.is_checkmate(), fen
    assert ours.is_stalemate() == ref.is_stalemate(), fen
    assert ours.is_insufficient_material() == ref.is_insufficient_material(), fen
    assert ours.is_repetition(3) == ref.is_repetition(3), fen
    assert ours.is_fivefold_repetition() == ref.is_fivefold_repetition(), fen
    assert ours.is_fifty_moves() == ref.is_fifty_moves(), fen
    assert ours.is_seventyfive_moves() == ref.is_seventyfive_moves(), fen
    assert outcome_tuple(ours.outcome()) == outcome_tuple(ref.outcome()), fen
    if claim_draw:
        assert (outcome_tuple(ours.outcome(claim_draw=True))
                == outcome_tuple(ref.outcome(claim_draw=True))), fen

    # The same position set up from its FEN: same moves, and the incrementally updated key
    # equals the key computed from scratch.
    fresh = Board(fen, chess960=ref.chess960)
    assert fresh.fen() == fen
    assert fresh.zobrist_key() == ours.zobrist_key(), f"incremental key differs from scratch: {fen}"
    assert fresh.structure_keys() == ours.structure_keys(), \
        f"incremental structure keys differ from scratch: {fen}"
    assert set(fresh.legal_moves()) == set(moves)


def assert_make_unmake_restores(ours: Board, ref: chess.Board | None = None):
    """Push and pop every legal move; with ref, the children's FENs match python-chess's."""
    fen, key, checkers = ours.fen(), ours.zobrist_key(), ours.checkers()
    structure = ours.structure_keys()
    ply = ours.ply
    for move in ours.legal_moves():
        ours.push_uci(move)
        if ref is not None:
            ref.push_uci(move)
            assert ours.fen() == ref.fen(), f"{fen} + {move}"
            assert ours.is_check() == ref.is_check(), f"{fen} + {move}"
            ref.pop()
        assert ours.pop() == move
        assert ours.fen() == fen, f"{fen}: {move} not undone"
        assert ours.zobrist_key() == key, f"{fen}: {move} did not restore the key"
        assert ours.structure_keys() == structure, f"{fen}: {move} did not restore them"
        assert ours.checkers() == checkers
        assert ours.ply == ply


# ---------------------------------------------------------------------------------------------
# Random games


def reversible(ref: chess.Board, move: chess.Move) -> bool:
    return not (ref.is_capture(move) or ref.piece_type_at(move.from_square) == chess.PAWN
                or ref.is_castling(move))


class MovePicker:
    """Random moves with a taste for captures (to reach endgames), pawn moves (en passant and
    promotions) and back-and-forth shuffles (three- and fivefold repetitions, long halfmove
    clocks)."""

    def __init__(self, rng: random.Random, shuffle_rate: float, capture_rate: float,
                 pawn_rate: float = 0.0):
        self.rng = rng
        self.shuffle_rate = shuffle_rate
        self.capture_rate = capture_rate
        self.pawn_rate = pawn_rate
        self.plan = []

    def pick(self, ref: chess.Board) -> chess.Move:
        legal = list(ref.legal_moves)
        if self.plan:
            move = self.plan.pop(0)
            if move in legal:
                return move
            self.plan = []
        if self.rng.random() < self.shuffle_rate:
            ours = [m for m in legal if reversible(ref, m)]
            if ours:
                first = self.rng.choice(ours)
                ref.push(first)
                replies = [m for m in ref.legal_moves if reversible(ref, m)]
                ref.pop()
                if replies:
                    second = self.rng.choice(replies)
                    back = [chess.Move(first.to_square, first.from_square),
                            chess.Move(second.to_square, second.from_square)]
                    cycle = [first, second] + back
                    self.plan = [second] + back + cycle * self.rng.randint(0, 3)
                    return first
        if self.rng.random() < self.capture_rate:
            captures = [m for m in legal if ref.is_capture(m)]
            if captures:
                return self.rng.choice(captures)
        if self.rng.random() < self.pawn_rate:
            pawn_moves = [m for m in legal if ref.piece_type_at(m.from_square) == chess.PAWN]
            if pawn_moves:
                return self.rng.choice(pawn_moves)
        return self.rng.choice(legal)


def play_and_compare(ref: chess.Board, rng: random.Random, max_plies: int, registry: KeyRegistry,
                     *, shuffle_rate=0.02, capture_rate=0.3, pawn_rate=0.3, unmake_every=3,
                     claim_every=1):
    """Play a random game from ref, comparing Scacco with python-chess at every position.
    Returns a Counter of what python-chess saw: positions, checks, repetitions, ..."""
    ours = Board(ref.fen(), chess960=ref.chess960)
    picker = MovePicker(rng, shuffle_rate, capture_rate, pawn_rate)
    seen = collections.Counter()
    played = []
    for ply in range(max_plies + 1):
        assert_same_position(ours, ref, claim_draw=(ply % claim_every == 0))
        registry.check(ours, ref)
        if ply % unmake_every == 0:
            assert_make_unmake_restores(ours, ref if ply % (2 * unmake_every) == 0 else None)
        seen["positions"] += 1
        seen["check"] += ref.is_check()
        seen["threefold"] += ref.is_repetition(3)
        seen["fifty"] += ref.is_fifty_moves()
        seen["seventyfive"] += ref.is_seventyfive_moves()
        seen["en passant"] += ref.has_legal_en_passant()
        seen["castling"] += any(ref.is_castling(m) for m in ref.legal_moves)
        seen["promotion"] += any(m.promotion for m in ref.legal_moves)
        outcome = ref.outcome()
        if outcome is not None:
            seen[outcome.termination.name] += 1
            break
        if ply == max_plies:
            break
        move = picker.pick(ref)
        played.append(ref.uci(move))
        ours.push_uci(played[-1])
        ref.push(move)
    assert ours.move_stack() == played
    # Take the whole game back: every earlier position comes back.
    while ref.move_stack:
        ref.pop()
        ours.pop()
        assert ours.fen() == ref.fen()
    with pytest.raises(IndexError):
        ours.pop()
    return seen


def test_standard_random_games():
    rng = random.Random(20240601)
    registry = KeyRegistry()
    seen = collections.Counter()
    for _ in range(30):
        seen += play_and_compare(chess.Board(), rng, 200, registry)
    assert seen["positions"] >= 2000
    assert seen["check"] and seen["castling"] and seen["en passant"] and seen["promotion"], seen


def test_chess960_random_games():
    rng = random.Random(960)
    registry = KeyRegistry()
    seen = collections.Counter()
    for _ in range(30):
        ref = chess.Board.from_chess960_pos(rng.randrange(960))
        seen += play_and_compare(ref, rng, 160, registry)
    assert seen["positions"] >= 2000
    assert seen["check"] and seen["castling"] and seen["en passant"] and seen["promotion"], seen


def test_repetition_games():
    # Mostly back-and-forth moves: threefold and fivefold repetitions, including ones that
    # differ only by castling rights or an en-passant possibility.
    rng = random.Random(3)
    registry = KeyRegistry()
    repeated = fivefold = 0
    for game in range(16):
        ref = chess.Board.from_chess960_pos(rng.randrange(960)) if game % 2 else chess.Board()
        ours = Board(ref.fen(), chess960=ref.chess960)
        picker = MovePicker(rng, shuffle_rate=0.6, capture_rate=0.1)
        for _ in range(90):
            assert ours.is_repetition(2) == ref.is_repetition(2)
            assert ours.is_repetition(3) == ref.is_repetition(3)
            assert ours.is_repetition(4) == ref.is_repetition(4)
            assert ours.is_fivefold_repetition() == ref.is_fivefold_repetition()
            assert outcome_tuple(ours.outcome(claim_draw=True)) == outcome_tuple(ref.outcome(claim_draw=True))
            registry.check(ours, ref)
            repeated += ref.is_repetition(3)
            fivefold += ref.is_fivefold_repetition()
            if ref.outcome() is not None:
                break
            move = picker.pick(ref)
            ours.push_uci(ref.uci(move))
            ref.push(move)
    assert repeated > 20 and fivefold > 0, "the games should reach repetitions"


def test_high_halfmove_clocks():
    # Positions from random games, restarted with halfmove clocks near 100 and 150.
    rng = random.Random(50)
    registry = KeyRegistry()
    seen = collections.Counter()
    for game in range(30):
        ref = chess.Board.from_chess960_pos(rng.randrange(960)) if game % 3 == 0 else chess.Board()
        for _ in range(rng.randrange(10, 80)):
            if ref.is_game_over():
                break
            ref.push(rng.choice(list(ref.legal_moves)))
        if ref.is_game_over():
            continue
        fields = ref.fen().split()
        fields[4] = str(rng.choice([rng.randint(90, 101), rng.randint(140, 151)]))
        start = chess.Board(" ".join(fields), chess960=ref.chess960)
        seen += play_and_compare(start, rng, 30, registry, shuffle_rate=0.5, capture_rate=0.05,
                                 unmake_every=10)
    assert seen["fifty"] > 20 and seen["seventyfive"] > 5, seen
    assert seen["SEVENTYFIVE_MOVES"] > 0, seen


def test_game_end_with_high_clock_prefers_mate_and_stalemate():
    # FIDE: checkmate and stalemate stand even when the clock has passed 100 or 150 half moves.
    cases = [
        "7k/6Q1/6K1/8/8/8/8/8 b - - 120 90",     # checkmate
        "7k/6Q1/6K1/8/8/8/8/8 b - - 160 90",     # checkmate past seventy-five moves
        "7k/5Q2/6K1/8/8/8/8/8 b - - 160 90",     # stalemate past seventy-five moves
        "7k/8/6K1/8/8/8/8/1Q6 b - - 100 90",     # fifty moves, game goes on
        "7k/8/6K1/8/8/8/8/1Q6 b - - 99 90",      # one short of fifty, claimable by a move
        "7k/8/6K1/8/8/8/8/1Q6 b - - 150 90",     # seventy-five moves
    ]
    for fen in cases:
        assert_same_position(Board(fen), chess.Board(fen))


def random_sparse_position(rng: random.Random) -> chess.Board | None:
    board = chess.Board(None)
    squares = rng.sample(chess.SQUARES, 10)
    board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(squares.pop(), chess.Piece(chess.KING, chess.BLACK))
    for color in chess.COLORS:
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            piece_type = rng.choice([chess.KNIGHT, chess.BISHOP, chess.BISHOP, chess.ROOK,
                                     chess.QUEEN, chess.PAWN])
            board.set_piece_at(squares.pop(), chess.Piece(piece_type, color))
    board.turn = rng.choice(chess.COLORS)
    return board if board.is_valid() else None


def test_sparse_endgames_and_insufficient_material():
    rng = random.Random(7)
    registry = KeyRegistry()
    seen = {True: 0, False: 0}
    compared = 0
    while compared < 1500:
        ref = random_sparse_position(rng)
        if ref is None:
            continue
        ours = Board(ref.fen())
        assert_same_position(ours, ref, claim_draw=False)
        registry.check(ours, ref)
        if compared % 4 == 0:
            assert_make_unmake_restores(ours, ref)
        seen[ref.is_insufficient_material()] += 1
        compared += 1
    assert seen[True] > 50 and seen[False] > 50


@pytest.mark.parametrize("pieces,insufficient", [
    ("K v K", True), ("KN v K", True), ("KB v K", True), ("KNN v K", False),
    ("KB v KB same colour", True), ("KB v KB opposite colours", False),
    ("KN v KB", False), ("KR v K", False), ("KP v K", False), ("KN v KQ", False),
])
def test_insufficient_material_table(pieces, insufficient):
    fens = {
        "K v K": "8/8/4k3/8/8/3K4/8/8 w - - 0 1",
        "KN v K": "8/8/4k3/8/8/3K4/5N2/8 w - - 0 1",
        "KB v K": "8/8/4k3/8/8/3K4/5B2/8 w - - 0 1",
        "KNN v K": "8/8/4k3/8/8/3K4/5NN1/8 w - - 0 1",
        "KB v KB same colour": "8/8/4kb2/8/8/3K4/5B2/8 w - - 0 1",        # f6, f2: dark
        "KB v KB opposite colours": "8/8/4k1b1/8/8/3K4/5B2/8 w - - 0 1",  # g6 light, f2 dark
        "KN v KB": "8/8/4k1b1/8/8/3K4/5N2/8 w - - 0 1",
        "KR v K": "8/8/4k3/8/8/3K4/5R2/8 w - - 0 1",
        "KP v K": "8/8/4k3/8/8/3K4/5P2/8 w - - 0 1",
        "KN v KQ": "8/8/4k1q1/8/8/3K4/5N2/8 w - - 0 1",
    }
    ref = chess.Board(fens[pieces])
    assert ref.is_insufficient_material() == insufficient   # the oracle agrees with the table
    ours = Board(fens[pieces])
    assert ours.is_insufficient_material() == insufficient
    assert (ours.outcome() is not None and ours.outcome().termination
            == Termination.INSUFFICIENT_MATERIAL) == insufficient


def test_all_chess960_starting_positions():
    for number in range(960):
        ref = chess.Board.from_chess960_pos(number)
        ours = Board(ref.fen(), chess960=True)
        assert ours.fen() == ref.fen()
        assert ours.fen(shredder=True) == ref.fen(shredder=True)
        assert Board(ref.fen(shredder=True), chess960=True).fen() == ref.fen()
        assert set(ours.legal_moves()) == reference_moves(ref)
        if number % 40 == 0:
            assert ours.perft(3) == sum(1 for _ in _leaves(ref, 3))


def _leaves(ref: chess.Board, depth: int):
    if depth == 0:
        yield 1
        return
    for move in list(ref.legal_moves):
        ref.push(move)
        yield from _leaves(ref, depth - 1)
        ref.pop()


# ---------------------------------------------------------------------------------------------
# Transpositions and Zobrist keys


def play(moves, fen=chess.STARTING_FEN, chess960=False):
    ours = Board(fen, chess960=chess960)
    for move in moves:
        ours.push_uci(move)
    return ours


def reference_after(moves, fen=chess.STARTING_FEN, chess960=False):
    ref = chess.Board(fen, chess960=chess960)
    for move in moves:
        ref.push_uci(move)
    return ref


@pytest.mark.parametrize("first,second", [
    # Move order.
    (["g1f3", "g8f6", "b1c3", "b8c6"], ["b1c3", "b8c6", "g1f3", "g8f6"]),
    # A double step with no capturing pawn leaves no en-passant square behind.
    (["e2e4", "g8f6", "g1f3", "f6g8", "f3g1"], ["g1f3", "g8f6", "f3g1", "f6g8", "e2e4"]),
    (["e2e4", "e7e5"], ["e2e3", "e7e6", "e3e4", "e6e5"]),
    # Both sides castled, in another order.
    (["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1g1", "e8g8"],
     ["g1f3", "g8f6", "e2e4", "e7e5", "f1c4", "f8c5", "e1g1", "e8g8"]),
])
def test_transpositions_share_a_key(first, second):
    a, b = play(first), play(second)
    ref_a, ref_b = reference_after(first), reference_after(second)
    assert reference_position_key(ref_a) == reference_position_key(ref_b)
    assert a.zobrist_key() == b.zobrist_key()


@pytest.mark.parametrize("first,second", [
    # The king went out and back: castling rights lost, a different position.
    (["e2e4", "e7e5", "e1e2", "e8e7", "e2e1", "e7e8"], ["e2e4", "e7e5"]),
    # A capturable double step (black pawn on d4): en passant makes it a different position.
    (["d2d3", "e7e5", "a2a3", "e5e4", "a3a4", "e4d3", "c2d3", "d7d5", "a4a5", "d5d4", "e2e4"],
     ["d2d3", "e7e5", "a2a3", "e5e4", "a3a4", "e4d3", "c2d3", "d7d6", "a4a5", "d6d5", "e2e3",
      "d5d4", "e3e4"]),
])
def test_different_positions_have_different_keys(first, second):
    a, b = play(first), play(second)
    ref_a, ref_b = reference_after(first), reference_after(second)
    assert ref_a.board_fen() == ref_b.board_fen()
    assert reference_position_key(ref_a) != reference_position_key(ref_b)
    assert a.zobrist_key() != b.zobrist_key()


def test_side_to_move_changes_the_key():
    # The rook loses a tempo by triangulating: same squares, the other side to move.
    fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
    moves = ["a1a2", "e8d8", "a2a3", "d8e8", "a3a1"]
    a, b = Board(fen), play(moves, fen)
    ref_a, ref_b = chess.Board(fen), reference_after(moves, fen)
    assert reference_position_key(ref_a) != reference_position_key(ref_b)
    assert a.zobrist_key() != b.zobrist_key()


def test_en_passant_pinned_pawn_is_no_en_passant():
    # White pawn e5 pinned on the rank by a black rook: after d7d5 the capture e5d6 is
    # illegal, so no en-passant square appears in the FEN or the key.
    fen = "8/3p4/8/r3P2K/8/8/8/4k3 b - - 0 1"
    ours, ref = play(["d7d5"], fen), reference_after(["d7d5"], fen)
    assert not ref.has_legal_en_passant()
    assert ours.fen() == ref.fen()
    assert "e5d6" not in ours.legal_moves()
    other = Board(ref.fen())
    assert other.zobrist_key() == ours.zobrist_key()


def test_copy_is_independent_and_keeps_history():
    ours = play(["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"])
    fen = ours.fen()
    twin = ours.copy()
    assert twin.is_repetition(3) and ours.is_repetition(3)
    assert twin.move_stack() == ours.move_stack()
    twin.push_uci("e2e4")
    assert ours.fen() == fen and ours.ply == 8
    assert twin.pop() == "e2e4"
    assert twin.fen() == ours.fen() and twin.zobrist_key() == ours.zobrist_key()


def test_illegal_and_malformed_moves_change_nothing():
    ours = play(["e2e4", "e7e5"])
    fen, key = ours.fen(), ours.zobrist_key()
    for bad in ["e2e5", "e1g1", "a7a8q", "e4e5", "xyz", "e2e4e", "", "e9e4", "g1f3k", 42]:
        with pytest.raises(ValueError):
            ours.push_uci(bad)
        assert ours.fen() == fen and ours.zobrist_key() == key and ours.ply == 2


# ---------------------------------------------------------------------------------------------
# Hand-picked corners of the move generator, each checked against python-chess (moves at the
# root, FEN, verdicts, make/unmake, perft 3).

TRICKY = [
    # En passant.
    ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", False),     # capture would expose the king on the rank
    ("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", False),   # capturing the pawn that gives check
    ("8/8/8/8/k2Pp2R/8/8/K7 b - d3 0 1", False),    # both pawns leave the rank: discovered check
    ("8/8/8/1k6/3Pp3/8/8/4K2B b - d3 0 1", False),  # the captured pawn was shielding a diagonal
    ("4k3/8/8/8/2pPp3/8/8/4K3 b - d3 0 1", False),  # two capturers
    ("4k3/8/8/8/b2Pp3/8/8/4K3 b - d3 0 1", False),
    ("8/2p5/8/KP5r/8/8/8/7k b - - 0 1", False),     # the double step that allows the rank pin
    # Standard castling.
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", False),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", True),
    ("k7/8/8/8/1b6/8/3PPP2/4K2R w K - 0 1", False),  # king path through an attacked f1
    ("r3k2r/8/8/8/8/8/6p1/R3K2R w KQkq - 0 1", False),  # f1 and h1 attacked by a pawn
    ("r3k2r/8/8/8/8/8/8/Rn2K2R w KQkq - 0 1", False),   # b1 blocked, b1 attacked is fine
    # Chess960 castling.
    ("4k3/8/8/8/8/8/8/qRK4R w BH - 0 1", True),     # enemy queen behind the castling rook
    ("7k/8/8/8/8/8/8/RK4r1 w A - 0 1", True),
    ("3rk3/8/8/8/8/8/8/RK5R w AH - 0 1", True),     # the rook may land on an attacked square
    ("2r1k3/8/8/8/8/8/8/RK5R w AH - 0 1", True),     # the king may not
    ("6rk/8/8/8/8/8/8/1R3KR1 w BG - 0 1", True),    # king and rook would swap, g1 attacked
    ("7k/8/8/8/8/8/8/1R3KRr w BG - 0 1", True),     # enemy rook behind the g1 rook
    ("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1", True),   # rook and king side by side
    ("1rk3r1/8/8/8/8/8/8/1RK3R1 w GBgb - 0 1", True),  # king already on c1
    ("r1k4r/8/8/8/8/8/8/R1K4R w AHah - 0 1", True),
    # Promotions.
    ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", False),
    ("4k3/8/8/8/8/8/p7/1N2K3 b - - 0 1", False),
    ("3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1", False),    # promotion by capture only, and checks
]


@pytest.mark.parametrize("fen,chess960", TRICKY)
def test_tricky_positions(fen, chess960):
    ref = chess.Board(fen, chess960=chess960)
    assert ref.is_valid(), "the oracle must accept the position"
    ours = Board(fen, chess960=chess960)
    assert_same_position(ours, ref)
    assert_make_unmake_restores(ours, ref)
    assert ours.perft(3) == sum(1 for _ in _leaves(ref, 3))


def test_long_game_grows_the_state_stack():
    # More plies than the initial state stack holds (1024): the stack grows, keys and
    # repetitions stay right, and every move can be taken back.
    ours, ref = Board(), chess.Board()
    cycle = ["g1f3", "g8f6", "f3g1", "f6g8", "b1c3", "b8c6", "c3b1", "c6b8"]
    fens = [ref.fen()]
    for ply in range(1500):
        move = cycle[ply % len(cycle)]
        ours.push_uci(move)
        ref.push_uci(move)
        fens.append(ref.fen())
        if ply % 250 == 0:
            assert ours.fen() == ref.fen()
            assert ours.is_fivefold_repetition() == ref.is_fivefold_repetition()
    assert ours.ply == 1500 and ours.fen() == ref.fen()
    assert ours.is_fivefold_repetition() and ref.is_fivefold_repetition()
    twin = ours.copy()
    assert twin.fen() == ours.fen() and twin.is_fivefold_repetition()
    assert twin.perft(3) == ours.perft(3) == 8902
    for expected in reversed(fens[:-1]):
        ours.pop()
        assert ours.fen() == expected
    assert ours.zobrist_key() == Board().zobrist_key()
