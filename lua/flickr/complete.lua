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

--- Candidates completing the end of `line` (the text before the cursor). Returns a sorted list
--- of full replacements for the word being completed, and the word's start position in `line`.
--- `env` is the table globals live in (default _G). `opts.suffix`: append `(` to functions and
--- `.` to tables (not after `["…"]`, not to keywords).
function M.candidates(line, env, opts)
  env = env or _G
  local suffix = opts and opts.suffix
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
    for part, q in (path_text .. "."):gmatch("([^%.%[%]:]+)") do
      local key = part:match("^[\"'](.*)[\"']$") or part
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
