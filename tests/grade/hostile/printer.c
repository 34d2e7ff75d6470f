/* Hostile submission: prints for ever. */
#include <stdio.h>

int main(void)
{
    for (;;)
        fputs("all work and no play makes Jack a dull boy\n", stdout);
}
