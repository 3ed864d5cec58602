import ApphostGuestRuntime
import ApphostModel
import ApphostVocabulary
import CApphost

/// Turns a guest's entry into a `GuestDescriptor`, or names the first thing wrong with it
/// (CONTRACT X1): the host must never trust a descriptor it has not checked. It judges plain
/// values (`RawGuestEntry`), whether the guest was mapped into the host or into a worker.
package enum DescriptorValidator {
    struct Problem: Error {
        let what: String
    }

    /// The size of the 1.0 descriptor: up to its last 1.0 member. Later minors only append.
    static let minimumSize =
        MemoryLayout<apphost_guest_descriptor_t>.offset(of: \apphost_guest_descriptor_t.capabilities)!
        + MemoryLayout<UInt64>.size

    /// The entry's descriptor, or the load error that names what is wrong: first the ABI version,
    /// since a guest of another version may mean something else by the rest.
    package static func descriptor(of entry: RawGuestEntry, path: String) throws(LoadError) -> GuestDescriptor {
        guard ABIVersion.current.canLoad(guest: entry.abiVersion) else {
            throw LoadError(path: path, cause: .unsupportedABIVersion(guest: entry.abiVersion, host: .current))
        }
        do {
            return try validate(entry)
        } catch {
            throw LoadError(path: path, cause: .invalidDescriptor(error.what))
        }
    }

    static func validate(_ entry: RawGuestEntry) throws(Problem) -> GuestDescriptor {
        guard let raw = entry.descriptor else { throw Problem(what: "descriptor is NULL") }
        guard raw.structSize >= minimumSize else {
            throw Problem(
                what: "struct_size is \(raw.structSize), smaller than the 1.0 descriptor (\(minimumSize) bytes)")
        }

        let id = try requiredString(raw.id, "id")
        guard GuestDescriptor.isValidID(id) else {
            throw Problem(
                what: "id \"\(id)\" is not a reverse-DNS identifier (two or more labels of ASCII letters, digits "
                    + "and '-', such as org.example.notes)")
        }
        let name = try requiredString(raw.name, "name")
        let version = try requiredString(raw.version, "version")
        let vendor = try optionalString(raw.vendor, "vendor")
        let summary = try optionalString(raw.description, "description")

        let capabilities = GuestDescriptor.Capabilities(rawValue: raw.capabilities)
        let unknown = capabilities.subtracting(.known)
        guard unknown.isEmpty else {
            throw Problem(what: "unknown capability bits 0x\(String(unknown.rawValue, radix: 16))")
        }
        guard entry.hasInit else { throw Problem(what: "init is NULL") }
        guard entry.hasQuery else { throw Problem(what: "query is NULL") }

        return GuestDescriptor(
            id: id, name: name, version: version, vendor: vendor, summary: summary, capabilities: capabilities,
            abiVersion: entry.abiVersion, actions: try actions(raw.actions))
    }

    // MARK: Actions (CONTRACT F1)

    /// ABI 1.6's actions table and action: up to their last members. Later minors only append.
    static let actionsTableSize =
        MemoryLayout<apphost_guest_actions_t>.offset(of: \apphost_guest_actions_t.count)! + MemoryLayout<UInt32>.size
    static let actionSize =
        MemoryLayout<apphost_action_t>.offset(of: \apphost_action_t.function)!
        + MemoryLayout<apphost_action_function_t>.size

    /// The flag bits this host knows (enum apphost_action_flag).
    static let knownActionFlags = UInt64(APPHOST_ACTION_FOREGROUND.rawValue)

    /// The table's actions, checked: the table itself, then each action in order, names unique.
    static func actions(_ table: RawActionTable?) throws(Problem) -> [GuestAction] {
        guard let table else { return [] }
        guard table.structSize >= actionsTableSize else {
            throw Problem(
                what: "the actions table's struct_size is \(table.structSize), smaller than ABI 1.6's "
                    + "(\(actionsTableSize) bytes)")
        }
        let id = try optionalString(table.id, "the actions table's id")
        guard id == APPHOST_ACTIONS_ID else {
            throw Problem(
                what: "the actions table's id is \(id.map { "\"\($0)\"" } ?? "NULL"), not \"\(APPHOST_ACTIONS_ID)\"")
        }
        guard table.actionSize >= actionSize else {
            throw Problem(
                what: "the actions table's action_size is \(table.actionSize), smaller than ABI 1.6's "
                    + "apphost_action_t (\(actionSize) bytes)")
        }
        guard table.count <= APPHOST_ACTIONS_MAX else {
            throw Problem(what: "the actions table declares \(table.count) actions, more than \(APPHOST_ACTIONS_MAX)")
        }
        guard table.actions.count == Int(table.count) else {
            throw Problem(what: "the actions table's actions pointer is NULL with a count of \(table.count)")
        }
        var actions: [GuestAction] = []
        for (index, raw) in table.actions.enumerated() {
            let action = try self.action(raw, number: index + 1)
            guard !actions.contains(where: { $0.name == action.name }) else {
                throw Problem(what: "action \"\(action.name)\" is declared twice")
            }
            actions.append(action)
        }
        return actions
    }

    private static func action(_ raw: RawAction, number: Int) throws(Problem) -> GuestAction {
        let name = try requiredString(raw.name, "action \(number)'s name")
        guard GuestAction.isValidName(name) else {
            throw Problem(
                what: "action \(number)'s name \"\(name)\" is not an action name (1 to "
                    + "\(APPHOST_ACTION_NAME_MAX_BYTES) ASCII letters, digits, '-', '_' or '.', starting with a letter)"
            )
        }
        let what = "action \"\(name)\""
        let arguments = try types(raw.arguments, max: Int(APPHOST_ACTION_ARGUMENTS_MAX), "\(what)'s arguments")
        let result = try types(raw.result, max: 1, "\(what)'s result")
        let summary = try requiredString(raw.description, "\(what)'s description")
        guard summary.utf8.count <= Int(APPHOST_ACTION_DESCRIPTION_MAX_BYTES) else {
            throw Problem(what: "\(what)'s description is longer than \(APPHOST_ACTION_DESCRIPTION_MAX_BYTES) bytes")
        }
        guard !summary.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem(what: "\(what)'s description is not one line (it holds a control character)")
        }
        let unknown = raw.flags & ~knownActionFlags
        guard unknown == 0 else {
            throw Problem(what: "\(what) has unknown flag bits 0x\(String(unknown, radix: 16))")
        }
        guard raw.hasFunction else { throw Problem(what: "\(what)'s function is NULL") }
        return GuestAction(
            name: name, arguments: arguments, result: result.first, summary: summary,
            foreground: raw.flags & UInt64(APPHOST_ACTION_FOREGROUND.rawValue) != 0)
    }

    /// A signature's codes, read by the runtime's parser (`ahr_parse_value_types`), so that host and
    /// runtime read every signature alike.
    private static func types(_ bytes: [UInt8]?, max: Int, _ member: String) throws(Problem) -> [ActionType] {
        guard let text = try optionalString(bytes, member) else { throw Problem(what: "\(member) is NULL") }
        var parsed = [ahr_value_type](repeating: AHR_VALUE_NONE, count: max)
        var count = 0
        var problem = [CChar](repeating: 0, count: 160)
        let valid = text.withCString { pointer in
            ahr_parse_value_types(pointer, text.utf8.count, max, &parsed, &count, &problem, problem.count)
        }
        guard valid else {
            throw Problem(
                what:
                    "\(member) \"\(text)\" is no signature: \(String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
            )
        }
        return parsed.prefix(count).map { type in
            type == AHR_VALUE_BYTES ? .bytes : ActionType(rawValue: String(UnicodeScalar(UInt8(type.rawValue))))!
        }
    }

    private static func requiredString(_ bytes: [UInt8]?, _ member: String) throws(Problem) -> String {
        guard let value = try optionalString(bytes, member) else { throw Problem(what: "\(member) is NULL") }
        guard !value.isEmpty else { throw Problem(what: "\(member) is empty") }
        return value
    }

    private static func optionalString(_ bytes: [UInt8]?, _ member: String) throws(Problem) -> String? {
        guard let bytes else { return nil }
        guard let value = String(validating: bytes, as: UTF8.self) else {
            throw Problem(what: "\(member) is not valid UTF-8")
        }
        return value
    }
}

extension LoadError.Cause {
    /// A guest whose init succeeded but whose query offered no app callbacks (CONTRACT X1).
    package static let noAppCallbacks = LoadError.Cause.invalidDescriptor(
        "query(\"\(APPHOST_GUEST_APP_CALLBACKS_ID)\") returned NULL: every guest must provide app callbacks")
}
