/* "Did you mean": the known name closest to a mistyped word (an option, an
 * op, a backend, a memory kind), so a refusal says what to type. */
#ifndef CB_SUGGEST_H
#define CB_SUGGEST_H

/* The closest of the n names name_of(0..n-1) to word, by edit distance
 * (insert, delete, replace, swap of neighbours; case ignored), when it is
 * near enough to be a typo: at most 1 edit for words of up to 4
 * characters, 2 up to 8, 3 beyond. NULL when none is. */
const char *cb_suggest(const char *word, const char *(*name_of)(int), int n);

/* The same over a NULL-ended list of names. */
const char *cb_suggest_in(const char *word, const char *const *names);

/* ", did you mean 'NAME'?" for a message, or "" when nothing is near. */
const char *cb_suggest_text(const char *suggestion, char *buf, int len);

#endif
