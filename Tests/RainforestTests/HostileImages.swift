import CanopyGraphics
import CanopyTestSupport
import Foundation
import XCTest

/// The hostile images of issues 8 and 20, made in a folder at test time (nothing big is committed):
/// each file with what its card must show, its picture (`shows`, the file's pixel size) or
/// the error its photo area writes (`error`, `ImageError.description`).
enum HostileImages {
    enum Expected: Equatable {
        /// The picture, decoded: the file is `width` x `height` pixels.
        case shows(width: Int, height: Int)
        /// The photo area says this (`ImageError.description`), in the image node's error state.
        case error(String)
    }

    struct Fixture {
        var name: String
        var expected: Expected
        /// The card's description when it comes from a folder (`--images`).
        var folderDescription: String
    }

    /// The files `make(in:)` writes, by name (file-name order).
    static let fixtures: [Fixture] = [
        Fixture(name: "animated.gif", expected: .shows(width: 64, height: 48), folderDescription: "64 x 48 px · GIF · animated"),
        Fixture(
            name: "bomb.png", expected: .error("bomb.png: too large to show: 900 MP, the limit is 150 MP"),
            folderDescription: "Too large to show: 900 MP, the limit is 150 MP"),
        Fixture(name: "cmyk.jpg", expected: .shows(width: 64, height: 48), folderDescription: "64 x 48 px · JPEG"),
        Fixture(name: "deep.png", expected: .shows(width: 64, height: 48), folderDescription: "64 x 48 px · PNG"),
        Fixture(
            name: "empty.jpg", expected: .error("empty.jpg: not an image (unknown file signature)"),
            folderDescription: "Not an image (the file is empty)"),
        Fixture(name: "grey.jpg", expected: .shows(width: 64, height: 48), folderDescription: "64 x 48 px · JPEG"),
        Fixture(
            name: "huge.jpg", expected: .shows(width: 12_000, height: 12_000),
            folderDescription: "12000 x 12000 px · JPEG"),
        Fixture(
            name: "notes.jpg", expected: .error("notes.jpg: not an image (unknown file signature)"),
            folderDescription: "Not an image (unknown file signature)"),
        Fixture(name: "palette.png", expected: .shows(width: 64, height: 48), folderDescription: "64 x 48 px · PNG"),
        Fixture(
            name: "panorama.png", expected: .shows(width: 20_000, height: 100),
            folderDescription: "20000 x 100 px · PNG"),
        Fixture(name: "pixel.png", expected: .shows(width: 1, height: 1), folderDescription: "1 x 1 px · PNG"),
        Fixture(name: "tall.png", expected: .shows(width: 100, height: 20_000), folderDescription: "100 x 20000 px · PNG"),
        Fixture(
            name: "truncated.jpg", expected: .error("truncated.jpg: the file is truncated (JPEG data ends early)"),
            folderDescription: "1920 x 1080 px · JPEG"),
        Fixture(
            name: "truncated.png", expected: .error("truncated.png: the file is truncated (PNG data ends early)"),
            folderDescription: "1024 x 768 px · PNG"),
        Fixture(
            name: "truncated.webp", expected: .error("truncated.webp: the file is truncated (WebP data ends early)"),
            folderDescription: "1920 x 1080 px · WebP"),
    ]

    /// Files that change after their header was read (the folder listed, the card made) and
    /// before the card is drawn: `vanish(in:)` deletes one, puts a folder in place of another
    /// and a FIFO in place of a third. Until then each is a copy of a 16:9 JPEG.
    /// (Named to come last in a folder, so a viewer reaches them after they changed.)
    static let changing: [(name: String, expected: String)] = [
        ("z-fifo.jpg", "z-fifo.jpg: cannot read (not a regular file)"),
        ("z-folder.jpg", "z-folder.jpg: cannot read (Is a directory)"),
        ("z-gone.jpg", "z-gone.jpg: no such file"),
    ]

    static let packageRoot = TestResources.packageRoot
    static let photos = packageRoot.appendingPathComponent("Resources/images")
    static let convert = "/usr/bin/convert"

    /// Writes every fixture and the changing files into `folder`.
    static func make(in folder: URL) throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: convert), "ImageMagick is missing")
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func magick(_ arguments: [String], _ output: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: convert)
            process.arguments = arguments + [output]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "convert \(arguments) \(output)")
        }
        let gradient = ["-size", "64x48", "gradient:#ff0000-#0000ff"]
        try magick(["-delay", "10", "-size", "64x48", "xc:#ff0000", "xc:#00ff00", "xc:#0000ff"], path("animated.gif"))
        try Data(claimedPNG(width: 30_000, height: 30_000)).write(to: folder.appendingPathComponent("bomb.png"))
        try magick(gradient + ["-colorspace", "CMYK", "-quality", "90"], path("cmyk.jpg"))
        try magick(gradient + ["-depth", "16"], "PNG48:" + path("deep.png"))
        try Data().write(to: folder.appendingPathComponent("empty.jpg"))
        try magick(["-size", "64x48", "gradient:white-black", "-colorspace", "Gray", "-quality", "90"], path("grey.jpg"))
        try Data(uniformJPEG(width: 12_000, height: 12_000)).write(to: folder.appendingPathComponent("huge.jpg"))
        try "a shopping list, not a photo\n".write(
            to: folder.appendingPathComponent("notes.jpg"), atomically: true,
            encoding: .utf8)
        try magick(["-size", "64x24", "xc:none", "-size", "64x24", "xc:#00ff00", "-append"], "PNG8:" + path("palette.png"))
        // ImageMagick's policy refuses sides over 16,000 px: these two are drawn here.
        try stripes(width: 20_000, height: 100).writePNG(to: path("panorama.png"))
        try Bitmap(width: 1, height: 1, pixels: [200, 40, 40, 255]).writePNG(to: path("pixel.png"))
        try stripes(width: 100, height: 20_000).writePNG(to: path("tall.png"))
        let jpeg = try Data(contentsOf: photos.appendingPathComponent("red-panda.jpg"))  // 1920 x 1080
        let png = try Data(contentsOf: photos.appendingPathComponent("garden-lizard.png"))  // 1024 x 768
        let webp = try Data(contentsOf: photos.appendingPathComponent("kingfisher.webp"))  // 1920 x 1080
        try jpeg.prefix(jpeg.count / 2).write(to: folder.appendingPathComponent("truncated.jpg"))
        try png.prefix(png.count / 2).write(to: folder.appendingPathComponent("truncated.png"))
        try webp.prefix(webp.count / 2).write(to: folder.appendingPathComponent("truncated.webp"))
        for (name, _) in changing { try jpeg.write(to: folder.appendingPathComponent(name)) }
    }

    /// Changes the changing files: after their headers were read, before they are decoded.
    static func vanish(in folder: URL) throws {
        let files = FileManager.default
        let fifo = folder.appendingPathComponent("z-fifo.jpg").path
        try files.removeItem(atPath: fifo)
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        try files.removeItem(at: folder.appendingPathComponent("z-folder.jpg"))
        try files.createDirectory(at: folder.appendingPathComponent("z-folder.jpg"), withIntermediateDirectories: false)
        try files.removeItem(at: folder.appendingPathComponent("z-gone.jpg"))
    }

    /// An opaque picture of coloured bands 50 px wide across its longer side.
    static func stripes(width: Int, height: Int) -> Bitmap {
        let colours: [[UInt8]] = [[230, 180, 20, 255], [20, 90, 160, 255], [40, 160, 90, 255]]
        func band(_ index: Int) -> [UInt8] { colours[index / 50 % colours.count] }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        if width >= height {
            let row = (0..<width).flatMap(band)
            for _ in 0..<height { pixels += row }
        } else {
            for y in 0..<height { pixels += [[UInt8]](repeating: band(y), count: width).joined() }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// A baseline greyscale JPEG of any size in a few hundred kilobytes, made without an encoder:
    /// one Huffman code for "no change of DC" and one for "end of block", so every 8 x 8 block
    /// is two zero bits, and the picture is mid-grey. (ImageMagick would need gigabytes to
    /// write 12000 x 12000.)
    static func uniformJPEG(width: Int, height: Int) -> [UInt8] {
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += [0xFF, 0xDB] + be16(67) + [0] + [UInt8](repeating: 1, count: 64)  // DQT
        bytes += [0xFF, 0xC0] + be16(11) + [8] + be16(height) + be16(width) + [1, 1, 0x11, 0]  // SOF0
        let oneCode = [UInt8(1)] + [UInt8](repeating: 0, count: 15)  // one code of length 1
        bytes += [0xFF, 0xC4] + be16(2 + 2 * 18) + [0x00] + oneCode + [0x00] + [0x10] + oneCode + [0x00]  // DHT
        bytes += [0xFF, 0xDA] + be16(8) + [1, 1, 0x00, 0, 63, 0]  // SOS
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        bytes += [UInt8](repeating: 0, count: (blocks * 2 + 7) / 8)
        bytes += [0xFF, 0xD9]
        return bytes
    }
}
