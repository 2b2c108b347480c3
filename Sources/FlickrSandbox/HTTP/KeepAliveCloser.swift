import NIOCore
import NIOHTTPTypes

/// `--close-idle MS`: closes a keep-alive connection that has waited this long for its next
/// request after an answer, without a `Connection: close` beforehand (one instance per
/// connection, added to its pipeline after HTTP decoding).
///
/// The clock starts when an answer has been written, never when a connection is accepted: like
/// a web server's keep-alive timeout (nginx's `keepalive_timeout`), it ends the wait *between*
/// requests, while a new connection's first request has the server's ordinary, long header
/// timeout. So a client meets connections closed under a request it sends on a pooled
/// connection, and never a fresh connection closed before its first request could arrive (which
/// on a loaded machine would be most of them, at a few milliseconds).
final class KeepAliveCloser: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let idle: TimeAmount
    /// Requests whose head has been read and whose answer has not been written in full.
    private var open = 0
    /// The close scheduled after the last answer, until the next request's head cancels it.
    private var close: Scheduled<Void>?

    init(idle: TimeAmount) { self.idle = idle }

    /// A request's head stops the clock: the connection is in use again.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            open += 1
            cancelClose()
        }
        context.fireChannelRead(data)
    }

    /// The end of the last open request's answer starts the clock.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            open = max(0, open - 1)
            if open == 0 { schedule(context) }
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelClose()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { cancelClose() }

    /// Drops the scheduled close, if any.
    private func cancelClose() {
        close?.cancel()
        close = nil
    }

    /// Schedules the unannounced close on the connection's own loop (where every method of this
    /// handler runs, so `close` needs no lock).
    private func schedule(_ context: ChannelHandlerContext) {
        cancelClose()
        let channel = context.channel
        close = context.eventLoop.scheduleTask(in: idle) { channel.close(promise: nil) }
    }
}
