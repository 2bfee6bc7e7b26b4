/* Escaping for the two places strings read from input files reach: gnuplot
 * scripts and HTML. Nothing read from an input is ever executed, so every
 * such string goes through one of these. */
#ifndef CB_REPORT_ESCAPE_H
#define CB_REPORT_ESCAPE_H

#include <stdio.h>

/* Longest input string put into a gnuplot title; longer ones are cut. */
#define CB_GP_MAX_STRING 160

/* Writes s as a single-quoted gnuplot string, quotes included. Inside single
 * quotes gnuplot evaluates no backquotes, macros or system(); a quote is
 * doubled, control characters become spaces. */
void cb_gp_put_string(FILE *f, const char *s);

/* Writes s HTML-escaped (& < > " ' become entities; control characters
 * other than tab and newline become spaces). */
void cb_html_put(FILE *f, const char *s);

/* Writes s escaped as one table cell, <td>s</td> (NULL: an empty one). */
void cb_html_cell(FILE *f, const char *s);

#endif
