/* Text from outside collbench (arguments, the environment, host names,
 * input files) on its way into an output whose format limits the bytes it
 * may carry. One function per format, used by every writer of it: the
 * terminal here, JSON here (jansson refuses malformed UTF-8, which would
 * drop the whole field), CSV in output/csv.c, XML in output/junit.c, HTML
 * and gnuplot in report/escape.c. */
#ifndef CB_TEXT_H
#define CB_TEXT_H

#include <stddef.h>

#include "config.h"

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
int cb_utf8_len(const unsigned char *s);

/* For a terminal: src into dst (n bytes, always terminated, cut where it
 * does not fit) with every control byte (C0, DEL; C1 as UTF-8 too) and
 * every byte of malformed UTF-8 shown as \xNN, so no input drives the
 * terminal (an ESC sequence) or splits a line. keep_lines: newline and tab
 * pass (error messages are written with them). Returns 1 when it changed
 * anything. */
int cb_text_terminal(char *dst, size_t n, const char *src, int keep_lines);

/* The same in place, for a fixed-size field (a host name) read once and
 * then written everywhere; it may be cut to fit. */
int cb_text_terminal_inplace(char *s, size_t n);

/* A malloc'd copy of s with each byte that is not part of well-formed UTF-8
 * replaced by U+FFFD (NULL when out of memory). */
char *cb_text_utf8_dup(const char *s);

#if CB_HAVE_JANSSON
#include <jansson.h>
/* json_string for text from outside: malformed UTF-8 becomes U+FFFD rather
 * than the field vanishing (NULL s: JSON null). */
json_t *cb_json_text(const char *s);
#endif

#endif
