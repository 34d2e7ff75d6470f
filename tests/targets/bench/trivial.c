/* trivial.c - a program that does nothing: the fixed cost of one execution
 * (scripts/bench compares it under mdat and natively). CORRECT. */
int main(void)
{
    return 0;
}
