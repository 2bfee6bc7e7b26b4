/* The process's NCCL log (nccl_logfile.c) with NCCL's part played by this
 * test: it appends lines to the file NCCL_DEBUG_FILE names, in NCCL 2.28's
 * formats (src/debug.cc: "HOST:PID:TID [DEV] NCCL INFO MSG", WARNs as
 * "\nHOST:PID:TID [DEV] FILE:LINE NCCL WARN MSG"; messages from
 * src/enqueue.cc and src/transport/nvls.cc of tag v2.28.9-1). Two
 * communicators in one process must each read their own lines (the first
 * one's end used to remove the log), NCCL's WARNs must reach the error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/nccl_log.h"
#include "backends/nccl_logfile.h"
#include "runtime/watchdog.h"
#include "tap.h"

static void nccl_writes(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int count_logs(const char *tmp) {
  int n = 0;
  DIR *d = opendir(tmp);
  for (struct dirent *e; d && (e = readdir(d));)
    n += strncmp(e->d_name, "collbench-nccl.", 15) == 0;
  if (d)
    closedir(d);
  return n;
}

static char *dir_of(const char *path, char *buf, size_t len) {
  snprintf(buf, len, "%s", path);
  char *slash = strrchr(buf, '/');
  if (slash)
    *slash = '\0';
  return buf;
}

/* In a child: opens the log, keeps it or not, exits normally; returns
 * the directory it made. */
/* keep: 0 exit normally, 1 keep the log, 2 end as the watchdog does
 * (its exit hooks, then _exit: no atexit handler runs) */
static void child_dir(int keep, char *dir, size_t len) {
  int fd[2];
  dir[0] = '\0';
  if (pipe(fd))
    return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    cb_nccl_log_open();
    if (keep == 1)
      cb_nccl_log_keep();
    char d[512];
    dir_of(cb_nccl_log_path(), d, sizeof d);
    if (write(fd[1], d, strlen(d) + 1) < 0)
      _exit(1);
    if (keep == 2) {
      cb_watchdog_exit_hooks();
      _exit(3);
    }
    exit(0); /* atexit handlers run */
  }
  close(fd[1]);
  ssize_t n = read(fd[0], dir, len - 1);
  dir[n > 0 ? n : 0] = '\0';
  close(fd[0]);
  waitpid(pid, NULL, 0);
}

int main(void) {
  char tmp[] = "/tmp/test_nccl_logfile.XXXXXX";
  if (!mkdtemp(tmp))
    return 1;
  setenv("TMPDIR", tmp, 1);
  unsetenv("NCCL_DEBUG");
  unsetenv("NCCL_DEBUG_FILE");
  unsetenv("NCCL_DEBUG_SUBSYS");

  /* exit removes the directory; a kept one (after an abort) stays */
  char dir[512];
  child_dir(0, dir, sizeof dir);
  ok(dir[0] && !is_dir(dir), "a process's log directory is removed at exit (%s)", dir);
  child_dir(1, dir, sizeof dir);
  ok(dir[0] && is_dir(dir), "a kept one stays for the user to read");
  char gone[512];
  child_dir(2, gone, sizeof gone);
  ok(gone[0] && !is_dir(gone), "removed too when the watchdog ends the process (_exit) (%s)", gone);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    diag("could not remove %s", dir);

  /* the user's NCCL_DEBUG: their log, nothing set, nothing read; their
   * NCCL_DEBUG_SUBSYS: kept, never switched (children: a process's answer
   * is fixed at its first open) */
  pid_t pid = fork();
  if (pid == 0) {
    setenv("NCCL_DEBUG", "WARN", 1);
    struct cb_nccl_log_cursor c = {0, 0};
    int skipped;
    _exit(cb_nccl_log_open() == 0 && !cb_nccl_log_path()[0] && !getenv("NCCL_DEBUG_FILE") &&
                  !cb_nccl_log_read(&c, 100, &skipped) && count_logs(tmp) == 0
              ? 0
              : 1);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the user's NCCL_DEBUG: the log is theirs");
  pid = fork();
  if (pid == 0) {
    setenv("NCCL_DEBUG_SUBSYS", "INIT,NET", 1);
    int r = cb_nccl_log_open() == 1 && !cb_nccl_log_switchable() && !cb_nccl_log_switch(1) &&
            !strcmp(getenv("NCCL_DEBUG_SUBSYS"), "INIT,NET");
    exit(r ? 0 : 1);
  }
  waitpid(pid, &status, 0);
  ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
     "the user's NCCL_DEBUG_SUBSYS is kept and never switched");

  ok(cb_nccl_log_open() == 1, "the log is collbench's when the user set no NCCL_DEBUG*");
  is_str(getenv("NCCL_DEBUG"), "INFO", "NCCL_DEBUG=INFO");
  is_str(getenv("NCCL_DEBUG_SUBSYS"), CB_NCCL_SUBSYS,
         "no TUNING during timed calls: NCCL_DEBUG_SUBSYS=" CB_NCCL_SUBSYS);
  char path[512];
  snprintf(path, sizeof path, "%s", cb_nccl_log_path());
  is_str(getenv("NCCL_DEBUG_FILE"), path, "NCCL_DEBUG_FILE is the file read back");
  ok(strncmp(path, tmp, strlen(tmp)) == 0, "under $TMPDIR (%s)", path);

  /* communicator 1: made, used, destroyed */
  struct cb_nccl_log_cursor c1, c2;
  cb_nccl_log_cursor_end(&c1);
  nccl_writes(path, "node1:7046:7046 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw "
                    "40.000000/40.000000, type NVL/PIX, sameChannels 1\n"
                    "node1:7046:7046 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n");
  int skipped;
  char *text = cb_nccl_log_read(&c1, 1 << 20, &skipped);
  char label[64] = "";
  if (text)
    cb_nccl_log_paths(text, label, sizeof label);
  is_str(label, "nvlink", "communicator 1 reads its connections");
  free(text);

  /* communicator 2 (a second --accept check, the next --plugin-out pair) */
  ok(cb_nccl_log_open() == 1 && strcmp(cb_nccl_log_path(), path) == 0,
     "a second communicator shares the process's log");
  is_long(count_logs(tmp), 1, "one log directory per process");
  cb_nccl_log_cursor_end(&c2);
  nccl_writes(path, "node1:7046:7046 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via "
                    "NET/Socket/0\n"
                    "node1:7046:7046 [0] NCCL INFO NVLS comm 0x55d0c1f0 headRank 0 nHeads 1 "
                    "nvlsRanks 2 buffSize 1048576 nvlsPerRankSize 33554432 nvlsTotalSize "
                    "33554432\n"
                    "node1:7046:7046 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [se");
  text = cb_nccl_log_read(&c2, 1 << 20, &skipped);
  label[0] = '\0';
  if (text)
    cb_nccl_log_paths(text, label, sizeof label);
  is_str(label, "nvls+net-socket", "communicator 2 reads only its own (NET/Socket and NVLS)");
  ok(text && !strstr(text, "Channel 01/0"), "a line NCCL is still writing waits");
  free(text);
  nccl_writes(path, "nd] via NET/Socket/1\n");
  text = cb_nccl_log_read(&c2, 1 << 20, &skipped);
  ok(text && strncmp(text, "node1:7046:7046 [0] NCCL INFO Channel 01/0", 42) == 0,
     "and is read whole once complete");
  free(text);

  /* a chunk over the limit is passed over, and said so */
  nccl_writes(path, "node1:7046:7046 [0] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL "
                    "channel{Lo..Hi}={0..0}\n");
  text = cb_nccl_log_read(&c2, 16, &skipped);
  ok(text == NULL && skipped == 1, "a chunk over the limit: nothing, skipped = 1");
  text = cb_nccl_log_read(&c2, 1 << 20, &skipped);
  ok(text == NULL && skipped == 0, "... and the cursor is past it");

  /* TUNING around one untimed call: a new file each switch */
  ok(cb_nccl_log_switchable() && cb_nccl_log_switch(1), "the subsystems can be switched");
  is_str(getenv("NCCL_DEBUG_SUBSYS"), CB_NCCL_SUBSYS_TUNING, "TUNING on for the untimed call");
  ok(strcmp(cb_nccl_log_path(), path) != 0 && access(path, F_OK) != 0,
     "into a new file; the old one (read) is gone");
  nccl_writes(cb_nccl_log_path(), "node1:7046:7046 [0] NCCL INFO AllReduce: 1048576 Bytes -> "
                                  "Algo RING proto SIMPLE channel{Lo..Hi}={0..31}\n");
  text = cb_nccl_log_read(&c2, 1 << 20, &skipped);
  char algo[32] = "", proto[16] = "";
  int channels = 0;
  cb_nccl_log_choice(text ? text : "", "AllReduce", 1048576, algo, sizeof algo, proto, sizeof proto,
                     &channels);
  ok(!strcmp(algo, "Ring") && !strcmp(proto, "Simple") && channels == 32,
     "the reader follows into the new file from its start (%s %s %d)", algo, proto, channels);
  free(text);
  cb_nccl_log_switch(0);
  is_str(getenv("NCCL_DEBUG_SUBSYS"), CB_NCCL_SUBSYS, "TUNING off again");

  /* NCCL's WARNs: a multi-line one, a repeat, INFO lines between */
  static const char warns[] =
      "node1:7046:7046 [0] NCCL INFO comm 0x55d0c1f0 rank 0 nRanks 2 nNodes 2 localRanks 1\n"
      "\n"
      "node1:7046:7046 [0] enqueue.cc:1840 NCCL WARN Error : no algorithm/protocol available for "
      "function Broadcast with datatype ncclFloat32. NCCL_ALGO was set to Tree.\n"
      "\n"
      "node1:7046:7051 [0] transport/nvls.cc:285 NCCL WARN Failed to bind NVLink SHARP (NVLS) "
      "Multicast memory of size 33554432 : CUDA error 801 'operation not supported'.\n"
      "This is usually caused by a system or configuration error in the Fabric Manager or "
      "NVSwitches.\n"
      "node1:7046:7046 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] via SHM/direct/direct\n"
      "\n"
      "node1:7046:7046 [0] enqueue.cc:1840 NCCL WARN Error : no algorithm/protocol available for "
      "function Broadcast with datatype ncclFloat32. NCCL_ALGO was set to Tree.\n";
  char w[600] = "";
  cb_nccl_log_warnings(warns, w, sizeof w);
  is_str(w,
         "Error : no algorithm/protocol available for function Broadcast with datatype "
         "ncclFloat32. NCCL_ALGO was set to Tree.; Failed to bind NVLink SHARP (NVLS) Multicast "
         "memory of size 33554432 : CUDA error 801 'operation not supported'. This is usually "
         "caused by a system or configuration error in the Fabric Manager or NVSwitches.",
         "WARN messages, one line each, no repeats, INFO left out");
  char small[40] = "";
  cb_nccl_log_warnings(warns, small, sizeof small);
  ok(strlen(small) < sizeof small && strncmp(small, "Error : no algorithm", 20) == 0,
     "a short buffer is not overrun and keeps the last warning, cut ('%s')", small);

  /* the error text: NCCL's last error, then the other warnings */
  char msg[1024];
  cb_nccl_failure_text(msg, sizeof msg, "ncclBroadcast(...)", " for broadcast of 4 float", 5,
                       "invalid usage (run with NCCL_DEBUG=WARN for details)",
                       "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 33554432 : "
                       "CUDA error 801 'operation not supported'.\nThis is usually caused by a "
                       "system or configuration error in the Fabric Manager or NVSwitches.",
                       w);
  is_str(msg,
         "ncclBroadcast(...) failed for broadcast of 4 float: invalid usage (run with "
         "NCCL_DEBUG=WARN for details) (5): Failed to bind NVLink SHARP (NVLS) Multicast memory "
         "of size 33554432 : CUDA error 801 'operation not supported'. This is usually caused by "
         "a system or configuration error in the Fabric Manager or NVSwitches.; NCCL warned: "
         "Error : no algorithm/protocol available for function Broadcast with datatype "
         "ncclFloat32. NCCL_ALGO was set to Tree.",
         "call, code, NCCL's last error, and the warning it does not repeat");
  cb_nccl_failure_text(msg, sizeof msg, "ncclCommInitRankConfig", "", 2, "unhandled system error",
                       "", "");
  is_str(msg, "ncclCommInitRankConfig failed: unhandled system error (2)",
         "no last error, no warnings: the code alone");

  char d[512];
  dir_of(cb_nccl_log_path(), d, sizeof d);
  cb_nccl_log_close();
  ok(!is_dir(d), "cb_nccl_log_close removes the directory");
  ok(rmdir(tmp) == 0, "nothing is left in $TMPDIR");
  done_testing();
  return exit_status();
}
