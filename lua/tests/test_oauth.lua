-- OAuth and legacy auth helpers end to end against the sandbox ("the browser" is sandbox.approve).
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
local eq, ok = check.eq, check.ok
local creds = sandbox.credentials

-- Request token → authorize (oob page shows the verifier) → access token, now in use.
local req = flickr.oauth.request_token{ callback = "oob", perms = "write" }
ok(req.token and req.secret, "request token")
ok(req.authorize_url:find(sandbox.url .. "/services/oauth/authorize?", 1, true) == 1, req.authorize_url)
ok(req.authorize_url:find("perms=write", 1, true), "perms in the URL")
local verifier = sandbox.approve(req.authorize_url)
ok(verifier and verifier:match("^%d+%-%d+%-%d+$"), "verifier " .. tostring(verifier))
local acc = flickr.oauth.access_token(req, verifier)
ok(acc.token and acc.secret and acc.token ~= creds.oauth_token, "a new access token")
eq(acc.user_nsid, creds.user_nsid)
eq(acc.username, creds.username)
local who = flickr.oauth.check()
eq(who.perms, "write")
eq(who.user_nsid, creds.user_nsid)
eq(flickr.test.login{}.user.id, creds.user_nsid)
ok(flickr.config().token:find("•••", 1, true) == 1, "token redacted in config")

-- A wrong verifier is an oauth error.
req = flickr.oauth.request_token{}
local e = check.flickr_error("oauth", flickr.oauth.access_token, req, "000-000-000")
eq(e.status, 401)

-- login, out of band: the verifier function plays the user; the profile is saved 0600.
local got = flickr.oauth.login{ perms = "read", profile = "lua-test",
                                verifier = function(url) return (sandbox.approve(url)) end }
ok(got.profile and got.profile:find("lua-test.json", 1, true), "profile path")
local mode = io.popen("stat -c %a '" .. got.profile .. "'"):read("l")
eq(mode, "600")
local saved = io.open(got.profile):read("a")
ok(saved:find(got.token, 1, true) and saved:find(creds.api_key, 1, true), "token and key saved")
eq(flickr.oauth.check().perms, "read")

-- login with a loopback callback: the browser is redirected to a local receiver.
got = flickr.oauth.login{ callback = "loopback", perms = "delete", save = false,
                          open = function(url) sandbox.approve(url) end }
ok(got.token and got.profile == nil, "loopback login without saving")
eq(flickr.oauth.check().perms, "delete")

-- Legacy: frob → login page (auto-approved) → token → check → exchange for OAuth.
flickr.configure{ token = false, token_secret = false }
local frob = flickr.legacy.get_frob()
ok(type(frob) == "string" and #frob > 0, "frob")
local url = flickr.legacy.login_url{ frob = frob, perms = "write" }
ok(url:find("api_sig=", 1, true) and url:find("frob=", 1, true), url)
local _, status = sandbox.approve(url)
eq(status, 200)
local tok = flickr.legacy.get_token(frob)
eq(tok.perms, "write")
eq(tok.user_nsid, creds.user_nsid)
eq(flickr.legacy.check().token, tok.token)
eq(flickr.config().signed_in, "legacy")
local migrated = flickr.legacy.exchange(tok.token)
ok(migrated.token and migrated.secret, "OAuth token from the legacy one")
eq(flickr.config().signed_in, "oauth")
eq(flickr.oauth.check().perms, "write")
-- The legacy token is gone after the exchange.
check.flickr_error("api", flickr.legacy.exchange, tok.token)

check.done("test_oauth")
