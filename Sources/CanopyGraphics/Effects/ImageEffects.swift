import Foundation

/// The blurred, tinted backgrounds of cards: Apple's WWDC 2013 UIImage+ImageEffects recipe
/// (`applyBlurWithRadius:tintColor:saturationDeltaFactor:maskImage:`), rewritten on the CPU from
/// its description.
///
/// Stateless: any thread may call it, and several threads may call it at once.
public enum ImageEffects {
    /// Blurs `image`, then changes its saturation, then tints it — the WWDC 2013 recipe.
    ///
    /// - The blur is three box blurs per axis on premultiplied RGBA, edges extended, box size
    ///   `floor(r * 3 * sqrt(2 * pi) / 4 + 0.5)` made odd, where `r = radius * image.scale` is
    ///   the radius in pixels: a close approximation of a Gaussian with sigma `r` (the SVG
    ///   feGaussianBlur recipe). When `r` is below `FLT_EPSILON` (or negative) the blur is
    ///   skipped and the saturation and tint still apply.
    /// - Big blurs are computed on a copy shrunk by an integer factor `f` (area average; the
    ///   shrunk sigma stays at 8 px or more) and grown back bilinearly: within 3 levels of 255 of
    ///   the full-resolution result, and far cheaper (the card's 640 x 960 px background at radius
    ///   30 pt takes about 1.3 ms instead of 6).
    /// - `saturationDeltaFactor` s != 1 (finite) applies the Rec. 709 saturation matrix
    ///   `(1 - s) * L + s * I` (every row of L is the luma weights 0.2126, 0.7152, 0.0722) to the
    ///   premultiplied colour, clamped to 0...alpha; alpha is unchanged.
    /// - `tintColor` is then filled over the whole image, source-over.
    /// - With `maskImage` (its alpha, stretched to the image's size), that effect — blur,
    ///   saturation and tint — is drawn through the mask over the original image, source-over:
    ///   where the mask is clear the original shows unchanged.
    /// - Where this differs from Apple's recipe: the recipe draws the effect over the original
    ///   even without a mask, and fills the tint over everything after the mask. For an opaque
    ///   image without a mask (a card's photo) the results are the same; for translucent images
    ///   or with a mask they differ.
    ///
    /// The result has the input's pixel size and scale. `isCancelled` is polled at the start and
    /// then every 0.03 to 0.07 ms of work (release build); once it returns true the call returns
    /// nil at once, without polling again. Any thread may call this, several at a time.
    ///
    /// `allowsDownscaling: false` always blurs at full resolution (the naive path, for
    /// comparisons); the default takes the shrink-blur-grow shortcut where it is within bound.
    public static func blur(
        _ image: Bitmap, radius: CGFloat, tintColor: Color? = nil,
        saturationDeltaFactor: CGFloat = 1, maskImage: Bitmap? = nil,
        allowsDownscaling: Bool = true,
        isCancelled: () -> Bool = { false }
    ) -> Bitmap? {
        blur(
            image, radius: radius, tintColor: tintColor, saturationDeltaFactor: saturationDeltaFactor,
            maskImage: maskImage, minimumDownscaledSigma: allowsDownscaling ? minimumDownscaledSigma : nil,
            isCancelled: isCancelled)
    }

    // MARK: Parameters

    /// FLT_EPSILON, the recipe's threshold for "no blur" and "no saturation change".
    static let flagEpsilon = CGFloat(Float.ulpOfOne)

    /// The smallest blur sigma, in pixels of the shrunk copy, that the shrink-blur-grow shortcut
    /// may leave. With it the result stays within 3 levels of 255 of the full-resolution one in
    /// every channel, 1 on average (ImageEffectsTests.testDownscaledPathMatchesFullResolution;
    /// measured on the 16 project photos aspect-filled to the card at 1x and 2x: at most 2, mean
    /// at most 0.08, the scarlet macaw at 2x).
    static let minimumDownscaledSigma: CGFloat = 8

    /// Box sizes are capped so that a box sum of 8.8 fixed-point values fits an Int32.
    static let maximumBoxSize = 32767

    /// Work between two polls of `isCancelled`, in pixel passes (one pixel through one box pass
    /// or one resampling step): 0.03 to 0.07 ms where measured (median and 90th percentile of the
    /// gaps in a release build, 99 % within 0.11 ms; a 1920 x 1080 blur polls 512 times), far
    /// inside the 2 ms a cancel may take.
    static let pollPixelBudget = 32768

    /// The recipe's box size for a blur radius in pixels: floor(r * 3 * sqrt(2 pi) / 4 + 0.5),
    /// plus one if even.
    static func boxSize(forInputRadius inputRadius: CGFloat) -> Int {
        let raw = (inputRadius * 3 * (2 * CGFloat.pi).squareRoot() / 4 + 0.5).rounded(.down)
        guard raw >= 1 else { return 1 }  // also NaN
        if raw >= CGFloat(maximumBoxSize) { return maximumBoxSize }
        let size = Int(raw)
        return size % 2 == 0 ? size + 1 : size
    }

    /// The largest factor by which an image may be shrunk before a blur of `inputRadius` pixels:
    /// the largest `f` with `inputRadius / f >= minimumSigma`, leaving at least 8 pixels a side;
    /// 1 (no shrinking) when that is less than 2 or `minimumSigma` is nil.
    static func maximumDownscaleFactor(inputRadius: CGFloat, width: Int, height: Int, minimumSigma: CGFloat?) -> Int {
        guard let minimumSigma, minimumSigma > 0, inputRadius.isFinite, inputRadius > 0 else { return 1 }
        let byBlur = Int(min(inputRadius / minimumSigma, 1_000_000).rounded(.down))
        let bySize = min(width, height) / 8
        let factor = min(byBlur, bySize)
        return factor >= 2 ? factor : 1
    }

    /// The factor by which to shrink: of the allowed factors from half the largest up to the
    /// largest, the largest whose box sizes (`shrunkBoxSizes`) reproduce the full-size blur's
    /// variance within 1 %, else the closest. (Odd box sizes come in coarse steps: at 2x and
    /// radius 30, factor 7 misses by 2.7 %, factor 4 by 0.7 %, and the miss is what shows.)
    static func downscaleFactor(inputRadius: CGFloat, width: Int, height: Int, minimumSigma: CGFloat?) -> Int {
        let largest = maximumDownscaleFactor(
            inputRadius: inputRadius, width: width, height: height,
            minimumSigma: minimumSigma)
        guard largest > 1 else { return 1 }
        let fullSize = boxSize(forInputRadius: inputRadius)
        var best = largest, bestError = Double.infinity
        for factor in stride(from: largest, through: max(2, (largest + 1) / 2), by: -1) {
            let error = shrunkBoxSizes(fullSize: fullSize, factor: factor).varianceError
            if error <= 0.01 { return factor }
            if error < bestError { best = factor; bestError = error }
        }
        return best
    }

    /// Three odd box sizes for a copy shrunk by `factor` whose blur, with the shrinking and
    /// growing around it, spreads as far (same variance) as three boxes of `fullSize` at full
    /// size, and how far off that variance they are (relative).
    ///
    /// Three boxes of odd size d have variance 3 (d^2 - 1) / 12; averaging blocks of f pixels
    /// adds about f^2 / 12 and bilinear growth about f^2 / 6 (in full-size pixels). Sizes a and
    /// a + 2 are mixed to land nearest that target; simply taking the recipe's size for
    /// radius / f can miss it by 5 % in sigma (113 at full size against 17 at 1/7). The order
    /// keeps the running total of sizes nearest k * fullSize / factor after pass k, which matters
    /// at the edges (measured on a 1-px line along the edge: 4 levels off in order 27, 29, 29
    /// at factor 4, 1 level in order 29, 27, 29).
    static func shrunkBoxSizes(fullSize: Int, factor: Int) -> (sizes: [Int], varianceError: Double) {
        let f2 = Double(factor * factor)
        let fullVariance = Double(fullSize * fullSize - 1) / 4
        let target = fullVariance / f2 - 0.25  // variance to make, in shrunk pixels
        var best = [1, 1, 1], bestVariance = 0.0
        var a = 1
        while true {
            for larger in 0...3 {
                let sizes = Array(repeating: a, count: 3 - larger) + Array(repeating: a + 2, count: larger)
                let variance = sizes.reduce(0.0) { $0 + Double($1 * $1 - 1) / 12 }
                if abs(variance - target) < abs(bestVariance - target) { best = sizes; bestVariance = variance }
            }
            if Double(a * a - 1) / 4 > target || a >= maximumBoxSize - 2 { break }
            a += 2
        }
        // Order them so that the running total keeps pace with fullSize / factor a pass: near an
        // edge each pass starts from the previous pass's edge value, so the order shows there.
        let perPass = Double(fullSize) / Double(factor)
        func drift(_ sizes: [Int]) -> Double {
            var total = 0.0, drift = 0.0
            for (k, size) in sizes.enumerated() {
                total += Double(size)
                drift += abs(total - Double(k + 1) * perPass)
            }
            return drift
        }
        let orders = [
            best, [best[1], best[0], best[2]], [best[1], best[2], best[0]],
            [best[2], best[0], best[1]], [best[2], best[1], best[0]], [best[0], best[2], best[1]],
        ]
        let ordered = orders.min { drift($0) < drift($1) }!
        return (ordered, abs((bestVariance + 0.25) * f2 / fullVariance - 1))
    }

    /// The Rec. 709 saturation matrix (1 - s) L + s I, row-major, for premultiplied R, G, B.
    static func saturationMatrix(_ s: CGFloat) -> [Float] {
        let luma: [CGFloat] = [0.2126, 0.7152, 0.0722]
        var m = [Float](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                m[row * 3 + column] = Float((1 - s) * luma[column] + (row == column ? s : 0))
            }
        }
        return m
    }

    // MARK: The pipeline

    /// `blur` with the shortcut's bound as a parameter: nil always blurs at full resolution.
    static func blur(
        _ image: Bitmap, radius: CGFloat, tintColor: Color?, saturationDeltaFactor: CGFloat,
        maskImage: Bitmap?, minimumDownscaledSigma: CGFloat?,
        isCancelled: () -> Bool
    ) -> Bitmap? {
        if isCancelled() { return nil }
        let width = image.width, height = image.height
        let inputRadius = radius * image.scale
        let hasBlur = inputRadius >= flagEpsilon  // false for NaN and negative radii too
        let hasSaturationChange = saturationDeltaFactor.isFinite && abs(saturationDeltaFactor - 1) >= flagEpsilon
        let tint = tintColor.flatMap { $0.alpha > 0 ? $0 : nil }
        if width == 0 || height == 0 || !(hasBlur || hasSaturationChange || tint != nil) {
            return Bitmap(width: width, height: height, scale: image.scale, pixels: tightPixels(of: image))
        }

        let factor =
            hasBlur
            ? downscaleFactor(
                inputRadius: inputRadius, width: width, height: height,
                minimumSigma: minimumDownscaledSigma)
            : 1
        var plane: Plane
        if factor > 1 {
            guard let shrunk = downscale(image, factor: factor, isCancelled: isCancelled) else { return nil }
            plane = shrunk
        } else {
            guard let loaded = Plane(image, isCancelled: isCancelled) else { return nil }
            plane = loaded
        }
        if hasBlur {
            let size = boxSize(forInputRadius: inputRadius)
            let sizes = factor > 1 ? shrunkBoxSizes(fullSize: size, factor: factor).sizes : [size, size, size]
            let edges = factor > 1 ? ShrunkEdges(factor: factor, width: width, height: height) : nil
            guard
                boxBlur(
                    &plane, horizontalSizes: sizes, verticalSizes: sizes, edges: edges,
                    isCancelled: isCancelled)
            else { return nil }
        }
        if hasSaturationChange || tint != nil {
            guard
                applyColour(
                    &plane, saturationMatrix: hasSaturationChange ? saturationMatrix(saturationDeltaFactor) : nil,
                    tint: tint, isCancelled: isCancelled)
            else { return nil }
        }
        let effect: [UInt8]
        if factor > 1 {
            guard
                let grown = upscale(
                    plane, factor: factor, toWidth: width, height: height,
                    isCancelled: isCancelled)
            else { return nil }
            effect = grown
        } else {
            guard let rounded = plane.quantized(isCancelled: isCancelled) else { return nil }
            effect = rounded
        }
        guard let maskImage else {
            return Bitmap(width: width, height: height, scale: image.scale, pixels: effect)
        }
        plane.values = []  // not needed any more: give its memory back now, not after a cancel
        guard let composed = composite(effect, over: image, through: maskImage, isCancelled: isCancelled)
        else { return nil }
        return Bitmap(width: width, height: height, scale: image.scale, pixels: composed)
    }

    /// Rows between polls for `pixelPasses` pixel passes a row.
    @inline(__always)
    static func rowsPerPoll(pixelPassesPerRow: Int) -> Int {
        max(1, pollPixelBudget / max(1, pixelPassesPerRow))
    }

    /// The bitmap's pixels without row padding.
    static func tightPixels(of image: Bitmap) -> [UInt8] {
        let rowBytes = image.width * 4
        if image.bytesPerRow == rowBytes { return Array(image.pixels.prefix(rowBytes * image.height)) }
        var out = [UInt8]()
        out.reserveCapacity(rowBytes * image.height)
        for y in 0..<image.height {
            out.append(contentsOf: image.pixels[(y * image.bytesPerRow)..<(y * image.bytesPerRow + rowBytes)])
        }
        return out
    }

    // MARK: Colour

    /// Applies the saturation matrix (clamped to 0...alpha), then the tint (source-over),
    /// to every pixel. False if cancelled.
    static func applyColour(
        _ plane: inout Plane, saturationMatrix m: [Float]?, tint: Color?,
        isCancelled: () -> Bool
    ) -> Bool {
        let full: Float = 65280  // 255 in 8.8 fixed point
        let matrix = m ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let m00 = matrix[0], m01 = matrix[1], m02 = matrix[2]
        let m10 = matrix[3], m11 = matrix[4], m12 = matrix[5]
        let m20 = matrix[6], m21 = matrix[7], m22 = matrix[8]
        let ta = Float(tint?.alpha ?? 0)
        let keep = 1 - ta
        let tr = Float(tint?.red ?? 0) * ta * full, tg = Float(tint?.green ?? 0) * ta * full
        let tb = Float(tint?.blue ?? 0) * ta * full, tA = ta * full
        let width = plane.width, height = plane.height
        let pollRows = rowsPerPoll(pixelPassesPerRow: width * 2)
        return plane.values.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            for y in 0..<height {
                if y % pollRows == 0, isCancelled() { return false }
                var p = base + y * width * 4
                for _ in 0..<width {
                    let r = Float(Int32(p[0])), g = Float(Int32(p[1])), b = Float(Int32(p[2])), a = Float(Int32(p[3]))
                    let r2 = clamped(m00 * r + m01 * g + m02 * b, to: a)
                    let g2 = clamped(m10 * r + m11 * g + m12 * b, to: a)
                    let b2 = clamped(m20 * r + m21 * g + m22 * b, to: a)
                    p[0] = roundedUInt16(r2 * keep + tr)
                    p[1] = roundedUInt16(g2 * keep + tg)
                    p[2] = roundedUInt16(b2 * keep + tb)
                    p[3] = roundedUInt16(a * keep + tA)
                    p += 4
                }
            }
            return true
        }
    }

    /// `v` limited to 0...upper (plain comparisons, cheaper than NaN-aware min and max).
    @inline(__always)
    static func clamped(_ v: Float, to upper: Float) -> Float {
        let low = v < 0 ? 0 : v
        return low > upper ? upper : low
    }

    /// A value in 0...65535 rounded to the nearest integer without a trapping conversion
    /// (adding 1.5 * 2^23 leaves the rounded value in the low mantissa bits).
    @inline(__always)
    static func roundedUInt16(_ v: Float) -> UInt16 {
        UInt16(truncatingIfNeeded: (v + 12_582_912).bitPattern &- 0x4B40_0000)
    }

    // MARK: Mask

    /// The effect drawn through the mask's alpha (stretched to the image) over the original,
    /// source-over: out = m E + (1 - m Ea) O (m and Ea in 0...1). Nil if cancelled.
    static func composite(
        _ effect: [UInt8], over original: Bitmap, through mask: Bitmap,
        isCancelled: () -> Bool
    ) -> [UInt8]? {
        let width = original.width, height = original.height
        guard let coverage = stretchedAlpha(of: mask, toWidth: width, height: height, isCancelled: isCancelled)
        else { return nil }
        let pollRows = rowsPerPoll(pixelPassesPerRow: width)
        var cancelled = false
        let out = [UInt8](unsafeUninitializedCapacity: width * height * 4) { outBuffer, count in
            count = width * height * 4
            effect.withUnsafeBufferPointer { e in
                original.pixels.withUnsafeBufferPointer { o in
                    coverage.withUnsafeBufferPointer { m in
                        let effectRaw = UnsafeRawPointer(e.baseAddress!), outRaw = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                        for y in 0..<height {
                            if y % pollRows == 0, isCancelled() { cancelled = true; return }
                            let originalRaw = UnsafeRawPointer(o.baseAddress! + y * original.bytesPerRow)
                            for x in 0..<width {
                                let i = y &* width &+ x, mk = m[i]
                                let ei = i &* 4
                                if mk == 0 {  // the original only
                                    outRaw.storeBytes(
                                        of: originalRaw.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self),
                                        toByteOffset: ei, as: UInt32.self)
                                } else if mk == 255 && e[ei + 3] == 255 {  // the opaque effect only
                                    outRaw.storeBytes(
                                        of: effectRaw.loadUnaligned(fromByteOffset: ei, as: UInt32.self),
                                        toByteOffset: ei, as: UInt32.self)
                                } else {
                                    let coverage = Float(mk) / 255
                                    let keep = 1 - coverage * Float(e[ei + 3]) / 255
                                    let effectPixel = SIMD4<Float>(
                                        Float(e[ei]), Float(e[ei + 1]), Float(e[ei + 2]), Float(e[ei + 3]))
                                    let oi = y * original.bytesPerRow + x * 4
                                    let originalPixel = SIMD4<Float>(
                                        Float(o[oi]), Float(o[oi + 1]), Float(o[oi + 2]), Float(o[oi + 3]))
                                    let v = effectPixel * coverage + originalPixel * keep
                                    outRaw.storeBytes(of: roundedBytes(v), toByteOffset: ei, as: SIMD4<UInt8>.self)
                                }
                            }
                        }
                    }
                }
            }
        }
        return cancelled ? nil : out
    }

    /// A premultiplied RGBA image in 8.8 fixed point (byte value * 256), rows packed: the working
    /// precision of the effects, so that six box passes and the resampling round only once.
    struct Plane {
        var width: Int
        var height: Int
        /// R, G, B, A per pixel, each 0...65280.
        var values: [UInt16]

        init(width: Int, height: Int, values: [UInt16]) {
            precondition(values.count == width * height * 4)
            self.width = width
            self.height = height
            self.values = values
        }

        /// The bitmap's pixels, times 256; nil if `isCancelled` returns true (polled every few rows).
        init?(_ image: Bitmap, isCancelled: () -> Bool) {
            let width = image.width, height = image.height
            let pollRows = ImageEffects.rowsPerPoll(pixelPassesPerRow: width / 4)  // a cheap pass
            var cancelled = false
            self.width = width
            self.height = height
            values = [UInt16](unsafeUninitializedCapacity: width * height * 4) { out, count in
                count = width * height * 4
                image.pixels.withUnsafeBufferPointer { src in
                    var d = out.baseAddress!
                    for y in 0..<height {
                        if y % pollRows == 0, y > 0, isCancelled() { cancelled = true; return }
                        let s = src.baseAddress! + y * image.bytesPerRow
                        for i in 0..<(width * 4) { d[i] = UInt16(s[i]) &<< 8 }
                        d += width * 4
                    }
                }
            }
            if cancelled { return nil }
        }

        /// Rounded back to bytes; nil if `isCancelled` returns true (polled every few rows).
        func quantized(isCancelled: () -> Bool) -> [UInt8]? {
            let n = width * 4
            let pollRows = ImageEffects.rowsPerPoll(pixelPassesPerRow: width / 4)  // a cheap pass
            var cancelled = false
            let out = [UInt8](unsafeUninitializedCapacity: values.count) { out, count in
                count = values.count
                values.withUnsafeBufferPointer { src in
                    for y in 0..<height {
                        if y % pollRows == 0, isCancelled() { cancelled = true; return }
                        let s = src.baseAddress! + y * n, d = out.baseAddress! + y * n
                        for i in 0..<n { d[i] = UInt8(truncatingIfNeeded: (UInt32(s[i]) &+ 128) &>> 8) }
                    }
                }
            }
            return cancelled ? nil : out
        }
    }
}
