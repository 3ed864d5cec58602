// swift-tools-version: 6.0
// An apphost guest to start from: copy this directory, rename the id, and build with
// `swift build`; the guest is .build/debug/libHello.so. Swift 6 language mode.
import PackageDescription

let package = Package(
    name: "hello",
    products: [
        // A guest is a dynamic library.
        .library(name: "Hello", type: .dynamic, targets: ["Hello"])
    ],
    dependencies: [
        // The apphost SDK: here a checkout of apphost beside this package. It depends on nothing.
        .package(name: "apphost-sdk", path: "../apphost/sdk")
    ],
    targets: [
        .target(name: "Hello", dependencies: [.product(name: "ApphostSDK", package: "apphost-sdk")])
    ]
)
