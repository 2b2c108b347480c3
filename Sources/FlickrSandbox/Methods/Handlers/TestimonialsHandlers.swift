import FlickrProtocol

/// `flickr.testimonials.*`: testimonials, written by one member about another and shown once
/// approved.
struct TestimonialsHandlers: MethodGroup {
    static let methods: [String: MethodHandler] = {
        var table: [String: MethodHandler] = [
            "flickr.testimonials.addTestimonial": { store, call in
                let user = try call.requireUser()
                guard let text = call.string("testimonial_text") else { throw APIFailure(.unableToSaveTestimonial, "Unable to save testimonial") }
                let t = try store.update { (s: inout SandboxState) throws(APIFailure) -> SandboxTestimonial in
                    guard let about = s.resolveUser(call.string("user_id") ?? ""), about.nsid != user else {
                        throw APIFailure(.invalidNSIDProvided, "Invalid NSID provided")
                    }
                    guard !s.community.testimonials.contains(where: { $0.by == user && $0.about == about.nsid }) else {
                        throw APIFailure(.testimonialAlreadyWrittenForThisUser, "Testimonial already written for this user")
                    }
                    let t = SandboxTestimonial(id: s.community.newNumber(), by: user, about: about.nsid, body: text,
                                               dateCreate: call.now, dateApproved: 0, approved: false)
                    s.community.testimonials.append(t)
                    return t
                }
                return .nodes([store.read { TestimonialsHandlers.testimonialElement(t, state: $0) }])
            },
            "flickr.testimonials.approveTestimonial": { store, call in
                let user = try call.requireUser()
                try store.update { (s: inout SandboxState) throws(APIFailure) in
                    let i = try s.testimonialIndex(call.string("testimonial_id")) { $0.about == user }
                    guard !s.community.testimonials[i].approved else { throw APIFailure(.testimonialAlreadyApproved, "Testimonial already approved") }
                    s.community.testimonials[i].approved = true
                    s.community.testimonials[i].dateApproved = call.now
                }
                return .empty
            },
            "flickr.testimonials.deleteTestimonial": { store, call in
                let user = try call.requireUser()
                try store.update { (s: inout SandboxState) throws(APIFailure) in
                    let i = try s.testimonialIndex(call.string("testimonial_id")) { $0.about == user || $0.by == user }
                    s.community.testimonials.remove(at: i)
                }
                return .empty
            },
            "flickr.testimonials.editTestimonial": { store, call in
                let user = try call.requireUser()
                guard let text = call.string("testimonial_text") else { throw APIFailure(.unableToSaveTestimonialCode4, "Unable to save testimonial") }
                try store.update { (s: inout SandboxState) throws(APIFailure) in
                    guard let about = s.resolveUser(call.string("user_id") ?? "") else { throw APIFailure(.invalidNSIDProvided, "Invalid NSID provided") }
                    let i = try s.testimonialIndex(call.string("testimonial_id")) { $0.by == user && $0.about == about.nsid }
                    // An edited testimonial waits for approval again, as on Flickr.
                    s.community.testimonials[i].body = text
                    s.community.testimonials[i].approved = false
                    s.community.testimonials[i].dateApproved = 0
                }
                return .empty
            },
        ]
        // Readers: (method, whose testimonials, which states).
        let readers: [(String, Bool, Bool?)] = [
            ("getTestimonialsAbout", true, true), ("getTestimonialsBy", false, true),
            ("getAllTestimonialsAbout", true, nil), ("getAllTestimonialsBy", false, nil),
            ("getPendingTestimonialsAbout", true, false), ("getPendingTestimonialsBy", false, false),
        ]
        for (name, about, approved) in readers {
            table["flickr.testimonials." + name] = { store, call in
                try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                    let subject: String
                    if approved == true, let u = call.string("user_id") {
                        guard let found = s.resolveUser(u) else { throw APIFailure(.invalidNSIDProvided, "Invalid NSID provided") }
                        subject = found.nsid
                    } else {
                        subject = try call.requireUser()
                    }
                    let list = s.community.testimonials.filter {
                        (about ? $0.about : $0.by) == subject && (approved == nil || $0.approved == approved)
                    }
                    return .nodes([XMLNode("testimonials", [("total", .number(list.count))],
                                           children: list.map { TestimonialsHandlers.testimonialElement($0, state: s) }, lists: ["testimonial"])])
                }
            }
        }
        // Written by `user_id` about the caller: approved, pending, all.
        for (name, approved) in [("getTestimonialsAboutBy", true as Bool?), ("getPendingTestimonialsAboutBy", false), ("getAllTestimonialsAboutBy", nil)] {
            table["flickr.testimonials." + name] = { store, call in
                let me = try call.requireUser()
                return try store.read { (s: SandboxState) throws(APIFailure) -> MethodPayload in
                    guard let author = s.resolveUser(call.string("user_id") ?? "") else { throw APIFailure(.invalidNSIDProvided, "Invalid NSID provided") }
                    let list = s.community.testimonials.filter {
                        $0.about == me && $0.by == author.nsid && (approved == nil || $0.approved == approved)
                    }
                    return .nodes([XMLNode("testimonials", [("total", .number(list.count))],
                                           children: list.map { TestimonialsHandlers.testimonialElement($0, state: s) }, lists: ["testimonial"])])
                }
            }
        }
        return table
    }()

    static func testimonialElement(_ t: SandboxTestimonial, state s: SandboxState) -> XMLNode {
        func person(_ name: String, _ nsid: String) -> XMLNode {
            let u = s.user(nsid: nsid)
            return XMLNode(name, [("nsid", .string(nsid)), ("path_alias", .string(u?.pathAlias ?? "")),
                                  ("username", .string(u?.username ?? "")), ("ispro", .number(u?.isPro == true ? 1 : 0)),
                                  ("realname", .string(u?.realname ?? ""))])
        }
        return XMLNode("testimonial", [
            ("id", .string(t.id)), ("date_create", .string(String(t.dateCreate))), ("date_approved", .string(String(t.dateApproved))),
            ("approved", .number(t.approved ? 1 : 0)), ("body", .string(t.body)),
        ], children: [person("by_user", t.by), person("about_user", t.about)])
    }
}
