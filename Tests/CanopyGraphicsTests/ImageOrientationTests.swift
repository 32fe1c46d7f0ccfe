import CanopyGraphics
import Foundation
import XCTest

/// EXIF orientation: the header reports the size as shown, the decoder turns the pixels, and
/// crops and targets are in the shown image's pixels, for JPEG (APP1), PNG (eXIf) and WebP
/// (EXIF chunk). The files are made here: an asymmetric image, then the EXIF bytes put in.
final class ImageOrientationTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("ImageOrientationTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    // MARK: The stored image and what each orientation should show

    /// 6 x 4 blocks of 8 x 8 pixels (48 x 32), each block its own colour: no two blocks alike, so
    /// any turn or mirror shows.
    private static let blocksAcross = 6, blocksDown = 4, block = 8

    private static func blockColor(_ bx: Int, _ by: Int) -> (UInt8, UInt8, UInt8) {
        (UInt8(20 + bx * 40), UInt8(20 + by * 70), UInt8(bx * by % 2 == 0 ? 40 : 220))
    }

    /// The stored image as a grid of colours, grid[y][x].
    private static func storedGrid() -> [[(UInt8, UInt8, UInt8)]] {
        (0..<(blocksDown * block)).map { y in
            (0..<(blocksAcross * block)).map { x in blockColor(x / block, y / block) }
        }
    }

    private static func rotatedClockwise<T>(_ grid: [[T]]) -> [[T]] {
        let height = grid.count, width = grid[0].count
        // The shown row y is the stored column y, read from the bottom up.
        return (0..<width).map { y in (0..<height).map { x in grid[height - 1 - x][y] } }
    }

    private static func mirroredLeftRight<T>(_ grid: [[T]]) -> [[T]] { grid.map { $0.reversed() } }
    private static func mirroredTopBottom<T>(_ grid: [[T]]) -> [[T]] { grid.reversed() }

    /// What a viewer must show for each EXIF orientation, from the TIFF specification's words:
    /// 2 mirrors left-right, 3 turns 180°, 4 mirrors top-bottom, 6 turns 90° clockwise, 8 turns
    /// 90° counter-clockwise, 5 and 7 mirror along the diagonals.
    private static func expected<T>(_ grid: [[T]], _ orientation: Int) -> [[T]] {
        switch orientation {
        case 2: return mirroredLeftRight(grid)
        case 3: return rotatedClockwise(rotatedClockwise(grid))
        case 4: return mirroredTopBottom(grid)
        case 5: return rotatedClockwise(mirroredTopBottom(grid))
        case 6: return rotatedClockwise(grid)
        case 7: return rotatedClockwise(mirroredLeftRight(grid))
        case 8: return rotatedClockwise(rotatedClockwise(rotatedClockwise(grid)))
        default: return grid
        }
    }

    private func writeStoredPNG() throws -> String {
        let grid = Self.storedGrid()
        let width = grid[0].count, height = grid.count
        var bytes = [UInt8]()
        for row in grid { for c in row { bytes += [c.0, c.1, c.2, 255] } }
        let path = scratch.appendingPathComponent("stored.png").path
        try Bitmap(width: width, height: height, isOpaque: true, pixels: bytes).writePNG(to: path)
        return path
    }

    // MARK: Files with EXIF

    /// TIFF data (little-endian) with one IFD holding one tag: Orientation = `value`.
    private static func exif(orientation value: Int, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        return order + u16(42) + u32(8)  // header: byte order, 42, first IFD at 8
            + u16(1)  // one entry
            + u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0)  // Orientation, SHORT, 1 value
            + u32(0)  // no next IFD
    }

    /// A JPEG of the stored image with an APP1 EXIF segment after SOI.
    private func jpeg(orientation: Int) throws -> String {
        let plain = try Fixtures.convert(
            [try writeStoredPNG(), "-quality", "100", "-sampling-factor", "1x1"], "plain.jpg", in: scratch)
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let payload = Array("Exif".utf8) + [0, 0] + Self.exif(orientation: orientation, bigEndian: orientation % 2 == 0)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        data.insert(contentsOf: segment, at: 2)
        return try write(data, "o\(orientation).jpg")
    }

    /// A PNG of the stored image with an eXIf chunk after IHDR.
    private func png(orientation: Int) throws -> String {
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try writeStoredPNG())))
        let body = Self.exif(orientation: orientation)
        let named = Array("eXIf".utf8) + body
        let chunk = Self.bigEndian32(body.count) + named + Self.bigEndian32(Int(Self.crc32(named)))
        data.insert(contentsOf: chunk, at: 33)  // after the signature (8) and IHDR (25)
        return try write(data, "o\(orientation).png")
    }

    /// A lossless extended WebP of the stored image: VP8X (EXIF flag), the VP8L chunk, then an
    /// EXIF chunk, as libwebp's tools write them.
    private func webp(orientation: Int) throws -> String {
        let plain = try Fixtures.convert(
            [try writeStoredPNG(), "-define", "webp:lossless=true"], "plain.webp", in: scratch)
        let simple = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        XCTAssertEqual(String(decoding: simple[12..<16], as: UTF8.self), "VP8L")
        let image = Array(simple[12...])  // the VP8L chunk, padded
        let width = Self.blocksAcross * Self.block, height = Self.blocksDown * Self.block
        let vp8x =
            Array("VP8X".utf8) + Self.littleEndian32(10) + [0x08, 0, 0, 0]
            + Array(Self.littleEndian32(width - 1).prefix(3)) + Array(Self.littleEndian32(height - 1).prefix(3))
        var body = Self.exif(orientation: orientation)
        if body.count % 2 == 1 { body.append(0) }
        let exifChunk = Array("EXIF".utf8) + Self.littleEndian32(body.count) + body
        let chunks = vp8x + image + exifChunk
        let data = Array("RIFF".utf8) + Self.littleEndian32(4 + chunks.count) + Array("WEBP".utf8) + chunks
        return try write(data, "o\(orientation).webp")
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func bigEndian32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    private static func littleEndian32(_ v: Int) -> [UInt8] { bigEndian32(v).reversed() }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    // MARK: Checks

    /// Every pixel of `bitmap` against `grid`, within `tolerance` per channel.
    private func assertShows(
        _ bitmap: Bitmap, _ grid: [[(UInt8, UInt8, UInt8)]], tolerance: Int, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(bitmap.width, grid[0].count, "\(message): width", file: file, line: line)
        XCTAssertEqual(bitmap.height, grid.count, "\(message): height", file: file, line: line)
        guard bitmap.width == grid[0].count, bitmap.height == grid.count else { return }
        var worst = 0, worstAt = (0, 0)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y), e = grid[y][x]
                let d = max(abs(Int(p.r) - Int(e.0)), abs(Int(p.g) - Int(e.1)), abs(Int(p.b) - Int(e.2)))
                if d > worst { (worst, worstAt) = (d, (x, y)) }
            }
        }
        XCTAssertLessThanOrEqual(worst, tolerance, "\(message): worst pixel at \(worstAt)", file: file, line: line)
    }

    private func checkAllOrientations(_ make: (Int) throws -> String, format: ImageFormat, tolerance: Int) throws {
        let grid = Self.storedGrid()
        for orientation in 1...8 {
            let path = try make(orientation)
            let header = try ImageHeader.read(contentsOf: path)
            let label = "\(format.displayName) orientation \(orientation)"
            XCTAssertEqual(header.format, format, label)
            XCTAssertEqual(header.orientation.rawValue, orientation, label)
            let shown = Self.expected(grid, orientation)
            XCTAssertEqual(header.width, shown[0].count, "\(label): header width")
            XCTAssertEqual(header.height, shown.count, "\(label): header height")
            assertShows(try ImageDecoder.decode(contentsOf: path), shown, tolerance: tolerance, label)

            // A crop of the shown image: the second block column and row onward, 3 x 2 blocks.
            let b = Self.block
            let crop = ImageDecoder.Crop(x: b, y: b, width: 3 * b, height: 2 * b)
            let cropped = try ImageDecoder.decode(contentsOf: path, fitting: nil, cropping: crop)
            let shownCrop = shown[b..<(3 * b)].map { Array($0[b..<(4 * b)]) }
            assertShows(cropped, shownCrop, tolerance: tolerance, "\(label), cropped")

            // A target in shown pixels: half size each way, one block becomes 4 x 4 pixels.
            let half = try ImageDecoder.decode(
                contentsOf: path, fitting: CGSize(width: shown[0].count / 2, height: shown.count / 2))
            XCTAssertEqual(half.width, shown[0].count / 2, "\(label), half: width")
            XCTAssertEqual(half.height, shown.count / 2, "\(label), half: height")
            let centre = half.pixel(x: 2, y: 2), e = shown[4][4]
            XCTAssertLessThanOrEqual(
                max(abs(Int(centre.r) - Int(e.0)), abs(Int(centre.g) - Int(e.1)), abs(Int(centre.b) - Int(e.2))),
                tolerance + 2, "\(label), half: the top left block's colour")
        }
    }

    func testJPEGShowsEveryOrientationTheRightWayUp() throws {
        // Quality 100 without chroma subsampling, blocks on the 8 x 8 DCT grid: close, not exact.
        try checkAllOrientations(jpeg(orientation:), format: .jpeg, tolerance: 6)
    }

    func testPNGShowsEveryOrientationTheRightWayUp() throws {
        try checkAllOrientations(png(orientation:), format: .png, tolerance: 0)
    }

    func testWebPShowsEveryOrientationTheRightWayUp() throws {
        try checkAllOrientations(webp(orientation:), format: .webp, tolerance: 0)
    }

    func testDamagedOrMissingEXIFMeansStoredOrder() throws {
        // An orientation value outside 1...8, and EXIF data cut short: the image shows as stored.
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try png(orientation: 9))))
        XCTAssertEqual(try ImageHeader.read(bytes: data, path: "nine.png").orientation, .up)
        let exifStart = 33 + 8
        data.replaceSubrange(exifStart..<(exifStart + 4), with: [0x49, 0x49, 0, 0])  // not a TIFF header
        XCTAssertEqual(try ImageHeader.read(bytes: data, path: "bad.png").orientation, .up)
        let path = try write(data, "bad.png")
        assertShows(try ImageDecoder.decode(contentsOf: path), Self.storedGrid(), tolerance: 0, "damaged EXIF")
    }
}
