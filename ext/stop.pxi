# The clock and the stop state behind the stop token (StopToken, stop_api.pxi): one token per
# search, created by whoever starts the search before the worker runs, and seen by everything
# that searches (the iteration driver, the C search, perft, the mate solver, the playing levels,
# every thread of a parallel search).  Nothing ever clears a token: a new search gets a new one,
# so a `stop` can never be lost.  The C side polls the flag and the hard deadline by node count.

cdef extern from *:
    """
    #if defined(_WIN32)
    #include <windows.h>
    static double scacco_now_ms(void) {
        LARGE_INTEGER f, c; QueryPerformanceFrequency(&f); QueryPerformanceCounter(&c);
        return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
    }
    #else
    #include <time.h>
    static double scacco_now_ms(void) {
        struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000.0 + ts.tv_nsec / 1.0e6;
    }
    #endif
    static inline int scacco_load_int(int* p) { return *(volatile int*)p; }
    static inline void scacco_store_int(int* p, int v) { *(volatile int*)p = v; }
    static inline double scacco_load_double(double* p) { return *(volatile double*)p; }
    static inline void scacco_store_double(double* p, double v) { *(volatile double*)p = v; }
    #include <stdint.h>
    static inline uint64_t scacco_load_u64(uint64_t* p) { return *(volatile uint64_t*)p; }
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int scacco_fetch_add_int(int* p, int v) {
        return (int)_InterlockedExchangeAdd((volatile long*)p, (long)v);
    }
    #else
    static inline int scacco_fetch_add_int(int* p, int v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    #endif
    """
    double now_ms "scacco_now_ms"() noexcept nogil
    int load_int "scacco_load_int"(int* p) noexcept nogil
    void store_int "scacco_store_int"(int* p, int v) noexcept nogil
    double load_double "scacco_load_double"(double* p) noexcept nogil
    void store_double "scacco_store_double"(double* p, double v) noexcept nogil
    uint64_t load_u64 "scacco_load_u64"(uint64_t* p) noexcept nogil
    int fetch_add_int "scacco_fetch_add_int"(int* p, int v) noexcept nogil

# Python's monotonic clock in ms: the soft limit is read on it by the Python driver.
cdef double python_clock_ms() except? -1:
    import time
    return time.monotonic() * 1000.0

# What the C code polls: written by any thread, read with the volatile helpers above.
ctypedef struct StopState:
    int stop                    # 1 once stop() was called
    double hard_deadline_ms     # absolute (now_ms clock); 0 = none

# True when the search should end now: stopped, or past the hard deadline (which then also
# sets the flag, so later polls are one load).
cdef inline bint stop_due(StopState* s) noexcept nogil:
    cdef double deadline
    if load_int(&s.stop):
        return True
    deadline = load_double(&s.hard_deadline_ms)
    if deadline > 0 and now_ms() >= deadline:
        store_int(&s.stop, 1)
        return True
    return False
