import CanopyGraphics
import Foundation
import XCTest

/// The freedesktop.org thumbnails: names as GLib makes them, a round trip (made, written, read
/// back instead of the image), invalidation by modification time, another program's thumbnail
/// used, failures recorded, small images left alone.
final class ThumbnailsTests: XCTestCase {
    private var scratch: URL!
    private var store: Thumbnails!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try GraphicsLibrary.initialize()
        scratch = try Fixtures.makeScratch("ThumbnailsTests")
        store = Thumbnails(root: scratch.appendingPathComponent("thumbnails"), software: "canopy-tests")
    }

    override func tearDownWithError() throws {
        Thumbnails.waitForWrites()
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    /// GLib's URI for a path (`gio info`), or a skip where gio is missing.
    private func gioURI(_ path: String) throws -> String {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/gio"), "gio (libglib2.0-bin) is missing")
        let output = String(decoding: try Fixtures.run("/usr/bin/gio", ["info", path]), as: UTF8.self)
        let line = try XCTUnwrap(output.split(separator: "\n").first { $0.hasPrefix("uri: ") })
        return String(line.dropFirst("uri: ".count))
    }

    private func md5(_ text: String) throws -> String {
        let input = scratch.appendingPathComponent("md5-input")
        try Data(text.utf8).write(to: input)
        let output = String(decoding: try Fixtures.run("/usr/bin/md5sum", [input.path]), as: UTF8.self)
        return String(output.prefix(32))
    }

    private func photo(_ name: String, size: String = "2000x1500", color: String = "gradient:red-blue") throws -> String {
        try Fixtures.convert(["-size", size, color, "-quality", "90"], name, in: scratch)
    }

    private func setModificationTime(_ path: String, _ seconds: Int) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: TimeInterval(seconds))], ofItemAtPath: path)
    }

    func testNamesAreTheOnesGLibAndFileManagersUse() throws {
        let folder = scratch.appendingPathComponent("Holiday 2026/ñandú 🐆 #1;a=b@c")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("IMG 0001 (copy)&'x'+y,~z!$*.jpg").path
        try Data([0]).write(to: URL(fileURLWithPath: path))
        let uri = try gioURI(path)
        XCTAssertEqual(Thumbnails.uri(forPath: path), uri)
        XCTAssertEqual(Thumbnails.fileName(forURI: uri), try md5(uri) + ".png")
        XCTAssertEqual(
            store.path(forFile: path, size: .large)!,
            scratch.appendingPathComponent("thumbnails/large/\(try md5(uri)).png").path)
    }

    func testAThumbnailIsWrittenOnceAndReadInsteadOfTheImage() throws {
        let path = try photo("photo.jpg")
        let target = CGSize(width: 300, height: 225)
        let first = try store.decode(contentsOf: path, fitting: target, cropping: nil)
        XCTAssertEqual([first.width, first.height], [300, 225])
        Thumbnails.waitForWrites()
        // 300 x 225 needs the 512 box (x-large: 512 x 384); the 256 one would be too small.
        let written = store.path(forFile: path, size: .xLarge)!
        let header = try ImageHeader.read(contentsOf: written)
        XCTAssertEqual([header.width, header.height], [512, 384])
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path(forFile: path, size: .large)!))
        let mtime = try XCTUnwrap(Thumbnails.modificationTime(ofFile: path))
        XCTAssertTrue(Thumbnails.isValid(thumbnailPath: written, forFile: path, modificationTime: mtime))
        let attributes = try FileManager.default.attributesOfItem(atPath: written)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: (written as NSString).deletingLastPathComponent).count, 1,
            "no temporary file left")

        // Put green in the thumbnail: the next decode shows green, so it read the thumbnail.
        try store.write(
            Bitmap(width: 512, height: 384, fill: Color(red: 0, green: 1, blue: 0)), forFile: path, size: .xLarge,
            imageWidth: 2000, imageHeight: 1500, modificationTime: mtime)
        let second = try store.decode(contentsOf: path, fitting: target, cropping: nil)
        XCTAssertEqual([second.width, second.height], [300, 225])
        XCTAssertEqual(second.pixel(x: 150, y: 100).g, 255)
        XCTAssertEqual(second.pixel(x: 150, y: 100).r, 0)
        // A crop, in the image's pixels, is taken from the thumbnail too.
        let crop = try store.decode(
            contentsOf: path, fitting: CGSize(width: 100, height: 100),
            cropping: ImageDecoder.Crop(x: 500, y: 500, width: 500, height: 500))
        XCTAssertEqual([crop.width, crop.height, Int(crop.pixel(x: 50, y: 50).g)], [100, 100, 255])

        // The image changes (a new modification time): the thumbnail is stale and made again.
        try setModificationTime(path, mtime + 60)
        let third = try store.decode(contentsOf: path, fitting: target, cropping: nil)
        XCTAssertNotEqual(third.pixel(x: 150, y: 100).g, 255, "the stale green thumbnail was used")
        Thumbnails.waitForWrites()
        XCTAssertTrue(Thumbnails.isValid(thumbnailPath: written, forFile: path, modificationTime: mtime + 60))
    }

    func testAnotherProgramsThumbnailIsRead() throws {
        // Written as ImageMagick writes text chunks: after the image data, with its own fields.
        let path = try photo("camera.jpg", size: "1600x1200")
        let uri = try gioURI(path)
        let mtime = try XCTUnwrap(Thumbnails.modificationTime(ofFile: path))
        let folder = scratch.appendingPathComponent("thumbnails/large")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try Fixtures.convert(
            [
                "-size", "256x192", "xc:#0000ff", "-set", "Thumb::URI", uri, "-set", "Thumb::MTime", "\(mtime)",
                "-set", "Software", "another program",
            ], "thumbnails/large/\(try md5(uri)).png", in: scratch)
        let bitmap = try store.decode(contentsOf: path, fitting: CGSize(width: 200, height: 150), cropping: nil)
        XCTAssertEqual([bitmap.width, bitmap.height], [200, 150])
        let p = bitmap.pixel(x: 100, y: 75)
        XCTAssertEqual([p.r, p.g, p.b], [0, 0, 255], "the other program's blue thumbnail")
        // A larger one of its own is only needed for a larger target.
        Thumbnails.waitForWrites()
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path(forFile: path, size: .xLarge)!))
    }

    func testAFileThatCannotBeThumbnailedIsRecordedAsAFailure() throws {
        let path = scratch.appendingPathComponent("notes.jpg").path
        let bytes =
            [UInt8]([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x05, 0xDC, 0x07, 0xD0, 0x03]) + [UInt8](repeating: 7, count: 64)
        try Data(bytes).write(to: URL(fileURLWithPath: path))  // a 2000 x 1500 JPEG header, then garbage
        XCTAssertThrowsError(try store.decode(contentsOf: path, fitting: CGSize(width: 300, height: 225), cropping: nil))
        Thumbnails.waitForWrites()
        XCTAssertTrue(store.hasFailure(forFile: path))
        XCTAssertTrue(store.failurePath(forFile: path)!.contains("/thumbnails/fail/canopy-tests/"))
        // Still an error, from the file itself, the next time.
        XCTAssertThrowsError(try store.decode(contentsOf: path, fitting: CGSize(width: 300, height: 225), cropping: nil))
    }

    func testASmallImageNeedsNoThumbnail() throws {
        let path = try photo("small.jpg", size: "400x300")
        let bitmap = try store.decode(contentsOf: path, fitting: CGSize(width: 200, height: 150), cropping: nil)
        XCTAssertEqual([bitmap.width, bitmap.height], [200, 150])
        Thumbnails.waitForWrites()
        // 200 x 150 from a 400 x 300 image: the 256 box (256 x 192) is the smallest that covers
        // it; the 512 and larger boxes are bigger than the image, so they make no thumbnail.
        let made = Thumbnails.Size.allCases.filter {
            FileManager.default.fileExists(atPath: store.path(forFile: path, size: $0)!)
        }
        XCTAssertEqual(made, [.large])
        // Smaller than every box: decoded as it is, nothing written.
        let tiny = try photo("tiny.jpg", size: "120x90")
        _ = try store.decode(contentsOf: tiny, fitting: CGSize(width: 60, height: 45), cropping: nil)
        Thumbnails.waitForWrites()
        XCTAssertFalse(
            Thumbnails.Size.allCases.contains { FileManager.default.fileExists(atPath: store.path(forFile: tiny, size: $0)!) })
    }
}
