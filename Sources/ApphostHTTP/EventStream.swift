import ApphostControl
import ApphostCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `GET /v1/events`: the host's event stream as Server-Sent Events (CONTRACT O1). Each event goes
/// with an id, `<epoch>.<position>`; a client that reconnects sends the last it saw as
/// `Last-Event-ID` (as EventSource does by itself) or `?after=`, and gets first what the host
/// still holds after it. The epoch is this server's start, so that an id from an earlier run of
/// the host is not taken for a position of this one.
///
/// What a follower costs is bounded (``HTTPLimits``): so many at once, each with so many events
/// not yet written to it. One that falls that far behind is told so and
/// dropped, so a slow client never makes the host queue wait or the host buffer without end; it
/// may reconnect and resume.
final class EventStream: Sendable {
    let responder: any ControlResponder
    let epoch: String
    let limits: HTTPLimits
    /// Told how many follow after each change, and of each follower dropped.
    let metrics: HTTPMetricsSink

    private struct Followers: ~Copyable {
        var streams: [Int: FollowerBacklog] = [:]
        var nextID = 0
        var closed = false
    }

    private let followers = Mutex(Followers())

    init(
        responder: any ControlResponder, epoch: String, limits: HTTPLimits, metrics: HTTPMetricsSink = HTTPMetricsSink()
    ) {
        self.metrics = metrics
        self.responder = responder
        self.epoch = epoch
        self.limits = limits
    }

    func add(to router: Router<HostRequestContext>) {
        router.get("/v1/events") { request, context in self.follow(request, on: context.channel) }
        // The verb's path, taken before /v1/:verb: it is no command with one reply.
        router.post("/v1/events") { _, _ in
            JSONReply.failure("events are a stream: GET /v1/events", status: .badRequest)
        }
    }

    private func follow(_ request: Request, on channel: any Channel) -> Response {
        let position: UInt64?
        do throws(ControlProtocolError) {
            position = try resumePosition(
                lastEventID: request.headers[lastEventID], after: request.uri.queryParameters.get("after"))
        } catch {
            return JSONReply.failure(error.message, status: .badRequest)
        }
        let backlog = FollowerBacklog(limit: limits.followerBacklog)
        guard let id = register(backlog) else {
            return JSONReply.failure(
                "too many event followers (at most \(limits.maximumFollowers)); try again later",
                status: .serviceUnavailable,
                headers: [.retryAfter: "5"])
        }
        let subscription = responder.follow(after: position) { followed in
            // On the host queue (or here, for the replay): never waits.
            backlog.yield(followed)
        }
        channel.pipeline.addHandler(ClientDeparture { backlog.finish() }, position: .first).whenFailure { _ in
            backlog.finish()
        }
        let keepAlive = Task { [keepAliveInterval = limits.keepAliveInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: keepAliveInterval)
                backlog.keepAlive()
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        // nginx buffers a proxied response unless told not to: events would come in lumps.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let overflowNotice =
            "event: dropped\ndata: "
            + ControlReply.failure(
                "events dropped: this follower fell \(limits.followerBacklog) events behind; reconnect to resume",
                code: .unavailable
            ).line + "\n\n"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { [self] writer in
                defer {
                    subscription.cancel()
                    keepAlive.cancel()
                    unregister(id)
                }
                // At once, so that the client knows it is following before the first event.
                try await writer.write(ByteBuffer(string: "retry: 1000\n: following events\n\n"))
                let overflowed = try await backlog.drain(message: message, overflowNotice: overflowNotice) { text in
                    try await writer.write(ByteBuffer(string: text))
                }
                if overflowed { metrics.followerDropped() }
                try await writer.finish(nil)
            })
    }

    private let lastEventID = HTTPFields.Element.Name("Last-Event-ID")!

    /// One event as SSE lines: its id and its JSON line; or the notice of missed events.
    func message(_ followed: FollowedEvent) -> String {
        switch followed {
        case .event(let position, let event):
            return "id: \(epoch).\(position)\ndata: \(event.jsonLine())\n\n"
        case .missed(let count):
            let missed = count.map(String.init) ?? "null"
            return "event: gap\ndata: {\"missed\":\(missed)}\n\n"
        }
    }

    /// The position to resume after: `Last-Event-ID` first, then `?after=`; either an id this
    /// server sent (`<epoch>.<position>`) or, for `after`, a bare position. An id of another run
    /// of the host resumes from the oldest event held, with a gap of unknown size.
    func resumePosition(lastEventID: String?, after: String?) throws(ControlProtocolError) -> UInt64? {
        guard let text = lastEventID ?? after, !text.isEmpty else { return nil }
        if lastEventID == nil, let position = UInt64(text) { return position }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let position = UInt64(parts[1]), !parts[0].isEmpty else {
            throw ControlProtocolError("malformed event id \"\(text)\": expected one this server sent, EPOCH.POSITION")
        }
        return parts[0] == epoch ? position : .max
    }

    private func register(_ backlog: FollowerBacklog) -> Int? {
        followers.withLock { followers in
            guard !followers.closed, followers.streams.count < limits.maximumFollowers else { return nil }
            let id = followers.nextID
            followers.nextID += 1
            followers.streams[id] = backlog
            // Under the lock, so that the last count told is the latest.
            metrics.followers(followers.streams.count)
            return id
        }
    }

    private func unregister(_ id: Int) {
        followers.withLock { followers in
            guard followers.streams.removeValue(forKey: id) != nil else { return }
            metrics.followers(followers.streams.count)
        }
    }

    /// Ends every stream and accepts no more, so that the server can stop.
    func close() {
        let streams = followers.withLock { followers in
            followers.closed = true
            return Array(followers.streams.values)
        }
        for stream in streams { stream.finish() }
    }

}
