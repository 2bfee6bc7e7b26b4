/* The clock every measurement uses, and its own cost. */
#ifndef CB_TIMER_H
#define CB_TIMER_H

/* Monotonic seconds (CLOCK_MONOTONIC_RAW where available: no NTP slew). */
double cb_now(void);

/* Median cost in seconds of one cb_now() pair, measured back to back;
 * subtracted from every timed interval. */
double cb_timer_overhead(void);

/* Wall-clock Unix seconds now (CLOCK_REALTIME: what interval_start and
 * the run record's start carry). */
double cb_wall_now(void);

/* Wall-clock Unix seconds as UTC text, "2026-11-26T01:47:42Z" (buf holds
 * 21 bytes or more; returns buf), and back: -1 when s is not that form. */
char *cb_utc_text(double unix_s, char *buf, unsigned len);
double cb_utc_parse(const char *s);

#endif
