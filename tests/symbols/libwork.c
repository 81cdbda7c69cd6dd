/* The shared-library half of the symbols workload (see work.c). */
volatile double lib_sink;

__attribute__((noinline)) double lib_inner(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)i * 1.0001;
    return s;
}

__attribute__((noinline)) double lib_outer(int n)
{
    return lib_inner(n) + lib_inner(n / 3);
}
