import CanopyTestSupport
import Foundation
import Synchronization
import XCTest
@testable import Canopy

/// Records, from any thread, what an image node's worker did.
private final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func add(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

final class ImageNodeTests: XCTestCase {
    private static let red = Color(red: 1, green: 0, blue: 0)
    private static let blue = Color(red: 0, green: 0, blue: 1)
    private static let green = Color(red: 0, green: 1, blue: 0)

    private static let fonts = TestFonts.registry

    private var scratch: URL!

    override func setUpWithError() throws {
        try MainActor.assumeIsolated { try GraphicsLibrary.initialize() }
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ImageNodeTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        MainActor.assumeIsolated { DisplayScheduler.shared.uninstall() }
        DisplayScheduler.shared.scale = 1
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    // MARK: Helpers

    /// A bitmap whose left half (x < width / 2) is red and right half blue.
    private static func halves(width: Int, height: Int, scale: CGFloat = 1) -> Bitmap {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let left = x < width / 2
                pixels[i] = left ? 255 : 0
                pixels[i + 1] = 0
                pixels[i + 2] = left ? 0 : 255
            }
        }
        return Bitmap(width: width, height: height, scale: scale, pixels: pixels)
    }

    /// Loads `node` at `size` and turns until its contents land; returns them.
    @MainActor
    private static func display(_ node: ImageNode, size: CGSize, scale: CGFloat = 1) -> Bitmap? {
        let (loop, _) = TestLoop.make(scale: scale)
        node.frame = CGRect(origin: .zero, size: size)
        let layer = node.layer
        TestLoop.turn(loop) { layer.contents != nil }
        return layer.contents
    }

    private static func rgba(_ bitmap: Bitmap?, _ x: Int, _ y: Int) -> [UInt8] {
        guard let bitmap else { return [] }
        let p = bitmap.pixel(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    private static let redPixel: [UInt8] = [255, 0, 0, 255]
    private static let bluePixel: [UInt8] = [0, 0, 255, 255]
    private static let clearPixel: [UInt8] = [0, 0, 0, 0]

    private func writePNG(_ bitmap: Bitmap, named name: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try bitmap.writePNG(to: path)
        return path
    }

    // MARK: Layout

    func testABitmapSizesALeafToItsSizeInPointsAndANewSizeInvalidatesLayout() {
        let node = ImageNode()
        node.image = Self.halves(width: 40, height: 20, scale: 2)
        XCTAssertEqual(node.layoutThatFits(.unconstrained).size, CGSize(width: 20, height: 10))
        node.image = Self.halves(width: 60, height: 30, scale: 1)
        XCTAssertEqual(
            node.layoutThatFits(.unconstrained).size, CGSize(width: 60, height: 30),
            "a new image size is measured again, not answered from the cache")
        node.imagePath = "/nowhere.png"
        XCTAssertEqual(node.layoutThatFits(.unconstrained).size, .zero, "a file has no size in layout")
        XCTAssertNil(node.image)
        XCTAssertEqual(node.imageURL, URL(fileURLWithPath: "/nowhere.png"))
    }

    func testConfiguringANodeNeverLaidOutInvalidatesNoLayouts() {
        let node = ImageNode()
        let generation = LayoutCache.generation
        node.image = Self.halves(width: 4, height: 4)
        node.image = Self.halves(width: 8, height: 4)
        XCTAssertEqual(LayoutCache.generation, generation)
        _ = node.layoutThatFits(.unconstrained)
        node.image = Self.halves(width: 8, height: 8)
        XCTAssertGreaterThan(LayoutCache.generation, generation, "a measured node's new size invalidates")
    }

    // MARK: Content modes

    func testEachContentModePlacesTheImage() {
        MainActor.assumeIsolated {
            let wide = Self.halves(width: 40, height: 20)  // red | blue
            let small = Self.halves(width: 10, height: 6)
            struct Case {
                let mode: ContentMode
                let image: Bitmap
                let crop: CGRect
                let expected: [(x: Int, y: Int, rgba: [UInt8])]
            }
            let centredCrop = ImageNode.defaultCropRect
            let cases: [Case] = [
                // 40 x 20 filling 20 x 20: drawn 40 x 20 from x = -10, its middle showing.
                Case(
                    mode: .aspectFill, image: wide, crop: centredCrop,
                    expected: [(2, 10, Self.redPixel), (17, 10, Self.bluePixel)]),
                // The crop's origin keeps the left edge, or the right one.
                Case(
                    mode: .aspectFill, image: wide, crop: CGRect(x: 0, y: 0.5, width: 0, height: 0),
                    expected: [(2, 10, Self.redPixel), (17, 10, Self.redPixel)]),
                Case(
                    mode: .aspectFill, image: wide, crop: CGRect(x: 1, y: 0.5, width: 0, height: 0),
                    expected: [(2, 10, Self.bluePixel), (17, 10, Self.bluePixel)]),
                // A non-empty crop: the right half of the image, stretched to the bounds (Texture).
                Case(
                    mode: .aspectFill, image: wide, crop: CGRect(x: 0.5, y: 0, width: 0.5, height: 1),
                    expected: [(2, 10, Self.bluePixel), (17, 10, Self.bluePixel), (10, 1, Self.bluePixel)]),
                // Drawn 20 x 10 from y = 5: letterboxed.
                Case(
                    mode: .aspectFit, image: wide, crop: centredCrop,
                    expected: [
                        (5, 10, Self.redPixel), (15, 10, Self.bluePixel),
                        (10, 2, Self.clearPixel), (10, 17, Self.clearPixel),
                    ]),
                // Stretched to 20 x 20.
                Case(
                    mode: .scaleToFill, image: wide, crop: centredCrop,
                    expected: [(5, 1, Self.redPixel), (15, 18, Self.bluePixel)]),
                // 10 x 6 at its own size, at (5, 7).
                Case(
                    mode: .center, image: small, crop: centredCrop,
                    expected: [
                        (7, 10, Self.redPixel), (12, 10, Self.bluePixel),
                        (10, 5, Self.clearPixel), (3, 10, Self.clearPixel), (10, 14, Self.clearPixel),
                    ]),
                Case(
                    mode: .topLeft, image: small, crop: centredCrop,
                    expected: [
                        (1, 1, Self.redPixel), (8, 4, Self.bluePixel), (12, 2, Self.clearPixel),
                        (2, 8, Self.clearPixel),
                    ]),
                Case(
                    mode: .bottomRight, image: small, crop: centredCrop,
                    expected: [
                        (11, 15, Self.redPixel), (18, 19, Self.bluePixel), (8, 17, Self.clearPixel),
                        (15, 12, Self.clearPixel),
                    ]),
                Case(
                    mode: .top, image: small, crop: centredCrop,
                    expected: [(6, 0, Self.redPixel), (13, 5, Self.bluePixel), (10, 7, Self.clearPixel)]),
                Case(
                    mode: .right, image: small, crop: centredCrop,
                    expected: [(11, 7, Self.redPixel), (19, 12, Self.bluePixel), (5, 10, Self.clearPixel)]),
            ]
            for item in cases {
                let node = ImageNode()
                node.image = item.image
                node.contentMode = item.mode
                node.cropRect = item.crop
                let contents = Self.display(node, size: CGSize(width: 20, height: 20))
                XCTAssertEqual(contents?.width, 20, "\(item.mode)")
                XCTAssertEqual(contents?.height, 20, "\(item.mode)")
                for point in item.expected {
                    XCTAssertEqual(
                        Self.rgba(contents, point.x, point.y), point.rgba,
                        "\(item.mode), crop \(item.crop), pixel (\(point.x), \(point.y))")
                }
                DisplayScheduler.shared.uninstall()
            }
        }
    }

    func testTheDefaultsAreTextures() {
        let node = ImageNode()
        XCTAssertEqual(node.contentMode, .aspectFill)
        XCTAssertEqual(node.cropRect, CGRect(x: 0.5, y: 0.5, width: 0, height: 0))
        XCTAssertFalse(node.forceUpscaling)
        XCTAssertNil(node.imageModificationBlock)
        XCTAssertTrue(node.drawsContents)
    }

    func testAChangedContentModeRedisplays() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let node = ImageNode()
            node.image = Self.halves(width: 40, height: 20)
            node.cropRect = CGRect(x: 0, y: 0.5, width: 0, height: 0)
            node.frame = CGRect(x: 0, y: 0, width: 20, height: 20)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(Self.rgba(layer.contents, 17, 10), Self.redPixel)
            node.contentMode = .aspectFit
            TestLoop.turn(loop) { Self.rgba(layer.contents, 17, 10) == Self.bluePixel }
            XCTAssertEqual(Self.rgba(layer.contents, 10, 2), Self.clearPixel)
        }
    }

    // MARK: Pixel sizes

    func testWithoutForceUpscalingASmallImageGetsASmallerBitmap() {
        MainActor.assumeIsolated {
            // 10 x 10 aspect-filling 40 x 40 points at scale 2: enlarged 8 times on screen.
            let node = ImageNode()
            node.image = Self.halves(width: 10, height: 10)
            let contents = Self.display(node, size: CGSize(width: 40, height: 40), scale: 2)
            XCTAssertEqual(contents?.width, 10, "no image pixel is drawn bigger than one bitmap pixel")
            XCTAssertEqual(contents?.height, 10)
            XCTAssertEqual(Self.rgba(contents, 0, 0), Self.redPixel)
            XCTAssertEqual(Self.rgba(contents, 9, 9), Self.bluePixel)
            DisplayScheduler.shared.uninstall()

            let forced = ImageNode()
            forced.image = Self.halves(width: 10, height: 10)
            forced.forceUpscaling = true
            let full = Self.display(forced, size: CGSize(width: 40, height: 40), scale: 2)
            XCTAssertEqual(full?.width, 80, "forceUpscaling draws at the bounds' pixel size")
            XCTAssertEqual(full?.height, 80)
            DisplayScheduler.shared.uninstall()

            // Stretched 4 times across and not at all down: only the width shrinks.
            let tall = ImageNode()
            tall.image = Self.halves(width: 10, height: 40)
            tall.contentMode = .scaleToFill
            let stretched = Self.display(tall, size: CGSize(width: 40, height: 40))
            XCTAssertEqual(stretched?.width, 10)
            XCTAssertEqual(stretched?.height, 40)
            DisplayScheduler.shared.uninstall()

            // An image with pixels to spare fills the bounds' pixels.
            let big = ImageNode()
            big.image = Self.halves(width: 400, height: 200)
            let large = Self.display(big, size: CGSize(width: 30, height: 20), scale: 2)
            XCTAssertEqual(large?.width, 60)
            XCTAssertEqual(large?.height, 40)
        }
    }

    func testAFileIsDecodedOffTheMainThreadToThePixelsItCovers() throws {
        let path = try writePNG(Self.halves(width: 400, height: 200), named: "wide.png")
        try MainActor.assumeIsolated {
            for (mode, fitting, decoded) in [
                // 50 x 50 points at scale 2 = 100 x 100 pixels.
                (ContentMode.aspectFill, CGSize(width: 100, height: 100), (200, 100)),
                (.aspectFit, CGSize(width: 100, height: 50), (100, 50)),
                (.scaleToFill, CGSize(width: 100, height: 100), (200, 100)),
            ] {
                let cache = ImageCache()
                let decodes = Recorder<(path: String, fitting: CGSize?, crop: ImageDecoder.Crop?, onMain: Bool)>()
                let node = ImageNode()
                node.imageCache = cache
                node.imagePath = path
                node.contentMode = mode
                node.decodeObserver = { path, fitting, crop in decodes.add((path, fitting, crop, Thread.isMainThread)) }
                let contents = Self.display(node, size: CGSize(width: 50, height: 50), scale: 2)
                XCTAssertEqual(contents?.width, 100, "\(mode)")
                XCTAssertEqual(contents?.height, 100, "\(mode)")
                XCTAssertEqual(decodes.all.map(\.onMain), [false], "\(mode): decoded once, on a worker")
                XCTAssertEqual(decodes.all.first?.fitting, fitting, "\(mode)")
                XCTAssertNil(decodes.all.first?.crop, "\(mode): half of it shows, so the whole file is decoded")
                let keys = cache.keysByRecentUse
                XCTAssertEqual(keys, [ImageCache.Key(path: path, fitting: fitting)], "\(mode)")
                for key in keys {
                    XCTAssertLessThanOrEqual(key.fitting?.width ?? .infinity, 100, "never more than the bounds' pixels")
                    XCTAssertLessThanOrEqual(key.fitting?.height ?? .infinity, 100)
                    let bitmap = try XCTUnwrap(cache.cachedBitmap(for: key))
                    XCTAssertEqual(bitmap.width, decoded.0, "\(mode): decoded to cover what is drawn, no more")
                    XCTAssertEqual(bitmap.height, decoded.1, "\(mode)")
                }
                XCTAssertNil(node.lastError)
                DisplayScheduler.shared.uninstall()
            }
        }
    }

    /// A `width` x `height` bitmap of vertical stripes `stripe` px wide: red, green, blue,
    /// white, black, over and over.
    private static func stripes(width: Int, height: Int, stripe: Int) -> Bitmap {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255], [0, 0, 0]]
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4, c = colours[(x / stripe) % colours.count]
                pixels[i] = c[0]
                pixels[i + 1] = c[1]
                pixels[i + 2] = c[2]
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// A 4000 x 20 file aspect-filled into a small node shows about 40 of its columns: only
    /// those are decoded, no bigger than the node's pixels, and the node looks as it does with
    /// the whole image drawn (the same bitmap given in memory).
    func testAMostlyHiddenFileDecodesOnlyItsVisiblePart() throws {
        let image = Self.stripes(width: 4000, height: 20, stripe: 4)
        let path = try writePNG(image, named: "panorama.png")
        try MainActor.assumeIsolated {
            // (bounds, scale, crop origin, expected crop)
            let cases: [(CGSize, CGFloat, CGPoint, ImageDecoder.Crop)] = [
                // 2.5 pt a pixel: 100 pt show columns 1980 ..< 2020, rounded out to multiples of 8.
                (CGSize(width: 100, height: 50), 1, CGPoint(x: 0.5, y: 0.5), .init(x: 1976, y: 0, width: 48, height: 20)),
                (CGSize(width: 100, height: 50), 2, CGPoint(x: 0.5, y: 0.5), .init(x: 1976, y: 0, width: 48, height: 20)),
                // 33 pt show columns 1993.4 ..< 2006.6: 1992 ..< 2008.
                (CGSize(width: 33, height: 50), 1, CGPoint(x: 0.5, y: 0.5), .init(x: 1992, y: 0, width: 16, height: 20)),
                (CGSize(width: 33, height: 50), 3, CGPoint(x: 0.5, y: 0.5), .init(x: 1992, y: 0, width: 16, height: 20)),
                // The left edge kept: columns 0 ..< 40.
                (CGSize(width: 100, height: 50), 2, CGPoint(x: 0, y: 0.5), .init(x: 0, y: 0, width: 40, height: 20)),
                // 5 pt a pixel and 4000 x 20 shown in 37 x 100: columns 1996.3 ..< 2003.7: 1992 ..< 2008.
                (CGSize(width: 37, height: 100), 2, CGPoint(x: 0.5, y: 0.5), .init(x: 1992, y: 0, width: 16, height: 20)),
            ]
            for (bounds, scale, origin, expectedCrop) in cases {
                let context = "\(bounds) at \(scale)x, crop origin \(origin)"
                let cache = ImageCache()
                let decodes = Recorder<(fitting: CGSize?, crop: ImageDecoder.Crop?)>()
                let node = ImageNode()
                node.imageCache = cache
                node.imagePath = path
                node.cropRect = CGRect(origin: origin, size: .zero)
                node.decodeObserver = { _, fitting, crop in decodes.add((fitting, crop)) }
                let cropped = try XCTUnwrap(Self.display(node, size: bounds, scale: scale), context)
                DisplayScheduler.shared.uninstall()
                XCTAssertEqual(decodes.all.map(\.crop), [expectedCrop], context)
                let bitmaps = cache.keysByRecentUse.compactMap { cache.cachedBitmap(for: $0) }
                XCTAssertEqual(bitmaps.count, 1, context)
                let nodePixels = (
                    width: Int((bounds.width * scale).rounded(.up)), height: Int((bounds.height * scale).rounded(.up))
                )
                for bitmap in bitmaps {
                    XCTAssertEqual([bitmap.width, bitmap.height], [expectedCrop.width, expectedCrop.height], context)
                    XCTAssertLessThanOrEqual(bitmap.width, nodePixels.width, context)
                    XCTAssertLessThanOrEqual(bitmap.height, nodePixels.height, context)
                }
                // The file holds fewer pixels than are shown: the factor is below 1 as before.
                let whole = 20 / (bounds.height * scale)
                XCTAssertEqual(node.imageScaleFactor ?? -1, whole, accuracy: 0.05 * whole, context)
                XCTAssertNil(node.lastError, context)

                // The same image given whole, in memory.
                let reference = ImageNode()
                reference.image = image
                reference.cropRect = node.cropRect
                let expected = try XCTUnwrap(Self.display(reference, size: bounds, scale: scale), context)
                DisplayScheduler.shared.uninstall()
                XCTAssertEqual([cropped.width, cropped.height], [expected.width, expected.height], context)
                var worst = 0, differing = 0
                for y in stride(from: 0, to: cropped.height, by: max(1, cropped.height / 4)) {
                    for x in 0..<cropped.width {
                        let a = Self.rgba(cropped, x, y), b = Self.rgba(expected, x, y)
                        let difference = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        worst = max(worst, difference)
                        if difference > 2 { differing += 1 }
                    }
                }
                XCTAssertEqual(differing, 0, "\(context): the largest difference is \(worst)")
            }
        }
    }

    /// A crop of a file shown smaller than its pixels: the crop's edges are rounded out to
    /// multiples of 8 of the file's pixels, so the decode may overflow the bounds by under 8 of
    /// them at each edge (here 2 x 4 screen pixels at 1x, 2 x 8 at 2x), and no more; the picture
    /// is that of the whole image. 8000 x 100 aspect-filled in 100 x 50 pt shows columns
    /// 3900 ..< 4100, rounded out to 3896 ..< 4104.
    func testADownscaledCropOverflowsTheBoundsByLessThanItsRounding() throws {
        let image = Self.stripes(width: 8000, height: 100, stripe: 16)
        let path = try writePNG(image, named: "wide-panorama.png")
        try MainActor.assumeIsolated {
            let bounds = CGSize(width: 100, height: 50)
            for scale: CGFloat in [1, 2] {
                let context = "at \(scale)x"
                let cache = ImageCache()
                let decodes = Recorder<ImageDecoder.Crop?>()
                let node = ImageNode()
                node.imageCache = cache
                node.imagePath = path
                node.decodeObserver = { _, _, crop in decodes.add(crop) }
                let cropped = try XCTUnwrap(Self.display(node, size: bounds, scale: scale), context)
                DisplayScheduler.shared.uninstall()
                XCTAssertEqual(decodes.all, [ImageDecoder.Crop(x: 3896, y: 0, width: 208, height: 100)], context)
                let bitmaps = cache.keysByRecentUse.compactMap { cache.cachedBitmap(for: $0) }
                XCTAssertEqual(bitmaps.map { [$0.width, $0.height] }, [[Int(104 * scale), Int(50 * scale)]], context)
                // Image pixels per screen pixel: 2 at 1x, 1 at 2x; 8 of them at each edge at most.
                let overflow = Int((2 * 8 / (2 / scale)).rounded(.up))
                for bitmap in bitmaps {
                    XCTAssertLessThanOrEqual(bitmap.width, Int(bounds.width * scale) + overflow, context)
                    XCTAssertLessThanOrEqual(bitmap.height, Int(bounds.height * scale) + overflow, context)
                }
                let reference = ImageNode()
                reference.image = image
                let expected = try XCTUnwrap(Self.display(reference, size: bounds, scale: scale), context)
                DisplayScheduler.shared.uninstall()
                XCTAssertEqual([cropped.width, cropped.height], [expected.width, expected.height], context)
                var worst = 0
                for y in [0, cropped.height / 2, cropped.height - 1] {
                    for x in 0..<cropped.width {
                        let difference =
                            zip(Self.rgba(cropped, x, y), Self.rgba(expected, x, y)).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        worst = max(worst, difference)
                    }
                }
                XCTAssertLessThanOrEqual(worst, 2, context)
            }
        }
    }

    /// The crop threshold: an aspect-filled image showing at least half its pixels is decoded
    /// whole, as before. 300 x 100 in 149 pt shows columns 75.5 ..< 224.5, rounded outward (to
    /// multiples of 8) to 72 ..< 232, over half: whole. In 140 pt, columns 80 ..< 224 (144,
    /// under half): cropped.
    func testAMostlyVisibleFileIsDecodedWhole() throws {
        let path = try writePNG(Self.stripes(width: 300, height: 100, stripe: 10), named: "wide.png")
        try MainActor.assumeIsolated {
            for (bounds, cropped) in [
                (CGSize(width: 150, height: 100), false), (CGSize(width: 149, height: 100), false),
                (CGSize(width: 140, height: 100), true),
            ] {
                let decodes = Recorder<ImageDecoder.Crop?>()
                let node = ImageNode()
                node.imageCache = ImageCache()
                node.imagePath = path
                node.decodeObserver = { _, _, crop in decodes.add(crop) }
                _ = try XCTUnwrap(Self.display(node, size: bounds))
                DisplayScheduler.shared.uninstall()
                XCTAssertEqual(decodes.all.count, 1)
                XCTAssertEqual(decodes.all.first.map { $0 != nil }, cropped, "\(bounds)")
                XCTAssertEqual(node.imageScaleFactor ?? -1, 1, accuracy: 1e-9, "\(bounds): decoded to fit reads 1")
            }
        }
    }

    func testAFileImageIsDrawnWithItsPixels() throws {
        let path = try writePNG(Self.halves(width: 40, height: 20), named: "small.png")
        MainActor.assumeIsolated {
            let node = ImageNode()
            node.imageCache = ImageCache()
            node.imageURL = URL(fileURLWithPath: path)
            node.contentMode = .aspectFit
            let contents = Self.display(node, size: CGSize(width: 40, height: 40))
            XCTAssertEqual(contents?.width, 40)
            XCTAssertEqual(Self.rgba(contents, 5, 20), Self.redPixel)
            XCTAssertEqual(Self.rgba(contents, 35, 20), Self.bluePixel)
            XCTAssertEqual(Self.rgba(contents, 20, 5), Self.clearPixel)
            XCTAssertEqual(node.imageScaleFactor, 1)
        }
    }

    // MARK: A shared decode

    /// A background aspect-filled behind the whole of a rasterized parent, drawn from the decode
    /// of a photo aspect-fit across its top: the file is decoded once, to the photo's pixels, and
    /// the background enlarges that bitmap to its own placement (and says so in its factor).
    func testTwoNodesOfOneFileShareTheSmallerNodesDecode() throws {
        let path = try writePNG(Self.halves(width: 400, height: 200), named: "photo.png")
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make(scale: 2)
            let cache = ImageCache()
            let decodes = Recorder<(node: String, fitting: CGSize?, crop: ImageDecoder.Crop?)>()
            let parent = DisplayNode()
            parent.rasterizesSubtree = true
            parent.frame = CGRect(x: 0, y: 0, width: 100, height: 100)
            let background = ImageNode(), photo = ImageNode()
            for (name, node) in [("background", background), ("photo", photo)] {
                node.imageCache = cache
                node.imagePath = path
                node.decodeObserver = { _, fitting, crop in decodes.add((name, fitting, crop)) }
                parent.addSubnode(node)
            }
            background.frame = CGRect(x: 0, y: 0, width: 100, height: 100)
            photo.frame = CGRect(x: 0, y: 0, width: 100, height: 50)
            photo.contentMode = .aspectFit
            background.decodeSharedWith = photo
            let layer = parent.layer
            TestLoop.turn(loop) { layer.contents != nil }

            // The photo's 100 x 50 points at 2x: 200 x 100 pixels, asked for by both nodes.
            let fitting = CGSize(width: 200, height: 100)
            XCTAssertEqual(decodes.all.map(\.node), ["background", "photo"])
            XCTAssertEqual(decodes.all.map(\.fitting), [fitting, fitting])
            XCTAssertEqual(decodes.all.map { $0.crop == nil }, [true, true], "the whole file, not the background's crop")
            XCTAssertEqual(cache.keysByRecentUse, [ImageCache.Key(path: path, fitting: fitting)])
            XCTAssertEqual(cache.statistics.misses, 1, "decoded once")
            XCTAssertEqual(cache.statistics.hits, 1, "the second node took it from the cache")
            // The background shows the image 200 x 100 points wide (400 x 200 pixels) from a
            // decode of 200 x 100 pixels; the photo shows that decode pixel for pixel.
            XCTAssertEqual(background.imageScaleFactor ?? -1, 0.5, accuracy: 1e-9)
            XCTAssertEqual(photo.imageScaleFactor ?? -1, 1, accuracy: 1e-9)
            // Below the photo, the background: its centre is the image's middle, red | blue.
            XCTAssertEqual(Self.rgba(layer.contents, 40, 150), Self.redPixel)
            XCTAssertEqual(Self.rgba(layer.contents, 160, 150), Self.bluePixel)
            // The photo, aspect-fit across the top.
            XCTAssertEqual(Self.rgba(layer.contents, 40, 50), Self.redPixel)
            XCTAssertEqual(Self.rgba(layer.contents, 160, 50), Self.bluePixel)
        }
    }

    /// A node decodes as if it had no partner when the partner shows another file, has no
    /// bounds yet, or decodes a crop of a mostly hidden image (there is no whole-file decode to
    /// share), or is the node itself.
    func testADecodeIsSharedOnlyWithANodeThatDecodesTheSameWholeFile() throws {
        let path = try writePNG(Self.halves(width: 400, height: 200), named: "photo.png")
        let other = try writePNG(Self.halves(width: 40, height: 20), named: "other.png")
        try MainActor.assumeIsolated {
            /// The decode `node` asks for, displayed alone at 25 x 50 points at 2x.
            @MainActor func decode(
                of node: ImageNode, cache: ImageCache? = nil
            ) throws -> (fitting: CGSize?, crop: ImageDecoder.Crop?) {
                let decodes = Recorder<(fitting: CGSize?, crop: ImageDecoder.Crop?)>()
                // The partner's cache, if it has one (only a decode in the same cache is shared).
                node.imageCache = cache ?? node.decodeSharedWith?.imageCache ?? ImageCache()
                node.imagePath = path
                node.decodeObserver = { _, fitting, crop in decodes.add((fitting, crop)) }
                _ = try XCTUnwrap(Self.display(node, size: CGSize(width: 25, height: 50), scale: 2))
                DisplayScheduler.shared.uninstall()
                return try XCTUnwrap(decodes.all.first)
            }
            let alone = try decode(of: ImageNode())
            XCTAssertNotNil(alone.crop, "a quarter of the image shows: a crop")

            func partner(_ path: String, size: CGSize, mode: ContentMode = .aspectFit) -> ImageNode {
                let node = ImageNode()
                node.imageCache = ImageCache()
                node.imagePath = path
                node.contentMode = mode
                node.frame = CGRect(origin: .zero, size: size)
                return node
            }
            let cases: [(String, ImageNode)] = [
                ("another file", partner(other, size: CGSize(width: 100, height: 50))),
                ("not laid out", partner(path, size: .zero)),
                ("decodes a crop", partner(path, size: CGSize(width: 10, height: 100), mode: .aspectFill)),
            ]
            // Another cache: the node keeps its own.
            let elsewhere = ImageNode()
            elsewhere.decodeSharedWith = partner(path, size: CGSize(width: 100, height: 50))
            XCTAssertEqual(try decode(of: elsewhere, cache: ImageCache()).crop, alone.crop, "another cache")
            let shares = partner(path, size: CGSize(width: 100, height: 50))
            let sharesWith = partner(path, size: CGSize(width: 100, height: 50))  // held: the link is weak
            shares.decodeSharedWith = sharesWith
            for (name, partner) in cases + [("shares another's decode itself", shares)] {
                let node = ImageNode()
                node.decodeSharedWith = partner
                let asked = try decode(of: node)
                XCTAssertEqual(asked.fitting, alone.fitting, name)
                XCTAssertEqual(asked.crop, alone.crop, name)
            }
            withExtendedLifetime(sharesWith) {}
            let itself = ImageNode()
            itself.decodeSharedWith = itself
            XCTAssertEqual(try decode(of: itself).crop, alone.crop, "itself")

            // The same file, decoded whole: shared, even displayed apart.
            let photo = partner(path, size: CGSize(width: 100, height: 50))
            let node = ImageNode()
            node.decodeSharedWith = photo
            let shared = try decode(of: node)
            XCTAssertEqual(shared.fitting, CGSize(width: 200, height: 100))
            XCTAssertNil(shared.crop)
            XCTAssertIdentical(node.decodeSharedWith, photo)
        }
    }

    func testThePartnerIsHeldWeakly() {
        let node = ImageNode()
        do {
            let partner = ImageNode()
            node.decodeSharedWith = partner
            XCTAssertNotNil(node.decodeSharedWith)
        }
        XCTAssertNil(node.decodeSharedWith)
    }

    // MARK: Preloading

    /// `preload` decodes on the calling thread what the display will ask for; the display then
    /// takes it from the cache. Without a file or bounds, or with a file that cannot be read,
    /// nothing is cached.
    func testPreloadingDecodesWhatTheDisplayThenFindsInTheCache() throws {
        let path = try writePNG(Self.halves(width: 400, height: 200), named: "photo.png")
        let missingPath = scratch.appendingPathComponent("missing.png").path
        try MainActor.assumeIsolated {
            let cache = ImageCache()
            let decodes = Recorder<(fitting: CGSize?, crop: ImageDecoder.Crop?)>()
            let node = ImageNode()
            node.imageCache = cache
            node.imagePath = path
            node.contentMode = .aspectFit
            node.decodeObserver = { _, fitting, crop in decodes.add((fitting, crop)) }
            XCTAssertFalse(node.preload(scale: 2), "no bounds yet")
            XCTAssertEqual(cache.count, 0)
            node.frame = CGRect(x: 0, y: 0, width: 100, height: 50)
            let preloaded = DispatchQueue.global().sync { node.preload(scale: 2) }
            XCTAssertTrue(preloaded)
            XCTAssertEqual(cache.keysByRecentUse, [ImageCache.Key(path: path, fitting: CGSize(width: 200, height: 100))])
            XCTAssertEqual(cache.statistics.misses, 1)
            XCTAssertNil(node.imageScaleFactor, "a preload is not a display: nothing is published")
            _ = try XCTUnwrap(Self.display(node, size: CGSize(width: 100, height: 50), scale: 2))
            XCTAssertEqual(decodes.all.count, 2)
            XCTAssertEqual(decodes.all.map(\.fitting), [CGSize(width: 200, height: 100), CGSize(width: 200, height: 100)])
            XCTAssertEqual(cache.statistics.misses, 1, "the display decoded nothing")
            XCTAssertEqual(cache.statistics.hits, 1)
            XCTAssertEqual(node.imageScaleFactor, 1)

            let sized = CGRect(x: 0, y: 0, width: 10, height: 10)
            let bitmap = ImageNode()
            bitmap.imageCache = cache
            bitmap.image = Self.halves(width: 8, height: 8)
            bitmap.frame = sized
            XCTAssertFalse(bitmap.preload(scale: 1), "a bitmap has nothing to decode")
            let missing = ImageNode()
            missing.imageCache = cache
            missing.imagePath = missingPath
            missing.frame = sized
            XCTAssertFalse(missing.preload(scale: 1))
            XCTAssertNil(missing.lastError, "the error is the display's to report")
            XCTAssertEqual(cache.count, 1, "nothing more cached")
        }
    }

    // MARK: The modification block

    func testTheModificationBlockRunsOnTheWorkerOnTheDrawnBitmap() {
        MainActor.assumeIsolated {
            let calls = Recorder<(width: Int, height: Int, cancelled: Bool, onMain: Bool)>()
            let node = ImageNode()
            node.image = Self.halves(width: 10, height: 10)
            node.imageModificationBlock = { bitmap, isCancelled in
                calls.add((bitmap.width, bitmap.height, isCancelled(), Thread.isMainThread))
                return Bitmap(width: bitmap.width, height: bitmap.height, fill: Self.green)
            }
            let contents = Self.display(node, size: CGSize(width: 20, height: 20))
            XCTAssertEqual(calls.all.count, 1)
            XCTAssertEqual(calls.all.first?.width, 10, "it gets the bitmap as drawn (here at the image's pixels)")
            XCTAssertEqual(calls.all.first?.cancelled, false)
            XCTAssertEqual(calls.all.first?.onMain, false)
            XCTAssertEqual(Self.rgba(contents, 5, 5), [0, 255, 0, 255], "its result is what is shown")
        }
    }

    func testACancelledDisplayNeverSetsContents() {
        MainActor.assumeIsolated {
            let (loop, group) = TestLoop.make()
            let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
            let sawCancelled = Recorder<Bool>()
            let node = ImageNode()
            node.image = Self.halves(width: 10, height: 10)
            node.imageModificationBlock = { bitmap, isCancelled in
                started.signal()
                _ = gate.wait(timeout: HangGuard.deadline)
                sawCancelled.add(isCancelled())
                return bitmap
            }
            node.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let layer = node.layer
            loop.runTurn()
            XCTAssertEqual(started.wait(timeout: HangGuard.deadline), .success)
            node.cancelDisplay()
            gate.signal()
            TestLoop.turn(loop) { group.pendingCount == 0 }
            for _ in 0..<3 { loop.runTurn() }
            XCTAssertEqual(sawCancelled.all, [true], "the block saw its display cancelled")
            XCTAssertNil(layer.contents, "a cancelled display sets no contents")
            XCTAssertNil(node.imageScaleFactor)

            // The next display lands.
            node.imageModificationBlock = { bitmap, _ in bitmap }
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(node.imageScaleFactor, 1)
        }
    }

    func testADisplayCancelledAfterTheBlockReturnsNothing() {
        // The class-level display itself: a cancellation seen after the block gives no bitmap.
        MainActor.assumeIsolated {
            let node = ImageNode()
            node.image = Self.halves(width: 10, height: 10)
            let cancelled = Atomic<Bool>(false)
            node.imageModificationBlock = { bitmap, _ in
                cancelled.store(true, ordering: .relaxed)
                return bitmap
            }
            node.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let parameters = node.drawParameters()
            let result = ImageNode.display(
                parameters, size: CGSize(width: 10, height: 10), scale: 1,
                isCancelled: { cancelled.load(ordering: .relaxed) })
            XCTAssertNil(result)
            cancelled.store(false, ordering: .relaxed)
            XCTAssertNotNil(
                ImageNode.display(
                    node.drawParameters(), size: CGSize(width: 10, height: 10),
                    scale: 1, isCancelled: { false }))
        }
    }

    // MARK: Errors

    func testAMissingFileDrawsItsReasonAndSetsLastError() {
        let path = scratch.appendingPathComponent("missing.png").path
        MainActor.assumeIsolated {
            let node = ImageNode()
            node.fonts = Self.fonts
            node.imageCache = ImageCache()
            node.imagePath = path
            XCTAssertNil(node.lastError, "nothing is known before a display")
            let contents = Self.display(node, size: CGSize(width: 120, height: 60))
            XCTAssertEqual(node.lastError, .fileMissing(path: path))
            XCTAssertNil(node.imageScaleFactor)
            guard let contents else { return XCTFail("no error state drawn") }
            XCTAssertEqual(contents.width, 120)
            XCTAssertEqual(contents.height, 60)
            XCTAssertEqual(Self.rgba(contents, 1, 1), [217, 217, 217, 255], "a neutral grey box")
            var ink = 0
            for y in 0..<contents.height {
                for x in 0..<contents.width where contents.pixel(x: x, y: y).r < 160 { ink += 1 }
            }
            XCTAssertGreaterThan(ink, 50, "the reason is written in the box")
        }
    }

    func testWithoutTheErrorStateAFailedFileLeavesNoContentsButSetsLastError() {
        let path = scratch.appendingPathComponent("missing.png").path
        MainActor.assumeIsolated {
            let node = ImageNode()
            node.fonts = Self.fonts
            node.imageCache = ImageCache()
            node.imagePath = path
            XCTAssertTrue(node.drawsErrorState, "on by default")
            node.drawsErrorState = false
            let (loop, _) = TestLoop.make(scale: 1)
            node.frame = CGRect(x: 0, y: 0, width: 120, height: 60)
            let layer = node.layer
            TestLoop.turn(loop) { node.lastError != nil }
            XCTAssertEqual(node.lastError, .fileMissing(path: path))
            XCTAssertNil(layer.contents, "nothing drawn")
            // Drawn into a rasterizing ancestor: nothing there either.
            let context = GraphicsContext(size: CGSize(width: 120, height: 60), scale: 1)
            ImageNode.draw(node.drawParameters(), in: context, isCancelled: { false })
            XCTAssertEqual(Self.rgba(context.makeBitmap(), 60, 30), [0, 0, 0, 0])
        }
    }

    func testACorruptFileSetsLastErrorAndAFixedOneClearsIt() throws {
        let path = scratch.appendingPathComponent("corrupt.png").path
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]  // PNG signature
        bytes += [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 16, 0, 0, 0, 16, 8, 6, 0, 0, 0, 0, 0, 0, 0]
        bytes += (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let good = try writePNG(Self.halves(width: 20, height: 20), named: "good.png")
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let node = ImageNode()
            node.fonts = Self.fonts
            node.imageCache = ImageCache()
            node.imagePath = path
            node.frame = CGRect(x: 0, y: 0, width: 80, height: 40)
            let layer = node.layer
            TestLoop.turn(loop) { layer.contents != nil }
            let error = node.lastError
            XCTAssertNotNil(error, "a corrupt file is an ImageError")
            XCTAssertFalse(error?.description.isEmpty ?? true)
            XCTAssertTrue(error?.description.hasPrefix("corrupt.png") ?? false, error?.description ?? "")
            XCTAssertEqual(Self.rgba(layer.contents, 0, 0), [217, 217, 217, 255])

            node.imagePath = good
            TestLoop.turn(loop) { node.lastError == nil }
            XCTAssertEqual(Self.rgba(layer.contents, 0, 0), Self.redPixel)
            XCTAssertEqual(node.imageScaleFactor, 0.25, "20 pixels drawn across 80")
        }
    }

    // MARK: The scale factor

    func testTheScaleFactorIsTheSourcesPixelsOverTheScreenPixelsTheyCover() {
        MainActor.assumeIsolated {
            // (image pixels, bitmap scale, mode, bounds, display scale, expected)
            let cases: [(CGSize, CGFloat, ContentMode, CGSize, CGFloat, CGFloat)] = [
                (CGSize(width: 40, height: 20), 1, .aspectFill, CGSize(width: 20, height: 20), 1, 1),
                (CGSize(width: 40, height: 20), 1, .aspectFit, CGSize(width: 20, height: 20), 1, 2),
                (CGSize(width: 40, height: 20), 1, .aspectFit, CGSize(width: 40, height: 40), 2, 0.5),
                (CGSize(width: 400, height: 200), 1, .aspectFill, CGSize(width: 50, height: 50), 2, 2),
                // Stretched: 4x too many pixels across, 2x too few down; the larger ratio.
                (CGSize(width: 80, height: 10), 1, .scaleToFill, CGSize(width: 20, height: 20), 1, 4),
                // Drawn at its own size: a 2x bitmap on a 2x screen is pixel for pixel...
                (CGSize(width: 20, height: 20), 2, .center, CGSize(width: 30, height: 30), 2, 1),
                // ...and a 1x bitmap there is enlarged twice.
                (CGSize(width: 20, height: 20), 1, .center, CGSize(width: 30, height: 30), 2, 0.5),
            ]
            for (pixels, bitmapScale, mode, bounds, scale, expected) in cases {
                let node = ImageNode()
                node.image = Self.halves(width: Int(pixels.width), height: Int(pixels.height), scale: bitmapScale)
                node.contentMode = mode
                XCTAssertNil(node.imageScaleFactor, "nil before a display")
                _ = Self.display(node, size: bounds, scale: scale)
                XCTAssertEqual(
                    node.imageScaleFactor ?? -1, expected, accuracy: 1e-9,
                    "\(pixels) at \(bitmapScale)x, \(mode) in \(bounds) at \(scale)x")
                DisplayScheduler.shared.uninstall()
            }
            // A non-empty crop: the crop's pixels over the bounds' pixels.
            let node = ImageNode()
            node.image = Self.halves(width: 40, height: 20)
            node.cropRect = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
            _ = Self.display(node, size: CGSize(width: 10, height: 10))
            XCTAssertEqual(node.imageScaleFactor ?? -1, 2, accuracy: 1e-9)
        }
    }

    func testNoImageMeansNoContentsAndNoFactor() {
        MainActor.assumeIsolated {
            let (loop, group) = TestLoop.make()
            let node = ImageNode()
            node.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
            let layer = node.layer
            for _ in 0..<3 { loop.runTurn() }
            TestLoop.turn(loop) { group.pendingCount == 0 }
            XCTAssertNil(layer.contents)
            XCTAssertNil(node.imageScaleFactor)
            XCTAssertNil(node.lastError)
        }
    }

    // MARK: Geometry

    func testTheGeometryFollowsTexture() throws {
        // Aspect fill of 400 x 200 in 100 x 100: 200 x 100, centred; the decode asks for the bounds.
        let fill = try XCTUnwrap(
            ImageGeometry(
                imageSize: CGSize(width: 400, height: 200),
                boundsSize: CGSize(width: 100, height: 100),
                contentMode: .aspectFill, cropRect: ImageNode.defaultCropRect, scale: 1))
        XCTAssertEqual(fill.imageRect, CGRect(x: -50, y: 0, width: 200, height: 100))
        XCTAssertEqual(
            fill.decodeTarget(boundsSize: CGSize(width: 100, height: 100), scale: 1),
            CGSize(width: 100, height: 100))
        XCTAssertEqual(fill.scaleFactor(sourcePixels: CGSize(width: 400, height: 200), scale: 1), 2)

        // A crop of the middle quarter, stretched to the bounds: the whole image drawn 4 times as big.
        let crop = try XCTUnwrap(
            ImageGeometry(
                imageSize: CGSize(width: 400, height: 200),
                boundsSize: CGSize(width: 100, height: 100), contentMode: .aspectFit,
                cropRect: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), scale: 1))
        XCTAssertEqual(crop.imageRect, CGRect(x: -50, y: -50, width: 200, height: 200))
        // The decode covers the whole image's drawn size (the crop needs those pixels).
        XCTAssertEqual(
            crop.decodeTarget(boundsSize: CGSize(width: 100, height: 100), scale: 1),
            CGSize(width: 200, height: 200))

        // A crop with a non-supported mode is ignored (scaleToFill stretches the whole image).
        let stretch = try XCTUnwrap(
            ImageGeometry(
                imageSize: CGSize(width: 400, height: 200),
                boundsSize: CGSize(width: 100, height: 100),
                contentMode: .scaleToFill,
                cropRect: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), scale: 1))
        XCTAssertEqual(stretch.imageRect, CGRect(x: 0, y: 0, width: 100, height: 100))

        // Backing: a 10 x 10 image aspect-filling 100 x 50 pixels is enlarged 10x: 10 x 5 pixels suffice.
        let small = try XCTUnwrap(
            ImageGeometry(
                imageSize: CGSize(width: 10, height: 10),
                boundsSize: CGSize(width: 100, height: 50),
                contentMode: .aspectFill, cropRect: ImageNode.defaultCropRect, scale: 1))
        let backing = small.backingPixelSize(
            boundsPixels: (100, 50), sourcePixels: CGSize(width: 10, height: 10),
            scale: 1, forceUpscaling: false)
        XCTAssertEqual(backing.width, 10)
        XCTAssertEqual(backing.height, 5)
        let forced = small.backingPixelSize(
            boundsPixels: (100, 50), sourcePixels: CGSize(width: 10, height: 10),
            scale: 1, forceUpscaling: true)
        XCTAssertEqual(forced.width, 100)
        XCTAssertEqual(forced.height, 50)

        // Centred odd sizes land on whole pixels.
        let centred = try XCTUnwrap(
            ImageGeometry(
                imageSize: CGSize(width: 5, height: 5),
                boundsSize: CGSize(width: 10, height: 10),
                contentMode: .center, cropRect: ImageNode.defaultCropRect, scale: 1))
        XCTAssertEqual(centred.imageRect, CGRect(x: 2, y: 2, width: 5, height: 5))
        XCTAssertNil(
            ImageGeometry(
                imageSize: .zero, boundsSize: CGSize(width: 10, height: 10), contentMode: .center,
                cropRect: ImageNode.defaultCropRect, scale: 1))
    }

    // MARK: Threads and rasterizing

    func testAnyThreadConfiguresANodeBeforeItLoads() {
        let node = ImageNode()
        let image = Self.halves(width: 8, height: 8)
        DispatchQueue.global().sync {
            node.image = image
            node.contentMode = .aspectFit
            node.cropRect = CGRect(x: 0, y: 0, width: 1, height: 1)
            node.forceUpscaling = true
            node.frame = CGRect(x: 0, y: 0, width: 8, height: 8)
        }
        XCTAssertTrue(node.image === image)
        XCTAssertEqual(node.contentMode, .aspectFit)
        XCTAssertEqual(node.cropRect, CGRect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertTrue(node.forceUpscaling)
    }

    func testAnImageNodeInsideARasterizedSubtreeDrawsIntoItsAncestor() {
        MainActor.assumeIsolated {
            let (loop, _) = TestLoop.make()
            let parent = DisplayNode()
            parent.rasterizesSubtree = true
            parent.frame = CGRect(x: 0, y: 0, width: 40, height: 20)
            let node = ImageNode()
            node.image = Self.halves(width: 20, height: 20)
            node.frame = CGRect(x: 20, y: 0, width: 20, height: 20)
            parent.addSubnode(node)
            let layer = parent.layer
            TestLoop.turn(loop) { layer.contents != nil }
            XCTAssertEqual(Self.rgba(layer.contents, 5, 10), Self.clearPixel)
            XCTAssertEqual(Self.rgba(layer.contents, 25, 10), Self.redPixel)
            XCTAssertEqual(Self.rgba(layer.contents, 35, 10), Self.bluePixel)
        }
    }
}
