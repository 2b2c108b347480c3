import NIOCore

/// Counts the connections the server accepts (one instance per connection, added to each
/// connection's pipeline): tests see with it that clients really met closed connections.
final class ConnectionCounter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let controls: SandboxControls

    init(controls: SandboxControls) { self.controls = controls }

    func handlerAdded(context: ChannelHandlerContext) { controls.connectionOpened() }
}
