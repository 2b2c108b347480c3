import FlickrAPI
import LuaKit

/// Registry name of the `flickr.Error` metatable (also `flickr.Error` in Lua).
let errorMetatableName = "flickr.Error"

/// A ``FlickrError`` raised in Lua is a table with metatable `flickr.Error`:
/// `{kind=, code=, message=, method=, status=, oauth_problem=, debug_sbs=, signed_base_string=,
/// retry_after=, duplicate_photo_id=, body=}`; `tostring(err)` gives its `description`.
extension FlickrError: LuaErrorRepresentable {
    public func pushLuaErrorValue(onto state: LuaState) {
        state.newTable(record: 8)
        func set(_ key: String, _ value: String?) {
            guard let value else { return }
            state.push(value)
            state.rawSet(field: key, in: -2)
        }
        set("kind", kind.rawValue)
        if let code {
            state.push(Int64(code))
            state.rawSet(field: "code", in: -2)
        }
        set("message", messageWithAdvice)
        set("method", method)
        if let httpStatus {
            state.push(Int64(httpStatus))
            state.rawSet(field: "status", in: -2)
        }
        set("oauth_problem", oauthProblem)
        set("debug_sbs", debugSBS)
        set("signed_base_string", signedBaseString)
        if let retryAfter {
            state.push(retryAfter)
            state.rawSet(field: "retry_after", in: -2)
        }
        set("duplicate_photo_id", duplicatePhotoID)
        set("body", bodyExcerpt)
        state.pushMetatable(named: errorMetatableName)
        state.setMetatable(of: -2)
    }
}

extension FlickrError {
    /// The error of a call cancelled by an interrupt (Ctrl-C).
    static func interrupted(_ method: String?) -> FlickrError {
        FlickrError(kind: .cancelled, message: "interrupted!", method: method)
    }

    /// Maps what a module function may throw onto the module's error values: argument errors
    /// become `usage`, interrupts `cancelled`; Lua errors (from user callbacks) pass unchanged.
    static func from(_ error: any Error, function: String) -> any Error {
        switch error {
        case let e as FlickrError: return e
        case let e as LuaArgumentError: return FlickrError.usage(e.description, method: function)
        case let e as LuaError where e.kind == .interrupted && e.isLuaValue:
            return e  // the hook's own interrupt, raised inside a callback: it travels on as itself
        case let e as LuaError where e.kind == .interrupted: return interrupted(function)
        case let e as LuaError: return e
        case is CancellationError: return interrupted(function)
        default: return FlickrError.usage(String(describing: error), method: function)
        }
    }
}
