/* gone_lib.c - the library missing_lib.c needs and cannot find at run time. */
void gone_function(void)
{
}
