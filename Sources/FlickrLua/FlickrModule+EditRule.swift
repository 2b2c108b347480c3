import FlickrAPI
import FlickrJobs
import FlickrLibrary
import FlickrProtocol
import Foundation
import LuaKit
import Synchronization

/// The `rule` of `flickr.edit.plan{ rule = … }` (and `flickr edit plan --lua FILE`): called on the
/// Lua thread once per photo while the planner waits.
extension FlickrModule {
    /// Calls the rule on the Lua thread with the photo's table and turns its answer into the
    /// groups it changes: `base` (the `changes`) with the rule's answer over it.
    static func runRule(_ rule: LuaRef, poster: LuaJobPoster, pre: PhotoMetadata, fields: [String: String], base: EditRequest,
                        lists: EditLists, function: String) async throws -> [EditValue]? {
        let photo = photoValue(pre, fields: fields)
        let answer = await poster.run { state -> Result<EditRequest?, any Error> in
            let top = state.top
            defer { state.setTop(top) }
            do {
                guard state.ensureStack(4) else { throw FlickrError.usage("stack overflow", method: function) }
                rule.push(onto: state)
                try state.push(photo)
                try state.pcall(arguments: 1, results: 1)
                switch state.type(at: -1) {
                case .nil: return .success(nil)
                case .table:
                    try checkKeys(state, state.top, known: editChangeKeys.union(editRuleOnlyKeys), noun: "change", function: function + " (rule)")
                    return .success(try readChanges(LuaOptions(state: state, index: state.top, function: function + " (rule)", known: nil, noun: "change"), rule: true))
                default:
                    throw FlickrError.usage("the rule returned a \(state.typeName(at: -1)); it returns a table of changes, or nil to leave the photo as it is",
                                            method: function + " (rule)")
                }
            } catch let e as FlickrError {
                var e = e
                e.message = "photo \(pre.photoID): " + e.message
                return .failure(e)
            } catch {
                return .failure(error)
            }
        }
        guard let answer else { throw FlickrError.interrupted(function) }
        guard let asked = try answer.get() else { return nil }
        // The rule over the changes: its fields replace theirs, its set and tag rules follow theirs.
        var merged = base
        let r = asked.spec
        if let t = r.title { merged.spec.title = t }
        if let d = r.description { merged.spec.description = d }
        if let p = r.privacy { merged.spec.privacy = p }
        if let l = asked.license { merged.license = l }
        if let s = r.safety { merged.spec.safety = s }
        if let c = r.contentType { merged.spec.contentType = c }
        if r.shiftTaken != nil || r.setTaken != nil {
            (merged.spec.shiftTaken, merged.spec.setTaken, merged.spec.setTakenGranularity) = (r.shiftTaken, r.setTaken, r.setTakenGranularity)
        }
        if r.geo != nil || r.clearGeo { (merged.spec.geo, merged.spec.clearGeo) = (r.geo, r.clearGeo) }
        merged.addSets = merged.addSets.filter { !asked.removeSets.contains($0) } + asked.addSets
        merged.removeSets = merged.removeSets.filter { !asked.addSets.contains($0) } + asked.removeSets
        merged.createSet = merged.createSet || asked.createSet
        merged.spec.tagRules += r.tagRules
        // What Flickr would refuse (a licence or set it does not have, a date before 1900…) refuses
        // this photo only: the planner records it, with the reason, and never sends it.
        let spec = try await lists.resolve(merged, function: function + " (rule)", refusing: true)
        var targets = try spec.targets(for: pre, fields: fields).get()
        if let tags = asked.tags {
            // The whole list of its ordinary tags (the photo table's `tags`): its machine tags stay
            // unless the list names them; the rule's own tag rules then apply to it.
            let named = Set(tags.map(TagString.clean))
            let machine = pre.ownerTags.filter { TagString.isMachineTag($0) && !named.contains(TagString.clean($0)) }
            let list = RetagRule.apply(r.tagRules, to: tags + machine)
            targets.removeAll { $0.field == .tags }
            if !pre.value(.tags).matches(.tags(list)) { targets.append(.tags(list)) }
        }
        // A group the changes set and the rule puts back as it was: the pre-image, so nothing is written.
        let baseSpec = try? await lists.resolve(base, function: function)
        let baseFields = (try? baseSpec?.targets(for: pre, fields: fields).get())?.map(\.field) ?? []
        for field in baseFields where !targets.contains(where: { $0.field == field }) { targets.append(pre.value(field)) }
        return targets
    }

    /// The table a rule is called with: the template fields (`flickr.library`'s forms) with the
    /// tags, machine tags and sets as lists, and what else the pre-image knows.
    static func photoValue(_ m: PhotoMetadata, fields: [String: String]) -> LuaValue {
        var t: [LuaValue: LuaValue] = [:]
        for (key, value) in fields {
            switch key {
            case "tags", "machine_tags": continue
            case "ispublic", "isfriend", "isfamily", "accuracy", "views", "date_upload", "last_update":
                t[.string(LuaString(key))] = Int64(value).map { .integer($0) } ?? .string(LuaString(value))
            case "latitude", "longitude":
                t[.string(LuaString(key))] = Double(value).map { .number($0) } ?? .string(LuaString(value))
            default:
                t[.string(LuaString(key))] = .string(LuaString(value))
            }
        }
        let own = m.ownerTags
        t["tags"] = .array(own.filter { !TagString.isMachineTag($0) }.map { .string(LuaString($0)) })
        t["machine_tags"] = .array(own.filter(TagString.isMachineTag).map { .string(LuaString($0)) })
        t["sets"] = .array((m.sets ?? []).sorted().map { .string(LuaString($0)) })
        t["date_taken_granularity"] = .integer(Int64(m.takenGranularity))
        t["privacy"] = .string(LuaString(m.privacy.description))
        t["safety"] = .string(LuaString(EditValue.safety(m.safety).description))
        if let c = m.contentType { t["content_type"] = .string(LuaString(EditValue.contentType(c).description)) }
        return .map(t)
    }
}

/// `flickr edit plan --lua FILE`: the rule of `flickr.edit.plan{ rule = … }` from a file, run in
/// the command's Lua by the same runner.
extension FlickrLuaSession {
    /// A `--lua` rule ready for ``EditPlanner/plan(_:query:find:rules:custom:)``.
    package struct EditRule: Sendable {
        package let custom: EditPlanner.Custom
        /// The licences and sets read for the options and the rule's answers, to name them in the diff.
        package let names: @Sendable () async -> EditReport.Names
    }

    /// Loads FILE (a chunk returning `function(photo) return { title = …, … } end`) in this
    /// session's Lua and returns the rule that calls it once per photo, on the Lua thread, with
    /// the photo's table: `nil` leaves the photo as the options do; a table is read and checked
    /// as a `flickr.edit.plan` rule's answer is, over the options (`changes`: the options as
    /// given, licence and set names unresolved; `licenses` and `sets` the lists the command has
    /// read already, if any). What Flickr would refuse for a photo refuses that photo
    /// (``EditRefusal``); an error in the file, or an answer of the wrong form, is a
    /// ``JobError`` naming the file and the photo, and stops the plan.
    package func editRule(file: String, changes: EditSpec, license: String?, addSets: [String], removeSets: [String], createSet: Bool,
                          licenses: [(id: Int, name: String)]?, sets: [(id: String, title: String, size: Int)]?) async throws -> EditRule {
        let function = "--lua \(file)"
        let rule = try await loadRule(file: file, form: "function(photo) … end")
        let poster = try await runtime.perform { $0.jobPoster }
        var base = ChangeRequest(source: .lua)
        (base.spec, base.license, base.addSets, base.removeSets, base.createSet) = (changes, license, addSets, removeSets, createSet)
        let lists = FlickrModule.EditLists(client: client, licenses: licenses, sets: sets)
        let chosen = base
        let custom: EditPlanner.Custom = { pre, fields in
            do {
                return try await FlickrModule.runRule(rule, poster: poster, pre: pre, fields: fields, base: chosen, lists: lists, function: function)
            } catch let refusal as EditRefusal {
                throw refusal
            } catch let e as LuaError {
                throw JobError("\(function): photo \(pre.photoID): \(e.message)")
            } catch let e as FlickrError where e.kind == .usage {
                throw JobError(e.message.hasPrefix("photo ") ? "\(function): \(e.message)" : "\(function): photo \(pre.photoID): \(e.message)")
            }
        }
        return EditRule(custom: custom, names: { await lists.names })
    }
}

extension LuaValue {
    /// The Lua type name of the value (`table`, `string`, …) for messages.
    var typeName: String {
        switch self {
        case .nil: "nil"
        case .boolean: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array, .map: "table"
        }
    }
}
