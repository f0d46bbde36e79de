"""Run a UCI engine unchanged and record, for every move it plays, the position it was given
and the last score it reported: so the games of any match (../shared/tools/match.py, a GUI)
can feed the benches that need the engine's own in-game scores (bench/wdl_fit.py --import).

    python ../shared/tools/match.py \\
        --engine "python bench/uci_tee.py /tmp/tee -- python -m scacco" \\
        --engine "python bench/uci_tee.py /tmp/tee -- /work/venv-old/bin/python -m scacco" \\
        --pgn /tmp/match.pgn ...

Lines pass through both ways as they are, one at a time and flushed at once.  Each engine
process writes its own file in the folder, LOGDIR/<host pid>-<tee pid>.jsonl, a line per
`bestmove`: {"position": the last `position` command's arguments, "score": "cp N" or
"mate N" of the last `info ... score` before it (null if none), "bestmove": the move}.
A line is written whole and flushed, so a match stopped at any point leaves only whole lines.
The tee ends with its engine, with the engine's exit code, whether or not its own input is
still open.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path


def score_of(line: str):
    """'cp N' or 'mate N' of an info line's score (bounds included), or None."""
    words = line.split()
    if "score" not in words:
        return None
    at = words.index("score")
    if at + 2 < len(words) and words[at + 1] in ("cp", "mate"):
        return f"{words[at + 1]} {words[at + 2]}"
    return None


def main(argv) -> int:
    if "--" not in argv or argv.index("--") != 1 or len(argv) < 3:
        print("usage: uci_tee.py LOGDIR -- ENGINE [ARGS...]", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / f"{os.getppid()}-{os.getpid()}.jsonl"
    engine = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, bufsize=1)
    state = {"position": None, "score": None}
    lock = threading.Lock()

    def downstream() -> None:
        with log_path.open("a") as log:
            for line in engine.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                text = line.strip()
                with lock:
                    if text.startswith("info"):
                        score = score_of(text)
                        if score is not None:
                            state["score"] = score
                    elif text.startswith("bestmove"):
                        words = text.split()
                        log.write(json.dumps({"position": state["position"],
                                              "score": state["score"],
                                              "bestmove": words[1] if len(words) > 1 else None})
                                  + "\n")
                        log.flush()
                        state["score"] = None
        # The engine closed its output (it quit or died): end here, since the main thread may
        # sit in a read of our stdin that the host never closes (python-chess waits for this
        # process to exit after `quit`, and would hold the match's slot until its timeout).
        code = engine.wait()
        os._exit(code if code >= 0 else 128 - code)   # killed by a signal: as a shell says

    reader = threading.Thread(target=downstream, daemon=True)
    reader.start()
    try:
        for line in sys.stdin:
            text = line.strip()
            with lock:
                if text.startswith("position "):
                    state["position"] = text[len("position "):]
                elif text.startswith("go"):
                    state["score"] = None
            engine.stdin.write(line)
            engine.stdin.flush()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        try:
            engine.stdin.close()
        except BrokenPipeError:
            pass
        code = engine.wait()
        reader.join(timeout=5)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
