// swift-tools-version: 6.0
//
// The guest's package: the C headers and the Swift SDK, and nothing of the host's. A guest
// depends on this directory, never on the repository's root package, which would bring in every
// dependency of the host (sdk/README.md, "Swift guests: ApphostSDK"):
//
//     .package(name: "apphost-sdk", path: "../apphost/sdk"),
//     ...
//     .target(name: "Notes", dependencies: [.product(name: "ApphostSDK", package: "apphost-sdk")]),
//
// `name:` makes the `package:` argument work whatever this directory is called. The package has
// no package dependencies and no unsafe flags, so that any package may depend on it. It links one
// system library, libffi (CFFI), with which the SDK turns a guest's typed action closures into
// the C functions of its actions table: building a Swift guest needs Debian's libffi-dev
// (`apt-get install libffi-dev`; pkg-config finds it).
import PackageDescription

let package = Package(
    name: "apphost-sdk",
    products: [
        // The Swift SDK: GuestApp, SceneDelegate, GuestActor, and the C entry symbol.
        .library(name: "ApphostSDK", targets: ["ApphostSDK"]),
        // The C ABI headers alone, for Swift code that speaks the C ABI itself (the host).
        .library(name: "CApphost", targets: ["CApphost"]),
        // libffi as a Clang module: the SDK's, and the host's guest runtime's (one module of a
        // name per package graph, so the host takes this one).
        .library(name: "CFFI", targets: ["CFFI"]),
    ],
    targets: [
        // The C ABI headers of include/ as a Clang module for Swift.
        .target(
            name: "CApphost",
            path: ".",
            sources: ["swiftpm"],
            publicHeadersPath: "include"
        ),
        // The exported C entry symbol of every Swift guest; it calls into ApphostSDK.
        .target(name: "ApphostGuestEntry", dependencies: ["CApphost"]),
        // libffi (Debian's libffi-dev): closures that a C caller calls with the C types of an
        // action's signature, known only when the guest's table is built.
        .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
        .target(
            name: "ApphostSDK", dependencies: ["CApphost", "ApphostGuestEntry", "CFFI"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
