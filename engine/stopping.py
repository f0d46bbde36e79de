"""How a long run is stopped by a signal: Ctrl-C (SIGINT), a `kill` or a session that ends
(SIGTERM), a terminal that closes (SIGHUP).

Inside `interruptible()` the first of those signals raises `Interrupted` in the main thread;
the ones after it are ignored until the block is left, so that the run can stop its workers
and close its files in peace.  Inside `held()` a signal waits: an output is being written and
must never be left half done; it is raised when the last `held()` block is left.

A signal whose handler is not the default one is left as it is: ignored (as under `nohup`,
where SIGHUP must not stop the run) or the caller's own.  Off the main thread, where Python
cannot set handlers, nothing changes.  The blocks nest: only the outermost one sets and
restores the handlers.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from typing import Dict, Iterator, Optional

__all__ = ["Interrupted", "interruptible", "held", "interrupted_status", "SIGNAL_NAMES"]

SIGNAL_NAMES = ("SIGINT", "SIGTERM", "SIGHUP")


class Interrupted(KeyboardInterrupt):
    """A signal asked the run to stop.  A KeyboardInterrupt, so that no `except Exception` of
    the work takes it for a failure, and a caller that handles Ctrl-C handles it too."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class _State:
    depth = 0                        # interruptible() blocks entered
    installed: Dict[int, object] = {}   # signal -> the handler it had before
    held = 0                         # held() blocks entered
    pending: Optional[int] = None    # a signal that came inside held()
    stopping = False                 # Interrupted has been raised


def _default(number: int) -> object:
    return signal.default_int_handler if number == signal.SIGINT else signal.SIG_DFL


def _on_signal(signum, frame) -> None:
    if _State.stopping:
        return
    if _State.held:
        if _State.pending is None:
            _State.pending = signum
        return
    _State.stopping = True
    raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """The signals of SIGNAL_NAMES raise Interrupted in the main thread while inside (see the
    module docstring)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outermost = _State.depth == 0
    if outermost:
        _State.installed = {}
        _State.held, _State.pending, _State.stopping = 0, None, False
        for name in SIGNAL_NAMES:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is _default(number):
                _State.installed[number] = signal.signal(number, _on_signal)
    _State.depth += 1
    try:
        yield
    finally:
        _State.depth -= 1
        if outermost:
            for number, handler in _State.installed.items():
                signal.signal(number, handler)
            _State.installed = {}
            _State.held, _State.pending, _State.stopping = 0, None, False


@contextlib.contextmanager
def held(raise_after: bool = True) -> Iterator[None]:
    """No Interrupted inside; a signal that came meanwhile is raised on leaving the last held()
    block (or, with raise_after False, forgotten: the work inside was the run's last)."""
    _State.held += 1
    try:
        yield
    finally:
        _State.held -= 1
    if not _State.held and _State.pending is not None:
        signum, _State.pending = _State.pending, None
        if raise_after and not _State.stopping:
            _State.stopping = True
            raise Interrupted(signum)


def interrupted_status(signum: int) -> int:
    """The exit status of a run stopped by a signal, as shells give it (128 + the signal)."""
    return 128 + signum
