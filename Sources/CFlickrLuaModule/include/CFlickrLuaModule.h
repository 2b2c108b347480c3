/* The C face of the `flickr` Lua C module (the flickr-lua library, installed as
 * lib/lua/5.4/flickr.so): the entry point `require "flickr"` calls in a stock lua5.4. */
#ifndef CFLICKRLUAMODULE_H
#define CFLICKRLUAMODULE_H

#include <lua.h>

/* [-0, +1] Pushes the `flickr` module, or raises its error. Called by `require`. */
int luaopen_flickr(lua_State *L);

#endif
