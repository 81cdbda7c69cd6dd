/*
 * A plain main() for the fuzz targets: runs LLVMFuzzerTestOneInput once per
 * file named on the command line (a directory: every file in it, sorted),
 * so the seed corpus and the regression files are replayed by `make test`
 * with the ordinary compiler and sanitizers, without libFuzzer.
 *
 *   replay_reader FILE|DIR...     prints "replayed N inputs"
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayed;

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    /* libFuzzer hands over a buffer of exactly size bytes; so do we, so that
     * ASan sees a read one past the input. */
    uint8_t *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    replayed++;
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    struct dirent **entries;
    int n = scandir(path, &entries, NULL, alphasort);
    if (n < 0) {
        perror(path);
        return 1;
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (entries[i]->d_name[0] != '.') {
            char *child = malloc(strlen(path) + strlen(entries[i]->d_name) + 2);
            sprintf(child, "%s/%s", path, entries[i]->d_name);
            failed |= replay_path(child);
            free(child);
        }
        free(entries[i]);
    }
    free(entries);
    return failed;
}

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++)
        failed |= replay_path(argv[i]);
    printf("replayed %d inputs\n", replayed);
    return failed;
}
