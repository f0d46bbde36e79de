"""The Syzygy reader (ext/syzygy.pxi, engine/tablebase.py) against python-chess's chess.syzygy
on the shared tables: WDL and DTZ of random legal positions of every material present (both
sides to move, en passant positions included), and bad files refused with their name and the
reason while the good tables stay in use.  bench/syzygy_check.py runs the full comparison."""
import os
import random
import shutil

import chess
import chess.syzygy
import pytest

from scacco.engine.board import Board
from scacco.engine.tablebase import Tablebase, keep_result_moves, split_paths
from tests.shared import shared_dir

TABLES = shared_dir() / "data" / "syzygy"
PER_MATERIAL = 150

pytestmark = pytest.mark.skipif(not TABLES.is_dir(), reason="no shared Syzygy tables")


def materials():
    if not TABLES.is_dir():
        return []
    return sorted(name[:-5] for name in os.listdir(TABLES) if name.endswith(".rtbw"))


def random_position(name: str, rng: random.Random, en_passant: bool = False):
    """A random legal position of the material `name` (white's pieces first), no castling;
    with en_passant, one where the side to move can take en passant (when the material has
    a pawn of each colour), else None."""
    white, black = name.split("v")
    for _ in range(10000):
        board = chess.Board(None)
        board.turn = rng.random() < 0.5
        squares = list(range(64))
        rng.shuffle(squares)
        placed = []
        if en_passant:
            if "P" not in white or "P" not in black:
                return None
            # The side not to move has just pushed a pawn two squares beside a pawn of ours.
            mover = board.turn
            file = rng.randrange(8)
            side = rng.choice([f for f in (file - 1, file + 1) if 0 <= f < 8])
            rank = 3 if mover == chess.BLACK else 4
            pushed = chess.square(file, rank)
            ours = chess.square(side, rank)
            over = chess.square(file, rank - 1 if mover == chess.BLACK else rank + 1)
            start = chess.square(file, rank - 2 if mover == chess.BLACK else rank + 2)
            board.set_piece_at(pushed, chess.Piece(chess.PAWN, not mover))
            board.set_piece_at(ours, chess.Piece(chess.PAWN, mover))
            squares = [s for s in squares if s not in (pushed, ours, over, start)]
            placed = [(not mover, "P"), (mover, "P")]
        remaining = {chess.WHITE: list(white), chess.BLACK: list(black)}
        for color, letter in placed:
            remaining[color].remove(letter)
        ok = True
        for color in (chess.WHITE, chess.BLACK):
            for letter in remaining[color]:
                square = squares.pop()
                piece_type = chess.PIECE_SYMBOLS.index(letter.lower())
                if piece_type == chess.PAWN and chess.square_rank(square) in (0, 7):
                    ok = False
                board.set_piece_at(square, chess.Piece(piece_type, color))
        if not ok:
            continue
        if en_passant:
            board.ep_square = over
            if not any(board.is_en_passant(m) for m in board.legal_moves):
                continue
        if board.is_valid():
            return board
    raise AssertionError(f"no legal position found for {name}")


@pytest.fixture(scope="module")
def oracle():
    with chess.syzygy.open_tablebase(str(TABLES)) as tables:
        yield tables


@pytest.fixture(scope="module")
def ours():
    return Tablebase([TABLES])


def test_every_shared_table_loads(ours):
    assert ours.problems == []
    assert ours.tables == len(materials())
    assert ours.dtz_tables == len(materials())
    assert ours.max_pieces == max(len(name) - 1 for name in materials())


@pytest.mark.parametrize("name", materials())
def test_wdl_and_dtz_equal_python_chess(name, oracle, ours):
    rng = random.Random(name)
    count = 0
    for i in range(PER_MATERIAL):
        board = random_position(name, rng)
        ours_board = Board(board.fen())
        expected = (oracle.probe_wdl(board), oracle.probe_dtz(board))
        assert (ours.probe_wdl(ours_board), ours.probe_dtz(ours_board)) == expected, board.fen()
        count += 1
    assert count == PER_MATERIAL


@pytest.mark.parametrize("name", [n for n in materials() if "P" in n.split("v")[0] and "P" in n.split("v")[1]]
                         or ["KPvKP"])
def test_en_passant_positions_equal_python_chess(name, oracle, ours):
    rng = random.Random("ep" + name)
    for i in range(PER_MATERIAL):
        board = random_position(name, rng, en_passant=True)
        assert board is not None and board.ep_square is not None
        ours_board = Board(board.fen())
        assert ours_board.fen() == board.fen()
        expected = (oracle.probe_wdl(board), oracle.probe_dtz(board))
        assert (ours.probe_wdl(ours_board), ours.probe_dtz(ours_board)) == expected, board.fen()


def test_positions_outside_the_tables_give_none(ours):
    # Castling rights, too many pieces, a material with no table.
    assert ours.probe_wdl(Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")) is None
    assert ours.probe_dtz(Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")) is None
    assert ours.probe_wdl(Board()) is None
    assert ours.probe_wdl(Board("4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1")) is None
    assert ours.probe_wdl(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0


def test_rank_moves_keeps_the_oracles_results(oracle, ours):
    rng = random.Random(7)
    for name in ("KRvK", "KQvKR", "KRPvKR", "KPvKP"):
        for _ in range(5):
            board = random_position(name, rng)
            ranking = ours.rank_moves(Board(board.fen()))
            assert ranking is not None
            assert sorted(r.move for r in ranking) == sorted(m.uci() for m in board.legal_moves)
            for r in ranking:
                child = board.copy()
                child.push_uci(r.move)
                assert r.after_wdl == oracle.probe_wdl(child)
                assert r.after_dtz == oracle.probe_dtz(child)
                assert r.wdl == -r.after_wdl
            # Best first: the first move keeps the root's result.
            assert ranking[0].wdl == oracle.probe_wdl(board)


def test_keep_result_moves_never_spoils_the_result(oracle, ours):
    rng = random.Random(11)
    for name in ("KQvKR", "KRPvKR", "KPvK"):
        for _ in range(5):
            board = random_position(name, rng)
            ranking = ours.rank_moves(Board(board.fen()))
            kept = keep_result_moves(ranking, 0)
            assert kept
            root = oracle.probe_wdl(board)
            for move in kept:
                child = board.copy()
                child.push_uci(move)
                assert -oracle.probe_wdl(child) == root


def test_split_paths():
    assert split_paths(None) == []
    assert split_paths("<empty>") == []
    assert split_paths("") == []
    assert split_paths(os.pathsep.join(["a", "", "b "])) == ["a", "b"]
    assert split_paths(["x", "y"]) == ["x", "y"]


# -- bad files --------------------------------------------------------------------------------

@pytest.fixture
def bad_folder(tmp_path):
    """A folder with some good tables and several bad ones."""
    for name in ("KRvK", "KQvK"):
        for suffix in (".rtbw", ".rtbz"):
            shutil.copy(TABLES / (name + suffix), tmp_path / (name + suffix))
    data = (TABLES / "KRvKR.rtbw").read_bytes()
    (tmp_path / "KRvKR.rtbw").write_bytes(data[: len(data) // 2])            # cut
    (tmp_path / "KRvKR.rtbz").write_bytes(b"\0\0\0\0" + (TABLES / "KRvKR.rtbz").read_bytes()[4:])
    (tmp_path / "KBvK.rtbw").mkdir()                                           # a folder
    (tmp_path / "KNvK.rtbw").write_bytes(b"PK\3\4" + bytes(4 * 64 + 12))     # foreign (a zip)
    (tmp_path / "KPvK.rtbw").write_bytes(b"")                                 # empty
    # Cut at a size a whole table could have: the data the header describes is missing.
    data = (TABLES / "KQvKR.rtbw").read_bytes()
    (tmp_path / "KQvKR.rtbw").write_bytes(data[: len(data) // 2 // 64 * 64 + 16])
    # The right magic and size, but the header of another material.
    (tmp_path / "KBvKN.rtbw").write_bytes((TABLES / "KQvK.rtbw").read_bytes())
    (tmp_path / "README.md").write_text("not a table")
    return tmp_path


def test_bad_files_are_refused_with_name_and_reason(bad_folder):
    tables = Tablebase([bad_folder])
    problems = {p.split(": ", 1)[0]: p.split(": ", 1)[1] for p in tables.problems}
    expected = {"KRvKR.rtbw": "size", "KRvKR.rtbz": "magic", "KBvK.rtbw": "folder",
                "KNvK.rtbw": "magic", "KPvK.rtbw": "empty", "KBvKN.rtbw": "pieces",
                "KQvKR.rtbw": "truncated"}
    assert {os.path.basename(path) for path in problems} == set(expected)
    for path, reason in problems.items():
        assert expected[os.path.basename(path)] in reason, (path, reason)
    # The good tables are still used.
    assert tables.tables == 2
    board = Board("8/8/8/8/8/2k5/8/R3K3 w - - 0 1")
    with chess.syzygy.open_tablebase(str(TABLES)) as oracle:
        reference = chess.Board(board.fen())
        assert tables.probe_wdl(board) == oracle.probe_wdl(reference)
        assert tables.probe_dtz(board) == oracle.probe_dtz(reference)
    assert tables.probe_wdl(Board("8/8/8/8/8/2k5/8/R3K2r w - - 0 1")) is None


def test_corrupt_sizes_inside_a_table_are_refused_or_probe_safely(tmp_path):
    """Bytes of the header changed at random: the file is refused, or its probes answer
    something or None, but never read outside the file (a crash would end the test run)."""
    data = bytearray((TABLES / "KRPvKR.rtbw").read_bytes())
    rng = random.Random(3)
    boards = [Board(random_position("KRPvKR", rng).fen()) for _ in range(20)]
    for trial in range(40):
        corrupt = bytearray(data)
        for _ in range(4):
            corrupt[rng.randrange(4, 200)] = rng.randrange(256)
        path = tmp_path / str(trial)
        path.mkdir()
        (path / "KRPvKR.rtbw").write_bytes(bytes(corrupt))
        tables = Tablebase([path])
        if tables.problems:
            assert tables.problems[0].startswith(str(path / "KRPvKR.rtbw") + ": ")
            continue
        for board in boards:
            assert tables.probe_wdl(board) in (None, -2, -1, 0, 1, 2)


def test_a_missing_folder_is_a_problem_and_other_folders_are_used(tmp_path):
    tables = Tablebase(os.pathsep.join([str(tmp_path / "nowhere"), str(TABLES)]))
    assert tables.problems == [f"{tmp_path / 'nowhere'}: not a folder"]
    assert tables.tables == len(materials())


# -- the search ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def searcher(ours):
    from scacco.engine.search import Searcher
    searcher = Searcher(16)
    searcher.set_tablebase(ours)
    return searcher


@pytest.mark.parametrize("name", ["KQvKR", "KRPvKR", "KPvK", "KRvKR", "KBNvK"])
def test_the_search_never_spoils_a_tablebase_result_at_the_root(name, oracle, searcher):
    rng = random.Random("root" + name)
    for _ in range(6):
        board = random_position(name, rng)
        if board.is_game_over():
            continue
        root = oracle.probe_wdl(board)
        result = searcher.search(Board(board.fen()), depth=6)
        child = board.copy()
        child.push_uci(result.best_move)
        assert -oracle.probe_wdl(child) == root, (board.fen(), result.best_move)
        assert result.lines[-1].tbhits >= board.legal_moves.count()
        if root == 0:
            assert result.score_cp == 0
        elif root == 2 and result.score_mate is None:
            assert result.score_cp > 5000


def test_the_search_probes_after_captures_below_the_root(ours, searcher):
    # Six pieces: not in the tables; capturing the knight leads into KRPvKR.
    board = Board("8/8/4k3/3n4/2R5/8/4P3/4K1r1 w - - 0 1")
    result = searcher.search(board, depth=8)
    assert result.lines[-1].tbhits > 0
    from scacco.engine.search import Searcher
    plain = Searcher(16)
    assert plain.search(board, depth=8).lines[-1].tbhits == 0


def test_threads_probe_the_same_tables(ours):
    from scacco.engine.search import Searcher
    searcher = Searcher(16, threads=2)
    searcher.set_tablebase(ours)
    board = Board("8/8/4k3/3n4/2R5/8/4P3/4K1r1 w - - 0 1")
    result = searcher.search(board, depth=12)
    assert result.best_move in board.legal_moves()
    assert result.lines[-1].tbhits > 0


def test_probe_limit_zero_and_no_tables_probe_nothing(ours):
    from scacco.engine.search import Searcher
    searcher = Searcher(16)
    searcher.set_tablebase(ours, probe_limit=0)
    board = Board("8/8/4k3/3n4/2R5/8/4P3/4K1r1 w - - 0 1")
    assert searcher.search(board, depth=8).lines[-1].tbhits == 0
    searcher.set_tablebase(None)
    assert searcher.search(Board("8/8/8/8/8/2k5/1r6/4K2Q w - - 0 1"), depth=4).lines[-1].tbhits == 0
    with pytest.raises(ValueError):
        searcher.set_tablebase(ours, probe_limit=8)
    with pytest.raises(ValueError):
        searcher.set_tablebase(ours, probe_depth=0)


def test_fifty_move_budget_keeps_a_win_that_must_convert_now(oracle, ours):
    # A won KQvKR position late in the fifty moves: every move kept must still win within
    # them (python-chess's DTZ after the move, plus the clock, stays under 100 plies).
    rng = random.Random("fifty")
    checked = 0
    for _ in range(200):
        board = random_position("KQvKR", rng)
        dtz = oracle.probe_dtz(board)
        if oracle.probe_wdl(board) != 2 or not 10 < dtz < 60:
            continue
        board.halfmove_clock = 99 - dtz
        ranking = ours.rank_moves(Board(board.fen()))
        for move in keep_result_moves(ranking, board.halfmove_clock):
            child = board.copy()
            child.push_uci(move)
            assert oracle.probe_wdl(child) == -2
            after = oracle.probe_dtz(child)
            assert child.halfmove_clock == 0 or child.halfmove_clock + abs(after) <= 100
        checked += 1
        if checked == 10:
            break
    assert checked == 10


# -- UCI -------------------------------------------------------------------------------------

def test_uci_syzygy_path_says_what_it_found_and_probes(bad_folder):
    from tests.uci_client import UciProcess
    with UciProcess() as engine:
        engine.send("setoption name SyzygyPath value " + os.pathsep.join([str(bad_folder), str(TABLES)]))
        said = engine.sync()
        # The bad files come first: each is refused, and the shared folder's file of the same
        # name is used instead.
        assert f"info string found {len(materials())} tablebases" in said
        refused = [line for line in said if line.startswith("info string tablebase refused: ")]
        assert any(str(bad_folder / "KBvK.rtbw") in line and "folder" in line for line in refused)
        assert any(str(bad_folder / "KRvKR.rtbz") in line and "magic" in line for line in refused)
        assert len(refused) == 7
        engine.send("position fen 8/8/4k3/3n4/2R5/8/4P3/4K1r1 w - - 0 1")
        lines = engine.bestmove("go depth 8")
        infos = [line.split() for line in lines if line.startswith("info depth")]
        assert int(infos[-1][infos[-1].index("tbhits") + 1]) > 0
        engine.send("setoption name SyzygyPath value <empty>")
        engine.send("setoption name SyzygyProbeLimit value 8")
        said = engine.sync()
        assert any("SyzygyProbeLimit" in line for line in said)
        lines = engine.bestmove("go depth 6")
        infos = [line.split() for line in lines if line.startswith("info depth")]
        assert infos[-1][infos[-1].index("tbhits") + 1] == "0"


# -- scacco tb ---------------------------------------------------------------------------------

def run_tb(capsys, *args):
    from scacco.uci.__main__ import main
    try:
        status = main(["tb", *args])
    except SystemExit as exit_:
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_scacco_tb_lists_every_move_with_the_oracles_result(capsys, oracle):
    fen = "8/8/8/8/8/2k5/1r6/4K2Q b - - 0 1"
    status, out, err = run_tb(capsys, fen, "--path", str(TABLES))
    assert status == 0, err
    board = chess.Board(fen)
    assert f"Black to move: win (WDL {oracle.probe_wdl(board)}), DTZ {oracle.probe_dtz(board)}" in out
    listed = {}
    for line in out.splitlines():
        fields = line.split()
        if line.startswith("  ") and len(fields) >= 2:
            listed[fields[1]] = line
    assert set(listed) == {m.uci() for m in board.legal_moves}
    for move, line in listed.items():
        child = board.copy()
        child.push_uci(move)
        assert f"DTZ {oracle.probe_dtz(child)} after" in line
    # Winning moves come before losing ones.
    assert out.index("Winning:") < out.index("Losing:")


def test_scacco_tb_refuses_bad_input(capsys, tmp_path):
    status, _, err = run_tb(capsys, "not a fen", "--path", str(TABLES))
    assert status == 2 and "bad FEN" in err
    status, _, err = run_tb(capsys, "8/8/8/8/8/2k5/1r6/4K2Q b - - 0 1", "--path", str(tmp_path / "none"))
    assert status == 2 and "no such folder" in err
    status, _, err = run_tb(capsys, "8/8/8/8/8/2k5/1r6/4K2Q b - - 0 1", "--path", str(tmp_path))
    assert status == 2 and "no Syzygy tables" in err
    status, _, err = run_tb(capsys, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
                            "--path", str(TABLES))
    assert status == 1 and "not in the tables" in err
    status, _, err = run_tb(capsys, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "--path", str(TABLES))
    assert status == 1 and "castling" in err


def test_scacco_tb_reads_the_path_from_the_environment(capsys, monkeypatch):
    monkeypatch.setenv("SCACCO_SYZYGY", str(TABLES))
    status, out, _ = run_tb(capsys, "8/8/8/8/8/2k5/1r6/4K2Q", "w", "-", "-", "0", "1")
    assert status == 0 and "White to move" in out


# -- games against Stockfish -------------------------------------------------------------------

STOCKFISH = "/usr/games/stockfish"


def game_over(board: chess.Board):
    """The end of a game as an arbiter sees it, or None: mate, stalemate, dead position, a
    position occurring a third time, or the fifty-move rule (a mate on the hundredth ply
    still counts)."""
    if board.is_checkmate():
        return "1-0" if board.turn == chess.BLACK else "0-1"
    if (board.is_stalemate() or board.is_insufficient_material() or board.is_repetition(3)
            or board.halfmove_clock >= 100):
        return "1/2-1/2"
    return None


def play_out(board: chess.Board, searcher, stockfish, scacco_color: bool, max_plies: int = 300):
    """Play the game from `board` to its end, Scacco (depth 8 per move, with the tables)
    against Stockfish (a short fixed time, with the same tables); returns the final board."""
    import chess.engine
    ours_board = Board(board.fen())
    while game_over(board) is None and board.ply() < max_plies:
        if board.turn == scacco_color:
            move = searcher.search(ours_board, depth=8).best_move
        else:
            move = stockfish.play(board, chess.engine.Limit(time=0.02)).move.uci()
        board.push_uci(move)
        ours_board.push_uci(move)
    return board


def convert_won_positions(name: str, count: int, oracle, ours) -> None:
    """Scacco (white, to move) wins `count` random won positions of `name` against Stockfish
    with the same tables: every game ends in mate, none by the fifty-move rule."""
    import chess.engine
    from scacco.engine.search import Searcher
    searcher = Searcher(16)
    searcher.set_tablebase(ours)
    rng = random.Random("games" + name)
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        stockfish.configure({"SyzygyPath": str(TABLES), "Threads": 1, "Hash": 16})
        played = 0
        while played < count:
            board = random_position(name, rng)
            # A win for the side with the extra material, to move, with a long way to go.
            if board.turn != chess.WHITE or oracle.probe_wdl(board) != 2 or oracle.probe_dtz(board) < 15:
                continue
            start = board.fen()
            end = play_out(board, searcher, stockfish, chess.WHITE)
            assert game_over(end) == "1-0", (start, end.fen(), [m.uci() for m in end.move_stack])
            played += 1
    finally:
        stockfish.quit()


@pytest.mark.skipif(not os.path.exists(STOCKFISH), reason="Stockfish is not installed")
@pytest.mark.parametrize("name", ["KQvKR", "KRPvKR"])
def test_scacco_converts_won_positions_against_stockfish(name, oracle, ours):
    convert_won_positions(name, 3, oracle, ours)


@pytest.mark.skipif(not os.path.exists(STOCKFISH), reason="Stockfish is not installed")
@pytest.mark.parametrize("name", ["KRvK", "KBNvK"])
def test_pawnless_mates_come_without_wandering(name, oracle, ours):
    """In KRvK and KBNvK the DTZ is the distance to mate: against Stockfish's best defence the
    mate must come within twice python-chess's DTZ (each move of Scacco's is one of the
    fastest by DTZ, give or take the format's one ply of rounding), far from the fifty
    moves."""
    import chess.engine
    from scacco.engine.search import Searcher
    searcher = Searcher(16)
    searcher.set_tablebase(ours)
    rng = random.Random("mates" + name)
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        stockfish.configure({"SyzygyPath": str(TABLES), "Threads": 1, "Hash": 16})
        played = 0
        while played < 2:
            board = random_position(name, rng)
            if board.turn != chess.WHITE or oracle.probe_wdl(board) != 2:
                continue
            dtz = oracle.probe_dtz(board)
            start = board.fen()
            end = play_out(board, searcher, stockfish, chess.WHITE)
            assert game_over(end) == "1-0", start
            assert end.ply() <= 2 * dtz + 1, (start, dtz, end.ply())
            played += 1
    finally:
        stockfish.quit()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(STOCKFISH), reason="Stockfish is not installed")
@pytest.mark.parametrize("name", ["KQvKR", "KRPvKR", "KBNvK"])
def test_scacco_converts_fifty_won_positions_against_stockfish(name, oracle, ours):
    convert_won_positions(name, 50, oracle, ours)


@pytest.mark.skipif(not os.path.exists(STOCKFISH), reason="Stockfish is not installed")
def test_scacco_holds_a_drawn_position_against_stockfish(oracle, ours):
    import chess.engine
    from scacco.engine.search import Searcher
    searcher = Searcher(16)
    searcher.set_tablebase(ours)
    rng = random.Random("draws")
    stockfish = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    try:
        stockfish.configure({"SyzygyPath": str(TABLES), "Threads": 1, "Hash": 16})
        played = 0
        while played < 2:
            board = random_position("KRPvKR", rng)
            # Scacco defends (black, to move) a drawn position.
            if board.turn != chess.BLACK or oracle.probe_wdl(board) != 0:
                continue
            start = board.fen()
            end = play_out(board, searcher, stockfish, chess.BLACK, max_plies=160)
            assert game_over(end) in (None, "1/2-1/2"), (start, end.fen())
            played += 1
    finally:
        stockfish.quit()
