import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// The compositor's textures of bitmaps, and the bytes they hold: each layer's (its `backing`),
/// uploaded and released through a queue within a time budget a frame, and those of bitmaps
/// drawn directly (the overlays'), uploaded at once and evicted when unused. Main thread only.
///
/// A type of its own so that the upload budget, residency and byte counting live in one place,
/// apart from the drawing: the compositor asks it for a texture and draws it.
@MainActor
final class TextureStore {
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

    private let renderer: OpaquePointer
    /// The blend mode premultiplied bitmaps are drawn with, or nil where the renderer has no
    /// custom blend modes (they are then uploaded with straight alpha).
    private let premultipliedMode: SDL_BlendMode?
    /// The bytes held by textures (layers' and directly drawn bitmaps').
    private(set) var textureBytes = 0 {
        didSet { textureBytesPeak = max(textureBytesPeak, textureBytes) }
    }
    /// The bytes held by the layers' textures alone: what displays and uploads change, unlike
    /// the directly drawn bitmaps' (an overlay's text, remade while it shows).
    private(set) var layerTextureBytes = 0
    /// The most `textureBytes` has been since the store was made or `resetTextureBytesPeak()`.
    private(set) var textureBytesPeak = 0
    /// Told of every layer upload: the bytes and the seconds it took.
    var uploadObserver: ((_ bytes: Int, _ seconds: TimeInterval) -> Void)?

    /// Textures of bitmaps drawn directly, by bitmap.
    private var textures: [ObjectIdentifier: Entry] = [:]
    /// Every live layer texture, by backing.
    private var backings: [ObjectIdentifier: TextureBacking] = [:]
    /// Layers to upload and backings to release, in order, within the budget.
    private var workQueue: RunLoopQueue<AnyObject>!

    /// A store uploading for `renderer` in `runLoop`'s `beforePresent` phase at `uploadOrder`,
    /// within `budget` seconds a frame.
    init(
        renderer: OpaquePointer, premultipliedMode: SDL_BlendMode?, runLoop: FrameLoop, uploadOrder: Int,
        budget: TimeInterval
    ) {
        self.renderer = renderer
        self.premultipliedMode = premultipliedMode
        workQueue = RunLoopQueue(
            runLoop: runLoop, budget: budget, phase: .beforePresent,
            order: uploadOrder
        ) { [unowned self] item, _ in
            if let layer = item as? Layer {
                self.upload(layer)
            } else if let backing = item as? TextureBacking {
                self.destroy(backing)
            }
        }
        workQueue.traceName = "upload"
    }

    /// Starts a new peak from the bytes held now.
    func resetTextureBytesPeak() {
        textureBytesPeak = textureBytes
    }

    /// The most time a frame spends uploading and releasing textures, in seconds.
    var budget: TimeInterval {
        get { workQueue.budget }
        set { workQueue.budget = newValue }
    }
    /// Uploads waiting for a later frame.
    var pendingUploads: Int { workQueue.count }

    /// Makes `layer` the root of the layer trees this store uploads for: a change of contents
    /// anywhere below it is queued for upload (or release) at once.
    func observeContents(of layer: Layer) {
        layer.contentsChangeHandler = { [unowned self] changed in self.contentsChanged(changed) }
    }

    /// The texture a layer's contents were last uploaded to (what it draws meanwhile), with the
    /// bitmap it holds, or nil.
    func backing(of layer: Layer) -> TextureBacking? {
        layer.backing as? TextureBacking
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
    ///
    /// Always a new texture, even for contents of the old one's size (an animation's next frame):
    /// updating a texture the last frame drew from makes the upload wait for the renderer to
    /// finish that frame (under Mesa's llvmpipe, 6.2 ms an update against 0.09 ms for a new
    /// texture: `bench --scenario animation`).
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
        layerTextureBytes += bytes
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
        layerTextureBytes -= backing.bytes
    }

    /// At the end of frame `frame`: releases direct textures whose bitmaps are gone or unused for
    /// more than `evictionAge` frames, and queues the release of layer textures whose layers are gone.
    func endFrame(_ frame: Int, evictionAge: Int) {
        for backing in backings.values where backing.layer == nil && !workQueue.contains(backing) {
            workQueue.enqueue(backing)
        }
        for (key, entry) in textures where entry.bitmap == nil || frame - entry.lastUsedFrame > evictionAge {
            SDL_DestroyTexture(entry.texture)
            textureBytes -= entry.bytes
            textures[key] = nil
        }
    }

    // MARK: Bitmaps drawn directly

    /// The texture of a bitmap drawn directly in frame `frame`, uploading it on first use.
    func texture(for bitmap: Bitmap, frame: Int) -> OpaquePointer? {
        let key = ObjectIdentifier(bitmap)
        if var entry = textures[key], entry.bitmap === bitmap {
            entry.lastUsedFrame = frame
            textures[key] = entry
            return entry.texture
        }
        if let stale = textures[key] {  // the identifier was reused by a new bitmap
            SDL_DestroyTexture(stale.texture)
            textureBytes -= stale.bytes
            textures[key] = nil
        }
        guard let texture = makeTexture(bitmap) else { return nil }
        let bytes = bitmap.width * bitmap.height * 4
        textures[key] = Entry(bitmap: bitmap, texture: texture, bytes: bytes, lastUsedFrame: frame)
        textureBytes += bytes
        return texture
    }

    // MARK: Pixels

    /// A static texture of a bitmap, blended right for the renderer.
    private func makeTexture(_ bitmap: Bitmap) -> OpaquePointer? {
        guard bitmap.width > 0, bitmap.height > 0,
            let texture = SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                Int32(SDL_TEXTUREACCESS_STATIC.rawValue),
                Int32(bitmap.width), Int32(bitmap.height))
        else { return nil }
        if let premultipliedMode {
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

    /// Releases every texture now and uploads nothing more (before the renderer goes away).
    func releaseAll() {
        workQueue.invalidate()
        for backing in backings.values {
            SDL_DestroyTexture(backing.texture)
            if let layer = backing.layer, layer.backing === backing { layer.backing = nil }
        }
        backings.removeAll()
        for entry in textures.values { SDL_DestroyTexture(entry.texture) }
        textures.removeAll()
        textureBytes = 0
        layerTextureBytes = 0
    }
}
