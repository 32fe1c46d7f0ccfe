import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// What the graphics tests share: where the project's photos are, ImageMagick for generating
/// test images, a checkerboard, and a scratch folder per test.
enum Fixtures {
    /// Resources/images.
    static let imagesDirectory = TestResources.images

    /// ImageMagick's convert (the one on PATH may be a stand-in).
    static let convertPath = "/usr/bin/convert"

    /// An opaque 1-pixel black and white checkerboard, white at (0, 0): the worst case for
    /// moiré when shrunk.
    static func checkerboard(width w: Int, height h: Int) -> Bitmap {
        var bytes = [UInt8](repeating: 255, count: w * h * 4)
        bytes.withUnsafeMutableBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w where (x + y) & 1 == 1 {
                    let i = (y * w + x) * 4
                    p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: bytes)
    }

    /// A new empty folder for one test's files, named after it.
    static func makeScratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension Fixtures {
    /// Runs ImageMagick's convert with `arguments` then the path of `output` in `folder`, and
    /// returns that path; skips the test when ImageMagick is missing.
    static func convert(_ arguments: [String], _ output: String, in folder: URL) throws -> String {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: convertPath), "ImageMagick is missing")
        let path = folder.appendingPathComponent(output).path
        _ = try run(convertPath, arguments + [path])
        return path
    }

    /// Runs a program and returns its standard output; throws when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: executable, code: Int(process.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) failed"])
        }
        return [UInt8](data)
    }
}
