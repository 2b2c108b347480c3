/* collectgarbage as Lua's base library defines it, except that a full collection also hands
 * the memory it freed back to the system (see CLuaShim.h, lk_install_collectgarbage).
 *
 * Why: a full collection frees Lua's blocks, but neither allocator gives the memory back by
 * itself. The state's small-block heap keeps every chunk it carved (lk_heap_release returns the
 * ones now wholly free), and glibc keeps freed memory inside its arenas, one per thread that
 * allocated (the Lua thread, the event loops, the task pool), returning only what sits at the
 * top of each. A long batch job that builds thousands of answers, drops them and collects
 * would otherwise keep each burst's high-water mark for the rest of the run. */
#include "CLuaShim.h"
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* The options of luaB_collectgarbage (Lua 5.4), in its order, and how many integer arguments
 * each reads after the option. */
static const char *const lk_gc_options[] = {"stop", "restart", "collect", "count", "step", "setpause",
                                            "setstepmul", "isrunning", "generational", "incremental", NULL};
static const int lk_gc_integers[] = {0, 0, 0, 0, 1, 1, 1, 0, 2, 3};
#define LK_GC_COLLECT 2

/* Upvalue 1: the base library's collectgarbage. Arguments are checked here, under this
 * function's name, with the checks the original makes (luaL_checkoption, luaL_optinteger):
 * the original, called from C, could name itself only '?' in an error. */
static int lk_collectgarbage(lua_State *L) {
    int o = luaL_checkoption(L, 1, "collect", lk_gc_options);
    for (int i = 0; i < lk_gc_integers[o]; i++) (void)luaL_optinteger(L, 2 + i, 0);
    if (o != LK_GC_COLLECT) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
        return lua_gettop(L);
    }
    int res = lua_gc(L, LUA_GCCOLLECT);
    if (res == -1) {                      /* called from a finalizer: no collection, as in lbaselib */
        luaL_pushfail(L);
        return 1;
    }
    void *ud = NULL;
    if (lua_getallocf(L, &ud) == lk_heap_alloc) (void)lk_heap_release(ud);
#if defined(__GLIBC__)
    (void)malloc_trim(0);
#endif
    lua_pushinteger(L, res);
    return 1;
}

void lk_install_collectgarbage(lua_State *L) {
    lua_getglobal(L, "collectgarbage");
    lua_pushcclosure(L, lk_collectgarbage, 1);
    lua_setglobal(L, "collectgarbage");
}
