// One file (about 650 lines) on purpose: every shape, image and gradient ends in the same
// coverage and compositing steps, which stay private to this file.
import Foundation

/// Draws into a new premultiplied RGBA8 bitmap on the CPU. One thread at a time (not Sendable);
/// each worker makes its own. User space is in points, y down, origin top-left; pixels = points * scale.
///
/// Geometry: pixel (i, j) covers [i, i + 1) x [j, j + 1) in device space, and a point maps to
/// device space through the current translation and scale (times `scale`). Only axis-aligned
/// transforms exist (no rotation). Edges are anti-aliased by coverage: straight edges by their
/// exact area, rounded corners exactly along x and with 16 sub-rows along y.
///
/// Compositing is source-over of premultiplied colour: `dst = src * k + dst * (1 - srcA * k)` with
/// `k = coverage * alpha`, in Float, rounded to the nearest byte.
///
/// State (`saveState`/`restoreState`): translation and scale, clip, alpha. A rect clip is kept
/// exactly (fractional edges give partial coverage); a rounded-rect clip adds an anti-aliased
/// coverage mask multiplied into the current one.
public final class GraphicsContext {
    public let pixelWidth: Int
    public let pixelHeight: Int
    public let scale: CGFloat

    /// The size in points.
    public var size: CGSize { CGSize(width: CGFloat(pixelWidth) / scale, height: CGFloat(pixelHeight) / scale) }

    private var pixels: [UInt8]
    private var state: State
    private var savedStates: [State] = []
    /// Per-row scratch, `pixelWidth + 2` Floats each, indexed by device x.
    private let coverage: UnsafeMutablePointer<Float>
    private let coverageSteps: UnsafeMutablePointer<Float>

    /// Filled with an opaque colour at the start: everything is drawn over (source-over), so every
    /// pixel stays opaque, and `makeBitmap()` says so.
    public let isOpaque: Bool

    /// A context of `pixelWidth` x `pixelHeight` pixels, transparent or filled with `fill`.
    /// `scale` is pixels per point (must be > 0).
    public init(pixelWidth: Int, pixelHeight: Int, scale: CGFloat = 1, fill: Color? = nil) {
        precondition(pixelWidth >= 0 && pixelHeight >= 0, "negative context size")
        precondition(scale > 0 && scale.isFinite, "context scale must be positive")
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        if let fill {
            pixels = Bitmap(width: pixelWidth, height: pixelHeight, fill: fill).pixels
            isOpaque = fill.alpha >= 1
        } else {
            pixels = [UInt8](repeating: 0, count: pixelWidth * pixelHeight * 4)
            isOpaque = false
        }
        let s = Double(scale)
        let full = DeviceRect(x0: 0, y0: 0, x1: Double(pixelWidth), y1: Double(pixelHeight))
        state = State(
            sx: s, sy: s, tx: 0, ty: 0, clip: full,
            clipBox: PixelBox(x0: 0, y0: 0, x1: pixelWidth, y1: pixelHeight), mask: nil, alpha: 1)
        coverage = .allocate(capacity: pixelWidth + 2)
        coverage.initialize(repeating: 0, count: pixelWidth + 2)
        coverageSteps = .allocate(capacity: pixelWidth + 2)
        coverageSteps.initialize(repeating: 0, count: pixelWidth + 2)
    }

    /// The largest side a context has, in pixels; larger (or non-finite) sizes are clamped.
    public static let maximumPixelSide = 32768

    /// A context `size` points big: ceil(size * scale) pixels (each side at most
    /// `maximumPixelSide`; a non-finite size or scale gives an empty context).
    public convenience init(size: CGSize, scale: CGFloat = 1, fill: Color? = nil) {
        // A hair of tolerance so that e.g. 100.1 * 10 = 1001.0000000000001 stays 1001 pixels.
        func pixels(_ v: CGFloat) -> Int {
            let p = Double(v * scale) - 1e-9
            guard p.isFinite, p > 0 else { return 0 }
            return min(Self.maximumPixelSide, Int(min(p, Double(Self.maximumPixelSide)).rounded(.up)))
        }
        self.init(pixelWidth: pixels(size.width), pixelHeight: pixels(size.height), scale: scale, fill: fill)
    }

    deinit {
        coverage.deallocate()
        coverageSteps.deallocate()
    }

    // MARK: - State

    /// Pushes a copy of the state (transform, clip, alpha).
    public func saveState() {
        savedStates.append(state)
    }

    /// Pops the state saved by the matching `saveState()`. Without a saved state it does nothing
    /// (unlike Core Graphics it does not complain).
    public func restoreState() {
        if let last = savedStates.popLast() { state = last }
    }

    /// Runs `body` between `saveState()` and `restoreState()`.
    public func withSavedState<R>(_ body: () throws -> R) rethrows -> R {
        saveState()
        defer { restoreState() }
        return try body()
    }

    /// Moves the user-space origin by (x, y) points of the current user space.
    public func translateBy(x: CGFloat, y: CGFloat) {
        guard x.isFinite, y.isFinite else { return }  // a non-finite transform would draw nothing sensible
        state.tx += state.sx * Double(x)
        state.ty += state.sy * Double(y)
    }

    /// Scales user space. Negative factors mirror where rects and gradients land; bitmaps are
    /// placed in the mirrored rect but not flipped.
    public func scaleBy(x: CGFloat, y: CGFloat) {
        guard x.isFinite, y.isFinite else { return }
        state.sx *= Double(x)
        state.sy *= Double(y)
    }

    /// Intersects the clip with `rect` (exactly: fractional edges give partial coverage).
    public func clip(to rect: CGRect) {
        let d = deviceRect(rect)
        state.clip = state.clip.intersection(d)
        state.clipBox = state.clipBox.intersection(state.clip.pixelBox)
    }

    /// Intersects the clip with an anti-aliased rounded rect (its coverage multiplies the clip's).
    public func clip(toRoundedRect rect: CGRect, cornerRadius: CGFloat) {
        let shape = roundedShape(rect, cornerRadius: cornerRadius)
        let box = state.clipBox.intersection(shape.bounds.pixelBox)
        let w = pixelWidth
        var mask = [UInt8](repeating: 0, count: w * pixelHeight)
        if !box.isEmpty {
            let everything = DeviceRect(x0: 0, y0: 0, x1: Double(pixelWidth), y1: Double(pixelHeight))
            let old = state.mask
            mask.withUnsafeMutableBufferPointer { m in
                for j in box.y0..<box.y1 {
                    RoundShape.measure(
                        row: j, of: shape, minus: nil, clip: everything, box: box,
                        coverage: coverage, steps: coverageSteps)
                    let line = j * w
                    for i in box.x0..<box.x1 {
                        var c = min(1, max(0, coverage[i])) * 255
                        if let old { c *= Float(old[line + i]) * (1 / 255) }
                        m[line + i] = UInt8(c + 0.5)
                    }
                }
            }
        }
        state.mask = mask
        state.clipBox = box
    }

    /// The opacity every drawing is multiplied by (part of the saved state), 0...1.
    public var alpha: CGFloat {
        get { CGFloat(state.alpha) }
        set { state.alpha = newValue.isNaN ? 0 : min(1, max(0, Double(newValue))) }
    }

    // MARK: - Shapes

    /// Fills `rect` (anti-aliased by exact area coverage).
    public func fill(_ rect: CGRect, with color: Color) {
        guard rect.hasFiniteGeometry else { return }
        fillShapes(RoundShape(deviceRect(rect)), minus: nil, color: color)
    }

    /// Fills a rect with circular corners of `cornerRadius` (clamped to half the shorter side).
    public func fillRoundedRect(_ rect: CGRect, cornerRadius: CGFloat, with color: Color) {
        guard rect.hasFiniteGeometry else { return }
        fillShapes(roundedShape(rect, cornerRadius: cornerRadius), minus: nil, color: color)
    }

    /// Strokes the outline of `rect` with a line `lineWidth` wide centred on the edge, as Core
    /// Graphics does (for a 1 pt border inside a rect, stroke `rect.insetBy(dx: 0.5, dy: 0.5)`).
    public func stroke(_ rect: CGRect, with color: Color, lineWidth: CGFloat) {
        strokeRoundedRect(rect, cornerRadius: 0, with: color, lineWidth: lineWidth)
    }

    /// Strokes a rounded rect's outline centred on the edge: the outer edge has radius
    /// `cornerRadius + lineWidth / 2`, the inner `cornerRadius - lineWidth / 2` (square when that is ≤ 0).
    /// With `cornerRadius` 0 both edges are square, as a mitred Core Graphics rect stroke.
    public func strokeRoundedRect(_ rect: CGRect, cornerRadius: CGFloat, with color: Color, lineWidth: CGFloat) {
        guard rect.hasFiniteGeometry, lineWidth > 0, lineWidth.isFinite else { return }
        let r = rect.standardized
        let radius = clampedRadius(cornerRadius, r)
        let half = lineWidth / 2
        // Square corners stay square outside (mitred joins); round ones grow by half the line.
        let outer = roundedShape(r.insetBy(dx: -half, dy: -half), cornerRadius: radius > 0 ? radius + half : 0, clamp: false)
        let innerRect = r.insetBy(dx: half, dy: half)
        var inner: RoundShape?
        if r.width > lineWidth && r.height > lineWidth {
            inner = roundedShape(innerRect, cornerRadius: max(0, radius - half), clamp: false)
        }
        fillShapes(outer, minus: inner, color: color)
    }

    private func fillShapes(_ shape: RoundShape, minus hole: RoundShape?, color: Color) {
        let paint = color.premultipliedFloats
        guard paint.w > 0, state.alpha > 0 else { return }
        let box = state.clipBox.intersection(shape.bounds.pixelBox)
        guard !box.isEmpty else { return }
        let w = pixelWidth
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for j in box.y0..<box.y1 {
                rowCoverage(j, shape: shape, minus: hole, box: box)
                Self.blend(color: paint, row: base + j * w * 4, coverage: coverage, box: box)
            }
        }
    }

    // MARK: - Images

    /// Draws a bitmap into `rect` with a content mode; `cropRect` is Texture's ImageNode cropRect:
    /// a unit rect of the source to feature; when empty, only its origin positions an aspectFill crop
    /// (the default, (0.5, 0.5, 0, 0), centres it). Downscales by area averaging, upscales bilinearly.
    ///
    /// The image is sized in points (`bitmap.size`, pixels / `bitmap.scale`) for the content modes
    /// that keep its size, and is always clipped to `rect`. A non-empty `cropRect` (clamped to the
    /// unit square) is treated as the whole image. Pixel-aligned, same-size drawing copies pixels
    /// straight through.
    public func draw(
        _ bitmap: Bitmap, in rect: CGRect, contentMode: ContentMode = .scaleToFill,
        cropRect: CGRect = CGRect(x: 0.5, y: 0.5, width: 0, height: 0)
    ) {
        guard bitmap.width > 0, bitmap.height > 0, rect.hasFiniteGeometry, cropRect.hasFiniteGeometry else { return }
        var region = CGRect(x: 0, y: 0, width: bitmap.width, height: bitmap.height)
        var alignment = CGPoint(x: 0.5, y: 0.5)
        let crop = cropRect.standardized
        if crop.width > 0 && crop.height > 0 {
            let unit = crop.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
            guard !unit.isNull, unit.width > 0, unit.height > 0 else { return }
            region = CGRect(
                x: unit.minX * CGFloat(bitmap.width), y: unit.minY * CGFloat(bitmap.height),
                width: unit.width * CGFloat(bitmap.width), height: unit.height * CGFloat(bitmap.height))
        } else {
            alignment = crop.origin
        }
        let contentSize = CGSize(width: region.width / bitmap.scale, height: region.height / bitmap.scale)
        let frame = contentMode.frame(forContentSize: contentSize, in: rect, alignment: alignment)
        drawImage(bitmap, region: region, frame: frame, clippedTo: rect, mask: nil)
    }

    /// Fills `color` through the alpha channel of `mask` placed in `rect` (e.g. a line of text's glyphs).
    ///
    /// Only the mask's alpha counts (as coverage); it is stretched to `rect` with the same filters
    /// as `draw(_:in:)`, whatever the mask's scale.
    public func fill(mask: Bitmap, in rect: CGRect, with color: Color) {
        guard mask.width > 0, mask.height > 0, rect.hasFiniteGeometry else { return }
        let region = CGRect(x: 0, y: 0, width: mask.width, height: mask.height)
        drawImage(mask, region: region, frame: rect.standardized, clippedTo: rect, mask: color)
    }

    /// Draws `region` (source pixels) of `bitmap` stretched onto `frame` (user space), only inside
    /// `clipRect`. With `mask` set, the bitmap's alpha is coverage for that colour instead.
    private func drawImage(_ bitmap: Bitmap, region: CGRect, frame: CGRect, clippedTo clipRect: CGRect, mask: Color?) {
        guard state.alpha > 0 else { return }
        let dest = deviceRect(frame)
        guard dest.x1 > dest.x0, dest.y1 > dest.y0 else { return }
        let visible = dest.intersection(deviceRect(clipRect))
        let shape = RoundShape(visible)
        let box = state.clipBox.intersection(visible.pixelBox)
        guard !box.isEmpty else { return }
        var solid = SIMD4<Float>(repeating: 0)
        if let mask {
            solid = mask.premultipliedFloats
            guard solid.w > 0 else { return }
        }
        let w = pixelWidth
        let sx0 = Double(region.minX), sy0 = Double(region.minY)
        let sx1 = Double(region.maxX), sy1 = Double(region.maxY)

        // Fast path: pixel-aligned and the same size as the source region.
        func isWhole(_ v: Double) -> Bool { abs(v - v.rounded()) < 1e-9 }
        if isWhole(dest.x0), isWhole(dest.y0), isWhole(sx0), isWhole(sy0),
            abs((dest.x1 - dest.x0) - (sx1 - sx0)) < 1e-9, abs((dest.y1 - dest.y0) - (sy1 - sy0)) < 1e-9
        {
            let dx = Int(sx0.rounded()) - Int(dest.x0.rounded())
            let dy = Int(sy0.rounded()) - Int(dest.y0.rounded())
            let bpr = bitmap.bytesPerRow
            pixels.withUnsafeMutableBufferPointer { buffer in
                bitmap.pixels.withUnsafeBufferPointer { source in
                    let base = buffer.baseAddress!, src = source.baseAddress!
                    for j in box.y0..<box.y1 {
                        rowCoverage(j, shape: shape, minus: nil, box: box)
                        let srcRow = src + (j + dy) * bpr + (box.x0 + dx) * 4
                        if mask == nil {
                            Self.blend(image: srcRow, row: base + j * w * 4, coverage: coverage, box: box)
                        } else {
                            Self.blend(color: solid, alphaOf: srcRow, row: base + j * w * 4, coverage: coverage, box: box)
                        }
                    }
                }
            }
            return
        }

        let xw = AxisWeights(
            outputs: box.x0..<box.x1, destination: dest.x0...dest.x1,
            source: sx0...sx1, sourceCount: bitmap.width)
        let yw = AxisWeights(
            outputs: box.y0..<box.y1, destination: dest.y0...dest.y1,
            source: sy0...sy1, sourceCount: bitmap.height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            SeparableResampler.run(bitmap, x: xw, y: yw) { o, values in
                let j = box.y0 + o
                rowCoverage(j, shape: shape, minus: nil, box: box)
                let row = base + j * w * 4
                if mask == nil {
                    Self.blend(pixels: values, row: row, coverage: coverage, box: box)
                } else {
                    Self.blend(color: solid, alphaOfPixels: values, row: row, coverage: coverage, box: box)
                }
            }
        }
    }

    // MARK: - Gradients

    /// Draws a linear gradient from `start` to `end` (user space) over the whole clip region:
    /// colour is constant along lines perpendicular to start→end. Outside [start, end] nothing is
    /// drawn unless `options` extends the end colours (as Core Graphics). Both ends are
    /// anti-aliased. A gradient with no stops, or with `start == end`, draws nothing.
    public func drawLinearGradient(
        _ gradient: Gradient, from start: CGPoint, to end: CGPoint,
        options: GradientDrawingOptions = []
    ) {
        let sampler = GradientSampler(gradient)
        guard !sampler.isEmpty, state.alpha > 0 else { return }
        let dx = Double(end.x - start.x), dy = Double(end.y - start.y)
        let length2 = dx * dx + dy * dy
        guard length2 > 0, length2.isFinite, state.sx != 0, state.sy != 0 else { return }
        // t at device (X, Y): user point ((X - tx) / sx, (Y - ty) / sy) projected on start→end.
        let a = dx / (state.sx * length2), b = dy / (state.sy * length2)
        let c = -(state.tx / state.sx + Double(start.x)) * dx / length2 - (state.ty / state.sy + Double(start.y)) * dy / length2
        // How much t changes across one pixel; the ends are smoothed over that much.
        let spread = abs(a) + abs(b)
        let invSpread = Float(1 / spread)
        let before = options.contains(.drawsBeforeStart), after = options.contains(.drawsAfterEnd)
        let box = state.clipBox
        guard !box.isEmpty else { return }
        let shape = RoundShape(state.clip)
        let w = pixelWidth
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for j in box.y0..<box.y1 {
                rowCoverage(j, shape: shape, minus: nil, box: box)
                let row = base + j * w * 4
                let rowT = b * (Double(j) + 0.5) + c
                for i in box.x0..<box.x1 {
                    var k = coverage[i]
                    if k <= 0 { continue }
                    let t = Float(a * (Double(i) + 0.5) + rowT)
                    if !before { k *= min(1, max(0, t * invSpread + 0.5)) }
                    if !after { k *= min(1, max(0, (1 - t) * invSpread + 0.5)) }
                    if k <= 0 { continue }
                    Self.blendPixel(row + i * 4, sampler.color(at: t), k)
                }
            }
        }
    }

    // MARK: - Output

    /// The finished image. The context may go on drawing after; the bitmap does not change
    /// (the pixel array is shared copy-on-write).
    public func makeBitmap() -> Bitmap {
        Bitmap(width: pixelWidth, height: pixelHeight, scale: scale, isOpaque: isOpaque, pixels: pixels)
    }

    // MARK: - Geometry

    private struct State {
        /// Device = user * s + t (scale includes the context's).
        var sx: Double, sy: Double, tx: Double, ty: Double
        /// The exact rect clip, in device space.
        var clip: DeviceRect
        /// Pixels that may be touched at all: the rect clip and every rounded clip's bounds.
        var clipBox: PixelBox
        /// Coverage 0...255 of the rounded-rect clips, `pixelWidth * pixelHeight`, or nil for none.
        var mask: [UInt8]?
        var alpha: Double
    }

    private func deviceRect(_ rect: CGRect) -> DeviceRect {
        let r = rect.standardized
        guard r.hasFiniteGeometry else { return DeviceRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        let ax = Double(r.minX) * state.sx + state.tx, bx = Double(r.maxX) * state.sx + state.tx
        let ay = Double(r.minY) * state.sy + state.ty, by = Double(r.maxY) * state.sy + state.ty
        return DeviceRect(x0: min(ax, bx), y0: min(ay, by), x1: max(ax, bx), y1: max(ay, by))
    }

    private func clampedRadius(_ radius: CGFloat, _ rect: CGRect) -> CGFloat {
        guard radius > 0, radius.isFinite else { return 0 }
        return min(radius, rect.width / 2, rect.height / 2)
    }

    private func roundedShape(_ rect: CGRect, cornerRadius: CGFloat, clamp: Bool = true) -> RoundShape {
        let r = rect.standardized
        let radius = clamp ? clampedRadius(cornerRadius, r) : max(0, cornerRadius)
        var shape = RoundShape(deviceRect(r))
        shape.rx = min(Double(radius) * abs(state.sx), (shape.x1 - shape.x0) / 2)
        shape.ry = min(Double(radius) * abs(state.sy), (shape.y1 - shape.y0) / 2)
        return shape
    }

    // MARK: - Coverage

    /// Fills `coverage[box.x0..<box.x1]` with `k = coverage * clip * alpha` (0...1) for row `j` of
    /// `shape` minus `hole` (0 where the row is untouched; the blends skip those pixels).
    private func rowCoverage(_ j: Int, shape: RoundShape, minus hole: RoundShape?, box: PixelBox) {
        RoundShape.measure(
            row: j, of: shape, minus: hole, clip: state.clip, box: box,
            coverage: coverage, steps: coverageSteps)
        let alpha = Float(state.alpha)
        if let mask = state.mask {
            mask.withUnsafeBufferPointer { m in
                let line = m.baseAddress! + j * pixelWidth
                let f = alpha / 255
                for i in box.x0..<box.x1 { coverage[i] = min(1, max(0, coverage[i])) * Float(line[i]) * f }
            }
        } else {
            for i in box.x0..<box.x1 { coverage[i] = min(1, max(0, coverage[i])) * alpha }
        }
    }

    // MARK: - Compositing

    /// Source-over of premultiplied `src` (0...255) with weight `k` onto the pixel at `p`.
    @inline(__always)
    private static func blendPixel(_ p: UnsafeMutablePointer<UInt8>, _ src: SIMD4<Float>, _ k: Float) {
        let keep = 1 - src.w * k / 255  // a division, so that e.g. 127.5 / 255 is exactly 0.5
        storePixel(src * k + loadPixel(p) * keep, to: p)
    }

    private static func blend(
        color: SIMD4<Float>, row: UnsafeMutablePointer<UInt8>,
        coverage: UnsafeMutablePointer<Float>, box: PixelBox
    ) {
        for i in box.x0..<box.x1 {
            let k = coverage[i]
            if k <= 0 { continue }
            if k >= 1 && color.w >= 255 {
                storePixel(color, to: row + i * 4)
            } else {
                blendPixel(row + i * 4, color, k)
            }
        }
    }

    /// `src` points at the source pixel for device x = box.x0.
    private static func blend(
        image src: UnsafePointer<UInt8>, row: UnsafeMutablePointer<UInt8>,
        coverage: UnsafeMutablePointer<Float>, box: PixelBox
    ) {
        for i in box.x0..<box.x1 {
            let k = coverage[i]
            if k <= 0 { continue }
            let s = src + (i - box.x0) * 4
            if k >= 1 && s[3] == 255 {
                (row + i * 4).update(from: s, count: 4)
            } else if s[3] != 0 || s[0] != 0 || s[1] != 0 || s[2] != 0 {
                blendPixel(row + i * 4, loadPixel(s), k)
            }
        }
    }

    private static func blend(
        color: SIMD4<Float>, alphaOf src: UnsafePointer<UInt8>, row: UnsafeMutablePointer<UInt8>,
        coverage: UnsafeMutablePointer<Float>, box: PixelBox
    ) {
        for i in box.x0..<box.x1 {
            let k = coverage[i] * Float(src[(i - box.x0) * 4 + 3]) * (1 / 255)
            if k > 0 { blendPixel(row + i * 4, color, k) }
        }
    }

    /// `values[0]` is the pixel for device x = box.x0.
    private static func blend(
        pixels values: UnsafePointer<SIMD4<Float>>, row: UnsafeMutablePointer<UInt8>,
        coverage: UnsafeMutablePointer<Float>, box: PixelBox
    ) {
        for i in box.x0..<box.x1 {
            let k = coverage[i]
            if k > 0 { blendPixel(row + i * 4, values[i - box.x0], k) }
        }
    }

    private static func blend(
        color: SIMD4<Float>, alphaOfPixels values: UnsafePointer<SIMD4<Float>>,
        row: UnsafeMutablePointer<UInt8>, coverage: UnsafeMutablePointer<Float>, box: PixelBox
    ) {
        for i in box.x0..<box.x1 {
            let k = coverage[i] * min(1, values[i - box.x0].w * (1 / 255))
            if k > 0 { blendPixel(row + i * 4, color, k) }
        }
    }
}

@available(*, unavailable, message: "a GraphicsContext belongs to one thread; make one per worker")
extension GraphicsContext: Sendable {}

/// A rect in device pixels (x0 ≤ x1, y0 ≤ y1 unless empty).
struct DeviceRect {
    var x0: Double, y0: Double, x1: Double, y1: Double

    func intersection(_ o: DeviceRect) -> DeviceRect {
        DeviceRect(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
    }

    /// The pixels the rect touches (possibly empty).
    var pixelBox: PixelBox {
        guard x1 > x0, y1 > y0 else { return PixelBox(x0: 0, y0: 0, x1: 0, y1: 0) }
        func lo(_ v: Double) -> Int { Int(max(-1, min(Double(Int32.max), v.rounded(.down)))) }
        func hi(_ v: Double) -> Int { Int(max(-1, min(Double(Int32.max), v.rounded(.up)))) }
        return PixelBox(x0: lo(x0), y0: lo(y0), x1: hi(x1), y1: hi(y1))
    }
}

/// A range of whole pixels, [x0, x1) x [y0, y1).
struct PixelBox {
    var x0: Int, y0: Int, x1: Int, y1: Int

    var isEmpty: Bool { x0 >= x1 || y0 >= y1 }

    func intersection(_ o: PixelBox) -> PixelBox {
        let r = PixelBox(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
        return r.isEmpty ? PixelBox(x0: 0, y0: 0, x1: 0, y1: 0) : r
    }
}

/// A device-space rect with elliptic corners of radii (rx, ry) (zero for a plain rect).
///
/// Package access: CanopySDL's compositor cuts its rounded masks with `coverage(ofRow:minus:into:)`,
/// so that a rounded layer composited there has the very edges of one rasterized here, from one
/// routine rather than a copy that could drift.
package struct RoundShape {
    var x0: Double, y0: Double, x1: Double, y1: Double
    var rx: Double = 0, ry: Double = 0

    init(_ r: DeviceRect) {
        x0 = r.x0; y0 = r.y0; x1 = r.x1; y1 = r.y1
    }

    /// A rect of device pixels with circular corners of `radius` pixels, clamped to half the
    /// shorter side (as `fillRoundedRect` clamps it).
    package init(x0: Double, y0: Double, x1: Double, y1: Double, radius: Double) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
        let r = max(0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
        rx = r
        ry = r
    }

    var bounds: DeviceRect { DeviceRect(x0: x0, y0: y0, x1: x1, y1: y1) }

    /// Sub-rows per pixel row where a corner curves.
    static let subRows = 16

    /// Adds `weight` times the area of (shape ∩ clip) within each pixel of row `j` to `coverage`
    /// (partial pixels directly, whole pixels as steps into `steps`, summed later). Straight edges
    /// are exact; along curves each of 16 sub-rows uses the exact span at its middle.
    func accumulate(
        row j: Int, clip: DeviceRect, weight: Float, box: PixelBox,
        coverage: UnsafeMutablePointer<Float>, steps: UnsafeMutablePointer<Float>
    ) {
        let rowTop = Double(j), rowBottom = Double(j + 1)
        let top = max(rowTop, y0, clip.y0), bottom = min(rowBottom, y1, clip.y1)
        guard top < bottom else { return }
        let left = max(x0, clip.x0, Double(box.x0)), right = min(x1, clip.x1, Double(box.x1))
        guard left < right else { return }
        let curved = rx > 0 && ry > 0 && (top < y0 + ry || bottom > y1 - ry)
        if !curved {
            Self.span(left, right, weight * Float(bottom - top), box, coverage, steps)
            return
        }
        let n = Self.subRows
        let h = 1 / Double(n)
        for s in 0..<n {
            let a = max(top, rowTop + Double(s) * h), b = min(bottom, rowTop + Double(s + 1) * h)
            if a >= b { continue }
            let y = (a + b) / 2
            var l = left, r = right
            var d = 0.0
            if y < y0 + ry { d = (y0 + ry - y) / ry } else if y > y1 - ry { d = (y - (y1 - ry)) / ry }
            if d > 0 {
                let half = rx * (max(0, 1 - d * d)).squareRoot()
                l = max(l, x0 + rx - half)
                r = min(r, x1 - rx + half)
            }
            Self.span(l, r, weight * Float(b - a), box, coverage, steps)
        }
    }

    /// Sets `coverage[box.x0..<box.x1]` to how much of each pixel of row `j` (`shape` less `hole`)
    /// ∩ `clip` covers, not yet clamped to 0...1. `coverage` holds at least `box.x1` values and
    /// `steps` `box.x1 + 1`, zero over `box.x0...box.x1` (and left so). The one measure of
    /// coverage: the context's fills, strokes, images and rounded clips use it, and other modules
    /// through `coverage(ofRow:minus:into:)`.
    static func measure(
        row j: Int, of shape: RoundShape, minus hole: RoundShape?, clip: DeviceRect, box: PixelBox,
        coverage: UnsafeMutablePointer<Float>, steps: UnsafeMutablePointer<Float>
    ) {
        for i in box.x0..<box.x1 { coverage[i] = 0 }
        shape.accumulate(row: j, clip: clip, weight: 1, box: box, coverage: coverage, steps: steps)
        hole?.accumulate(row: j, clip: clip, weight: -1, box: box, coverage: coverage, steps: steps)
        // Turns the accumulated steps into coverage and clears them.
        var run: Float = 0
        for i in box.x0..<box.x1 {
            run += steps[i]
            steps[i] = 0
            coverage[i] += run
        }
        steps[box.x1] = 0
    }

    /// Sets `row[x]` to how much of pixel (x, `j`) this shape less `hole` covers, 0...1, for x in
    /// `0..<row.count`: the coverage a context's fill of the shape gives that pixel. Pixels left
    /// of 0 are not measured; place the shape relative to the first one wanted.
    package func coverage(ofRow j: Int, minus hole: RoundShape? = nil, into row: inout [Float]) {
        let count = row.count
        let box = PixelBox(x0: 0, y0: j, x1: count, y1: j + 1)
        let clip = DeviceRect(x0: 0, y0: Double(j), x1: Double(count), y1: Double(j + 1))
        withUnsafeTemporaryAllocation(of: Float.self, capacity: count + 1) { steps in
            steps.initialize(repeating: 0)
            row.withUnsafeMutableBufferPointer { values in
                guard let coverage = values.baseAddress else { return }
                Self.measure(
                    row: j, of: self, minus: hole, clip: clip, box: box, coverage: coverage,
                    steps: steps.baseAddress!)
                for x in 0..<count { values[x] = min(1, max(0, values[x])) }
            }
        }
    }

    /// Adds `w` times the overlap of [l, r) with each pixel.
    @inline(__always)
    private static func span(
        _ l: Double, _ r: Double, _ w: Float, _ box: PixelBox,
        _ coverage: UnsafeMutablePointer<Float>, _ steps: UnsafeMutablePointer<Float>
    ) {
        guard l < r else { return }
        let il = Int(l.rounded(.down)), ir = Int(r.rounded(.down))
        if il == ir {
            coverage[il] += w * Float(r - l)
            return
        }
        coverage[il] += w * Float(Double(il + 1) - l)
        if il + 1 < ir {
            steps[il + 1] += w
            steps[ir] -= w
        }
        if ir < box.x1 { coverage[ir] += w * Float(r - Double(ir)) }
    }
}

extension CGRect {
    /// No NaN or infinity (CGRect.null and .infinite included), so the rect can be rasterised.
    fileprivate var hasFiniteGeometry: Bool {
        origin.x.isFinite && origin.y.isFinite && size.width.isFinite && size.height.isFinite
    }
}
