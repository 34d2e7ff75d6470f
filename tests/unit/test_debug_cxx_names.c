/* Unit tests for supervisor/debuginfo/cxx_names.c: demangling with
 * libstdc++'s demangler, and the text rules on demangled names (a
 * function's name part, lambdas, __PRETTY_FUNCTION__, template arguments,
 * callable kinds). The mangled names are ones g++ 12 emits for
 * tests/targets/cxx_callables.cpp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "supervisor/debuginfo/cxx_names.h"

static void expect_demangled(const char *mangled, const char *expected)
{
    char buf[512];
    assert_true(cxx_demangle(mangled, buf, sizeof buf));
    assert_string_equal(buf, expected);
}

static void test_demangle(void **state)
{
    (void)state;
    expect_demangled("_ZNSt6thread4joinEv", "std::thread::join()");
    expect_demangled("_ZN7Account7depositEi", "Account::deposit(int)");
    expect_demangled("_ZZ4mainENKUlvE0_clEv", "main::{lambda()#2}::operator()() const");
    expect_demangled("_ZTVNSt6thread11_State_implINS_8_InvokerISt5tupleIJPFviEiEEEEEE",
                     "vtable for std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > >");
    char buf[64] = "x";
    /* C names, garbage and NULL are not C++ names. */
    assert_false(cxx_demangle("worker", buf, sizeof buf));
    assert_string_equal(buf, "");
    assert_false(cxx_demangle("_Zgarbage!", buf, sizeof buf));
    assert_false(cxx_demangle(NULL, buf, sizeof buf));
    /* Truncation keeps a terminated string. */
    char small[8];
    assert_true(cxx_demangle("_ZNSt6thread4joinEv", small, sizeof small));
    assert_string_equal(small, "std::th");
}

static void expect_name(const char *signature, const char *expected)
{
    char buf[256];
    cxx_signature_name(signature, buf, sizeof buf);
    assert_string_equal(buf, expected);
}

static void test_signature_name(void **state)
{
    (void)state;
    expect_name("incrementer()", "incrementer");
    expect_name("Account::deposit(int) const", "Account::deposit");
    expect_name("void std::swap<std::thread::id>(std::thread::id&, std::thread::id&)",
                "std::swap<std::thread::id>");
    expect_name("unsigned long count<int>(int)", "count<int>");
    expect_name("main::{lambda()#1}::operator()() const", "main::{lambda()#1}::operator()");
    expect_name("Stack<int>::operator<<(int)", "Stack<int>::operator<<");
    expect_name("Buffer::operator[](unsigned long)", "Buffer::operator[]");
    expect_name("operator new[](unsigned long)", "operator new[]");
    expect_name("Flag::operator bool() const", "Flag::operator bool");
    expect_name("(anonymous namespace)::worker(void*)", "(anonymous namespace)::worker");
    expect_name("Account::audit() const::{lambda(int)#1}::operator()(int) const",
                "Account::audit() const::{lambda(int)#1}::operator()");
    expect_name("std::thread::join() [clone .cold]", "std::thread::join");
    /* Not a function: copied. */
    expect_name("vtable for Account", "vtable for Account");
    expect_name("counter", "counter");
}

static void expect_readable(const char *signature, const char *expected)
{
    char buf[256];
    cxx_readable_function(signature, buf, sizeof buf);
    assert_string_equal(buf, expected);
}

static void test_readable_function(void **state)
{
    (void)state;
    expect_readable("main::{lambda()#2}::operator()() const", "lambda in main");
    expect_readable("main::{lambda()#2}::operator()() const::{lambda()#1}::operator()() const",
                    "lambda in lambda in main");
    expect_readable("Account::audit() const::{lambda(int)#1}::operator()(int) const",
                    "lambda in Account::audit");
    expect_readable("void run<int>(int)::{lambda()#1}::operator()() const", "lambda in run<int>");
    expect_readable("{lambda()#1}::operator()() const", "lambda");
    expect_readable("(anonymous namespace)::worker(void*)", "worker");
    expect_readable("Adder::operator()() const", "Adder::operator()");
    expect_readable("std::thread::join()", "std::thread::join");
}

static void test_readable_symbol(void **state)
{
    (void)state;
    char buf[256];
    cxx_readable_symbol("_ZZ4mainENKUlvE0_clEv", true, buf, sizeof buf);
    assert_string_equal(buf, "lambda in main");
    cxx_readable_symbol("_ZTV7Account", false, buf, sizeof buf);
    assert_string_equal(buf, "vtable for Account");
    cxx_readable_symbol("worker", true, buf, sizeof buf);
    assert_string_equal(buf, "worker");
}

static void expect_label(const char *pretty, const char *expected)
{
    char buf[256];
    cxx_function_label(pretty, buf, sizeof buf);
    assert_string_equal(buf, expected);
}

static void test_function_label(void **state)
{
    (void)state;
    expect_label("int main(int, char**)", "main(int, char**)");
    expect_label("void Account::deposit(int)", "Account::deposit(int)");
    expect_label("main()::<lambda()>", "main()::<lambda()>");
    expect_label("void fill(T*) [with T = int]", "fill(T*) [with T = int]");
    /* C: __PRETTY_FUNCTION__ is the bare name. */
    expect_label("worker", "worker()");
    expect_label("main", "main()");
}

static void expect_arg(const char *name, const char *templ, const char *expected)
{
    char buf[512];
    bool found = cxx_first_template_arg(name, templ, buf, sizeof buf);
    if (!expected) {
        assert_false(found);
        return;
    }
    assert_true(found);
    assert_string_equal(buf, expected);
}

static void test_first_template_arg(void **state)
{
    (void)state;
    const char *fp = "vtable for std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)(int), int> > >";
    expect_arg(fp, "std::tuple", "void (*)(int)");
    expect_arg(fp, "std::thread::_Invoker", "std::tuple<void (*)(int), int>");
    expect_arg("vtable for std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#2}> > >",
               "std::tuple", "main::{lambda()#2}");
    expect_arg("std::tuple<void (Account::*)(int), Account*, int>", "std::tuple", "void (Account::*)(int)");
    const char *async =
        "vtable for std::thread::_State_impl<std::thread::_Invoker<std::tuple<void "
        "(std::__future_base::_Async_state_impl<std::thread::_Invoker<std::tuple<int (*)(int), int> >, int>::*)(), "
        "std::__future_base::_Async_state_impl<std::thread::_Invoker<std::tuple<int (*)(int), int> >, int>*> > >";
    expect_arg(async, "std::__future_base::_Async_state_impl", "std::thread::_Invoker<std::tuple<int (*)(int), int> >");
    expect_arg("std::tuple<std::less<int>, int>", "std::tuple", "std::less<int>");
    /* "tuple" inside another identifier is not the template. */
    expect_arg("my_std::tuple_like<int>", "std::tuple", NULL);
    expect_arg("Account", "std::tuple", NULL);
}

static void test_callable_kind(void **state)
{
    (void)state;
    char cls[128];
    assert_int_equal(cxx_callable_kind("void (*)(int)", cls, sizeof cls), CXX_CALLABLE_FUNCTION_POINTER);
    assert_int_equal(cxx_callable_kind("int (*)(int, char**) noexcept", cls, sizeof cls),
                     CXX_CALLABLE_FUNCTION_POINTER);
    assert_int_equal(cxx_callable_kind("void (Account::*)(int)", cls, sizeof cls), CXX_CALLABLE_MEMBER_POINTER);
    assert_string_equal(cls, "Account");
    assert_int_equal(cxx_callable_kind("void (ns::Box<int>::*)() const", cls, sizeof cls),
                     CXX_CALLABLE_MEMBER_POINTER);
    assert_string_equal(cls, "ns::Box<int>");
    assert_int_equal(cxx_callable_kind("main::{lambda()#2}", cls, sizeof cls), CXX_CALLABLE_CLASS);
    assert_int_equal(cxx_callable_kind("Adder", cls, sizeof cls), CXX_CALLABLE_CLASS);
    assert_int_equal(cxx_callable_kind("(anonymous namespace)::Adder", cls, sizeof cls), CXX_CALLABLE_CLASS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_signature_name),
        cmocka_unit_test(test_readable_function),
        cmocka_unit_test(test_readable_symbol),
        cmocka_unit_test(test_function_label),
        cmocka_unit_test(test_first_template_arg),
        cmocka_unit_test(test_callable_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
