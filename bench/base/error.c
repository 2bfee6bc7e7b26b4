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
