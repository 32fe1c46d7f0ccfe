import Foundation

extension TextLayout {
    /// Draws the lines with their top-left corner at `origin` (points, in the context's user
    /// space). Each segment is rendered by SDL_ttf as a white coverage mask and filled with its
    /// colour; shadows are drawn first, under all the text: the shadowed segments' masks are
    /// gathered into one buffer per shadow, blurred with `ImageEffects.blur` and filled with the
    /// shadow's colour at its offset.
    ///
    /// Draw at the scale the layout was made for (`context.scale == scale`) and at whole pixels
    /// for the sharpest result. Call on the thread that owns `context`; a segment SDL_ttf fails
    /// to render is left out.
    public func draw(in context: GraphicsContext, at origin: CGPoint) {
        struct Placed {
            var mask: Bitmap
            var x: Int  // pixels from the layout's left
            var y: Int  // pixels from the layout's top
            var color: Color
            var shadow: TextShadow?
            /// Colour glyphs' own pixels, drawn instead of the mask filled with `color`.
            var colors: Bitmap? = nil
        }
        var placed: [Placed] = []
        for line in lines {
            for segment in line.segments {
                if segment.pieces.isEmpty {
                    guard let mask = segment.handle.renderMask(segment.text, direction: segment.direction, scale: scale) else {
                        continue
                    }
                    placed.append(
                        Placed(
                            mask: mask.bitmap, x: segment.pixelX, y: segment.pixelBaseline - mask.baseline,
                            color: segment.color, shadow: segment.shadow, colors: mask.colors))
                } else {
                    for piece in segment.pieces {
                        guard let mask = segment.handle.renderMask(piece.text, direction: segment.direction, scale: scale) else {
                            continue
                        }
                        placed.append(
                            Placed(
                                mask: mask.bitmap, x: segment.pixelX + piece.x,
                                y: segment.pixelBaseline - mask.baseline,
                                color: segment.color, shadow: segment.shadow, colors: mask.colors))
                    }
                }
            }
        }

        // Shadows, one buffer per distinct shadow, in the order they first appear.
        var shadows: [TextShadow] = []
        for item in placed {
            if let shadow = item.shadow, !shadows.contains(shadow) { shadows.append(shadow) }
        }
        for shadow in shadows {
            drawShadow(
                shadow, of: placed.filter { $0.shadow == shadow }.map { ($0.mask, $0.x, $0.y) },
                in: context, at: origin)
        }

        for item in placed {
            let rect = CGRect(
                x: origin.x + CGFloat(item.x) / scale, y: origin.y + CGFloat(item.y) / scale,
                width: CGFloat(item.mask.width) / scale, height: CGFloat(item.mask.height) / scale)
            if let colors = item.colors {
                context.draw(colors, in: rect, contentMode: .scaleToFill)
            } else {
                context.fill(mask: item.mask, in: rect, with: item.color)
            }
        }
    }

    /// Gathers masks into one buffer with room for the blur, blurs it at full resolution with
    /// `ImageEffects.blur` (which shrinks very wide blurs by itself) and fills it with the
    /// shadow's colour, offset.
    private func drawShadow(
        _ shadow: TextShadow, of masks: [(mask: Bitmap, x: Int, y: Int)],
        in context: GraphicsContext, at origin: CGPoint
    ) {
        guard !masks.isEmpty, shadow.color.alpha > 0 else { return }
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        for m in masks {
            minX = min(minX, m.x); minY = min(minY, m.y)
            maxX = max(maxX, m.x + m.mask.width); maxY = max(maxY, m.y + m.mask.height)
        }
        // Three box blurs of about 1.88 sigma each spread ink about 2.8 sigma out.
        let sigma = TextShadow.usableBlurRadius(shadow.blurRadius) * scale
        let pad = sigma > 0 ? Int((sigma * 2.9).rounded(.up)) + 2 : 0
        let width = maxX - minX + 2 * pad, height = maxY - minY + 2 * pad
        guard width > 0, height > 0 else { return }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes { raw in
            let dst = raw.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for m in masks {
                let mw = m.mask.width, mh = m.mask.height, stride = m.mask.bytesPerRow / 4
                m.mask.pixels.withUnsafeBytes { srcRaw in
                    let src = srcRaw.baseAddress!.assumingMemoryBound(to: UInt32.self)
                    for row in 0..<mh {
                        let d = dst + (m.y - minY + pad + row) * width + (m.x - minX + pad)
                        let s = src + row * stride
                        for col in 0..<mw {
                            // White masks: every byte is the coverage, so the larger word wins.
                            let value = s[col]
                            if value > d[col] { d[col] = value }
                        }
                    }
                }
            }
        }
        let gathered = Bitmap(width: width, height: height, scale: scale, pixels: pixels)
        let blurred = sigma > 0 ? (ImageEffects.blur(gathered, radius: shadow.blurRadius) ?? gathered) : gathered
        let rect = CGRect(
            x: origin.x + CGFloat(minX - pad) / scale + shadow.offset.width,
            y: origin.y + CGFloat(minY - pad) / scale + shadow.offset.height,
            width: CGFloat(blurred.width) / scale, height: CGFloat(blurred.height) / scale)
        context.fill(mask: blurred, in: rect, with: shadow.color)
    }
}
