/* Text from outside on its way to the terminal and JSON (bench/base/text.c):
 * no control byte reaches a terminal raw, no malformed UTF-8 drops a JSON
 * field. */
#include <stdlib.h>

#include "base/text.h"
#include "tap.h"

static const char *term(const char *s, int keep_lines) {
  static char out[256];
  cb_text_terminal(out, sizeof out, s, keep_lines);
  return out;
}

int main(void) {
  plan(16);
  is_str(term("node-1.example", 0), "node-1.example", "terminal: a host name passes");
  ok(!cb_text_terminal((char[64]){0}, 64, "plain", 0), "terminal: nothing changed, says so");
  is_str(term("a\x1b[2Jb", 0), "a\\x1b[2Jb", "terminal: ESC shown as \\x1b, the sequence inert");
  is_str(term("host\nname", 0), "host\\x0aname", "terminal: a newline in a host name escaped");
  is_str(term("line1\n\tline2", 1), "line1\n\tline2", "terminal: messages keep newline and tab");
  is_str(term("a\rb\x7f", 1), "a\\x0db\\x7f", "terminal: CR and DEL escaped even in messages");
  is_str(term("x\xc2\x9b"
              "31m",
              0),
         "x\\xc2\\x9b31m", "terminal: C1 CSI (UTF-8 C2 9B) escaped");
  is_str(term("\x9b"
              "31m",
              0),
         "\\x9b31m", "terminal: a raw C1 byte (malformed UTF-8) escaped");
  is_str(term("h\xc3\xa9 \xe2\x82\xac", 0), "h\xc3\xa9 \xe2\x82\xac", "terminal: UTF-8 passes");
  is_str(term("\xed\xa0\x80", 0), "\\xed\\xa0\\x80", "terminal: a surrogate is malformed");
  char small[8];
  cb_text_terminal(small, sizeof small,
                   "ab\x1b"
                   "cdef",
                   0);
  is_str(small, "ab\\x1bc", "terminal: cut where the next piece does not fit, never mid-escape");
  char name[16] = "n\x1b]0;x\a";
  ok(cb_text_terminal_inplace(name, sizeof name) && strlen(name) < sizeof name &&
         !strchr(name, '\x1b') && !strchr(name, '\a'),
     "terminal in place: an OSC title sequence defused within the field (%s)", name);

  char *u = cb_text_utf8_dup("ok \xff\xfe end \xc3\xa9");
  is_str(u, "ok \xef\xbf\xbd\xef\xbf\xbd end \xc3\xa9", "utf8: each bad byte becomes U+FFFD");
  free(u);
  u = cb_text_utf8_dup("\xc0\xaf");
  is_str(u, "\xef\xbf\xbd\xef\xbf\xbd", "utf8: an overlong '/' is two bad bytes");
  free(u);
#if CB_HAVE_JANSSON
  json_t *j = cb_json_text("--out=/tmp/\xe9t\xe9");
  ok(j && strcmp(json_string_value(j), "--out=/tmp/\xef\xbf\xbdt\xef\xbf\xbd") == 0,
     "json: a Latin-1 argument is kept, its bad bytes as U+FFFD (not the field dropped)");
  json_decref(j);
  j = cb_json_text(NULL);
  ok(json_is_null(j), "json: NULL is null");
  json_decref(j);
#else
  ok(1, "# SKIP built without jansson");
  ok(1, "# SKIP built without jansson");
#endif
  return exit_status();
}
