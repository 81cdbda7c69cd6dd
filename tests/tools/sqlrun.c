/*
 * sqlrun: the test suite's SQL driver.  It runs SQL with perfvtab linked in
 * (so the sanitizer build checks the extension and the reader together) and
 * prints rows the way `sqlite3 -batch -separator TAB` does.
 *
 *   sqlrun [-n NULLTEXT] [-H] [-f FILE] [SQL ...]
 *
 * -n sets the text printed for NULL (default empty), -H prints a header line
 * before each statement's first row, -f runs the statements of FILE.  Errors
 * go to stderr as "Error: <msg>" and make the exit status 1.  With
 * PV_SQLRUN_RCHAR set, the bytes the process read (rchar of /proc/self/io)
 * go to stderr at the end as "rchar N", for tests of how much of a file a
 * query reads.  writefile(path, data) writes
 * a value to a file and returns its length, as the sqlite3 shell's does
 * (tests of perf_pprof write its BLOB so).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

int sqlite3_perfvtab_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

static const char *null_text = "";
static int show_header = 0;

static int run(sqlite3 *db, const char *sql)
{
    const char *tail = sql;
    while (tail && *tail) {
        sqlite3_stmt *stmt = NULL;
        if (sqlite3_prepare_v2(db, tail, -1, &stmt, &tail) != SQLITE_OK) {
            fprintf(stderr, "Error: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        if (!stmt)
            continue;
        int columns = sqlite3_column_count(stmt);
        /* the header comes with the first row: a statement without rows
         * (a query's note that has nothing to say) prints nothing, as in
         * the sqlite3 shell */
        bool header_due = show_header && columns > 0;
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            for (int i = 0; header_due && i < columns; i++)
                printf("%s%s%s", i ? "\t" : "", sqlite3_column_name(stmt, i),
                       i == columns - 1 ? "\n" : "");
            header_due = false;
            for (int i = 0; i < columns; i++) {
                const unsigned char *text = sqlite3_column_text(stmt, i);
                printf("%s%s", i ? "\t" : "", text ? (const char *)text : null_text);
            }
            printf("\n");
        }
        if (rc != SQLITE_DONE) {
            fprintf(stderr, "Error: %s\n", sqlite3_errmsg(db));
            sqlite3_finalize(stmt);
            return 1;
        }
        sqlite3_finalize(stmt);
    }
    return 0;
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, fp)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
    }
    fclose(fp);
    if (text)
        text[len] = 0;
    return text;
}

static void report_rchar(void)
{
    FILE *io = fopen("/proc/self/io", "r");
    char line[128];
    while (io && fgets(line, sizeof line, io))
        if (strncmp(line, "rchar: ", 7) == 0)
            fprintf(stderr, "rchar %s", line + 7);
    if (io)
        fclose(io);
}

/* writefile(path, data): data's bytes into path; their count, or an error. */
static void writefile_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *path = (const char *)sqlite3_value_text(argv[0]);
    const void *data = sqlite3_value_blob(argv[1]);
    int len = sqlite3_value_bytes(argv[1]);
    FILE *out = path ? fopen(path, "wb") : NULL;
    if (!out) {
        sqlite3_result_error(ctx, "writefile: cannot open the file", -1);
        return;
    }
    size_t written = len > 0 ? fwrite(data, 1, (size_t)len, out) : 0;
    if (fclose(out) != 0 || written != (size_t)(len > 0 ? len : 0)) {
        sqlite3_result_error(ctx, "writefile: cannot write the file", -1);
        return;
    }
    sqlite3_result_int(ctx, len);
}

int main(int argc, char **argv)
{
    sqlite3_auto_extension((void (*)(void))sqlite3_perfvtab_init);
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        fprintf(stderr, "Error: cannot open a database\n");
        return 1;
    }
    sqlite3_create_function(db, "writefile", 2, SQLITE_UTF8, NULL, writefile_function, NULL, NULL);
    int status = 0;
    for (int i = 1; i < argc && status == 0; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            null_text = argv[++i];
        } else if (strcmp(argv[i], "-H") == 0) {
            show_header = 1;
        } else if (strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
            char *sql = read_file(argv[++i]);
            if (!sql) {
                fprintf(stderr, "Error: cannot read %s\n", argv[i]);
                status = 1;
            } else {
                status = run(db, sql);
                free(sql);
            }
        } else {
            status = run(db, argv[i]);
        }
    }
    sqlite3_close(db);
    if (getenv("PV_SQLRUN_RCHAR"))
        report_rchar();
    return status;
}
