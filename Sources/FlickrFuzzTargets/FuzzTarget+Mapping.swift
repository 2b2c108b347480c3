import FlickrAPI
import FlickrLua
import FlickrProtocol
import Foundation
import LuaKit

extension FuzzTarget {
    /// Flickr XML through both sinks: the Swift tree and Lua tables straight from the parser.
    /// Property: both accept or refuse the document together, and when they accept, they build
    /// the same thing.
    public static let xml = FuzzTarget(name: "xml") { bytes in
        let rule = MethodCatalog.listRule
        let one = Result { () throws(FlickrParseError) in try FlickrXML.parse(bytes, rule: rule) }
        let copy = Array(bytes)
        let lua = try? FuzzLua.shared.performAndWait { state -> (LuaValue?, LuaValue?) in
            let top = state.top
            defer { state.setTop(top) }
            var fromTree: LuaValue?
            if case .success(let tree) = one {
                try state.push(flickrNode: tree)
                fromTree = try state.value(at: -1)
                state.pop()
            }
            var direct: LuaValue?
            do {
                try copy.withUnsafeBytes { try state.push(flickrXML: $0) }
                direct = try state.value(at: -1)
                state.pop()
            } catch is FlickrError {
                direct = nil
            }
            FuzzCheck.require(state.top == top, "the Lua stack moved")
            return (fromTree, direct)
        }
        if let (fromTree, direct) = lua {
            FuzzCheck.require((fromTree == nil) == (direct == nil), "the tree and the Lua tables disagree on accepting it")
            FuzzCheck.require(fromTree == direct, "the tree and the Lua tables differ")
        }
    }

    /// Flickr JSON: no crash; what parses serialises, and the serialisation parses again.
    public static let json = FuzzTarget(name: "json") { bytes in
        guard let tree = try? FlickrJSON.parse(Data(bytes)) else { return }
        let text = FlickrJSON.serialize(tree)
        FuzzCheck.require((try? FlickrJSON.parse(Data(text.utf8))) != nil, "a serialised tree does not parse again")
    }

    /// Tag strings (`a "b c" d`): whatever is parsed, joined and parsed again is the same list.
    public static let tagString = FuzzTarget(name: "tags") { bytes in
        let tags = TagString.parse(String(decoding: bytes, as: UTF8.self))
        FuzzCheck.require(TagString.parse(TagString.join(tags)) == tags, "join then parse changed \(tags)")
    }

    /// OAuth `Authorization` headers: no crash; a header made from what was parsed parses to it.
    public static let oauthHeader = FuzzTarget(name: "oauth-header") { bytes in
        let header = String(decoding: bytes, as: UTF8.self)
        guard let pairs = OAuthParameters.parseAuthorizationHeader(header) else { return }
        let again = "OAuth " + pairs.map { "\(PercentEncoding.encode($0.0))=\"\(PercentEncoding.encode($0.1))\"" }.joined(separator: ", ")
        let reparsed = OAuthParameters.parseAuthorizationHeader(again)
        FuzzCheck.require(reparsed.map { $0.map { $0.0 + "=" + $0.1 } } == pairs.map { $0.0 + "=" + $0.1 },
                          "a header rebuilt from its parameters parses differently")
    }
}

extension Result where Failure == FlickrParseError {
    init(_ body: () throws(FlickrParseError) -> Success) {
        do { self = .success(try body()) } catch { self = .failure(error) }
    }
}

/// The Lua state the mapping target compares in (one per process, reused across inputs).
enum FuzzLua {
    static let shared: LuaRuntime = {
        guard let runtime = try? LuaRuntime() else { fatalError("cannot start Lua") }
        return runtime
    }()
}
