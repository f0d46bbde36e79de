# C threads without the GIL.
#
# run_parallel(fn, arg, count) calls fn(arg, i, count) for every i in 0..count-1, index 0 on
# the calling thread and the others on threads of their own, and returns when all have
# returned.  Clearing a large transposition table uses it now (each thread zeroes its share);
# the search threads of a Threads option will start the same way.  A thread that cannot be
# created does not fail the job: its share runs on the caller.
#
# thread_start(&t, fn, arg) runs fn(arg) on a new thread (0 when none could be created) and
# thread_join(t) waits for it: the background warm-up of a new table uses them.  sleep_us
# waits a little while polling another thread's flag.
#
# What threads share: flags written by one thread and polled by another (load_int/store_int,
# volatile accesses: the stop flags of the search, the mate solver and the table warm-up) and a
# monotonic clock in milliseconds for deadlines (now_ms).

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
    """
    double now_ms "scacco_now_ms"() noexcept nogil
    int load_int "scacco_load_int"(int* p) noexcept nogil
    void store_int "scacco_store_int"(int* p, int v) noexcept nogil
    double load_double "scacco_load_double"(double* p) noexcept nogil

cdef extern from *:
    """
    #include <stdlib.h>
    #define SCACCO_MAX_THREADS 64

    typedef void (*scacco_thread_fn)(void* arg);
    typedef struct { scacco_thread_fn fn; void* arg; } scacco_thread_call;
    #if defined(_WIN32)
    #include <windows.h>
    #include <process.h>
    typedef HANDLE scacco_thread;
    static unsigned __stdcall scacco_thread_main(void* p) {
        scacco_thread_call call = *(scacco_thread_call*)p;
        free(p);
        call.fn(call.arg);
        return 0;
    }
    #else
    #include <pthread.h>
    typedef pthread_t scacco_thread;
    static void* scacco_thread_main(void* p) {
        scacco_thread_call call = *(scacco_thread_call*)p;
        free(p);
        call.fn(call.arg);
        return NULL;
    }
    #endif

    static int scacco_thread_start(scacco_thread* thread, scacco_thread_fn fn, void* arg) {
        scacco_thread_call* call = (scacco_thread_call*)malloc(sizeof(scacco_thread_call));
        if (call == NULL) return 0;
        call->fn = fn; call->arg = arg;
    #if defined(_WIN32)
        *thread = (HANDLE)_beginthreadex(NULL, 0, scacco_thread_main, call, 0, NULL);
        if (*thread != 0) return 1;
    #else
        if (pthread_create(thread, NULL, scacco_thread_main, call) == 0) return 1;
    #endif
        free(call);
        return 0;
    }

    static void scacco_thread_join(scacco_thread thread) {
    #if defined(_WIN32)
        WaitForSingleObject(thread, INFINITE);
        CloseHandle(thread);
    #else
        pthread_join(thread, NULL);
    #endif
    }

    static void scacco_sleep_us(int microseconds) {
    #if defined(_WIN32)
        Sleep((DWORD)((microseconds + 999) / 1000));
    #else
        struct timespec ts;
        ts.tv_sec = microseconds / 1000000;
        ts.tv_nsec = (long)(microseconds % 1000000) * 1000L;
        nanosleep(&ts, NULL);
    #endif
    }

    typedef void (*scacco_parallel_fn)(void* arg, int index, int count);
    typedef struct { scacco_parallel_fn fn; void* arg; int index; int count; } scacco_parallel_share;

    static void scacco_parallel_main(void* p) {
        scacco_parallel_share* s = (scacco_parallel_share*)p;
        s->fn(s->arg, s->index, s->count);
    }

    /* Returns how many threads took part (1 when no extra thread could be started). */
    static int scacco_run_parallel(scacco_parallel_fn fn, void* arg, int count) {
        scacco_parallel_share shares[SCACCO_MAX_THREADS];
        scacco_thread threads[SCACCO_MAX_THREADS];
        int started[SCACCO_MAX_THREADS];
        int i, ran = 1;
        if (count < 1) count = 1;
        if (count > SCACCO_MAX_THREADS) count = SCACCO_MAX_THREADS;
        for (i = 0; i < count; i++) {
            shares[i].fn = fn; shares[i].arg = arg; shares[i].index = i; shares[i].count = count;
        }
        for (i = 1; i < count; i++)
            started[i] = scacco_thread_start(&threads[i], scacco_parallel_main, &shares[i]);
        fn(arg, 0, count);
        for (i = 1; i < count; i++) {
            if (started[i]) {
                scacco_thread_join(threads[i]);
                ran++;
            } else {
                fn(arg, i, count);
            }
        }
        return ran;
    }
    """
    int MAX_THREADS "SCACCO_MAX_THREADS"
    ctypedef void (*parallel_fn "scacco_parallel_fn")(void* arg, int index, int count) noexcept nogil
    int run_parallel "scacco_run_parallel"(parallel_fn fn, void* arg, int count) noexcept nogil
    ctypedef struct thread_handle "scacco_thread":
        pass
    ctypedef void (*thread_fn "scacco_thread_fn")(void* arg) noexcept nogil
    int thread_start "scacco_thread_start"(thread_handle* thread, thread_fn fn, void* arg) noexcept nogil
    void thread_join "scacco_thread_join"(thread_handle thread) noexcept nogil
    void sleep_us "scacco_sleep_us"(int microseconds) noexcept nogil
