-- Error tables for each kind, with the sandbox's fault injection.
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
local eq, ok = check.eq, check.ok
local creds = sandbox.credentials

flickr.configure{ retries = 0 }

-- api: Flickr's code and message; tostring as FlickrError.description; pcall returns it intact.
local e = check.flickr_error("api", flickr.photos.getInfo, { photo_id = "999999999999" })
eq(e.code, 1)
eq(e.method, "flickr.photos.getInfo")
eq(tostring(e), "flickr.photos.getInfo: [1] " .. e.message)
eq(getmetatable(e), flickr.Error)
ok(type(e.traceback) == "nil" or type(e.traceback) == "string", "traceback field")
local ok1, e2 = pcall(error, e)
ok(not ok1 and rawequal(e, e2), "re-raised error table keeps its identity")

-- An unknown key: with OAuth a 401 (consumer key unknown), with the legacy api_key code 100.
flickr.configure{ api_key = "not-a-key" }
e = check.flickr_error("oauth", flickr.test.echo, {})
eq(e.status, 401)
flickr.configure{ token = false, token_secret = false }
e = check.flickr_error("api", flickr.test.echo, {})
eq(e.code, 100)
ok(tostring(e):find("^flickr.test.echo: %[100%] Invalid API Key"), tostring(e))
flickr.configure{ api_key = creds.api_key, token = creds.oauth_token, token_secret = creds.oauth_token_secret }

-- oauth: a wrong token secret → 401 signature_invalid with Flickr's debug_sbs.
flickr.configure{ token_secret = "wrong-secret" }
e = check.flickr_error("oauth", flickr.test.login, {})
eq(e.status, 401)
eq(e.oauth_problem, "signature_invalid")
ok(e.debug_sbs and e.debug_sbs:find("GET&", 1, true) == 1, "debug_sbs")
ok(e.signed_base_string, "the base string we signed")
ok(not tostring(e):find("wrong-secret", 1, true), "no secret in the message")
flickr.configure{ token_secret = creds.oauth_token_secret }
eq(flickr.test.login{}.user.id, creds.user_nsid)

-- http: 5xx with an HTML body; 429 with Retry-After; HTML on 200.
sandbox.faults("5xx=1")
e = check.flickr_error("http", flickr.test.echo, {})
ok(e.status >= 500 and e.status < 600, "5xx status " .. tostring(e.status))
sandbox.faults("429=1")
e = check.flickr_error("http", flickr.test.echo, {})
eq(e.status, 429)
ok(type(e.retry_after) == "number", "retry_after")
sandbox.faults("html=1")
e = check.flickr_error("http", flickr.test.echo, {})

-- The per-key budget: past 2 calls in a 60 s window, 429 with Retry-After (the window's rest).
sandbox.faults("")
sandbox.budget(2, 60)
flickr.test.null{}
flickr.test.null{}
e = check.flickr_error("http", flickr.test.null, {})
eq(e.status, 429)
ok(type(e.retry_after) == "number" and e.retry_after > 1 and e.retry_after <= 60, "retry_after " .. tostring(e.retry_after))
sandbox.budget(nil)
eq(flickr.test.null{}.stat, "ok")
check.raises(sandbox.budget, 0, 10)

-- network: the connection is reset mid-answer.
sandbox.faults("reset=1")
e = check.flickr_error("network", flickr.test.echo, {})

-- A truncated body: the connection breaks mid-answer (network) or the XML ends early (parse).
sandbox.faults("truncate=1")
e = check.raises(flickr.test.echo, {})
ok(e.kind == "network" or e.kind == "parse", tostring(e))
sandbox.faults("")

-- parse: a body that is not well-formed XML (the sandbox's malformed fault: a control character
-- in it; its own answers drop what XML cannot carry, so the echoed NUL byte comes back without it).
eq(flickr.test.echo{ nul = "a\0b" }.nul._text, "ab")
sandbox.faults("malformed=1")
e = check.flickr_error("parse", flickr.test.echo, {})
ok(tostring(e):find("malformed", 1, true), tostring(e))
sandbox.faults("")

-- Retries apply to reads: with retries on, a flaky sandbox still answers (0.3^9 per call: a
-- failure of this check is a one-in-a-million event, not noise).
flickr.configure{ retries = 8 }
sandbox.faults("5xx=0.3")
for _ = 1, 5 do eq(flickr.test.echo{ a = "b" }.stat, "ok") end
sandbox.faults("")
flickr.configure{ retries = 0 }

-- timeout: a slow answer beyond the call's timeout.
sandbox.latency(1500)
e = check.flickr_error("timeout", flickr.call, "flickr.test.echo", {}, { timeout = 0.3 })
sandbox.latency(0)

-- usage: missing credentials name the ways to provide them.
flickr.configure{ api_key = false }
e = check.flickr_error("usage", flickr.test.echo, {})
ok(e.message:find("FLICKR_API_KEY", 1, true) and e.message:find("--sandbox", 1, true), e.message)
flickr.configure{ api_key = creds.api_key }

-- usage: configure checks its keys.
e = check.flickr_error("usage", flickr.configure, { no_such_setting = 1 })
ok(e.message:find("no_such_setting", 1, true), e.message)

-- A read token cannot write (99), in the error's fields.
local read = sandbox.issue_token{ perms = "read" }
flickr.configure{ token = read.token, token_secret = read.secret }
e = check.flickr_error("api", flickr.photos.addTags, { photo_id = "1", tags = "x" })
eq(e.code, 99)
flickr.configure{ token = creds.oauth_token, token_secret = creds.oauth_token_secret }

-- Errors cross flickr.map with their identity.
local inner
local ok2, got = pcall(flickr.map, { 1, 2, 3 }, function(i)
  if i == 2 then
    local _, err = pcall(flickr.photos.getInfo, { photo_id = "0" })
    inner = err
    error(err)
  end
  return i
end)
ok(not ok2 and rawequal(got, inner), "flickr.map re-raises the same error table")
eq(got.code, 1)

ok(got.index == 2 and got.item == 2 and got.in_function == "flickr.map", "the error names its item")

-- Lua errors (strings) from inside map come out as flickr.Error of kind "lua", the value kept.
ok2, got = pcall(flickr.map, { 1 }, function() error("plain failure", 0) end)
eq(got.kind, "lua")
eq(got.cause, "plain failure")
ok(tostring(got):find("plain failure", 1, true) and tostring(got):find("flickr.map item 1", 1, true), tostring(got))

check.done("test_errors")
