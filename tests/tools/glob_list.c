/*
 * glob_list PATTERN: the paths glob(3) (no flags) gives for PATTERN, one a
 * line, or nothing: the reference tests/t_patterns.sh holds the extension's
 * own expansion (ext/path_glob.c) to.
 */
#include <glob.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    glob_t g;
    if (glob(argv[1], 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        puts(g.gl_pathv[i]);
    globfree(&g);
    return 0;
}
