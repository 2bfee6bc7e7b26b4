/* The clock every measurement uses, and its own cost. */
#ifndef CB_TIMER_H
#define CB_TIMER_H

/* Monotonic seconds (CLOCK_MONOTONIC_RAW where available: no NTP slew). */
double cb_now(void);

/* Median cost in seconds of one cb_now() pair, measured back to back;
 * subtracted from every timed interval. */
double cb_timer_overhead(void);

#endif
