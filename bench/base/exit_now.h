/* The process's end where atexit handlers and stdio must not run (a
 * signal handler, the watchdog, a forked child whose exec failed): the
 * exit_group system call, as libc's _exit makes it. The library calls
 * this, never _exit, so that no file of it binds to bench/main.c's _exit,
 * which is there for MPI's libraries only (main.c says why) and is not in
 * the unit tests' binaries. */
#ifndef CB_EXIT_NOW_H
#define CB_EXIT_NOW_H

_Noreturn void cb_exit_now(int status);

#endif
