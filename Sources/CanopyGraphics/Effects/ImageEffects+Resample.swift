import Foundation

// The resampling the effects need: shrinking by an integer factor (area average) and growing
// back bilinearly, on the blur's bordered 8.8 fixed-point planes; and stretching a mask's alpha
// with `Resampler`'s filter taps (`AxisWeights`), one channel instead of four.

extension ImageEffects {
    /// The image shrunk by `factor`, with a one-pixel border: plane pixel (i, j) for 1 <= i <= sw,
    /// 1 <= j <= sh (sw = ceil(width / factor), likewise sh) is the average of the block of
    /// factor x factor pixels from ((i - 1) * factor, (j - 1) * factor), the image extended by
    /// repeating its edge pixels where the last blocks overhang it. So plane pixel i is centred at
    /// (i - 0.5) * factor in image pixels, for every i, the border included.
    ///
    /// The border holds what the full-size blur extends the image with: the image's own edge
    /// pixels (averaged along the edge, block by block), not the blocks' averages. Nil if cancelled.
    static func downscale(_ image: Bitmap, factor: Int, isCancelled: () -> Bool) -> Plane? {
        let width = image.width, height = image.height
        let smallWidth = (width + factor - 1) / factor, smallHeight = (height + factor - 1) / factor
        let planeWidth = smallWidth + 2, planeHeight = smallHeight + 2
        let n = width * 4
        var sums = [UInt32](repeating: 0, count: n)
        let pollRows = rowsPerPoll(pixelPassesPerRow: width * factor)
        var cancelled = false
        let values = [UInt16](unsafeUninitializedCapacity: planeWidth * planeHeight * 4) { out, count in
            count = planeWidth * planeHeight * 4
            image.pixels.withUnsafeBufferPointer { src in
                sums.withUnsafeMutableBufferPointer { acc in
                    let source = src.baseAddress!, accumulated = acc.baseAddress!
                    // Plane row j from `acc`, the sum of `rows` image rows.
                    func emitRow(_ j: Int, rows: Int) {
                        let o = out.baseAddress! + j * planeWidth * 4
                        let blockCount = UInt64(rows * factor), edgeCount = UInt64(rows)
                        for c in 0..<4 {
                            o[c] = UInt16((UInt64(accumulated[c]) << 8 + edgeCount / 2) / edgeCount)
                            let last = (width - 1) * 4 + c
                            o[(planeWidth - 1) * 4 + c] = UInt16((UInt64(accumulated[last]) << 8 + edgeCount / 2) / edgeCount)
                        }
                        for i in 0..<smallWidth {
                            var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0, a: UInt64 = 0
                            for x in (i * factor)..<((i + 1) * factor) {
                                let p = accumulated + min(x, width - 1) * 4
                                r &+= UInt64(p[0]); g &+= UInt64(p[1]); b &+= UInt64(p[2]); a &+= UInt64(p[3])
                            }
                            let q = o + (i + 1) * 4, half = blockCount / 2
                            q[0] = UInt16((r << 8 + half) / blockCount)
                            q[1] = UInt16((g << 8 + half) / blockCount)
                            q[2] = UInt16((b << 8 + half) / blockCount)
                            q[3] = UInt16((a << 8 + half) / blockCount)
                        }
                    }
                    func load(row y: Int) {
                        let row = source + y * image.bytesPerRow
                        for i in 0..<n { accumulated[i] = UInt32(row[i]) }
                    }
                    load(row: 0)
                    emitRow(0, rows: 1)
                    for j in 0..<smallHeight {
                        if j % pollRows == 0, isCancelled() { cancelled = true; return }
                        load(row: min(j * factor, height - 1))
                        for k in 1..<factor {
                            let row = source + min(j * factor + k, height - 1) * image.bytesPerRow
                            for i in 0..<n { accumulated[i] &+= UInt32(row[i]) }
                        }
                        emitRow(j + 1, rows: factor)
                    }
                    load(row: height - 1)
                    emitRow(planeHeight - 1, rows: 1)
                }
            }
        }
        if cancelled { return nil }
        return Plane(width: planeWidth, height: planeHeight, values: values)
    }

    /// Bilinear taps along one axis of `length` image pixels from a plane made by `downscale`
    /// (pixel i centred at (i - 0.5) * factor): for each image pixel, the first plane pixel and
    /// the weight of the next.
    static func bilinearTaps(length: Int, factor: Int) -> (first: [Int], weight: [Float]) {
        var first = [Int](repeating: 0, count: length)
        var weight = [Float](repeating: 0, count: length)
        for p in 0..<length {
            let s = (Double(p) + 0.5) / Double(factor) + 0.5
            first[p] = Int(s.rounded(.down))
            weight[p] = Float(s - s.rounded(.down))
        }
        return (first, weight)
    }

    /// A plane made by `downscale` from a width x height image, grown back bilinearly and
    /// rounded to bytes. Nil if cancelled.
    static func upscale(
        _ plane: Plane, factor: Int, toWidth width: Int, height: Int,
        isCancelled: () -> Bool
    ) -> [UInt8]? {
        precondition(plane.width == (width + factor - 1) / factor + 2 && plane.height == (height + factor - 1) / factor + 2)
        let columns = bilinearTaps(length: width, factor: factor)
        let rows = bilinearTaps(length: height, factor: factor)
        let planeN = plane.width * 4
        // Per output column: the byte offset of its first plane pixel in a row of Floats.
        let offsets = columns.first.map { $0 * 16 }
        var line = [Float](repeating: 0, count: planeN)
        let pollRows = rowsPerPoll(pixelPassesPerRow: width)
        var cancelled = false
        let out = [UInt8](unsafeUninitializedCapacity: width * height * 4) { outBuffer, count in
            count = width * height * 4
            plane.values.withUnsafeBufferPointer { small in
                line.withUnsafeMutableBufferPointer { lineBuffer in
                    offsets.withUnsafeBufferPointer { fo in
                        columns.weight.withUnsafeBufferPointer { wx in
                            let l = lineBuffer.baseAddress!
                            let lineRaw = UnsafeRawPointer(l)
                            var o = outBuffer.baseAddress!
                            for y in 0..<height {
                                if y % pollRows == 0, isCancelled() { cancelled = true; return }
                                // The row interpolated vertically, in byte units.
                                let wy = rows.weight[y]
                                let top = small.baseAddress! + rows.first[y] * planeN
                                let bottom = top + planeN
                                let kTop = (1 - wy) / 256, kBottom = wy / 256
                                for i in 0..<planeN { l[i] = Float(top[i]) * kTop + Float(bottom[i]) * kBottom }
                                for x in 0..<width {
                                    let a = lineRaw.loadUnaligned(fromByteOffset: fo[x], as: SIMD4<Float>.self)
                                    let b = lineRaw.loadUnaligned(fromByteOffset: fo[x] &+ 16, as: SIMD4<Float>.self)
                                    let v = a + (b - a) * wx[x]
                                    UnsafeMutableRawPointer(o).storeBytes(of: roundedBytes(v), as: SIMD4<UInt8>.self)
                                    o += 4
                                }
                            }
                        }
                    }
                }
            }
        }
        return cancelled ? nil : out
    }

    /// Values in -0.5...255.5 rounded to the nearest bytes without a trapping conversion.
    @inline(__always)
    static func roundedBytes(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
        let bits = unsafeBitCast(v + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self) &- 0x4B40_0000
        return SIMD4<UInt8>(truncatingIfNeeded: bits)
    }

    /// The alpha channel of `mask` stretched to width x height (rows packed). Nil if cancelled.
    static func stretchedAlpha(
        of mask: Bitmap, toWidth width: Int, height: Int,
        isCancelled: () -> Bool
    ) -> [UInt8]? {
        if mask.width == 0 || mask.height == 0 { return [UInt8](repeating: 0, count: width * height) }
        let pollRows = rowsPerPoll(pixelPassesPerRow: width)
        var cancelled = false
        if mask.width == width && mask.height == height {
            let alpha = [UInt8](unsafeUninitializedCapacity: width * height) { out, count in
                count = width * height
                mask.pixels.withUnsafeBufferPointer { src in
                    for y in 0..<height {
                        if y % pollRows == 0, isCancelled() { cancelled = true; return }
                        let s = src.baseAddress! + y * mask.bytesPerRow + 3, d = out.baseAddress! + y * width
                        for x in 0..<width { d[x] = s[x &* 4] }
                    }
                }
            }
            return cancelled ? nil : alpha
        }
        let columns = AxisWeights(
            outputs: 0..<width, destination: 0...Double(width),
            source: 0...Double(mask.width), sourceCount: mask.width)
        let rows = AxisWeights(
            outputs: 0..<height, destination: 0...Double(height),
            source: 0...Double(mask.height), sourceCount: mask.height)
        // Horizontally first, each mask row to `width` values; then each output row from those.
        var wide = [Float](repeating: 0, count: width * mask.height)
        var line = [Float](repeating: 0, count: width)
        let alpha = [UInt8](unsafeUninitializedCapacity: width * height) { out, count in
            count = width * height
            mask.pixels.withUnsafeBufferPointer { src in
                wide.withUnsafeMutableBufferPointer { wideBuffer in
                    line.withUnsafeMutableBufferPointer { lineBuffer in
                        let wideBase = wideBuffer.baseAddress!, acc = lineBuffer.baseAddress!
                        for y in 0..<mask.height {
                            if y % pollRows == 0, isCancelled() { cancelled = true; return }
                            let s = src.baseAddress! + y * mask.bytesPerRow + 3, d = wideBase + y * width
                            for x in 0..<width {
                                var v: Float = 0
                                let first = columns.first[x], o = x * columns.stride
                                for k in 0..<columns.taps[x] { v += columns.weights[o + k] * Float(s[(first + k) * 4]) }
                                d[x] = v
                            }
                        }
                        for y in 0..<height {
                            if y % pollRows == 0, isCancelled() { cancelled = true; return }
                            for x in 0..<width { acc[x] = 0 }
                            for k in 0..<rows.taps[y] {
                                let w = rows.weights[y * rows.stride + k], r = wideBase + (rows.first[y] + k) * width
                                for x in 0..<width { acc[x] += w * r[x] }
                            }
                            let d = out.baseAddress! + y * width
                            for x in 0..<width { d[x] = UInt8(truncatingIfNeeded: roundedUInt16(min(max(acc[x], 0), 255))) }
                        }
                    }
                }
            }
        }
        return cancelled ? nil : alpha
    }
}
