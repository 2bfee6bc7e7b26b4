/* Ranks that reach collectives consistently late. */
#ifndef CB_ACCEPT_STRAGGLERS_H
#define CB_ACCEPT_STRAGGLERS_H

#include "verdicts.h"

/* Names ranks that reach collectives consistently late (WARN verdicts),
 * or gives one PASS verdict; nothing with a single rank. */
int cb_stragglers_measure(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                          struct cb_accept_result *res, struct cb_error *err);

#endif
