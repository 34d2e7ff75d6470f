/* data_expr: a recursive-descent parser that evaluates as it parses.
 *
 *   expr     := or                        (integer expressions only)
 *   or       := and { '||' and }
 *   and      := equality { '&&' equality }
 *   equality := relation { ('==' | '!=') relation }
 *   relation := sum { ('<=' | '>=' | '<' | '>') sum }
 *   sum      := product { ('+' | '-') product }
 *   product  := unary { ('*' | '/' | '%') unary }
 *   unary    := '*' unary | ('!' | '-' | '+') unary | postfix
 *   postfix  := primary { '.' name | '->' name | '[' index ']' }
 *   primary  := name [ '::' name ] | '(' expr ')' | number
 *
 * An lvalue (watch) is a unary alone, with constant indices and
 * parentheses around a unary. Each step keeps the text of the operand so
 * far, so errors can say which part of the expression is wrong ("'queue.buf'
 * has no member 'x'"). The side of && or || that is not evaluated, and the
 * whole expression when there is no memory to read, are parsed with
 * `skip` set: types are checked, memory is not read. */
#include "supervisor/debuginfo/data_expr.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/debuginfo/error_text.h"

enum { NAME_LIMIT = 128, CANDIDATE_LIMIT = 64, DEPTH_LIMIT = 32 };

/* An object (lvalue), or with is_value an integer already computed. */
struct operand {
    bool is_value;
    bool literal;           /* a number as written: known even when nothing is read */
    int64_t value;
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
    bool arithmetic;                /* integer expressions, not only lvalues */
    bool skip;                      /* check only: read nothing */
    struct data_expr_result *result;
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

/* token, but not when it begins a longer one ("<" is not "<="). */
static bool accept_alone(struct parser *p, const char *token, const char *not_followed_by)
{
    skip_space(p);
    size_t n = strlen(token);
    if (strncmp(p->s + p->pos, token, n) != 0 || (p->s[p->pos + n] && strchr(not_followed_by, p->s[p->pos + n])))
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

static void rename_operand(struct operand *o, const char *fmt, const char *a, const char *b)
{
    char text[sizeof o->text];
    snprintf(text, sizeof text, fmt, a, b);
    memcpy(o->text, text, sizeof text);
}

/* ---------- objects ---------- */

static bool read_pointer(struct parser *p, const struct operand *o, uint64_t *value)
{
    if (p->skip) {
        *value = 0;
        return true;
    }
    if (!p->rd || !p->rd->read)
        return fail(p, "cannot follow pointer '%s' without reading memory", o->text);
    if (!p->rd->read(p->rd->ctx, o->addr, value, sizeof *value))
        return fail(p, "cannot read '%s' at 0x%" PRIx64, o->text, o->addr);
    if (*value == 0)
        return fail(p, "'%s' is NULL", o->text);
    return true;
}

static bool need_object(struct parser *p, const struct operand *o)
{
    return o->is_value ? fail(p, "'%s' is a number, not an object", o->text) : true;
}

/* *o: through a pointer (read from memory), or an array's first element. */
static bool dereference(struct parser *p, struct operand *o)
{
    if (!need_object(p, o))
        return false;
    const struct dwarf_type *t = dwarf_type_strip(o->type);
    if (t && t->kind == DWARF_TYPE_ARRAY) {
        o->type = t->target;
    } else if (t && t->kind == DWARF_TYPE_POINTER) {
        if (!t->target)
            return fail(p, "'%s' points to void", o->text);
        if (!read_pointer(p, o, &o->addr))
            return false;
        o->type = t->target;
    } else {
        return fail(p, "'%s' is not a pointer", o->text);
    }
    return true;
}

static bool select_member(struct parser *p, struct operand *o, const char *name, bool arrow)
{
    if (!need_object(p, o))
        return false;
    if (!dwarf_type_is_record(o->type))
        return fail(p, "'%s' is not a struct", o->text);
    uint64_t offset;
    const struct dwarf_member *m = dwarf_type_find_member(o->type, name, &offset);
    if (!m)
        return fail(p, "'%s' has no member '%s'", o->text, name);
    rename_operand(o, arrow ? "%s->%s" : "%s.%s", o->text, name);
    if (m->bit_size)
        return fail(p, "'%s' is a bit field: it has no address of its own", o->text);
    o->addr += offset;
    o->type = m->type;
    return true;
}

static bool to_value(struct parser *p, struct operand *o);
static bool parse_expr(struct parser *p, struct operand *o, int depth);

/* The index inside [ ]: a constant for a watch, any integer expression in
 * an invariant. *known is false when it was not computed (skip). */
static bool parse_index(struct parser *p, const struct operand *o, uint64_t *index, char *text, size_t len,
                        bool *known, int depth)
{
    skip_space(p);
    const char *start = p->s + p->pos;
    *known = true;
    if (!p->arithmetic) {
        char *end;
        if (!isdigit((unsigned char)*start))
            return fail(p, "index of '%s' must be a constant number", o->text);
        *index = strtoull(start, &end, 0);
        p->pos += (size_t)(end - start);
        snprintf(text, len, "%" PRIu64, *index);
        return true;
    }
    struct operand i = {0};
    bool was_skipping = p->skip;
    if (!parse_expr(p, &i, depth + 1) || !to_value(p, &i))
        return false;
    *known = i.is_value && (!was_skipping || i.literal);
    if (*known && i.value < 0)
        return fail(p, "negative index %" PRId64 " for '%s'", i.value, o->text);
    *index = *known ? (uint64_t)i.value : 0;
    size_t n = (size_t)(p->s + p->pos - start);
    while (n > 0 && isspace((unsigned char)start[n - 1]))
        n--;
    snprintf(text, len, "%.*s", (int)n, start);
    return true;
}

static bool select_element(struct parser *p, struct operand *o, int depth)
{
    if (!need_object(p, o))
        return false;
    uint64_t index = 0;
    char text[64];
    bool known;
    if (!parse_index(p, o, &index, text, sizeof text, &known, depth))
        return false;
    if (!accept(p, "]"))
        return unexpected(p, "']'");
    const struct dwarf_type *t = dwarf_type_strip(o->type);
    if (!t || (t->kind != DWARF_TYPE_ARRAY && t->kind != DWARF_TYPE_POINTER))
        return fail(p, "'%s' is not an array or a pointer", o->text);
    uint64_t element_size = dwarf_type_size(t->target);
    if (element_size == 0)
        return fail(p, "elements of '%s' have no known size", o->text);
    if (t->kind == DWARF_TYPE_ARRAY) {
        if (known && t->count_known && index >= t->count)
            return fail(p, "index %" PRIu64 " out of bounds for '%s' (size %" PRIu64 ")", index, o->text,
                        t->count);
    } else if (!read_pointer(p, o, &o->addr)) {
        return false;
    }
    char suffix[80];
    snprintf(suffix, sizeof suffix, "[%s]", text);
    rename_operand(o, "%s%s", o->text, suffix);
    o->addr += index * element_size;
    o->type = t->target;
    return true;
}

/* name or function::name. Among several variables of one name, the external
 * one (a global) wins, then the first by address. */
static bool variable(struct parser *p, struct operand *o)
{
    char name[NAME_LIMIT], function[NAME_LIMIT] = "";
    if (!read_name(p, name, sizeof name))
        return unexpected(p, p->arithmetic ? "a variable name or a number" : "a variable name");
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
    if (!v && dwarf_info_split_cu_count(p->dw))
        return fail(p, "no variable named '%s' (%s)", name, DWARF_SPLIT_TEXT);
    if (!v)
        return fail(p, "no variable named '%s'", name);
    snprintf(o->text, sizeof o->text, "%s%s%s", function, function[0] ? "::" : "", name);
    o->is_value = false;
    o->type = v->type;
    if (v->tls) {
        if (!p->tls_block && p->arithmetic)
            return fail(p, "'%s' is thread-local: an invariant is about shared variables", name);
        if (!p->tls_block)
            return fail(p, "'%s' is thread-local: say which thread's copy to watch", name);
        o->addr = *p->tls_block + v->addr;
    } else {
        o->addr = v->addr + (p->rd ? p->rd->bias : 0);
    }
    return true;
}

static bool number(struct parser *p, struct operand *o)
{
    skip_space(p);
    const char *start = p->s + p->pos;
    char *end;
    unsigned long long v = strtoull(start, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (isalnum((unsigned char)*end) || *end == '_' || *end == '.')
        return fail(p, "'%.*s' is not a number", (int)(strcspn(start, " \t()+-*/%<>=!&|")), start);
    p->pos += (size_t)(end - start);
    *o = (struct operand){.is_value = true, .literal = true, .value = (int64_t)v};
    snprintf(o->text, sizeof o->text, "%.*s", (int)(end - start), start);
    return true;
}

static bool parse_unary(struct parser *p, struct operand *o, int depth);

static bool parse_postfix(struct parser *p, struct operand *o, int depth)
{
    skip_space(p);
    if (accept(p, "(")) {
        if (!(p->arithmetic ? parse_expr(p, o, depth + 1) : parse_unary(p, o, depth + 1)))
            return false;
        if (!accept(p, ")"))
            return unexpected(p, "')'");
        rename_operand(o, "(%s)%s", o->text, "");
    } else if (p->arithmetic && isdigit((unsigned char)p->s[p->pos])) {
        return number(p, o);
    } else if (!variable(p, o)) {
        return false;
    }
    for (;;) {
        char name[NAME_LIMIT];
        if (accept(p, "->")) {
            if (!read_name(p, name, sizeof name))
                return unexpected(p, "a member name after '->'");
            const struct dwarf_type *t = o->is_value ? NULL : dwarf_type_strip(o->type);
            if (!t || t->kind != DWARF_TYPE_POINTER)
                return fail(p, "'%s' is not a pointer (use '.')", o->text);
            if (!dereference(p, o) || !select_member(p, o, name, true))
                return false;
        } else if (accept(p, ".")) {
            if (!read_name(p, name, sizeof name))
                return unexpected(p, "a member name after '.'");
            if (!select_member(p, o, name, false))
                return false;
        } else if (accept(p, "[")) {
            if (!select_element(p, o, depth))
                return false;
        } else {
            return true;
        }
    }
}

/* ---------- integers ---------- */

/* Reads a scalar object as the integer it holds. */
static bool to_value(struct parser *p, struct operand *o)
{
    if (o->is_value)
        return true;
    const struct dwarf_type *t = dwarf_type_strip(o->type);
    while (t && t->kind == DWARF_TYPE_ATOMIC)
        t = dwarf_type_strip(t->target);
    char tname[64] = "?";
    dwarf_type_name(o->type, tname, sizeof tname);
    if (!t || (t->kind != DWARF_TYPE_BASE && t->kind != DWARF_TYPE_ENUM && t->kind != DWARF_TYPE_POINTER))
        return fail(p, "'%s' is not a number (it is %s)", o->text, t ? tname : "void");
    if (t->encoding == DWARF_ENC_FLOAT)
        return fail(p, "'%s' is a floating-point number (%s): only integers can be compared", o->text, tname);
    size_t size = dwarf_type_size(t);
    if (size == 0 || size > 8)
        return fail(p, "'%s' has %zu bytes (%s): not an integer mdat can read", o->text, size, tname);
    uint64_t raw = 0;
    if (!p->skip && !p->rd->read(p->rd->ctx, o->addr, &raw, size))
        return fail(p, "cannot read '%s' at 0x%" PRIx64, o->text, o->addr);
    bool is_signed = t->kind != DWARF_TYPE_POINTER &&
                     (t->encoding == DWARF_ENC_SIGNED || t->encoding == DWARF_ENC_SIGNED_CHAR);
    if (is_signed && size < 8 && (raw >> (size * 8 - 1)) & 1)
        raw |= ~0ull << (size * 8);
    o->is_value = true;
    o->value = (int64_t)raw;
    struct data_expr_result *r = p->result;
    if (p->skip || !r)
        return true;
    for (int i = 0; i < r->n_terms; i++)
        if (strcmp(r->terms[i].text, o->text) == 0)
            return true;
    if (r->n_terms < DATA_EXPR_MAX_TERMS) {
        snprintf(r->terms[r->n_terms].text, sizeof r->terms[r->n_terms].text, "%s", o->text);
        r->terms[r->n_terms++].value = o->value;
    }
    return true;
}

static void set_value(struct operand *o, int64_t v, const char *text)
{
    o->is_value = true;
    o->literal = false;
    o->value = v;
    snprintf(o->text, sizeof o->text, "%s", text);
}

static bool parse_unary(struct parser *p, struct operand *o, int depth)
{
    if (depth > DEPTH_LIMIT)
        return fail(p, "expression nests too deeply");
    if (accept(p, "*")) {
        if (!parse_unary(p, o, depth + 1) || !dereference(p, o))
            return false;
        rename_operand(o, "*%s%s", o->text, "");
        return true;
    }
    if (!p->arithmetic)
        return parse_postfix(p, o, depth);
    char op = 0;
    if (accept_alone(p, "!", "="))
        op = '!';
    else if (accept_alone(p, "-", ">-"))
        op = '-';
    else if (accept_alone(p, "+", "+"))
        op = '+';
    if (!op)
        return parse_postfix(p, o, depth);
    if (!parse_unary(p, o, depth + 1) || !to_value(p, o))
        return false;
    /* Negation in unsigned arithmetic: INT64_MIN stays itself, as it wraps in C. */
    int64_t v = op == '!' ? !o->value : op == '-' ? (int64_t)(0 - (uint64_t)o->value) : o->value;
    set_value(o, v, "(value)");
    return true;
}

/* a op b, both integers; false on division by zero. */
static bool apply(struct parser *p, const char *op, int64_t a, int64_t b, int64_t *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if ((op[0] == '/' || op[0] == '%') && b == 0) {
        if (p->skip) {
            *out = 0;
            return true;
        }
        return fail(p, "division by zero");
    }
    if (!strcmp(op, "+")) *out = (int64_t)(ua + ub);
    else if (!strcmp(op, "-")) *out = (int64_t)(ua - ub);
    else if (!strcmp(op, "*")) *out = (int64_t)(ua * ub);
    else if (!strcmp(op, "/")) *out = (a == INT64_MIN && b == -1) ? a : a / b;
    else if (!strcmp(op, "%")) *out = (a == INT64_MIN && b == -1) ? 0 : a % b;
    else if (!strcmp(op, "<")) *out = a < b;
    else if (!strcmp(op, "<=")) *out = a <= b;
    else if (!strcmp(op, ">")) *out = a > b;
    else if (!strcmp(op, ">=")) *out = a >= b;
    else if (!strcmp(op, "==")) *out = a == b;
    else *out = a != b;
    return true;
}

/* The binary operators by precedence, loosest first (&& and || apart:
 * they do not evaluate their right side when the left decides). Each
 * entry: the operator, and characters that must not follow it. */
static const struct { const char *op, *not_followed_by; } LEVELS[][4] = {
    {{"==", ""}, {"!=", ""}},
    {{"<=", ""}, {">=", ""}, {"<", "<="}, {">", ">="}},
    {{"+", "+="}, {"-", "-=>"}},
    {{"*", "="}, {"/", "="}, {"%", "="}},
};
enum { N_LEVELS = sizeof LEVELS / sizeof LEVELS[0] };

static bool parse_level(struct parser *p, struct operand *o, int level, int depth)
{
    if (level == N_LEVELS)
        return parse_unary(p, o, depth);
    if (!parse_level(p, o, level + 1, depth))
        return false;
    for (;;) {
        const char *op = NULL;
        for (int i = 0; i < 4 && LEVELS[level][i].op && !op; i++)
            if (accept_alone(p, LEVELS[level][i].op, LEVELS[level][i].not_followed_by))
                op = LEVELS[level][i].op;
        if (!op)
            return true;
        struct operand right = {0};
        int64_t v = 0;
        if (!to_value(p, o) || !parse_level(p, &right, level + 1, depth) || !to_value(p, &right) ||
            !apply(p, op, o->value, right.value, &v))
            return false;
        set_value(o, v, "(value)");
    }
}

/* and := equality { '&&' equality }; or := and { '||' and }. */
static bool parse_logic(struct parser *p, struct operand *o, bool is_or, int depth)
{
    if (!(is_or ? parse_logic(p, o, false, depth) : parse_level(p, o, 0, depth)))
        return false;
    const char *op = is_or ? "||" : "&&";
    while (accept(p, op)) {
        if (!to_value(p, o))
            return false;
        bool decided = is_or ? o->value != 0 : o->value == 0;
        bool was_skipping = p->skip;
        p->skip = was_skipping || decided;
        struct operand right = {0};
        bool ok = (is_or ? parse_logic(p, &right, false, depth) : parse_level(p, &right, 0, depth)) &&
                  to_value(p, &right);
        p->skip = was_skipping;
        if (!ok)
            return false;
        set_value(o, decided ? is_or : right.value != 0, "(value)");
    }
    return true;
}

static bool parse_expr(struct parser *p, struct operand *o, int depth)
{
    if (depth > DEPTH_LIMIT)
        return fail(p, "expression nests too deeply");
    return parse_logic(p, o, true, depth + 1);
}

/* ---------- entry points ---------- */

/* The whole of p's text as one object: nothing may follow it. */
static bool parse_whole_object(struct parser *p, struct operand *o)
{
    if (!p->dw)
        return fail(p, "the program has no debug information (compile it with -g)");
    if (!parse_unary(p, o, 0))
        return false;
    skip_space(p);
    if (p->s[p->pos])
        return fail(p, "unexpected '%s' after '%s'", p->s + p->pos, o->text);
    return true;
}

bool data_expr_eval(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                    const uint64_t *tls_block, uint64_t *addr, const struct dwarf_type **type,
                    char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    struct parser p = { .s = expr, .dw = dw, .rd = rd, .tls_block = tls_block, .err = err, .errlen = errlen };
    struct operand o = { 0 };
    if (!parse_whole_object(&p, &o))
        return false;
    *addr = o.addr;
    if (type)
        *type = o.type;
    return true;
}

bool data_expr_check_object(const dwarf_info *dw, const char *expr, char *err, size_t errlen)
{
    /* Pointers read as 0 (skip): what they point to is only checked for
     * its type, and a thread-local variable is any thread's. */
    static const uint64_t any_tls_block = 0;
    error_text(err, errlen, "%s", "");
    struct parser p = {.s = expr, .dw = dw, .tls_block = &any_tls_block, .err = err, .errlen = errlen, .skip = true};
    struct operand o = {0};
    return parse_whole_object(&p, &o);
}


bool data_expr_value(const dwarf_info *dw, const char *expr, const struct data_reader *rd,
                     struct data_expr_result *out, char *err, size_t errlen)
{
    error_text(err, errlen, "%s", "");
    memset(out, 0, sizeof *out);
    struct parser p = {.s = expr, .dw = dw, .rd = rd, .err = err, .errlen = errlen, .arithmetic = true,
                       .skip = !rd || !rd->read, .result = out};
    struct operand o = {0};
    if (!dw)
        return fail(&p, "the program has no debug information (compile it with -g)");
    if (!parse_expr(&p, &o, 0) || !to_value(&p, &o))
        return false;
    skip_space(&p);
    if (p.s[p.pos])
        return fail(&p, "unexpected '%s' after '%.*s'", p.s + p.pos, (int)p.pos, p.s);
    out->value = o.value;
    return true;
}
