/* This process's NCCL log: one private directory, made the first time
 * anything may start NCCL (the nccl backend, --tune's communicators), shared
 * by every communicator of the process and removed at exit, unless an abort
 * kept it for the user to read. NCCL reads NCCL_DEBUG* when it first logs
 * and again after ncclResetDebugInit, which opens the file anew: each such
 * switch writes a new file ("generation"), so a reader never mistakes a
 * truncated file for an old one. No NCCL calls here: tested without a GPU. */
#ifndef CB_NCCL_LOGFILE_H
#define CB_NCCL_LOGFILE_H

#include <stddef.h>

/* The subsystems collbench asks for: INIT and GRAPH say which path each
 * connection took (INIT also carries "NVLS comm"); TUNING adds one line per
 * collective call on rank 0, so it is on only for untimed calls. */
#define CB_NCCL_SUBSYS "INIT,GRAPH"
#define CB_NCCL_SUBSYS_TUNING "INIT,GRAPH,TUNING"

/* Makes the directory and points NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS and
 * NCCL_DEBUG_FILE into it, once per process (later calls return the first
 * answer). Returns 1 when collbench owns the log; 0 when the user set
 * NCCL_DEBUG or NCCL_DEBUG_FILE (the log is theirs) or no directory could
 * be made. The directory goes at exit (atexit) unless kept. */
int cb_nccl_log_open(void);

/* The file NCCL writes now; "" when the log is not ours. */
const char *cb_nccl_log_path(void);

/* Whether collbench may switch the subsystems (it owns the log and the
 * user did not set NCCL_DEBUG_SUBSYS). */
int cb_nccl_log_switchable(void);

/* Points the next generation's file and subsystems (TUNING or not) into
 * the environment and removes the previous file, which the caller has
 * read. The caller then makes NCCL re-read them (ncclResetDebugInit).
 * Returns 0 and changes nothing when not switchable. */
int cb_nccl_log_switch(int tuning);

/* Where one reader stands: a generation and an offset in its file. */
struct cb_nccl_log_cursor {
  int gen;
  long pos;
};

/* A cursor at the current end of the log: a new communicator's reading
 * starts there, so it never sees an earlier communicator's lines. */
void cb_nccl_log_cursor_end(struct cb_nccl_log_cursor *cur);

/* What NCCL wrote since the cursor, up to its last complete line (a line
 * still being written waits), advancing the cursor; NULL when nothing is
 * new. A chunk over `limit` bytes is passed over, not held: *skipped = 1. */
char *cb_nccl_log_read(struct cb_nccl_log_cursor *cur, long limit, int *skipped);

/* Keeps the log at exit (after an abort) and returns its file's path
 * ("" when the log is not ours). */
const char *cb_nccl_log_keep(void);

/* Removes the directory unless kept (the atexit handler). */
void cb_nccl_log_close(void);

/* Appends NCCL's WARN messages in text (debug.cc: "HOST:PID:TID [DEV]
 * FILE:LINE NCCL WARN MESSAGE") to out, '; '-separated, without repeats;
 * the oldest give way when out is full. */
void cb_nccl_log_warnings(const char *text, char *out, size_t len);

/* The text of a failed NCCL call: "CALL failed WHAT: RC_TEXT (RC)", then
 * ": LAST" (ncclGetLastError, process-wide, fetched before any abort),
 * then "; NCCL warned: WARNINGS" without the one LAST already says. */
void cb_nccl_failure_text(char *buf, size_t len, const char *call, const char *what, int rc,
                          const char *rc_text, const char *last, const char *warnings);

#endif
