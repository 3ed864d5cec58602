/*
 * A seccomp filter, written by libseccomp, that refuses what a guest has no
 * use for and could reach others with: tracing and reading other processes,
 * signalling any process but its own, mounts and namespaces, keys,
 * BPF, performance counters, kernel modules and kexec, io_uring (which would
 * make calls the filter never sees), and stream UNIX sockets (the host's
 * control socket); without the network entitlement, sockets of any other
 * family. Everything else is allowed: the container's file system is
 * Landlock's (landlock_layer.c).
 *
 * A refused call traps (SIGSYS) rather than fails in the kernel, so that the
 * worker learns of it: the handler makes the call return -EPERM, as
 * Chromium's sandbox does, and marks its number; the conversation sends the
 * name once (call_filter_take). clone3 fails with ENOSYS instead, unmarked:
 * its flags are in memory the filter cannot read, and glibc falls back to
 * clone, whose namespace flags it can.
 */
#define _GNU_SOURCE /* REG_RAX, clone flags, asprintf */

#include "call_filter.h"

#include "filter_program.h"

#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <ucontext.h>
#include <unistd.h>

/* Call numbers, in bits: below 1024 on every architecture we build for.
 * A socket() of network family f refused is marked as the number
 * NETWORK_MARKS + f, past every call's. */
enum { MARKED_WORDS = 16, NETWORK_MARKS = 960, FAMILIES = 64 };

/* Set by the handler, cleared by call_filter_take. */
static _Atomic uint64_t g_refused[MARKED_WORDS];
/* Set by the handler once per number: a name is given out once. */
static _Atomic uint64_t g_seen[MARKED_WORDS];

static void mark(int number)
{
    uint64_t bit;
    size_t word;

    if (number < 0 || number >= MARKED_WORDS * 64) {
        return;
    }
    word = (size_t)number / 64;
    bit = (uint64_t)1 << (number % 64);
    if ((atomic_fetch_or(&g_seen[word], bit) & bit) == 0) {
        atomic_fetch_or(&g_refused[word], bit);
    }
}

/* Async-signal-safe: it writes a register and two atomics. */
static void on_refused_call(int signal, siginfo_t *info, void *context)
{
    ucontext_t *registers = context;
    unsigned long long first_argument;

    (void)signal;
#if defined(__x86_64__)
    first_argument = (unsigned long long)registers->uc_mcontext.gregs[REG_RDI];
    registers->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    first_argument = registers->uc_mcontext.regs[0];
    registers->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#else
#error "the call filter's handler does not know this architecture's registers"
#endif
    if (info->si_syscall == SCMP_SYS(socket) && (int)first_argument != AF_UNIX) {
        mark(NETWORK_MARKS + (int)(first_argument % FAMILIES));
    } else {
        mark(info->si_syscall);
    }
}

/* "socket(AF_INET)" for the mark of a refused network family. */
static char *network_name(int family)
{
    static const struct {
        int family;
        const char *name;
    } names[] = {{AF_INET, "AF_INET"},       {AF_INET6, "AF_INET6"},         {AF_PACKET, "AF_PACKET"},
                 {AF_NETLINK, "AF_NETLINK"}, {AF_VSOCK, "AF_VSOCK"},         {AF_BLUETOOTH, "AF_BLUETOOTH"},
                 {AF_CAN, "AF_CAN"}};
    char *name = NULL;

    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        if (names[index].family == family) {
            return asprintf(&name, "socket(%s)", names[index].name) < 0 ? NULL : name;
        }
    }
    return asprintf(&name, "socket(family %d)", family) < 0 ? NULL : name;
}

char *call_filter_take(void)
{
    for (size_t word = 0; word < MARKED_WORDS; word++) {
        uint64_t bits = atomic_load(&g_refused[word]);

        while (bits != 0) {
            int index = __builtin_ctzll(bits);
            uint64_t bit = (uint64_t)1 << index;

            bits &= ~bit;
            if ((atomic_fetch_and(&g_refused[word], ~bit) & bit) != 0) {
                int number = (int)(word * 64) + index;
                char *name = number >= NETWORK_MARKS ? network_name(number - NETWORK_MARKS)
                                                     : seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, number);

                return name != NULL ? name : strdup("an unnamed call");
            }
        }
    }
    return NULL;
}

/* Calls refused whatever their arguments, by libseccomp's numbers: compile-
 * time constants (resolving 44 names took a tenth of the filter's cost), and
 * a pseudo number for a call this architecture lacks, which needs no rule. */
static const int refused_calls[] = {
    SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev), SCMP_SYS(process_madvise),
    SCMP_SYS(pidfd_getfd), SCMP_SYS(kcmp), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
    SCMP_SYS(chroot), SCMP_SYS(move_mount), SCMP_SYS(open_tree), SCMP_SYS(fsopen), SCMP_SYS(fsconfig),
    SCMP_SYS(fsmount), SCMP_SYS(fspick), SCMP_SYS(mount_setattr), SCMP_SYS(unshare), SCMP_SYS(setns),
    SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(bpf), SCMP_SYS(perf_event_open),
    SCMP_SYS(userfaultfd), SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(init_module),
    SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff),
    SCMP_SYS(acct), SCMP_SYS(quotactl), SCMP_SYS(syslog), SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at),
    SCMP_SYS(tkill), SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
    SCMP_SYS(iopl), SCMP_SYS(ioperm),
};

/* Calls whose first argument names the process they reach: refused for any
 * but this one. */
static const int own_process_calls[] = {
    SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(pidfd_open),
};

static const uint64_t NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER |
                                        CLONE_NEWPID | CLONE_NEWNET;

/* Without the network entitlement, socket() of any family but AF_UNIX:
 * AF_NETLINK too, which would only show the worker's empty namespace (one
 * rule; sparing it would take one for each family below it). */
static int add_network_rules(scmp_filter_ctx filter)
{
    return seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(socket), 1, SCMP_A0_32(SCMP_CMP_GT, AF_UNIX));
}

/* The rules, `self` the pid signals may go to. */
static int add_rules(scmp_filter_ctx filter, uint32_t self)
{
    const uint32_t trap = SCMP_ACT_TRAP;
    int status = 0;

    for (size_t index = 0; index < sizeof refused_calls / sizeof refused_calls[0] && status == 0; index++) {
        status = seccomp_rule_add(filter, trap, refused_calls[index], 0);
    }
    /* Signals go to this process alone: not its group, nor a child (a rule
     * compares an argument once, so "self, or 0, or -self" cannot be said). */
    for (size_t index = 0; index < sizeof own_process_calls / sizeof own_process_calls[0] && status == 0; index++) {
        status = seccomp_rule_add(filter, trap, own_process_calls[index], 1, SCMP_A0_32(SCMP_CMP_NE, self));
    }
    /* No new namespaces by clone, one rule per flag (a rule compares, it
     * cannot test "any of"); clone3's flags are out of reach. */
    for (uint64_t flag = 1; flag != 0 && status == 0; flag <<= 1) {
        if ((NAMESPACE_FLAGS & flag) != 0) {
            status = seccomp_rule_add(filter, trap, SCMP_SYS(clone), 1, SCMP_A0_64(SCMP_CMP_MASKED_EQ, flag, flag));
        }
    }
    if (status == 0) {
        status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    }
    /* Stream sockets by name reach servers such as the host's control
     * socket; datagrams (syslog, journald) and socketpair stay allowed. */
    for (size_t index = 0; index < 2 && status == 0; index++) {
        static const uint32_t connected_types[] = {SOCK_STREAM, SOCK_SEQPACKET};

        status = seccomp_rule_add(filter, trap, SCMP_SYS(socket), 2, SCMP_A0_32(SCMP_CMP_EQ, AF_UNIX),
                                  SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, connected_types[index]));
    }
    /* The handler above stays ours: a guest's would see refused calls
     * return their own number, and we would hear of none. */
    if (status == 0) {
        status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(rt_sigaction), 2,
                                  SCMP_A0_32(SCMP_CMP_EQ, SIGSYS), SCMP_A1_64(SCMP_CMP_NE, 0));
    }
    return status;
}

/* A filter of the rules for a worker of pid `self`; NULL when libseccomp
 * fails. Release it with seccomp_release. */
static scmp_filter_ctx make_filter(bool refuse_network, uint32_t self)
{
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    int status;

    if (filter == NULL) {
        return NULL;
    }
    status = add_rules(filter, self);
    if (status == 0 && refuse_network) {
        status = add_network_rules(filter);
    }
    /* Every thread, should the worker have started one. */
    if (status == 0) {
        status = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    }
    if (status != 0) {
        seccomp_release(filter);
        return NULL;
    }
    return filter;
}

bool call_filter_install(bool refuse_network, const char *program, char *error, size_t error_size)
{
    struct sigaction action = {0};
    scmp_filter_ctx filter;
    int status;

    action.sa_sigaction = on_refused_call;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) {
        snprintf(error, error_size, "cannot handle SIGSYS: %s", strerror(errno));
        return false;
    }
    if (program != NULL) {
        return filter_program_load(program, (uint32_t)getpid(), error, error_size);
    }
    filter = make_filter(refuse_network, (uint32_t)getpid());
    if (filter == NULL) {
        snprintf(error, error_size, "libseccomp cannot make the system call filter");
        return false;
    }
    status = seccomp_load(filter);
    seccomp_release(filter);
    if (status != 0) {
        snprintf(error, error_size, "cannot install the system call filter: %s", strerror(-status));
        return false;
    }
    return true;
}

char *call_filter_program(bool refuse_network)
{
    scmp_filter_ctx filter = make_filter(refuse_network, FILTER_PROGRAM_PLACEHOLDER_PID);
    char *text = filter != NULL ? filter_program_export(filter) : NULL;

    seccomp_release(filter);
    return text;
}
