import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// Draws a Layer tree with an SDL renderer. Main thread only (SDL's rule for renderers).
///
/// Each layer with contents has its own texture, its `backing`. New contents are uploaded
/// through a `RunLoopQueue` that runs just before the compositor in the turn, within
/// `uploadBudget` seconds a frame (at least one upload a frame); a layer whose new contents
/// are still waiting keeps drawing its old texture. Textures are released through the same
/// queue when contents are cleared or replaced and when their layer is gone. Bitmaps drawn
/// directly (`drawBitmap`, the overlays) have a small cache of their own, uploaded at once.
///
/// Bitmaps are premultiplied. Where the renderer supports a custom blend mode (OpenGL, GLES,
/// Direct3D) they are drawn with (ONE, ONE_MINUS_SRC_ALPHA); where it does not (the software
/// renderer) they are uploaded with straight alpha and drawn with ordinary blending, so the
/// colour is right on every renderer.
///
/// Layers follow Core Animation: a corner radius rounds the background and the border, and, on
/// a layer that clips to its bounds, the clip too. A rounded clip is drawn offscreen: the
/// layer's visible part goes into a target texture (premultiplied, starting transparent),
/// whose corners are then cut by the layer's rounded mask and which is drawn back over what
/// is below. Alpha still multiplies per layer inside it (no group opacity), so only the
/// corners change.
@MainActor
public final class Compositor {
    /// The default upload budget: 4 ms a frame. Measured on the reference machine (docs/
    /// ARCHITECTURE.md, "Uploads"): a card's 320 x 480 pt texture uploads in about 0.25 ms at
    /// 1x and 1.1 ms at 2x, so 4 ms uploads about 16 cards a frame at 1x, 4 at 2x, and still
    /// leaves half of a 120 Hz frame (8.3 ms) for everything else.
    public static let defaultUploadBudget: TimeInterval = 0.004

    let renderer: OpaquePointer
    /// Pixels per point.
    public var scale: CGFloat = 1
    /// The bytes held by textures (layers' and overlays').
    public private(set) var textureBytes = 0 {
        didSet { textureBytesPeak = max(textureBytesPeak, textureBytes) }
    }
    /// The most `textureBytes` has been since the compositor was made or `resetTextureBytesPeak()`.
    public private(set) var textureBytesPeak = 0

    /// The bytes held by the compositor's own scratch textures, not counted in `textureBytes`:
    /// offscreen targets for rounded clips and the masks of rounded corners and borders, each
    /// kept until `evictionAge` frames after its last use.
    public private(set) var scratchTextureBytes = 0

    /// Starts a new peak from the bytes held now (a benchmark run's own peak).
    public func resetTextureBytesPeak() {
        textureBytesPeak = textureBytes
    }
    /// Whether premultiplied bitmaps are drawn with a custom blend mode.
    public let usesPremultipliedBlending: Bool

    /// The most time a frame spends uploading and releasing textures, in seconds.
    public var uploadBudget: TimeInterval {
        get { workQueue.budget }
        set { workQueue.budget = newValue }
    }
    /// Uploads waiting for a later frame.
    public var pendingUploads: Int { workQueue.count }
    /// Told of every layer upload: the bytes and the seconds it took (`bench --scenario display`).
    public var uploadObserver: ((_ bytes: Int, _ seconds: TimeInterval) -> Void)?

    /// A layer's texture.
    final class TextureBacking: LayerBacking {
        let bitmap: Bitmap
        let texture: OpaquePointer
        let bytes: Int
        weak var layer: Layer?
        init(bitmap: Bitmap, texture: OpaquePointer, bytes: Int, layer: Layer) {
            self.bitmap = bitmap
            self.texture = texture
            self.bytes = bytes
            self.layer = layer
        }
    }

    private struct Entry {
        weak var bitmap: Bitmap?
        var texture: OpaquePointer
        var bytes: Int
        var lastUsedFrame: Int
    }
    /// Textures of bitmaps drawn directly, by bitmap.
    private var textures: [ObjectIdentifier: Entry] = [:]
    /// Every live layer texture, by backing.
    private var backings: [ObjectIdentifier: TextureBacking] = [:]
    /// Layers to upload and backings to release, in order, within the budget.
    private var workQueue: RunLoopQueue<AnyObject>!
    private var masks: [MaskKey: MaskEntry] = [:]
    private var frameNumber = 0
    private let premultipliedMode: SDL_BlendMode
    private var clipStack: [SDL_Rect] = []
    /// Directly drawn textures unused for this many frames are released.
    public var evictionAge = 120

    /// A rounded rect's mask (`border` 0), or its border's ring (`border` pixels wide).
    private struct MaskKey: Hashable {
        var width: Int; var height: Int; var radius: Int; var border: Int = 0
        var bytes: Int { width * height * 4 }
    }
    private struct MaskEntry { var texture: OpaquePointer; var lastUsedFrame: Int }

    /// Multiplies the destination, colour and alpha, by the source's alpha: a mask cutting what is
    /// drawn in a target texture (renderers with custom blend modes only).
    private let maskMode: SDL_BlendMode
    private let usesMaskBlending: Bool
    /// A target texture of the pool; several at once when rounded clips nest.
    private struct PooledTarget {
        var texture: OpaquePointer; var width: Int; var height: Int; var inUse: Bool; var lastUsedFrame: Int
        var bytes: Int { width * height * 4 }
    }
    private var targetPool: [PooledTarget] = []
    /// The offscreen target being drawn into for a rounded clip: its place in window pixels
    /// (`rect`), the clipping layer's rect and corner radius in pixels, and its pool index.
    private struct Offscreen { var rect: SDL_Rect; var layerRect: SDL_Rect; var radius: Int; var pool: Int }
    private var offscreens: [Offscreen] = []
    /// The renderer's output in pixels, for the frame being drawn.
    private var outputRect = SDL_Rect()

    /// A compositor drawing with `renderer`, whose uploads run in `runLoop`'s `beforePresent`
    /// phase at `uploadOrder` (the application composites after them, in the same turn).
    init(renderer: OpaquePointer, runLoop: FrameLoop, uploadOrder: Int = Int.max - 1) {
        self.renderer = renderer
        premultipliedMode = SDL_ComposeCustomBlendMode(
            SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD,
            SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD)
        var supported = false
        if let probe = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                         Int32(SDL_TEXTUREACCESS_STATIC.rawValue), 1, 1) {
            supported = SDL_SetTextureBlendMode(probe, premultipliedMode) == 0
            SDL_DestroyTexture(probe)
        }
        usesPremultipliedBlending = supported
        maskMode = SDL_ComposeCustomBlendMode(
            SDL_BLENDFACTOR_ZERO, SDL_BLENDFACTOR_SRC_ALPHA, SDL_BLENDOPERATION_ADD,
            SDL_BLENDFACTOR_ZERO, SDL_BLENDFACTOR_SRC_ALPHA, SDL_BLENDOPERATION_ADD)
        var masks = false
        if supported, let probe = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                                    Int32(SDL_TEXTUREACCESS_STATIC.rawValue), 1, 1) {
            masks = SDL_SetTextureBlendMode(probe, maskMode) == 0
            SDL_DestroyTexture(probe)
        }
        usesMaskBlending = masks
        workQueue = RunLoopQueue(runLoop: runLoop, budget: Self.defaultUploadBudget, phase: .beforePresent,
                                 order: uploadOrder) { [unowned self] item, _ in
            if let layer = item as? Layer {
                self.upload(layer)
            } else if let backing = item as? TextureBacking {
                self.destroy(backing)
            }
        }
        workQueue.traceName = "upload"
    }

    /// Makes `layer` the root of the layer trees this compositor uploads for: a change of
    /// contents anywhere below it is queued for upload (or release) at once.
    func observeContents(of layer: Layer) {
        layer.contentsChangeHandler = { [unowned self] changed in self.contentsChanged(changed) }
    }

    // MARK: Uploads and releases

    /// New contents on `layer`: queue their upload, or release the old texture if none.
    func contentsChanged(_ layer: Layer) {
        if layer.contents == nil {
            workQueue.remove(layer)
            if let old = layer.backing as? TextureBacking {
                layer.backing = nil
                retire(old)
            }
        } else if layer.prefersImmediateUpload {
            workQueue.remove(layer)
            upload(layer)
        } else if !layer.isContentsPresented {
            workQueue.enqueue(layer)
        }
    }

    /// Uploads a layer's contents as its new texture (the queue's handler); the old one goes.
    private func upload(_ layer: Layer) {
        guard !layer.isContentsPresented else { return }
        let old = layer.backing as? TextureBacking
        guard let bitmap = layer.contents else {
            layer.backing = nil
            if let old { destroy(old) }
            return
        }
        let start = MonotonicClock.now()
        let traced = Tracer.shared.begin("texture \(layer.name ?? "layer")", category: "upload")
        defer { Tracer.shared.end(traced) }
        guard let texture = makeTexture(bitmap) else { return }
        let bytes = bitmap.width * bitmap.height * 4
        let backing = TextureBacking(bitmap: bitmap, texture: texture, bytes: bytes, layer: layer)
        backings[ObjectIdentifier(backing)] = backing
        textureBytes += bytes
        layer.backing = backing
        if let old { destroy(old) }
        uploadObserver?(bytes, MonotonicClock.now() - start)
    }

    /// Takes a backing out of use and queues its texture's release.
    private func retire(_ backing: TextureBacking) {
        guard backings[ObjectIdentifier(backing)] != nil else { return }
        workQueue.enqueue(backing)
    }

    /// Destroys a backing's texture now (in the queue's turn, or when replaced by an upload).
    private func destroy(_ backing: TextureBacking) {
        guard backings.removeValue(forKey: ObjectIdentifier(backing)) != nil else { return }
        workQueue.remove(backing)
        SDL_DestroyTexture(backing.texture)
        textureBytes -= backing.bytes
    }

    /// Starts a frame: clears to `color`.
    func beginFrame(clearColor color: Color) {
        frameNumber += 1
        if !offscreens.isEmpty {
            offscreens.removeAll()
            SDL_SetRenderTarget(renderer, nil)
        }
        for index in targetPool.indices { targetPool[index].inUse = false }
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        outputRect = SDL_Rect(x: 0, y: 0, w: w, h: h)
        let c = color.rgba8
        SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a)
        SDL_RenderSetClipRect(renderer, nil)
        clipStack.removeAll(keepingCapacity: true)  // every frame pushes clips again
        SDL_RenderClear(renderer)
    }

    /// Releases direct textures whose bitmaps are gone or unused for `evictionAge` frames, and
    /// queues the release of layer textures whose layers are gone.
    func endFrame() {
        for backing in backings.values where backing.layer == nil && !workQueue.contains(backing) {
            workQueue.enqueue(backing)
        }
        for (key, entry) in textures where entry.bitmap == nil || frameNumber - entry.lastUsedFrame > evictionAge {
            SDL_DestroyTexture(entry.texture)
            textureBytes -= entry.bytes
            textures[key] = nil
        }
        for (key, entry) in masks where frameNumber - entry.lastUsedFrame > evictionAge {
            SDL_DestroyTexture(entry.texture)
            scratchTextureBytes -= key.bytes
            masks[key] = nil
        }
        targetPool.removeAll { target in
            guard !target.inUse, frameNumber - target.lastUsedFrame > evictionAge else { return false }
            SDL_DestroyTexture(target.texture)
            scratchTextureBytes -= target.bytes
            return true
        }
    }

    /// Draws a layer and its sublayers; `origin` is where the layer's superlayer's bounds
    /// origin lands in window points.
    public func draw(_ layer: Layer, origin: CGPoint = .zero, alpha: CGFloat = 1) {
        guard !layer.isHidden else { return }
        let opacity = alpha * layer.alpha * layer.fadeOpacity
        guard opacity > 0.001 else { return }
        let frame = layer.frame.offsetBy(dx: origin.x, dy: origin.y)
        if layer.clipsToBounds {
            pushClip(frame)
            if clipIsEmpty { popClip(); return }
        }
        if let background = layer.backgroundColor {
            if layer.cornerRadius > 0 {
                fillRounded(frame, radius: layer.cornerRadius, color: background, alpha: opacity)
            } else {
                fill(frame, color: background, alpha: opacity)
            }
        }
        // A rounded clip cuts the contents and the sublayers, together (the background and the
        // border are rounded by themselves), so it is only needed when there are some.
        let hasContents = layer.contents != nil || layer.backing != nil
        let roundsClip = layer.clipsToBounds && layer.cornerRadius > 0 && (hasContents || !layer.sublayers.isEmpty)
            && beginRoundedClip(frame, radius: layer.cornerRadius)
        if hasContents {
            if !layer.isContentsPresented { contentsChanged(layer) } // a tree not observed
            if let backing = layer.backing as? TextureBacking {
                let rect = layer.contentsRect.map { $0.offsetBy(dx: frame.minX, dy: frame.minY) } ?? frame
                drawTexture(backing.texture, in: rect, alpha: opacity)
            }
        }
        let childOrigin = CGPoint(x: frame.minX - layer.boundsOrigin.x, y: frame.minY - layer.boundsOrigin.y)
        for sublayer in layer.sublayers {
            draw(sublayer, origin: childOrigin, alpha: opacity)
        }
        if roundsClip { endRoundedClip() }
        // The border goes over the contents and the sublayers, inside the bounds, following the
        // corner radius (as Core Animation draws it).
        if let border = layer.borderColor, layer.borderWidth > 0 {
            if layer.cornerRadius > 0 {
                strokeRoundedInside(frame, width: layer.borderWidth, radius: layer.cornerRadius, color: border,
                                    alpha: opacity)
            } else {
                strokeInside(frame, width: layer.borderWidth, color: border, alpha: opacity)
            }
        }
        if layer.clipsToBounds { popClip() }
    }

    /// Strokes a rounded rect's edges inward by `width` points: the outer edge has the corner
    /// radius, the inner one the radius less the width (square when that is not positive), as
    /// Core Animation's border.
    public func strokeRoundedInside(_ rect: CGRect, width: CGFloat, radius: CGFloat, color: Color, alpha: CGFloat = 1) {
        var r = pixelRect(rect)
        let border = Int((width * scale).rounded())
        let key = MaskKey(width: Int(r.w), height: Int(r.h), radius: Int((radius * scale).rounded()), border: border)
        guard r.w > 0, r.h > 0, border > 0 else { return }
        guard key.radius > 0 else { return strokeInside(rect, width: width, color: color, alpha: alpha) }
        guard let texture = mask(key) else { return strokeInside(rect, width: width, color: color, alpha: alpha) }
        let c = color.rgba8
        SDL_SetTextureColorMod(texture, c.r, c.g, c.b)
        SDL_SetTextureAlphaMod(texture, UInt8(min(255, max(0, (color.alpha * alpha * 255).rounded()))))
        r = inTarget(r)
        SDL_RenderCopy(renderer, texture, nil, &r)
    }

    // MARK: Rounded clips

    /// Starts drawing a layer that clips to a rounded rect into an offscreen target covering
    /// the visible part of `frame` (the clip is already pushed). False when there is nothing to
    /// draw or no target could be made (the clip then stays rectangular).
    private func beginRoundedClip(_ frame: CGRect, radius: CGFloat) -> Bool {
        let layerRect = pixelRect(frame)
        // The background's mask (the mask clamps the radius to the rect).
        let pixelRadius = Int((radius * scale).rounded())
        guard pixelRadius > 0, var visible = clipStack.last else { return false }
        var bounds = offscreens.last?.rect ?? outputRect
        var out = SDL_Rect()
        guard SDL_IntersectRect(&visible, &bounds, &out) == SDL_TRUE, out.w > 0, out.h > 0,
              let pool = acquireTarget(width: Int(out.w), height: Int(out.h)) else { return false }
        let texture = targetPool[pool].texture
        guard SDL_SetRenderTarget(renderer, texture) == 0 else {
            targetPool[pool].inUse = false
            SDL_SetRenderTarget(renderer, offscreens.last.map { targetPool[$0.pool].texture })
            applyClip()
            return false
        }
        offscreens.append(Offscreen(rect: out, layerRect: layerRect, radius: pixelRadius, pool: pool))
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 0)
        SDL_RenderSetClipRect(renderer, nil)
        SDL_RenderClear(renderer)
        applyClip()
        return true
    }

    /// Cuts the offscreen target's corners and draws it where it belongs, over what is below.
    private func endRoundedClip() {
        let offscreen = offscreens.removeLast()
        let target = targetPool[offscreen.pool].texture
        let rect = offscreen.rect, layer = offscreen.layerRect
        let key = MaskKey(width: Int(layer.w), height: Int(layer.h), radius: offscreen.radius)
        var source = SDL_Rect(x: 0, y: 0, w: rect.w, h: rect.h)
        let below = offscreens.last.map { targetPool[$0.pool].texture }
        if usesMaskBlending, let mask = mask(key) {
            // The rounded rect's own mask, placed at the layer in the target: multiplies the
            // target, colour and alpha, by its coverage.
            SDL_RenderSetClipRect(renderer, nil)
            SDL_SetTextureBlendMode(mask, maskMode)
            SDL_SetTextureColorMod(mask, 255, 255, 255)
            SDL_SetTextureAlphaMod(mask, 255)
            var place = SDL_Rect(x: layer.x - rect.x, y: layer.y - rect.y, w: layer.w, h: layer.h)
            SDL_RenderCopy(renderer, mask, nil, &place)
            SDL_SetTextureBlendMode(mask, SDL_BLENDMODE_BLEND)
            SDL_SetRenderTarget(renderer, below)
            SDL_SetTextureBlendMode(target, premultipliedMode)
        } else {
            // No custom blending (the software renderer): cut the corners and un-premultiply on
            // the CPU (where that renderer draws anyway), then draw with ordinary blending.
            var pixels = [UInt8](repeating: 0, count: Int(rect.w) * Int(rect.h) * 4)
            let read = pixels.withUnsafeMutableBytes {
                SDL_RenderReadPixels(renderer, &source, SDL_PIXELFORMAT_ABGR8888.rawValue, $0.baseAddress, rect.w * 4)
            }
            SDL_SetRenderTarget(renderer, below)
            guard read == 0 else {
                targetPool[offscreen.pool].inUse = false
                applyClip()
                return
            }
            Self.cutCornersAndUnpremultiply(&pixels, rect: rect, layer: layer, radius: offscreen.radius)
            pixels.withUnsafeBytes { _ = SDL_UpdateTexture(target, &source, $0.baseAddress, rect.w * 4) }
            SDL_SetTextureBlendMode(target, SDL_BLENDMODE_BLEND)
        }
        applyClip()
        SDL_SetTextureColorMod(target, 255, 255, 255)
        SDL_SetTextureAlphaMod(target, 255)
        var place = inTarget(rect)
        SDL_RenderCopy(renderer, target, &source, &place)
        targetPool[offscreen.pool].inUse = false
    }

    /// Premultiplied pixels of `rect` (window pixels) times the coverage of the rounded `layer`
    /// rect, made straight.
    private static func cutCornersAndUnpremultiply(_ pixels: inout [UInt8], rect: SDL_Rect, layer: SDL_Rect, radius: Int) {
        let r = Double(radius)
        let x0 = Double(layer.x), y0 = Double(layer.y), x1 = x0 + Double(layer.w), y1 = y0 + Double(layer.h)
        let width = Int(rect.w)
        for row in 0..<Int(rect.h) {
            let y = Int(rect.y) + row
            let cornerRow = Double(y) < y0 + r || Double(y + 1) > y1 - r
            for column in 0..<width {
                let i = (row * width + column) * 4
                let alpha = pixels[i + 3]
                guard alpha > 0, alpha < 255 || cornerRow else { continue }
                var coverage = 1.0
                if cornerRow {
                    coverage = roundedRectCoverage(x: Int(rect.x) + column, y: y, x0: x0, y0: y0, x1: x1, y1: y1, radius: r)
                }
                // Straight colour is the premultiplied one over the alpha, whatever the coverage.
                let straight = 255 / Double(alpha)
                for c in 0..<3 {
                    pixels[i + c] = UInt8(min(255, (Double(pixels[i + c]) * straight).rounded()))
                }
                pixels[i + 3] = UInt8(min(255, (Double(alpha) * coverage).rounded()))
            }
        }
    }

    /// A free target texture at least `width` x `height` pixels (sizes rounded up to 64, so
    /// layers that change size a little reuse them), or nil.
    private func acquireTarget(width: Int, height: Int) -> Int? {
        if let index = targetPool.firstIndex(where: { !$0.inUse && $0.width >= width && $0.height >= height
                                                       && $0.width - width < 256 && $0.height - height < 256 }) {
            targetPool[index].inUse = true
            targetPool[index].lastUsedFrame = frameNumber
            return index
        }
        let w = (width + 63) / 64 * 64, h = (height + 63) / 64 * 64
        guard let texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_TARGET.rawValue), Int32(w), Int32(h)) else { return nil }
        SDL_SetTextureScaleMode(texture, SDL_ScaleModeNearest)
        targetPool.append(PooledTarget(texture: texture, width: w, height: h, inUse: true, lastUsedFrame: frameNumber))
        scratchTextureBytes += targetPool[targetPool.count - 1].bytes
        return targetPool.count - 1
    }

    /// A rect in window pixels, in the current target's pixels.
    private func inTarget(_ rect: SDL_Rect) -> SDL_Rect {
        guard let offscreen = offscreens.last else { return rect }
        return SDL_Rect(x: rect.x - offscreen.rect.x, y: rect.y - offscreen.rect.y, w: rect.w, h: rect.h)
    }

    /// Strokes a rect's edges inward by `width` points.
    public func strokeInside(_ rect: CGRect, width: CGFloat, color: Color, alpha: CGFloat = 1) {
        let w = min(width, rect.width / 2), h = min(width, rect.height / 2)
        fill(CGRect(x: rect.minX, y: rect.minY, width: rect.width, height: h), color: color, alpha: alpha)
        fill(CGRect(x: rect.minX, y: rect.maxY - h, width: rect.width, height: h), color: color, alpha: alpha)
        fill(CGRect(x: rect.minX, y: rect.minY + h, width: w, height: rect.height - 2 * h), color: color, alpha: alpha)
        fill(CGRect(x: rect.maxX - w, y: rect.minY + h, width: w, height: rect.height - 2 * h), color: color, alpha: alpha)
    }

    /// Fills a rect given in window points.
    public func fill(_ rect: CGRect, color: Color, alpha: CGFloat = 1) {
        let c = color.withAlpha(color.alpha * alpha).rgba8
        guard c.a > 0 else { return }
        SDL_SetRenderDrawBlendMode(renderer, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND)
        SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a)
        var r = inTarget(pixelRect(rect))
        SDL_RenderFillRect(renderer, &r)
    }

    /// Fills a rect with rounded corners (anti-aliased), e.g. a scrollbar thumb.
    public func fillRounded(_ rect: CGRect, radius: CGFloat, color: Color, alpha: CGFloat = 1) {
        var r = pixelRect(rect)
        guard r.w > 0, r.h > 0 else { return }
        let key = MaskKey(width: Int(r.w), height: Int(r.h), radius: Int((radius * scale).rounded()))
        // Less than half a pixel of radius is a plain rect.
        guard key.radius > 0, let texture = mask(key) else { return fill(rect, color: color, alpha: alpha) }
        let c = color.rgba8
        SDL_SetTextureColorMod(texture, c.r, c.g, c.b)
        SDL_SetTextureAlphaMod(texture, UInt8(min(255, max(0, (color.alpha * alpha * 255).rounded()))))
        r = inTarget(r)
        SDL_RenderCopy(renderer, texture, nil, &r)
    }

    /// The cached mask of `key`, made on first use.
    private func mask(_ key: MaskKey) -> OpaquePointer? {
        let texture: OpaquePointer
        if let entry = masks[key] {
            texture = entry.texture
        } else {
            guard let made = makeRoundedMask(key) else { return nil }
            texture = made
            scratchTextureBytes += key.bytes
        }
        masks[key] = MaskEntry(texture: texture, lastUsedFrame: frameNumber)
        return texture
    }

    /// Draws a bitmap stretched into a rect given in window points.
    public func drawBitmap(_ bitmap: Bitmap, in rect: CGRect, alpha: CGFloat = 1) {
        guard let texture = texture(for: bitmap) else { return }
        drawTexture(texture, in: rect, alpha: alpha)
    }

    private func drawTexture(_ texture: OpaquePointer, in rect: CGRect, alpha: CGFloat) {
        let a = UInt8(min(255, max(0, (alpha * 255).rounded())))
        if usesPremultipliedBlending {
            // Premultiplied: fading must scale colour and alpha alike.
            SDL_SetTextureColorMod(texture, a, a, a)
        }
        SDL_SetTextureAlphaMod(texture, a)
        var r = inTarget(pixelRect(rect))
        SDL_RenderCopy(renderer, texture, nil, &r)
    }

    /// The texture of a bitmap, uploading it on first use.
    func texture(for bitmap: Bitmap) -> OpaquePointer? {
        let key = ObjectIdentifier(bitmap)
        if var entry = textures[key], entry.bitmap === bitmap {
            entry.lastUsedFrame = frameNumber
            textures[key] = entry
            return entry.texture
        }
        if let stale = textures[key] { // the identifier was reused by a new bitmap
            SDL_DestroyTexture(stale.texture)
            textureBytes -= stale.bytes
            textures[key] = nil
        }
        guard let texture = makeTexture(bitmap) else { return nil }
        let bytes = bitmap.width * bitmap.height * 4
        textures[key] = Entry(bitmap: bitmap, texture: texture, bytes: bytes, lastUsedFrame: frameNumber)
        textureBytes += bytes
        return texture
    }

    /// A static texture of a bitmap, blended right for the renderer.
    private func makeTexture(_ bitmap: Bitmap) -> OpaquePointer? {
        guard bitmap.width > 0, bitmap.height > 0,
              let texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_STATIC.rawValue),
                                              Int32(bitmap.width), Int32(bitmap.height)) else { return nil }
        if usesPremultipliedBlending {
            bitmap.pixels.withUnsafeBytes { _ = SDL_UpdateTexture(texture, nil, $0.baseAddress, Int32(bitmap.bytesPerRow)) }
            SDL_SetTextureBlendMode(texture, premultipliedMode)
        } else {
            var straight = bitmap.straightAlphaPixels()
            Self.bleedIntoTransparentPixels(&straight, width: bitmap.width, height: bitmap.height)
            straight.withUnsafeBytes { _ = SDL_UpdateTexture(texture, nil, $0.baseAddress, Int32(bitmap.width * 4)) }
            SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_BLEND)
        }
        SDL_SetTextureScaleMode(texture, SDL_ScaleModeLinear)
        return texture
    }

    /// Gives each fully transparent pixel next to visible ones their colour (weighted by their
    /// alpha). A straight-alpha texture is filtered in straight colour, so when it is stretched a
    /// transparent pixel's colour (black) would bleed into its visible neighbours as a dark fringe;
    /// premultiplied filtering, which the rasterizer does, ignores it.
    ///
    /// In place: only the colour of fully transparent pixels is written, and only visible pixels
    /// are read, so no pixel is read after it was written.
    private static func bleedIntoTransparentPixels(_ pixels: inout [UInt8], width: Int, height: Int) {
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width where p[(y * width + x) * 4 + 3] == 0 {
                    var r = 0, g = 0, b = 0, weight = 0
                    for ny in max(0, y - 1)...min(height - 1, y + 1) {
                        for nx in max(0, x - 1)...min(width - 1, x + 1) {
                            let n = (ny * width + nx) * 4
                            let a = Int(p[n + 3])
                            guard a > 0 else { continue }
                            r += Int(p[n]) * a; g += Int(p[n + 1]) * a; b += Int(p[n + 2]) * a
                            weight += a
                        }
                    }
                    guard weight > 0 else { continue }
                    let i = (y * width + x) * 4
                    p[i] = UInt8((r + weight / 2) / weight)
                    p[i + 1] = UInt8((g + weight / 2) / weight)
                    p[i + 2] = UInt8((b + weight / 2) / weight)
                }
            }
        }
    }

    /// Releases every texture (before the renderer goes away).
    func releaseAll() {
        workQueue.invalidate()
        if !offscreens.isEmpty {
            offscreens.removeAll()
            SDL_SetRenderTarget(renderer, nil)
        }
        for target in targetPool { SDL_DestroyTexture(target.texture) }
        targetPool.removeAll()
        for backing in backings.values {
            SDL_DestroyTexture(backing.texture)
            if let layer = backing.layer, layer.backing === backing { layer.backing = nil }
        }
        backings.removeAll()
        for entry in textures.values { SDL_DestroyTexture(entry.texture) }
        for entry in masks.values { SDL_DestroyTexture(entry.texture) }
        textures.removeAll()
        masks.removeAll()
        scratchTextureBytes = 0
        textureBytes = 0
    }

    /// The SDL rect, in pixels, of a rect in points: edges rounded to the nearest pixel, so
    /// adjacent rects share edges without gaps or overlaps.
    func pixelRect(_ rect: CGRect) -> SDL_Rect {
        let x0 = (rect.minX * scale).rounded(), y0 = (rect.minY * scale).rounded()
        let x1 = (rect.maxX * scale).rounded(), y1 = (rect.maxY * scale).rounded()
        return SDL_Rect(x: Int32(clamping: Int(x0)), y: Int32(clamping: Int(y0)),
                        w: Int32(clamping: Int(x1 - x0)), h: Int32(clamping: Int(y1 - y0)))
    }

    private var clipIsEmpty: Bool { clipStack.last.map { $0.w <= 0 || $0.h <= 0 } ?? false }

    private func pushClip(_ rect: CGRect) {
        var r = pixelRect(rect)
        if let current = clipStack.last {
            var out = SDL_Rect()
            var a = current
            if SDL_IntersectRect(&a, &r, &out) == SDL_FALSE { out = SDL_Rect(x: 0, y: 0, w: 0, h: 0) }
            r = out
        }
        clipStack.append(r)
        applyClip()
    }

    private func popClip() {
        clipStack.removeLast()
        applyClip()
    }

    private func applyClip() {
        if var top = clipStack.last.map(inTarget) {
            if top.w <= 0 || top.h <= 0 { top = SDL_Rect(x: -1, y: -1, w: 1, h: 1) }
            SDL_RenderSetClipRect(renderer, &top)
        } else {
            SDL_RenderSetClipRect(renderer, nil)
        }
    }

    /// A white mask of a rounded rect, or of its border's ring when `key.border` > 0 (the rect
    /// less the rect inset by the border, whose radius is that much smaller), straight alpha,
    /// anti-aliased by coverage.
    private func makeRoundedMask(_ key: MaskKey) -> OpaquePointer? {
        let w = key.width, h = key.height
        let radius = Double(min(key.radius, min(w, h) / 2))
        let border = Double(min(key.border, min(w, h) / 2))
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                var coverage = Self.roundedRectCoverage(x: x, y: y, x0: 0, y0: 0, x1: Double(w), y1: Double(h),
                                                        radius: radius)
                if border > 0 {
                    coverage -= Self.roundedRectCoverage(x: x, y: y, x0: border, y0: border, x1: Double(w) - border,
                                                         y1: Double(h) - border, radius: max(0, radius - border))
                }
                pixels[(y * w + x) * 4 + 3] = UInt8((min(1, max(0, coverage)) * 255).rounded())
            }
        }
        guard let texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                                              Int32(SDL_TEXTUREACCESS_STATIC.rawValue), Int32(w), Int32(h)) else { return nil }
        pixels.withUnsafeBytes { _ = SDL_UpdateTexture(texture, nil, $0.baseAddress, Int32(w * 4)) }
        SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_BLEND)
        return texture
    }

    /// How much of pixel (x, y) a rect with circular corners covers, measured as
    /// `GraphicsContext` measures its shapes (so a rounded layer composited here looks like one
    /// rasterized there): straight edges by exact area; where a corner curves, the exact span
    /// at the middle of each of 16 sub-rows.
    private static func roundedRectCoverage(x: Int, y: Int, x0: Double, y0: Double, x1: Double, y1: Double,
                                    radius: Double) -> Double {
        let pixelLeft = Double(x), pixelTop = Double(y)
        let top = max(pixelTop, y0), bottom = min(pixelTop + 1, y1)
        let left = max(pixelLeft, x0), right = min(pixelLeft + 1, x1)
        guard top < bottom, left < right else { return 0 }
        let r = max(0, min(radius, (x1 - x0) / 2, (y1 - y0) / 2))
        let curved = r > 0 && (top < y0 + r || bottom > y1 - r) && (left < x0 + r || right > x1 - r)
        guard curved else { return (right - left) * (bottom - top) }
        let subRows = 16, step = 1 / Double(subRows)
        var area = 0.0
        for s in 0..<subRows {
            let a = max(top, pixelTop + Double(s) * step), b = min(bottom, pixelTop + Double(s + 1) * step)
            guard a < b else { continue }
            let middle = (a + b) / 2
            var l = left, rr = right
            var d = 0.0
            if middle < y0 + r { d = (y0 + r - middle) / r } else if middle > y1 - r { d = (middle - (y1 - r)) / r }
            if d > 0 {
                let half = r * max(0, 1 - d * d).squareRoot()
                l = max(l, x0 + r - half)
                rr = min(rr, x1 - r + half)
            }
            if l < rr { area += (rr - l) * (b - a) }
        }
        return area
    }
}
