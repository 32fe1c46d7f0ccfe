import CCodecs
import CSDL2
import CSDL2Image
import Foundation

extension ImageDecoder {
    /// Photos with at least this many pixels may show their embedded thumbnail first
    /// (`ImageCache.preview`): 4 MP, where decoding the photo starts to take tens of
    /// milliseconds (a 12 MP camera JPEG about 40 ms, even at a DCT scale of 1/8).
    public static let previewPixels = 4_000_000

    /// The largest side an embedded thumbnail may have (cameras write 160 x 120; the largest
    /// seen in the wild are around 640): a bigger one is not a thumbnail, and is not decoded.
    public static let maximumEmbeddedThumbnailSide = 1024

    /// The thumbnail a camera or phone JPEG carries in its EXIF data (IFD1, typically 160 x 120),
    /// decoded (through SDL_image, from memory) and turned as the photo is shown; nil when the
    /// file has none, it cannot be decoded, or its shape differs from the photo's by more than 2%
    /// (a 4:3 thumbnail of a 3:2 photo has bars in it). Reads the file's segments only, never its
    /// image data. Any thread (after `GraphicsLibrary.initialize()`).
    public static func embeddedThumbnail(contentsOf path: String) -> Bitmap? {
        guard let (header, data) = try? ImageHeader.readWithEXIFData(contentsOf: path), let exif = data else {
            return nil
        }
        var pointer: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard exif.withUnsafeBufferPointer({ ccodecs_exif_thumbnail($0.baseAddress, $0.count, &pointer, &size) }) == 0,
            let pointer
        else { return nil }
        defer { ccodecs_free(pointer) }
        // The thumbnail's own header first: a hostile file's "thumbnail" may claim any size.
        let bytes = [UInt8](UnsafeBufferPointer(start: pointer, count: size))
        guard let claimed = try? ImageHeader.read(bytes: bytes, path: path), claimed.format == .jpeg,
            claimed.width <= maximumEmbeddedThumbnailSide, claimed.height <= maximumEmbeddedThumbnailSide,
            claimed.width <= header.storedWidth, claimed.height <= header.storedHeight
        else { return nil }
        guard let stream = SDL_RWFromConstMem(pointer, Int32(clamping: size)) else { return nil }
        guard let loaded = IMG_LoadJPG_RW(stream) else {
            SDL_RWclose(stream)
            return nil
        }
        SDL_RWclose(stream)
        defer { SDL_FreeSurface(loaded) }
        guard let surface = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ABGR8888.rawValue, 0) else { return nil }
        defer { SDL_FreeSurface(surface) }
        let width = Int(surface.pointee.w), height = Int(surface.pointee.h), pitch = Int(surface.pointee.pitch)
        guard width > 0, height > 0, let base = surface.pointee.pixels?.assumingMemoryBound(to: UInt8.self) else { return nil }
        // The thumbnail is stored as the photo is: the photo's orientation turns it too.
        let shown = header.orientation.swapsAxes ? (width: height, height: width) : (width: width, height: height)
        let photoAspect = Double(header.width) / Double(header.height)
        let thumbnailAspect = Double(shown.width) / Double(shown.height)
        guard abs(thumbnailAspect / photoAspect - 1) <= 0.02 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                (out.baseAddress! + y * width * 4).update(from: base + y * pitch, count: width * 4)
                // A JPEG is opaque: alpha 255 everywhere, which premultiplied is the same.
                for x in 0..<width { out[y * width * 4 + x * 4 + 3] = 255 }
            }
        }
        return header.orientation.apply(to: Bitmap(width: width, height: height, isOpaque: true, pixels: pixels))
    }
}
