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

    /// Whether the file at `path` carries an embedded thumbnail `embeddedThumbnail` would give:
    /// checked from the thumbnail's header, not decoded. Any thread.
    public static func hasEmbeddedThumbnail(contentsOf path: String) -> Bool {
        usableEmbeddedThumbnail(contentsOf: path) { _, _ in () } != nil
    }

    /// The thumbnail a camera or phone JPEG carries in its EXIF data (IFD1, typically 160 x 120),
    /// decoded (through SDL_image, from memory) and turned as the photo is shown; nil when the
    /// file has none, it cannot be decoded, or its shape differs from the photo's by more than 2%
    /// (a 4:3 thumbnail of a 3:2 photo has bars in it). Reads the file's segments only, never its
    /// image data. Any thread (after `GraphicsLibrary.initialize()`).
    public static func embeddedThumbnail(contentsOf path: String) -> Bitmap? {
        usableEmbeddedThumbnail(contentsOf: path) { header, jpeg in decodeThumbnail(jpeg, turnedBy: header.orientation) }
            ?? nil
    }

    /// Finds the photo's embedded thumbnail and checks it from its own header (a hostile file's
    /// "thumbnail" may claim any size: at most `maximumEmbeddedThumbnailSide` a side, no bigger
    /// than the photo, and of the photo's shape), then runs `body` with the photo's header and
    /// the thumbnail's JPEG bytes; nil when there is none to use.
    private static func usableEmbeddedThumbnail<R>(
        contentsOf path: String, _ body: (ImageHeader, UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        guard let (header, data) = try? ImageHeader.readWithEXIFData(contentsOf: path), let exif = data else {
            return nil
        }
        var pointer: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard exif.withUnsafeBufferPointer({ ccodecs_exif_thumbnail($0.baseAddress, $0.count, &pointer, &size) }) == 0,
            let pointer
        else { return nil }
        defer { ccodecs_free(pointer) }
        let jpeg = UnsafeBufferPointer(start: pointer, count: size)
        guard let claimed = try? ImageHeader.read(bytes: Array(jpeg), path: path), claimed.format == .jpeg,
            claimed.width <= maximumEmbeddedThumbnailSide, claimed.height <= maximumEmbeddedThumbnailSide,
            claimed.width <= header.storedWidth, claimed.height <= header.storedHeight
        else { return nil }
        // The thumbnail is stored as the photo is: the photo's orientation turns it too.
        let shown = header.orientation.swapsAxes ? (claimed.height, claimed.width) : (claimed.width, claimed.height)
        let photoAspect = Double(header.width) / Double(header.height)
        guard abs(Double(shown.0) / Double(shown.1) / photoAspect - 1) <= 0.02 else { return nil }
        return body(header, jpeg)
    }

    /// A thumbnail's JPEG bytes decoded through SDL_image and turned by `orientation`.
    private static func decodeThumbnail(_ jpeg: UnsafeBufferPointer<UInt8>, turnedBy orientation: ImageOrientation) -> Bitmap? {
        guard let base = jpeg.baseAddress, let stream = SDL_RWFromConstMem(base, Int32(clamping: jpeg.count)) else {
            return nil
        }
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
        // A JPEG has no alpha: SDL's conversion makes every alpha 255, which premultiplied is the same.
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            for y in 0..<height { (out.baseAddress! + y * width * 4).update(from: base + y * pitch, count: width * 4) }
            initialized = width * height * 4
        }
        return orientation.apply(to: Bitmap(width: width, height: height, isOpaque: true, pixels: pixels))
    }
}
