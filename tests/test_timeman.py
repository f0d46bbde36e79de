"""Time allocation: properties of the limits, and clocks simulated move by move."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scacco.engine.timeman import MOVETIME_MARGIN_MS, TimeLimits, clock_limits, movetime_limit

times = st.integers(min_value=-1000, max_value=10 ** 8)
increments = st.integers(min_value=0, max_value=10 ** 5)
moves_to_go = st.one_of(st.none(), st.integers(min_value=1, max_value=200))
overheads = st.integers(min_value=0, max_value=5000)


@settings(max_examples=400, deadline=None)
@given(times, increments, moves_to_go, overheads, st.booleans())
def test_limits_are_ordered_and_stay_inside_the_clock(time_left, inc, mtg, overhead, single):
    soft, hard = clock_limits(time_left, inc, mtg, overhead, single_reply=single)
    assert 1 <= soft <= hard
    if time_left - overhead > 1:
        assert hard < time_left - overhead
    else:
        assert hard == 1


@settings(max_examples=300, deadline=None)
@given(times, st.integers(min_value=0, max_value=10 ** 6), increments,
       st.integers(min_value=0, max_value=10 ** 4), moves_to_go, overheads)
def test_more_time_or_increment_never_means_less_thinking(time_left, more_time, inc, more_inc,
                                                          mtg, overhead):
    soft, hard = clock_limits(time_left, inc, mtg, overhead)
    soft_t, hard_t = clock_limits(time_left + more_time, inc, mtg, overhead)
    soft_i, hard_i = clock_limits(time_left, inc + more_inc, mtg, overhead)
    assert soft_t >= soft and hard_t >= hard
    assert soft_i >= soft and hard_i >= hard


@settings(max_examples=300, deadline=None)
@given(times, increments, moves_to_go, overheads, st.integers(min_value=0, max_value=1000))
def test_more_overhead_never_means_more_thinking(time_left, inc, mtg, overhead, more):
    soft, hard = clock_limits(time_left, inc, mtg, overhead)
    soft_o, hard_o = clock_limits(time_left, inc, mtg, overhead + more)
    assert soft_o <= soft and hard_o <= hard


@settings(max_examples=200, deadline=None)
@given(times, increments, moves_to_go, overheads)
def test_a_single_reply_is_answered_quickly(time_left, inc, mtg, overhead):
    soft, hard = clock_limits(time_left, inc, mtg, overhead)
    soft_1, hard_1 = clock_limits(time_left, inc, mtg, overhead, single_reply=True)
    assert soft_1 <= soft and hard_1 <= hard


def test_fewer_moves_to_the_control_means_more_time_per_move():
    per_move = [clock_limits(60000, 0, mtg)[0] for mtg in (40, 20, 10, 5, 2, 1)]
    assert per_move == sorted(per_move)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10 ** 7))
def test_movetime_uses_the_time_and_stops_before_it(movetime):
    limits = TimeLimits.movetime(movetime)
    assert limits.fixed and limits.soft_ms is None          # no soft limit to cut it short
    assert limits.hard_ms == movetime_limit(movetime) >= 1
    assert limits.search_args() == {"movetime": limits.hard_ms}
    if movetime >= 1:
        assert limits.hard_ms <= movetime
        assert limits.hard_ms >= movetime - MOVETIME_MARGIN_MS


@settings(max_examples=200, deadline=None)
@given(times, increments, moves_to_go, overheads, st.integers(min_value=0, max_value=10 ** 6))
def test_clock_limits_stay_clock_limits_after_time_has_passed(time_left, inc, mtg, overhead, spent):
    limits = TimeLimits.clock(time_left, inc, mtg, overhead)
    assert not limits.fixed and (limits.soft_ms, limits.hard_ms) == clock_limits(time_left, inc, mtg, overhead)
    later = limits.after(spent)
    assert not later.fixed
    assert 1 <= later.soft_ms <= later.hard_ms
    assert later.hard_ms == max(1, limits.hard_ms - spent)
    assert later.search_args() == {"soft_time": later.soft_ms, "hard_time": later.hard_ms}


def simulate(base_ms, inc_ms, moves_per_control=None, moves=300, latency_ms=5, overhead=30,
             share_of_hard=1.0):
    """Play `moves` moves that each take share_of_hard of the hard limit (1.0: each runs into
    it, the worst our engine can do) and then lose `latency_ms` on the way to the GUI (below
    the Move Overhead).  Returns the lowest clock reading after a move."""
    clock = base_ms
    lowest = clock
    for move in range(moves):
        mtg = None
        if moves_per_control:
            mtg = moves_per_control - move % moves_per_control
        _, hard = clock_limits(clock, inc_ms, mtg, overhead, move_number=move + 1)
        clock -= hard * share_of_hard + latency_ms
        lowest = min(lowest, clock)
        assert clock > 0, f"flagged at move {move + 1}"
        clock += inc_ms
        if moves_per_control and mtg == 1:
            clock += base_ms
    return lowest


@pytest.mark.parametrize("base, inc, per_control, moves", [
    (1000, 10, None, 300),          # 1+0.01
    (10000, 100, None, 300),        # 10+0.1
    (2000, 20, None, 300),          # 2+0.02, the sunfish match
    (60000, 0, 40, 200),            # 40 moves in 60 s, five controls
    (20000, 0, 40, 200),            # 40/20, five controls
    (1000, 0, 10, 200),             # 10 moves a second
])
def test_worst_case_play_never_loses_on_time(base, inc, per_control, moves):
    assert simulate(base, inc, per_control, moves) > 0


# Sudden death without increment: nothing refills the clock, so no allocation survives an
# unbounded number of moves that each run into the hard limit.  What is asked: 90 such moves
# at 5+0 and 120 at 60+0 (the reserve of Move Overheads pays for the way out of the last ones),
# and 140 and 200 moves that each take half their hard limit (a move-by-move stretch of the
# soft limit well beyond the searcher's average).
@pytest.mark.parametrize("base, moves, share", [
    (5000, 90, 1.0), (60000, 120, 1.0), (5000, 140, 0.5), (60000, 200, 0.5),
])
def test_sudden_death_keeps_time_for_a_long_game(base, moves, share):
    assert simulate(base, 0, None, moves, share_of_hard=share) > 0


def test_the_clock_is_spread_over_fewer_moves_as_the_game_goes_on():
    # The same clock later in the game buys more thinking per move, down to the floor.
    per_move = [clock_limits(60000, 600, None, 30, move_number=m)[0] for m in (1, 20, 40, 60, 80, 200)]
    assert per_move == sorted(per_move)
    assert per_move[-1] == per_move[-2]     # the floor: the game can always go on
    # Without an increment the floor is higher (more moves kept in reserve).
    assert clock_limits(60000, 0, None, 30, move_number=200)[0] < \
        clock_limits(60000, 1, None, 30, move_number=200)[0]


def test_time_limits_of_a_search_read_the_side_to_moves_clock():
    from scacco.engine.limits import SearchLimits
    from scacco.engine.timeman import time_limits
    clock = SearchLimits(wtime=60000, btime=1000, winc=500, movestogo=20)
    assert time_limits(clock, True, 40, move_number=9) == TimeLimits.clock(60000, 500, 20, 40,
                                                                          move_number=9)
    assert time_limits(clock, False, single_reply=True) == TimeLimits.clock(1000, 0, 20, 30, True)
    # 500 ms less the margin: min(MOVETIME_MARGIN_MS, 500 // 5) = 10 ms
    assert time_limits(SearchLimits(movetime=500, wtime=9), True) == TimeLimits(None, 490, True)
    assert time_limits(SearchLimits(movetime=500, infinite=True), True) is None
    assert time_limits(SearchLimits(btime=5000), True) is None        # white has no clock
    assert time_limits(SearchLimits(depth=3), False) is None
