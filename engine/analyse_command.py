"""`scacco analyse`: analyse every game of a PGN file, locally or on a Ray cluster.

The file is read twice, streaming: once to count the positions (for the progress line's time
left), once to send the games, one PGN text each, to engine.analysis.analyse_pgn through the
batch runner.  Results come back in the file's order and go to the outputs as they arrive:
the text report on stdout, the annotated PGN, the JSON (written game by game) and the graphs.
A bad game is reported on stderr with its number, and the others go on.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Iterator, List, Optional, Tuple

from .analysis import (AnalysisError, Budget, GameAnalysis, analyse_pgn, annotated_game,
                       game_report, summary_report)
from .batch import Failure, run_batch
from .graph import PLOT_EXTRA, plot_game
from .pgn import MainLineBuilder, read_games, write_game
from .progress import Progress

__all__ = ["analyse_file", "graph_path"]


def graph_path(base: str, number: int, games: int) -> str:
    """EVAL.png for a single game; EVAL-3.png for game 3 of several."""
    if games <= 1:
        return base
    path = Path(base)
    return str(path.with_name(f"{path.stem}-{number}{path.suffix or '.png'}"))


def _count(path: str) -> Tuple[int, int]:
    games = positions = 0
    for moves in read_games(path, MainLineBuilder()):
        games += 1
        positions += len(moves) + 1
    return games, positions


def _items(path: str, budget: Budget, errors: IO[str], bad: List[int]) -> Iterator[tuple]:
    for number, game in enumerate(read_games(path), 1):
        if game.errors:
            for error in game.errors:
                errors.write(f"scacco analyse: {path}: skipping game {number}: {error}\n")
            bad.append(number)
            continue
        yield str(game), budget, number


def analyse_file(path: str, budget: Budget, *, out: Optional[str] = None,
                 json_out: Optional[str] = None, graph: Optional[str] = None, jobs: int = 1,
                 ray_address: Optional[str] = None, stdout: Optional[IO[str]] = None,
                 stderr: Optional[IO[str]] = None) -> int:
    """Analyses every game of the PGN file at path into the outputs (stdout and stderr by
    default); returns the exit status (0, or 1 when some game could not be analysed)."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    games, positions = _count(path)
    progress = Progress(positions, stderr)
    bad: List[int] = []
    analysed: List[GameAnalysis] = []
    plot_missing = False
    pgn_handle = open(out, "w", encoding="utf-8") if out else None
    json_handle = open(json_out, "w", encoding="utf-8") if json_out else None
    try:
        if json_handle:
            json_handle.write('{"budget": %s, "games": [\n' % json.dumps(budget.__dict__))
        items = _items(path, budget, stderr, bad)
        first = True
        for outcome in run_batch(analyse_pgn, items, jobs=jobs, ray_address=ray_address):
            if isinstance(outcome, Failure):
                error = outcome.error
                stderr.write(f"scacco analyse: {path}: {error}\n")
                if isinstance(error, AnalysisError):
                    continue
                raise error
            analysis: GameAnalysis = outcome
            progress.advance(analysis.positions)
            stdout.write(game_report(analysis) + "\n")
            stdout.flush()
            if pgn_handle:
                write_game(annotated_game(analysis), pgn_handle)
            if json_handle:
                json_handle.write(("" if first else ",\n") + json.dumps(analysis.to_dict()))
                first = False
            if graph and not plot_missing:
                try:
                    plot_game(analysis, graph_path(graph, analysis.number, games))
                except ImportError:
                    plot_missing = True
                    stderr.write(f"scacco analyse: --graph needs matplotlib: {PLOT_EXTRA}; "
                                 "the other outputs are written\n")
                except OSError as error:
                    stderr.write(f"scacco analyse: game {analysis.number}: cannot write the "
                                 f"graph: {error}\n")
            analysed.append(_light(analysis))
        summary = summary_report(analysed, failed=len(bad))
        if games > 1:
            stdout.write(summary)
        if json_handle:
            totals = {"games": len(analysed), "failed": bad,
                      "white": [a.white.__dict__ for a in analysed],
                      "black": [a.black.__dict__ for a in analysed]}
            json_handle.write('\n], "summary": %s}\n' % json.dumps(totals))
    finally:
        if pgn_handle:
            pgn_handle.close()
        if json_handle:
            json_handle.close()
    return 1 if bad or len(analysed) < games - len(bad) else 0


def _light(analysis: GameAnalysis) -> GameAnalysis:
    """The game's figures without its moves (what the summary needs), so memory stays small."""
    return GameAnalysis(number=analysis.number, headers={}, fen=analysis.fen,
                        chess960=analysis.chess960, result=analysis.result, start=analysis.start,
                        moves=[], white=analysis.white, black=analysis.black,
                        budget=analysis.budget, nodes=analysis.nodes, plies=analysis.plies,
                        reviewed=analysis.reviewed)
