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

struct lk_host {
    atomic_int interrupt;
    sem_t wake;
    void *owner;
};

static lk_host *lk_host_of(lua_State *L) {
    lk_host *h;
    memcpy(&h, lua_getextraspace(L), sizeof h);
    return h;
}

static void lk_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lk_host *h = lk_host_of(L);
    if (h != NULL && atomic_exchange(&h->interrupt, 0)) {
        lua_pushliteral(L, "interrupted!");
        lua_error(L);
    }
}

lk_host *lk_host_attach(lua_State *L, void *owner, int count) {
    lk_host *h = calloc(1, sizeof *h);
    if (h == NULL) return NULL;
    atomic_init(&h->interrupt, 0);
    if (sem_init(&h->wake, 0, 0) != 0) {
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
    atomic_store(&h->interrupt, 1);
    sem_post(&h->wake);
}

int lk_host_take_interrupt(lk_host *h) {
    return atomic_exchange(&h->interrupt, 0);
}

void lk_host_clear_interrupt(lk_host *h) {
    atomic_store(&h->interrupt, 0);
}

void lk_host_wake(lk_host *h) {
    sem_post(&h->wake);
}

void lk_host_sleep(lk_host *h) {
    while (sem_wait(&h->wake) != 0 && errno == EINTR) {
    }
}
