/* Interrupts and the wake-up semaphore (see CLuaShim.h, part 3).
 *
 * A C signal handler cannot touch a Lua state (lua.c, `laction`). lua.c therefore sets a hook
 * from the handler; here the hook is installed once, as a count hook that every coroutine
 * inherits, and the handler only stores an atomic flag and posts a semaphore — both
 * async-signal-safe. */
#include "CLuaShim.h"
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* An interrupt targets a job by number: the job running when it was asked for, or — with none
 * running — the next one to start. Both are job number `finished + 1`, so interrupting is one
 * atomic load and one atomic store (async-signal-safe), and an interrupt whose job ended before
 * the hook saw it expires by itself instead of stopping the next job. */
struct lk_host {
    atomic_uint_fast64_t interrupt; /* the job number it targets; 0: none */
    atomic_uint_fast64_t finished;  /* top-level jobs finished so far */
    sem_t wake;
    void *owner;
};

static lk_host *lk_host_of(lua_State *L) {
    lk_host *h;
    memcpy(&h, lua_getextraspace(L), sizeof h);
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

static void lk_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lk_host *h = lk_host_of(L);
    if (h != NULL && lk_host_take_interrupt(h)) {
        lk_push_interrupt(L);
        lua_error(L);
    }
}

lk_host *lk_host_attach(lua_State *L, void *owner, int count) {
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
    memcpy(lua_getextraspace(L), &h, sizeof h);
    lua_sethook(L, lk_hook, LUA_MASKCOUNT, count > 0 ? count : 1000);
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

void lk_host_sleep(lk_host *h) {
    while (sem_wait(&h->wake) != 0 && errno == EINTR) {
    }
}
