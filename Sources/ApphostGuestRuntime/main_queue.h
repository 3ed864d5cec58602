/*
 * The guest's main queue, as far as [main-queue] host functions can tell:
 * which thread, if any, is delivering one of the host's calls to the guest
 * right now (init, a callback, a timer's or async work, deinit). A
 * [main-queue] function called from any other thread gets
 * APPHOST_ERROR_WRONG_THREAD, and the guest's log hears of it once per
 * function, as clap-validator's thread checks report misuse.
 */
#ifndef AHR_MAIN_QUEUE_H
#define AHR_MAIN_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

/* The [main-queue] functions, as bits of ahr_main_queue.warned. */
typedef enum ahr_main_queue_function {
    AHR_MAIN_QUEUE_APP_STATE = 1 << 0,
    AHR_MAIN_QUEUE_SCENE_STATE = 1 << 1,
    AHR_MAIN_QUEUE_SCENE_SIZE = 1 << 2,
    AHR_MAIN_QUEUE_ACTIVATION_TOKEN = 1 << 3,
    AHR_MAIN_QUEUE_LIST_SESSIONS = 1 << 4
} ahr_main_queue_function;

typedef struct ahr_main_queue {
    pthread_mutex_t lock;
    /* A delivery is under way on `thread`. */
    bool delivering;
    pthread_t thread;
    /* The functions whose misuse was logged already. */
    unsigned warned;
} ahr_main_queue;

void ahr_main_queue_init(ahr_main_queue *queue);
void ahr_main_queue_destroy(ahr_main_queue *queue);

/* The calling thread starts delivering a call to the guest; deliveries do
 * not nest. */
void ahr_main_queue_enter(ahr_main_queue *queue);
void ahr_main_queue_leave(ahr_main_queue *queue);

/* Whether the calling thread is delivering a call now. */
bool ahr_main_queue_is_current(ahr_main_queue *queue);

/* True the first time `function` is found called off the main queue, so that
 * the misuse is logged once. */
bool ahr_main_queue_first_misuse(ahr_main_queue *queue, ahr_main_queue_function function);

#endif
