"""The UCI engine as a GUI sees it: a child process spoken to over pipes.

python-chess is the oracle for legality, FENs and perft; timeouts only catch hangs.
"""
import random
import time

import chess
import pytest

from uci_client import UciProcess, infos

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
FOOLS_MATE = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
STALEMATE = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"


def legal_in(fen_or_board, move):
    board = fen_or_board if isinstance(fen_or_board, chess.Board) else chess.Board(fen_or_board)
    return chess.Move.from_uci(move) in board.legal_moves


def fen_of(engine):
    """The engine's FEN of its current position, read from `d`."""
    lines = engine.ask("d", "Checkers:")
    return next(line[5:] for line in lines if line.startswith("Fen: "))


def bestmove_of(lines):
    return lines[-1].split()[1]


# -- handshake and simple commands ------------------------------------------------------

def test_uci_handshake_declares_identity_and_options():
    with UciProcess() as engine:
        lines = engine.ask("uci", "uciok")
    assert lines[0].startswith("id name Scacco ")
    assert lines[1].startswith("id author ")
    names = [line.split(" type ")[0][len("option name "):] for line in lines if line.startswith("option")]
    assert names == ["Hash", "Clear Hash", "Threads", "MultiPV", "Ponder", "Move Overhead",
                     "UCI_ShowWDL", "UCI_LimitStrength", "UCI_Elo", "Skill Level", "EvalFile", "Use NNUE",
                     "SyzygyPath", "SyzygyProbeDepth", "Syzygy50MoveRule", "SyzygyProbeLimit",
                     "SingularExtensions", "CorrectionHistory", "NodeTime", "NetworkScaling",
                     "FarContinuation", "HistoryPruning", "BestMoveHistory",
                     "UCI_Chess960"]


def test_unknown_commands_and_empty_lines_are_harmless(engine):
    engine.send("")
    engine.send("   ")
    engine.send("hello world")
    engine.send("debug on")
    engine.send("debug maybe")
    lines = engine.sync()
    assert "info string unknown command: hello world" in lines
    assert "info string debug takes on or off" in lines
    engine.send("debug off")
    engine.sync()


def test_eval_and_bench(engine):
    lines = engine.ask("eval", " Final evaluation")
    assert "side to move" in lines[-1]
    lines = engine.ask("bench 2", "Nodes/second")
    assert any(line.startswith("Nodes searched  : ") for line in lines)
    assert "Threads         : 1" in lines
    lines = engine.ask("bench 3 2", "Nodes/second")
    assert "Threads         : 2" in lines
    engine.send("bench 3 513")
    lines = engine.sync()
    assert len(lines) == 1 and lines[0].startswith("info string ") and "513" in lines[0]
    engine.send("bench 65")
    lines = engine.sync()
    assert len(lines) == 1 and lines[0].startswith("info string ") and "at most 64" in lines[0]


def test_threads_search_and_stop(engine):
    engine.send("setoption name Threads value 4")
    engine.send("position startpos moves e2e4 c7c5")
    lines = engine.bestmove("go depth 9")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("c7c5")
    assert chess.Move.from_uci(bestmove_of(lines)) in board.legal_moves
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos and " nodes " in infos[-1]
    engine.send("go infinite")
    engine.sync()
    lines = engine.bestmove("stop")          # one stop, every thread
    assert chess.Move.from_uci(bestmove_of(lines)) in board.legal_moves
    engine.send("setoption name Threads value 1")
    lines = engine.bestmove("go depth 5")
    assert chess.Move.from_uci(bestmove_of(lines)) in board.legal_moves


# -- position ---------------------------------------------------------------------------

def test_position_follows_python_chess_through_random_games(engine):
    rng = random.Random(7)
    for _ in range(5):
        board = chess.Board()
        moves = []
        while not board.is_game_over() and len(moves) < 120:
            move = rng.choice(list(board.legal_moves))
            moves.append(move.uci())
            board.push(move)
        engine.send("position startpos moves " + " ".join(moves))
        lines = engine.ask("d", "Checkers:")
        assert fen_of(engine) == board.fen()
        checkers = lines[-1].split()[1:]
        assert sorted(checkers) == sorted(chess.square_name(s) for s in board.checkers())


def test_bad_fen_keeps_the_previous_position(engine):
    engine.send(f"position fen {KIWIPETE}")
    engine.send("position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1")
    engine.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1")
    engine.send("position")
    engine.send("position fen")
    engine.send("position startpos e2e4")
    lines = engine.sync()
    assert len(infos(lines)) == len(lines) == 5
    assert "invalid piece letter 'X'" in lines[0]
    assert "king" in lines[1]
    assert fen_of(engine) == KIWIPETE


def test_bad_move_leaves_the_position_before_it(engine):
    engine.send("position startpos moves e2e4 e7e5 e1e3 g1f3")
    lines = engine.sync()
    assert len(lines) == 1 and lines[0].startswith("info string move 3 (e1e3) rejected")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert fen_of(engine) == board.fen()
    engine.send("position startpos moves e2e4 e7e5 g1f3 xyzzy")
    assert "move 4 (xyzzy)" in engine.sync()[0]
    board.push_uci("g1f3")
    assert fen_of(engine) == board.fen()


# -- go: perft, depth, limits ----------------------------------------------------------

def test_go_perft_divides_like_python_chess(engine):
    engine.send(f"position fen {KIWIPETE}")
    lines = engine.ask("go perft 2", "Nodes searched")
    board = chess.Board(KIWIPETE)
    expected = {}
    for move in board.legal_moves:
        board.push(move)
        expected[move.uci()] = board.legal_moves.count()
        board.pop()
    assert lines[-2] == ""
    got = dict(line.split(": ") for line in lines[:-2])
    assert {m: int(c) for m, c in got.items()} == expected
    assert lines[-1] == "Nodes searched: 2039"          # published kiwipete perft(2)


def test_go_depth_prints_infos_and_a_legal_bestmove(engine):
    engine.send("position startpos moves e2e4 c7c5 g1f3")
    lines = engine.bestmove("go depth 5")
    board = chess.Board()
    for move in ("e2e4", "c7c5", "g1f3"):
        board.push_uci(move)
    depth_lines = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in depth_lines] == [1, 2, 3, 4, 5]
    for line in depth_lines:
        words = line.split()
        for field in ("seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv"):
            assert field in words
        pv_board = board.copy()
        for move in words[words.index("pv") + 1:]:
            assert legal_in(pv_board, move)
            pv_board.push_uci(move)
    best = lines[-1].split()
    assert legal_in(board, best[1])
    if len(best) == 4:
        assert best[2] == "ponder"
        board.push_uci(best[1])
        assert legal_in(board, best[3])


def test_go_nodes_mate_and_movetime_each_end_with_one_bestmove(engine):
    engine.send("position startpos")
    for command in ("go nodes 5000", "go movetime 200", "go wtime 2000 btime 2000 winc 10 binc 10",
                    "go wtime 1000 btime 1000 movestogo 1", "go depth 1"):
        lines = engine.bestmove(command)
        assert sum(line.startswith("bestmove") for line in lines) == 1
        assert legal_in(chess.Board(), bestmove_of(lines))
    # Scholar's mate: Qxf7 is mate in one.
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    engine.send(f"position fen {fen}")
    lines = engine.bestmove("go mate 1")
    assert bestmove_of(lines) == "h5f7"
    assert any(" score mate 1 " in line for line in lines)


def test_go_movetime_answers_no_sooner_than_t_less_the_margin(engine):
    # The best move (Nxh4, winning the queen) never changes, which once made the search stop
    # early; the bestmove may not come before T less the margin.  Measured here from sending
    # go, so the engine's own figure is smaller still; the upper bound only catches a hang.
    from scacco.engine.timeman import MOVETIME_MARGIN_MS
    engine.send("position fen rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    engine.sync()
    start = time.monotonic()
    lines = engine.bestmove("go movetime 800")
    elapsed_ms = (time.monotonic() - start) * 1000
    assert elapsed_ms >= 800 - MOVETIME_MARGIN_MS
    assert bestmove_of(lines) == "f3h4"


@pytest.mark.parametrize("fen, score", [(FOOLS_MATE, "mate 0"), (STALEMATE, "cp 0")])
def test_no_legal_move(engine, fen, score):
    engine.send(f"position fen {fen}")
    lines = engine.bestmove("go depth 5")
    assert lines[-2:] == [f"info depth 0 score {score}", "bestmove 0000"]
    # In infinite mode the answer waits for stop.
    engine.send("go infinite")
    assert not any(line.startswith("bestmove") for line in engine.sync())
    lines = engine.bestmove("stop")
    assert lines[-1] == "bestmove 0000"


def test_searchmoves_limit_the_root(engine):
    engine.send("position startpos")
    lines = engine.bestmove("go depth 4 searchmoves a2a3 h2h4")
    assert bestmove_of(lines) in ("a2a3", "h2h4")
    lines = engine.bestmove("go depth 3 searchmoves a2a3 e2e5")
    assert "info string searchmoves: ignoring illegal e2e5" in lines
    assert bestmove_of(lines) == "a2a3"


def test_multipv_lines_are_distinct_legal_and_ordered(engine):
    engine.send("setoption name MultiPV value 3")
    engine.send("position startpos")
    lines = engine.bestmove("go depth 5")
    last = [line.split() for line in lines if line.startswith("info depth 5 ")]
    assert [words[words.index("multipv") + 1] for words in last] == ["1", "2", "3"]
    firsts = [words[words.index("pv") + 1] for words in last]
    assert len(set(firsts)) == 3 and all(legal_in(chess.Board(), m) for m in firsts)
    scores = [int(words[words.index("cp") + 1]) for words in last]
    assert scores == sorted(scores, reverse=True)


def test_chess960_castling_is_king_takes_rook(engine):
    fen = "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9"
    board = chess.Board(fen, chess960=True)
    engine.send(f"position fen {fen}")
    assert "Chess960 is off" in engine.sync()[0]
    engine.send("setoption name UCI_Chess960 value true")
    engine.send(f"position fen {fen}")
    lines = engine.bestmove("go depth 3 searchmoves f1g1")
    assert board.is_castling(board.find_move(chess.F1, chess.G1))
    assert bestmove_of(lines) == "f1g1"


def test_standard_castling_is_printed_e1g1(engine):
    fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"
    engine.send(f"position fen {fen}")
    lines = engine.bestmove("go depth 2 searchmoves e1h1")      # the 960 spelling is understood
    assert bestmove_of(lines) == "e1g1"


# -- options ----------------------------------------------------------------------------

def test_setoption_accepts_good_values_and_refuses_bad_ones(engine):
    for command in ("setoption name hash value 32", "setoption name Clear Hash",
                    "setoption name MOVE OVERHEAD value 50", "setoption name Ponder value true",
                    "setoption name Threads value 2", "setoption name Threads value 1",
                    "setoption name multipv value 2"):
        engine.send(command)
    assert engine.sync() == []
    for command in ("setoption name Hash value 0", "setoption name Hash value lots",
                    "setoption name Threads value 513", "setoption name Ponder value maybe",
                    "setoption name Nonsense value 1", "setoption name MultiPV value 257",
                    "setoption name Hash", "setoption Hash 3", "setoption name Hash value 65536"):
        engine.send(command)
    lines = engine.sync()
    assert len(lines) == 9 and all(line.startswith("info string ") for line in lines)
    assert "unknown option: Nonsense" in lines[4]
    engine.send("position startpos")
    lines = engine.bestmove("go depth 3")                       # MultiPV 2 still in force
    assert any(" multipv 2 " in line for line in lines)


# -- threads: isready, stop, ponder, quit -----------------------------------------------

def test_isready_during_a_search_does_not_disturb_it(engine):
    engine.send("position startpos")
    engine.send("go infinite")
    for _ in range(5):
        assert not any(line.startswith("bestmove") for line in engine.sync())
        time.sleep(0.05)
    lines = engine.bestmove("stop")
    assert legal_in(chess.Board(), bestmove_of(lines))
    assert engine.sync() == []                                  # exactly one bestmove


def test_stop_answers_with_one_bestmove_promptly(engine):
    engine.send(f"position fen {KIWIPETE}")
    engine.send("go infinite")
    time.sleep(0.5)
    engine.sync()
    start = time.monotonic()
    lines = engine.bestmove("stop", timeout=5.0)                # a bound against hangs only:
    assert time.monotonic() - start < 5.0                       # bench/uci_latency.py measures
    assert legal_in(KIWIPETE, bestmove_of(lines))
    engine.send("stop")                                         # a late stop is ignored
    assert engine.sync() == []


def test_stop_right_after_go_still_gives_a_legal_move(engine):
    engine.send("position startpos moves d2d4")
    board = chess.Board()
    board.push_uci("d2d4")
    for _ in range(10):
        engine.send("go infinite")
        lines = engine.bestmove("stop")
        assert legal_in(board, bestmove_of(lines))
    assert engine.sync() == []


def test_ponder_waits_for_ponderhit_or_stop(engine):
    engine.send("position startpos moves e2e4 e7e5")
    engine.send("go ponder wtime 5000 btime 5000")
    time.sleep(0.3)
    assert not any(line.startswith("bestmove") for line in engine.sync())
    lines = engine.bestmove("ponderhit")
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert legal_in(board, bestmove_of(lines))
    # A ponder miss: stop, and the (discarded) answer comes at once.
    engine.send("go ponder wtime 5000 btime 5000 movestogo 5")
    lines = engine.bestmove("stop")
    assert legal_in(board, bestmove_of(lines))
    engine.send("ponderhit")                                    # nothing to hit any more
    assert engine.sync() == []


def test_ponder_on_a_mate_in_one_holds_until_ponderhit(engine):
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    engine.send(f"position fen {fen}")
    engine.send("go ponder depth 3")                            # the search ends by itself
    time.sleep(0.3)
    assert not any(line.startswith("bestmove") for line in engine.sync())
    lines = engine.bestmove("ponderhit")
    assert bestmove_of(lines) == "h5f7"


def test_commands_that_would_disturb_a_search_are_refused_or_wait(engine):
    engine.send("position startpos")
    engine.send("go infinite")
    engine.send("go depth 1")
    engine.send("setoption name Hash value 8")
    engine.send("setoption name Clear Hash")
    engine.send("ucinewgame")
    engine.send("position startpos moves e2e4")                 # accepted: for the next go
    engine.send("setoption name MultiPV value 2")               # accepted: for the next go
    lines = engine.sync()
    refused = [line for line in lines if "ignored: a search is running" in line]
    assert len(refused) == 4
    assert not any(line.startswith("bestmove") for line in lines)
    engine.send("stop")
    engine.send("go depth 2")                                   # waits for the stopping search
    first = engine.read_until(lambda line: line.startswith("bestmove"))
    second = engine.read_until(lambda line: line.startswith("bestmove"))
    assert legal_in(chess.Board(), bestmove_of(first))
    board = chess.Board()
    board.push_uci("e2e4")
    assert legal_in(board, bestmove_of(second))
    assert any(" multipv 2 " in line for line in second)
    engine.send("ucinewgame")
    assert engine.sync() == []


def test_quit_during_a_search_exits_promptly():
    engine = UciProcess()
    engine.send("position startpos")
    engine.send("go infinite")
    engine.sync()
    engine.send("quit")
    assert engine.proc.wait(10) == 0
    engine.close()


def test_end_of_input_exits_cleanly():
    engine = UciProcess()
    engine.send("go infinite")
    engine.sync()
    engine.proc.stdin.close()
    assert engine.proc.wait(10) == 0
    engine.close()


# -- hostile input ----------------------------------------------------------------------

def test_long_lines_and_bad_bytes(engine):
    engine.send(b"position startpos moves " + b"e2e4 " * 300000 + b"\n", raw=True)
    engine.send(b"\xff\xfe\x00go\n", raw=True)
    engine.send(b"isready\xc3\n", raw=True)
    engine.send(b"position startpos moves e2e4\rbestmove a1a1\n", raw=True)
    lines = engine.sync()
    assert lines[0] == "info string input line longer than 1048576 bytes ignored"
    assert lines[1].startswith("info string unknown command: ")
    assert lines[2].startswith("info string unknown command: isready")
    assert "(bestmove)" in lines[3] and not any(line.startswith("bestmove") for line in lines)
    board = chess.Board()
    board.push_uci("e2e4")
    assert fen_of(engine) == board.fen()


def test_a_long_history_on_threads_is_answered(engine):
    # 20,000 plies without a capture or pawn move, searched on four threads: each thread
    # holds the plies that can still repeat, not a copy of the whole game.
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 5000 + ["e2e4"]
    engine.send("setoption name Threads value 4")
    engine.send("position startpos moves " + " ".join(moves))
    lines = engine.bestmove("go depth 5", timeout=60)
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    assert legal_in(board, bestmove_of(lines))
    assert any(line.startswith("info depth 5 ") for line in lines), lines[-5:]
    assert not [line for line in lines if "search failed" in line]


def test_playing_levels_are_reached_through_the_options(engine):
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    for options in (["UCI_LimitStrength value true", "UCI_Elo value 600"],
                    ["UCI_LimitStrength value false", "Skill Level value 0"]):
        for option in options:
            engine.send(f"setoption name {option}")
        assert engine.sync() == []
        engine.send(f"position fen {fen}")
        best = bestmove_of(engine.bestmove("go wtime 10000 btime 10000"))
        board = chess.Board(fen)
        board.push_uci(best)
        assert board.is_checkmate()          # every level plays a mate in one
        engine.send("position startpos")
        assert legal_in(chess.Board(), bestmove_of(engine.bestmove("go wtime 10000 btime 10000")))
