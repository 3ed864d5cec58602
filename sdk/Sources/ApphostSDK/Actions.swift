/// An action of the guest (apphost.actions/1, ABI 1.6, CONTRACT F1 to F3): a named, typed entry
/// point that an operator calls in the running guest, as App Intents and D-Bus methods are for
/// their platforms.
///
///     apphost ctl call org.example.notes search groceries
///
/// Declare them in ``GuestApp/actions`` with ``GuestApp/action(_:description:foreground:_:)``,
/// each with a closure whose first parameter is the app and whose other parameters and result
/// are the action's: the SDK derives the signature (`arguments`, `result`) from their types
/// (``ActionArgument``, ``ActionResult``) and builds the C table the host reads, so a Swift guest
/// never writes a type code or a C function.
///
/// ```swift
/// @main
/// final class NotesApp: GuestApp {
///     static let descriptor = GuestDescriptor(id: "org.example.notes", name: "Notes", version: "1.0")
///     static let actions = [
///         action("add", description: "Adds a note.") { (app, text: String) in app.notes.append(text) },
///         action("count", description: "How many notes there are.") { app in Int32(app.notes.count) },
///     ]
///     var notes: [String] = []
///     required init() {}
/// }
/// ```
///
/// The host calls an action on the guest's main queue (so the closure is isolated to
/// ``GuestActor``), one at a time with the callbacks, and only while the guest runs: from the
/// end of ``GuestApp/didFinishLaunching(host:)`` until ``GuestApp/willTerminate()``; one declared
/// `foreground` only while the guest is in the foreground. It must return within the watchdog's
/// limit, as a callback does (CONTRACT B5). The host checks the arguments before the guest runs
/// anything: the closure gets only values of its types, and strings of valid UTF-8.
///
/// The host refuses a guest whose table is wrong, at load, with one line that says why (CONTRACT
/// X1): a name that is not one (1 to 64 ASCII letters, digits, `-`, `_` and `.`, starting with a
/// letter), a name twice, more than 8 arguments, more than 64 actions, or a description that is
/// empty, longer than 200 bytes or more than one line.
public struct GuestAction: Sendable {
    /// Its name, unique within the guest, such as "search" or "notes.add".
    public let name: String
    /// One line for operators: what it does.
    public let description: String
    /// Called only while the guest is in the foreground (`APPHOST_ACTION_FOREGROUND`).
    public let isForeground: Bool
    /// Its arguments' types, in order.
    public let argumentTypes: [ActionType]
    /// Its result's type; nil for none (a `Void` closure).
    public let resultType: ActionType?

    /// The arguments' type codes, as the C table declares them, such as "s" or "" for none.
    public var arguments: String { argumentTypes.map(\.code).joined() }
    /// The result's type code, such as "i", or "" for none.
    public var result: String { resultType?.code ?? "" }

    /// Calls the closure on the running app with arguments of ``argumentTypes``; returns its
    /// result, of ``resultType``.
    let invoke: @GuestActor @Sendable (any GuestApp, [ActionValue]) -> ActionValue?

    init(
        name: String, description: String, isForeground: Bool, argumentTypes: [ActionType], resultType: ActionType?,
        invoke: @escaping @GuestActor @Sendable (any GuestApp, [ActionValue]) -> ActionValue?
    ) {
        self.name = name
        self.description = description
        self.isForeground = isForeground
        self.argumentTypes = argumentTypes
        self.resultType = resultType
        self.invoke = invoke
    }
}

extension GuestApp {
    /// By default a guest has no actions.
    public nonisolated static var actions: [GuestAction] { [] }

    /// An action whose closure gets the running app and the action's arguments, and returns its
    /// result. The types of the closure's parameters after the app are the action's arguments,
    /// and its result type the action's result:
    ///
    /// ```swift
    /// action("search", description: "The first note holding the text.") { (app, text: String) in
    ///     app.notes.first { $0.contains(text) } ?? ""
    /// }   // arguments "s", result "s"
    /// ```
    ///
    /// - Parameters:
    ///   - name: unique within the guest, such as "search" or "notes.add".
    ///   - description: one line for operators: what it does.
    ///   - foreground: call it only while the guest is in the foreground, as an action that shows
    ///     something to a user needs; in background the host refuses it.
    public nonisolated static func action<each Argument: ActionArgument, Result: ActionResult>(
        _ name: String, description: String, foreground: Bool = false,
        _ body: @escaping @GuestActor @Sendable (Self, repeat each Argument) -> Result
    ) -> GuestAction {
        GuestAction(
            name: name, description: description, isForeground: foreground,
            argumentTypes: argumentTypes(repeat (each Argument).self), resultType: Result.actionType
        ) { app, values in
            var arguments = ArgumentValues(values)
            return body(app.cast(to: Self.self, action: name), repeat arguments.next((each Argument).self)).actionValue
        }
    }

    /// An action without a result (a `Void` closure, result ""): see
    /// ``action(_:description:foreground:_:)``.
    public nonisolated static func action<each Argument: ActionArgument>(
        _ name: String, description: String, foreground: Bool = false,
        _ body: @escaping @GuestActor @Sendable (Self, repeat each Argument) -> Void
    ) -> GuestAction {
        GuestAction(
            name: name, description: description, isForeground: foreground,
            argumentTypes: argumentTypes(repeat (each Argument).self), resultType: nil
        ) { app, values in
            var arguments = ArgumentValues(values)
            body(app.cast(to: Self.self, action: name), repeat arguments.next((each Argument).self))
            return nil
        }
    }

    /// This app as `type`, the type the action `name` was declared for.
    fileprivate func cast<App: GuestApp>(to type: App.Type, action name: String) -> App {
        guard let app = self as? App else {
            preconditionFailure("ApphostSDK: action \(name) is declared for \(App.self), but the app is \(Self.self)")
        }
        return app
    }
}

/// The types of a parameter pack's members, in order.
private func argumentTypes<each Argument: ActionArgument>(_ types: repeat (each Argument).Type) -> [ActionType] {
    var result: [ActionType] = []
    for type in repeat each types { result.append(type.actionType) }
    return result
}

/// The arguments of one call, taken in order as the closure's parameters.
private struct ArgumentValues {
    private var values: IndexingIterator<[ActionValue]>
    init(_ values: [ActionValue]) { self.values = values.makeIterator() }

    mutating func next<Argument: ActionArgument>(_ type: Argument.Type) -> Argument {
        guard let value = values.next() else { preconditionFailure("ApphostSDK: an action got too few arguments") }
        return Argument(actionValue: value)
    }
}

// MARK: - Types and values

/// The type of an action's argument or result: a type code of actions.h, those of D-Bus.
public enum ActionType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `b`, C `bool`.
    case bool
    /// `y`, C `uint8_t`.
    case uint8
    /// `n`, C `int16_t`.
    case int16
    /// `q`, C `uint16_t`.
    case uint16
    /// `i`, C `int32_t`.
    case int32
    /// `u`, C `uint32_t`.
    case uint32
    /// `x`, C `int64_t`.
    case int64
    /// `t`, C `uint64_t`.
    case uint64
    /// `d`, C `double`, finite.
    case double
    /// `s`, C `const char *`, UTF-8.
    case string
    /// `ay`, C `const uint8_t *` and `size_t` (as a result, `apphost_action_bytes_t`).
    case bytes

    /// Its type code in a signature, such as "i" or "ay".
    public var code: String {
        switch self {
        case .bool: "b"
        case .uint8: "y"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .bytes: "ay"
        }
    }

    public var description: String { code }
}

/// One argument or result of an action, of one of the ``ActionType``s.
public enum ActionValue: Sendable, Hashable {
    case bool(Bool)
    case uint8(UInt8)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case bytes([UInt8])

    public var type: ActionType {
        switch self {
        case .bool: .bool
        case .uint8: .uint8
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        }
    }
}

/// A type an action takes as an argument: `Bool`, `UInt8`, `Int16`, `UInt16`, `Int32`, `UInt32`,
/// `Int64`, `UInt64`, `Double`, `String` and `[UInt8]`. A type of your own may conform too, as
/// one of these: it declares which (``actionType``) and is made from a value of it.
public protocol ActionArgument {
    /// The argument's type in the signature.
    static var actionType: ActionType { get }
    /// Makes the argument from `actionValue`, which is always of ``actionType``.
    init(actionValue: ActionValue)
}

/// A type an action returns: those of ``ActionArgument``; a `Void` closure returns nothing.
/// A type of your own may conform too, as one of these.
public protocol ActionResult {
    /// The result's type in the signature.
    static var actionType: ActionType { get }
    /// The result as a value of ``actionType``.
    var actionValue: ActionValue { get }
}

/// Stops the guest: the SDK gave an argument of another type than its declared one.
private func mismatch(_ value: ActionValue, _ type: ActionType) -> Never {
    preconditionFailure("ApphostSDK: an argument of type \(value.type) given as \(type)")
}

extension Bool: ActionArgument, ActionResult {
    public static var actionType: ActionType { .bool }
    public var actionValue: ActionValue { .bool(self) }
    public init(actionValue: ActionValue) {
        guard case .bool(let value) = actionValue else { mismatch(actionValue, .bool) }
        self = value
    }
}

extension UInt8: ActionArgument, ActionResult {
    public static var actionType: ActionType { .uint8 }
    public var actionValue: ActionValue { .uint8(self) }
    public init(actionValue: ActionValue) {
        guard case .uint8(let value) = actionValue else { mismatch(actionValue, .uint8) }
        self = value
    }
}

extension Int16: ActionArgument, ActionResult {
    public static var actionType: ActionType { .int16 }
    public var actionValue: ActionValue { .int16(self) }
    public init(actionValue: ActionValue) {
        guard case .int16(let value) = actionValue else { mismatch(actionValue, .int16) }
        self = value
    }
}

extension UInt16: ActionArgument, ActionResult {
    public static var actionType: ActionType { .uint16 }
    public var actionValue: ActionValue { .uint16(self) }
    public init(actionValue: ActionValue) {
        guard case .uint16(let value) = actionValue else { mismatch(actionValue, .uint16) }
        self = value
    }
}

extension Int32: ActionArgument, ActionResult {
    public static var actionType: ActionType { .int32 }
    public var actionValue: ActionValue { .int32(self) }
    public init(actionValue: ActionValue) {
        guard case .int32(let value) = actionValue else { mismatch(actionValue, .int32) }
        self = value
    }
}

extension UInt32: ActionArgument, ActionResult {
    public static var actionType: ActionType { .uint32 }
    public var actionValue: ActionValue { .uint32(self) }
    public init(actionValue: ActionValue) {
        guard case .uint32(let value) = actionValue else { mismatch(actionValue, .uint32) }
        self = value
    }
}

extension Int64: ActionArgument, ActionResult {
    public static var actionType: ActionType { .int64 }
    public var actionValue: ActionValue { .int64(self) }
    public init(actionValue: ActionValue) {
        guard case .int64(let value) = actionValue else { mismatch(actionValue, .int64) }
        self = value
    }
}

extension UInt64: ActionArgument, ActionResult {
    public static var actionType: ActionType { .uint64 }
    public var actionValue: ActionValue { .uint64(self) }
    public init(actionValue: ActionValue) {
        guard case .uint64(let value) = actionValue else { mismatch(actionValue, .uint64) }
        self = value
    }
}

extension Double: ActionArgument, ActionResult {
    public static var actionType: ActionType { .double }
    public var actionValue: ActionValue { .double(self) }
    public init(actionValue: ActionValue) {
        guard case .double(let value) = actionValue else { mismatch(actionValue, .double) }
        self = value
    }
}

extension String: ActionArgument, ActionResult {
    public static var actionType: ActionType { .string }
    public var actionValue: ActionValue { .string(self) }
    public init(actionValue: ActionValue) {
        guard case .string(let value) = actionValue else { mismatch(actionValue, .string) }
        self = value
    }
}

extension Array: ActionArgument, ActionResult where Element == UInt8 {
    public static var actionType: ActionType { .bytes }
    public var actionValue: ActionValue { .bytes(self) }
    public init(actionValue: ActionValue) {
        guard case .bytes(let value) = actionValue else { mismatch(actionValue, .bytes) }
        self = value
    }
}
