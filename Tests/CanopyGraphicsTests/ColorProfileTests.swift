import CColorReference
import CanopyGraphics
import Foundation
import XCTest

/// Embedded ICC profiles: a wide-gamut photo's pixels come out as Little CMS itself converts its
/// colours to sRGB, in each format that carries a profile; CMYK JPEGs go through theirs; a
/// transform is made once per profile.
final class ColorProfileTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("ColorProfileTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    /// Colours away from the gamut's edge, where P3 and sRGB differ clearly, and a grey.
    private static let colors: [[UInt8]] = [
        [200, 100, 50], [50, 150, 100], [100, 100, 200], [220, 200, 40], [128, 128, 128], [30, 60, 90],
    ]
    private static let block = 8

    /// A Display P3 profile, made by Little CMS (with `tag` in its description, to tell profiles apart).
    private func displayP3(tag: String = "") throws -> String {
        var buffer = [UInt8](repeating: 0, count: 8192)
        let size = color_reference_display_p3(&buffer, buffer.count)
        XCTAssertGreaterThan(size, 0)
        var bytes = Array(buffer[0..<size])
        if !tag.isEmpty {
            // A profile ID of zeros means "not computed": changing a reserved header byte makes
            // the bytes differ (a second profile) without changing what the profile says.
            bytes[100] = UInt8(truncatingIfNeeded: tag.hashValue)
        }
        let path = scratch.appendingPathComponent("p3\(tag).icc").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// One 8 x 8 block a colour, in a row.
    private func writeBlocks(_ name: String) throws -> String {
        let width = Self.colors.count * Self.block, height = Self.block
        var bytes = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width { bytes += Self.colors[x / Self.block] + [255] }
        }
        let path = scratch.appendingPathComponent(name).path
        try Bitmap(width: width, height: height, isOpaque: true, pixels: bytes).writePNG(to: path)
        return path
    }

    /// What Little CMS makes of `colors` in the profile at `profilePath`.
    private func reference(_ profilePath: String, _ colors: [[UInt8]], cmyk: Bool = false) throws -> [[UInt8]] {
        let icc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: profilePath)))
        let input = colors.flatMap { $0 }
        var output = [UInt8](repeating: 0, count: colors.count * 3)
        XCTAssertEqual(color_reference_to_srgb(icc, icc.count, cmyk ? 1 : 0, input, &output, colors.count), 0)
        return (0..<colors.count).map { Array(output[($0 * 3)..<($0 * 3 + 3)]) }
    }

    private func assertBlocks(
        _ bitmap: Bitmap, _ expected: [[UInt8]], tolerance: Int, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(bitmap.width, expected.count * Self.block, label, file: file, line: line)
        for (index, want) in expected.enumerated() {
            for y in 0..<Self.block {
                for x in (index * Self.block)..<((index + 1) * Self.block) {
                    let p = bitmap.pixel(x: x, y: y)
                    let got = [p.r, p.g, p.b]
                    let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    if worst > tolerance {
                        return XCTFail("\(label): (\(x), \(y)) is \(got), Little CMS gives \(want)", file: file, line: line)
                    }
                }
            }
        }
    }

    private func checkDisplayP3(format: String, arguments: [String], tolerance: Int) throws {
        let profile = try displayP3()
        let expected = try reference(profile, Self.colors)
        // The test means something only if converting moves the colours visibly.
        let moved = zip(Self.colors, expected).filter { zip($0, $1).contains { abs(Int($0) - Int($1)) >= 8 } }
        XCTAssertGreaterThanOrEqual(moved.count, 4, "P3 and sRGB differ for these colours: \(expected)")
        // ImageMagick embeds a profile in a file that has none without touching its pixels.
        let path = try Fixtures.convert(
            [try writeBlocks("plain.png"), "-profile", profile] + arguments, "p3.\(format)", in: scratch)
        assertBlocks(try ImageDecoder.decode(contentsOf: path), expected, tolerance: tolerance, "\(format), whole")
        // Shrunk to half: each block is still flat, so averaging keeps its colour.
        let half = try ImageDecoder.decode(
            contentsOf: path, fitting: CGSize(width: Self.colors.count * Self.block / 2, height: Self.block / 2))
        for (index, want) in expected.enumerated() {
            let p = half.pixel(x: index * Self.block / 2 + 2, y: 2)
            let worst = zip([p.r, p.g, p.b], want).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, tolerance + 1, "\(format), half size, colour \(index)")
        }
    }

    func testDisplayP3PNGComesOutAsLittleCMSConvertsIt() throws {
        try checkDisplayP3(format: "png", arguments: [], tolerance: 1)
    }

    func testDisplayP3JPEGComesOutAsLittleCMSConvertsIt() throws {
        try checkDisplayP3(format: "jpg", arguments: ["-quality", "100", "-sampling-factor", "1x1"], tolerance: 4)
    }

    func testDisplayP3WebPComesOutAsLittleCMSConvertsIt() throws {
        try checkDisplayP3(format: "webp", arguments: ["-define", "webp:lossless=true"], tolerance: 1)
    }

    func testCMYKJPEGGoesThroughItsProfile() throws {
        let profile = "/usr/share/color/icc/ghostscript/ps_cmyk.icc"  // Debian's libgs-common (make setup)
        try XCTSkipUnless(FileManager.default.fileExists(atPath: profile), "\(profile) is missing")
        let path = try Fixtures.convert(
            [
                try writeBlocks("plain.png"), "-colorspace", "CMYK", "-profile", profile, "-quality", "100",
                "-sampling-factor", "1x1",
            ], "cmyk.jpg", in: scratch)
        XCTAssertEqual(try ImageHeader.read(contentsOf: path).format, .jpeg)
        // The CMYK values as stored (ImageMagick reads them back as ink amounts, 0 for none).
        let raw = try Fixtures.run(Fixtures.convertPath, [path, "-depth", "8", "cmyk:-"])
        let width = Self.colors.count * Self.block
        XCTAssertEqual(raw.count, width * Self.block * 4)
        let stored = (0..<Self.colors.count).map { index -> [UInt8] in
            let offset = ((Self.block / 2) * width + index * Self.block + Self.block / 2) * 4
            return Array(raw[offset..<(offset + 4)])
        }
        let expected = try reference(profile, stored, cmyk: true)
        let bitmap = try ImageDecoder.decode(contentsOf: path)
        for (index, want) in expected.enumerated() {
            let p = bitmap.pixel(x: index * Self.block + Self.block / 2, y: Self.block / 2)
            let worst = zip([p.r, p.g, p.b], want).map { abs(Int($0) - Int($1)) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, 2, "colour \(index): \([p.r, p.g, p.b]), Little CMS gives \(want)")
        }
    }

    func testATransformIsMadeOncePerProfile() throws {
        let profile = try displayP3(tag: "once")
        let plain = try writeBlocks("plain.png")
        let first = try Fixtures.convert([plain, "-profile", profile], "first.png", in: scratch)
        let second = try Fixtures.convert([plain, "-profile", profile, "-quality", "100"], "second.jpg", in: scratch)
        let before = ColorProfiles.transformsMade
        _ = try ImageDecoder.decode(contentsOf: first)
        _ = try ImageDecoder.decode(contentsOf: second)
        _ = try ImageDecoder.decode(contentsOf: first, fitting: CGSize(width: 8, height: 2))
        XCTAssertEqual(ColorProfiles.transformsMade - before, 1)
    }

    func testAnSRGBOrDamagedProfileLeavesThePixelsAlone() throws {
        let plain = try writeBlocks("plain.png")
        let srgb = "/usr/share/color/icc/ghostscript/srgb.icc"
        if FileManager.default.fileExists(atPath: srgb) {
            let path = try Fixtures.convert([plain, "-profile", srgb], "srgb.png", in: scratch)
            assertBlocks(try ImageDecoder.decode(contentsOf: path), Self.colors, tolerance: 0, "sRGB profile")
        }
        // A profile whose bytes are garbage after the header, in a JPEG's APP2 segment (ImageMagick
        // refuses to embed it): Little CMS refuses it, and the pixels are taken as sRGB.
        var profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try displayP3())))
        for i in 128..<profile.count { profile[i] = 0xA5 }
        let jpeg = try Fixtures.convert([plain, "-quality", "100", "-sampling-factor", "1x1"], "plain.jpg", in: scratch)
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile  // NUL, chunk 1 of 1
        let length = payload.count + 2
        data.insert(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        let damaged = scratch.appendingPathComponent("damaged.jpg").path
        try Data(data).write(to: URL(fileURLWithPath: damaged))
        assertBlocks(try ImageDecoder.decode(contentsOf: damaged), Self.colors, tolerance: 4, "damaged profile")
    }
}
