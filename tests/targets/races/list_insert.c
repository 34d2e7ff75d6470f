/* list_insert.c - two threads push onto a linked list without a lock.
 *
 * RACY.  Both read `head`, link their node to it and write `head`: one
 * push can be lost.  main counts the nodes afterwards but checks nothing.
 * Expected mdat verdict: race on head.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
    int value;
    struct node *next;
};

static struct node *head;

static void *pusher(void *arg)
{
    struct node *n = malloc(sizeof *n);
    n->value = (int)(long)arg;
    n->next = head;
    head = n;                           /* BUG: unprotected write of head */
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, pusher, (void *)1);
    pthread_create(&b, NULL, pusher, (void *)2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int count = 0;
    for (struct node *n = head; n; n = n->next)
        count++;
    printf("%d nodes\n", count);
    return 0;
}
