import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// A camera JPEG's embedded EXIF thumbnail: read without the image data, turned as the photo is,
/// refused when its shape differs; and offered by the cache as a quick first image only while
/// the photo's decode is neither cached nor covered by a desktop thumbnail.
final class EmbeddedThumbnailTests: XCTestCase {
    private var scratch: URL!
    private static let blue = Color(red: 0, green: 0, blue: 1)

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("EmbeddedThumbnailTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    private func camera(
        _ name: String, width: Int = 2400, height: Int = 1800, orientation: Int = 1,
        thumbnail: (color: Color, width: Int, height: Int)? = (Color(red: 1, green: 0, blue: 0), 160, 120)
    ) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try CameraJPEG.write(
            to: path, width: width, height: height, color: Self.blue, orientation: orientation, thumbnail: thumbnail)
        return path
    }

    private static func isRed(_ bitmap: Bitmap?) -> Bool {
        guard let bitmap else { return false }
        let p = bitmap.pixel(x: bitmap.width / 2, y: bitmap.height / 2)
        return p.r > 200 && p.g < 60 && p.b < 60
    }

    func testTheEmbeddedThumbnailIsReadAndTurnedAsThePhotoIs() throws {
        let upright = ImageDecoder.embeddedThumbnail(contentsOf: try camera("upright.jpg"))
        XCTAssertEqual([upright?.width, upright?.height], [160, 120])
        XCTAssertTrue(Self.isRed(upright))
        if let upright {
            for (x, y) in [(0, 0), (159, 0), (0, 119), (159, 119), (80, 60)] {
                XCTAssertEqual(upright.pixel(x: x, y: y).a, 255, "opaque at (\(x), \(y))")
            }
        }
        // Orientation 6 (turned a quarter clockwise): the photo shows 1800 x 2400, the thumbnail 120 x 160.
        let turned = ImageDecoder.embeddedThumbnail(contentsOf: try camera("turned.jpg", orientation: 6))
        XCTAssertEqual([turned?.width, turned?.height], [120, 160])
    }

    func testNoThumbnailOrOneOfAnotherShapeGivesNothing() throws {
        XCTAssertNil(ImageDecoder.embeddedThumbnail(contentsOf: try camera("none.jpg", thumbnail: nil)))
        // A 4:3 thumbnail of a 3:2 photo has bars in it.
        XCTAssertNil(ImageDecoder.embeddedThumbnail(contentsOf: try camera("wide.jpg", width: 2400, height: 1600)))
        // The check without the decode says the same.
        XCTAssertFalse(ImageDecoder.hasEmbeddedThumbnail(contentsOf: scratch.appendingPathComponent("none.jpg").path))
        XCTAssertFalse(ImageDecoder.hasEmbeddedThumbnail(contentsOf: scratch.appendingPathComponent("wide.jpg").path))
        XCTAssertTrue(ImageDecoder.hasEmbeddedThumbnail(contentsOf: try camera("square.jpg", width: 1200, height: 900)))
        let png = scratch.appendingPathComponent("plain.png").path
        try Bitmap(width: 8, height: 6, fill: Self.blue).writePNG(to: png)
        XCTAssertNil(ImageDecoder.embeddedThumbnail(contentsOf: png))
        XCTAssertNil(ImageDecoder.embeddedThumbnail(contentsOf: scratch.appendingPathComponent("missing.jpg").path))
    }

    func testTheCacheOffersAPreviewOnlyUntilThePhotoIsDecodedOrHasADesktopThumbnail() throws {
        let path = try camera("photo.jpg")
        let header = try ImageHeader.read(contentsOf: path)
        let target = CGSize(width: 320, height: 240)
        let cache = ImageCache()
        XCTAssertTrue(Self.isRed(cache.preview(contentsOf: path, header: header, fitting: target)))
        XCTAssertTrue(cache.hasPreview(contentsOf: path, header: header, fitting: target))
        let decoded = try cache.bitmap(contentsOf: path, fitting: target)
        XCTAssertEqual([decoded.width, decoded.height], [320, 240])
        XCTAssertNil(cache.preview(contentsOf: path, header: header, fitting: target), "decoded: no stand-in")
        XCTAssertFalse(cache.hasPreview(contentsOf: path, header: header, fitting: target))
        XCTAssertNotNil(cache.preview(contentsOf: path, header: header, fitting: CGSize(width: 640, height: 480)))

        // Small photos decode fast enough without one.
        let small = try camera("small.jpg", width: 1600, height: 1200)
        XCTAssertNil(cache.preview(contentsOf: small, header: try ImageHeader.read(contentsOf: small), fitting: target))

        // A desktop thumbnail that covers the target is as quick and sharp.
        let thumbnails = Thumbnails(root: scratch.appendingPathComponent("thumbnails"), software: "tests")
        let writing = ImageCache()
        writing.thumbnails = thumbnails
        _ = try writing.bitmap(contentsOf: path, fitting: target)
        Thumbnails.waitForWrites()
        let reading = ImageCache()
        reading.thumbnails = thumbnails
        XCTAssertNil(reading.preview(contentsOf: path, header: header, fitting: target))
    }
}
