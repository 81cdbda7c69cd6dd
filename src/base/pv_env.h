/*
 * Numbers and switches the environment sets for tests and tuning
 * (thresholds, part sizes, grace periods, twins): read in one way
 * everywhere.
 */
#ifndef PV_ENV_H
#define PV_ENV_H

#include <stdbool.h>
#include <stdint.h>

/* The environment variable name as a decimal number (digits only, up to
 * UINT64_MAX: more saturates) of at least least; fallback when it is unset,
 * empty, not such a number or smaller. */
uint64_t pv_env_number(const char *name, uint64_t least, uint64_t fallback);

/* A switch the tests turn on to run a hidden twin: on when the variable
 * is set to anything but "" or "0", so every switch reads alike. */
bool pv_env_flag(const char *name);

#endif
