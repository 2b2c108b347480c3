import FlickrJobs
import LuaKit

/// `--lua FILE` rules: the file's chunk returns a function, kept by reference (a `LuaRef`) and
/// called once per photo on the session's Lua thread. One way to load one for every kind of job.
extension FlickrLuaSession {
    /// Runs FILE's chunk and keeps the function it returns. An error in the file, or a chunk
    /// returning anything else, is a ``JobError`` naming the file: `--lua FILE: the file returns
    /// a number; it must return function(photo) … end` (`form` is what it must return).
    package func loadRule(file: String, form: String) async throws -> LuaRef {
        try await runtime.perform { state -> LuaRef in
            let top = state.top
            defer { state.setTop(top) }
            do {
                try state.loadFile(file)
                try state.pcall(arguments: 0, results: 1)
            } catch let e as LuaError {
                throw JobError("--lua \(file): \(e.message)")
            }
            guard state.type(at: -1) == .function else {
                throw JobError("--lua \(file): the file returns a \(state.typeName(at: -1)); it must return \(form)")
            }
            return LuaRef(popping: state)
        }
    }

    /// `flickr retag plan --lua FILE`: the file returns `function(photo, tags) return new_tags end`;
    /// it runs in this session's Lua for each photo, after the other rules. `photo` is `{ id,
    /// owner, lastupdate, tags = { {id, author, raw}, … } }`, `tags` the owner's raw tags so far;
    /// it returns the owner's new raw tags. An error it raises, or an answer that is not a list
    /// of tags, is a ``JobError`` naming the file and the photo, and stops the plan.
    package func retagRule(file: String) async throws -> @Sendable (PhotoTags, [String]) async throws -> [String] {
        let rule = try await loadRule(file: file, form: "function(photo, tags) … end")
        let runtime = self.runtime
        return { photo, tags in
            let tagValues = photo.tags.map { t -> LuaValue in
                .map(["id": .string(LuaString(t.id)), "author": .string(LuaString(t.author)), "raw": .string(LuaString(t.raw))])
            }
            let arguments: [LuaValue] = [
                .map(["id": .string(LuaString(photo.photoID)), "owner": .string(LuaString(photo.owner)),
                      "lastupdate": .integer(Int64(photo.lastUpdate)), "tags": .array(tagValues)]),
                .array(tags.map { .string(LuaString($0)) }),
            ]
            let photoID = photo.photoID
            return try await runtime.perform { state -> [String] in
                let top = state.top
                defer { state.setTop(top) }
                rule.push(onto: state)
                try state.push(arguments)
                do {
                    try state.pcall(arguments: Int32(arguments.count), results: 1)
                } catch let e as LuaError {
                    throw JobError("--lua \(file): photo \(photoID): \(e.message)")
                }
                let out = try state.value(at: -1)
                // An empty table is an empty list.
                guard let list = out.arrayValue ?? ({ if case .map(let m) = out, m.isEmpty { return [] } else { return nil } }()),
                      list.allSatisfy({ $0.stringValue != nil }) else {
                    throw JobError("--lua \(file): for photo \(photoID) the function returned something other than a list of tags")
                }
                return list.compactMap(\.stringValue)
            }
        }
    }
}
