"""`scacco drill`: an endgame lesson in the terminal, against perfect defence from the Syzygy
tables, every move judged at once (engine/trainer/drills.py does the judging)."""
from __future__ import annotations

import os
import sys
import textwrap

from .common import EXIT_FAILED, EXIT_OK, Parser

# Words the drill reads besides moves.
QUIT_WORDS = ("quit", "exit", "resign")
HELP_TEXT = ("Moves in SAN (Qb7, Kxe2, e8=Q) or UCI (b1b7); 'moves' lists them, 'board' shows "
             "the board, 'back' takes a move back, 'quit' stops.")
# The width the lesson's advice is wrapped to.
TEXT_WIDTH = 92


def main(argv) -> int:
    """`scacco drill`: the arguments checked (exit status EXIT_USAGE with a message, nothing
    played), then the lesson on standard input and output."""
    from ...engine.trainer.drills import (LESSONS, Drill, DrillError, MissingTableError,
                                          lesson_named, parse_level)

    p = Parser(prog="scacco drill",
               description="An endgame lesson against perfect defence read from Syzygy "
                           "tables: each move is judged at once (the fastest win, a slower "
                           "win, or the win thrown away and the move that kept it). Moves in "
                           "SAN or UCI on standard input; the end of input stops the drill.")
    p.add_argument("lesson", nargs="?", default="KQvK",
                   help=f"the lesson (default KQvK): {', '.join(LESSONS)}")
    p.add_argument("--level", metavar="LEVEL",
                   help="easy, medium or hard; classic for the textbook Lucena and Philidor "
                        "set-ups (their default); or, in a win lesson, a number of moves to "
                        "mate or conversion")
    p.bounded("--seed", low=0, high=2 ** 63 - 1, metavar="N",
              help="the same start (and replies) for the same seed (default: a new one, shown)")
    p.add_argument("--path", metavar="DIR",
                   help=f"the folder(s) of the Syzygy tables (.rtbw and .rtbz), several "
                        f"separated by '{os.pathsep}'")
    p.add_argument("--list", action="store_true", help="list the lessons and their levels")
    args = p.parse_args(argv)

    if args.list:
        width = max(len(name) for name in LESSONS)
        for name, lesson in LESSONS.items():
            print(f"{name.ljust(width)}  {lesson.title} (levels: {', '.join(lesson.levels)})")
        return EXIT_OK
    try:
        lesson = lesson_named(args.lesson)
        level = parse_level(lesson, args.level)
    except DrillError as error:
        p.error(str(error))
    if not args.path:
        p.error("give the Syzygy tables' folder with --path DIR")
    folders = p.table_folders(args.path, "--path")
    try:
        drill = Drill(lesson, level=level, seed=args.seed, paths=folders)
    except MissingTableError as error:
        p.error(missing_table(error, folders))
    except DrillError as error:
        p.error(str(error))
    try:
        return play(drill, level)
    except MissingTableError as error:
        print(f"scacco drill: {missing_table(error, folders)}", file=sys.stderr)
        return EXIT_FAILED


def missing_table(error, folders) -> str:
    """The message for a table the lesson needs and the folders lack."""
    return (f"no {error.material} table ({error.material}.rtbw and {error.material}.rtbz) in "
            f"{os.pathsep.join(folders)}")


def play(drill, level) -> int:
    """The lesson on standard input and output: the board, then a move per line, each judged,
    until the drill ends or the input does."""
    from ...engine.trainer.drills import Goal, distance_words

    lesson = drill.lesson
    colour = "White" if drill.player_white else "Black"
    shown_level = level if isinstance(level, str) else f"{level} moves"
    say(f"Lesson {lesson.name}: {lesson.title} (level {shown_level}, seed {drill.seed}).")
    say(textwrap.fill(lesson.advice, TEXT_WIDTH))
    goal = "win" if lesson.goal is Goal.WIN else "hold the draw"
    left = drill.moves_left()
    distance = f": {distance_words(drill.board)} in {left} with best play" if left else ""
    say(f"You play {colour}; {goal}{distance}.")
    say(textwrap.fill(HELP_TEXT, TEXT_WIDTH))
    show(drill)
    interactive = sys.stdin.isatty()
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")      # bytes that are not text: a bad move
    while not drill.finished:
        if interactive:
            print("Your move: ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            say(f"Input ended: the drill stopped after {len(drill.verdicts)} of your moves.")
            return EXIT_OK
        text = line.strip()
        if not text:
            continue
        word = text.lower()
        if word in QUIT_WORDS:
            say(f"Stopped after {len(drill.verdicts)} of your moves.")
            return EXIT_OK
        if word == "moves":
            say("Legal moves: " + " ".join(drill.legal_moves_san()))
            continue
        if word == "board":
            show(drill)
            continue
        if word == "help":
            say(textwrap.fill(HELP_TEXT, TEXT_WIDTH))
            continue
        if word == "back":
            if drill.take_back():
                say("Taken back.")
                show(drill)
            else:
                say("No move to take back.")
            continue
        verdict = drill.play(text)
        say(verdict.text)
        if not verdict.accepted:
            continue
        if verdict.reply_san:
            say(f"{'Black' if drill.player_white else 'White'} plays {verdict.reply_san}.")
        if verdict.finished:
            say(verdict.result.text)
        else:
            show(drill)
    return EXIT_OK


def show(drill) -> None:
    """The board, the player's side below, and the fifty-move counter."""
    from ...engine.trainer.drills import FIFTY_MOVE_PLIES, board_text
    say(board_text(drill.board, white_below=drill.player_white))
    say(f"Fifty-move counter: {drill.halfmove_clock} of {FIFTY_MOVE_PLIES} half-moves "
        f"without capture or pawn move.")


def say(text: str) -> None:
    """A line of the lesson, flushed at once (a person, or a program, waits for it)."""
    print(text, flush=True)
