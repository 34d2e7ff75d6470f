/* code_names: code addresses of a running execution in source terms.
 *
 * Owns finding the module (the executable or a loaded library) an address
 * belongs to, and the forms every report and view prints: "file.c:14
 * function", "file.c:14", "function", "libc.so.6+0x1f2a0". Also where a
 * thread is in the user's terms: the call site while it is inside a modeled
 * call, the user's line behind code from a system header (C++ templates). */
#ifndef MDAT_ENGINE_CODE_NAMES_H
#define MDAT_ENGINE_CODE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "supervisor/debuginfo/debuginfo.h"

struct execution;
struct mthread;
struct heap_block;

void exec_format_code(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_line(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_function(struct execution *ex, uint64_t addr, char *buf, size_t len);
void exec_format_function_or_addr(struct execution *ex, uint64_t addr, char *buf, size_t len);
/* addr inside heap block b: "heap#3 (malloc at prod.c:22)+8". */
void exec_format_heap_addr(struct execution *ex, const struct heap_block *b, uint64_t addr, char *buf, size_t len);
/* The file, line, column and function of addr; false when unknown. */
bool exec_code_location(struct execution *ex, uint64_t addr, struct src_loc *loc);
/* The debug info addr belongs to, addr as that file sees it (*faddr), and
 * the library's name (*lib, NULL for the executable); NULL when unknown. */
const debuginfo *exec_module_of(struct execution *ex, uint64_t addr, uint64_t *faddr, const char **lib);
/* pc, or for code from a system header (C++ templates) the user's line
 * that led there, found through the frame-pointer chain of t. */
uint64_t exec_user_frame_pc(struct execution *ex, const struct mthread *t, uint64_t pc);
/* The nearest return address into the user's code (outside system
 * headers) on t's stack, searched from its stack pointer: where the user's
 * code called the library that t is in; 0 when there is none (every frame
 * between was a tail call). */
uint64_t exec_user_return_on_stack(struct execution *ex, const struct mthread *t);
/* ret follows a call instruction (direct, or through a register or
 * memory): a return address, not a stale code pointer (a function's
 * address kept on the stack, as libc keeps main's). */
bool exec_follows_call(struct execution *ex, uint64_t ret);
/* pc is a place in the user's terms: the user's own source, library code
 * inlined into it, or code without source lines (a library's); false for
 * a system header's code compiled into the program (a C++ template) that
 * no user call site stands for. */
bool exec_is_users_place(struct execution *ex, uint64_t pc);
/* When exec_user_frame_pc found no frame of the user's (t runs code the
 * runtime called: exit's destructors of globals, std::thread's start and
 * end around the callable): the outermost function of the program's on
 * the frame-pointer chain from pc, below exit's frame ("~barrier" for the
 * ~unique_ptr it calls), or pc's own function. */
void exec_runtime_function(struct execution *ex, const struct mthread *t, uint64_t pc, char *buf, size_t len);
/* The nearest return address into the executable on t's stack (below
 * exit's frame when it is in exit), user code or not: the program's call
 * into a library when no call of the user's is on the stack; 0 if none. */
uint64_t exec_program_return_on_stack(struct execution *ex, const struct mthread *t);
/* Where a thread is, in user terms (the call line while inside a modeled call). */
uint64_t exec_user_pc(struct execution *ex, const struct mthread *t);
/* The C++ library function the user's call at place entered ("std::
 * thread::join", "std::unique_lock<std::mutex>::unique_lock" at -O0):
 * place is a return address minus one, where a frame of the user's
 * called out (exec_user_frame_pc), or t's standing tail call's jump. False
 * when the call is not a direct one into a function of the C++ library's. */
bool exec_library_callee(struct execution *ex, const struct mthread *t, uint64_t place, char *buf, size_t len);
/* The library function t is inside as the user called it ("GOMP_barrier",
 * "omp_set_lock"): the nearest return address into user code on its stack
 * whose call went through a PLT stub; *call_pc gets the call. NULL when
 * there is none near the top of the stack (library code without frame
 * pointers cannot be walked, so the stack is searched). */
const char *exec_library_call(struct execution *ex, const struct mthread *t, uint64_t *call_pc);

#endif
