#ifndef CFLICKRLUASOURCES_H
#define CFLICKRLUASOURCES_H
/*
 * The Lua that ships with the `flickr` command, compiled into the executable.
 *
 * The one home of that Lua is the repository's lua/flickr/ directory; `#embed` copies each file
 * in at build time (the compiler's dependency file names them, so an edit rebuilds this target).
 * FlickrLua serves these chunks to `require` through a searcher placed after the LUA_PATH one,
 * so a user's module of the same name on LUA_PATH wins, on purpose.
 */
#include <stddef.h>

typedef struct flickr_lua_source {
    const char *module;           /* the name `require` takes: "flickr.pretty" */
    const char *path;             /* where it lives in the source tree: "lua/flickr/pretty.lua" */
    const unsigned char *bytes;   /* the chunk's source text (not NUL-terminated) */
    size_t length;
} flickr_lua_source;

/* All shipped chunks; *count receives how many. The array lives as long as the process. */
const flickr_lua_source *flickr_lua_sources(size_t *count);

/* lua/editor/definitions.lua, the hand-written part of `flickr editor luals` (a template read by
 * FlickrLua's LuaDefinitions, never run); *length receives its size. Not NUL-terminated. */
const unsigned char *flickr_lua_definitions_template(size_t *length);

#endif
