import FlickrProtocol

extension SandboxState {
    /// The group and topic index of `group_id` + `topic_id`: `1 Topic not found` otherwise.
    func topic(_ call: MethodCall) throws(APIFailure) -> (SandboxGroup, Int) {
        let gi = try groupIndex(call.string("group_id"), missing: APIFailure(.topicNotFound, "Topic not found"))
        let g = community.groups[gi]
        guard let id = call.string("topic_id"), let t = g.topics.firstIndex(where: { $0.id == id }) else {
            throw APIFailure(.topicNotFound, "Topic not found")
        }
        return (g, t)
    }

    /// Group, topic and reply indexes of `reply_id`: `2 Reply not found` otherwise.
    func reply(_ call: MethodCall) throws(APIFailure) -> (Int, Int, Int) {
        let (g, t) = try topic(call)
        let gi = try groupIndex(g.nsid, missing: APIFailure(.topicNotFound, "Topic not found"))
        guard let id = call.string("reply_id"), let r = g.topics[t].replies.firstIndex(where: { $0.id == id }) else {
            throw APIFailure(.replyNotFound, "Reply not found")
        }
        return (gi, t, r)
    }
}
