"""Training data generation (engine/training/datagen.py, ext/datagen.pxi), checked against python-chess:
every record is the position python-chess reaches by replaying the game, quiet by
python-chess's rules, scored from the side to move's view, with the result python-chess gives
where the game ended by rule, at its first rule end; the file is cut up here by its documented
layout; a file made in pieces, or repaired after a kill or a Ctrl-C, is byte for byte the file
of one run, and a damaged one is refused with where it stops."""
import io
import struct
import subprocess
import sys
import zlib

import chess
import pytest

from scacco.engine.training.datagen import (GAME_ENDS, HEADER_BYTES, RECORD_BYTES, DatagenError,
                                   Settings, chess960_fen, decode_record, end_mark, game_start,
                                   generate, load_numpy, play_game, read_openings,
                                   read_positions, read_settings)
from tests.conftest import default_stop_signals, shared_file

NODES = 300          # small budgets keep the games fast; the rules do not depend on it
RULE_ENDS = {"checkmate", "stalemate", "insufficient material", "fifty moves",
             "threefold repetition"}


@pytest.fixture(scope="module")
def openings():
    return shared_file("chessathome_openings.fen")


def replay(game):
    """python-chess boards before each ply of the game, random plies included, and the moves;
    every move must be legal for python-chess."""
    board = chess.Board(game.start_fen, chess960=game.chess960)
    boards, moves = [], []
    for uci in game.random_moves + game.moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (board.fen(), uci)
        boards.append(board.copy())
        moves.append(move)
        board.push(move)
    boards.append(board.copy())
    return boards, moves


def check_records(game):
    """Each record decodes to python-chess's position at its ply, is quiet, and carries the
    game's result from the side to move's view."""
    boards, moves = replay(game)
    positions = [decode_record(game.records[i:i + RECORD_BYTES])
                 for i in range(0, len(game.records), RECORD_BYTES)]
    plies = [p.ply for p in positions]
    assert plies == sorted(set(plies))
    assert all(p.ply >= len(game.random_moves) for p in positions)   # self-play only
    for p in positions:
        reference = boards[p.ply]
        decoded = chess.Board(p.fen)
        assert decoded.board_fen() == reference.board_fen()
        assert decoded.turn == reference.turn
        assert decoded.halfmove_clock == min(reference.halfmove_clock, 255)
        legal_ep = reference.ep_square if reference.has_legal_en_passant() else None
        assert decoded.ep_square == legal_ep
        assert decoded.status() == chess.STATUS_VALID or decoded.status() == chess.STATUS_BAD_CASTLING_RIGHTS
        # quiet: not in check, the move played neither a capture nor a promotion
        assert not reference.is_check()
        if p.ply < len(moves):
            move = moves[p.ply]
            assert not reference.is_capture(move) and move.promotion is None
        white_result = game.result if reference.turn == chess.WHITE else -game.result
        assert p.result == white_result
        assert p.game_index == game.index
        assert p.chess960 == game.chess960
        assert abs(p.score) < 10000
    assert [p.last_of_game for p in positions] == [i == len(positions) - 1 for i in range(len(positions))]
    return boards


def rule_ends(board):
    """The rules that end the game in this python-chess position, in the order the laws give
    them precedence (a checkmate on the hundredth half-move is a checkmate)."""
    ends = []
    if board.is_checkmate():
        ends.append("checkmate")
    if board.is_stalemate():
        ends.append("stalemate")
    if board.is_insufficient_material():
        ends.append("insufficient material")
    if board.halfmove_clock >= 100 and not board.is_checkmate():
        ends.append("fifty moves")
    if board.is_repetition(3):
        ends.append("threefold repetition")
    return ends


def check_outcome(game, boards):
    """The game ran to its first rule end and no further: no position before its last one
    (random plies included) ends the game by rule, as python-chess says; a game that ended by
    rule ended by one that holds in its final position, with python-chess's result; any other
    ended before the rules."""
    final = boards[-1]
    for ply, board in enumerate(boards[:-1]):
        assert rule_ends(board) == [], (game.start_fen, ply, board.fen(), rule_ends(board))
    if game.termination in RULE_ENDS:
        assert game.termination == rule_ends(final)[0], (final.fen(), game.termination)
        outcome = final.outcome(claim_draw=True)
        assert outcome is not None, (final.fen(), game.termination)
        expected = 0 if outcome.winner is None else (1 if outcome.winner else -1)
        assert game.result == expected
    else:
        assert rule_ends(final) == [], (final.fen(), game.termination)
        assert game.termination in {"adjudicated win", "adjudicated draw", "max length"}
        if game.termination != "adjudicated win":
            assert game.result == 0


def test_games_from_openings_and_chess960_replay_in_python_chess(openings):
    fens, crc = read_openings(openings)
    settings = Settings(NODES, 7, 8, 0.3, crc)
    kinds = set()
    for index in range(12):
        fen, chess960, random_seed = game_start(index, settings, fens)
        game = play_game(index, fen, chess960, random_seed, 8, NODES)
        check_outcome(game, check_records(game))
        kinds.add(chess960)
        assert game.positions > 0
    assert kinds == {True, False}


@pytest.mark.parametrize("name", ["mate1.fen", "stalemate0.fen", "stalemate1.fen", "stalemate2.fen"])
def test_games_from_endgames_end_as_python_chess_says(name):
    lines = [line.strip() for line in shared_file(name).read_text().splitlines() if line.strip()]
    for index, fen in enumerate(lines[:6]):
        game = play_game(index, fen, False, 0, 0, NODES)
        check_outcome(game, check_records(game))


def test_a_mate_in_one_is_played_and_not_recorded():
    fen = "8/6p1/5pk1/7R/B7/8/8/7K w - - 0 1"
    game = play_game(0, fen, False, 0, 0, 2000)
    board = chess.Board(fen)
    board.push_uci(game.moves[0])
    assert board.is_checkmate()
    assert game.termination == "checkmate" and game.result == 1
    assert game.records == b""          # a mate score is no training target


def test_a_winning_capture_is_not_recorded():
    fen = "4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1"       # Qxd5 wins the queen
    game = play_game(0, fen, False, 0, 0, 2000)
    board = chess.Board(fen)
    assert board.is_capture(chess.Move.from_uci(game.moves[0]))
    assert all(decode_record(game.records[i:i + RECORD_BYTES]).ply != 0
               for i in range(0, len(game.records), RECORD_BYTES))
    check_records(game)


def test_bare_kings_end_at_once_as_a_draw():
    game = play_game(0, "8/8/4k3/8/8/3K4/8/8 w - - 0 1", False, 0, 0, NODES)
    assert chess.Board("8/8/4k3/8/8/3K4/8/8 w - - 0 1").is_insufficient_material()
    assert (game.termination, game.result, game.moves, game.records) == ("insufficient material", 0, [], b"")


def test_chess960_starts_are_python_chess_ones():
    for number in range(960):
        ours = chess.Board(chess960_fen(number), chess960=True)
        reference = chess.Board.from_chess960_pos(number)
        assert ours.board_fen() == reference.board_fen()
        assert ours.castling_rights == reference.castling_rights
    with pytest.raises(ValueError):
        chess960_fen(960)


def test_the_same_game_twice_is_the_same_game(openings):
    fens, crc = read_openings(openings)
    settings = Settings(NODES, 3, 8, 0.1, crc)
    start = game_start(5, settings, fens)
    assert start == game_start(5, settings, fens)
    first = play_game(5, *start, 8, NODES)
    second = play_game(5, *start, 8, NODES)
    assert first == second


def make(path, games, openings, **kwargs):
    stream = io.StringIO()
    options = dict(nodes=NODES, seed=11, random_plies=6, chess960_share=0.2, openings=openings)
    options.update(kwargs)
    summary = generate(path, games, stream=stream, **options)
    return summary, stream.getvalue()


@pytest.fixture(scope="module")
def whole(tmp_path_factory, openings):
    """The file of one uninterrupted run of 8 games."""
    path = tmp_path_factory.mktemp("datagen") / "whole.bin"
    summary, text = make(path, 8, openings)
    assert summary["games"] == 8 and "games 8/8" in text
    return path


def split_file(data):
    """A data file cut up by its documented layout (engine/training/datagen.py), independently of the
    reader: (header, [(records, end mark)], the bytes after the last end mark)."""
    header, games, records = data[:HEADER_BYTES], [], b""
    offset = HEADER_BYTES
    while offset + RECORD_BYTES <= len(data):
        unit = data[offset:offset + RECORD_BYTES]
        offset += RECORD_BYTES
        if struct.unpack_from("<Q", unit)[0] == 0:
            games.append((records, unit))
            records = b""
        else:
            records += unit
    return header, games, records + data[offset:]


def join_file(header, games, tail=b""):
    return header + b"".join(records + mark for records, mark in games) + tail


def test_file_holds_the_games_records_and_end_marks_as_documented(whole, openings):
    data = whole.read_bytes()
    header, games, tail = split_file(data)
    # the header: fields as documented, version 4, and the CRC-32 of its first 36 bytes
    magic, version, size, nodes, seed, plies, share, crc, network_crc, header_crc = \
        struct.unpack("<8sHHIQHHIII", header)
    assert (magic, version, size, nodes, seed, plies, share) == (b"SCACCOTD", 4, 36, NODES, 11, 6, 2000)
    assert crc == zlib.crc32(openings.read_bytes()) and network_crc == 0
    assert header_crc == zlib.crc32(header[:36])
    settings = read_settings(whole)
    assert (settings.nodes, settings.seed, settings.random_plies) == (NODES, 11, 6)
    assert settings.openings_crc == read_openings(openings)[1]
    # eight games, each its records then its end mark, nothing after the last
    assert tail == b"" and len(games) == 8
    fens, _ = read_openings(openings)
    for index, (records, mark) in enumerate(games):
        zero, end, count, result, termination, flags, mark_crc, game_index = \
            struct.unpack("<Q8sIbB5xBII", mark)
        assert (zero, end, flags, game_index) == (0, b"SCACGAME", 8, index)
        assert mark[22:27] == bytes(5)
        assert count * RECORD_BYTES == len(records)
        assert mark_crc == zlib.crc32(records + mark[:28] + mark[32:])
        # the records and the end of the game are those play_game gives for it
        game = play_game(index, *game_start(index, settings, fens), 6, NODES)
        assert records == game.records
        assert (result, GAME_ENDS[termination]) == (game.result, game.termination)
    positions = list(read_positions(whole))
    assert len(positions) == sum(len(records) for records, _ in games) // RECORD_BYTES
    assert [p.game_index for p in positions] == sorted(p.game_index for p in positions)
    for p in positions:
        assert chess.Board(p.fen).is_valid() or chess.Board(p.fen).status() == chess.STATUS_BAD_CASTLING_RIGHTS


def test_resume_gives_the_file_of_one_run(whole, tmp_path, openings):
    path = tmp_path / "pieces.bin"
    make(path, 3, openings)
    summary, _ = make(path, 5, openings)
    assert summary["games"] == 2
    summary, text = make(path, 8, openings)
    assert summary["games"] == 3
    assert path.read_bytes() == whole.read_bytes()
    summary, text = make(path, 8, openings)
    assert summary["games"] == 0 and "already holds" in text
    assert path.read_bytes() == whole.read_bytes()


def test_two_jobs_give_the_file_of_one(whole, tmp_path, openings):
    path = tmp_path / "jobs.bin"
    make(path, 8, openings, jobs=2)
    assert path.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize("cut", [1, 17, RECORD_BYTES, 3 * RECORD_BYTES, 3 * RECORD_BYTES + 5])
def test_a_torn_end_is_repaired_on_resume(whole, tmp_path, openings, cut):
    # a kill in the middle of the last game's write: its records without (all of) its end mark
    data = whole.read_bytes()
    header, games, _ = split_file(data)
    assert len(games[-1][0]) > 3 * RECORD_BYTES + 5
    sound = len(join_file(header, games[:-1]))
    path = tmp_path / "torn.bin"
    path.write_bytes(data[:-cut])
    summary, text = make(path, 8, openings)
    assert f"cut off {len(data) - cut - sound} bytes at byte {sound}" in text and "game 7" in text
    assert summary["games"] == 1
    assert path.read_bytes() == data


def make_damaged(whole, path, change):
    """path holds whole's file after change(header, games) -> (header, games, tail)."""
    header, games, _ = split_file(whole.read_bytes())
    header, games, tail = change(header, [list(g) for g in games])
    path.write_bytes(join_file(header, games, tail))
    return path.read_bytes()


def flip(data, at):
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


def fake_record(records, game_index, last=True):
    """The first record of `records` made into one of game `game_index`, flagged last."""
    record = bytearray(records[:RECORD_BYTES])
    struct.pack_into("<I", record, 32, game_index)
    record[27] |= 2 if last else 0
    return bytes(record)


# name: (change(header, games) -> (header, games, tail), the whole games the damaged file
# keeps before the damage, as indices into the games of the whole file)
DAMAGES = {
    # a record's score changed in the middle of the file: the game no longer matches its CRC
    "a record changed": (lambda h, g: (h, g[:3] + [(flip(g[3][0], 24), g[3][1])] + g[4:], b""),
                         [0, 1, 2]),
    # the CRC in the last end mark changed
    "an end mark changed": (lambda h, g: (h, g[:7] + [(g[7][0], flip(g[7][1], 28))], b""),
                            list(range(7))),
    # a record taken out of a game: the end mark counts one more
    "a record missing": (lambda h, g: (h, g[:2] + [(g[2][0][RECORD_BYTES:], g[2][1])] + g[3:], b""),
                         [0, 1]),
    # two whole games swapped, each matching its own end mark: game 5 may follow game 3 (game
    # 4 could have failed), game 4 may not follow game 5
    "two games swapped": (lambda h, g: (h, g[:4] + [g[5], g[4]] + g[6:], b""), [0, 1, 2, 3, 5]),
    # a whole game written twice
    "a game repeated": (lambda h, g: (h, g + [g[2]], b""), list(range(8))),
    # after the last game, a record of game 2 flagged last of its game (the old resume
    # trusted it: game 3 on would have been written again)
    "a tail record of an earlier game": (lambda h, g: (h, g, fake_record(g[0][0], 2)),
                                         list(range(8))),
    # zeros after the last game (what a lost write can leave)
    "zeros at the end": (lambda h, g: (h, g, bytes(3 * RECORD_BYTES)), list(range(8))),
    # bytes that are no record after the last game
    "garbage at the end": (lambda h, g: (h, g, bytes(range(7, 7 + 2 * RECORD_BYTES))),
                           list(range(8))),
    # records of two games after the last whole one: no single write leaves that
    "two games in the tail": (lambda h, g: (h, g, fake_record(g[0][0], 8, last=False)
                                            + fake_record(g[0][0], 9, last=False)), list(range(8))),
}


@pytest.mark.parametrize("name", sorted(DAMAGES))
def test_a_damaged_file_is_refused_with_where_it_stops(whole, tmp_path, openings, name):
    change, kept = DAMAGES[name]
    path = tmp_path / "damaged.bin"
    before = make_damaged(whole, path, change)
    header, games, _ = split_file(whole.read_bytes())
    sound = len(join_file(header, [games[i] for i in kept]))   # the games before the damage
    with pytest.raises(DatagenError, match="damaged at byte") as error:
        make(path, 8, openings)
    message = str(error.value)
    assert f"sound up to byte {sound} (games up to {kept[-1]})" in message, message
    assert f"truncate -s {sound} " in message
    assert path.read_bytes() == before                         # nothing changed
    # the readers refuse it too where the damage is in whole games
    if sound < len(before) - len(split_file(before)[2]):
        with pytest.raises(DatagenError, match="damaged at byte"):
            list(read_positions(path))
        pytest.importorskip("numpy")
        with pytest.raises(DatagenError, match="damaged at byte"):
            load_numpy(path)
    # cut where the message says, the file resumes after its last sound game
    with open(path, "r+b") as handle:
        handle.truncate(sound)
    make(path, 8, openings)
    expected = [games[i] for i in kept] + games[kept[-1] + 1:]
    assert path.read_bytes() == join_file(header, expected)


def test_a_tail_of_a_later_game_is_cut_and_played_again(whole, tmp_path, openings):
    # A record of game 100 flagged last of its game after game 7, as an interrupted write of
    # game 100 would leave it (games 8..99 failed): cut off, and games 8.. are played (the old
    # resume went on from game 101)
    path = tmp_path / "later.bin"
    make_damaged(whole, path, lambda h, g: (h, g, fake_record(g[0][0], 100)))
    summary, text = make(path, 8, openings)
    assert "cut off 36 bytes" in text and "game 100" in text
    assert summary["games"] == 0 and path.read_bytes() == whole.read_bytes()


def test_the_readers_leave_out_an_unfinished_game(whole, tmp_path):
    data = whole.read_bytes()
    header, games, _ = split_file(data)
    path = tmp_path / "unfinished.bin"
    path.write_bytes(data[:-RECORD_BYTES - 5])
    want = [p for p in read_positions(whole) if p.game_index < 7]
    assert list(read_positions(path)) == want
    numpy = pytest.importorskip("numpy")
    assert numpy is not None
    assert list(load_numpy(path)["game"]) == [p.game_index for p in want]


def version_2_copy(whole, path):
    """The games of `whole` in the version-2 layout: the header with version 2 and four zero
    bytes where version 3 has its checksum, and the records alone."""
    header, games, _ = split_file(whole.read_bytes())
    old = header[:8] + struct.pack("<H", 2) + header[10:36] + bytes(4)
    path.write_bytes(old + b"".join(records for records, _ in games))
    return path


def test_a_version_3_file_is_read_but_not_resumed(whole, tmp_path, openings):
    """Version 3 (games to a hard node limit) has version 4's layout: read as it is, never
    gone on with, left as it was."""
    data = bytearray(whole.read_bytes())
    struct.pack_into("<H", data, 8, 3)
    struct.pack_into("<I", data, 36, zlib.crc32(bytes(data[:36])))
    path = tmp_path / "v3.bin"
    path.write_bytes(bytes(data))
    assert list(read_positions(path)) == list(read_positions(whole))
    with pytest.raises(DatagenError, match="format version 3.*hard node limit.*another file"):
        make(path, 9, openings)
    assert path.read_bytes() == bytes(data)


def test_every_move_searches_at_least_its_soft_budget():
    """The budget is soft: each move's search finishes the iteration that crosses it, so a
    game searches at least budget x moves (a hard limit would stay at or below that), and at
    most eight times as much (the hard cut)."""
    game = play_game(0, chess.STARTING_FEN, False, 1, 0, NODES)
    assert len(game.moves) > 10
    assert NODES * len(game.moves) <= game.nodes <= 8 * NODES * len(game.moves)


def test_a_version_2_file_is_read_but_not_resumed(whole, tmp_path, openings):
    path = version_2_copy(whole, tmp_path / "old.bin")
    before = path.read_bytes()
    assert list(read_positions(path)) == list(read_positions(whole))
    numpy = pytest.importorskip("numpy")
    assert numpy.array_equal(load_numpy(path), load_numpy(whole))
    with pytest.raises(DatagenError, match="format version 2.*another file"):
        make(path, 9, openings)
    assert path.read_bytes() == before


@pytest.mark.parametrize("version", [1, 5, 9])
def test_other_versions_are_refused_by_every_reader(whole, tmp_path, openings, version):
    data = bytearray(whole.read_bytes())
    struct.pack_into("<H", data, 8, version)
    struct.pack_into("<I", data, 36, zlib.crc32(bytes(data[:36])))
    path = tmp_path / "other.bin"
    path.write_bytes(bytes(data))
    age = "newer" if version > 4 else "older"
    for read in (read_settings, lambda f: list(read_positions(f)), lambda f: make(f, 9, openings)):
        with pytest.raises(DatagenError, match=f"{age} Scacco .format version {version}"):
            read(path)
    assert path.read_bytes() == bytes(data)


def test_a_damaged_header_is_refused(whole, tmp_path, openings):
    path = tmp_path / "header.bin"
    path.write_bytes(flip(whole.read_bytes(), 16))          # the seed
    for read in (read_settings, lambda f: list(read_positions(f)), lambda f: make(f, 9, openings)):
        with pytest.raises(DatagenError, match="header is damaged"):
            read(path)


def test_a_file_with_only_its_header_starts_from_game_zero(whole, tmp_path, openings):
    path = tmp_path / "header.bin"
    path.write_bytes(whole.read_bytes()[:HEADER_BYTES + 5])
    summary, text = make(path, 8, openings)
    assert summary["games"] == 8
    assert path.read_bytes() == whole.read_bytes()


def test_other_settings_are_refused(whole, tmp_path, openings):
    path = tmp_path / "other.bin"
    path.write_bytes(whole.read_bytes())
    for change in ({"nodes": NODES + 1}, {"seed": 12}, {"random_plies": 5}, {"chess960_share": 0.3}):
        with pytest.raises(DatagenError, match="other settings"):
            make(path, 9, openings, **change)
    assert path.read_bytes() == whole.read_bytes()


def test_bad_arguments_are_clear_errors(tmp_path, openings):
    with pytest.raises(DatagenError, match="games"):
        make(tmp_path / "a.bin", -1, openings)
    with pytest.raises(DatagenError, match="cannot read the openings file"):
        make(tmp_path / "a.bin", 1, tmp_path / "missing.fen")
    bad = tmp_path / "bad.fen"
    bad.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nnot a fen\n")
    with pytest.raises(DatagenError, match="line 2"):
        make(tmp_path / "a.bin", 1, bad)
    with pytest.raises(DatagenError, match="does not exist"):
        make(tmp_path / "no" / "such" / "a.bin", 1, openings)
    with pytest.raises(DatagenError, match="directory"):
        make(tmp_path, 1, openings)
    stranger = tmp_path / "stranger.bin"
    stranger.write_bytes(b"not training data at all, but long enough for a header")
    with pytest.raises(DatagenError, match="not a Scacco training data file"):
        make(stranger, 1, openings)
    assert stranger.read_bytes().startswith(b"not training data")
    for bad_option in ({"nodes": 0}, {"random_plies": -1}, {"chess960_share": 1.5}, {"jobs": 0}):
        with pytest.raises(DatagenError):
            make(tmp_path / "b.bin", 1, openings, **bad_option)
    assert not (tmp_path / "a.bin").exists() and not (tmp_path / "b.bin").exists()


def test_command_line_errors(tmp_path, openings):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "scacco", "datagen", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
    result = run("--out", "x.bin", "--games", "-3")
    assert result.returncode == 2 and "--games must be at least 0" in result.stderr
    result = run("--out", "x.bin", "--games", "1", "--openings", "missing.fen")
    assert result.returncode == 2 and "cannot read the openings file" in result.stderr
    result = run("--out", "x.bin", "--games", "2", "--nodes", "200", "--openings", str(openings),
                 "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert "games 2/2" in result.stderr
    assert read_settings(tmp_path / "x.bin").nodes == 200


def test_decode_rejects_what_is_no_record():
    with pytest.raises(ValueError, match="36"):
        decode_record(bytes(35))
    with pytest.raises(ValueError, match="end mark"):
        decode_record(end_mark(0, b"", 0, 0))
    bad_piece = bytearray(RECORD_BYTES)
    bad_piece[0] = 1                  # a piece on a1 ...
    bad_piece[8] = 7                  # ... with code 7, which is no piece
    with pytest.raises(ValueError, match="piece code"):
        decode_record(bytes(bad_piece))


def test_numpy_view_matches_the_decoder(whole):
    pytest.importorskip("numpy")
    array = load_numpy(whole)
    positions = list(read_positions(whole))
    assert len(array) == len(positions)
    assert list(array["score"]) == [p.score for p in positions]
    assert list(array["result"]) == [p.result for p in positions]
    assert list(array["game"]) == [p.game_index for p in positions]
    assert [bin(int(o)).count("1") for o in array["occupancy"]] == \
        [sum(c.isalpha() for c in p.fen.split()[0]) for p in positions]


# A perpetual check: White, a queen and two rooks down, checks with Qh6+ and Qg6+, and each
# of Black's answers is its only legal move (Kg8, Kh8); any other White move lets Black mate.
PERPETUAL = "1r3r1k/8/6Q1/8/8/q7/8/7K w - - 0 1"


def test_a_repetition_ends_the_game_when_it_occurs_the_third_time():
    game = play_game(0, PERPETUAL, False, 0, 0, 2000)
    boards = check_records(game)
    check_outcome(game, boards)
    assert game.termination == "threefold repetition" and game.result == 0
    assert boards[-1].is_repetition(3) and not boards[-2].is_repetition(3)
    for board, move in zip(boards[1::2], game.moves[1::2]):
        assert [m.uci() for m in board.legal_moves] == [move]       # Black's forced replies


@pytest.mark.parametrize("fen,random_plies,end", [
    ("8/8/4k3/8/8/3K4/8/7R w - - 99 80", 6, "fifty moves"),   # the first random move ends it
    ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", 4, "insufficient material"),  # ended before any move
    ("7k/5Q2/8/8/8/8/8/6K1 b - - 0 1", 4, "stalemate"),        # no random move to play
])
def test_random_plies_stop_at_the_first_rule_end(fen, random_plies, end):
    game = play_game(0, fen, False, 12345, random_plies, NODES)
    boards = check_records(game)
    check_outcome(game, boards)
    assert game.termination == end and game.moves == [] and game.records == b""
    assert len(game.random_moves) == (1 if end == "fifty moves" else 0)


@pytest.mark.parametrize("fen", [
    "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",     # White a queen up
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR b KQkq - 0 1",     # the same, colours swapped
])
def test_a_records_score_has_the_side_to_moves_sign(fen):
    # A queen up (python-chess's material count: 39 against 30) is worth several hundred
    # centipawns to the side that has it: positive when it is to move, negative when the
    # other side is, record after record, whichever colour has it.
    board = chess.Board(fen)
    strong = board.turn
    material = {colour: sum(len(board.pieces(kind, colour)) * value
                            for kind, value in ((chess.PAWN, 1), (chess.KNIGHT, 3), (chess.BISHOP, 3),
                                                (chess.ROOK, 5), (chess.QUEEN, 9)))
                for colour in chess.COLORS}
    assert material[strong] - material[not strong] == 9
    game = play_game(0, fen, False, 0, 0, NODES)
    check_records(game)
    positions = [decode_record(game.records[i:i + RECORD_BYTES])
                 for i in range(0, len(game.records), RECORD_BYTES)]
    opening = [p for p in positions if p.ply < 6]
    assert {chess.Board(p.fen).turn for p in opening} == {chess.WHITE, chess.BLACK}
    for p in opening:
        to_move = chess.Board(p.fen).turn
        assert (p.score > 300) if to_move == strong else (p.score < -300), (p.ply, p.score)
        assert p.result == (1 if to_move == strong else -1)


def test_the_fifty_move_rule_ends_a_game_as_python_chess_says():
    fen = "8/8/4k3/8/8/3K4/8/7R w - - 99 80"       # any rook or king move completes fifty moves
    game = play_game(0, fen, False, 0, 0, NODES)
    assert game.termination == "fifty moves" and len(game.moves) == 1
    check_outcome(game, check_records(game))


def test_ray_gives_the_file_of_one_run(whole, tmp_path, openings):
    import os
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"        # nothing leaves the machine
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'scacco[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, address="local", _node_ip_address="127.0.0.1")
    try:
        path = tmp_path / "ray.bin"
        make(path, 8, openings, ray_address="local")
    finally:
        ray.shutdown()
    assert path.read_bytes() == whole.read_bytes()


def test_a_killed_run_resumes_to_the_file_of_one_run(tmp_path, openings):
    import signal
    import time
    games = 300
    path = tmp_path / "killed.bin"
    command = [sys.executable, "-m", "scacco", "datagen", "--out", str(path), "--games", str(games),
               "--nodes", str(NODES), "--seed", "11", "--random-plies", "6",
               "--chess960-share", "0.2", "--openings", str(openings), "--jobs", "1"]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if path.exists() and path.stat().st_size > HEADER_BYTES + 200 * RECORD_BYTES:
                break
            time.sleep(0.01)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    summary, _ = make(path, games, openings)
    assert summary["games"] > 0          # the kill came before the end
    reference = tmp_path / "reference.bin"
    make(reference, games, openings)
    assert path.read_bytes() == reference.read_bytes()


def test_games_played_with_a_network(tmp_path, openings):
    """--net: the games are played with the neural evaluation (so they are other games), are
    legal and recorded as python-chess says, the header holds the CRC-32 of the network file,
    and a file is resumed only with the same network; a bad network file changes nothing."""
    import zlib

    from scacco.engine.nnue import default_network_path

    net = default_network_path()
    path = tmp_path / "net.bin"
    summary, _ = make(path, 3, openings, network=str(net))
    assert summary["games"] == 3
    settings = read_settings(path)
    assert settings.network_crc == zlib.crc32(net.read_bytes())
    fens, _ = read_openings(openings)
    played_with = (str(net.resolve()), settings.network_crc)
    differ = 0
    for index in range(3):
        start = game_start(index, settings, fens)
        game = play_game(index, *start, 6, NODES, played_with)
        replay(game)
        check_records(game)
        differ += game.moves != play_game(index, *start, 6, NODES).moves
    assert differ >= 1
    before = path.read_bytes()
    with pytest.raises(DatagenError, match="other settings"):
        make(path, 4, openings)                                   # classical now
    other = tmp_path / "other.nnue"
    other.write_bytes(net.read_bytes())
    changed = bytearray(other.read_bytes())
    changed[-1] ^= 1                                              # a corrupt copy
    other.write_bytes(bytes(changed))
    with pytest.raises(DatagenError, match="CRC|checksum"):
        make(path, 4, openings, network=str(other))
    with pytest.raises(DatagenError, match="cannot read the network file"):
        make(path, 4, openings, network=str(tmp_path / "missing.nnue"))
    numpy = pytest.importorskip("numpy")
    from scacco.engine.nnue import quantise, write_network
    rng = numpy.random.default_rng(1)
    valid = tmp_path / "valid.nnue"                               # a good net, but another
    write_network(valid, quantise({"w1": rng.normal(0, 0.1, (768, 16)), "b1": numpy.zeros(16),
                                   "w2": rng.uniform(-1, 1, 32), "b2": 0.0}))
    with pytest.raises(DatagenError, match="other settings"):
        make(path, 4, openings, network=str(valid))
    assert path.read_bytes() == before
    summary, _ = make(path, 4, openings, network=str(net))        # the same network: resumes
    assert summary["games"] == 1


# ---------------------------------------------------------------------------------------------
# Input files checked before they are read; Ctrl-C

CHECK_INPUT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))     # /dev/zero read whole: no
from scacco.engine.training.datagen import DatagenError, generate
kind, path, out, openings = sys.argv[1:5]
try:
    if kind == "openings":
        generate(out, 1, nodes=100, openings=path)
    else:
        generate(out, 1, nodes=100, openings=openings, network=path)
except DatagenError as error:
    print(error)
    sys.exit(2)
"""


@pytest.mark.parametrize("what", ["openings", "network"])
@pytest.mark.parametrize("kind", ["a FIFO", "a device", "a directory", "too large"])
def test_an_input_file_is_checked_by_type_and_size_before_it_is_read(tmp_path, openings, what, kind):
    import os
    from scacco.engine.training.datagen import MAX_NETWORK_BYTES, MAX_OPENINGS_BYTES
    if kind == "a FIFO":
        path = tmp_path / "input.fifo"
        os.mkfifo(path)                 # opened for reading, it would wait for a writer
    elif kind == "a device":
        path = "/dev/zero"              # read whole, it would grow without end
    elif kind == "a directory":
        path = tmp_path
    else:
        path = tmp_path / "input.big"
        with open(path, "wb") as handle:
            handle.truncate((MAX_OPENINGS_BYTES if what == "openings" else MAX_NETWORK_BYTES) + 1)
    out = tmp_path / "out.bin"
    result = subprocess.run([sys.executable, "-c", CHECK_INPUT, what, str(path), str(out), str(openings)],
                            capture_output=True, text=True, timeout=120)    # a hang detector
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    message = result.stdout.strip()
    assert f"{what} file {path}" in message and "Traceback" not in result.stderr
    expected = {"a FIFO": "is a FIFO", "a device": "is a device", "a directory": "is a directory",
                "too large": "bytes, more than the"}[kind]
    assert expected in message, message
    assert not out.exists()


# What a command line does with generate(): on Ctrl-C it exits 130 without a traceback (the
# message is generate's).  The environment variable marks the run's processes, workers too.
INTERRUPTIBLE = """
import sys
from scacco.engine.training.datagen import DatagenInterrupted, generate
out, openings, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    generate(out, 100000, nodes=300, seed=11, random_plies=6, chess960_share=0.2,
             openings=openings, jobs=jobs)
except DatagenInterrupted:
    sys.exit(130)
"""


def processes_marked(marker):
    import os
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


@pytest.fixture(scope="module")
def reference(tmp_path_factory, openings):
    """The file of one uninterrupted run of 40 games (the settings of INTERRUPTIBLE)."""
    path = tmp_path_factory.mktemp("datagen") / "reference.bin"
    make(path, 40, openings)
    return path


@pytest.mark.parametrize("run, jobs, signame", [
    ("function", 1, "SIGINT"), ("function", 2, "SIGINT"), ("command", 1, "SIGINT"),
    ("command", 2, "SIGINT"), ("command", 2, "SIGTERM"), ("command", 1, "SIGHUP")])
def test_ctrl_c_keeps_the_finished_games_says_how_far_and_stops_the_workers(tmp_path, openings,
                                                                            reference, jobs, run,
                                                                            signame):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it), and SIGTERM and
    SIGHUP to the main process alone (a `kill`, a closed terminal): the same clean stop, with
    the exit status 128 + the signal."""
    import os
    import signal
    import time
    import uuid
    signum = getattr(signal, signame)
    path = tmp_path / "interrupted.bin"
    marker = f"scacco-datagen-test-{uuid.uuid4()}"
    environment = dict(os.environ, SCACCO_TEST_MARKER=marker)
    if run == "function":
        command = [sys.executable, "-c", INTERRUPTIBLE, str(path), str(openings), str(jobs)]
    else:
        command = [sys.executable, "-m", "scacco", "datagen", "--out", str(path), "--games",
                   "100000", "--nodes", str(NODES), "--seed", "11", "--random-plies", "6",
                   "--chess960-share", "0.2", "--openings", str(openings), "--jobs", str(jobs)]
    # the signals as a terminal leaves them to a foreground program (a test runner started in
    # the background has SIGINT ignored, under nohup SIGHUP, and a run keeps what its caller
    # ignores)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=environment, start_new_session=True,
                               preexec_fn=default_stop_signals)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if path.exists() and len(split_file(path.read_bytes())[1]) >= 3:
                break
            time.sleep(0.01)
        assert process.poll() is None
        if jobs > 1:
            assert len(processes_marked(marker)) > 1        # the workers run
        if signum == signal.SIGINT:
            os.killpg(process.pid, signal.SIGINT)           # as a terminal's Ctrl-C: every process
        else:
            process.send_signal(signum)                     # as `kill PID`: the main process only
        _, err = process.communicate(timeout=120)           # a hang detector
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == (130 if run == "function" else 128 + signum), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [line for line in err.splitlines() if f"interrupted by {signame}" in line]
    assert len(lines) == 1 and err.splitlines()[-1] == lines[0], err
    assert processes_marked(marker) == []                    # no worker left behind
    # every game in the file is whole, games 0..N as the message says
    header, games, tail = split_file(path.read_bytes())
    assert tail == b""
    count = len(games)
    assert f"holds games 0..{count - 1} " in lines[0] and f"go on from game {count}" in lines[0]
    assert "run the same command again" in lines[0]
    assert count < 40
    reference_games = split_file(reference.read_bytes())[1]
    assert join_file(header, games) == join_file(header, reference_games[:count])
    # the same call goes on from there to the file of one run
    make(path, 40, openings)
    assert path.read_bytes() == reference.read_bytes()
