import FlickrAPI
import FlickrLua
import Foundation
import LuaKit

extension FuzzTarget {
    /// Random Lua values — deep and cyclic tables, NaN, huge strings, embedded NULs, metatables
    /// whose metamethods raise, functions that raise, coroutines, userdata — thrown at every
    /// `flickr.*` function, the pretty printer and the completer, each call under pcall. The
    /// input bytes drive the choices. Property: the host survives, the stack is kept, and a
    /// flickr.Error is what a Swift function raises. Calls that would write files, change the
    /// endpoint or wait are left out; an API call that passes the catalog check goes to a
    /// closed loopback port and fails at once.
    public static let lua = FuzzTarget(name: "lua") { bytes in
        let data = LuaValue.string(LuaString(bytes: Array(bytes)))
        let outcome = try? FuzzSession.shared.runtime.performAndWait { state -> Int32 in
            let top = state.top
            _ = try state.run(FuzzSession.script, name: "=(fuzz)", arguments: [data])
            return state.top - top
        }
        FuzzCheck.require(outcome == nil || outcome == 0, "the Lua stack moved by \(outcome ?? 0)")
    }
}

/// The session the Lua target runs in: the real module, pointed at a loopback port where
/// nothing listens (a call that gets past the checks fails at once), no retries.
enum FuzzSession {
    static let shared: FlickrLuaSession = {
        final class Box: @unchecked Sendable { var session: FlickrLuaSession? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("flickr-fuzz-\(getpid())").path
        var options = FlickrLuaSession.Options(environment: ["HOME": home, "XDG_CONFIG_HOME": home, "XDG_STATE_HOME": home])
        options.settings = FlickrSettings(apiKey: "k", secret: "s", token: "t", tokenSecret: "ts", endpoint: "http://127.0.0.1:9",
                                          timeout: 2, retries: 0, rate: .some(nil))
        Task.detached {
            box.session = try? await FlickrLuaSession(options)
            done.signal()
        }
        done.wait()
        guard let session = box.session else { fatalError("cannot start the flickr module") }
        return session
    }()

    static let script = #"""
        local data = ...
        local at = 0
        local function byte()
          at = at + 1
          if at > #data then return 0 end
          return data:byte(at)
        end
        local function pick(list) return list[byte() % #list + 1] end

        local raise = function() error({ fuzz = true }) end
        local value
        local function make_table(depth)
          local t = {}
          for i = 1, byte() % 5 do t[i] = value(depth + 1) end
          for _ = 1, byte() % 4 do
            local k = value(depth + 1)
            if k ~= nil and k == k then t[k] = value(depth + 1) end
          end
          if byte() % 4 == 0 then t.self = t end                      -- a cycle
          if byte() % 3 == 0 then
            local mt = {}
            for _, name in ipairs({ "__index", "__newindex", "__tostring", "__eq", "__len", "__pairs", "__call",
                                    "__concat", "__lt", "__le", "__close", "__name", "__gc" }) do
              if byte() % 3 == 0 then mt[name] = (name == "__name") and value(depth + 1) or raise end
            end
            pcall(setmetatable, t, mt)
          end
          return t
        end
        function value(depth)
          local kind = byte() % 16
          if depth > 6 then kind = kind % 8 end
          if kind == 0 then return nil
          elseif kind == 1 then return byte() % 2 == 0
          elseif kind == 2 then return pick({ 0, -1, 1, math.maxinteger, math.mininteger, 2^53, 0/0, 1/0, -1/0, -0.0, 0.5 })
          elseif kind == 3 then return byte() * 1000 + byte()
          elseif kind == 4 then
            local n = byte() % 40
            return data:sub(at + 1, at + n)                          -- raw bytes: NULs, invalid UTF-8
          elseif kind == 5 then return pick({ "", "me", "flickr.photos.search", "photo_id", "\0", "caf\xe9", "0", "1e999" })
          elseif kind == 6 then return byte() % 7 == 0 and string.rep("x", 1 << 20) or string.rep("ab", byte())
          elseif kind == 7 then return pick({ io.stdout, print, raise, coroutine.create(function() end), function() return 1 end })
          else return make_table(depth) end
        end

        -- Every function of the module (namespaces walked raw), the pretty printer, the completer.
        local skip = { ["flickr.download"] = true, ["flickr.configure"] = true, ["flickr.wait_tickets"] = true,
                       ["flickr.oauth.login"] = true, ["flickr.check_tickets"] = true }
        local functions = {}
        local function collect(t, path, seen)
          if seen[t] then return end
          seen[t] = true
          for k, v in next, t do
            local name = path .. "." .. tostring(k)
            if type(v) == "function" and not skip[name] and not name:find("^flickr%.legacy") and not name:find("^flickr%.jobs")
               and not name:find("^flickr%.retag") then
              functions[#functions + 1] = { name, v }
            elseif type(v) == "table" and type(k) == "string" and k ~= "Error" then
              collect(v, name, seen)
            end
          end
        end
        if not FUZZ_FUNCTIONS then
          collect(flickr, "flickr", {})
          table.sort(functions, function(a, b) return a[1] < b[1] end)
          local pretty, complete = require("flickr.pretty"), require("flickr.complete")
          functions[#functions + 1] = { "pretty.format", pretty.format }
          functions[#functions + 1] = { "complete.candidates", complete.candidates }
          FUZZ_FUNCTIONS = functions
        end
        functions = FUZZ_FUNCTIONS
        for _ = 1, 1 + byte() % 3 do
          local f = functions[(byte() * 256 + byte()) % #functions + 1]
          local args = { n = byte() % 4 }
          for i = 1, args.n do args[i] = value(0) end
          pcall(f[2], table.unpack(args, 1, args.n))
          -- An iterator (flickr.walk) is not driven: each step would be a call.
        end
        """#
}
