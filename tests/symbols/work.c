/*
 * Workload of tests/t_symbols.sh: recorded with `perf record -g` and
 * compared with perf report/script.  It spends time in
 *   - its own functions, one recursive (a symbol counted once per sample),
 *   - a shared library (libpvwork.so),
 *   - a second thread (threads share their process's maps),
 *   - a forked child (a copy of the parent's maps),
 *   - a child that execs this program again with "child" (maps replaced),
 *   - a function with a C++ mangled name (perf shows it demangled),
 *   - an inlined function (recorded with --call-graph dwarf, perf names it).
 * Built with frame pointers: cc -O1 -fno-omit-frame-pointer.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

double lib_outer(int n);
static volatile double sink;

#ifdef OTHER_BUILD
/* t_symbols.sh builds this variant to stand for a rebuilt binary whose
 * build-id no longer matches the recording's */
double other_build(void) { return 42; }
#endif

__attribute__((noinline)) double spin(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)(i % 7) * 0.5;
    return s;
}

__attribute__((noinline)) double recurse(int depth, int n)
{
    if (depth == 0)
        return spin(n);
    return recurse(depth - 1, n) + 1;
}

/* inlined into its only caller: DWARF-unwound stacks show it "(inlined)" */
static inline double scaled(int i)
{
    return (double)(i % 5) * 0.25;
}

/* named as g++ names pv::Work::spin(int) */
double cxx_spin(int n) __asm__("_ZN2pv4Work4spinEi");
__attribute__((noinline)) double cxx_spin(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += scaled(i);
    return s;
}

__attribute__((noinline)) void *thread_work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++)
        sink += cxx_spin(100000);
    return NULL;
}

__attribute__((noinline)) void forked_work(void)
{
    for (int i = 0; i < 150; i++)
        sink += recurse(3, 100000);
}

__attribute__((noinline)) void exec_work(void)
{
    for (int i = 0; i < 150; i++)
        sink += lib_outer(100000);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        exec_work();
        return 0;
    }
    /* "single": the main loop only (t_symbols.sh's --call-graph dwarf run:
     * perf's DWARF stacks of the exec'd child stop early, and its report
     * splits a function of the forked ones in two rows) */
    bool single = argc > 1 && strcmp(argv[1], "single") == 0;
    pthread_t t;
    if (!single)
        pthread_create(&t, NULL, thread_work, NULL);
    pid_t forked = single ? -1 : fork();
    if (forked == 0) {
        forked_work();
        _exit(0);
    }
    pid_t execed = single ? -1 : fork();
    if (execed == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(1);
    }
    for (int i = 0; i < 200; i++) {
        sink += (i & 1) ? recurse(4, 100000) : cxx_spin(100000);
        sink += lib_outer(100000);
    }
    if (!single) {
        pthread_join(t, NULL);
        waitpid(forked, NULL, 0);
    }
    if (execed > 0)
        waitpid(execed, NULL, 0);
    return 0;
}
