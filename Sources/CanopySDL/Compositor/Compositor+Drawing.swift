import Canopy
import CanopyGraphics
import CSDL2
import Foundation

/// What the compositor draws with, in window points: fills and strokes, plain and rounded, and
/// bitmaps. The tree walk draws layers' backgrounds, borders and contents with them, and the
/// overlays their panels, graphs and text; each lands in the current offscreen target, if any.
extension Compositor {
    /// Strokes a rect's edges inward by `width` points.
    public func strokeInside(_ rect: CGRect, width: CGFloat, color: Color, alpha: CGFloat = 1) {
        let w = min(width, rect.width / 2), h = min(width, rect.height / 2)
        fill(CGRect(x: rect.minX, y: rect.minY, width: rect.width, height: h), color: color, alpha: alpha)
        fill(CGRect(x: rect.minX, y: rect.maxY - h, width: rect.width, height: h), color: color, alpha: alpha)
        fill(CGRect(x: rect.minX, y: rect.minY + h, width: w, height: rect.height - 2 * h), color: color, alpha: alpha)
        fill(CGRect(x: rect.maxX - w, y: rect.minY + h, width: w, height: rect.height - 2 * h), color: color, alpha: alpha)
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
    func drawTexture(_ texture: OpaquePointer, in rect: CGRect, alpha: CGFloat) {
        let a = UInt8(min(255, max(0, (alpha * 255).rounded())))
        if usesPremultipliedBlending {
            // Premultiplied: fading must scale colour and alpha alike.
            SDL_SetTextureColorMod(texture, a, a, a)
        }
        SDL_SetTextureAlphaMod(texture, a)
        var r = inTarget(pixelRect(rect))
        SDL_RenderCopy(renderer, texture, nil, &r)
    }
}
