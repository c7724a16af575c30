// clock pins the wall clock at 26 Jul 2024 00:00 UTC for a program run
// with LD_PRELOAD, so that a template calling strftime_now renders the date
// it falls back to when strftime_now is not defined.
#define _GNU_SOURCE
#include <time.h>
#include <dlfcn.h>

int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (id == CLOCK_REALTIME) {
        ts->tv_sec = 1721952000; /* 2024-07-26T00:00:00Z */
        ts->tv_nsec = 0;
        return 0;
    }
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real(id, ts);
}
