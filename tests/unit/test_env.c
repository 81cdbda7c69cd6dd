/*
 * Unit tests of src/base/pv_env.c: which values of an environment variable
 * are taken as its number, and which leave the default; which turn a
 * switch on.
 *
 * Output: one "ok - what" or "not ok - what: why" line per check.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/pv_env.h"
#include "unit_check.h"

#define NAME "PERFVTAB_TEST_ENV_NUMBER"

/* value NULL: unset */
static void expect(const char *what, const char *value, uint64_t least, uint64_t want)
{
    if (value)
        setenv(NAME, value, 1);
    else
        unsetenv(NAME);
    uint64_t got = pv_env_number(NAME, least, 77);
    check(got == want, what, "got %" PRIu64 ", want %" PRIu64, got, want);
}

static void expect_flag(const char *what, const char *value, bool want)
{
    if (value)
        setenv(NAME, value, 1);
    else
        unsetenv(NAME);
    bool got = pv_env_flag(NAME);
    check(got == want, what, "got %d, want %d", got, want);
}

int main(void)
{
    expect("unset: the default", NULL, 0, 77);
    expect("empty: the default", "", 0, 77);
    expect("a number", "4096", 0, 4096);
    expect("0 where 0 is allowed", "0", 0, 0);
    expect("0 below the least: the default", "0", 1, 77);
    expect("the least itself", "1", 1, 1);
    expect("UINT64_MAX", "18446744073709551615", 0, UINT64_MAX);
    expect("past UINT64_MAX saturates", "99999999999999999999", 0, UINT64_MAX);
    expect("trailing junk: the default", "12abc", 0, 77);
    expect("a sign: the default", "-1", 0, 77);
    expect("a plus sign: the default", "+5", 0, 77);
    expect("a leading blank: the default", " 5", 0, 77);
    expect("not a number: the default", "abc", 0, 77);
    expect_flag("switch unset: off", NULL, false);
    expect_flag("switch empty: off", "", false);
    expect_flag("switch 0: off", "0", false);
    expect_flag("switch 1: on", "1", true);
    expect_flag("switch yes: on", "yes", true);
    expect_flag("switch 00: on (only \"0\" is off)", "00", true);
    unsetenv(NAME);
    return failures != 0;
}
