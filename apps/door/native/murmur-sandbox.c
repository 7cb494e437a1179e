/*
 * murmur-sandbox: the door's helper for every sandboxed command (docs/sandbox.md). One binary, two roles:
 *
 *   murmur-sandbox launch [--join <cgroup.procs>]... [--stage-root <dir> --stage <name>=<path>...]
 *                         [--uid <uid> --gid <gid>] -- <bwrap> <bwrap args>...
 *     Run by the door outside the sandbox. Joins the session's cgroups (so everything the command starts is
 *     counted), makes every process of the sandbox the OOM killer's first choice, ignores SIGTERM (bubblewrap's
 *     monitor must outlive a SIGTERM to its group: the init inside forwards it). When the door is root it shows
 *     what bubblewrap binds (the workdir, the egress folder, this binary) under <dir> in a private mount namespace,
 *     drops to the session's unprivileged uid/gid, and becomes bubblewrap, which then makes the user namespace.
 *
 *   murmur-sandbox init [--fsize <bytes>] [--relay <ip>:<port>=<unix socket>]... -- <command> <args>...
 *     Run by bubblewrap as PID 1 of the command's PID namespace (--as-pid-1). Installs the seccomp filter, makes
 *     itself unreachable to the command (not dumpable: no /proc/1/fd, /proc/1/mem or ptrace), keeps only
 *     descriptors 0-2 and its status socket (fd 3), starts the command in a process group of its own with only
 *     0-2, and reports on fd 3, a socket only the door holds the other end of:
 *       started            the command runs
 *       exit <code> [signal <n>]   the command exited: its status, or 128 + the signal n that ended it
 *       holders <pid:comm>...   answer to `holders`: the processes still running besides this one
 *     The door writes on the same socket: `stop` (SIGTERM to the command's process group, SIGKILL 2 s later) and
 *     `holders`. A SIGTERM from outside the namespace (the door ending the sandbox) is forwarded to every process;
 *     a signal from inside is ignored. It carries the connections of listed destinations (--relay) to the door's
 *     unix sockets, and exits once the command and everything it started are gone, which ends the namespace.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STATUS_FD 3
#define KILL_AFTER_MS 2000
#define MAX_RELAYS 64
#define MAX_PAIRS 128
#define RELAY_BUFFER 16384
#define MAX_HOLDERS 32

static void die(const char *what) {
  dprintf(2, "murmur-sandbox: %s: %s\n", what, strerror(errno));
  _exit(125);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The seccomp filter (docs/sandbox.md, "Seccomp"). Syscall numbers come from this machine's own headers, so the
 * filter is right for the architecture it is built on; a call of another ABI (i386 or x32 on x86_64, arm32 on
 * aarch64) is refused whole. Refused calls fail with EPERM (clone3 with ENOSYS, so libc falls back to clone, whose
 * flags the filter can read).
 */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "murmur-sandbox's seccomp filter is written for x86_64 and aarch64"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the filter reads the low half of 64-bit arguments at their address: little-endian only"
#endif

/* Numbers past 424 are the same on every architecture; older headers may lack them. */
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#define __NR_fspick 433
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif

/* Refused whatever their arguments. */
static const int DENIED[] = {
    /* the kernel keyrings, which no namespace here separates */
    __NR_add_key, __NR_request_key, __NR_keyctl,
    /* reaching into another process: its memory, its descriptors */
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_getfd, __NR_process_madvise,
    /* kernel surfaces with a history of escapes */
    __NR_userfaultfd, __NR_bpf, __NR_perf_event_open, __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
    /* the mount table and namespaces */
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount,
    __NR_fspick, __NR_mount_setattr, __NR_setns,
    /* the machine itself: kernels, modules, swap, accounting, the kernel log, file handles by number */
    __NR_kexec_load, __NR_kexec_file_load, __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_reboot,
    __NR_swapon, __NR_swapoff, __NR_acct, __NR_syslog, __NR_quotactl, __NR_open_by_handle_at, __NR_name_to_handle_at,
    __NR_vhangup,
#ifdef __NR_iopl
    __NR_iopl,
#endif
#ifdef __NR_ioperm
    __NR_ioperm,
#endif
#ifdef __NR_uselib
    __NR_uselib,
#endif
};

/* A clone or unshare that would make any namespace. */
#define NEW_NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#define RET(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static struct sock_filter program[256];
static unsigned short length;

static void emit(struct sock_filter instruction) {
  if (length >= sizeof program / sizeof program[0]) {
    dprintf(2, "murmur-sandbox: the seccomp filter outgrew its buffer\n");
    _exit(125);
  }
  program[length++] = instruction;
}

/* `nr`: refused when the argument's low 32 bits hold any of `mask`; allowed otherwise. A still holds nr after. */
static void emit_flags_check(int nr, int arg, uint32_t mask) {
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 4));
  emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
  emit((struct sock_filter)RET(ERRNO(EPERM)));
  emit((struct sock_filter)RET(SECCOMP_RET_ALLOW));
}

static void install_seccomp(void) {
  emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
  emit((struct sock_filter)RET(ERRNO(EPERM)));
  emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
  /* x32 calls carry this bit and name the same entries under other numbers. */
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
  emit((struct sock_filter)RET(ERRNO(EPERM)));
#endif
  for (size_t i = 0; i < sizeof DENIED / sizeof DENIED[0]; i++) {
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)DENIED[i], 0, 1));
    emit((struct sock_filter)RET(ERRNO(EPERM)));
  }
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
  emit((struct sock_filter)RET(ERRNO(ENOSYS)));
  emit_flags_check(__NR_clone, 0, NEW_NAMESPACES);
  emit_flags_check(__NR_unshare, 0, NEW_NAMESPACES | CLONE_NEWTIME);
  /* ioctl: TIOCSTI pushes input into a terminal, TIOCLINUX reads and writes the console (the kernel reads 32 bits). */
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5));
  emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(1)));
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 1, 0));
  emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 0, 1));
  emit((struct sock_filter)RET(ERRNO(EPERM)));
  emit((struct sock_filter)RET(SECCOMP_RET_ALLOW));
  emit((struct sock_filter)RET(SECCOMP_RET_ALLOW));

  struct sock_fprog fprog = {.len = length, .filter = program};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) die("seccomp");
}

/* --------------------------------------------------------------------------------------------------------------- */

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/* Closes every descriptor from `first` up, but those in `keep` (-1 ended; each kept one below any closed one). */
static void close_from(int first, const int *keep) {
  int above = first - 1;
  for (const int *k = keep; *k >= 0; k++)
    if (*k > above) above = *k;
  if (syscall(__NR_close_range, (unsigned)above + 1, ~0U, 0) == 0) return;
  DIR *dir = opendir("/proc/self/fd");
  if (dir == NULL) {
    for (int fd = first; fd < 65536; fd++) {
      int kept = 0;
      for (const int *k = keep; *k >= 0; k++) kept |= *k == fd;
      if (!kept) close(fd);
    }
    return;
  }
  int own = dirfd(dir);
  int fds[4096];
  size_t count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL && count < sizeof fds / sizeof fds[0]) {
    char *end;
    long fd = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || entry->d_name[0] == '\0' || fd < first || fd == own) continue;
    int kept = 0;
    for (const int *k = keep; *k >= 0; k++) kept |= *k == fd;
    if (!kept) fds[count++] = (int)fd;
  }
  closedir(dir);
  for (size_t i = 0; i < count; i++) close(fds[i]);
  if (count == sizeof fds / sizeof fds[0]) close_from(first, keep);
}

static int write_all(int fd, const char *text, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, text, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    text += n;
    size -= (size_t)n;
  }
  return 0;
}

/* --------------------------------------------------------------------------------------------------------------- */
/* launch */

#define MAX_JOINS 8
#define MAX_STAGED 16

/*
 * Shows `source` at `<stage>/<name>` in this process's own mount namespace, bound from a descriptor opened without
 * following a final link. bubblewrap, run as the sandbox's user, then reaches it there: the host path may lie under
 * folders that user cannot search (a records folder under /root).
 */
static void stage(const char *stage_root, const char *spec) {
  const char *equals = strchr(spec, '=');
  if (equals == NULL || equals == spec || memchr(spec, '/', (size_t)(equals - spec)) != NULL) {
    dprintf(2, "murmur-sandbox: launch: --stage takes <name>=<path>, not '%s'\n", spec);
    _exit(125);
  }
  int source = open(equals + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat info;
  if (source < 0 || fstat(source, &info) != 0) die(equals + 1);
  char target[4096], via[64];
  snprintf(target, sizeof target, "%s/%.*s", stage_root, (int)(equals - spec), spec);
  snprintf(via, sizeof via, "/proc/self/fd/%d", source);
  if (S_ISDIR(info.st_mode)) {
    if (mkdir(target, 0755) != 0) die(target);
  } else {
    int made = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
    if (made < 0) die(target);
    close(made);
  }
  if (mount(via, target, NULL, MS_BIND, NULL) != 0) die(target);
  close(source);
}

static int launch(int argc, char **argv) {
  const char *joins[MAX_JOINS], *staged[MAX_STAGED], *stage_root = NULL;
  int join_count = 0, staged_count = 0;
  long uid = -1, gid = -1;
  int i = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--join") == 0 && i + 1 < argc && join_count < MAX_JOINS) joins[join_count++] = argv[++i];
    else if (strcmp(argv[i], "--stage-root") == 0 && i + 1 < argc) stage_root = argv[++i];
    else if (strcmp(argv[i], "--stage") == 0 && i + 1 < argc && staged_count < MAX_STAGED) staged[staged_count++] = argv[++i];
    else if (strcmp(argv[i], "--uid") == 0 && i + 1 < argc) uid = strtol(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--gid") == 0 && i + 1 < argc) gid = strtol(argv[++i], NULL, 10);
    else {
      dprintf(2, "murmur-sandbox: launch: unknown argument '%s'\n", argv[i]);
      return 125;
    }
  }
  if (i + 1 >= argc) {
    dprintf(2, "murmur-sandbox: launch: no bubblewrap to run after --\n");
    return 125;
  }
  if ((uid < 0) != (gid < 0) || (staged_count > 0 && stage_root == NULL)) {
    dprintf(2, "murmur-sandbox: launch: --uid goes with --gid, --stage with --stage-root\n");
    return 125;
  }
  char pid[32];
  int pid_size = snprintf(pid, sizeof pid, "%d\n", getpid());
  for (int j = 0; j < join_count; j++) {
    int fd = open(joins[j], O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write_all(fd, pid, (size_t)pid_size) != 0) die(joins[j]);
    close(fd);
  }
  /* The OOM killer takes a command before anything else of the host, the door included. */
  int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (adj >= 0) {
    (void)write_all(adj, "1000\n", 5);
    close(adj);
  }
  if (staged_count > 0) {
    /* A mount namespace of this process's own, private: nothing staged here is seen by the host. */
    if (unshare(CLONE_NEWNS) != 0) die("unshare(CLONE_NEWNS)");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("making the mounts private");
    if (mount("murmur-stage", stage_root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=16k") != 0) die(stage_root);
    for (int j = 0; j < staged_count; j++) stage(stage_root, staged[j]);
  }
  if (signal(SIGTERM, SIG_IGN) == SIG_ERR) die("signal");
  if (uid >= 0) {
    if (setgroups(0, NULL) != 0 || setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0 || setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0) die("dropping to the sandbox's user");
    if (setuid(0) == 0 || getuid() != (uid_t)uid || geteuid() != (uid_t)uid) {
      dprintf(2, "murmur-sandbox: launch: the sandbox's user could become root again\n");
      return 125;
    }
  }
  execv(argv[i + 1], &argv[i + 1]);
  die(argv[i + 1]);
  return 125;
}

/* --------------------------------------------------------------------------------------------------------------- */
/* init: the relay */

struct relay {
  int listener;
  struct sockaddr_un target;
};

struct direction {
  char buffer[RELAY_BUFFER];
  size_t start, end;
  int eof;
};

struct pair {
  int fds[2]; /* 0: the command's connection, 1: the door's socket; -1 when free */
  struct direction flow[2]; /* flow[k]: read from fds[k], written to fds[1 - k] */
};

static struct relay relays[MAX_RELAYS];
static int relay_count;
static struct pair *pairs;

static int open_relay(const char *spec) {
  if (relay_count >= MAX_RELAYS) return -1;
  const char *equals = strchr(spec, '=');
  if (equals == NULL || strlen(equals + 1) >= sizeof relays[0].target.sun_path) return -1;
  char host[64];
  const char *colon = NULL;
  for (const char *c = spec; c < equals; c++)
    if (*c == ':') colon = c;
  if (colon == NULL || (size_t)(colon - spec) >= sizeof host) return -1;
  memcpy(host, spec, (size_t)(colon - spec));
  host[colon - spec] = '\0';
  int port = atoi(colon + 1);
  if (port < 1 || port > 65535) return -1;
  struct sockaddr_storage address;
  memset(&address, 0, sizeof address);
  socklen_t size;
  int family;
  struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    family = v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    size = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    family = v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    size = sizeof *v6;
  } else
    return -1;
  int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&address, size) != 0 || listen(fd, 64) != 0) {
    dprintf(2, "murmur-sandbox: the network relay cannot listen on %s:%d: %s\n", host, port, strerror(errno));
    close(fd);
    return 0;
  }
  relays[relay_count].listener = fd;
  relays[relay_count].target.sun_family = AF_UNIX;
  strcpy(relays[relay_count].target.sun_path, equals + 1);
  relay_count++;
  return 0;
}

static void close_pair(struct pair *pair) {
  for (int k = 0; k < 2; k++)
    if (pair->fds[k] >= 0) close(pair->fds[k]);
  pair->fds[0] = pair->fds[1] = -1;
}

static void accept_connection(struct relay *relay) {
  int inner = accept4(relay->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (inner < 0) return;
  struct pair *free_pair = NULL;
  for (int p = 0; p < MAX_PAIRS && free_pair == NULL; p++)
    if (pairs[p].fds[0] < 0) free_pair = &pairs[p];
  int outer = free_pair == NULL ? -1 : socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (outer < 0 || connect(outer, (struct sockaddr *)&relay->target, sizeof relay->target) != 0) {
    if (outer >= 0) close(outer);
    close(inner);
    return;
  }
  memset(free_pair, 0, sizeof *free_pair);
  free_pair->fds[0] = inner;
  free_pair->fds[1] = outer;
}

/* Moves what can move in one direction without blocking; -1 when the pair is done with. */
static int pump(struct pair *pair, int k, short readable, short writable) {
  struct direction *flow = &pair->flow[k];
  int from = pair->fds[k], to = pair->fds[1 - k];
  if (readable && !flow->eof && flow->end < RELAY_BUFFER) {
    ssize_t n = read(from, flow->buffer + flow->end, RELAY_BUFFER - flow->end);
    if (n > 0) flow->end += (size_t)n;
    else if (n == 0) flow->eof = 1;
    else if (errno != EAGAIN && errno != EINTR) return -1;
  }
  (void)writable;
  if (flow->end > flow->start) {
    ssize_t n = write(to, flow->buffer + flow->start, flow->end - flow->start);
    if (n > 0) flow->start += (size_t)n;
    else if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
    if (flow->start == flow->end) flow->start = flow->end = 0;
  }
  if (flow->eof && flow->start == flow->end && flow->eof != 2) {
    shutdown(to, SHUT_WR);
    flow->eof = 2;
  }
  return 0;
}

/* --------------------------------------------------------------------------------------------------------------- */
/* init: the command, its status, the door's requests */

static pid_t command_pid = -1;
static int command_exited;

static int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 125;
}

static void report(const char *line) {
  (void)write_all(STATUS_FD, line, strlen(line));
}

/* Appends to a line, never past its end. */
struct line {
  char text[4096];
  size_t used;
};

static void append(struct line *line, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void append(struct line *line, const char *format, ...) {
  if (line->used >= sizeof line->text - 1) return;
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line->text + line->used, sizeof line->text - line->used, format, args);
  va_end(args);
  if (n > 0) line->used += (size_t)n < sizeof line->text - line->used ? (size_t)n : sizeof line->text - 1 - line->used;
}

/* The processes of the namespace besides init, as `pid:comm`, comm's unprintable bytes written \xHH. */
static void report_holders(void) {
  static struct line line;
  line.used = 0;
  append(&line, "holders");
  int listed = 0, more = 0;
  DIR *proc = opendir("/proc");
  struct dirent *entry;
  while (proc != NULL && (entry = readdir(proc)) != NULL) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 1) continue;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) continue;
    stat[n] = '\0';
    char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
    if (open_paren == NULL || close_paren == NULL || close_paren[1] == '\0' || close_paren[2] == 'Z') continue;
    if (listed == MAX_HOLDERS) {
      more++;
      continue;
    }
    append(&line, " %ld:", pid);
    for (char *c = open_paren + 1; c < close_paren; c++) {
      unsigned char byte = (unsigned char)*c;
      if (byte > 0x20 && byte < 0x7f && byte != ':' && byte != '\\') append(&line, "%c", byte);
      else append(&line, "\\x%02x", byte);
    }
    listed++;
  }
  if (proc != NULL) closedir(proc);
  if (more > 0) append(&line, " +%d", more);
  /* The line always ends: a full buffer gives up its last byte to the newline. */
  if (line.used > sizeof line.text - 2) line.used = sizeof line.text - 2;
  line.text[line.used++] = '\n';
  (void)write_all(STATUS_FD, line.text, line.used);
}

static void start_command(char **command, long long fsize) {
  command_pid = fork();
  if (command_pid < 0) die("fork");
  if (command_pid > 0) {
    /* Also here, so a stop that comes at once finds the group made. */
    setpgid(command_pid, command_pid);
    return;
  }
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int keep[] = {-1};
  close_from(3, keep);
  if (fsize > 0) {
    struct rlimit limit = {.rlim_cur = (rlim_t)fsize, .rlim_max = (rlim_t)fsize};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) die("RLIMIT_FSIZE");
  }
  execvp(command[0], command);
  int error = errno;
  dprintf(2, "murmur-sandbox: cannot run %s: %s\n", command[0], strerror(error));
  _exit(error == ENOENT ? 127 : 126);
}

static int init(int argc, char **argv) {
  long long fsize = 0;
  int i = 0;
  if (getpid() != 1) {
    dprintf(2, "murmur-sandbox: init runs as PID 1 of the sandbox (bwrap --as-pid-1)\n");
    return 125;
  }
  struct stat status_fd;
  if (fstat(STATUS_FD, &status_fd) != 0 || !S_ISSOCK(status_fd.st_mode)) {
    dprintf(2, "murmur-sandbox: init reports on fd 3, which must be a socket of the door's\n");
    return 125;
  }
  /* Nothing of this process can be read or written by the command: not its memory, not its descriptors. */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) die("dumpable");
  /* A session keyring of its own: the door's keys are not possessed here (and the filter refuses the keyring calls). */
  if (syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS) die("joining a session keyring of its own");
  int keep[] = {STATUS_FD, -1};
  close_from(3, keep);
  pairs = calloc(MAX_PAIRS, sizeof *pairs);
  if (pairs == NULL) die("calloc");
  for (int p = 0; p < MAX_PAIRS; p++) pairs[p].fds[0] = pairs[p].fds[1] = -1;
  int asked = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--fsize") == 0 && i + 1 < argc) fsize = strtoll(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--relay") == 0 && i + 1 < argc) {
      asked++;
      if (open_relay(argv[++i]) != 0) dprintf(2, "murmur-sandbox: the network relay cannot read '%s'\n", argv[i]);
    } else {
      dprintf(2, "murmur-sandbox: init: unknown argument '%s'\n", argv[i]);
      return 125;
    }
  }
  if (i + 1 >= argc) {
    dprintf(2, "murmur-sandbox: init: no command after --\n");
    return 125;
  }
  if (asked > 0 && relay_count == 0) dprintf(2, "murmur-sandbox: the network relay did not start: no listed destination is reachable\n");

  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigprocmask(SIG_BLOCK, &handled, NULL);
  int signals = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signals < 0) die("signalfd");
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC);

  install_seccomp();
  start_command(&argv[i + 1], fsize);
  /* The command has the output; holding it here would keep it open after the command is gone. */
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    close(null);
  }
  report("started\n");

  char request[256];
  size_t request_size = 0;
  int door_open = 1;
  long long kill_at = -1;
  struct pollfd fds[2 + MAX_RELAYS + 2 * MAX_PAIRS];
  for (;;) {
    int count = 0;
    fds[count++] = (struct pollfd){.fd = signals, .events = POLLIN};
    fds[count++] = (struct pollfd){.fd = door_open ? STATUS_FD : -1, .events = POLLIN};
    for (int r = 0; r < relay_count; r++) fds[count++] = (struct pollfd){.fd = relays[r].listener, .events = POLLIN};
    int first_pair = count;
    for (int p = 0; p < MAX_PAIRS; p++)
      for (int k = 0; k < 2; k++) {
        struct pair *pair = &pairs[p];
        short events = 0;
        if (pair->fds[0] >= 0) {
          if (!pair->flow[k].eof && pair->flow[k].end < RELAY_BUFFER) events |= POLLIN;
          if (pair->flow[1 - k].end > pair->flow[1 - k].start) events |= POLLOUT;
        }
        /* Nothing to wait for on it: not polled, or a hang-up would wake the loop for nothing. */
        fds[count++] = (struct pollfd){.fd = events != 0 ? pair->fds[k] : -1, .events = events};
      }
    int timeout = -1;
    if (kill_at >= 0) timeout = (int)(kill_at > now_ms() ? kill_at - now_ms() : 0);
    if (poll(fds, (nfds_t)count, timeout) < 0 && errno != EINTR) die("poll");

    if (kill_at >= 0 && now_ms() >= kill_at) {
      kill(-command_pid, SIGKILL);
      kill_at = -1;
    }
    if (fds[0].revents & POLLIN) {
      struct signalfd_siginfo info;
      while (read(signals, &info, sizeof info) == sizeof info) {
        /* From outside the namespace the sender's pid reads 0: the door ends the sandbox. */
        if (info.ssi_signo == SIGTERM && info.ssi_pid == 0) kill(-1, SIGTERM);
      }
    }
    int status;
    pid_t died;
    while ((died = waitpid(-1, &status, WNOHANG)) > 0) {
      if (died != command_pid) continue;
      command_exited = 1;
      char line[48];
      if (WIFSIGNALED(status)) snprintf(line, sizeof line, "exit %d signal %d\n", exit_code_of(status), WTERMSIG(status));
      else snprintf(line, sizeof line, "exit %d\n", exit_code_of(status));
      report(line);
    }
    if (died < 0 && errno == ECHILD && command_exited) break;
    if (door_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(STATUS_FD, request + request_size, sizeof request - request_size);
      if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR))) {
        /* The door is gone: so is everything it started. */
        door_open = 0;
        kill(-1, SIGKILL);
      } else if (n > 0) {
        request_size += (size_t)n;
        char *newline;
        while ((newline = memchr(request, '\n', request_size)) != NULL) {
          *newline = '\0';
          if (strcmp(request, "stop") == 0 && !command_exited) {
            kill(-command_pid, SIGTERM);
            kill_at = now_ms() + KILL_AFTER_MS;
          } else if (strcmp(request, "holders") == 0)
            report_holders();
          size_t rest = request_size - (size_t)(newline + 1 - request);
          memmove(request, newline + 1, rest);
          request_size = rest;
        }
        if (request_size == sizeof request) request_size = 0;
      }
    }
    for (int r = 0; r < relay_count; r++)
      if (fds[2 + r].revents & POLLIN) accept_connection(&relays[r]);
    for (int p = 0; p < MAX_PAIRS; p++) {
      struct pair *pair = &pairs[p];
      if (pair->fds[0] < 0) continue;
      int failed = 0;
      for (int k = 0; k < 2 && !failed; k++) {
        short in = fds[first_pair + 2 * p + k].revents;
        short out = fds[first_pair + 2 * p + 1 - k].revents;
        if (in & (POLLERR | POLLNVAL)) failed = 1;
        else if (pump(pair, k, (short)(in & (POLLIN | POLLHUP)), (short)(out & POLLOUT)) != 0) failed = 1;
      }
      if (failed || (pair->flow[0].eof == 2 && pair->flow[1].eof == 2)) close_pair(pair);
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "launch") == 0) return launch(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "init") == 0) return init(argc - 2, argv + 2);
  dprintf(2, "usage: murmur-sandbox launch [--join <cgroup.procs>]... [--stage-root <dir> --stage <name>=<path>]... [--uid <uid> --gid <gid>] -- <bwrap> <args>...\n"
             "       murmur-sandbox init [--fsize <bytes>] [--relay <ip>:<port>=<socket>]... -- <command> <args>...\n");
  return 125;
}
