import CanopyGraphics
import CanopyTestSupport
import Foundation
import Synchronization
import XCTest

/// Hostile and heavy files: an image over the pixel limit fails from its header, before a pixel
/// is read; every decoder asks its cancellation check as it goes and stops when told.
final class ImageBudgetTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("ImageBudgetTests")
    }

    override func tearDownWithError() throws {
        ImageDecoder.pixelLimit = ImageDecoder.defaultPixelLimit
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    // MARK: The pixel limit

    /// `claimedPNG` written in the scratch folder.
    private func claimedPNG(width: Int, height: Int) throws -> String {
        let path = scratch.appendingPathComponent("bomb-\(width)x\(height).png").path
        try Data(CanopyTestSupport.claimedPNG(width: width, height: height)).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAnImageOverThePixelLimitFailsFromItsHeader() throws {
        let bomb = try claimedPNG(width: 30_000, height: 30_000)
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: bomb, fitting: CGSize(width: 300, height: 300))) {
            let error = $0 as? ImageError
            XCTAssertEqual(error, .overPixelLimit(path: bomb, pixels: 900_000_000, limit: 100_000_000))
            XCTAssertEqual(error?.reason, "too large to show: 900 MP, the limit is 100 MP")
        }
        // Under a raised limit the same file is read, and fails as the garbage it is.
        ImageDecoder.pixelLimit = 1_000_000_000
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: bomb, fitting: CGSize(width: 300, height: 300))) {
            guard case .corrupt = $0 as? ImageError else { return XCTFail("expected corrupt, got \($0)") }
        }
        // The limit counts pixels, not sides: 12 MP under a limit of 10 MP.
        ImageDecoder.pixelLimit = 10_000_000
        let camera = try claimedPNG(width: 4032, height: 3024)
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: camera)) {
            XCTAssertEqual(($0 as? ImageError)?.reason, "too large to show: 12.2 MP, the limit is 10 MP")
        }
    }

    // MARK: Cancellation

    /// A cancellation check that counts its calls and says stop from call `stopAt` on.
    private final class Check: Sendable {
        let calls = Atomic<Int>(0)
        let stopAt: Int
        init(stopAt: Int) { self.stopAt = stopAt }
        var closure: @Sendable () -> Bool {
            { [self] in calls.add(1, ordering: .relaxed).newValue >= stopAt }
        }
    }

    /// 1600 x 1200 of noise in every decoder's format (noise, so that the files are big).
    private func heavyFiles() throws -> [(String, String)] {
        let source = try Fixtures.convert(["-size", "1600x1200", "xc:", "+noise", "Random"], "noise.png", in: scratch)
        return [
            ("baseline JPEG", try Fixtures.convert([source, "-quality", "90"], "baseline.jpg", in: scratch)),
            ("progressive JPEG", try Fixtures.convert([source, "-interlace", "JPEG"], "progressive.jpg", in: scratch)),
            ("PNG", source),
            ("interlaced PNG", try Fixtures.convert([source, "-interlace", "PNG"], "interlaced.png", in: scratch)),
            ("lossy WebP", try Fixtures.convert([source, "-quality", "90"], "lossy.webp", in: scratch)),
            ("lossless WebP", try Fixtures.convert([source, "-define", "webp:lossless=true"], "lossless.webp", in: scratch)),
        ]
    }

    func testEveryDecoderAsksAsItGoesAndStopsWhenTold() throws {
        for (kind, path) in try heavyFiles() {
            for target in [nil, CGSize(width: 200, height: 150)] {
                let label = "\(kind) to \(target.map { "\(Int($0.width)) x \(Int($0.height))" } ?? "full size")"
                // Never cancelled: the check is asked many times during the decode, not just around it.
                let patient = Check(stopAt: .max)
                let bitmap = try ImageDecoder.decode(contentsOf: path, fitting: target, isCancelled: patient.closure)
                XCTAssertEqual(bitmap.width, target.map { Int($0.width) } ?? 1600, label)
                XCTAssertGreaterThanOrEqual(patient.calls.load(ordering: .relaxed), 8, "\(label): asked too seldom")

                // Told to stop at the third question: it stops there, asks no more, throws cancelled.
                let impatient = Check(stopAt: 3)
                XCTAssertThrowsError(
                    try ImageDecoder.decode(contentsOf: path, fitting: target, isCancelled: impatient.closure), label
                ) {
                    XCTAssertEqual($0 as? ImageError, .cancelled(path: path), label)
                }
                XCTAssertEqual(impatient.calls.load(ordering: .relaxed), 3, "\(label): asked after being told to stop")
            }
        }
    }

    func testACancelledDecodeIsNotCachedAndTheNextCallerDecodes() throws {
        let path = try Fixtures.convert(["-size", "400x300", "gradient:red-blue"], "gradient.jpg", in: scratch)
        let cache = ImageCache(capacityBytes: 16 << 20)
        XCTAssertThrowsError(try cache.bitmap(contentsOf: path, fitting: nil, isCancelled: { true })) {
            XCTAssertEqual($0 as? ImageError, .cancelled(path: path))
        }
        XCTAssertNil(cache.cachedBitmap(for: ImageCache.Key(path: path, fitting: nil, crop: nil)))
        let bitmap = try cache.bitmap(contentsOf: path, fitting: nil)
        XCTAssertEqual(bitmap.width, 400)
        XCTAssertTrue(cache.cachedBitmap(for: ImageCache.Key(path: path, fitting: nil, crop: nil)) === bitmap)
    }
}
