"""The puzzle subcommands of `scacco`: hint, puzzles (the finder) and puzzle (of the day).

Each is `NAME_command(argv) -> exit status`, listed in uci/__main__.py's COMMANDS.  They only
parse and check the arguments; the work is in engine/ (hints, puzzles_command, daily).
Imports are lazy, as in uci/__main__.py: loading this module must not slow the UCI start.
"""
import os


def hint_command(argv):
    import argparse

    from ..engine.board import Board
    from ..engine.hints import HINT_NODES, game_hint
    from ..engine.levels import MAX_ELO, MIN_ELO

    parser = argparse.ArgumentParser(
        prog="scacco hint",
        description="A good move for the side to move (first line, SAN, for an arrow) and one "
                    "sentence on why: the threat it makes or meets. A forced mate is always the hint.")
    parser.add_argument("--fen", required=True, help="the position")
    parser.add_argument("--level", type=int, metavar="ELO",
                        help=f"the move a player of this rating can find ({MIN_ELO}..{MAX_ELO}: that level's search budget)")
    parser.add_argument("--nodes", type=int, default=HINT_NODES, metavar="N",
                        help=f"search budget without --level (default {HINT_NODES}: well under a second)")
    args = parser.parse_args(argv)
    if args.level is not None and not MIN_ELO <= args.level <= MAX_ELO:
        parser.error(f"--level must be in {MIN_ELO}..{MAX_ELO}")
    if args.nodes < 1:
        parser.error("--nodes must be at least 1")
    try:
        board = Board(args.fen)
    except ValueError as error:
        parser.error(f"bad FEN: {error}")
    if not board.has_legal_moves():
        parser.error("no hint: the game is over (" + ("checkmate" if board.is_check() else "stalemate") + ")")
    hint = game_hint(board, elo=args.level, nodes=args.nodes)
    print(hint.san)
    print(hint.why, flush=True)
    return 0


def puzzles_command(argv):
    import argparse

    from ..engine.batch import default_jobs
    from ..engine.puzzle_finder import FinderBudget
    from ..engine.puzzles_command import find_in_file

    defaults = FinderBudget()
    parser = argparse.ArgumentParser(
        prog="scacco puzzles",
        description="Find puzzles in games: positions where exactly one move wins or mates and "
                    "the line stays forcing. CSV in the lichess puzzle database's columns "
                    "(PuzzleId,FEN,Moves,Rating,Themes,GameUrl); progress on stderr.")
    parser.add_argument("pgn", metavar="GAMES.pgn", help="the games")
    parser.add_argument("--out", required=True, metavar="PUZZLES.csv", help="the CSV to write")
    parser.add_argument("--nodes", type=int, default=defaults.scan_nodes, metavar="N",
                        help=f"nodes per game position (default {defaults.scan_nodes}); a puzzle's "
                             f"moves get {defaults.pair_nodes // defaults.scan_nodes} times as many")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: every core)")
    parser.add_argument("--ray", metavar="ADDRESS", help="send the games to the Ray cluster at ADDRESS (needs the ray extra)")
    args = parser.parse_args(argv)
    for name in ("nodes", "jobs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name} must be at least 1")
    if not os.path.isfile(args.pgn):
        parser.error(f"no such file: {args.pgn}")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        parser.error(f"no such directory for --out: {out_dir}")
    if args.ray is not None:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--ray needs Ray: pip install 'scacco[ray]'")
    factor = defaults.pair_nodes // defaults.scan_nodes
    budget = FinderBudget(scan_nodes=args.nodes, pair_nodes=args.nodes * factor)
    return find_in_file(args.pgn, args.out, budget, jobs=args.jobs or default_jobs(),
                        ray_address=args.ray)


def puzzle_command(argv):
    import argparse
    import datetime

    from ..engine.daily import DailyError, daily_puzzle, format_daily

    parser = argparse.ArgumentParser(
        prog="scacco puzzle",
        description="The puzzle of the day from the collection shipped with Scacco (the same "
                    "for everyone on a date), with its themes and hints.")
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="the day (default: today)")
    parser.add_argument("--solution", action="store_true", help="print the solution too")
    args = parser.parse_args(argv)
    try:
        if args.date is None:
            date = datetime.date.today()
        elif len(args.date) != 10:
            raise ValueError
        else:
            date = datetime.date.fromisoformat(args.date)
    except ValueError:
        parser.error(f"bad date {args.date!r}: give a real day as YYYY-MM-DD (e.g. 2026-12-01)")
    try:
        puzzle = daily_puzzle(date)
    except DailyError as error:
        parser.error(str(error))
    print(format_daily(puzzle, date, solution=args.solution), flush=True)
    return 0
