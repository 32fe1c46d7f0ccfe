// One file (about 600 lines) on purpose: the decoder's formats share its steps (the fitting
// size, the crop, premultiplying, the errors), kept private so no format can skip one.
import CCodecs
import CSDL2
import CSDL2Image
import Foundation
import Synchronization

/// Decodes image files into premultiplied RGBA8 bitmaps (scale 1), optionally no bigger than the
/// size they will be drawn at.
///
/// Formats: JPEG (baseline, progressive, grey, CMYK/YCCK) through libjpeg-turbo; PNG (every
/// colour type and bit depth, tRNS, interlaced) through libpng; WebP (lossy, lossless, alpha)
/// through libwebp, and an animated WebP's first frame through `AnimationDecoder`; HEIF (HEIC)
/// and AVIF through libheif (whole images, turned as the file says); GIF (the first frame) and
/// BMP through SDL_image.
///
/// Threads: any thread may decode, concurrently, once `GraphicsLibrary.initialize()` has run on
/// the main thread. Every call makes its own libjpeg/libpng/libwebp handle (through the CCodecs C
/// target, which keeps those libraries' longjmp error handling away from Swift frames), so calls
/// share no decoder state.
///
/// Memory: JPEG (single-scan) and non-interlaced PNG are decoded as streams, so a decode
/// `fitting` a small size needs little more than the result, whatever the image's size; lossy
/// WebP is read into memory whole (the compressed file) and decoded straight to the target size.
/// Decoders that must hold the whole image (GIF, BMP, interlaced PNG, multi-scan/progressive JPEG
/// and lossless WebP) refuse images over `maximumWholeImagePixels` as `tooLarge`.
///
/// Crops: a decode may take only a rectangle of the image (`Crop`, in the image's pixels); the
/// result is that rectangle scaled as a whole image would be. The streaming decoders read and
/// drop the rows above it, keep only its columns of each row and stop below it; JPEG picks its
/// DCT scale for the crop; WebP crops inside libwebp; the whole-image decoders crop the image they
/// hold before scaling it. Lossy WebP crops start at even coordinates: an odd left or top edge
/// takes one more pixel, and the result is that pixel bigger. A JPEG decoded at a DCT scale below
/// 1 rounds the crop outward to whole pixels of that scale and maps them into the crop's size,
/// so an edge may take up to one of those pixels more; crops on multiples of 8 (ImageNode's) are
/// exact.
///
/// Orientation: a file's EXIF orientation (`ImageHeader.orientation`) is applied, so the result
/// is the image the right way up, and crops and targets are in that image's pixels.
///
/// Colour: an embedded ICC profile (JPEG APP2, PNG iCCP, WebP ICCP) is converted to sRGB
/// through Little CMS (`ColorProfiles`, one transform per profile): RGB files after decoding, at
/// the decoded size; CMYK JPEGs row by row through their profile, in place of the plain formula.
/// Files without a profile, and PNG gamma (gAMA, cHRM), are taken as sRGB.
public enum ImageDecoder {
    /// The most pixels an image may have when its decoder must hold all of it in memory
    /// (64 megapixels, 256 MB as RGBA).
    public static let maximumWholeImagePixels = 64_000_000
    /// The most pixels a decoded bitmap may have (2^28, 1 GiB as RGBA).
    public static let maximumOutputPixels = 1 << 28

    /// The default `pixelLimit`: 100 megapixels.
    public static let defaultPixelLimit = 100_000_000

    /// The most pixels an image may have to be decoded at all, whatever size it is decoded to:
    /// a file over it fails at once, from its header, as `overPixelLimit`, without a pixel read.
    /// A small file can claim a huge image (a PNG of 30000 x 30000 compresses to under 1 MB) and
    /// would hold a worker for most of a minute. Process-wide; any thread may read or set it.
    public static var pixelLimit: Int {
        get { pixelLimitStorage.load(ordering: .relaxed) }
        set { pixelLimitStorage.store(max(1, newValue), ordering: .relaxed) }
    }
    private static let pixelLimitStorage = Atomic<Int>(defaultPixelLimit)

    /// Images with more pixels than this are expected to take long to decode (hundreds of
    /// milliseconds and more, even to a small size): 50 megapixels. A display that decodes one
    /// should run in the long lane (`DisplayNode.expectsLongDisplay`).
    public static let longDecodePixels = 50_000_000

    /// Throws `overPixelLimit` when `header` describes more than `pixelLimit` pixels.
    public static func checkPixelLimit(_ header: ImageHeader, path: String) throws(ImageError) {
        let limit = pixelLimit
        if header.width * header.height > limit {
            throw .overPixelLimit(path: path, pixels: header.width * header.height, limit: limit)
        }
    }

    /// A caller's cancellation check, in the form the C decoders ask it (`ccodecs_cancel`).
    final class Cancellation {
        let path: String
        let isCancelled: @Sendable () -> Bool
        /// Stable for the object's life, handed to C.
        let pointer: UnsafeMutablePointer<ccodecs_cancel>

        init(path: String, isCancelled: @escaping @Sendable () -> Bool) {
            self.path = path
            self.isCancelled = isCancelled
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: ccodecs_cancel(check: nil, context: nil))
            pointer.pointee.context = Unmanaged.passUnretained(self).toOpaque()
            pointer.pointee.check = { context in
                guard let context else { return 0 }
                return Unmanaged<Cancellation>.fromOpaque(context).takeUnretainedValue().isCancelled() ? 1 : 0
            }
        }

        deinit { pointer.deallocate() }

        /// Throws `cancelled` when the caller says stop.
        func check() throws(ImageError) {
            if isCancelled() { throw .cancelled(path: path) }
        }
    }

    /// A rectangle of an image in its pixels (origin top left), for decoding only that part.
    ///
    /// A decode clamps it to the image; a crop covering the whole image is the same as none, and
    /// one with no pixels inside the image (empty, or wholly outside) fails as `unsupported`.
    public struct Crop: Hashable, Sendable, CustomStringConvertible {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public var description: String { "\(width) x \(height) at (\(x), \(y))" }

        /// The part inside a `width` x `height` image, or nil when no pixel is.
        public func clamped(width imageWidth: Int, height imageHeight: Int) -> Crop? {
            let left = max(0, x), top = max(0, y)
            // Saturating: a hostile crop must not trap.
            let right = min(imageWidth, x.addingReportingOverflow(width).overflow ? Int.max : x + width)
            let bottom = min(imageHeight, y.addingReportingOverflow(height).overflow ? Int.max : y + height)
            guard width > 0, height > 0, right > left, bottom > top else { return nil }
            return Crop(x: left, y: top, width: right - left, height: bottom - top)
        }
    }

    /// Decodes a whole image at its own size.
    ///
    /// Any thread (after `GraphicsLibrary.initialize()` on the main thread).
    public static func decode(contentsOf path: String) throws(ImageError) -> Bitmap {
        try decode(contentsOf: path, fitting: nil)
    }

    /// Decodes so that the result is no bigger than needed to cover `targetPixelSize` (aspect
    /// kept, never upscaled): see `fittedPixelSize(width:height:fitting:)` for the exact size.
    /// `nil` decodes at full size.
    ///
    /// With a `crop`, only that part of the image is decoded, scaled like a whole image of the
    /// crop's size: the result is `fittedPixelSize(width: crop.width, height: crop.height,
    /// fitting: targetPixelSize)` (the crop clamped to the image first, see `Crop`; a lossy WebP
    /// crop grown to even left and top edges). Memory is
    /// as for a whole image of the crop's size, plus a few of the file's rows for the streaming
    /// decoders; the whole-image decoders still hold (and limit) the whole image.
    ///
    /// The file's header is read first, so a missing file, a non-image or an over-limit size
    /// (`pixelLimit`) fails at once with a typed reason. `isCancelled` is asked between every
    /// few rows of every decoder (16 rows, a row of JPEG blocks, 64 KiB of WebP data; GIF and BMP
    /// only before and after SDL_image's decode): once it says true the decode stops and throws
    /// `cancelled`. Any thread (after `GraphicsLibrary.initialize()` on
    /// the main thread).
    public static func decode(
        contentsOf path: String, fitting targetPixelSize: CGSize?,
        cropping crop: Crop? = nil, isCancelled: (@Sendable () -> Bool)? = nil
    ) throws(ImageError) -> Bitmap {
        let header = try ImageHeader.read(contentsOf: path)
        try checkPixelLimit(header, path: path)
        let cancellation = isCancelled.map { Cancellation(path: path, isCancelled: $0) }
        try cancellation?.check()
        let orientation = header.orientation
        // The crop and the target are in the shown image's pixels; the decoders work in the
        // stored image's, and the result is turned at the end (at its decoded size, so cheaply).
        var storedCrop = crop
        var storedTarget = targetPixelSize
        if orientation != .up {
            if let crop {
                guard let inside = crop.clamped(width: header.width, height: header.height) else {
                    throw .unsupported(
                        path: path, reason: "the crop \(crop) has no pixels in the \(header.width) x \(header.height) image")
                }
                storedCrop = orientation.storedCrop(inside, storedWidth: header.storedWidth, storedHeight: header.storedHeight)
            }
            if orientation.swapsAxes, let target = targetPixelSize {
                storedTarget = CGSize(width: target.height, height: target.width)
            }
        }
        let stored: Bitmap
        switch header.format {
        case .jpeg: stored = try decodeJPEG(path: path, target: storedTarget, crop: storedCrop, cancel: cancellation)
        case .png: stored = try decodePNG(path: path, target: storedTarget, crop: storedCrop, cancel: cancellation)
        case .webp where header.isAnimated:
            stored = try decodeFirstFrame(
                path: path, header: header, target: storedTarget, crop: storedCrop, isCancelled: isCancelled)
        case .webp: stored = try decodeWebP(path: path, target: storedTarget, crop: storedCrop, cancel: cancellation)
        case .heif, .avif:
            stored = try decodeHEIF(path: path, format: header.format, target: storedTarget, crop: storedCrop)
            try cancellation?.check()  // libheif cannot be stopped inside
        case .gif, .bmp:
            stored = try decodeWithSDL(path: path, header: header, target: storedTarget, crop: storedCrop)
            try cancellation?.check()  // SDL_image cannot be stopped inside; they are at most 64 MP
        }
        return orientation.apply(to: stored)
    }

    /// `crop` clamped to a `width` x `height` image; the whole image for nil.
    static func resolve(_ crop: Crop?, path: String, width: Int, height: Int) throws(ImageError) -> Crop {
        guard let crop else { return Crop(x: 0, y: 0, width: width, height: height) }
        guard let inside = crop.clamped(width: width, height: height) else {
            throw .unsupported(path: path, reason: "the crop \(crop) has no pixels in the \(width) x \(height) image")
        }
        return inside
    }

    /// The size `decode(contentsOf:fitting:)` gives an image of `width` x `height` pixels: the
    /// smallest size that covers the target with the image's aspect, scale = max(tw / w, th / h),
    /// never above 1, each side rounded up to whole pixels (and at least 1).
    ///
    /// The target is first rounded up to whole pixels; a `nil`, infinite or NaN target means
    /// full size. Pure arithmetic: any thread.
    public static func fittedPixelSize(width: Int, height: Int, fitting target: CGSize?) -> (width: Int, height: Int) {
        guard let target, width > 0, height > 0,
            let targetWidth = wholePixels(target.width), let targetHeight = wholePixels(target.height),
            targetWidth < width, targetHeight < height
        else { return (width, height) }
        // Both target sides are now below the image's (at most 65535), so the products fit.
        if targetWidth * height >= targetHeight * width {
            return (targetWidth, max(1, (height * targetWidth + width - 1) / width))  // the width binds
        }
        return (max(1, (width * targetHeight + height - 1) / height), targetHeight)
    }

    /// A target side in whole pixels (rounded up, forgiving float noise), or nil for no limit.
    private static func wholePixels(_ value: CGFloat) -> Int? {
        guard value.isFinite, value < 1e9 else { return nil }
        if value <= 1 { return 1 }
        return Int((value - 1e-6).rounded(.up))
    }

    // MARK: JPEG

    private static func decodeJPEG(
        path: String, target: CGSize?, crop: Crop?, cancel: Cancellation?
    ) throws(ImageError) -> Bitmap {
        var error = ccodecs_error()
        var info = ccodecs_jpeg_info()
        guard let jpeg = ccodecs_jpeg_open(path, &info, &error) else {
            throw failure(error, path: path, format: .jpeg)
        }
        defer { ccodecs_jpeg_close(jpeg) }
        ccodecs_jpeg_set_cancel(jpeg, cancel?.pointer)
        var profileSize = 0
        let profile = ccodecs_jpeg_icc_profile(jpeg, &profileSize)
        let cmykInput = ccodecs_jpeg_cmyk_input(jpeg)
        let input = cmykInput == Int32(CCODECS_COLOR_RGBA_PREMULTIPLIED) ? Int32(CCODECS_COLOR_RGBA_OPAQUE) : cmykInput
        let transform = ColorProfiles.transform(profile: profile, size: profileSize, input: input)
        if input != Int32(CCODECS_COLOR_RGBA_OPAQUE), let transform {
            ccodecs_jpeg_set_cmyk_transform(jpeg, transform.pointer)  // CMYK rows convert as they are read
        }
        let width = Int(info.width), height = Int(info.height)
        if info.multiple_scans != 0 {
            // libjpeg keeps every coefficient of a multi-scan file in memory.
            try checkWholeImage(path: path, width: width, height: height)
        }
        let crop = try resolve(crop, path: path, width: width, height: height)
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        try checkOutput(path: path, size: size)
        guard
            ccodecs_jpeg_start(
                jpeg, Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height),
                Int32(size.width), Int32(size.height), &info, &error) == 0
        else {
            throw failure(error, path: path, format: .jpeg, width: width, height: height)
        }
        let outputCrop = Crop(
            x: Int(info.output_crop_x), y: Int(info.output_crop_y),
            width: Int(info.output_crop_width), height: Int(info.output_crop_height))
        let bitmap = try streamDecode(
            path: path, format: .jpeg, sourceWidth: Int(info.output_width), sourceHeight: Int(info.output_height),
            crop: outputCrop, size: size, cancel: cancel
        ) { (rows, stride, count) throws(ImageError) -> Int in
            // The CMYK transform, which the C side holds only as a pointer, lives while rows are read.
            let got = withExtendedLifetime(transform) { ccodecs_jpeg_read_rows(jpeg, rows, stride, Int32(count), &error) }
            if got < 0 { throw failure(error, path: path, format: .jpeg, width: width, height: height) }
            return Int(got)
        }
        return input == Int32(CCODECS_COLOR_RGBA_OPAQUE) ? ColorProfiles.convert(bitmap, with: transform) : bitmap
    }

    // MARK: PNG

    private static func decodePNG(
        path: String, target: CGSize?, crop: Crop?, cancel: Cancellation?
    ) throws(ImageError) -> Bitmap {
        var error = ccodecs_error()
        var info = ccodecs_png_info()
        guard let png = ccodecs_png_open(path, &info, &error) else {
            throw failure(error, path: path, format: .png)
        }
        defer { ccodecs_png_close(png) }
        var profileSize = 0
        let profile = ccodecs_png_icc_profile(png, &profileSize)
        let transform = ColorProfiles.transform(profile: profile, size: profileSize, opaque: info.has_alpha == 0)
        return ColorProfiles.convert(
            try decodePNGPixels(png, info: info, path: path, target: target, crop: crop, cancel: cancel),
            with: transform)
    }

    private static func decodePNGPixels(
        _ png: OpaquePointer, info: ccodecs_png_info, path: String, target: CGSize?, crop: Crop?,
        cancel: Cancellation?
    ) throws(ImageError) -> Bitmap {
        var error = ccodecs_error()
        let width = Int(info.width), height = Int(info.height)
        let crop = try resolve(crop, path: path, width: width, height: height)
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        try checkOutput(path: path, size: size)
        if info.interlaced == 0 {
            return try streamDecode(
                path: path, format: .png, sourceWidth: width, sourceHeight: height, crop: crop, size: size,
                cancel: cancel
            ) { (rows, stride, count) throws(ImageError) -> Int in
                let got = ccodecs_png_read_rows(png, rows, stride, Int32(count), &error)
                if got < 0 { throw failure(error, path: path, format: .png, width: width, height: height) }
                return Int(got)
            }
        }
        // Adam7 fills the image in seven passes, so the whole image must exist.
        try checkWholeImage(path: path, width: width, height: height)
        if size == (width, height) {  // a size never above the crop's: the whole image
            return try makeBitmap(width: width, height: height) { (pixels, stride) throws(ImageError) in
                guard ccodecs_png_read_image(png, pixels, stride, cancel?.pointer, &error) == 0 else {
                    throw failure(error, path: path, format: .png, width: width, height: height)
                }
            }
        }
        let stride = width * 4
        let whole = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * height)
        defer { whole.deallocate() }
        guard ccodecs_png_read_image(png, whole, stride, cancel?.pointer, &error) == 0 else {
            throw failure(error, path: path, format: .png, width: width, height: height)
        }
        return downscale(whole, stride: stride, crop: crop, to: size)
    }

    // MARK: WebP

    private static func decodeWebP(
        path: String, target: CGSize?, crop: Crop?, cancel: Cancellation?
    ) throws(ImageError) -> Bitmap {
        var error = ccodecs_error()
        var info = ccodecs_webp_info()
        guard let webp = ccodecs_webp_open(path, &info, &error) else {
            throw failure(error, path: path, format: .webp)
        }
        defer { ccodecs_webp_close(webp) }
        var profileSize = 0
        let profile = ccodecs_webp_icc_profile(webp, &profileSize)
        let transform = ColorProfiles.transform(profile: profile, size: profileSize, opaque: info.has_alpha == 0)
        let width = Int(info.width), height = Int(info.height)
        if info.lossless != 0 {
            // The lossless decoder holds the whole image as ARGB whatever the output size.
            try checkWholeImage(path: path, width: width, height: height)
        }
        var crop = try resolve(crop, path: path, width: width, height: height)
        if info.lossless == 0 {
            // Lossy data crops on even coordinates (its chroma is half size): the crop grows
            // outward by an odd left column or top row, and the result by that pixel.
            crop = Crop(
                x: crop.x & ~1, y: crop.y & ~1, width: crop.width + (crop.x & 1),
                height: crop.height + (crop.y & 1))
        }
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        try checkOutput(path: path, size: size)
        // libwebp crops and scales while it decodes, row by row, straight to the wanted size.
        let bitmap = try makeBitmap(width: size.width, height: size.height) { (pixels, stride) throws(ImageError) in
            guard
                ccodecs_webp_decode(
                    webp, Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height),
                    Int32(size.width), Int32(size.height), pixels, stride, cancel?.pointer, &error) == 0
            else {
                throw failure(error, path: path, format: .webp, width: width, height: height)
            }
        }
        return ColorProfiles.convert(bitmap, with: transform)
    }

    // MARK: HEIF and AVIF (libheif)

    private static func decodeHEIF(
        path: String, format: ImageFormat, target: CGSize?, crop: Crop?
    ) throws(ImageError) -> Bitmap {
        var error = ccodecs_error()
        var info = ccodecs_heif_info()
        guard let heif = ccodecs_heif_open(path, &info, &error) else { throw failure(error, path: path, format: format) }
        defer { ccodecs_heif_close(heif) }
        let width = Int(info.width), height = Int(info.height)
        // libheif decodes the whole image (its tiles, for a phone's grid image) into memory.
        try checkWholeImage(path: path, width: width, height: height)
        var profileSize = 0
        let profile = ccodecs_heif_icc_profile(heif, &profileSize)
        let transform = ColorProfiles.transform(profile: profile, size: profileSize, opaque: info.has_alpha == 0)
        let crop = try resolve(crop, path: path, width: width, height: height)
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        try checkOutput(path: path, size: size)
        var stride = 0
        guard let pixels = ccodecs_heif_decode(heif, &stride, &error) else {
            throw failure(error, path: path, format: format, width: width, height: height)
        }
        if info.has_alpha != 0 {
            for y in 0..<height { ccodecs_premultiply(pixels + y * stride, width) }
        }
        let bitmap: Bitmap
        if size == (width, height) {
            bitmap = try makeBitmap(width: width, height: height) { (output, outStride) throws(ImageError) in
                for y in 0..<height { (output + y * outStride).update(from: pixels + y * stride, count: width * 4) }
            }
        } else {
            bitmap = downscale(pixels, stride: stride, crop: crop, to: size)
        }
        return ColorProfiles.convert(bitmap, with: transform)
    }

    // MARK: Animated WebP

    /// The first frame of an animated WebP (libwebp's plain decoder refuses animations), at full
    /// size through `AnimationDecoder`, then cropped and scaled like a whole-image decode. Its
    /// canvas is held whole, so it is limited as the other whole-image decoders are.
    private static func decodeFirstFrame(
        path: String, header: ImageHeader, target: CGSize?, crop requestedCrop: Crop?,
        isCancelled: (@Sendable () -> Bool)?
    ) throws(ImageError) -> Bitmap {
        // In stored order: `decode` turns the result.
        var stored = header
        stored.orientation = .up
        // Shown still, it is held to the whole-image decoders' limit, not the animations' smaller one.
        try checkWholeImage(path: path, width: header.width, height: header.height)
        let animation = try AnimationDecoder(contentsOf: path, header: stored, maximumPixels: maximumWholeImagePixels)
        let frame = try animation.nextFrame(fitting: nil, isCancelled: isCancelled).bitmap
        let crop = try resolve(requestedCrop, path: path, width: frame.width, height: frame.height)
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        if size == (frame.width, frame.height) { return frame }
        var pixels = frame.pixels
        return pixels.withUnsafeMutableBufferPointer { buffer in
            downscale(buffer.baseAddress!, stride: frame.bytesPerRow, crop: crop, to: size)
        }
    }

    // MARK: GIF and BMP (SDL_image)

    private static func decodeWithSDL(
        path: String, header: ImageHeader, target: CGSize?,
        crop requestedCrop: Crop?
    ) throws(ImageError) -> Bitmap {
        try checkWholeImage(path: path, width: header.width, height: header.height)
        var error = ccodecs_error()
        var frame = ccodecs_gif_frame()
        // SDL_image decodes a short file without complaint, so check the structure first.
        if header.format == .gif {
            guard ccodecs_gif_first_frame(path, &frame, &error) == 0 else {
                throw failure(error, path: path, format: .gif)
            }
            try checkWholeImage(path: path, width: Int(frame.width), height: Int(frame.height))
        } else {
            guard ccodecs_bmp_check(path, &error) == 0 else { throw failure(error, path: path, format: .bmp) }
        }

        guard let stream = SDL_RWFromFile(path, "rb") else {
            throw .unreadable(path: path, reason: String(cString: SDL_GetError()))
        }
        // Both loaders leave the stream open (they do not take a "free source" flag).
        defer { SDL_RWclose(stream) }
        let loaded = header.format == .gif ? IMG_LoadGIF_RW(stream) : IMG_LoadBMP_RW(stream)
        guard let loaded else {
            let message = String(cString: SDL_GetError())
            if message.localizedCaseInsensitiveContains("not supported") {
                throw .unsupported(path: path, reason: message)  // e.g. a BMP compression SDL lacks
            }
            throw .corrupt(path: path, reason: message)
        }
        defer { SDL_FreeSurface(loaded) }
        // RGBA bytes in memory; a GIF's transparent index becomes alpha 0.
        guard let surface = SDL_ConvertSurfaceFormat(loaded, SDL_PIXELFORMAT_ABGR8888.rawValue, 0) else {
            throw .unreadable(path: path, reason: String(cString: SDL_GetError()))
        }
        defer { SDL_FreeSurface(surface) }
        let surfaceWidth = Int(surface.pointee.w), surfaceHeight = Int(surface.pointee.h)
        let pitch = Int(surface.pointee.pitch)
        guard surfaceWidth > 0, surfaceHeight > 0, let base = surface.pointee.pixels else {
            throw .corrupt(path: path, reason: "\(header.format.rawValue.uppercased()) decoded to an empty image")
        }
        let source = base.assumingMemoryBound(to: UInt8.self)

        // The canvas: a BMP's own size; a GIF's logical screen, with its first frame placed on it
        // (transparent where the frame does not reach).
        var width = surfaceWidth, height = surfaceHeight, left = 0, top = 0
        if header.format == .gif {
            width = Int(frame.screen_width)
            height = Int(frame.screen_height)
            left = Int(frame.left)
            top = Int(frame.top)
        }
        let stride = width * 4
        let crop = try resolve(requestedCrop, path: path, width: width, height: height)
        let size = fittedPixelSize(width: crop.width, height: crop.height, fitting: target)
        if left == 0, top == 0, surfaceWidth == width, surfaceHeight == height {
            // The converted surface is our own copy: premultiply it in place and read from it.
            for y in 0..<height { ccodecs_premultiply(source + y * pitch, width) }
            if size == (width, height) {
                return try makeBitmap(width: width, height: height) { (pixels, outStride) throws(ImageError) in
                    for y in 0..<height { (pixels + y * outStride).update(from: source + y * pitch, count: stride) }
                }
            }
            return downscale(source, stride: pitch, crop: crop, to: size)
        }
        let canvas = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * height)
        defer { canvas.deallocate() }
        canvas.initialize(repeating: 0, count: stride * height)
        let copyWidth = max(0, min(surfaceWidth, width - left)), copyHeight = max(0, min(surfaceHeight, height - top))
        for y in 0..<copyHeight {
            let row = canvas + (top + y) * stride + left * 4
            row.update(from: source + y * pitch, count: copyWidth * 4)
            ccodecs_premultiply(row, copyWidth)
        }
        if size == (width, height) {
            return try makeBitmap(width: width, height: height) { (pixels, _) throws(ImageError) in
                pixels.update(from: canvas, count: stride * height)
            }
        }
        return downscale(canvas, stride: stride, crop: crop, to: size)
    }

    // MARK: Shared steps

    /// Rows read between two cancellation checks.
    private static let rowsPerBatch = 16

    /// Reads rows of a `sourceWidth` x `sourceHeight` premultiplied image through `read` (which
    /// fills up to `count` rows `stride` bytes apart and returns how many it filled) and makes
    /// `crop` of it (inside the image) a bitmap of `size`: straight into it when the whole image
    /// is wanted at its size, otherwise through the streaming area-average downscaler a few rows
    /// at a time (rows above the crop dropped, only the crop's columns pushed, no row below it
    /// read), so neither the source nor the crop ever exists whole.
    private static func streamDecode(
        path: String, format: ImageFormat, sourceWidth: Int, sourceHeight: Int, crop: Crop,
        size: (width: Int, height: Int), cancel: Cancellation?,
        read: (UnsafeMutablePointer<UInt8>, Int, Int) throws(ImageError) -> Int
    ) throws(ImageError) -> Bitmap {
        // The size is never above the crop's, so this is the whole image at its own size.
        if sourceWidth == size.width, sourceHeight == size.height {
            return try makeBitmap(width: size.width, height: size.height) { (pixels, stride) throws(ImageError) in
                var y = 0
                while y < size.height {
                    try cancel?.check()
                    let got = try read(pixels + y * stride, stride, min(rowsPerBatch, size.height - y))
                    if got == 0 { throw .truncatedData(path: path, format: format) }
                    y += got
                }
            }
        }
        let batchStride = sourceWidth * 4
        let batch = UnsafeMutablePointer<UInt8>.allocate(capacity: batchStride * rowsPerBatch)
        defer { batch.deallocate() }
        return try makeBitmap(width: size.width, height: size.height) { (pixels, stride) throws(ImageError) in
            var scaler = AreaDownscaler(
                sourceWidth: crop.width, sourceHeight: crop.height,
                width: size.width, height: size.height, output: pixels, outputStride: stride
            )
            let bottom = crop.y + crop.height, columnOffset = crop.x * 4
            var y = 0
            while y < bottom {
                try cancel?.check()
                let got = try read(batch, batchStride, min(rowsPerBatch, bottom - y))
                if got == 0 { throw .truncatedData(path: path, format: format) }
                for row in 0..<got where y + row >= crop.y {
                    scaler.push(batch + row * batchStride + columnOffset)
                }
                y += got
            }
        }
    }

    /// Area-averages `crop` of a premultiplied image in memory to `size` (at most the crop's).
    static func downscale(
        _ image: UnsafeMutablePointer<UInt8>, stride: Int, crop: Crop, to size: (width: Int, height: Int)
    ) -> Bitmap {
        let source = image + crop.y * stride + crop.x * 4
        let width = crop.width, height = crop.height
        let pixels = [UInt8](unsafeUninitializedCapacity: size.width * size.height * 4) { buffer, count in
            var scaler = AreaDownscaler(
                sourceWidth: width, sourceHeight: height, width: size.width, height: size.height,
                output: buffer.baseAddress!, outputStride: size.width * 4
            )
            for y in 0..<height { scaler.push(source + y * stride) }
            count = buffer.count
        }
        return Bitmap(width: size.width, height: size.height, pixels: pixels)
    }

    /// A bitmap whose tightly packed pixels `fill` writes (it must write every byte).
    static func makeBitmap(
        width: Int, height: Int, fill: (UnsafeMutablePointer<UInt8>, Int) throws(ImageError) -> Void
    ) throws(ImageError) -> Bitmap {
        var thrown: ImageError?
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            do throws(ImageError) {
                try fill(buffer.baseAddress!, width * 4)
                count = buffer.count
            } catch {
                thrown = error
                count = 0
            }
        }
        if let thrown { throw thrown }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    private static func checkWholeImage(path: String, width: Int, height: Int) throws(ImageError) {
        if width * height > maximumWholeImagePixels {
            throw .tooLarge(path: path, width: width, height: height, limit: maximumWholeImagePixels)
        }
    }

    private static func checkOutput(path: String, size: (width: Int, height: Int)) throws(ImageError) {
        if size.width * size.height > maximumOutputPixels {
            throw .tooLarge(path: path, width: size.width, height: size.height, limit: maximumOutputPixels)
        }
    }

    /// The ImageError for a CCodecs failure. `width` and `height` (when known) size a `tooLarge`.
    static func failure(
        _ error: ccodecs_error, path: String, format: ImageFormat, width: Int = 0, height: Int = 0
    ) -> ImageError {
        let message = withUnsafeBytes(of: error.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch UInt32(bitPattern: error.status) {
        case CCODECS_FILE_MISSING.rawValue:
            return .fileMissing(path: path)
        case CCODECS_UNREADABLE.rawValue:
            return .unreadable(path: path, reason: message)
        case CCODECS_TRUNCATED.rawValue:
            return .truncatedData(path: path, format: format)
        case CCODECS_UNSUPPORTED.rawValue:
            return .unsupported(path: path, reason: message)
        case CCODECS_TOO_LARGE.rawValue:
            return .tooLarge(path: path, width: width, height: height, limit: maximumWholeImagePixels)
        case CCODECS_OUT_OF_MEMORY.rawValue:
            return .unreadable(path: path, reason: "out of memory")
        case CCODECS_CANCELLED.rawValue:
            return .cancelled(path: path)
        default:
            return .corrupt(path: path, reason: message.isEmpty ? "undecodable data" : message)
        }
    }
}

/// Shrinks a premultiplied RGBA image by exact area averaging while its rows stream in: every
/// source pixel counts with the fraction of it that each output pixel covers. Each source row is
/// reduced horizontally and added, weighted, into the output row it falls in (and the next one,
/// for a row straddling the boundary); an output row is written as soon as it is covered. Memory
/// is three output rows and a column table, whatever the source size.
///
/// Each axis must shrink or stay (output side <= source side). Weights are exact integers in
/// units of 1 / (source side * output side); the vertical sums are Float, rounded once at the end.
/// The loops avoid trapping conversions so that the compiler can vectorise them.
private struct AreaDownscaler: ~Copyable {
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let width: Int
    private let height: Int
    private let output: UnsafeMutablePointer<UInt8>
    private let outputStride: Int
    /// Per output column: the first source column it touches, its weight, how many whole source
    /// columns follow (weight `width` each), and the weight of the last, partial one (maybe 0).
    private let columns: UnsafeMutablePointer<Column>
    /// One source row reduced horizontally: width * 4 integer channel sums.
    private let rowSums: UnsafeMutablePointer<UInt32>
    /// The output row being gathered and the next one: width * 4 channel values in 0...255.
    private var current: UnsafeMutablePointer<Float>
    private var next: UnsafeMutablePointer<Float>
    /// Source rows pushed so far and the output row being gathered.
    private var sourceRow = 0
    private var outputRow = 0
    /// 1 / (sourceWidth * sourceHeight): turns integer weights into fractions of an output pixel.
    private let normaliser: Float

    private struct Column {
        var first: Int
        var wholeCount: Int
        var firstWeight: UInt32
        var lastWeight: UInt32
    }

    init(
        sourceWidth: Int, sourceHeight: Int, width: Int, height: Int,
        output: UnsafeMutablePointer<UInt8>, outputStride: Int
    ) {
        precondition(
            width >= 1 && height >= 1 && width <= sourceWidth && height <= sourceHeight,
            "AreaDownscaler only shrinks")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        self.output = output
        self.outputStride = outputStride
        normaliser = 1 / (Float(sourceWidth) * Float(sourceHeight))
        columns = .allocate(capacity: width)
        rowSums = .allocate(capacity: width * 4)
        current = .allocate(capacity: width * 4)
        current.initialize(repeating: 0, count: width * 4)
        next = .allocate(capacity: width * 4)
        next.initialize(repeating: 0, count: width * 4)
        // Output column o covers [o * sourceWidth, (o + 1) * sourceWidth); source column x covers
        // [x * width, (x + 1) * width).
        for o in 0..<width {
            let low = o * sourceWidth, high = low + sourceWidth
            let first = low / width, last = (high - 1) / width
            if first == last {
                columns[o] = Column(first: first, wholeCount: 0, firstWeight: UInt32(sourceWidth), lastWeight: 0)
            } else {
                columns[o] = Column(
                    first: first, wholeCount: last - first - 1,
                    firstWeight: UInt32((first + 1) * width - low), lastWeight: UInt32(high - last * width)
                )
            }
        }
    }

    deinit {
        columns.deallocate()
        rowSums.deallocate()
        current.deallocate()
        next.deallocate()
    }

    /// Adds the next source row (sourceWidth premultiplied RGBA pixels). Ignores rows past the last.
    mutating func push(_ row: UnsafePointer<UInt8>) {
        guard sourceRow < sourceHeight else { return }
        reduceHorizontally(row)
        // Source row y covers [y * height, (y + 1) * height); output row r covers
        // [r * sourceHeight, (r + 1) * sourceHeight).
        let start = sourceRow &* height
        let end = start &+ height
        let boundary = (outputRow &+ 1) &* sourceHeight
        if end <= boundary {
            add(into: current, weight: height)
            if end == boundary { emitRow() }
        } else {
            add(into: current, weight: boundary &- start)
            add(into: next, weight: end &- boundary)
            emitRow()
        }
        sourceRow &+= 1
    }

    /// Sums each output column's share of `row` into `rowSums` (at most 255 * sourceWidth each).
    private func reduceHorizontally(_ row: UnsafePointer<UInt8>) {
        let unit = UInt32(width)
        let columns = self.columns, sums = rowSums
        for o in 0..<width {
            let column = columns[o]
            var p = row + column.first &* 4
            let w0 = column.firstWeight
            var r = UInt32(p[0]) &* w0, g = UInt32(p[1]) &* w0, b = UInt32(p[2]) &* w0, a = UInt32(p[3]) &* w0
            if column.wholeCount > 0 {
                var wr: UInt32 = 0, wg: UInt32 = 0, wb: UInt32 = 0, wa: UInt32 = 0
                for _ in 0..<column.wholeCount {
                    p += 4
                    wr &+= UInt32(p[0]); wg &+= UInt32(p[1]); wb &+= UInt32(p[2]); wa &+= UInt32(p[3])
                }
                r &+= wr &* unit; g &+= wg &* unit; b &+= wb &* unit; a &+= wa &* unit
            }
            let w1 = column.lastWeight
            if w1 != 0 {
                p += 4
                r &+= UInt32(p[0]) &* w1; g &+= UInt32(p[1]) &* w1; b &+= UInt32(p[2]) &* w1; a &+= UInt32(p[3]) &* w1
            }
            let i = o &* 4
            sums[i] = r; sums[i &+ 1] = g; sums[i &+ 2] = b; sums[i &+ 3] = a
        }
    }

    /// Adds `rowSums` with `weight` (of sourceHeight) into an output row.
    private func add(into sink: UnsafeMutablePointer<Float>, weight: Int) {
        let factor = Float(weight) * normaliser
        let sums = rowSums
        for i in 0..<(width &* 4) {
            sink[i] += Float(sums[i]) * factor
        }
    }

    /// Writes the current output row, rounded, and moves on to the next.
    private mutating func emitRow() {
        guard outputRow < height else { return }
        let destination = output + outputRow &* outputStride
        let sink = current
        for i in 0..<(width &* 4) {
            // Adding 2^23 leaves round(value) in the low mantissa bits (0 <= value <= 255 here):
            // a rounding conversion without Swift's trapping range checks.
            let value = Swift.min(sink[i], 255) + 8_388_608
            destination[i] = UInt8(truncatingIfNeeded: value.bitPattern)
        }
        sink.update(repeating: 0, count: width &* 4)
        swap(&current, &next)
        outputRow &+= 1
    }
}
