import CApphost
import CFFI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The C table of the registered app's actions (`apphost_guest_actions_t`, actions.h), which the
/// descriptor points to.
///
/// The host calls each action as a C function of its signature's C types; a Swift closure cannot
/// be one, so each action gets a libffi closure: a function made at run time, of the call
/// interface its types declare, whose handler reads the C arguments as Swift values, calls the
/// action's closure on the main queue and writes its result as the C caller reads it.
///
/// Everything here is made once, while the library loads (entry.c's constructor), and never
/// freed: the table must stay readable as long as the library is mapped, which entry.c makes the
/// life of the process.
enum ActionTable {
    /// The table of `type`'s actions; nil when it declares none. An action whose closure could not
    /// be made gets a NULL function, for which the host refuses the guest at load with a line that
    /// says so (rather than the SDK failing in a library constructor).
    static func make(for type: any GuestApp.Type) -> UnsafePointer<apphost_guest_actions_t>? {
        let actions = type.actions
        guard !actions.isEmpty else { return nil }
        let entries = UnsafeMutablePointer<apphost_action_t>.allocate(capacity: actions.count)
        for (index, action) in actions.enumerated() {
            (entries + index).initialize(
                to: apphost_action_t(
                    name: copy(action.name), arguments: copy(action.arguments), result: copy(action.result),
                    description: copy(action.description),
                    flags: action.isForeground ? UInt64(APPHOST_ACTION_FOREGROUND.rawValue) : 0,
                    function: ActionClosure.make(for: action)))
        }
        let table = UnsafeMutablePointer<apphost_guest_actions_t>.allocate(capacity: 1)
        table.initialize(
            to: apphost_guest_actions_t(
                struct_size: UInt32(MemoryLayout<apphost_guest_actions_t>.size),
                action_size: UInt32(MemoryLayout<apphost_action_t>.size), id: copy(APPHOST_ACTIONS_ID),
                actions: UnsafePointer(entries), count: UInt32(actions.count)))
        return UnsafePointer(table)
    }

    private static func copy(_ string: String) -> UnsafePointer<CChar>? {
        UnsafePointer(strdup(string))
    }
}

/// One action's libffi closure, and what its calls keep.
///
/// `@unchecked Sendable`: made once while the library loads; its mutable state, the last result's
/// buffer, is touched only by the action's calls, which the host makes on the main queue one at a
/// time.
final class ActionClosure: @unchecked Sendable {
    private let action: GuestAction
    /// The last `s` or `ay` result: the host copies it as soon as the function returns
    /// (actions.h, "Who owns what"), so the next call replaces it.
    private var lastResult: UnsafeMutableRawPointer?

    private init(_ action: GuestAction) {
        self.action = action
    }

    /// The C function that calls `action`, or nil when libffi could not make one.
    static func make(for action: GuestAction) -> apphost_action_function_t? {
        var parameters: [UnsafeMutablePointer<ffi_type>?] = []
        for type in action.argumentTypes {
            parameters.append(ffiType(type.ffiCode))
            // ay is two C parameters: the bytes and their length.
            if type == .bytes { parameters.append(ffiType("z")) }
        }
        let result: UnsafeMutablePointer<ffi_type>?
        switch action.resultType {
        case nil: result = ffiType("v")
        case .bytes?:
            // apphost_action_bytes_t, returned by value.
            let members = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 3)
            members.initialize(from: [ffiType("a"), ffiType("z"), nil], count: 3)
            result = UnsafeMutablePointer<ffi_type>.allocate(capacity: 1)
            result?.initialize(to: ffi_type(size: 0, alignment: 0, type: UInt16(FFI_TYPE_STRUCT), elements: members))
        case let type?: result = ffiType(type.ffiCode)
        }
        guard let result, parameters.allSatisfy({ $0 != nil }) else { return nil }
        let parameterTypes = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(
            capacity: max(parameters.count, 1))
        parameterTypes.initialize(from: parameters, count: parameters.count)
        let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
        cif.initialize(to: ffi_cif())
        guard
            ffi_prep_cif(cif, apphost_ffi_default_abi(), UInt32(parameters.count), result, parameterTypes) == FFI_OK
        else { return nil }
        var code: UnsafeMutableRawPointer?
        guard let closure = ffi_closure_alloc(apphost_ffi_closure_size(), &code), let code else { return nil }
        let context = Unmanaged.passRetained(ActionClosure(action)).toOpaque()
        guard
            ffi_prep_closure_loc(
                closure.assumingMemoryBound(to: ffi_closure.self), cif, actionClosureHandler, context, code)
                == FFI_OK
        else { return nil }
        return unsafeBitCast(code, to: apphost_action_function_t.self)
    }

    private static func ffiType(_ code: Unicode.Scalar) -> UnsafeMutablePointer<ffi_type>? {
        apphost_ffi_type(CChar(UInt8(ascii: code)))
    }

    /// A call from the host, on the main queue: `arguments` points to each C parameter's value,
    /// `result` to where the C result goes.
    fileprivate func call(
        _ result: UnsafeMutableRawPointer?, _ arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) {
        let values = readArguments(arguments)
        let action = action
        let value = onMainQueue { () -> ActionValue? in
            // The host calls actions only while the guest runs (after did_finish_launching).
            guard let app = RunningApp.current?.app else { return nil }
            return action.invoke(app, values)
        }
        if let result { write(value, to: result) }
    }

    /// The C parameters as the action's argument values.
    private func readArguments(_ arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> [ActionValue] {
        guard let arguments else { return [] }
        var values: [ActionValue] = []
        var next = 0
        func parameter() -> UnsafeMutableRawPointer {
            defer { next += 1 }
            guard let pointer = arguments[next] else {
                preconditionFailure("ApphostSDK: an action's parameter is NULL")
            }
            return pointer
        }
        for type in action.argumentTypes {
            switch type {
            case .bool: values.append(.bool(parameter().load(as: UInt8.self) != 0))
            case .uint8: values.append(.uint8(parameter().load(as: UInt8.self)))
            case .int16: values.append(.int16(parameter().load(as: Int16.self)))
            case .uint16: values.append(.uint16(parameter().load(as: UInt16.self)))
            case .int32: values.append(.int32(parameter().load(as: Int32.self)))
            case .uint32: values.append(.uint32(parameter().load(as: UInt32.self)))
            case .int64: values.append(.int64(parameter().load(as: Int64.self)))
            case .uint64: values.append(.uint64(parameter().load(as: UInt64.self)))
            case .double: values.append(.double(parameter().load(as: Double.self)))
            case .string:
                // The host's NUL-terminated UTF-8 copy, valid during the call.
                let string = parameter().load(as: UnsafePointer<CChar>?.self)
                values.append(.string(string.map { String(cString: $0) } ?? ""))
            case .bytes:
                let bytes = parameter().load(as: UnsafePointer<UInt8>?.self)
                let length = parameter().load(as: Int.self)
                values.append(.bytes(bytes.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []))
            }
        }
        return values
    }

    /// Writes `value`, the action's result, as libffi's caller reads it: an integer narrower than
    /// a register as a whole `ffi_arg` (sign-extended when signed). Nil (no running app) writes
    /// zero, and a NULL string, which the host reports as a broken call.
    private func write(_ value: ActionValue?, to result: UnsafeMutableRawPointer) {
        guard let type = action.resultType else { return }
        guard let value else {
            if type == .bytes {
                result.storeBytes(of: apphost_action_bytes_t(bytes: nil, length: 0), as: apphost_action_bytes_t.self)
            } else {
                result.storeBytes(of: 0, as: UInt64.self)
            }
            return
        }
        precondition(
            value.type == type, "ApphostSDK: action \(action.name) returned \(value.type), not its \(type)")
        switch value {
        case .bool(let bool): result.storeBytes(of: ffi_arg(bool ? 1 : 0), as: ffi_arg.self)
        case .uint8(let integer): result.storeBytes(of: ffi_arg(integer), as: ffi_arg.self)
        case .int16(let integer): result.storeBytes(of: ffi_sarg(integer), as: ffi_sarg.self)
        case .uint16(let integer): result.storeBytes(of: ffi_arg(integer), as: ffi_arg.self)
        case .int32(let integer): result.storeBytes(of: ffi_sarg(integer), as: ffi_sarg.self)
        case .uint32(let integer): result.storeBytes(of: ffi_arg(integer), as: ffi_arg.self)
        case .int64(let integer): result.storeBytes(of: integer, as: Int64.self)
        case .uint64(let integer): result.storeBytes(of: integer, as: UInt64.self)
        case .double(let real): result.storeBytes(of: real, as: Double.self)
        case .string(let string):
            // A NUL inside the string ends it, as C reads it.
            let copy = keep(UnsafeMutableRawPointer(strdup(string)))
            result.storeBytes(
                of: UnsafePointer(copy?.assumingMemoryBound(to: CChar.self)), as: UnsafePointer<CChar>?.self)
        case .bytes(let bytes):
            let copy = keep(malloc(max(bytes.count, 1)))
            bytes.withUnsafeBytes { source in
                guard let copy, let base = source.baseAddress else { return }
                copy.copyMemory(from: base, byteCount: source.count)
            }
            result.storeBytes(
                of: apphost_action_bytes_t(
                    bytes: UnsafePointer(copy?.assumingMemoryBound(to: UInt8.self)),
                    length: copy == nil ? 0 : bytes.count),
                as: apphost_action_bytes_t.self)
        }
    }

    /// Keeps `buffer` as the last result, freeing the one before.
    private func keep(_ buffer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        free(lastResult)
        lastResult = buffer
        return buffer
    }
}

/// libffi's handler of every action closure; `context` is its ActionClosure. Captures nothing, so
/// it converts to a C function pointer.
private let actionClosureHandler:
    @convention(c) (
        UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        UnsafeMutableRawPointer?
    ) -> Void = { _, result, arguments, context in
        guard let context else { return }
        Unmanaged<ActionClosure>.fromOpaque(context).takeUnretainedValue().call(result, arguments)
    }

extension ActionType {
    /// The code apphost_ffi_type knows it by: its type code's first letter ('a' for ay's pointer).
    var ffiCode: Unicode.Scalar {
        code.unicodeScalars.first!
    }
}
