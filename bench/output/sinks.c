/* The sinks as one: each call handed to every sink that has it (sink.h says more). */
#include "sink.h"

#include <math.h>

#include "replace.h"

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

int cb_sinks_interval(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                      struct cb_error *err) {
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].interval && sinks[i].interval(sinks[i].state, sum, err))
      return err->status;
  return CB_OK;
}

int cb_sinks_open(const struct cb_output *outs, int nouts, struct cb_sink *sinks, int *n,
                  struct cb_error *err) {
  for (int i = 0; i < nouts; i++)
    if (cb_output_check(outs[i].path, outs[i].option,
                        outs[i].replace ? CB_OUT_REPLACE : CB_OUT_STREAM, err))
      return err->status;
  int first = *n;
  for (int i = 0; i < nouts; i++) {
    if (outs[i].open(outs[i].path, &sinks[*n], err))
      return err->status;
    (*n)++; /* a sink counts once it opened: only those are closed */
  }
  for (int i = first; i < *n; i++)
    if (sinks[i].start && sinks[i].start(sinks[i].state, err))
      return err->status;
  return CB_OK;
}

int cb_sinks_close(struct cb_sink *sinks, int nsinks, struct cb_error *err) {
  int rc = CB_OK;
  for (int i = 0; i < nsinks; i++) {
    struct cb_error e = {0};
    if (sinks[i].close && sinks[i].close(sinks[i].state, &e) && rc == CB_OK)
      rc = cb_fail(err, e.status, "%s", e.msg);
  }
  return rc;
}

static int row_time(void *state, const struct cb_row *row, struct cb_error *err) {
  (void)err;
  const struct cb_record *r = row->outofplace ? row->outofplace : row->inplace;
  *(double *)state = r ? r->time_us : NAN;
  return CB_OK;
}

struct cb_sink cb_sink_row_time(double *time_us) {
  return (struct cb_sink){.state = time_us, .row = row_time};
}
