/// Where the core gets the id of each new scene session (CONTRACT S8): handed in, so that the
/// policy makes no ids on the spot and tests can have repeatable ones. Ids are lower-case and
/// unique, and vary from their first character on, as random ones do: operators name sessions by
/// a prefix of 4 characters or more.
public protocol SessionIDSource: AnyObject, Sendable {
    /// A new id, never given before. Called on the host queue.
    func next() -> String
}
