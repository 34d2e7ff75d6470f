/* Unit tests for the key map of mdat attach (ui/tui/tui_keys.h): one key one
 * action, every action described, the keys a first-time student would
 * guess, function keys only as aliases, and a hint bar that fits 80
 * columns in every context. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <curses.h>

#include "ui/tui/tui_keys.h"

static void test_no_key_twice(void **state)
{
    (void)state;
    for (size_t i = 0; i < tui_n_bindings; i++)
        for (int k = 0; k < TUI_KEYS_PER_ACTION && tui_bindings[i].keys[k]; k++)
            for (size_t j = 0; j < tui_n_bindings; j++)
                for (int l = 0; l < TUI_KEYS_PER_ACTION && tui_bindings[j].keys[l]; l++)
                    if ((i != j || k != l) && tui_bindings[i].keys[k] == tui_bindings[j].keys[l])
                        fail_msg("key %d is bound twice (bindings %zu and %zu)", tui_bindings[i].keys[k], i, j);
}

static void test_every_action_bound_and_described(void **state)
{
    (void)state;
    for (int a = TA_NONE + 1; a < TA_COUNT; a++) {
        const struct tui_binding *b = tui_binding_of((enum tui_action)a);
        if (!b)
            fail_msg("action %d has no binding", a);
        assert_non_null(b->help);
        assert_true(strlen(b->help) > 10);
        assert_true(b->keys[0] != 0);
    }
    /* And no binding twice for one action. */
    for (size_t i = 0; i < tui_n_bindings; i++)
        for (size_t j = i + 1; j < tui_n_bindings; j++)
            assert_int_not_equal(tui_bindings[i].action, tui_bindings[j].action);
}

/* The keys the issue promises. */
static void test_guessable_keys(void **state)
{
    (void)state;
    for (int d = '1'; d <= '9'; d++)
        assert_int_equal(tui_action_of_key(d), TA_STEP_THREAD);
    assert_int_equal(tui_action_of_key(KEY_RIGHT), TA_STEP_SELECTED);
    assert_int_equal(tui_action_of_key('n'), TA_STEP_SELECTED);
    assert_int_equal(tui_action_of_key('\n'), TA_STEP_SELECTED);
    assert_int_equal(tui_action_of_key(KEY_UP), TA_SELECT_PREV);
    assert_int_equal(tui_action_of_key(KEY_DOWN), TA_SELECT_NEXT);
    assert_int_equal(tui_action_of_key(KEY_LEFT), TA_BACK);
    assert_int_equal(tui_action_of_key('b'), TA_BACK);
    assert_int_equal(tui_action_of_key('g'), TA_GOTO);
    assert_int_equal(tui_action_of_key(KEY_HOME), TA_START);
    assert_int_equal(tui_action_of_key(KEY_END), TA_END);
    assert_int_equal(tui_action_of_key('r'), TA_RUN_BLOCKS);
    assert_int_equal(tui_action_of_key('c'), TA_CONTINUE_PCT);
    assert_int_equal(tui_action_of_key('w'), TA_WATCH_ADD);
    assert_int_equal(tui_action_of_key('B'), TA_BREAKPOINT);
    assert_int_equal(tui_action_of_key('s'), TA_SAVE);
    assert_int_equal(tui_action_of_key('l'), TA_LOAD);
    assert_int_equal(tui_action_of_key('o'), TA_OUTPUT);
    assert_int_equal(tui_action_of_key('t'), TA_THEME);
    assert_int_equal(tui_action_of_key('?'), TA_HELP);
    assert_int_equal(tui_action_of_key('q'), TA_QUIT);
    assert_int_equal(tui_action_of_key(' '), TA_PAUSE);
    assert_int_equal(tui_action_of_key('0'), TA_NONE);
    assert_int_equal(tui_action_of_key('Z'), TA_NONE);
}

/* A function key never is the only way to do something. */
static void test_function_keys_are_aliases(void **state)
{
    (void)state;
    for (size_t i = 0; i < tui_n_bindings; i++) {
        bool plain = false;
        for (int k = 0; k < TUI_KEYS_PER_ACTION && tui_bindings[i].keys[k]; k++)
            plain = plain || !(tui_bindings[i].keys[k] >= KEY_F(1) && tui_bindings[i].keys[k] <= KEY_F(12));
        if (!plain)
            fail_msg("binding %zu has only function keys", i);
    }
}

static void test_hint_bar_fits(void **state)
{
    (void)state;
    for (int c = 0; c < HINT_CONTEXTS; c++) {
        char bar[512];
        tui_hint_bar((enum tui_hint_context)c, 80, bar, sizeof bar);
        assert_true(strlen(bar) <= 80);
        assert_non_null(strstr(bar, "q quit"));
        assert_non_null(strstr(bar, "? help"));
        /* "? help" comes last. */
        assert_string_equal(bar + strlen(bar) - strlen("? help"), "? help");
    }
    char bar[512];
    tui_hint_bar(HINT_STEPPING, 80, bar, sizeof bar);
    assert_non_null(strstr(bar, "1-9 step"));
    assert_non_null(strstr(bar, "b back"));
    assert_non_null(strstr(bar, "s save"));
    tui_hint_bar(HINT_WAITER, 80, bar, sizeof bar);
    assert_non_null(strstr(bar, "1-9 wake"));
    tui_hint_bar(HINT_DEMO, 80, bar, sizeof bar);
    assert_non_null(strstr(bar, "Space pause/play"));
    /* Narrow: fewer hints, quit and help kept. */
    tui_hint_bar(HINT_STEPPING, 30, bar, sizeof bar);
    assert_true(strlen(bar) <= 30);
    assert_non_null(strstr(bar, "q quit"));
    assert_non_null(strstr(bar, "? help"));
}

static void test_key_names(void **state)
{
    (void)state;
    char buf[64];
    tui_key_name(KEY_RIGHT, buf, sizeof buf);
    assert_string_equal(buf, "Right");
    tui_key_name(KEY_F(8), buf, sizeof buf);
    assert_string_equal(buf, "F8");
    tui_key_name('q', buf, sizeof buf);
    assert_string_equal(buf, "q");
    tui_binding_keys(tui_binding_of(TA_STEP_THREAD), buf, sizeof buf);
    assert_string_equal(buf, "1-9");
    tui_binding_keys(tui_binding_of(TA_STEP_SELECTED), buf, sizeof buf);
    assert_string_equal(buf, "Right n Enter F8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_key_twice),
        cmocka_unit_test(test_every_action_bound_and_described),
        cmocka_unit_test(test_guessable_keys),
        cmocka_unit_test(test_function_keys_are_aliases),
        cmocka_unit_test(test_hint_bar_fits),
        cmocka_unit_test(test_key_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
