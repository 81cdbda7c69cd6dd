/*
 * trace_format_check FORMAT_FILE...: runs pv_trace_format_is_safe over
 * tracefs format files (e.g. /sys/kernel/tracing/events/x/y/format),
 * prints each one judged unsafe, then "N formats, N unsafe".
 */
#include <stdio.h>
#include <stdlib.h>

#include "decode/trace_format_check.h"

int main(int argc, char **argv)
{
    static char text[1 << 20];
    int unsafe = 0, read = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (!f)
            continue;
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        read++;
        if (!pv_trace_format_is_safe(text)) {
            unsafe++;
            printf("unsafe: %s\n", argv[i]);
        }
    }
    printf("%d formats, %d unsafe\n", read, unsafe);
    return 0;
}
