-- flickr.complete: tab-completion candidates for the REPL, by walking tables with raw access
-- only (rawget/next; metatables read through debug.getmetatable): completing never runs Lua
-- code and never touches the network, so `flickr.photos.ge<TAB>` offers the catalog's methods.

local M = {}

local keywords = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
}

local getmetatable = debug.getmetatable
local rawget, next, type = rawget, next, type

--- The value a raw lookup of `key` in `t` finds, following `__index` tables (not functions).
local function raw_index(t, key, seen)
  seen = seen or {}
  while t ~= nil and not seen[t] do
    seen[t] = true
    if type(t) == "table" then
      local v = rawget(t, key)
      if v ~= nil then return v end
    end
    local mt = getmetatable(t)
    local index = mt and rawget(mt, "__index")
    if type(index) ~= "table" then return nil end
    t = index
  end
  return nil
end

--- Every string key reachable from `t` (own keys, then `__index` tables), each once, and a map
--- from each key to the value it finds (raw).
local function keys_of(t, methods_only)
  local out, seen_tables, seen_keys = {}, {}, {}
  while t ~= nil and not seen_tables[t] do
    seen_tables[t] = true
    if type(t) == "table" then
      for k, v in next, t do
        if type(k) == "string" and seen_keys[k] == nil and (not methods_only or type(v) == "function") then
          seen_keys[k] = v
          out[#out + 1] = k
        end
      end
    end
    local mt = getmetatable(t)
    local index = mt and rawget(mt, "__index")
    if type(index) ~= "table" then break end
    t = index
  end
  return out, seen_keys
end

--- What to append after a completed name when suffixes are on: `(` after a function, `.` after
--- a table (or a value whose metatable has an `__index` table), nothing otherwise.
local function suffix_for(v)
  if type(v) == "function" then return "(" end
  if type(v) == "table" then return "." end
  return ""
end

local function is_identifier(s) return s:match("^[%a_][%w_]*$") ~= nil end

--- Catalog method names starting with `partial` (which may leave out `flickr.`), as full names.
local function method_names(catalog, partial)
  local out = {}
  local lower = partial:lower()
  for _, name in ipairs(catalog.methods()) do
    local l = name:lower()
    if l:sub(1, #lower) == lower or l:sub(1, #lower + 7) == "flickr." .. lower then out[#out + 1] = name end
  end
  table.sort(out)
  return out
end

--- The method whose argument table is open at the end of `line`, the text inside it, and
--- whether the cursor is where a key goes: `flickr.photos.search{ us`, `flickr.call("m", { a = 1, b`,
--- `flickr.walk("m", {`. Nil when the end of the line is not inside such a table.
local function open_call(line)
  -- The last `{` not closed after it (strings are skipped roughly: no braces inside quotes).
  local i, n, quote = 1, #line, nil
  local stack = {}
  while i <= n do
    local c = line:sub(i, i)
    if quote then
      if c == "\\" then i = i + 1 elseif c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == "{" then
      stack[#stack + 1] = i
    elseif c == "}" then
      stack[#stack] = nil
    end
    i = i + 1
  end
  if quote or #stack ~= 1 then return nil end
  local open_at = stack[1]
  local before, inside = line:sub(1, open_at - 1), line:sub(open_at + 1)
  local method = before:match("(flickr[%w_%.]*)%s*%(?%s*$")
  if method == "flickr.call" or method == "flickr.walk" then method = nil end
  method = method or before:match("flickr%.call%s*%(%s*[\"']([%w_%.]+)[\"']%s*,%s*$")
                  or before:match("flickr%.walk%s*%(%s*[\"']([%w_%.]+)[\"']%s*,%s*$")
  if not method then return nil end
  local word = inside:match("^%s*([%w_]*)$") or inside:match("[,;]%s*([%w_]*)$")
  if not word then return nil end
  return method, inside, word
end

--- Argument names of `method` that start with `partial`: the ones not given yet in `inside`
--- first (required before optional), then those already given.
local function argument_names(catalog, method, inside, partial, suffix)
  local arguments = catalog.arguments(method)
  if not arguments then return nil end
  local given = {}
  for key in inside:gmatch("([%a_][%w_]*)%s*=") do given[key] = true end
  local groups = { {}, {}, {} }
  for _, a in ipairs(arguments) do
    if a.name:sub(1, #partial) == partial then
      local g = given[a.name] and 3 or (a.optional and 2 or 1)
      groups[g][#groups[g] + 1] = a.name .. (suffix and " = " or "")
    end
  end
  local out = {}
  for _, g in ipairs(groups) do
    table.sort(g)
    for _, name in ipairs(g) do out[#out + 1] = name end
  end
  return out
end

--- Completions that come from the catalog rather than from tables: method names after `:doc`
--- and inside the string given to flickr.call / walk / help / methods; argument names inside a
--- call's table. Nil when the line is none of these.
local function from_catalog(line, catalog, suffix)
  if not catalog then return nil end
  local doc = line:match("^%s*:doc%s+([%w_%.]*)$")
  if doc then
    local out = method_names(catalog, doc)
    if doc:find("^[%w_%.]*$") then
      -- Groups too (`:doc photos.comments` lists one).
      local seen = {}
      for _, name in ipairs(catalog.methods()) do
        local group = name:match("^flickr%.(.+)%.[^%.]+$")
        if group and not seen[group] and group:sub(1, #doc) == doc then
          seen[group] = true
          out[#out + 1] = group
        end
      end
      table.sort(out)
    end
    return out, #line - #doc + 1
  end
  local quoted = line:match("flickr%.[%a_]+%s*%(%s*[\"']([%w_%.]*)$")
  if quoted then
    local fn = line:match("flickr%.([%a_]+)%s*%(%s*[\"'][%w_%.]*$")
    if fn == "call" or fn == "walk" or fn == "help" or fn == "methods" then
      return method_names(catalog, quoted), #line - #quoted + 1
    end
  end
  local method, inside, word = open_call(line)
  if method then
    local names = argument_names(catalog, method, inside, word, suffix)
    if names then return names, #line - #word + 1 end
  end
  return nil
end

--- Candidates completing the end of `line` (the text before the cursor). Returns a sorted list
--- of full replacements for the word being completed, and the word's start position in `line`.
--- `env` is the table globals live in (default _G). `opts.suffix`: append `(` to functions and
--- `.` to tables (not after `["…"]`, not to keywords).
--- `opts.catalog`: `{ methods = fn() → names, arguments = fn(method) → { {name, optional}… } or nil }`
--- (both answered from the compiled-in catalog, no network) for method and argument names.
function M.candidates(line, env, opts)
  env = env or _G
  local suffix = opts and opts.suffix
  local listed, from = from_catalog(line, opts and opts.catalog, suffix)
  if listed then return listed, from end
  -- The expression being completed: a chain of names joined by . : or ["..."] at the end.
  local expr
  local open = line:match("%[[\"'][^\"']*$")  -- an unclosed ["… at the end may hold spaces
  if open then
    expr = (line:sub(1, #line - #open):match("[%w_%.:%[%]\"']*$") or "") .. open
  else
    expr = line:match("[%w_%.:%[%]\"']*$") or ""
  end
  local start = #line - #expr + 1
  -- Split into a base path and the partial last part.
  local base, sep, partial = expr:match("^(.*)([%.:])([%w_]*)$")
  local bracket_base, quote_char, bracket_partial = expr:match("^(.*)%[([\"'])([^\"']*)$")
  local path_text, prefix
  if bracket_base then
    path_text, sep, partial = bracket_base, "[" .. quote_char, bracket_partial
  elseif base then
    path_text = base
  else
    path_text, sep, partial = nil, nil, expr
  end
  local results = {}
  if not path_text then
    if not is_identifier(partial) and partial ~= "" then return results, start end
    local names, values = keys_of(env)
    for _, k in ipairs(names) do
      if k:sub(1, #partial) == partial and is_identifier(k) then
        results[#results + 1] = k .. (suffix and suffix_for(values[k]) or "")
      end
    end
    for _, k in ipairs(keywords) do
      if k:sub(1, #partial) == partial then results[#results + 1] = k end
    end
  elseif path_text == "" then
    return results, start  -- e.g. `("x"):` — the base is an expression, not a path
  else
    -- Resolve the base path raw: a.b["c"].d
    local value = env
    for part in (path_text .. "."):gmatch("([^%.%[%]:]+)") do
      -- ["key"] is a string key; [1] an integer (rsp.photos.photo[1].title).
      local key = part:match("^[\"'](.*)[\"']$") or math.tointeger(tonumber(part)) or part
      value = raw_index(value, key)
      if value == nil then return results, start end
    end
    if type(value) ~= "table" and getmetatable(value) == nil then return results, start end
    prefix = path_text .. sep
    local names, values = keys_of(value, sep == ":")
    for _, k in ipairs(names) do
      if k:sub(1, #partial) == partial then
        if sep:sub(1, 1) == "[" then
          results[#results + 1] = prefix .. k .. quote_char .. "]"
        elseif is_identifier(k) then
          results[#results + 1] = prefix .. k .. (suffix and suffix_for(values[k]) or "")
        end
      end
    end
  end
  table.sort(results)
  -- Drop duplicates (a key both global and keyword, say).
  local unique, last = {}, nil
  for _, r in ipairs(results) do
    if r ~= last then unique[#unique + 1] = r end
    last = r
  end
  return unique, start
end

return M
