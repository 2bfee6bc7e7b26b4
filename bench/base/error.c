/* Errors as return values (error.h), and their one printer. */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

int cb_fail(struct cb_error *err, int status, const char *fmt, ...) {
  /* The first failure is the root cause; later ones are consequences. */
  if (err->status != CB_OK)
    return err->status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  err->status = status;
  return status;
}

int cb_write_status(int errnum) {
  return errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG || errnum == EIO ? CB_RUNTIME
                                                                                  : CB_USAGE;
}

void cb_error_print(const struct cb_error *err) {
  /* messages quote values from input files and the environment: shown
   * escaped, so none drives the terminal */
  if (!err->msg[0]) /* a rank that only learnt another stopped: that one says why */
    return;
  char shown[4 * sizeof err->msg];
  cb_text_terminal(shown, sizeof shown, err->msg, 1);
  fprintf(stderr, "collbench: %s%s\n", err->status == CB_USAGE ? "" : "error: ", shown);
}
