import ApphostVocabulary
import Dispatch
import Foundation

public final class FakeChannel: GuestChannel, @unchecked Sendable {
    // Confined to the host queue.
    public let guest: FakeGuest
    public let log: CallLog
    public let queue: any HostExecutor
    public var closed = false

    public init(guest: FakeGuest, log: CallLog, queue: any HostExecutor) {
        self.guest = guest
        self.log = log
        self.queue = queue
    }

    public func send(_ message: GuestMessage, reply: @escaping @Sendable (GuestReply) -> Void) {
        guard !closed else { return queue.execute { reply(.failure(.closed)) } }
        let received = ReceivedCall(guest: guest.descriptor.id, message: message)
        if case .performAction(_, _, _, _, let token) = message.call { guest.lastActivation = token }
        log.messages.append(received)
        if case .sceneSize = message.call {
            // Sizes are in `messages` and `sizes`, so that `calls` reads as the lifecycle orders.
            log.sizes.append(received)
        } else if message.call.runsGuestCode {
            log.calls.append(received)
        }
        let result: GuestReply
        if guest.crashOn == message.call.callbackName {
            closed = true
            result = .failure(.crashed("SIGSEGV"))
        } else if message.call == .didFinishLaunching {
            result = .success(guest.launchStatus)
        } else if case .shouldDismissModal = message.call {
            result = .success(guest.keepsModals ? 0 : 1)
        } else if case .audioStream = message.call {
            result = .success(guest.streamStatus)
        } else {
            result = .success(0)
        }
        // An action's result comes before its reply, as the runtime reports it (F2).
        var outcome: ActionOutcome?
        if case .action(let action, _, _) = message.call, !closed {
            outcome = guest.actionOutcomes[action.name] ?? .returned(nil)
        }
        let guest = guest
        let answer: @Sendable () -> Void = { [outcome] in
            if let outcome { guest.emit(.actionFinished(outcome)) }
            reply(result)
        }
        if guest.holdReplies {
            guest.heldReplies.append(answer)
        } else {
            queue.execute(answer)
        }
    }

    public func close(completion: @escaping @Sendable () -> Void) {
        closed = true
        guest.closes += 1
        queue.execute { completion() }
    }

    public func suspend(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.suspensions += 1
        let result: Result<Void, ChannelFailure> =
            guest.freezeFails ? .failure(.failed("freezer refused")) : .success(())
        queue.execute { completion(result) }
    }

    public func resume(completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.resumptions += 1
        queue.execute { completion(.success(())) }
    }

    /// As a worker channel: a kill ends in the guest's death; a freeze just succeeds.
    public func audioThreadCPUTime(_ thread: Int32) -> Duration? { guest.audioThreadCPUTime }

    public func demoteAudioThread(_ thread: Int32) -> Bool {
        guest.demotedThreads.append(thread)
        return true
    }

    public func forceStop(freezing: Bool, completion: @escaping @Sendable (Result<Void, ChannelFailure>) -> Void) {
        guest.forceStops.append(freezing ? "freeze" : "kill")
        guard !guest.unstoppable else {
            return queue.execute { completion(.failure(.failed("cannot be killed here"))) }
        }
        queue.execute { [guest] in
            completion(.success(()))
            if !freezing { guest.emit(.died("killed by SIGKILL")) }
        }
    }
}
