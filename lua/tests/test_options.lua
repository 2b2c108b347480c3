-- Option tables are read one way: a key the function does not take is refused (naming the ones
-- it does), a value of the wrong type is a usage error naming the option and what it expects,
-- and neither costs a request.
local check = require("check")
local eq, ok = check.eq, check.ok

local function refused(part, f, ...)
  local before = sandbox.requests()
  local e = check.flickr_error("usage", f, ...)
  eq(sandbox.requests(), before, "requests made by a refused call (" .. tostring(e) .. ")")
  ok(tostring(e):find(part, 1, true), "expected " .. string.format("%q", part) .. " in: " .. tostring(e))
  return e
end

local id = flickr.photos.search{ user_id = "me", per_page = 1 }.photos.photo[1].id

-- Unknown keys, with the known ones listed.
refused("unknown option 'verbb' (strict, timeout, verb)", flickr.call, "flickr.test.echo", {}, { verbb = "GET" })
refused("unknown option 'sise' (dir, path, progress, size)", flickr.download, id, { sise = "o" })
refused("unknown option 'concurency' (concurrency, on_error)", flickr.map, { 1 }, print, { concurency = 2 })
refused("unknown option 'on_errors' (on_error)", flickr.parallel, print, { on_errors = "collect" })
refused("unknown option 'every' (interval, timeout)", flickr.wait_tickets, { "1" }, { every = 1 })
refused("unknown option 'perm' (callback, perms)", flickr.oauth.request_token, { perm = "read" })
refused("unknown option 'frobb' (frob, perms)", flickr.legacy.login_url, { frobb = "x" })
refused("unknown option 'profil'", flickr.oauth.login, { profil = "x" })
refused("unknown option '[1]'", flickr.call, "flickr.test.echo", {}, { "GET" })
refused("unknown setting 'no_such_setting' (api_key, auth_token,", flickr.configure, { no_such_setting = 1 })

-- Wrong types and values: the option and what it expects.
refused("bad option 'verb': \"GET\" or \"POST\" expected, got 'PUT'", flickr.call, "flickr.test.echo", {}, { verb = "PUT" })
refused("bad option 'timeout': seconds expected, got string", flickr.call, "flickr.test.echo", {}, { timeout = "soon" })
refused("bad option 'strict': true or false expected, got string", flickr.call, "flickr.test.echo", {}, { strict = "no" })
refused("bad option 'dir': a string expected, got table", flickr.download, id, { dir = {} })
refused("bad option 'size': one of ", flickr.download, id, { size = "huge" })
refused("bad option 'progress': a function(received, total) expected, got number", flickr.download, id, { progress = 1 })
refused("bad option 'concurrency': a positive integer expected, got 0", flickr.map, { 1 }, print, { concurrency = 0 })
refused("bad option 'concurrency': a positive integer expected, got 1.5", flickr.map, { 1 }, print, { concurrency = 1.5 })
refused("bad option 'on_error': \"raise\" or \"collect\" expected, got 'ignore'", flickr.map, { 1 }, print, { on_error = "ignore" })
refused("bad option 'on_error': \"raise\" or \"collect\" expected, got 'skip'", flickr.parallel, print, { on_error = "skip" })
refused("bad option 'interval': seconds expected, got string", flickr.wait_tickets, { "1" }, { interval = "1s" })
refused("bad option 'perms': \"read\", \"write\", \"delete\" expected, got 'admin'", flickr.oauth.request_token, { perms = "admin" })
refused("bad option 'callback': \"oob\" or \"loopback\" expected, got 'web'", flickr.oauth.login, { callback = "web" })
refused("bad option 'save': true or false expected, got string", flickr.oauth.login, { save = "no" })
refused("bad option 'open': a function(url) expected, got string", flickr.oauth.login, { open = "firefox" })
refused("bad argument 'async': true or false expected, got number", flickr.upload, { data = "x", async = 1 })
refused("bad argument 'progress': a function(sent, total) expected, got boolean", flickr.upload, { data = "x", progress = true })
refused("bad argument 'file': a file path (or data = bytes) is required", flickr.upload, { title = "no file" })
refused("bad setting 'timeout': a non-negative number expected, got -1", flickr.configure, { timeout = -1 })
refused("bad setting 'format': \"xml\" or \"json\" expected, got 'yaml'", flickr.configure, { format = "yaml" })
refused("bad setting 'budget'", flickr.configure, { budget = "fast" })

-- What the options still do.
eq(flickr.text(flickr.call("flickr.test.echo", { x = "post" }, { verb = "post", timeout = 5, strict = true }).x), "post")
local results, errors = flickr.map({ 1, 2 }, function(i) return i * 2 end, { concurrency = 1, on_error = "collect" })
eq(results[2], 4)
eq(next(errors), nil)
local pr, pe = flickr.parallel(function() return 1 end, function() error("no") end, { on_error = "collect" })
eq(pr[1], 1)
ok(pe[2] ~= nil and pr[2] == nil, "parallel collected the failure")
eq(flickr.parallel(function() return 7 end), 7)
flickr.configure{ format = "json" }
eq(flickr.config().format, "json")
flickr.configure{ format = false }
eq(flickr.config().format, "xml")

check.done("test_options")
