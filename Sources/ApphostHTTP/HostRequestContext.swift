import Hummingbird
import NIOCore

/// The context of each request: Hummingbird's basic one, with the connection it came on, so that
/// a route that streams can tell when its client goes (``ClientDeparture``).
struct HostRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
