"""Endgame drills (engine/trainer/drills.py, `scacco drill`) against python-chess's Syzygy
reader: every lesson played to its end against the drill's defence with the player's moves
scripted from DTZ, the engine's replies checked to be perfect, every move of several starts
judged as the tables say (thrown results, slower wins and their counts), bad input refused
without a change, and the command line end to end on a scripted standard input.

The drills read the tables through tests/syzygy_oracle.py (python-chess behind the drills'
prober interface); every expected number here comes from python-chess's tables.
"""
import io
import subprocess
import sys

import chess
import pytest

from scacco.engine.board import Board
from scacco.engine.trainer import drills
from scacco.engine.trainer.drills import (CLASSIC, LESSONS, Drill, DrillError, Ending, Goal,
                                          Judgement, MissingTableError, TableReader,
                                          choose_start, classic_starts)
from tests.conftest import REPO_ROOT, shared_file
from tests.syzygy_oracle import SyzygyOracle

WIN, DRAW, LOSS = 1, 0, -1


@pytest.fixture(scope="module")
def oracle():
    shared_file("syzygy/KRPvKR.rtbz")          # skips (fails on CI) without the shared tables
    tables = SyzygyOracle()
    yield tables
    tables.close()


# -- the reference: python-chess's tables and the rules -------------------------------------

def reference_value(board: chess.Board, move: chess.Move, tables):
    """(outcome, plies) of a move for the side that plays it, from python-chess's WDL and DTZ:
    mate wins in one ply, a drawn game (stalemate, insufficient material, fifty moves,
    threefold repetition) is a draw, a capture or pawn move takes the WDL after it, any other
    move the DTZ after it, a win only if the conversion comes within the fifty-move rule."""
    board.push(move)
    try:
        if board.is_checkmate():
            return WIN, 1
        if board.is_stalemate() or board.is_insufficient_material() or \
                board.halfmove_clock >= 100 or board.is_repetition(3):
            return DRAW, 0
        if board.halfmove_clock == 0:
            wdl = -tables.probe_wdl(board)
            return (WIN, 1) if wdl == 2 else (LOSS, 1) if wdl == -2 else (DRAW, 0)
        dtz = -tables.probe_dtz(board)
        if dtz == 0 or board.halfmove_clock + abs(dtz) > 100:
            return DRAW, 0
        return (WIN if dtz > 0 else LOSS), abs(dtz) + 1
    finally:
        board.pop()


def reference_values(board: chess.Board, tables):
    return {move.uci(): reference_value(board, move, tables) for move in board.legal_moves}


def moves_of(plies: int) -> int:
    """The mover's moves in `plies` half-moves counted from before its move."""
    return (plies + 1) // 2


def chess_board(drill: Drill) -> chess.Board:
    board = chess.Board(drill.start_fen)
    for move in drill.moves:
        board.push_uci(move)
    return board


def scripted_move(drill: Drill, tables) -> str:
    """The player's move from python-chess's DTZ: the fastest win, or (holding a draw) the
    first drawing move in UCI order."""
    values = reference_values(chess_board(drill), tables.tables)
    if drill.lesson.goal is Goal.WIN:
        return min((plies, move) for move, (outcome, plies) in values.items()
                   if outcome == WIN)[1]
    return sorted(move for move, (outcome, _) in values.items() if outcome >= DRAW)[0]


def assert_perfect_reply(before_reply: chess.Board, reply: str, tables) -> None:
    """The engine's reply keeps its best result, and losing, the longest resistance; winning,
    the fastest win (python-chess's tables)."""
    values = reference_values(before_reply, tables.tables)
    outcome, plies = values[reply]
    best = max(o for o, _ in values.values())
    assert outcome == best, f"{reply} in {before_reply.fen()} gives away its best result"
    if best == LOSS:
        assert plies == max(p for o, p in values.values() if o == LOSS), \
            f"{reply} in {before_reply.fen()} is not the longest resistance"
    if best == WIN:
        assert plies == min(p for o, p in values.values() if o == WIN)


# -- each lesson to its end ----------------------------------------------------------------

# A level per lesson (the hard ones for the basic mates: the longest games), two seeds each.
PLAYED = [("KQvK", "hard"), ("KRvK", "hard"), ("KBNvK", "medium"), ("KPvK", "hard"),
          ("KPvK-draw", "hard"), ("Lucena", CLASSIC), ("Lucena", "medium"),
          ("Philidor", CLASSIC), ("Philidor", "hard")]


def test_every_lesson_is_played():
    assert {name for name, _ in PLAYED} == set(LESSONS)


@pytest.mark.parametrize("name,level", PLAYED)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_lesson_is_played_to_its_end_against_perfect_defence(oracle, name, level, seed):
    drill = Drill(name, level=level, seed=seed, tables=oracle)
    lesson = drill.lesson
    start = chess.Board(drill.start_fen)
    assert start.turn == lesson.player_white
    assert oracle.tables.probe_wdl(start) == (2 if lesson.goal is Goal.WIN else 0)
    for _ in range(300):
        if drill.finished:
            break
        board = chess_board(drill)
        move = scripted_move(drill, oracle)
        verdict = drill.play(move)
        kept = Judgement.BEST if lesson.goal is Goal.WIN else Judgement.HOLDS
        assert verdict.judgement is kept, verdict.text
        assert verdict.move == move
        if verdict.reply:
            board.push_uci(move)
            assert_perfect_reply(board, verdict.reply, oracle)
    result = drill.result
    assert result is not None and result.success, result
    final = chess_board(drill)
    if lesson.goal is Goal.WIN:
        assert final.is_checkmate() and result.ending is Ending.CHECKMATE
    else:
        assert not final.is_checkmate()
        assert result.ending in (Ending.STALEMATE, Ending.INSUFFICIENT_MATERIAL,
                                 Ending.FIFTY_MOVES, Ending.REPETITION)
    assert result.moves == result.best == len(drill.verdicts)
    assert result.slower == result.moves_lost == 0


# -- starts ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", [name for name, lesson in LESSONS.items()
                                  if lesson.goal is Goal.WIN])
def test_a_win_lessons_levels_are_bands_of_dtz(oracle, name):
    lesson = LESSONS[name]
    for level, (low, high) in zip(drills.LEVEL_NAMES, lesson.bands):
        fen = choose_start(name, oracle, level, seed=5)
        board = chess.Board(fen)
        assert oracle.tables.probe_wdl(board) == 2
        assert low <= moves_of(oracle.tables.probe_dtz(board)) <= high, (level, fen)
    for moves in lesson.bands[1]:                     # a number of moves: the medium band's ends
        fen = choose_start(name, oracle, moves, seed=5)
        assert moves_of(oracle.tables.probe_dtz(chess.Board(fen))) == moves


@pytest.mark.parametrize("name", ["KPvK-draw", "Philidor"])
def test_a_draw_lessons_levels_count_the_holding_moves(oracle, name):
    for level in drills.LEVEL_NAMES:
        board = chess.Board(choose_start(name, oracle, level, seed=5))
        assert oracle.tables.probe_wdl(board) == 0
        outcomes = [outcome for outcome, _ in reference_values(board, oracle.tables).values()]
        holding = sum(outcome >= DRAW for outcome in outcomes)
        assert 0 < holding < len(outcomes)
        assert {"easy": 2 * holding > len(outcomes),
                "medium": 2 <= holding <= len(outcomes) / 2,
                "hard": holding == 1}[level]


def test_a_start_comes_again_from_its_seed(oracle):
    for name in LESSONS:
        assert choose_start(name, oracle, "easy", seed=11) == \
            choose_start(name, oracle, "easy", seed=11)
    assert len({choose_start("KRvK", oracle, "medium", seed=seed) for seed in range(8)}) > 1


def test_the_lucena_set_ups_are_lucena_positions(oracle):
    fens = classic_starts("Lucena", oracle)
    assert len(fens) > 12 and choose_start("Lucena", oracle, CLASSIC, seed=1) in fens
    for fen in fens:
        board = chess.Board(fen)
        pawn = board.pieces(chess.PAWN, chess.WHITE).pop()
        assert chess.square_rank(pawn) == 6                          # on the seventh rank
        assert board.king(chess.WHITE) == pawn + 8                   # its king in front
        rook = board.pieces(chess.ROOK, chess.WHITE).pop()
        black_king = board.king(chess.BLACK)
        between = sorted([chess.square_file(pawn), chess.square_file(black_king)])
        assert between[0] < chess.square_file(rook) < between[1]    # the king cut off
        assert board.turn == chess.WHITE and oracle.tables.probe_wdl(board) == 2


def test_the_philidor_set_ups_are_philidor_positions(oracle):
    fens = classic_starts("Philidor", oracle)
    assert len(fens) > 12 and choose_start("Philidor", oracle, CLASSIC, seed=1) in fens
    for fen in fens:
        board = chess.Board(fen)
        pawn = board.pieces(chess.PAWN, chess.WHITE).pop()
        assert chess.square_rank(pawn) == 4                          # on the fifth rank
        king = board.king(chess.BLACK)
        assert chess.square_rank(king) == 7 and \
            abs(chess.square_file(king) - chess.square_file(pawn)) <= 1
        assert chess.square_rank(board.pieces(chess.ROOK, chess.BLACK).pop()) == 5
        assert board.turn == chess.BLACK and oracle.tables.probe_wdl(board) == 0
        outcomes = [o for o, _ in reference_values(board, oracle.tables).values()]
        assert LOSS in outcomes and DRAW in outcomes                 # something to learn


# -- every move judged as the tables say -----------------------------------------------------

def expected_judgement(values, move):
    """(judgement, moves lost) of `move` among every move's python-chess value."""
    best = max(outcome for outcome, _ in values.values())
    outcome, plies = values[move]
    if outcome < best:
        return Judgement.THROWN, 0
    if best == WIN:
        fastest = min(moves_of(p) for o, p in values.values() if o == WIN)
        lost = moves_of(plies) - fastest
        return (Judgement.SLOWER, lost) if lost else (Judgement.BEST, 0)
    return Judgement.HOLDS, 0


JUDGED = [(name, level, seed) for name in LESSONS for level, seed in
          (("easy", 3), ("hard", 4))] + [("Lucena", CLASSIC, 3), ("Philidor", CLASSIC, 3)]


def test_every_move_of_a_start_is_judged_as_the_tables_say(oracle):
    """Every legal move of a start per lesson and level gets python-chess's verdict: thrown
    when its result is worse than the best, else the fastest or slower by the DTZ moves."""
    seen = set()
    for name, level, seed in JUDGED:
        drill = Drill(name, level=level, seed=seed, tables=oracle)
        board = chess.Board(drill.start_fen)
        values = reference_values(board, oracle.tables)
        for move in values:
            verdict = drill.judge(move)
            judgement, lost = expected_judgement(values, move)
            assert verdict.judgement is judgement, (drill.start_fen, move, verdict.text)
            assert verdict.moves_lost == lost, (drill.start_fen, move, verdict.text)
            if judgement is Judgement.THROWN:
                kept = board.parse_san(verdict.best_move).uci()
                assert values[kept][0] == max(o for o, _ in values.values())
                assert verdict.best_move in verdict.text
            if judgement is Judgement.SLOWER:
                assert f"{lost} move" in verdict.text
            seen.add(judgement)
        assert drill.moves == [] and drill.fen == drill.start_fen   # judging changes nothing
        assert set(drill.best_moves()) == {m for m in values if expected_judgement(
            values, m)[0] in (Judgement.BEST, Judgement.HOLDS)}
    assert seen == {Judgement.BEST, Judgement.SLOWER, Judgement.HOLDS, Judgement.THROWN}


# Positions where a move throws the result away, with the move: (lesson, FEN, move, why).
THROWN = [
    ("KQvK", "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", "Qc7", "stalemate"),
    ("KQvK", "8/8/8/3k4/8/8/8/K3Q3 w - - 0 1", "Qe4+", "a draw with best play"),
    ("KRvK", "8/8/8/8/3k4/8/8/K3R3 w - - 0 1", "Re4+", "a draw with best play"),
    ("KRvK", "8/8/8/8/3k4/8/8/K3R3 w - - 0 1", "Re3", "a draw with best play"),
    ("KBNvK", "8/8/8/3k4/8/8/2N5/K1B5 w - - 0 1", "Nd4", "a draw with best play"),
    ("KPvK", "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1", "Kd5", "a draw with best play"),
    ("KPvK-draw", "8/8/4k3/8/8/4K3/4P3/8 b - - 0 1", "Kd6", "a loss"),
    ("KPvK-draw", "8/8/8/8/8/4k3/P7/1K6 b - - 0 1", "Kd2", "a loss"),
    ("Lucena", "2K5/2P2k2/8/8/3R4/8/8/1r6 w - - 0 1", "Rb4", "a draw with best play"),
    ("Philidor", "4k3/R7/1r6/3PK3/8/8/8/8 b - - 0 1", "Rb5", "a loss"),
]


@pytest.mark.parametrize("name,fen,move,why", THROWN)
def test_a_thrown_result_ends_the_drill_and_names_the_move_that_kept_it(oracle, name, fen, move,
                                                                       why):
    board = chess.Board(fen)
    values = reference_values(board, oracle.tables)
    uci = board.parse_san(move).uci()
    best = max(o for o, _ in values.values())
    assert values[uci][0] < best, "python-chess's tables must call the move a thrown result"
    drill = Drill(name, fen=fen, tables=oracle, seed=1)
    verdict = drill.play(move)
    assert verdict.judgement is Judgement.THROWN
    assert why in verdict.text
    assert values[board.parse_san(verdict.best_move).uci()][0] == best
    assert verdict.finished and verdict.reply is None
    assert not drill.result.success and drill.finished and drill.legal_moves == []


def test_the_only_holding_move_is_named_so(oracle):
    fen = "8/8/4k3/8/8/4K3/4P3/8 b - - 0 1"
    board = chess.Board(fen)
    values = reference_values(board, oracle.tables)
    holding = [board.san(chess.Move.from_uci(m)) for m, (o, _) in values.items() if o == DRAW]
    assert holding == ["Ke5"]
    drill = Drill("KPvK-draw", fen=fen, tables=oracle, seed=1)
    assert drill.judge("Ke5").text == "Ke5: holds the draw (the only move that does)."
    assert drill.judge("Kd6").text.startswith("Kd6?? throws the draw away: a loss with best play")


def test_the_fifty_move_rule_can_throw_a_win_away(oracle):
    """A slower move wins by DTZ alone but not with the clock: with the clock set so that the
    fastest win just fits in the fifty moves, a slower one is a draw (python-chess's DTZ)."""
    board = chess.Board(choose_start("KRvK", oracle, "hard", seed=2))
    values = reference_values(board, oracle.tables)
    fastest = min(p for o, p in values.values() if o == WIN)
    slower = max((p, m) for m, (o, p) in values.items() if o == WIN)
    assert slower[0] > fastest
    board.halfmove_clock = 100 - fastest
    values = reference_values(board, oracle.tables)
    assert values[slower[1]][0] == DRAW
    drill = Drill("KRvK", fen=board.fen(), tables=oracle, seed=1)
    assert drill.halfmove_clock == 100 - fastest
    verdict = drill.play(slower[1])
    assert verdict.judgement is Judgement.THROWN and "fifty-move rule" in verdict.text
    again = drill.restart()
    best = [m for m, (o, p) in values.items() if o == WIN and p == fastest][0]
    assert again.play(best).judgement is Judgement.BEST


def test_a_move_allowing_a_threefold_repetition_is_a_draw(oracle):
    """A winning move after which the opponent can repeat a position a third time is a draw
    (the drill ends at threefold repetition), as python-chess's repetition count says."""
    fen = "7k/8/8/8/8/8/8/KQ6 w - - 0 1"
    shuffle = ["b1c1", "h8g8", "c1b1", "g8h8", "b1c1", "h8g8"]
    board, reference = Board(fen), chess.Board(fen)
    for move in shuffle:
        board.push_uci(move)
        reference.push_uci(move)
    reference.push_uci("c1b1")
    reference.push_uci("g8h8")
    assert reference.is_repetition(3)
    reader = TableReader(oracle)
    value = reader.move_value(board, "c1b1")
    assert value.outcome == DRAW and value.ending is Ending.REPETITION
    reference.pop(), reference.pop()
    assert reader.move_value(board, "c1c7").preference() == \
        (WIN, -reference_value(reference, chess.Move.from_uci("c1c7"), oracle.tables)[1])


# -- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("text,message", [
    ("Qz9", "Invalid move"), ("", "Invalid move"), ("hello", "Invalid move"),
    ("Kb3", "Illegal move"), ("a7a8", "Illegal move"), ("0000", "null move"),
    (None, "must be a string")])
def test_a_bad_move_is_refused_and_changes_nothing(oracle, text, message):
    drill = Drill("KQvK", fen="8/8/8/3k4/8/8/8/K3Q3 w - - 0 1", tables=oracle, seed=1)
    drill.play("Qe2")
    fen, moves, clock = drill.fen, drill.moves, drill.halfmove_clock
    verdict = drill.play(text)
    assert verdict.judgement is Judgement.REFUSED and not verdict.accepted
    assert message in verdict.text
    assert (drill.fen, drill.moves, drill.halfmove_clock) == (fen, moves, clock)
    assert len(drill.verdicts) == 1 and not drill.finished


def test_a_move_taken_back_is_as_if_never_played(oracle):
    fen = "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"
    drill = Drill("KQvK", fen=fen, tables=oracle, seed=1)
    assert not drill.take_back()
    first = drill.play("Qc2")
    assert first.reply and drill.take_back()
    assert drill.fen == fen and drill.moves == [] and drill.verdicts == []
    assert drill.play("Qc7").judgement is Judgement.THROWN and drill.finished
    assert drill.take_back() and not drill.finished and drill.result is None
    assert drill.fen == fen and drill.play("Qc8#").result.success


class DrawsFromTheThirdPly:
    """The oracle, except that every position three plies or more into the drill is a draw:
    how DTZ's rounding near the fifty-move limit could take a win away after a good move."""

    def __init__(self, oracle):
        self.oracle = oracle

    def probe_wdl(self, board):
        return 0 if len(board.move_stack()) >= 3 else self.oracle.probe_wdl(board)

    def probe_dtz(self, board):
        return 0 if len(board.move_stack()) >= 3 else self.oracle.probe_dtz(board)


def test_a_goal_out_of_reach_after_the_reply_ends_the_drill(oracle):
    drill = Drill("KRvK", fen="8/8/8/8/3k4/8/8/K3R3 w - - 0 1", tables=DrawsFromTheThirdPly(oracle),
                  seed=1)
    verdict = drill.play("Kb2")
    assert verdict.judgement is Judgement.BEST and verdict.reply and verdict.finished
    assert drill.result.ending is Ending.RESULT_LOST and not drill.result.success
    assert drill.result.text.startswith("The win is out of reach now")


def test_a_finished_drill_refuses_moves(oracle):
    drill = Drill("KQvK", fen="k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", tables=oracle, seed=1)
    assert drill.play("Qc8#").finished and drill.result.success
    assert drill.play("Kb7").judgement is Judgement.REFUSED
    assert drill.result.ending is Ending.CHECKMATE


@pytest.mark.parametrize("kwargs,message", [
    ({"lesson": "KQvKQ"}, "no lesson"),
    ({"lesson": "KQvK", "level": "impossible"}, "no level"),
    ({"lesson": "KQvK", "level": 99}, "1..10"),
    ({"lesson": "Philidor", "level": 3}, "holding a draw"),
    ({"lesson": "KQvK", "fen": "8/8/8/3k4/8/8/8/K3R3 w - - 0 1"}, "needs KQvK"),
    ({"lesson": "KPvK", "fen": "8/8/8/8/8/k7/P7/K7 w - - 0 1"}, "do not give the player a win"),
    ({"lesson": "KQvK", "fen": "8/8/8/3k4/8/8/8/K3Q3 b - - 0 1"}, "White to move"),
    ({"lesson": "KQvK", "fen": "not a fen"}, "bad start"),
    ({"lesson": "KRvK", "fen": "8/8/8/3k4/8/8/8/4K2R w K - 0 1"}, "castling")])
def test_a_bad_lesson_level_or_start_is_refused(oracle, kwargs, message):
    with pytest.raises(DrillError, match=message):
        Drill(tables=oracle, seed=1, **kwargs)


class NoTables:
    def probe_wdl(self, board):
        return None

    def probe_dtz(self, board):
        return None


def test_missing_tables_are_named():
    with pytest.raises(MissingTableError, match=r"no KBNvK table \(KBNvK.rtbw and KBNvK.rtbz\)"):
        Drill("KBNvK", seed=1, tables=NoTables())


# -- the command line -------------------------------------------------------------------------

def run_drill(monkeypatch, capsys, oracle, stdin, *args):
    """`scacco drill ARGS` in this process, reading `stdin`, with the oracle as the tables;
    (status, stdout, stderr); a usage error's SystemExit gives its status."""
    from scacco.uci.cli import main
    monkeypatch.setattr(drills, "open_tables", lambda paths: oracle)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        status = main(["drill", *args])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def test_the_command_plays_a_lesson_from_standard_input(oracle, monkeypatch, capsys):
    args = ["KRvK", "--level", "medium", "--seed", "9", "--path", str(oracle_dir())]
    twin = Drill("KRvK", level="medium", seed=9, tables=oracle)
    moves = []
    while not twin.finished:
        move = scripted_move(twin, oracle)
        moves.append(chess_board(twin).san(chess.Move.from_uci(move)))
        twin.play(move)
    script = "\n".join(["Rz9", "moves", moves[0], "back", moves[0], "", *moves[1:]]) + "\n"
    status, out, err = run_drill(monkeypatch, capsys, oracle, script, *args)
    assert status == 0, err
    assert "Lesson KRvK: mate with king and rook (level medium, seed 9)." in out
    assert f"mate in {twin.verdicts[0].moves_left} with best play" in out
    assert "Invalid move 'Rz9'" in out and "Legal moves: " in out
    assert "Taken back." in out
    assert out.count("Fifty-move counter: ") == len(moves) + 2   # the start, each reply, back
    assert "   a b c d e f g h" in out
    assert twin.result.text in out and out.rstrip().endswith(twin.result.text)
    assert "Mate: you won" in twin.result.text


def test_the_end_of_input_ends_the_drill_cleanly(oracle, monkeypatch, capsys):
    status, out, err = run_drill(monkeypatch, capsys, oracle, "Kb3\n", "Philidor", "--seed", "1",
                                 "--path", str(oracle_dir()))
    assert status == 0 and err == ""
    assert "Input ended: the drill stopped after 0 of your moves." in out
    ranks = [line[0] for line in out.splitlines() if line[:1].isdigit() and line[1:3] == "  "]
    assert ranks == list("12345678")                # the player's side (Black) below
    assert "   h g f e d c b a" in out and "You play Black; hold the draw." in out


def test_the_command_lists_the_lessons(oracle, monkeypatch, capsys):
    status, out, _ = run_drill(monkeypatch, capsys, oracle, "", "--list")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == list(LESSONS)


@pytest.mark.parametrize("args,message", [
    (["KQvK"], "--path"),
    (["KQvK", "--path", "/no/such/folder"], "no such folder: /no/such/folder"),
    (["KQvKQ", "--path", "."], "no lesson 'KQvKQ'"),
    (["KQvK", "--level", "11", "--path", "."], "1..10"),
    (["KQvK", "--seed", "-1", "--path", "."], "--seed must be at least 0")])
def test_the_command_refuses_bad_arguments(oracle, monkeypatch, capsys, args, message):
    status, out, err = run_drill(monkeypatch, capsys, oracle, "", *args)
    assert status == 2 and message in err and out == ""


def test_the_command_says_which_table_is_missing(tmp_path, monkeypatch, capsys):
    status, out, err = run_drill(monkeypatch, capsys, SyzygyOracle(tmp_path), "", "KBNvK",
                                 "--path", str(tmp_path))
    assert status == 2 and out == ""
    assert f"no KBNvK table (KBNvK.rtbw and KBNvK.rtbz)" in err and str(tmp_path) in err


def test_the_installed_command_lists_the_lessons_and_needs_tables(tmp_path):
    """The real `scacco drill` (a process of its own): --list, and a missing folder is status 2."""
    listed = subprocess.run([sys.executable, "-m", "scacco", "drill", "--list"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0 and "Lucena" in listed.stdout
    missing = subprocess.run([sys.executable, "-m", "scacco", "drill", "KQvK", "--path",
                              str(tmp_path / "none")], cwd=tmp_path, capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def oracle_dir():
    return shared_file("syzygy/KQvK.rtbw").parent


def test_the_lesson_table_of_the_docs_is_the_lessons():
    """docs/drills.md's table lists every lesson, in order, with its side, goal, material and
    (win lessons) its bands of moves."""
    text = (REPO_ROOT / "docs" / "drills.md").read_text(encoding="utf-8")
    rows = [[cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| `")]
    assert [row[0] for row in rows] == list(LESSONS)
    for row in rows:
        lesson = LESSONS[row[0]]
        assert row[1] == ("White" if lesson.player_white else "Black")
        assert row[2] == lesson.goal.value and row[3] == lesson.material
        if lesson.goal is Goal.WIN:
            assert row[4:] == [f"{low}-{high}" for low, high in lesson.bands]


def test_the_readme_shows_a_real_lesson(oracle, monkeypatch, capsys):
    """The README's transcript is what `scacco drill` prints for its command and moves (its
    elided boards aside)."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ scacco drill ", 1)[1].split("```", 1)[0].splitlines()
    args = block[0].split()
    args[args.index("--path") + 1] = str(oracle_dir())
    typed = [line[len("Your move: "):] for line in block if line.startswith("Your move: ")]
    status, out, _ = run_drill(monkeypatch, capsys, oracle, "\n".join(typed) + "\n", *args)
    assert status == 0
    printed = iter(out.splitlines())
    for line in block[1:]:
        if line.startswith("Your move: ") or line == "(the board and the counter)":
            continue
        assert any(line == seen for seen in printed), f"README line not printed: {line!r}"
