#include "symbols/kcore_dir.h"
#include "base/pv_alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* kallsyms of a large kernel is some MB; past this it is not a kallsyms */
#define MAX_KALLSYMS (512u << 20)

char *pv_kcore_kallsyms_path(const pv_file *f)
{
    const char *path = f->data_path;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strcmp(base, "data") != 0)
        return NULL;
    size_t dir_len = slash ? (size_t)(slash - path) : 0;
    static const char tail[] = "kcore_dir/kallsyms";
    char *out = pv_malloc(dir_len + 1 + sizeof tail);
    if (!out)
        return NULL;
    if (slash) {
        memcpy(out, path, dir_len);
        out[dir_len] = '/';
        memcpy(out + dir_len + 1, tail, sizeof tail);
    } else {
        memcpy(out, tail, sizeof tail);
    }
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(out);
        return NULL;
    }
    return out;
}

int pv_kcore_kallsyms(const pv_file *f, char **text, size_t *len, pv_error *err)
{
    *text = NULL;
    *len = 0;
    char *path = pv_kcore_kallsyms_path(f);
    if (!path)
        return 0;
    errno = 0;
    FILE *in = fopen(path, "rb");
    if (!in)
        pv_alloc_check_errno();
    if (!in) {
        pv_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = pv_malloc(cap + 1);
    int rc = 0;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, in);
        n += got;
        if (n < cap) {
            if (ferror(in))
                rc = pv_error_set(err, "%s: read error at offset 0x%zx", path, n);
            break;
        }
        if (cap >= MAX_KALLSYMS) {
            rc = pv_error_set(err, "%s: more than %u bytes at offset 0x%zx: not a kallsyms",
                              path, MAX_KALLSYMS, n);
            break;
        }
        cap *= 2;
        char *bigger = pv_realloc(buf, cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
        } else {
            buf = bigger;
        }
    }
    fclose(in);
    if (!buf)
        rc = pv_error_set(err, "%s: out of memory", path);
    free(path);
    if (rc) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
