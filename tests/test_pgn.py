"""The PGN reader and writer against python-chess.

Expected values come from python-chess (its reader on the shared exports, its model of the
games it generated and exported) or, for what python-chess does not read (tag escapes, `;`
comments, games not separated by a blank line), from the PGN text written in the test itself.
Never from our own output.
"""
import io
import os
import random
import re
import signal
import tracemalloc
from contextlib import contextmanager

import chess
import chess.pgn
import pytest

from scacco.engine.pgn import (COMMENT_LIMIT, MAX_GAME_ERRORS, NAG_GLYPHS, SEVEN_TAG_ROSTER, Game,
                               HeadersBuilder, MainLineBuilder, MoveNode, PgnError, PgnFileError,
                               PgnReader, PgnWriter, open_pgn, read_game, read_games,
                               read_headers, skip_game, write_game)
from tests.conftest import shared_data_dir, shared_file
from tests.oracles import play_random

# The exports in shared/data/pgn (listed, so that a missing file fails on CI instead of
# vanishing from the parametrization), plus whatever else is there.
KNOWN_PGN_FILES = [
    "anastasian-lewis.pgn", "chessbase-empty-line.pgn", "cutechess-fischerrandom.pgn",
    "kasparov-deep-blue-1997.pgn", "molinari-bordais-1979.pgn",
    "nepomniachtchi-liren-game1.pgn", "stockfish-learning.pgn", "uci-moves.pgn",
    "utf8-bom.pgn",
]
PGN_FILES = sorted(set(KNOWN_PGN_FILES)
                   | {path.name for path in (shared_data_dir() / "pgn").glob("*.pgn")})


# ---------------------------------------------------------------------------------------------
# Comparing a Game with python-chess's model of the same game


def normalized(comment: str) -> str:
    """Comments compared up to whitespace (writers wrap them at 80 columns)."""
    return " ".join(comment.split())


def reference_line(first):
    """python-chess nodes of a line starting at `first` (first, then main continuations)."""
    nodes = [first]
    while nodes[-1].variations:
        nodes.append(nodes[-1].variations[0])
    return nodes


def alternatives(node):
    """Our alternatives to a move, in the order python-chess keeps them as siblings: a
    variation, then the variations to its first move (which python-chess hangs on the same
    parent), depth first."""
    out = []
    for line in node.variations:
        out.append(line)
        out.extend(alternatives(line[0]))
    return out


def assert_same_line(ours, reference_nodes, board, where, in_variation=False):
    """Our line against python-chess's nodes, from the python-chess board at its start (left
    as found)."""
    assert [node.uci for node in ours] == [node.move.uci() for node in reference_nodes], where
    for index, (node, ref) in enumerate(zip(ours, reference_nodes)):
        here = f"{where} ply {index + 1} ({node.san})"
        assert node.san == board.san(ref.move), here
        assert normalized(node.comment) == normalized(ref.comment), here
        assert normalized(node.starting_comment) == normalized(ref.starting_comment), here
        assert sorted(set(node.nags)) == sorted(ref.nags), here
        if not (in_variation and index == 0):  # those were compared as the parent's siblings
            siblings = ref.parent.variations[1:]
            ours_alternatives = alternatives(node)
            assert len(ours_alternatives) == len(siblings), here
            for number, (line, sibling) in enumerate(zip(ours_alternatives, siblings)):
                assert_same_line(line, reference_line(sibling), board, f"{here} variation {number}",
                                 in_variation=True)
        board.push(ref.move)
    for _ in ours:
        board.pop()


def unescape(value: str) -> str:
    """A tag value as the PGN standard reads it (python-chess keeps the backslashes)."""
    return re.sub(r'\\(["\\])', r"\1", value)


def assert_same_game(game: Game, ref: chess.pgn.Game, where: str = "", escaped: bool = False) -> None:
    """Tags, start, every line with its comments and NAGs, result: as python-chess has them.
    With `escaped`, python-chess read tag values with PGN escapes in them."""
    for name, value in ref.headers.items():
        if escaped:
            value = unescape(value)
        if name in game.headers:
            assert game.headers[name] == value or name == "Result", (where, name)
        else:
            # python-chess fills in the seven tag roster.
            assert name in SEVEN_TAG_ROSTER, (where, name)
    assert set(game.headers) <= set(ref.headers), where
    assert game.result == ref.headers["Result"], where
    start = ref.board()
    assert game.chess960 == start.chess960, where
    assert game.fen == start.fen(), where
    assert normalized(game.comment) == normalized(ref.comment), where
    if ref.variations:
        assert_same_line(game.moves, reference_line(ref.variations[0]), ref.board(), where)
    else:
        assert game.moves == [], where
    end = ref.end().board()
    expected_end = end.shredder_fen() if end.chess960 else end.fen()
    assert game.end_board().fen(shredder=end.chess960) == expected_end, where


def python_chess_games(text: str):
    handle = io.StringIO(text)
    out = []
    while True:
        game = chess.pgn.read_game(handle)
        if game is None:
            return out
        out.append(game)


# ---------------------------------------------------------------------------------------------
# The shared exports


def read_each(path, read):
    """Everything read(handle) returns from the file until None (python-chess's readers and
    ours alike)."""
    with open(path, encoding="utf-8-sig") as handle:
        found = []
        while (item := read(handle)) is not None:
            found.append(item)
    return found


@pytest.mark.parametrize("name", PGN_FILES)
def test_shared_export_reads_like_python_chess(name):
    path = shared_file(f"pgn/{name}")
    references = read_each(path, chess.pgn.read_game)
    games = list(read_games(path))
    assert len(games) == len(references) > 0
    for number, (game, ref) in enumerate(zip(games, references), start=1):
        assert ref.errors == [], f"python-chess could not read game {number}"
        assert game.errors == [], (number, game.errors)
        assert_same_game(game, ref, f"{name} game {number}")


def test_shared_exports_cover_what_the_reader_must_handle():
    """The features named in the shared files are really in them (so the test above
    exercises them): Chess960 with FEN, comments, UCI notation, a null move, a BOM."""
    def games(name):
        return list(read_games(shared_file(f"pgn/{name}")))

    fischer = games("cutechess-fischerrandom.pgn")
    assert all(game.chess960 and game.fen != chess.STARTING_FEN for game in fischer)
    assert any(node.comment for node in fischer[0].moves)
    assert any(node.san.startswith("O-O") for game in fischer for node in game.moves)
    assert "0000" in games("anastasian-lewis.pgn")[0].mainline_uci()
    assert games("uci-moves.pgn")[0].moves[0].san == "Nf3"
    assert shared_file("pgn/utf8-bom.pgn").read_bytes().startswith(b"\xef\xbb\xbf")
    assert [game.headers["Event"] for game in games("utf8-bom.pgn")] == ["A", "B"]
    assert games("chessbase-empty-line.pgn")[0].headers["Date"] == "2017.12.04"


@pytest.mark.parametrize("name", PGN_FILES)
def test_read_headers_and_skip_game_agree_with_python_chess(name):
    path = shared_file(f"pgn/{name}")
    expected = [dict(headers) for headers in read_each(path, chess.pgn.read_headers)]
    ours = read_each(path, read_headers)
    assert len(ours) == len(expected)
    for mine, theirs in zip(ours, expected):
        assert all(theirs[name] == value for name, value in mine.items())
    with open(path, encoding="utf-8-sig") as handle:
        skipped = 0
        while skip_game(handle):
            skipped += 1
        assert read_game(handle) is None
    assert skipped == len(expected)


def test_index_by_offsets_then_seek_and_read():
    """Indexing as with python-chess: tell() before read_headers, later seek() and read_game."""
    path = shared_file("pgn/kasparov-deep-blue-1997.pgn")
    with open(path, encoding="utf-8-sig") as handle:
        offsets = []
        while True:
            offset = handle.tell()
            headers = read_headers(handle)
            if headers is None:
                break
            offsets.append((offset, headers["Site"]))
        sequential = list(read_games(path))
        assert len(offsets) == len(sequential) == 6
        for (offset, site), game in reversed(list(zip(offsets, sequential))):
            handle.seek(offset)
            again = read_game(handle)
            assert again.headers["Site"] == site
            assert again.mainline_uci() == game.mainline_uci()


def test_concatenated_exports_with_byte_order_marks_and_no_final_blank_line():
    """`cat`-ed files: a BOM at the start of a later file, and a file that ends right after
    its result (python-chess then merges games, so each file is its own oracle)."""
    texts = [shared_file(f"pgn/{name}").read_text(encoding="utf-8-sig") for name in PGN_FILES]
    joined = "".join("\ufeff" + text.rstrip("\n") + "\n" for text in texts)
    games = list(read_games(io.StringIO(joined)))
    references = [ref for text in texts for ref in python_chess_games(text)]
    assert len(games) == len(references)
    for number, (game, ref) in enumerate(zip(games, references), start=1):
        assert game.errors == []
        assert_same_game(game, ref, f"game {number}")


# ---------------------------------------------------------------------------------------------
# Generated games: python-chess builds and exports them, we read them

WORDS = ["good", "bad", "the", "idea", "is", "to", "play", "e4", "[%clk", "0:01:02]",
         "[%eval", "0.17]", "Nf3!", "strong", "(sic)", "$5", "1-0", "quiet", "a", "b"]


def random_comment(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 25)))


def annotate(rng, node):
    if rng.random() < 0.2:
        node.comment = random_comment(rng)
    if rng.random() < 0.15:
        for _ in range(rng.randrange(1, 3)):
            node.nags.add(rng.choice([1, 2, 3, 4, 5, 6, 7, 10, 13, 14, 15, 16, 17, 18, 19, 146]))


def grow_line(rng, node, board, plies, depth):
    """Random moves from node (board is its position), with comments, NAGs, null moves and
    variations nested up to `depth`; the board is left as found."""
    pushed = 0
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        if not board.is_check() and rng.random() < 0.01:
            move = chess.Move.null()
        else:
            move = rng.choice(moves)
        child = node.add_variation(move)
        annotate(rng, child)
        if depth and len(moves) > 1 and rng.random() < 0.08:
            other = rng.choice([m for m in moves if m != move])
            alternative = node.add_variation(other)
            annotate(rng, alternative)
            if rng.random() < 0.3:
                alternative.starting_comment = random_comment(rng)
            board.push(other)
            grow_line(rng, alternative, board, rng.randrange(0, 8), depth - 1)
            board.pop()
        board.push(move)
        pushed += 1
        node = child
    for _ in range(pushed):
        board.pop()


def random_game(rng, kind):
    if kind == "chess960":
        board = chess.Board.from_chess960_pos(rng.randrange(960))
    elif kind == "fen":
        board = chess.Board()
        play_random(board, rng, rng.randrange(1, 60))
        board = chess.Board(board.fen())
    else:
        board = chess.Board()
    game = chess.pgn.Game()
    if kind != "standard":
        game.setup(board)
    game.headers["Event"] = rng.choice(["Club \"Open\" 2024", "Rapid", "Test \\ cup", "?"])
    game.headers["White"] = rng.choice(["Doe, J.", "Ruiz López", "Кузнецов", "?"])
    game.headers["Round"] = str(rng.randrange(1, 12))
    if rng.random() < 0.3:
        game.headers["ECO"] = "C" + str(rng.randrange(10, 99))
    if rng.random() < 0.1:
        game.comment = random_comment(rng)
    grow_line(rng, game, board, rng.randrange(0, 70), depth=2)
    game.headers["Result"] = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return game


def generated_games(seed, count, kinds=("standard", "standard", "fen", "chess960")):
    rng = random.Random(seed)
    return [random_game(rng, kinds[i % len(kinds)]) for i in range(count)]


def export(games, columns=80):
    return "".join(game.accept(chess.pgn.StringExporter(columns=columns)) + "\n\n"
                   for game in games)


GENERATED = generated_games(20240917, 2000)
GENERATED_TEXT = export(GENERATED)


def test_generated_games_are_varied():
    assert sum(1 for g in GENERATED if g.headers.get("Variant") == "Chess960") >= 400
    assert sum(1 for g in GENERATED for node in g.mainline() if node.variations[1:]) >= 500
    assert sum(1 for g in GENERATED for node in g.mainline() if node.nags) >= 1000
    assert sum(1 for g in GENERATED for node in g.mainline() if node.move == chess.Move.null())
    assert '\\"' not in GENERATED_TEXT  # python-chess writes tag values unescaped


@pytest.fixture(scope="module")
def generated_read():
    """Our reading of the generated games (read once for the tests of this module)."""
    return list(read_games(io.StringIO(GENERATED_TEXT)))


def test_generated_games_read_like_python_chess_built_them(generated_read):
    games = generated_read
    assert len(games) == len(GENERATED)
    for number, (game, ref) in enumerate(zip(games, GENERATED), start=1):
        assert game.errors == [], (number, game.errors)
        assert_same_game(game, ref, f"generated game {number}")


def test_generated_games_without_line_breaks_and_in_crlf():
    games = GENERATED[:300]
    for text in (export(games, columns=None), export(games).replace("\n", "\r\n")):
        ours = list(read_games(io.StringIO(text, newline="")))
        assert len(ours) == len(games)
        for game, ref in zip(ours, games):
            assert game.errors == []
            assert_same_game(game, ref)


def test_crlf_file_from_a_path(tmp_path):
    path = tmp_path / "crlf.pgn"
    path.write_bytes(b"\xef\xbb\xbf" + export(GENERATED[:50]).replace("\n", "\r\n").encode())
    games = list(read_games(path))
    assert len(games) == 50
    for game, ref in zip(games, GENERATED):
        assert_same_game(game, ref)


def test_games_in_uci_notation():
    rng = random.Random(5)
    refs = generated_games(77, 200, kinds=("standard", "chess960"))
    text = ""
    for ref in refs:
        board = ref.board()
        moves = []
        for move in ref.mainline_moves():
            moves.append(board.uci(move) if rng.random() < 0.9 else board.san(move))
            board.push(move)
        tags = "".join(f'[{name} "{value}"]\n' for name, value in ref.headers.items())
        text += tags + "\n" + " ".join(moves) + " " + ref.headers["Result"] + "\n\n"
    games = list(read_games(io.StringIO(text)))
    assert len(games) == len(refs)
    for game, ref in zip(games, refs):
        assert game.errors == []
        assert game.mainline_uci() == [m.uci() for m in ref.mainline_moves()]
        board = ref.board()
        sans = []
        for move in ref.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        assert game.mainline_san() == sans


# ---------------------------------------------------------------------------------------------
# The writer


def test_writer_output_reads_back_in_python_chess_as_the_same_game(generated_read):
    games = generated_read[:600]
    ours_text = "".join(str(game) + "\n" for game in games)
    again = python_chess_games(ours_text)
    assert len(again) == len(games)
    for number, (game, ref, reread) in enumerate(zip(games, GENERATED, again), start=1):
        assert reread.errors == [], number
        assert_same_game(game, reread, f"game {number} written by us", escaped=True)
    # And by our own reader: everything kept.
    for number, (game, ref) in enumerate(zip(read_games(io.StringIO(ours_text)), GENERATED), 1):
        assert game.errors == []
        assert_same_game(game, ref, f"game {number} written and read by us")


def python_chess_tokens(game):
    """python-chess's export of a game as one string of tokens, brackets written like ours."""
    text = game.accept(chess.pgn.StringExporter(columns=None, headers=False))
    text = text.replace("{ ", "{").replace(" }", "}").replace("( ", "(").replace(" )", ")")
    return text.split()


def test_writer_movetext_matches_python_chess_exporter_token_for_token(generated_read):
    """Move numbers (N... for black after a comment, at a variation's start and after its
    end), NAG and comment order, brackets: python-chess's exporter writes the same tokens."""
    games = generated_read
    for number, (game, ref) in enumerate(zip(games, GENERATED), start=1):
        ours = str(game).split("\n\n", 1)[1].split()
        assert ours == python_chess_tokens(ref), f"game {number}"


def test_writer_format_tags_first_lines_short_result_last(generated_read):
    games = generated_read
    for game, ref in zip(games, GENERATED):
        text = str(game)
        header_text, movetext = text.split("\n\n", 1)
        names = re.findall(r'^\[(\w+) "', header_text, re.M)
        assert names[:7] == list(SEVEN_TAG_ROSTER)
        assert names == list(ref.headers.keys())
        assert all(len(line) <= 80 for line in movetext.splitlines())
        assert not any(re.search(r"\d\.$", line) for line in movetext.splitlines()), \
            "a move number left at the end of a line"
        assert movetext.split()[-1] == ref.headers["Result"]
        assert text.endswith("\n") and not text.endswith("\n\n")


def test_writer_fills_the_roster_and_the_starting_position():
    fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
    game = Game(headers={"White": "Me", "Annotator": "Us"}, fen=fen,
                moves=[MoveNode("e1g1", "O-O")], result="1-0")
    ref = chess.pgn.read_game(io.StringIO(str(game)))
    assert ref.errors == []
    assert list(ref.headers)[:7] == list(SEVEN_TAG_ROSTER)
    assert ref.headers["White"] == "Me" and ref.headers["Annotator"] == "Us"
    assert ref.headers["Event"] == "?" and ref.headers["Date"] == "????.??.??"
    assert ref.headers["Result"] == "1-0"
    assert ref.headers["SetUp"] == "1"
    assert ref.board().fen() == chess.Board(fen).fen()
    assert [m.uci() for m in ref.mainline_moves()] == ["e1g1"]
    # Chess960 gets its Variant tag.
    game = Game(fen="4k3/8/8/8/8/8/8/5KR1 w G - 0 1", chess960=True, moves=[MoveNode("f1g1", "O-O")])
    ref = chess.pgn.read_game(io.StringIO(str(game)))
    assert ref.errors == [] and ref.headers["Variant"] == "Chess960"
    assert ref.end().board().fen() == chess.Board("4k3/8/8/8/8/8/8/5RK1 b - - 1 1").fen()


def test_writer_as_the_readers_visitor_copies_a_file():
    out = io.StringIO()
    handle = io.StringIO(export(GENERATED[:600]))
    count = 0
    while read_game(handle, PgnWriter(out)) is not None:
        count += 1
    assert count == 600
    for number, (reread, ref) in enumerate(zip(read_games(io.StringIO(out.getvalue())), GENERATED), 1):
        assert_same_game(reread, ref, f"copied game {number}")


def test_write_game_writes_a_blank_line_after_each_game(generated_read):
    games = generated_read[:20]
    out = io.StringIO()
    for game in games:
        write_game(game, out)
    assert out.getvalue() == "".join(str(game) + "\n" for game in games)
    assert len(python_chess_games(out.getvalue())) == 20


def test_tag_escapes_read_and_written():
    text = '[Event "The \\"Big\\" one"]\n[Site "C:\\\\games"]\n[White "a\\\\"]\n\n1. e4 *\n'
    game = read_game(io.StringIO(text))
    # The PGN standard: \" is a quote and \\ a backslash inside a tag value.
    assert game.headers == {"Event": 'The "Big" one', "Site": "C:\\games", "White": "a\\"}
    again = read_game(io.StringIO(str(game)))
    assert again.headers["Event"] == 'The "Big" one'
    assert again.headers["Site"] == "C:\\games"
    assert again.headers["White"] == "a\\"
    assert '[Event "The \\"Big\\" one"]' in str(game)


# ---------------------------------------------------------------------------------------------
# Movetext details, each checked against the text of the test


def test_semicolon_comments_escape_lines_glyphs_and_move_numbers():
    text = ("% a line for the exporting program\n"
            "[Event \"x\"]\n\n"
            "1.e4 ; the king's pawn\n"
            "%ignored line e5 d5\n"
            "1...e5!? 2. Nf3 $14 Nc6 +- 3.Bb5 ?! a6 \u00b1 4. Ba4 1. ... Nf6 *\n")
    game = read_game(io.StringIO(text))
    assert game.errors == []
    assert game.mainline_san() == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"]
    assert game.moves[0].comment == "the king's pawn"
    expected_nags = {1: [chess.pgn.NAG_SPECULATIVE_MOVE], 2: [chess.pgn.NAG_WHITE_SLIGHT_ADVANTAGE],
                     3: [chess.pgn.NAG_WHITE_DECISIVE_ADVANTAGE], 4: [chess.pgn.NAG_DUBIOUS_MOVE],
                     5: [chess.pgn.NAG_WHITE_MODERATE_ADVANTAGE]}
    for index, nags in expected_nags.items():
        assert game.moves[index].nags == nags


def test_escape_and_comment_lines_between_games_make_no_game():
    text = "; a file comment\n%escape\n\n1. e4 *\n\n% trailer\n; the end\n\n%\n"
    games = list(read_games(io.StringIO(text)))
    assert [g.mainline_san() for g in games] == [["e4"]]


def test_glyph_table_matches_python_chess_nag_constants():
    pgn = chess.pgn
    assert NAG_GLYPHS["!"] == pgn.NAG_GOOD_MOVE and NAG_GLYPHS["?"] == pgn.NAG_MISTAKE
    assert NAG_GLYPHS["!!"] == pgn.NAG_BRILLIANT_MOVE and NAG_GLYPHS["??"] == pgn.NAG_BLUNDER
    assert NAG_GLYPHS["!?"] == pgn.NAG_SPECULATIVE_MOVE and NAG_GLYPHS["?!"] == pgn.NAG_DUBIOUS_MOVE
    assert NAG_GLYPHS["\u25a1"] == pgn.NAG_FORCED_MOVE
    assert NAG_GLYPHS["="] == pgn.NAG_DRAWISH_POSITION
    assert NAG_GLYPHS["\u221e"] == pgn.NAG_UNCLEAR_POSITION
    assert NAG_GLYPHS["+="] == pgn.NAG_WHITE_SLIGHT_ADVANTAGE
    assert NAG_GLYPHS["=+"] == pgn.NAG_BLACK_SLIGHT_ADVANTAGE
    assert NAG_GLYPHS["+/-"] == pgn.NAG_WHITE_MODERATE_ADVANTAGE
    assert NAG_GLYPHS["-/+"] == pgn.NAG_BLACK_MODERATE_ADVANTAGE
    assert NAG_GLYPHS["+-"] == pgn.NAG_WHITE_DECISIVE_ADVANTAGE
    assert NAG_GLYPHS["-+"] == pgn.NAG_BLACK_DECISIVE_ADVANTAGE


def test_multiline_comments_nested_variations_and_comment_placement():
    text = ("{Game\ncomment} 1. e4 {after e4} (1. d4 {after d4} (1. c4) 1... d5) "
            "({before Nf3} 1. Nf3) {after the variations} 1... e5 2. Nf3 *\n")
    ref = chess.pgn.read_game(io.StringIO(text))
    game = read_game(io.StringIO(text))
    assert game.errors == []
    assert_same_game(game, ref)
    assert game.comment == "Game\ncomment"
    assert game.moves[0].comment == "after e4 after the variations"
    assert [line[0].san for line in game.moves[0].variations] == ["d4", "Nf3"]
    assert game.moves[0].variations[1][0].starting_comment == "before Nf3"


def test_blank_lines_where_exports_put_them():
    text = ('[Event "a"]\n\n[Date "2017.12.04"]\n\n\n'     # between tags, and two before the moves
            '{Defaulted: no moves}\n\n0-1\n\n'              # comment, blank line, result
            '[Event "b"]\n\n1. e4 e5 1-0\n')
    games = list(read_games(io.StringIO(text)))
    assert [g.headers for g in games] == [{"Event": "a", "Date": "2017.12.04"}, {"Event": "b"}]
    assert games[0].comment == "Defaulted: no moves" and games[0].result == "0-1"
    assert games[1].mainline_san() == ["e4", "e5"] and games[1].result == "1-0"
    assert all(g.errors == [] for g in games)


def test_games_without_blank_lines_between_them():
    first = '[Event "Whatever"]\n[Round "5"]\n[Result "*"]\n1. d4 { [%eval +0.16] } 1... d5 *\n'
    second = '[Event "Whatever"]\n[Round "13"]\n[Result "*"]\n\n1. d4 1... c5 *\n'
    games = list(read_games(io.StringIO(first + second)))
    assert [g.headers["Round"] for g in games] == ["5", "13"]
    for game, text in zip(games, (first, second)):
        assert_same_game(game, chess.pgn.read_game(io.StringIO(text)))
    # A game without a result, then a new game at once.
    games = list(read_games(io.StringIO('[Event "x"]\n1. e4 e5\n[Event "y"]\n1. d4 *')))
    assert [(g.headers["Event"], g.mainline_san()) for g in games] == [("x", ["e4", "e5"]), ("y", ["d4"])]
    # Headers only, a blank line, then the next game's tags.
    games = list(read_games(io.StringIO('[Event "x"]\n[Site "s"]\n\n[Event "y"]\n\n1. e4 *\n')))
    assert [(g.headers, g.mainline_san()) for g in games] == [
        ({"Event": "x", "Site": "s"}, []), ({"Event": "y"}, ["e4"])]


def test_the_game_comes_back_game_by_game_from_one_handle():
    handle = io.StringIO(GENERATED_TEXT)
    first = read_game(handle)
    second = read_game(handle, HeadersBuilder())
    assert skip_game(handle)
    fourth = read_game(handle)
    assert_same_game(first, GENERATED[0])
    assert second == {k: v for k, v in GENERATED[1].headers.items()}
    assert_same_game(fourth, GENERATED[3])


@pytest.mark.parametrize("variant", ["Chess960", "chess960", "chess 960", "Fischerandom",
                                     "fischerandom", "Fischer Random", "Chess-960"])
@pytest.mark.parametrize("shredder", [False, True])
def test_chess960_variant_names_and_fen_styles(variant, shredder):
    ref = GENERATED[3]
    assert ref.headers["Variant"] == "Chess960"
    start = ref.board()
    text = export([ref]).replace('[Variant "Chess960"]', f'[Variant "{variant}"]')
    if shredder:
        text = text.replace(start.fen(), start.fen(shredder=True))
    game = read_game(io.StringIO(text))
    assert game.errors == []
    assert game.chess960
    assert game.mainline_uci() == [m.uci() for m in ref.mainline_moves()]


def test_chess960_castling_rights_without_a_variant_tag():
    # Like python-chess: a FEN whose castling fits only Chess960 switches Chess960 on.
    text = '[FEN "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAhb - 0 1"]\n\n1. O-O-O O-O *\n'
    ref = chess.pgn.read_game(io.StringIO(text))
    game = read_game(io.StringIO(text))
    assert game.errors == [] and ref.errors == []
    assert_same_game(game, ref)


# ---------------------------------------------------------------------------------------------
# Bad games: recorded, the reader goes on


def test_illegal_move_recorded_with_game_move_and_text():
    good = '[Event "ok"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n'
    bad = '[Event "bad"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf9 4. O-O Nf6 0-1\n\n'
    text = good + bad + good
    games = list(read_games(io.StringIO(text)))
    assert len(games) == 3
    assert games[0].errors == [] and games[2].errors == []
    assert games[2].mainline_san() == ["e4", "e5", "Nf3", "Nc6"]
    (error,) = games[1].errors
    assert isinstance(error, PgnError) and isinstance(error, ValueError)
    assert (error.game_number, error.move_number, error.text) == (2, "3...", "Nf9")
    assert "game 2" in str(error) and "3..." in str(error) and "Nf9" in str(error)
    # The moves before the bad one are kept, as python-chess keeps them.
    ref = chess.pgn.read_game(io.StringIO(bad))
    assert games[1].mainline_uci() == [m.uci() for m in ref.mainline_moves()]
    assert games[1].result == "0-1"


def test_bad_move_in_a_variation_skips_only_the_variation():
    text = "1. e4 e5 (1... c5 2. Qxh8 2... d6) 2. Nf3 Nc6 *\n"
    game = read_game(io.StringIO(text))
    (error,) = game.errors
    assert error.move_number == "2." and error.text == "Qxh8"
    assert game.mainline_san() == ["e4", "e5", "Nf3", "Nc6"]
    assert [node.san for node in game.moves[1].variations[0]] == ["c5"]


def test_illegal_fen_is_recorded_and_the_next_game_read():
    text = ('[Event "a"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n1. e4 e5 *\n\n'
            '[Event "b"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/4K3 b - - 0 7"]\n\n7... Kd7 *\n')
    first, second = read_games(io.StringIO(text))
    (error,) = first.errors
    assert error.game_number == 1 and "FEN" in str(error)
    assert first.moves == []
    assert second.errors == [] and second.mainline_san() == ["Kd7"]
    assert second.fen == "4k3/8/8/8/8/8/8/4K3 b - - 0 7"


def test_unsupported_variant_is_recorded_and_read_as_standard():
    game = read_game(io.StringIO('[Variant "Atomic"]\n\n1. e4 e5 *\n'))
    (error,) = game.errors
    assert "Atomic" in str(error)
    assert game.mainline_san() == ["e4", "e5"]


@pytest.mark.parametrize("movetext,errors", [
    ("1. e4 {never closed e5 2. Nf3", 1),
    ("1. e4 e5 (1... c5 (1... e6 2. d4", 1),
    ("1. e4 e5 ) 2. Nf3 *", 1),
    ("( 1. d4 ) 1. e4 *", 1),
    ("$3 1. e4 *", 1),
    ("1. e4 } e5 *", 1),
    ("1. e4 e5 1-0 2. Nf3", 1),
    ("1. e4 $999 e5 *", 1),
])
def test_unbalanced_and_misplaced_text(movetext, errors):
    text = f'[Event "x"]\n\n{movetext}\n\n[Event "next"]\n\n1. d4 *\n'
    games = list(read_games(io.StringIO(text)))
    assert len(games) == 2
    assert len(games[0].errors) == errors, games[0].errors
    assert games[0].mainline_san()[:1] == ["e4"]
    assert games[1].headers == {"Event": "next"} and games[1].mainline_san() == ["d4"]
    assert games[1].errors == []


def test_unclosed_comment_stops_at_the_next_game():
    text = '[Event "x"]\n\n1. e4 {oops\n\n[Event "y"]\n\n1. d4 *\n'
    first, second = read_games(io.StringIO(text))
    assert "comment" in str(first.errors[0])
    assert first.moves[0].comment == "oops"
    assert second.headers == {"Event": "y"} and second.mainline_san() == ["d4"]


def test_visitor_can_skip_variations_and_games():
    handle = io.StringIO(GENERATED_TEXT)
    for ref in GENERATED[:200]:
        assert read_game(handle, MainLineBuilder()) == [m.uci() for m in ref.mainline_moves()]


# ---------------------------------------------------------------------------------------------
# Nothing in a file may crash or hang the reader


@contextmanager
def hang_guard(seconds):
    """Fails the test if the block runs longer than `seconds` (a guard against loops that do
    not consume input, far above what the block needs)."""
    def expire(signum, frame):
        raise AssertionError(f"the reader took more than {seconds} s: a loop without progress?")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


JUNK = ["{", "}", "(", ")", "[", "]", '"', "\\", "\n", "\n\n", "\r", "\x00", "\ufeff", "%",
        ";", "$", "$99999", "1-0", "*", "...", "1.", "O-O", "e8=", "\ufffd", "\t", "Z0", "--",
        '[Event "', '[FEN "8/8/8/8 w - - 0 1"]\n', "((((", "))))", "{{{", "}}}", "e4", "Nf3"]


def mangle(rng, text):
    for _ in range(rng.randrange(1, 12)):
        if not text:
            text = rng.choice(JUNK)
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randrange(0, 200))
        operation = rng.randrange(5)
        if operation == 0:
            text = text[:i] + text[j:]
        elif operation == 1:
            text = text[:i] + text[i:j] * rng.randrange(2, 5) + text[i:]
        elif operation == 2:
            noise = "".join(chr(rng.randrange(0, 0x2FF)) for _ in range(rng.randrange(1, 30)))
            text = text[:i] + noise + text[i:]
        elif operation == 3:
            text = text[:i] + "".join(rng.choice(JUNK) for _ in range(rng.randrange(1, 10))) + text[i:]
        else:
            text = text[:i]
    return text


def read_everything(text):
    """Reads a text to its end with each entry point; returns the number of games.  Every
    call must make progress: at most one call per line (plus the final None)."""
    limit = text.count("\n") + text.count("\r") + 2
    counts = []
    for reader in ("games", "headers", "skip", "writer"):
        handle = io.StringIO(text, newline="")
        calls = 0
        while True:
            calls += 1
            assert calls <= limit, f"{reader}: more calls than lines"
            if reader == "games":
                result = read_game(handle)
                if result is not None:
                    assert all(isinstance(e, PgnError) for e in result.errors)
                    str(result)  # the writer copes with whatever was read
            elif reader == "headers":
                result = read_headers(handle)
            elif reader == "skip":
                result = skip_game(handle) or None
            else:
                result = read_game(handle, PgnWriter())
            if result is None:
                break
        counts.append(calls - 1)
    assert len(set(counts)) == 1, f"entry points disagree on the number of games: {counts}"
    return counts[0]


def test_fuzz_mangled_exports_never_raise_or_hang():
    sources = [shared_file(f"pgn/{name}").read_text(encoding="utf-8-sig") for name in KNOWN_PGN_FILES]
    sources.append(export(GENERATED[:40]))
    rng = random.Random(1234)
    with hang_guard(300):
        for _ in range(400):
            read_everything(mangle(rng, rng.choice(sources)))


def test_fuzz_random_text_with_hypothesis():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    alphabet = st.sampled_from(list("{}()[]\";%$*.-=+#!?/\\ \n\r\t0123456789abcdefghxKQRBNOZ")
                               + ["\x00", "\ufeff", "1-0", "e4", "Nf3", "O-O", "[Event \"x\"]\n"])

    @settings(max_examples=300, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(alphabet, max_size=300).map("".join))
    def check(text):
        read_everything(text)

    with hang_guard(300):
        check()


def test_pathological_inputs():
    cases = {
        "huge line of moves": "1. e4 e5 " + "2. Nf3 Nf6 3. Ng1 Ng8 " * 10000 + "*\n",
        "huge token": "1. " + "x" * 300000 + " e4 *\n",
        "deep variations": "1. e4 " + "(1. d4 " * 5000 + ")" * 5000 + " e5 *\n",
        "closing brackets": "1. e4 " + ")" * 100000 + " *\n",
        "unclosed comment, huge": "1. e4 {" + "word " * 400000 + "\n",
        "binary junk": "".join(chr(random.Random(3).randrange(0, 256)) for _ in range(50000)),
        "only tags": '[Event "x"]\n' * 1000,
        "huge tag line": '[Event "' + "y" * 300000 + '"]\n\n1. e4 *\n',
    }
    with hang_guard(120):
        for name, text in cases.items():
            games = read_everything(text)
            assert games >= 1, name
    game = read_game(io.StringIO(cases["huge line of moves"]))
    assert len(game.moves) == 2 + 40000 and game.errors == []
    game = read_game(io.StringIO(cases["deep variations"]))
    assert game.mainline_san() == ["e4", "e5"]
    assert any("deeper" in str(error) for error in game.errors)
    # A tag line longer than a read (64 Ki characters) is not kept, the game is.
    game = read_game(io.StringIO(cases["huge tag line"]))
    assert "Event" not in game.headers and "tag" in str(game.errors[0])
    assert game.mainline_san() == ["e4"]
    # 100,000 stray brackets: the first MAX_GAME_ERRORS errors, then how many more there were
    game = read_game(io.StringIO(cases["closing brackets"]))
    assert len(game.errors) == MAX_GAME_ERRORS + 1 and game.mainline_san() == ["e4"]
    assert str(game.errors[-1]) == (f"game 1: ... and {100000 - MAX_GAME_ERRORS} more errors "
                                    f"in this game, not listed")


def test_memory_stays_flat_over_a_long_file(tmp_path):
    """One game in memory at a time: reading four times as many games does not take more
    memory (peak of the Python allocations while reading a file)."""
    text = GENERATED_TEXT[:GENERATED_TEXT.index("[Event", 100000)]

    def peak(copies):
        path = tmp_path / f"copies-{copies}.pgn"
        path.write_text(text * copies, encoding="utf-8")
        tracemalloc.start()
        count = sum(1 for _ in read_games(path))
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return count, top

    small_count, small = peak(1)
    large_count, large = peak(4)
    assert small_count >= 40 and large_count == 4 * small_count
    assert large < 1.5 * small + 200_000, (small, large)


def test_reader_object_numbers_games():
    reader = PgnReader(io.StringIO(GENERATED_TEXT))
    games = [reader.read_game() for _ in range(3)]
    assert reader.games_read == 3
    assert all(isinstance(game, Game) for game in games)
    text = '1. e4 *\n\n1. e4 *\n\n1. Zz9 *\n'
    errors = [g.errors for g in read_games(io.StringIO(text))]
    assert errors[0] == [] and errors[1] == [] and errors[2][0].game_number == 3


# ---------------------------------------------------------------------------------------------
# Many and huge comments, long error lists


def test_eighty_thousand_comments_after_one_move():
    """Comments are joined once (linear time: a hang guard far above what it needs), and a
    comment longer than COMMENT_LIMIT is cut with a note, not an error, so the game (read
    again from its own text, as a worker reads it) stays a clean game."""
    comments = [f"comment number {i}" for i in range(80000)]
    text = "1. e4 " + " ".join("{" + c + "}" for c in comments) + " e5 *\n"
    joined = " ".join(comments)
    assert len(joined) > COMMENT_LIMIT
    with hang_guard(60):
        game = read_game(io.StringIO(text))
        again = read_game(io.StringIO(str(game)))
    assert game.errors == [] and game.mainline_san() == ["e4", "e5"]
    comment = game.moves[0].comment
    keep, note = comment.split(" [comment cut: ")
    assert joined.startswith(keep) and len(comment) <= COMMENT_LIMIT
    assert note == f"{len(joined) - len(keep)} characters left out]"
    assert again.errors == [] and normalized(again.moves[0].comment) == normalized(comment)


def test_a_huge_comment_is_cut_with_a_note():
    words = "word " * 400000                      # 2,000,000 characters in one comment
    game = read_game(io.StringIO("1. e4 {" + words + "} e5 *\n"))
    assert game.errors == [] and game.mainline_san() == ["e4", "e5"]
    keep, note = game.moves[0].comment.split(" [comment cut: ")
    assert words.startswith(keep) and len(game.moves[0].comment) <= COMMENT_LIMIT
    assert note == f"{len(words) - len(keep)} characters left out]"
    # comments that fit are untouched, several at one place joined by spaces
    game = read_game(io.StringIO("{a} {b} 1. e4 {c} (1. d4 {d}) {e} *\n"))
    assert game.comment == "a b" and game.moves[0].comment == "c e"


def test_error_lists_are_capped_with_a_count_of_the_rest():
    # unreadable tag lines are capped too
    text = '[Event "x"]\n' + "[not a tag pair\n" * 200000 + "\n1. e4 *\n"
    with hang_guard(120):
        game = read_game(io.StringIO(text))
    assert len(game.errors) == MAX_GAME_ERRORS + 1 and game.mainline_san() == ["e4"]
    assert all("unreadable tag pair" in str(e) for e in game.errors[:-1])
    assert str(game.errors[-1]) == (f"game 1: ... and {200000 - MAX_GAME_ERRORS} more errors "
                                    f"in this game, not listed")
    # tags and moves share one list: 15 + 15 errors
    text = "[bad\n" * 15 + "\n1. e4 " + ") " * 15 + "*\n"
    game = read_game(io.StringIO(text))
    assert len(game.errors) == MAX_GAME_ERRORS + 1
    assert str(game.errors[-1]) == (f"game 1: ... and {30 - MAX_GAME_ERRORS} more errors "
                                    f"in this game, not listed")
    # at most MAX_GAME_ERRORS errors: no count
    game = read_game(io.StringIO("1. e4 " + ") " * MAX_GAME_ERRORS + "*\n"))
    assert len(game.errors) == MAX_GAME_ERRORS and "more error" not in str(game.errors[-1])


def test_an_error_can_name_another_game_number():
    error = PgnError("illegal move 'Ke3'", 1, "2.", "Ke3")
    assert str(error) == "game 1, move 2.: illegal move 'Ke3'"
    assert error.at_game(7) == "game 7, move 2.: illegal move 'Ke3'"
    assert PgnError("no moves", 1).at_game(3) == "game 3: no moves"


# ---------------------------------------------------------------------------------------------
# Encodings and what a path is

NAMES_TEXT = ('[Event "Café de la Régence"]\n[White "Müller, Jürgen"]\n[Black "Øster"]\n\n'
              '1. e4 {très bien} e5 2. Nf3 *\n')


def check_names(game, event="Café de la Régence"):
    assert game.headers["Event"] == event and game.headers["White"] == "Müller, Jürgen"
    assert game.headers["Black"] == "Øster" and game.moves[0].comment == "très bien"
    assert game.mainline_san() == ["e4", "e5", "Nf3"] and game.errors == []


@pytest.mark.parametrize("encoding,bom", [
    ("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"),
    ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00"),
])
def test_unicode_files_with_or_without_a_byte_order_mark(tmp_path, encoding, bom):
    path = tmp_path / "games.pgn"
    path.write_bytes(bom + (NAMES_TEXT * 3).encode(encoding))
    warnings = []
    games = list(read_games(path, warnings=warnings))
    assert len(games) == 3 and warnings == []
    for game in games:
        check_names(game)


def test_a_file_that_is_not_utf8_is_read_as_windows_1252_with_a_warning(tmp_path):
    path = tmp_path / "latin.pgn"
    text = NAMES_TEXT.replace("Café", "Caf\u00e9 \u2019\u20ac")      # ’ and € are Windows-1252
    path.write_bytes(text.encode("cp1252"))
    warnings = []
    game = next(read_games(path, warnings=warnings))
    check_names(game, event="Caf\u00e9 \u2019\u20ac de la Régence")
    assert "\ufffd" not in str(game)
    first_bad = text.encode("cp1252").index("é".encode("cp1252"))
    assert warnings == [f"not UTF-8 (byte 0xE9 at offset {first_bad} is not valid UTF-8): the "
                        f"bytes that are not UTF-8 are read as Windows-1252 (Latin-1)"]
    with open_pgn(path) as pgn:
        assert pgn.warning == warnings[0]
    # a UTF-8 file with a Latin-1 game appended: both read right
    mixed = tmp_path / "mixed.pgn"
    mixed.write_bytes(NAMES_TEXT.encode("utf-8") + b"\n" + NAMES_TEXT.encode("latin-1"))
    warnings = []
    games = list(read_games(mixed, warnings=warnings))
    assert len(games) == 2 and len(warnings) == 1
    for game in games:
        check_names(game)


def test_a_utf16_file_without_its_byte_order_mark_is_recognised(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_bytes(NAMES_TEXT.encode("utf-16-le"))
    warnings = []
    check_names(next(read_games(path, warnings=warnings)))
    assert len(warnings) == 1 and "UTF-16-LE" in warnings[0]


def test_only_regular_files_are_read(tmp_path):
    with pytest.raises(PgnFileError, match="a directory, not a PGN file"):
        list(read_games(tmp_path))
    fifo = tmp_path / "pipe.pgn"
    os.mkfifo(fifo)
    with hang_guard(30):          # no writer: opening it to read would block forever
        with pytest.raises(PgnFileError, match=r"a named pipe \(FIFO\), not a PGN file"):
            list(read_games(fifo))
        with pytest.raises(PgnFileError, match="named pipe"):
            open_pgn(fifo)
    if os.path.exists("/dev/zero"):
        with pytest.raises(PgnFileError, match="a device"):
            open_pgn("/dev/zero")
    assert issubclass(PgnFileError, OSError)
    with pytest.raises(FileNotFoundError):
        open_pgn(tmp_path / "missing.pgn")
