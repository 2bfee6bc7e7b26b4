/* Parsing and printing of sizes, counts and durations given on the
 * command line. Pure functions: unit-tested without MPI. */
#ifndef CB_UNITS_H
#define CB_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* "8", "64K", "1M", "2G" (binary suffixes, optional trailing B or iB).
 * Rejects empty, negative, zero, fractional, overflowing or trailing junk;
 * `what` names the option in the message. */
int cb_parse_size(const char *s, const char *what, uint64_t *out, struct cb_error *err);

/* A positive integer (no suffix) within [min, max]. */
int cb_parse_long(const char *s, const char *what, long min, long max, long *out,
                  struct cb_error *err);

/* A positive decimal; a trailing '%' divides by 100 ("1%" == 0.01). */
int cb_parse_double(const char *s, const char *what, double min, double max, double *out,
                    struct cb_error *err);

/* A number of seconds within [min, max]: a decimal, no '%' (a share of
 * what would it be?). */
int cb_parse_seconds(const char *s, const char *what, double min, double max, double *out,
                     struct cb_error *err);

/* A duration: a decimal with an optional unit s, m, h or d ("90", "30m",
 * "1.5h", "2d"), more than 0 and at most CB_MAX_DURATION seconds. */
#define CB_MAX_DURATION (365 * 86400.0)
int cb_parse_duration(const char *s, const char *what, double *out, struct cb_error *err);

/* Refuses a comma list with an empty item ("1M,,2M", ",x", "x,"), naming
 * the option; strtok would skip it silently. */
int cb_list_check(const char *s, const char *what, struct cb_error *err);

/* Comma lists of sizes ("1M,4M,16M"; each at most `largest` unless it is
 * 0) or bounded integers ("8,64,512"), each item checked as above; at most
 * `maxn` items, none empty. */
int cb_parse_size_list(const char *s, const char *what, uint64_t largest, uint64_t *out, int maxn,
                       int *n, struct cb_error *err);
int cb_parse_long_list(const char *s, const char *what, long min, long max, long *out, int maxn,
                       int *n, struct cb_error *err);

/* Measured GB/s (1e9 B/s) as a percentage of a link's Gb/s; 0 when the
 * link's rate is unknown (0). */
double cb_line_rate_percent(double GBps, double gbps);

/* Human form for messages: 1048576 -> "1 MiB", 1536 -> "1536 B". */
const char *cb_format_size(uint64_t bytes, char *buf, size_t len);

/* A chance as a reader takes it: "2.4%", "under 0.1%", "over 99.9%". */
const char *cb_chance_text(double p, char *buf, size_t len);

#endif
