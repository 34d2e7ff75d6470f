/* cxx_names: demangling and the text rules on demangled C++ names.
 *
 * A demangled name is read with one small scanner: brackets of every kind
 * nest ("<>", "()", "[]", "{}": "{lambda()#1}" is one token), and operator
 * names ("operator()", "operator<<", "operator new[]") are skipped whole so
 * that their brackets do not count. What is at depth 0 is the name's
 * structure: its scopes ("::"), its parameter list (the last "(...)" group
 * not followed by "::"), and the space after a return type. */
#include "supervisor/debuginfo/cxx_names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (cxxabi.h declares it in namespace abi, with C
 * linkage): a malloc'd string, status 0 on success. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

static void copy_span(char *buf, size_t len, const char *s, size_t n)
{
    if (len == 0)
        return;
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

bool cxx_demangle(const char *mangled, char *buf, size_t len)
{
    copy_span(buf, len, "", 0);
    if (!mangled || strncmp(mangled, "_Z", 2) != 0)
        return false;
    int status = -1;
    char *text = __cxa_demangle(mangled, NULL, NULL, &status);
    bool ok = text && status == 0;
    if (ok)
        copy_span(buf, len, text, strlen(text));
    free(text);
    return ok;
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* If an operator name starts at s[i], the index just after it, else i. */
static size_t skip_operator(const char *s, size_t i)
{
    if (strncmp(s + i, "operator", 8) != 0 || (i > 0 && is_ident(s[i - 1])) || is_ident(s[i + 8]))
        return i;
    size_t j = i + 8;
    if ((s[j] == '(' && s[j + 1] == ')') || (s[j] == '[' && s[j + 1] == ']'))
        return j + 2;
    if (s[j] == ' ' || s[j] == '"') {
        /* operator new[], operator delete, a conversion (operator bool,
         * operator std::string): up to the parameter list. */
        int depth = 0;
        for (j++; s[j] && !(depth == 0 && s[j] == '('); j++) {
            if (s[j] == '<' || s[j] == '[')
                depth++;
            else if ((s[j] == '>' || s[j] == ']') && depth > 0)
                depth--;
        }
        return j;
    }
    while (s[j] && strchr("+-*/%^&|~!=<>,", s[j]))
        j++;
    return j;
}

static bool opens(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static bool closes(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }

/* The structure of s[0, n) at depth 0. */
struct shape {
    size_t params;      /* the parameter list's '(' (n when none) */
    size_t params_end;  /* just after its ')' */
    size_t name_start;  /* after the return type's space (0 when none) */
    size_t last_scope;  /* the last "::" (SIZE_MAX when none) */
};

static struct shape scan(const char *s, size_t n)
{
    struct shape sh = { n, n, 0, SIZE_MAX };
    size_t group_open = 0, prev_params = n, prev_end = n;
    int depth = 0;
    for (size_t i = 0; i < n;) {
        size_t k = skip_operator(s, i);
        if (k != i) {
            i = k;
            continue;
        }
        char c = s[i];
        if (opens(c)) {
            if (depth == 0 && c == '(') {
                group_open = i;
                prev_params = sh.params;
                prev_end = sh.params_end;
            }
            depth++;
        } else if (closes(c) && depth > 0) {
            depth--;
            if (depth == 0 && c == ')') {
                sh.params = group_open;
                sh.params_end = i + 1;
                /* "(anonymous namespace)::x" or an enclosing function's
                 * parameters: a scope, not this name's parameters. */
                if (strncmp(s + i + 1, "::", 2) == 0 || strncmp(s + i + 1, " const::", 8) == 0) {
                    sh.params = prev_params;
                    sh.params_end = prev_end;
                }
            }
        } else if (depth == 0 && c == ':' && s[i + 1] == ':') {
            sh.last_scope = i;
            i += 2;
            continue;
        }
        i++;
    }
    /* The return type ends at the last space at depth 0 before the name
     * that does not follow a ')' (" const" of an enclosing function). */
    depth = 0;
    for (size_t i = 0; i < sh.params && sh.params < n;) {
        size_t k = skip_operator(s, i);
        if (k != i) {
            i = k;
            continue;
        }
        char c = s[i];
        if (opens(c))
            depth++;
        else if (closes(c) && depth > 0)
            depth--;
        else if (depth == 0 && c == ' ' && i > 0 && s[i - 1] != ')')
            sh.name_start = i + 1;
        i++;
    }
    if (sh.last_scope != SIZE_MAX && sh.last_scope < sh.name_start)
        sh.last_scope = SIZE_MAX;
    return sh;
}

void cxx_signature_name(const char *signature, char *buf, size_t len)
{
    size_t n = strlen(signature);
    struct shape sh = scan(signature, n);
    copy_span(buf, len, signature + sh.name_start, sh.params - sh.name_start);
}

/* Removes every "(anonymous namespace)::" from s, in place. */
static void drop_anonymous_namespaces(char *s)
{
    static const char anon[] = "(anonymous namespace)::";
    char *at;
    while ((at = strstr(s, anon)) != NULL)
        memmove(at, at + sizeof anon - 1, strlen(at + sizeof anon - 1) + 1);
}

static void readable(const char *signature, char *buf, size_t len, int depth)
{
    char name[512];
    cxx_signature_name(signature, name, sizeof name);
    drop_anonymous_namespaces(name);
    size_t n = strlen(name);
    struct shape sh = scan(name, n);
    /* scope::{lambda(...)#N}::operator() */
    if (depth < 4 && sh.last_scope != SIZE_MAX && strcmp(name + sh.last_scope, "::operator()") == 0) {
        size_t scope_len = sh.last_scope;
        struct shape outer = scan(name, scope_len);
        size_t comp = outer.last_scope == SIZE_MAX ? 0 : outer.last_scope + 2;
        if (strncmp(name + comp, "{lambda", 7) == 0) {
            if (comp == 0) {
                copy_span(buf, len, "lambda", 6);
                return;
            }
            char enclosing[512], inner[512];
            copy_span(enclosing, sizeof enclosing, name, comp - 2);
            readable(enclosing, inner, sizeof inner, depth + 1);
            char text[600];
            size_t k = (size_t)snprintf(text, sizeof text, "lambda in %s", inner);
            copy_span(buf, len, text, k < sizeof text ? k : sizeof text - 1);
            return;
        }
    }
    copy_span(buf, len, name, n);
}

void cxx_readable_function(const char *signature, char *buf, size_t len)
{
    readable(signature, buf, len, 0);
}

void cxx_readable_symbol(const char *name, bool is_function, char *buf, size_t len)
{
    char demangled[1024];
    if (!cxx_demangle(name, demangled, sizeof demangled)) {
        copy_span(buf, len, name, strlen(name));
        return;
    }
    if (is_function)
        cxx_readable_function(demangled, buf, len);
    else
        copy_span(buf, len, demangled, strlen(demangled));
}

/* Longer library names make the trace's where column unreadable. */
enum { LIBRARY_CALL_MAX = 64 };

/* Template arguments taken out: "std::unique_lock<std::mutex>::unique_lock"
 * -> "std::unique_lock::unique_lock". */
static void drop_template_args(const char *name, char *buf, size_t len)
{
    size_t used = 0;
    int depth = 0;
    for (const char *p = name; *p && used + 1 < len; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (depth == 0)
            buf[used++] = *p;
    }
    buf[used] = '\0';
}

bool cxx_library_call_name(const char *mangled, char *buf, size_t len)
{
    char readable[512];
    buf[0] = '\0';
    cxx_readable_symbol(mangled, true, readable, sizeof readable);
    if (!readable[0] || !strstr(readable, "::"))
        return false;
    if (strlen(readable) <= LIBRARY_CALL_MAX)
        snprintf(buf, len, "%s", readable);
    else
        drop_template_args(readable, buf, len);
    return buf[0] != '\0';
}

void cxx_function_label(const char *pretty, char *buf, size_t len)
{
    size_t n = strlen(pretty);
    struct shape sh = scan(pretty, n);
    if (sh.params == n && !strchr(pretty, '(')) {
        char text[512];
        size_t k = (size_t)snprintf(text, sizeof text, "%s()", pretty);
        copy_span(buf, len, text, k < sizeof text ? k : sizeof text - 1);
        return;
    }
    copy_span(buf, len, pretty + sh.name_start, n - sh.name_start);
}

bool cxx_first_template_arg(const char *name, const char *templ, char *buf, size_t len)
{
    copy_span(buf, len, "", 0);
    size_t tl = strlen(templ);
    const char *at = name;
    while ((at = strstr(at, templ)) != NULL) {
        if ((at == name || !is_ident(at[-1])) && at[tl] == '<')
            break;
        at += tl;
    }
    if (!at)
        return false;
    const char *start = at + tl + 1;
    int depth = 0;
    size_t i = 0;
    for (; start[i]; i++) {
        size_t k = skip_operator(start, i);
        if (k != i) {
            i = k - 1;
            continue;
        }
        char c = start[i];
        if (opens(c))
            depth++;
        else if (closes(c) && depth > 0)
            depth--;
        else if (depth == 0 && (c == ',' || c == '>'))
            break;
    }
    if (!start[i])
        return false;
    while (i > 0 && start[i - 1] == ' ')
        i--;
    while (i > 0 && *start == ' ') {
        start++;
        i--;
    }
    copy_span(buf, len, start, i);
    return i > 0;
}

enum cxx_callable_kind cxx_callable_kind(const char *type, char *cls, size_t len)
{
    copy_span(cls, len, "", 0);
    /* "R (*)(A)" and "R (C::*)(A)": a '(' group at depth 0 followed by another. */
    int depth = 0;
    size_t open = 0;
    for (size_t i = 0; type[i]; i++) {
        char c = type[i];
        if (opens(c)) {
            if (depth == 0)
                open = i;
            depth++;
        } else if (closes(c) && depth > 0) {
            depth--;
            if (depth == 0 && c == ')' && type[open] == '(' && type[i + 1] == '(') {
                const char *inner = type + open + 1;
                size_t n = i - open - 1;
                if (n >= 1 && inner[n - 1] == '*') {
                    if (n >= 3 && strncmp(inner + n - 3, "::*", 3) == 0) {
                        copy_span(cls, len, inner, n - 3);
                        return CXX_CALLABLE_MEMBER_POINTER;
                    }
                    return CXX_CALLABLE_FUNCTION_POINTER;
                }
            }
        }
    }
    return CXX_CALLABLE_CLASS;
}
