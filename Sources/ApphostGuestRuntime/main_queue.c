/* Which thread delivers the host's calls to the guest (main_queue.h). */
#include "main_queue.h"

void ahr_main_queue_init(ahr_main_queue *queue)
{
    pthread_mutex_init(&queue->lock, NULL);
    queue->delivering = false;
    queue->warned = 0;
}

void ahr_main_queue_destroy(ahr_main_queue *queue) { pthread_mutex_destroy(&queue->lock); }

void ahr_main_queue_enter(ahr_main_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->delivering = true;
    queue->thread = pthread_self();
    pthread_mutex_unlock(&queue->lock);
}

void ahr_main_queue_leave(ahr_main_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->delivering = false;
    pthread_mutex_unlock(&queue->lock);
}

bool ahr_main_queue_is_current(ahr_main_queue *queue)
{
    bool current;

    pthread_mutex_lock(&queue->lock);
    current = queue->delivering && pthread_equal(queue->thread, pthread_self());
    pthread_mutex_unlock(&queue->lock);
    return current;
}

bool ahr_main_queue_first_misuse(ahr_main_queue *queue, ahr_main_queue_function function)
{
    bool first;

    pthread_mutex_lock(&queue->lock);
    first = (queue->warned & (unsigned)function) == 0;
    queue->warned |= (unsigned)function;
    pthread_mutex_unlock(&queue->lock);
    return first;
}
