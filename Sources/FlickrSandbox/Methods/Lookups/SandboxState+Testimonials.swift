import FlickrProtocol

extension SandboxState {
    /// The index of testimonial `id` that `allowed` accepts: `2 Testimonial not found` otherwise.
    func testimonialIndex(_ id: String?, _ allowed: (SandboxTestimonial) -> Bool) throws(APIFailure) -> Int {
        guard let id, let i = community.testimonials.firstIndex(where: { $0.id == id && allowed($0) }) else {
            throw APIFailure(.testimonialNotFound, "Testimonial not found")
        }
        return i
    }
}
