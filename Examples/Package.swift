// swift-tools-version:6.1
import Foundation
import PackageDescription

// A program that uses Sentio as a library: it defines its own strategy and runs it in a backtest and in a live
// session (see Sources/CustomStrategy). It depends on the Sentio package one directory up, by path; a project of
// your own would write `.package(url: "https://github.com/…/sentio", branch: "main")` instead.
//
// A path dependency is known by its directory's name, whatever that name is on this machine.
let sentio = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "SentioExamples",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: sentio.path)],
    targets: [
        .executableTarget(
            name: "CustomStrategy",
            dependencies: [.product(name: "Sentio", package: sentio.lastPathComponent)]
        ),
    ]
)
