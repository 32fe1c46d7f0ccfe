/// How a file's stored pixels must be turned to be seen the right way up: the EXIF (TIFF)
/// orientation tag, 1 to 8.
///
/// Each case names where the stored image's first row and first column end up when shown: `.up`
/// (1) is as stored; `.right` (6), a portrait photo from a phone held upright, has its first
/// stored row on the right, so showing it turns the stored pixels 90° clockwise. The four cases
/// from `.leftMirrored` (5) on swap width and height.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: as stored.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: turned 90° clockwise to be shown.
    case right = 6
    /// 7: mirrored along the other diagonal (transversed).
    case rightMirrored = 7
    /// 8: turned 90° counter-clockwise to be shown.
    case left = 8

    /// The orientation for an EXIF value; `.up` for anything outside 1...8.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }

    /// Whether the shown image's width is the stored image's height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The stored pixel that shows at (x, y) of the oriented image, for a stored image of
    /// `storedWidth` x `storedHeight`.
    @inline(__always)
    func storedPixel(x: Int, y: Int, storedWidth w: Int, storedHeight h: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - 1 - x)
        case .rightMirrored: return (w - 1 - y, h - 1 - x)
        case .left: return (w - 1 - y, x)
        }
    }

    /// The rectangle of the stored image that shows as `crop` (in the oriented image's pixels, and
    /// inside it) for a stored image of `storedWidth` x `storedHeight`.
    public func storedCrop(_ crop: ImageDecoder.Crop, storedWidth w: Int, storedHeight h: Int) -> ImageDecoder.Crop {
        let a = storedPixel(x: crop.x, y: crop.y, storedWidth: w, storedHeight: h)
        let b = storedPixel(x: crop.x + crop.width - 1, y: crop.y + crop.height - 1, storedWidth: w, storedHeight: h)
        return ImageDecoder.Crop(
            x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }

    /// `bitmap` (stored pixels) turned and mirrored to be seen the right way up; the same bitmap
    /// for `.up`. Any thread.
    public func apply(to bitmap: Bitmap) -> Bitmap {
        guard self != .up else { return bitmap }
        let w = bitmap.width, h = bitmap.height, stride = bitmap.bytesPerRow
        let width = swapsAxes ? h : w, height = swapsAxes ? w : h
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { output, count in
            bitmap.pixels.withUnsafeBytes { source in
                let out = UnsafeMutableRawPointer(output.baseAddress!)
                for y in 0..<height {
                    let row = out + y * width * 4
                    for x in 0..<width {
                        let s = storedPixel(x: x, y: y, storedWidth: w, storedHeight: h)
                        let value = source.loadUnaligned(fromByteOffset: s.y * stride + s.x * 4, as: UInt32.self)
                        row.storeBytes(of: value, toByteOffset: x * 4, as: UInt32.self)
                    }
                }
            }
            count = width * height * 4
        }
        return Bitmap(width: width, height: height, scale: bitmap.scale, isOpaque: bitmap.isOpaque, pixels: pixels)
    }
}
