#include "CReadlineShim.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/readline.h>
#include <readline/history.h>

/* ---- signals: a self-pipe ------------------------------------------------------------------ */

static int sig_pipe[2] = {-1, -1};
static struct sigaction old_int, old_winch;
void frl_termination_restore(void);
static int installed = 0;

/* Each signal is a letter in the pipe: `i` an interrupt, `w` a window change, `z` a Ctrl-Z. */
static void on_signal(int sig) {
    int saved = errno;
    (void)!write(sig_pipe[1], sig == SIGWINCH ? "w" : sig == SIGTSTP ? "z" : "i", 1);
    errno = saved;
}

static int set_flags(int fd) {
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -1;
    return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int frl_signals_install(void) {
    if (installed) return 0;
    if (sig_pipe[0] < 0) {
        if (pipe(sig_pipe) != 0) return -1;
        if (set_flags(sig_pipe[0]) != 0 || set_flags(sig_pipe[1]) != 0) return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &sa, &old_int) != 0) return -1;
    if (sigaction(SIGWINCH, &sa, &old_winch) != 0) return -1;
    installed = 1;
    return 0;
}

void frl_signals_restore(void) {
    if (!installed) return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGWINCH, &old_winch, NULL);
    installed = 0;
    frl_termination_restore();
}

/* SIGTERM and SIGHUP as a stop: recorded, then told through the pipe as a Ctrl-C is. */
static volatile sig_atomic_t termination_signal = 0;
static struct sigaction old_term, old_hup;
static int termination_installed = 0;

static void on_termination(int sig) {
    int saved = errno;
    termination_signal = sig;
    (void)!write(sig_pipe[1], "i", 1);
    errno = saved;
}

int frl_termination_install(void) {
    if (termination_installed) return 0;
    if (frl_signals_install() != 0) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_termination;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGTERM, &sa, &old_term) != 0) return -1;
    if (sigaction(SIGHUP, &sa, &old_hup) != 0) return -1;
    termination_installed = 1;
    return 0;
}

int frl_termination_signal(void) { return termination_signal; }

void frl_termination_restore(void) {
    if (!termination_installed) return;
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    termination_installed = 0;
}

/* Set by drain when a Ctrl-Z was in the pipe; only frl_readline, which installs the handler
   for SIGTSTP, looks at it. */
static int suspend_requested = 0;
static int tstp_installed = 0;

/* Reads the pipe empty; returns the number of interrupts in it (window changes are noted). */
static int drain(void) {
    char buf[64];
    int n = 0;
    ssize_t r;
    while ((r = read(sig_pipe[0], buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] == 'i') n++;
            if (buf[i] == 'z' && tstp_installed) suspend_requested = 1;
        }
    }
    return n;
}

int frl_take_interrupts(void) {
    if (sig_pipe[0] < 0) return 0;
    return drain();  /* window changes drained too: the next line read asks for the size */
}

/* Waits (select; EINTR retried) until `fd` or the signal pipe is readable, or `timeout_ms`
   passes (< 0: no limit). Returns select's count (0: the time ran out, -1: an error) and sets
   what is readable. */
static int wait_either(int fd, int timeout_ms, int *fd_ready, int *signalled) {
    for (;;) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        int maxfd = fd;
        if (sig_pipe[0] >= 0) {
            FD_SET(sig_pipe[0], &fds);
            if (sig_pipe[0] > maxfd) maxfd = sig_pipe[0];
        }
        struct timeval tv, *tvp = NULL;
        if (timeout_ms >= 0) {
            tv.tv_sec = timeout_ms / 1000;
            tv.tv_usec = (timeout_ms % 1000) * 1000;
            tvp = &tv;
        }
        int r = select(maxfd + 1, &fds, NULL, NULL, tvp);
        if (r < 0 && errno == EINTR) continue;
        *fd_ready = r > 0 && FD_ISSET(fd, &fds);
        *signalled = r > 0 && sig_pipe[0] >= 0 && FD_ISSET(sig_pipe[0], &fds);
        return r;
    }
}

int frl_wait(int fd, int timeout_ms) {
    for (;;) {
        int fd_ready, signalled;
        if (wait_either(fd, timeout_ms, &fd_ready, &signalled) <= 0) return -1;
        if (signalled) {
            if (drain() > 0) return 0;
            if (suspend_requested) return 3;
            /* Only a window change: the editor redraws at the new width now; anyone else may
               ignore it, since the next line read asks the terminal for its size. */
            if (!fd_ready) return 2;
        }
        if (fd_ready) return 1;
    }
}

int frl_wait_interrupts(int stop_fd) {
    for (;;) {
        int stopped, signalled;
        if (wait_either(stop_fd, -1, &stopped, &signalled) < 0 || stopped) return -1;
        if (signalled) {
            int n = drain();
            if (n > 0) return n;
        }
    }
}

/* ---- completion ---------------------------------------------------------------------------- */

static frl_candidates_fn candidates_fn = NULL;
static char **pending = NULL;   /* candidates handed out by the generator */
static size_t pending_index = 0;

static void free_pending(void) {
    if (!pending) return;
    for (size_t i = pending_index; pending[i]; i++) free(pending[i]);
    free(pending);
    pending = NULL;
    pending_index = 0;
}

static char *generator(const char *text, int state) {
    (void)text;
    if (!pending) return NULL;
    if (pending[pending_index] == NULL) { free_pending(); return NULL; }
    return pending[pending_index++];  /* readline frees it */
}

/* readline's word is line[start ..< end]; the candidates replace line[lstart ..< end]. Map them
   onto readline's word (they normally agree, since the word breaks match the completer). */
static char **attempted_completion(const char *text, int start, int end) {
    (void)text;
    rl_attempted_completion_over = 1;   /* never fall back to file names */
    rl_completion_append_character = '\0';
    rl_completion_suppress_append = 1;
    free_pending();
    if (!candidates_fn) return NULL;
    int lstart = start;
    char **list = candidates_fn(rl_line_buffer, end, &lstart);
    if (!list) return NULL;
    if (lstart < 0) lstart = 0;
    if (lstart > end) lstart = end;
    size_t n = 0;
    while (list[n]) n++;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        char *c = list[i];
        char *mapped = NULL;
        if (lstart == start) {
            mapped = c;
            c = NULL;
        } else if (lstart < start) {
            size_t extra = (size_t)(start - lstart);
            if (strncmp(c, rl_line_buffer + lstart, extra) == 0) mapped = strdup(c + extra);
        } else {
            size_t extra = (size_t)(lstart - start);
            mapped = malloc(extra + strlen(c) + 1);
            if (mapped) {
                memcpy(mapped, rl_line_buffer + start, extra);
                strcpy(mapped + extra, c);
            }
        }
        free(c);
        if (mapped) list[kept++] = mapped;
    }
    list[kept] = NULL;
    if (kept == 0) { free(list); return NULL; }
    pending = list;
    pending_index = 0;
    char **matches = rl_completion_matches(text, generator);
    free_pending();
    return matches;
}

/* Where the last component of a candidate starts: after the last `.` or `:` of the path, or at
   its last `[` for a `["key"]` candidate; a trailing `.` or `(` (the type hint) doesn't count. */
static size_t last_component(const char *c) {
    size_t end = strlen(c);
    if (end > 1 && (c[end - 1] == '.' || c[end - 1] == '(')) end--;
    if (end > 0 && c[end - 1] == ']') {
        for (size_t i = end; i > 0; i--) if (c[i - 1] == '[') return i - 1;
        return 0;
    }
    for (size_t i = end; i > 0; i--) if (c[i - 1] == '.' || c[i - 1] == ':') return i;
    return 0;
}

/* Lists matches by their last component (`getInfo(` rather than `flickr.photos.getInfo(`). */
static void display_matches(char **matches, int count, int max_length) {
    (void)max_length;
    char **shown = calloc((size_t)count + 2, sizeof *shown);
    if (!shown) return;
    int longest = 0;
    shown[0] = matches[0];
    for (int i = 1; i <= count; i++) {
        shown[i] = matches[i] + last_component(matches[i]);
        int len = (int)strlen(shown[i]);
        if (len > longest) longest = len;
    }
    rl_display_match_list(shown, count, longest);
    free(shown);
    rl_forced_update_display();
}

void frl_configure(const char *name, const char *word_breaks, frl_candidates_fn candidates) {
    static char *saved_name = NULL, *saved_breaks = NULL;
    free(saved_name);
    free(saved_breaks);
    saved_name = strdup(name);
    saved_breaks = strdup(word_breaks);
    rl_readline_name = saved_name;
    rl_basic_word_break_characters = saved_breaks;
    rl_completer_word_break_characters = saved_breaks;
    rl_completer_quote_characters = NULL;
    rl_attempted_completion_function = attempted_completion;
    rl_sort_completion_matches = 0;  /* the completer orders them (arguments not given yet first) */
    rl_completion_display_matches_hook = display_matches;
    candidates_fn = candidates;
    rl_catch_signals = 0;          /* our self-pipe handles SIGINT */
    rl_catch_sigwinch = 0;
    rl_change_environment = 0;     /* don't export LINES/COLUMNS */
    rl_initialize();
    /* After rl_initialize (which reads ~/.inputrc): pasted text shouldn't arrive wrapped in
       escape sequences, and a terminal shouldn't be told to switch modes. */
    rl_variable_bind("enable-bracketed-paste", "off");
    using_history();
}

/* ---- reading lines with readline ------------------------------------------------------------ */

static char *got_line = NULL;
static int got_done = 0;

/* The window size readline was last told of. */
static unsigned short known_rows = 0, known_cols = 0;

/* Tells readline the terminal's size when it differs from what it was last told (redrawing
   the line being edited). Checked before each key as well as on SIGWINCH: the kernel changes
   the size at once, while the signal reaches a thread of this process a little later, so a key
   typed right after a resize could otherwise be handled at the old width. One ioctl a key. */
static void follow_window_size(int redraw) {
    struct winsize ws;
    if (ioctl(fileno(rl_outstream), TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return;
    if (ws.ws_col == known_cols && ws.ws_row == known_rows) return;
    known_cols = ws.ws_col;
    known_rows = ws.ws_row;
    if (redraw) rl_resize_terminal(); else rl_reset_screen_size();
}

/* Ctrl-Z while a line is edited. readline's own handler is off (rl_catch_signals = 0: signals
   come through the self-pipe), so it is done here, on the editing thread, as readline's handler
   would: the terminal is given back as it was found, the process stops as Ctrl-Z asks, and on
   `fg` the terminal is readline's again and the prompt and the line being typed are drawn anew
   on the line the shell left the cursor on. Installed only while a line is read: during a
   call, Ctrl-Z stops the process at once, as the default action does. */
static struct sigaction old_tstp;

static void suspend_install(void) {
    if (tstp_installed || sig_pipe[1] < 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    suspend_requested = 0;
    if (sigaction(SIGTSTP, &sa, &old_tstp) == 0) tstp_installed = 1;
}

static void suspend_restore(void) {
    if (!tstp_installed) return;
    sigaction(SIGTSTP, &old_tstp, NULL);
    tstp_installed = 0;
    suspend_requested = 0;
}

static void follow_window_size(int redraw);

static void suspend(void) {
    suspend_requested = 0;
    rl_echo_signal_char(SIGTSTP);       /* ^Z, as the terminal would echo it */
    rl_cleanup_after_signal();          /* the terminal's modes as they were before readline */
    /* Stop with the default action, SIGTSTP unblocked on this thread. In an orphaned process
       group the kernel discards it (there is no shell to continue us): the line is redrawn. */
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTSTP);
    pthread_sigmask(SIG_UNBLOCK, &set, &old);
    kill(getpid(), SIGTSTP);
    /* … continued (SIGCONT): */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGTSTP, &ours, NULL);
    rl_reset_after_signal();            /* readline's modes again */
    known_cols = known_rows = 0;        /* the window may have changed while stopped */
    follow_window_size(0);
    rl_on_new_line();                   /* the cursor is at the start of a fresh line */
    rl_redisplay();
}

static int edit(int in);

static void on_line(char *line) {
    got_line = line;
    got_done = 1;
    rl_callback_handler_remove();
}

int frl_readline(const char *prompt, char **out) {
    *out = NULL;
    got_line = NULL;
    got_done = 0;
    /* readline leaves rl_eof_found set after a Ctrl-D (one at `>>` included, which the REPL
       survives): cleared, the first key of the next line is not taken for an end of file. */
    rl_eof_found = 0;
    if (rl_instream == NULL) rl_instream = stdin;
    if (rl_outstream == NULL) rl_outstream = stdout;
    fflush(stdout);
    /* The size may have changed since the last line (during a call, in a pager, which gets the
       window changes while it owns the terminal): read it before the prompt is drawn. */
    known_cols = known_rows = 0;
    follow_window_size(0);
    rl_callback_handler_install(prompt, on_line);
    suspend_install();
    int in = fileno(rl_instream);
    int status = edit(in);
    suspend_restore();
    if (status != FRL_LINE) return status;
    if (got_line == NULL) return FRL_EOF;
    *out = got_line;
    return FRL_LINE;
}

/* The editing loop of frl_readline: FRL_LINE when on_line was called, else how it ended. */
static int edit(int in) {
    while (!got_done) {
        int r = frl_wait(in, -1);
        if (r == 3) {
            suspend();
            continue;
        }
        if (r == 2) {
            /* A window change while editing: redraw the line at the new width at once. */
            follow_window_size(1);
            continue;
        }
        if (r == 0) {
            /* Ctrl-C: discard the line and start over, as bash does. */
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_cleanup_after_signal();
            rl_callback_handler_remove();
            fputs("^C\n", rl_outstream);
            fflush(rl_outstream);
            using_history();
            return FRL_INTERRUPT;
        }
        if (r < 0) {
            rl_callback_handler_remove();
            return FRL_EOF;
        }
        follow_window_size(1);  /* a resize the signal has not told of yet */
        rl_callback_read_char();
        if (!got_done && rl_eof_found) {
            /* end of file in the middle of a line: give up on the line */
            rl_callback_handler_remove();
            return FRL_EOF;
        }
    }
    return FRL_LINE;
}

/* ---- reading lines without readline --------------------------------------------------------- */

static char *plain_buf = NULL;
static size_t plain_len = 0, plain_cap = 0;
static int plain_eof = 0;

int frl_plain_readline(const char *prompt, char **out) {
    *out = NULL;
    if (prompt && *prompt) {
        fputs(prompt, stdout);
    }
    fflush(stdout);
    for (;;) {
        char *nl = plain_len ? memchr(plain_buf, '\n', plain_len) : NULL;
        if (nl || (plain_eof && plain_len > 0)) {
            size_t n = nl ? (size_t)(nl - plain_buf) : plain_len;
            char *line = malloc(n + 1);
            if (!line) return FRL_EOF;
            memcpy(line, plain_buf, n);
            line[n] = '\0';
            if (n > 0 && line[n - 1] == '\r') line[n - 1] = '\0';
            size_t used = nl ? n + 1 : n;
            memmove(plain_buf, plain_buf + used, plain_len - used);
            plain_len -= used;
            *out = line;
            return FRL_LINE;
        }
        if (plain_eof) return FRL_EOF;
        int r = frl_wait(STDIN_FILENO, -1);
        if (r == 2) continue;  /* a window change: nothing to redraw without readline */
        if (r == 0) {
            plain_len = 0;  /* like the terminal: Ctrl-C drops what was typed */
            fputs("\n", stdout);
            fflush(stdout);
            return FRL_INTERRUPT;
        }
        if (r < 0) { plain_eof = 1; continue; }
        if (plain_cap - plain_len < 4096) {
            size_t cap = plain_cap ? plain_cap * 2 : 8192;
            char *b = realloc(plain_buf, cap);
            if (!b) return FRL_EOF;
            plain_buf = b;
            plain_cap = cap;
        }
        ssize_t got = read(STDIN_FILENO, plain_buf + plain_len, plain_cap - plain_len);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            plain_eof = 1;
        } else if (got == 0) {
            plain_eof = 1;
        } else {
            plain_len += (size_t)got;
        }
    }
}

int frl_columns_of(int fd) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

int frl_columns(void) { return frl_columns_of(STDOUT_FILENO); }

int frl_rows(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) return ws.ws_row;
    return 24;
}

/* ---- history -------------------------------------------------------------------------------- */

void frl_history_setup(int max) {
    using_history();
    history_write_timestamps = 1;     /* entries separated by "#<time>" lines … */
    history_multiline_entries = 1;    /* … so that multi-line chunks read back as one entry */
    history_comment_char = '#';       /* (without it the timestamps are empty and not written) */
    if (max > 0) stifle_history(max);
}

/* The file each entry is appended to as it is entered, and the entries it keeps. */
static char *history_file = NULL;
static int history_max = 0;

void frl_history_file(const char *path, int max) {
    free(history_file);
    history_file = path ? strdup(path) : NULL;
    history_max = max;
}

/* Appends the newest entry to the history file and trims the file to `history_max` entries,
   holding an exclusive lock on PATH.lock: two REPLs appending at once keep both their lines,
   and a trim (which readline does by writing a new file and renaming it) never races an
   append. The lock file is never renamed, so everyone locks the same inode. 0 or an errno. */
static int append_newest(void) {
    size_t n = strlen(history_file);
    char *lock_path = malloc(n + 6);
    if (!lock_path) return ENOMEM;
    memcpy(lock_path, history_file, n);
    memcpy(lock_path + n, ".lock", 6);
    int lock = open(lock_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    free(lock_path);
    if (lock < 0) return errno;
    int status = 0;
    while (flock(lock, LOCK_EX) != 0) {
        if (errno != EINTR) { status = errno; break; }
    }
    if (status == 0) {
        /* append_history opens the file without O_CREAT: make it first (mode 0600). */
        int fd = open(history_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0) status = errno; else close(fd);
        if (status == 0) status = append_history(1, history_file);
        if (status == 0 && history_max > 0) status = history_truncate_file(history_file, history_max);
    }
    close(lock);  /* releases the lock */
    return status;
}

int frl_history_add(const char *entry) {
    if (!entry || !*entry) return 0;
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last && strcmp(last->line, entry) == 0) return 0;  /* no consecutive duplicates */
    add_history(entry);
    using_history();
    return history_file ? append_newest() : 0;
}

int frl_history_load(const char *path) {
    int r = read_history(path);
    using_history();
    return r;
}

int frl_history_count(void) { return history_length; }

const char *frl_history_entry(int i) {
    HIST_ENTRY *e = history_get(history_base + i);
    return e ? e->line : NULL;
}
