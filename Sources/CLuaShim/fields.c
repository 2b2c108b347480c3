/* Bulk string fields (see CLuaShim.h, lk_set_string_fields): the inner loop of building a
 * table from a parser's byte ranges, in C so that each field costs three Lua API calls and
 * nothing else. Raw sets with string keys only: nothing here raises but a memory error. */
#include "CLuaShim.h"
#include <string.h>

int lk_set_string_fields(lua_State *L, int table, int names, const long *keys, const char *const *ranges,
                         int stride, int from, int count, int stop) {
    table = lua_absindex(L, table);
    names = lua_absindex(L, names);
    for (int i = from; i < count; i++) {
        if (keys[i] < 0) continue;
        const char *start = ranges[(size_t)i * (size_t)stride];
        const char *end = ranges[(size_t)i * (size_t)stride + 1];
        size_t length = (start != NULL && end != NULL && end > start) ? (size_t)(end - start) : 0;
        if (stop >= 0 && length > 0 && memchr(start, stop, length) != NULL) return i;
        /* A key that is not a string (never for names the caller made) is skipped, not raised on. */
        if (lua_rawgeti(L, names, keys[i] + 1) != LUA_TSTRING) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushlstring(L, length > 0 ? start : "", length);
        lua_rawset(L, table);
    }
    return count;
}
