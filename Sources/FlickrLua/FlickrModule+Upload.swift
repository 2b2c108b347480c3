import FlickrAPI
import FlickrProtocol
import LuaKit

/// `flickr.upload`, `flickr.replace`, `flickr.check_tickets`, `flickr.wait_tickets`.
extension FlickrModule {
    /// Fields of upload/replace that are options of the helper, not Flickr parameters.
    static let uploadOptions: Set<String> = ["file", "data", "filename", "progress", "async", "mime", "photo_id"]

    func installUpload(_ state: LuaState, _ flickr: Int32) {
        // flickr.upload{ file = "cat.jpg" | data = bytes, filename =, title =, tags = {…},
        //                async = true, progress = function(sent, total) end } → photo id or ticket id
        define(state, flickr, "upload") { call in
            try call.table(1)
            let job = try self.uploadJob(call, service: "upload")
            let fields = Dictionary(try ArgumentConversion.parameters(at: 1, in: call.state, method: "upload",
                                                                      skip: Self.uploadOptions),
                                    uniquingKeysWith: { a, _ in a })
            let client = self.client
            let (source, async, relay) = (job.source, job.async, job.relay)
            let progress = Self.progressCallback(relay) ?? self.defaultUploadProgress
            return self.asyncReturn("flickr.upload", { () async throws -> UploadResult in
                try await client.upload(source, arguments: fields, async: async, progress: progress)
            }, deliver: { (state: LuaState, result: UploadResult) throws -> Int32 in
                try relay?.finish(state)
                return Self.push(result, onto: state)
            })
        }
        // flickr.replace{ file =, photo_id =, async =, progress = } → photo id or ticket id
        define(state, flickr, "replace") { call in
            try call.table(1)
            let fields = try Self.uploadFields(call, service: "replace")
            guard let photoID = try fields.string("photo_id", expected: "a photo id") else {
                throw FlickrError.usage("bad argument 'photo_id': the id of the photo to replace is required", method: "replace")
            }
            let job = try self.uploadJob(call, service: "replace")
            let client = self.client
            let (source, async, relay) = (job.source, job.async, job.relay)
            let progress = Self.progressCallback(relay) ?? self.defaultUploadProgress
            return self.asyncReturn("flickr.replace", { () async throws -> UploadResult in
                try await client.replace(photoID: photoID, with: source, async: async, progress: progress)
            }, deliver: { (state: LuaState, result: UploadResult) throws -> Int32 in
                try relay?.finish(state)
                return Self.push(result, onto: state)
            })
        }
        // flickr.check_tickets{ id, … } → { { id =, status = "pending"|"complete"|"failed"|"invalid", photo_id = }, … }
        define(state, flickr, "check_tickets") { call in
            let ids = try Self.ticketIDs(call)
            let client = self.client
            return self.asyncReturn("flickr.check_tickets", { try await client.checkTickets(ids) },
                                    deliver: { state, tickets in Self.push(tickets, onto: state) })
        }
        // flickr.wait_tickets({ id, … } [, { timeout = 600, interval = 1 }]) polls checkTickets.
        define(state, flickr, "wait_tickets") { call in
            let ids = try Self.ticketIDs(call)
            var timeout = 600.0, interval = 1.0
            if let options = try LuaOptions.read(call, at: 2, function: "flickr.wait_tickets", known: ["timeout", "interval"]) {
                timeout = try options.number("timeout", minimum: 0, expected: "seconds") ?? timeout
                interval = try options.number("interval", minimum: 0, expected: "seconds") ?? interval
            }
            let client = self.client
            let (poll, limit) = (interval, timeout)
            return self.asyncReturn("flickr.wait_tickets", { try await client.waitForTickets(ids, pollInterval: poll, timeout: limit) },
                                    deliver: { state, tickets in Self.push(tickets, onto: state) })
        }
    }

    private static func progressCallback(_ relay: ProgressRelay?) -> UploadProgress? {
        guard let relay else { return nil }
        return { sent, total in relay.report(sent: sent, total: total) }
    }

    private struct UploadJob {
        var source: UploadSource
        var async: Bool
        var relay: ProgressRelay?
    }

    /// The table of upload/replace: the helper's options (``uploadOptions``) among Flickr's
    /// fields, so other keys are not refused here (the catalog checks them as arguments).
    private static func uploadFields(_ call: LuaCall, service: String) throws -> LuaOptions {
        try LuaOptions(state: call.state, index: 1, function: service, known: nil, noun: "argument")
    }

    /// Reads file/data/filename/mime/async/progress from the table at 1.
    private func uploadJob(_ call: LuaCall, service: String) throws -> UploadJob {
        let fields = try Self.uploadFields(call, service: service)
        let mime = try fields.string("mime", expected: "a MIME type")
        let source: UploadSource
        switch (try fields.string("file", expected: "a file path"), try fields.bytes("data", expected: "bytes (a string)")) {
        case (let path?, nil):
            source = .file(path, mimeType: mime)
        case (nil, let data?):
            source = .bytes(data, filename: try fields.string("filename") ?? "upload.bin", mimeType: mime)
        case (nil, nil):
            throw FlickrError.usage("bad argument 'file': a file path (or data = bytes) is required", method: service)
        case (_?, _?):
            throw FlickrError.usage("bad argument 'file': give either file = path or data = bytes (strings)", method: service)
        }
        let async = try fields.boolean("async") ?? false
        let relay = try fields.function("progress", expected: "a function(sent, total)").map {
            ProgressRelay(poster: call.state.jobPoster, callback: $0)
        }
        return UploadJob(source: source, async: async, relay: relay)
    }

    private static func push(_ result: UploadResult, onto state: LuaState) -> Int32 {
        if let id = result.photoID ?? result.ticketID { state.push(id) } else { state.pushNil() }
        return 1
    }

    private static func ticketIDs(_ call: LuaCall) throws -> [String] {
        switch call.type(1) {
        case .string, .number: return [try call.string(1)]
        case .table:
            let n = call.state.rawLength(at: 1)
            var ids: [String] = []
            var i: Int64 = 1
            while i <= n {
                call.state.rawGet(index: i, in: 1)
                guard let id = ResponseMapping.node(at: -1, in: call.state)?.string else {
                    throw call.argumentError(1, "ticket ids must be strings")
                }
                call.state.pop()
                ids.append(id)
                i += 1
            }
            return ids
        default: throw call.typeError(1, expected: "ticket id or array of ticket ids")
        }
    }

    private static func push(_ tickets: [UploadTicket], onto state: LuaState) -> Int32 {
        state.newTable(array: Int32(tickets.count))
        for (i, t) in tickets.enumerated() {
            state.newTable(record: 3)
            state.push(t.id)
            state.rawSet(field: "id", in: -2)
            let status: String
            switch t.status {
            case .pending: status = "pending"
            case .complete: status = "complete"
            case .failed: status = "failed"
            case .invalid: status = "invalid"
            }
            state.push(status)
            state.rawSet(field: "status", in: -2)
            if let p = t.photoID {
                state.push(p)
                state.rawSet(field: "photo_id", in: -2)
            }
            state.rawSet(index: Int64(i + 1), in: -2)
        }
        return 1
    }
}
