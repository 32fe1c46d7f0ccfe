import CCodecs
import Canopy
import CanopyGraphics
import Foundation
import Synchronization

/// A folder of camera photos and what Rainforest does with it: `bench --make-camera-folder DIR`
/// makes it, `bench --scenario camera --images DIR` measures it.
///
/// The photos are what a phone or a camera writes: 4032 x 3024 baseline JPEGs (12 megapixels,
/// quality 90) with an EXIF segment carrying a 160 x 120 thumbnail, made from the bundled photos (cropped to 4:3, enlarged)
/// with grain of their own, so that no two files are alike and each compresses as a real
/// photo does (2 to 4 MB).
enum CameraFolder {
    static let width = 4032
    static let height = 3024
    static let quality: Int32 = 90

    /// The photos' names: photo-0001.jpg...
    static func name(_ index: Int) -> String { String(format: "photo-%04d.jpg", index + 1) }

    /// Makes the photos from 1 to `count` that `folder` (made if missing) does not hold yet at the
    /// right size; returns how many it made (`BenchFolder.fill`).
    static func make(in folder: URL, count: Int, resources: Resources) throws(UserFacingError) -> Int {
        try BenchFolder.fill(
            folder, count: count, resources: resources, name: name,
            isMade: { path in
                let header = try? ImageHeader.read(contentsOf: path)
                return header?.width == width && header?.height == height
            }
        ) { index, source, path in
            let pixels = photo(from: source, seed: UInt64(index + 1))
            var error = ccodecs_error()
            func message() -> String {
                withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            }
            // The thumbnail a camera embeds (160 x 120), written beside first, then read in.
            let small = Resampler.resize(
                Bitmap(width: width, height: height, isOpaque: true, pixels: pixels),
                toPixelWidth: thumbnailWidth, pixelHeight: thumbnailHeight)
            let thumbnailPath = path + ".thumbnail"
            defer { unlink(thumbnailPath) }
            let written = small.pixels.withUnsafeBufferPointer { p in
                ccodecs_jpeg_write(
                    thumbnailPath, p.baseAddress, Int32(thumbnailWidth), Int32(thumbnailHeight), small.bytesPerRow, 80,
                    nil, 0, &error)
            }
            guard written == 0, let thumbnail = try? Data(contentsOf: URL(fileURLWithPath: thumbnailPath)) else {
                return "its thumbnail: \(message())"
            }
            let exif = exifSegment(thumbnail: [UInt8](thumbnail))
            let status = pixels.withUnsafeBufferPointer { p in
                exif.withUnsafeBufferPointer { e in
                    ccodecs_jpeg_write(
                        path, p.baseAddress, Int32(width), Int32(height), width * 4, quality, e.baseAddress, e.count,
                        &error)
                }
            }
            return status == 0 ? nil : message()
        }
    }

    /// A 4:3 crop of `source` enlarged to 4032 x 3024 (bilinear), opaque RGBA, with grain.
    static func photo(from source: Bitmap, seed: UInt64) -> [UInt8] {
        // The largest 4:3 rectangle in the middle of the source.
        var cropWidth = source.width, cropHeight = source.width * 3 / 4
        if cropHeight > source.height { cropHeight = source.height; cropWidth = source.height * 4 / 3 }
        let left = (source.width - cropWidth) / 2, top = (source.height - cropHeight) / 2
        var random = SeededRandom(seed: seed)
        var output = [UInt8](repeating: 255, count: width * height * 4)
        source.pixels.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                let stride = source.bytesPerRow
                let xScale = Double(cropWidth - 1) / Double(width - 1), yScale = Double(cropHeight - 1) / Double(height - 1)
                for y in 0..<height {
                    let sy = Double(y) * yScale, y0 = Int(sy), y1 = min(y0 + 1, cropHeight - 1), fy = sy - Double(y0)
                    let row0 = (top + y0) * stride, row1 = (top + y1) * stride
                    for x in 0..<width {
                        let sx = Double(x) * xScale, x0 = Int(sx), x1 = min(x0 + 1, cropWidth - 1), fx = sx - Double(x0)
                        let a = (left + x0) * 4, b = (left + x1) * 4
                        // Grain: the same offset on the three channels, like a sensor's luminance noise.
                        let grain = Double(Int(random.next() & 31) - 16)
                        for c in 0..<3 {
                            let top = Double(input[row0 + a + c]) * (1 - fx) + Double(input[row0 + b + c]) * fx
                            let bottom = Double(input[row1 + a + c]) * (1 - fx) + Double(input[row1 + b + c]) * fx
                            let value = top * (1 - fy) + bottom * fy + grain
                            out[(y * width + x) * 4 + c] = UInt8(max(0, min(255, value.rounded())))
                        }
                    }
                }
            }
        }
        return output
    }

    /// The size of the thumbnail embedded in each photo's EXIF data, as cameras write it.
    static let thumbnailWidth = 160
    static let thumbnailHeight = 120

    /// An APP1 EXIF payload as a camera writes one (little-endian TIFF): the make, the model and
    /// the orientation (1: as stored) in IFD0; with a `thumbnail` (JPEG bytes), IFD1 giving it
    /// (compression 6, its offset and length), the thumbnail after.
    static func exifSegment(thumbnail: [UInt8] = []) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        let make = Array("Rainforest\0".utf8), model = Array("Bench camera\0".utf8)
        let entries = 3, ifdSize = 2 + entries * 12 + 4
        let makeOffset = 8 + ifdSize, modelOffset = makeOffset + make.count
        // IFD1 (three entries) after IFD0's strings, then the thumbnail.
        let ifd1Offset = modelOffset + model.count, ifd1Size = 2 + 3 * 12 + 4
        let thumbnailOffset = ifd1Offset + ifd1Size
        var tiff: [UInt8] = [0x49, 0x49] + u16(42) + u32(8) + u16(entries)
        tiff += u16(0x010F) + u16(2) + u32(make.count) + u32(makeOffset)  // Make, ASCII
        tiff += u16(0x0110) + u16(2) + u32(model.count) + u32(modelOffset)  // Model, ASCII
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(1) + u16(0)  // Orientation, SHORT: 1
        tiff += u32(thumbnail.isEmpty ? 0 : ifd1Offset) + make + model
        if !thumbnail.isEmpty {
            tiff += u16(3)
            tiff += u16(0x0103) + u16(3) + u32(1) + u16(6) + u16(0)  // Compression, SHORT: 6 (JPEG)
            tiff += u16(0x0201) + u16(4) + u32(1) + u32(thumbnailOffset)  // JPEGInterchangeFormat
            tiff += u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count)  // JPEGInterchangeFormatLength
            tiff += u32(0) + thumbnail
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }
}
