"""The static evaluation as a printable table, for the UCI `eval` command and debugging."""
from __future__ import annotations

from ..ext._core import CoreBoard, evaluate_board, evaluation_terms
from .score import material, normalised_cp, wdl

__all__ = ["evaluate", "eval_table", "network_line"]


def evaluate(board: CoreBoard) -> int:
    """Static evaluation in centipawns from the side to move's point of view."""
    return evaluate_board(board)


def _pawns(cp: int) -> str:
    return f"{cp / 100:+6.2f}"


def _chances(cp: int, on_board: int) -> str:
    """The side to move's win-draw-loss chances of a normalised score, as `wdl W D L`."""
    return "wdl {} {} {} (side to move, per mille)".format(*wdl(cp, on_board))


def eval_table(board: CoreBoard) -> str:
    """The evaluation split into terms, one row each, in pawns (middlegame and endgame).

    Each colour's columns are from that colour's point of view; Total is white minus black.
    The last lines give the phase, the endgame scale factor and the final score, in Scacco's
    raw units and on the normalised scale that `info score cp` and the analysis use.
    """
    info = evaluation_terms(board)
    rule = " " + "-" * 16 + ("+" + "-" * 15) * 3
    lines = [
        "            Term |     White     |     Black     |     Total",
        "                 |    MG     EG  |    MG     EG  |    MG     EG",
        rule,
    ]
    for name, term in info["terms"].items():
        cells = []
        for side in ("white", "black", "total"):
            mg, eg = term[side]
            cells.append(f" {_pawns(mg)} {_pawns(eg)} ")
        lines.append((f" {name:>15s} |" + "|".join(cells)).rstrip())
    lines.append(rule)
    lines.append(f" Phase {info['phase']}/24 (24 = all pieces on), endgame scale {info['scale']}/64, "
                 f"tempo {_pawns(info['tempo']).strip()}")
    if info["insufficient_material"]:
        lines.append(" Insufficient material: the evaluation is a draw")
    lines.append(f" Final evaluation: {_pawns(info['white_score']).strip()} (white side), "
                 f"{_pawns(info['score']).strip()} (side to move)")
    on_board = material(board)
    white = normalised_cp(info['white_score'], None, on_board)
    lines.append(f" Normalised (as score cp with Use NNUE off): {_pawns(white).strip()} (white "
                 f"side), {_chances(white if board.turn else -white, on_board)}")
    return "\n".join(lines)


def network_line(board: CoreBoard, network, name: str, in_use: bool) -> str:
    """One line for the UCI `eval` command: the network's evaluation of the board."""
    score, output = board.network_evaluation(network)
    white = score if board.turn else -score
    on_board = material(board)
    normalised = normalised_cp(white, network, on_board)
    return (f" NNUE evaluation: {_pawns(white).strip()} (white side), {_pawns(score).strip()} "
            f"(side to move), normalised {_pawns(normalised).strip()} (white side), "
            f"{_chances(normalised if board.turn else -normalised, on_board)}, "
            f"raw output {_pawns(output).strip()}; network {name}, "
            f"{network.hidden} hidden units; "
            f"{'in use' if in_use else 'not in use (Use NNUE is off: the search evaluates classically)'}")
