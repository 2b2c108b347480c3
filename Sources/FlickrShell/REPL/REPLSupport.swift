import LuaKit

/// The Lua half of the REPL: one table of helpers, loaded once per REPL on the Lua thread and
/// kept in a ``LuaRef``. `show` renders results (`flickr.pretty`), `complete` finds completion
/// candidates (`flickr.complete`); both only ever read tables raw.
struct REPLSupport: @unchecked Sendable {
    /// The helper table.
    let helpers: LuaRef

    /// Builds the helper table. The globals table is captured when it is built, so completion
    /// keeps walking the real globals even if `_G` is reassigned.
    static func load(on state: LuaState) throws -> REPLSupport {
        let base = state.top
        defer { state.setTop(base) }
        try state.load(source, name: "=(repl)")
        state.pushGlobals()
        try state.pcall(arguments: 1, results: 1)
        return REPLSupport(helpers: LuaRef(popping: state))
    }

    /// `show(color, width, ...)` → text; `complete(line)` → list, start.
    /// A top-level value whose metatable has `__tostring` (a `flickr.help()` result, an error
    /// object) prints as `print` would show it; everything else, and everything nested, goes
    /// through the raw pretty printer. If `flickr.pretty` can't be loaded, `tostring` is used.
    static let source = #"""
    local G = ...
    local require, pcall, select, tostring, type, rawget = require, pcall, select, tostring, type, rawget
    local concat, getmetatable = table.concat, debug.getmetatable

    local function module(name)
      local ok, m = pcall(require, name)
      if ok and type(m) == "table" then return m end
      return nil
    end

    local H = {}
    local pretty, complete

    local function has_tostring(v)
      local mt = getmetatable(v)
      return type(v) == "table" and type(mt) == "table" and rawget(mt, "__tostring") ~= nil
    end

    local function plain(v)
      local ok, s = pcall(tostring, v)
      if ok and type(s) == "string" then return s end
      return "<" .. type(v) .. ">"
    end

    function H.show(color, width, ...)
      pretty = pretty or module("flickr.pretty")
      local out = {}
      for i = 1, select("#", ...) do
        local v = (select(i, ...))
        local text
        if has_tostring(v) then
          local ok, s = pcall(tostring, v)
          if ok and type(s) == "string" then text = s end
        end
        if not text then
          if pretty then
            local ok, s = pcall(pretty.format, v, { color = color, width = width })
            text = ok and s or plain(v)
          else
            text = plain(v)
          end
        end
        out[i] = text
      end
      return concat(out, "\t")
    end

    function H.complete(line)
      complete = complete or module("flickr.complete")
      if not complete then return {}, #line + 1 end
      return complete.candidates(line, G, { suffix = true })
    end

    return H
    """#
}
