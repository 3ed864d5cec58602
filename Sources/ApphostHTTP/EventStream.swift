import ApphostControl
import ApphostVocabulary
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// `GET /v1/events`: the host's event stream as Server-Sent Events (CONTRACT O1). Each event goes
/// with an id, its position `RUN.NUMBER` (``EventPosition``), the same as the control socket's;
/// a client that reconnects sends the last it saw as `Last-Event-ID` (as EventSource does by
/// itself) or `?after=`, and gets first what the host still holds after it, or, for an id of an
/// earlier run of the host, a gap that says it restarted and all this run holds. `?guest=` and
/// `?kind=` (repeated, or comma-separated lists) filter; `?follow=false` ends the stream after
/// what the host holds. The query becomes an ``EventsCommand``, validated there, as the control
/// socket's request is.
///
/// What a follower costs is bounded (``HTTPLimits``): so many at once, each with so many events
/// not yet written to it. One that falls that far behind is told so and
/// dropped, so a slow client never makes the host queue wait or the host buffer without end; it
/// may reconnect and resume.
final class EventStream: Sendable {
    let responder: any ControlResponder
    let limits: HTTPLimits
    /// Told how many follow after each change, and of each follower dropped.
    let metrics: HTTPMetricsSink

    private struct Followers: ~Copyable {
        var streams: [Int: FollowerBacklog] = [:]
        var nextID = 0
        var closed = false
    }

    private let followers = Mutex(Followers())

    init(responder: any ControlResponder, limits: HTTPLimits, metrics: HTTPMetricsSink = HTTPMetricsSink()) {
        self.metrics = metrics
        self.responder = responder
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
        let command: EventsCommand
        let start: EventStart
        let filter: EventFilter
        do throws(ControlProtocolError) {
            command = try self.request(from: request)
            try command.validate()
            start = try command.start
            filter = try command.filter
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
        let subscription = responder.follow(from: start, filter: filter, live: command.isLive) { followed in
            // On the host queue (or here, for the replay): never waits.
            backlog.yield(followed)
        }
        // Not following: what the host holds was handed over before `follow` returned.
        if !command.isLive { backlog.finish() }
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
            return "id: \(position)\ndata: \(event.jsonLine())\n\n"
        case .missed(let count, let restarted):
            let missed = count.map(String.init) ?? "null"
            return "event: gap\ndata: {\"missed\":\(missed),\"restarted\":\(restarted)}\n\n"
        }
    }

    /// The `events` request a follower's query makes: `Last-Event-ID` or else `?after=`, each
    /// `guest=` and `kind=` (one, or a comma-separated list), and `follow=false`. An empty
    /// `after` is none, as EventSource sends no id before its first event.
    func request(from request: Request) throws(ControlProtocolError) -> EventsCommand {
        let query = request.uri.queryParameters
        let after = [request.headers[lastEventID], query.get("after")].compactMap { $0 }.first { !$0.isEmpty }
        var command = EventsCommand(after: after, guests: query.getAll("guest"), kinds: query.getAll("kind"))
        switch query.get("follow") {
        case nil, "true": break
        case "false": command.follow = false
        case let other?: throw ControlProtocolError("follow must be true or false, not \"\(other)\"")
        }
        return command
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
