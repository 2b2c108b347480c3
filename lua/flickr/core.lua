-- The parts of the `flickr` module written in Lua. FlickrLua runs this chunk once per state;
-- it returns a function that completes the module table built in Swift.
--   install(flickr, Error, Help)
-- flickr: the module (namespaces and Swift functions already set); Error: the metatable of error
-- values; Help: the metatable of flickr.help() results.

local type, tostring, tonumber, next, rawget, rawset, setmetatable, select =
      type, tostring, tonumber, next, rawget, rawset, setmetatable, select
local concat, insert = table.concat, table.insert

-- A value in a few characters, for messages: strings quoted and cut at 40.
local function short(v)
  if type(v) == "string" then
    return string.format("%q", #v > 40 and v:sub(1, 40) .. "…" or v)
  end
  return tostring(v)
end

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
    local index = rawget(e, "index")
    if index ~= nil and rawget(e, "in_function") then
      s = s .. " [" .. tostring(e.in_function) .. " item " .. tostring(index) .. ": " .. short(rawget(e, "item")) .. "]"
    end
    return s
  end
  flickr.Error = Error

  ---------------------------------------------------------------------------------------------
  -- flickr.map(list, fn [, { concurrency = 8, on_error = "raise"|"collect" }])
  -- flickr.parallel(f1, f2, … [, { on_error = "raise"|"collect" }])
  -- The Swift engines run the calls; here is what a failure does. "raise" (the default): no
  -- item starts after the first failure, the ones in flight finish, and the first failure is
  -- raised naming its item — err.index, err.item, err.in_function — with the results that did
  -- finish in err.partial (by position). A failure that is not a table (error("text")) becomes a
  -- flickr.Error of kind "lua" whose `cause` is the value raised. "collect": every item runs;
  -- the call returns `results, errors`, each by position (an item has one or the other).
  local function item_error(err, in_function, index, item, partial)
    if type(err) ~= "table" then
      err = setmetatable({ kind = "lua", message = tostring(err), cause = err }, Error)
    end
    rawset(err, "in_function", in_function)
    rawset(err, "index", index)
    rawset(err, "item", item)
    rawset(err, "partial", partial)
    return err
  end

  local map_engine, parallel_engine = flickr.map, flickr.parallel

  function flickr.map(list, fn, opts)
    local results, errors, first = map_engine(list, fn, opts)
    if opts ~= nil and rawget(opts, "on_error") == "collect" then return results, errors end
    if first ~= nil then error(item_error(errors[first], "flickr.map", first, list[first], results), 2) end
    return results
  end

  function flickr.parallel(...)
    local n = select("#", ...)
    local opts = n > 0 and select(n, ...) or nil
    if type(opts) == "table" then n = n - 1 else opts = nil end
    -- The engine reads (and checks) the options; this reads only what it needs afterwards.
    local results, errors, first = parallel_engine(opts, table.unpack({ ... }, 1, n))
    local collect = opts ~= nil and rawget(opts, "on_error") == "collect"
    if collect then return results, errors end
    if first ~= nil then error(item_error(errors[first], "flickr.parallel", first, nil, results), 2) end
    return table.unpack(results, 1, n)
  end

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
  -- The paginated element is the child of <rsp> that carries `page`/`pages`; its items are its
  -- array child (photos.photo, people.person, …). A method without paging is an error.
  -- opts.max_pages: at most this many pages.
  -- opts.windows (flickr.photos.search): complete past Flickr's 4,000-result search cap, by
  --   upload-date windows split until each holds at most 4,000 (sorted date-posted-asc unless
  --   args.sort is given); each photo once. Without it, walking past the cap is an error.
  -- opts.snapshot: fetch every page first, then yield: for loops that change what they walk
  --   (removing the tag a search looks for would otherwise shift later pages and skip photos).
  -- opts.strict: as flickr.call's (false sends arguments the catalog does not know).
  local SEARCH_CAP = 4000

  local function walk_error(message, method)
    return setmetatable({ kind = "usage", method = method or "flickr.walk", message = message }, Error)
  end

  local function is_array(v) return type(v) == "table" and (rawget(v, 1) ~= nil or next(v) == nil) end

  -- The child of the answer that carries the paging (page/pages), or nil.
  local function container_of(rsp)
    for k, v in next, rsp do
      if type(v) == "table" and k ~= "stat" and (rawget(v, "pages") ~= nil or rawget(v, "page") ~= nil) then
        return v
      end
    end
    return nil
  end

  local function items_of(container)
    if is_array(container) and rawget(container, 1) ~= nil then return container end
    for _, v in next, container do
      if is_array(v) then return v end
    end
    for _, v in next, container do
      if type(v) == "table" then return { v } end
    end
    return {}
  end

  -- Whether the catalog says `method` takes a `page` argument (nil: not in the catalog).
  local function takes_page(method)
    local ok, h = pcall(flickr.help, method)
    if not ok or type(h) ~= "table" then return nil end
    for _, a in ipairs(h.arguments or {}) do
      if a.name == "page" then return true, h.name end
    end
    return false, h.name
  end

  -- A page source: `next_page()` returns the next page's items (nil when done).
  local function page_source(method, query, opts)
    local page = tonumber(query.page) or 1
    local per_page = tonumber(query.per_page) or 100
    local call_opts = { strict = opts.strict }
    local fetched, pages = 0, nil
    return function()
      if pages and page > pages then return nil end
      if opts.max_pages and fetched >= opts.max_pages then return nil end
      if pages and (page - 1) * per_page >= SEARCH_CAP and method == "flickr.photos.search" then
        error(walk_error("this search has " .. tostring(pages * per_page) .. "+ results and Flickr returns only the first "
          .. SEARCH_CAP .. ": walk it with { windows = true } (upload-date windows) to reach them all", method), 0)
      end
      query.page = page
      local rsp = flickr.call(method, query, call_opts)
      fetched = fetched + 1
      local container = container_of(rsp)
      if not container then
        error(walk_error("the answer has no paging (no page/pages), so there is nothing to walk: "
          .. "call it with flickr.call and read the answer", method), 0)
      end
      pages = tonumber(rawget(container, "pages")) or 1
      per_page = tonumber(rawget(container, "perpage")) or tonumber(rawget(container, "per_page")) or per_page
      page = page + 1
      local items = items_of(container)
      if #items == 0 then pages = 0 end
      return items, tonumber(rawget(container, "total"))
    end
  end

  -- A filter that keeps, of a list of items, those whose id it has not met before (items
  -- without an id pass): a photo on the edge of two windows, or listed twice, comes out once.
  local function unseen_filter()
    local seen = {}
    return function(items)
      local fresh = {}
      for _, item in ipairs(items) do
        local id = type(item) == "table" and rawget(item, "id")
        if id == nil or not seen[id] then
          if id ~= nil then seen[id] = true end
          fresh[#fresh + 1] = item
        end
      end
      return fresh
    end
  end

  -- Upload-date windows over a search: windows are split in two while they hold more than the
  -- cap, then paged through; items already seen (a photo on a window's edge) are skipped.
  local function window_source(query, opts)
    local lo = tonumber(query.min_upload_date) or 0
    local hi = tonumber(query.max_upload_date) or (os.time() + 86400)
    if query.sort == nil then query.sort = "date-posted-asc" end
    local stack, current, unseen = { { lo, hi } }, nil, unseen_filter()
    local function open(w)
      local q = {}
      for k, v in next, query do q[k] = v end
      q.min_upload_date, q.max_upload_date, q.page = w[1], w[2], 1
      return page_source("flickr.photos.search", q, { strict = opts.strict })
    end
    return function()
      while true do
        if current == nil then
          local w = table.remove(stack)
          if w == nil then return nil end
          local source = open(w)
          local items, total = source()
          if total and total > SEARCH_CAP and w[2] > w[1] then
            local mid = w[1] + (w[2] - w[1]) // 2
            stack[#stack + 1] = { mid + 1, w[2] }  -- the later half after the earlier one
            stack[#stack + 1] = { w[1], mid }
          else
            current = source
            if items then return unseen(items) end
          end
        else
          local items = current()
          if items == nil then current = nil else return unseen(items) end
        end
      end
    end
  end

  function flickr.walk(method, args, opts)
    if type(method) ~= "string" then
      error(walk_error("bad argument #1 (method name expected, got " .. type(method) .. ")"), 2)
    end
    if args ~= nil and type(args) ~= "table" then
      error(walk_error("bad argument #2 (table of arguments expected, got " .. type(args) .. ")"), 2)
    end
    if opts ~= nil and type(opts) ~= "table" then
      error(walk_error("bad argument #3 (table of options expected, got " .. type(opts) .. ")"), 2)
    end
    opts = opts or {}
    for k in next, opts do
      if k ~= "max_pages" and k ~= "windows" and k ~= "snapshot" and k ~= "strict" then
        error(walk_error("unknown option '" .. tostring(k) .. "' (max_pages, windows, snapshot, strict)"), 2)
      end
    end
    -- Known before any request: a method that does not page, or windows on another method.
    local pages_ok, name = takes_page(method)
    if pages_ok == false then
      error(walk_error("it takes no page argument, so it cannot be walked: call it with flickr.call", name), 2)
    end
    name = name or (method:find("^flickr%.") and method or "flickr." .. method)
    if opts.windows and name ~= "flickr.photos.search" then
      error(walk_error("the windows option is for flickr.photos.search (other lists are not capped)", name), 2)
    end
    local query = {}
    for k, v in next, args or {} do query[k] = v end
    local source = opts.windows and window_source(query, opts) or page_source(name, query, opts)

    local items, i = nil, 0
    local function step()
      while true do
        if items and i < #items then
          i = i + 1
          return items[i]
        end
        items, i = source(), 0
        if items == nil then return nil end
      end
    end
    if not opts.snapshot then return step end
    -- Snapshot: every item now, each id once; the loop then walks the list.
    local all = {}
    for item in step do all[#all + 1] = item end
    all = unseen_filter()(all)
    local j = 0
    return function()
      j = j + 1
      return all[j]
    end
  end

  ---------------------------------------------------------------------------------------------
  -- flickr.help(name) results print as their text (the catalog's help renderer, in Swift).
  Help.__index = Help
  function Help.__tostring(h) return rawget(h, "text") or "" end
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

  ---------------------------------------------------------------------------------------------
  -- flickr.edit.plan{ find = {…} | query = {…}, changes = {…}, rule = fn } → a plan (reads only;
  -- the job is stored): plan.job, plan.photos (each { id, changes = { {field, from, to}, … },
  -- diff = { line, … } }), plan.refused, plan.enumerated, plan.calls, plan.apply_calls,
  -- plan.fields, plan.summary; plan:diff(), plan:save(path) (flickr edit plan --out's JSON),
  -- plan:apply{ progress = function(done, total) … end } → the job's summary.
  -- The Swift half (FlickrModule+Edit.swift) reads and checks the options and plans.
  local edit = flickr.edit
  local EditPlan = {}
  EditPlan.__index = EditPlan
  local documents = setmetatable({}, { __mode = "k" })  -- plan → its JSON

  function EditPlan:diff()
    local out = {}
    for _, p in ipairs(self.photos) do
      out[#out + 1] = "photo " .. p.id
      for _, line in ipairs(p.diff) do out[#out + 1] = "  " .. line end
    end
    for _, r in ipairs(self.refused) do
      out[#out + 1] = "photo " .. r.id .. ": not changed: " .. r.field .. ": " .. r.reason
    end
    out[#out + 1] = self.summary
    return concat(out, "\n")
  end

  function EditPlan:save(path)
    if type(path) ~= "string" then
      error(setmetatable({ kind = "usage", method = "flickr.edit.save", message = "bad argument #1 (a file path expected, got " .. type(path) .. ")" }, Error), 2)
    end
    local f, why = io.open(path, "w")
    if not f then error(setmetatable({ kind = "usage", method = "flickr.edit.save", message = tostring(why) }, Error), 2) end
    f:write(documents[self] or ('{"job": "' .. self.job .. '"}\n'))
    f:close()
    return path
  end

  function EditPlan:apply(opts)
    return edit._apply(self.job, opts)
  end

  function edit.plan(spec)
    local plan, json = edit._plan(spec)
    setmetatable(plan, EditPlan)
    documents[plan] = json
    return plan
  end

  ---------------------------------------------------------------------------------------------
  -- flickr.push.plan{ dirs = {…}, sets = "folder"|"none"|TITLE, tags, privacy, license, safety,
  -- hidden, replace, delete, ignore = {…}, keywords = "full", title_from_filename } → a plan
  -- (reads only; the job is stored when there is something to do): plan.job (nil: nothing to
  -- do), plan.steps (each { action, path, photo, from, set, leaves_set, groups, status }),
  -- plan.lines (each file's { action, path, detail }), plan.counts, plan.calls, plan.apply_calls,
  -- plan.hashed; plan:apply{ progress = function(done, total) … end } → the job's summary.
  -- The Swift half (FlickrModule+Push.swift) is `flickr push plan`'s planner.
  local push = flickr.push
  local PushPlan = {}
  PushPlan.__index = PushPlan

  function PushPlan:apply(opts)
    if not self.job then return nil end
    return jobs._run(self.job, opts and opts.progress)
  end

  function push.plan(spec)
    return setmetatable(push._plan(spec), PushPlan)
  end

  function jobs.resume(id, progress) return jobs._run(id, progress) end

  function jobs.undo(id, progress)
    local undo = jobs._undo(id)
    return jobs._run(undo, progress)
  end

  ---------------------------------------------------------------------------------------------
  -- flickr.library: the library on disk (`flickr sync`); queries make no call.
  --   flickr.library.sync{ deep = …, full = …, progress = fn } → the summary
  --   flickr.library.photos(filter) → an iterator of photo tables (pages of 1,000 to 8,000 from Swift)
  local library = flickr.library

  function library.sync(opts)
    local progress = type(opts) == "table" and opts.progress or nil
    local given = {}
    if type(opts) == "table" then
      for k, v in pairs(opts) do if k ~= "progress" then given[k] = v end end
    end
    return library._sync(given, progress)
  end

  -- Each page is one statement in the filter's order after the last photo of the page before
  -- (keyset: its order value and id): a photo deleted or changed meanwhile moves no other one.
  function library.photos(filter)
    local page, value, id = library._page(filter)
    local i, done = 0, 0
    return function()
      i = i + 1
      if page[i] == nil and id ~= nil then
        done = done + #page
        page, value, id = library._page(filter, done, value, id)
        i = 1
      end
      return page[i]
    end
  end
end
