import CCodecs
import CanopyGraphics
import CanopyTestSupport
import Foundation
import Synchronization
import XCTest

final class ImageDecoderTests: XCTestCase {
    // MARK: Fixtures

    private static let imagesDirectory = Fixtures.imagesDirectory

    private static let convertPath = Fixtures.convertPath

    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("ImageDecoderTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    // MARK: The project's photos

    func testDecodesEveryProjectPhotoAtItsHeaderSize() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.imagesDirectory.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 4)
        for name in names {
            let path = photo(name)
            let header = try ImageHeader.read(contentsOf: path)
            let bitmap = try ImageDecoder.decode(contentsOf: path)
            XCTAssertEqual(bitmap.width, header.width, name)
            XCTAssertEqual(bitmap.height, header.height, name)
            XCTAssertEqual(bitmap.scale, 1, name)
            XCTAssertEqual(bitmap.bytesPerRow, bitmap.width * 4, name)
            // Photos are opaque and not blank.
            XCTAssertEqual(bitmap.pixel(x: 0, y: 0).a, 255, name)
            XCTAssertEqual(bitmap.pixel(x: bitmap.width - 1, y: bitmap.height - 1).a, 255, name)
            let centre = bitmap.pixel(x: bitmap.width / 2, y: bitmap.height / 2)
            let corner = bitmap.pixel(x: 3, y: 3)
            XCTAssertNotEqual([centre.r, centre.g, centre.b], [corner.r, corner.g, corner.b], name)
        }
    }

    /// Each decoder agrees with ImageMagick (its own libjpeg-turbo, libpng and libwebp) on patches
    /// of real photos: baseline and progressive JPEG, lossy WebP, PNG.
    func testPhotoPixelsAgreeWithImageMagick() throws {
        let cases: [(name: String, format: ImageFormat, tolerance: Int)] = [
            ("red-panda.jpg", .jpeg, 3),
            ("proboscis-monkey.jpg", .jpeg, 3),  // progressive
            ("kingfisher.webp", .webp, 3),
            ("garden-lizard.png", .png, 0),
        ]
        for item in cases {
            let path = photo(item.name)
            XCTAssertEqual(try ImageHeader.read(contentsOf: path).format, item.format)
            let bitmap = try ImageDecoder.decode(contentsOf: path)
            for (x, y) in [(0, 0), (bitmap.width / 2, bitmap.height / 3), (bitmap.width - 8, bitmap.height - 8)] {
                let expected = try magickPixels(path, x: x, y: y, width: 8, height: 8)
                let difference = largestDifference(bitmap, x: x, y: y, width: 8, height: 8, expected: expected)
                XCTAssertLessThanOrEqual(difference, item.tolerance, "\(item.name) at (\(x), \(y))")
            }
        }
    }

    func testProbosisMonkeyIsProgressive() throws {
        // SOF2 marks a progressive JPEG; the test above relies on this photo being one.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo("proboscis-monkey.jpg"))))
        XCTAssertTrue(zip(bytes, bytes.dropFirst()).contains { $0 == 0xFF && $1 == 0xC2 })
    }

    // MARK: PNG variants

    func testPalettePNGWithTransparency() throws {
        let path = try convert(["-size", "8x4", "xc:none", "-size", "8x4", "xc:#00ff00", "-append"], "PNG8:palette.png")
        XCTAssertEqual(try fileBytes(path)[25], 3, "colour type: palette")
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual(bitmap.width, 8)
        XCTAssertEqual(bitmap.height, 8)
        assertPixel(bitmap, 1, 1, (0, 0, 0, 0))
        assertPixel(bitmap, 6, 6, (0, 255, 0, 255))
    }

    func testGreyPNG() throws {
        let path = try convert(["-size", "8x8", "xc:#404040", "-colorspace", "Gray", "-depth", "8"], "PNG:grey.png")
        XCTAssertEqual(try fileBytes(path)[25], 0, "colour type: grey")
        assertPixel(try ImageDecoder.decode(contentsOf: path), 4, 4, (64, 64, 64, 255))
    }

    func testGreyAlphaPNGIsPremultiplied() throws {
        let path = try convert(
            ["-size", "8x8", "xc:rgba(64,64,64,0.5)", "-colorspace", "Gray", "-depth", "8"],
            "PNG:grey-alpha.png")
        XCTAssertEqual(try fileBytes(path)[25], 4, "colour type: grey + alpha")
        // 64 * 128 / 255 = 32.1
        assertPixel(try ImageDecoder.decode(contentsOf: path), 4, 4, (32, 32, 32, 128), tolerance: 1)
    }

    func testSixteenBitPNGs() throws {
        let opaque = try convert(["-size", "8x8", "xc:#ff8000", "-depth", "16"], "PNG48:rgb16.png")
        XCTAssertEqual(try fileBytes(opaque)[24], 16, "bit depth")
        assertPixel(try ImageDecoder.decode(contentsOf: opaque), 2, 2, (255, 128, 0, 255))
        let translucent = try convert(["-size", "8x8", "xc:rgba(255,128,0,0.4)", "-depth", "16"], "PNG64:rgba16.png")
        XCTAssertEqual(try fileBytes(translucent)[24], 16, "bit depth")
        // Alpha 0.4 is 102; premultiplied green 128 * 102 / 255 = 51.2.
        assertPixel(try ImageDecoder.decode(contentsOf: translucent), 2, 2, (102, 51, 0, 102), tolerance: 1)
    }

    func testRGBAPNGIsPremultiplied() throws {
        let path = try convert(["-size", "8x8", "xc:rgba(255,128,0,0.4)"], "PNG32:rgba.png")
        XCTAssertEqual(try fileBytes(path)[25], 6, "colour type: RGBA")
        assertPixel(try ImageDecoder.decode(contentsOf: path), 5, 5, (102, 51, 0, 102))
    }

    func testInterlacedPNG() throws {
        let path = try convert(
            [
                "-size", "16x8", "xc:#ff0000", "-size", "16x8", "xc:#0000ff", "-append",
                "-interlace", "PNG",
            ], "PNG24:interlaced.png")
        XCTAssertEqual(try fileBytes(path)[28], 1, "Adam7")
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual(bitmap.width, 16)
        XCTAssertEqual(bitmap.height, 16)
        assertPixel(bitmap, 3, 1, (255, 0, 0, 255))
        assertPixel(bitmap, 12, 14, (0, 0, 255, 255))
        // Scaled down after the whole-image read: still red above, blue below.
        let small = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 4, height: 4))
        XCTAssertEqual(small.width, 4)
        XCTAssertEqual(small.height, 4)
        assertPixel(small, 0, 0, (255, 0, 0, 255))
        assertPixel(small, 3, 3, (0, 0, 255, 255))
    }

    // MARK: WebP variants

    func testLosslessWebP() throws {
        let path = try convert(["-size", "8x8", "xc:#00ff00", "-define", "webp:lossless=true"], "lossless.webp")
        XCTAssertEqual(String(decoding: try fileBytes(path)[12..<16], as: UTF8.self), "VP8L")
        assertPixel(try ImageDecoder.decode(contentsOf: path), 4, 4, (0, 255, 0, 255))
    }

    func testWebPWithAlphaIsPremultiplied() throws {
        let lossless = try convert(
            ["-size", "8x8", "xc:rgba(255,128,0,0.4)", "-define", "webp:lossless=true"],
            "alpha-lossless.webp")
        assertPixel(try ImageDecoder.decode(contentsOf: lossless), 4, 4, (102, 51, 0, 102), tolerance: 1)
        let lossy = try convert(
            [
                "-size", "8x8", "xc:rgba(255,128,0,0.4)", "-define", "webp:lossless=false",
                "-define", "webp:alpha-quality=100", "-quality", "95",
            ], "alpha-lossy.webp")
        XCTAssertEqual(String(decoding: try fileBytes(lossy)[12..<16], as: UTF8.self), "VP8X")
        // Lossy colour may drift a little; the alpha is stored losslessly.
        assertPixel(try ImageDecoder.decode(contentsOf: lossy), 4, 4, (102, 51, 0, 102), tolerance: 4)
    }

    // MARK: GIF and BMP

    func testAnimatedGIFGivesItsFirstFrame() throws {
        let path = try convert(["-delay", "10", "-size", "8x8", "xc:#ff0000", "xc:#00ff00", "xc:#0000ff"], "anim.gif")
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual(bitmap.width, 8)
        XCTAssertEqual(bitmap.height, 8)
        assertPixel(bitmap, 4, 4, (255, 0, 0, 255))
    }

    func testGIFTransparencyAndFrameOffset() throws {
        let transparent = try convert(
            ["-size", "8x8", "xc:none", "-fill", "#00ff00", "-draw", "rectangle 0,0 3,7"],
            "transparent.gif")
        let bitmap = try ImageDecoder.decode(contentsOf: transparent)
        assertPixel(bitmap, 1, 4, (0, 255, 0, 255))
        assertPixel(bitmap, 6, 4, (0, 0, 0, 0))
        // A first frame smaller than the screen is placed at its offset on a transparent canvas.
        let offset = try convert(["-size", "4x4", "xc:#ff0000", "-repage", "8x8+2+2"], "offset.gif")
        let placed = try ImageDecoder.decode(contentsOf: offset)
        XCTAssertEqual(placed.width, 8)
        XCTAssertEqual(placed.height, 8)
        assertPixel(placed, 0, 0, (0, 0, 0, 0))
        assertPixel(placed, 2, 2, (255, 0, 0, 255))
        assertPixel(placed, 5, 5, (255, 0, 0, 255))
        assertPixel(placed, 6, 6, (0, 0, 0, 0))
    }

    func testBMPKeepsRowOrder() throws {
        let path = try convert(["-size", "8x4", "xc:#ff0000", "-size", "8x4", "xc:#0000ff", "-append"], "BMP3:rows.bmp")
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual(bitmap.width, 8)
        XCTAssertEqual(bitmap.height, 8)
        assertPixel(bitmap, 2, 1, (255, 0, 0, 255))
        assertPixel(bitmap, 2, 6, (0, 0, 255, 255))
        let small = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 2, height: 2))
        XCTAssertEqual(small.width, 2)
        assertPixel(small, 0, 0, (255, 0, 0, 255))
        assertPixel(small, 1, 1, (0, 0, 255, 255))
    }

    // MARK: JPEG variants

    func testGreyJPEG() throws {
        let path = try convert(["-size", "16x16", "xc:#808080", "-colorspace", "Gray", "-quality", "95"], "grey.jpg")
        XCTAssertEqual(try jpegComponents(path), 1)
        assertPixel(try ImageDecoder.decode(contentsOf: path), 8, 8, (128, 128, 128, 255), tolerance: 2)
    }

    func testCMYKJPEGBecomesRGB() throws {
        let path = try convert(
            [
                "-size", "16x16", "xc:#ff0000", "-size", "16x16", "xc:#0000ff", "-append",
                "-colorspace", "CMYK", "-quality", "95",
            ], "cmyk.jpg")
        XCTAssertEqual(try jpegComponents(path), 4)
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        assertPixel(bitmap, 8, 4, (255, 0, 0, 255), tolerance: 4)
        assertPixel(bitmap, 8, 28, (0, 0, 255, 255), tolerance: 4)
        // Through the DCT-scaled path too.
        let small = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 4, height: 8))
        XCTAssertEqual(small.width, 4)
        XCTAssertEqual(small.height, 8)
        assertPixel(small, 1, 1, (255, 0, 0, 255), tolerance: 4)
        assertPixel(small, 2, 6, (0, 0, 255, 255), tolerance: 4)
    }

    func testProgressiveJPEGOfKnownColours() throws {
        let path = try convert(
            [
                "-size", "32x16", "xc:#ffff00", "-size", "32x16", "xc:#00ffff", "-append",
                "-interlace", "JPEG", "-quality", "95",
            ], "progressive.jpg")
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        assertPixel(bitmap, 16, 4, (255, 255, 0, 255), tolerance: 4)
        assertPixel(bitmap, 16, 28, (0, 255, 255, 255), tolerance: 4)
    }

    // MARK: Fitting

    func testFittedPixelSizeCoversTheTargetWithTheImagesAspect() {
        func size(_ w: Int, _ h: Int, _ target: CGSize?) -> [Int] {
            let s = ImageDecoder.fittedPixelSize(width: w, height: h, fitting: target)
            return [s.width, s.height]
        }
        XCTAssertEqual(size(1920, 1080, nil), [1920, 1080])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 640, height: 360)), [640, 360])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 320, height: 180)), [320, 180])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 320, height: 320)), [569, 320])  // 568.9 up
        XCTAssertEqual(size(1920, 1080, CGSize(width: 100, height: 300)), [534, 300])  // 533.3 up
        XCTAssertEqual(size(1920, 1080, CGSize(width: 600, height: 100)), [600, 338])  // 337.5 up
        XCTAssertEqual(size(1920, 1080, CGSize(width: 319.5, height: 179.2)), [320, 180])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 1, height: 1)), [2, 1])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 0, height: 0)), [2, 1])
        // Never upscaled: a side at or over the image's gives the full size.
        XCTAssertEqual(size(1920, 1080, CGSize(width: 1920, height: 1080)), [1920, 1080])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 4000, height: 10)), [1920, 1080])
        XCTAssertEqual(size(1920, 1080, CGSize(width: 10, height: 2000)), [1920, 1080])
        XCTAssertEqual(size(1920, 1080, CGSize(width: CGFloat.infinity, height: 10)), [1920, 1080])
        XCTAssertEqual(size(1024, 768, CGSize(width: 320, height: 180)), [320, 240])
        XCTAssertEqual(size(1024, 768, CGSize(width: 100, height: 100)), [134, 100])
        XCTAssertEqual(size(3, 65_535, CGSize(width: 1, height: 1)), [1, 21_845])
    }

    func testDecodingFittingGivesTheFittedSizeForEveryDecoder() throws {
        let targets: [(CGSize?, [Int], [Int])] = [  // target, 1920 x 1080 result, 1024 x 768 result
            (nil, [1920, 1080], [1024, 768]),
            (CGSize(width: 640, height: 360), [640, 360], [640, 480]),
            (CGSize(width: 320, height: 180), [320, 180], [320, 240]),
            (CGSize(width: 320, height: 320), [569, 320], [427, 320]),
            (CGSize(width: 100, height: 300), [534, 300], [400, 300]),
            (CGSize(width: 5000, height: 5000), [1920, 1080], [1024, 768]),
        ]
        for (target, wide, fourThirds) in targets {
            for name in ["red-panda.jpg", "proboscis-monkey.jpg", "kingfisher.webp"] {
                let bitmap = try ImageDecoder.decode(contentsOf: photo(name), fitting: target)
                XCTAssertEqual([bitmap.width, bitmap.height], wide, "\(name) fitting \(String(describing: target))")
            }
            let bitmap = try ImageDecoder.decode(contentsOf: photo("garden-lizard.png"), fitting: target)
            XCTAssertEqual([bitmap.width, bitmap.height], fourThirds, "PNG fitting \(String(describing: target))")
        }
    }

    /// The streaming area average of a PNG equals a box average of the full decode (4 x 4 here).
    func testDownscaledPNGIsTheAreaAverageOfTheFullImage() throws {
        let path = photo("garden-lizard.png")
        let full = try ImageDecoder.decode(contentsOf: path)
        let small = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 256, height: 192))
        XCTAssertEqual([small.width, small.height], [256, 192])
        let difference = compare(small, boxAverage(full, factor: 4))
        XCTAssertLessThanOrEqual(difference.largest, 1)
    }

    /// A non-integer ratio: each output pixel averages fractions of source pixels, in premultiplied space.
    func testFractionalAreaAverageOfTranslucentStripes() throws {
        // Two-pixel stripes across 12 columns: opaque red, then blue at alpha 0.4 (102, so
        // premultiplied (0, 0, 102, 102)), and so on.
        let stripes = (0..<6).map { $0 % 2 == 0 ? "xc:#ff0000" : "xc:rgba(0,0,255,0.4)" }
        let path = try convert(["-size", "2x4"] + stripes + ["+append"], "PNG32:stripes.png")
        let full = try ImageDecoder.decode(contentsOf: path)
        assertPixel(full, 0, 0, (255, 0, 0, 255))
        assertPixel(full, 2, 0, (0, 0, 102, 102))
        // 12 -> 8 columns: output column 1 covers source columns 1.5 ..< 3, a third red and two
        // thirds blue: (85, 0, 68, 153). Column 3 covers 4.5 ..< 6: red.
        let twoThirds = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 8, height: 1))
        XCTAssertEqual([twoThirds.width, twoThirds.height], [8, 3])
        assertPixel(twoThirds, 0, 0, (255, 0, 0, 255))
        assertPixel(twoThirds, 1, 1, (85, 0, 68, 153))
        assertPixel(twoThirds, 2, 2, (85, 0, 68, 153))
        assertPixel(twoThirds, 3, 1, (255, 0, 0, 255))
        // 12 -> 4: three columns each, two red and one blue: (170, 0, 34, 204).
        let third = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 4, height: 1))
        XCTAssertEqual([third.width, third.height], [4, 2])
        assertPixel(third, 0, 0, (170, 0, 34, 204))
        assertPixel(third, 1, 1, (170, 0, 34, 204))
        assertPixel(third, 2, 1, (85, 0, 68, 153))
        // 12 -> 3: four columns each, half red and half blue: (127.5, 0, 51, 178.5).
        let quarter = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 2, height: 1))
        XCTAssertEqual([quarter.width, quarter.height], [3, 1])
        assertPixel(quarter, 1, 0, (128, 0, 51, 179), tolerance: 1)
    }

    func testDCTScaledJPEGMatchesTheAveragedFullDecode() throws {
        let path = photo("red-panda.jpg")
        let full = try ImageDecoder.decode(contentsOf: path)
        // 1/4 in the DCT domain alone; then 1/2 followed by an area average to 1/3.
        for factor in [4, 3] {
            let small = try ImageDecoder.decode(
                contentsOf: path,
                fitting: CGSize(width: 1920 / factor, height: 1080 / factor))
            XCTAssertEqual([small.width, small.height], [1920 / factor, 1080 / factor])
            let difference = compare(small, boxAverage(full, factor: factor))
            // Scaled IDCTs are not box filters: close on average, apart at a few sharp edges.
            XCTAssertLessThan(difference.mean, 1, "1/\(factor)")
            XCTAssertLessThan(difference.overSixteen, 0.005, "1/\(factor)")
        }
    }

    // MARK: Crops

    /// 400 x 20: ten stripes 40 px wide (on 8-px JPEG block edges), red, lime, blue, white,
    /// black, twice.
    private static let stripeColours: [(Int, Int, Int)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0)]

    private func stripes(_ output: String, _ options: [String] = []) throws -> String {
        let names = ["#ff0000", "#00ff00", "#0000ff", "#ffffff", "#000000"]
        return try convert(["-size", "40x20"] + (names + names).map { "xc:\($0)" } + ["+append"] + options, output)
    }

    /// Every decoder gives the crop's pixels, at its own size and scaled: the left column of a
    /// crop starting at source column 80 is stripe 2's blue, and so on.
    func testACropGivesThatPartOfTheImageForEveryDecoder() throws {
        let files: [(path: String, tolerance: Int)] = [
            (try stripes("PNG24:stripes.png"), 0),
            (try stripes("PNG24:stripes-interlaced.png", ["-interlace", "PNG"]), 0),
            (try stripes("stripes.gif"), 0),
            (try stripes("BMP3:stripes.bmp"), 0),
            (try stripes("stripes.jpg", ["-quality", "100", "-sampling-factor", "1x1"]), 8),
            (try stripes("stripes.webp", ["-define", "webp:lossless=true"]), 0),
            (try stripes("stripes-lossy.webp", ["-quality", "100", "-define", "webp:lossless=false"]), 24),
        ]
        let crop = ImageDecoder.Crop(x: 80, y: 4, width: 120, height: 10)  // blue, white, black
        for file in files {
            let name = URL(fileURLWithPath: file.path).lastPathComponent
            let whole = try ImageDecoder.decode(contentsOf: file.path, fitting: nil, cropping: crop)
            XCTAssertEqual([whole.width, whole.height], [120, 10], name)
            for (x, stripe) in [(0, 2), (39, 2), (40, 3), (79, 3), (80, 4), (119, 4)] {
                let c = Self.stripeColours[stripe]
                // Lossy codecs blur across a stripe edge: check them 4 px inside.
                let inset = file.tolerance > 0 ? (x % 40 == 0 ? 4 : x % 40 == 39 ? -4 : 0) : 0
                assertPixel(whole, x + inset, 5, (c.0, c.1, c.2, 255), tolerance: file.tolerance)
            }
            // 120 x 10 fitting 12 x 1: ten source columns an output pixel (JPEG: 1/8 in the DCT
            // domain, then 15 -> 12).
            let small = try ImageDecoder.decode(contentsOf: file.path, fitting: CGSize(width: 12, height: 1), cropping: crop)
            XCTAssertEqual([small.width, small.height], [12, 1], name)
            for (x, stripe) in [(1, 2), (2, 2), (5, 3), (6, 3), (9, 4), (10, 4)] {
                let c = Self.stripeColours[stripe]
                assertPixel(small, x, 0, (c.0, c.1, c.2, 255), tolerance: file.tolerance)
            }
        }
    }

    /// At full size a crop is exactly that rectangle of the whole decode (JPEG, PNG, lossless
    /// WebP).
    func testAFullSizeCropEqualsThatRectangleOfTheWholeImage() throws {
        let lossless = try convert([photo("kingfisher.webp"), "-define", "webp:lossless=true"], "kingfisher-lossless.webp")
        for path in [photo("red-panda.jpg"), photo("garden-lizard.png"), lossless] {
            let full = try ImageDecoder.decode(contentsOf: path)
            let crop = ImageDecoder.Crop(x: 101, y: 37, width: 203, height: 61)
            let part = try ImageDecoder.decode(contentsOf: path, fitting: nil, cropping: crop)
            XCTAssertEqual([part.width, part.height], [203, 61], path)
            var worst = 0
            for y in 0..<61 {
                for x in 0..<203 {
                    let a = part.pixel(x: x, y: y), b = full.pixel(x: x + 101, y: y + 37)
                    worst = max(worst, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                }
            }
            XCTAssertEqual(worst, 0, path)
        }
    }

    /// Lossy WebP crops start at even coordinates: one at an odd column and row takes the pixel
    /// before each, and is otherwise that rectangle of the whole decode, not a resampled one.
    func testALossyWebPCropAtOddCoordinatesGrowsByOnePixelAndIsNotResampled() throws {
        let path = photo("kingfisher.webp")
        let full = try ImageDecoder.decode(contentsOf: path)
        let part = try ImageDecoder.decode(
            contentsOf: path, fitting: nil,
            cropping: ImageDecoder.Crop(x: 101, y: 37, width: 203, height: 61))
        XCTAssertEqual([part.width, part.height], [204, 62])
        var worst = 0
        for y in 0..<62 {
            for x in 0..<204 {
                let a = part.pixel(x: x, y: y), b = full.pixel(x: x + 100, y: y + 36)
                worst = max(worst, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
            }
        }
        XCTAssertLessThanOrEqual(worst, 2)
    }

    /// A scaled crop of a lossy WebP (libwebp crops and scales) is close to the same area of a
    /// whole decode, averaged.
    func testAScaledWebPCropMatchesTheAveragedWholeImage() throws {
        let path = photo("kingfisher.webp")
        let full = try ImageDecoder.decode(contentsOf: path)
        // 640 x 360 from (640, 360), a quarter: 160 x 90.
        let part = try ImageDecoder.decode(
            contentsOf: path, fitting: CGSize(width: 160, height: 90),
            cropping: ImageDecoder.Crop(x: 640, y: 360, width: 640, height: 360))
        XCTAssertEqual([part.width, part.height], [160, 90])
        let reference = boxAverage(full, factor: 4)
        var total = 0
        for y in 0..<90 {
            for x in 0..<160 {
                let a = part.pixel(x: x, y: y), b = reference.pixel(x: x + 160, y: y + 90)
                total += abs(Int(a.r) - Int(b.r)) + abs(Int(a.g) - Int(b.g)) + abs(Int(a.b) - Int(b.b))
            }
        }
        XCTAssertLessThan(Double(total) / Double(160 * 90 * 3), 3)
    }

    func testCropsAreClampedAndAnEmptyOneIsUnsupported() throws {
        let path = try stripes("PNG24:clamp.png")
        // Over the right and top edges: the part inside, 40 x 20 of the last (black) stripe.
        let clamped = try ImageDecoder.decode(
            contentsOf: path, fitting: nil,
            cropping: ImageDecoder.Crop(x: 360, y: -5, width: 100, height: 100))
        XCTAssertEqual([clamped.width, clamped.height], [40, 20])
        assertPixel(clamped, 0, 0, (0, 0, 0, 255))
        // The whole image is the same as no crop.
        let all = try ImageDecoder.decode(
            contentsOf: path, fitting: CGSize(width: 40, height: 2),
            cropping: ImageDecoder.Crop(x: 0, y: 0, width: 400, height: 20))
        XCTAssertEqual(all.pixels, try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 40, height: 2)).pixels)
        for crop in [
            ImageDecoder.Crop(x: 400, y: 0, width: 10, height: 10), ImageDecoder.Crop(x: 0, y: 0, width: 0, height: 5),
            ImageDecoder.Crop(x: Int.max, y: Int.max, width: Int.max, height: Int.max),
        ] {
            XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: path, fitting: nil, cropping: crop), "\(crop)") { error in
                guard case .unsupported = error as? ImageError else { return XCTFail("\(error)") }
            }
        }
    }

    /// A crop of a wide PNG holds a few of its rows and the result, not the image: a 12000 x 1000
    /// file is 48 MB whole.
    func testACropOfAWidePNGDoesNotHoldTheWholeImage() throws {
        let path = try convert(["-size", "12000x1000", "gradient:#ff0000-#0000ff"], "PNG24:wide.png")
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = Self.peakResidentBytes()
        let part = try ImageDecoder.decode(
            contentsOf: path, fitting: CGSize(width: 600, height: 500),
            cropping: ImageDecoder.Crop(x: 6000, y: 0, width: 1200, height: 1000))
        let growth = Self.peakResidentBytes() - before
        XCTAssertEqual([part.width, part.height], [600, 500])
        if resetPeak {
            XCTAssertLessThan(growth, 12 << 20, "a crop decode holds a few source rows and the result, not 48 MB")
        }
    }

    func testBigJPEGDecodesFittingWithoutTheFullImage() throws {
        // 8000 x 4500 (16 : 9): 1/8 in the DCT domain, then 1000 x 563 area-averaged to 320 x 180.
        let path = try convert(
            [
                "-size", "8000x4500", "radial-gradient:#ffff00-#008000",
                "(", "-size", "8000x4500", "pattern:checkerboard", ")",
                "-compose", "multiply", "-composite", "-quality", "90",
            ], "big.jpg")
        // Peak memory while decoding to fit: reset the process's high-water mark (Linux:
        // clear_refs), decode, read it again. The full image would be 8000 * 4500 * 4 = 144 MB.
        let resetPeak = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        let before = Self.peakResidentBytes()
        let small = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 320, height: 180))
        let growth = Self.peakResidentBytes() - before
        XCTAssertEqual([small.width, small.height], [320, 180])
        if resetPeak {
            XCTAssertLessThan(growth, 24 << 20, "decoding to fit stays near the output's size, not the source's")
        }
        let full = try ImageDecoder.decode(contentsOf: path)
        XCTAssertEqual([full.width, full.height], [8000, 4500])
        let difference = compare(small, boxAverage(full, factor: 25))
        XCTAssertLessThan(difference.mean, 1.5)
        XCTAssertLessThanOrEqual(difference.largest, 8)
    }

    /// The process's peak resident size (VmHWM), in bytes; 0 where /proc is not there.
    private static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }

    func testConcurrentDecodesAgreeWithSerialOnes() throws {
        let names = ["red-panda.jpg", "proboscis-monkey.jpg", "kingfisher.webp", "garden-lizard.png"]
        try assertConcurrentDecodesAgree(names.map(photo))
    }

    func testConcurrentGIFAndBMPDecodesAgreeWithSerialOnes() throws {
        let gif = try convert(["-size", "300x200", "gradient:#ff0000-#0000ff"], "gradient.gif")
        let bmp = try convert(["-size", "300x200", "gradient:#00ff00-#ff00ff"], "gradient.bmp")
        try assertConcurrentDecodesAgree([gif, bmp])
    }

    /// Decodes `paths` on eight threads at once, fitting 160 x 90, and compares with serial decodes.
    private func assertConcurrentDecodesAgree(_ paths: [String], line: UInt = #line) throws {
        let target = CGSize(width: 160, height: 90)
        let expected = try paths.map { try ImageDecoder.decode(contentsOf: $0, fitting: target).pixels }
        let results = Mutex<[Int: [UInt8]]>([:])
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for index in 0..<8 {
            group.enter()
            Thread {
                _ = start.wait(timeout: HangGuard.deadline)
                let bitmap = try? ImageDecoder.decode(contentsOf: paths[index % paths.count], fitting: target)
                results.withLock { $0[index] = bitmap?.pixels }
                GraphicsLibrary.releaseThreadState()  // SDL_image's GIF loader left an error buffer
                group.leave()
            }.start()
        }
        for _ in 0..<8 { start.signal() }
        XCTAssertEqual(group.wait(timeout: HangGuard.deadline), .success, "a hang guard", line: line)
        let decoded = results.withLock { $0 }
        for index in 0..<8 {
            XCTAssertEqual(decoded[index], expected[index % paths.count], "thread \(index)", line: line)
        }
    }

    // MARK: Failures

    func testMissingFileDirectoryEmptyFileAndText() throws {
        let missing = scratch.appendingPathComponent("missing.jpg").path
        XCTAssertEqual(decodeError(missing), .fileMissing(path: missing))
        let directory = scratch.appendingPathComponent("photos.png").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        XCTAssertEqual(decodeError(directory), .unreadable(path: directory, reason: "Is a directory"))
        let empty = try write([], "empty.jpg")
        XCTAssertEqual(decodeError(empty), .notAnImage(path: empty))
        let text = try write(Array("This is not a photo.\n".utf8), "text.jpg")
        XCTAssertEqual(decodeError(text), .notAnImage(path: text))
        XCTAssertEqual(decodeError(text)?.description, "text.jpg: not an image (unknown file signature)")
    }

    func testTheCodecsRefuseAFIFOWithoutWaitingForAWriter() throws {
        // The decoders open the file again after its header was read: a FIFO put there
        // meanwhile must not block a worker until someone writes to it.
        let fifo = scratch.appendingPathComponent("pipe.png").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(decodeError(fifo), .unreadable(path: fifo, reason: "not a regular file"))
        let messages = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            func message(_ error: ccodecs_error) -> String {
                withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            var error = ccodecs_error()
            var jpegInfo = ccodecs_jpeg_info()
            if let jpeg = ccodecs_jpeg_open(fifo, &jpegInfo, &error) { ccodecs_jpeg_close(jpeg) }
            messages.withLock { $0.append(message(error)) }
            var pngInfo = ccodecs_png_info()
            if let png = ccodecs_png_open(fifo, &pngInfo, &error) { ccodecs_png_close(png) }
            messages.withLock { $0.append(message(error)) }
            var webpInfo = ccodecs_webp_info()
            if let webp = ccodecs_webp_open(fifo, &webpInfo, &error) { ccodecs_webp_close(webp) }
            messages.withLock { $0.append(message(error)) }
            done.signal()
        }.start()
        XCTAssertEqual(done.wait(timeout: HangGuard.deadline), .success, "a hang guard, not a timing check")
        XCTAssertEqual(messages.withLock { $0 }, Array(repeating: "not a regular file", count: 3))
    }

    func testTruncatedFilesOfEveryFormat() throws {
        let gif = try convert(
            [
                "-size", "64x64", "gradient:#ff0000-#0000ff", "(", "-size", "64x64",
                "pattern:checkerboard", ")", "-compose", "multiply", "-composite",
            ], "big.gif")
        let interlaced = try convert(
            ["-size", "64x64", "gradient:#ff0000-#0000ff", "-interlace", "PNG"],
            "PNG24:interlaced.png")
        let lossless = try convert(
            ["-size", "64x64", "gradient:#ff0000-#0000ff", "-define", "webp:lossless=true"],
            "lossless.webp")
        let cases: [(String, ImageFormat)] = [
            (photo("red-panda.jpg"), .jpeg), (photo("proboscis-monkey.jpg"), .jpeg),
            (photo("garden-lizard.png"), .png), (interlaced, .png),
            (photo("kingfisher.webp"), .webp), (lossless, .webp),
            (gif, .gif),
        ]
        for (source, format) in cases {
            let bytes = try fileBytes(source)
            let name = "half-" + URL(fileURLWithPath: source).lastPathComponent
            let path = try write(Array(bytes.prefix(bytes.count / 2)), name)
            for target in [nil, CGSize(width: 16, height: 16)] {
                XCTAssertEqual(
                    decodeError(path, fitting: target), .truncatedData(path: path, format: format),
                    "\(name) fitting \(String(describing: target))")
            }
        }
        let cut = try write(Array(try fileBytes(photo("red-panda.jpg")).prefix(100_000)), "cut.jpg")
        XCTAssertEqual(decodeError(cut)?.description, "cut.jpg: the file is truncated (JPEG data ends early)")
        // Cut inside the header: the header reader's answer.
        let stub = try write(Array(try fileBytes(photo("garden-lizard.png")).prefix(20)), "stub.png")
        XCTAssertEqual(decodeError(stub), .truncated(path: stub, format: .png))
    }

    func testTruncatedBMP() throws {
        let source = try convert(["-size", "32x32", "xc:#0000ff"], "BMP3:whole.bmp")
        let bytes = try fileBytes(source)
        let path = try write(Array(bytes.prefix(bytes.count / 2)), "half.bmp")
        XCTAssertEqual(decodeError(path), .truncatedData(path: path, format: .bmp))
    }

    func testGarbageInTheMiddleOfAJPEGIsCorrupt() throws {
        var bytes = try fileBytes(photo("red-panda.jpg"))
        var seed: UInt32 = 12_345
        for index in (bytes.count / 2)..<(bytes.count / 2 + 2_000) {
            seed = seed &* 1_103_515_245 &+ 12_345
            bytes[index] = UInt8(truncatingIfNeeded: seed >> 16)
        }
        let path = try write(bytes, "garbage.jpg")
        for target in [nil, CGSize(width: 320, height: 180)] {
            guard case .corrupt(let reported, let reason)? = decodeError(path, fitting: target) else {
                return XCTFail("expected corrupt, got \(String(describing: decodeError(path, fitting: target)))")
            }
            XCTAssertEqual(reported, path)
            XCTAssertTrue(reason.contains("Corrupt JPEG data"), reason)
        }
    }

    func testStrayBytesBetweenJPEGSegmentsAreForgiven() throws {
        // libjpeg skips them with a warning ("extraneous bytes before marker"); the picture is whole.
        let original = try fileBytes(photo("red-panda.jpg"))
        let dqt = try XCTUnwrap(find([0xFF, 0xDB], in: original))
        let path = try write(Array(original[..<dqt]) + [0x00, 0x12, 0x34] + Array(original[dqt...]), "stray.jpg")
        let decoded = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 320, height: 180))
        let expected = try ImageDecoder.decode(contentsOf: photo("red-panda.jpg"), fitting: CGSize(width: 320, height: 180))
        XCTAssertEqual(decoded.pixels, expected.pixels)
    }

    func testPNGWithABadCRCIsCorrupt() throws {
        var bytes = try fileBytes(photo("scarlet-macaw.png"))
        let idat = try XCTUnwrap(find(Array("IDAT".utf8), in: bytes))
        let length = bytes[(idat - 4)..<idat].reduce(0) { $0 << 8 | Int($1) }
        bytes[idat + 4 + length] ^= 0xFF  // the first byte of the first IDAT's CRC
        let path = try write(bytes, "bad-crc.png")
        XCTAssertEqual(decodeError(path), .corrupt(path: path, reason: "IDAT: CRC error"))
        XCTAssertEqual(decodeError(path)?.description, "bad-crc.png: corrupt image data (IDAT: CRC error)")
    }

    func testOverLimitSizesAreTooLarge() throws {
        // A side over 65535, from the header.
        let wide = try write(pngHeader(width: 70_000, height: 10, interlaced: false), "wide.png")
        XCTAssertEqual(decodeError(wide), .tooLarge(path: wide, width: 70_000, height: 10, limit: 65_535))
        // Decoders that hold the whole image refuse more than 64 megapixels before decoding.
        let limit = ImageDecoder.maximumWholeImagePixels
        XCTAssertEqual(limit, 64_000_000)
        let interlaced = try write(pngHeader(width: 9_000, height: 9_000, interlaced: true), "interlaced.png")
        XCTAssertEqual(decodeError(interlaced), .tooLarge(path: interlaced, width: 9_000, height: 9_000, limit: limit))
        XCTAssertEqual(
            decodeError(interlaced, fitting: CGSize(width: 10, height: 10)),
            .tooLarge(path: interlaced, width: 9_000, height: 9_000, limit: limit))
        XCTAssertEqual(
            decodeError(interlaced)?.description,
            "interlaced.png: too large (9000 x 9000 px; the limit is 64000000 pixels for this image)")
        let gif = try write(Array("GIF89a".utf8) + [0x28, 0x23, 0x28, 0x23, 0, 0, 0, 0x3B], "big.gif")  // 9000 x 9000
        XCTAssertEqual(decodeError(gif), .tooLarge(path: gif, width: 9_000, height: 9_000, limit: limit))
        let progressive = try write(progressiveJPEGHeader(width: 9_000, height: 9_000), "big.jpg")
        XCTAssertEqual(
            decodeError(progressive, fitting: CGSize(width: 10, height: 10)),
            .tooLarge(path: progressive, width: 9_000, height: 9_000, limit: limit))
        // The same header as a baseline frame streams: not refused for its size (it is cut short).
        var baseline = progressiveJPEGHeader(width: 9_000, height: 9_000)
        baseline[baseline.firstIndex(of: 0xC2)!] = 0xC0
        baseline[baseline.count - 2] = 63  // a sequential scan covers coefficients 0 to 63
        let sequential = try write(baseline, "sequential.jpg")
        XCTAssertEqual(
            decodeError(sequential, fitting: CGSize(width: 10, height: 10)),
            .truncatedData(path: sequential, format: .jpeg))
    }

    func testLosslessJPEGIsUnsupported() throws {
        var bytes = progressiveJPEGHeader(width: 16, height: 16)
        bytes[bytes.firstIndex(of: 0xC2)!] = 0xC3  // SOF3: lossless
        let path = try write(bytes, "lossless.jpg")
        XCTAssertEqual(decodeError(path), .unsupported(path: path, reason: "Unsupported JPEG process: SOF type 0xc3"))
        XCTAssertEqual(
            decodeError(path)?.description,
            "lossless.jpg: unsupported image (Unsupported JPEG process: SOF type 0xc3)")
    }

    // MARK: Helpers

    private func photo(_ name: String) -> String {
        Self.imagesDirectory.appendingPathComponent(name).path
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func fileBytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func decodeError(_ path: String, fitting: CGSize? = nil) -> ImageError? {
        do {
            _ = try ImageDecoder.decode(contentsOf: path, fitting: fitting)
            return nil
        } catch {
            return error
        }
    }

    /// Runs ImageMagick's convert with `arguments` then `output` (which may carry a "FORMAT:"
    /// prefix) in the scratch folder, and returns the output's path.
    private func convert(_ arguments: [String], _ output: String) throws -> String {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.convertPath), "ImageMagick is missing")
        let name = output.split(separator: ":").last.map(String.init) ?? output
        let path = scratch.appendingPathComponent(name).path
        let prefix = output.contains(":") ? String(output.split(separator: ":")[0]) + ":" : ""
        _ = try run(Self.convertPath, arguments + [prefix + path])
        return path
    }

    /// RGBA bytes of a patch as ImageMagick decodes it.
    private func magickPixels(_ path: String, x: Int, y: Int, width: Int, height: Int) throws -> [UInt8] {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.convertPath), "ImageMagick is missing")
        let bytes = try run(
            Self.convertPath,
            [
                path, "-crop", "\(width)x\(height)+\(x)+\(y)", "+repage",
                "-depth", "8", "rgba:-",
            ])
        XCTAssertEqual(bytes.count, width * height * 4)
        return bytes
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> [UInt8] {
        try Fixtures.run(executable, arguments)
    }

    private func assertPixel(
        _ bitmap: Bitmap, _ x: Int, _ y: Int, _ expected: (Int, Int, Int, Int),
        tolerance: Int = 0, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard x < bitmap.width, y < bitmap.height else {
            return XCTFail("(\(x), \(y)) outside \(bitmap.width) x \(bitmap.height)", file: file, line: line)
        }
        let p = bitmap.pixel(x: x, y: y)
        let actual = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
        let wanted = [expected.0, expected.1, expected.2, expected.3]
        let worst = zip(actual, wanted).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThanOrEqual(
            worst, tolerance, "pixel (\(x), \(y)) is \(actual), expected \(wanted)",
            file: file, line: line)
    }

    private func largestDifference(
        _ bitmap: Bitmap, x: Int, y: Int, width: Int, height: Int,
        expected: [UInt8]
    ) -> Int {
        var worst = 0
        for row in 0..<height {
            for column in 0..<width {
                let p = bitmap.pixel(x: x + column, y: y + row)
                let e = (row * width + column) * 4
                for (a, b) in zip([p.r, p.g, p.b, p.a], expected[e..<(e + 4)]) {
                    worst = max(worst, abs(Int(a) - Int(b)))
                }
            }
        }
        return worst
    }

    /// Averages factor x factor blocks (the bitmap's sides must be multiples of factor).
    private func boxAverage(_ bitmap: Bitmap, factor: Int) -> Bitmap {
        let width = bitmap.width / factor, height = bitmap.height / factor
        var out = [UInt8](repeating: 0, count: width * height * 4)
        var sums = [Int](repeating: 0, count: width * 4)
        let area = factor * factor
        bitmap.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { destination in
                for y in 0..<height {
                    for i in 0..<sums.count { sums[i] = 0 }
                    for row in (y * factor)..<((y + 1) * factor) {
                        let base = row * bitmap.bytesPerRow
                        for x in 0..<(width * factor) {
                            let s = base + x * 4, d = (x / factor) * 4
                            sums[d] += Int(source[s])
                            sums[d + 1] += Int(source[s + 1])
                            sums[d + 2] += Int(source[s + 2])
                            sums[d + 3] += Int(source[s + 3])
                        }
                    }
                    for i in 0..<sums.count {
                        destination[y * width * 4 + i] = UInt8((sums[i] + area / 2) / area)
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: out)
    }

    /// The largest and mean per-channel difference of two same-sized bitmaps, and the fraction
    /// of channels differing by more than 16.
    private func compare(_ a: Bitmap, _ b: Bitmap) -> (largest: Int, mean: Double, overSixteen: Double) {
        XCTAssertEqual([a.width, a.height], [b.width, b.height])
        guard a.width == b.width, a.height == b.height else { return (255, 255, 1) }
        var largest = 0, total = 0, over = 0
        for y in 0..<a.height {
            for i in 0..<(a.width * 4) {
                let d = abs(Int(a.pixels[y * a.bytesPerRow + i]) - Int(b.pixels[y * b.bytesPerRow + i]))
                largest = max(largest, d)
                total += d
                if d > 16 { over += 1 }
            }
        }
        let count = Double(a.width * a.height * 4)
        return (largest, Double(total) / count, Double(over) / count)
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The number of colour components in a JPEG's frame header.
    private func jpegComponents(_ path: String) throws -> Int {
        let bytes = try fileBytes(path)
        for i in 0..<(bytes.count - 10) where bytes[i] == 0xFF && (bytes[i + 1] == 0xC0 || bytes[i + 1] == 0xC2) {
            return Int(bytes[i + 9])
        }
        return 0
    }

    /// A PNG signature, an IHDR (8-bit RGB) with a valid CRC, and a scrap of IDAT.
    private func pngHeader(width: Int, height: Int, interlaced: Bool) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
        func chunk(_ name: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(name.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        let ihdr = be32(width) + be32(height) + [8, 2, 0, 0, interlaced ? 1 : 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x00]) + chunk("IEND", [])
    }

    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// SOI, a quantisation table, a progressive frame header (grey) and the first scan's header,
    /// then nothing: enough for libjpeg to read the header.
    private func progressiveJPEGHeader(width: Int, height: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        bytes += [
            0xFF, 0xC2, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF),
            UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00,
        ]
        // A DC-only Huffman table with one code.
        bytes += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00]
        return bytes
    }
}
