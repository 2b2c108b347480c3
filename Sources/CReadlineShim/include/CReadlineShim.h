/* The C side of the `flickr` REPL's line editor: GNU readline's callback interface driven by a
   select() loop, a SIGINT/SIGWINCH self-pipe, plain line reading for non-terminals, history with
   multi-line entries, and the completion trampoline. Everything readline needs from C globals is
   set here, so Swift (6 mode) never touches readline's mutable globals.

   Signals: the handlers only write one byte to a pipe (async-signal-safe). Whoever waits — the
   editing loop, or the REPL thread while Lua runs — sees the pipe readable and reacts on a normal
   thread. */
#ifndef CREADLINESHIM_H
#define CREADLINESHIM_H

#include <stddef.h>

/* What frl_readline / frl_plain_readline got. */
enum {
    FRL_LINE = 0,       /* a line; *out is malloc'd, the caller frees it */
    FRL_EOF = 1,        /* end of input (Ctrl-D on an empty line, closed stdin) */
    FRL_INTERRUPT = 2,  /* Ctrl-C: the line was discarded */
};

/* Candidates for completing the text before the cursor: a malloc'd, NULL-terminated array of
   malloc'd strings, each a full replacement of line[*start ..< point] (byte offsets). NULL or an
   empty array for none. Called on the thread that reads lines. */
typedef char **(*frl_candidates_fn)(const char *line, int point, int *start);

/* Installs the SIGINT and SIGWINCH handlers (and the self-pipe). Returns 0, or -1 with errno. */
int frl_signals_install(void);
/* SIGTERM and SIGHUP told as a Ctrl-C is (through the same pipe), for commands that stop as
   after Ctrl-C when a terminal closes or a service manager stops them; the signal is kept for
   the exit status (128 + it). frl_signals_restore undoes it too. */
int frl_termination_install(void);
/* The SIGTERM or SIGHUP received since frl_termination_install, or 0. */
int frl_termination_signal(void);
void frl_termination_restore(void);
/* Puts back the handlers that were there before frl_signals_install. */
void frl_signals_restore(void);
/* Drops interrupts that arrived so far; returns how many there were. */
int frl_take_interrupts(void);
/* Waits until `fd` is readable (returns 1), an interrupt arrives (returns 0, consumed) or the
   window changes (returns 2; a caller not editing may ignore it: the next frl_readline asks the
   terminal for its size), or, only while frl_readline edits a line, a Ctrl-Z arrives (returns
   3); `timeout_ms` < 0 waits for ever (returns -1 on timeout or error). */
int frl_wait(int fd, int timeout_ms);
/* Blocks until interrupts arrive (returns how many, consumed; window changes are dropped) or
   `stop_fd` is readable (returns -1): the loop of a thread that hands Ctrl-Cs to a command. */
int frl_wait_interrupts(int stop_fd);

/* Readline settings for the REPL: application name (for `$if` in ~/.inputrc), word breaks that
   keep `a.b:c["d"]` one word, no bracketed paste, no space after a completion, the completer. */
void frl_configure(const char *name, const char *word_breaks, frl_candidates_fn candidates);
/* Reads one line with readline (prompt may contain \001…\002 around escape sequences). */
int frl_readline(const char *prompt, char **out);
/* Reads one line from standard input without readline, after writing `prompt` to stdout. */
int frl_plain_readline(const char *prompt, char **out);
/* Runs `/bin/sh -c command` as a foreground job of the terminal (its own process group, made
   the terminal's foreground group until it ends; default signal actions) with `text` on its
   standard input, waits for it, then takes the terminal back and restores its modes. Returns 0
   with the wait status in *status, or -1 with errno when it could not be started. */
int frl_run_pager(const char *command, const char *text, size_t len, int *status);
/* Terminal width in columns (standard output, else 80). */
int frl_columns(void);
/* The width of the terminal `fd` is, in columns (80 when it is none). */
int frl_columns_of(int fd);
/* The terminal's height (24 when not a terminal). */
int frl_rows(void);

/* History: `max` entries kept; entries may contain newlines (written with timestamps so that
   they read back whole). */
void frl_history_setup(int max);
/* Adds an entry (not a repeat of the last); with a history file set, appends it there at once
   (a closed terminal or a second REPL loses nothing). 0 on success, else an errno value. */
int frl_history_add(const char *entry);
/* 0 on success, else an errno value. */
int frl_history_load(const char *path);
/* The file each entry is appended to when added, trimmed to `max` entries under a lock
   (PATH.lock); NULL: none. */
void frl_history_file(const char *path, int max);
/* Number of entries, and entry i (0-based; NULL when out of range), for tests and :history. */
int frl_history_count(void);
const char *frl_history_entry(int i);

#endif
