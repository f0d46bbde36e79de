# The Python-facing stop token: StopToken wraps stop.pxi's StopState, which the C side polls,
# with the soft limit the Python driver reads between iterations.

cdef class StopToken:
    """The stop flag and time limits of one search.  Every method is thread-safe.

    The hard deadline is polled by the C search; the soft limit (no new iteration after it)
    is read by the Python driver between iterations, on Python's clock (time.monotonic, in
    ms: origin_ms, when given, is a reading of it).  Limits are in milliseconds from the
    moment they are set; a ponder search starts with none and gets them at `ponderhit`.
    """
    cdef StopState state
    cdef object _soft            # (start_ms, soft_ms) or None; replaced whole, never mutated

    def __cinit__(self):
        self.state.stop = 0
        self.state.hard_deadline_ms = 0
        self._soft = None

    def stop(self):
        """End the search (and every search that shares this token) as soon as possible."""
        store_int(&self.state.stop, 1)

    @property
    def stopped(self):
        """True once stop() was called or the hard deadline passed."""
        return bool(stop_due(&self.state))

    def set_limits(self, soft_ms=None, hard_ms=None, origin_ms=None):
        """Replace both limits, counted from now (None: no such limit)."""
        cdef double now = now_ms()
        origin = python_clock_ms() if origin_ms is None else origin_ms
        self._soft = (origin, float(soft_ms)) if soft_ms is not None else None
        store_double(&self.state.hard_deadline_ms, now + max(0.0, float(hard_ms)) if hard_ms is not None else 0)

    def tighten(self, soft_ms=None, hard_ms=None, origin_ms=None):
        """Limits counted from now that only ever shorten the ones already set."""
        cdef double now = now_ms()
        cdef double deadline, current
        if soft_ms is not None:
            soft = self._soft
            origin = python_clock_ms() if origin_ms is None else origin_ms
            if soft is None or origin + soft_ms < soft[0] + soft[1]:
                self._soft = (origin, float(soft_ms))
        if hard_ms is not None:
            deadline = now + max(0.0, float(hard_ms))
            current = load_double(&self.state.hard_deadline_ms)
            if current == 0 or deadline < current:
                store_double(&self.state.hard_deadline_ms, deadline)

    @property
    def soft_limit(self):
        """(start_ms on Python's clock, soft_ms) of the soft limit, or None."""
        return self._soft

    @property
    def has_hard_limit(self):
        return load_double(&self.state.hard_deadline_ms) > 0

    def remaining_hard_ms(self):
        """Milliseconds to the hard deadline (None without one; may be negative)."""
        cdef double deadline = load_double(&self.state.hard_deadline_ms)
        return None if deadline == 0 else deadline - now_ms()
