import CanopyTestSupport
import Foundation
import XCTest
@testable import Canopy

/// `showsEmbeddedThumbnailFirst`: a large camera JPEG not decoded yet shows the thumbnail its EXIF
/// data carries, then the photo itself, in its own layer or in a rasterizing ancestor's bitmap.
final class ImageNodePreviewTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try MainActor.assumeIsolated { try GraphicsLibrary.initialize() }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ImageNodePreviewTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    /// A blue 2400 x 1800 photo (4.3 MP) with a red embedded thumbnail.
    private func camera() throws -> String {
        let path = scratch.appendingPathComponent("camera.jpg").path
        try CameraJPEG.write(to: path, width: 2400, height: 1800, color: Color(red: 0, green: 0, blue: 1))
        return path
    }

    private enum Seen: Equatable { case red, blue, other }

    private static func seen(_ bitmap: Bitmap?, at point: (Int, Int)? = nil) -> Seen? {
        guard let bitmap else { return nil }
        let p = bitmap.pixel(x: point?.0 ?? bitmap.width / 2, y: point?.1 ?? bitmap.height / 2)
        if p.r > 200 && p.b < 60 { return .red }
        if p.b > 200 && p.r < 60 { return .blue }
        return .other
    }

    /// Turns `loop` until `layer` shows blue, recording each distinct picture it showed.
    @MainActor
    private static func pictures(_ loop: FrameLoop, _ layer: Layer, at point: (Int, Int)? = nil) -> [Seen] {
        var shown: [Seen] = []
        TestLoop.turn(
            loop,
            until: {
                if let now = seen(layer.contents, at: point), now != shown.last { shown.append(now) }
                return shown.last == .blue
            }, "the photo never landed")
        return shown
    }

    func testTheEmbeddedThumbnailShowsFirstThenThePhoto() throws {
        let path = try camera()
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let node = ImageNode()
            node.imageCache = ImageCache()
            node.imagePath = path
            node.showsEmbeddedThumbnailFirst = true
            node.frame = CGRect(x: 0, y: 0, width: 320, height: 240)
            XCTAssertEqual(Self.pictures(loop, node.layer), [.red, .blue])
            XCTAssertEqual(node.imageScaleFactor, 1, "the photo, decoded to fit")
            XCTAssertFalse(node.isShowingEmbeddedThumbnail)
            // Its decode gone from the cache, a new display goes straight to the photo: no
            // sharp, soft, sharp flash.
            node.imageCache.removeAll()
            let shown = node.layer.contents
            node.setNeedsDisplay()
            TestLoop.turn(loop) { node.layer.contents !== shown }
            XCTAssertEqual(Self.seen(node.layer.contents), .blue)
        }
    }

    func testWithoutTheOptionOrOnceDecodedThePhotoComesAtOnce() throws {
        let path = try camera()
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let cache = ImageCache()
            let plain = ImageNode()
            plain.imageCache = cache
            plain.imagePath = path
            plain.frame = CGRect(x: 0, y: 0, width: 320, height: 240)
            XCTAssertEqual(Self.pictures(loop, plain.layer), [.blue])
            // The same decode is in the cache now: no stand-in for it.
            let second = ImageNode()
            second.imageCache = cache
            second.imagePath = path
            second.showsEmbeddedThumbnailFirst = true
            second.frame = plain.frame
            XCTAssertEqual(Self.pictures(loop, second.layer), [.blue])
        }
    }

    func testARasterizedAncestorRedrawsWithThePhoto() throws {
        let path = try camera()
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let card = DisplayNode()
            card.rasterizesSubtree = true
            card.frame = CGRect(x: 0, y: 0, width: 320, height: 300)
            let photo = ImageNode()
            photo.imageCache = ImageCache()
            photo.imagePath = path
            photo.showsEmbeddedThumbnailFirst = true
            photo.frame = CGRect(x: 0, y: 0, width: 320, height: 240)
            card.addSubnode(photo)
            XCTAssertEqual(Self.pictures(loop, card.layer, at: (160, 120)), [.red, .blue])
        }
    }
}
