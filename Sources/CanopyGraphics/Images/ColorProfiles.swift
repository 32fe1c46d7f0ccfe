import CCodecs
import Synchronization

/// Embedded ICC profiles, converted to sRGB through Little CMS 2 (`ccodecs_color_transform`).
///
/// The decoder asks for a transform for each file that carries a profile; transforms are made
/// once per profile (its bytes and what it takes in) and kept, so a folder of photos from one
/// camera or one editor makes one. A profile that describes sRGB, or one that Little CMS cannot
/// use (damaged, or for another colour space, such as a grey profile on a grey JPEG, which is
/// decoded as RGB), needs no transform: the pixels are taken as sRGB, as for a file with none.
///
/// Threads: any. The cache is behind a Mutex; a transform is made with the lock released and
/// may be used by any number of threads at once (made without Little CMS's one-pixel cache).
public enum ColorProfiles {
    /// How many distinct profiles are remembered; past that the cache starts again.
    public static let capacity = 32

    /// Transforms made since the process started (a profile seen again reuses its transform):
    /// for tests and benchmarks.
    public static var transformsMade: Int { made.load(ordering: .relaxed) }

    /// A Little CMS transform to sRGB.
    final class Transform: @unchecked Sendable {  // immutable; Little CMS allows concurrent use
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { ccodecs_color_transform_free(pointer) }
    }

    private struct Key: Hashable {
        var profile: [UInt8]
        var input: Int32
    }

    /// nil values: profiles known to need no transform.
    private static let cache = Mutex<[Key: Transform?]>([:])
    private static let made = Atomic<Int>(0)

    /// The transform for `size` bytes of ICC profile at `bytes`, taking `input`
    /// (`CCODECS_COLOR_*`), or nil when none is needed or possible.
    static func transform(profile bytes: UnsafePointer<UInt8>?, size: Int, input: Int32) -> Transform? {
        guard let bytes, size > 0, size <= Int(CCODECS_ICC_MAXIMUM) else { return nil }
        let key = Key(profile: Array(UnsafeBufferPointer(start: bytes, count: size)), input: input)
        if let known = cache.withLock({ $0[key] }) { return known }
        var error = ccodecs_error()
        let created = ccodecs_color_transform_create(bytes, size, input, &error).map(Transform.init)
        if created != nil { made.add(1, ordering: .relaxed) }
        return cache.withLock { cache in
            if let raced = cache[key] { return raced }  // another thread made one meanwhile: use it
            if cache.count >= capacity { cache.removeAll() }
            cache[key] = .some(created)
            return created
        }
    }

    /// The transform for an RGB image's profile: for opaque pixels, or premultiplied ones.
    static func transform(profile bytes: UnsafePointer<UInt8>?, size: Int, opaque: Bool) -> Transform? {
        let input = opaque ? CCODECS_COLOR_RGBA_OPAQUE : CCODECS_COLOR_RGBA_PREMULTIPLIED
        return transform(profile: bytes, size: size, input: Int32(input))
    }

    /// `bitmap` (premultiplied RGBA in the profile's colour space) converted to sRGB; the same
    /// bitmap without a transform.
    static func convert(_ bitmap: Bitmap, with transform: Transform?) -> Bitmap {
        guard let transform, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
        let count = bitmap.bytesPerRow * bitmap.height
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            bitmap.pixels.withUnsafeBufferPointer { input in
                for y in 0..<bitmap.height {
                    let offset = y * bitmap.bytesPerRow
                    ccodecs_color_transform_apply(
                        transform.pointer, input.baseAddress! + offset, output.baseAddress! + offset, bitmap.width)
                }
            }
            // Bytes past each row's pixels (none for the decoder's packed bitmaps) stay as they were.
            if bitmap.bytesPerRow > bitmap.width * 4 {
                for y in 0..<bitmap.height {
                    let start = y * bitmap.bytesPerRow + bitmap.width * 4
                    for i in start..<(y + 1) * bitmap.bytesPerRow { output[i] = bitmap.pixels[i] }
                }
            }
            initialized = count
        }
        return Bitmap(
            width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, scale: bitmap.scale,
            isOpaque: bitmap.isOpaque, pixels: pixels)
    }
}
