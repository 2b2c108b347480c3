/// The handlers of one catalog namespace (`flickr.photos.*`, `flickr.photosets.*`, …), as a
/// type of its own: it lists its methods and registers them on a ``MethodRouter``.
protocol MethodGroup {
    /// The namespace's methods with real behaviour over the state, by full method name.
    static var methods: [String: MethodHandler] { get }
}

extension MethodGroup {
    /// Adds this group's methods to `router`.
    static func register(on router: inout MethodRouter) {
        for (name, handler) in methods { router.register(name, handler) }
    }
}
