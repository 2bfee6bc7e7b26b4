/* --report: charts and an HTML page from collbench's JSON Lines, without
 * MPI (report.c, the hub; its parts share parts.h). */
#ifndef CB_REPORT_H
#define CB_REPORT_H

/* --report IN.jsonl... --out DIR: a mode of its own, without MPI. */
#define CB_MAX_REPORT_INPUTS 64
struct cb_topo_part;
struct cb_report_cli {
  const char *out;
  const char *topology; /* tiers the capacity charts need and the inputs lack */
  /* the file's sections that are not the system's: read (and refused when
   * bad) as --accept reads them, set by the mode; NULL: none allowed */
  const struct cb_topo_part *topology_part;
  const char *baseline; /* --baseline B.json: draw each run against the fleet */
  const char *inputs[CB_MAX_REPORT_INPUTS];
  int ninputs;
};

/* The whole of --report; returns the exit status. */
int cb_report(const struct cb_report_cli *rep);

#endif
