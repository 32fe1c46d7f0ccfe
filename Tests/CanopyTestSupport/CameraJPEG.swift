import CCodecs
import CanopyGraphics
import Foundation

/// JPEGs as cameras and phones write them, for the tests: a photo of one colour with an EXIF
/// segment holding its orientation and, in IFD1, an embedded thumbnail of another colour.
public enum CameraJPEG {
    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes a `width` x `height` JPEG of `color` at `path`, whose EXIF data gives
    /// `orientation` (1 to 8) and, unless `thumbnail` is nil, a thumbnail JPEG of that colour
    /// and size.
    public static func write(
        to path: String, width: Int, height: Int, color: Color, orientation: Int = 1,
        thumbnail: (color: Color, width: Int, height: Int)? = (Color(red: 1, green: 0, blue: 0), 160, 120)
    ) throws {
        var thumbnailBytes: [UInt8] = []
        if let thumbnail {
            let thumbnailPath = path + ".thumbnail.jpg"
            try writeJPEG(
                Bitmap(width: thumbnail.width, height: thumbnail.height, fill: thumbnail.color), to: thumbnailPath, exif: [])
            thumbnailBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: thumbnailPath)))
            try? FileManager.default.removeItem(atPath: thumbnailPath)
        }
        try writeJPEG(
            Bitmap(width: width, height: height, fill: color), to: path,
            exif: exifPayload(orientation: orientation, thumbnail: thumbnailBytes))
    }

    /// "Exif\0\0", then little-endian TIFF data: IFD0 with the orientation, and IFD1 giving the
    /// thumbnail (compression 6, its offset and length) followed by its bytes.
    public static func exifPayload(orientation: Int, thumbnail: [UInt8]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        let ifd0Size = 2 + 12 + 4, ifd1Offset = 8 + ifd0Size, ifd1Size = 2 + 3 * 12 + 4
        var tiff: [UInt8] = [0x49, 0x49] + u16(42) + u32(8)
        tiff += u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        tiff += u32(thumbnail.isEmpty ? 0 : ifd1Offset)
        if !thumbnail.isEmpty {
            tiff += u16(3)
            tiff += u16(0x0103) + u16(3) + u32(1) + u16(6) + u16(0)
            tiff += u16(0x0201) + u16(4) + u32(1) + u32(ifd1Offset + ifd1Size)
            tiff += u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count)
            tiff += u32(0) + thumbnail
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    private static func writeJPEG(_ bitmap: Bitmap, to path: String, exif: [UInt8]) throws {
        var error = ccodecs_error()
        let status = bitmap.pixels.withUnsafeBufferPointer { pixels in
            exif.withUnsafeBufferPointer { e in
                ccodecs_jpeg_write(
                    path, pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height), bitmap.bytesPerRow, 90,
                    e.isEmpty ? nil : e.baseAddress, e.count, &error)
            }
        }
        guard status == 0 else {
            let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw WriteError(description: "\(path): \(message)")
        }
    }
}
