/* mallory.c - sample submission that does NOT COMPILE.
 *
 * Handed in as a directory with a Makefile; the build fails on the missing
 * semicolon. Expected verdict: build failed, with the compiler's error in
 * the report's build output.
 */
#include <pthread.h>
#include <stdio.h>

static int balance

int main(void)
{
    printf("balance %d\n", balance);
    return 0;
}
