/* Running a pager on the REPL's terminal, as a job-control shell runs a foreground job.

   The pager gets a process group of its own and that group becomes the terminal's foreground
   group, so the keys (Ctrl-C included), the window changes and the terminal modes are the
   pager's until it ends; then the REPL takes the terminal back and restores its modes. A pager
   started in the REPL's own group but not made foreground (what Foundation's Process does: a
   group of its own, left in the background) cannot read the keyboard: less exits 1 at once. */
#include "CReadlineShim.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Signals the pager must get with their default action, whatever the REPL set for itself. */
static const int reset_signals[] = {SIGINT, SIGQUIT, SIGWINCH, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGHUP, SIGTERM};

/* [child, between fork and exec: async-signal-safe calls only] Joins its own process group,
   takes the terminal (SIGTTOU blocked: it is not the foreground yet), resets the signals and
   the mask, reads `in` as standard input, and runs `/bin/sh -c command`. Never returns. */
static void exec_pager(const char *command, int in, int tty, int take_terminal) {
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &all, NULL);
    setpgid(0, 0);
    if (take_terminal) tcsetpgrp(tty, getpid());
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof reset_signals / sizeof reset_signals[0]; i++) sigaction(reset_signals[i], &dfl, NULL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (in != STDIN_FILENO) {
        if (dup2(in, STDIN_FILENO) < 0) _exit(127);
        close(in);
    }
    execl("/bin/sh", "sh", "-c", command, (char *)NULL);
    _exit(127);
}

/* [parent] Makes `pgrp` the terminal's foreground group; SIGTTOU is blocked meanwhile, since
   a process that is not in the foreground group gets it for tcsetpgrp. */
static void give_terminal(int tty, pid_t pgrp) {
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    tcsetpgrp(tty, pgrp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Writes all of `text` to `fd`; stops early when the reader is gone (EPIPE: the pager quit
   before reading it all, as `q` in less does). SIGPIPE is blocked on this thread meanwhile, and
   one that was raised is taken back before the mask is restored. */
static void write_all(int fd, const char *text, size_t len) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    int broke = 0;
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            broke = errno == EPIPE;
            break;
        }
        text += n;
        len -= (size_t)n;
    }
    if (broke) {
        /* Consume the SIGPIPE this thread raised, so unblocking it does not end the REPL. */
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int frl_run_pager(const char *command, const char *text, size_t len, int *status) {
    *status = 0;
    int tty = STDIN_FILENO;
    /* Only a REPL that owns the terminal hands it over (not one started in the background). */
    int take_terminal = isatty(tty) && tcgetpgrp(tty) == getpgrp();
    struct termios saved;
    int have_modes = isatty(tty) && tcgetattr(tty, &saved) == 0;

    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(p[1]);
        exec_pager(command, p[0], tty, take_terminal);
    }
    close(p[0]);
    /* Both sides set the group and the foreground (as shells do): whichever runs first wins
       the race, and the pager never reads the terminal from the background. */
    setpgid(pid, pid);
    if (take_terminal) give_terminal(tty, pid);

    write_all(p[1], text, len);
    close(p[1]);

    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) { st = 0; break; }
    }
    /* Whatever of the pager's job is still there (a `less` whose `sh -c` was killed) goes with
       it: it must not read the keyboard once the REPL has it back. */
    kill(-pid, SIGHUP);
    if (take_terminal) give_terminal(tty, getpgrp());
    if (have_modes) tcsetattr(tty, TCSADRAIN, &saved);
    *status = st;
    return 0;
}
