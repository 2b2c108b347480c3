import FlickrProtocol
import Foundation
import Testing

/// The one JSON value type: decoding, rendering, and the tree on either side of it.
@Suite(.timeLimit(.minutes(5)), .tags(.unit)) struct JSONValueTests {
    @Test func decodesEveryKind() throws {
        let text = #"{"s":"a\/b","n":-12,"d":1.5,"big":1e300,"t":true,"f":false,"z":null,"a":[1,"x",[]],"o":{}}"#
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        // Members come in key order (JSONDecoder does not report the document's).
        #expect(value == .object([("a", .array([.number(1), .string("x"), .array([])])), ("big", .double(1e300)),
                                  ("d", .double(1.5)), ("f", .bool(false)), ("n", .number(-12)), ("o", .object([])),
                                  ("s", .string("a/b")), ("t", .bool(true)), ("z", .null)]))
    }

    @Test func rendersInTheGivenOrder() {
        let value = JSONValue.object([("photo", .object([("id", .string("1")), ("url", .string("https://x/y"))])),
                                      ("code", .number(1)), ("ok", .bool(true)), ("none", .null), ("list", .array([])),
                                      ("stat", .string("ok"))])
        #expect(value.render(escapingSlashes: true)
                == #"{"photo":{"id":"1","url":"https:\/\/x\/y"},"code":1,"ok":true,"none":null,"list":[],"stat":"ok"}"#)
        #expect(value.render(sortedKeys: true)
                == #"{"code":1,"list":[],"none":null,"ok":true,"photo":{"id":"1","url":"https://x/y"},"stat":"ok"}"#)
        #expect(JSONValue.array([.number(1), .object([("a", .string("b"))])]).render(pretty: true)
                == "[\n  1,\n  {\n    \"a\": \"b\"\n  }\n]")
        #expect(JSONValue.quote("\"\\\n\r\t\u{1}é/") == #""\"\\\n\r\t\u0001é/""#)
        #expect(JSONValue.quote("/", escapingSlashes: true) == #""\/""#)
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let value = JSONValue.object([("a", .array([.number(3), .double(0.25), .string("x\"y"), .null, .bool(false)])),
                                      ("b", .object([("c", .string("é"))]))])
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(value.render(pretty: true).utf8)) == value)
    }

    @Test func treesOnEitherSide() {
        #expect(FlickrJSON.node(.object([("n", .number(7)), ("d", .double(2.0)), ("b", .bool(true)), ("z", .null),
                                         ("l", .array([.string("x")]))]))
                == ["n": "7", "d": "2", "b": "1", "z": "", "l": .list(["x"])])
        let tree: FlickrNode = ["b": "1", "a": .list(["x", ["k": "v"]])]
        #expect(FlickrJSON.value(tree) == .object([("b", .string("1")), ("a", .array([.string("x"), .object([("k", .string("v"))])]))]))
        #expect(FlickrJSON.node(FlickrJSON.value(tree)) == tree)
    }
}
