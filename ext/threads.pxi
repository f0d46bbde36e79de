# C threads without the GIL.
#
# run_parallel(fn, arg, count) calls fn(arg, i, count) for every i in 0..count-1, index 0 on
# the calling thread and the others on threads of their own, and returns when all have
# returned.  Clearing a large transposition table uses it (each thread zeroes its share).  A
# thread that cannot be created does not fail the job: its share runs on the caller.
#
# thread_start(&t, fn, arg) runs fn(arg) on a new thread (0 when none could be created) and
# thread_join(t) waits for it: the background warm-up of a new table and the helper threads of
# a parallel search use them.  Every thread gets a stack of SCACCO_THREAD_STACK bytes.
# sleep_us waits a little while polling another thread's flag.
#
# What threads share: flags written by one thread and polled by another (load_int/store_int,
# volatile accesses: the stop flags of the search, the mate solver and the table warm-up) and a
# monotonic clock in milliseconds for deadlines (now_ms).

# (now_ms, load_int, store_int and load_double are defined in stop.pxi.)

cdef extern from *:
    """
    #include <stdlib.h>
    #define SCACCO_MAX_THREADS 64
    /* The stack of every thread started here: a search thread recurses up to MAX_PLY plies
       with a move list in each frame (a few hundred KB), more than some systems give a new
       thread by default (512 KB on macOS).  Reserved, not committed: pages are used as needed. */
    #define SCACCO_THREAD_STACK (8u * 1024u * 1024u)

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
        *thread = (HANDLE)_beginthreadex(NULL, SCACCO_THREAD_STACK, scacco_thread_main, call,
                                         STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
        if (*thread != 0) return 1;
    #else
        {
            pthread_attr_t attr;
            int ok;
            if (pthread_attr_init(&attr) != 0) { free(call); return 0; }
            pthread_attr_setstacksize(&attr, SCACCO_THREAD_STACK);
            ok = pthread_create(thread, &attr, scacco_thread_main, call) == 0;
            pthread_attr_destroy(&attr);
            if (ok) return 1;
        }
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
