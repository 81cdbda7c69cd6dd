/*
 * A table's arguments: the path CREATE VIRTUAL TABLE names, the columns
 * its declaration lists, and the path xFilter is given (the hidden path
 * column's equality, or the table's default).
 */
#include <string.h>

#include "vtab_tab.h"

/* 'a.data' or "a.data" or a.data -> a.data */
char *pv_vtab_unquote(const char *arg)
{
    size_t n = strlen(arg);
    if (n >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[n - 1] == arg[0]) {
        char q = arg[0];
        char *out = sqlite3_malloc64(n);
        if (!out)
            return NULL;
        size_t k = 0;
        for (size_t i = 1; i + 1 < n; i++) {
            out[k++] = arg[i];
            if (arg[i] == q && arg[i + 1] == q)
                i++;
        }
        out[k] = 0;
        return out;
    }
    return sqlite3_mprintf("%s", arg);
}

int pv_vtab_column_index(const char *columns, const char *name)
{
    size_t n = strlen(name);
    int index = 0;
    const char *p = columns;
    for (;;) {
        while (*p == ' ')
            p++;
        if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == ',' || p[n] == 0))
            return index;
        p = strchr(p, ',');
        if (!p)
            return -1;
        p++;
        index++;
    }
}

int pv_vtab_count_columns(const char *columns)
{
    int n = 1;
    for (const char *p = columns; *p; p++)
        n += *p == ',';
    return n;
}

const char *pv_vtab_path_text(const PvTab *tab, const PvPlan *plan)
{
    if (plan->path)
        return (const char *)sqlite3_value_text(plan->path);
    return tab->default_path;
}

/* A text argument's bytes are taken as they are: sqlite3_value_text
 * copies a bound text that has no NUL after it, once per outer row of a
 * join, only to compare it with the path of the row before. */
PvPathArg pv_vtab_path_arg(const PvTab *tab, const PvPlan *plan)
{
    PvPathArg p;
    if (plan->path && sqlite3_value_type(plan->path) == SQLITE_TEXT) {
        const char *bytes = sqlite3_value_blob(plan->path);
        p.len = (size_t)sqlite3_value_bytes(plan->path);
        p.bytes = bytes ? bytes : "";
        return p;
    }
    p.bytes = pv_vtab_path_text(tab, plan);
    p.len = p.bytes ? strlen(p.bytes) : 0;
    return p;
}
