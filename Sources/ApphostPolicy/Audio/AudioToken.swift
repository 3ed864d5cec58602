/// One timer the audio sessions asked for (`AudioEffect.schedule`): its runner arms it on its clock
/// and hands the token back when it falls due (`AudioSessions.tick`). Its serial is unique within
/// the part, so that a token names one arming of one alarm for good.
struct AudioToken: Hashable, Sendable {
    enum Alarm: Hashable, Sendable {
        /// C13: the mixer's meters are read into the event stream, once a second while a stream is open.
        case meters
        /// C10: a grace after its output went away, the host looks whether the guest paused.
        case routeCheck(guest: String)
    }

    let serial: UInt64
    let alarm: Alarm

    static func next(_ alarm: Alarm, serial: inout UInt64) -> AudioToken {
        serial += 1
        return AudioToken(serial: serial, alarm: alarm)
    }
}
