import ApphostModel
import ApphostVocabulary

/// One timer the background scheduler asked for (`BackgroundEffect.schedule`): its runner arms it on
/// its clock and hands the token back when it falls due (`BackgroundScheduler.tick`). Its serial
/// is unique within the scheduler, so that a token names one arming of one alarm for good.
struct BackgroundToken: Hashable, Sendable {
    /// What falls due.
    enum Alarm: Hashable, Sendable {
        /// B3: the expiration handlers run, a grace period before the budget ends.
        case expiration
        /// B4: the budget ends.
        case budgetEnd
        /// B6: an idle background guest is suspended.
        case autoSuspension
        /// A timer the guest scheduled (`schedule_timer`) fires.
        case timer(TimerID)
    }

    let serial: UInt64
    let alarm: Alarm
}

extension BackgroundToken {
    /// A new token for `alarm`, numbered from `serial`.
    static func next(_ alarm: Alarm, serial: inout UInt64) -> BackgroundToken {
        serial += 1
        return BackgroundToken(serial: serial, alarm: alarm)
    }
}
