#include "CFlickrLuaSources.h"

/* #embed is C23; the toolchain's clang has it in every language mode, with a pedantic warning. */
#pragma clang diagnostic ignored "-Wc23-extensions"

/* One line per file of lua/flickr/ (a test checks that none is missing). */
static const unsigned char core[] = {
#embed "../../lua/flickr/core.lua"
};
static const unsigned char pretty[] = {
#embed "../../lua/flickr/pretty.lua"
};
static const unsigned char complete[] = {
#embed "../../lua/flickr/complete.lua"
};
static const unsigned char repl[] = {
#embed "../../lua/flickr/repl.lua"
};

#define ENTRY(name, file, array) { name, file, array, sizeof array }

static const flickr_lua_source sources[] = {
    ENTRY("flickr.core", "lua/flickr/core.lua", core),
    ENTRY("flickr.pretty", "lua/flickr/pretty.lua", pretty),
    ENTRY("flickr.complete", "lua/flickr/complete.lua", complete),
    ENTRY("flickr.repl", "lua/flickr/repl.lua", repl),
};

const flickr_lua_source *flickr_lua_sources(size_t *count) {
    *count = sizeof sources / sizeof sources[0];
    return sources;
}

static const unsigned char definitions[] = {
#embed "../../lua/editor/definitions.lua"
};

const unsigned char *flickr_lua_definitions_template(size_t *length) {
    *length = sizeof definitions;
    return definitions;
}
