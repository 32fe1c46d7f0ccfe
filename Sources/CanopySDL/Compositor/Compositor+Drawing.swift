import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// What the compositor draws with, in window points: fills and strokes, plain and rounded, and
/// bitmaps. The tree walk draws layers' backgrounds, borders and contents with them, and the
/// overlays their panels, graphs and text; each lands in the current offscreen target, if any.
extension Compositor {
    /// Strokes a rect's edges inward by `width` points: its four edges filled in one draw.
    public func strokeInside(_ rect: CGRect, width: CGFloat, color: Color, alpha: CGFloat = 1) {
        let w = min(width, rect.width / 2), h = min(width, rect.height / 2)
        fill(
            [
                CGRect(x: rect.minX, y: rect.minY, width: rect.width, height: h),
                CGRect(x: rect.minX, y: rect.maxY - h, width: rect.width, height: h),
                CGRect(x: rect.minX, y: rect.minY + h, width: w, height: rect.height - 2 * h),
                CGRect(x: rect.maxX - w, y: rect.minY + h, width: w, height: rect.height - 2 * h),
            ], color: color, alpha: alpha)
    }

    /// Fills rects given in window points with one colour, in one draw (a software rasterizer
    /// pays for each draw call: a graph's bars cost one, not one each). Overlapping rects blend
    /// twice where the colour is translucent.
    public func fill(_ rects: [CGRect], color: Color, alpha: CGFloat = 1) {
        let c = color.withAlpha(color.alpha * alpha).rgba8
        guard c.a > 0 else { return }
        // On the stack: a frame fills every card's border this way.
        withUnsafeTemporaryAllocation(of: SDL_Rect.self, capacity: rects.count) { pixels in
            var count = 0
            for rect in rects {
                let r = inTarget(pixelRect(rect))
                guard r.w > 0, r.h > 0 else { continue }
                pixels[count] = r
                count += 1
            }
            guard count > 0 else { return }
            SDL_SetRenderDrawBlendMode(renderer, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND)
            SDL_SetRenderDrawColor(renderer, c.r, c.g, c.b, c.a)
            SDL_RenderFillRects(renderer, pixels.baseAddress, Int32(count))
        }
    }

    /// Strokes a rounded rect's edges inward by `width` points: the outer edge has the corner
    /// radius, the inner one the radius less the width (square when that is not positive), as
    /// Core Animation's border.
    public func strokeRoundedInside(_ rect: CGRect, width: CGFloat, radius: CGFloat, color: Color, alpha: CGFloat = 1) {
        var r = pixelRect(rect)
        let border = Int((width * scale).rounded())
        let key = ScratchTextures.MaskKey(
            width: Int(r.w), height: Int(r.h), radius: Int((radius * scale).rounded()),
            border: border)
        guard r.w > 0, r.h > 0, border > 0 else { return }
        guard key.radius > 0 else { return strokeInside(rect, width: width, color: color, alpha: alpha) }
        guard let texture = scratchTextures.mask(key, frame: frameNumber) else {
            return strokeInside(rect, width: width, color: color, alpha: alpha)
        }
        let c = color.rgba8
        SDL_SetTextureColorMod(texture, c.r, c.g, c.b)
        SDL_SetTextureAlphaMod(texture, UInt8(min(255, max(0, (color.alpha * alpha * 255).rounded()))))
        r = inTarget(r)
        SDL_RenderCopy(renderer, texture, nil, &r)
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
        let key = ScratchTextures.MaskKey(width: Int(r.w), height: Int(r.h), radius: Int((radius * scale).rounded()))
        // Less than half a pixel of radius is a plain rect.
        guard key.radius > 0, let texture = scratchTextures.mask(key, frame: frameNumber) else {
            return fill(rect, color: color, alpha: alpha)
        }
        let c = color.rgba8
        SDL_SetTextureColorMod(texture, c.r, c.g, c.b)
        SDL_SetTextureAlphaMod(texture, UInt8(min(255, max(0, (color.alpha * alpha * 255).rounded()))))
        r = inTarget(r)
        SDL_RenderCopy(renderer, texture, nil, &r)
    }

    /// Draws a bitmap stretched into a rect given in window points.
    public func drawBitmap(_ bitmap: Bitmap, in rect: CGRect, alpha: CGFloat = 1) {
        guard let texture = textureStore.texture(for: bitmap, frame: frameNumber) else { return }
        drawTexture(texture, in: rect, alpha: alpha)
    }

    /// Draws a texture (a layer's or a bitmap's) stretched into a rect given in window points.
    ///
    /// An opaque texture at full opacity is copied without blending. A texture drawn at its own
    /// size (the rect, snapped to whole pixels, has its pixel size: a layer's contents at the
    /// display's scale) is sampled nearest, the rest linearly; the two give the same pixels 1:1,
    /// and nearest sampling costs a software rasterizer a quarter of the texel reads.
    func drawTexture(_ texture: OpaquePointer, in rect: CGRect, alpha: CGFloat, isOpaque: Bool = false) {
        let a = Self.alphaByte(alpha)
        if usesPremultipliedBlending {
            // Premultiplied: fading must scale colour and alpha alike.
            SDL_SetTextureColorMod(texture, a, a, a)
        }
        SDL_SetTextureAlphaMod(texture, a)
        let opaque = isOpaque && a == 255
        SDL_SetTextureBlendMode(texture, opaque ? SDL_BLENDMODE_NONE : blendMode)
        var r = inTarget(pixelRect(rect))
        var w: Int32 = 0, h: Int32 = 0
        SDL_QueryTexture(texture, nil, nil, &w, &h)
        let sampling = r.w == w && r.h == h ? SDL_ScaleModeNearest : SDL_ScaleModeLinear
        var current = SDL_ScaleModeLinear
        if SDL_GetTextureScaleMode(texture, &current) != 0 || current != sampling {
            SDL_SetTextureScaleMode(texture, sampling)
        }
        SDL_RenderCopy(renderer, texture, nil, &r)
        drawCounts.textures += 1
        if opaque { drawCounts.opaqueTextures += 1 }
        if sampling == SDL_ScaleModeNearest { drawCounts.nearestTextures += 1 }
    }
}
