/* <sys/epoll.h> and <sys/eventfd.h> for Swift: Glibc's module exports neither. The host's event
 * loop waits on every worker socket with one epoll instance, and on an eventfd for the host
 * queue's work. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
