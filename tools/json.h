/* tools/json.h - JSON string literals for the command's JSON lines and
 * its results journal. */
#ifndef FGT_JSON_H
#define FGT_JSON_H

#include <stdio.h>

/* Writes s to f as a JSON string literal, quotes included.  Valid UTF-8
 * is copied; control characters are escaped; each byte that is not part
 * of valid UTF-8 (a file name in Latin-1, say) becomes \udcXX, the lone
 * surrogate that Python's "surrogateescape" maps back to that byte
 * (os.fsencode), so the output stays valid UTF-8 and names a file
 * exactly. */
void fgt_json_str(FILE *f, const char *s);

#endif
