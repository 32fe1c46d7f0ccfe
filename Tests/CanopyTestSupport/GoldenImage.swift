import CanopyGraphics
import Foundation
import XCTest

/// Compares drawn bitmaps with golden PNGs kept in `Tests/CanopyGraphicsTests/Golden/NAME.png`.
///
/// Shared by every CanopyGraphics test that checks a picture. Workflow:
/// - a missing golden (or `CANOPY_RECORD_GOLDEN=1` in the environment) writes the golden from the
///   actual bitmap and FAILS, asking you to look at it and re-run;
/// - a mismatch writes the actual image and a diff image (differences in red, amplified; the
///   rest a faded grey copy of the actual) to `NSTemporaryDirectory()/canopy-golden/` and fails,
///   naming both paths, the number of differing pixels and the largest difference.
///
/// Comparison is per channel of premultiplied RGBA. Goldens are stored as PNG (straight alpha) and
/// decoded with `ImageDecoder.decode(contentsOf:)`, which premultiplies them again; for
/// translucent pixels that round trip may move a channel by one, well inside the default tolerance.
enum GoldenImage {
    /// The folder holding the goldens, next to this file.
    static let goldenDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Golden", isDirectory: true)

    /// Where actual and diff images of failed comparisons go.
    static let failureDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("canopy-golden", isDirectory: true)

    /// Asserts that `bitmap` matches the golden `name`.
    /// - Parameters:
    ///   - tolerance: the largest difference allowed in any channel (0...255) of a pixel.
    ///   - maxDifferingFraction: the fraction (0...1) of pixels allowed to exceed `tolerance`.
    static func assertMatches(
        _ bitmap: Bitmap, named name: String, tolerance: Int = 2, maxDifferingFraction: Double = 0.0,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            try GraphicsLibrary.initialize()
        } catch {
            XCTFail("GoldenImage: \(error)", file: file, line: line)
            return
        }
        let goldenURL = goldenDirectory.appendingPathComponent("\(name).png")
        let record = ProcessInfo.processInfo.environment["CANOPY_RECORD_GOLDEN"] == "1"
        if record || !FileManager.default.fileExists(atPath: goldenURL.path) {
            do {
                try FileManager.default.createDirectory(at: goldenDirectory, withIntermediateDirectories: true)
                try bitmap.writePNG(to: goldenURL.path)
                XCTFail("recorded golden \(name); check it by eye and re-run (\(goldenURL.path))", file: file, line: line)
            } catch {
                XCTFail("could not record golden \(name) at \(goldenURL.path): \(error)", file: file, line: line)
            }
            return
        }

        let golden: Bitmap
        do {
            golden = try ImageDecoder.decode(contentsOf: goldenURL.path)
        } catch {
            XCTFail("could not read golden \(name) at \(goldenURL.path): \(error)", file: file, line: line)
            return
        }

        guard golden.width == bitmap.width, golden.height == bitmap.height else {
            let actualPath = writeFailureImage(bitmap, name: "\(name)-actual")
            XCTFail("""
                golden \(name) is \(golden.width)x\(golden.height) px but the bitmap is \
                \(bitmap.width)x\(bitmap.height) px; actual: \(actualPath)
                """, file: file, line: line)
            return
        }

        let width = bitmap.width, height = bitmap.height
        var differing = 0
        var maxDifference = 0
        var diffPixels = [UInt8](repeating: 0, count: width * height * 4)
        bitmap.pixels.withUnsafeBufferPointer { actual in
            golden.pixels.withUnsafeBufferPointer { expected in
                diffPixels.withUnsafeMutableBufferPointer { diff in
                    for y in 0..<height {
                        for x in 0..<width {
                            let a = y * bitmap.bytesPerRow + x * 4
                            let g = y * golden.bytesPerRow + x * 4
                            var pixelDifference = 0
                            for c in 0..<4 {
                                pixelDifference = max(pixelDifference, abs(Int(actual[a + c]) - Int(expected[g + c])))
                            }
                            maxDifference = max(maxDifference, pixelDifference)
                            let d = (y * width + x) * 4
                            if pixelDifference > tolerance {
                                differing += 1
                                diff[d] = UInt8(min(255, 96 + pixelDifference * 8))
                                diff[d + 1] = 0
                                diff[d + 2] = 0
                            } else {
                                // A faded grey copy of the actual pixel, for orientation.
                                let luma = (Int(actual[a]) * 3 + Int(actual[a + 1]) * 6 + Int(actual[a + 2])) / 10
                                let grey = UInt8(160 + luma * 60 / 255)
                                diff[d] = grey; diff[d + 1] = grey; diff[d + 2] = grey
                            }
                            diff[d + 3] = 255
                        }
                    }
                }
            }
        }

        let total = max(1, width * height)
        guard Double(differing) / Double(total) > maxDifferingFraction else { return }
        let actualPath = writeFailureImage(bitmap, name: "\(name)-actual")
        let diffPath = writeFailureImage(Bitmap(width: width, height: height, pixels: diffPixels), name: "\(name)-diff")
        XCTFail("""
            golden \(name) mismatch: \(differing) of \(total) pixels differ by more than \(tolerance) \
            (max difference \(maxDifference)); actual: \(actualPath); diff: \(diffPath)
            """, file: file, line: line)
    }

    /// Writes `bitmap` to the failure folder and returns its path (or why it could not).
    private static func writeFailureImage(_ bitmap: Bitmap, name: String) -> String {
        let url = failureDirectory.appendingPathComponent("\(name).png")
        do {
            try FileManager.default.createDirectory(at: failureDirectory, withIntermediateDirectories: true)
            try bitmap.writePNG(to: url.path)
            return url.path
        } catch {
            return "(could not write \(url.path): \(error))"
        }
    }
}
