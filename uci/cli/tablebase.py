"""`scacco tb FEN [--path DIRS]`: what the Syzygy tables say about a position and each of its
moves, in the style of the online tablebase sites (the best moves first, grouped by result)."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from .common import EXIT_FAILED, EXIT_OK, SYZYGY_VARIABLE, Parser, shared_folder

__all__ = ["main", "default_path"]

# The environment variable naming the tables' folders when --path is not given.
GROUPS = ((2, "Winning"), (1, "Winning, but drawn by the fifty-move rule (cursed)"), (0, "Drawing"),
          (-1, "Losing, but saved by the fifty-move rule (blessed)"), (-2, "Losing"))


def default_path() -> str:
    """$SCACCO_SYZYGY, else the shared folder's data/syzygy."""
    return os.environ.get(SYZYGY_VARIABLE) or str(shared_folder() / "data" / "syzygy")


def _dtz_text(dtz: Optional[int]) -> str:
    return "-" if dtz is None else str(dtz)


def report(board, tablebase) -> Optional[List[str]]:
    """The lines of the report, or None when the position is not in the tables."""
    from ...engine.tablebase import WDL_NAMES
    wdl = tablebase.probe_wdl(board)
    dtz = tablebase.probe_dtz(board)
    if wdl is None:
        return None
    side = "White" if board.turn else "Black"
    lines = [board.fen(), ""]
    if board.is_checkmate():
        return lines + [f"{side} is checkmated."]
    if board.is_stalemate():
        return lines + [f"{side} is stalemated: a draw."]
    ranking = tablebase.rank_moves(board)
    lines.append(f"{side} to move: {WDL_NAMES[wdl]} (WDL {wdl}), DTZ {_dtz_text(dtz)}")
    lines.append("DTZ: plies to the next capture or pawn move with best play (+ winning, "
                 "- losing).")
    lines.append(f"Halfmove clock: {board.halfmove_clock} of 100")
    if ranking is None:
        lines.append("")
        lines.append("(a position after one of the moves is not in the tables)")
        return lines
    width = max(len(r.san) for r in ranking)
    for value, title in GROUPS:
        group = [r for r in ranking if r.wdl == value]
        if not group:
            continue
        lines.append("")
        lines.append(f"{title}:")
        for r in group:
            notes = []
            if r.checkmate:
                notes.append("checkmate")
            elif r.stalemate:
                notes.append("stalemate")
            elif r.zeroing:
                notes.append("zeroing")
            after = "" if r.checkmate or r.stalemate else f"DTZ {r.after_dtz} after"
            lines.append(f"  {r.san.ljust(width)}  {r.move:6} {after:16} {', '.join(notes)}".rstrip())
    return lines


def main(argv) -> int:
    p = Parser(prog="scacco tb",
               description="Probe the Syzygy tablebases: the result (WDL) and distance to "
                           "zeroing (DTZ) of a position, then every legal move with its "
                           "result, the best first.")
    p.add_argument("fen", nargs="+", metavar="FEN",
                   help="the position (quoted, or as its six fields)")
    p.add_argument("--path", metavar="DIRS",
                   help=f"folders of .rtbw/.rtbz files separated by {os.pathsep!r} (default: "
                        f"${SYZYGY_VARIABLE}, else the shared folder's data/syzygy)")
    args = p.parse_args(argv)
    board = p.board(" ".join(args.fen))
    tablebase = p.tablebase(args.path if args.path is not None else default_path(), "--path")
    if board.castling_fen() != "-":
        print("scacco tb: the tables hold no position with castling rights", file=sys.stderr)
        return EXIT_FAILED
    lines = report(board, tablebase)
    if lines is None:
        pieces = sum(c.isalpha() for c in board.fen().split()[0])
        why = (f"{pieces} pieces; the tables found hold at most {tablebase.max_pieces}"
               if pieces > tablebase.max_pieces else "its table is missing")
        print(f"scacco tb: the position is not in the tables ({why})", file=sys.stderr)
        return EXIT_FAILED
    print("\n".join(lines), flush=True)
    return EXIT_OK

