/*
 * The end of a command's output, for an error message. A tool that fails says why at the
 * end: rt-app 1.0 prints its notices first and the perror() line that failed it last
 * ("pthread_setschedparam: Operation not permitted"), cyclictest its two lines of reason,
 * a shell its last command's error. The first line of stderr names none of those.
 */
#ifndef KVB_TAIL_H
#define KVB_TAIL_H

#include <stddef.h>

/*
 * The last max_lines non-blank lines of text (CR and trailing blanks dropped), in order,
 * joined by " | ", at most max_chars bytes: when longer, the start is cut and "..." put in
 * its place, so the last line (the reason) survives. "" for NULL or blank text. Owned.
 */
char *kvb_text_tail(const char *text, unsigned max_lines, size_t max_chars);

#endif
