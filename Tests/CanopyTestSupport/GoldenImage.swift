import CanopyGraphics
import Foundation
import XCTest

/// Two pictures compared pixel by pixel: the largest difference in any channel, how many pixels
/// differ by more than a tolerance, and a diff image to look at (those pixels in red, brighter for
/// larger differences; the rest a faded grey copy of the first picture, for orientation).
public struct ImageComparison: Sendable {
    /// The largest difference in any channel (0...255) of any pixel.
    public let maxDifference: Int
    /// The pixels whose largest channel difference is over the tolerance.
    public let differingPixels: Int
    /// The pixels compared.
    public let totalPixels: Int
    public let diff: Bitmap

    /// Compares `actual` with `expected` (the same size), per channel of premultiplied RGBA.
    public init(_ actual: Bitmap, _ expected: Bitmap, tolerance: Int) {
        precondition(actual.width == expected.width && actual.height == expected.height, "pictures of different sizes")
        let width = actual.width, height = actual.height
        var differing = 0
        var maxDifference = 0
        var diffPixels = [UInt8](repeating: 0, count: width * height * 4)
        actual.pixels.withUnsafeBufferPointer { a in
            expected.pixels.withUnsafeBufferPointer { e in
                diffPixels.withUnsafeMutableBufferPointer { diff in
                    for y in 0..<height {
                        for x in 0..<width {
                            let ai = y * actual.bytesPerRow + x * 4
                            let ei = y * expected.bytesPerRow + x * 4
                            var pixelDifference = 0
                            for c in 0..<4 {
                                pixelDifference = max(pixelDifference, abs(Int(a[ai + c]) - Int(e[ei + c])))
                            }
                            maxDifference = max(maxDifference, pixelDifference)
                            let d = (y * width + x) * 4
                            if pixelDifference > tolerance {
                                differing += 1
                                diff[d] = UInt8(min(255, 96 + pixelDifference * 8))
                                diff[d + 1] = 0
                                diff[d + 2] = 0
                            } else {
                                let luma = (Int(a[ai]) * 3 + Int(a[ai + 1]) * 6 + Int(a[ai + 2])) / 10
                                let grey = UInt8(160 + luma * 60 / 255)
                                diff[d] = grey; diff[d + 1] = grey; diff[d + 2] = grey
                            }
                            diff[d + 3] = 255
                        }
                    }
                }
            }
        }
        self.maxDifference = maxDifference
        self.differingPixels = differing
        self.totalPixels = width * height
        self.diff = Bitmap(width: width, height: height, pixels: diffPixels)
    }

    /// The fraction (0...1) of pixels over the tolerance.
    public var differingFraction: Double { Double(differingPixels) / Double(max(1, totalPixels)) }

    /// Writes pictures to `NSTemporaryDirectory()/folder/NAME.png` and returns the folder's path
    /// (or why they could not be written), for a failure message.
    public static func write(_ images: [(name: String, bitmap: Bitmap)], to folder: String) -> String {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(folder, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, bitmap) in images {
                try bitmap.writePNG(to: directory.appendingPathComponent("\(name).png").path)
            }
            return directory.path
        } catch {
            return "(could not write to \(directory.path): \(error))"
        }
    }
}

/// Compares drawn bitmaps with golden PNGs kept in a `Golden` folder beside the test file that
/// asks (`Tests/CanopyGraphicsTests/Golden/NAME.png` for the graphics tests).
///
/// Workflow:
/// - a missing golden (or `CANOPY_RECORD_GOLDEN=1` in the environment) writes the golden from the
///   actual bitmap and FAILS, asking you to look at it and re-run;
/// - a mismatch writes the actual image and a diff image (`ImageComparison`) to
///   `NSTemporaryDirectory()/canopy-golden/` and fails, naming both paths, the number of
///   differing pixels and the largest difference.
///
/// Comparison is per channel of premultiplied RGBA. Goldens are stored as PNG (straight alpha) and
/// decoded with `ImageDecoder.decode(contentsOf:)`, which premultiplies them again; for
/// translucent pixels that round trip may move a channel by one, well inside the default tolerance.
public enum GoldenImage {
    /// Where actual and diff images of failed comparisons go (under the temporary directory).
    static let failureFolder = "canopy-golden"

    /// Asserts that `bitmap` matches the golden `name`, kept in `Golden/` beside `file`.
    /// - Parameters:
    ///   - tolerance: the largest difference allowed in any channel (0...255) of a pixel.
    ///   - maxDifferingFraction: the fraction (0...1) of pixels allowed to exceed `tolerance`.
    public static func assertMatches(
        _ bitmap: Bitmap, named name: String, tolerance: Int = 2, maxDifferingFraction: Double = 0.0,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            try GraphicsLibrary.initialize()
        } catch {
            XCTFail("GoldenImage: \(error)", file: file, line: line)
            return
        }
        let goldenDirectory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
            .appendingPathComponent("Golden", isDirectory: true)
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
            let folder = ImageComparison.write([("\(name)-actual", bitmap)], to: failureFolder)
            XCTFail(
                """
                golden \(name) is \(golden.width)x\(golden.height) px but the bitmap is \
                \(bitmap.width)x\(bitmap.height) px; actual: \(folder)/\(name)-actual.png
                """, file: file, line: line)
            return
        }

        let comparison = ImageComparison(bitmap, golden, tolerance: tolerance)
        guard comparison.differingFraction > maxDifferingFraction else { return }
        let folder = ImageComparison.write(
            [("\(name)-actual", bitmap), ("\(name)-diff", comparison.diff)],
            to: failureFolder)
        XCTFail(
            """
            golden \(name) mismatch: \(comparison.differingPixels) of \(comparison.totalPixels) pixels differ \
            by more than \(tolerance) (max difference \(comparison.maxDifference)); actual: \
            \(folder)/\(name)-actual.png; diff: \(folder)/\(name)-diff.png
            """, file: file, line: line)
    }
}
