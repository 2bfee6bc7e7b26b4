/* Each GPU's state through NVML (gpu_health.c fills node.h's struct
 * cb_gpu_health with cb_probe_gpu_health), and how to read its clock event
 * reasons. */
#ifndef CB_PROBE_GPU_HEALTH_H
#define CB_PROBE_GPU_HEALTH_H

/* nvmlClocksEventReasons that hold a GPU's clocks down against its will:
 * hardware slowdown, software and hardware thermal slowdown, power brake.
 * (The software power cap is left out: under full load it is how a GPU
 * keeps to its rated power, not a fault.) */
#define CB_GPU_SLOWDOWN (0x8 | 0x20 | 0x40 | 0x80)
/* The i-th clock event reason's name ("hw_thermal_slowdown") and bit;
 * NULL past the last. */
const char *cb_gpu_reason_name(int i, long long *bit);

#endif
