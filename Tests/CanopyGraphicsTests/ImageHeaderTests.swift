import CanopyGraphics
import Foundation
import XCTest

final class ImageHeaderTests: XCTestCase {
    // MARK: Fixtures

    /// Sizes of the project's photos, from ImageMagick's `identify`.
    private static let photos: [(name: String, width: Int, height: Int, format: ImageFormat)] = [
        ("bonnet-macaque.webp", 1920, 1080, .webp),
        ("collared-aracari.webp", 1920, 1080, .webp),
        ("common-chameleon.webp", 1920, 1080, .webp),
        ("flying-fox.webp", 1920, 1080, .webp),
        ("garden-lizard.png", 1024, 768, .png),
        ("glassy-tiger-butterfly.jpg", 1920, 1080, .jpeg),
        ("jaguar.webp", 1024, 683, .webp),
        ("kingfisher.webp", 1920, 1080, .webp),
        ("lar-gibbon.webp", 1920, 1080, .webp),
        ("mountain-gorilla.jpg", 1920, 1080, .jpeg),
        ("proboscis-monkey.jpg", 1920, 1080, .jpeg),
        ("red-panda.jpg", 1920, 1080, .jpeg),
        ("ring-tailed-lemur.webp", 1024, 683, .webp),
        ("saltwater-crocodile.webp", 1024, 506, .webp),
        ("scarlet-macaw.png", 1024, 793, .png),
        ("swallowtail-caterpillar.webp", 1920, 1080, .webp),
    ]

    private static let imagesDirectory = Fixtures.imagesDirectory

    private static let convertPath = Fixtures.convertPath

    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = try Fixtures.makeScratch("ImageHeaderTests")
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
        try super.tearDownWithError()
    }

    // MARK: The project's photos

    func testReadsTheSizeOfEveryPhoto() throws {
        for photo in Self.photos {
            let path = Self.imagesDirectory.appendingPathComponent(photo.name).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "missing photo \(path)")
            XCTAssertEqual(
                read(path), ImageHeader(width: photo.width, height: photo.height, format: photo.format),
                photo.name)
        }
        // Photos added later must at least be readable.
        let known = Set(Self.photos.map(\.name))
        let listed = try FileManager.default.contentsOfDirectory(atPath: Self.imagesDirectory.path)
        for name in listed where !known.contains(name) && !name.hasPrefix(".") {
            let header = read(Self.imagesDirectory.appendingPathComponent(name).path)
            XCTAssertNotNil(header, "\(name) has no readable header")
        }
    }

    func testBytesVariantAgreesWithTheFileVariant() throws {
        for photo in Self.photos {
            let bytes = try photoBytes(photo.name)
            let expected = ImageHeader(width: photo.width, height: photo.height, format: photo.format)
            XCTAssertEqual(read(bytes: bytes, "whole/" + photo.name), expected, photo.name)
            XCTAssertEqual(read(bytes: Array(bytes.prefix(65_536)), photo.name), expected, photo.name)
        }
    }

    // MARK: Files built byte by byte

    func testGIFHeadersOfBothVersions() throws {
        XCTAssertEqual(
            read(try write(gif(width: 300, height: 2, version: "87a"), "a.gif")),
            ImageHeader(width: 300, height: 2, format: .gif))
        XCTAssertEqual(
            read(try write(gif(width: 3, height: 513, version: "89a"), "b.gif")),
            ImageHeader(width: 3, height: 513, format: .gif))
        // Any other version is no GIF signature.
        XCTAssertEqual(error(bytes: gif(width: 3, height: 3, version: "88a"), "c.gif"), .notAnImage(path: "c.gif"))
    }

    func testBMPCoreHeaderWithSixteenBitSizes() throws {
        let path = try write(bmpCore(width: 300, height: 258), "core.bmp")
        XCTAssertEqual(read(path), ImageHeader(width: 300, height: 258, format: .bmp))
    }

    func testBMPInfoHeaderBottomUpAndTopDown() throws {
        XCTAssertEqual(
            read(try write(bmpInfo(width: 70, height: 300), "up.bmp")),
            ImageHeader(width: 70, height: 300, format: .bmp))
        XCTAssertEqual(
            read(try write(bmpInfo(width: 70, height: -300), "down.bmp")),
            ImageHeader(width: 70, height: 300, format: .bmp))
        XCTAssertEqual(
            read(try write(bmpInfo(width: 5, height: -3, headerSize: 124), "v5.bmp")),
            ImageHeader(width: 5, height: 3, format: .bmp))
        XCTAssertEqual(
            error(bytes: bmpInfo(width: 5, height: 3, headerSize: 99), "odd.bmp"),
            .unsupported(path: "odd.bmp", reason: "BMP header of 99 bytes"))
        XCTAssertEqual(
            error(bytes: bmpInfo(width: -5, height: 3), "neg.bmp"),
            .unsupported(path: "neg.bmp", reason: "BMP width -5"))
        // Int32.min as height must neither trap nor pass.
        XCTAssertEqual(
            error(bytes: bmpInfo(width: 5, height: Int32.min), "min.bmp"),
            .tooLarge(path: "min.bmp", width: 5, height: 2_147_483_648, limit: 65_535))
    }

    func testWebPOfEveryKindBuiltByHand() throws {
        // The top two bits of VP8's 16-bit fields are scaling, not size.
        XCTAssertEqual(
            read(try write(webpVP8(width: 1023, height: 17, scale: 3), "lossy.webp")),
            ImageHeader(width: 1023, height: 17, format: .webp))
        XCTAssertEqual(
            read(try write(webpVP8L(width: 16_384, height: 3), "lossless.webp")),
            ImageHeader(width: 16_384, height: 3, format: .webp))
        XCTAssertEqual(
            read(try write(webpVP8L(width: 1, height: 16_384), "tall.webp")),
            ImageHeader(width: 1, height: 16_384, format: .webp))
        XCTAssertEqual(
            read(try write(webpVP8X(width: 65_535, height: 2), "extended.webp")),
            ImageHeader(width: 65_535, height: 2, format: .webp))
        var noKeyFrame = webpVP8(width: 8, height: 8)
        noKeyFrame[23] = 0
        XCTAssertEqual(
            error(bytes: noKeyFrame, "p.webp"),
            .unsupported(path: "p.webp", reason: "WebP VP8 data without a key frame"))
        var badVersion = webpVP8L(width: 8, height: 8)
        badVersion[24] |= 0x20
        XCTAssertEqual(
            error(bytes: badVersion, "v.webp"),
            .unsupported(path: "v.webp", reason: "WebP VP8L version 1"))
    }

    func testJPEGMarkerWalkSkipsFillBytesStandaloneMarkersAndTables() throws {
        // DHT (C4), JPG (C8) and DAC (CC) sit in the SOF range but are tables: their bytes
        // are laid out so that reading one as a frame header would give 1 x 1.
        let fakeFrame: [UInt8] = [0x08, 0x00, 0x01, 0x00, 0x01, 0x03]
        var body: [UInt8] = []
        body += segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        body += [0xFF, 0xFF, 0xFF]  // fill bytes before a marker
        body += segment(0xC4, fakeFrame)
        body += [0xFF, 0xD0, 0xFF, 0xD7, 0xFF, 0x01]  // RST0, RST7, TEM: no length
        body += segment(0xC8, fakeFrame)
        body += segment(0xCC, fakeFrame)
        body += segment(0xFE, Array("comment ".utf8) + [0xFF, 0xD9])  // a comment holding what looks like EOI
        body += [0xFF, 0xFF]
        body += frame(0xC0, width: 641, height: 479, components: 3)
        let path = try write(jpeg(body), "walk.jpg")
        XCTAssertEqual(read(path), ImageHeader(width: 641, height: 479, format: .jpeg))
    }

    func testJPEGEveryStartOfFrameKind() throws {
        let frames: [UInt8] = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]
        for marker in frames {
            let bytes = jpeg(segment(0xDB, [UInt8](repeating: 1, count: 65)) + frame(marker, width: 33, height: 257))
            XCTAssertEqual(
                read(bytes: bytes, "sof.jpg"), ImageHeader(width: 33, height: 257, format: .jpeg),
                String(marker, radix: 16))
        }
    }

    func testJPEGWithoutAFrame() throws {
        let onlyTables = [0xFF, 0xD8] + segment(0xDB, [UInt8](repeating: 1, count: 65)) + [0xFF, 0xD9]
        XCTAssertEqual(error(bytes: onlyTables, "tables.jpg"), .truncated(path: "tables.jpg", format: .jpeg))
        let scanFirst = [0xFF, 0xD8] + segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0x34]
        XCTAssertEqual(
            error(bytes: scanFirst, "scan.jpg"),
            .unsupported(path: "scan.jpg", reason: "JPEG scan before the frame header"))
        let badLength: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0x00]
        XCTAssertEqual(
            error(bytes: badLength, "len.jpg"),
            .unsupported(path: "len.jpg", reason: "JPEG segment length 1"))
    }

    // MARK: A JPEG whose frame header lies past the first read

    func testJPEGWithAHundredKilobyteAPPSegmentBeforeTheFrame() throws {
        let small = try photoBytes("glassy-tiger-butterfly.jpg")
        // Two APPn segments (one can hold at most 65,533 bytes), about 100 KB in all, right after SOI.
        let exif = segment(0xE1, Array("Exif\0\0".utf8) + [UInt8](repeating: 0xFF, count: 65_527))
        let more = segment(0xE2, [UInt8](repeating: 0xD9, count: 40_000))
        let spliced = Array(small[0..<2]) + exif + more + Array(small[2...])
        let path = try write(spliced, "exif.jpg")
        let expected = ImageHeader(width: 1920, height: 1080, format: .jpeg)

        XCTAssertEqual(read(path), expected)
        XCTAssertEqual(read(bytes: spliced, "exif.jpg"), expected)
        // The first 64 KiB alone do not reach the frame header, so the file variant had to seek.
        XCTAssertEqual(
            error(bytes: Array(spliced.prefix(65_536)), "exif.jpg"),
            .truncated(path: "exif.jpg", format: .jpeg))

        // The same file cut off before its frame header.
        let cut = try write(Array(spliced.prefix(100_000)), "cut.jpg")
        XCTAssertEqual(error(cut), .truncated(path: cut, format: .jpeg))
    }

    func testJPEGWithManySegmentsSpanningSeveralReads() throws {
        var body: [UInt8] = []
        for index in 0..<40 {  // 40 segments of 9,000 bytes: 360 KB of metadata
            body += segment(0xE0 + UInt8(index % 16), [UInt8](repeating: UInt8(index), count: 8_998))
        }
        body += frame(0xC2, width: 4000, height: 3000)
        let path = try write(jpeg(body), "many.jpg")
        XCTAssertEqual(read(path), ImageHeader(width: 4000, height: 3000, format: .jpeg))
    }

    func testFileAndBytesVariantsAgreeOnRandomJPEGLayouts() throws {
        // Segments of random sizes put markers, fill bytes and frame headers across the
        // boundaries of the reader's windows; reading the file must match reading all its bytes.
        var random = SeededRandom(seed: 2024)
        var found = 0
        for round in 0..<40 {
            var body: [UInt8] = []
            for _ in 0..<(1 + Int(random.next() % 12)) {
                switch random.next() % 4 {
                case 0: body += [UInt8](repeating: 0xFF, count: Int(random.next() % 5))
                case 1: body += [0xFF, 0xD0 + UInt8(random.next() % 8)]
                default:
                    body += segment(
                        0xE0 + UInt8(random.next() % 16),
                        [UInt8](repeating: 0xFF, count: Int(random.next() % 65_534)))
                }
            }
            // Line a marker up with the end of the first 64 KiB in some rounds.
            if round % 5 == 0, body.count < 65_000 {
                body += segment(0xFE, [UInt8](repeating: 0, count: 65_536 - 2 - body.count - 4 - Int(random.next() % 8)))
            }
            let width = UInt16(1 + random.next() % 9000)
            let height = UInt16(1 + random.next() % 9000)
            var whole = jpeg(body + frame(0xC2, width: width, height: height, components: 3))
            if round % 7 == 3 { whole.removeLast(Int(random.next() % 40) + 6) }
            let path = try write(whole, "random\(round).jpg")
            let fromFile = Result { () throws(ImageError) in try ImageHeader.read(contentsOf: path) }
            let fromBytes = Result { () throws(ImageError) in try ImageHeader.read(bytes: whole, path: path) }
            XCTAssertEqual(fromFile, fromBytes, "round \(round)")
            if case .success(let header) = fromFile {
                XCTAssertEqual(header, ImageHeader(width: Int(width), height: Int(height), format: .jpeg), "round \(round)")
                found += 1
            }
        }
        XCTAssertGreaterThan(found, 30)
    }

    // MARK: Files made by ImageMagick

    func testConvertMadeGIF() throws {
        let path = try convert(["-size", "17x9", "xc:blue"], "made.gif")
        XCTAssertEqual(Array(try bytes(of: path).prefix(6)), Array("GIF89a".utf8))
        XCTAssertEqual(read(path), ImageHeader(width: 17, height: 9, format: .gif))
    }

    func testConvertMadeBMPsOfBothHeaderKinds() throws {
        // BMP2 writes a 12-byte BITMAPCOREHEADER with ImageMagick 6; BMP3 a 40-byte BITMAPINFOHEADER; BMP a V5.
        var sizes: Set<UInt8> = []
        for (index, kind) in ["BMP2", "BMP3", "BMP"].enumerated() {
            let path = try convert(["-size", "301x7", "xc:green"], "made\(index).bmp", format: kind)
            let header = try bytes(of: path)
            sizes.insert(header[14])
            XCTAssertEqual(read(path), ImageHeader(width: 301, height: 7, format: .bmp), kind)
        }
        XCTAssertEqual(sizes, [12, 40, 124], "BMP header sizes written")
    }

    func testConvertMadeLosslessWebP() throws {
        let path = try convert(["-size", "7x5", "xc:red", "-define", "webp:lossless=true"], "lossless.webp")
        XCTAssertEqual(try chunk(of: path), "VP8L")
        XCTAssertEqual(read(path), ImageHeader(width: 7, height: 5, format: .webp))
    }

    func testConvertMadeExtendedWebPWithAlpha() throws {
        let path = try convert(["-size", "9x4", "xc:none", "-define", "webp:lossless=false"], "alpha.webp")
        XCTAssertEqual(try chunk(of: path), "VP8X")
        XCTAssertEqual(read(path), ImageHeader(width: 9, height: 4, format: .webp))
    }

    func testConvertMadeLossyWebP() throws {
        let path = try convert(["-size", "21x11", "xc:orange", "-define", "webp:lossless=false"], "lossy.webp")
        XCTAssertEqual(try chunk(of: path), "VP8 ")
        XCTAssertEqual(read(path), ImageHeader(width: 21, height: 11, format: .webp))
    }

    func testConvertMadeGreyJPEG() throws {
        let path = try convert(["-size", "13x7", "xc:gray50", "-colorspace", "Gray"], "grey.jpg")
        let frame = try XCTUnwrap(frameHeader(of: bytes(of: path)))
        XCTAssertEqual(frame.components, 1, "not a one-component JPEG")
        XCTAssertEqual(read(path), ImageHeader(width: 13, height: 7, format: .jpeg))
    }

    func testConvertMadeSixteenBitPNG() throws {
        let path = try convert(["-size", "11x3", "xc:red", "-depth", "16"], "deep.png", format: "PNG48")
        XCTAssertEqual(try bytes(of: path)[24], 16, "not a 16-bit PNG")
        XCTAssertEqual(read(path), ImageHeader(width: 11, height: 3, format: .png))
    }

    func testConvertMadeBaselineAndProgressiveJPEG() throws {
        let baseline = try convert(["-size", "35x19", "xc:purple", "-interlace", "none"], "baseline.jpg")
        let progressive = try convert(["-size", "19x35", "xc:purple", "-interlace", "JPEG"], "progressive.jpg")
        XCTAssertEqual(frameHeader(of: try bytes(of: baseline))?.marker, 0xC0)
        XCTAssertEqual(frameHeader(of: try bytes(of: progressive))?.marker, 0xC2)
        XCTAssertEqual(read(baseline), ImageHeader(width: 35, height: 19, format: .jpeg))
        XCTAssertEqual(read(progressive), ImageHeader(width: 19, height: 35, format: .jpeg))
    }

    // MARK: Failures

    func testMissingFile() throws {
        let path = scratch.appendingPathComponent("missing.png").path
        let failure = error(path)
        XCTAssertEqual(failure, .fileMissing(path: path))
        XCTAssertEqual(failure?.description, "missing.png: no such file")
    }

    func testDirectory() throws {
        let directory = scratch.appendingPathComponent("photos.png")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let failure = error(directory.path)
        XCTAssertEqual(failure, .unreadable(path: directory.path, reason: "Is a directory"))
        XCTAssertEqual(failure?.description, "photos.png: cannot read (Is a directory)")
    }

    func testFileWithoutReadPermission() throws {
        guard getuid() != 0 else { throw XCTSkip("root may read any file") }
        let path = try write(png(width: 5, height: 5), "locked.png")
        XCTAssertEqual(chmod(path, 0), 0)
        defer { chmod(path, 0o644) }
        let failure = error(path)
        XCTAssertEqual(failure, .unreadable(path: path, reason: "Permission denied"))
        XCTAssertEqual(failure?.description, "locked.png: cannot read (Permission denied)")
    }

    func testAFIFOOrADeviceIsNotReadAsAnImage() throws {
        // Opened without blocking (no writer needed) and refused: a FIFO put where a photo was.
        let fifo = scratch.appendingPathComponent("pipe.jpg").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(error(fifo), .unreadable(path: fifo, reason: "not a regular file"))
        XCTAssertEqual(error(fifo)?.description, "pipe.jpg: cannot read (not a regular file)")
        XCTAssertEqual(error("/dev/zero"), .unreadable(path: "/dev/zero", reason: "not a regular file"))
    }

    func testEmptyFile() throws {
        let path = try write([], "empty.png")
        XCTAssertEqual(error(path), .notAnImage(path: path))
        XCTAssertEqual(error(bytes: [], "empty.png"), .notAnImage(path: "empty.png"))
    }

    func testTextFileNamedJPG() throws {
        let path = try write(Array("Photos of the jaguar, to be added.\n".utf8), "x.jpg")
        let failure = error(path)
        XCTAssertEqual(failure, .notAnImage(path: path))
        XCTAssertEqual(failure?.description, "x.jpg: not an image (unknown file signature)")
        // A RIFF file that is no WebP (a WAVE sound) is not an image either.
        XCTAssertEqual(error(bytes: Array("RIFF\u{4}\0\0\0WAVEfmt ".utf8), "s.webp"), .notAnImage(path: "s.webp"))
    }

    func testEveryFormatTruncatedRightAfterItsSignature() throws {
        let signatures: [(ImageFormat, [UInt8])] = [
            (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (.jpeg, [0xFF, 0xD8, 0xFF]),
            (.webp, Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBP".utf8)),
            (.gif, Array("GIF89a".utf8)),
            (.gif, Array("GIF87a".utf8)),
            (.bmp, Array("BM".utf8)),
        ]
        for (format, signature) in signatures {
            let path = try write(signature, "cut.\(format.rawValue)")
            XCTAssertEqual(error(path), .truncated(path: path, format: format), format.rawValue)
            XCTAssertEqual(error(bytes: signature, "cut"), .truncated(path: "cut", format: format), format.rawValue)
        }
        XCTAssertEqual(
            error(bytes: signatures[2].1, "/photos/jaguar.webp")?.description,
            "jaguar.webp: the file is truncated (WebP header cut short)")
        XCTAssertEqual(
            error(bytes: signatures[0].1, "a.png")?.description,
            "a.png: the file is truncated (PNG header cut short)")
        XCTAssertEqual(
            error(bytes: signatures[1].1, "a.jpg")?.description,
            "a.jpg: the file is truncated (JPEG header cut short)")
    }

    func testEveryFormatTruncatedOneByteBeforeItsSize() throws {
        let whole: [(ImageFormat, [UInt8])] = [
            (.png, png(width: 9, height: 9)),
            (.jpeg, jpeg(frame(0xC0, width: 9, height: 9))),
            (.webp, webpVP8(width: 9, height: 9)),
            (.webp, webpVP8L(width: 9, height: 9)),
            (.webp, webpVP8X(width: 9, height: 9)),
            (.gif, gif(width: 9, height: 9)),
            (.bmp, bmpCore(width: 9, height: 9)),
            (.bmp, bmpInfo(width: 9, height: 9)),
        ]
        let needed = [24, 2 + 9, 30, 25, 30, 10, 22, 26]  // bytes up to the end of the size fields
        for ((format, bytes), count) in zip(whole, needed) {
            XCTAssertEqual(read(bytes: Array(bytes.prefix(count)), "f"), ImageHeader(width: 9, height: 9, format: format))
            XCTAssertEqual(
                error(bytes: Array(bytes.prefix(count - 1)), "f"), .truncated(path: "f", format: format),
                "\(format) cut to \(count - 1) bytes")
        }
    }

    func testTooLarge() throws {
        let path = try write(png(width: 70_000, height: 100), "big.png")
        let failure = error(path)
        XCTAssertEqual(failure, .tooLarge(path: path, width: 70_000, height: 100, limit: ImageHeader.maximumSide))
        XCTAssertEqual(failure?.description, "big.png: too large (70000 x 100 px; the limit is 65535 per side)")
        XCTAssertEqual(ImageHeader.maximumSide, 65_535)
        XCTAssertEqual(
            error(bytes: webpVP8X(width: 65_536, height: 1), "w.webp"),
            .tooLarge(path: "w.webp", width: 65_536, height: 1, limit: 65_535))
        XCTAssertEqual(
            error(bytes: png(width: 1, height: 0xFFFF_FFFF), "h.png"),
            .tooLarge(path: "h.png", width: 1, height: 4_294_967_295, limit: 65_535))
        XCTAssertEqual(
            read(bytes: png(width: 65_535, height: 65_535), "edge.png"),
            ImageHeader(width: 65_535, height: 65_535, format: .png))
    }

    func testZeroSizeIsUnsupported() throws {
        let cases: [(String, [UInt8], Int, Int)] = [
            ("zero.png", png(width: 0, height: 10), 0, 10),
            ("zero.jpg", jpeg(frame(0xC0, width: 10, height: 0)), 10, 0),
            ("zero.webp", webpVP8(width: 10, height: 0), 10, 0),
            ("zero.gif", gif(width: 0, height: 0), 0, 0),
            ("zero.bmp", bmpInfo(width: 0, height: 10), 0, 10),
            ("zero-core.bmp", bmpCore(width: 10, height: 0), 10, 0),
        ]
        for (name, bytes, width, height) in cases {
            let path = try write(bytes, name)
            let failure = error(path)
            XCTAssertEqual(failure, .unsupported(path: path, reason: "zero width or height (\(width) x \(height) px)"))
            XCTAssertEqual(
                failure?.description,
                "\(name): unsupported image (zero width or height (\(width) x \(height) px))")
        }
    }

    func testUnsupportedWebPChunkAndPNGWithoutIHDR() throws {
        var bytes = webpVP8X(width: 5, height: 5)
        bytes.replaceSubrange(12..<16, with: Array("XYZ ".utf8))
        let failure = error(bytes: bytes, "dir/x.webp")
        XCTAssertEqual(failure, .unsupported(path: "dir/x.webp", reason: "WebP chunk 'XYZ '"))
        XCTAssertEqual(failure?.description, "x.webp: unsupported image (WebP chunk 'XYZ ')")

        var apple = png(width: 5, height: 5)
        apple.replaceSubrange(12..<16, with: [0x43, 0x67, 0x00, 0x49])
        XCTAssertEqual(error(bytes: apple, "a.png"), .unsupported(path: "a.png", reason: "PNG chunk 'Cg?I' before IHDR"))
    }

    func testErrorDescriptions() {
        XCTAssertEqual(
            ImageError.unreadable(path: "x", reason: "Permission denied").description,
            "x: cannot read (Permission denied)")
        XCTAssertEqual(
            ImageError.tooLarge(path: "/a/b/big.png", width: 30_000, height: 100, limit: 16_384).description,
            "big.png: too large (30000 x 100 px; the limit is 16384 per side)")
        XCTAssertEqual(ImageError.fileMissing(path: "/photos/missing.png").description, "missing.png: no such file")
        XCTAssertEqual(ImageError.notAnImage(path: "x.jpg").description, "x.jpg: not an image (unknown file signature)")
        XCTAssertEqual(
            ImageError.truncated(path: "a/jaguar.webp", format: .webp).description,
            "jaguar.webp: the file is truncated (WebP header cut short)")
        XCTAssertEqual(
            ImageError.truncated(path: "g", format: .gif).description,
            "g: the file is truncated (GIF header cut short)")
        XCTAssertEqual(
            ImageError.truncated(path: "b", format: .bmp).description,
            "b: the file is truncated (BMP header cut short)")
        XCTAssertEqual(
            ImageError.unreadable(path: "/photos/", reason: "Is a directory").description,
            "photos: cannot read (Is a directory)")
        XCTAssertEqual(ImageFormat.allCases.map(\.rawValue), ["png", "jpeg", "webp", "gif", "bmp", "heif", "avif"])
    }

    // MARK: Robustness

    func testEveryPrefixOfEveryPhotosFirstFourKilobytes() throws {
        for photo in Self.photos {
            let head = Array(try photoBytes(photo.name).prefix(4096))
            let expected = ImageHeader(width: photo.width, height: photo.height, format: photo.format)
            var firstSuccess: Int?
            for count in 0...head.count {
                do {
                    let header = try ImageHeader.read(bytes: Array(head[0..<count]), path: photo.name)
                    XCTAssertEqual(header, expected, "\(photo.name) cut to \(count) bytes")
                    if firstSuccess == nil { firstSuccess = count }
                } catch {
                    // Once the header is complete, longer prefixes must keep working.
                    XCTAssertNil(firstSuccess, "\(photo.name) cut to \(count) bytes: \(error)")
                    if count >= 12 {
                        XCTAssertEqual(
                            error, .truncated(path: photo.name, format: photo.format),
                            "\(photo.name) cut to \(count) bytes")
                    }
                }
            }
            XCTAssertNotNil(firstSuccess, "\(photo.name): no prefix of 4 KiB gave a size")
        }
    }

    func testRandomMutationsNeverTrap() throws {
        var random = SeededRandom(seed: 0x5EED_CA70_9E)
        let heads = try Self.photos.map { Array(try photoBytes($0.name).prefix(4096)) }
        let seeds =
            heads + [
                png(width: 9, height: 9), jpeg(frame(0xC2, width: 9, height: 9)), webpVP8(width: 9, height: 9),
                webpVP8L(width: 9, height: 9), webpVP8X(width: 9, height: 9), gif(width: 9, height: 9),
                bmpCore(width: 9, height: 9), bmpInfo(width: 9, height: -9),
            ]
        var successes = 0
        var failures = 0
        for round in 0..<6000 {
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            let edits = 1 + Int(random.next() % 8)
            for _ in 0..<edits where !bytes.isEmpty {
                // Mostly hit the first 64 bytes, where the headers live.
                let span = random.next() % 4 == 0 ? bytes.count : min(bytes.count, 64)
                let at = Int(random.next() % UInt64(span))
                switch random.next() % 6 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[at] ^= UInt8(1) << (random.next() % 8)
                case 2: bytes[at] = [0x00, 0xFF, 0x7F, 0x80, 0xC0, 0xD9, 0xDA][Int(random.next() % 7)]
                case 3: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                case 4: bytes.remove(at: at)
                default: bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
                }
            }
            if round % 10 == 0 {  // random tails behind a JPEG signature drive the marker walk
                bytes =
                    [0xFF, 0xD8, 0xFF]
                    + (0..<Int(random.next() % 600)).map { _ in
                        random.next() % 3 == 0 ? 0xFF : UInt8(truncatingIfNeeded: random.next())
                    }
            }
            do {
                let header = try ImageHeader.read(bytes: bytes, path: "fuzz")
                XCTAssertTrue((1...ImageHeader.maximumSide).contains(header.width), "round \(round): \(header)")
                XCTAssertTrue((1...ImageHeader.maximumSide).contains(header.height), "round \(round): \(header)")
                successes += 1
            } catch {
                XCTAssertFalse(error.description.isEmpty)
                failures += 1
            }
        }
        // The mutations must exercise both outcomes, or this test proves little.
        XCTAssertGreaterThan(successes, 500)
        XCTAssertGreaterThan(failures, 500)
    }

    // MARK: Helpers

    private func read(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> ImageHeader? {
        do {
            return try ImageHeader.read(contentsOf: path)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    private func read(bytes: [UInt8], _ path: String, file: StaticString = #filePath, line: UInt = #line) -> ImageHeader? {
        do {
            return try ImageHeader.read(bytes: bytes, path: path)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    private func error(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> ImageError? {
        do {
            let header = try ImageHeader.read(contentsOf: path)
            XCTFail("expected an error, read \(header)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func error(bytes: [UInt8], _ path: String, file: StaticString = #filePath, line: UInt = #line) -> ImageError? {
        do {
            let header = try ImageHeader.read(bytes: bytes, path: path)
            XCTFail("expected an error, read \(header)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    private func photoBytes(_ name: String) throws -> [UInt8] {
        try bytes(of: Self.imagesDirectory.appendingPathComponent(name).path)
    }

    private func bytes(of path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Runs ImageMagick's convert with `arguments`, writing `name` in the scratch directory (with an
    /// explicit output `format` such as "PNG48" if given); returns the output's path.
    private func convert(_ arguments: [String], _ name: String, format: String? = nil) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: Self.convertPath) else {
            throw XCTSkip("ImageMagick's convert is not installed at \(Self.convertPath)")
        }
        let path = scratch.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.convertPath)
        process.arguments = arguments + [(format.map { $0 + ":" } ?? "") + path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "convert \(arguments) \(name) failed")
        return path
    }

    /// The first chunk's name in a WebP file.
    private func chunk(of path: String) throws -> String {
        let bytes = try bytes(of: path)
        return String(decoding: bytes[12..<16], as: UTF8.self)
    }

    /// The first SOFn marker of a well-formed JPEG and its component count, found independently of the reader.
    private func frameHeader(of bytes: [UInt8]) -> (marker: UInt8, components: Int)? {
        var at = 2
        while at + 9 < bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                return (marker, Int(bytes[at + 9]))
            }
            at += 2 + Int(bytes[at + 2]) << 8 + Int(bytes[at + 3])
        }
        return nil
    }

    // Byte builders. Each writes just enough of the format for a header reader (and most viewers).

    private func png(width: UInt32, height: UInt32) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian32(13) + Array("IHDR".utf8)
            + bigEndian32(width) + bigEndian32(height) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
            + bigEndian32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    private func gif(width: UInt16, height: UInt16, version: String = "89a") -> [UInt8] {
        Array("GIF\(version)".utf8) + littleEndian16(width) + littleEndian16(height) + [0, 0, 0, 0x3B]
    }

    private func bmpCore(width: UInt16, height: UInt16) -> [UInt8] {
        let pixels = [UInt8](repeating: 0x80, count: 16)
        return Array("BM".utf8) + littleEndian32(UInt32(26 + pixels.count)) + [0, 0, 0, 0] + littleEndian32(26)
            + littleEndian32(12) + littleEndian16(width) + littleEndian16(height) + littleEndian16(1) + littleEndian16(24)
            + pixels
    }

    private func bmpInfo(width: Int32, height: Int32, headerSize: UInt32 = 40) -> [UInt8] {
        var header =
            littleEndian32(headerSize) + littleEndian32(UInt32(bitPattern: width))
            + littleEndian32(UInt32(bitPattern: height)) + littleEndian16(1) + littleEndian16(24)
        header += [UInt8](repeating: 0, count: max(0, Int(headerSize) - header.count))
        let offset = UInt32(14 + header.count)
        return Array("BM".utf8) + littleEndian32(offset + 16) + [0, 0, 0, 0] + littleEndian32(offset) + header
            + [UInt8](repeating: 0x40, count: 16)
    }

    private func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        let padded = payload + (payload.count % 2 == 1 ? [0] : [])
        return Array("RIFF".utf8) + littleEndian32(UInt32(12 + padded.count)) + Array("WEBP".utf8)
            + Array(chunk.utf8) + littleEndian32(UInt32(payload.count)) + padded
    }

    private func webpVP8(width: UInt16, height: UInt16, scale: UInt16 = 0) -> [UInt8] {
        // Frame tag: key frame (bit 0 clear), version 0, shown, partition size 0.
        riff(
            "VP8 ",
            [0x10, 0x00, 0x00, 0x9D, 0x01, 0x2A] + littleEndian16(width | scale << 14)
                + littleEndian16(height | scale << 14) + [UInt8](repeating: 0, count: 8))
    }

    private func webpVP8L(width: UInt32, height: UInt32) -> [UInt8] {
        let bits = (width - 1) | (height - 1) << 14
        return riff("VP8L", [0x2F] + littleEndian32(bits) + [0, 0, 0])
    }

    private func webpVP8X(width: UInt32, height: UInt32) -> [UInt8] {
        riff("VP8X", [0x10, 0, 0, 0] + Array(littleEndian32(width - 1).prefix(3)) + Array(littleEndian32(height - 1).prefix(3)))
    }

    private func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + bigEndian16(UInt16(payload.count + 2)) + payload
    }

    private func frame(_ marker: UInt8, width: UInt16, height: UInt16, components: UInt8 = 1) -> [UInt8] {
        var payload: [UInt8] = [8] + bigEndian16(height) + bigEndian16(width) + [components]
        for index in 0..<components { payload += [index + 1, 0x11, 0] }
        return segment(marker, payload)
    }

    private func jpeg(_ body: [UInt8]) -> [UInt8] {
        [0xFF, 0xD8] + body + [0xFF, 0xD9]
    }

    private func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private func bigEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func littleEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
