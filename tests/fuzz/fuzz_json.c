/* fuzz_json: libFuzzer target for the JSON reader mdat merge reads shard
 * reports with (json_parse): any bytes parse or are refused with a message
 * naming a line, never a crash, a leak or unbounded recursion. */
#include "ui/text/json_reader.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[200] = "";
    struct json_value *v = json_parse((const char *)data, size, err, sizeof err);
    if (!v && !err[0])
        abort();    /* every refusal says why */
    if (v && !json_equal(v, v))
        abort();
    json_value_free(v);
    return 0;
}
