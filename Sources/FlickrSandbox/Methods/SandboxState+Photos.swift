import FlickrProtocol

extension SandboxState {
    /// Whether `caller` (an NSID, nil when not logged in) may see `photo`.
    func canSee(_ photo: SandboxPhoto, caller: String?) -> Bool {
        if photo.isPublic { return true }
        guard let caller else { return false }
        if caller == photo.owner { return true }
        // Every sandbox user counts as everyone's friend and family member.
        return photo.isFriend || photo.isFamily
    }

    /// A photo the caller may see, or error 1 with Flickr's live wording.
    func visiblePhoto(_ id: String?, caller: String?, code: FlickrErrorCode = .photoNotFound, message: String? = nil) throws(APIFailure) -> SandboxPhoto {
        guard let id, let photo = photos[id], canSee(photo, caller: caller) else {
            throw APIFailure(code, message ?? "Photo \"\(id ?? "")\" not found (invalid ID)")
        }
        return photo
    }

    /// A photo the caller owns, or `code`/`message`.
    func ownedPhoto(_ id: String?, caller: String, code: FlickrErrorCode = .photoNotFound, message: String = "Photo not found") throws(APIFailure) -> SandboxPhoto {
        guard let id, let photo = photos[id], photo.owner == caller else { throw APIFailure(code, message) }
        return photo
    }

    /// The page URL base of a user: `BASE/photos/{path_alias|nsid}/`.
    func photosURL(for nsid: String, base: String) -> String {
        let alias = user(nsid: nsid)?.pathAlias
        return "\(base)/photos/\(alias.flatMap { $0.isEmpty ? nil : $0 } ?? nsid)/"
    }

    /// The user a `user_id` argument names (NSID, username or path alias; `me` is the caller);
    /// nil when the argument is absent; `failure` when nobody matches.
    func userArgument(_ value: String?, caller: String?, failure: APIFailure) throws(APIFailure) -> SandboxUser? {
        guard let value, !value.isEmpty else { return nil }
        if value == "me" {
            guard let caller, let me = user(nsid: caller) else { throw failure }
            return me
        }
        guard let found = resolveUser(value) else { throw failure }
        return found
    }
}

/// The `extras` a photo list element can carry.
struct PhotoExtras: Sendable {
    var keys: Set<String>

    init(_ value: String?) {
        keys = Set((value ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty })
    }

    func has(_ key: String) -> Bool { keys.contains(key) }

    /// Adds the requested extras to a `<photo>` element of a list.
    func apply(to node: inout XMLNode, photo: SandboxPhoto, state: SandboxState, base: String, caller: String?) {
        guard !keys.isEmpty else { return }
        let owner = state.user(nsid: photo.owner)
        if has("license") { node.set("license", .string(String(photo.license))) }
        if has("date_upload") { node.set("dateupload", .string(String(photo.datePosted))) }
        if has("date_taken") {
            node.set("datetaken", .string(photo.dateTaken))
            node.set("datetakengranularity", .string(String(photo.takenGranularity)))
            node.set("datetakenunknown", .string("0"))
        }
        if has("owner_name") { node.set("ownername", .string(owner?.username ?? "")) }
        if has("realname") { node.set("realname", .string(owner?.realname ?? "")) }
        if has("icon_server") {
            node.set("iconserver", .string("65535"))
            node.set("iconfarm", .number(66))
        }
        if has("original_format") {
            node.set("originalsecret", .string(photo.originalSecret))
            node.set("originalformat", .string(photo.answeredOriginalFormat))
        }
        if has("last_update") { node.set("lastupdate", .string(String(photo.lastUpdate))) }
        if has("geo") {
            // Flickr sends zeros for a photo without a (visible) location.
            let geo = photo.geo.flatMap { state.canSeeLocation(of: photo, caller: caller) ? $0 : nil }
            node.set("latitude", geo.map { .string(PhotosGeoHandlers.degrees($0.latitude)) } ?? .number(0))
            node.set("longitude", geo.map { .string(PhotosGeoHandlers.degrees($0.longitude)) } ?? .number(0))
            node.set("accuracy", .number(geo?.accuracy ?? 0))
            node.set("context", .number(geo?.context ?? 0))
        }
        if has("tags") {
            node.set("tags", .string(photo.tags.filter { !$0.isMachineTag }.map(\.clean).joined(separator: " ")))
        }
        if has("machine_tags") {
            node.set("machine_tags", .string(photo.tags.filter(\.isMachineTag).map(\.clean).joined(separator: " ")))
        }
        if has("o_dims") {
            node.set("o_width", .string(String(photo.width)))
            node.set("o_height", .string(String(photo.height)))
        }
        if has("views") { node.set("views", .string(String(photo.views))) }
        if has("media") {
            node.set("media", .string(photo.media))
            node.set("media_status", .string("ready"))
        }
        if has("path_alias") { node.set("pathalias", .string(owner?.pathAlias ?? "")) }
        if has("safety_level") { node.set("safety_level", .string(String(photo.safetyLevel))) }
        for size in PhotoSize.ladder where has("url_" + size.extrasKey) {
            guard let dims = size.dimensions(width: photo.width, height: photo.height) else { continue }
            node.set("url_" + size.extrasKey, .string(size.source(for: photo, base: base)))
            node.set("height_" + size.extrasKey, .number(dims.height))
            node.set("width_" + size.extrasKey, .number(dims.width))
        }
        if has("description") { node.children.append(.text("description", photo.description)) }
    }
}
