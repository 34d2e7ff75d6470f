/* json_reader: recursive descent over RFC 8259 into a tree of json_value. */
#include "ui/text/json_reader.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_NESTING = 64 };

struct parser {
    const char *p, *end, *start;
    char *err;
    size_t errlen;
    bool failed;
};

static bool fail(struct parser *ps, const char *what)
{
    if (!ps->failed) {
        int line = 1;
        for (const char *q = ps->start; q < ps->p && q < ps->end; q++)
            line += *q == '\n';
        snprintf(ps->err, ps->errlen, "line %d: %s", line, what);
        ps->failed = true;
    }
    return false;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static bool literal(struct parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail(ps, "unexpected text");
    ps->p += n;
    return true;
}

/* Growable byte buffer for strings. */
struct buf {
    char *data;
    size_t len, cap;
};

static void buf_add(struct buf *b, const void *bytes, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        if (!b->data)
            abort();
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_add_code_point(struct buf *b, unsigned long cp)
{
    unsigned char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        out[0] = (unsigned char)(0xf0 | (cp >> 18));
        out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        out[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    buf_add(b, out, n);
}

static bool hex4(struct parser *ps, unsigned long *out)
{
    if (ps->end - ps->p < 4)
        return fail(ps, "truncated \\u escape");
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned long)(c - 'A' + 10);
        else
            return fail(ps, "bad \\u escape");
    }
    *out = v;
    return true;
}

/* At the opening quote; on success the string is in *b (always allocated). */
static bool parse_string(struct parser *ps, struct buf *b)
{
    buf_add(b, "", 0);
    ps->p++;
    for (;;) {
        if (ps->p >= ps->end)
            return fail(ps, "unterminated string");
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            return true;
        }
        if (c < 0x20)
            return fail(ps, "control character in a string");
        if (c != '\\') {
            buf_add(b, ps->p++, 1);
            continue;
        }
        if (++ps->p >= ps->end)
            return fail(ps, "unterminated string");
        char e = *ps->p++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            static const char with[] = "\"\\/\b\f\n\r\t";
            buf_add(b, &with[simple - "\"\\/bfnrt"], 1);
            continue;
        }
        if (e != 'u')
            return fail(ps, "bad escape in a string");
        unsigned long cp;
        if (!hex4(ps, &cp))
            return false;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned long low;
            if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
                return fail(ps, "lone surrogate in a string");
            ps->p += 2;
            if (!hex4(ps, &low))
                return false;
            if (low < 0xdc00 || low > 0xdfff)
                return fail(ps, "lone surrogate in a string");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return fail(ps, "lone surrogate in a string");
        }
        buf_add_code_point(b, cp);
    }
}

static bool parse_number(struct parser *ps, struct json_value *v)
{
    const char *s = ps->p;
    if (ps->p < ps->end && *ps->p == '-')
        ps->p++;
    if (ps->p < ps->end && *ps->p == '0')
        ps->p++;
    else if (ps->p < ps->end && *ps->p >= '1' && *ps->p <= '9')
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    else
        return fail(ps, "bad number");
    if (ps->p < ps->end && *ps->p == '.') {
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "bad number");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
            ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
            return fail(ps, "bad number");
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
            ps->p++;
    }
    v->type = JSON_NUMBER;
    v->text_len = (size_t)(ps->p - s);
    v->text = strndup(s, v->text_len);
    return v->text != NULL;
}

static bool parse_value(struct parser *ps, struct json_value *v, int depth);

/* Elements of an array or members of an object, after the opening bracket. */
static bool parse_container(struct parser *ps, struct json_value *v, int depth, bool object)
{
    v->type = object ? JSON_OBJECT : JSON_ARRAY;
    char close = object ? '}' : ']';
    if (depth >= MAX_NESTING)
        return fail(ps, "nested too deep");
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return true;
    }
    size_t cap = 0;
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 8;
            v->items = realloc(v->items, cap * sizeof *v->items);
            if (object)
                v->keys = realloc(v->keys, cap * sizeof *v->keys);
            if (!v->items || (object && !v->keys))
                abort();
        }
        struct json_value *item = &v->items[v->n];
        memset(item, 0, sizeof *item);
        if (object) {
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "expected a member name");
            struct buf key = {0};
            bool ok = parse_string(ps, &key);
            v->keys[v->n] = key.data;
            v->n++;     /* counted now so that json_value_free frees the key */
            if (!ok)
                return false;
            skip_space(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "expected ':'");
            ps->p++;
        } else {
            v->n++;
        }
        if (!parse_value(ps, item, depth + 1))
            return false;
        skip_space(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return true;
        }
        return fail(ps, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static bool parse_value(struct parser *ps, struct json_value *v, int depth)
{
    skip_space(ps);
    if (ps->p >= ps->end)
        return fail(ps, "unexpected end of the document");
    switch (*ps->p) {
    case '{':
        return parse_container(ps, v, depth, true);
    case '[':
        return parse_container(ps, v, depth, false);
    case '"': {
        struct buf b = {0};
        bool ok = parse_string(ps, &b);
        v->type = JSON_STRING;
        v->text = b.data;
        v->text_len = b.len;
        return ok;
    }
    case 't':
        v->type = JSON_BOOL;
        v->boolean = true;
        return literal(ps, "true");
    case 'f':
        v->type = JSON_BOOL;
        return literal(ps, "false");
    case 'n':
        v->type = JSON_NULL;
        return literal(ps, "null");
    default:
        return parse_number(ps, v);
    }
}

static void free_inside(struct json_value *v)
{
    for (size_t i = 0; i < v->n; i++) {
        free_inside(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

void json_value_free(struct json_value *v)
{
    if (v) {
        free_inside(v);
        free(v);
    }
}

struct json_value *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
    struct parser ps = {.p = text, .end = text + len, .start = text, .err = err, .errlen = errlen};
    struct json_value *v = calloc(1, sizeof *v);
    if (!v)
        abort();
    bool ok = parse_value(&ps, v, 0);
    if (ok) {
        skip_space(&ps);
        if (ps.p != ps.end)
            ok = fail(&ps, "text after the document");
    }
    if (!ok) {
        json_value_free(v);
        return NULL;
    }
    return v;
}

struct json_value *json_parse_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rbe");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not a JSON file", path);
        fclose(f);
        return NULL;
    }
    /* Bounded before parsing: a document never holds a NUL byte (/dev/zero
     * is refused at its first chunk), nor more than JSON_MAX_FILE bytes. */
    struct buf b = {0};
    char chunk[65536];
    size_t n;
    const char *refused = NULL;
    buf_add(&b, "", 0);
    while (!refused && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (memchr(chunk, '\0', n))
            refused = "a NUL byte: not a text file";
        else if (b.len + n > JSON_MAX_FILE)
            refused = "larger than " JSON_MAX_FILE_TEXT;
        else
            buf_add(&b, chunk, n);
    }
    bool read_error = !refused && ferror(f);
    fclose(f);
    if (refused || read_error) {
        if (refused)
            snprintf(err, errlen, "%s is not a JSON document mdat reads (%s)", path, refused);
        else
            snprintf(err, errlen, "cannot read %s", path);
        free(b.data);
        return NULL;
    }
    char why[200];
    struct json_value *v = json_parse(b.data, b.len, why, sizeof why);
    free(b.data);
    if (!v)
        snprintf(err, errlen, "%s is not valid JSON (%s)", path, why);
    return v;
}

const struct json_value *json_member(const struct json_value *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT)
        return NULL;
    for (size_t i = v->n; i-- > 0;)
        if (strcmp(v->keys[i], key) == 0)
            return &v->items[i];
    return NULL;
}

const char *json_member_string(const struct json_value *v, const char *key)
{
    const struct json_value *m = json_member(v, key);
    return m && m->type == JSON_STRING ? m->text : "";
}

bool json_member_u64(const struct json_value *v, const char *key, uint64_t *out)
{
    const struct json_value *m = json_member(v, key);
    if (!m || m->type != JSON_NUMBER || m->text[0] == '-' || strpbrk(m->text, ".eE"))
        return false;
    errno = 0;
    unsigned long long x = strtoull(m->text, NULL, 10);
    if (errno)
        return false;
    *out = x;
    return true;
}

bool json_member_double(const struct json_value *v, const char *key, double *out)
{
    const struct json_value *m = json_member(v, key);
    if (!m || m->type != JSON_NUMBER)
        return false;
    *out = strtod(m->text, NULL);
    return true;
}

bool json_member_true(const struct json_value *v, const char *key)
{
    const struct json_value *m = json_member(v, key);
    return m && m->type == JSON_BOOL && m->boolean;
}

bool json_equal(const struct json_value *a, const struct json_value *b)
{
    if (a->type != b->type || a->n != b->n)
        return false;
    switch (a->type) {
    case JSON_NULL:
        return true;
    case JSON_BOOL:
        return a->boolean == b->boolean;
    case JSON_NUMBER:
    case JSON_STRING:
        return a->text_len == b->text_len && memcmp(a->text, b->text, a->text_len) == 0;
    case JSON_ARRAY:
    case JSON_OBJECT:
        for (size_t i = 0; i < a->n; i++) {
            if (a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0)
                return false;
            if (!json_equal(&a->items[i], &b->items[i]))
                return false;
        }
        return true;
    }
    return false;
}
