-- flickr.pretty: renders Lua values for the REPL and `flickr call`.
--
-- Tables print with sorted keys, array part first, nested tables indented; limits on depth and on
-- items per table ("… N more"); a table seen again on the current path prints as a cycle marker;
-- strings are quoted; integers and floats stay distinct (1 vs 1.0). Colour (ANSI) only when the
-- caller asks for it: the REPL asks on a terminal and never under NO_COLOR.
-- Everything here uses raw access (rawget, next): printing never runs a metamethod.

local M = {}

local math_type, string_format, concat = math.type, string.format, table.concat
local rawget, rawlen, next, type, tostring, pcall = rawget, rawlen, next, type, tostring, pcall

local COLORS = {
  string = "\27[32m", number = "\27[36m", boolean = "\27[35m", ["nil"] = "\27[35m",
  key = "\27[34m", other = "\27[33m", dim = "\27[90m", reset = "\27[0m",
}

local function is_identifier(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not M.keywords[s]
end

M.keywords = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or repeat
  return then true until while]]):gmatch("%a+") do M.keywords[w] = true end

local ESCAPES = { ["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
  ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f", ["\v"] = "\\v" }

--- Quotes a string the way Lua source would read it back, on one line: `\n`, `\t`, `\"`, other
--- control bytes as `\ddd` (UTF-8 text is kept as it is).
local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return ESCAPES[c] or string_format("\\%03d", c:byte())
  end) .. '"'
end

--- The address of a reference value, without `tostring` (which would run `__tostring`).
local function address(v)
  local ok, p = pcall(string_format, "%p", v)
  return ok and p or "?"
end

--- `<type name 0x…>`: the `__name` of the metatable (read raw) when there is one.
local function opaque(v)
  local mt = debug.getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name")
  if type(name) ~= "string" then name = nil end
  return "<" .. type(v) .. (name and (" " .. name) or "") .. " " .. address(v) .. ">"
end

local function number_text(n)
  if math_type(n) == "integer" then return tostring(n) end
  if n ~= n then return "0/0" end
  if n == math.huge then return "math.huge" end
  if n == -math.huge then return "-math.huge" end
  local s = string_format("%.17g", n)
  if tonumber(string_format("%.15g", n)) == n then s = string_format("%.15g", n) end
  if not s:find("[%.eEn]") then s = s .. ".0" end  -- a float always looks like one
  return s
end

local function sort_keys(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    if ta == "number" then return true end
    if tb == "number" then return false end
    return ta < tb
  end
  if ta == "number" or ta == "string" then return a < b end
  if ta == "boolean" then return (not a) and b end  -- false before true
  return address(a) < address(b)                   -- tables, functions…: by address, no __tostring
end

--- Options: depth (default 4), items (default 50 per table), indent ("  "), color (false),
--- width (80: a table that fits on one line is printed inline).
function M.format(value, opts)
  opts = opts or {}
  local max_depth = opts.depth or 4
  local max_items = opts.items or 50
  local indent = opts.indent or "  "
  local width = opts.width or 80
  local color = opts.color
  local function paint(kind, s)
    if not color then return s end
    return (COLORS[kind] or COLORS.other) .. s .. COLORS.reset
  end

  local path = {}  -- tables on the current path, for cycle markers

  local render

  local function scalar(v)
    local t = type(v)
    if t == "string" then return paint("string", quote(v)) end
    if t == "number" then return paint("number", number_text(v)) end
    if t == "boolean" or t == "nil" then return paint(t, tostring(v)) end
    return paint("other", opaque(v))
  end

  local function key_text(k)
    if is_identifier(k) then return paint("key", k) end
    return "[" .. scalar(k) .. "]"
  end

  function render(v, depth, prefix)
    if type(v) ~= "table" then return scalar(v) end
    if path[v] then return paint("dim", "<cycle " .. address(v) .. ">") end
    -- rawlen, not #: # on a table with __len would run code; the array part is 1..n.
    local n = rawlen(v)
    local keys, count = {}, 0
    for k in next, v do
      count = count + 1
      if not (math_type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
    end
    if count == 0 then return "{}" end
    if depth >= max_depth then return paint("dim", "{…}") end
    table.sort(keys, sort_keys)
    path[v] = true
    local parts, shown = {}, 0
    local inner = prefix .. indent
    for i = 1, n do
      if shown >= max_items then break end
      parts[#parts + 1] = render(rawget(v, i), depth + 1, inner)
      shown = shown + 1
    end
    for _, k in ipairs(keys) do
      if shown >= max_items then break end
      parts[#parts + 1] = key_text(k) .. " = " .. render(rawget(v, k), depth + 1, inner)
      shown = shown + 1
    end
    path[v] = nil
    if count > shown then parts[#parts + 1] = paint("dim", "… " .. (count - shown) .. " more") end
    local one_line = "{ " .. concat(parts, ", ") .. " }"
    local visible = color and one_line:gsub("\27%[[%d;]*m", "") or one_line
    if #visible + #prefix <= width and not one_line:find("\n") then return one_line end
    return "{\n" .. inner .. concat(parts, ",\n" .. inner) .. "\n" .. prefix .. "}"
  end

  return render(value, 0, "")
end

--- Formats several values (a REPL result list) separated by tabs, as print would.
function M.format_all(opts, ...)
  local out = {}
  for i = 1, select("#", ...) do out[i] = M.format((select(i, ...)), opts) end
  return concat(out, "\t")
end

return M
