import CApphost

/// What a guest declares about itself: the C ABI's `apphost_guest_descriptor_t`, validated.
public struct GuestDescriptor: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var version: String
    public var vendor: String?
    public var summary: String?
    public var capabilities: Capabilities
    /// The ABI version the guest was built for.
    public var abiVersion: ABIVersion
    /// The actions an operator may call (CONTRACT F1, ABI 1.6), in the guest's order.
    public var actions: [GuestAction]

    public init(
        id: String, name: String, version: String, vendor: String? = nil, summary: String? = nil,
        capabilities: Capabilities = [], abiVersion: ABIVersion = .current, actions: [GuestAction] = []
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.vendor = vendor
        self.summary = summary
        self.capabilities = capabilities
        self.abiVersion = abiVersion
        self.actions = actions
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, version, vendor, summary, capabilities, abiVersion, actions
    }

    /// A descriptor written before ABI 1.6 has no actions.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        version = try container.decode(String.self, forKey: .version)
        vendor = try container.decodeIfPresent(String.self, forKey: .vendor)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        capabilities = try container.decode(Capabilities.self, forKey: .capabilities)
        abiVersion = try container.decode(ABIVersion.self, forKey: .abiVersion)
        actions = try container.decodeIfPresent([GuestAction].self, forKey: .actions) ?? []
    }

    /// The action named `name`, with its index in the guest's table.
    public func action(named name: String) -> (index: Int, action: GuestAction)? {
        actions.firstIndex { $0.name == name }.map { ($0, actions[$0]) }
    }

    /// The entitlements the guest declares (CONTRACT A6); raw values are the C ABI's
    /// `enum apphost_capability` bits, whose name the descriptor's member keeps.
    public struct Capabilities: OptionSet, Sendable, Codable, Equatable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let backgroundAudio = Capabilities(rawValue: 1 << 0)
        public static let multipleScenes = Capabilities(rawValue: 1 << 1)
        public static let backgroundTasks = Capabilities(rawValue: 1 << 2)
        /// ABI 1.10.
        public static let network = Capabilities(rawValue: 1 << 3)
        /// ABI 1.10: the recording categories.
        public static let audioInput = Capabilities(rawValue: 1 << 4)
        /// Every bit this host knows; a descriptor with another bit is invalid.
        public static let known: Capabilities = [
            .backgroundAudio, .multipleScenes, .backgroundTasks, .network, .audioInput,
        ]

        /// Each entitlement's name, as `inspect` and the events say it.
        static let named: [(Capabilities, String)] = [
            (.backgroundAudio, "background-audio"), (.multipleScenes, "multiple-scenes"),
            (.backgroundTasks, "background-tasks"), (.network, "network"), (.audioInput, "audio-input"),
        ]

        public var names: [String] { Self.named.filter { contains($0.0) }.map(\.1) }

        /// The name of an entitlement of one bit.
        public var name: String? { Self.named.first { $0.0 == self }?.1 }
    }

    /// Whether `id` is a reverse-DNS identifier as the descriptor header defines it.
    public static func isValidID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= 255 else { return false }
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
                }
        }
    }
}

/// An ABI version and the compatibility rule of `sdk/include/apphost/version.h`.
public struct ABIVersion: Sendable, Codable, Equatable, CustomStringConvertible {
    public var major: UInt32
    public var minor: UInt32
    public var revision: UInt32

    public init(major: UInt32, minor: UInt32, revision: UInt32) {
        self.major = major
        self.minor = minor
        self.revision = revision
    }

    /// The version this host implements: that of the headers it is built with (version.h, the
    /// one place that names it).
    public static let current = ABIVersion(
        major: UInt32(APPHOST_ABI_VERSION_MAJOR), minor: UInt32(APPHOST_ABI_VERSION_MINOR),
        revision: UInt32(APPHOST_ABI_VERSION_REVISION))

    /// version.h's rule, `apphost_version_is_compatible`: the same major. A guest of a newer
    /// minor loads too, and probes what it uses; a host refuses only another major.
    public func canLoad(guest: ABIVersion) -> Bool {
        apphost_version_is_compatible(
            apphost_version_t(major: major, minor: minor, revision: revision),
            apphost_version_t(major: guest.major, minor: guest.minor, revision: guest.revision))
    }

    public var description: String { "\(major).\(minor).\(revision)" }
}
