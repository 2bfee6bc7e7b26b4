/* What collbench's NCCL profiler plugin hands collbench: the
 * (collective, algorithm, protocol, channels) NCCL ran since the last take,
 * each with its count. The plugin (libnccl-profiler-collbench.so) exports
 * collbench_profiler_take; collbench finds it in the copy NCCL loaded
 * (dlopen with RTLD_NOLOAD on NCCL_PROFILER_PLUGIN). libc only. */
#ifndef CB_PROFILER_RAN_H
#define CB_PROFILER_RAN_H

#include <stdint.h>

#define CB_RAN_MAX 16 /* distinct combinations kept; the rest are counted */
#define CB_RAN_TAKE_SYMBOL "collbench_profiler_take"
/* int collbench_profiler_version(void): the interface version NCCL took (2 to 6), 0 before */
#define CB_RAN_VERSION_SYMBOL "collbench_profiler_version"

struct cb_ran {
  char func[24], algo[16], proto[16];
  int channels;
  long calls;
};

/* Copies up to max combinations seen since the last take into out and
 * forgets them; *other gets the calls beyond CB_RAN_MAX combinations.
 * Returns how many were copied. */
typedef int (*cb_ran_take_fn)(struct cb_ran *out, int max, long *other);

#endif
