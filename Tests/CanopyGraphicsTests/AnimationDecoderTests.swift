import CanopyGraphics
import Foundation
import XCTest

/// Animated GIF and WebP: the header tells them apart from still images, the decoder gives every
/// frame in order with its duration and composites partial frames as the file says, and a damaged
/// or hostile file fails cleanly. The animations are written here (`AnimationWriter`, and
/// ImageMagick for GIF disposal).
final class AnimationDecoderTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("AnimationDecoderTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    /// Red, green, blue, each its own duration: 0.1, 0.2 and 0.15 s.
    private static let colours: [(r: UInt8, g: UInt8, b: UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    private static let durations: [TimeInterval] = [0.1, 0.2, 0.15]

    private static func solidFrames(width: Int = 40, height: Int = 30) -> [Bitmap] {
        colours.map {
            Bitmap(
                width: width, height: height,
                fill: Color(red: CGFloat($0.r) / 255, green: CGFloat($0.g) / 255, blue: CGFloat($0.b) / 255))
        }
    }

    private func write(_ name: String, format: AnimationWriter.Format, loops: Int = 0) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try AnimationWriter.write(Self.solidFrames(), durations: Self.durations, loops: loops, format: format, to: path)
        return path
    }

    private static func rgb(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> [UInt8] {
        let p = bitmap.pixel(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    // MARK: Frames in order

    func testEveryGIFAndWebPFrameComesInOrderWithItsDurationThenTheFirstAgain() throws {
        for (name, format) in [("solid.gif", AnimationWriter.Format.gif), ("solid.webp", .webp(quality: 100))] {
            let path = try write(name, format: format)
            let header = try ImageHeader.read(contentsOf: path)
            XCTAssertTrue(header.isAnimated, name)
            let decoder = try AnimationDecoder(contentsOf: path)
            XCTAssertEqual([decoder.width, decoder.height, decoder.frameCount, decoder.loopCount], [40, 30, 3, 0], name)
            for round in 0..<2 {
                for index in 0..<3 {
                    let frame = try decoder.nextFrame(fitting: nil)
                    XCTAssertEqual(frame.index, index, "\(name) round \(round)")
                    XCTAssertEqual(frame.duration, Self.durations[index], accuracy: 1e-9, "\(name) frame \(index)")
                    let c = Self.colours[index]
                    XCTAssertEqual(Self.rgb(frame.bitmap, 20, 15), [c.r, c.g, c.b, 255], "\(name) frame \(index)")
                    XCTAssertEqual([frame.bitmap.width, frame.bitmap.height], [40, 30])
                }
            }
        }
    }

    func testFramesAreScaledToCoverTheTarget() throws {
        let path = try write("scaled.gif", format: .gif)
        let decoder = try AnimationDecoder(contentsOf: path)
        let frame = try decoder.nextFrame(fitting: CGSize(width: 10, height: 10))
        // Covering 10 x 10 with the 4:3 aspect: 14 x 10 (never below the target, never upscaled).
        XCTAssertEqual([frame.bitmap.width, frame.bitmap.height], [14, 10])
        XCTAssertEqual(Self.rgb(frame.bitmap, 7, 5), [255, 0, 0, 255])
        let large = try decoder.nextFrame(fitting: CGSize(width: 400, height: 400))
        XCTAssertEqual([large.bitmap.width, large.bitmap.height], [40, 30])
    }

    func testLoopCountsAreThePlaysInAll() throws {
        for (loops, format, name) in [
            (1, AnimationWriter.Format.gif, "once.gif"), (3, .gif, "thrice.gif"), (0, .gif, "forever.gif"),
            (2, .webp(quality: 100), "twice.webp"), (0, .webp(quality: 100), "forever.webp"),
        ] {
            let decoder = try AnimationDecoder(contentsOf: try write(name, format: format, loops: loops))
            XCTAssertEqual(decoder.loopCount, loops, name)
        }
        // By hand, as the GIF convention goes: the NETSCAPE2.0 count is the plays after the first.
        func gif(netscape repeats: Int?) -> [UInt8] {
            var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x00, 0x00, 0x00]
            if let repeats {
                bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(repeats & 0xFF), UInt8(repeats >> 8), 0]
            }
            for _ in 0..<2 {
                bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, 0, 0, 0, 255, 255, 255, 0x02, 0x02, 0x44, 0x01, 0x00]
            }
            return bytes + [0x3B]
        }
        XCTAssertEqual(try AnimationDecoder(bytes: gif(netscape: nil)).loopCount, 1, "no extension: once")
        XCTAssertEqual(try AnimationDecoder(bytes: gif(netscape: 0)).loopCount, 0, "0: forever")
        XCTAssertEqual(try AnimationDecoder(bytes: gif(netscape: 2)).loopCount, 3, "2 more after the first")
    }

    // MARK: Compositing

    /// A GIF of partial frames: a red screen, a blue square drawn then restored ("previous"),
    /// a green square cleared ("background") and a white square left in place ("none"). Each
    /// frame must show what the previous ones left.
    func testGIFFramesAreCompositedAsTheirDisposalSays() throws {
        let path = try Fixtures.convert(
            [
                "-size", "16x16", "xc:red", "-dispose", "previous",
                "-page", "+4+4", "-size", "4x4", "xc:blue", "-dispose", "background",
                "-page", "+0+0", "-size", "4x4", "xc:lime", "-dispose", "none",
                "-page", "+12+12", "-size", "4x4", "xc:white", "-loop", "0",
            ], "disposal.gif", in: scratch)
        let decoder = try AnimationDecoder(contentsOf: path)
        XCTAssertEqual(decoder.frameCount, 4)
        let red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
        let green: [UInt8] = [0, 255, 0, 255], white: [UInt8] = [255, 255, 255, 255], clear: [UInt8] = [0, 0, 0, 0]
        let first = try decoder.nextFrame(fitting: nil).bitmap
        XCTAssertEqual(Self.rgb(first, 5, 5), red)
        let second = try decoder.nextFrame(fitting: nil).bitmap
        XCTAssertEqual(Self.rgb(second, 5, 5), blue)
        XCTAssertEqual(Self.rgb(second, 1, 1), red)
        // The blue square is restored to red ("previous"); the green one is drawn.
        let third = try decoder.nextFrame(fitting: nil).bitmap
        XCTAssertEqual(Self.rgb(third, 5, 5), red)
        XCTAssertEqual(Self.rgb(third, 1, 1), green)
        // The green square is cleared to transparent ("background"); the white one is drawn.
        let fourth = try decoder.nextFrame(fitting: nil).bitmap
        XCTAssertEqual(Self.rgb(fourth, 1, 1), clear)
        XCTAssertEqual(Self.rgb(fourth, 13, 13), white)
        XCTAssertEqual(Self.rgb(fourth, 8, 8), red)
        // The first frame again, on a clean canvas.
        XCTAssertEqual(Self.rgb(try decoder.nextFrame(fitting: nil).bitmap, 1, 1), red)
    }

    // MARK: Still images and damage

    func testAStillGIFOrWebPIsNotAnimatedAndAnAnimatedWebPDecodesItsFirstFrame() throws {
        let still = scratch.appendingPathComponent("still.gif").path
        try AnimationWriter.write(
            [Self.solidFrames()[1]], durations: [0.1], loops: 1, format: .gif, to: still)
        XCTAssertFalse(try ImageHeader.read(contentsOf: still).isAnimated)
        XCTAssertFalse(
            try ImageHeader.read(contentsOf: Fixtures.imagesDirectory.appendingPathComponent("jaguar.webp").path).isAnimated)
        // libwebp's still decoder refuses animations: the first frame comes through the animation decoder.
        let webp = try write("first.webp", format: .webp(quality: 100))
        let image = try ImageDecoder.decode(contentsOf: webp, fitting: CGSize(width: 20, height: 15))
        XCTAssertEqual([image.width, image.height], [20, 15])
        XCTAssertEqual(Self.rgb(image, 10, 7), [255, 0, 0, 255])
    }

    func testAGIFCutShortPlaysItsCompleteFramesAndADamagedFrameFailsThenStartsOver() throws {
        let path = try write("cut.gif", format: .gif)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Cut in the third frame's image data: two complete frames.
        let cut = scratch.appendingPathComponent("cut-short.gif").path
        try Data(bytes.prefix(bytes.count - 20)).write(to: URL(fileURLWithPath: cut))
        let decoder = try AnimationDecoder(contentsOf: cut)
        XCTAssertEqual(decoder.frameCount, 2)
        XCTAssertEqual(try decoder.nextFrame(fitting: nil).index, 0)
        XCTAssertEqual(try decoder.nextFrame(fitting: nil).index, 1)
        XCTAssertEqual(try decoder.nextFrame(fitting: nil).index, 0)
        // The second frame's LZW code size made impossible (12 bits a pixel): that frame fails,
        // with the reason, and the next call starts over from the first.
        let controls = (0..<(bytes.count - 2)).filter { bytes[$0] == 0x21 && bytes[$0 + 1] == 0xF9 && bytes[$0 + 2] == 4 }
        XCTAssertEqual(controls.count, 3)
        // The control block (8 bytes), the image descriptor (10), its 256-colour table (768).
        let codeSize = controls[1] + 8 + 10 + 768
        XCTAssertEqual(bytes[codeSize], 8)
        var damaged = bytes
        damaged[codeSize] = 12
        let broken = scratch.appendingPathComponent("damaged.gif").path
        try Data(damaged).write(to: URL(fileURLWithPath: broken))
        let animation = try AnimationDecoder(contentsOf: broken)
        XCTAssertEqual(try animation.nextFrame(fitting: nil).index, 0)
        XCTAssertThrowsError(try animation.nextFrame(fitting: nil)) { error in
            guard case .some(.corrupt) = error as? ImageError else { return XCTFail("expected corrupt, got \(error)") }
        }
        XCTAssertEqual(try animation.nextFrame(fitting: nil).index, 0)
        // Cut inside the first frame: no complete frame, no animation.
        let stub = scratch.appendingPathComponent("stub.gif").path
        try Data(bytes.prefix(controls[0] + 8 + 10 + 100)).write(to: URL(fileURLWithPath: stub))
        XCTAssertThrowsError(try AnimationDecoder(contentsOf: stub))
    }

    func testACanvasOverTheLimitIsRefusedBeforeAnyPixelIsRead() throws {
        // A GIF whose logical screen is 65535 x 65535 (4.3 gigapixels) with one 1 x 1 frame.
        var bytes: [UInt8] = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00]
        for _ in 0..<2 {
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x80, 0, 0, 0, 255, 255, 255, 0x02, 0x02, 0x44, 0x01, 0x00]
        }
        bytes.append(0x3B)
        let path = scratch.appendingPathComponent("huge-screen.gif").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertTrue(try ImageHeader.read(contentsOf: path).isAnimated)
        XCTAssertThrowsError(try AnimationDecoder(contentsOf: path)) { error in
            guard case .tooLarge(_, 65535, 65535, AnimationDecoder.maximumCanvasPixels) = error as? ImageError else {
                return XCTFail("expected tooLarge, got \(error)")
            }
        }
    }

    func testAFrameFarLargerThanItsScreenIsRefusedUndecoded() throws {
        // A 1 x 1 screen, then two images of 4000 x 4000 (16 MP of LZW data to read for nothing).
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x00, 0x00, 0x00]
        for _ in 0..<2 {
            bytes += [0x2C, 0, 0, 0, 0, 0xA0, 0x0F, 0xA0, 0x0F, 0x80, 0, 0, 0, 255, 255, 255, 0x02, 0x02, 0x44, 0x01, 0x00]
        }
        bytes.append(0x3B)
        let decoder = try AnimationDecoder(bytes: bytes)
        XCTAssertEqual([decoder.width, decoder.height, decoder.frameCount], [1, 1, 2])
        XCTAssertThrowsError(try decoder.nextFrame(fitting: nil)) { error in
            guard case .corrupt(_, let reason) = error as? ImageError, reason.contains("4000 x 4000 on a screen of 1 x 1")
            else { return XCTFail("expected a refused frame, got \(error)") }
        }
    }

    func testCancellationStopsAFrame() throws {
        let path = try write("cancel.gif", format: .gif)
        let decoder = try AnimationDecoder(contentsOf: path)
        XCTAssertThrowsError(try decoder.nextFrame(fitting: nil, isCancelled: { true })) { error in
            guard case .cancelled = error as? ImageError else { return XCTFail("expected cancelled, got \(error)") }
        }
        XCTAssertEqual(try decoder.nextFrame(fitting: nil).index, 0, "a cancelled frame starts the animation over")
    }
}
