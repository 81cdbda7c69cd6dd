/*
 * Loads the extension (argv[1]) as a host with an older SQLite would: its
 * entry point is called with an api table whose sqlite3_libversion_number
 * says argv[2] (e.g. 3037002) and that has no routines past those the
 * refusal needs, so any other call through it crashes.  Prints the entry
 * point's return code and message.
 */
#include <dlfcn.h>
/* the api table's type, with the routines called directly, not through it */
#define SQLITE_CORE 1
#include <sqlite3ext.h>
#include <stdio.h>
#include <stdlib.h>

static int host_version;

static int old_libversion_number(void)
{
    return host_version;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: old_host EXTENSION.so VERSION_NUMBER\n");
        return 2;
    }
    host_version = atoi(argv[2]);
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "old_host: %s\n", dlerror());
        return 2;
    }
    typedef int (*entry_point)(sqlite3 *, char **, const sqlite3_api_routines *);
    entry_point init = (entry_point)dlsym(so, "sqlite3_perfvtab_init");
    if (!init) {
        fprintf(stderr, "old_host: no sqlite3_perfvtab_init\n");
        return 2;
    }
    /* only what a refusal uses; every other routine is NULL */
    static sqlite3_api_routines api = {
        .libversion_number = old_libversion_number,
        .mprintf = sqlite3_mprintf,
    };
    char *msg = NULL;
    int rc = init(NULL, &msg, &api);
    printf("%d %s\n", rc, msg ? msg : "(no message)");
    sqlite3_free(msg);
    return 0;
}
