/*
 * Scratch files for the unit tests: copies of fixtures and small text files
 * they change under the reader.
 */
#ifndef PV_TEST_FILES_H
#define PV_TEST_FILES_H

#include <stdbool.h>
#include <stdio.h>

/* Copies the file at from to to; false on any error. */
static inline bool copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in && out;
    char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/* Writes text as the whole of the file at path; false on any error. */
static inline bool write_text_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

#endif
