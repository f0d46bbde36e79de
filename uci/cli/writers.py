"""The outputs of `scacco analyse`, behind one small interface.

An AnalysisWriter is told of each analysed game in the file's order (`game`), of each game
that could not be analysed (`failed`), and of the run's end (`finish`, with the Summary,
whether the run completed or was interrupted).  `commit()` makes its files final and
`discard()` drops them (the earlier files of those names stay as they were).  A new output
format is one class here and one line in uci/cli/analyse.py.

The file outputs write through OutputFile (uci/cli/files.py): nothing replaces an earlier file
until commit().
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import IO, Any, Dict, List, Optional

from .files import OutputFile

__all__ = ["Summary", "AnalysisWriter", "TextReport", "AnnotatedPgn", "JsonReport",
           "GraphFiles", "graph_path"]


@dataclass
class Summary:
    """A run's totals: the games analysed (light: without their moves) and the failed ones."""

    games: int                                   # games in the file
    analysed: List[Any] = field(default_factory=list)
    failed: List[int] = field(default_factory=list)
    complete: bool = True


class AnalysisWriter:
    """One output of `scacco analyse` (see the module docstring)."""

    def game(self, analysis) -> None:
        pass

    def failed(self, number: int, reason: str) -> None:
        pass

    def finish(self, summary: Summary) -> None:
        pass

    def commit(self) -> None:
        pass

    def discard(self) -> None:
        pass


class TextReport(AnalysisWriter):
    """The report on standard output: each game as it comes, then the totals.  A closed
    pipe (`| head`) ends this output only."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream: Optional[IO[str]] = stream

    def _write(self, text: str) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except BrokenPipeError:
            self.stream = None
            # the interpreter's own flush at exit must not fail on the closed pipe either
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 1)
            except OSError:
                pass
            os.close(devnull)

    def game(self, analysis) -> None:
        from ...engine.review.analysis import game_report
        self._write(game_report(analysis) + "\n")

    def finish(self, summary: Summary) -> None:
        from ...engine.review.analysis import summary_report
        if summary.games > 1:
            self._write(summary_report(summary.analysed, failed=len(summary.failed)))


class AnnotatedPgn(AnalysisWriter):
    """--out: the games with evaluations, judgements and best lines, one after another."""

    def __init__(self, path: str) -> None:
        self.file = OutputFile("--out", path)

    def game(self, analysis) -> None:
        from ...engine.review.analysis import annotated_game
        from ...engine.pgn import write_game
        write_game(annotated_game(analysis), self.file)
        self.file.flush()

    def commit(self) -> None:
        self.file.commit()

    def discard(self) -> None:
        self.file.discard()


class JsonReport(AnalysisWriter):
    """--json: {"budget", "games": [every game's figures], "summary", "complete"}.  The
    games are written as they come (the document is not held in memory); each piece is
    made by the json module."""

    def __init__(self, path: str, budget) -> None:
        self.file = OutputFile("--json", path)
        self.file.write('{"budget": %s, "games": [\n' % json.dumps(budget.__dict__))
        self.first = True

    def game(self, analysis) -> None:
        self.file.write(("" if self.first else ",\n") + json.dumps(analysis.to_dict()))
        self.file.flush()
        self.first = False

    def finish(self, summary: Summary) -> None:
        totals: Dict[str, Any] = {
            "games": len(summary.analysed), "failed": summary.failed,
            "white": [a.white.__dict__ for a in summary.analysed],
            "black": [a.black.__dict__ for a in summary.analysed]}
        self.file.write('\n], "summary": %s, "complete": %s}\n'
                        % (json.dumps(totals), json.dumps(summary.complete)))

    def commit(self) -> None:
        self.file.commit()

    def discard(self) -> None:
        self.file.discard()


def graph_path(base: str, number: int, games: int) -> str:
    """EVAL.png for a single game; EVAL-3.png for game 3 of several."""
    if games <= 1:
        return base
    stem, suffix = os.path.splitext(base)
    return f"{stem}-{number}{suffix or '.png'}"


class GraphFiles(AnalysisWriter):
    """--graph: each game's Win% graph, drawn to a temporary file and renamed at once (a
    picture is complete when drawn).  Without matplotlib the caller says so before the run
    and makes none of these."""

    def __init__(self, base: str, games: int, warn) -> None:
        self.base, self.games, self.warn = base, games, warn

    def game(self, analysis) -> None:
        from ...engine.review.graph import plot_game
        path = graph_path(self.base, analysis.number, self.games)
        folder, name = os.path.split(os.path.abspath(path))
        temporary = os.path.join(folder, f".{name}.part{os.path.splitext(name)[1] or '.png'}")
        try:
            plot_game(analysis, temporary)
            os.replace(temporary, path)
        except OSError as error:
            try:
                os.remove(temporary)
            except OSError:
                pass
            self.warn(f"game {analysis.number}: cannot write the graph {path}: "
                      f"{error.strerror or error}")
