/* own_lib.c - the library half of own_lib_user.c: a counter whose
 * increment is not atomic. Built as libmdat_counter.so beside the program
 * (found through its rpath), outside the system's library directories, so
 * mdat treats its code as the program's own: its accesses are steps. */
int shared_count;

void bump(void)
{
    int seen = shared_count;
    shared_count = seen + 1;     /* BUG: read and write are two steps apart */
}

int count_value(void)
{
    return shared_count;
}
