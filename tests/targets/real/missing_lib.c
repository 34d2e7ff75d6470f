/* missing_lib.c - a program whose shared library is not there at run time.
 *
 * NEVER STARTS.  It is linked against libmdat_gone.so, which the build puts
 * in a directory the dynamic loader does not search (no rpath), so ld.so
 * exits with status 127 before main: "error while loading shared libraries".
 * mdat must say the program could not start (exit 3), with the loader's
 * message, never "no failure".
 */
void gone_function(void);

int main(void)
{
    gone_function();
    return 0;
}
