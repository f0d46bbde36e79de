"""The command line as a careful user and a hostile file try it: outputs never written over an
input or over each other, refused before any work when they cannot be written, kept whole
when a run is interrupted and resumed to the same files, one bad game never ending a batch,
and every number, path and date checked with a clear message (uci/cli/, engine/batch.py)."""
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

import chess
import chess.pgn
import pytest

from scacco.engine.batch import Failure, WorkerDied, run_local
from scacco.uci.__main__ import main
from tests.conftest import REPO_ROOT, default_stop_signals, shared_file
from tests.oracles import play_random
from tests.sample_games import SCHOLAR, SHORT


def long_game(event):
    """A longer game (the first of Kasparov - Deep Blue 1997, from the shared PGN files), so
    that an interruption lands after the first game and before the last."""
    with open(shared_file("pgn/kasparov-deep-blue-1997.pgn"), encoding="utf-8") as handle:
        game = chess.pgn.read_game(handle)
    game.headers["Event"] = event
    return str(game) + "\n"


def run_scacco(*args, timeout=300, **kwargs):
    return subprocess.run([sys.executable, "-m", "scacco", *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


@pytest.fixture
def games(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(SCHOLAR + "\n" + SHORT)
    return path


# --- outputs never destroy a file ---------------------------------------------------------

@pytest.mark.parametrize("command,flag", [
    ("analyse", "--out"), ("analyse", "--json"), ("analyse", "--graph"), ("puzzles", "--out")])
def test_an_output_that_names_the_input_is_refused_and_the_input_kept(games, command, flag):
    before = games.read_bytes()
    done = run_scacco(command, str(games), flag, str(games), "--jobs", "1", "--nodes", "500")
    assert done.returncode == 2
    assert "is the input file" in done.stderr
    assert games.read_bytes() == before


def test_an_output_reached_through_a_link_is_still_the_input(games, tmp_path):
    before = games.read_bytes()
    alias = tmp_path / "alias.pgn"
    os.symlink(games, alias)
    hard = tmp_path / "hard.pgn"
    os.link(games, hard)
    for other in (alias, hard):
        done = run_scacco("analyse", str(games), "--out", str(other), "--nodes", "500")
        assert done.returncode == 2 and "is the input file" in done.stderr
    assert games.read_bytes() == before


def test_two_outputs_naming_one_file_are_refused(games, tmp_path):
    target = tmp_path / "both"
    target.write_text("earlier\n")
    done = run_scacco("analyse", str(games), "--out", str(target), "--json", str(target),
                      "--nodes", "500")
    assert done.returncode == 2 and "both name" in done.stderr
    assert target.read_text() == "earlier\n"


def test_an_output_that_is_a_directory_or_a_device_is_refused_before_any_work(games, tmp_path):
    done = run_scacco("analyse", str(games), "--json", str(tmp_path), "--nodes", "500")
    assert done.returncode == 2 and "is a directory" in done.stderr and done.stdout == ""
    done = run_scacco("puzzles", str(games), "--out", "/dev/null", "--nodes", "500")
    assert done.returncode == 2 and "not a regular file" in done.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("command,output", [("analyse", "out.pgn"), ("puzzles", "puzzles.csv")])
def test_an_earlier_output_stays_when_no_game_can_be_read(command, output, games, tmp_path):
    out = tmp_path / output
    out.write_text("earlier\n")
    unreadable = tmp_path / "notes.txt"
    unreadable.write_text("no games here, just words\n")
    done = run_scacco(command, str(unreadable), "--out", str(out), "--nodes", "500",
                      "--jobs", "1")
    assert done.returncode == 2 and "no PGN game could be read" in done.stderr
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["games.pgn", "notes.txt", output])


def test_a_finished_output_replaces_the_earlier_one_and_leaves_no_temporary(games, tmp_path):
    out, report = tmp_path / "out.pgn", tmp_path / "report.json"
    out.write_text("earlier\n")
    assert main(["analyse", str(games), "--nodes", "500", "--jobs", "1", "--out", str(out),
                 "--json", str(report)]) == 0
    assert [g.headers["Event"] for g in _games(out)] == ["scholar", "short"]
    data = json.loads(report.read_text())
    assert data["complete"] is True and [g["number"] for g in data["games"]] == [1, 2]
    # every position's win-draw-loss chances (White's view), per mille; a mate on the board
    # is White's win or loss outright
    for game in data["games"]:
        for move in game["moves"]:
            assert sum(move["after"]["wdl"]) == 1000
            if move["after"]["mate"] == 0:
                assert move["after"]["wdl"] == ([1000, 0, 0] if move["after"]["winner"] else [0, 0, 1000])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.pgn", "out.pgn", "report.json"]


def _games(path):
    found = []
    with open(path) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            found.append(game)
    return found


# --- interrupted and resumed runs ---------------------------------------------------------

def _analyse_args(pgn, out, report, *extra):
    return ["analyse", str(pgn), "--nodes", "20000", "--jobs", "1", "--out", str(out),
            "--json", str(report), *extra]


def _interrupt_after_first_game(args, signum, ignored=None):
    """Runs scacco with args and sends signum once the first game's report is out; with
    ignored, that signal is ignored in the child from its start, as nohup leaves SIGHUP."""
    def setup():
        default_stop_signals()
        if ignored is not None:
            signal.signal(ignored, signal.SIG_IGN)
    process = subprocess.Popen([sys.executable, "-m", "scacco", *args], cwd=REPO_ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=setup)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Game 1:"):
            process.send_signal(signum)
            break
    out, err = process.communicate(timeout=120)
    return process.returncode, "".join(lines) + out, err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_analysis_keeps_its_finished_games_and_resumes_to_the_same_files(
        tmp_path, signum):
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join([SCHOLAR, long_game("long"), SHORT, long_game("long again")]))
    whole_out, whole_json = tmp_path / "whole.pgn", tmp_path / "whole.json"
    whole = run_scacco(*_analyse_args(pgn, whole_out, whole_json))
    assert whole.returncode == 0, whole.stderr

    out, report = tmp_path / "out.pgn", tmp_path / "out.json"
    status, stdout, stderr = _interrupt_after_first_game(_analyse_args(pgn, out, report), signum)
    assert status == 128 + signum
    assert "Traceback" not in stderr and "--resume" in stderr
    data = json.loads(report.read_text())          # valid JSON with the finished games
    assert data["complete"] is False
    kept = [g["number"] for g in data["games"]]
    assert kept and kept == list(range(1, len(kept) + 1)) and len(kept) < 4
    assert len(_games(out)) == len(kept)           # a valid PGN with the same games

    resumed = run_scacco(*_analyse_args(pgn, out, report, "--resume"))
    assert resumed.returncode == 0, resumed.stderr
    assert out.read_bytes() == whole_out.read_bytes()
    assert report.read_bytes() == whole_json.read_bytes()
    assert resumed.stdout == whole.stdout
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())   # journal gone


def test_an_analysis_under_nohup_runs_on_when_its_terminal_hangs_up(tmp_path):
    """SIGHUP ignored before the start (nohup) stays ignored: the run finishes every game."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text("\n".join([SCHOLAR, long_game("long"), SHORT]))
    out, report = tmp_path / "out.pgn", tmp_path / "out.json"
    status, stdout, stderr = _interrupt_after_first_game(
        _analyse_args(pgn, out, report), signal.SIGHUP, ignored=signal.SIGHUP)
    assert status == 0, stderr
    assert json.loads(report.read_text())["complete"] is True
    assert len(_games(out)) == 3 and "Game 3:" in stdout


def test_a_resume_with_other_settings_or_nothing_to_resume_is_refused(games, tmp_path):
    out = tmp_path / "out.pgn"
    done = run_scacco("analyse", str(games), "--out", str(out), "--nodes", "500", "--resume")
    assert done.returncode == 2 and "no interrupted run" in done.stderr
    journal = tmp_path / ".out.pgn.scacco-resume"
    from scacco.uci.cli.files import Journal, input_identity
    Journal(str(journal), {"command": "analyse", "input": input_identity(str(games)),
                           "settings": {"nodes": 999}, "outputs": []}).start()
    done = run_scacco("analyse", str(games), "--out", str(out), "--nodes", "500", "--resume")
    assert done.returncode == 2 and "cannot resume" in done.stderr
    journal.write_text('{"scacco_journal": 1}\nnot json\n{}\n')
    done = run_scacco("analyse", str(games), "--out", str(out), "--nodes", "500", "--resume")
    assert done.returncode == 2 and "damaged at line 2" in done.stderr
    assert not out.exists()


def test_a_journal_cut_inside_its_last_line_resumes_from_the_line_before(tmp_path):
    from scacco.uci.cli.files import Journal
    path = tmp_path / ".j"
    journal = Journal(str(path), {"command": "x"})
    journal.start()
    journal.add({"n": 1, "result": {"a": 1}})
    journal.add({"n": 2, "result": {"a": 2}})
    journal.close(finished=False)
    text = path.read_text()
    path.write_text(text[:-7])                     # killed while writing the second record
    assert Journal(str(path), {"command": "x"}).load() == [{"n": 1, "result": {"a": 1}}]


# --- one bad game never ends a batch -------------------------------------------------------

def die_on_three(n):
    """A worker function that kills its own process on item 3 and raises on item 5."""
    if n == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    if n == 5:
        raise KeyError("five")
    return n * n


def test_a_worker_that_dies_is_one_items_failure_and_the_others_go_on():
    results = list(run_local(die_on_three, [(n,) for n in range(8)], jobs=2))
    assert [r for i, r in enumerate(results) if i not in (3, 5)] == [0, 1, 4, 16, 36, 49]
    assert isinstance(results[3], Failure) and isinstance(results[3].error, WorkerDied)
    assert isinstance(results[5], Failure) and isinstance(results[5].error, KeyError)


def die_on_one_later(n):
    """A worker function whose process dies a moment into item 1."""
    if n == 1:
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGKILL)
    return n * n


def items_with_a_pause():
    """Items 0-3, then a pause long enough for item 1's worker to die, then items 4-7: the
    batch sends item 4 to a pool that broke while it waited."""
    for n in range(4):
        yield (n,)
    time.sleep(3)
    for n in range(4, 8):
        yield (n,)


def test_a_pool_that_broke_between_two_items_loses_neither():
    results = list(run_local(die_on_one_later, items_with_a_pause(), jobs=2))
    assert isinstance(results[1], Failure) and isinstance(results[1].error, WorkerDied)
    assert [r for i, r in enumerate(results) if i != 1] == [0, 4, 9, 16, 25, 36, 49]


def sleep_after_first(n):
    if n:
        time.sleep(600)
    return n


def test_closing_a_batch_stops_its_workers_at_once():
    outcomes = run_local(sleep_after_first, [(n,) for n in range(4)], jobs=2)
    assert next(outcomes) == 0
    closer = threading.Thread(target=outcomes.close)
    closer.start()
    closer.join(60)                                 # hang detection only
    assert not closer.is_alive()


def test_an_unexpected_error_in_one_game_is_reported_and_the_others_analysed(
        games, tmp_path, capsys, monkeypatch):
    from scacco.engine.review import analysis
    real = analysis.analyse_pgn

    def flaky(text, budget, number):
        if number == 1:
            raise RuntimeError("the evaluation fell over")
        return real(text, budget, number)

    monkeypatch.setattr(analysis, "analyse_pgn", flaky)
    report = tmp_path / "report.json"
    assert main(["analyse", str(games), "--nodes", "500", "--jobs", "1",
                 "--json", str(report)]) == 1
    err = capsys.readouterr().err
    assert "game 1: unexpected RuntimeError: the evaluation fell over" in err
    data = json.loads(report.read_text())
    assert [g["number"] for g in data["games"]] == [2] and data["summary"]["failed"] == [1]


# --- every number, path and date checked ---------------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["analyse", "{pgn}", "--nodes", "100000000000000000000"], "--nodes must be at most"),
    (["analyse", "{pgn}", "--depth", "1000"], "--depth must be at most"),
    (["analyse", "{pgn}", "--movetime", "99999999999"], "--movetime must be at most"),
    (["analyse", "{pgn}", "--hash", "60000"], "--hash"),
    (["analyse", "{pgn}", "--jobs", "0"], "--jobs must be at least 1"),
    (["puzzles", "{pgn}", "--out", "{tmp}/p.csv", "--nodes", "100000000000000000000"],
     "--nodes must be at most"),
    (["hint", "--fen", chess.STARTING_FEN, "--nodes", "100000000000000000000"],
     "--nodes must be at most"),
    (["bench", "0"], "depth must be at least 1"),
    (["perft", "101"], "depth must be at most 100"),
    (["puzzle", "--date", "2026-W01-1"], "bad date"),
    (["puzzle", "--date", "20261201"], "bad date"),
])
def test_bad_numbers_and_dates_get_a_clear_message(games, tmp_path, args, message):
    args = [a.format(pgn=games, tmp=tmp_path) for a in args]
    done = run_scacco(*args, timeout=60)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_input_that_is_a_directory_a_fifo_or_empty_is_named_as_such(tmp_path):
    done = run_scacco("analyse", str(tmp_path))
    assert done.returncode == 2 and "is a directory" in done.stderr
    fifo = tmp_path / "pipe.pgn"
    os.mkfifo(fifo)
    done = run_scacco("puzzles", str(fifo), "--out", str(tmp_path / "p.csv"), timeout=60)
    assert done.returncode == 2 and "not a regular file" in done.stderr
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    done = run_scacco("analyse", str(empty), timeout=60)
    assert done.returncode == 2 and "no PGN game" in done.stderr


def test_jobs_above_the_cores_are_cut_to_them_with_a_warning(games):
    from scacco.engine.batch import default_jobs
    done = run_scacco("analyse", str(games), "--nodes", "500", "--jobs", "200")
    assert done.returncode == 0, done.stderr
    assert f"using {default_jobs()}" in done.stderr


def test_hint_takes_a_chess960_position():
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    assert run_scacco("hint", "--fen", fen).returncode == 2       # castling needs --chess960
    done = run_scacco("hint", "--fen", fen, "--chess960")
    assert done.returncode == 0, done.stderr
    board = chess.Board(fen, chess960=True)
    board.push_san(done.stdout.splitlines()[0])                    # a legal move, in SAN


def test_a_closed_pipe_ends_quietly(games):
    process = subprocess.Popen([sys.executable, "-m", "scacco", "analyse", str(games),
                                "--nodes", "500", "--jobs", "1"], cwd=REPO_ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()                           # as `| head -0` does
    _, err = process.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_a_disk_that_fills_up_leaves_the_earlier_output_as_it_was(games, tmp_path, capsys,
                                                                  monkeypatch):
    from scacco.uci.cli import files
    real = files.OutputFile.write
    written = []

    def fills_up(self, text):
        written.append(text)
        if len(written) > 1:
            raise OSError(28, "No space left on device")
        real(self, text)

    monkeypatch.setattr(files.OutputFile, "write", fills_up)
    out = tmp_path / "out.pgn"
    out.write_text("earlier\n")
    assert main(["analyse", str(games), "--nodes", "500", "--jobs", "1", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "unchanged" in err
    assert out.read_text() == "earlier\n"
    assert not (tmp_path / ".out.pgn.scacco-part").exists()


def test_a_latin1_file_is_read_with_a_warning_before_any_work(tmp_path):
    path = tmp_path / "latin1.pgn"
    path.write_bytes(SCHOLAR.replace('"scholar"', '"caf\u00e9"').encode("latin-1"))
    report = tmp_path / "report.json"
    done = run_scacco("analyse", str(path), "--nodes", "500", "--jobs", "1", "--json", str(report))
    assert done.returncode == 0, done.stderr
    assert "warning: not UTF-8" in done.stderr and "Windows-1252" in done.stderr
    assert json.loads(report.read_text())["games"][0]["headers"]["Event"] == "caf\u00e9"


def test_chess960_games_and_null_moves_go_through_puzzles_and_analyse(tmp_path):
    import random
    rng = random.Random(7)
    texts = []
    for _ in range(6):
        board = chess.Board.from_chess960_pos(rng.randrange(960))
        play_random(board, rng, 40)
        texts.append(str(chess.pgn.Game.from_board(board)))
    texts.append('[Event "pass"]\n\n1. e4 -- 2. d4 e5 *')
    path = tmp_path / "games.pgn"
    path.write_text("\n\n".join(texts) + "\n")
    for args in (["puzzles", str(path), "--out", str(tmp_path / "p.csv")],
                 ["analyse", str(path), "--json", str(tmp_path / "r.json")]):
        done = run_scacco(*args, "--nodes", "500", "--jobs", "1")
        assert done.returncode == 0, done.stderr
        assert "unexpected" not in done.stderr and "Traceback" not in done.stderr
