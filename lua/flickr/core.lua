-- The parts of the `flickr` module written in Lua. FlickrLua runs this chunk once per state;
-- it returns a function that completes the module table built in Swift.
--   install(flickr, Error, Help)
-- flickr: the module (namespaces and Swift functions already set); Error: the metatable of error
-- values; Help: the metatable of flickr.help() results.

local type, tostring, tonumber, next, rawget, setmetatable =
      type, tostring, tonumber, next, rawget, setmetatable
local concat, insert = table.concat, table.insert

return function(flickr, Error, Help)
  ---------------------------------------------------------------------------------------------
  -- flickr.Error: `tostring(err)` → "flickr.photos.search: [100] Invalid API Key"
  function Error.__tostring(e)
    local s = ""
    if rawget(e, "method") then s = tostring(e.method) .. ": " end
    if rawget(e, "code") then s = s .. "[" .. tostring(e.code) .. "] " end
    s = s .. tostring(rawget(e, "message") or "error")
    local status = rawget(e, "status")
    if e.kind == "http" and status and not tostring(e.message):find(tostring(status), 1, true) then
      s = s .. " (HTTP " .. tostring(status) .. ")"
    end
    if rawget(e, "duplicate_photo_id") then
      s = s .. " (duplicate of photo " .. tostring(e.duplicate_photo_id) .. ")"
    end
    return s
  end
  flickr.Error = Error

  ---------------------------------------------------------------------------------------------
  -- flickr.text(node): the text of an element (`_text`, or `_content` in the JSON format).
  function flickr.text(node)
    if type(node) == "table" then
      local t = rawget(node, "_text")
      if t == nil then t = rawget(node, "_content") end
      return t
    elseif type(node) == "string" or type(node) == "number" then
      return tostring(node)
    end
    return nil
  end

  ---------------------------------------------------------------------------------------------
  -- flickr.walk(method, args [, opts]): every item of a paginated list, fetching pages lazily.
  --   for photo in flickr.walk("flickr.photos.search", { user_id = "me" }) do ... end
  -- opts.max_pages limits the pages fetched. The paginated element is the child of <rsp> that
  -- carries `page`/`pages`; its items are its array child (photos.photo, people.person, …).
  local function is_array(v) return type(v) == "table" and (rawget(v, 1) ~= nil or next(v) == nil) end

  local function container_of(rsp)
    local fallback
    for k, v in next, rsp do
      if type(v) == "table" and k ~= "stat" then
        if rawget(v, "pages") ~= nil or rawget(v, "page") ~= nil then return v end
        fallback = fallback or v
      end
    end
    return fallback
  end

  local function items_of(container)
    if is_array(container) and rawget(container, 1) ~= nil then return container end
    for k, v in next, container do
      if is_array(v) then return v end
    end
    for k, v in next, container do
      if type(v) == "table" then return { v } end
    end
    return {}
  end

  function flickr.walk(method, args, opts)
    if type(method) ~= "string" then
      error(setmetatable({ kind = "usage", method = "flickr.walk",
        message = "bad argument #1 (method name expected, got " .. type(method) .. ")" }, Error), 2)
    end
    local query = {}
    for k, v in next, args or {} do query[k] = v end
    local page = tonumber(query.page) or 1
    local max_pages = opts and opts.max_pages
    local fetched, items, i, pages = 0, nil, 0, nil
    return function()
      while true do
        if items and i < #items then
          i = i + 1
          return items[i]
        end
        if items and (pages == nil or page > pages) then return nil end
        if max_pages and fetched >= max_pages then return nil end
        query.page = page
        local rsp = flickr.call(method, query)
        fetched = fetched + 1
        local container = container_of(rsp)
        if not container then return nil end
        items, i = items_of(container), 0
        pages = tonumber(rawget(container, "pages"))
        page = page + 1
        if #items == 0 then return nil end
      end
    end
  end

  ---------------------------------------------------------------------------------------------
  -- flickr.help(name) results print as text.
  local function plain(s)
    s = tostring(s or ""):gsub("<[^>]+>", ""):gsub("&quot;", '"'):gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&amp;", "&")
    return s
  end

  Help.__index = Help
  function Help.__tostring(h)
    if h.text then return h.text end
    local out = { h.name .. "  (" .. h.verb .. ", perms: " .. h.perms .. ")" }
    if h.description and h.description ~= "" then insert(out, "  " .. plain(h.description)) end
    local required, optional = {}, {}
    for _, a in ipairs(h.arguments) do
      insert(a.optional and optional or required, "    " .. a.name .. (a.description ~= "" and (" — " .. plain(a.description)) or ""))
    end
    if #required > 0 then insert(out, "  required:"); for _, l in ipairs(required) do insert(out, l) end end
    if #optional > 0 then insert(out, "  optional:"); for _, l in ipairs(optional) do insert(out, l) end end
    if #h.errors > 0 then
      insert(out, "  errors:")
      for _, e in ipairs(h.errors) do insert(out, "    " .. e.code .. "  " .. plain(e.message)) end
    end
    return concat(out, "\n")
  end
  ---------------------------------------------------------------------------------------------
  -- flickr.retag.plan{ rules = {…}, query = {…} } → a plan (reads only; the job is stored):
  --   rules: { {"rename", "paris", "Paris"}, {"add", "city trip"}, {"remove", "tram"} }, in order
  --   plan.job, plan.photos (each { id, removed = {…}, added = {…} }), plan:diff(), plan:save(path),
  --   plan:apply{ progress = function(done, total) … end } → the job's summary
  -- flickr.jobs.list(), flickr.jobs.resume(id), flickr.jobs.undo(id) (`flickr retag` likewise).
  local jobs = flickr.jobs
  local Plan = {}
  Plan.__index = Plan

  local function load_plan(job)
    local photos = {}
    for _, p in ipairs(jobs._photos(job)) do
      photos[#photos + 1] = { id = p.id, removed = p.removed, added = p.added, status = p.status, detail = p.detail }
    end
    return setmetatable({ job = job, photos = photos }, Plan)
  end

  function Plan:diff()
    local out = {}
    for _, p in ipairs(self.photos) do
      out[#out + 1] = "photo " .. p.id
      for _, r in ipairs(p.removed) do out[#out + 1] = "- " .. r end
      for _, a in ipairs(p.added) do out[#out + 1] = "+ " .. a end
    end
    out[#out + 1] = ("job %s: %d photo(s) to change"):format(self.job, #self.photos)
    return concat(out, "\n")
  end

  function Plan:save(path)
    local f = assert(io.open(path, "w"))
    f:write('{"job": "', self.job, '"}\n')
    f:close()
    return path
  end

  function Plan:apply(opts)
    return jobs._run(self.job, opts and opts.progress)
  end

  flickr.retag = {
    plan = function(spec)
      if type(spec) ~= "table" or type(spec.rules) ~= "table" then
        error(setmetatable({ kind = "usage", message = "flickr.retag.plan{ rules = {…}, query = {…} } expected" }, Error), 2)
      end
      return load_plan(jobs._plan(spec.rules, spec.query or {}))
    end,
  }

  function jobs.resume(id, progress) return jobs._run(id, progress) end

  function jobs.undo(id, progress)
    local undo = jobs._undo(id)
    return jobs._run(undo, progress)
  end
end
