import Foundation
import XCTest

/// What the graphics tests share: where the project's photos are, ImageMagick for generating
/// test images, and a scratch folder per test.
enum Fixtures {
    /// Resources/images at the package root, three levels above this file.
    static let imagesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // CanopyGraphicsTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the package root
        .appendingPathComponent("Resources/images")

    /// ImageMagick's convert (the one on PATH may be a stand-in).
    static let convertPath = "/usr/bin/convert"

    /// A new empty folder for one test's files, named after it.
    static func makeScratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
