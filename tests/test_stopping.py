"""engine/stopping.py: the one way SIGINT, SIGTERM and SIGHUP stop a long run (datagen, analyse,
puzzles), checked in this process with signal.raise_signal (delivered before it returns)."""
import signal

import pytest

from scacco.engine.stopping import Interrupted, held, interruptible, interrupted_status


@pytest.fixture
def default_handlers():
    """The three signals at their defaults for the test, whatever the runner left them at."""
    saved = {number: signal.getsignal(number)
             for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_each_signal_raises_interrupted_naming_it(default_handlers, signum):
    with pytest.raises(Interrupted) as caught:
        with interruptible():
            signal.raise_signal(signum)
            pytest.fail("the signal did not stop the block")
    assert caught.value.signum == signum
    assert caught.value.name == signal.Signals(signum).name
    assert isinstance(caught.value, KeyboardInterrupt)
    # the defaults are back once the block is left
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_signal_inside_held_waits_for_its_end(default_handlers):
    steps = []
    with pytest.raises(Interrupted) as caught:
        with interruptible():
            with held():
                signal.raise_signal(signal.SIGTERM)
                steps.append("the write finished")
            steps.append("after the write")
    assert steps == ["the write finished"]
    assert caught.value.signum == signal.SIGTERM


def test_held_blocks_nest(default_handlers):
    steps = []
    with pytest.raises(Interrupted):
        with interruptible():
            with held():
                with held():
                    signal.raise_signal(signal.SIGINT)
                steps.append("inner left")          # the outer block still holds it
            steps.append("outer left")
    assert steps == ["inner left"]


def test_the_last_write_can_forget_a_signal(default_handlers):
    with interruptible():
        with held(raise_after=False):
            signal.raise_signal(signal.SIGTERM)
        went_on = True
    assert went_on


def test_signals_after_the_first_are_ignored_while_stopping(default_handlers):
    cleaned = False
    with interruptible():
        try:
            signal.raise_signal(signal.SIGINT)
        except Interrupted:
            signal.raise_signal(signal.SIGTERM)      # a second kill while the run stops
            signal.raise_signal(signal.SIGINT)
            cleaned = True
    assert cleaned


def test_a_signal_ignored_by_the_caller_stays_ignored(default_handlers):
    """As under nohup: SIGHUP ignored before the run must not stop it."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with interruptible():
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        signal.raise_signal(signal.SIGHUP)
        went_on = True
    assert went_on
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN


def test_a_callers_own_handler_is_left_alone(default_handlers):
    seen = []
    signal.signal(signal.SIGTERM, lambda number, frame: seen.append(number))
    with interruptible():
        signal.raise_signal(signal.SIGTERM)
    assert seen == [signal.SIGTERM]


def test_blocks_nest_and_the_outermost_restores(default_handlers):
    with pytest.raises(Interrupted):
        with interruptible():
            with interruptible():
                pass
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL   # still armed
            signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_exit_status_is_the_shells_128_plus_the_signal():
    # POSIX shells report a process killed by signal N as 128 + N: SIGINT 2 -> 130, SIGTERM 15 -> 143
    assert interrupted_status(signal.SIGINT) == 130
    assert interrupted_status(signal.SIGTERM) == 143
    assert interrupted_status(signal.SIGHUP) == 129
