/* Interrupts and the wake-up semaphore (see CLuaShim.h, part 3).
 *
 * A C signal handler cannot do more to a Lua state than set a hook (lua.c, `laction`), and no
 * other thread may touch it at all. lua.c sets its hook only when a Ctrl-C comes, so that no
 * hook is there otherwise (debug.gethook() answers nothing, and a script's own hooks are the
 * only ones). LuaKit does the same: an interrupt stores an atomic flag, posts a semaphore (a
 * waiting Lua thread wakes) and, when it comes from another thread, sends the Lua thread a
 * signal whose handler — on the Lua thread, as lua.c's is — sets the hook on the main thread
 * and on the thread of the innermost Swift function. The hook puts back whatever hooks it
 * replaced, then raises the interrupt. */
#include "CLuaShim.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* An interrupt targets a job by number: the job running when it was asked for, or — with none
 * running — the next one to start. Both are job number `finished + 1`, so interrupting is one
 * atomic load and one atomic store (async-signal-safe), and an interrupt whose job ended before
 * the hook saw it expires by itself instead of stopping the next job. */
/* A hook the interrupt hook replaced, put back when it fires. */
typedef struct {
    lua_State *L;
    lua_Hook hook;
    int mask, count;
} lk_saved_hook;

struct lk_host {
    atomic_uint_fast64_t interrupt; /* the job number it targets; 0: none */
    atomic_uint_fast64_t finished;  /* top-level jobs finished so far */
    sem_t wake;
    void *owner;
    /* Owned states only (a foreign state's interpreter interrupts by itself): */
    lua_State *main;
    _Atomic(lua_State *) running;   /* the thread of the innermost Swift function, or main */
    pthread_t thread;               /* the Lua thread, once bound */
    atomic_int bound;
    lk_saved_hook saved[2];         /* Lua thread only (its signal handler included) */
    int armed;                      /* entries of `saved` in use */
};

/* Registry key of the flags of a state LuaKit did not create (lk_host_attach_foreign): a light
 * userdata. */
static const char lk_foreign_key = 0;

/* The flags of L's state. A state LuaKit created allocates from lk_heap_alloc and keeps them in
 * its extra space; any other state (a C module's host) keeps that space for itself, so there
 * they are in the registry. */
static lk_host *lk_host_of(lua_State *L) {
    lk_host *h = NULL;
    void *ud;
    if (lua_getallocf(L, &ud) == lk_heap_alloc) {
        memcpy(&h, lua_getextraspace(L), sizeof h);
        return h;
    }
    if (!lua_checkstack(L, 1)) return NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_foreign_key) == LUA_TLIGHTUSERDATA) h = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return h;
}

/* Registry key of the interrupt sentinel: the one value the hook raises. Lua code cannot make
 * it (it is a full userdata created here, with a locked metatable), so an error such as
 * error("interrupted!") is never taken for an interrupt. What a person sees is still lua.c's
 * "interrupted!", through __tostring. */
static const char lk_interrupt_key = 0;

static int lk_interrupt_tostring(lua_State *L) {
    lua_pushliteral(L, "interrupted!");
    return 1;
}

/* [-0, +0, m] Creates the sentinel (run protected, by lk_host_attach). */
static int lk_make_interrupt(lua_State *L) {
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, lk_interrupt_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "interrupt");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable"); /* getmetatable(e) → false: the table stays ours */
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_interrupt_key);
    return 0;
}

void lk_push_interrupt(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_interrupt_key);
}

int lk_is_interrupt(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_interrupt_key);
    int same = lua_type(L, -1) == LUA_TUSERDATA && lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return same;
}

/* ---- Arming the hook on an interrupt --------------------------------------------------------- */

static void lk_hook(lua_State *L, lua_Debug *ar);

/* The signal another thread sends the Lua thread to have the hook set (a real-time signal
 * nothing else uses; a program Lua starts gets it at its default action, and it is never sent
 * to one). */
static int lk_arm_signal(void) { return SIGRTMIN + 2; }

static void lk_arm_handler(int sig);

static void lk_install_arm_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = lk_arm_handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;   /* a Lua thread in a system call goes on with it */
    sigaction(lk_arm_signal(), &sa, NULL);
}

/* The host whose Lua thread this is (lk_host_bind_thread), for the signal handler. */
static _Thread_local lk_host *lk_thread_host = NULL;

/* The interrupt hook's events: lua.c's (call, return, every instruction) and new lines.
 * Why lines too: the hook is set from a signal handler, which may land while the interpreter
 * is between reading and writing back its instruction count (it counts down under a script's
 * own line or count hook). The count it writes back then overwrites ours, and the count event
 * would come only after billions of instructions. A loop cannot run forever without jumping
 * back, and Lua reports every backward jump as a line event, so the line event always comes. */
#define LK_HOOK_MASK (LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT)

/* Lua thread: sets the interrupt hook on L, remembering the hook it replaces. On a thread
 * that has it already (a second Ctrl-C) it is set again: that resets the count and the
 * interpreter's traps, should an earlier setting have been undone by the same kind of race. */
static void lk_arm_one(lk_host *h, lua_State *L) {
    if (L == NULL) return;
    if (lua_gethook(L) == lk_hook) {
        lua_sethook(L, lk_hook, LK_HOOK_MASK, 1);
        return;
    }
    if (h->armed == 2) return;
    lk_saved_hook *s = &h->saved[h->armed++];
    s->L = L;
    s->hook = lua_gethook(L);
    s->mask = lua_gethookmask(L);
    s->count = lua_gethookcount(L);
    lua_sethook(L, lk_hook, LK_HOOK_MASK, 1);
}

/* Lua thread (also in a signal handler): arms the main thread and the running one. */
static void lk_arm(lk_host *h) {
    lk_arm_one(h, h->main);
    lk_arm_one(h, atomic_load(&h->running));
}

/* lk_arm off the signal handler, the arming signal held off so that its handler never
 * finds `saved` half written. */
static void lk_arm_blocked(lk_host *h) {
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, lk_arm_signal());
    pthread_sigmask(SIG_BLOCK, &block, &old);
    lk_arm(h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void lk_arm_handler(int sig) {
    (void)sig;
    int saved = errno;
    lk_host *h = lk_thread_host;
    if (h != NULL) lk_arm(h);
    errno = saved;
}

/* Lua thread, in the hook: puts back the hooks the interrupt hook replaced. A coroutine made
 * while it was set inherited it: it gets what it would have inherited (the main thread's). The
 * arming signal is held off meanwhile, so its handler never sees `saved` half restored. */
static void lk_disarm(lk_host *h, lua_State *L) {
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, lk_arm_signal());
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int found = 0;
    for (int i = 0; i < h->armed; i++) {
        lk_saved_hook *s = &h->saved[i];
        if (s->L == L) found = 1;
        if (lua_gethook(s->L) == lk_hook) lua_sethook(s->L, s->hook, s->mask, s->count);
    }
    if (!found) {
        lk_saved_hook *m = h->armed > 0 && h->saved[0].L == h->main ? &h->saved[0] : NULL;
        if (m != NULL) lua_sethook(L, m->hook, m->mask, m->count); else lua_sethook(L, NULL, 0, 0);
    }
    h->armed = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void lk_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lk_host *h = lk_host_of(L);
    if (h == NULL) {
        lua_sethook(L, NULL, 0, 0);
        return;
    }
    lk_disarm(h, L);
    if (lk_host_take_interrupt(h)) {
        lk_push_interrupt(L);
        lua_error(L);
    }
}

void lk_host_bind_thread(lk_host *h) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lk_install_arm_handler);
    h->thread = pthread_self();
    lk_thread_host = h;
    atomic_store(&h->bound, 1);
}

void lk_host_unbind_thread(lk_host *h) {
    atomic_store(&h->bound, 0);
    lk_thread_host = NULL;
}

void lk_host_set_running(lk_host *h, lua_State *L) {
    atomic_store(&h->running, L);
}

void lk_host_arm_if_pending(lk_host *h) {
    uint_fast64_t target = atomic_load(&h->interrupt);
    if (target == 0 || target <= atomic_load(&h->finished) || !atomic_load(&h->bound)) return;
    lk_arm_blocked(h);
}

lk_host *lk_host_attach(lua_State *L, void *owner) {
    lk_host *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    atomic_init(&h->interrupt, 0);
    atomic_init(&h->finished, 0);
    if (sem_init(&h->wake, 0, 0) != 0) {
        free(h);
        return NULL;
    }
    /* The sentinel first, in protected mode (allocation may raise); then the hook. */
    lua_pushcfunction(L, lk_make_interrupt);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        sem_destroy(&h->wake);
        free(h);
        return NULL;
    }
    h->owner = owner;
    h->main = L;
    atomic_init(&h->running, L);
    atomic_init(&h->bound, 0);
    memcpy(lua_getextraspace(L), &h, sizeof h);
    return h;
}

void lk_host_set_owner(lk_host *h, void *owner) {
    h->owner = owner;
}

void lk_host_free(lk_host *h) {
    if (h == NULL) return;
    sem_destroy(&h->wake);
    free(h);
}

void *lk_host_owner(lua_State *L) {
    lk_host *h = lk_host_of(L);
    return h != NULL ? h->owner : NULL;
}

void lk_host_interrupt(lk_host *h) {
    atomic_store(&h->interrupt, atomic_load(&h->finished) + 1);
    sem_post(&h->wake);
    if (!atomic_load(&h->bound)) return;  /* a foreign state, or a thread not started or ended */
    if (pthread_equal(pthread_self(), h->thread)) lk_arm_blocked(h); else pthread_kill(h->thread, lk_arm_signal());
}

int lk_host_take_interrupt(lk_host *h) {
    uint_fast64_t target = atomic_load(&h->interrupt);
    if (target == 0 || target <= atomic_load(&h->finished)) return 0;
    return atomic_compare_exchange_strong(&h->interrupt, &target, 0);
}

void lk_host_job_finished(lk_host *h) {
    atomic_fetch_add(&h->finished, 1);
}

void lk_host_wake(lk_host *h) {
    sem_post(&h->wake);
}

/* How long a wait spins before it sleeps: about twice a request's round trip to a server on
 * this machine (60-100 us here through the HTTP client's event loop). Why spin at all: the
 * thread that answers (the event loop finishing a call) otherwise wakes this one through the
 * kernel, and on a virtual machine that wake-up is a large part of a loopback call; 4,000
 * `flickr.test.echo` calls from a `flickr -e` loop against a sink that answers at once went
 * from ~4,100/s to ~6,100/s (50 us: ~4,700/s). A call to Flickr itself takes tens of
 * milliseconds, so a wait for one spends at most this much of the CPU before it sleeps. */
#define LK_SPIN_NS 200000L

/* Whether spinning can pay: not with one processor, where the spinner holds the CPU the thread
 * that would wake it needs. Read once. */
static int lk_may_spin(void) {
    static atomic_int known = 0; /* 0 unknown, 1 no, 2 yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        k = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}

/* Tells the processor this is a spin loop (it eases off the sibling hyperthread and the
 * memory bus). */
static inline void lk_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long long lk_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Takes a post that arrives within LK_SPIN_NS without sleeping: sem_trywait in a loop, the
 * clock read every 64 tries. 1 if one was taken. */
static int lk_host_spin(lk_host *h) {
    if (!lk_may_spin()) return 0;
    long long until = lk_now_ns() + LK_SPIN_NS;
    do {
        for (int i = 0; i < 64; i++) {
            if (sem_trywait(&h->wake) == 0) return 1;
            lk_cpu_relax();
        }
    } while (lk_now_ns() < until);
    return 0;
}

void lk_host_sleep(lk_host *h) {
    if (lk_host_spin(h)) return;
    while (sem_wait(&h->wake) != 0 && errno == EINTR) {
    }
}

int lk_host_sleep_for(lk_host *h, double seconds) {
    /* sem_timedwait takes an absolute CLOCK_REALTIME deadline. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    long long ns = deadline.tv_nsec + (long long)(seconds * 1e9);
    deadline.tv_sec += (time_t)(ns / 1000000000LL);
    deadline.tv_nsec = (long)(ns % 1000000000LL);
    while (sem_timedwait(&h->wake, &deadline) != 0) {
        if (errno != EINTR) return 0;
    }
    return 1;
}

/* ---- A state someone else created (CLuaShim.h, part 3b) ------------------------------------ */

/* Registry key of the anchor: a full userdata whose __gc detaches the host when the state
 * closes. */
static const char lk_anchor_key = 0;

typedef struct {
    lk_host *host;
    lk_release_fn release;
} lk_anchor;

/* __gc of the anchor (lua_close): forget the flags, then let the owner go (it frees them). */
static int lk_anchor_gc(lua_State *L) {
    lk_anchor *a = (lk_anchor *)lua_touserdata(L, 1);
    if (a == NULL || a->host == NULL) return 0;
    void *owner = a->host->owner;
    a->host = NULL;
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_foreign_key);
    if (a->release != NULL && owner != NULL) a->release(owner);
    return 0;
}

/* [-0, +0, m] The sentinel and the anchor (run protected by lk_host_attach_foreign); the flags
 * come as a light userdata argument. */
static int lk_make_foreign(lua_State *L) {
    lk_host *h = (lk_host *)lua_touserdata(L, 1);
    lk_release_fn release = *(lk_release_fn *)lua_touserdata(L, 2);
    lk_make_interrupt(L);
    lk_anchor *a = (lk_anchor *)lua_newuserdatauv(L, sizeof *a, 0);
    a->host = NULL;
    a->release = release;
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, lk_anchor_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "LuaKit.host");
    lua_setfield(L, -2, "__name");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_anchor_key);
    /* Nothing below allocates: the anchor is live only once the flags are findable. */
    a->host = h;
    lua_pushlightuserdata(L, h);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_foreign_key);
    return 0;
}

lk_host *lk_host_attach_foreign(lua_State *L, lk_release_fn release) {
    lk_host *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    atomic_init(&h->interrupt, 0);
    atomic_init(&h->finished, 0);
    if (sem_init(&h->wake, 0, 0) != 0) {
        free(h);
        return NULL;
    }
    lua_pushcfunction(L, lk_make_foreign);
    lua_pushlightuserdata(L, h);
    lua_pushlightuserdata(L, (void *)&release);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        lua_pop(L, 1);
        /* A failure before the anchor holds the flags leaves nothing that points at them. */
        lua_pushnil(L);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_foreign_key);
        sem_destroy(&h->wake);
        free(h);
        return NULL;
    }
    return h;
}

/* SIGINT while a foreign state's Lua thread waits. One wait at a time per process catches it
 * (the outermost wait of one state; lua.c has one state and one thread). */
static _Atomic(lk_host *) lk_sigint_target = NULL;
static atomic_int lk_sigint_count;
static struct sigaction lk_sigint_saved;

static void lk_sigint_handler(int sig) {
    if (atomic_fetch_add(&lk_sigint_count, 1) >= 1) {
        /* A second Ctrl-C before the wait gave up: end the process, as lua.c's second one does
         * (delivered when this handler returns). */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    lk_host *h = atomic_load(&lk_sigint_target);
    if (h != NULL) lk_host_interrupt(h);
}

/* lua.c's laction, on SIGINT, sets SIGINT back to its default action and sets a hook on the main
 * thread (lstop: call, return and count 1) that raises "interrupted!" when Lua code runs next. */
static int lk_luac_interrupt_pending(lua_State *main) {
    return lua_gethook(main) != NULL && lua_gethook(main) != lk_hook && lua_gethookmask(main) == (LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT) &&
           lua_gethookcount(main) == 1;
}

int lk_sigint_catch(lk_host *h, lua_State *main) {
    struct sigaction current;
    if (sigaction(SIGINT, NULL, &current) != 0) return 0;
    int handled = (current.sa_flags & SA_SIGINFO) || (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
    if (!handled) {
        if (current.sa_handler == SIG_DFL && lk_luac_interrupt_pending(main)) {
            lua_sethook(main, NULL, 0, 0); /* what lstop does first: the interrupt is taken here */
            return -1;
        }
        return 0;
    }
    lk_sigint_saved = current;
    atomic_store(&lk_sigint_count, 0);
    atomic_store(&lk_sigint_target, h);
    struct sigaction ours;
    memset(&ours, 0, sizeof ours);
    ours.sa_handler = lk_sigint_handler;
    sigemptyset(&ours.sa_mask);
    if (sigaction(SIGINT, &ours, NULL) != 0) {
        atomic_store(&lk_sigint_target, NULL);
        return 0;
    }
    return 1;
}

void lk_sigint_release(lk_host *h, int interrupted) {
    /* After an interrupt the wait took, SIGINT keeps its default action, as lua.c leaves it after
     * its own first one (until the chunk ends); otherwise lua.c's handler comes back. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, interrupted ? &dfl : &lk_sigint_saved, NULL);
    atomic_store(&lk_sigint_target, NULL);
    /* A Ctrl-C that came as the wait ended (its answer was already in) belongs to the code that
     * runs next: the handler now in place gets it (lua.c then raises "interrupted!" there). */
    if (lk_host_take_interrupt(h)) raise(SIGINT);
}
