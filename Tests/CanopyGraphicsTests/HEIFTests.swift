import CanopyGraphics
import Foundation
import XCTest

/// HEIF (HEIC, as phones save photos) and AVIF through libheif: the size as shown from the
/// header, the pixels, a decode to a target and a crop, a damaged file. The files are made by
/// libheif's own encoder (heif-enc, Debian's libheif-examples). (An embedded ICC profile goes
/// through `ColorProfiles` as for the other formats; heif-enc 1.15 cannot make a test file for
/// it: given a PNG with a profile, it writes green and blue swapped, as its own heif-convert
/// shows.)
final class HEIFTests: XCTestCase {
    private var scratch: URL!
    private static let encoder = "/usr/bin/heif-enc"
    private static let colors: [[UInt8]] = [[200, 100, 50], [50, 150, 100], [100, 100, 200], [220, 200, 40]]
    private static let block = 16

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.encoder), "heif-enc (libheif-examples) is missing")
        scratch = try Fixtures.makeScratch("HEIFTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    /// 4 x 2 blocks of 16 pixels (64 x 32), the colours in the top row, their reverse below.
    private func blocksPNG(profile: String? = nil) throws -> String {
        let width = 4 * Self.block, height = 2 * Self.block
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let index = y < Self.block ? x / Self.block : 3 - x / Self.block
                bytes += Self.colors[index] + [255]
            }
        }
        let plain = scratch.appendingPathComponent("blocks.png").path
        try Bitmap(width: width, height: height, isOpaque: true, pixels: bytes).writePNG(to: plain)
        guard let profile else { return plain }
        return try Fixtures.convert([plain, "-profile", profile], "tagged.png", in: scratch)
    }

    private func encode(_ png: String, _ name: String, avif: Bool) throws -> String {
        let output = scratch.appendingPathComponent(name).path
        _ = try Fixtures.run(Self.encoder, (avif ? ["-A"] : []) + ["-q", "100", png, "-o", output])
        return output
    }

    private func assertBlocks(_ bitmap: Bitmap, _ expected: [[UInt8]], tolerance: Int, _ label: String) {
        for (index, want) in expected.enumerated() {
            for (x, y) in [(index * Self.block + 8, 8), ((3 - index) * Self.block + 8, Self.block + 8)] {
                let p = bitmap.pixel(x: x, y: y)
                let worst = zip([p.r, p.g, p.b], want).map { abs(Int($0) - Int($1)) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, tolerance, "\(label): (\(x), \(y)) is \([p.r, p.g, p.b]), expected \(want)")
            }
        }
    }

    func testHEICAndAVIFShowAtTheirSize() throws {
        let png = try blocksPNG()
        for (format, name, avif) in [(ImageFormat.heif, "photo.heic", false), (.avif, "photo.avif", true)] {
            let path = try encode(png, name, avif: avif)
            let header = try ImageHeader.read(contentsOf: path)
            XCTAssertEqual(header.format, format)
            XCTAssertEqual([header.width, header.height], [64, 32], name)
            // The same from the bytes (what the fuzzer feeds).
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(try ImageHeader.read(bytes: bytes, path: name), header)
            let bitmap = try ImageDecoder.decode(contentsOf: path)
            XCTAssertEqual([bitmap.width, bitmap.height], [64, 32])
            assertBlocks(bitmap, Self.colors, tolerance: 10, name)
            let half = try ImageDecoder.decode(contentsOf: path, fitting: CGSize(width: 32, height: 16))
            XCTAssertEqual([half.width, half.height], [32, 16], name)
            let crop = try ImageDecoder.decode(
                contentsOf: path, fitting: nil, cropping: ImageDecoder.Crop(x: 16, y: 0, width: 16, height: 16))
            let p = crop.pixel(x: 8, y: 8)
            XCTAssertLessThanOrEqual(
                zip([p.r, p.g, p.b], Self.colors[1]).map { abs(Int($0) - Int($1)) }.max() ?? 0, 10, "\(name), cropped")
        }
    }

    func testADamagedHEICSaysWhy() throws {
        let path = try encode(try blocksPNG(), "photo.heic", avif: false)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = scratch.appendingPathComponent("cut.heic").path
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: cut))
        XCTAssertThrowsError(try ImageDecoder.decode(contentsOf: cut)) { error in
            XCTAssertNotNil(error as? ImageError, "\(error)")
        }
    }
}
