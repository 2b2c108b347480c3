import CFlickrLuaSources
import FlickrAPI
import FlickrProtocol

/// What editors and linters know of the `flickr` module, computed from the catalog compiled into
/// the binary (so it cannot drift from the module the binary has):
///
/// - ``luaLS(catalog:)``: a LuaCATS annotation file (`flickr.lua`, `---@meta flickr`) for the
///   Lua language server (LuaLS): every catalog method with a class of its arguments (required
///   ones without `?`, Flickr's descriptions as docs) and of its answer (the shape of Flickr's
///   documented example), the helpers, `flickr.Error` and its kinds, the `sandbox` global.
/// - ``luacheckrc(catalog:)``: a complete `.luacheckrc` defining the global `flickr` (every
///   namespace, method and helper as nested `fields`), so that `luacheck` flags
///   `flickr.photos.serach` as an undefined field.
///
/// The hand-written part (the types every declaration uses, the helpers, `sandbox`) is the
/// template lua/editor/definitions.lua, compiled in; the rest comes from the catalog.
///
/// `flickr editor luals|luacheck` prints them; `scripts/install` writes them under
/// `PREFIX/share/flickr/` (CLI.md, README's "Editor and lint").
public enum LuaDefinitions {
    /// One helper of the module (a field that is not a catalog method or namespace): its dotted
    /// path under `flickr` and its LuaCATS declaration (annotations, then the declaration line).
    public struct Helper: Sendable {
        public let path: String
        /// Empty for one declared with the types (`flickr.Error`).
        public let annotation: String
        /// A table whose fields luacheck should not check (`flickr.Error`).
        public let openTable: Bool

        init(_ path: String, open: Bool = false, _ annotation: String) {
            self.path = path
            self.annotation = annotation
            openTable = open
        }
    }

    /// The kinds a `flickr.Error` carries: the client's, and `lua` (a plain error raised inside
    /// `flickr.map` / `flickr.parallel`).
    public static var errorKinds: [String] { FlickrError.Kind.allCases.map(\.rawValue) + ["lua"] }

    // MARK: - LuaLS

    /// The LuaCATS annotation file for LuaLS.
    public static func luaLS(catalog: MethodCatalog = .shared) -> String {
        var out: [String] = []
        out.append("""
            ---@meta flickr
            -- LuaLS (LuaCATS) definitions of the `flickr` module of SwiftFlickr's `flickr` command:
            -- \(catalog.methods.count) Flickr methods, each with a class of its arguments (required ones without `?`,
            -- Flickr's descriptions as docs) and of its answer (the shape of Flickr's documented example),
            -- the helpers, and flickr.Error. Generated from the catalog compiled into `flickr`; print it
            -- again with `flickr editor luals`. Installed as PREFIX/share/flickr/flickr.lua: add that folder to
            -- "workspace.library" in your .luarc.json. Annotations only: this file defines nothing at run time.
            --
            -- Argument types say what the module converts (LUA-API.md, "Argument values"): any argument
            -- may be a string; ids and numbers may be Lua numbers, flags booleans (sent as 1 or 0), and
            -- comma-separated lists arrays. Answers are the default XML form mapped to tables: attributes
            -- and element texts (`_text`) are strings, repeated elements arrays (1-based).

            """)
        out.append(prelude)
        // The namespaces, outermost first, so that every table exists before its fields.
        let namespaces = Self.namespaces(catalog)
        for namespace in namespaces {
            let methods = catalog.methods.filter { MethodCatalog.group(of: $0.name) == namespace }
            let count = methods.isEmpty ? "" : " (\(methods.count) method\(methods.count == 1 ? "" : "s"))"
            out.append("---Flickr's `flickr.\(namespace)` methods\(count): `flickr.methods(\"flickr.\(namespace)\")` lists them.")
            // A class, so that an editor reports a name it does not have (`flickr.photos.serach`).
            out.append("---@class flickr.\(namespace)")
            out.append("flickr.\(namespace) = {}\n")
        }
        for method in catalog.methods.sorted(by: { $0.name < $1.name }) {
            out.append(declaration(of: method, catalog: catalog))
        }
        out.append("-- Helpers " + String(repeating: "-", count: 88) + "\n")
        for helper in helpers where !helper.annotation.isEmpty { out.append(helper.annotation + "\n") }
        out.append(sandboxGlobal)
        out.append("return flickr\n")
        return out.joined(separator: "\n")
    }

    /// Every namespace path below `flickr` (`photos`, `photos.comments`), outermost first.
    public static func namespaces(_ catalog: MethodCatalog = .shared) -> [String] {
        var set: Set<String> = []
        for method in catalog.methods {
            let parts = MethodCatalog.group(of: method.name).split(separator: ".")
            for i in parts.indices { set.insert(parts[...i].joined(separator: ".")) }
        }
        return set.sorted { ($0.split(separator: ".").count, $0) < ($1.split(separator: ".").count, $1) }
    }

    /// The path of a method below `flickr` (`photos.search`).
    static func path(of method: FlickrMethod) -> String {
        method.name.hasPrefix("flickr.") ? String(method.name.dropFirst("flickr.".count)) : method.name
    }

    /// A method's argument class, answer class and declaration.
    static func declaration(of method: FlickrMethod, catalog: MethodCatalog) -> String {
        let path = path(of: method)
        var lines: [String] = []
        // The arguments.
        lines.append("---Arguments of `\(method.name)`.")
        lines.append("---@class (exact) \(method.name).Args")
        for argument in method.arguments where isIdentifier(argument.name) {
            let text = markdown(argument.description)
            lines.append("---@field \(argument.name)\(argument.optional ? "?" : "") \(argumentType(argument.name))"
                         + (text.isEmpty ? "" : " " + text))
        }
        lines.append("")
        // The answer.
        let answer = answerFields(method, catalog: catalog)
        lines.append("---The answer of `\(method.name)`" + (answer.isEmpty ? "." : ", shaped as Flickr's documented example."))
        lines.append("---@class \(method.name).Answer: flickr.Response")
        lines += answer
        lines.append("")
        // The method.
        for paragraph in [method.description, method.explanation] {
            let text = markdown(paragraph)
            guard !text.isEmpty else { continue }
            if lines.last?.hasPrefix("---") == true && lines.last?.hasPrefix("---@") == false { lines.append("---") }
            lines += comment(text)
        }
        lines.append("---")
        let perms = method.perms == .none ? "no permission" : "`\(method.perms.rawValue)` permission"
        lines.append("---\(method.verb), needs \(perms)\(method.needsLogin ? " (a login)" : ""). "
                     + "[Flickr's page](https://www.flickr.com/services/api/\(method.name).html)")
        if !method.errors.isEmpty {
            lines.append("---")
            var errors = method.errors.map { "\($0.code) \(markdown($0.message))" }.joined(separator: "; ")
            while errors.hasSuffix(".") { errors.removeLast() }
            lines.append("---Errors (`err.kind == \"api\"`, `err.code`): " + errors + ".")
        }
        let required = method.requiredArguments
        lines.append("---@param args\(required.isEmpty ? "?" : "") \(method.name).Args"
                     + (required.isEmpty ? "" : " required: " + required.joined(separator: ", ")))
        lines.append("---@return \(method.name).Answer")
        lines.append("function flickr.\(path)(args) end")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `---@field` lines of a method's answer class: the elements of Flickr's documented
    /// example, mapped as the module maps them, as LuaCATS table types.
    static func answerFields(_ method: FlickrMethod, catalog: MethodCatalog) -> [String] {
        guard let example = catalog.example(for: method.name) else {
            return photoListMethods.contains(method.name) ? ["---@field photos flickr.PhotoList"] : []
        }
        let wrapped = example.contains("<rsp") ? example : "<rsp stat=\"ok\">\n" + example + "\n</rsp>"
        guard let tree = try? FlickrXML.parse(wrapped), case .map(let root) = tree else { return [] }
        var lines: [String] = []
        for (key, value) in root where key != "stat" && isIdentifier(key) {
            lines.append("---@field \(key) \(luaType(of: value, depth: 0))")
        }
        return lines
    }

    /// A mapped node as a LuaCATS type: strings, `{ key: type, … }` tables, `type[]` arrays.
    static func luaType(of node: FlickrNode, depth: Int) -> String {
        switch node {
        case .string:
            return "string"
        case .list(let items):
            let element = items.isEmpty ? "table" : luaType(of: merged(items), depth: depth + 1)
            return element.hasPrefix("{") || element == "string" || element == "table" ? element + "[]" : "(" + element + ")[]"
        case .map(let map):
            let fields = map.filter { isIdentifier($0.key) }
            guard depth < 8, !fields.isEmpty else { return "table" }
            return "{ " + fields.map { "\($0.key): \(luaType(of: $0.value, depth: depth + 1))" }.joined(separator: ", ") + " }"
        }
    }

    /// The items of an array as one: the fields of all of them (the first one's type of each).
    static func merged(_ items: [FlickrNode]) -> FlickrNode {
        var keys: [String] = [], values: [FlickrNode] = []
        var allMaps = true
        for item in items {
            guard case .map(let map) = item else {
                allMaps = false
                break
            }
            for (key, value) in map where !keys.contains(key) {
                keys.append(key)
                values.append(value)
            }
        }
        return allMaps ? .map(FlickrMap(keys: keys, values: values)) : items[0]
    }

    /// Methods Flickr documents as answering "the standard photo list" (no example of their own).
    static let photoListMethods: Set<String> = [
        "flickr.photos.search", "flickr.photos.getRecent", "flickr.photos.getPopular", "flickr.photos.getNotInSet",
        "flickr.photos.getUntagged", "flickr.photos.getWithGeoData", "flickr.photos.getWithoutGeoData",
        "flickr.people.getPhotos", "flickr.people.getPublicPhotos", "flickr.interestingness.getList",
        "flickr.favorites.getList", "flickr.favorites.getPublicList", "flickr.contacts.getListRecentlyUploaded",
        "flickr.photos.geo.photosForLocation", "flickr.photos.comments.getRecentForContacts", "flickr.tags.getClusterPhotos",
    ]

    /// The type of an argument, by its name (see the file's header): lists, ids, numbers, flags,
    /// else text.
    public static func argumentType(_ name: String) -> String {
        let lists: Set<String> = ["tags", "machine_tags", "extras", "primary_photo_extras", "photo_ids", "photoset_ids",
                                  "place_ids", "woe_ids", "nsids", "tickets", "content_types", "video_content_types",
                                  "membertypes", "cover_photos", "license"]
        let numbers: Set<String> = ["page", "per_page", "count", "accuracy", "lat", "lon", "radius", "degrees", "num_days",
                                    "limit", "threshold", "date_taken_granularity", "note_x", "note_y", "note_w", "note_h",
                                    "person_x", "person_y", "person_w", "person_h", "lease_seconds", "short_limit",
                                    "safety_level", "safe_search", "content_type", "privacy_filter",
                                    "perm_addmeta", "perm_comment", "geo_context", "place_type_id", "added_since",
                                    "date", "date_posted", "date_taken", "date_lastcomment", "date_lastupload", "date_until",
                                    "min_date", "taken_dates"]
        let flags: Set<String> = ["hidden", "has_geo", "in_gallery", "just_friends", "include_self", "get_gallery_info",
                                  "get_user_info", "single_photo", "full_response", "full_result", "verify", "find_email",
                                  "delete_photos", "sort_groups", "accept_rules"]
        if lists.contains(name) { return "flickr.List" }
        if name.hasPrefix("is_") || flags.contains(name) { return "flickr.Flag" }
        if name == "id" || name.hasSuffix("_id") { return "flickr.Id" }
        if numbers.contains(name) || name.hasPrefix("min_") || name.hasPrefix("max_") { return "flickr.Number" }
        return "string"
    }

    /// The types every declaration uses, the module table, the answer and the error: the
    /// template's `prelude`, with the kinds a `flickr.Error` carries.
    static var prelude: String {
        let kinds = errorKinds.map { "\"\($0)\"" }.joined(separator: "|")
        return template.section("prelude").replacingOccurrences(of: "{{error_kinds}}", with: kinds)
    }

    /// The helpers of the module, in the order of LUA-API.md: the template's `helper` sections.
    public static let helpers: [Helper] = template.sections.compactMap { section in
        guard section.name == "helper", let path = section.arguments.first else { return nil }
        // The annotation without its last newline: the file puts one after each helper.
        let annotation = section.text.hasSuffix("\n") ? String(section.text.dropLast()) : section.text
        return Helper(path, open: section.arguments.dropFirst().contains("open"), annotation)
    }

    /// `sandbox` under `flickr --sandbox`: the template's `sandbox`.
    static var sandboxGlobal: String { template.section("sandbox") }

    /// lua/editor/definitions.lua, compiled in (CFlickrLuaSources).
    static let template: DefinitionsTemplate = {
        var length = 0
        let bytes = flickr_lua_definitions_template(&length)
        return DefinitionsTemplate(String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self))
    }()

    // MARK: - luacheck

    /// A complete `.luacheckrc`: Lua 5.4's standard globals and the `flickr` global (read-only,
    /// every namespace, method and helper as nested fields), `sandbox` too.
    public static func luacheckrc(catalog: MethodCatalog = .shared) -> String {
        // A tree of fields: namespaces and helper tables have children.
        final class Node {
            var children: [String: Node] = [:]
            var open = false
            func child(_ path: [Substring]) -> Node {
                guard let first = path.first else { return self }
                let next = children[String(first)] ?? Node()
                children[String(first)] = next
                return next.child(Array(path.dropFirst()))
            }
        }
        let root = Node()
        for method in catalog.methods { _ = root.child(path(of: method).split(separator: ".")) }
        for helper in helpers {
            let node = root.child(helper.path.split(separator: "."))
            if helper.openTable { node.open = true }
        }
        func render(_ node: Node, indent: String) -> String {
            if node.children.isEmpty { return node.open ? "{ other_fields = true }" : "{}" }
            var lines = ["{ fields = {"]
            for key in node.children.keys.sorted() {
                lines.append(indent + "  " + luaKey(key) + " = " + render(node.children[key]!, indent: indent + "  ") + ",")
            }
            lines.append(indent + "} }")
            return lines.joined(separator: "\n")
        }
        return """
            -- luacheck configuration for scripts run by SwiftFlickr's `flickr` command (or that
            -- `require "flickr"`): copy it into your project as .luacheckrc. It defines the global
            -- `flickr` — \(catalog.methods.count) Flickr methods in their namespaces and the module's helpers — so that
            -- luacheck reports a misspelt method (`flickr.photos.serach`: accessing undefined field) before
            -- it runs. Generated from the catalog compiled into `flickr`; print it again with
            -- `flickr editor luacheck` (installed as PREFIX/share/flickr/luacheckrc).
            --
            -- luacheck checks the fields of globals: write `flickr.photos.search{…}` with the global (as
            -- scripts run by `flickr` may); a local made by `local flickr = require "flickr"` is not checked.
            -- The module finds a name written in another case (`flickr.photos.getinfo`); luacheck does not.
            std = "lua54"
            read_globals = {
              flickr = \(render(root, indent: "  ")),
              -- Under `flickr --sandbox` only: the in-process emulator's controls.
              sandbox = { fields = {
                url = {}, credentials = { other_fields = true }, faults = {}, latency = {}, rate_limit = {},
                budget = {}, requests = {}, issue_token = {}, approve = {},
              } },
            }

            """
    }

    // MARK: - Text

    static let luaKeywords: Set<String> = ["and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
                                           "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"]

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return !luaKeywords.contains(s) && s.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    static func luaKey(_ s: String) -> String {
        isIdentifier(s) ? s : "[\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"]"
    }

    /// Flickr's HTML as one line of Markdown: tags dropped, entities decoded, and an element
    /// named in the text (`<photo>`, once decoded) in backquotes, so that a Markdown renderer
    /// shows it instead of taking it for HTML.
    static func markdown(_ html: String) -> String {
        oneLine(FlickrMethod.plainText(html))
            .replacingOccurrences(of: #"<(/?[A-Za-z_][A-Za-z0-9_:.-]*(?: [^<>]*)?/?)>"#, with: "`<$1>`", options: .regularExpression)
    }

    /// Text on one line (no line break can end the comment early).
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `---` comment lines of at most about 100 columns.
    static func comment(_ text: String, width: Int = 100) -> [String] {
        var lines: [String] = []
        var line = "---"
        for word in oneLine(text).split(separator: " ") {
            if line.count + word.count + 1 > width, line.count > 3 {
                lines.append(line)
                line = "---"
            }
            line += (line.count > 3 ? " " : "") + word
        }
        if line.count > 3 { lines.append(line) }
        return lines
    }
}
