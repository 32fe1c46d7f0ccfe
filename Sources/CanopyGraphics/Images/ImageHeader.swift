#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import CCodecs

/// An image's pixel size, format and orientation, read from its file header without decoding
/// the image.
///
/// `width` and `height` are the image's size as it is shown: for a file whose EXIF orientation
/// turns it a quarter (a portrait phone photo stored landscape), the stored sides swapped. A
/// decode's crop and target are in that shown image's pixels too.
public struct ImageHeader: Sendable, Equatable {
    /// The width as shown (after `orientation`).
    public var width: Int
    /// The height as shown (after `orientation`).
    public var height: Int
    public var format: ImageFormat
    /// How the stored pixels are turned to be shown: the EXIF orientation of a JPEG (APP1), a PNG
    /// (eXIf) or a WebP (EXIF chunk); `.up` when the file has none.
    public var orientation: ImageOrientation
    /// Whether the file holds an animation: a WebP whose header says so, or a GIF with a second
    /// image (found by walking the GIF's blocks, at most `gifAnimationScanLimit` bytes in: a GIF
    /// whose first image is larger is taken as still).
    public var isAnimated: Bool

    /// How far into a GIF the header looks for a second image.
    public static let gifAnimationScanLimit = 8 * 1024 * 1024

    /// Header values above this are rejected as `tooLarge` (decoding limits come later).
    public static let maximumSide = 65_535

    public init(
        width: Int, height: Int, format: ImageFormat, orientation: ImageOrientation = .up, isAnimated: Bool = false
    ) {
        self.width = width
        self.height = height
        self.format = format
        self.orientation = orientation
        self.isAnimated = isAnimated
    }

    /// The stored image's width (before `orientation`).
    public var storedWidth: Int { orientation.swapsAxes ? height : width }
    /// The stored image's height (before `orientation`).
    public var storedHeight: Int { orientation.swapsAxes ? width : height }

    /// Reads the size from the file's header without decoding the image.
    ///
    /// Reads the first 64 KiB at most; a JPEG whose frame header lies further (after a big
    /// EXIF segment, say) is followed by seeking past its segments, never by loading the file.
    public static func read(contentsOf path: String) throws(ImageError) -> ImageHeader {
        try parse(contentsOf: path).header
    }

    /// The header, and the EXIF data of a JPEG file (its APP1 payload, "Exif\0\0" and the TIFF
    /// data), read in one go (the file's segments only, never the image data); nil EXIF data for
    /// another format or a JPEG without it. Throws as `read(contentsOf:)` does.
    public static func readWithEXIFData(contentsOf path: String) throws(ImageError) -> (header: ImageHeader, exif: [UInt8]?) {
        let (header, parser) = try parse(contentsOf: path)
        return (header, header.format == .jpeg ? parser.exifPayload : nil)
    }

    /// The header of the file at `path`, and the parser that read it (what else it found).
    private static func parse(contentsOf path: String) throws(ImageError) -> (header: ImageHeader, parser: HeaderParser) {
        // A C path ends at its first NUL; a path holding one names no file we could open.
        guard !path.utf8.contains(0) else { throw .fileMissing(path: path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // non-blocking: a FIFO must not hang us
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw .fileMissing(path: path) }
            throw .unreadable(path: path, reason: HeaderBytes.systemMessage(code))
        }
        defer { close(descriptor) }
        // A FIFO, a device or a socket where an image was expected: not something to read as one
        // (a directory says so when read, below).
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFREG, status.st_mode & S_IFMT != S_IFDIR {
            throw .unreadable(path: path, reason: "not a regular file")
        }
        var parser = HeaderParser(bytes: try HeaderBytes(descriptor: descriptor, path: path), path: path)
        let header = try parser.parse()
        return (header, parser)
    }

    /// Reads it from bytes in memory (the first bytes of a file); `path` is for messages only.
    ///
    /// Never traps: every input either gives a header or throws.
    public static func read(bytes: [UInt8], path: String) throws(ImageError) -> ImageHeader {
        var parser = HeaderParser(bytes: HeaderBytes(bytes: bytes, path: path), path: path)
        return try parser.parse()
    }
}

/// A window onto a file's bytes (or onto bytes in memory), addressed by offset in the file.
/// Asking for a byte outside the window moves it there with `pread`, so a parser can seek
/// past large segments without loading what lies between.
private struct HeaderBytes {
    /// How much is read first: enough for every format's header and for most JPEG metadata.
    static let initialRead = 64 * 1024
    /// How much is read each time the window moves.
    static let laterRead = 16 * 1024

    private var window: [UInt8]
    /// The file offset of `window[0]`.
    private var base = 0
    /// The file's length once known (a read came up short); with no descriptor, the bytes' count.
    private var end: Int?
    private let descriptor: Int32
    private let path: String

    init(bytes: [UInt8], path: String) {
        window = bytes
        end = bytes.count
        descriptor = -1
        self.path = path
    }

    init(descriptor: Int32, path: String) throws(ImageError) {
        self.descriptor = descriptor
        self.path = path
        window = []
        try load(at: 0, count: Self.initialRead, seeking: false)
    }

    /// All the data, when it is in memory rather than in a file.
    var memory: [UInt8]? { descriptor < 0 ? window : nil }

    /// The byte at `offset`, or nil past the end of the data.
    mutating func byte(at offset: Int) throws(ImageError) -> UInt8? {
        let index = offset &- base
        if index >= 0, index < window.count { return window[index] }
        guard offset >= 0, descriptor >= 0 else { return nil }
        if let end, offset >= end { return nil }
        try load(at: offset, count: Self.laterRead, seeking: true)
        let moved = offset &- base
        return moved >= 0 && moved < window.count ? window[moved] : nil
    }

    /// The `count` bytes from `offset`, or nil when the data ends before them.
    mutating func bytes(at offset: Int, count: Int) throws(ImageError) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        let index = offset &- base
        if index >= 0, index + count <= window.count { return Array(window[index..<(index + count)]) }
        guard descriptor >= 0 else { return nil }
        if let end, offset + count > end { return nil }
        try load(at: offset, count: count, seeking: true)
        return window.count >= count ? Array(window[0..<count]) : nil
    }

    /// Replaces the window with up to `count` bytes from `offset`, noting the end of the file
    /// when the read comes up short. The first read uses `read(2)`, so unseekable files still work.
    private mutating func load(at offset: Int, count: Int, seeking: Bool) throws(ImageError) {
        var failure: Int32 = 0
        let descriptor = self.descriptor
        let loaded = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var total = 0
            while total < count, let start = buffer.baseAddress {
                let got =
                    seeking
                    ? pread(descriptor, start + total, count - total, off_t(offset + total))
                    : read(descriptor, start + total, count - total)
                if got > 0 {
                    total += got
                } else if got == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
            initialized = total
        }
        if failure != 0 { throw .unreadable(path: path, reason: Self.systemMessage(failure)) }
        window = loaded
        base = offset
        if loaded.count < count { end = offset + loaded.count }
    }

    /// The system's text for an `errno` value, such as "Permission denied".
    static func systemMessage(_ code: Int32) -> String {
        if let text = strerror(code) { return String(cString: text) }
        return "error \(code)"
    }
}

/// Finds the format by its signature and reads the size from that format's header.
private struct HeaderParser {
    var bytes: HeaderBytes
    let path: String
    /// The EXIF data the orientation was read from, once parsed.
    var exifPayload: [UInt8]?

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let riff: [UInt8] = Array("RIFF".utf8)
    private static let webp: [UInt8] = Array("WEBP".utf8)
    private static let gif87a: [UInt8] = Array("GIF87a".utf8)
    private static let gif89a: [UInt8] = Array("GIF89a".utf8)
    private static let bmpSignature: [UInt8] = Array("BM".utf8)
    private static let ftyp: [UInt8] = Array("ftyp".utf8)
    /// The ISO base media file brands of still HEIF images (HEVC, and the generic image brands) and
    /// of AVIF.
    private static let heifBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
    private static let avifBrands: Set<String> = ["avif", "avis"]

    mutating func parse() throws(ImageError) -> ImageHeader {
        if try matches(Self.pngSignature, at: 0) { return try parsePNG() }
        if try matches(Self.jpegSignature, at: 0) { return try parseJPEG() }
        if try matches(Self.riff, at: 0), try matches(Self.webp, at: 8) { return try parseWebP() }
        if try matches(Self.gif87a, at: 0) { return try parseGIF() }
        if try matches(Self.gif89a, at: 0) { return try parseGIF() }
        if try matches(Self.bmpSignature, at: 0) { return try parseBMP() }
        if try matches(Self.ftyp, at: 4), let format = try isobmffFormat() { return try parseHEIF(format: format) }
        throw .notAnImage(path: path)
    }

    // MARK: Formats

    /// PNG: the IHDR chunk must come first; width and height are big-endian 32-bit.
    private mutating func parsePNG() throws(ImageError) -> ImageHeader {
        let format = ImageFormat.png
        let type = try chunkName(at: 12, format: format)
        guard type == "IHDR" else {
            throw .unsupported(path: path, reason: "PNG chunk '\(type)' before IHDR")
        }
        let width = try bigEndian(at: 16, count: 4, format: format)
        let height = try bigEndian(at: 20, count: 4, format: format)
        _ = try finish(width: width, height: height, format: format)
        return try finish(width: width, height: height, format: format, orientation: try pngOrientation())
    }

    /// The orientation in a PNG's eXIf chunk, which comes before the image data: walks the
    /// chunks after IHDR (seeking past their data) up to the first IDAT. `.up` when there is none,
    /// or the chunks end or go wrong before one (the decoder reports damage).
    private mutating func pngOrientation() throws(ImageError) -> ImageOrientation {
        var offset = 8 + 25  // the signature, then IHDR: length, name, 13 bytes, CRC
        for _ in 0..<Self.maximumChunks {
            guard let length = try? bigEndian(at: offset, count: 4, format: .png),
                let name = try? chunkName(at: offset + 4, format: .png)
            else { return .up }
            switch name {
            case "eXIf": return try exifOrientation(at: offset + 8, count: length)
            case "IDAT", "IEND": return .up
            default: offset += 12 + length
            }
        }
        return .up
    }

    /// JPEG: walks the marker segments to the first start-of-frame (SOFn), reading the
    /// orientation from the first EXIF APP1 segment before it.
    private mutating func parseJPEG() throws(ImageError) -> ImageHeader {
        let format = ImageFormat.jpeg
        var offset = 2  // after SOI
        var orientation: ImageOrientation?
        while true {
            // Find the next 0xFF, stepping over stray bytes as libjpeg does, then over fill bytes.
            while try need(at: offset, format: format) != 0xFF { offset += 1 }
            var marker: UInt8 = 0xFF
            while marker == 0xFF {
                offset += 1
                marker = try need(at: offset, format: format)
            }
            offset += 1  // now just after the marker code
            switch marker {
            case 0x00:
                continue  // a stuffed zero: not a marker
            case 0x01, 0xD0...0xD8:
                continue  // TEM, RST0-7 (and a stray SOI) stand alone, without a length
            case 0xD9:
                throw .truncated(path: path, format: format)  // EOI before any frame
            case 0xDA:
                throw .unsupported(path: path, reason: "JPEG scan before the frame header")
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                let length = try bigEndian(at: offset, count: 2, format: format)
                guard length >= 8 else {
                    throw .unsupported(path: path, reason: "JPEG frame header of \(length) bytes")
                }
                // Length (2), sample precision (1), height (2), width (2).
                let height = try bigEndian(at: offset + 3, count: 2, format: format)
                let width = try bigEndian(at: offset + 5, count: 2, format: format)
                return try finish(width: width, height: height, format: format, orientation: orientation ?? .up)
            case 0xE1 where orientation == nil:
                // APP1: EXIF ("Exif\0\0" and TIFF data) or XMP, among others.
                let length = try bigEndian(at: offset, count: 2, format: format)
                guard length >= 2 else {
                    throw .unsupported(path: path, reason: "JPEG segment length \(length)")
                }
                if length > 8, try matches(Self.exifPrefix, at: offset + 2) {
                    orientation = try exifOrientation(at: offset + 2, count: length - 2)
                }
                offset += length
            default:
                let length = try bigEndian(at: offset, count: 2, format: format)
                guard length >= 2 else {
                    throw .unsupported(path: path, reason: "JPEG segment length \(length)")
                }
                offset += length  // the length counts itself but not the marker
            }
        }
    }

    /// WebP: RIFF, then the first chunk: VP8 (lossy), VP8L (lossless) or VP8X (extended).
    private mutating func parseWebP() throws(ImageError) -> ImageHeader {
        let format = ImageFormat.webp
        let chunk = try chunkName(at: 12, format: format)
        // The chunk's payload starts at 20, after its name and 32-bit size.
        switch chunk {
        case "VP8 ":
            // 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height (2 bits of scale above).
            let start = try bigEndian(at: 23, count: 3, format: format)
            let width = try littleEndian(at: 26, count: 2, format: format) & 0x3FFF
            let height = try littleEndian(at: 28, count: 2, format: format) & 0x3FFF
            guard start == 0x9D012A else {
                throw .unsupported(path: path, reason: "WebP VP8 data without a key frame")
            }
            return try finish(width: width, height: height, format: format)
        case "VP8L":
            // Signature 0x2F, then 14 bits width - 1, 14 bits height - 1, 1 bit alpha, 3 bits version.
            let signature = try need(at: 20, format: format)
            let bits = try littleEndian(at: 21, count: 4, format: format)
            guard signature == 0x2F else {
                throw .unsupported(path: path, reason: "WebP VP8L signature \(signature)")
            }
            let version = bits >> 29
            guard version == 0 else {
                throw .unsupported(path: path, reason: "WebP VP8L version \(version)")
            }
            return try finish(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, format: format)
        case "VP8X":
            // Flags (1), reserved (3), then 24-bit canvas width - 1 and height - 1.
            let flags = try need(at: 20, format: format)
            let width = try littleEndian(at: 24, count: 3, format: format) + 1
            let height = try littleEndian(at: 27, count: 3, format: format) + 1
            _ = try finish(width: width, height: height, format: format)
            let hasEXIF = flags & 0x08 != 0
            let orientation = hasEXIF ? try webpOrientation() : .up
            var header = try finish(width: width, height: height, format: format, orientation: orientation)
            header.isAnimated = flags & 0x02 != 0
            return header
        default:
            throw .unsupported(path: path, reason: "WebP chunk '\(chunk)'")
        }
    }

    /// The orientation in an extended WebP's EXIF chunk, which usually follows the image data (and
    /// every frame of an animation): walks the RIFF chunks, seeking past their data.
    private mutating func webpOrientation() throws(ImageError) -> ImageOrientation {
        var offset = 12
        for _ in 0..<Self.maximumChunks {
            guard let name = try? chunkName(at: offset, format: .webp),
                let size = try? littleEndian(at: offset + 4, count: 4, format: .webp)
            else { return .up }
            if name == "EXIF" { return try exifOrientation(at: offset + 8, count: size) }
            offset += 8 + size + (size & 1)  // chunks are padded to even sizes
        }
        return .up
    }

    /// An ISO base media file (its `ftyp` box at 4): AVIF when a brand says so, HEIF for the
    /// still-image brands, nil for others (a video, say).
    private mutating func isobmffFormat() throws(ImageError) -> ImageFormat? {
        guard let size = try? bigEndian(at: 0, count: 4, format: .heif), size >= 16, size <= 4096 else { return nil }
        var brands: [String] = []
        var offset = 8  // the major brand, then (after the minor version) the compatible brands
        while offset + 4 <= size {
            brands.append(try chunkName(at: offset, format: .heif))
            offset += offset == 8 ? 8 : 4
        }
        if brands.contains(where: Self.avifBrands.contains) { return .avif }
        if brands.contains(where: Self.heifBrands.contains) { return .heif }
        return nil
    }

    /// HEIF and AVIF: the primary image's size as shown, read by libheif from the file's boxes
    /// (the item properties and their rotation and mirroring), without decoding it.
    private mutating func parseHEIF(format: ImageFormat) throws(ImageError) -> ImageHeader {
        var error = ccodecs_error()
        var info = ccodecs_heif_info()
        let opened: Bool
        if let memory = bytes.memory {
            // libheif reads the bytes in place: the handle is closed while they are still there.
            opened = memory.withUnsafeBufferPointer { buffer in
                let heif = ccodecs_heif_open_memory(buffer.baseAddress, buffer.count, &info, &error)
                ccodecs_heif_close(heif)
                return heif != nil
            }
        } else {
            let heif = ccodecs_heif_open(path, &info, &error)
            ccodecs_heif_close(heif)
            opened = heif != nil
        }
        guard opened else {
            let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            switch UInt32(bitPattern: error.status) {
            case CCODECS_TRUNCATED.rawValue: throw .truncated(path: path, format: format)
            case CCODECS_UNSUPPORTED.rawValue: throw .unsupported(path: path, reason: message)
            case CCODECS_FILE_MISSING.rawValue: throw .fileMissing(path: path)
            case CCODECS_UNREADABLE.rawValue: throw .unreadable(path: path, reason: message)
            default: throw .unsupported(path: path, reason: "\(format.displayName): \(message)")
            }
        }
        return try finish(width: Int(info.width), height: Int(info.height), format: format)
    }

    /// GIF: the logical screen size, little-endian 16-bit, after the 6-byte signature.
    private mutating func parseGIF() throws(ImageError) -> ImageHeader {
        let format = ImageFormat.gif
        let width = try littleEndian(at: 6, count: 2, format: format)
        let height = try littleEndian(at: 8, count: 2, format: format)
        var header = try finish(width: width, height: height, format: format)
        header.isAnimated = gifHasSecondImage()
        return header
    }

    /// Whether a second image follows the first in a GIF: walks its blocks (extensions and
    /// images, skipping their data sub-blocks) up to `ImageHeader.gifAnimationScanLimit` bytes.
    /// A file cut short or damaged before a second image counts as still: its first frame is
    /// what shows.
    private mutating func gifHasSecondImage() -> Bool {
        func byte(_ offset: Int) -> Int? { (try? bytes.byte(at: offset)).flatMap { $0.map(Int.init) } }
        /// The offset after the chain of sub-blocks starting at `offset`.
        func skipSubBlocks(_ start: Int) -> Int? {
            var offset = start
            while offset < ImageHeader.gifAnimationScanLimit, let length = byte(offset) {
                if length == 0 { return offset + 1 }
                offset += 1 + length
            }
            return nil
        }
        guard let flags = byte(10) else { return false }
        var offset = 13 + (flags & 0x80 != 0 ? 3 << ((flags & 7) + 1) : 0)
        var images = 0
        while offset < ImageHeader.gifAnimationScanLimit, let introducer = byte(offset) {
            switch introducer {
            case 0x21:  // an extension: its label, then sub-blocks
                guard let next = skipSubBlocks(offset + 2) else { return false }
                offset = next
            case 0x2C:  // an image: its descriptor, maybe a colour table, the LZW code size, data
                if images == 1 { return true }
                guard let imageFlags = byte(offset + 9) else { return false }
                let table = imageFlags & 0x80 != 0 ? 3 << ((imageFlags & 7) + 1) : 0
                guard let next = skipSubBlocks(offset + 10 + table + 1) else { return false }
                images += 1
                offset = next
            default:  // the trailer, or damage
                return false
            }
        }
        return false
    }

    /// BMP: a 14-byte file header, then a DIB header whose size tells its kind.
    private mutating func parseBMP() throws(ImageError) -> ImageHeader {
        let format = ImageFormat.bmp
        let headerSize = try littleEndian(at: 14, count: 4, format: format)
        switch headerSize {
        case 12:
            // BITMAPCOREHEADER: unsigned 16-bit sizes.
            let width = try littleEndian(at: 18, count: 2, format: format)
            let height = try littleEndian(at: 20, count: 2, format: format)
            return try finish(width: width, height: height, format: format)
        case 16...64, 108, 124:
            // BITMAPINFOHEADER and later, and OS/2 2.x: signed 32-bit sizes; a negative height is top-down.
            let width = Int(Int32(truncatingIfNeeded: try littleEndian(at: 18, count: 4, format: format)))
            let height = Int(Int32(truncatingIfNeeded: try littleEndian(at: 22, count: 4, format: format)))
            guard width >= 0 else {
                throw .unsupported(path: path, reason: "BMP width \(width)")
            }
            return try finish(width: width, height: abs(height), format: format)
        default:
            throw .unsupported(path: path, reason: "BMP header of \(headerSize) bytes")
        }
    }

    // MARK: EXIF

    private static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
    /// The most chunks walked looking for EXIF data (an animated WebP has one a frame).
    private static let maximumChunks = 100_000

    /// The orientation in `count` bytes of EXIF data at `offset`, read by libexif; `.up` when
    /// they are cut short, too many or hold no valid tag.
    private mutating func exifOrientation(at offset: Int, count: Int) throws(ImageError) -> ImageOrientation {
        guard count > 0, count <= Int(CCODECS_EXIF_MAXIMUM), let data = try bytes.bytes(at: offset, count: count)
        else { return .up }
        exifPayload = data
        let value = data.withUnsafeBufferPointer { ccodecs_exif_orientation($0.baseAddress, $0.count) }
        return ImageOrientation(exifValue: Int(value))
    }

    // MARK: Checks and byte access

    /// The header of a `width` x `height` stored image (checked against the limits), shown
    /// turned by `orientation`.
    private func finish(
        width: Int, height: Int, format: ImageFormat, orientation: ImageOrientation = .up
    ) throws(ImageError) -> ImageHeader {
        guard width > 0, height > 0 else {
            throw .unsupported(path: path, reason: "zero width or height (\(width) x \(height) px)")
        }
        let limit = ImageHeader.maximumSide
        guard width <= limit, height <= limit else {
            throw .tooLarge(path: path, width: width, height: height, limit: limit)
        }
        if orientation.swapsAxes {
            return ImageHeader(width: height, height: width, format: format, orientation: orientation)
        }
        return ImageHeader(width: width, height: height, format: format, orientation: orientation)
    }

    private mutating func matches(_ signature: [UInt8], at offset: Int) throws(ImageError) -> Bool {
        for (index, expected) in signature.enumerated() {
            guard try bytes.byte(at: offset + index) == expected else { return false }
        }
        return true
    }

    private mutating func need(at offset: Int, format: ImageFormat) throws(ImageError) -> UInt8 {
        guard let byte = try bytes.byte(at: offset) else { throw .truncated(path: path, format: format) }
        return byte
    }

    private mutating func bigEndian(at offset: Int, count: Int, format: ImageFormat) throws(ImageError) -> Int {
        var value = 0
        for index in 0..<count { value = value << 8 | Int(try need(at: offset + index, format: format)) }
        return value
    }

    private mutating func littleEndian(at offset: Int, count: Int, format: ImageFormat) throws(ImageError) -> Int {
        var value = 0
        for index in 0..<count { value |= Int(try need(at: offset + index, format: format)) << (8 * index) }
        return value
    }

    /// A four-letter chunk name, with bytes outside printable ASCII shown as "?".
    private mutating func chunkName(at offset: Int, format: ImageFormat) throws(ImageError) -> String {
        var name = ""
        for index in 0..<4 {
            let byte = try need(at: offset + index, format: format)
            name.unicodeScalars.append(byte >= 0x20 && byte < 0x7F ? Unicode.Scalar(byte) : "?")
        }
        return name
    }
}
