"""`scacco puzzle`: the puzzle of the day."""
from __future__ import annotations

import re

from .common import EXIT_OK, Parser

# A calendar date as the command takes it: exactly YYYY-MM-DD (datetime.date.fromisoformat
# also takes week dates such as 2026-W01-1 and compact forms, which would be a surprise here).
DATE_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def puzzle(argv) -> int:
    import datetime

    from ...engine.trainer.daily import DailyError, daily_puzzle, format_daily

    p = Parser(prog="scacco puzzle",
               description="The puzzle of the day from the collection shipped with Scacco (the "
                           "same for everyone on a date), with its themes and hints.")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="the day (default: today)")
    p.add_argument("--solution", action="store_true", help="print the solution too")
    args = p.parse_args(argv)
    if args.date is None:
        date = datetime.date.today()
    else:
        try:
            if not DATE_PATTERN.fullmatch(args.date):
                raise ValueError
            date = datetime.date.fromisoformat(args.date)
        except ValueError:
            p.error(f"bad date {args.date!r}: give a real day as YYYY-MM-DD (e.g. 2026-12-01)")
    try:
        chosen = daily_puzzle(date)
    except DailyError as error:
        p.error(str(error))
    print(format_daily(chosen, date, solution=args.solution), flush=True)
    return EXIT_OK
