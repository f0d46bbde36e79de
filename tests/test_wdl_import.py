"""bench/wdl_fit.py --import: the games of a match reach the WDL record with the scores the
engine reported, and only Scacco's side's when the other engine was not logged."""
import json

import chess
import chess.pgn

from bench.wdl_fit import import_match, observations
from scacco.engine.score import NETWORK_SCALE, material

MOVES = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]
PGN = """[Event "match"]
[Round "7"]
[White "scacco"]
[Black "other"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0
"""


def write_log(folder, plies):
    """A tee log with a `cp` score for each of the given plies of MOVES (100 + ply)."""
    folder.mkdir()
    with (folder / "1-2.jsonl").open("w") as out:
        for ply in plies:
            position = "startpos" + (" moves " + " ".join(MOVES[:ply]) if ply else "")
            out.write(json.dumps({"position": position, "score": f"cp {100 + ply}",
                                  "bestmove": MOVES[ply]}) + "\n")


def test_a_game_against_another_engine_keeps_the_logged_side_only(tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(PGN)
    write_log(tmp_path / "tee", [0, 2, 4])
    record = tmp_path / "record.jsonl"
    import_match(record, pgn, tmp_path / "tee")
    (line,) = record.read_text().splitlines()
    game = json.loads(line)
    assert game["result"] == "1-0" and game["source"] == "m.pgn#7"
    board = chess.Board()
    for ply, (m, cp, raw) in enumerate(game["moves"]):
        assert m == material(board)
        if ply % 2 == 0:
            assert cp == 100 + ply
            assert raw == round(NETWORK_SCALE.to_raw(cp, m), 1)
        else:
            assert cp is None and raw is None
        board.push_uci(MOVES[ply])
    # the three White positions are observations of a White win, from the mover's side
    assert [o[2] for o in observations(record)] == [1, 1, 1]
    # the same game is not added twice
    import_match(record, pgn, tmp_path / "tee")
    assert len(record.read_text().splitlines()) == 1


def test_a_game_both_sides_logged_keeps_both(tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(PGN)
    write_log(tmp_path / "tee", range(6))
    record = tmp_path / "record.jsonl"
    import_match(record, pgn, tmp_path / "tee")
    game = json.loads(record.read_text())
    assert [cp for _, cp, _ in game["moves"]] == [100, 101, 102, 103, 104, 105]
    assert [o[2] for o in observations(record)] == [1, -1, 1, -1, 1, -1]


def test_a_game_neither_side_logged_enough_is_left_out(tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(PGN)
    write_log(tmp_path / "tee", [0, 3])      # a third of each side's moves
    record = tmp_path / "record.jsonl"
    import_match(record, pgn, tmp_path / "tee")
    assert not record.exists() or record.read_text() == ""


def test_the_start_is_matched_however_python_chess_spelled_it_to_the_engine(tmp_path):
    # python-chess's engine module sends a Chess960 start with Shredder castling rights and an
    # en passant square after any double step; the PGN it writes has X-FEN rights and the
    # square only when a capture is legal.  Both games must find their scores.
    c960 = chess.Board.from_chess960_pos(0)                 # BBQNNRKR: rights HFhf / KQkq
    stepped = chess.Board()
    stepped.push_uci("e2e4")                                # e3, no capture possible
    stepped = chess.Board(stepped.fen(en_passant="fen"))
    plies = ["g2g3", "g7g6", "d1e3", "d8e6"]
    pgn = tmp_path / "m.pgn"
    logs = tmp_path / "tee"
    logs.mkdir()
    with pgn.open("w") as text, (logs / "1-2.jsonl").open("w") as log:
        for round_, start in enumerate((c960, stepped), 1):
            board = start.copy()
            sent = board.fen(shredder=board.chess960, en_passant="fen")
            assert sent != board.fen()                      # the two spellings differ
            moves = plies if board.chess960 else ["e7e5", "g1f3", "b8c6", "f1c4"]
            for ply, move in enumerate(moves):
                position = f"fen {sent}" + (" moves " + " ".join(moves[:ply]) if ply else "")
                log.write(json.dumps({"position": position, "score": f"cp {10 * ply}",
                                      "bestmove": move}) + "\n")
                board.push_uci(move)
            game = chess.pgn.Game.from_board(board)
            game.headers["Round"] = str(round_)
            game.headers["Result"] = "1/2-1/2"
            text.write(str(game) + "\n\n")
    record = tmp_path / "record.jsonl"
    import_match(record, pgn, logs)
    games = [json.loads(line) for line in record.read_text().splitlines()]
    assert [g["chess960"] for g in games] == [True, False]
    for game in games:
        assert [cp for _, cp, _ in game["moves"]] == [0, 10, 20, 30]
