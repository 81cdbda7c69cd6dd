#include "schema_guard.h"

#include <stddef.h>

SQLITE_EXTENSION_INIT3

bool pv_refused_while_writing(sqlite3_context *ctx, const char *function)
{
    sqlite3 *db = sqlite3_context_db_handle(ctx);
    /* the caller runs inside sqlite3_step: the connection's mutex is held */
    for (sqlite3_stmt *stmt = sqlite3_next_stmt(db, NULL); stmt; stmt = sqlite3_next_stmt(db, stmt)) {
        if (sqlite3_stmt_busy(stmt) && !sqlite3_stmt_readonly(stmt)) {
            char *msg = sqlite3_mprintf(
                "%s: refused in a statement that writes (%s): a database's CHECK constraint "
                "could call it there; call it in a SELECT", function, sqlite3_sql(stmt));
            if (msg)
                sqlite3_result_error(ctx, msg, -1);
            else
                sqlite3_result_error_nomem(ctx);
            sqlite3_free(msg);
            return true;
        }
    }
    return false;
}
