-- Tiny assertion helpers for the lua/tests scripts (run by `flickr --sandbox`).
local M = {}

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

--- Fails with both values shown unless a == b.
function M.eq(a, b, what)
  if a ~= b then
    error((what and (what .. ": ") or "") .. "expected " .. show(b) .. ", got " .. show(a), 2)
  end
end

--- Fails unless v is truthy.
function M.ok(v, what)
  if not v then error("check failed: " .. (what or "?"), 2) end
  return v
end

--- Calls f(...) and returns the error value it must raise; fails if it does not raise.
function M.raises(f, ...)
  local ok, err = pcall(f, ...)
  if ok then error("expected an error, got success", 2) end
  return err
end

--- Calls f(...) expecting a flickr.Error of `kind`; returns it.
function M.flickr_error(kind, f, ...)
  local ok, err = pcall(f, ...)
  if ok then error("expected a flickr.Error of kind " .. kind .. ", got success", 2) end
  if getmetatable(err) ~= flickr.Error then
    error("expected a flickr.Error of kind " .. kind .. ", got " .. show(err), 2)
  end
  if err.kind ~= kind then
    error("expected kind " .. kind .. ", got " .. tostring(err.kind) .. ": " .. tostring(err), 2)
  end
  return err
end

--- Counts the items of a table.
function M.count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

--- Lists a test's passed checks at the end.
function M.done(name)
  io.stdout:write(name, ": ok\n")
end

return M
