extension HostStatus {
    /// The id of the guest an operator named: its full id, or its descriptor name in any case.
    func guestID(named name: String) throws(HostCommandError) -> String {
        if guests.contains(where: { $0.id == name }) { return name }
        let matches = guests.filter { $0.name.lowercased() == name.lowercased() }
        if matches.count == 1 { return matches[0].id }
        if matches.count > 1 {
            throw HostCommandError("\(name) is ambiguous: it names \(matches.map(\.id).joined(separator: ", "))")
        }
        let loaded = guests.isEmpty ? "no guests are loaded" : "loaded: " + guests.map(\.id).joined(separator: ", ")
        throw HostCommandError("no guest \(name) (\(loaded))")
    }
}
