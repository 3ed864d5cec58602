#include "frame_writer.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

#include "apphost_wire.h"
#include "worker_exit.h"

void frame_writer_init(frame_writer *writer, int fd)
{
    writer->fd = fd;
    pthread_mutex_init(&writer->lock, NULL);
}

/* Drops `count` written bytes from the front of the parts. */
static void advance(struct msghdr *message, size_t count)
{
    while (count > 0) {
        struct iovec *part = message->msg_iov;
        size_t taken = count < part->iov_len ? count : part->iov_len;

        part->iov_base = (uint8_t *)part->iov_base + taken;
        part->iov_len -= taken;
        count -= taken;
        if (part->iov_len == 0) {
            message->msg_iov++;
            message->msg_iovlen--;
        }
    }
}

static void send_all(int fd, struct iovec *parts, int part_count)
{
    struct msghdr message = {0};

    message.msg_iov = parts;
    message.msg_iovlen = (size_t)part_count;
    while (message.msg_iovlen > 0) {
        /* MSG_NOSIGNAL: a closed socket is an error here, not a SIGPIPE
         * that would kill the guest's process. */
        ssize_t count = sendmsg(fd, &message, MSG_NOSIGNAL);

        if (count >= 0) {
            advance(&message, (size_t)count);
        } else if (errno == EPIPE || errno == ECONNRESET) {
            worker_exit_now(WORKER_EXIT_OK);
        } else if (errno != EINTR) {
            worker_fail(WORKER_EXIT_FAILURE, "cannot write to the host's socket");
        }
    }
}

void frame_send_message(frame_writer *writer, const wire_message *message)
{
    pthread_mutex_lock(&writer->lock);
    /* wire_encode finishes the frame. */
    wire_encode(message, &writer->frame);
    if (writer->frame.length > APPHOST_WIRE_MAX_FRAME) {
        worker_fail(WORKER_EXIT_FAILURE, "internal error: a frame larger than APPHOST_WIRE_MAX_FRAME");
    }
    send_all(writer->fd, writer->frame.parts, writer->frame.part_count);
    pthread_mutex_unlock(&writer->lock);
}
