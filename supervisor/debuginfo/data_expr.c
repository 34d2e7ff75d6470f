/* data_expr: a recursive-descent parser that evaluates as it parses.
 *
 *   unary   := '*' unary | postfix
 *   postfix := primary { '.' name | '->' name | '[' number ']' }
 *   primary := name [ '::' name ] | '(' unary ')'
 *
 * Each step keeps the text of the lvalue so far, so errors can say which
 * part of the expression is wrong ("'queue.buf' has no member 'x'"). */
#include "supervisor/debuginfo/data_expr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/error_text.h"

enum { NAME_LIMIT = 128, CANDIDATE_LIMIT = 64 };

struct lvalue {
    uint64_t addr;
    const struct dwarf_type *type;
    char text[160];
};

struct parser {
    const char *s;
    size_t pos;
    const dwarf_info *dw;
    const struct data_reader *rd;
    const uint64_t *tls_block;
    char *err;
    size_t errlen;
    bool failed;
};

__attribute__((format(printf, 2, 3))) static bool fail(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return false;
    p->failed = true;
    if (p->err && p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

static void skip_space(struct parser *p)
{
    while (isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static bool accept(struct parser *p, const char *token)
{
    skip_space(p);
    size_t n = strlen(token);
    if (strncmp(p->s + p->pos, token, n) != 0)
        return false;
    p->pos += n;
    return true;
}

static bool read_name(struct parser *p, char *name, size_t size)
{
    skip_space(p);
    size_t start = p->pos;
    if (!isalpha((unsigned char)p->s[start]) && p->s[start] != '_')
        return false;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_')
        p->pos++;
    size_t n = p->pos - start;
    if (n >= size)
        n = size - 1;
    memcpy(name, p->s + start, n);
    name[n] = '\0';
    return true;
}

static bool unexpected(struct parser *p, const char *wanted)
{
    skip_space(p);
    if (!p->s[p->pos])
        return fail(p, "expected %s at the end of '%s'", wanted, p->s);
    return fail(p, "expected %s at '%s'", wanted, p->s + p->pos);
}

static void rename_lvalue(struct lvalue *lv, const char *fmt, const char *a, const char *b)
{
    char text[sizeof lv->text];
    snprintf(text, sizeof text, fmt, a, b);
    memcpy(lv->text, text, sizeof text);
}

static bool read_pointer(struct parser *p, const struct lvalue *lv, uint64_t *value)
{
    if (!p->rd || !p->rd->read)
        return fail(p, "cannot follow pointer '%s' without reading memory", lv->text);
    if (!p->rd->read(p->rd->ctx, lv->addr, value, sizeof *value))
        return fail(p, "cannot read '%s' at 0x%" PRIx64, lv->text, lv->addr);
    if (*value == 0)
        return fail(p, "'%s' is NULL", lv->text);
    return true;
}

/* *lv: through a pointer (read from memory), or an array's first element. */
static bool dereference(struct parser *p, struct lvalue *lv)
{
    const struct dwarf_type *t = dwarf_type_strip(lv->type);
    if (t && t->kind == DWARF_TYPE_ARRAY) {
        lv->type = t->target;
    } else if (t && t->kind == DWARF_TYPE_POINTER) {
        if (!t->target)
            return fail(p, "'%s' points to void", lv->text);
        if (!read_pointer(p, lv, &lv->addr))
            return false;
        lv->type = t->target;
    } else {
        return fail(p, "'%s' is not a pointer", lv->text);
    }
    return true;
}

static bool select_member(struct parser *p, struct lvalue *lv, const char *name, bool arrow)
{
    if (!dwarf_type_is_record(lv->type))
        return fail(p, "'%s' is not a struct", lv->text);
    uint64_t offset;
    const struct dwarf_member *m = dwarf_type_find_member(lv->type, name, &offset);
    if (!m)
        return fail(p, "'%s' has no member '%s'", lv->text, name);
    rename_lvalue(lv, arrow ? "%s->%s" : "%s.%s", lv->text, name);
    if (m->bit_size)
        return fail(p, "'%s' is a bit field: it has no address of its own", lv->text);
    lv->addr += offset;
    lv->type = m->type;
    return true;
}

static bool select_element(struct parser *p, struct lvalue *lv)
{
    skip_space(p);
    const char *start = p->s + p->pos;
    char *end;
    if (!isdigit((unsigned char)*start))
        return fail(p, "index of '%s' must be a constant number", lv->text);
    uint64_t index = strtoull(start, &end, 0);
    p->pos += (size_t)(end - start);
    if (!accept(p, "]"))
        return unexpected(p, "']'");

    const struct dwarf_type *t = dwarf_type_strip(lv->type);
    if (!t || (t->kind != DWARF_TYPE_ARRAY && t->kind != DWARF_TYPE_POINTER))
        return fail(p, "'%s' is not an array or a pointer", lv->text);
    uint64_t element_size = dwarf_type_size(t->target);
    if (element_size == 0)
        return fail(p, "elements of '%s' have no known size", lv->text);
    if (t->kind == DWARF_TYPE_ARRAY) {
        if (t->count_known && index >= t->count)
            return fail(p, "index %" PRIu64 " out of bounds for '%s' (size %" PRIu64 ")", index,
                        lv->text, t->count);
    } else if (!read_pointer(p, lv, &lv->addr)) {
        return false;
    }
    char suffix[32];
    snprintf(suffix, sizeof suffix, "[%" PRIu64 "]", index);
    rename_lvalue(lv, "%s%s", lv->text, suffix);
    lv->addr += index * element_size;
    lv->type = t->target;
    return true;
}

/* name or function::name. Among several variables of one name, the external
 * one (a global) wins, then the first by address. */
static bool variable(struct parser *p, struct lvalue *lv)
{
    char name[NAME_LIMIT], function[NAME_LIMIT] = "";
    if (!read_name(p, name, sizeof name))
        return unexpected(p, "a variable name");
    if (accept(p, "::")) {
        memcpy(function, name, sizeof name);
        if (!read_name(p, name, sizeof name))
            return unexpected(p, "a variable name after '::'");
    }
    const struct dwarf_variable *found[CANDIDATE_LIMIT];
    size_t count = dwarf_info_variables_named(p->dw, name, found, CANDIDATE_LIMIT);
    if (count > CANDIDATE_LIMIT)
        count = CANDIDATE_LIMIT;
    const struct dwarf_variable *v = NULL;
    for (size_t i = 0; i < count && !v; i++)
        if (!function[0] || (found[i]->function && strcmp(found[i]->function, function) == 0))
            v = found[i];
    if (!v && function[0])
        return fail(p, "no static variable '%s' in function '%s'", name, function);
    if (!v)
        return fail(p, "no variable named '%s'", name);
    snprintf(lv->text, sizeof lv->text, "%s", name);
    lv->type = v->type;
    if (v->tls) {
        if (!p->tls_block)
            return fail(p, "'%s' is thread-local: say which thread's copy to watch", name);
        lv->addr = *p->tls_block + v->addr;
    } else {
        lv->addr = v->addr + (p->rd ? p->rd->bias : 0);
    }
    return true;
}

static bool parse_unary(struct parser *p, struct lvalue *lv, int depth);

static bool parse_postfix(struct parser *p, struct lvalue *lv, int depth)
{
    if (accept(p, "(")) {
        if (!parse_unary(p, lv, depth + 1))
            return false;
        if (!accept(p, ")"))
            return unexpected(p, "')'");
        rename_lvalue(lv, "(%s)%s", lv->text, "");
    } else if (!variable(p, lv)) {
        return false;
    }
    for (;;) {
        char name[NAME_LIMIT];
        if (accept(p, "->")) {
            if (!read_name(p, name, sizeof name))
                return unexpected(p, "a member name after '->'");
            const struct dwarf_type *t = dwarf_type_strip(lv->type);
            if (!t || t->kind != DWARF_TYPE_POINTER)
                return fail(p, "'%s' is not a pointer (use '.')", lv->text);
            if (!dereference(p, lv) || !select_member(p, lv, name, true))
                return false;
        } else if (accept(p, ".")) {
            if (!read_name(p, name, sizeof name))
                return unexpected(p, "a member name after '.'");
            if (!select_member(p, lv, name, false))
                return false;
        } else if (accept(p, "[")) {
            if (!select_element(p, lv))
                return false;
        } else {
            return true;
        }
    }
}

static bool parse_unary(struct parser *p, struct lvalue *lv, int depth)
{
    if (depth > 32)
        return fail(p, "expression nests too deeply");
    if (!accept(p, "*"))
        return parse_postfix(p, lv, depth);
    if (!parse_unary(p, lv, depth + 1) || !dereference(p, lv))
        return false;
    rename_lvalue(lv, "*%s%s", lv->text, "");
    return true;
}

bool data_expr_eval(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                    const uint64_t *tls_block, uint64_t *addr, const struct dwarf_type **type,
                    char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    struct parser p = { .s = expr, .dw = dw, .rd = rd, .tls_block = tls_block, .err = err, .errlen = errlen };
    struct lvalue lv = { 0 };
    if (!dw)
        return fail(&p, "the program has no debug information (compile it with -g)");
    if (!parse_unary(&p, &lv, 0))
        return false;
    skip_space(&p);
    if (p.s[p.pos])
        return fail(&p, "unexpected '%s' after '%s'", p.s + p.pos, lv.text);
    *addr = lv.addr;
    if (type)
        *type = lv.type;
    return true;
}
