extension SandboxEngine {
    /// Methods with real behaviour over the state; every other catalog method answers its
    /// documented example (``exampleAnswer(_:)``).
    static let handlers: [String: MethodHandler] = {
        var all: [String: MethodHandler] = [:]
        for table in [testAndAuthHandlers, reflectionHandlers, peopleHandlers, photoHandlers, tagHandlers,
                      photosetHandlers, favoriteHandlers, photoEditHandlers, photoReadHandlers, geoHandlers, commentHandlers,
                      annotationHandlers, photosetEditHandlers, galleryHandlers, groupHandlers, discussionHandlers,
                      testimonialHandlers, discoveryHandlers] {
            all.merge(table) { a, _ in a }
        }
        return all
    }()
}
