/* luaopen_flickr: the entry point of the `flickr` Lua C module.
 *
 * In C because it may raise: the Swift half (FlickrLuaModule's flickr_lua_module_open) returns
 * a status, and the error is raised here, with no Swift frame for the longjmp to cross
 * (ARCHITECTURE.md, "No longjmp across Swift frames"). */
#define _GNU_SOURCE /* dladdr */
#include "CFlickrLuaModule.h"
#include <dlfcn.h>

/* Defined in Swift (FlickrLuaModule): pushes the module and returns 1, or pushes the error value
 * and returns a negative status (CLuaShim's LK_RAISE). */
extern int flickr_lua_module_open(lua_State *L);

/* The library must stay mapped until the process ends. lua_close unloads every C module it
 * loaded (dlclose), but this one's event-loop and task threads live on past lua_close (they
 * are the process's, like the Swift runtime linked in here), and code unmapped under a running
 * thread crashes the exit. RTLD_NODELETE on the loaded library makes its dlclose a no-op. */
static void flickr_pin_library(void) {
    Dl_info info;
    if (dladdr((void *)&luaopen_flickr, &info) != 0 && info.dli_fname != NULL)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

int luaopen_flickr(lua_State *L) {
    flickr_pin_library();
    int n = flickr_lua_module_open(L);
    if (n < 0) return lua_error(L);
    return n;
}
