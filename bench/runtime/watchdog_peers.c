/* Which rank is the stuck one (watchdog_peers.h says more). */
#define _GNU_SOURCE /* accept4 */
#include "watchdog_peers.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/timer.h"

#define MAX_ADDRS 4

/* What every rank publishes: where its watchdog listens. */
struct where {
  uint32_t addr[MAX_ADDRS]; /* IPv4, network order, not loopback */
  int naddrs;
  int port; /* host order; 0: none */
};

struct cb_wd_peers {
  const struct cb_cluster *cl;
  int fd;
  uint64_t token;    /* the run's: an answer from another job's port is no answer */
  struct where *all; /* [nranks] */
};

static int nonblocking(int fd) {
  int fl = fcntl(fd, F_GETFL);
  return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int listen_any(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 128) ||
      getsockname(fd, (struct sockaddr *)&a, &len) || nonblocking(fd)) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  *port = ntohs(a.sin_port);
  return fd;
}

static void local_addrs(struct where *w) {
  struct ifaddrs *ifs = NULL;
  if (getifaddrs(&ifs))
    return;
  for (struct ifaddrs *i = ifs; i && w->naddrs < MAX_ADDRS; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
        !(i->ifa_flags & IFF_LOOPBACK))
      w->addr[w->naddrs++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
  freeifaddrs(ifs);
}

struct cb_wd_peers *cb_wd_peers_open(const struct cb_cluster *cl) {
  struct where me = {0};
  int fd = listen_any(&me.port);
  if (fd >= 0)
    local_addrs(&me);
  struct cb_wd_peers *p = calloc(1, sizeof *p);
  struct where *all = calloc(cl->nranks, sizeof *all);
  uint64_t token = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)clock();
  MPI_Bcast(&token, 1, MPI_UINT64_T, 0, cl->comm);
  if (all) /* every rank takes part, whatever its own socket did */
    MPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, cl->comm);
  else {
    struct where *tmp = malloc(sizeof me * cl->nranks);
    MPI_Allgather(&me, sizeof me, MPI_BYTE, tmp, sizeof me, MPI_BYTE, cl->comm);
    free(tmp);
  }
  if (!p || !all || fd < 0) {
    if (fd >= 0)
      close(fd);
    free(p), free(all);
    return NULL;
  }
  p->cl = cl, p->fd = fd, p->token = token, p->all = all;
  return p;
}

int cb_wd_peers_fd(const struct cb_wd_peers *p) {
  return p ? p->fd : -1;
}

void cb_wd_peers_serve(struct cb_wd_peers *p, long seq, int armed, const char *what) {
  if (!p)
    return;
  char line[400];
  int n = snprintf(line, sizeof line, "%016llx %d %ld %d %s\n", (unsigned long long)p->token,
                   p->cl->rank, seq, armed, what);
  if (n < 0 || n >= (int)sizeof line)
    n = sizeof line - 1, line[n - 1] = '\n';
  int c;
  while ((c = accept4(p->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
    /* a fresh socket's buffer takes a line this short at once */
    ssize_t w = send(c, line, (size_t)n, MSG_NOSIGNAL);
    (void)w;
    close(c);
  }
}

/* One asked peer. */
struct ask {
  int fd, rank;
  int state; /* 0 asking, 1 answered, 2 no answer, 3 refused (gone) */
  long seq;
  int armed;
  char buf[400];
  size_t got;
  char what[256];
};

static void start_ask(const struct cb_wd_peers *p, struct ask *a) {
  const struct where *w = &p->all[a->rank];
  a->state = 3;
  a->fd = -1;
  if (!w->port)
    return;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)w->port)};
  /* the same node: loopback always reaches it */
  int same = p->cl->node_of_rank[a->rank] == p->cl->node;
  if (same)
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  else if (w->naddrs > 0)
    sa.sin_addr.s_addr = w->addr[0];
  else
    return;
  a->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (a->fd < 0)
    return;
  if (connect(a->fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS) {
    close(a->fd);
    a->fd = -1;
    return;
  }
  a->state = 0;
}

/* Reads what has come; an answer is complete at its newline. */
static void read_ask(const struct cb_wd_peers *p, struct ask *a) {
  ssize_t n = recv(a->fd, a->buf + a->got, sizeof a->buf - 1 - a->got, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n > 0) {
    a->got += (size_t)n;
    a->buf[a->got] = '\0';
    if (!strchr(a->buf, '\n') && a->got < sizeof a->buf - 1)
      return;
  }
  unsigned long long token = 0;
  int rank = -1, at = 0;
  a->state = 3; /* refused, or another job's port: not reached */
  if (n > 0 && sscanf(a->buf, "%llx %d %ld %d %n", &token, &rank, &a->seq, &a->armed, &at) == 4 &&
      token == p->token && rank == a->rank) {
    snprintf(a->what, sizeof a->what, "%.*s", (int)strcspn(a->buf + at, "\n"), a->buf + at);
    a->state = 1;
  }
  close(a->fd);
  a->fd = -1;
}

static void ask_all(struct cb_wd_peers *p, struct ask *asks, int n, long seq, const char *what) {
  struct pollfd *pf = calloc((size_t)n + 1, sizeof *pf);
  if (!pf)
    return;
  for (int i = 0; i < n; i++)
    start_ask(p, &asks[i]);
  double until = cb_now() + CB_WD_ASK_SECONDS;
  for (;;) {
    int k = 0;
    pf[k++] = (struct pollfd){.fd = p->fd, .events = POLLIN};
    for (int i = 0; i < n; i++)
      pf[k++] = (struct pollfd){.fd = asks[i].state == 0 ? asks[i].fd : -1, .events = POLLIN};
    double left = until - cb_now();
    int pending = 0;
    for (int i = 0; i < n; i++)
      pending += asks[i].state == 0;
    if (!pending || left <= 0)
      break;
    if (poll(pf, (nfds_t)k, (int)(left * 1000) + 1) < 0 && errno != EINTR)
      break;
    if (pf[0].revents) /* the others ask too: answer while asking */
      cb_wd_peers_serve(p, seq, 1, what);
    for (int i = 0; i < n; i++)
      if (pf[i + 1].revents)
        read_ask(p, &asks[i]);
  }
  /* a stopped process's kernel still completes the connection: connected
   * and silent is a stuck rank; never connected is an unknown, no blame */
  for (int i = 0; i < n; i++)
    if (asks[i].state == 0) {
      struct sockaddr_in sa;
      socklen_t len = sizeof sa;
      asks[i].state = getpeername(asks[i].fd, (struct sockaddr *)&sa, &len) == 0 ? 2 : 3;
      close(asks[i].fd);
    }
  free(pf);
}

/* Appends "rank R on HOST" items of one state to buf, at most 8. */
static size_t list_ranks(const struct cb_wd_peers *p, const struct ask *asks, int n, int state,
                         char *buf, size_t len, size_t at) {
  int shown = 0, total = 0;
  for (int i = 0; i < n; i++) {
    if (asks[i].state != state)
      continue;
    if (total++ < 8 && at < len)
      at += snprintf(buf + at, len - at, "%s%d on %s", shown++ ? ", " : "", asks[i].rank,
                     p->cl->node_names[p->cl->node_of_rank[asks[i].rank]]);
  }
  if (total > 8 && at < len)
    at += snprintf(buf + at, len - at, " and %d more", total - 8);
  return at;
}

static int count(const struct ask *asks, int n, int state) {
  int c = 0;
  for (int i = 0; i < n; i++)
    c += asks[i].state == state;
  return c;
}

void cb_wd_peers_blame(struct cb_wd_peers *p, long seq, const char *what, char *buf, size_t len,
                       struct cb_wd_hung *hung) {
  buf[0] = '\0';
  if (hung)
    *hung = (struct cb_wd_hung){.rank0_alive = !p || p->cl->rank == 0};
  if (!p) {
    snprintf(buf, len, "the other ranks could not be asked where they are");
    return;
  }
  int n = p->cl->nranks - 1;
  struct ask *asks = calloc(n > 0 ? (size_t)n : 1, sizeof *asks);
  if (!asks)
    return;
  for (int i = 0, r = 0; r < p->cl->nranks; r++)
    if (r != p->cl->rank)
      asks[i++].rank = r;
  ask_all(p, asks, n, seq, what);
  for (int i = 0; hung && i < n; i++) {
    if (asks[i].state == 2 && hung->n++ < CB_WD_MAX_HUNG)
      hung->ranks[hung->n - 1] = asks[i].rank;
    hung->rank0_alive |= asks[i].rank == 0 && asks[i].state == 1;
  }
  size_t at = 0;
  int silent = count(asks, n, 2), gone = count(asks, n, 3);
  if (silent) {
    at += snprintf(buf + at, len - at, "rank%s ", silent == 1 ? "" : "s");
    at = list_ranks(p, asks, n, 2, buf, len, at);
    if (at < len)
      at += snprintf(buf + at, len - at,
                     " did not arrive: %s not answer within %g s (stopped, or hung outside "
                     "collbench's control)",
                     silent == 1 ? "it does" : "they do", CB_WD_ASK_SECONDS);
  }
  if (gone && at < len) {
    at += snprintf(buf + at, len - at, "%srank%s ", at ? "; " : "", gone == 1 ? "" : "s");
    at = list_ranks(p, asks, n, 3, buf, len, at);
    if (at < len)
      at += snprintf(buf + at, len - at, " could not be reached (exited, or no route)");
  }
  /* answered but elsewhere: behind (or ahead) of this rank */
  for (int i = 0; i < n && at < len; i++)
    if (asks[i].state == 1 && (asks[i].seq != seq || !asks[i].armed))
      at +=
          snprintf(buf + at, len - at, "%srank %d on %s is %s measurement %ld%s%s", at ? "; " : "",
                   asks[i].rank, p->cl->node_names[p->cl->node_of_rank[asks[i].rank]],
                   asks[i].armed ? "in" : "past", asks[i].seq, asks[i].armed ? ": " : "",
                   asks[i].armed ? asks[i].what : "");
  if (at == 0)
    snprintf(buf, len,
             "every rank answered and waits in this measurement (%ld): the hang is in the "
             "library or the network, not one missing rank",
             seq);
  free(asks);
}

void cb_wd_peers_close(struct cb_wd_peers *p) {
  if (!p)
    return;
  close(p->fd);
  free(p->all);
  free(p);
}
