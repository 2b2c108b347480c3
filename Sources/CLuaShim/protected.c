/* Protected calls and helpers (see CLuaShim.h, part 2): every operation that may raise runs
 * here, under lua_pcall, so that no longjmp reaches a Swift frame. */
#include "CLuaShim.h"

/* Registry key of the traceback recorded by the message handler. */
static const char lk_traceback_key = 0;

/* Message handler: keeps the error value as it is (tables keep their identity), records the
 * traceback, and gives a table without a `traceback` field that field. */
static int lk_msghandler(lua_State *L) {
    luaL_traceback(L, L, NULL, 1);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_traceback_key);
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_pushliteral(L, "traceback");
        if (lua_rawget(L, 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_pushliteral(L, "traceback");
            lua_pushvalue(L, -2);
            lua_rawset(L, 1);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_settop(L, 1);
    return 1;
}

int lk_pcall(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs; /* the function */
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_traceback_key);
    lua_pushcfunction(L, lk_msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return status;
}

/* lua.c's msghandler: the message a person sees, made while the stack is still there (so a
 * __tostring runs where the error happened, before to-be-closed variables are closed). A
 * string or number gets a traceback; an object whose __tostring gives a string is that string
 * alone; anything else is named by its type, with a traceback. LuaKit's interrupt sentinel is
 * lua.c's "interrupted!" string. */
static int lk_luac_msghandler(lua_State *L) {
    const char *msg = lk_is_interrupt(L, 1) ? "interrupted!" : lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* [-(n+1), +r] lua.c's pmain frame: runs the chunk below its n arguments under
 * lk_luac_msghandler, returning its results; an error goes on as the handler's message. Being
 * a C function between lua_pcall and the chunk, it is the `[C]: in ?` that ends lua.c's
 * tracebacks (and what debug.getinfo(2) finds above a main chunk). */
static int lk_luac_frame(lua_State *L) {
    int n = lua_gettop(L) - 1;
    lua_pushcfunction(L, lk_luac_msghandler);
    lua_insert(L, 1);
    if (lua_pcall(L, n, LUA_MULTRET, 1) != LUA_OK) return lua_error(L);
    return lua_gettop(L) - 1;
}

int lk_luac_docall(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs; /* the function */
    lua_pushcfunction(L, lk_luac_frame);
    lua_insert(L, base);
    return lua_pcall(L, nargs + 1, nresults, 0);
}

void lk_last_traceback(lua_State *L) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &lk_traceback_key);
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &lk_traceback_key);
}

void lk_traceback(lua_State *L, lua_State *co, int level) {
    luaL_traceback(L, co, NULL, level);
}

/* Runs f with the n values on top as arguments, without a message handler. */
static int lk_run(lua_State *L, lua_CFunction f, int n, int nresults) {
    lua_pushcfunction(L, f);
    lua_insert(L, -(n + 1));
    return lua_pcall(L, n, nresults, 0);
}

static int lk_gettable_fn(lua_State *L) {
    lua_gettable(L, 1);
    return 1;
}

int lk_pgettable(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    lua_insert(L, -2); /* t, key */
    return lk_run(L, lk_gettable_fn, 2, 1);
}

static int lk_settable_fn(lua_State *L) {
    lua_settable(L, 1);
    return 0;
}

int lk_psettable(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushvalue(L, idx);
    lua_insert(L, -3); /* t, key, value */
    return lk_run(L, lk_settable_fn, 3, 0);
}

int lk_pgetfield(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lk_pgettable(L, idx);
}

int lk_psetfield(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    lua_insert(L, -2); /* key, value */
    return lk_psettable(L, idx);
}

static int lk_tolstring_fn(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

int lk_ptolstring(lua_State *L, int idx) {
    lua_pushvalue(L, idx);
    return lk_run(L, lk_tolstring_fn, 1, 1);
}

static int lk_len_fn(lua_State *L) {
    lua_len(L, 1);
    return 1;
}

int lk_plen(lua_State *L, int idx) {
    lua_pushvalue(L, idx);
    return lk_run(L, lk_len_fn, 1, 1);
}

static int lk_compare_fn(lua_State *L) {
    int op = (int)lua_tointeger(L, 3);
    lua_pushboolean(L, lua_compare(L, 1, 2, op));
    return 1;
}

int lk_pcompare(lua_State *L, int a, int b, int op, int *result) {
    a = lua_absindex(L, a);
    b = lua_absindex(L, b);
    lua_pushvalue(L, a);
    lua_pushvalue(L, b);
    lua_pushinteger(L, op);
    int status = lk_run(L, lk_compare_fn, 3, 1);
    if (status == LUA_OK) {
        *result = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return status;
}

static int lk_openlibs_fn(lua_State *L) {
    luaL_openlibs(L);
    lk_install_collectgarbage(L);
    return 0;
}

int lk_popenlibs(lua_State *L) {
    return lk_run(L, lk_openlibs_fn, 0, 0);
}

static int lk_requiref_fn(lua_State *L) {
    /* 1: name, 2: value */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, lua_tostring(L, 1));
    return 0;
}

int lk_prequiref(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    lua_insert(L, -2); /* name, value */
    return lk_run(L, lk_requiref_fn, 2, 0);
}

int lk_closethread(lua_State *co, lua_State *from) {
#if LUA_VERSION_RELEASE_NUM >= 50406
    return lua_closethread(co, from);
#else
    (void)from;
    return lua_resetthread(co);
#endif
}

const char *lk_lua_release(void) {
    return LUA_RELEASE;
}

const char *lk_lua_copyright(void) {
    return LUA_COPYRIGHT;
}
