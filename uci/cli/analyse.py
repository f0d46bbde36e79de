"""`scacco analyse`: judge every move of every game of a PGN file, locally or on Ray.

The arguments are checked, and the outputs planned (none may name the input or another
output, each must be writable), before any game is searched.  The games go through the
game-by-game driver (uci/cli/runner.py) to engine.review.analysis.analyse_pgn; each result goes to
every output (uci/cli/writers.py) as it arrives, in the file's order.  When the run ends the
file outputs are renamed over their targets; an interrupted run renames what it finished and
`--resume` goes on from there, giving the same files as a run that was never stopped.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, List

from ...engine.stopping import held, interruptible
from .common import (EXIT_FAILED, EXIT_OK, EXIT_USAGE, MAX_MOVETIME_MS,
                     MAX_NODES, MAX_SEARCH_DEPTH, Parser, warn)
from .files import (Journal, JournalError, OutputError, check_outputs, input_identity,
                    journal_path)
from .runner import Sink, count_games, report_stop, run_games
from .writers import (AnalysisWriter, AnnotatedPgn, GraphFiles, JsonReport, Summary, TextReport,
                      graph_path)

PROG = "scacco analyse"


def parser() -> Parser:
    from ...engine.review.analysis import DEFAULT_NODES, DEFAULT_REVIEW, REVIEW_DROP

    p = Parser(prog=PROG,
               description="Search every position of each game's main line and judge every "
                           "move as lichess does (Win%, accuracy, inaccuracies, mistakes, "
                           "blunders); a report per game on stdout, progress on stderr.")
    p.add_argument("pgn", metavar="GAMES.pgn", help="the games to analyse")
    limit = p.add_mutually_exclusive_group()
    p.bounded("--nodes", low=1, high=MAX_NODES, metavar="N", group=limit,
              help=f"nodes per position (default {DEFAULT_NODES}; results do not depend on "
                   f"the machine)")
    p.bounded("--depth", low=1, high=MAX_SEARCH_DEPTH, metavar="D", group=limit,
              help=f"depth per position instead (1..{MAX_SEARCH_DEPTH})")
    p.bounded("--movetime", low=1, high=MAX_MOVETIME_MS, metavar="MS", group=limit,
              help="milliseconds per position instead")
    p.add_argument("--hash", type=int, default=16, metavar="MB", help="hash per game (default 16)")
    p.bounded("--review", low=1, high=16, default=DEFAULT_REVIEW, metavar="F",
              help=f"search the positions around a move that loses %.2f winning chances or "
                   f"more again at F times the budget, and those still near the mistake or "
                   f"blunder line at F*F times (default {DEFAULT_REVIEW}; 1: no second look)"
                   % REVIEW_DROP)
    p.add_syzygy_path("give the positions these Syzygy tables hold their exact verdict, "
                      "and judge a move that spoils it as a lost win or draw")
    p.add_argument("--out", metavar="ANNOTATED.pgn",
                   help="write the games with evaluations, NAGs and best lines")
    p.add_argument("--json", metavar="REPORT.json", help="write every move's and game's figures as JSON")
    p.add_argument("--graph", metavar="EVAL.png",
                   help="draw Win%% per ply (needs the plot extra); EVAL-N.png per game for several")
    p.add_resume()
    p.add_jobs()
    p.add_ray("analyse the games")
    return p


class AnalysisSink(Sink):
    """Each game's outcome to every writer; the summary's light copies kept."""

    def __init__(self, writers: List[AnalysisWriter], summary: Summary, path: str, stderr) -> None:
        self.writers, self.summary, self.path, self.stderr = writers, summary, path, stderr

    def result(self, number: int, analysis) -> None:
        for writer in self.writers:
            writer.game(analysis)
        self.summary.analysed.append(_light(analysis))

    def failure(self, number: int, reason: str) -> None:
        self.stderr.write(f"{PROG}: {self.path}: {reason}\n")
        self.stderr.flush()
        self.summary.failed.append(number)
        for writer in self.writers:
            writer.failed(number, reason)

    def encode(self, analysis) -> Dict[str, Any]:
        return analysis.to_dict()

    def decode(self, data: Dict[str, Any]):
        from ...engine.review.analysis import GameAnalysis
        return GameAnalysis.from_dict(data)

    def positions(self, analysis) -> int:
        return analysis.positions


def _light(analysis):
    """The game's figures without its moves (what the summary needs), so memory stays small."""
    import dataclasses
    return dataclasses.replace(analysis, headers={}, moves=[])


def _matplotlib_missing() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return True
    return False


def main(argv, stdout=None, stderr=None) -> int:
    from ...engine.review.analysis import Budget, analyse_pgn

    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    p = parser()
    args = p.parse_args(argv)
    p.input_file(args.pgn)
    p.hash_mb(args.hash)
    p.check_ray(args.ray)
    jobs = p.jobs(args)
    tablebase = p.tablebase(args.syzygy_path)
    # the folders in full: the workers open the tables themselves
    syzygy_path = (None if tablebase is None else
                   os.pathsep.join(os.path.abspath(folder) for folder in tablebase.folders))
    files = [(flag, path) for flag, path in (("--out", args.out), ("--json", args.json))
             if path is not None]
    problem = check_outputs([args.pgn], files + ([("--graph", args.graph)] if args.graph else []))
    if problem:
        p.error(problem)
    if args.resume and not files:
        p.error("--resume continues the --out or --json file of an interrupted run: name it")
    budget = Budget(nodes=args.nodes, depth=args.depth, movetime=args.movetime,
                    hash_mb=args.hash, review=args.review)
    games, positions = count_games(args.pgn, PROG)
    if games == 0:
        p.error(f"{args.pgn}: no PGN game could be read; nothing written")
    graph = args.graph
    if graph is not None:
        problem = check_outputs([args.pgn], files + [
            ("--graph", graph_path(graph, number, games)) for number in range(1, games + 1)])
        if problem:
            p.error(problem)
        if _matplotlib_missing():
            from ...engine.review.graph import PLOT_EXTRA
            warn(PROG, f"--graph needs matplotlib: {PLOT_EXTRA}; the other outputs are written")
            graph = None

    journal = None
    if files:
        journal = Journal(journal_path(files[0][1]), {
            "command": "analyse", "input": input_identity(args.pgn),
            "settings": dict(budget.__dict__, **({"syzygy_path": syzygy_path}
                                                 if syzygy_path else {})),
            "outputs": [[flag, os.path.abspath(path)] for flag, path in files]
                       + [["--graph", os.path.abspath(args.graph) if args.graph else None]]})
        if args.resume:
            try:
                journal.load()
            except JournalError as error:
                p.error(str(error))
    writers: List[AnalysisWriter] = [TextReport(stdout)]
    try:
        if args.out:
            writers.append(AnnotatedPgn(args.out))
        if args.json:
            writers.append(JsonReport(args.json, budget))
    except OutputError as error:
        for writer in writers:
            writer.discard()
        p.error(str(error))
    if graph is not None:
        writers.append(GraphFiles(graph, games, lambda text: warn(PROG, text)))
    summary = Summary(games=games)

    def work_item(number, text):
        # analyse_pgn's arguments; the tables' folders only when there are tables
        if syzygy_path is None:
            return text, budget, number
        return text, budget, number, None, syzygy_path

    sink = AnalysisSink(writers, summary, args.pgn, stderr)
    try:
        with interruptible():
            end = run_games(args.pgn, analyse_pgn, work_item,
                            sink, journal=journal, resume=args.resume, jobs=jobs,
                            ray_address=args.ray, stderr=stderr, games=games,
                            positions=positions)
            with held(raise_after=False):
                if end.read == 0 and not end.stopped:
                    for writer in writers:
                        writer.discard()
                    if journal is not None:
                        journal.close(finished=True)
                    warn(PROG, f"{args.pgn}: no PGN game could be read; nothing written")
                    return EXIT_USAGE
                summary.complete = not end.stopped
                for writer in writers:
                    writer.finish(summary)
                for writer in writers:
                    writer.commit()
    except (OutputError, OSError) as error:
        if journal is not None:
            journal.close(finished=False)
        warn(PROG, f"{error}; the earlier files of those names are unchanged"
                   + ("; --resume goes on from the games recorded" if journal else ""))
        return EXIT_FAILED
    finally:
        for writer in writers:        # what was not committed (a fault) leaves no trace
            writer.discard()
    if journal is not None:
        journal.close(finished=not end.stopped)
    if end.stopped:
        kept = ("the finished games are in " + ", ".join(path for _, path in files)
                if files else "their reports are above")
        return report_stop(PROG, end, kept, stderr)
    return EXIT_FAILED if end.failed else EXIT_OK
