"""The analysis's second- and third-look constants (engine/review/analysis.py) set from a
bench's command line, for trying other values without editing the module:

    python bench/analysis_quality.py ... --look REVIEW_DROP=0.1 --look REVIEW_SHARE=1.5

Each bench applies them in every process that analyses (its workers are spawned, so they are
passed along with the work and applied there)."""
from __future__ import annotations

import argparse
from typing import Dict, Iterable

KNOBS = ("REVIEW_DROP", "REVIEW_CEILING", "REVIEW_BORDER", "REVIEW_SHARE")


def parse(text: str):
    """NAME=VALUE of one --look, checked."""
    name, _, value = text.partition("=")
    if name not in KNOBS:
        raise argparse.ArgumentTypeError(f"{name}: not one of {', '.join(KNOBS)}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: the value is not a number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{text}: the value is negative")
    return name, number


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--look", type=parse, action="append", default=[], metavar="NAME=VALUE",
                        help=f"set one of {', '.join(KNOBS)} (engine/review/analysis.py)")


def apply(settings: Iterable) -> Dict[str, float]:
    """Set the constants in this process; returns them as set."""
    from scacco.engine.review import analysis
    applied = {}
    for name, value in settings:
        setattr(analysis, name, value)
        applied[name] = value
    return applied
