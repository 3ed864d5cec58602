/* <sys/epoll.h> for Swift: Glibc's module does not export it. The worker reactor waits on every
 * worker socket with one epoll instance. */
#include <sys/epoll.h>
