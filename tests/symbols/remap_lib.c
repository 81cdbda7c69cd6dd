/*
 * The library of tests/symbols/remap.c, built twice with names of one
 * length (-DSPIN=remap_alpha, -DSPIN=remap_omega): the same code at the
 * same offsets under different names.  The function touches no global
 * data, so it runs from a plain mmap of the file, without the loader.
 */
__attribute__((noinline)) void SPIN(unsigned long n)
{
    volatile unsigned long sum = 0;
    for (unsigned long i = 0; i < n; i++)
        sum += i;
}
