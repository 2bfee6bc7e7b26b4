#include "sink.h"

int cb_sinks_run(struct cb_sink *sinks, int nsinks, const struct cb_run_info *ri,
                 struct cb_error *err) {
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].run && sinks[i].run(sinks[i].state, ri, err))
      return err->status;
  return CB_OK;
}

int cb_sinks_finish(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                    struct cb_error *err) {
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].finish && sinks[i].finish(sinks[i].state, sum, err))
      return err->status;
  return CB_OK;
}

int cb_sinks_note(struct cb_sink *sinks, int nsinks, const char *text, struct cb_error *err) {
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].note && sinks[i].note(sinks[i].state, text, err))
      return err->status;
  return CB_OK;
}
