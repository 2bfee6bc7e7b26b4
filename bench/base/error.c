/* Errors as return values (error.h), and their one printer. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void cb_error_print(const struct cb_error *err) {
  fprintf(stderr, "collbench: %s%s\n", err->status == CB_USAGE ? "" : "error: ", err->msg);
}
