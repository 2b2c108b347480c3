/* The one trampoline through which Lua calls Swift (see CLuaShim.h, part 1). */
#include "CLuaShim.h"

static lk_dispatch_fn lk_dispatch = NULL;
static lk_release_fn lk_release = NULL;

/* Registry key of the metatable shared by every function box userdata. */
static const char lk_box_key = 0;

void lk_install(lk_dispatch_fn dispatch, lk_release_fn release) {
    lk_dispatch = dispatch;
    lk_release = release;
}

/* __gc of a box userdata: release the Swift object once. */
static int lk_box_gc(lua_State *L) {
    void **slot = (void **)lua_touserdata(L, 1);
    if (slot != NULL && *slot != NULL) {
        void *box = *slot;
        *slot = NULL;
        if (lk_release != NULL) lk_release(box);
    }
    return 0;
}

/* Continuation of a Swift function that yielded: `base` is the stack height below the yielded
 * values; the resume values start at base + 1 and are (true, results...) or (false, error). */
static int lk_continue(lua_State *L, int status, lua_KContext base) {
    (void)status;
    int top = lua_gettop(L);
    if (top <= (int)base) return 0;
    if (!lua_toboolean(L, (int)base + 1)) {
        lua_settop(L, (int)base + 2);
        return lua_error(L);
    }
    return top - (int)base - 1;
}

/* Upvalue 1 is the box userdata. By the time lua_error / lua_yieldk run, the Swift frame has
 * returned: only C frames are skipped by the longjmp. */
static int lk_trampoline(lua_State *L) {
    void **slot = (void **)lua_touserdata(L, lua_upvalueindex(1));
    if (slot == NULL || *slot == NULL || lk_dispatch == NULL) {
        lua_pushliteral(L, "LuaKit: call of a released Swift function");
        return lua_error(L);
    }
    int status = lk_dispatch(L, *slot);
    if (status >= 0) return status;
    if (status == LK_RAISE) return lua_error(L);
    int n = -2 - status;
    return lua_yieldk(L, n, (lua_KContext)(lua_gettop(L) - n), lk_continue);
}

void lk_push_function(lua_State *L, void *box) {
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = box;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_box_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 2);
        lua_pushcfunction(L, lk_box_gc);
        lua_setfield(L, -2, "__gc"); /* raw: a fresh table has no metatable */
        lua_pushliteral(L, "LuaKit.function");
        lua_setfield(L, -2, "__name");
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_box_key);
    }
    lua_setmetatable(L, -2);
    lua_pushcclosure(L, lk_trampoline, 1);
}

int lk_is_swift_function(lua_State *L, int idx, void **box) {
    if (lua_tocfunction(L, idx) != lk_trampoline) return 0;
    if (lua_getupvalue(L, idx, 1) == NULL) return 0;
    void **slot = (void **)lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (slot == NULL) return 0;
    if (box != NULL) *box = *slot;
    return 1;
}
