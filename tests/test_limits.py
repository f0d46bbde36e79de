"""SearchLimits: the limits of one search as one checked value, from `go` or from keywords."""
import dataclasses

import pytest

from scacco.engine.limits import SearchLimits
from scacco.uci.protocol import GoCommand, parse_go


def test_nothing_given_means_no_limits():
    limits = SearchLimits()
    assert limits.keywords() == {}
    assert not limits.has_clock and not limits.infinite and not limits.ponder
    assert limits.clock(True) == (None, 0) and limits.clock(False) == (None, 0)


def test_from_go_takes_every_limit_of_the_command():
    go = parse_go("searchmoves e2e4 g1f3 ponder wtime 1000 btime 2000 winc 10 binc 20 "
                  "movestogo 7 depth 5 nodes 12345 mate 3 movetime 500 infinite".split())
    assert SearchLimits.from_go(go) == SearchLimits(
        depth=5, nodes=12345, mate=3, movetime=500, wtime=1000, btime=2000, winc=10, binc=20,
        movestogo=7, searchmoves=("e2e4", "g1f3"), infinite=True, ponder=True)
    assert SearchLimits.from_go(parse_go([])) == SearchLimits()


def test_every_go_parameter_but_perft_is_a_search_limit():
    """A `go` parameter is a field of GoCommand; one the limits did not have would be dropped
    on the way to the search without a word."""
    names = {f.name for f in dataclasses.fields(SearchLimits)}
    assert {f.name for f in dataclasses.fields(GoCommand)} - names == {"perft"}


def test_keywords_give_the_same_limits_back():
    limits = SearchLimits(depth=7, hard_time=250.0, soft_time=100, searchmoves=["a2a3"])
    assert limits.keywords() == {"depth": 7, "soft_time": 100, "hard_time": 250.0,
                                 "searchmoves": ("a2a3",)}
    assert SearchLimits(**limits.keywords()) == limits


def test_the_clock_of_each_side():
    limits = SearchLimits(wtime=1000, btime=2000, winc=10, binc=-5)
    assert limits.has_clock
    assert limits.clock(True) == (1000, 10)
    assert limits.clock(False) == (2000, 0)         # a negative increment counts as none
    assert SearchLimits(movestogo=5).has_clock


def test_without_time_keeps_what_the_search_applies_itself():
    limits = SearchLimits(depth=9, nodes=100, mate=2, movetime=30, wtime=5, btime=6, winc=1,
                          binc=2, movestogo=3, searchmoves=["e2e4"], infinite=True, ponder=True)
    assert limits.without_time() == SearchLimits(depth=9, nodes=100, mate=2,
                                                 searchmoves=("e2e4",), infinite=True)
    assert SearchLimits(soft_time=5, hard_time=9).without_time() == SearchLimits()


def test_replace_checks_the_new_value():
    limits = SearchLimits(depth=4)
    assert limits.replace(depth=1, nodes=9) == SearchLimits(depth=1, nodes=9)
    with pytest.raises(ValueError, match="depth"):
        limits.replace(depth=0)


def test_limits_are_a_value():
    limits = SearchLimits(depth=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.depth = 4
    assert hash(limits) == hash(SearchLimits(depth=3))
    assert SearchLimits(searchmoves=[]) == SearchLimits()     # no moves given: all of them


@pytest.mark.parametrize("keywords, reason", [
    ({"depth": 0}, "depth must be an integer >= 1"),
    ({"depth": 3.0}, "depth must be an integer"),
    ({"depth": True}, "depth must be an integer"),
    ({"depth": "3"}, "depth must be an integer"),
    ({"nodes": 0}, "nodes must be an integer >= 1"),
    ({"mate": 0}, "mate must be a positive number of moves"),
    ({"mate": 1.5}, "mate must be a positive number of moves"),
    ({"movetime": -1}, "movetime must be a number of milliseconds"),
    ({"hard_time": float("nan")}, "hard_time must be a number of milliseconds"),
    ({"soft_time": "10"}, "soft_time must be a number of milliseconds"),
    ({"movetime": 100, "hard_time": 200}, "movetime is a fixed time"),
    ({"movetime": 100, "soft_time": 50}, "movetime is a fixed time"),
    ({"wtime": 1.5}, "wtime must be an integer"),
    ({"movestogo": -1}, "movestogo must be an integer >= 0"),
    ({"searchmoves": "e2e4"}, "searchmoves must be a sequence of moves"),
    ({"searchmoves": ["e2e4", 7]}, "searchmoves must be a sequence of moves"),
])
def test_bad_limits_say_what_is_wrong(keywords, reason):
    with pytest.raises(ValueError, match=reason):
        SearchLimits(**keywords)


def test_of_takes_a_value_or_keywords_not_both():
    limits = SearchLimits(nodes=10)
    assert SearchLimits.of(limits) is limits
    assert SearchLimits.of(None, nodes=10) == limits
    assert SearchLimits.of() == SearchLimits()
    with pytest.raises(ValueError, match="not both"):
        SearchLimits.of(limits, depth=3)
    with pytest.raises(TypeError):
        SearchLimits.of(None, dpeth=3)
    with pytest.raises(TypeError):
        SearchLimits.of({"nodes": 10})
