/* json_copy: a parsed value written back (see json_copy.h). */
#include "ui/text/json_copy.h"

void json_copy(struct json_writer *w, const char *key, const struct json_value *v)
{
    switch (v->type) {
    case JSON_NULL:
        json_null(w, key);
        break;
    case JSON_BOOL:
        json_bool(w, key, v->boolean);
        break;
    case JSON_NUMBER:
        json_number_text(w, key, v->text);
        break;
    case JSON_STRING:
        json_string(w, key, v->text);
        break;
    case JSON_ARRAY:
        json_begin_array(w, key);
        for (size_t i = 0; i < v->n; i++)
            json_copy(w, NULL, &v->items[i]);
        json_end_array(w);
        break;
    case JSON_OBJECT:
        json_begin_object(w, key);
        for (size_t i = 0; i < v->n; i++)
            json_copy(w, v->keys[i], &v->items[i]);
        json_end_object(w);
        break;
    }
}
