/*
 * CLuaShim — the only C between LuaKit (Swift) and Lua 5.4.
 *
 * Lua reports errors and yields with longjmp. A longjmp must never cross a Swift frame (it skips
 * releases, deinit and exclusivity bookkeeping), so this file holds everything that may jump:
 *
 *  1. The single trampoline for Swift functions (lk_push_function). Swift runs, returns a status,
 *     and only then, from C, the trampoline calls lua_error or lua_yieldk.
 *  2. Protected helpers (lk_p*) for every API call that may raise (manual class `e` or `v`):
 *     each runs the operation in a tiny C function under lua_pcall and returns a status.
 *  3. The interrupt hook (a Ctrl-C from a signal handler or another thread) and the wake-up
 *     semaphore of the Lua thread.
 *  4. Inline versions of Lua's function-like macros, which Swift cannot import.
 *  5. Bulk table building (lk_set_string_fields): raw sets with string keys, in a C loop.
 *
 * Swift may call directly only API functions of class `-` or `m` (raw gets/sets, push*, to*,
 * type, createtable, rawlen, setmetatable, newthread, resume, xmove, ref/unref, loadbufferx).
 * Memory errors (`m`) are accepted: LuaHost installs lk_heap_alloc (below) as the state's
 * allocator, which takes its chunks and large blocks from malloc, and malloc does not
 * practically fail on Linux with overcommit (a shrink never fails: the larger block is kept).
 *
 * The exceptions — functions of class `e` that Swift calls directly — are exactly these, each
 * safe for the reason given:
 *  - lua_settop / lua_pop (lk_pop): they raise only when they close a to-be-closed slot, and
 *    LuaKit never marks a slot to-be-closed (lua_toclose is not called from Swift, and Lua code
 *    cannot mark a slot of a C function's frame).
 *  - lua_rawset / lua_rawseti with a key Swift pushed: lua_rawset raises only for a nil or NaN
 *    key, which LuaState.rawSet(in:) refuses before calling it; lua_rawseti's key is an integer.
 *  - lua_next: it raises only for a key it did not produce. It is called in one place,
 *    LuaState.forEachRawEntry(inTableAt:_:), which hands it back the untouched key it gave and
 *    lets the caller read only a copy of that key.
 *
 * Stack effects are written as in the Lua manual: [-pop, +push].
 */
#ifndef CLUASHIM_H
#define CLUASHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stddef.h>

/* ---- 1. Swift functions ------------------------------------------------------------------- */

/* What a Swift function returns to the trampoline:
 *   n >= 0          n results are on top of the stack;
 *   LK_RAISE        the error value is on top: the trampoline calls lua_error;
 *   lk_yield(n)     n values are on top: the trampoline yields them with lua_yieldk. The
 *                   coroutine must later be resumed with (true, results...) — the call then
 *                   returns the results — or with (false, error) — the call raises error. */
#define LK_RAISE (-1)
static inline int lk_yield(int n) { return -2 - n; }
static inline int lk_is_yield(int status) { return status <= -2; }

/* Called by the trampoline: `box` is the pointer given to lk_push_function. */
typedef int (*lk_dispatch_fn)(lua_State *L, void *box);
/* Called when Lua collects a function: release `box`. Must not touch the Lua state. */
typedef void (*lk_release_fn)(void *box);

/* Sets the process-wide dispatcher and releaser (once, before any lk_push_function). */
void lk_install(lk_dispatch_fn dispatch, lk_release_fn release);

/* [-0, +1, m] Pushes a Lua function that calls dispatch(L, box) through the trampoline. The box
 * lives in a full userdata upvalue; its __gc calls release(box). */
void lk_push_function(lua_State *L, void *box);

/* True when the value at idx is a function made by lk_push_function; *box receives its box. */
int lk_is_swift_function(lua_State *L, int idx, void **box);

/* ---- 2. Protected calls and helpers ----------------------------------------------------------- */

/* [-(nargs+1), +(nresults|1), -] Calls the function below the nargs arguments in protected mode
 * with the LuaKit message handler. On error the error value (unchanged — a table keeps its
 * identity) is on top; the handler stored a traceback (retrieve with lk_last_traceback) and, for
 * a table without a `traceback` field, put it there too. Returns the lua_pcall status. */
int lk_pcall(lua_State *L, int nargs, int nresults);
/* [-(nargs+1), +(nresults|1), -] lua.c's docall inside its pmain: calls the function below its
 * nargs arguments from a C frame (the `[C]: in ?` ending lua.c's tracebacks) under lua.c's
 * message handler. On error the one value on top is the message lua.c prints: a string error
 * with a traceback, an object's __tostring string alone (called before the stack unwinds), or
 * "(error object is a T value)" with a traceback; the interrupt sentinel is "interrupted!". */
int lk_luac_docall(lua_State *L, int nargs, int nresults);

/* [-0, +1, -] Pushes the traceback the message handler recorded for the latest error (a string,
 * or nil), and clears it. */
void lk_last_traceback(lua_State *L);

/* [-0, +1, m] Pushes the traceback of thread co (from `level`), e.g. of a coroutine that died. */
void lk_traceback(lua_State *L, lua_State *co, int level);

/* The helpers below run one operation that may call metamethods or raise. On success they
 * return LUA_OK and leave what the operation leaves; on failure they return the status and the
 * error value replaces the operands. Indices may be relative. */
int lk_pgettable(lua_State *L, int idx);          /* [-1, +1] key on top -> t[key] */
int lk_psettable(lua_State *L, int idx);          /* [-2, +0] key, value on top -> t[key] = value */
int lk_pgetfield(lua_State *L, int idx, const char *k); /* [-0, +1] */
int lk_psetfield(lua_State *L, int idx, const char *k); /* [-1, +0] value on top */
int lk_ptolstring(lua_State *L, int idx);         /* [-0, +1] luaL_tolstring (honours __tostring, __name) */
int lk_plen(lua_State *L, int idx);               /* [-0, +1] #v (honours __len) */
int lk_pcompare(lua_State *L, int a, int b, int op, int *result); /* [-0, +0] lua_compare */
int lk_popenlibs(lua_State *L);                   /* [-0, +0] luaL_openlibs, then lk_install_collectgarbage */
int lk_prequiref(lua_State *L, const char *name); /* [-1, +0] value on top -> package.loaded[name] */

/* [-0, +0, -] Closes (5.4.6: lua_closethread) or resets (5.4.4: lua_resetthread) a dead or
 * suspended coroutine, running its pending to-be-closed variables. Returns the status. */
int lk_closethread(lua_State *co, lua_State *from);

/* ---- 3. Interrupts and the wake-up semaphore ------------------------------------------------- */

/* Per-runtime flags shared by the Lua thread, other threads and signal handlers. Stored in the
 * main thread's extra space (copied into every coroutine), so the hook finds it from any thread. */
typedef struct lk_host lk_host;

/* Creates the flags for a fresh state, stores them (and `owner`, an opaque pointer for the
 * Swift side) in the extra space and creates the interrupt sentinel. No hook is installed: an
 * interrupt sets one (see lk_host_interrupt). NULL when memory runs out. */
lk_host *lk_host_attach(lua_State *L, void *owner);
/* On the Lua thread, before it runs Lua code: from now on an interrupt from another thread
 * reaches this thread as a signal that sets the hook. */
void lk_host_bind_thread(lk_host *h);
/* On the Lua thread, before lua_close: interrupts set no hook any more. */
void lk_host_unbind_thread(lk_host *h);
/* The thread of the innermost Swift function (the main thread between calls): an interrupt
 * sets the hook on it as well as on the main thread. */
void lk_host_set_running(lk_host *h, lua_State *L);
/* On the Lua thread, as a Swift function is entered: with an interrupt pending, sets the hook on
 * the main and the running thread (the one just set), as lua.c's hook fires on a call. A loop
 * in a coroutine that calls Swift is so reached even when the interrupt's signal came while it
 * ran Lua code. One atomic load when none is pending. */
void lk_host_arm_if_pending(lk_host *h);
/* Sets the owner pointer (see lk_host_attach). */
void lk_host_set_owner(lk_host *h, void *owner);
/* Frees the flags; call after lua_close. */
void lk_host_free(lk_host *h);
/* The owner pointer stored for L's state (any thread of it), or NULL (also for a foreign state
 * once it has closed). */
void *lk_host_owner(lua_State *L);

/* Async-signal-safe: interrupts the job running now or, with none running, the next job to
 * start; wakes the Lua thread; and, for a state bound to its thread, sets lua.c's interrupt
 * hook (call, return, new lines, every instruction) on the main thread and the running one —
 * directly on the Lua thread, through a real-time signal to it from any other. The hook puts back the
 * hooks it replaced (a script's own), then raises the sentinel if the interrupt is still
 * pending. A coroutine that Lua code resumed and that loops without calling Swift is, as under
 * lua.c, reached only when it returns to a thread the hook is on. */
void lk_host_interrupt(lk_host *h);
/* Takes the pending interrupt if it targets the job running now (1), else 0. An interrupt whose
 * job already ended is stale and never taken. */
int lk_host_take_interrupt(lk_host *h);
/* Called by the Lua thread when a top-level job ends (makes that job's interrupt stale). */
void lk_host_job_finished(lk_host *h);
/* [-0, +1] Pushes the interrupt sentinel: the value the hook raises, a userdata that Lua code
 * cannot create (tostring gives lua.c's "interrupted!"). */
void lk_push_interrupt(lua_State *L);
/* 1 when the value at idx is the interrupt sentinel (raw comparison; never raises). */
int lk_is_interrupt(lua_State *L, int idx);

/* ---- 3b. A state someone else created (a Lua C module written in Swift) --------------------
 * lua.c's state is not LuaKit's: its extra space, allocator and hook are the interpreter's own,
 * and it runs on the interpreter's thread with no job loop. LuaKit then keeps its flags in the
 * registry, installs no hook (lua.c's SIGINT handler interrupts running Lua code by itself) and
 * only catches SIGINT while the Lua thread waits for async work (lk_sigint_catch). Memory
 * errors stay acceptable: the interpreter's allocator is realloc (lauxlib's l_alloc). */

/* Creates the flags for L's state, stores them in the registry with the interrupt sentinel and
 * an anchor whose __gc calls release(owner) once, at lua_close (set the owner with
 * lk_host_set_owner). No hook, nothing in the extra space. NULL when memory runs out. */
lk_host *lk_host_attach_foreign(lua_State *L, lk_release_fn release);

/* While the Lua thread of a foreign state waits (`main` is its main thread). If SIGINT has a
 * handler (lua.c's laction, installed around each chunk it runs), it is replaced by one that
 * interrupts h (a second Ctrl-C during the wait ends the process, as lua.c's second one does), and
 * 1 is returned. If SIGINT is at its default action with lua.c's interrupt hook set on `main` (a
 * Ctrl-C came between lua.c's chunk start and this wait: laction leaves exactly that), the hook
 * is removed — the interrupt is the wait's — and -1 is returned. Else 0: nothing to undo. */
int lk_sigint_catch(lk_host *h, lua_State *main);
/* After a catch that returned 1: puts lua.c's handler back, or, when the wait took an interrupt
 * (`interrupted`), leaves SIGINT at its default action as lua.c's laction does; an interrupt that
 * came after the wait ended is handed to that handler (raise(SIGINT)), so that it is not lost.
 * Call both on the Lua thread. */
void lk_sigint_release(lk_host *h, int interrupted);

/* Async-signal-safe: wakes the Lua thread (sem_post). */
void lk_host_wake(lk_host *h);
/* Sleeps until woken (sem_wait, retried on EINTR), after spinning up to 200 us for a wake-up
 * that comes soon (host.c, LK_SPIN_NS). */
void lk_host_sleep(lk_host *h);
/* Sleeps until woken or `seconds` have passed; 1 if woken, 0 on the timeout. */
int lk_host_sleep_for(lk_host *h, double seconds);

/* ---- A small-block heap for a Lua state (heap.c) ------------------------------------------ */

/* Blocks of up to 1 KiB in 16-byte size classes, recycled through free lists, carved from
 * 256 KiB chunks; larger ones from malloc. For lua_setallocf right after the state is created
 * (blocks the default allocator made before are handed back safely). One thread at a time. */
typedef struct lk_heap lk_heap;
lk_heap *lk_heap_new(void);
/* Frees every chunk; call after lua_close. */
void lk_heap_free(lk_heap *h);
/* The lua_Alloc function; `ud` is the heap. */
void *lk_heap_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Frees the chunks whose blocks are all free (not the newest); the bytes given back. Walks the
 * free lists twice: for after a full collection. */
size_t lk_heap_release(lk_heap *h);
/* The bytes the heap holds in chunks (blocks in use and free; not the malloc'd large ones). */
size_t lk_heap_size(const lk_heap *h);

/* [-0, +0, m] Replaces the global collectgarbage (base library opened) by one that, after a
 * full collection, also gives memory back: lk_heap_release, then glibc's malloc_trim (collect.c
 * says why). Same options, results and argument errors as the original. Raises only memory
 * errors: call it protected (lk_popenlibs does). */
void lk_install_collectgarbage(lua_State *L);

/* ---- 5. Bulk string fields ---------------------------------------------------------------------- */

/* [-0, +0] For i in [from, count) with keys[i] >= 0: t[names[keys[i] + 1]] = the bytes
 * ranges[i*stride] ..< ranges[i*stride + 1] (NULL or equal pointers: ""), where t is the table
 * at `table` and `names` a table of key strings. Stops before the first range that holds the
 * byte `stop` (when stop >= 0) and returns its index, so that the caller can transform that
 * value; returns `count` when all are set. Needs 2 free stack slots. Class m: only raw sets
 * with string keys (a key that is not a string is skipped), so it raises nothing but memory
 * errors. */
int lk_set_string_fields(lua_State *L, int table, int names, const long *keys, const char *const *ranges,
                         int stride, int from, int count, int stop);

/* ---- 4. Function-like macros ----------------------------------------------------------------- */

static inline int lk_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int lk_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline void lk_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void lk_newtable(lua_State *L) { lua_newtable(L); }
static inline const char *lk_tostring(lua_State *L, int idx) { return lua_tostring(L, idx); }
static inline lua_Number lk_tonumber(lua_State *L, int idx) { return lua_tonumber(L, idx); }
static inline lua_Integer lk_tointeger(lua_State *L, int idx) { return lua_tointeger(L, idx); }
static inline int lk_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }
static inline void lk_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline void lk_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void lk_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void lk_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline const char *lk_typename(lua_State *L, int idx) { return luaL_typename(L, idx); }
static inline void lk_pushlightuserdata(lua_State *L, void *p) { lua_pushlightuserdata(L, p); }
static inline int lk_gc(lua_State *L, int what) { return lua_gc(L, what, 0); }
/* Generational collection with default parameters, as lua.c sets it. */
static inline int lk_gc_generational(lua_State *L) { return lua_gc(L, LUA_GCGEN, 0, 0); }
static inline int lk_load(lua_State *L, const char *buf, size_t size, const char *name, const char *mode) {
    return luaL_loadbufferx(L, buf, size, name, mode);
}

/* LUA_RELEASE of the headers this was built with ("Lua 5.4.6"); the library itself reports only
 * 504, and Debian ships headers and library from one source package. */
const char *lk_lua_release(void);
/* LUA_COPYRIGHT of the headers built with: `Lua 5.4.4  Copyright (C) 1994-2022 Lua.org, PUC-Rio`. */
const char *lk_lua_copyright(void);

#endif
