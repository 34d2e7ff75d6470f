/* json_copy: writing a value read by json_reader back out through a
 * json_writer, as it was (numbers as written), so that a document made of
 * parts of others (mdat merge) keeps them exactly. */
#ifndef MDAT_UI_JSON_COPY_H
#define MDAT_UI_JSON_COPY_H

#include "ui/text/json_reader.h"
#include "ui/text/json_writer.h"

/* v under key (NULL: an array element). */
void json_copy(struct json_writer *w, const char *key, const struct json_value *v);

#endif
