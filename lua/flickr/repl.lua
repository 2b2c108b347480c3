-- The Lua half of the REPL (FlickrShell's REPLSupport): loaded once per REPL with the globals
-- table as its argument, it returns the helpers the Swift side calls.
--   show(color, width, depth, items, ...) -> text   the results of an evaluation, as printed
--   complete(line) -> list, start        completion candidates for the line being edited
-- Both only ever read tables raw: nothing here runs a metamethod or touches the network.
local G = ...
local require, pcall, select, tostring, type, rawget, package = require, pcall, select, tostring, type, rawget, package
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

function H.show(color, width, depth, items, ...)
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
        local ok, s = pcall(pretty.format, v, { color = color, width = width, depth = depth, items = items })
        text = ok and s or plain(v)
      else
        text = plain(v)
      end
    end
    out[i] = text
  end
  return concat(out, "\t")
end

-- The catalog for completion, through the module's own Swift functions (no network):
-- method names, and a method's arguments.
local catalog
local function the_catalog()
  if catalog then return catalog end
  local f = rawget(package.loaded, "flickr")
  local methods, help = type(f) == "table" and rawget(f, "methods"), type(f) == "table" and rawget(f, "help")
  if type(methods) ~= "function" or type(help) ~= "function" then return nil end
  local names
  catalog = {
    methods = function()
      names = names or methods()
      return names
    end,
    arguments = function(method)
      local ok, h = pcall(help, method)
      return ok and type(h) == "table" and rawget(h, "arguments") or nil
    end,
  }
  return catalog
end

function H.complete(line)
  complete = complete or module("flickr.complete")
  if not complete then return {}, #line + 1 end
  return complete.candidates(line, G, { suffix = true, catalog = the_catalog() })
end

return H
