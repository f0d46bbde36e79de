"""Puzzles: `scacco solve` and engine.trainer.puzzles against an exhaustive python-chess search, the
answer judge, the finder and `scacco puzzles`, `scacco hint`, the collection and `scacco puzzle`."""
import csv
import subprocess
import sys

import chess
import pytest

from scacco.engine import Board
from scacco.engine.trainer.puzzles import mate_line, mating_moves, shortest_mate
from scacco.ext._core import MateSearch
from tests.conftest import REPO_ROOT, shared_file
from tests.oracles import forces_mate


def reference_solutions(fen: str, n: int) -> set:
    """Every first move that forces mate within n moves, by exhaustive python-chess search."""
    board = chess.Board(fen)
    return {move.uci() for move in list(board.legal_moves) if forces_mate(board, move, n)}


# Positions with several solutions (found by a seeded random search over sparse positions;
# the expected sets are computed in the test by the exhaustive python-chess search).
SEVERAL_SOLUTIONS = [
    ("8/8/1R6/3K4/8/4k3/5R2/8 w - - 0 1", 2),
    ("8/8/8/7R/4R3/k7/8/3K4 w - - 0 1", 2),
    ("8/6R1/K7/8/8/7k/3R4/8 w - - 0 1", 2),
    ("8/8/8/8/K4R2/8/5R2/k7 w - - 0 1", 2),
    ("1K1k4/8/2R4R/8/8/8/8/8 w - - 0 1", 2),
    ("8/3R4/8/8/k7/8/1K3R2/8 w - - 0 1", 2),
    ("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", 1),
    ("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", 2),
]


@pytest.mark.parametrize("fen,n", SEVERAL_SOLUTIONS)
def test_every_solution_is_found(fen, n):
    expected = reference_solutions(fen, n)
    assert len(expected) >= 2
    assert {move for move, _ in mating_moves(Board(fen), n)} == expected


def test_mate_in_one_file_matches_python_chess():
    for line in shared_file("mate1.fen").read_text().splitlines():
        if not line.strip():
            continue
        board = chess.Board(line)
        expected = set()
        for move in list(board.legal_moves):
            board.push(move)
            if board.is_checkmate():
                expected.add(move.uci())
            board.pop()
        assert expected, line
        assert {move for move, _ in mating_moves(Board(line), 1)} == expected


def test_mate_in_two_sample_matches_python_chess():
    lines = [l for l in shared_file("mate2.fen").read_text().splitlines() if l.strip()]
    for line in lines[::40]:
        assert {move for move, _ in mating_moves(Board(line), 2)} == reference_solutions(line, 2), line


@pytest.mark.parametrize("name,n", [("mate1.fen", 1), ("mate2.fen", 2), ("mate3.fen", 3), ("mate4.fen", 4)])
def test_every_file_position_has_its_mate(name, n):
    # Each solution's main line, replayed with python-chess, ends in checkmate within n moves.
    solver = MateSearch()
    for line in shared_file(name).read_text().splitlines():
        if not line.strip():
            continue
        board = Board(line)
        found = shortest_mate(board, n, solver)
        assert found is not None, line
        move, k = found
        assert 1 <= k <= n
        ref = chess.Board(line)
        codes = mate_line(board, move, k, solver)
        walker = board.copy()
        for code in codes:
            ref.push_uci(walker.move_uci(code))
            walker.push_code(code)
        assert ref.is_checkmate(), (line, [m.uci() for m in ref.move_stack])
        assert len(codes) == 2 * k - 1


def test_shortest_mate_is_reported_within_the_bound():
    # Moves that mate sooner count under "at most N", with their own distance.
    fen = "6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1"
    solutions = dict(mating_moves(Board(fen), 2))
    assert solutions["d1d8"] == 1 and solutions["a1a8"] == 1
    assert reference_solutions(fen, 1) == {m for m, k in solutions.items() if k == 1}


def test_no_mate_means_no_moves():
    assert mating_moves(Board(), 2) == []
    assert shortest_mate(Board(), 2) is None


def run_solve(*args):
    return subprocess.run([sys.executable, "-m", "scacco", "solve", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_solve_command_prints_exactly_the_solutions():
    fen, n = SEVERAL_SOLUTIONS[0]
    done = run_solve("--fen", fen, "--mate", str(n))
    assert done.returncode == 0
    printed = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert set(printed) == reference_solutions(fen, n) and len(printed) == len(set(printed))
    board = chess.Board(fen)
    for move in printed:
        assert chess.Move.from_uci(move) in board.legal_moves


@pytest.mark.parametrize("args,message", [
    (["--fen", "not a fen", "--mate", "2"], "bad FEN"),
    (["--fen", chess.STARTING_FEN, "--mate", "0"], "at least 1"),
    (["--fen", chess.STARTING_FEN, "--mate", "-3"], "at least 1"),
    (["--fen", chess.STARTING_FEN, "--mate", "two"], "invalid int"),
    (["--fen", chess.STARTING_FEN, "--mate", "61"], "at most 60"),
])
def test_solve_command_rejects_bad_input(args, message):
    done = run_solve(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


# --- judging answers (engine.trainer.puzzles.Puzzle) --------------------------------------------

from scacco.engine.trainer.puzzles import Puzzle, PuzzleError  # noqa: E402


def mate_file_positions(name):
    return [line for line in shared_file(name).read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name,n", [("mate1.fen", 1), ("mate2.fen", 2), ("mate3.fen", 3)])
def test_judge_accepts_every_mating_move_and_rejects_every_other(name, n):
    # The judge of a "mate in n" puzzle against the exhaustive python-chess search, on every
    # legal move of every position of the file.
    for fen in mate_file_positions(name):
        expected = reference_solutions(fen, n)
        assert expected, fen
        puzzle = Puzzle(fen, goal=f"mate in {n}")
        accepted = {m for m in chess.Board(fen).legal_moves if puzzle.judge(m.uci()).right}
        assert {m.uci() for m in accepted} == expected, fen


def test_mate_puzzle_in_lichess_format_follows_its_line_and_answers_deviations():
    # Black's first move lets White mate: both rook moves to the eighth rank mate at once.
    puzzle = Puzzle("5k2/5ppp/8/8/8/8/5PPP/R2R2K1 b - - 0 1", ["f8g8", "d1d8"])
    assert puzzle.kind == "mate" and puzzle.moves_left == 1
    board = chess.Board("5k2/5ppp/8/8/8/8/5PPP/R2R2K1 b - - 0 1")
    board.push_uci("f8g8")
    for move in board.legal_moves:
        board.push(move)
        mates = board.is_checkmate()
        board.pop()
        assert puzzle.judge(move.uci()).right == mates, move
    verdict = puzzle.try_move("Ra8#")        # not the stored move, but it mates too
    assert verdict.right and verdict.solved and not verdict.followed_solution
    assert puzzle.solved
    with pytest.raises(PuzzleError):
        puzzle.try_move("a8a7")


def test_mate_puzzle_reply_is_the_solutions_then_the_longest_defence():
    fen, n = "8/8/1R6/3K4/8/4k3/5R2/8 w - - 0 1", 2
    puzzle = Puzzle(fen, goal=f"mate in {n}")
    solutions = sorted(reference_solutions(fen, n))
    verdict = puzzle.try_move(solutions[0])
    assert verdict.right and not verdict.solved
    # the engine's reply must be legal and leave a mate in one (python-chess checks it)
    board = chess.Board(fen)
    board.push_uci(solutions[0])
    assert chess.Move.from_uci(verdict.reply) in board.legal_moves
    board.push_uci(verdict.reply)
    assert reference_solutions(board.fen(), 1)
    assert puzzle.try_move(sorted(reference_solutions(board.fen(), 1))[0]).solved


def test_wrong_move_changes_nothing_and_says_why():
    fen = "6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1"
    puzzle = Puzzle(fen, goal="mate in 1")
    before = puzzle.board.fen()
    verdict = puzzle.try_move("g1f1")
    assert not verdict.right and verdict.reply is None and "mate" in verdict.reason
    assert puzzle.board.fen() == before and not puzzle.solved


@pytest.mark.parametrize("args,kwargs,message", [
    (("not a fen", ["e2e4", "e7e5"]), {}, "bad FEN"),
    ((chess.STARTING_FEN, ["e2e5", "e7e5"]), {}, "not legal"),
    ((chess.STARTING_FEN, ["e2e4"]), {}, "at least one answer"),
    ((chess.STARTING_FEN,), {}, "goal"),
    ((chess.STARTING_FEN,), {"goal": "win the game"}, "unknown goal"),
    ((chess.STARTING_FEN,), {"goal": "mate in 0"}, "1.."),
    ((chess.STARTING_FEN,), {"goal": "mate in 2"}, "no mate"),
    (("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", ["g1f1", "g8f8"]), {"goal": "mate in 1"}, "does not mate"),
])
def test_bad_puzzles_are_refused(args, kwargs, message):
    with pytest.raises(PuzzleError, match=message):
        Puzzle(*args, **kwargs)


def test_illegal_tried_move_is_refused_and_changes_nothing():
    puzzle = Puzzle("6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1", goal="mate in 1")
    for bad in ("a1a9", "e2e4", "Qh5", ""):
        with pytest.raises(PuzzleError):
            puzzle.try_move(bad)
    assert puzzle.board.fen() == "6k1/5ppp/8/8/8/8/5PPP/R2R2K1 w - - 0 1"


def lichess_material_puzzles(count):
    rows = list(csv.DictReader(open(shared_file("puzzle-themes.csv"), newline="")))
    out = []
    for row in rows:
        board = replay_python_chess(row["FEN"], row["Moves"].split())
        if not board.is_checkmate():
            out.append(row)
        if len(out) == count:
            break
    return out


def replay_python_chess(fen, moves):
    board = chess.Board(fen)
    for move in moves:
        board.push_uci(move)
    return board


def deeper_score(fen, move, nodes):
    """The mover's normalised score after move by a deeper Scacco search (mate = +-10^5)."""
    from scacco.engine.search import Searcher
    board = Board(fen)
    board.push_uci(move)
    if board.is_checkmate():
        return 100_000
    searcher = Searcher(16)
    result = searcher.search(board, nodes=nodes)
    if result.score_mate is not None:
        return -100_000 if result.score_mate > 0 else 100_000
    return -result.score_cp


def test_material_judge_accepts_the_solution_and_only_moves_a_deeper_search_keeps():
    # lichess tactics (Stockfish-checked lines): the stored move is accepted, and every
    # accepted move still wins by a search with 20 times the judge's nodes.
    from scacco.engine.trainer.puzzles import DECISIVE_CP, MATERIAL_MARGIN_CP
    nodes = 40_000
    for row in lichess_material_puzzles(4):
        puzzle = Puzzle(row["FEN"], row["Moves"].split(), nodes=nodes)
        solution = puzzle.solution_move
        fen = puzzle.board.fen()
        accepted = [m for m in puzzle.board.legal_moves() if puzzle.judge(m).right]
        assert solution in accepted, row["PuzzleId"]
        reference = deeper_score(fen, solution, 20 * nodes)
        for move in accepted:
            score = deeper_score(fen, move, 20 * nodes)
            if reference >= DECISIVE_CP:
                assert score >= DECISIVE_CP - MATERIAL_MARGIN_CP, (row["PuzzleId"], move, score)
            else:
                assert score >= reference - 2 * MATERIAL_MARGIN_CP, (row["PuzzleId"], move, score)


def test_material_puzzle_follows_the_solution_to_the_end():
    row = lichess_material_puzzles(1)[0]
    moves = row["Moves"].split()
    puzzle = Puzzle(row["FEN"], moves, nodes=40_000)
    played = [moves[0]]
    while not puzzle.solved:
        verdict = puzzle.try_move(puzzle.solution_move)
        assert verdict.right and verdict.followed_solution
        played.append(verdict.move)
        if verdict.reply:
            played.append(verdict.reply)
    assert played == moves


# --- the finder (engine.trainer.puzzle_finder) and `scacco puzzles` --------------------------------

from scacco.engine.pgn import read_game  # noqa: E402
from scacco.engine.trainer.puzzle_finder import MIN_RATING, MAX_RATING, FinderBudget, find_puzzles  # noqa: E402

# Scholar's mate missed and then allowed: 4.Qxf7# is a mate in one after 3...Nf6??
BLUNDER_GAME = """[Event "test"]
[Site "https://example.org/game/1"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"""


def test_finder_finds_the_mate_after_the_blunder_in_the_lichess_format():
    import io
    game = read_game(io.StringIO(BLUNDER_GAME))
    found = find_puzzles(game, FinderBudget(scan_nodes=20_000, pair_nodes=50_000))
    assert found, "the mate in one was not found"
    puzzle = found[0]
    board = chess.Board(puzzle.fen)
    assert board.fen() == "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
    assert puzzle.moves[0] == "g8f6"                # the opponent's blunder comes first
    board.push_uci(puzzle.moves[0])
    # the solver's move is the only mating move (python-chess)
    assert reference_solutions(board.fen(), 1) == {puzzle.moves[1]}
    assert puzzle.moves[1:] == ["h5f7"] and puzzle.kind == "mate"
    assert puzzle.game_url == "https://example.org/game/1"
    assert MIN_RATING <= puzzle.rating <= MAX_RATING


def run_scacco(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "scacco", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_puzzles_command_writes_the_lichess_columns(tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(BLUNDER_GAME.replace('[Site "https://example.org/game/1"]', '[Site "?"]')
                   + "\n" + BLUNDER_GAME)
    out = tmp_path / "puzzles.csv"
    done = run_scacco("puzzles", str(pgn), "--out", str(out), "--jobs", "1", "--nodes", "20000")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(out, newline="")))
    assert list(rows[0]) == ["PuzzleId", "FEN", "Moves", "Rating", "Themes", "GameUrl"]
    urls = {row["GameUrl"] for row in rows}
    assert f"{pgn}#game1" in urls and "https://example.org/game/1" in urls
    for row in rows:
        board = chess.Board(row["FEN"])
        for move in row["Moves"].split():
            assert chess.Move.from_uci(move) in board.legal_moves
            board.push_uci(move)
        if "mateIn1" in row["Themes"].split():
            assert board.is_checkmate()
    assert "puzzles" in done.stderr                  # the summary on stderr


def test_puzzles_command_writes_nothing_without_games(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("no games here, just words\n")
    out = tmp_path / "puzzles.csv"
    out.write_text("earlier\n")
    done = run_scacco("puzzles", str(text), "--out", str(out), "--jobs", "1")
    assert done.returncode == 2 and "no PGN game could be read" in done.stderr
    assert out.read_text() == "earlier\n"


@pytest.mark.parametrize("args,message", [
    (["puzzles", "/no/such/file.pgn", "--out", "x.csv"], "no such file"),
    (["puzzles", "tests/test_puzzles.py", "--out", "/no/such/dir/x.csv"], "no such directory"),
    (["puzzles", "tests/test_puzzles.py"], "--out"),
    (["puzzles", "tests/test_puzzles.py", "--out", "x.csv", "--jobs", "0"], "at least 1"),
])
def test_puzzles_command_rejects_bad_input(args, message):
    done = run_scacco(*args)
    assert done.returncode == 2 and message in done.stderr


# --- `scacco hint` -------------------------------------------------------------------------

def test_hint_gives_the_mate_in_one_as_san():
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    done = run_scacco("hint", "--fen", fen)
    assert done.returncode == 0, done.stderr
    san, why = done.stdout.splitlines()[:2]
    board = chess.Board(fen)
    board.push_san(san)
    assert board.is_checkmate() and why


def test_hint_gives_a_forced_mate_in_two_when_there_is_one():
    fen, n = SEVERAL_SOLUTIONS[0]
    done = run_scacco("hint", "--fen", fen, "--level", "600")
    assert done.returncode == 0, done.stderr
    board = chess.Board(fen)
    move = board.parse_san(done.stdout.splitlines()[0])
    assert move.uci() in reference_solutions(fen, n)


def test_hint_meets_a_mate_threat():
    # Black to move must stop Qxf7#; python-chess checks the hinted move leaves no mate in one.
    fen = "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3"
    done = run_scacco("hint", "--fen", fen)
    assert done.returncode == 0, done.stderr
    board = chess.Board(fen)
    board.push_san(done.stdout.splitlines()[0])
    assert not reference_solutions(board.fen(), 1)


@pytest.mark.parametrize("args,message", [
    (["hint", "--fen", "rnbqkbnr/pppppppp/8/8 w - - 0 1"], "bad FEN"),
    (["hint", "--fen", chess.STARTING_FEN, "--level", "100"], "--level"),
    (["hint"], "--fen"),
    (["hint", "--fen", "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1"], "game is over"),
])
def test_hint_rejects_bad_input(args, message):
    done = run_scacco(*args)
    assert done.returncode != 0 and message in done.stderr and done.stdout == ""


# --- the shipped collection and `scacco puzzle` ----------------------------------------------

def collection_rows():
    from scacco.engine.trainer.daily import COLLECTION
    return list(csv.DictReader(open(COLLECTION, newline="")))


def is_mate_row(row) -> bool:
    board = chess.Board(row["FEN"])
    for move in row["Moves"].split():
        board.push_uci(move)
    return board.is_checkmate()


def test_collection_holds_a_thousand_puzzles_and_a_hundred_tactics():
    rows = collection_rows()
    assert len(rows) >= 1000
    tactics = sum(not is_mate_row(row) for row in rows)
    assert tactics >= 100 and len(rows) - tactics >= 100


def test_collection_is_legal_and_spread():
    rows = collection_rows()
    assert len({row["PuzzleId"] for row in rows}) == len(rows)
    assert len({row["FEN"] for row in rows}) == len(rows)
    mates = tactics = 0
    ratings = []
    for row in rows:
        board = chess.Board(row["FEN"])
        for move in row["Moves"].split():
            assert chess.Move.from_uci(move) in board.legal_moves, row["PuzzleId"]
            board.push_uci(move)
        themes = row["Themes"].split()
        if board.is_checkmate():
            mates += 1
            assert f"mateIn{(len(row['Moves'].split())) // 2}" in themes, row["PuzzleId"]
        else:
            tactics += 1
            assert not any(t.startswith("mateIn") for t in themes), row["PuzzleId"]
        ratings.append(int(row["Rating"]))
    assert mates > 0 and tactics > 0     # how many of each: the test above
    assert min(ratings) <= 700 and max(ratings) >= 2000
    assert all(600 <= r <= 2100 for r in ratings)


def test_daily_puzzle_is_the_same_for_a_date_and_varies_with_it():
    first = run_scacco("puzzle", "--date", "2026-12-01")
    again = run_scacco("puzzle", "--date", "2026-12-01")
    other = [run_scacco("puzzle", "--date", f"2026-12-{day:02d}").stdout for day in range(2, 6)]
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    assert any(text != first.stdout for text in other)
    lines = first.stdout.splitlines()
    assert any(line.startswith("Themes:") for line in lines)
    assert sum(line.startswith("Hint ") for line in lines) == 3


def test_daily_puzzle_solution_is_its_line():
    done = run_scacco("puzzle", "--date", "2027-01-31", "--solution")
    assert done.returncode == 0, done.stderr
    fen = next(line[5:] for line in done.stdout.splitlines() if line.startswith("FEN: "))
    solution = next(line for line in done.stdout.splitlines() if line.startswith("Solution: "))
    board = chess.Board(fen)
    for san in solution.split()[1:]:
        board.push_san(san)
    row = next(r for r in collection_rows() if r["PuzzleId"] in done.stdout.splitlines()[0])
    assert board.move_stack[-1].uci() == row["Moves"].split()[-1]


@pytest.mark.parametrize("date", ["2026-02-30", "2026-13-01", "yesterday", "2026-1-5", ""])
def test_daily_puzzle_rejects_a_bad_date(date):
    done = run_scacco("puzzle", "--date", date)
    assert done.returncode == 2 and "bad date" in done.stderr and done.stdout == ""
