import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// Rounded clips: a layer that clips to a rounded rect is drawn into an offscreen target, whose
/// corners are then cut by the layer's mask (`ScratchTextures`) before it goes back over what
/// is below; on the CPU where the renderer has no blend mode for it.
extension Compositor {
    /// The offscreen target being drawn into for a rounded clip: its place in window pixels
    /// (`rect`), the clipping layer's rect and corner radius in pixels, and its pool index.
    struct Offscreen { var rect: SDL_Rect; var layerRect: SDL_Rect; var radius: Int; var pool: Int }

    /// Starts drawing a layer that clips to a rounded rect into an offscreen target covering
    /// the visible part of `frame` (the clip is already pushed). False when there is nothing to
    /// draw or no target could be made (the clip then stays rectangular).
    func beginRoundedClip(_ frame: CGRect, radius: CGFloat) -> Bool {
        let layerRect = pixelRect(frame)
        // The background's mask (the mask clamps the radius to the rect).
        let pixelRadius = Int((radius * scale).rounded())
        guard pixelRadius > 0, var visible = clipStack.last else { return false }
        var bounds = offscreens.last?.rect ?? outputRect
        var out = SDL_Rect()
        guard SDL_IntersectRect(&visible, &bounds, &out) == SDL_TRUE, out.w > 0, out.h > 0,
            let pool = scratchTextures.acquireTarget(width: Int(out.w), height: Int(out.h), frame: frameNumber)
        else { return false }
        let texture = scratchTextures.target(pool)
        guard SDL_SetRenderTarget(renderer, texture) == 0 else {
            scratchTextures.releaseTarget(pool)
            SDL_SetRenderTarget(renderer, offscreens.last.map { scratchTextures.target($0.pool) })
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
    func endRoundedClip() {
        let offscreen = offscreens.removeLast()
        let target = scratchTextures.target(offscreen.pool)
        let rect = offscreen.rect, layer = offscreen.layerRect
        let key = ScratchTextures.MaskKey(width: Int(layer.w), height: Int(layer.h), radius: offscreen.radius)
        var source = SDL_Rect(x: 0, y: 0, w: rect.w, h: rect.h)
        let below = offscreens.last.map { scratchTextures.target($0.pool) }
        if usesMaskBlending, let mask = scratchTextures.mask(key, frame: frameNumber) {
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
                scratchTextures.releaseTarget(offscreen.pool)
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
        scratchTextures.releaseTarget(offscreen.pool)
    }

    /// Premultiplied pixels of `rect` (window pixels) times the coverage of the rounded `layer`
    /// rect, made straight. The coverage is `GraphicsContext`'s (`RoundShape`), as the masks'.
    private static func cutCornersAndUnpremultiply(_ pixels: inout [UInt8], rect: SDL_Rect, layer: SDL_Rect, radius: Int) {
        let r = Double(radius)
        let y0 = Double(layer.y), y1 = y0 + Double(layer.h)
        // The layer's rounded rect placed relative to `rect`, whose first pixel is (0, 0) there.
        let shape = RoundShape(
            x0: Double(layer.x - rect.x), y0: Double(layer.y - rect.y),
            x1: Double(layer.x - rect.x + layer.w), y1: Double(layer.y - rect.y + layer.h),
            radius: r)
        let width = Int(rect.w)
        var coverages = [Float](repeating: 1, count: width)
        for row in 0..<Int(rect.h) {
            let y = Int(rect.y) + row
            let cornerRow = Double(y) < y0 + r || Double(y + 1) > y1 - r
            if cornerRow { shape.coverage(ofRow: row, into: &coverages) }
            for column in 0..<width {
                let i = (row * width + column) * 4
                let alpha = pixels[i + 3]
                guard alpha > 0, alpha < 255 || cornerRow else { continue }
                let coverage = cornerRow ? Double(coverages[column]) : 1
                // Straight colour is the premultiplied one over the alpha, whatever the coverage.
                let straight = 255 / Double(alpha)
                for c in 0..<3 {
                    pixels[i + c] = UInt8(min(255, (Double(pixels[i + c]) * straight).rounded()))
                }
                pixels[i + 3] = UInt8(min(255, (Double(alpha) * coverage).rounded()))
            }
        }
    }
}
