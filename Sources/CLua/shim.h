/* Lua 5.4 as a system library (pkg-config lua5.4 supplies the include path and -llua5.4).
   Function-like macros do not import into Swift; CLuaShim re-implements the ones LuaKit uses. */
#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#endif
