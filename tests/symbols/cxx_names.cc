/*
 * Workload of tests/t_alloc.sh's C++ query: its samples fall in functions
 * with mangled names (a namespace, a class's method, a template, a lambda,
 * libstdc++'s std::sort), which perf shows demangled, so that the query's
 * allocations include the demangler's.  Runs for argv[1] milliseconds.
 * Built with frame pointers: g++ -O1 -fno-omit-frame-pointer.
 */
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

namespace pv {

template <typename T> __attribute__((noinline)) T sum(const std::vector<T> &v)
{
    T s = 0;
    for (T x : v)
        s += x;
    return s;
}

struct Shuffler {
    unsigned state = 1;
    __attribute__((noinline)) void fill(std::vector<unsigned> &v)
    {
        for (unsigned &x : v)
            x = state = state * 1103515245u + 12345u;
    }
};

__attribute__((noinline)) unsigned round_of_work(Shuffler &s, std::vector<unsigned> &v)
{
    s.fill(v);
    std::sort(v.begin(), v.end(), [](unsigned a, unsigned b) { return a > b; });
    return sum(v) + (unsigned)sum(std::vector<double>(v.begin(), v.begin() + 100));
}

} // namespace pv

int main(int argc, char **argv)
{
    long ms = argc > 1 ? std::atol(argv[1]) : 200;
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    pv::Shuffler s;
    std::vector<unsigned> v(20000);
    volatile unsigned sink = 0;
    while (std::chrono::steady_clock::now() < until)
        sink = sink + pv::round_of_work(s, v);
    return 0;
}
