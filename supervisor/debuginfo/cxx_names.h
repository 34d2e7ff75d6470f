/* cxx_names: C++ names as a student reads them.
 *
 * Owns demangling (libstdc++'s abi::__cxa_demangle: the compiler's own
 * demangler, no package beyond the C++ runtime gcc installs) and the text
 * rules on demangled names: a function's name without its return type,
 * parameters and qualifiers ("void swap<int>(int&, int&)" -> "swap<int>"),
 * a lambda's call operator as "lambda in main", __PRETTY_FUNCTION__ as a
 * report prints it once ("main(int, char**)"), and the template arguments
 * and callable kinds that say what a std::thread runs. Pure text: nothing
 * here reads a file or the traced program. */
#ifndef MDAT_SUPERVISOR_CXX_NAMES_H
#define MDAT_SUPERVISOR_CXX_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Demangles an Itanium C++ symbol ("_ZN7Account7depositEi" ->
 * "Account::deposit(int)", "_ZTV..." -> "vtable for ..."). False, with buf
 * "", when name is not a mangled C++ name or does not demangle. */
bool cxx_demangle(const char *mangled, char *buf, size_t len);

/* The name part of a demangled function: return type, parameters and
 * qualifiers taken off ("void swap<int>(int&, int&)" -> "swap<int>",
 * "Account::deposit(int) const" -> "Account::deposit",
 * "main::{lambda()#1}::operator()() const" -> "main::{lambda()#1}::operator()").
 * A name without parameters (a variable, "vtable for X") is copied. */
void cxx_signature_name(const char *signature, char *buf, size_t len);

/* A demangled function as mdat shows it: its name part, without
 * "(anonymous namespace)::", and a lambda's operator() as "lambda in" its
 * enclosing function ("lambda in main", "lambda in Account::deposit",
 * "lambda" at namespace scope). */
void cxx_readable_function(const char *signature, char *buf, size_t len);

/* A demangled or plain symbol as mdat shows it: a C++ function readable,
 * anything else demangled ("vtable for Account"), a C name as it is. */
void cxx_readable_symbol(const char *name, bool is_function, char *buf, size_t len);

/* A C++ library function as mdat puts it beside the user's line, from
 * its mangled name: readable, and without template arguments when it is
 * still too long to read with them ("std::unique_lock<std::mutex>::
 * unique_lock", "std::deque::deque"). False, with buf "", when the name is
 * not a member of a namespace or class. */
bool cxx_library_call_name(const char *mangled, char *buf, size_t len);

/* How a report names the function an assertion failed in, from
 * __PRETTY_FUNCTION__ (__assert_fail's argument): a C++ signature without
 * its return type ("int main(int, char**)" -> "main(int, char**)"), a C
 * name with "()" ("worker" -> "worker()"). */
void cxx_function_label(const char *pretty, char *buf, size_t len);

/* The first template argument of the first `templ<...>` in a demangled
 * name: ("std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > >",
 * "std::tuple") -> "void (*)(int)". False when there is none. */
bool cxx_first_template_arg(const char *name, const char *templ, char *buf, size_t len);

enum cxx_callable_kind {
    CXX_CALLABLE_CLASS,             /* a lambda, a functor: its operator() runs */
    CXX_CALLABLE_FUNCTION_POINTER,  /* "void (*)(int)": the function is a value in the object */
    CXX_CALLABLE_MEMBER_POINTER,    /* "void (Account::*)(int)": the member function is a value */
};
/* What kind of callable a demangled type is; for a member function
 * pointer, *cls (may be NULL) gets its class ("Account"). */
enum cxx_callable_kind cxx_callable_kind(const char *type, char *cls, size_t len);

#endif
