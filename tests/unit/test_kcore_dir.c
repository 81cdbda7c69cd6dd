/*
 * Unit tests of src/symbols/kcore_dir.c: a directory shaped as `perf record --kcore`
 * writes it (data + kcore_dir/kallsyms; no machine here has /proc/kcore to
 * record a real one) opens, by the directory or by its data file, and its
 * kallsyms is found and read; without kcore_dir, or for a file not named
 * data, there is none.  Uses tests/fixtures/fp.data as the data file.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream/file_open.h"
#include "symbols/kcore_dir.h"
#include "format/perf_file.h"
#include "test_files.h"
#include "unit_check.h"


static const char kallsyms[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000010 T do_one_initcall\n"
    "ffffffffc0000000 t helper\t[some_module]\n";

int main(void)
{
    const char *root = getenv("PV_ROOT");
    char fixture[4096], dir[] = "/tmp/pv_kcore_XXXXXX", path[4200];
    snprintf(fixture, sizeof fixture, "%s/tests/fixtures/fp.data", root ? root : ".");
    if (!mkdtemp(dir)) {
        printf("not ok - mkdtemp failed\n");
        return 0;
    }
    snprintf(path, sizeof path, "%s/data", dir);
    check(copy_file(fixture, path), "the data file is in place", "cannot copy %s", fixture);

    pv_file *f = NULL;
    pv_error err;
    /* before kcore_dir exists */
    if (pv_file_open(dir, &f, &err) == 0) {
        char *p = pv_kcore_kallsyms_path(f);
        check(p == NULL, "no kcore_dir: no kallsyms", "got %s", p ? p : "");
        free(p);
        pv_file_close(f);
    } else {
        check(0, "the directory opens", "%s", err.msg);
    }

    snprintf(path, sizeof path, "%s/kcore_dir", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/kcore_dir/kallsyms", dir);
    FILE *out = fopen(path, "w");
    if (out) {
        fputs(kallsyms, out);
        fclose(out);
    }
    const char *opens[2] = {dir, NULL};
    char data_path[4200];
    snprintf(data_path, sizeof data_path, "%s/data", dir);
    opens[1] = data_path;
    for (int i = 0; i < 2; i++) {
        char what[256];
        snprintf(what, sizeof what, "a --kcore directory opened by %s", i ? "its data file" : "the directory");
        if (pv_file_open(opens[i], &f, &err) != 0) {
            check(0, what, "%s", err.msg);
            continue;
        }
        check(f->nr_attrs > 0, what, "no attrs");
        char *p = pv_kcore_kallsyms_path(f);
        check(p && strcmp(p, path) == 0, "its kcore_dir/kallsyms path is found", "got %s, want %s",
              p ? p : "(null)", path);
        free(p);
        char *text = NULL;
        size_t len = 0;
        int rc = pv_kcore_kallsyms(f, &text, &len, &err);
        check(rc == 0 && text && len == strlen(kallsyms) && strcmp(text, kallsyms) == 0,
              "its kallsyms bytes are read", "rc %d, len %zu: %s", rc, len, rc ? err.msg : "");
        free(text);
        pv_file_close(f);
    }

    /* a file not named data has no kcore_dir, even with one beside it */
    snprintf(path, sizeof path, "%s/other.data", dir);
    copy_file(fixture, path);
    if (pv_file_open(path, &f, &err) == 0) {
        char *p = pv_kcore_kallsyms_path(f);
        check(p == NULL, "a file not named data: no kallsyms", "got %s", p ? p : "");
        free(p);
        pv_file_close(f);
    }
    /* a kallsyms that cannot be read is an error naming it */
    snprintf(path, sizeof path, "%s/kcore_dir/kallsyms", dir);
    if (getuid() != 0 && chmod(path, 0) == 0 && pv_file_open(dir, &f, &err) == 0) {
        char *text = NULL;
        size_t len;
        int rc = pv_kcore_kallsyms(f, &text, &len, &err);
        check(rc == -1 && strstr(err.msg, "kallsyms"), "an unreadable kallsyms is an error",
              "rc %d", rc);
        free(text);
        pv_file_close(f);
    }

    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    if (system(path) != 0)
        printf("# could not remove %s\n", dir);
    return failures ? 1 : 0;
}
