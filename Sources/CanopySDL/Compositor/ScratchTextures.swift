import CanopyGraphics
import CSDL2

/// The compositor's own scratch textures, and the bytes they hold: the masks of rounded rects
/// and of their borders' rings, and a pool of offscreen targets for rounded clips. Each is kept
/// until `evictionAge` frames after its last use, so that what is drawn every frame is made once.
/// Main thread only.
@MainActor
final class ScratchTextures {
    /// A rounded rect's mask (`border` 0), or its border's ring (`border` pixels wide).
    struct MaskKey: Hashable {
        var width: Int; var height: Int; var radius: Int; var border: Int = 0
        var bytes: Int { width * height * 4 }
    }
    private struct MaskEntry { var texture: OpaquePointer; var lastUsedFrame: Int }

    /// A target texture of the pool; several at once when rounded clips nest.
    private struct PooledTarget {
        var texture: OpaquePointer; var width: Int; var height: Int; var inUse: Bool; var lastUsedFrame: Int
        var bytes: Int { width * height * 4 }
    }

    private let renderer: OpaquePointer
    private var masks: [MaskKey: MaskEntry] = [:]
    private var targetPool: [PooledTarget] = []
    /// The bytes held by the masks and the targets.
    private(set) var bytes = 0

    init(renderer: OpaquePointer) {
        self.renderer = renderer
    }

    // MARK: Masks

    /// The mask of `key`, used in frame `frame`, made on first use.
    func mask(_ key: MaskKey, frame: Int) -> OpaquePointer? {
        let texture: OpaquePointer
        if let entry = masks[key] {
            texture = entry.texture
        } else {
            guard let made = makeRoundedMask(key) else { return nil }
            texture = made
            bytes += key.bytes
        }
        masks[key] = MaskEntry(texture: texture, lastUsedFrame: frame)
        return texture
    }

    /// A white mask of a rounded rect, or of its border's ring when `key.border` > 0 (the rect
    /// less the rect inset by the border, whose radius is that much smaller), straight alpha,
    /// anti-aliased by coverage. The coverage is `GraphicsContext`'s own (`RoundShape`), so a
    /// rounded layer composited here has the edges of one rasterized there.
    private func makeRoundedMask(_ key: MaskKey) -> OpaquePointer? {
        let w = key.width, h = key.height
        let radius = Double(min(key.radius, min(w, h) / 2))
        let border = Double(min(key.border, min(w, h) / 2))
        let shape = RoundShape(x0: 0, y0: 0, x1: Double(w), y1: Double(h), radius: radius)
        let hole =
            border > 0
            ? RoundShape(
                x0: border, y0: border, x1: Double(w) - border, y1: Double(h) - border,
                radius: max(0, radius - border)) : nil
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        var row = [Float](repeating: 0, count: w)
        for y in 0..<h {
            shape.coverage(ofRow: y, minus: hole, into: &row)
            for x in 0..<w {
                pixels[(y * w + x) * 4 + 3] = UInt8((Double(row[x]) * 255).rounded())
            }
        }
        guard
            let texture = SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                Int32(SDL_TEXTUREACCESS_STATIC.rawValue), Int32(w), Int32(h))
        else { return nil }
        pixels.withUnsafeBytes { _ = SDL_UpdateTexture(texture, nil, $0.baseAddress, Int32(w * 4)) }
        SDL_SetTextureBlendMode(texture, SDL_BLENDMODE_BLEND)
        return texture
    }

    // MARK: Targets

    /// A free target texture at least `width` x `height` pixels (sizes rounded up to 64, so
    /// layers that change size a little reuse them), taken for frame `frame`; its pool index, or nil.
    func acquireTarget(width: Int, height: Int, frame: Int) -> Int? {
        if let index = targetPool.firstIndex(where: {
            !$0.inUse && $0.width >= width && $0.height >= height
                && $0.width - width < 256 && $0.height - height < 256
        }) {
            targetPool[index].inUse = true
            targetPool[index].lastUsedFrame = frame
            return index
        }
        let w = (width + 63) / 64 * 64, h = (height + 63) / 64 * 64
        guard
            let texture = SDL_CreateTexture(
                renderer, SDL_PIXELFORMAT_ABGR8888.rawValue,
                Int32(SDL_TEXTUREACCESS_TARGET.rawValue), Int32(w), Int32(h))
        else { return nil }
        SDL_SetTextureScaleMode(texture, SDL_ScaleModeNearest)
        targetPool.append(PooledTarget(texture: texture, width: w, height: h, inUse: true, lastUsedFrame: frame))
        bytes += targetPool[targetPool.count - 1].bytes
        return targetPool.count - 1
    }

    /// The texture of the target at `index`.
    func target(_ index: Int) -> OpaquePointer { targetPool[index].texture }

    /// Gives the target at `index` back to the pool.
    func releaseTarget(_ index: Int) { targetPool[index].inUse = false }

    /// Gives every target back to the pool (a new frame starts with none in use).
    func releaseTargets() {
        for index in targetPool.indices { targetPool[index].inUse = false }
    }

    // MARK: Eviction

    /// At the end of frame `frame`: destroys the masks and the free targets unused for more
    /// than `evictionAge` frames.
    func endFrame(_ frame: Int, evictionAge: Int) {
        for (key, entry) in masks where frame - entry.lastUsedFrame > evictionAge {
            SDL_DestroyTexture(entry.texture)
            bytes -= key.bytes
            masks[key] = nil
        }
        targetPool.removeAll { target in
            guard !target.inUse, frame - target.lastUsedFrame > evictionAge else { return false }
            SDL_DestroyTexture(target.texture)
            bytes -= target.bytes
            return true
        }
    }

    /// Destroys every mask and target (before the renderer goes away).
    func releaseAll() {
        for target in targetPool { SDL_DestroyTexture(target.texture) }
        targetPool.removeAll()
        for entry in masks.values { SDL_DestroyTexture(entry.texture) }
        masks.removeAll()
        bytes = 0
    }
}
