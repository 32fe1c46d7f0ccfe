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
///
/// Its parts: this file draws the frame (the tree walk and the clip stack); `TextureStore` holds
/// the textures of bitmaps, with the upload budget; `ScratchTextures` the rounded masks and the
/// offscreen targets, which `Compositor+RoundedClips` draws rounded clips with; and
/// `Compositor+Drawing` has the fills, strokes and bitmaps the layers and the overlays are drawn with.
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
    public var textureBytes: Int { textureStore.textureBytes }
    /// The bytes held by the layers' textures alone (`textureBytes` without the overlays'): what
    /// displays, uploads and releases change.
    public var layerTextureBytes: Int { textureStore.layerTextureBytes }
    /// The most `textureBytes` has been since the compositor was made or `resetTextureBytesPeak()`.
    public var textureBytesPeak: Int { textureStore.textureBytesPeak }

    /// The bytes held by the compositor's own scratch textures, not counted in `textureBytes`:
    /// offscreen targets for rounded clips and the masks of rounded corners and borders, each
    /// kept until `evictionAge` frames after its last use.
    public var scratchTextureBytes: Int { scratchTextures.bytes }

    /// Whether `renderer` can draw with `mode` (custom blend modes are optional in SDL), asked
    /// of a 1 x 1 texture.
    private static func renderer(_ renderer: OpaquePointer, supports mode: SDL_BlendMode) -> Bool {
        guard
            let probe = SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_ABGR8888.rawValue, Int32(SDL_TEXTUREACCESS_STATIC.rawValue), 1, 1)
        else { return false }
        defer { SDL_DestroyTexture(probe) }
        return SDL_SetTextureBlendMode(probe, mode) == 0
    }

    /// Starts a new peak from the bytes held now (a benchmark run's own peak).
    public func resetTextureBytesPeak() {
        textureStore.resetTextureBytesPeak()
    }
    /// Whether premultiplied bitmaps are drawn with a custom blend mode.
    public let usesPremultipliedBlending: Bool
    /// How textures that are not opaque are blended: premultiplied where the renderer can.
    var blendMode: SDL_BlendMode { usesPremultipliedBlending ? premultipliedMode : SDL_BLENDMODE_BLEND }

    /// The most time a frame spends uploading and releasing textures, in seconds.
    public var uploadBudget: TimeInterval {
        get { textureStore.budget }
        set { textureStore.budget = newValue }
    }
    /// Uploads waiting for a later frame.
    public var pendingUploads: Int { textureStore.pendingUploads }
    /// Told of every layer upload: the bytes and the seconds it took (`bench --scenario display`).
    public var uploadObserver: ((_ bytes: Int, _ seconds: TimeInterval) -> Void)? {
        get { textureStore.uploadObserver }
        set { textureStore.uploadObserver = newValue }
    }

    /// What a frame drew: its texture copies, how many of them without blending and how many
    /// sampled nearest (drawn at their own size), the layers outside the clip whose own drawing
    /// was skipped, and the backgrounds not drawn because opaque contents covered them.
    public struct DrawCounts: Equatable, Sendable {
        public var textures = 0
        public var opaqueTextures = 0
        public var nearestTextures = 0
        public var culledLayers = 0
        public var backgroundsHidden = 0
    }
    /// The counts of the frame being drawn, or of the last one once it is done.
    public internal(set) var drawCounts = DrawCounts()

    /// Layers' textures and those of bitmaps drawn directly.
    let textureStore: TextureStore
    /// Rounded masks and offscreen targets.
    let scratchTextures: ScratchTextures
    private(set) var frameNumber = 0
    let premultipliedMode: SDL_BlendMode
    private(set) var clipStack: [SDL_Rect] = []
    /// Directly drawn textures, masks and targets unused for this many frames are released.
    public var evictionAge = 120

    /// Multiplies the destination, colour and alpha, by the source's alpha: a mask cutting what is
    /// drawn in a target texture (renderers with custom blend modes only).
    let maskMode: SDL_BlendMode
    let usesMaskBlending: Bool
    /// The offscreen targets of the rounded clips being drawn, innermost last.
    var offscreens: [Offscreen] = []
    /// The renderer's output in pixels, for the frame being drawn.
    private(set) var outputRect = SDL_Rect()

    /// A compositor drawing with `renderer`, whose uploads run in `runLoop`'s `beforePresent`
    /// phase at `uploadOrder` (the application composites after them, in the same turn).
    init(renderer: OpaquePointer, runLoop: FrameLoop, uploadOrder: Int = Int.max - 1) {
        self.renderer = renderer
        premultipliedMode = SDL_ComposeCustomBlendMode(
            SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD,
            SDL_BLENDFACTOR_ONE, SDL_BLENDFACTOR_ONE_MINUS_SRC_ALPHA, SDL_BLENDOPERATION_ADD)
        let supported = Self.renderer(renderer, supports: premultipliedMode)
        usesPremultipliedBlending = supported
        maskMode = SDL_ComposeCustomBlendMode(
            SDL_BLENDFACTOR_ZERO, SDL_BLENDFACTOR_SRC_ALPHA, SDL_BLENDOPERATION_ADD,
            SDL_BLENDFACTOR_ZERO, SDL_BLENDFACTOR_SRC_ALPHA, SDL_BLENDOPERATION_ADD)
        usesMaskBlending = supported && Self.renderer(renderer, supports: maskMode)
        textureStore = TextureStore(
            renderer: renderer, premultipliedMode: supported ? premultipliedMode : nil,
            runLoop: runLoop, uploadOrder: uploadOrder, budget: Self.defaultUploadBudget)
        scratchTextures = ScratchTextures(renderer: renderer)
    }

    /// Makes `layer` the root of the layer trees this compositor uploads for: a change of
    /// contents anywhere below it is queued for upload (or release) at once.
    func observeContents(of layer: Layer) {
        textureStore.observeContents(of: layer)
    }

    // MARK: The frame

    /// Starts a frame: clears to `color`.
    func beginFrame(clearColor color: Color) {
        frameNumber += 1
        drawCounts = DrawCounts()
        if !offscreens.isEmpty {
            offscreens.removeAll()
            SDL_SetRenderTarget(renderer, nil)
        }
        scratchTextures.releaseTargets()
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        outputRect = SDL_Rect(x: 0, y: 0, w: w, h: h)
        let c = color.rgba8
        SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a)
        SDL_RenderSetClipRect(renderer, nil)
        clipStack.removeAll(keepingCapacity: true)  // every frame pushes clips again
        SDL_RenderClear(renderer)
    }

    /// Releases direct textures whose bitmaps are gone or unused for `evictionAge` frames (and
    /// masks and targets unused as long), and queues the release of layer textures whose layers
    /// are gone.
    func endFrame() {
        textureStore.endFrame(frameNumber, evictionAge: evictionAge)
        scratchTextures.endFrame(frameNumber, evictionAge: evictionAge)
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
        // A layer outside the clip (or the window) draws nothing of its own; its sublayers may
        // still reach in.
        let isVisible = meetsClip(frame)
        if !isVisible { drawCounts.culledLayers += 1 }
        let hasContents = layer.contents != nil || layer.backing != nil
        if hasContents && !layer.isContentsPresented { textureStore.contentsChanged(layer) }  // a tree not observed
        let backing = isVisible && hasContents ? textureStore.backing(of: layer) : nil
        let contentsRect = layer.contentsRect.map { $0.offsetBy(dx: frame.minX, dy: frame.minY) } ?? frame
        // Opaque contents over the whole frame, drawn at full opacity, hide the background.
        let hidesBackground =
            backing?.bitmap.isOpaque == true && layer.contentsRect == nil && Self.alphaByte(opacity) == 255
        if hidesBackground && layer.backgroundColor != nil { drawCounts.backgroundsHidden += 1 }
        if isVisible, !hidesBackground, let background = layer.backgroundColor {
            if layer.cornerRadius > 0 {
                fillRounded(frame, radius: layer.cornerRadius, color: background, alpha: opacity)
            } else {
                fill(frame, color: background, alpha: opacity)
            }
        }
        // A rounded clip cuts the contents and the sublayers, together (the background and the
        // border are rounded by themselves), so it is only needed when there are some.
        let roundsClip =
            layer.clipsToBounds && layer.cornerRadius > 0 && (hasContents || !layer.sublayers.isEmpty)
            && beginRoundedClip(frame, radius: layer.cornerRadius)
        if let backing {
            drawTexture(backing.texture, in: contentsRect, alpha: opacity, isOpaque: backing.bitmap.isOpaque)
        }
        let childOrigin = CGPoint(x: frame.minX - layer.boundsOrigin.x, y: frame.minY - layer.boundsOrigin.y)
        for sublayer in layer.sublayers {
            draw(sublayer, origin: childOrigin, alpha: opacity)
        }
        if roundsClip { endRoundedClip() }
        // The border goes over the contents and the sublayers, inside the bounds, following the
        // corner radius (as Core Animation draws it).
        if isVisible, let border = layer.borderColor, layer.borderWidth > 0 {
            if layer.cornerRadius > 0 {
                strokeRoundedInside(
                    frame, width: layer.borderWidth, radius: layer.cornerRadius, color: border,
                    alpha: opacity)
            } else {
                strokeInside(frame, width: layer.borderWidth, color: border, alpha: opacity)
            }
        }
        if layer.clipsToBounds { popClip() }
    }

    /// Releases every texture (before the renderer goes away).
    func releaseAll() {
        if !offscreens.isEmpty {
            offscreens.removeAll()
            SDL_SetRenderTarget(renderer, nil)
        }
        scratchTextures.releaseAll()
        textureStore.releaseAll()
    }

    // MARK: Pixels and clips

    /// The SDL rect, in pixels, of a rect in points: edges rounded to the nearest pixel, so
    /// adjacent rects share edges without gaps or overlaps.
    func pixelRect(_ rect: CGRect) -> SDL_Rect {
        let x0 = (rect.minX * scale).rounded(), y0 = (rect.minY * scale).rounded()
        let x1 = (rect.maxX * scale).rounded(), y1 = (rect.maxY * scale).rounded()
        return SDL_Rect(
            x: Int32(clamping: Int(x0)), y: Int32(clamping: Int(y0)),
            w: Int32(clamping: Int(x1 - x0)), h: Int32(clamping: Int(y1 - y0)))
    }

    /// A rect in window pixels, in the current target's pixels.
    func inTarget(_ rect: SDL_Rect) -> SDL_Rect {
        guard let offscreen = offscreens.last else { return rect }
        return SDL_Rect(x: rect.x - offscreen.rect.x, y: rect.y - offscreen.rect.y, w: rect.w, h: rect.h)
    }

    private var clipIsEmpty: Bool { clipStack.last.map { $0.w <= 0 || $0.h <= 0 } ?? false }

    /// Whether a rect in window points meets the current clip (the window when there is none).
    private func meetsClip(_ rect: CGRect) -> Bool {
        var r = pixelRect(rect), bounds = clipStack.last ?? outputRect
        return SDL_HasIntersection(&r, &bounds) == SDL_TRUE
    }

    /// An opacity as the byte the renderer is given.
    static func alphaByte(_ alpha: CGFloat) -> UInt8 {
        UInt8(min(255, max(0, (alpha * 255).rounded())))
    }

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

    /// Sets the renderer's clip to the top of the stack, in the current target's pixels.
    func applyClip() {
        if var top = clipStack.last.map(inTarget) {
            if top.w <= 0 || top.h <= 0 { top = SDL_Rect(x: -1, y: -1, w: 1, h: 1) }
            SDL_RenderSetClipRect(renderer, &top)
        } else {
            SDL_RenderSetClipRect(renderer, nil)
        }
    }
}
