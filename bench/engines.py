"""What the benches that play games through python-chess's engine module share."""
from __future__ import annotations


def close_all(engines) -> None:
    """Quit every engine of a finished game; one that does not quit cleanly is killed."""
    for engine in engines:
        try:
            engine.quit()
        except Exception:
            engine.close()
