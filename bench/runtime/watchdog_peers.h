/* Which rank is the stuck one. When a collective hangs, every waiting rank
 * is blocked inside MPI and the watchdog thread may not call MPI (plain
 * MPI_Init), and a stopped rank can answer nothing. So each rank's
 * watchdog also listens on a TCP port (addresses exchanged once, at start,
 * through MPI) and answers any peer with its position: how many
 * measurements it has started and which one it is in. At a timeout a
 * rank asks every other: the ranks that do not answer within a few
 * seconds (stopped, or hung with their watchdog) are the ones that did not
 * arrive; the ones that answer in another measurement are behind. */
#ifndef CB_WATCHDOG_PEERS_H
#define CB_WATCHDOG_PEERS_H

#include <stddef.h>

#include "cluster.h"

/* Seconds a timed-out rank waits for the others' answers. */
#define CB_WD_ASK_SECONDS 3.0

struct cb_wd_peers;

/* Collective (main thread, MPI): opens the listening port and exchanges
 * addresses. NULL when no port could be opened: then nobody is asked. */
struct cb_wd_peers *cb_wd_peers_open(const struct cb_cluster *cl);
/* The listening socket to poll, or -1. */
int cb_wd_peers_fd(const struct cb_wd_peers *p);
/* Answers every pending asker with this rank's position. */
void cb_wd_peers_serve(struct cb_wd_peers *p, long seq, int armed, const char *what);
/* Who a timeout found stuck: the ranks that did not answer (stopped, or
 * hung outside collbench's control), and whether rank 0 answered. */
#define CB_WD_MAX_HUNG 16
struct cb_wd_hung {
  int ranks[CB_WD_MAX_HUNG];
  int n;           /* how many did not answer (ranks[] holds the first CB_WD_MAX_HUNG) */
  int rank0_alive; /* rank 0 answered, or is this rank */
};
/* Asks every other rank (answering askers meanwhile) and describes in buf
 * who did not arrive at measurement `seq` (`what`), or who is elsewhere;
 * hung (may be NULL) gets the silent ranks. */
void cb_wd_peers_blame(struct cb_wd_peers *p, long seq, const char *what, char *buf, size_t len,
                       struct cb_wd_hung *hung);
void cb_wd_peers_close(struct cb_wd_peers *p);

#endif
